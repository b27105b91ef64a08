/* cml-variational-groupoid.c — the discrete Lagrange–d'Alembert integrators on the Lie
 * groupoid of a product algebroid T M₁ × ℝᵏ × (so(3) ⋉ M₂) (variational: second order;
 * variational4: its symmetric triple jump, fourth order).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.2.  The sections split into those with a constant anchor c_A (along one
 * base coordinate, or zero) and no brackets, and one so(3) (constant brackets C, Killing form
 * K) whose anchor ρ_A(x) = R_A x is linear in the base coordinates the constant ones do not
 * move: the groupoid (M₁ × M₁) × ℝᵏ × (SO(3) ⋉ M₂), SO(3) acting on M₂ on the right.  A step
 * of size h has the discrete velocity y (the so(3) part ξ); the base point moves by
 *
 *   x₁ = x₀ + h c y + h R(ξ) x_m,   x_m = (x₀ + x₁)/2,
 *
 * i.e. (I − (h/2) R(ξ)) x_m = x₀ + (h/2) c y: the implicit midpoint rule of the anchor, which
 * on M₂ is the action of the Cayley image cay(h ξ) (x₁ = cay(h R(ξ)) x₀).  With the discrete
 * Lagrangian L_d = h L(t + h/2, x_m, y) and the constraints at the same point, a step
 * (x₀, p₀) ↦ (x₁, p₁) solves for y and ν = (h/2) λ
 *
 *   p₀ = M⁺(y) − (h/2) ρ(x₀)ᵀ L_x − (h/2) Q − Φ_yᵀ ν,   φ(t + h/2, x_m, y) = 0,
 *
 * and sets p₁ = M⁻(y) + (h/2) ρ(x₁)ᵀ L_x + (h/2) Q + Φ_yᵀ ν, with L_x, Q (the forces of
 * [forces]) and Φ_y at (t + h/2, x_m, y), the anchor ρ at the nodes, and the node momenta of
 * the Cayley map (zero brackets leave M^± = μ)
 *
 *   M^±_B = μ_B ∓ (h/2) C^C_AB ξ^A μ_C − (h²/8) (μ_C ξ^C) K_AB ξ^A,   μ = L_y.
 *
 * On T Q it is the midpoint rule of cml-variational.c, on so(3) its Cayley rule.  Newton's
 * method with the exact Jacobian: x_m depends on y through ∂x_m/∂y^D = (h/2) A⁻¹ ρ_D(x_m),
 * A = I − (h/2) R(ξ).  Reconstruction variables follow the implicit midpoint rule at
 * (t + h/2, x_m, y).  The velocity shown at a node solves L_y = p + Φ_yᵀ ν, φ = 0 there.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-groupoid.h"

#include "cml-error.h"
#include "cml-system-private.h"

#include <float.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>

#define GV_NEWTON_MAX_IT 30
#define GV_TOL 1e-10

/* Outputs of the compiled program at (t, x, y, r), as in cml-variational.c: Lvq[A m + i] =
 * ∂²L/∂y^A∂x^i, Pvq[(a n + A) m + i], Pvv[(a n + A) n + B], Fr[k nr + l], Qv[A n + B],
 * Qq[A m + i]. */
typedef struct
{
  guint m, n, s, nr, nq;
  guint Lv, Lq, phi, Pv, Pq, Lvv, Lvq, Lqq, Pvq, Pvv, F, Fr, Q, Qv, Qq, total;
} Layout;

/* The algebroid's structure as the method uses it. */
typedef struct
{
  guint m, n;
  double *c;   /* m n: the constant part of the anchor, c[i n + A] */
  double *R;   /* n m m: R[(A m + i) m + j] = ∂ρ^i_A/∂x^j */
  double *C;   /* n³: C[(A n + B) n + D] = C^D_AB */
  double *K;   /* n²: the Killing form of the so(3) part */
  gboolean *cay; /* n: the section belongs to the so(3) part */
} Structure;

struct _CmlGroupoidVar
{
  CmlSystem *sys;
  CmlProgram *prog;
  Layout      L;
  Structure   S;
  CmlIntegratorOptions options;
  guint       dim;
  double     *regs, *fast, *out;
  double      cost_per_eval;

  double     *p, *z_last;
  double      t_last;
  gboolean    p_valid;

  /* work */
  double     *y, *nu, *x1, *xm, *X, *W, *Mc, *kx, *wx, *rhs, *pp, *z_good, *vnode, *rm, *dr;
  gsl_matrix *J, *A, *Jr;
  gsl_permutation *perm, *permA, *permr;

  double      cost;
  guint64     n_steps;
  double      midpoint_residual;
};

static void
layout_init (Layout *L, guint m, guint n, guint s, guint nr, guint nq)
{
  guint o = 0;
  L->m = m, L->n = n, L->s = s, L->nr = nr, L->nq = nq;
  L->Lv = o, o += n;
  L->Lq = o, o += m;
  L->phi = o, o += s;
  L->Pv = o, o += s * n;
  L->Pq = o, o += s * m;
  L->Lvv = o, o += n * n;
  L->Lvq = o, o += n * m;
  L->Lqq = o, o += m * m;
  L->Pvq = o, o += s * n * m;
  L->Pvv = o, o += s * n * n;
  L->F = o, o += nr;
  L->Fr = o, o += nr * nr;
  L->Q = o, o += nq;
  L->Qv = o, o += nq * n;
  L->Qq = o, o += nq * m;
  L->total = o;
}

static void
structure_clear (Structure *S)
{
  g_clear_pointer (&S->c, g_free);
  g_clear_pointer (&S->R, g_free);
  g_clear_pointer (&S->C, g_free);
  g_clear_pointer (&S->K, g_free);
  g_clear_pointer (&S->cay, g_free);
}

/* R(ξ) = Σ_A ξ^A R_A into OUT (m × m). */
static void
rep_of (const Structure *S, const double *xi, double *out)
{
  guint m = S->m, n = S->n;
  memset (out, 0, m * m * sizeof (double));
  for (guint A = 0; A < n; A++)
    if (S->cay[A] && xi[A] != 0)
      for (guint k = 0; k < m * m; k++)
        out[k] += xi[A] * S->R[A * m * m + k];
}

/* Reads the structure of SYS's algebroid into S; FALSE with a translated phrase in *WHY
 * naming the kind it is not. */
static gboolean
structure_read (CmlSystem *sys, Structure *S, const char **why)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n;

  S->m = m, S->n = n;
  S->c = g_new0 (double, m * n + 1);
  S->R = g_new0 (double, n * m * m + 1);
  S->C = g_new0 (double, n * n * n + 1);
  S->K = g_new0 (double, n * n + 1);
  S->cay = g_new0 (gboolean, n + 1);

  double scale = 0;
  for (guint k = 0; k < n * n * n; k++)
    if (md->bracket && md->bracket[k] && !cml_expr_is_number (md->bracket[k], &S->C[k]))
      {
        *why = _("its algebroid is a Lie algebroid whose brackets are not constant numbers (they depend on the base point or on "
                 "parameters), for which no discrete groupoid method exists yet");
        return FALSE;
      }
    else
      scale = MAX (scale, fabs (S->C[k]));
  guint ncay = 0;
  for (guint A = 0; A < n; A++)
    {
      for (guint B = 0; B < n && !S->cay[A]; B++)
        for (guint D = 0; D < n && !S->cay[A]; D++)
          S->cay[A] = S->C[(A * n + B) * n + D] != 0 || S->C[(B * n + A) * n + D] != 0 || S->C[(B * n + D) * n + A] != 0;
      ncay += S->cay[A];
    }
  if (ncay != 0 && ncay != 3)
    {
      *why = _("its algebroid is a Lie algebroid whose bracketed sections are not three (its Lie algebra part is not so(3)), "
               "for which no discrete groupoid method exists yet");
      return FALSE;
    }
  /* the Jacobi identity and the Killing form of the bracketed part */
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      for (guint D = 0; D < n; D++)
        for (guint E = 0; E < n; E++)
          {
            double j = 0;
            for (guint F = 0; F < n; F++)
              j += S->C[(B * n + D) * n + F] * S->C[(A * n + F) * n + E]
                   + S->C[(D * n + A) * n + F] * S->C[(B * n + F) * n + E]
                   + S->C[(A * n + B) * n + F] * S->C[(D * n + F) * n + E];
            if (fabs (j) > 1e-12 * (1 + scale * scale))
              {
                *why = _("its algebroid is a Lie algebroid whose brackets fail the Jacobi identity");
                return FALSE;
              }
          }
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      {
        double k = 0;
        for (guint D = 0; D < n; D++)
          for (guint E = 0; E < n; E++)
            k += S->C[(A * n + E) * n + D] * S->C[(B * n + D) * n + E];
        S->K[A * n + B] = k;
      }
  if (ncay == 3)
    {
      guint idx[3], k = 0;
      for (guint A = 0; A < n; A++)
        if (S->cay[A])
          idx[k++] = A;
      double K3[9];
      for (guint a = 0; a < 3; a++)
        for (guint b = 0; b < 3; b++)
          K3[a * 3 + b] = S->K[idx[a] * n + idx[b]];
      double d1 = K3[0], d2 = K3[0] * K3[4] - K3[1] * K3[3];
      double d3 = K3[0] * (K3[4] * K3[8] - K3[5] * K3[7]) - K3[1] * (K3[3] * K3[8] - K3[5] * K3[6])
                  + K3[2] * (K3[3] * K3[7] - K3[4] * K3[6]);
      if (!(d1 < 0 && d2 > 0 && d3 < 0))
        {
          *why = _("its algebroid is a Lie algebroid whose Lie algebra part is not so(3) (its Killing form is not negative "
                   "definite), for which no discrete groupoid method exists yet");
          return FALSE;
        }
    }

  /* the anchor: affine in the base coordinates with constant coefficients (derived under
   * the system's lock for things built on first use: the context memoises) */
  g_autofree CmlExpr **zero = g_new (CmlExpr *, m + 1);
  const char *anchor_why = NULL;
  g_mutex_lock (&sys->native_lock);
  for (guint i = 0; i < m; i++)
    zero[i] = cml_expr_num (ctx, 0);
  for (guint i = 0; i < m && !anchor_why; i++)
    for (guint A = 0; A < n && !anchor_why; A++)
      {
        CmlExpr *rho = md->anchor[i * n + A];
        if (!rho)
          continue;
        for (guint j = 0; j < m && !anchor_why; j++)
          if (!cml_expr_is_number (cml_expr_diff (ctx, rho, md->base_sym[j]), &S->R[(A * m + i) * m + j]))
            anchor_why = _("its algebroid is a Lie algebroid whose anchor is not linear in the base coordinates, "
                           "for which no discrete groupoid method exists yet");
        if (!anchor_why && !cml_expr_is_number (cml_expr_subs (ctx, rho, m, md->base_sym, zero), &S->c[i * n + A]))
          anchor_why = _("its algebroid is a Lie algebroid whose anchor depends on time or on parameters, for which "
                         "no discrete groupoid method exists yet");
      }
  g_mutex_unlock (&sys->native_lock);
  if (anchor_why)
    {
      *why = anchor_why;
      return FALSE;
    }

  /* the constant sections: no linear part, along one base coordinate each (or none), a
   * different one each; those coordinates are M₁, the so(3) part acts on the others only */
  g_autofree gboolean *tangent_coord = g_new0 (gboolean, m + 1);
  for (guint A = 0; A < n; A++)
    {
      guint nz = 0;
      for (guint i = 0; i < m; i++)
        {
          if (S->c[i * n + A] != 0)
            {
              nz++;
              if (tangent_coord[i])
                nz = 2;
              tangent_coord[i] = TRUE;
            }
          for (guint j = 0; j < m && !S->cay[A]; j++)
            if (S->R[(A * m + i) * m + j] != 0)
              nz = 2;
        }
      if (S->cay[A] ? nz > 0 : nz > 1)
        {
          *why = _("its algebroid is a Lie algebroid that is not a product of a tangent bundle and so(3) acting linearly on the "
                   "rest of the base, for which no discrete groupoid method exists yet");
          return FALSE;
        }
    }
  for (guint A = 0; A < n; A++)
    if (S->cay[A])
      for (guint i = 0; i < m; i++)
        for (guint j = 0; j < m; j++)
          if (S->R[(A * m + i) * m + j] != 0 && (tangent_coord[i] || tangent_coord[j]))
            {
              *why = _("its algebroid is a Lie algebroid that is not a product of a tangent bundle and so(3) acting linearly on the "
                       "rest of the base, for which no discrete groupoid method exists yet");
              return FALSE;
            }

  /* the anchor of the so(3) part is a right action (ρ([e_A, e_B]) = [ρ(e_A), ρ(e_B)]:
   * R_B R_A − R_A R_B = C^D_AB R_D) by the defining representation and trivial ones
   * (R(ξ)³ = (K(ξ, ξ)/2) R(ξ)), whose Cayley map is the Cayley map of the group */
  if (ncay == 3 && m > 0)
    {
      g_autofree double *Rx = g_new0 (double, m * m), *R2 = g_new0 (double, m * m), *R3 = g_new0 (double, m * m);
      double rscale = 0;
      for (guint k = 0; k < n * m * m; k++)
        rscale = MAX (rscale, fabs (S->R[k]));
      for (guint A = 0; A < n; A++)
        for (guint B = 0; B < n; B++)
          if (S->cay[A] && S->cay[B])
            for (guint i = 0; i < m; i++)
              for (guint j = 0; j < m; j++)
                {
                  double v = 0;
                  for (guint l = 0; l < m; l++)
                    v += S->R[(B * m + i) * m + l] * S->R[(A * m + l) * m + j]
                         - S->R[(A * m + i) * m + l] * S->R[(B * m + l) * m + j];
                  for (guint D = 0; D < n; D++)
                    v -= S->C[(A * n + B) * n + D] * S->R[(D * m + i) * m + j];
                  if (fabs (v) > 1e-12 * (1 + rscale * rscale) * (1 + scale))
                    {
                      *why = _("its algebroid is a Lie algebroid whose anchor does not represent its brackets");
                      return FALSE;
                    }
                }
      static const double probes[4][3] = { { 1, 0, 0 }, { 0.3, -1.1, 0.7 }, { -0.6, 0.2, 1.3 }, { 0.9, 0.8, -0.4 } };
      for (guint q = 0; q < 4; q++)
        {
          double xi[64] = { 0 }, kxx = 0;
          guint k = 0;
          if (n > 64)
            break;
          for (guint A = 0; A < n; A++)
            if (S->cay[A])
              xi[A] = probes[q][k++];
          for (guint A = 0; A < n; A++)
            for (guint B = 0; B < n; B++)
              kxx += S->K[A * n + B] * xi[A] * xi[B];
          rep_of (S, xi, Rx);
          for (guint i = 0; i < m; i++)
            for (guint j = 0; j < m; j++)
              {
                double v = 0;
                for (guint l = 0; l < m; l++)
                  v += Rx[i * m + l] * Rx[l * m + j];
                R2[i * m + j] = v;
              }
          double big = 0;
          for (guint i = 0; i < m; i++)
            for (guint j = 0; j < m; j++)
              {
                double v = 0;
                for (guint l = 0; l < m; l++)
                  v += R2[i * m + l] * Rx[l * m + j];
                R3[i * m + j] = v - 0.5 * kxx * Rx[i * m + j];
                big = MAX (big, fabs (v) + fabs (0.5 * kxx * Rx[i * m + j]));
              }
          for (guint k2 = 0; k2 < m * m; k2++)
            if (fabs (R3[k2]) > 1e-12 * (1 + big))
              {
                *why = _("its algebroid is a Lie algebroid on which so(3) acts by a representation other than rotations of "
                         "three-dimensional vectors, for which no discrete groupoid method exists yet");
                return FALSE;
              }
        }
    }
  return TRUE;
}

gboolean
cml_groupoid_var_supports (CmlSystem *sys, const char **why)
{
  const char *w = NULL;
  if (sys->formalism == CML_FORMALISM_VAKONOMIC)
    w = _("its constraints are vakonomic (the discrete vakonomic equations on a groupoid are not implemented yet)");
  else if (sys->formalism == CML_FORMALISM_SINGULAR)
    w = _("its Lagrangian is singular (the discrete constraint algorithm on a groupoid is not implemented yet)");
  else if (sys->formalism != CML_FORMALISM_EULER_LAGRANGE && sys->formalism != CML_FORMALISM_NONHOLONOMIC)
    w = _("its equations are of another kind");
  else if (sys->dim != sys->model->m + sys->model->n + sys->nr)
    w = _("its state is not the base, the fibre and the reconstruction variables");
  else
    {
      Structure S = { 0 };
      structure_read (sys, &S, &w);
      structure_clear (&S);
    }
  if (why)
    *why = w;
  return w == NULL;
}

/* The derivatives of L, φ, the reconstruction rates and the forces as one program with
 * inputs (t, x, y, r); built once per system under its lock. */
static CmlProgram *
ensure_program (CmlSystem *sys, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n, s = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? md->constraints->len : 0;
  guint nr = sys->nr, nf = 1 + m + n + nr;
  CmlProgram *prog;
  Layout L;

  g_mutex_lock (&sys->native_lock);
  if (sys->groupoid_prog)
    {
      prog = sys->groupoid_prog;
      g_mutex_unlock (&sys->native_lock);
      return prog;
    }
  layout_init (&L, m, n, s, nr, md->forces ? n : 0);
  g_autofree CmlExpr **o = g_new0 (CmlExpr *, MAX (L.total, 1));
  g_autofree int *fast = g_new (int, nf);
  fast[0] = md->t_sym;
  for (guint i = 0; i < m; i++)
    fast[1 + i] = md->base_sym[i];
  for (guint A = 0; A < n; A++)
    fast[1 + m + A] = md->fibre_sym[A];
  for (guint k = 0; k < nr; k++)
    fast[1 + m + n + k] = sys->state_sym[m + n + k];
  for (guint A = 0; A < n; A++)
    {
      CmlExpr *lv = cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[A]);
      o[L.Lv + A] = lv;
      for (guint B = 0; B < n; B++)
        o[L.Lvv + A * n + B] = cml_expr_diff (ctx, lv, md->fibre_sym[B]);
      for (guint i = 0; i < m; i++)
        o[L.Lvq + A * m + i] = cml_expr_diff (ctx, lv, md->base_sym[i]);
    }
  for (guint i = 0; i < m; i++)
    {
      CmlExpr *lq = cml_expr_diff (ctx, md->lagrangian, md->base_sym[i]);
      o[L.Lq + i] = lq;
      for (guint j = 0; j < m; j++)
        o[L.Lqq + i * m + j] = cml_expr_diff (ctx, lq, md->base_sym[j]);
    }
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      o[L.phi + a] = phi;
      for (guint i = 0; i < m; i++)
        o[L.Pq + a * m + i] = cml_expr_diff (ctx, phi, md->base_sym[i]);
      for (guint A = 0; A < n; A++)
        {
          CmlExpr *pv = cml_expr_diff (ctx, phi, md->fibre_sym[A]);
          o[L.Pv + a * n + A] = pv;
          for (guint i = 0; i < m; i++)
            o[L.Pvq + (a * n + A) * m + i] = cml_expr_diff (ctx, pv, md->base_sym[i]);
          for (guint B = 0; B < n; B++)
            o[L.Pvv + (a * n + A) * n + B] = cml_expr_diff (ctx, pv, md->fibre_sym[B]);
        }
    }
  for (guint k = 0; k < nr; k++)
    {
      o[L.F + k] = sys->rhs[m + n + k];
      for (guint l = 0; l < nr; l++)
        o[L.Fr + k * nr + l] = cml_expr_diff (ctx, sys->rhs[m + n + k], sys->state_sym[m + n + l]);
    }
  for (guint A = 0; A < L.nq; A++)
    {
      o[L.Q + A] = md->forces[A];
      for (guint B = 0; B < n; B++)
        o[L.Qv + A * n + B] = cml_expr_diff (ctx, md->forces[A], md->fibre_sym[B]);
      for (guint i = 0; i < m; i++)
        o[L.Qq + A * m + i] = cml_expr_diff (ctx, md->forces[A], md->base_sym[i]);
    }
  prog = cml_program_compile (ctx, o, L.total, sys->param_sym, sys->n_params, fast, nf, error);
  sys->groupoid_prog = prog;
  g_mutex_unlock (&sys->native_lock);
  return prog;
}

void
cml_groupoid_var_prepare (CmlSystem *sys)
{
  if (cml_groupoid_var_supports (sys, NULL))
    (void) ensure_program (sys, NULL);
}

CmlGroupoidVar *
cml_groupoid_var_new (CmlSystem *sys, const CmlIntegratorOptions *options, const double *params, GError **error)
{
  CmlModel *md = sys->model;
  const char *why = NULL;

  if (!cml_groupoid_var_supports (sys, &why))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s: %s", md->name, why);
      return NULL;
    }
  CmlProgram *prog = ensure_program (sys, error);
  if (!prog)
    return NULL;

  guint m = md->m, n = md->n, s = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? md->constraints->len : 0;
  guint k = n + s, nr = sys->nr;
  CmlGroupoidVar *var = g_new0 (CmlGroupoidVar, 1);
  var->sys = cml_system_ref (sys);
  var->prog = prog;
  layout_init (&var->L, m, n, s, nr, md->forces ? n : 0);
  structure_read (sys, &var->S, &why);
  var->dim = m + n + nr;
  var->options = *options;
  var->regs = g_new0 (double, cml_program_n_registers (prog) + 1);
  var->fast = g_new0 (double, 1 + var->dim);
  var->out = g_new0 (double, var->L.total + 1);
  guint rhs_cost = sys->rhs_prog ? cml_program_n_fast_instructions (sys->rhs_prog) : 0;
  var->cost_per_eval = (double) MAX (cml_program_n_fast_instructions (prog), 1) / MAX (rhs_cost, 1);
  var->p = g_new0 (double, n);
  var->z_last = g_new0 (double, var->dim);
  var->y = g_new0 (double, n);
  var->nu = g_new0 (double, s + 1);
  var->x1 = g_new0 (double, m + 1);
  var->xm = g_new0 (double, m + 1);
  var->X = g_new0 (double, m * n + 1);
  var->W = g_new0 (double, n * n);
  var->Mc = g_new0 (double, n);
  var->kx = g_new0 (double, n);
  var->wx = g_new0 (double, n);
  var->rhs = g_new0 (double, k + m + nr + 1);
  var->pp = g_new0 (double, n);
  var->z_good = g_new0 (double, var->dim);
  var->vnode = g_new0 (double, s + 1);
  var->rm = g_new0 (double, nr + 1);
  var->dr = g_new0 (double, nr + 1);
  var->J = gsl_matrix_alloc (k, k);
  var->perm = gsl_permutation_alloc (k);
  var->A = gsl_matrix_alloc (MAX (m, 1), MAX (m, 1));
  var->permA = gsl_permutation_alloc (MAX (m, 1));
  var->Jr = gsl_matrix_alloc (MAX (nr, 1), MAX (nr, 1));
  var->permr = gsl_permutation_alloc (MAX (nr, 1));
  cml_groupoid_var_set_params (var, params);
  return var;
}

void
cml_groupoid_var_free (CmlGroupoidVar *var)
{
  if (!var)
    return;
  structure_clear (&var->S);
  g_free (var->regs);
  g_free (var->fast);
  g_free (var->out);
  g_free (var->p);
  g_free (var->z_last);
  g_free (var->y);
  g_free (var->nu);
  g_free (var->x1);
  g_free (var->xm);
  g_free (var->X);
  g_free (var->W);
  g_free (var->Mc);
  g_free (var->kx);
  g_free (var->wx);
  g_free (var->rhs);
  g_free (var->pp);
  g_free (var->z_good);
  g_free (var->vnode);
  g_free (var->rm);
  g_free (var->dr);
  gsl_matrix_free (var->J);
  gsl_permutation_free (var->perm);
  gsl_matrix_free (var->A);
  gsl_permutation_free (var->permA);
  gsl_matrix_free (var->Jr);
  gsl_permutation_free (var->permr);
  cml_system_unref (var->sys);
  g_free (var);
}

void
cml_groupoid_var_set_params (CmlGroupoidVar *var, const double *params)
{
  cml_program_prepare (var->prog, params, var->regs);
  var->p_valid = FALSE;
}

void
cml_groupoid_var_reset (CmlGroupoidVar *var)
{
  var->p_valid = FALSE;
}

/* The program at (T, X, Y, R) into var->out; FALSE if an output is not finite. */
static gboolean
eval_at (CmlGroupoidVar *var, double t, const double *x, const double *y, const double *r)
{
  guint m = var->L.m, n = var->L.n, nr = var->L.nr;
  var->fast[0] = t;
  memcpy (var->fast + 1, x, m * sizeof (double));
  memcpy (var->fast + 1 + m, y, n * sizeof (double));
  memcpy (var->fast + 1 + m + n, r, nr * sizeof (double));
  cml_program_run (var->prog, var->fast, var->regs, var->out);
  var->cost += var->cost_per_eval;
  for (guint i = 0; i < var->L.total; i++)
    if (!isfinite (var->out[i]))
      return FALSE;
  return TRUE;
}

/* J x = b in place (k = n + s unknowns); FALSE if J is singular to working precision. */
static gboolean
solve (CmlGroupoidVar *var, double *b)
{
  guint k = var->L.n + var->L.s;
  int signum;
  double scale = 0;
  for (guint i = 0; i < k * k; i++)
    scale = MAX (scale, fabs (var->J->data[i]));
  gsl_linalg_LU_decomp (var->J, var->perm, &signum);
  for (guint i = 0; i < k; i++)
    if (!(fabs (gsl_matrix_get (var->J, i, i)) > 1e-14 * scale))
      return FALSE;
  gsl_vector_view bv = gsl_vector_view_array (b, k);
  gsl_linalg_LU_svx (var->J, var->perm, &bv.vector);
  return TRUE;
}

/* The anchor's matrix at X: rho[i n + A] = c^i_A + (R_A x)^i. */
static double
anchor_at (const Structure *S, const double *x, guint i, guint A)
{
  guint m = S->m, n = S->n;
  double v = S->c[i * n + A];
  if (S->cay[A])
    for (guint j = 0; j < m; j++)
      v += S->R[(A * m + i) * m + j] * x[j];
  return v;
}

/* The step's midpoint x_m from X0 and the velocity Y: (I − (h/2) R(ξ)) x_m = x₀ + (h/2) c y,
 * with X[i n + D] = ∂x_m^i/∂y^D = (h/2) A⁻¹ ρ_D(x_m), and x₁ = 2 x_m − x₀.  FALSE if A is
 * singular. */
static gboolean
midpoint (CmlGroupoidVar *var, double h, const double *x0, const double *y)
{
  const Structure *S = &var->S;
  guint m = S->m, n = S->n;
  double *A = var->A->data, *b = var->rhs, *xm = var->xm, *X = var->X;
  int signum;

  if (m == 0)
    return TRUE;
  rep_of (S, y, A);
  for (guint k = 0; k < m * m; k++)
    A[k] *= -0.5 * h;
  for (guint i = 0; i < m; i++)
    {
      A[i * m + i] += 1.0;
      double v = x0[i];
      for (guint D = 0; D < n; D++)
        v += 0.5 * h * S->c[i * n + D] * y[D];
      xm[i] = v;
    }
  gsl_linalg_LU_decomp (var->A, var->permA, &signum);
  for (guint i = 0; i < m; i++)
    if (gsl_matrix_get (var->A, i, i) == 0)
      return FALSE;
  gsl_vector_view xv = gsl_vector_view_array (xm, m);
  gsl_linalg_LU_svx (var->A, var->permA, &xv.vector);
  for (guint D = 0; D < n; D++)
    {
      for (guint i = 0; i < m; i++)
        b[i] = 0.5 * h * anchor_at (S, xm, i, D);
      gsl_vector_view bv = gsl_vector_view_array (b, m);
      gsl_linalg_LU_svx (var->A, var->permA, &bv.vector);
      for (guint i = 0; i < m; i++)
        X[i * n + D] = b[i];
    }
  for (guint i = 0; i < m; i++)
    var->x1[i] = 2.0 * xm[i] - x0[i];
  return TRUE;
}

/* The Cayley node momenta M^±(h, ξ) of μ (SIGN +1: the start node, −1: the end node) into
 * OUT; sections outside the so(3) part get μ_B. */
static void
node_momentum (const CmlGroupoidVar *var, double h, const double *xi, const double *mu, double sign, double *out)
{
  const Structure *S = &var->S;
  guint n = S->n;
  double mx = 0;
  for (guint C = 0; C < n; C++)
    if (S->cay[C])
      mx += mu[C] * xi[C];
  for (guint B = 0; B < n; B++)
    {
      double c = 0, k = 0;
      if (S->cay[B])
        for (guint A = 0; A < n; A++)
          {
            for (guint C = 0; C < n; C++)
              c += S->C[(A * n + B) * n + C] * xi[A] * mu[C];
            k += S->K[A * n + B] * xi[A];
          }
      out[B] = mu[B] - sign * 0.5 * h * c - 0.125 * h * h * mx * k;
    }
}

/* The reconstruction variables R over the step: r₁ = r₀ + h F(tm, x_m, y, (r₀ + r₁)/2), by
 * Newton's method. */
static gboolean
reconstruct (CmlGroupoidVar *var, double t0, double tm, double h, const double *xm, const double *y, double *r,
             GError **error)
{
  const Layout *L = &var->L;
  guint nr = L->nr;
  const double *o = var->out;
  double *d = var->dr, *rm = var->rm, *b = var->rhs, *J = var->Jr->data;

  if (nr == 0)
    return TRUE;
  memset (d, 0, nr * sizeof (double));
  for (int it = 0; it < GV_NEWTON_MAX_IT; it++)
    {
      double rmax = 0, c = 0;
      for (guint k = 0; k < nr; k++)
        {
          rm[k] = r[k] + 0.5 * d[k];
          rmax = MAX (rmax, fabs (r[k]));
        }
      if (!eval_at (var, tm, xm, y, rm))
        break;
      for (guint k = 0; k < nr; k++)
        {
          b[k] = -(d[k] - h * o[L->F + k]);
          for (guint l = 0; l < nr; l++)
            J[k * nr + l] = (k == l ? 1.0 : 0.0) - 0.5 * h * o[L->Fr + k * nr + l];
        }
      int signum;
      gsl_linalg_LU_decomp (var->Jr, var->permr, &signum);
      gsl_vector_view bv = gsl_vector_view_array (b, nr);
      if (gsl_linalg_LU_svx (var->Jr, var->permr, &bv.vector) != 0)
        break;
      for (guint k = 0; k < nr; k++)
        {
          d[k] += b[k];
          c = MAX (c, fabs (b[k]) / (fabs (r[k]) + fabs (d[k]) + 1e-6 * (1 + rmax)));
        }
      if (!isfinite (c))
        break;
      if (c <= GV_TOL)
        {
          for (guint k = 0; k < nr; k++)
            r[k] += d[k];
          return TRUE;
        }
    }
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               _("the midpoint rule for the reconstruction variables did not converge in the step from t = %.6g; "
                 "lower the step"), t0);
  return FALSE;
}

static void
step_failed (GError **error, const char *what, double t0)
{
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, _("%s in the step from t = %.6g; lower the step"), what, t0);
}

/* One step of size H from (T0, X, P) with the reconstruction variables R, in place,
 * Newton's method starting from var->y and var->nu (left at the solution). */
static gboolean
gv_step (CmlGroupoidVar *var, double t0, double h, double *x, double *p, double *r, GError **error)
{
  const Layout *L = &var->L;
  const Structure *S = &var->S;
  guint m = L->m, n = L->n, s = L->s, k = n + s;
  const double *o = var->out;
  double *y = var->y, *nu = var->nu, *b = var->rhs, *J = var->J->data, *X = var->X, *W = var->W, *Mc = var->Mc;
  double tm = t0 + 0.5 * h;
  gboolean done = FALSE;
  double pmax = 0;

  for (guint A = 0; A < n; A++)
    pmax = MAX (pmax, fabs (p[A]));
  for (int it = 0;; it++)
    {
      if (!midpoint (var, h, x, y) || !eval_at (var, tm, m ? var->xm : x, y, r))
        {
          step_failed (error, _("the discrete Lagrange–d'Alembert equations on the groupoid are not finite"), t0);
          return FALSE;
        }
      if (done)
        break;
      if (it == GV_NEWTON_MAX_IT)
        {
          step_failed (error, _("Newton's method for the discrete Lagrange–d'Alembert equations on the groupoid "
                                "did not converge"), t0);
          return FALSE;
        }
      const double *mu = o + L->Lv;
      /* W[C n + D] = dμ_C/dy^D along x_m(y) */
      for (guint C = 0; C < n; C++)
        for (guint D = 0; D < n; D++)
          {
            double w = o[L->Lvv + C * n + D];
            for (guint i = 0; i < m; i++)
              w += o[L->Lvq + C * m + i] * X[i * n + D];
            W[C * n + D] = w;
          }
      double mx = 0, *kx = var->kx, *wx = var->wx;
      memset (kx, 0, n * sizeof (double));
      memset (wx, 0, n * sizeof (double));
      for (guint A = 0; A < n; A++)
        if (S->cay[A])
          mx += mu[A] * y[A];
      for (guint B = 0; B < n; B++)
        for (guint A = 0; A < n; A++)
          {
            kx[B] += S->K[A * n + B] * y[A];
            if (S->cay[A])
              wx[B] += W[A * n + B] * y[A];
          }
      node_momentum (var, h, y, mu, 1.0, Mc);
      for (guint B = 0; B < n; B++)
        {
          /* M⁺ − (h/2) ρ(x₀)ᵀ L_x − (h/2) Q − Φ_yᵀ ν − p₀ */
          double res = Mc[B] - p[B] - (L->nq ? 0.5 * h * o[L->Q + B] : 0.0);
          for (guint i = 0; i < m; i++)
            res -= 0.5 * h * o[L->Lq + i] * anchor_at (S, x, i, B);
          for (guint a = 0; a < s; a++)
            res -= o[L->Pv + a * n + B] * nu[a];
          b[B] = -res;
          for (guint D = 0; D < n; D++)
            {
              double c = 0;
              if (S->cay[B])
                for (guint C = 0; C < n; C++)
                  {
                    c += S->C[(D * n + B) * n + C] * mu[C];
                    for (guint A = 0; A < n; A++)
                      c += S->C[(A * n + B) * n + C] * y[A] * W[C * n + D];
                  }
              double j = W[B * n + D] - 0.5 * h * c
                         - 0.125 * h * h * ((wx[D] + (S->cay[D] ? mu[D] : 0.0)) * kx[B] + mx * S->K[D * n + B]);
              for (guint i = 0; i < m; i++)
                {
                  double rho = anchor_at (S, x, i, B);
                  if (rho == 0)
                    continue;
                  double dlx = o[L->Lvq + D * m + i];
                  for (guint l = 0; l < m; l++)
                    dlx += o[L->Lqq + i * m + l] * X[l * n + D];
                  j -= 0.5 * h * dlx * rho;
                }
              if (L->nq)
                {
                  double dq = o[L->Qv + B * n + D];
                  for (guint i = 0; i < m; i++)
                    dq += o[L->Qq + B * m + i] * X[i * n + D];
                  j -= 0.5 * h * dq;
                }
              for (guint a = 0; a < s; a++)
                {
                  double dp = o[L->Pvv + (a * n + B) * n + D];
                  for (guint i = 0; i < m; i++)
                    dp += o[L->Pvq + (a * n + B) * m + i] * X[i * n + D];
                  j -= nu[a] * dp;
                }
              J[B * k + D] = j;
            }
          for (guint a = 0; a < s; a++)
            J[B * k + n + a] = -o[L->Pv + a * n + B];
        }
      for (guint a = 0; a < s; a++)
        {
          b[n + a] = -o[L->phi + a];
          for (guint D = 0; D < n; D++)
            {
              double j = o[L->Pv + a * n + D];
              for (guint i = 0; i < m; i++)
                j += o[L->Pq + a * m + i] * X[i * n + D];
              J[(n + a) * k + D] = j;
            }
          for (guint c = 0; c < s; c++)
            J[(n + a) * k + n + c] = 0;
        }
      if (!solve (var, b))
        {
          step_failed (error, _("the Newton matrix of the discrete Lagrange–d'Alembert equations on the groupoid "
                                "is singular"), t0);
          return FALSE;
        }
      double c = 0, ymax = 0;
      for (guint A = 0; A < n; A++)
        ymax = MAX (ymax, fabs (y[A]));
      for (guint A = 0; A < n; A++)
        {
          y[A] += b[A];
          c = MAX (c, fabs (b[A]) / (fabs (y[A]) + 1e-6 * (1 + ymax)));
        }
      for (guint a = 0; a < s; a++)
        {
          nu[a] += b[n + a];
          c = MAX (c, fabs (b[n + a]) / (fabs (nu[a]) + pmax + DBL_MIN));
        }
      if (!isfinite (c))
        {
          step_failed (error, _("Newton's method for the discrete Lagrange–d'Alembert equations on the groupoid "
                                "diverged"), t0);
          return FALSE;
        }
      done = c <= GV_TOL;
    }
  /* at the solution: p₁ = M⁻ + (h/2) ρ(x₁)ᵀ L_x + (h/2) Q + Φ_yᵀ ν, then x₁ */
  for (guint a = 0; a < s; a++)
    var->midpoint_residual = MAX (var->midpoint_residual, fabs (o[L->phi + a]));
  node_momentum (var, h, y, o + L->Lv, -1.0, Mc);
  for (guint B = 0; B < n; B++)
    {
      double f = L->nq ? 0.5 * h * o[L->Q + B] : 0.0;
      for (guint i = 0; i < m; i++)
        f += 0.5 * h * o[L->Lq + i] * anchor_at (S, var->x1, i, B);
      for (guint a = 0; a < s; a++)
        f += o[L->Pv + a * n + B] * nu[a];
      p[B] = Mc[B] + f;
    }
  if (!reconstruct (var, t0, tm, h, var->xm, y, r, error))
    return FALSE;
  memcpy (x, var->x1, m * sizeof (double));
  return TRUE;
}

/* The velocity shown at (T, X, R) with the momenta P: L_y = p + Φ_yᵀ ν, φ = 0, by Newton's
 * method from V. */
static gboolean
velocity_at (CmlGroupoidVar *var, double t, const double *x, const double *r, const double *p, double *v,
             GError **error)
{
  const Layout *L = &var->L;
  guint n = L->n, s = L->s, k = n + s;
  const double *o = var->out;
  double *nu = var->vnode, *b = var->rhs, *J = var->J->data;

  memset (nu, 0, s * sizeof (double));
  for (int it = 0; it < GV_NEWTON_MAX_IT; it++)
    {
      double vmax = 0, pmax = 0, c = 0;
      if (!eval_at (var, t, x, v, r))
        break;
      for (guint A = 0; A < n; A++)
        {
          double res = o[L->Lv + A] - p[A];
          for (guint a = 0; a < s; a++)
            res -= o[L->Pv + a * n + A] * nu[a];
          b[A] = -res;
          for (guint B = 0; B < n; B++)
            {
              double j = o[L->Lvv + A * n + B];
              for (guint a = 0; a < s; a++)
                j -= nu[a] * o[L->Pvv + (a * n + A) * n + B];
              J[A * k + B] = j;
            }
          for (guint a = 0; a < s; a++)
            J[A * k + n + a] = -o[L->Pv + a * n + A];
          vmax = MAX (vmax, fabs (v[A]));
          pmax = MAX (pmax, fabs (p[A]));
        }
      for (guint a = 0; a < s; a++)
        {
          b[n + a] = -o[L->phi + a];
          for (guint B = 0; B < n; B++)
            J[(n + a) * k + B] = o[L->Pv + a * n + B];
          for (guint c2 = 0; c2 < s; c2++)
            J[(n + a) * k + n + c2] = 0;
        }
      if (!solve (var, b))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       _("the velocities at t = %.6g cannot be found from the momenta (the matrix of ∂²L/∂v∂v and "
                         "the constraints is singular there)"), t);
          return FALSE;
        }
      for (guint A = 0; A < n; A++)
        {
          v[A] += b[A];
          c = MAX (c, fabs (b[A]) / (fabs (v[A]) + 1e-6 * (1 + vmax)));
        }
      for (guint a = 0; a < s; a++)
        {
          nu[a] += b[n + a];
          c = MAX (c, fabs (b[n + a]) / (fabs (nu[a]) + pmax + DBL_MIN));
        }
      if (!isfinite (c))
        break;
      if (c <= GV_TOL)
        return TRUE;
    }
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               _("Newton's method for the velocities at t = %.6g (from the momenta and the constraints) did not "
                 "converge; lower the step"), t);
  return FALSE;
}

static void
ensure_momentum (CmlGroupoidVar *var, double t, const double *z)
{
  guint m = var->L.m, n = var->L.n;
  if (var->p_valid && t == var->t_last && memcmp (z, var->z_last, var->dim * sizeof (double)) == 0)
    return;
  eval_at (var, t, z, z + m, z + m + n);
  memcpy (var->p, var->out + var->L.Lv, n * sizeof (double));
  memcpy (var->z_last, z, var->dim * sizeof (double));
  var->t_last = t;
  var->p_valid = TRUE;
}

void
cml_groupoid_var_momentum (CmlGroupoidVar *var, double t, const double *z, double *p)
{
  ensure_momentum (var, t, z);
  memcpy (p, var->p, var->L.n * sizeof (double));
}

/* One step of the method (one or three discrete steps) of size H from (T0, Z). */
static gboolean
method_step (CmlGroupoidVar *var, double t0, double h, double *z, GError **error)
{
  guint m = var->L.m, n = var->L.n, s = var->L.s;
  static const double g1 = 1.3512071919596576340476878089715; /* 1/(2 − 2^{1/3}) */
  const double gam[3] = { g1, 1.0 - 2.0 * g1, g1 };
  const gboolean four = var->options.kind == CML_INTEGRATOR_VARIATIONAL4;
  guint n_sub = four ? 3 : 1;
  double t = t0, h_prev = h;

  /* the step's velocity starts from the shown one, then the last step's */
  memcpy (var->y, z + m, n * sizeof (double));
  memset (var->nu, 0, s * sizeof (double));
  for (guint j = 0; j < n_sub; j++)
    {
      double hj = four ? gam[j] * h : h;
      for (guint a = 0; j > 0 && a < s; a++)
        var->nu[a] *= hj / h_prev;
      if (!gv_step (var, t, hj, z, var->p, z + m + n, error))
        return FALSE;
      t = j + 1 == n_sub ? t0 + h : t + hj;
      h_prev = hj;
    }
  memcpy (z + m, var->y, n * sizeof (double));
  return velocity_at (var, t0 + h, z, z + m + n, var->p, z + m, error);
}

gboolean
cml_groupoid_var_advance (CmlGroupoidVar *var, double *t, double t1, double *z, GError **error)
{
  const CmlIntegratorOptions *o = &var->options;
  guint n = var->L.n;
  const double t0 = *t;
  gboolean ok = TRUE;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  var->midpoint_residual = 0;
  if (t1 == *t)
    return TRUE;
  for (guint i = 0; i < var->dim; i++)
    if (!isfinite (z[i]))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, _("non-finite state at t = %.6g (before the first step)"),
                     *t);
        return FALSE;
      }

  double n_real = ceil (fabs (t1 - t0) / o->h_fixed - 1e-9);
  guint64 nsteps = n_real < 1.0 ? 1 : n_real < 1e15 ? (guint64) n_real : G_MAXUINT64;
  double h = nsteps == G_MAXUINT64 ? (t1 > t0 ? o->h_fixed : -o->h_fixed) : (t1 - t0) / (double) nsteps;

  ensure_momentum (var, *t, z);
  for (guint64 k = 0; k < nsteps; k++)
    {
      const double t_good = *t;
      if (o->max_steps > 0 && k >= o->max_steps)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       _("the integrator took %.0f steps between t = %.6g and t = %.6g without reaching "
                         "t = %.6g: its steps (%.3g now) are far too short for the span; a shorter span or a longer "
                         "step may reach it"), (double) k, t0, *t, t1, h);
          ok = FALSE;
          break;
        }
      memcpy (var->z_good, z, var->dim * sizeof (double));
      memcpy (var->pp, var->p, n * sizeof (double));
      gboolean step_ok = method_step (var, t_good, h, z, error);
      for (guint i = 0; step_ok && i < var->dim; i++)
        if (!isfinite (z[i]))
          {
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, _("non-finite state at t = %.6g"), t_good);
            step_ok = FALSE;
          }
      if (!step_ok)
        {
          memcpy (z, var->z_good, var->dim * sizeof (double));
          memcpy (var->p, var->pp, n * sizeof (double));
          ok = FALSE;
          break;
        }
      *t = k + 1 == nsteps ? t1 : t0 + (double) (k + 1) * h;
      var->n_steps++;
      memcpy (var->z_last, z, var->dim * sizeof (double));
      var->t_last = *t;
    }
  if (o->stats)
    cml_groupoid_var_get_stats (var, o->stats);
  return ok;
}

guint
cml_groupoid_var_step_state_size (const CmlGroupoidVar *var)
{
  return 1 + var->L.n;
}

void
cml_groupoid_var_save_step_state (const CmlGroupoidVar *var, double t, const double *z, double *out)
{
  guint n = var->L.n;
  gboolean valid = var->p_valid && t == var->t_last && memcmp (z, var->z_last, var->dim * sizeof (double)) == 0;
  out[0] = valid ? 1.0 : 0.0;
  if (valid)
    memcpy (out + 1, var->p, n * sizeof (double));
  else
    memset (out + 1, 0, n * sizeof (double));
}

void
cml_groupoid_var_restore_step_state (CmlGroupoidVar *var, double t, const double *z, const double *in)
{
  guint n = var->L.n;
  var->p_valid = in[0] != 0.0;
  if (var->p_valid)
    {
      memcpy (var->p, in + 1, n * sizeof (double));
      memcpy (var->z_last, z, var->dim * sizeof (double));
      var->t_last = t;
    }
}

guint64
cml_groupoid_var_n_rhs (const CmlGroupoidVar *var)
{
  return (guint64) ceil (var->cost);
}

void
cml_groupoid_var_get_stats (const CmlGroupoidVar *var, CmlIntegratorStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->n_steps = var->n_steps;
  stats->n_rhs = cml_groupoid_var_n_rhs (var);
  stats->h = var->options.h_fixed;
}

double
cml_groupoid_var_midpoint_residual (const CmlGroupoidVar *var)
{
  return var->midpoint_residual;
}
