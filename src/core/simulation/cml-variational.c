/* cml-variational.c — the discrete Lagrange–d'Alembert integrators of a Lagrangian on T Q
 * or on the Lie algebra so(3) (variational: second order; variational4: its symmetric
 * triple jump, fourth order).  Other product algebroids with so(3) (the heavy top, the
 * rolling balls) are handed to cml-variational-groupoid.c (doc/theory.md §14.2).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.  With the midpoint discrete Lagrangian
 *
 *   L_d(q₀, q₁) = h L(m),   m = ((q₀ + q₁)/2, (q₁ − q₀)/h, t + h/2),
 *
 * and the constraints φ(t, q, v) = 0 imposed at the midpoint, one step (q₀, p₀) ↦ (q₁, p₁)
 * solves for q₁ and the multipliers λ
 *
 *   p₀ = −D₁L_d(q₀, q₁) − (h/2) Φ_v(m)ᵀ λ = L_v(m) − (h/2) L_q(m) − (h/2) Φ_v(m)ᵀ λ
 *   φ(m) = 0
 *
 * and sets p₁ = D₂L_d(q₀, q₁) + (h/2) Φ_v(m)ᵀ λ = p₀ + h L_q(m) + h Φ_v(m)ᵀ λ.  The map is
 * symmetric: (q₁, p₁, −h) gives back (q₀, p₀) with the same m and λ.
 *
 * Forces of [forces] (doc/theory.md §3.1), Q(t, q, v) along the sections, enter by the
 * forced discrete Lagrange–d'Alembert principle
 *
 *   δ Σ L_d(q_k, q_{k+1}) + Σ (F_d⁻(q_k, q_{k+1})·δq_k + F_d⁺(q_k, q_{k+1})·δq_{k+1}) = 0
 *
 * with the discrete forces of the same midpoint, F_d^± = (h/2) Q(m): L_q becomes L_q + Q
 * in both equations above, p₀ = L_v − (h/2)(L_q + Q) − …, p₁ = p₀ + h (L_q + Q) + ….  The
 * map stays symmetric (m is the same for the step back), so variational4 below is still of
 * fourth order.  For L = ½ vᵀ M v − V(q) with constant M the energy changes over a step by
 * the work of the discrete forces Q(m)·(q₁ − q₀) plus V(q₁) − V(q₀) − ∇V(q_m)·(q₁ − q₀)
 * (zero for quadratic V, O(h³) otherwise).
 *
 * The unknowns are the increment u = q₁ − q₀ and μ = (h/2) λ; Newton's method with the
 * exact Jacobian (the second derivatives of L and φ, and the first of the forces, compiled
 * once per system) starts from u = h v₀, μ = 0,
 * with v₀ the velocity shown at q₀, and runs until the correction is at 1e-10 of the
 * state (it is quadratic: the next would be at rounding); one more evaluation at the
 * solution gives p₁.
 *
 * The state shown is (q, v): at a step point v solves
 *
 *   L_v(t, q, v) = p + Φ_v(t, q, v)ᵀ ν,   φ(t, q, v) = 0,
 *
 * the velocity whose momentum differs from the carried p by a constraint force (for
 * L = ½ vᵀ W v − V: the W-orthogonal projection of W⁻¹ p onto the constraint), again by
 * Newton's method from the last midpoint velocity.  The momenta are carried from step to
 * step (the step state), so the shown velocity never feeds back into the step map; a
 * state changed from outside starts from p = L_v at it.
 *
 * variational4 composes three steps of h γ₁, h γ₂, h γ₁, γ₁ = 1/(2 − 2^{1/3}),
 * γ₂ = 1 − 2γ₁ (Yoshida 1990): symmetric, fourth order.
 *
 * On the Lie algebra so(3) (no base, §14.1) the discrete curve is g₁ = g₀ cay(h ξ) with the
 * step's velocity ξ and the Cayley map; the node momenta of the step are
 *
 *   M^±_B = μ_B ∓ (h/2) C^C_AB ξ^A μ_C − (h²/8) (μ_C ξ^C) K_AB ξ^A,   μ = L_y(t + h/2, ξ),
 *
 * with the structure constants C and the Killing form K (so any basis of so(3) is taken
 * as it is), and a step (M₀ ↦ M₁) solves for ξ and ν = (h/2) λ
 *
 *   M₀ = M^+ − Φ_y(ξ)ᵀ ν,   φ(t + h/2, ξ) = 0,   then   M₁ = M^− + Φ_y(ξ)ᵀ ν,
 *
 * by Newton's method with the exact Jacobian; reconstruction variables follow the implicit
 * midpoint rule with the step's ξ.  Symmetric; without constraints or forces M₁ is a
 * coadjoint image of M₀, so |M|² is kept to rounding.  Forces Q(t, ξ) along the sections
 * enter as on T Q, half at each node:
 *
 *   M₀ = M^+ − (h/2) Q(t + h/2, ξ) − Φ_y(ξ)ᵀ ν,   M₁ = M^− + (h/2) Q(t + h/2, ξ) + Φ_y(ξ)ᵀ ν,
 *
 * so M₁ − M₀ = h (ad*_ξ μ + Q) + O(h²), the forced Euler–Poincaré equations.
 *
 * Output at exact times as the implicit midpoint rule: N = ceil (|T1 − t|/h − 1e-9) equal
 * steps of (T1 − t)/N, backwards too.  Cost: every evaluation of the compiled derivatives
 * counts as its instructions over those of the system's right-hand side.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational.h"
#include "cml-variational-groupoid.h"

#include "cml-error.h"
#include "cml-simulation-private.h"

#include <float.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_permutation.h>

#define VAR_NEWTON_MAX_IT 30
/* a correction at or below this share of the state's size ends the iteration (quadratic
 * convergence: the next would be at rounding) */
#define VAR_TOL 1e-10

/* Layout of the compiled program's outputs at (t, q, v), n coordinates, s constraints. */
/* Layout of the compiled program's outputs at (t, x, y, r): m base coordinates (m = n on
 * T Q, 0 on a Lie algebra), n fibre coordinates, s constraints, nr reconstruction
 * variables (Lie algebras only).  Index conventions as on T Q: Lvq[A n + i] = ∂²L/∂y^A∂x^i,
 * Pvq[(a n + A) m + i], Pvv[(a n + A) n + B]; F the reconstruction rates, Fr[k nr + l] = ∂F_k/∂r_l;
 * with [forces] (nq = n, else 0) Q the generalized forces, Qv[A n + B] = ∂Q_A/∂y^B,
 * Qq[A m + i] = ∂Q_A/∂x^i. */
typedef struct
{
  guint m, n, s, nr, nq;
  guint Lv, Lq, phi, Pv, Pq, Lvv, Lvq, Lqq, Pvq, Pvv, F, Fr, Q, Qv, Qq, total;
} Layout;

struct _CmlVariational
{
  CmlSystem *sys;
  CmlGroupoidVar *grp;   /* the other algebroids: cml-variational-groupoid.c does the work */
  CmlProgram *prog;      /* owned by the system */
  Layout      L;
  CmlIntegratorOptions options;
  guint       dim;            /* of the state: 2n on T Q, n + nr on a Lie algebra */
  gboolean    lie;            /* the Lie algebra so(3) (m = 0) */
  double      C[27], K[9];    /* its structure constants and Killing form (lie_so3 ()) */
  double     *regs, *fast, *out;
  const double *r_in;         /* the reconstruction variables fed to the program (nr) */
  double      cost_per_eval;  /* right-hand-side equivalents of one evaluation */

  /* the carried momenta, valid for the state z_last at t_last */
  double     *p, *z_last;
  double      t_last;
  gboolean    p_valid;

  /* work: the step's unknowns, the Newton system, the substeps' q and p */
  double     *u, *mu, *q, *pp, *rhs, *z_good, *vq, *nu;
  gsl_matrix *J;
  gsl_permutation *perm;
  /* the reconstruction's implicit midpoint rule (Lie algebras): increment, midpoint, Newton */
  double     *dr, *rm, *rrhs;
  gsl_matrix *Jr;
  gsl_permutation *permr;

  double      cost;
  guint64     n_steps;
  double      midpoint_residual;
};

static void
layout_init (Layout *L, guint m, guint n, guint s, guint nr, guint nq)
{
  guint o = 0;
  L->m = m;
  L->n = n;
  L->s = s;
  L->nr = nr;
  L->nq = nq;
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

/* The structure constants C[(A n + B) n + C] = C^C_AB of MD and its Killing form
 * K[A n + B] = tr(ad_A ad_B) = C^C_AD C^D_BC, when MD is the Lie algebra so(3) in some
 * basis: no base, three sections, brackets that are numbers, the Jacobi identity, K
 * negative definite (the only real three-dimensional Lie algebra with a negative definite
 * Killing form is so(3)).  Otherwise FALSE with the reason in *WHY. */
static gboolean
lie_so3 (CmlModel *md, double *C, double *K, const char **why)
{
  guint n = md->n;
  if (md->m != 0 || n != 3)
    {
      *why = "its Lie algebra is not so(3) (it has not three sections)";
      return FALSE;
    }
  for (guint k = 0; k < n * n * n; k++)
    {
      C[k] = 0;
      if (md->bracket && md->bracket[k] && !cml_expr_is_number (md->bracket[k], &C[k]))
        {
          *why = "its brackets are not numbers";
          return FALSE;
        }
    }
  double scale = 0;
  for (guint k = 0; k < n * n * n; k++)
    scale = MAX (scale, fabs (C[k]));
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      for (guint D = 0; D < n; D++)
        for (guint E = 0; E < n; E++)
          {
            /* Σ_cyclic(A,B,D) C^F_BD C^E_AF */
            double j = 0;
            for (guint F = 0; F < n; F++)
              j += C[(B * n + D) * n + F] * C[(A * n + F) * n + E] + C[(D * n + A) * n + F] * C[(B * n + F) * n + E]
                   + C[(A * n + B) * n + F] * C[(D * n + F) * n + E];
            if (fabs (j) > 1e-12 * (1 + scale * scale))
              {
                *why = "its brackets fail the Jacobi identity";
                return FALSE;
              }
          }
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      {
        double k = 0;
        for (guint Cc = 0; Cc < n; Cc++)
          for (guint D = 0; D < n; D++)
            k += C[(A * n + D) * n + Cc] * C[(B * n + Cc) * n + D];
        K[A * n + B] = k;
      }
  double d1 = K[0], d2 = K[0] * K[4] - K[1] * K[3];
  double d3 = K[0] * (K[4] * K[8] - K[5] * K[7]) - K[1] * (K[3] * K[8] - K[5] * K[6])
              + K[2] * (K[3] * K[7] - K[4] * K[6]);
  if (!(d1 < 0 && d2 > 0 && d3 < 0))
    {
      *why = "its Lie algebra is not so(3) (the Killing form is not negative definite)";
      return FALSE;
    }
  return TRUE;
}

/* Whether this file's methods take SYS (T Q or the Lie algebra so(3)); the reason why not in *WHY. */
static gboolean
classic_supports (CmlSystem *sys, const char **why_out)
{
  CmlModel *md = sys->model;
  const char *why = NULL;

  if (sys->formalism == CML_FORMALISM_VAKONOMIC)
    why = "its constraints are vakonomic";
  else if (sys->formalism == CML_FORMALISM_SINGULAR)
    why = "its Lagrangian is singular";
  else if (sys->formalism != CML_FORMALISM_EULER_LAGRANGE && sys->formalism != CML_FORMALISM_NONHOLONOMIC)
    why = "its equations are of another kind";
  else if (md->m == 0)
    {
      double C[27], K[9];
      lie_so3 (md, C, K, &why);
    }
  else if (md->m != md->n)
    why = "its algebroid is neither T Q nor a Lie algebra (the base and the fibre differ in dimension)";
  if (!why && md->m > 0)
    for (guint i = 0; i < md->m && !why; i++)
      for (guint A = 0; A < md->n && !why; A++)
        {
          double v;
          if (!cml_expr_is_number (md->anchor[i * md->n + A], &v) || v != (i == A ? 1.0 : 0.0))
            why = "its anchor is not the identity";
        }
  if (!why && md->m > 0 && md->bracket)
    for (guint k = 0; k < md->n * md->n * md->n && !why; k++)
      if (md->bracket[k] && !cml_expr_is_zero (md->bracket[k]))
        why = "it has brackets over a base of positive dimension (an action or Atiyah algebroid)";
  if (!why && md->m > 0 && md->reconstruction->len > 0)
    why = "it has reconstruction variables on T Q";
  *why_out = why;
  return why == NULL;
}

gboolean
cml_variational_supports (CmlSystem *sys, GError **error)
{
  const char *why = NULL;
  if (classic_supports (sys, &why) || cml_groupoid_var_supports (sys, &why))
    return TRUE;
  g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
               _("%s: the variational integrators take a regular Lagrangian, unconstrained or with nonholonomic "
                 "constraints, with or without forces ([forces]), on the tangent bundle T Q (the standard Lie "
                 "algebroid: identity anchor, no brackets), on the Lie algebra so(3) in any basis (constant "
                 "brackets), or on a product of these in which so(3) turns the rest of the base as rotations turn "
                 "vectors (the rolling ball’s T ℝ² × so(3), the heavy top’s so(3) ⋉ ℝ³); %s (use implicit-midpoint "
                 "or an adaptive integrator)"), sys->model->name, why);
  return FALSE;
}

/* The derivatives of L and φ (and, on a Lie algebra, the reconstruction rates and their
 * derivatives) as one program with inputs (t, x, y, r), the state's order; built once per
 * system, under the system's lock for things built on first use. */
static CmlProgram *
ensure_program (CmlSystem *sys, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n, s = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? md->constraints->len : 0;
  guint nr = m == 0 ? sys->nr : 0, nf = 1 + m + n + nr;
  CmlProgram *prog;
  Layout L;

  g_mutex_lock (&sys->native_lock);
  if (sys->variational_prog)
    {
      prog = sys->variational_prog;
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
  sys->variational_prog = prog;
  g_mutex_unlock (&sys->native_lock);
  return prog;
}

void
cml_variational_prepare (CmlSystem *sys)
{
  const char *why;
  if (classic_supports (sys, &why))
    (void) ensure_program (sys, NULL);
  else
    cml_groupoid_var_prepare (sys);
}

CmlVariational *
cml_variational_new (CmlSystem *sys, const CmlIntegratorOptions *options, const double *params, GError **error)
{
  CmlModel *md = sys->model;

  g_return_val_if_fail (options->kind == CML_INTEGRATOR_VARIATIONAL || options->kind == CML_INTEGRATOR_VARIATIONAL4,
                        NULL);
  if (!(isfinite (options->h_fixed) && options->h_fixed > 0.0))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "the fixed step must be positive (got %g)", options->h_fixed);
      return NULL;
    }
  if (!cml_variational_supports (sys, error))
    return NULL;
  const char *why = NULL;
  if (!classic_supports (sys, &why))
    {
      CmlGroupoidVar *grp = cml_groupoid_var_new (sys, options, params, error);
      if (!grp)
        return NULL;
      CmlVariational *var = g_new0 (CmlVariational, 1);
      var->sys = cml_system_ref (sys);
      var->grp = grp;
      var->options = *options;
      return var;
    }
  CmlProgram *prog = ensure_program (sys, error);
  if (!prog)
    return NULL;

  guint m = md->m, n = md->n, s = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? md->constraints->len : 0;
  guint k = n + s, nr = m == 0 ? sys->nr : 0;
  CmlVariational *var = g_new0 (CmlVariational, 1);
  var->sys = cml_system_ref (sys);
  var->prog = prog;
  layout_init (&var->L, m, n, s, nr, md->forces ? n : 0);
  var->dim = m + n + nr;
  var->lie = m == 0;
  if (var->lie)
    lie_so3 (md, var->C, var->K, &why);
  var->options = *options;
  var->regs = g_new0 (double, cml_program_n_registers (prog) + 1);
  var->fast = g_new0 (double, 1 + var->dim);
  var->out = g_new0 (double, var->L.total + 1);
  guint rhs_cost = sys->rhs_prog ? cml_program_n_fast_instructions (sys->rhs_prog) : 0;
  var->cost_per_eval = (double) MAX (cml_program_n_fast_instructions (prog), 1) / MAX (rhs_cost, 1);
  var->p = g_new0 (double, n);
  var->z_last = g_new0 (double, var->dim);
  var->u = g_new0 (double, n);
  var->mu = g_new0 (double, s + 1);
  var->nu = g_new0 (double, s + 1);
  var->q = g_new0 (double, n);
  var->pp = g_new0 (double, n);
  var->vq = g_new0 (double, n);
  var->rhs = g_new0 (double, k);
  var->z_good = g_new0 (double, var->dim);
  var->J = gsl_matrix_alloc (k, k);
  var->perm = gsl_permutation_alloc (k);
  var->dr = g_new0 (double, nr + 1);
  var->rm = g_new0 (double, nr + 1);
  var->rrhs = g_new0 (double, nr + 1);
  var->Jr = gsl_matrix_alloc (MAX (nr, 1), MAX (nr, 1));
  var->permr = gsl_permutation_alloc (MAX (nr, 1));
  var->r_in = var->rm;
  cml_variational_set_params (var, params);
  return var;
}

void
cml_variational_free (CmlVariational *var)
{
  if (!var)
    return;
  if (var->grp)
    {
      cml_groupoid_var_free (var->grp);
      cml_system_unref (var->sys);
      g_free (var);
      return;
    }
  g_free (var->regs);
  g_free (var->fast);
  g_free (var->out);
  g_free (var->p);
  g_free (var->z_last);
  g_free (var->u);
  g_free (var->mu);
  g_free (var->nu);
  g_free (var->q);
  g_free (var->pp);
  g_free (var->vq);
  g_free (var->rhs);
  g_free (var->z_good);
  gsl_matrix_free (var->J);
  gsl_permutation_free (var->perm);
  g_free (var->dr);
  g_free (var->rm);
  g_free (var->rrhs);
  gsl_matrix_free (var->Jr);
  gsl_permutation_free (var->permr);
  cml_system_unref (var->sys);
  g_free (var);
}

void
cml_variational_set_params (CmlVariational *var, const double *params)
{
  if (var->grp)
    {
      cml_groupoid_var_set_params (var->grp, params);
      return;
    }
  cml_program_prepare (var->prog, params, var->regs);
  var->p_valid = FALSE;
}

void
cml_variational_reset (CmlVariational *var)
{
  if (var->grp)
    {
      cml_groupoid_var_reset (var->grp);
      return;
    }
  var->p_valid = FALSE;
}

/* The program at (T, Q, V, var->r_in) into var->out (Q has m entries: none on a Lie
 * algebra); FALSE if an output is not finite. */
static gboolean
eval_at (CmlVariational *var, double t, const double *q, const double *v)
{
  guint m = var->L.m, n = var->L.n;
  var->fast[0] = t;
  if (m > 0)
    memcpy (var->fast + 1, q, m * sizeof (double));
  memcpy (var->fast + 1 + m, v, n * sizeof (double));
  if (var->L.nr > 0)
    memcpy (var->fast + 1 + m + n, var->r_in, var->L.nr * sizeof (double));
  cml_program_run (var->prog, var->fast, var->regs, var->out);
  var->cost += var->cost_per_eval;
  for (guint i = 0; i < var->L.total; i++)
    if (!isfinite (var->out[i]))
      return FALSE;
  return TRUE;
}

/* J x = b in place (k = n + s unknowns); FALSE if J is singular to working precision. */
static gboolean
solve (CmlVariational *var, double *b)
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

/* One step of size H from (T0, Q, P), in place, starting Newton's method from var->u and
 * var->mu (left at the solution).  FALSE with an error naming T0. */
static gboolean
dla_step (CmlVariational *var, double t0, double h, double *q, double *p, GError **error)
{
  const Layout *L = &var->L;
  guint n = L->n, s = L->s, k = n + s;
  const double *o = var->out;
  double *u = var->u, *mu = var->mu, *b = var->rhs, *J = var->J->data;
  double tm = t0 + 0.5 * h;
  gboolean done = FALSE;
  double qmax = 0, pmax = 0;

  for (guint A = 0; A < n; A++)
    {
      qmax = MAX (qmax, fabs (q[A]));
      pmax = MAX (pmax, fabs (p[A]));
    }
  for (int it = 0;; it++)
    {
      for (guint A = 0; A < n; A++)
        {
          var->q[A] = q[A] + 0.5 * u[A];
          var->vq[A] = u[A] / h;
        }
      if (!eval_at (var, tm, var->q, var->vq))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the discrete Lagrange–d'Alembert equations are not finite in the step from t = %.6g; "
                       "lower the step", t0);
          return FALSE;
        }
      if (done)
        break;
      if (it == VAR_NEWTON_MAX_IT)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete Lagrange–d'Alembert equations did not converge in "
                       "the step from t = %.6g; lower the step", t0);
          return FALSE;
        }
      /* residuals, times h: h (L_v − (h/2) (L_q + Q) − Φ_vᵀ μ − p₀) and h φ, Q the forces */
      for (guint A = 0; A < n; A++)
        {
          double r = o[L->Lv + A] - 0.5 * h * (o[L->Lq + A] + (L->nq ? o[L->Q + A] : 0.0)) - p[A];
          for (guint a = 0; a < s; a++)
            r -= o[L->Pv + a * n + A] * mu[a];
          b[A] = -h * r;
        }
      for (guint a = 0; a < s; a++)
        b[n + a] = -h * o[L->phi + a];
      /* their derivatives in (u, μ), d/du = ½ ∂/∂q + (1/h) ∂/∂v, times h */
      for (guint A = 0; A < n; A++)
        {
          for (guint B = 0; B < n; B++)
            {
              double j = o[L->Lvv + A * n + B] + 0.5 * h * (o[L->Lvq + A * n + B] - o[L->Lvq + B * n + A])
                         - 0.25 * h * h * o[L->Lqq + A * n + B];
              if (L->nq)
                j -= 0.5 * h * o[L->Qv + A * n + B] + 0.25 * h * h * o[L->Qq + A * n + B];
              for (guint a = 0; a < s; a++)
                j -= mu[a] * (o[L->Pvv + (a * n + A) * n + B] + 0.5 * h * o[L->Pvq + (a * n + A) * n + B]);
              J[A * k + B] = j;
            }
          for (guint a = 0; a < s; a++)
            J[A * k + n + a] = -h * o[L->Pv + a * n + A];
        }
      for (guint a = 0; a < s; a++)
        {
          for (guint B = 0; B < n; B++)
            J[(n + a) * k + B] = o[L->Pv + a * n + B] + 0.5 * h * o[L->Pq + a * n + B];
          for (guint c = 0; c < s; c++)
            J[(n + a) * k + n + c] = 0;
        }
      if (!solve (var, b))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the Newton matrix of the discrete Lagrange–d'Alembert equations is singular in the step "
                       "from t = %.6g; lower the step", t0);
          return FALSE;
        }
      double r = 0;
      double umax = 0;
      for (guint A = 0; A < n; A++)
        umax = MAX (umax, fabs (u[A]));
      for (guint A = 0; A < n; A++)
        {
          u[A] += b[A];
          r = MAX (r, fabs (b[A]) / (fabs (q[A]) + fabs (u[A]) + 1e-6 * (1 + qmax + umax)));
        }
      for (guint a = 0; a < s; a++)
        {
          mu[a] += b[n + a];
          r = MAX (r, fabs (b[n + a]) / (fabs (mu[a]) + pmax + fabs (h) + DBL_MIN));
        }
      if (!isfinite (r))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete Lagrange–d'Alembert equations diverged in the step "
                       "from t = %.6g; lower the step", t0);
          return FALSE;
        }
      done = r <= VAR_TOL;
    }
  /* at the solution: q₁ = q₀ + u, p₁ = p₀ + h (L_q + Q) + 2 Φ_vᵀ μ */
  for (guint a = 0; a < s; a++)
    var->midpoint_residual = MAX (var->midpoint_residual, fabs (o[L->phi + a]));
  for (guint A = 0; A < n; A++)
    {
      double dp = h * (o[L->Lq + A] + (L->nq ? o[L->Q + A] : 0.0));
      for (guint a = 0; a < s; a++)
        dp += 2.0 * o[L->Pv + a * n + A] * mu[a];
      q[A] += u[A];
      p[A] += dp;
    }
  return TRUE;
}

/* On so(3) with the Cayley retraction (doc/theory.md §14.1): the node momenta of the
 * step with velocity ξ and μ = L_y(t, ξ),
 *
 *   M^±_B(h, ξ) = μ_B ∓ (h/2) C^C_AB ξ^A μ_C − (h²/8) (μ_C ξ^C) K_AB ξ^A,
 *
 * (dcay⁻¹_{±hξ})* μ written with the brackets and the Killing form K (ξ·η = −K(ξ, η)/2 in a
 * basis where C^k_ij = ε_ijk), into OUT (n). */
static void
lie_node_momentum (const CmlVariational *var, double h, const double *xi, const double *mu, double sign,
                   double *out)
{
  guint n = var->L.n;
  double mx = 0;
  for (guint C = 0; C < n; C++)
    mx += mu[C] * xi[C];
  for (guint B = 0; B < n; B++)
    {
      double c = 0, k = 0;
      for (guint A = 0; A < n; A++)
        {
          for (guint C = 0; C < n; C++)
            c += var->C[(A * n + B) * n + C] * xi[A] * mu[C];
          k += var->K[A * n + B] * xi[A];
        }
      out[B] = mu[B] - sign * 0.5 * h * c - 0.125 * h * h * mx * k;
    }
}

/* The reconstruction variables R over a step of size H at the midpoint time TM with the
 * step's velocity XI: the implicit midpoint rule r₁ = r₀ + h F(tm, ξ, (r₀ + r₁)/2), by
 * Newton's method from r₁ = r₀ + h F(tm, ξ, r₀) (var->out holds the program at (tm, ξ, r₀)).
 * FALSE with an error naming T0. */
static gboolean
lie_reconstruct (CmlVariational *var, double t0, double tm, double h, const double *xi, double *r, GError **error)
{
  const Layout *L = &var->L;
  guint nr = L->nr;
  const double *o = var->out;
  double *d = var->dr, *rm = var->rm, *b = var->rrhs, *J = var->Jr->data;

  for (guint k = 0; k < nr; k++)
    d[k] = h * o[L->F + k];
  var->r_in = rm;
  for (int it = 0; it < VAR_NEWTON_MAX_IT; it++)
    {
      double rmax = 0, c = 0;
      for (guint k = 0; k < nr; k++)
        {
          rm[k] = r[k] + 0.5 * d[k];
          rmax = MAX (rmax, fabs (r[k]));
        }
      if (!eval_at (var, tm, NULL, xi))
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
      if (c <= VAR_TOL)
        {
          for (guint k = 0; k < nr; k++)
            r[k] += d[k];
          return TRUE;
        }
    }
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               "the midpoint rule for the reconstruction variables did not converge in the step from t = %.6g; "
               "lower the step", t0);
  return FALSE;
}

/* One step of size H on so(3) from (T0, M = P, R), in place: solves
 *
 *   M^+(h, ξ) − Φ_y(tm, ξ)ᵀ ν = M₀,   φ(tm, ξ) = 0
 *
 * for the step's velocity ξ (var->u, also the starting guess) and ν (var->mu), then sets
 * M₁ = M^−(h, ξ) + Φ_y(tm, ξ)ᵀ ν and advances R.  FALSE with an error naming T0. */
static gboolean
lie_step (CmlVariational *var, double t0, double h, double *p, double *r, GError **error)
{
  const Layout *L = &var->L;
  guint n = L->n, s = L->s, k = n + s;
  const double *o = var->out;
  double *xi = var->u, *nu = var->mu, *b = var->rhs, *J = var->J->data, *Mp = var->q;
  double tm = t0 + 0.5 * h;
  gboolean done = FALSE;
  double pmax = 0;

  for (guint A = 0; A < n; A++)
    pmax = MAX (pmax, fabs (p[A]));
  var->r_in = r;
  for (int it = 0;; it++)
    {
      if (!eval_at (var, tm, NULL, xi))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the discrete Euler–Poincaré equations are not finite in the step from t = %.6g; "
                       "lower the step", t0);
          return FALSE;
        }
      if (done)
        break;
      if (it == VAR_NEWTON_MAX_IT)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete Euler–Poincaré equations did not converge in the step "
                       "from t = %.6g; lower the step", t0);
          return FALSE;
        }
      const double *mu = o + L->Lv, *W = o + L->Lvv;
      double mx = 0, kx[3] = { 0 }, wx[3] = { 0 };
      lie_node_momentum (var, h, xi, mu, 1.0, Mp);
      for (guint A = 0; A < n; A++)
        {
          mx += mu[A] * xi[A];
          for (guint B = 0; B < n; B++)
            {
              kx[A] += var->K[B * n + A] * xi[B];
              wx[A] += W[B * n + A] * xi[B];
            }
        }
      for (guint B = 0; B < n; B++)
        {
          /* M^+ − (h/2) Q − Φ_yᵀ ν − M₀, Q the forces at the step's velocity */
          double res = Mp[B] - p[B] - (L->nq ? 0.5 * h * o[L->Q + B] : 0.0);
          for (guint a = 0; a < s; a++)
            res -= o[L->Pv + a * n + B] * nu[a];
          b[B] = -res;
          for (guint D = 0; D < n; D++)
            {
              /* ∂M^+_B/∂ξ^D − ν_a ∂²φ^a/∂y^B∂y^D */
              double c = 0;
              for (guint C = 0; C < n; C++)
                {
                  c += var->C[(D * n + B) * n + C] * mu[C];
                  for (guint A = 0; A < n; A++)
                    c += var->C[(A * n + B) * n + C] * xi[A] * W[C * n + D];
                }
              double j = W[B * n + D] - 0.5 * h * c - 0.125 * h * h * ((wx[D] + mu[D]) * kx[B] + mx * var->K[B * n + D]);
              if (L->nq)
                j -= 0.5 * h * o[L->Qv + B * n + D];
              for (guint a = 0; a < s; a++)
                j -= nu[a] * o[L->Pvv + (a * n + B) * n + D];
              J[B * k + D] = j;
            }
          for (guint a = 0; a < s; a++)
            J[B * k + n + a] = -o[L->Pv + a * n + B];
        }
      for (guint a = 0; a < s; a++)
        {
          b[n + a] = -o[L->phi + a];
          for (guint D = 0; D < n; D++)
            J[(n + a) * k + D] = o[L->Pv + a * n + D];
          for (guint c = 0; c < s; c++)
            J[(n + a) * k + n + c] = 0;
        }
      if (!solve (var, b))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the Newton matrix of the discrete Euler–Poincaré equations is singular in the step from "
                       "t = %.6g; lower the step", t0);
          return FALSE;
        }
      double c = 0, xmax = 0;
      for (guint A = 0; A < n; A++)
        xmax = MAX (xmax, fabs (xi[A]));
      for (guint A = 0; A < n; A++)
        {
          xi[A] += b[A];
          c = MAX (c, fabs (b[A]) / (fabs (xi[A]) + 1e-6 * (1 + xmax)));
        }
      for (guint a = 0; a < s; a++)
        {
          nu[a] += b[n + a];
          c = MAX (c, fabs (b[n + a]) / (fabs (nu[a]) + pmax + DBL_MIN));
        }
      if (!isfinite (c))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete Euler–Poincaré equations diverged in the step from "
                       "t = %.6g; lower the step", t0);
          return FALSE;
        }
      done = c <= VAR_TOL;
    }
  /* at the solution: M₁ = M^−(h, ξ) + (h/2) Q + Φ_yᵀ ν */
  for (guint a = 0; a < s; a++)
    var->midpoint_residual = MAX (var->midpoint_residual, fabs (o[L->phi + a]));
  lie_node_momentum (var, h, xi, o + L->Lv, -1.0, Mp);
  for (guint B = 0; B < n; B++)
    {
      double f = L->nq ? 0.5 * h * o[L->Q + B] : 0.0;
      for (guint a = 0; a < s; a++)
        f += o[L->Pv + a * n + B] * nu[a];
      p[B] = Mp[B] + f;
    }
  if (L->nr > 0)
    return lie_reconstruct (var, t0, tm, h, xi, r, error);
  return TRUE;
}

/* The velocity shown at (T, Q) with the momenta P: L_v(t, q, v) = p + Φ_vᵀ ν, φ = 0, by
 * Newton's method from V (in: the starting guess; out: the solution).  FALSE with an error. */
static gboolean
velocity_at (CmlVariational *var, double t, const double *q, const double *p, double *v, GError **error)
{
  const Layout *L = &var->L;
  guint n = L->n, s = L->s, k = n + s;
  const double *o = var->out;
  double *nu = var->nu, *b = var->rhs, *J = var->J->data;

  memset (nu, 0, s * sizeof (double));
  for (int it = 0; it < VAR_NEWTON_MAX_IT; it++)
    {
      double vmax = 0, pmax = 0, r = 0;
      if (!eval_at (var, t, q, v))
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
          for (guint c = 0; c < s; c++)
            J[(n + a) * k + n + c] = 0;
        }
      if (!solve (var, b))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the velocities at t = %.6g cannot be found from the momenta (the matrix of ∂²L/∂v∂v and "
                       "the constraints is singular there)", t);
          return FALSE;
        }
      for (guint A = 0; A < n; A++)
        {
          v[A] += b[A];
          r = MAX (r, fabs (b[A]) / (fabs (v[A]) + 1e-6 * (1 + vmax)));
        }
      for (guint a = 0; a < s; a++)
        {
          nu[a] += b[n + a];
          r = MAX (r, fabs (b[n + a]) / (fabs (nu[a]) + pmax + DBL_MIN));
        }
      if (!isfinite (r))
        break;
      if (r <= VAR_TOL)
        return TRUE;
    }
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               "Newton's method for the velocities at t = %.6g (from the momenta and the constraints) did not "
               "converge; lower the step", t);
  return FALSE;
}

/* The momenta for the state (T, Z): the carried ones when Z is what the last step returned. */
static void
ensure_momentum (CmlVariational *var, double t, const double *z)
{
  guint n = var->L.n;
  if (var->p_valid && t == var->t_last && memcmp (z, var->z_last, var->dim * sizeof (double)) == 0)
    return;
  var->r_in = z + var->L.m + n;
  eval_at (var, t, z, z + var->L.m);
  memcpy (var->p, var->out + var->L.Lv, n * sizeof (double));
  memcpy (var->z_last, z, var->dim * sizeof (double));
  var->t_last = t;
  var->p_valid = TRUE;
}

void
cml_variational_momentum (CmlVariational *var, double t, const double *z, double *p)
{
  if (var->grp)
    {
      cml_groupoid_var_momentum (var->grp, t, z, p);
      return;
    }
  ensure_momentum (var, t, z);
  memcpy (p, var->p, var->L.n * sizeof (double));
}

/* One step of the method (one or three discrete Lagrange–d'Alembert steps) of size H from
 * (T0, Z): var->p is advanced with it and Z gets (q₁, v₁). */
static gboolean
method_step (CmlVariational *var, double t0, double h, double *z, GError **error)
{
  guint n = var->L.n, s = var->L.s;
  static const double g1 = 1.3512071919596576340476878089715; /* 1/(2 − 2^{1/3}) */
  const double gam[3] = { g1, 1.0 - 2.0 * g1, g1 };
  const gboolean four = var->options.kind == CML_INTEGRATOR_VARIATIONAL4;
  guint n_sub = four ? 3 : 1;
  double t = t0, h_prev = 0;

  if (var->lie)
    {
      /* z = (y, r): the step's velocity starts from the shown one, then the last step's */
      memcpy (var->u, z, n * sizeof (double));
      memset (var->mu, 0, s * sizeof (double));
      for (guint j = 0; j < n_sub; j++)
        {
          double hj = four ? gam[j] * h : h;
          for (guint a = 0; j > 0 && a < s; a++)
            var->mu[a] *= hj / h_prev;
          if (!lie_step (var, t, hj, var->p, z + n, error))
            return FALSE;
          t = j + 1 == n_sub ? t0 + h : t + hj;
          h_prev = hj;
        }
      memcpy (z, var->u, n * sizeof (double));
      var->r_in = z + n;
      return velocity_at (var, t0 + h, NULL, var->p, z, error);
    }

  /* predictor of the first step: u = h v₀, μ = 0 */
  for (guint j = 0; j < n_sub; j++)
    {
      double hj = four ? gam[j] * h : h;
      if (j == 0)
        {
          for (guint A = 0; A < n; A++)
            var->u[A] = hj * z[n + A];
          memset (var->mu, 0, s * sizeof (double));
        }
      else
        {
          /* the last midpoint velocity and multiplier */
          for (guint A = 0; A < n; A++)
            var->u[A] *= hj / h_prev;
          for (guint a = 0; a < s; a++)
            var->mu[a] *= hj / h_prev;
        }
      if (!dla_step (var, t, hj, z, var->p, error))
        return FALSE;
      t = j + 1 == n_sub ? t0 + h : t + hj;
      h_prev = hj;
    }
  /* the velocity shown at the new point, from the last midpoint velocity */
  for (guint A = 0; A < n; A++)
    z[n + A] = var->u[A] / h_prev;
  return velocity_at (var, t0 + h, z, var->p, z + n, error);
}

gboolean
cml_variational_advance (CmlVariational *var, double *t, double t1, double *z, GError **error)
{
  const CmlIntegratorOptions *o = &var->options;
  guint n = var->L.n;
  const double t0 = *t;
  gboolean ok = TRUE;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (var->grp)
    return cml_groupoid_var_advance (var->grp, t, t1, z, error);
  var->midpoint_residual = 0;
  if (t1 == *t)
    return TRUE;
  for (guint i = 0; i < var->dim; i++)
    if (!isfinite (z[i]))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "non-finite state at t = %.6g (before the first step)", *t);
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
                       "the integrator took %" G_GUINT64_FORMAT " steps between t = %.6g and t = %.6g without "
                       "reaching t = %.6g: its steps (%.3g now) are far too short for the span; a shorter span "
                       "or a longer step may reach it", k, t0, *t, t1, h);
          ok = FALSE;
          break;
        }
      memcpy (var->z_good, z, var->dim * sizeof (double));
      memcpy (var->pp, var->p, n * sizeof (double));
      gboolean step_ok = method_step (var, t_good, h, z, error);
      for (guint i = 0; step_ok && i < var->dim; i++)
        if (!isfinite (z[i]))
          {
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "non-finite state at t = %.6g", t_good);
            step_ok = FALSE;
          }
      if (!step_ok)
        {
          /* back to the last good state and its momenta */
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
    cml_variational_get_stats (var, o->stats);
  return ok;
}

guint
cml_variational_step_state_size (const CmlVariational *var)
{
  if (var->grp)
    return cml_groupoid_var_step_state_size (var->grp);
  return 1 + var->L.n;
}

void
cml_variational_save_step_state (const CmlVariational *var, double t, const double *z, double *out)
{
  if (var->grp)
    {
      cml_groupoid_var_save_step_state (var->grp, t, z, out);
      return;
    }
  guint n = var->L.n;
  gboolean valid = var->p_valid && t == var->t_last && memcmp (z, var->z_last, var->dim * sizeof (double)) == 0;
  out[0] = valid ? 1.0 : 0.0;
  if (valid)
    memcpy (out + 1, var->p, n * sizeof (double));
  else
    memset (out + 1, 0, n * sizeof (double));
}

void
cml_variational_restore_step_state (CmlVariational *var, double t, const double *z, const double *in)
{
  if (var->grp)
    {
      cml_groupoid_var_restore_step_state (var->grp, t, z, in);
      return;
    }
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
cml_variational_n_rhs (const CmlVariational *var)
{
  if (var->grp)
    return cml_groupoid_var_n_rhs (var->grp);
  return (guint64) ceil (var->cost);
}

void
cml_variational_get_stats (const CmlVariational *var, CmlIntegratorStats *stats)
{
  if (var->grp)
    {
      cml_groupoid_var_get_stats (var->grp, stats);
      return;
    }
  memset (stats, 0, sizeof *stats);
  stats->n_steps = var->n_steps;
  stats->n_rhs = cml_variational_n_rhs (var);
  stats->h = var->options.h_fixed;
}

double
cml_variational_midpoint_residual (const CmlVariational *var)
{
  if (var->grp)
    return cml_groupoid_var_midpoint_residual (var->grp);
  return var->midpoint_residual;
}
