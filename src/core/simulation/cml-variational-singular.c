/* cml-variational-singular.c — the variational integrators (variational: second order;
 * variational4: its triple jump, fourth order) of a singular Lagrangian, on the final
 * constraint submanifold the constraint algorithm finds, when that submanifold holds
 * coordinates and their velocities at values (both Capri–Kobayashi models).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.4.  The algebroid is T Q or T Q × ℝᵏ: every section e_A is either a
 * coordinate direction, ρ(e_A) = ∂/∂x^{i(A)}, or has zero anchor, and all brackets vanish.
 * A zero-anchor section's velocity y^A is the velocity θ̇^A of a cyclic coordinate θ^A
 * (L does not depend on θ^A; the reduced Capri–Kobayashi's angle of particle 2), so the
 * motion is that of L on Q × ℝᵏ.  The final constraint set S_f = {x^i = c^i (i ∈ H),
 * y^A = 0 (A ∈ H)} holds the coordinates H and their velocities; on it the rest F of the
 * coordinates (with the θ's) is free and L restricted to (x_F, y_F) is regular.  Its
 * midpoint discrete Lagrangian
 *
 *   L_d(q₀, q₁) = h L(m),   m = ((q₀ + q₁)/2, (q₁ − q₀)/h, t + h/2)   on the free q = (x_F, θ),
 *
 * gives a step (q₀, p₀) ↦ (q₁, p₁) (p the free momenta): with u = q₁ − q₀
 *
 *   p₀_A = L_{y^A}(m) − (h/2) L_{x^{i(A)}}(m),   p₁_A = p₀_A + h L_{x^{i(A)}}(m)   (A ∈ F),
 *
 * the x-terms absent for a zero-anchor A (p_θ is kept to rounding: its Noether momentum).
 * The held coordinates stay at their values and their velocities at zero exactly, so
 * every final constraint holds at every step to rounding of the values themselves.  The
 * unknowns u_F solve the first equation by Newton's method with the exact Jacobian
 *
 *   h ∂R_A/∂u_B = L_{yy,AB} + (h/2) (L_{yx,A i(B)} − L_{yx,B i(A)}) − (h²/4) L_{xx, i(A) i(B)}
 *
 * (terms with a zero-anchor index absent), from u = h v₀; the shown velocity at a node
 * solves L_{y_F}(x, y_F, y_H = 0) = p_F by Newton's method from the last midpoint velocity.
 * Reconstruction variables follow the implicit midpoint rule at the step's midpoint (θ̇ = r
 * gives θ₁ = θ₀ + u_θ, the discrete cyclic coordinate itself).  Symmetric, so the triple
 * jump makes it fourth order.  The discrete Euler–Lagrange equations of the singular L_d
 * itself (no velocity in x_H) are not used: they are L_x(m_k) + L_x(m_{k+1}) = 0 for the
 * held coordinates, a two-step recursion whose solutions alternate about the constraint
 * (doc/theory.md §14.4).  What this file shares with the other variational integrators
 * (the compiled derivatives, the advance loop, the step state) is in
 * cml-variational-private.h.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-singular.h"
#include "cml-variational-private.h"

#include "cml-error.h"
#include "cml-system-private.h"
#include "cml-system-runtime.h"

#include <float.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

/* What the method reads from the model: for each section its base coordinate (or -1 for a
 * zero anchor), which base coordinates and sections are held and at what values, and the
 * free sections in order. */
typedef struct
{
  int      *coord;           /* n: i(A), or -1 */
  gboolean *held_x, *held_y; /* m, n */
  double   *val_x;           /* m: the held coordinates' values */
  guint    *free, nf;        /* the free sections */
} Structure;

struct _CmlSingularVar
{
  CmlVarCore       core;
  Structure        S;
  /* work: the step's increments of the free coordinates, the midpoint, the Newton vectors */
  double          *u, *xm, *ym, *b, *v;
  gsl_matrix      *Jf;
  gsl_permutation *permf;
};

static void
structure_clear (Structure *S)
{
  g_clear_pointer (&S->coord, g_free);
  g_clear_pointer (&S->held_x, g_free);
  g_clear_pointer (&S->held_y, g_free);
  g_clear_pointer (&S->val_x, g_free);
  g_clear_pointer (&S->free, g_free);
}

/* Reads SYS into S (see cml_singular_var_supports); FALSE with the reason in *WHY.  Makes
 * expressions in the system's context: under its native_lock. */
static gboolean
structure_read (CmlSystem *sys, Structure *S, const char **why)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n;

  *why = NULL;
  if (md->forces)
    {
      *why = _("it has forces ([forces]), which the discrete equations on the final constraint set do not take");
      return FALSE;
    }
  if (sys->dim != m + n + sys->nr || md->constraints->len > 0)
    {
      *why = _("its state is not the base, the fibre and the reconstruction variables");
      return FALSE;
    }
  for (guint k = 0; k < sys->nr; k++)
    if (cml_expr_depends_on (md->lagrangian, sys->state_sym[m + n + k]))
      {
        *why = _("its Lagrangian depends on a reconstruction variable");
        return FALSE;
      }
  S->coord = g_new (int, n);
  S->held_x = g_new0 (gboolean, m + 1);
  S->held_y = g_new0 (gboolean, n);
  S->val_x = g_new0 (double, m + 1);
  S->free = g_new0 (guint, n);
  g_autofree gboolean *reached = g_new0 (gboolean, m + 1);
  for (guint A = 0; A < n; A++)
    {
      S->coord[A] = -1;
      for (guint i = 0; i < m; i++)
        {
          double a;
          if (!cml_expr_is_number (md->anchor[i * n + A], &a) || (a != 0.0 && a != 1.0)
              || (a == 1.0 && (S->coord[A] >= 0 || reached[i])))
            {
              *why = _("its anchor does not send each section to one coordinate direction or to zero");
              return FALSE;
            }
          if (a == 1.0)
            S->coord[A] = (int) i, reached[i] = TRUE;
        }
    }
  for (guint i = 0; i < m; i++)
    if (!reached[i])
      {
        *why = _("its anchor does not reach every base coordinate");
        return FALSE;
      }
  if (md->bracket)
    for (guint k = 0; k < n * n * n; k++)
      if (md->bracket[k] && !cml_expr_is_zero (md->bracket[k]))
        {
          *why = _("its sections have brackets");
          return FALSE;
        }
  /* the final constraints: each c (s − v) for one base coordinate or velocity s */
  for (guint a = 0; a < sys->derived.h->len; a++)
    {
      CmlExpr *g = sys->derived.h->pdata[a];
      int which = -1;
      double c = 0;
      gboolean ok = !cml_expr_depends_on (g, md->t_sym);
      for (guint j = 0; ok && j < sys->dim; j++)
        {
          CmlExpr *d = cml_expr_diff (ctx, g, sys->state_sym[j]);
          if (cml_expr_is_zero (d))
            continue;
          if (which >= 0 || j >= m + n || !cml_expr_is_number (d, &c) || c == 0.0)
            ok = FALSE;
          which = (int) j;
        }
      double v = 0;
      if (ok && which >= 0)
        {
          CmlExpr *zero = cml_expr_num (ctx, 0.0);
          int id = sys->state_sym[which];
          CmlExpr *g0 = cml_expr_subs (ctx, g, 1, &id, &zero);
          ok = cml_expr_is_number (g0, &v);
          v = -v / c;
        }
      if (!ok || which < 0)
        {
          *why = _("its final constraint set is not given by coordinates and velocities held at numbers (the "
                   "discrete constraint algorithm for other singular Lagrangians is not implemented)");
          return FALSE;
        }
      if ((guint) which < m)
        {
          S->held_x[which] = TRUE;
          S->val_x[which] = v;
        }
      else if (v != 0.0)
        {
          *why = _("its final constraint set holds a velocity at a value other than zero");
          return FALSE;
        }
      else
        S->held_y[which - m] = TRUE;
    }
  /* a coordinate is held exactly when its velocity is held */
  for (guint A = 0; A < n; A++)
    {
      gboolean hx = S->coord[A] >= 0 && S->held_x[S->coord[A]];
      if (hx != S->held_y[A])
        {
          *why = _("its final constraint set holds a coordinate without its velocity or a velocity without "
                   "its coordinate");
          return FALSE;
        }
      if (!S->held_y[A])
        S->free[S->nf++] = A;
    }
  if (S->nf == 0)
    {
      *why = _("its final constraint set leaves nothing free to move");
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_singular_var_supports (CmlSystem *sys, const char **why)
{
  const char *w = NULL;
  if (sys->formalism != CML_FORMALISM_SINGULAR)
    w = _("its Lagrangian is not singular");
  else
    {
      Structure S = { 0 };
      g_mutex_lock (&cml_system_runtime (sys)->lock);
      structure_read (sys, &S, &w);
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
      structure_clear (&S);
    }
  if (why)
    *why = w;
  return w == NULL;
}

/* The compiled derivatives of L (cml-variational-program.c) with the reconstruction
 * variables as inputs, in sys->groupoid_prog: a singular system is never a groupoid one. */
void
cml_singular_var_prepare (CmlSystem *sys)
{
  if (cml_singular_var_supports (sys, NULL))
    (void) cml_var_program_ensure (sys, sys->nr, &cml_system_runtime (sys)->groupoid_prog, NULL);
}

CmlSingularVar *
cml_singular_var_new (CmlSystem *sys, const CmlIntegratorOptions *options, const double *params,
                      GError **error)
{
  CmlModel *md = sys->model;
  const char *why = NULL;
  Structure S = { 0 };

  g_mutex_lock (&cml_system_runtime (sys)->lock);
  gboolean ok = sys->formalism == CML_FORMALISM_SINGULAR && structure_read (sys, &S, &why);
  g_mutex_unlock (&cml_system_runtime (sys)->lock);
  if (!ok)
    {
      structure_clear (&S);
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s: %s", md->name,
                   why ? why : _("its Lagrangian is not singular"));
      return NULL;
    }
  CmlProgram *prog = cml_var_program_ensure (sys, sys->nr, &cml_system_runtime (sys)->groupoid_prog, error);
  if (!prog)
    {
      structure_clear (&S);
      return NULL;
    }
  CmlSingularVar *var = g_new0 (CmlSingularVar, 1);
  cml_var_core_init (&var->core, sys, prog, options, sys->nr);
  var->S = S;
  guint n = md->n, m = md->m, nf = S.nf;
  var->u = g_new0 (double, n);
  var->xm = g_new0 (double, m + 1);
  var->ym = g_new0 (double, n);
  var->b = g_new0 (double, n);
  var->v = g_new0 (double, n);
  var->Jf = gsl_matrix_alloc (nf, nf);
  var->permf = gsl_permutation_alloc (nf);
  cml_singular_var_set_params (var, params);
  return var;
}

void
cml_singular_var_free (CmlSingularVar *var)
{
  if (!var)
    return;
  cml_var_core_clear (&var->core);
  structure_clear (&var->S);
  g_free (var->u);
  g_free (var->xm);
  g_free (var->ym);
  g_free (var->b);
  g_free (var->v);
  gsl_matrix_free (var->Jf);
  gsl_permutation_free (var->permf);
  g_free (var);
}

void
cml_singular_var_set_params (CmlSingularVar *var, const double *params)
{
  cml_var_core_set_params (&var->core, params);
}

void
cml_singular_var_reset (CmlSingularVar *var)
{
  var->core.p_valid = FALSE;
}

/* var->Jf x = B (nf) in place; FALSE if Jf is singular to working precision. */
static gboolean
solve_free (CmlSingularVar *var, double *b)
{
  guint nf = var->S.nf;
  int signum;
  double scale = 0;
  for (guint i = 0; i < nf * nf; i++)
    scale = MAX (scale, fabs (var->Jf->data[i]));
  gsl_linalg_LU_decomp (var->Jf, var->permf, &signum);
  for (guint i = 0; i < nf; i++)
    if (!(fabs (gsl_matrix_get (var->Jf, i, i)) > 1e-14 * scale))
      return FALSE;
  gsl_vector_view bv = gsl_vector_view_array (b, nf);
  gsl_linalg_LU_svx (var->Jf, var->permf, &bv.vector);
  return TRUE;
}

/* Puts the held components of Z = (x, y, r) at their values. */
static void
hold (const CmlSingularVar *var, double *z)
{
  const Structure *S = &var->S;
  guint m = var->core.L.m;
  for (guint i = 0; i < m; i++)
    if (S->held_x[i])
      z[i] = S->val_x[i];
  for (guint A = 0; A < var->core.L.n; A++)
    if (S->held_y[A])
      z[m + A] = 0.0;
}

/* One discrete step of size H from (T0, Z = (x, y, r), P), in place, Newton's method
 * starting from var->u (left at the solution: the free increments).  FALSE with an error
 * naming T0. */
static gboolean
del_step (CmlSingularVar *var, double t0, double h, double *z, double *p, GError **error)
{
  CmlVarCore *core = &var->core;
  const CmlVarLayout *L = &core->L;
  const Structure *S = &var->S;
  guint m = L->m, n = L->n, nf = S->nf;
  const double *o = core->out;
  double *u = var->u, *xm = var->xm, *ym = var->ym, *b = var->b, *J = var->Jf->data;
  double tm = t0 + 0.5 * h;
  gboolean done = FALSE;
  double qmax = 0;

  for (guint i = 0; i < m; i++)
    qmax = MAX (qmax, fabs (z[i]));
  memcpy (xm, z, m * sizeof (double));
  memset (ym, 0, n * sizeof (double));
  for (int it = 0;; it++)
    {
      for (guint f = 0; f < nf; f++)
        {
          guint A = S->free[f];
          if (S->coord[A] >= 0)
            xm[S->coord[A]] = z[S->coord[A]] + 0.5 * u[A];
          ym[A] = u[A] / h;
        }
      if (!cml_var_eval (core, tm, xm, ym, z + m + n))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the discrete Euler–Lagrange equations on the final constraint set are not finite in the "
                       "step from t = %.6g; lower the step", t0);
          return FALSE;
        }
      if (done)
        break;
      if (it == CML_VAR_NEWTON_MAX_IT)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete Euler–Lagrange equations on the final constraint set "
                       "did not converge in the step from t = %.6g; lower the step", t0);
          return FALSE;
        }
      /* residuals times h, h (L_y − (h/2) L_x − p₀), and their derivatives in u times h */
      for (guint f = 0; f < nf; f++)
        {
          guint A = S->free[f];
          int i = S->coord[A];
          double r = o[L->Lv + A] - (i >= 0 ? 0.5 * h * o[L->Lq + i] : 0.0) - p[A];
          b[f] = -h * r;
          for (guint g = 0; g < nf; g++)
            {
              guint B = S->free[g];
              int k = S->coord[B];
              double j = o[L->Lvv + A * n + B];
              if (k >= 0)
                j += 0.5 * h * o[L->Lvq + A * m + k];
              if (i >= 0)
                j -= 0.5 * h * o[L->Lvq + B * m + i];
              if (i >= 0 && k >= 0)
                j -= 0.25 * h * h * o[L->Lqq + i * m + k];
              J[f * nf + g] = j;
            }
        }
      if (!solve_free (var, b))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the Newton matrix of the discrete Euler–Lagrange equations on the final constraint set "
                       "is singular in the step from t = %.6g (the Lagrangian is singular there too); lower the "
                       "step", t0);
          return FALSE;
        }
      double c = 0, umax = 0;
      for (guint f = 0; f < nf; f++)
        umax = MAX (umax, fabs (u[S->free[f]]));
      for (guint f = 0; f < nf; f++)
        {
          guint A = S->free[f];
          int i = S->coord[A];
          u[A] += b[f];
          c = MAX (c, fabs (b[f]) / ((i >= 0 ? fabs (z[i]) : 0.0) + fabs (u[A]) + 1e-6 * (1 + qmax + umax)));
        }
      if (!isfinite (c))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete Euler–Lagrange equations on the final constraint set "
                       "diverged in the step from t = %.6g; lower the step", t0);
          return FALSE;
        }
      done = c <= CML_VAR_TOL;
    }
  /* at the solution: x₁ = x₀ + u, p₁ = p₀ + h L_x, then the reconstruction (its predictor
   * reads the rates at the midpoint, the last evaluation) */
  for (guint f = 0; f < nf; f++)
    {
      guint A = S->free[f];
      int i = S->coord[A];
      if (i >= 0)
        {
          p[A] += h * o[L->Lq + i];
          z[i] += u[A];
        }
    }
  return cml_var_reconstruct (core, t0, tm, h, xm, ym, TRUE, z + m + n, error);
}

/* The shown free velocities at (T, Z) from the carried momenta P: L_{y_F}(t, x, y) = p_F
 * with the held velocities at zero, by Newton's method from the velocities in Z. */
static gboolean
velocity_at (CmlSingularVar *var, double t, double *z, const double *p, GError **error)
{
  CmlVarCore *core = &var->core;
  const CmlVarLayout *L = &core->L;
  const Structure *S = &var->S;
  guint m = L->m, n = L->n, nf = S->nf;
  const double *o = core->out;
  double *y = z + m, *b = var->b, *J = var->Jf->data;

  for (int it = 0; it < CML_VAR_NEWTON_MAX_IT; it++)
    {
      if (!cml_var_eval (core, t, z, y, z + m + n))
        break;
      double ymax = 0, pmax = 0;
      for (guint f = 0; f < nf; f++)
        {
          guint A = S->free[f];
          b[f] = -(o[L->Lv + A] - p[A]);
          ymax = MAX (ymax, fabs (y[A]));
          pmax = MAX (pmax, fabs (p[A]));
          for (guint g = 0; g < nf; g++)
            J[f * nf + g] = o[L->Lvv + A * n + S->free[g]];
        }
      if (!solve_free (var, b))
        break;
      double c = 0;
      for (guint f = 0; f < nf; f++)
        {
          guint A = S->free[f];
          y[A] += b[f];
          c = MAX (c, fabs (b[f]) / (fabs (y[A]) + 1e-6 * (1 + ymax)));
        }
      if (!isfinite (c))
        break;
      if (c <= CML_VAR_TOL)
        return TRUE;
    }
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               "the velocity on the final constraint set at t = %.6g could not be found from the momenta; "
               "lower the step", t);
  return FALSE;
}

/* One step of the method (one or three discrete steps) of size H from (T0, Z), in place:
 * the carried momenta are advanced with it and Z gets (x₁, y₁, r₁). */
static gboolean
method_step (gpointer self, double t0, double h, double *z, GError **error)
{
  CmlSingularVar *var = self;
  CmlVarCore *core = &var->core;
  guint m = core->L.m, n = core->L.n;
  double hs[3];
  guint n_sub = cml_var_substeps (core, h, hs);
  double t = t0, h_prev = 0;

  hold (var, z);
  for (guint j = 0; j < n_sub; j++)
    {
      double hj = hs[j];
      for (guint A = 0; A < n; A++)
        var->u[A] = j == 0 ? hj * z[m + A] : var->u[A] * hj / h_prev;
      if (!del_step (var, t, hj, z, core->p, error))
        return FALSE;
      t = j + 1 == n_sub ? t0 + h : t + hj;
      h_prev = hj;
    }
  /* the shown velocity at the new point, from the last midpoint velocity */
  for (guint f = 0; f < var->S.nf; f++)
    {
      guint A = var->S.free[f];
      z[m + A] = var->u[A] / h_prev;
    }
  hold (var, z);
  return velocity_at (var, t0 + h, z, core->p, error);
}

gboolean
cml_singular_var_advance (CmlSingularVar *var, double *t, double t1, double *z, GError **error)
{
  return cml_var_advance (&var->core, t, t1, z, method_step, var, error);
}

void
cml_singular_var_momentum (CmlSingularVar *var, double t, const double *z, double *p)
{
  cml_var_momentum (&var->core, t, z, p);
}

guint
cml_singular_var_step_state_size (const CmlSingularVar *var)
{
  return cml_var_step_state_size (&var->core);
}

void
cml_singular_var_save_step_state (const CmlSingularVar *var, double t, const double *z, double *out)
{
  cml_var_save_step_state (&var->core, t, z, out);
}

void
cml_singular_var_restore_step_state (CmlSingularVar *var, double t, const double *z, const double *in)
{
  cml_var_restore_step_state (&var->core, t, z, in);
}

void
cml_singular_var_get_stats (const CmlSingularVar *var, CmlIntegratorStats *stats)
{
  cml_var_get_stats (&var->core, stats);
}

guint64
cml_singular_var_n_rhs (const CmlSingularVar *var)
{
  return cml_var_n_rhs (&var->core);
}
