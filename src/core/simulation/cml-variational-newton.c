/* cml-variational-newton.c — the Newton solves the variational integrators share: the
 * compiled derivatives at a point, the linear solve of a Newton step, the velocity shown at
 * a node and the reconstruction variables' implicit midpoint rule.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.  The velocity shown at a node (t, x, r) with the carried momenta p
 * solves
 *
 *   L_y(t, x, v, r) = p + Φ_y(t, x, v, r)ᵀ ν,   φ(t, x, v, r) = 0
 *
 * for v and ν: the velocity whose momentum differs from p by a constraint force (for
 * L = ½ vᵀ W v − V: the W-orthogonal projection of W⁻¹ p onto the constraint).  Newton's
 * method with the Jacobian
 *
 *   [ L_yy − ν_a φ^a_yy   −Φ_yᵀ ]
 *   [ Φ_y                  0    ]
 *
 * starts from the given v and ν = 0 and stops when the correction is at 1e-10 of the
 * state.  The reconstruction variables follow the implicit midpoint rule at the step's
 * midpoint (tm, x_m, y):
 *
 *   r₁ = r₀ + h F(tm, x_m, y, (r₀ + r₁)/2),
 *
 * solved by Newton's method for the increment d = r₁ − r₀ with the Jacobian I − (h/2) F_r.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-private.h"

#include "cml-error.h"

#include <float.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

/* The program at (T, X, Y, R) into core->out (X has m entries, R nr: none may be NULL
 * when there are none); FALSE if an output is not finite. */
gboolean
cml_var_eval (CmlVarCore *core, double t, const double *x, const double *y, const double *r)
{
  guint m = core->L.m, n = core->L.n, nr = core->L.nr;
  core->fast[0] = t;
  if (m > 0)
    memcpy (core->fast + 1, x, m * sizeof (double));
  memcpy (core->fast + 1 + m, y, n * sizeof (double));
  if (nr > 0)
    memcpy (core->fast + 1 + m + n, r, nr * sizeof (double));
  cml_program_run (core->prog, core->fast, core->regs, core->out);
  core->cost += core->cost_per_eval;
  for (guint i = 0; i < core->L.total; i++)
    if (!isfinite (core->out[i]))
      return FALSE;
  return TRUE;
}

/* core->J x = b in place (k = n + s unknowns); FALSE if J is singular to working precision. */
gboolean
cml_var_solve (CmlVarCore *core, double *b)
{
  guint k = core->L.n + core->L.s;
  int signum;
  double scale = 0;
  for (guint i = 0; i < k * k; i++)
    scale = MAX (scale, fabs (core->J->data[i]));
  gsl_linalg_LU_decomp (core->J, core->perm, &signum);
  for (guint i = 0; i < k; i++)
    if (!(fabs (gsl_matrix_get (core->J, i, i)) > 1e-14 * scale))
      return FALSE;
  gsl_vector_view bv = gsl_vector_view_array (b, k);
  gsl_linalg_LU_svx (core->J, core->perm, &bv.vector);
  return TRUE;
}

/* Adds the Newton correction B (n + s numbers) to the velocity Y (n) and the multipliers
 * NU (s); returns the largest correction relative to the size of what it corrects,
 *
 *   |Δy_A| / (|y_A| + 10⁻⁶ (1 + YMAX)),   |Δν_a| / (|ν_a| + PMAX),
 *
 * YMAX the largest |y_A| before the correction, PMAX that of the momenta. */
double
cml_var_newton_update (guint n, guint s, const double *b, double *y, double *nu, double ymax,
                       double pmax)
{
  double c = 0;
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
  return c;
}

/* The velocity shown at (T, X, R) with the momenta P: L_y = p + Φ_yᵀ ν, φ = 0, by Newton's
 * method from V (in: the starting guess; out: the solution).  FALSE with an error. */
gboolean
cml_var_velocity_at (CmlVarCore *core, double t, const double *x, const double *r, const double *p,
                     double *v, GError **error)
{
  const CmlVarLayout *L = &core->L;
  guint n = L->n, s = L->s, k = n + s;
  const double *o = core->out;
  double *nu = core->vnu, *b = core->rhs, *J = core->J->data;

  memset (nu, 0, s * sizeof (double));
  for (int it = 0; it < CML_VAR_NEWTON_MAX_IT; it++)
    {
      double vmax = 0, pmax = 0;
      if (!cml_var_eval (core, t, x, v, r))
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
      if (!cml_var_solve (core, b))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       _("the velocities at t = %.6g cannot be found from the momenta (the matrix "
                         "of ∂²L/∂v∂v and the constraints is singular there)"),
                       t);
          return FALSE;
        }
      double c = cml_var_newton_update (n, s, b, v, nu, vmax, pmax);
      if (!isfinite (c))
        break;
      if (c <= CML_VAR_TOL)
        return TRUE;
    }
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               _("Newton's method for the velocities at t = %.6g (from the momenta and the "
                 "constraints) did not converge; lower the step"),
               t);
  return FALSE;
}

/* The reconstruction variables R over a step of size H from T0 with the midpoint time TM,
 * the base point X (m entries) and the step's velocity Y: r₁ = r₀ + h F(tm, x, y,
 * (r₀ + r₁)/2), by Newton's method from r₁ = r₀ + h F(tm, x, y, r₀) when PREDICT (core->out
 * then holds the program there), else from r₁ = r₀.  FALSE with an error naming T0. */
gboolean
cml_var_reconstruct (CmlVarCore *core, double t0, double tm, double h, const double *x,
                     const double *y, gboolean predict, double *r, GError **error)
{
  const CmlVarLayout *L = &core->L;
  guint nr = L->nr;
  const double *o = core->out;
  double *d = core->dr, *rm = core->rm, *b = core->rhs, *J = core->Jr->data;

  if (nr == 0)
    return TRUE;
  for (guint k = 0; k < nr; k++)
    d[k] = predict ? h * o[L->F + k] : 0.0;
  for (int it = 0; it < CML_VAR_NEWTON_MAX_IT; it++)
    {
      double rmax = 0, c = 0;
      for (guint k = 0; k < nr; k++)
        {
          rm[k] = r[k] + 0.5 * d[k];
          rmax = MAX (rmax, fabs (r[k]));
        }
      if (!cml_var_eval (core, tm, x, y, rm))
        break;
      for (guint k = 0; k < nr; k++)
        {
          b[k] = -(d[k] - h * o[L->F + k]);
          for (guint l = 0; l < nr; l++)
            J[k * nr + l] = (k == l ? 1.0 : 0.0) - 0.5 * h * o[L->Fr + k * nr + l];
        }
      int signum;
      gsl_linalg_LU_decomp (core->Jr, core->permr, &signum);
      gsl_vector_view bv = gsl_vector_view_array (b, nr);
      if (gsl_linalg_LU_svx (core->Jr, core->permr, &bv.vector) != 0)
        break;
      for (guint k = 0; k < nr; k++)
        {
          d[k] += b[k];
          c = MAX (c, fabs (b[k]) / (fabs (r[k]) + fabs (d[k]) + 1e-6 * (1 + rmax)));
        }
      if (!isfinite (c))
        break;
      if (c <= CML_VAR_TOL)
        {
          for (guint k = 0; k < nr; k++)
            r[k] += d[k];
          return TRUE;
        }
    }
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
               _("the midpoint rule for the reconstruction variables did not converge in the step "
                 "from t = %.6g; lower the step"),
               t0);
  return FALSE;
}
