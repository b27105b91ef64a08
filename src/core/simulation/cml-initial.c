/* cml-initial.c — the initial data of a simulation and cml_simulation_reset().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §8: given values override the model's [initial]; the coordinates the
 * constraints determine are solved from the rest; given values are projected only where
 * they contradict a constraint; a vakonomic system's W1 relation is solved with the given
 * velocities and momenta held fixed.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-simulation-private.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-symsolve.h"

#include <glib/gi18n-lib.h>

/* ---- initial data -------------------------------------------------------------------
 *
 * The rule, for every kind of system (doc/model-format.md, "Initial data"):
 *   1. the values given (command line, window) override the model file's [initial];
 *   2. the coordinates the constraints determine are solved from the rest: first the
 *      solve-for coordinates that were not given, then, if the constraints still fail,
 *      every coordinate that was not given (least change);
 *   3. only if the given values themselves contradict a constraint are they projected
 *      onto the constraint set, with a note naming each one and the constraint.
 * A vakonomic system has no constraint set to project onto: its free velocities and
 * momenta are tied by the W1 relation, which is solved with every given velocity and
 * momentum held fixed; a given value that contradicts it, or a constraint y^α = Ψ^α, is
 * refused. */

/* Least-change Gauss–Newton on the constraint functions from ROW0 on, moving the
 * components of Z where MASK is set: z −= Jᵀ (J Jᵀ)⁺ h, with the pseudo-inverse, so
 * constraints that these components cannot satisfy are left as they are (least squares).
 * Reset-time only (it allocates). */
static void
project_rows_least_squares (CmlSimulation *sim, double t, double *z, const gboolean *mask,
                            guint row0)
{
  CmlSystem *sys = sim->sys;
  guint dim = sys->dim, kall = sys->derived.h->len, k = kall - row0;
  const double *h = sim->proj_out + row0, *J = sim->proj_out + kall + (gsize) row0 * dim;
  gsl_matrix *A = gsl_matrix_alloc (k, k), *Q = gsl_matrix_alloc (k, k);
  gsl_vector *lam = gsl_vector_alloc (k);
  gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc (k);
  g_autofree double *mu = g_new (double, k);

  for (int it = 0; it < 60; it++)
    {
      double hn = 0, zn = 0, lmax = 0, step = 0;
      cml_sim_run_proj (sim, t, z);
      for (guint a = 0; a < k; a++)
        hn = MAX (hn, fabs (h[a]));
      for (guint j = 0; j < dim; j++)
        if (mask[j])
          zn = MAX (zn, fabs (z[j]));
      if (!isfinite (hn) || hn <= 1e-15 * (1 + zn))
        break;
      for (guint a = 0; a < k; a++)
        for (guint b = 0; b < k; b++)
          {
            double s = 0;
            for (guint j = 0; j < dim; j++)
              if (mask[j])
                s += J[a * dim + j] * J[b * dim + j];
            gsl_matrix_set (A, a, b, s);
          }
      gsl_eigen_symmv (A, lam, Q, ws);
      for (guint a = 0; a < k; a++)
        lmax = MAX (lmax, fabs (gsl_vector_get (lam, a)));
      if (!(lmax > 0) || !isfinite (lmax))
        break;
      /* μ = (J Jᵀ)⁺ h */
      for (guint a = 0; a < k; a++)
        mu[a] = 0;
      for (guint e = 0; e < k; e++)
        {
          double l = gsl_vector_get (lam, e), c = 0;
          if (!(fabs (l) > 1e-12 * lmax))
            continue;
          for (guint a = 0; a < k; a++)
            c += gsl_matrix_get (Q, a, e) * h[a];
          for (guint a = 0; a < k; a++)
            mu[a] += gsl_matrix_get (Q, a, e) * c / l;
        }
      for (guint j = 0; j < dim; j++)
        if (mask[j])
          {
            double s = 0;
            for (guint a = 0; a < k; a++)
              s += J[a * dim + j] * mu[a];
            z[j] -= s;
            step = MAX (step, fabs (s));
          }
      if (!(step > 1e-16 * (1 + zn)))
        break;
    }
  gsl_matrix_free (A);
  gsl_matrix_free (Q);
  gsl_vector_free (lam);
  gsl_eigen_symmv_free (ws);
}

static void
project_least_squares (CmlSimulation *sim, double t, double *z, const gboolean *mask)
{
  project_rows_least_squares (sim, t, z, mask, 0);
}

/* Whether the constraint functions from ROW0 on vanish at Z (as cml_sim_project_range judges). */
static gboolean
rows_hold (CmlSimulation *sim, double t, const double *z, guint row0)
{
  CmlSystem *sys = sim->sys;
  double hn = 0, zn = 0;
  cml_sim_run_proj (sim, t, z);
  for (guint a = row0; a < sys->derived.h->len; a++)
    hn = MAX (hn, fabs (sim->proj_out[a]));
  for (guint j = sys->derived.movable_from; j < sys->derived.movable_to; j++)
    zn = MAX (zn, fabs (z[j]));
  return hn <= 1e-15 * (1 + zn);
}

/* The value of an initial datum: explicitly given, else the model's, else missing. */
static gboolean
lookup_initial (CmlSystem *sys, GHashTable *given, const char *name, double *v, gboolean *explicit_)
{
  double *p = given ? g_hash_table_lookup (given, name) : NULL;
  *explicit_ = p != NULL;
  if (p == NULL)
    p = g_hash_table_lookup (sys->model->initial, name);
  if (p)
    *v = *p;
  return p != NULL;
}

/* G_A = ∂L̃/∂y^A − Σ_α p_α ∂Ψ^α/∂y^A, the momentum p_A of the free direction A that the
 * W1 relation gives (F_A = p_A − G_A). */
static CmlExpr *
vakonomic_momentum_expr (CmlSystem *sys, guint A)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint k = md->constraints->len, n = md->n;
  g_autofree int *cs = g_new (int, MAX (k, 1));
  g_autofree CmlExpr **ps = g_new (CmlExpr *, MAX (k, 1));
  CmlExpr *Lt, *Ga;

  for (guint a = 0; a < k; a++)
    {
      cs[a] = ((CmlNamedExpr *) md->constraints->pdata[a])->sym;
      ps[a] = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
    }
  Lt = cml_expr_subs (ctx, md->lagrangian, k, cs, ps);
  Ga = cml_expr_diff (ctx, Lt, md->fibre_sym[A]);
  for (guint a = 0; a < k; a++)
    {
      int Bs = -1;
      for (guint B = 0; B < n; B++)
        if (md->fibre_sym[B] == cs[a])
          Bs = B;
      Ga = cml_expr_sub (ctx, Ga, cml_expr_mul (ctx, cml_expr_sym (ctx, md->momenta_sym[Bs]),
                                                cml_expr_diff (ctx, ps[a], md->fibre_sym[A])));
    }
  return Ga;
}

/* The index + 1 of the constraint whose constrained velocity is y^A, or 0, into CON (n). */
static void
constrained_directions (const CmlModel *md, int *con)
{
  for (guint A = 0; A < md->n; A++)
    con[A] = 0;
  for (guint a = 0; a < md->constraints->len; a++)
    for (guint A = 0; A < md->n; A++)
      if (((CmlNamedExpr *) md->constraints->pdata[a])->sym == md->fibre_sym[A])
        con[A] = a + 1;
}

/* G_A, F_A = p_A − G_A and ∂F_A/∂y^B for every pair of free directions, derived once per
 * system — on its first reset, under its runtime's lock — and only evaluated by the resets
 * after: simulations of one system reset on several threads at once (a sweep's), and none
 * of them may add to the expression context while another reads it. */
static void
vakonomic_exprs (CmlSystem *sys)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint n = md->n;

  if (g_atomic_int_get (&rt->vak_ready))
    return;
  g_mutex_lock (&rt->lock);
  if (!rt->vak_ready)
    {
      g_autofree int *con = g_new (int, MAX (n, 1));
      constrained_directions (md, con);
      rt->vak_G = g_new0 (CmlExpr *, MAX (n, 1));
      rt->vak_F = g_new0 (CmlExpr *, MAX (n, 1));
      rt->vak_J = g_new0 (CmlExpr *, MAX (n * n, 1));
      for (guint A = 0; A < n; A++)
        if (!con[A])
          {
            rt->vak_G[A] = vakonomic_momentum_expr (sys, A);
            rt->vak_F[A] = cml_expr_sub (ctx, cml_expr_sym (ctx, md->momenta_sym[A]), rt->vak_G[A]);
          }
      for (guint A = 0; A < n; A++)
        for (guint B = 0; B < n; B++)
          if (!con[A] && !con[B])
            rt->vak_J[A * n + B] = cml_expr_diff (ctx, rt->vak_F[A], md->fibre_sym[B]);
      g_atomic_int_set (&rt->vak_ready, TRUE);
    }
  g_mutex_unlock (&rt->lock);
}

void
cml_sys_prepare_initial (CmlSystem *sys)
{
  if (sys->formalism == CML_FORMALISM_VAKONOMIC)
    vakonomic_exprs (sys);
}

/* Vakonomic initial data (see above).  For each free direction a one of y^a, p_a is
 * held fixed — the user's (both if both are given), else the file's momentum, else the
 * file's velocity, else p_a = 0 — and the W1 relations F_a = p_a − G_a(x, p_α, y) = 0 of
 * the directions whose momentum is fixed are solved (Newton) for their velocities; the
 * momenta of the directions whose velocity is fixed then follow.  Writes the momenta into
 * Z and the free velocities into YF (by fibre index). */
static gboolean
vakonomic_initial (CmlSimulation *sim, double t0, GHashTable *given, double *z, double *yv,
                   GError **error)
{
  CmlSystem *sys = sim->sys;
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = sys->m, n = sys->n, dim = sys->dim, ns = cml_expr_ctx_n_symbols (ctx);
  g_autofree double *vals = g_new0 (double, ns);
  g_autofree int *con = g_new0 (int, n);            /* constraint index + 1, or 0 */
  CmlExpr *const *G;
  g_autofree gboolean *p_fixed = g_new0 (gboolean, n);
  g_autofree gboolean *y_fixed = g_new0 (gboolean, n);
  g_autofree gboolean *y_user = g_new0 (gboolean, n);
  g_autofree gboolean *p_user = g_new0 (gboolean, n);
  g_autoptr (GArray) unknown = g_array_new (FALSE, FALSE, sizeof (guint));

  constrained_directions (md, con);
  vakonomic_exprs (sys);
  G = rt->vak_G;
  for (guint k = 0; k < sys->n_params; k++)
    vals[sys->param_sym[k]] = sim->params[k];
  vals[md->t_sym] = t0;
  for (guint i = 0; i < dim; i++)
    vals[sys->state_sym[i]] = z[i];

  /* which of (y^a, p_a) is held fixed */
  for (guint A = 0; A < n; A++)
    {
      double v, p;
      gboolean vx, px;
      gboolean has_v = lookup_initial (sys, given, md->fibre[A], &v, &vx);
      gboolean has_p = lookup_initial (sys, given, md->momenta[A], &p, &px);
      y_user[A] = vx;
      p_user[A] = px;
      yv[A] = has_v ? v : 0;
      vals[md->fibre_sym[A]] = yv[A];
      if (con[A])
        continue;
      if (px || (!vx && has_p) || (!vx && !has_v))
        p_fixed[A] = TRUE;
      if (vx || (!px && !has_p && has_v))
        y_fixed[A] = TRUE;
      if (p_fixed[A] && !y_fixed[A])
        g_array_append_val (unknown, A);
    }

  /* Newton on F_a = 0, a with p_a fixed, for their velocities */
  if (unknown->len)
    {
      guint q = unknown->len;
      g_autofree CmlExpr **F = g_new (CmlExpr *, q);
      g_autofree CmlExpr **J = g_new (CmlExpr *, q * q);
      g_autofree double *Jv = g_new (double, q * q);
      g_autofree double *Fv = g_new (double, q);
      gboolean converged = FALSE;
      for (guint a = 0; a < q; a++)
        {
          guint A = g_array_index (unknown, guint, a);
          F[a] = rt->vak_F[A];
          for (guint b = 0; b < q; b++)
            J[a * q + b] = rt->vak_J[A * n + g_array_index (unknown, guint, b)];
        }
      for (int it = 0; it < 50 && !converged; it++)
        {
          double dn = 0, an = 0;
          for (guint a = 0; a < q; a++)
            {
              Fv[a] = -cml_expr_eval (F[a], vals);
              for (guint b = 0; b < q; b++)
                Jv[a * q + b] = cml_expr_eval (J[a * q + b], vals);
            }
          if (!cml_small_solve (q, Jv, Fv, 1e-14))
            {
              GString *names = g_string_new (NULL);
              for (guint a = 0; a < q; a++)
                g_string_append_printf (names, "%s%s", a ? ", " : "", md->fibre[g_array_index (unknown, guint, a)]);
              g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR,
                           _("%s:%d: initial data: the W1 relations cannot be solved for %s from the given momenta "
                             "(the vakonomic regularity matrix R_ab restricted to them is singular here): give these "
                             "velocities instead"),
                           md->path, MAX (md->constraints_line, 1), names->str);
              g_string_free (names, TRUE);
              return FALSE;
            }
          for (guint a = 0; a < q; a++)
            {
              int s = md->fibre_sym[g_array_index (unknown, guint, a)];
              vals[s] += Fv[a];
              dn = MAX (dn, fabs (Fv[a]));
              an = MAX (an, fabs (vals[s]));
            }
          if (!isfinite (dn))
            break;
          converged = dn <= 1e-15 * (1 + an);
          /* an affine W1 relation is solved by the first step; one more confirms it */
          if (it >= 1 && dn <= 1e-13 * (1 + an))
            converged = TRUE;
        }
      if (!converged)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       _("%s:%d: initial data: Newton's method for the free velocities did not converge"),
                       md->path, MAX (md->constraints_line, 1));
          return FALSE;
        }
      for (guint a = 0; a < q; a++)
        {
          guint A = g_array_index (unknown, guint, a);
          yv[A] = vals[md->fibre_sym[A]];
        }
    }

  /* the momenta of the directions whose velocity is fixed (p_a = G_a); a momentum given
   * together with its own velocity must agree with it */
  for (guint A = 0; A < n; A++)
    {
      if (con[A] || !y_fixed[A])
        continue;
      double g = cml_expr_eval (G[A], vals);
      if (!p_fixed[A])
        {
          z[m + A] = g;
          vals[md->momenta_sym[A]] = g;
        }
      else if (!(fabs (z[m + A] - g) <= 1e-10 * (1 + fabs (g))))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       /* TRANSLATORS: the model file, its line, a velocity and its value, its
                        * momentum and its value, the velocity again and the value the
                        * momentum gives it */
                       _("%s:%d: initial data: %s = %.17g and %s = %.17g contradict the W1 relation, which gives "
                         "%s = %.17g for this velocity: give the velocity or the momentum, not both"),
                       md->path, MAX (md->constraints_line, 1), md->fibre[A], yv[A], md->momenta[A], z[m + A],
                       md->momenta[A], g);
          return FALSE;
        }
    }

  /* constrained velocities follow from the free ones: one that was given must agree */
  for (guint A = 0; A < n; A++)
    {
      double v;
      gboolean vx;
      if (!con[A] || !lookup_initial (sys, given, md->fibre[A], &v, &vx))
        continue;
      CmlNamedExpr *ne = md->constraints->pdata[con[A] - 1];
      double psi = cml_expr_eval (ne->expr, vals);
      if (!(fabs (v - psi) <= 1e-10 * (1 + fabs (psi))))
        {
          g_autofree char *txt = cml_expr_to_string_max (ctx, ne->expr, DESCRIBE_MAX_CHARS);
          /* the line of the constraint, or of the file's value when it came from the file */
          int line = vx ? ne->line : cml_model_line (md, "initial", md->fibre[A]);
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       /* TRANSLATORS: the model file, its line, “the given ” or nothing, a
                        * velocity, its value, the constraint's name and formula, the velocity
                        * again and the value the constraint gives it */
                       _("%s:%d: initial data: %s%s = %.17g contradicts the vakonomic constraint %s = %s, which "
                         "gives %s = %.17g here: a constrained velocity follows from the free velocities; give "
                         "those (or the momenta) instead"),
                       md->path, MAX (line, 1), vx ? _("the given ") : "", md->fibre[A], v, ne->name, txt,
                       md->fibre[A], psi);
          return FALSE;
        }
    }
  return TRUE;
}

/* Whether the constraints depend to first order on component J at Z (the column J of
 * their Jacobian, evaluated by the last cml_sim_run_proj, is not zero). */
static gboolean
column_nonzero (CmlSimulation *sim, guint j)
{
  CmlSystem *sys = sim->sys;
  guint k = sys->derived.h->len, dim = sys->dim;
  for (guint a = 0; a < k; a++)
    if (sim->proj_out[k + a * dim + j] != 0)
      return TRUE;
  return FALSE;
}

/* Whether the solution S keeps the sign of every component of Z that it moved (a
 * component of Z that is 0 counts as positive). */
static gboolean
signs_kept (const CmlSimulation *sim, const double *z, const double *s)
{
  for (guint j = sim->sys->derived.movable_from; j < sim->sys->derived.movable_to; j++)
    if (s[j] != z[j] && (z[j] < 0 ? s[j] > 0 : s[j] < 0))
      return FALSE;
  return TRUE;
}

/* Solves the constraints at time T for the components of Z that MASK marks (Newton, the
 * least change), starting from their values in Z.  The root is chosen by a stated rule:
 * each component keeps the sign of its value in Z (positive when Z's is 0) when some
 * root does.  So where the constraints do not depend on a marked component to first order
 * at Z (∂φ/∂v = 0, as at v = 0 for u² + v² − c) but do nearby — Newton cannot start
 * there — and where the root found from Z has the other sign, Newton starts again from
 * values of Z's sign at a few scales; of two roots ±v the one of Z's sign is taken.  When
 * no root keeps the signs, the first one found is taken.  Z is changed only on success. */
static gboolean
solve_masked (CmlSimulation *sim, double t, double *z, const gboolean *mask)
{
  CmlSystem *sys = sim->sys;
  guint dim = sys->dim, from = sys->derived.movable_from, to = sys->derived.movable_to;
  static const double scales[] = { 1, 10, 0.1, 100, 0.01 };
  g_autofree double *tmp = g_memdup2 (z, dim * sizeof (double));
  g_autofree double *first = NULL;
  g_autofree gboolean *restart = g_new0 (gboolean, dim);
  gboolean any_restart = FALSE;

  if (cml_sim_project_range (sim, t, tmp, from, to, mask) == 0)
    {
      if (signs_kept (sim, z, tmp))
        {
          memcpy (z, tmp, dim * sizeof (double));
          return TRUE;
        }
      first = g_memdup2 (tmp, dim * sizeof (double));
      for (guint j = from; j < to; j++)
        if (mask[j] && (z[j] < 0 ? tmp[j] > 0 : tmp[j] < 0))
          restart[j] = any_restart = TRUE;
    }
  /* the marked components the constraints do not depend on at Z, but do when they move */
  cml_sim_run_proj (sim, t, z);
  {
    g_autofree gboolean *dep = g_new0 (gboolean, dim);
    for (guint j = from; j < to; j++)
      dep[j] = mask[j] && column_nonzero (sim, j);
    for (guint j = from; j < to; j++)
      {
        if (!mask[j] || dep[j] || restart[j])
          continue;
        memcpy (tmp, z, dim * sizeof (double));
        tmp[j] = z[j] < 0 ? z[j] - 1 : z[j] + 1;
        cml_sim_run_proj (sim, t, tmp);
        restart[j] = column_nonzero (sim, j);
        any_restart |= restart[j];
      }
  }
  for (guint s = 0; any_restart && s < G_N_ELEMENTS (scales); s++)
    {
      memcpy (tmp, z, dim * sizeof (double));
      for (guint j = from; j < to; j++)
        if (restart[j])
          tmp[j] = (z[j] < 0 ? -1 : 1) * scales[s] * MAX (1, fabs (z[j]));
      if (cml_sim_project_range (sim, t, tmp, from, to, mask) != 0)
        continue;
      if (signs_kept (sim, z, tmp))
        {
          memcpy (z, tmp, dim * sizeof (double));
          return TRUE;
        }
      if (first == NULL)
        first = g_memdup2 (tmp, dim * sizeof (double));
    }
  if (first == NULL)
    return FALSE;
  memcpy (z, first, dim * sizeof (double));
  return TRUE;
}

/* Moves the file's initial data, overridden by GIVEN, onto the constraint set at time T0
 * by the rule above.  Z holds the merged values on entry; IS_GIVEN marks the user's. */
static gboolean
solve_initial (CmlSimulation *sim, double t0, double *z, const gboolean *is_given, gboolean *solved,
               GError **error)
{
  CmlSystem *sys = sim->sys;
  CmlModel *md = sys->model;
  guint dim = sys->dim, from = sys->derived.movable_from, to = sys->derived.movable_to;
  guint n_inv = md->invariants->len, k_c = sys->derived.h->len - n_inv;
  /* the components the constraints' own projection moves (the velocities of a
   * nonholonomic system; the invariants add the base coordinates) */
  guint from_c = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? sys->m : from;
  g_autofree gboolean *mask = g_new0 (gboolean, dim);
  guint cnt = 0;

  /* 0. the invariants of the configuration (cml-invariants.c): the base coordinates that
   * were not given, by least change; the given ones too if they must */
  if (n_inv && !rows_hold (sim, t0, z, k_c))
    {
      for (guint j = 0; j < sys->m; j++)
        mask[j] = !is_given[j];
      project_rows_least_squares (sim, t0, z, mask, k_c);
      for (guint j = 0; j < sys->m; j++)
        mask[j] = TRUE;
      if (!rows_hold (sim, t0, z, k_c))
        project_rows_least_squares (sim, t0, z, mask, k_c);
      for (guint j = 0; j < sys->m; j++)
        mask[j] = FALSE;
    }

  /* 1. the solve-for coordinates that were not given */
  for (guint k = 0; k < md->n_solve_for; k++)
    {
      guint j = md->solve_for[k];
      if (j >= from && j < to && !is_given[j])
        {
          mask[j] = TRUE;
          cnt++;
        }
    }
  if (cnt)
    {
      if (!(cnt == k_c && solve_masked (sim, t0, z, mask)))
        project_least_squares (sim, t0, z, mask);
      for (guint j = 0; j < dim; j++)
        solved[j] = mask[j];
    }
  /* 2. every coordinate that was not given; with the start rule of solve_masked only when
   * values were given, which it keeps (the file's own data are not completed by it: a
   * file without velocities for |y| = 1 names no direction) */
  if (!rows_hold (sim, t0, z, 0))
    {
      gboolean any_given = FALSE;
      for (guint j = 0; j < dim; j++)
        {
          mask[j] = j >= from_c && j < to && !is_given[j];
          any_given |= is_given[j];
        }
      if (!(any_given && solve_masked (sim, t0, z, mask)))
        project_least_squares (sim, t0, z, mask);
    }
  /* 3. the given values too: the least change onto the constraint set */
  if (cml_sim_project_range (sim, t0, z, from, to, NULL) != 0)
    {
      /* TRANSLATORS: the model file, its line and why its initial data cannot be met */
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, _("%s:%d: initial data: %s"), md->path,
                   MAX (md->constraints_line, 1), sim->reason);
      return FALSE;
    }
  return TRUE;
}

/* "phi2 = v + r*w1 - Omega*x" (nonholonomic) or "x1 = 0" (the constraint algorithm's). */
static char *
constraint_text (CmlSystem *sys, guint a)
{
  CmlModel *md = sys->model;
  guint k_c = sys->derived.h->len - md->invariants->len;
  if (a >= k_c)
    {
      CmlNamedExpr *ne = md->invariants->pdata[a - k_c];
      g_autofree char *e = cml_expr_to_string_max (sys->ctx, ne->expr, 200);
      return g_strdup_printf ("%s = %s = 0", ne->name, e);
    }
  if (sys->formalism == CML_FORMALISM_NONHOLONOMIC)
    {
      CmlNamedExpr *ne = md->constraints->pdata[a];
      g_autofree char *e = cml_expr_to_string_max (sys->ctx, ne->expr, 200);
      return g_strdup_printf ("%s = %s = 0 (line %d)", ne->name, e, ne->line);
    }
  g_autofree char *txt
    = cml_expr_to_string_max (sys->ctx, cml_expr_monic (sys->ctx, sys->derived.h->pdata[a], NULL), 200);
  return g_strdup_printf ("%s = 0", txt);
}

gboolean
cml_simulation_reset_at (CmlSimulation *sim, double t0, GHashTable *given, GError **error)
{
  CmlSystem *sys = sim->sys;
  CmlModel *md = sys->model;
  guint m = sys->m, n = sys->n, dim = sys->dim;
  g_autofree double *z = g_new0 (double, dim);
  g_autofree double *z_given = g_new0 (double, dim);
  g_autofree gboolean *is_given = g_new0 (gboolean, dim);
  g_autofree gboolean *solved = g_new0 (gboolean, dim);
  g_autofree double *yv = g_new0 (double, n);
  GHashTableIter it;
  gpointer key;

  /* a recorded motion starts where it was recorded from (GIVEN cannot change it) */
  if (sim->recording)
    {
      cml_sim_recorded_reset (sim, t0);
      return TRUE;
    }
  g_ptr_array_set_size (sim->report, 0);
  g_clear_error (&sim->pending);
  /* every given name must be something that can be set */
  if (given)
    {
      g_hash_table_iter_init (&it, given);
      while (g_hash_table_iter_next (&it, &key, NULL))
        {
          const char *nm = key;
          gboolean ok = cml_sim_state_index (sys, nm) >= 0;
          for (guint A = 0; A < n && !ok; A++)
            ok = g_str_equal (md->fibre[A], nm) || g_str_equal (md->momenta[A], nm);
          if (!ok)
            {
              g_autofree char *names = g_strjoinv (", ", sys->state_names);
              g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                           _("“%s” is not an initial datum of %s (state: %s)"), nm, md->name, names);
              return FALSE;
            }
        }
    }

  /* 1. the file's values, overridden by the given ones; quaternions default to 1 */
  for (guint i = 0; i + 3 < md->quaternions->len; i += 4)
    z[m + n + g_array_index (md->quaternions, guint, i)] = 1;
  for (guint i = 0; i + 3 < md->base_quaternions->len; i += 4)
    z[g_array_index (md->base_quaternions, guint, i)] = 1;
  for (guint i = 0; i < dim; i++)
    lookup_initial (sys, given, sys->state_names[i], &z[i], &is_given[i]);

  /* 2. the W1 relation (vakonomic) */
  if (sys->formalism == CML_FORMALISM_VAKONOMIC && !vakonomic_initial (sim, t0, given, z, yv, error))
    return FALSE;

  memcpy (z_given, z, dim * sizeof (double));
  sim->t = t0;

  /* 3. the constraint set (nonholonomic, singular); unit quaternions */
  if (sys->derived.h->len)
    {
      if (!solve_initial (sim, t0, z, is_given, solved, error))
        return FALSE;
    }
  else if (md->quaternions->len
           && cml_sim_project_range (sim, t0, z, sys->derived.movable_from, sys->derived.movable_to, NULL) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, _("%s:%d: initial data: %s"), md->path,
                   MAX (md->constraints_line, 1), sim->reason);
      return FALSE;
    }

  /* 4. what changed, and why */
  {
    g_autofree double *h0 = NULL;
    gboolean given_moved = FALSE;
    for (guint i = 0; i < dim; i++)
      given_moved |= is_given[i] && fabs (z[i] - z_given[i]) > 1e-12 * (1 + fabs (z_given[i]));
    if (sys->derived.h->len && given_moved)
      {
        /* the constraints at the given values with the others solved: those that still
         * fail are the ones the given values contradict */
        g_autofree double *zs = g_memdup2 (z_given, dim * sizeof (double));
        g_autofree gboolean *mask = g_new0 (gboolean, dim);
        for (guint j = sys->derived.movable_from; j < sys->derived.movable_to; j++)
          mask[j] = !is_given[j];
        project_least_squares (sim, t0, zs, mask);
        cml_sim_run_proj (sim, t0, zs);
        h0 = g_memdup2 (sim->proj_out, (sys->derived.h->len + sys->derived.h->len * dim) * sizeof (double));
      }
    for (guint i = 0; i < dim; i++)
      {
        if (!(fabs (z[i] - z_given[i]) > 1e-12 * (1 + fabs (z_given[i]))) || solved[i])
          continue;
        if (is_given[i] && h0)
          {
            GString *why = g_string_new (NULL);
            double zn = 0;
            for (guint j = sys->derived.movable_from; j < sys->derived.movable_to; j++)
              zn = MAX (zn, fabs (z_given[j]));
            for (guint a = 0; a < sys->derived.h->len; a++)
              if (fabs (h0[a]) > 1e-12 * (1 + zn) && h0[sys->derived.h->len + a * dim + i] != 0)
                {
                  g_autofree char *c = constraint_text (sys, a);
                  g_string_append_printf (why, "%s%s", why->len ? "; " : "", c);
                }
            g_ptr_array_add (sim->report,
                             g_strdup_printf ("%s: %.17g -> %.17g (the given value contradicts %s%s; projected "
                                              "onto the constraint set)",
                                              sys->state_names[i], z_given[i], z[i],
                                              why->len ? "the constraint " : "the constraints",
                                              why->len ? why->str : ""));
            g_string_free (why, TRUE);
          }
        else if (i >= m + n || sys->derived.h->len == 0)
          g_ptr_array_add (sim->report, g_strdup_printf ("%s: %.17g -> %.17g (projected onto the constraint set)",
                                                         sys->state_names[i], z_given[i], z[i]));
        else
          g_ptr_array_add (sim->report,
                           g_strdup_printf ("%s: %.17g -> %.17g (not given: solved from the constraints)",
                                            sys->state_names[i], z_given[i], z[i]));
      }
  }

  memcpy (sim->z, z, dim * sizeof (double));
  if (sim->integ)
    cml_integrator_reset (sim->integ);
  if (sys->derived.na)
    {
      /* Newton for the free velocities starts from the solved ones */
      for (guint a = 0; a < sys->derived.na; a++)
        for (guint A = 0; A < n; A++)
          if (md->fibre_sym[A] == sys->derived.aux_sym[a])
            sim->fast[1 + dim + a] = yv[A];
      cml_sim_fill_fast (sim, t0, sim->z);
      if (cml_sim_solve_aux (sim) != 0)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR, _("%s:%d: initial data: %s"), md->path,
                       MAX (md->constraints_line, 1), sim->reason);
          return FALSE;
        }
    }
  return cml_sim_check_regular (sim, error);
}

gboolean
cml_simulation_reset (CmlSimulation *sim, GHashTable *given, GError **error)
{
  return cml_simulation_reset_at (sim, 0, given, error);
}
