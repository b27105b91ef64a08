/* cml-shoot-conjugate.c — the conjugate times of a normal extremal found by shooting
 * (cml-shoot.c): where det ∂q(t)/∂p(t0) changes sign, told apart from integration error.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §13.
 *
 * Conjugate times: the zeros of D(t) = det ∂q(t)/∂p(t0) in (t0, T], q the base
 * coordinates when there are as many as momenta (m = n), else the base coordinates and
 * the reconstruction variables when those are as many (m + n_r = n); otherwise none are
 * computed and the result says why.  The sign is read from the scale-free
 *
 *   ρ(t) = D(t) / Π_i ‖row_i of ∂q(t)/∂p(t0)‖₂     (|ρ| ≤ 1, Hadamard),
 *
 * sampled at n_samples times.  D vanishes at t0 to a high order (t⁴ for the Heisenberg
 * group, t¹⁰ for the Engel group), so that just after t0 its computed value is the
 * integration error, of either sign: one step of rk4-fixed or of the implicit midpoint
 * rule gives the wrong sign there, a conjugate time that does not exist.  So the
 * variational equations are integrated twice, with the run's integrator and with a finer
 * one (half its fixed step, or a sixteenth of its tolerances), and a sample's sign counts
 * only where it is resolved: |ρ_fine| > 2 |ρ − ρ_fine| + SHOOT_RHO_FLOOR.  A conjugate time
 * lies between two consecutive resolved samples of opposite signs, and is refined there by
 * the Illinois method on the finer run, re-integrating from the sample before it.  When
 * no sample is resolved and |ρ| ≤ SHOOT_RHO_DEGENERATE along the whole run, ∂q/∂p(t0) is
 * rank-deficient everywhere: the endpoint map is degenerate (integrable constraints, whose
 * reachable set is a submanifold of lower dimension) and the result says so instead of
 * listing every time.
 */
#define G_LOG_DOMAIN "cml-shoot"

#include "cml-shoot-private.h"

#include <glib/gi18n-lib.h>

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-program.h"

/* ρ = D / Π‖rows‖ of the block ROWS of Φ in Z (0 when a row is zero). */
static double
conj_rho (Shoot *s, const guint *rows, const double *Z)
{
  guint n = s->n;
  gsl_matrix *M = gsl_matrix_alloc (n, n);
  gsl_permutation *perm = gsl_permutation_alloc (n);
  int sign = 0;
  double scale = 1;
  for (guint r = 0; r < n; r++)
    {
      double rn = 0;
      for (guint j = 0; j < n; j++)
        {
          double v = Z[s->dim + j * s->dim + rows[r]];
          gsl_matrix_set (M, r, j, v);
          rn += v * v;
        }
      rn = sqrt (rn);
      scale = rn > 0 ? scale * rn : 0;
      /* each row scaled by its norm: the determinant is then ρ itself, with no underflow */
      for (guint j = 0; rn > 0 && j < n; j++)
        gsl_matrix_set (M, r, j, gsl_matrix_get (M, r, j) / rn);
    }
  double d = 0;
  if (scale > 0)
    {
      gsl_linalg_LU_decomp (M, perm, &sign);
      d = gsl_linalg_LU_det (M, sign);
    }
  gsl_matrix_free (M);
  gsl_permutation_free (perm);
  return isfinite (d) ? d : 0;
}

/* The zero of ρ in (TA, TB), where it changes sign, by the Illinois method on the finer
 * run; ZA is its augmented state at TA (moved with the left end). */
static gboolean
conj_refine (Shoot *s, const guint *rows, double ta, double *ZA, double da, double tb, double db,
             double *tz, GError **error)
{
  g_autofree double *Zt = g_new (double, s->D);
  int side = 0;
  for (int it = 0; it < 100 && fabs (tb - ta) > SHOOT_CONJ_TOL * MAX (1.0, fabs (tb)); it++)
    {
      double t = (ta * db - tb * da) / (db - da);
      /* a trial keeps a tenth of the tolerance away from the ends: it is re-integrated
       * from TA, and a span below the integrator's least step would fail */
      double w = MAX (1e-3 * (tb - ta), 0.1 * SHOOT_CONJ_TOL * MAX (1.0, fabs (tb)));
      if (!(t > ta + w && t < tb - w))
        t = 0.5 * (ta + tb);
      memcpy (Zt, ZA, s->D * sizeof (double));
      if (!cml_shoot_advance_capped (s, s->fine, ta, t, Zt, 0, error))
        return FALSE;
      double d = conj_rho (s, rows, Zt);
      if (d == 0)
        {
          *tz = t;
          return TRUE;
        }
      if ((d > 0) == (db > 0))
        {
          tb = t, db = d;
          if (side == -1)
            da /= 2;
          side = -1;
        }
      else
        {
          /* keep ZA at the left end: the interval's left end moves only by re-integrating */
          memcpy (ZA, Zt, s->D * sizeof (double));
          ta = t, da = d;
          if (side == 1)
            db /= 2;
          side = 1;
        }
    }
  *tz = 0.5 * (ta + tb);
  return TRUE;
}

/* Samples ρ at the N_GRID increasing times GRID of (t0, T] (the last is T) along the
 * extremal from P0, with the run's integrator and the finer one side by side, and refines
 * every change of sign between resolved samples (see the top of the file).  ROWS NULL:
 * no determinant, the finer run alone.  Where STORE[g] ≥ 0, the finer run's state (dim
 * values) at GRID[g] goes into STATES + STORE[g] · dim. */
ConjStatus
cml_shoot_conjugate_times (Shoot *s, const double *p0, guint n_grid, const double *grid,
                           const guint *rows, GArray *times, const int *store, double *states,
                           GError **error)
{
  g_autofree double *Zc = g_new (double, s->D), *Zf = g_new (double, s->D);
  g_autofree double *Zlast = g_new (double, s->D), *Za = g_new (double, s->D);
  double tprev = s->t0, tlast = s->t0, rlast = 0, rmax = 0;
  gboolean have_last = FALSE;

  cml_shoot_start_state (s, p0, Zc);
  cml_shoot_start_state (s, p0, Zf);
  for (guint g = 0; g < n_grid; g++)
    {
      double t = grid[g];
      if ((rows && !cml_shoot_advance_capped (s, s->integ, tprev, t, Zc, 0, error))
          || !cml_shoot_advance_capped (s, s->fine, tprev, t, Zf, 0, error))
        return CONJ_FOUND;
      tprev = t;
      if (store && store[g] >= 0)
        memcpy (states + (gsize) store[g] * s->dim, Zf, s->dim * sizeof (double));
      if (rows == NULL)
        continue;
      double rc = conj_rho (s, rows, Zc), rf = conj_rho (s, rows, Zf);
      rmax = MAX (rmax, MAX (fabs (rc), fabs (rf)));
      /* the sign counts where the finer value exceeds the difference of the two */
      if (!(fabs (rf) > 2 * fabs (rc - rf) + SHOOT_RHO_FLOOR))
        continue;
      if (have_last && (rf > 0) != (rlast > 0))
        {
          double tz;
          memcpy (Za, Zlast, s->D * sizeof (double));
          if (!conj_refine (s, rows, tlast, Za, rlast, t, rf, &tz, error))
            return CONJ_FOUND;
          g_array_append_val (times, tz);
        }
      memcpy (Zlast, Zf, s->D * sizeof (double));
      tlast = t, rlast = rf, have_last = TRUE;
    }
  if (!have_last)
    return rmax <= SHOOT_RHO_DEGENERATE ? CONJ_DEGENERATE : CONJ_UNRESOLVED;
  return CONJ_FOUND;
}

/* The conjugate times of RES (its momenta, at_rest set) into it, with the rows taken, or
 * the note that says why there are none (English: it goes into files); N_SAMPLES equal
 * steps of (t0, T].  With N_AT > 0, the finer run's states at the times AT (increasing, in
 * (t0, T], added to the samples) into STATES (N_AT × dim): FALSE with ERROR when that run
 * fails (a failure of the conjugate times alone is a note). */
gboolean
cml_shoot_conjugate_result (Shoot *s, CmlShootResult *res, guint n_samples, guint n_at,
                            const double *at, double *states, GError **error)
{
  CmlSystem *sys = s->sys;
  guint m = s->m, n = s->n, nr = s->nr, dim = s->dim;
  g_autofree guint *rows = g_new (guint, n);
  gboolean have_rows = TRUE;

  if (m == n)
    {
      for (guint i = 0; i < n; i++)
        rows[i] = i;
      res->conjugate_rows = cml_shoot_names_list (sys, 0, m, 0, 0);
    }
  else if (m + nr == n)
    {
      for (guint i = 0; i < m; i++)
        rows[i] = i;
      for (guint i = 0; i < nr; i++)
        rows[m + i] = m + n + i;
      res->conjugate_rows = cml_shoot_names_list (sys, 0, m, m + n, dim);
    }
  else
    {
      have_rows = FALSE;
      res->conjugate_note = g_strdup_printf ("conjugate times not computed: the base coordinates and "
                                             "reconstruction variables (%u) are not as many as the momenta (%u), "
                                             "so ∂x(t)/∂p(0) has no square block to take the determinant of",
                                             m + nr, n);
    }
  if (have_rows && res->at_rest)
    {
      g_clear_pointer (&res->conjugate_rows, g_free);
      res->conjugate_note = g_strdup ("conjugate times not computed: the targets are the start point, and the "
                                      "extremal found stays at rest there (all momenta zero), the shortest way "
                                      "for every T");
    }
  gboolean conj = have_rows && !res->at_rest && n_samples > 0;
  if (!conj && n_at == 0)
    return TRUE;

  /* the samples: N_SAMPLES equal steps (when the determinant is sampled) and the times AT */
  guint n_uni = conj ? n_samples : 0, n_grid = 0;
  g_autofree double *grid = g_new (double, n_uni + n_at);
  g_autofree int *store = g_new (int, n_uni + n_at);
  for (guint i = 1, j = 0; i <= n_uni || j < n_at;)
    {
      double tu = i <= n_uni ? (i == n_uni ? s->T : s->t0 + (s->T - s->t0) * i / n_uni) : INFINITY;
      double ta = j < n_at ? at[j] : INFINITY;
      grid[n_grid] = MIN (tu, ta);
      store[n_grid] = ta <= tu ? (int) j : -1;
      if (tu <= ta)
        i++;
      if (ta <= tu)
        j++;
      n_grid++;
    }

  g_autoptr (GError) err = NULL;
  ConjStatus cs = cml_shoot_conjugate_times (s, res->momenta, n_grid, grid, conj ? rows : NULL, res->conjugate_times, store,
                                   states, &err);
  if (err)
    {
      if (conj)
        {
          g_array_set_size (res->conjugate_times, 0);
          g_clear_pointer (&res->conjugate_note, g_free);
          res->conjugate_note = g_strdup_printf ("conjugate times not computed: %s", err->message);
        }
      if (n_at > 0)
        {
          g_propagate_error (error, g_steal_pointer (&err));
          return FALSE;
        }
    }
  else if (conj && cs == CONJ_DEGENERATE)
    {
      res->degenerate = TRUE;
      res->conjugate_note = g_strdup_printf ("conjugate times not computed: the endpoint map is degenerate "
                                             "along the whole extremal (det ∂(%s)/∂p(0) vanishes at every "
                                             "time, so every time would count as conjugate).  The constraints "
                                             "are integrable (holonomic): the points reachable from the start "
                                             "form a submanifold of lower dimension",
                                             res->conjugate_rows);
    }
  else if (conj && cs == CONJ_UNRESOLVED)
    res->conjugate_note = g_strdup_printf ("conjugate times not computed: det ∂(%s)/∂p(0) stays below the "
                                           "integration error along the whole run; try a smaller step or "
                                           "tighter tolerances",
                                           res->conjugate_rows);
  return TRUE;
}
