/* cml-variational-vakonomic-group.c — the discrete vakonomic integrators (variational:
 * second order; variational4: its symmetric triple jump, fourth order) of a vakonomic
 * system on T ℝᵐ × so(3) → ℝᵐ whose so(3) velocities are all constrained (the plate–ball):
 * the discrete vakonomic equations on the groupoid (ℝᵐ × ℝᵐ) × SO(3).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.5.  The algebroid: m sections e_a with the identity anchor (the free
 * velocities y = ẋ), three sections e_α with no anchor and constant brackets
 * [[e_i, e_j]] = κ ε_ijk e_k (κ = σ for the plate–ball), no brackets with the e_a; the
 * constraints ω = Ψ(t, x, y) fix the three so(3) velocities.  With the step's midpoint
 * m = (t + h/2, (x₀ + x₁)/2, v = (x₁ − x₀)/h), ξ = h Ψ(m) and the rotation of the step
 * W = cay(a), a = −κ ξ, the extended discrete Lagrangian
 *
 *   L̃_d = h L(m) + h μ·(ξ/h − Ψ(m)),      L̃(x, y; μ) = L(x, y, Ψ) − μ·Ψ(x, y),
 *
 * μ ∈ so(3)* the step's multiplier, gives the discrete vakonomic equations
 *
 *   P₀ = L̃_y(m) − (h/2) L̃_x(m),           M₀ = A(ξ) μ = μ + (κ/2) ξ × μ + ξ (ξ·μ)/4,
 *   P₁ = L̃_y(m) + (h/2) L̃_x(m),           M₁ = B(ξ) μ = μ − (κ/2) ξ × μ + ξ (ξ·μ)/4,
 *
 * (unknowns x₁ and μ), the model's state being (x, P, M, r): p₁..p_m = P, the last three
 * momenta = M.  Since (I + â/2) = cay(a)(I − â/2) and cay(a) a = a, B(ξ) = cay(a) A(ξ):
 * M₁ = cay(−κξ) M₀ is the coadjoint action of the step's rotation, computed in that form so
 * that the Casimir |M|² is kept to rounding whatever Newton's tolerance.  Continuous limit:
 * Ṁ = −κ ω × M, ṗ = L̃_x, p = L̃_y — the model's vakonomic equations.  The step is symmetric
 * ((x₁, P₁, M₁, −h) gives back (x₀, P₀, M₀) with the same m and μ: A(−ξ) = B(ξ)), so the
 * triple jump is of fourth order.  The reconstruction variables r take the implicit
 * midpoint rule r₁ = r₀ + h F(m, (r₀ + r₁)/2) with the step's midpoint velocities (a
 * quaternion's norm is kept: its rate is linear and skew in it).
 *
 * Newton's method for (u = x₁ − x₀, μ) with the exact Jacobian (the E₁ rows times h)
 *
 *   [ L̃_yy + (h/2)(L̃_yx − L̃_xy) − (h²/4) L̃_xx      −h (Ψ_y − (h/2) Ψ_x)ᵀ ]
 *   [ D(ξ, μ) (Ψ_y + (h/2) Ψ_x)                       A(ξ)                  ]
 *
 * with D = −(κ/2) μ̂ + (ξ·μ)/4 I + ξ μᵀ/4 (the derivative of A(ξ) μ along ξ), the second
 * derivatives compiled once per system, starts from the last step's u and μ (the first
 * from u = 0, μ = M₀) and stops when the correction is at 1e-10 of the state.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-vakonomic-group.h"

#include "cml-variational-private.h"

#include "cml-error.h"
#include "cml-symsolve.h"
#include "cml-system-private.h"
#include "cml-system-runtime.h"

#include <float.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#define VG_NEWTON_MAX_IT 30
#define VG_TOL 1e-10

/* Offsets of the program's outputs at (t, x, v, μ, r): L̃_y (m), L̃_x (m), Ψ (3), Ψ_y (3 m),
 * Ψ_x (3 m), L̃_yy (m m), L̃_yx[a m + b] = ∂²L̃/∂y_a∂x_b, L̃_xx (m m), F (nr),
 * Fr[k nr + l] = ∂F_k/∂r_l, κ (1). */
typedef struct
{
  guint m, nr;
  guint Lv, Lq, psi, Pv, Pq, Lvv, Lvq, Lqq, F, Fr, kap, total;
} Layout;

static void
layout_init (Layout *L, guint m, guint nr)
{
  guint o = 0;
  L->m = m, L->nr = nr;
  L->Lv = o, o += m;
  L->Lq = o, o += m;
  L->psi = o, o += 3;
  L->Pv = o, o += 3 * m;
  L->Pq = o, o += 3 * m;
  L->Lvv = o, o += m * m;
  L->Lvq = o, o += m * m;
  L->Lqq = o, o += m * m;
  L->F = o, o += nr;
  L->Fr = o, o += nr * nr;
  L->kap = o, o += 1;
  L->total = o;
}

static const int eps3[3][3][3] = {
  { { 0, 0, 0 }, { 0, 0, 1 }, { 0, -1, 0 } },
  { { 0, 0, -1 }, { 0, 0, 0 }, { 1, 0, 0 } },
  { { 0, 1, 0 }, { -1, 0, 0 }, { 0, 0, 0 } },
};

/* Whether SYS has the shape of this file (see the header); the constrained fibre indices
 * (in the order e_i of so(3)) into CON, else FALSE with the reason in *WHY.  Under the
 * system's native_lock. */
static gboolean
shape_read (CmlSystem *sys, guint con[3], const char **why)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n;

  *why = NULL;
  if (md->forces)
    {
      *why = _("it has forces ([forces]), which the discrete vakonomic equations do not take");
      return FALSE;
    }
  if (n != m + 3 || md->constraints->len != 3)
    {
      *why = _("its fibre is not the base’s velocities and three constrained velocities of so(3)");
      return FALSE;
    }
  for (guint i = 0; i < m; i++)
    for (guint A = 0; A < n; A++)
      {
        double v;
        if (!cml_expr_is_number (md->anchor[i * n + A], &v) || v != (i == A ? 1.0 : 0.0))
          {
            *why = _("its anchor is not the identity on the first sections and zero on the so(3) ones");
            return FALSE;
          }
      }
  for (guint a = 0; a < 3; a++)
    {
      CmlNamedExpr *c = md->constraints->pdata[a];
      guint A = m;
      while (A < n && !g_str_equal (md->fibre[A], c->name))
        A++;
      if (A == n)
        {
          *why = _("its constraints do not fix the so(3) velocities");
          return FALSE;
        }
      con[a] = A;
      for (guint B = m; B < n; B++)
        if (!cml_expr_is_zero (cml_expr_diff (ctx, c->expr, md->fibre_sym[B])))
          {
            *why = _("its constraints depend on the so(3) velocities");
            return FALSE;
          }
    }
  for (guint a = 0; a < 3; a++)
    for (guint b = a + 1; b < 3; b++)
      if (con[a] == con[b])
        {
          *why = _("its constraints do not fix the so(3) velocities");
          return FALSE;
        }
  /* con in the fibre's order: e_i = the so(3) sections in their order */
  for (guint a = 0; a < 3; a++)
    con[a] = m + a;
  for (guint B = m; B < n; B++)
    if (!cml_expr_is_zero (cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[B])))
      {
        *why = _("its Lagrangian depends on the constrained so(3) velocities");
        return FALSE;
      }
  /* the brackets: κ ε_ijk among e_m.., constant on the base, none with the e_a */
  for (guint seed = 11; seed <= 12; seed++)
    {
      g_autofree double *pt = cml_sys_make_sample (sys, seed);
      double kap = md->bracket && md->bracket[(m * n + m + 1) * n + m + 2]
                     ? cml_expr_eval (md->bracket[(m * n + m + 1) * n + m + 2], pt) : 0.0;
      for (guint A = 0; A < n; A++)
        for (guint B = 0; B < n; B++)
          for (guint C = 0; C < n; C++)
            {
              CmlExpr *e = md->bracket ? md->bracket[(A * n + B) * n + C] : NULL;
              double c = e ? cml_expr_eval (e, pt) : 0.0;
              double want = A >= m && B >= m && C >= m ? kap * eps3[A - m][B - m][C - m] : 0.0;
              gboolean ok = fabs (c - want) <= 1e-12 * (1 + fabs (kap));
              for (guint i = 0; ok && e && i < m; i++)
                ok = cml_expr_is_zero (cml_expr_diff (ctx, e, md->base_sym[i]));
              if (!ok)
                {
                  *why = _("its brackets are not those of so(3) (constant, [[e_i, e_j]] = κ ε_ijk e_k) with no "
                           "brackets of the base’s sections");
                  return FALSE;
                }
            }
    }
  return TRUE;
}

gboolean
cml_vakonomic_group_var_supports (CmlSystem *sys, const char **why)
{
  const char *w = NULL;
  guint con[3];
  if (sys->formalism != CML_FORMALISM_VAKONOMIC)
    w = _("its constraints are not vakonomic");
  else
    {
      g_mutex_lock (&cml_system_runtime (sys)->lock);
      shape_read (sys, con, &w);
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
    }
  if (why)
    *why = w;
  return w == NULL;
}

/* The program (inputs t, x, v, μ, r), built once per system into sys->variational_prog (not
 * used otherwise by a vakonomic system), under the system's native_lock. */
static CmlProgram *
program_ensure (CmlSystem *sys, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  const char *why = NULL;
  guint con[3], m = md->m, n = md->n, nr = sys->nr;
  Layout L;

  g_mutex_lock (&cml_system_runtime (sys)->lock);
  if (cml_system_runtime (sys)->variational_prog)
    {
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
      return cml_system_runtime (sys)->variational_prog;
    }
  if (!shape_read (sys, con, &why))
    {
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s: %s", md->name, why);
      return NULL;
    }
  layout_init (&L, m, nr);
  int msym[3];
  for (guint a = 0; a < 3; a++)
    {
      g_autofree char *name = g_strdup_printf ("vkg·μ%u", a);
      msym[a] = cml_expr_ctx_intern (ctx, name);
    }
  /* Ψ in the order of the so(3) sections; w = Ψ substituted into L and F */
  CmlExpr *psi[3] = { NULL, NULL, NULL };
  for (guint a = 0; a < 3; a++)
    {
      CmlNamedExpr *c = md->constraints->pdata[a];
      guint A = m;
      while (!g_str_equal (md->fibre[A], c->name))
        A++;
      psi[A - m] = c->expr;
    }
  int ids[3] = { md->fibre_sym[m], md->fibre_sym[m + 1], md->fibre_sym[m + 2] };
  CmlExpr *Lt = cml_expr_subs (ctx, md->lagrangian, 3, ids, psi);
  for (guint a = 0; a < 3; a++)
    Lt = cml_expr_sub (ctx, Lt, cml_expr_mul (ctx, cml_expr_sym (ctx, msym[a]), psi[a]));
  g_autofree CmlExpr **o = g_new0 (CmlExpr *, L.total + 1);
  for (guint a = 0; a < m; a++)
    {
      CmlExpr *lv = cml_expr_diff (ctx, Lt, md->fibre_sym[a]), *lq = cml_expr_diff (ctx, Lt, md->base_sym[a]);
      o[L.Lv + a] = lv;
      o[L.Lq + a] = lq;
      for (guint b = 0; b < m; b++)
        {
          o[L.Lvv + a * m + b] = cml_expr_diff (ctx, lv, md->fibre_sym[b]);
          o[L.Lvq + a * m + b] = cml_expr_diff (ctx, lv, md->base_sym[b]);
          o[L.Lqq + a * m + b] = cml_expr_diff (ctx, lq, md->base_sym[b]);
        }
    }
  for (guint a = 0; a < 3; a++)
    {
      o[L.psi + a] = psi[a];
      for (guint b = 0; b < m; b++)
        {
          o[L.Pv + a * m + b] = cml_expr_diff (ctx, psi[a], md->fibre_sym[b]);
          o[L.Pq + a * m + b] = cml_expr_diff (ctx, psi[a], md->base_sym[b]);
        }
    }
  for (guint k = 0; k < nr; k++)
    {
      CmlExpr *rate = ((CmlNamedExpr *) md->reconstruction->pdata[k])->expr;
      rate = cml_expr_subs (ctx, rate, 3, ids, psi);
      o[L.F + k] = rate;
      for (guint l = 0; l < nr; l++)
        o[L.Fr + k * nr + l] = cml_expr_diff (ctx, rate, sys->state_sym[m + n + l]);
    }
  o[L.kap] = md->bracket && md->bracket[(m * n + m + 1) * n + m + 2] ? md->bracket[(m * n + m + 1) * n + m + 2]
                                                                      : cml_expr_num (ctx, 0.0);
  guint nfast = 1 + 2 * m + 3 + nr;
  g_autofree int *fast = g_new0 (int, nfast);
  fast[0] = md->t_sym;
  for (guint i = 0; i < m; i++)
    {
      fast[1 + i] = md->base_sym[i];
      fast[1 + m + i] = md->fibre_sym[i];
    }
  for (guint a = 0; a < 3; a++)
    fast[1 + 2 * m + a] = msym[a];
  for (guint k = 0; k < nr; k++)
    fast[4 + 2 * m + k] = sys->state_sym[m + n + k];
  cml_system_runtime (sys)->variational_prog = cml_program_compile (ctx, o, L.total, sys->param_sym, sys->n_params, fast, nfast, error);
  CmlProgram *prog = cml_system_runtime (sys)->variational_prog;
  g_mutex_unlock (&cml_system_runtime (sys)->lock);
  return prog;
}

struct _CmlVakonomicGroupVar
{
  CmlSystem *sys;
  CmlProgram *prog;
  Layout L;
  CmlIntegratorOptions options;
  guint m, nr, dim;
  double *regs, *fast, *out;
  double cost_per_eval, cost;
  double midpoint_residual;
  CmlVarRecord rec; /* the steps taken; the warm start below is valid for rec.z_last at rec.t_last */

  /* work: x, P, M, r of the node; the step's unknowns (u, μ), the warm start; the Newton
   * system */
  double *x, *P, M[3], *r, *u, mu[3], *b, *dr, *rm;
  double h_last;
  gsl_matrix *J, *Jr;
  gsl_permutation *perm, *permr;
};

void
cml_vakonomic_group_var_prepare (CmlSystem *sys)
{
  if (cml_vakonomic_group_var_supports (sys, NULL))
    (void) program_ensure (sys, NULL);
}

CmlVakonomicGroupVar *
cml_vakonomic_group_var_new (CmlSystem *sys, const CmlIntegratorOptions *options, const double *params,
                             GError **error)
{
  CmlProgram *prog = program_ensure (sys, error);
  if (!prog)
    return NULL;
  CmlVakonomicGroupVar *var = g_new0 (CmlVakonomicGroupVar, 1);
  guint m = sys->model->m, nr = sys->nr, k = m + 3;
  layout_init (&var->L, m, nr);
  var->sys = cml_system_ref (sys);
  var->prog = prog;
  var->options = *options;
  var->m = m, var->nr = nr;
  var->dim = sys->dim;
  var->regs = g_new0 (double, cml_program_n_registers (prog) + 1);
  var->fast = g_new0 (double, 4 + 2 * m + nr);
  var->out = g_new0 (double, var->L.total + 1);
  guint rhs_cost = sys->rhs_prog ? cml_program_n_fast_instructions (sys->rhs_prog) : 0;
  var->cost_per_eval = (double) MAX (cml_program_n_fast_instructions (prog), 1) / MAX (rhs_cost, 1);
  var->x = g_new0 (double, m);
  var->P = g_new0 (double, m);
  var->r = g_new0 (double, nr + 1);
  var->u = g_new0 (double, m);
  var->b = g_new0 (double, k);
  var->dr = g_new0 (double, nr + 1);
  var->rm = g_new0 (double, nr + 1);
  var->rec.z_good = g_new0 (double, var->dim);
  var->rec.z_last = g_new0 (double, var->dim);
  var->J = gsl_matrix_alloc (k, k);
  var->perm = gsl_permutation_alloc (k);
  var->Jr = gsl_matrix_alloc (MAX (nr, 1), MAX (nr, 1));
  var->permr = gsl_permutation_alloc (MAX (nr, 1));
  cml_vakonomic_group_var_set_params (var, params);
  return var;
}

void
cml_vakonomic_group_var_free (CmlVakonomicGroupVar *var)
{
  if (!var)
    return;
  g_free (var->regs);
  g_free (var->fast);
  g_free (var->out);
  g_free (var->x);
  g_free (var->P);
  g_free (var->r);
  g_free (var->u);
  g_free (var->b);
  g_free (var->dr);
  g_free (var->rm);
  g_free (var->rec.z_good);
  g_free (var->rec.z_last);
  gsl_matrix_free (var->J);
  gsl_matrix_free (var->Jr);
  gsl_permutation_free (var->perm);
  gsl_permutation_free (var->permr);
  cml_system_unref (var->sys);
  g_free (var);
}

void
cml_vakonomic_group_var_set_params (CmlVakonomicGroupVar *var, const double *params)
{
  cml_program_prepare (var->prog, params, var->regs);
  var->rec.warm = FALSE;
}

void
cml_vakonomic_group_var_reset (CmlVakonomicGroupVar *var)
{
  var->rec.warm = FALSE;
}

/* The program at (T, X, V, MU, R) into var->out; FALSE if an output is not finite. */
static gboolean
eval (CmlVakonomicGroupVar *var, double t, const double *x, const double *v, const double *mu, const double *r)
{
  guint m = var->m, nr = var->nr;
  var->fast[0] = t;
  memcpy (var->fast + 1, x, m * sizeof (double));
  memcpy (var->fast + 1 + m, v, m * sizeof (double));
  memcpy (var->fast + 1 + 2 * m, mu, 3 * sizeof (double));
  if (nr)
    memcpy (var->fast + 4 + 2 * m, r, nr * sizeof (double));
  cml_program_run (var->prog, var->fast, var->regs, var->out);
  var->cost += var->cost_per_eval;
  for (guint i = 0; i < var->L.total; i++)
    if (!isfinite (var->out[i]))
      return FALSE;
  return TRUE;
}

static void
cross (const double *a, const double *b, double *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* One discrete vakonomic step of size H from (T0, var->x, P, M, r), in place, Newton's
 * method starting from var->u and var->mu (left at the solution). */
static gboolean
vg_step (CmlVakonomicGroupVar *var, double t0, double h, GError **error)
{
  const Layout *L = &var->L;
  guint m = var->m, nr = var->nr, k = m + 3;
  const double *o = var->out;
  double *x = var->x, *P = var->P, *M = var->M, *u = var->u, *mu = var->mu, *b = var->b, *J = var->J->data;
  double tm = t0 + 0.5 * h, xmax = 0, pmax = 0, xi[3], kap = 0;
  g_autofree double *xm = g_new (double, m);
  g_autofree double *vm = g_new (double, m);
  gboolean done = FALSE;

  for (guint a = 0; a < m; a++)
    {
      xmax = MAX (xmax, fabs (x[a]));
      pmax = MAX (pmax, fabs (P[a]));
    }
  for (guint a = 0; a < 3; a++)
    pmax = MAX (pmax, fabs (M[a]));
  /* the reconstruction is evaluated at r₀ during the Newton iteration for (u, μ): it does
   * not enter those equations */
  for (guint l = 0; l < nr; l++)
    var->rm[l] = var->r[l];
  for (int it = 0;; it++)
    {
      for (guint a = 0; a < m; a++)
        {
          xm[a] = x[a] + 0.5 * u[a];
          vm[a] = u[a] / h;
        }
      if (!eval (var, tm, xm, vm, mu, var->rm))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the discrete vakonomic equations are not finite in the step from t = %.6g; lower the step",
                       t0);
          return FALSE;
        }
      kap = o[L->kap];
      for (guint a = 0; a < 3; a++)
        xi[a] = h * o[L->psi + a];
      if (done)
        break;
      if (it == VG_NEWTON_MAX_IT)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete vakonomic equations did not converge in the step from "
                       "t = %.6g; lower the step", t0);
          return FALSE;
        }
      /* residuals: h (L̃_y − (h/2) L̃_x − P₀) and A(ξ) μ − M₀ */
      double xm_[3], xmu = xi[0] * mu[0] + xi[1] * mu[1] + xi[2] * mu[2];
      cross (xi, mu, xm_);
      for (guint a = 0; a < m; a++)
        b[a] = -h * (o[L->Lv + a] - 0.5 * h * o[L->Lq + a] - P[a]);
      for (guint i = 0; i < 3; i++)
        b[m + i] = -(mu[i] + 0.5 * kap * xm_[i] + 0.25 * xi[i] * xmu - M[i]);
      for (guint a = 0; a < m; a++)
        {
          for (guint c = 0; c < m; c++)
            J[a * k + c] = o[L->Lvv + a * m + c] + 0.5 * h * (o[L->Lvq + a * m + c] - o[L->Lvq + c * m + a])
                           - 0.25 * h * h * o[L->Lqq + a * m + c];
          for (guint i = 0; i < 3; i++)
            J[a * k + m + i] = -h * (o[L->Pv + i * m + a] - 0.5 * h * o[L->Pq + i * m + a]);
        }
      /* D = −(κ/2) μ̂ + (ξ·μ)/4 I + ξ μᵀ/4 and A = I + (κ/2) ξ̂ + ξ ξᵀ/4 */
      double D[9], A[9];
      const double muh[9] = { 0, -mu[2], mu[1], mu[2], 0, -mu[0], -mu[1], mu[0], 0 };
      const double xih[9] = { 0, -xi[2], xi[1], xi[2], 0, -xi[0], -xi[1], xi[0], 0 };
      for (guint i = 0; i < 3; i++)
        for (guint j = 0; j < 3; j++)
          {
            D[i * 3 + j] = -0.5 * kap * muh[i * 3 + j] + (i == j ? 0.25 * xmu : 0.0) + 0.25 * xi[i] * mu[j];
            A[i * 3 + j] = (i == j ? 1.0 : 0.0) + 0.5 * kap * xih[i * 3 + j] + 0.25 * xi[i] * xi[j];
          }
      for (guint i = 0; i < 3; i++)
        {
          for (guint c = 0; c < m; c++)
            {
              double s = 0;
              for (guint j = 0; j < 3; j++)
                s += D[i * 3 + j] * (o[L->Pv + j * m + c] + 0.5 * h * o[L->Pq + j * m + c]);
              J[(m + i) * k + c] = s;
            }
          for (guint j = 0; j < 3; j++)
            J[(m + i) * k + m + j] = A[i * 3 + j];
        }
      int signum;
      double scale = 0;
      for (guint i = 0; i < k * k; i++)
        scale = MAX (scale, fabs (J[i]));
      gsl_linalg_LU_decomp (var->J, var->perm, &signum);
      gboolean singular = FALSE;
      for (guint i = 0; i < k; i++)
        if (!(fabs (gsl_matrix_get (var->J, i, i)) > 1e-14 * scale))
          singular = TRUE;
      if (singular)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the Newton matrix of the discrete vakonomic equations is singular in the step from "
                       "t = %.6g; lower the step", t0);
          return FALSE;
        }
      gsl_vector_view bv = gsl_vector_view_array (b, k);
      gsl_linalg_LU_svx (var->J, var->perm, &bv.vector);
      double r = 0, umax = 0;
      for (guint a = 0; a < m; a++)
        umax = MAX (umax, fabs (u[a]));
      for (guint a = 0; a < m; a++)
        {
          u[a] += b[a];
          r = MAX (r, fabs (b[a]) / (fabs (x[a]) + fabs (u[a]) + 1e-6 * (1 + xmax + umax)));
        }
      for (guint i = 0; i < 3; i++)
        {
          mu[i] += b[m + i];
          r = MAX (r, fabs (b[m + i]) / (fabs (mu[i]) + pmax + fabs (h) + DBL_MIN));
        }
      if (!isfinite (r))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete vakonomic equations diverged in the step from t = %.6g; "
                       "lower the step", t0);
          return FALSE;
        }
      done = r <= VG_TOL;
    }
  /* M₁ = cay(a) M₀, a = −κ ξ: cay(a) = I + 4/(4 + |a|²) (â + â²/2), orthogonal */
  {
    double a[3] = { -kap * xi[0], -kap * xi[1], -kap * xi[2] }, aM[3], aaM[3];
    double f = 4.0 / (4.0 + a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    cross (a, M, aM);
    cross (a, aM, aaM);
    for (guint i = 0; i < 3; i++)
      M[i] += f * (aM[i] + 0.5 * aaM[i]);
  }
  /* x₁ = x₀ + u, P₁ = L̃_y + (h/2) L̃_x = P₀ + h L̃_x */
  for (guint a = 0; a < m; a++)
    {
      x[a] += u[a];
      P[a] += h * o[L->Lq + a];
    }
  /* the reconstruction: r₁ = r₀ + h F(m, (r₀ + r₁)/2), Newton from r₁ = r₀ + h F(m, r₀) */
  if (nr)
    {
      double *dr = var->dr, *Jr = var->Jr->data, rmax = 0;
      for (guint l = 0; l < nr; l++)
        {
          dr[l] = h * o[L->F + l];
          rmax = MAX (rmax, fabs (var->r[l]));
        }
      g_autofree double *res = g_new (double, nr);
      double e_prev = G_MAXDOUBLE;
      for (int it = 0;; it++)
        {
          for (guint l = 0; l < nr; l++)
            var->rm[l] = var->r[l] + 0.5 * dr[l];
          if (!eval (var, tm, xm, vm, mu, var->rm))
            {
              g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                           "the reconstruction is not finite in the step from t = %.6g; lower the step", t0);
              return FALSE;
            }
          for (guint l = 0; l < nr; l++)
            {
              res[l] = -(dr[l] - h * o[L->F + l]);
              for (guint l2 = 0; l2 < nr; l2++)
                Jr[l * nr + l2] = (l == l2 ? 1.0 : 0.0) - 0.5 * h * o[L->Fr + l * nr + l2];
            }
          int signum;
          gsl_matrix_view Jv = gsl_matrix_view_array (Jr, nr, nr);
          gsl_linalg_LU_decomp (&Jv.matrix, var->permr, &signum);
          gsl_vector_view rv = gsl_vector_view_array (res, nr);
          gsl_linalg_LU_svx (&Jv.matrix, var->permr, &rv.vector);
          double e = 0;
          for (guint l = 0; l < nr; l++)
            {
              dr[l] += res[l];
              e = MAX (e, fabs (res[l]) / (1 + rmax));
            }
          if (!isfinite (e) || it == VG_NEWTON_MAX_IT)
            {
              g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                           "the reconstruction's implicit midpoint rule did not converge in the step from t = %.6g; "
                           "lower the step", t0);
              return FALSE;
            }
          /* done at rounding: tiny, or no longer decreasing once small */
          if (e <= 1e-15 || (e <= 1e-10 && e >= e_prev))
            break;
          e_prev = e;
        }
      for (guint l = 0; l < nr; l++)
        var->r[l] += dr[l];
    }
  /* the discrete constraint ω = Ψ(m) holds by construction (ξ = h Ψ(m)): nothing to add
   * to var->midpoint_residual */
  return TRUE;
}

static void
state_to_node (CmlVakonomicGroupVar *var, const double *z)
{
  guint m = var->m;
  memcpy (var->x, z, m * sizeof (double));
  memcpy (var->P, z + m, m * sizeof (double));
  memcpy (var->M, z + 2 * m, 3 * sizeof (double));
  if (var->nr)
    memcpy (var->r, z + 2 * m + 3, var->nr * sizeof (double));
}

static void
node_to_state (const CmlVakonomicGroupVar *var, double *z)
{
  guint m = var->m;
  memcpy (z, var->x, m * sizeof (double));
  memcpy (z + m, var->P, m * sizeof (double));
  memcpy (z + 2 * m, var->M, 3 * sizeof (double));
  if (var->nr)
    memcpy (z + 2 * m + 3, var->r, var->nr * sizeof (double));
}

/* One step of the method (one discrete step, or variational4's three) from (T0, Z) to
 * T0 + H, in place. */
static gboolean
method_step (gpointer self, double t0, double h, double *z, GError **error)
{
  CmlVakonomicGroupVar *var = self;
  static const double g1 = 1.3512071919596576340476878089715; /* 1/(2 − 2^{1/3}) */
  const gboolean four = var->options.kind == CML_INTEGRATOR_VARIATIONAL4;
  const double gam[3] = { g1, 1.0 - 2.0 * g1, g1 };
  guint n_sub = four ? 3 : 1, m = var->m;
  gboolean warm = var->rec.warm && t0 == var->rec.t_last && memcmp (z, var->rec.z_last, var->dim * sizeof (double)) == 0;

  state_to_node (var, z);
  double h_prev = var->h_last, t = t0;
  if (!warm)
    {
      memset (var->u, 0, m * sizeof (double));
      memcpy (var->mu, var->M, sizeof var->mu);
      h_prev = four ? gam[0] * h : h;
    }
  for (guint j = 0; j < n_sub; j++)
    {
      double hj = four ? gam[j] * h : h;
      for (guint a = 0; a < m; a++)
        var->u[a] *= hj / h_prev;
      if (!vg_step (var, t, hj, error))
        return FALSE;
      t = j + 1 == n_sub ? t0 + h : t + hj;
      h_prev = hj;
    }
  var->h_last = h_prev;
  node_to_state (var, z);
  return TRUE;
}

static void
stepper_stats (gpointer self, CmlIntegratorStats *stats)
{
  cml_vakonomic_group_var_get_stats (self, stats);
}

gboolean
cml_vakonomic_group_var_advance (CmlVakonomicGroupVar *var, double *t, double t1, double *z, GError **error)
{
  static const CmlVarStepper f = { method_step, NULL, NULL, NULL, NULL, stepper_stats };

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  var->midpoint_residual = 0;
  return cml_var_fixed_steps (&f, var, &var->rec, &var->options, var->dim, var->rec.z_good, t, t1, z, error);
}

/* The step state: a flag, the last step's u (m) and μ (3) and its size, so a run restored
 * from it continues bit for bit (Newton's method from the same start; the node's x, P, M
 * and r are the state itself). */
guint
cml_vakonomic_group_var_step_state_size (const CmlVakonomicGroupVar *var)
{
  return 5 + var->m;
}

void
cml_vakonomic_group_var_save_step_state (const CmlVakonomicGroupVar *var, double t, const double *z, double *out)
{
  guint m = var->m;
  gboolean valid = var->rec.warm && t == var->rec.t_last && memcmp (z, var->rec.z_last, var->dim * sizeof (double)) == 0;
  memset (out, 0, cml_vakonomic_group_var_step_state_size (var) * sizeof (double));
  out[0] = valid ? 1.0 : 0.0;
  if (!valid)
    return;
  memcpy (out + 1, var->u, m * sizeof (double));
  memcpy (out + 1 + m, var->mu, 3 * sizeof (double));
  out[4 + m] = var->h_last;
}

void
cml_vakonomic_group_var_restore_step_state (CmlVakonomicGroupVar *var, double t, const double *z, const double *in)
{
  guint m = var->m;
  var->rec.warm = in[0] != 0.0;
  if (!var->rec.warm)
    return;
  memcpy (var->u, in + 1, m * sizeof (double));
  memcpy (var->mu, in + 1 + m, 3 * sizeof (double));
  var->h_last = in[4 + m];
  memcpy (var->rec.z_last, z, var->dim * sizeof (double));
  var->rec.t_last = t;
}

void
cml_vakonomic_group_var_momentum (CmlVakonomicGroupVar *var, double t, const double *z, double *p)
{
  (void) t;
  memcpy (p, z + var->m, (var->m + 3) * sizeof (double));
}

guint64
cml_vakonomic_group_var_n_rhs (const CmlVakonomicGroupVar *var)
{
  return (guint64) ceil (var->cost);
}

void
cml_vakonomic_group_var_get_stats (const CmlVakonomicGroupVar *var, CmlIntegratorStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->n_steps = var->rec.n_steps;
  stats->n_rhs = cml_vakonomic_group_var_n_rhs (var);
  stats->h = var->options.h_fixed;
}

double
cml_vakonomic_group_var_midpoint_residual (const CmlVakonomicGroupVar *var)
{
  return var->midpoint_residual;
}
