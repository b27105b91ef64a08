/* cml-variational.c — the discrete Lagrange–d'Alembert integrators of a Lagrangian on T Q
 * or on a Lie algebra given by constant brackets (so(3) by the Cayley map, any other by the
 * exponential map, doc/theory.md §14.6 and cml-variational-lie.c) (variational: second
 * order; variational4: its symmetric triple jump, fourth order).  Other product algebroids with so(3) (the heavy top, the
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
 * so M₁ − M₀ = h (ad*_ξ μ + Q) + O(h²), the forced Euler–Poincaré equations.  On any other
 * Lie algebra M^± = (dexp⁻¹_{±hξ})ᵀ μ, summed from the brackets (cml-variational-lie.c),
 * replace the Cayley node momenta in the same equations.
 *
 * Output at exact times as the implicit midpoint rule: N = ceil (|T1 − t|/h − 1e-9) equal
 * steps of (T1 − t)/N, backwards too.  Cost: every evaluation of the compiled derivatives
 * counts as its instructions over those of the system's right-hand side.
 *
 * What does not depend on the algebroid (the compiled derivatives, the velocity at a node,
 * the reconstruction, the advance loop, the Cayley node momenta) is shared with
 * cml-variational-groupoid.c through cml-variational-private.h.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational.h"
#include "cml-variational-groupoid.h"
#include "cml-variational-private.h"
#include "cml-variational-singular.h"
#include "cml-variational-vakonomic.h"
#include "cml-variational-vakonomic-group.h"

#include "cml-error.h"
#include "cml-simulation-private.h"

#include <float.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>


struct _CmlVariational
{
  CmlVarCore  core;
  CmlGroupoidVar *grp;   /* the other algebroids: cml-variational-groupoid.c does the work */
  CmlVakonomicVar *vak;  /* vakonomic systems: cml-variational-vakonomic.c does the work */
  CmlVakonomicGroupVar *vkg; /* vakonomic on T ℝᵐ × so(3): cml-variational-vakonomic-group.c */
  CmlSingularVar *sng;   /* singular Lagrangians: cml-variational-singular.c does the work */
  gboolean    lie;            /* a Lie algebra (m = 0) */
  gboolean    so3;            /* so(3): the Cayley map; else the exponential map (§14.6) */
  double      C[27], K[9];    /* so(3)'s structure constants and Killing form (lie_so3 ()) */
  double     *dM;             /* ∂M^+_B/∂ξ^D of the step under way */
  double     *Cg, *ework;     /* another algebra's structure constants (lie_algebra ()), work */

  /* work: the step's unknowns, the substeps' q and v, the node momenta */
  double     *u, *mu, *q, *vq;
};

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
  if (!cml_var_jacobi_holds (C, n, scale))
    {
      *why = "its brackets fail the Jacobi identity";
      return FALSE;
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
  if (!cml_var_negative_definite3 (K))
    {
      *why = "its Lie algebra is not so(3) (the Killing form is not negative definite)";
      return FALSE;
    }
  return TRUE;
}

/* Whether MD is a Lie algebra given by constant structure constants: no base, brackets that
 * are numbers, the Jacobi identity; the constants into C[(A n + B) n + D] = C^D_AB (N³
 * numbers) when C is not NULL.  Otherwise FALSE with the reason in *WHY. */
static gboolean
lie_algebra (CmlModel *md, double *C, const char **why)
{
  guint n = md->n;
  g_autofree double *c = g_new0 (double, (gsize) n * n * n + 1);
  if (md->m != 0 || n == 0)
    {
      *why = _("its algebroid is not a Lie algebra (it has a base, or no sections)");
      return FALSE;
    }
  double scale = 0;
  for (guint k = 0; k < n * n * n; k++)
    {
      if (md->bracket && md->bracket[k] && !cml_expr_is_number (md->bracket[k], &c[k]))
        {
          *why = _("its Lie algebra’s brackets are not numbers (structure constants that depend on the "
                   "parameters are not taken)");
          return FALSE;
        }
      scale = MAX (scale, fabs (c[k]));
    }
  if (!cml_var_jacobi_holds (c, n, scale))
    {
      *why = _("its brackets fail the Jacobi identity (they are not those of a Lie algebra)");
      return FALSE;
    }
  if (C)
    memcpy (C, c, (gsize) n * n * n * sizeof (double));
  return TRUE;
}

/* Whether this file's methods take SYS (T Q or a Lie algebra); the reason why not in *WHY. */
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
      if (!lie_so3 (md, C, K, &why))
        {
          why = NULL;
          lie_algebra (md, NULL, &why);
        }
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
  if (sys->formalism == CML_FORMALISM_VAKONOMIC)
    {
      const char *why_group = NULL;
      if (cml_vakonomic_var_supports (sys, &why) || cml_vakonomic_group_var_supports (sys, &why_group))
        return TRUE;
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("%s: the variational integrators take a vakonomic system whose algebroid is the tangent "
                     "bundle T Q in a frame — its base and reconstruction variables coordinates of Q, its free "
                     "sections vector fields on Q, each constrained section a coordinate direction (as for Martinet "
                     "and Heisenberg) — here %s; or one on T ℝᵐ × so(3) whose three so(3) velocities its "
                     "constraints fix (as for the plate–ball) — here %s (use implicit-midpoint or an adaptive "
                     "integrator)"),
                   sys->model->name, why, why_group);
      return FALSE;
    }
  if (sys->formalism == CML_FORMALISM_SINGULAR)
    {
      if (cml_singular_var_supports (sys, &why))
        return TRUE;
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("%s: the variational integrators take a singular Lagrangian when the constraint algorithm’s "
                     "final constraint set holds coordinates and their velocities at numbers, each section’s anchor "
                     "is a coordinate direction or zero, and there are no brackets and no forces (as for both "
                     "Capri–Kobayashi models); %s (use implicit-midpoint or an adaptive integrator)"),
                   sys->model->name, why);
      return FALSE;
    }
  const char *why_classic = NULL;
  if (classic_supports (sys, &why_classic) || cml_groupoid_var_supports (sys, &why))
    return TRUE;
  if (sys->model->m == 0)
    why = why_classic; /* no base: what keeps it from being a Lie algebra, not a groupoid's reason */
  g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
               _("%s: the variational integrators take a regular Lagrangian, unconstrained or with nonholonomic "
                 "constraints, with or without forces ([forces]), on the tangent bundle T Q (the standard Lie "
                 "algebroid: identity anchor, no brackets), on a Lie algebra given by constant brackets (so(3) "
                 "by the Cayley map, any other by the exponential map), or on a product of these in which so(3) turns the rest of the base as rotations turn "
                 "vectors (the rolling ball’s T ℝ² × so(3), the heavy top’s so(3) ⋉ ℝ³); %s (use implicit-midpoint "
                 "or an adaptive integrator)"), sys->model->name, why);
  return FALSE;
}

void
cml_variational_prepare (CmlSystem *sys)
{
  const char *why;
  if (sys->formalism == CML_FORMALISM_VAKONOMIC && cml_vakonomic_group_var_supports (sys, NULL))
    cml_vakonomic_group_var_prepare (sys);
  else if (sys->formalism == CML_FORMALISM_VAKONOMIC)
    cml_vakonomic_var_prepare (sys);
  else if (sys->formalism == CML_FORMALISM_SINGULAR)
    cml_singular_var_prepare (sys);
  else if (classic_supports (sys, &why))
    (void) cml_var_program_ensure (sys, sys->model->m == 0 ? sys->nr : 0, &cml_system_runtime (sys)->variational_prog, NULL);
  else
    cml_groupoid_var_prepare (sys);
}

CmlVariational *
cml_variational_new (CmlSystem *sys, const CmlIntegratorOptions *options, const double *params,
                     GError **error)
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
  if (sys->formalism == CML_FORMALISM_VAKONOMIC && cml_vakonomic_group_var_supports (sys, NULL))
    {
      CmlVakonomicGroupVar *vkg = cml_vakonomic_group_var_new (sys, options, params, error);
      if (!vkg)
        return NULL;
      CmlVariational *var = g_new0 (CmlVariational, 1);
      var->vkg = vkg;
      return var;
    }
  if (sys->formalism == CML_FORMALISM_VAKONOMIC)
    {
      CmlVakonomicVar *vak = cml_vakonomic_var_new (sys, options, params, error);
      if (!vak)
        return NULL;
      CmlVariational *var = g_new0 (CmlVariational, 1);
      var->vak = vak;
      return var;
    }
  if (sys->formalism == CML_FORMALISM_SINGULAR)
    {
      CmlSingularVar *sng = cml_singular_var_new (sys, options, params, error);
      if (!sng)
        return NULL;
      CmlVariational *var = g_new0 (CmlVariational, 1);
      var->sng = sng;
      return var;
    }
  if (!classic_supports (sys, &why))
    {
      CmlGroupoidVar *grp = cml_groupoid_var_new (sys, options, params, error);
      if (!grp)
        return NULL;
      CmlVariational *var = g_new0 (CmlVariational, 1);
      var->grp = grp;
      return var;
    }
  guint nr = md->m == 0 ? sys->nr : 0;
  CmlProgram *prog = cml_var_program_ensure (sys, nr, &cml_system_runtime (sys)->variational_prog, error);
  if (!prog)
    return NULL;

  CmlVariational *var = g_new0 (CmlVariational, 1);
  cml_var_core_init (&var->core, sys, prog, options, nr);
  guint n = md->n, s = var->core.L.s;
  var->lie = md->m == 0;
  if (var->lie)
    var->so3 = lie_so3 (md, var->C, var->K, &why);
  if (var->lie)
    var->dM = g_new0 (double, (gsize) n * n);
  if (var->lie && !var->so3)
    {
      var->Cg = g_new0 (double, (gsize) n * n * n);
      lie_algebra (md, var->Cg, &why);
      var->ework = g_new0 (double, cml_var_exp_work_size (n));
    }
  var->u = g_new0 (double, n);
  var->mu = g_new0 (double, s + 1);
  var->q = g_new0 (double, n);
  var->vq = g_new0 (double, n);
  cml_variational_set_params (var, params);
  return var;
}

void
cml_variational_free (CmlVariational *var)
{
  if (!var)
    return;
  if (var->grp)
    cml_groupoid_var_free (var->grp);
  else if (var->vak)
    cml_vakonomic_var_free (var->vak);
  else if (var->vkg)
    cml_vakonomic_group_var_free (var->vkg);
  else if (var->sng)
    cml_singular_var_free (var->sng);
  else
    cml_var_core_clear (&var->core);
  g_free (var->u);
  g_free (var->mu);
  g_free (var->q);
  g_free (var->vq);
  g_free (var->Cg);
  g_free (var->dM);
  g_free (var->ework);
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
  if (var->vkg)
    {
      cml_vakonomic_group_var_set_params (var->vkg, params);
      return;
    }
  if (var->vak)
    {
      cml_vakonomic_var_set_params (var->vak, params);
      return;
    }
  if (var->sng)
    {
      cml_singular_var_set_params (var->sng, params);
      return;
    }
  cml_var_core_set_params (&var->core, params);
}

void
cml_variational_reset (CmlVariational *var)
{
  if (var->grp)
    {
      cml_groupoid_var_reset (var->grp);
      return;
    }
  if (var->vkg)
    {
      cml_vakonomic_group_var_reset (var->vkg);
      return;
    }
  if (var->vak)
    {
      cml_vakonomic_var_reset (var->vak);
      return;
    }
  if (var->sng)
    {
      cml_singular_var_reset (var->sng);
      return;
    }
  var->core.p_valid = FALSE;
}

/* One step of size H from (T0, Q, P), in place, starting Newton's method from var->u and
 * var->mu (left at the solution).  FALSE with an error naming T0. */
static gboolean
dla_step (CmlVariational *var, double t0, double h, double *q, double *p, GError **error)
{
  const CmlVarLayout *L = &var->core.L;
  guint n = L->n, s = L->s, k = n + s;
  const double *o = var->core.out;
  double *u = var->u, *mu = var->mu, *b = var->core.rhs, *J = var->core.J->data;
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
      if (!cml_var_eval (&var->core, tm, var->q, var->vq, NULL))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the discrete Lagrange–d'Alembert equations are not finite in the step from t = %.6g; "
                       "lower the step", t0);
          return FALSE;
        }
      if (done)
        break;
      if (it == CML_VAR_NEWTON_MAX_IT)
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
      if (!cml_var_solve (&var->core, b))
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
      done = r <= CML_VAR_TOL;
    }
  /* at the solution: q₁ = q₀ + u, p₁ = p₀ + h (L_q + Q) + 2 Φ_vᵀ μ */
  for (guint a = 0; a < s; a++)
    var->core.midpoint_residual = MAX (var->core.midpoint_residual, fabs (o[L->phi + a]));
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

/* The exponential node momenta of another Lie algebra than so(3) (cml_var_exp_node_momentum);
 * FALSE with an error naming T0 when the step of size H is too long for the series. */
static gboolean
exp_node_momentum (CmlVariational *var, double t0, double h, const double *xi, const double *mu,
                   const double *W, double sign, double *out, double *dM, GError **error)
{
  if (cml_var_exp_node_momentum (var->core.L.n, var->Cg, h, xi, mu, W, sign, out, dM, var->ework))
    return TRUE;
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               "the step's rotation h ad ξ is too large for the exponential map in the step from t = %.6g; "
               "lower the step", t0);
  return FALSE;
}

/* One step of size H on a Lie algebra from (T0, M = P, R), in place: solves
 *
 *   M^+(h, ξ) − Φ_y(tm, ξ)ᵀ ν = M₀,   φ(tm, ξ) = 0
 *
 * for the step's velocity ξ (var->u, also the starting guess) and ν (var->mu), then sets
 * M₁ = M^−(h, ξ) + Φ_y(tm, ξ)ᵀ ν and advances R; M^± those of the Cayley map on so(3), of
 * the exponential map on any other algebra.  FALSE with an error naming T0. */
static gboolean
lie_step (CmlVariational *var, double t0, double h, double *p, double *r, GError **error)
{
  const CmlVarLayout *L = &var->core.L;
  guint n = L->n, s = L->s, k = n + s;
  const double *o = var->core.out;
  double *xi = var->u, *nu = var->mu, *b = var->core.rhs, *J = var->core.J->data, *Mp = var->q;
  double tm = t0 + 0.5 * h;
  gboolean done = FALSE;
  double pmax = 0;

  for (guint A = 0; A < n; A++)
    pmax = MAX (pmax, fabs (p[A]));
  for (int it = 0;; it++)
    {
      if (!cml_var_eval (&var->core, tm, NULL, xi, r))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the discrete Euler–Poincaré equations are not finite in the step from t = %.6g; "
                       "lower the step", t0);
          return FALSE;
        }
      if (done)
        break;
      if (it == CML_VAR_NEWTON_MAX_IT)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete Euler–Poincaré equations did not converge in the step "
                       "from t = %.6g; lower the step", t0);
          return FALSE;
        }
      const double *mu = o + L->Lv, *W = o + L->Lvv;
      double *dM = var->dM;
      if (var->so3)
        {
          /* the Cayley node momenta M^+ and ∂M^+_B/∂ξ^D (§14.1) */
          double mx = 0, kx[3] = { 0 }, wx[3] = { 0 };
          cml_var_node_momentum (n, var->C, var->K, NULL, h, xi, mu, 1.0, Mp);
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
            for (guint D = 0; D < n; D++)
              {
                double c = 0;
                for (guint C = 0; C < n; C++)
                  {
                    c += var->C[(D * n + B) * n + C] * mu[C];
                    for (guint A = 0; A < n; A++)
                      c += var->C[(A * n + B) * n + C] * xi[A] * W[C * n + D];
                  }
                dM[B * n + D] = W[B * n + D] - 0.5 * h * c
                                - 0.125 * h * h * ((wx[D] + mu[D]) * kx[B] + mx * var->K[B * n + D]);
              }
        }
      /* another Lie algebra: the exponential node momenta and their derivatives (§14.6) */
      else if (!exp_node_momentum (var, t0, h, xi, mu, W, 1.0, Mp, dM, error))
        return FALSE;
      for (guint B = 0; B < n; B++)
        {
          /* M^+ − (h/2) Q − Φ_yᵀ ν − M₀, Q the forces at the step's velocity */
          double res = Mp[B] - p[B] - (L->nq ? 0.5 * h * o[L->Q + B] : 0.0);
          for (guint a = 0; a < s; a++)
            res -= o[L->Pv + a * n + B] * nu[a];
          b[B] = -res;
          for (guint D = 0; D < n; D++)
            {
              /* ∂M^+_B/∂ξ^D − (h/2) ∂Q_B/∂ξ^D − ν_a ∂²φ^a/∂y^B∂y^D */
              double j = dM[B * n + D];
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
      if (!cml_var_solve (&var->core, b))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the Newton matrix of the discrete Euler–Poincaré equations is singular in the step from "
                       "t = %.6g; lower the step", t0);
          return FALSE;
        }
      double xmax = 0;
      for (guint A = 0; A < n; A++)
        xmax = MAX (xmax, fabs (xi[A]));
      double c = cml_var_newton_update (n, s, b, xi, nu, xmax, pmax);
      if (!isfinite (c))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete Euler–Poincaré equations diverged in the step from "
                       "t = %.6g; lower the step", t0);
          return FALSE;
        }
      done = c <= CML_VAR_TOL;
    }
  /* at the solution: M₁ = M^−(h, ξ) + (h/2) Q + Φ_yᵀ ν */
  for (guint a = 0; a < s; a++)
    var->core.midpoint_residual = MAX (var->core.midpoint_residual, fabs (o[L->phi + a]));
  if (var->so3)
    cml_var_node_momentum (n, var->C, var->K, NULL, h, xi, o + L->Lv, -1.0, Mp);
  else if (!exp_node_momentum (var, t0, h, xi, o + L->Lv, NULL, -1.0, Mp, NULL, error))
    return FALSE;
  for (guint B = 0; B < n; B++)
    {
      double f = L->nq ? 0.5 * h * o[L->Q + B] : 0.0;
      for (guint a = 0; a < s; a++)
        f += o[L->Pv + a * n + B] * nu[a];
      p[B] = Mp[B] + f;
    }
  return cml_var_reconstruct (&var->core, t0, tm, h, NULL, xi, TRUE, r, error);
}

void
cml_variational_momentum (CmlVariational *var, double t, const double *z, double *p)
{
  if (var->grp)
    {
      cml_groupoid_var_momentum (var->grp, t, z, p);
      return;
    }
  if (var->vkg)
    {
      cml_vakonomic_group_var_momentum (var->vkg, t, z, p);
      return;
    }
  if (var->vak)
    {
      cml_vakonomic_var_momentum (var->vak, t, z, p);
      return;
    }
  if (var->sng)
    {
      cml_singular_var_momentum (var->sng, t, z, p);
      return;
    }
  cml_var_momentum (&var->core, t, z, p);
}

/* One step of the method (one or three discrete Lagrange–d'Alembert steps) of size H from
 * (T0, Z): the carried momenta are advanced with it and Z gets (q₁, v₁). */
static gboolean
method_step (gpointer self, double t0, double h, double *z, GError **error)
{
  CmlVariational *var = self;
  CmlVarCore *core = &var->core;
  guint n = core->L.n, s = core->L.s;
  double hs[3];
  guint n_sub = cml_var_substeps (core, h, hs);
  double t = t0, h_prev = 0;

  if (var->lie)
    {
      /* z = (y, r): the step's velocity starts from the shown one, then the last step's */
      memcpy (var->u, z, n * sizeof (double));
      memset (var->mu, 0, s * sizeof (double));
      for (guint j = 0; j < n_sub; j++)
        {
          double hj = hs[j];
          for (guint a = 0; j > 0 && a < s; a++)
            var->mu[a] *= hj / h_prev;
          if (!lie_step (var, t, hj, core->p, z + n, error))
            return FALSE;
          t = j + 1 == n_sub ? t0 + h : t + hj;
          h_prev = hj;
        }
      memcpy (z, var->u, n * sizeof (double));
      return cml_var_velocity_at (core, t0 + h, NULL, z + n, core->p, z, error);
    }

  /* predictor of the first step: u = h v₀, μ = 0 */
  for (guint j = 0; j < n_sub; j++)
    {
      double hj = hs[j];
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
      if (!dla_step (var, t, hj, z, core->p, error))
        return FALSE;
      t = j + 1 == n_sub ? t0 + h : t + hj;
      h_prev = hj;
    }
  /* the velocity shown at the new point, from the last midpoint velocity */
  for (guint A = 0; A < n; A++)
    z[n + A] = var->u[A] / h_prev;
  return cml_var_velocity_at (core, t0 + h, z, NULL, core->p, z + n, error);
}

gboolean
cml_variational_advance (CmlVariational *var, double *t, double t1, double *z, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (var->grp)
    return cml_groupoid_var_advance (var->grp, t, t1, z, error);
  if (var->vkg)
    return cml_vakonomic_group_var_advance (var->vkg, t, t1, z, error);
  if (var->vak)
    return cml_vakonomic_var_advance (var->vak, t, t1, z, error);
  if (var->sng)
    return cml_singular_var_advance (var->sng, t, t1, z, error);
  return cml_var_advance (&var->core, t, t1, z, method_step, var, error);
}

guint
cml_variational_step_state_size (const CmlVariational *var)
{
  if (var->grp)
    return cml_groupoid_var_step_state_size (var->grp);
  if (var->vkg)
    return cml_vakonomic_group_var_step_state_size (var->vkg);
  if (var->vak)
    return cml_vakonomic_var_step_state_size (var->vak);
  if (var->sng)
    return cml_singular_var_step_state_size (var->sng);
  return cml_var_step_state_size (&var->core);
}

void
cml_variational_save_step_state (const CmlVariational *var, double t, const double *z, double *out)
{
  if (var->grp)
    {
      cml_groupoid_var_save_step_state (var->grp, t, z, out);
      return;
    }
  if (var->vkg)
    {
      cml_vakonomic_group_var_save_step_state (var->vkg, t, z, out);
      return;
    }
  if (var->vak)
    {
      cml_vakonomic_var_save_step_state (var->vak, t, z, out);
      return;
    }
  if (var->sng)
    {
      cml_singular_var_save_step_state (var->sng, t, z, out);
      return;
    }
  cml_var_save_step_state (&var->core, t, z, out);
}

void
cml_variational_restore_step_state (CmlVariational *var, double t, const double *z,
                                    const double *in)
{
  if (var->grp)
    {
      cml_groupoid_var_restore_step_state (var->grp, t, z, in);
      return;
    }
  if (var->vkg)
    {
      cml_vakonomic_group_var_restore_step_state (var->vkg, t, z, in);
      return;
    }
  if (var->vak)
    {
      cml_vakonomic_var_restore_step_state (var->vak, t, z, in);
      return;
    }
  if (var->sng)
    {
      cml_singular_var_restore_step_state (var->sng, t, z, in);
      return;
    }
  cml_var_restore_step_state (&var->core, t, z, in);
}

guint64
cml_variational_n_rhs (const CmlVariational *var)
{
  if (var->grp)
    return cml_groupoid_var_n_rhs (var->grp);
  if (var->vkg)
    return cml_vakonomic_group_var_n_rhs (var->vkg);
  if (var->vak)
    return cml_vakonomic_var_n_rhs (var->vak);
  if (var->sng)
    return cml_singular_var_n_rhs (var->sng);
  return cml_var_n_rhs (&var->core);
}

void
cml_variational_get_stats (const CmlVariational *var, CmlIntegratorStats *stats)
{
  if (var->grp)
    {
      cml_groupoid_var_get_stats (var->grp, stats);
      return;
    }
  if (var->vkg)
    {
      cml_vakonomic_group_var_get_stats (var->vkg, stats);
      return;
    }
  if (var->vak)
    {
      cml_vakonomic_var_get_stats (var->vak, stats);
      return;
    }
  if (var->sng)
    {
      cml_singular_var_get_stats (var->sng, stats);
      return;
    }
  cml_var_get_stats (&var->core, stats);
}

double
cml_variational_midpoint_residual (const CmlVariational *var)
{
  if (var->grp)
    return cml_groupoid_var_midpoint_residual (var->grp);
  if (var->vkg)
    return cml_vakonomic_group_var_midpoint_residual (var->vkg);
  if (var->vak)
    return cml_vakonomic_var_midpoint_residual (var->vak);
  if (var->sng)
    return 0.0; /* no constraints at the midpoints: the final ones hold at every node exactly */
  return var->core.midpoint_residual;
}
