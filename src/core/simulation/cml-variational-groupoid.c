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
 * Those, the compiled derivatives, the advance loop and the Cayley node momenta are
 * shared with cml-variational.c (cml-variational-private.h).
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-groupoid.h"
#include "cml-variational-private.h"

#include "cml-error.h"
#include "cml-system-private.h"
#include "cml-system-runtime.h"

#include <float.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

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
  CmlVarCore  core;
  Structure   S;

  /* work: the step's velocity and multipliers, the base point at its end and midpoint,
   * ∂x_m/∂y, dμ/dy, the node momenta and two contractions, the midpoint's matrix */
  double     *y, *nu, *x1, *xm, *X, *W, *Mc, *kx, *wx;
  gsl_matrix *A;
  gsl_permutation *permA;
};

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
  if (!cml_var_jacobi_holds (S->C, n, scale))
    {
      *why = _("its algebroid is a Lie algebroid whose brackets fail the Jacobi identity");
      return FALSE;
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
      if (!cml_var_negative_definite3 (K3))
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
  g_mutex_lock (&cml_system_runtime (sys)->lock);
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
  g_mutex_unlock (&cml_system_runtime (sys)->lock);
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

void
cml_groupoid_var_prepare (CmlSystem *sys)
{
  if (cml_groupoid_var_supports (sys, NULL))
    (void) cml_var_program_ensure (sys, sys->nr, &cml_system_runtime (sys)->groupoid_prog, NULL);
}

CmlGroupoidVar *
cml_groupoid_var_new (CmlSystem *sys, const CmlIntegratorOptions *options, const double *params,
                      GError **error)
{
  CmlModel *md = sys->model;
  const char *why = NULL;

  if (!cml_groupoid_var_supports (sys, &why))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s: %s", md->name, why);
      return NULL;
    }
  CmlProgram *prog = cml_var_program_ensure (sys, sys->nr, &cml_system_runtime (sys)->groupoid_prog, error);
  if (!prog)
    return NULL;

  CmlGroupoidVar *var = g_new0 (CmlGroupoidVar, 1);
  cml_var_core_init (&var->core, sys, prog, options, sys->nr);
  guint m = md->m, n = md->n, s = var->core.L.s;
  structure_read (sys, &var->S, &why);
  var->y = g_new0 (double, n);
  var->nu = g_new0 (double, s + 1);
  var->x1 = g_new0 (double, m + 1);
  var->xm = g_new0 (double, m + 1);
  var->X = g_new0 (double, m * n + 1);
  var->W = g_new0 (double, n * n);
  var->Mc = g_new0 (double, n);
  var->kx = g_new0 (double, n);
  var->wx = g_new0 (double, n);
  var->A = gsl_matrix_alloc (MAX (m, 1), MAX (m, 1));
  var->permA = gsl_permutation_alloc (MAX (m, 1));
  cml_groupoid_var_set_params (var, params);
  return var;
}

void
cml_groupoid_var_free (CmlGroupoidVar *var)
{
  if (!var)
    return;
  structure_clear (&var->S);
  cml_var_core_clear (&var->core);
  g_free (var->y);
  g_free (var->nu);
  g_free (var->x1);
  g_free (var->xm);
  g_free (var->X);
  g_free (var->W);
  g_free (var->Mc);
  g_free (var->kx);
  g_free (var->wx);
  gsl_matrix_free (var->A);
  gsl_permutation_free (var->permA);
  g_free (var);
}

void
cml_groupoid_var_set_params (CmlGroupoidVar *var, const double *params)
{
  cml_var_core_set_params (&var->core, params);
}

void
cml_groupoid_var_reset (CmlGroupoidVar *var)
{
  var->core.p_valid = FALSE;
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
  double *A = var->A->data, *b = var->core.rhs, *xm = var->xm, *X = var->X;
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
  const CmlVarLayout *L = &var->core.L;
  const Structure *S = &var->S;
  guint m = L->m, n = L->n, s = L->s, k = n + s;
  const double *o = var->core.out;
  double *y = var->y, *nu = var->nu, *b = var->core.rhs, *J = var->core.J->data, *X = var->X, *W = var->W, *Mc = var->Mc;
  double tm = t0 + 0.5 * h;
  gboolean done = FALSE;
  double pmax = 0;

  for (guint A = 0; A < n; A++)
    pmax = MAX (pmax, fabs (p[A]));
  for (int it = 0;; it++)
    {
      if (!midpoint (var, h, x, y) || !cml_var_eval (&var->core, tm, m ? var->xm : x, y, r))
        {
          step_failed (error, _("the discrete Lagrange–d'Alembert equations on the groupoid are not finite"), t0);
          return FALSE;
        }
      if (done)
        break;
      if (it == CML_VAR_NEWTON_MAX_IT)
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
      cml_var_node_momentum (n, S->C, S->K, S->cay, h, y, mu, 1.0, Mc);
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
      if (!cml_var_solve (&var->core, b))
        {
          step_failed (error, _("the Newton matrix of the discrete Lagrange–d'Alembert equations on the groupoid "
                                "is singular"), t0);
          return FALSE;
        }
      double ymax = 0;
      for (guint A = 0; A < n; A++)
        ymax = MAX (ymax, fabs (y[A]));
      double c = cml_var_newton_update (n, s, b, y, nu, ymax, pmax);
      if (!isfinite (c))
        {
          step_failed (error, _("Newton's method for the discrete Lagrange–d'Alembert equations on the groupoid "
                                "diverged"), t0);
          return FALSE;
        }
      done = c <= CML_VAR_TOL;
    }
  /* at the solution: p₁ = M⁻ + (h/2) ρ(x₁)ᵀ L_x + (h/2) Q + Φ_yᵀ ν, then x₁ */
  for (guint a = 0; a < s; a++)
    var->core.midpoint_residual = MAX (var->core.midpoint_residual, fabs (o[L->phi + a]));
  cml_var_node_momentum (n, S->C, S->K, S->cay, h, y, o + L->Lv, -1.0, Mc);
  for (guint B = 0; B < n; B++)
    {
      double f = L->nq ? 0.5 * h * o[L->Q + B] : 0.0;
      for (guint i = 0; i < m; i++)
        f += 0.5 * h * o[L->Lq + i] * anchor_at (S, var->x1, i, B);
      for (guint a = 0; a < s; a++)
        f += o[L->Pv + a * n + B] * nu[a];
      p[B] = Mc[B] + f;
    }
  if (!cml_var_reconstruct (&var->core, t0, tm, h, var->xm, y, FALSE, r, error))
    return FALSE;
  memcpy (x, var->x1, m * sizeof (double));
  return TRUE;
}

void
cml_groupoid_var_momentum (CmlGroupoidVar *var, double t, const double *z, double *p)
{
  cml_var_momentum (&var->core, t, z, p);
}

/* One step of the method (one or three discrete steps) of size H from (T0, Z). */
static gboolean
method_step (gpointer self, double t0, double h, double *z, GError **error)
{
  CmlGroupoidVar *var = self;
  CmlVarCore *core = &var->core;
  guint m = core->L.m, n = core->L.n, s = core->L.s;
  double hs[3];
  guint n_sub = cml_var_substeps (core, h, hs);
  double t = t0, h_prev = h;

  /* the step's velocity starts from the shown one, then the last step's */
  memcpy (var->y, z + m, n * sizeof (double));
  memset (var->nu, 0, s * sizeof (double));
  for (guint j = 0; j < n_sub; j++)
    {
      double hj = hs[j];
      for (guint a = 0; j > 0 && a < s; a++)
        var->nu[a] *= hj / h_prev;
      if (!gv_step (var, t, hj, z, core->p, z + m + n, error))
        return FALSE;
      t = j + 1 == n_sub ? t0 + h : t + hj;
      h_prev = hj;
    }
  memcpy (z + m, var->y, n * sizeof (double));
  return cml_var_velocity_at (core, t0 + h, z, z + m + n, core->p, z + m, error);
}

gboolean
cml_groupoid_var_advance (CmlGroupoidVar *var, double *t, double t1, double *z, GError **error)
{
  return cml_var_advance (&var->core, t, t1, z, method_step, var, error);
}

guint
cml_groupoid_var_step_state_size (const CmlGroupoidVar *var)
{
  return cml_var_step_state_size (&var->core);
}

void
cml_groupoid_var_save_step_state (const CmlGroupoidVar *var, double t, const double *z, double *out)
{
  cml_var_save_step_state (&var->core, t, z, out);
}

void
cml_groupoid_var_restore_step_state (CmlGroupoidVar *var, double t, const double *z,
                                     const double *in)
{
  cml_var_restore_step_state (&var->core, t, z, in);
}

guint64
cml_groupoid_var_n_rhs (const CmlGroupoidVar *var)
{
  return cml_var_n_rhs (&var->core);
}

void
cml_groupoid_var_get_stats (const CmlGroupoidVar *var, CmlIntegratorStats *stats)
{
  cml_var_get_stats (&var->core, stats);
}

double
cml_groupoid_var_midpoint_residual (const CmlGroupoidVar *var)
{
  return var->core.midpoint_residual;
}
