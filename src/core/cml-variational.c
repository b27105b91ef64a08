/* cml-variational.c — the discrete Lagrange–d'Alembert integrators of a Lagrangian on T Q
 * (variational: second order; variational4: its symmetric triple jump, fourth order).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * docs/theory.md §14.  With the midpoint discrete Lagrangian
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
 * symmetric: (q₁, p₁, −h) gives back (q₀, p₀) with the same m and λ.  The unknowns are the
 * increment u = q₁ − q₀ and μ = (h/2) λ; Newton's method with the exact Jacobian (the
 * second derivatives of L and φ, compiled once per system) starts from u = h v₀, μ = 0,
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
 * Output at exact times as the implicit midpoint rule: N = ceil (|T1 − t|/h − 1e-9) equal
 * steps of (T1 − t)/N, backwards too.  Cost: every evaluation of the compiled derivatives
 * counts as its instructions over those of the system's right-hand side.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational.h"

#include "cml-error.h"
#include "cml-system-private.h"

#include <float.h>
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
typedef struct
{
  guint n, s;
  guint Lv, Lq, phi, Pv, Pq, Lvv, Lvq, Lqq, Pvq, Pvv, total;
} Layout;

struct _CmlVariational
{
  CmlSystem *sys;
  CmlProgram *prog;      /* owned by the system */
  Layout      L;
  CmlIntegratorOptions options;
  double     *regs, *fast, *out;
  double      cost_per_eval;  /* right-hand-side equivalents of one evaluation */

  /* the carried momenta, valid for the state z_last at t_last */
  double     *p, *z_last;
  double      t_last;
  gboolean    p_valid;

  /* work: the step's unknowns, the Newton system, the substeps' q and p */
  double     *u, *mu, *q, *pp, *rhs, *z_good, *vq, *nu;
  gsl_matrix *J;
  gsl_permutation *perm;

  double      cost;
  guint64     n_steps;
  double      midpoint_residual;
};

static void
layout_init (Layout *L, guint n, guint s)
{
  guint o = 0;
  L->n = n;
  L->s = s;
  L->Lv = o, o += n;
  L->Lq = o, o += n;
  L->phi = o, o += s;
  L->Pv = o, o += s * n;
  L->Pq = o, o += s * n;
  L->Lvv = o, o += n * n;
  L->Lvq = o, o += n * n;
  L->Lqq = o, o += n * n;
  L->Pvq = o, o += s * n * n;
  L->Pvv = o, o += s * n * n;
  L->total = o;
}

gboolean
cml_variational_supports (CmlSystem *sys, GError **error)
{
  CmlModel *md = sys->model;
  const char *why = NULL;

  if (sys->formalism == CML_FORMALISM_VAKONOMIC)
    why = "its constraints are vakonomic";
  else if (sys->formalism == CML_FORMALISM_SINGULAR)
    why = "its Lagrangian is singular";
  else if (sys->formalism != CML_FORMALISM_EULER_LAGRANGE && sys->formalism != CML_FORMALISM_NONHOLONOMIC)
    why = "its equations are of another kind";
  else if (md->m != md->n)
    why = "its algebroid is not T Q (the base and the fibre differ in dimension)";
  else if (md->reconstruction->len > 0)
    why = "it has reconstruction variables";
  if (!why)
    for (guint i = 0; i < md->m && !why; i++)
      for (guint A = 0; A < md->n && !why; A++)
        {
          double v;
          if (!cml_expr_is_number (md->anchor[i * md->n + A], &v) || v != (i == A ? 1.0 : 0.0))
            why = "its anchor is not the identity";
        }
  if (!why && md->bracket)
    for (guint k = 0; k < md->n * md->n * md->n && !why; k++)
      if (md->bracket[k] && !cml_expr_is_zero (md->bracket[k]))
        why = "it has brackets (a Lie algebroid other than T Q)";
  if (why)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "%s: the variational integrators take a regular Lagrangian on the tangent bundle T Q "
                   "(the standard Lie algebroid: identity anchor, no brackets, no reconstruction variables), "
                   "unconstrained or with nonholonomic constraints; %s (use implicit-midpoint or an "
                   "adaptive integrator)", md->name, why);
      return FALSE;
    }
  return TRUE;
}

/* The derivatives of L and φ as one program with inputs (t, q, v); built once per system,
 * under the system's lock for things built on first use. */
static CmlProgram *
ensure_program (CmlSystem *sys, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint n = md->n, s = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? md->constraints->len : 0;
  CmlProgram *prog;
  Layout L;

  g_mutex_lock (&sys->native_lock);
  if (sys->variational_prog)
    {
      prog = sys->variational_prog;
      g_mutex_unlock (&sys->native_lock);
      return prog;
    }
  layout_init (&L, n, s);
  g_autofree CmlExpr **o = g_new0 (CmlExpr *, MAX (L.total, 1));
  g_autofree int *fast = g_new (int, 1 + 2 * n);
  fast[0] = md->t_sym;
  for (guint A = 0; A < n; A++)
    {
      fast[1 + A] = md->base_sym[A];
      fast[1 + n + A] = md->fibre_sym[A];
    }
  for (guint A = 0; A < n; A++)
    {
      CmlExpr *lv = cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[A]);
      CmlExpr *lq = cml_expr_diff (ctx, md->lagrangian, md->base_sym[A]);
      o[L.Lv + A] = lv;
      o[L.Lq + A] = lq;
      for (guint B = 0; B < n; B++)
        {
          o[L.Lvv + A * n + B] = cml_expr_diff (ctx, lv, md->fibre_sym[B]);
          o[L.Lvq + A * n + B] = cml_expr_diff (ctx, lv, md->base_sym[B]);
          o[L.Lqq + A * n + B] = cml_expr_diff (ctx, lq, md->base_sym[B]);
        }
    }
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      o[L.phi + a] = phi;
      for (guint A = 0; A < n; A++)
        {
          CmlExpr *pv = cml_expr_diff (ctx, phi, md->fibre_sym[A]);
          o[L.Pv + a * n + A] = pv;
          o[L.Pq + a * n + A] = cml_expr_diff (ctx, phi, md->base_sym[A]);
          for (guint B = 0; B < n; B++)
            {
              o[L.Pvq + (a * n + A) * n + B] = cml_expr_diff (ctx, pv, md->base_sym[B]);
              o[L.Pvv + (a * n + A) * n + B] = cml_expr_diff (ctx, pv, md->fibre_sym[B]);
            }
        }
    }
  prog = cml_program_compile (ctx, o, L.total, sys->param_sym, sys->n_params, fast, 1 + 2 * n, error);
  sys->variational_prog = prog;
  g_mutex_unlock (&sys->native_lock);
  return prog;
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
  CmlProgram *prog = ensure_program (sys, error);
  if (!prog)
    return NULL;

  guint n = md->n, s = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? md->constraints->len : 0, k = n + s;
  CmlVariational *var = g_new0 (CmlVariational, 1);
  var->sys = cml_system_ref (sys);
  var->prog = prog;
  layout_init (&var->L, n, s);
  var->options = *options;
  var->regs = g_new0 (double, cml_program_n_registers (prog) + 1);
  var->fast = g_new0 (double, 1 + 2 * n);
  var->out = g_new0 (double, var->L.total + 1);
  guint rhs_cost = sys->rhs_prog ? cml_program_n_fast_instructions (sys->rhs_prog) : 0;
  var->cost_per_eval = (double) MAX (cml_program_n_fast_instructions (prog), 1) / MAX (rhs_cost, 1);
  var->p = g_new0 (double, n);
  var->z_last = g_new0 (double, 2 * n);
  var->u = g_new0 (double, n);
  var->mu = g_new0 (double, s + 1);
  var->nu = g_new0 (double, s + 1);
  var->q = g_new0 (double, n);
  var->pp = g_new0 (double, n);
  var->vq = g_new0 (double, n);
  var->rhs = g_new0 (double, k);
  var->z_good = g_new0 (double, 2 * n);
  var->J = gsl_matrix_alloc (k, k);
  var->perm = gsl_permutation_alloc (k);
  cml_variational_set_params (var, params);
  return var;
}

void
cml_variational_free (CmlVariational *var)
{
  if (!var)
    return;
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
  cml_system_unref (var->sys);
  g_free (var);
}

void
cml_variational_set_params (CmlVariational *var, const double *params)
{
  cml_program_prepare (var->prog, params, var->regs);
  var->p_valid = FALSE;
}

void
cml_variational_reset (CmlVariational *var)
{
  var->p_valid = FALSE;
}

/* The program at (T, Q, V) into var->out; FALSE if an output is not finite. */
static gboolean
eval_at (CmlVariational *var, double t, const double *q, const double *v)
{
  guint n = var->L.n;
  var->fast[0] = t;
  memcpy (var->fast + 1, q, n * sizeof (double));
  memcpy (var->fast + 1 + n, v, n * sizeof (double));
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
      /* residuals, times h: h (L_v − (h/2) L_q − Φ_vᵀ μ − p₀) and h φ */
      for (guint A = 0; A < n; A++)
        {
          double r = o[L->Lv + A] - 0.5 * h * o[L->Lq + A] - p[A];
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
  /* at the solution: q₁ = q₀ + u, p₁ = p₀ + h L_q + 2 Φ_vᵀ μ */
  for (guint a = 0; a < s; a++)
    var->midpoint_residual = MAX (var->midpoint_residual, fabs (o[L->phi + a]));
  for (guint A = 0; A < n; A++)
    {
      double dp = h * o[L->Lq + A];
      for (guint a = 0; a < s; a++)
        dp += 2.0 * o[L->Pv + a * n + A] * mu[a];
      q[A] += u[A];
      p[A] += dp;
    }
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
  if (var->p_valid && t == var->t_last && memcmp (z, var->z_last, 2 * n * sizeof (double)) == 0)
    return;
  eval_at (var, t, z, z + n);
  memcpy (var->p, var->out + var->L.Lv, n * sizeof (double));
  memcpy (var->z_last, z, 2 * n * sizeof (double));
  var->t_last = t;
  var->p_valid = TRUE;
}

void
cml_variational_momentum (CmlVariational *var, double t, const double *z, double *p)
{
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
  var->midpoint_residual = 0;
  if (t1 == *t)
    return TRUE;
  for (guint i = 0; i < 2 * n; i++)
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
      memcpy (var->z_good, z, 2 * n * sizeof (double));
      memcpy (var->pp, var->p, n * sizeof (double));
      gboolean step_ok = method_step (var, t_good, h, z, error);
      for (guint i = 0; step_ok && i < 2 * n; i++)
        if (!isfinite (z[i]))
          {
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "non-finite state at t = %.6g", t_good);
            step_ok = FALSE;
          }
      if (!step_ok)
        {
          /* back to the last good state and its momenta */
          memcpy (z, var->z_good, 2 * n * sizeof (double));
          memcpy (var->p, var->pp, n * sizeof (double));
          ok = FALSE;
          break;
        }
      *t = k + 1 == nsteps ? t1 : t0 + (double) (k + 1) * h;
      var->n_steps++;
      memcpy (var->z_last, z, 2 * n * sizeof (double));
      var->t_last = *t;
    }
  if (o->stats)
    cml_variational_get_stats (var, o->stats);
  return ok;
}

guint
cml_variational_step_state_size (const CmlVariational *var)
{
  return 1 + var->L.n;
}

void
cml_variational_save_step_state (const CmlVariational *var, double t, const double *z, double *out)
{
  guint n = var->L.n;
  gboolean valid = var->p_valid && t == var->t_last && memcmp (z, var->z_last, 2 * n * sizeof (double)) == 0;
  out[0] = valid ? 1.0 : 0.0;
  if (valid)
    memcpy (out + 1, var->p, n * sizeof (double));
  else
    memset (out + 1, 0, n * sizeof (double));
}

void
cml_variational_restore_step_state (CmlVariational *var, double t, const double *z, const double *in)
{
  guint n = var->L.n;
  var->p_valid = in[0] != 0.0;
  if (var->p_valid)
    {
      memcpy (var->p, in + 1, n * sizeof (double));
      memcpy (var->z_last, z, 2 * n * sizeof (double));
      var->t_last = t;
    }
}

guint64
cml_variational_n_rhs (const CmlVariational *var)
{
  return (guint64) ceil (var->cost);
}

void
cml_variational_get_stats (const CmlVariational *var, CmlIntegratorStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->n_steps = var->n_steps;
  stats->n_rhs = cml_variational_n_rhs (var);
  stats->h = var->options.h_fixed;
}

double
cml_variational_midpoint_residual (const CmlVariational *var)
{
  return var->midpoint_residual;
}
