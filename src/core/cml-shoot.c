/* cml-shoot.c — shooting for normal extremals of a vakonomic system, and their conjugate
 * times.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §13.  The state of a vakonomic system is z = (x, p, r): base coordinates,
 * momenta, reconstruction variables, with ż = f(t, z) the equations of §4.  With x(t0) and
 * r(t0) held, the unknowns are the n initial momenta p(t0), and the targets are k of the
 * components of x(T) and r(T):
 *
 *   F(p0) = z_targets(T; p0) − targets = 0.
 *
 * Its Jacobian is the sensitivity Φ = ∂z(t)/∂p(t0), which solves the variational equations
 *
 *   Φ' = J(t, z) Φ,   Φ(t0) = the columns e_{m+A} (A = 1…n),   J = ∂f/∂z,
 *
 * integrated together with z (an augmented ODE of dim·(1 + n) components) with the
 * system's exact symbolic Jacobian J (the one msbdf and the implicit midpoint rule use)
 * and the run's integrator and tolerances.  The Newton step is the minimum-norm solution
 * of A δ = −F, A = Φ_targets(T) (k×n), by SVD; it is damped by halving until the residual
 * ‖F‖₂ decreases.  When damped Newton fails, the target is continued from where the guess
 * goes, F_s = z_targets(T) − (g0 + s (targets − g0)), s from 0 to 1 in steps that halve
 * on failure.
 *
 * Conjugate times: the zeros of D(t) = det ∂q(t)/∂p(t0) in (t0, T], q the base
 * coordinates when there are as many as momenta (m = n), else the base coordinates and
 * the reconstruction variables when those are as many (m + n_r = n); otherwise none are
 * computed and the result says why.  D is sampled at n_samples times and each change of
 * sign is refined by the Illinois method, re-integrating from the sample before it.
 *
 * The augmented run is not projected (vakonomic constraints are graphs; a quaternion of the
 * reconstruction drifts from unit norm only by the integrator's tolerance over [t0, T]).
 * For the implicit methods the augmented Jacobian is taken block-diagonal (J in every
 * block: the term (∂J/∂z) Φ is left out, which only slows their inner Newton iteration).
 *
 * Bounds: momenta far from the guess can make the extremal so fast that one run to T
 * takes millions of steps, and continuation can try many of them.  A run to T from a
 * Newton trial takes at most SHOOT_RUNAWAY times the steps of the run from the guess (at
 * least SHOOT_MIN_RUN_STEPS); beyond that the trial counts as failed, and the step is
 * halved.  All the runs of one shooting take at most CML_SHOOT_MAX_STEPS steps in all;
 * then it stops and says so.
 */
#define G_LOG_DOMAIN "cml-shoot"

#include "cml-shoot.h"

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-program.h"
#include "cml-system-private.h"

#define SHOOT_MAX_HALVINGS   12      /* backtracking: the step is cut to at most 2⁻¹² */
#define SHOOT_MIN_DS         1e-3    /* continuation gives up below this step in s */
#define SHOOT_CONJ_TOL       1e-12   /* conjugate times are refined to this × max (1, |t|) */
#define SHOOT_RCOND          1e-13   /* singular values below this × the largest count as 0 */
#define SHOOT_RUNAWAY        100     /* a trial's run to T: at most this × the guess's steps … */
#define SHOOT_MIN_RUN_STEPS  10000   /* … and never fewer than these */

CmlShootOptions
cml_shoot_options_default (void)
{
  return (CmlShootOptions) { .max_iterations = 50, .tolerance = 1e-10, .continuation = TRUE, .n_samples = 1000,
                             .max_steps = CML_SHOOT_MAX_STEPS };
}

void
cml_shoot_result_free (CmlShootResult *result)
{
  if (result == NULL)
    return;
  g_strfreev (result->momentum_names);
  g_free (result->momenta);
  if (result->conjugate_times)
    g_array_unref (result->conjugate_times);
  g_free (result->conjugate_rows);
  g_free (result->conjugate_note);
  g_free (result);
}

typedef struct
{
  CmlSimulation *sim;
  CmlSystem     *sys;
  guint          dim, m, n, nr, D;
  double         t0, T;
  double        *z0;      /* the initial state (its momenta replaced by the unknowns) */
  double        *J, *dfdt, *jac_out;
  double        *Z;       /* augmented state: z, then Φ column by column */
  CmlIntegrator *integ;
  guint          k;       /* targets */
  guint         *tidx;    /* their state indices */
  double        *F, *A;   /* k, k×n */
  double         tol;
  guint64        budget;    /* steps of all the runs (the integrator's count) */
  guint64        run_cap;   /* steps of one trial's run to T; 0: none yet */
  gboolean       exhausted; /* the budget is spent */
} Shoot;

/* J = ∂f/∂z and ∂f/∂t at (t, z): the system's exact Jacobian, native or interpreted. */
static void
state_jacobian (Shoot *s, double t, const double *z)
{
  CmlSimulation *sim = s->sim;
  guint dim = s->dim;

  if (sim->jac_fn)
    {
      sim->jac_fn (t, z, sim->fast + 1 + dim, sim->regs_jac, s->J, s->dfdt);
      return;
    }
  sim->fast[0] = t;
  memcpy (sim->fast + 1, z, dim * sizeof (double));
  cml_program_run (s->sys->jac_prog, sim->fast, sim->regs_jac, s->jac_out);
  memcpy (s->J, s->jac_out, dim * dim * sizeof (double));
  memcpy (s->dfdt, s->jac_out + dim * dim, dim * sizeof (double));
}

/* ż = f(t, z), Φ' = J(t, z) Φ */
static int
aug_rhs (double t, const double *Z, double *dZ, void *data)
{
  Shoot *s = data;
  guint dim = s->dim;

  if (!cml_simulation_eval_rhs_at (s->sim, t, Z, dZ, NULL))
    return 1;
  state_jacobian (s, t, Z);
  for (guint j = 0; j < s->n; j++)
    {
      const double *phi = Z + dim + j * dim;
      double *dphi = dZ + dim + j * dim;
      for (guint i = 0; i < dim; i++)
        {
          const double *row = s->J + i * dim;
          double acc = 0;
          for (guint c = 0; c < dim; c++)
            acc += row[c] * phi[c];
          dphi[i] = acc;
        }
    }
  return 0;
}

/* The augmented Jacobian, block-diagonal (see the top of the file). */
static int
aug_jac (double t, const double *Z, double *dfdZ, double *dfdt, void *data)
{
  Shoot *s = data;
  guint dim = s->dim, D = s->D;

  state_jacobian (s, t, Z);
  memset (dfdZ, 0, (gsize) D * D * sizeof (double));
  memset (dfdt, 0, D * sizeof (double));
  memcpy (dfdt, s->dfdt, dim * sizeof (double));
  for (guint b = 0; b <= s->n; b++)
    for (guint i = 0; i < dim; i++)
      memcpy (dfdZ + (gsize) (b * dim + i) * D + b * dim, s->J + i * dim, dim * sizeof (double));
  return 0;
}

/* Z at t0 from the momenta P0. */
static void
start_state (Shoot *s, const double *p0, double *Z)
{
  guint dim = s->dim;
  memset (Z, 0, s->D * sizeof (double));
  memcpy (Z, s->z0, dim * sizeof (double));
  for (guint A = 0; A < s->n; A++)
    {
      Z[s->m + A] = p0[A];
      Z[dim + A * dim + s->m + A] = 1;
    }
}

/* Advances Z from T to T1 in at most CAP steps (0: the budget's rest); the error names
 * the time and the reason. */
static gboolean
advance_capped (Shoot *s, double t, double t1, double *Z, guint64 cap, GError **error)
{
  g_autoptr (GError) err = NULL;
  guint64 used = cml_integrator_n_steps (s->integ);

  if (used >= s->budget)
    {
      s->exhausted = TRUE;
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "the budget of %llu integrator steps is spent",
                   (unsigned long long) s->budget);
      return FALSE;
    }
  cap = cap ? MIN (cap, s->budget - used) : s->budget - used;
  cml_integrator_set_max_steps (s->integ, (guint) MIN (cap, G_MAXUINT));
  cml_integrator_reset (s->integ);
  s->sim->reason[0] = '\0';
  if (cml_integrator_advance (s->integ, &t, t1, Z, &err))
    return TRUE;
  if (s->sim->reason[0])
    g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s at t = %.6g", s->sim->reason, s->sim->reason_t);
  else
    g_propagate_error (error, g_steal_pointer (&err));
  if (cml_integrator_n_steps (s->integ) >= s->budget)
    s->exhausted = TRUE;
  return FALSE;
}

static gboolean
advance (Shoot *s, double t, double t1, double *Z, GError **error)
{
  return advance_capped (s, t, t1, Z, 0, error);
}

static double
norm2 (guint k, const double *v)
{
  double r = 0;
  for (guint i = 0; i < k; i++)
    r += v[i] * v[i];
  return sqrt (r);
}

/* F and A at the momenta P0 for the goal GOAL; the residual ‖F‖₂ into *R. */
static gboolean
evaluate (Shoot *s, const double *p0, const double *goal, double *r, GError **error)
{
  guint64 before = cml_integrator_n_steps (s->integ);

  start_state (s, p0, s->Z);
  if (!advance_capped (s, s->t0, s->T, s->Z, s->run_cap, error))
    return FALSE;
  /* the first run is the guess's: the trials' runs are measured against it */
  if (s->run_cap == 0)
    s->run_cap = MAX ((cml_integrator_n_steps (s->integ) - before) * SHOOT_RUNAWAY, SHOOT_MIN_RUN_STEPS);
  for (guint i = 0; i < s->k; i++)
    {
      s->F[i] = s->Z[s->tidx[i]] - goal[i];
      for (guint j = 0; j < s->n; j++)
        s->A[i * s->n + j] = s->Z[s->dim + j * s->dim + s->tidx[i]];
    }
  *r = norm2 (s->k, s->F);
  return isfinite (*r);
}

/* The minimum-norm least-squares solution of A δ = −F (A k×n) by SVD; FALSE if A = 0. */
static gboolean
newton_step (guint k, guint n, const double *A, const double *F, double *delta)
{
  gboolean wide = k < n;
  guint rows = wide ? n : k, cols = wide ? k : n;
  gsl_matrix *M = gsl_matrix_alloc (rows, cols), *V = gsl_matrix_alloc (cols, cols);
  gsl_vector *S = gsl_vector_alloc (cols), *w = gsl_vector_alloc (cols);
  gboolean ok = TRUE;

  for (guint i = 0; i < k; i++)
    for (guint j = 0; j < n; j++)
      {
        if (wide)
          gsl_matrix_set (M, j, i, A[i * n + j]);
        else
          gsl_matrix_set (M, i, j, A[i * n + j]);
      }
  gsl_linalg_SV_decomp (M, V, S, w);
  double smax = gsl_vector_get (S, 0);
  if (!(smax > 0) || !isfinite (smax))
    ok = FALSE;
  else
    {
      /* A = U S Vᵀ (tall) or A = V S Uᵀ (wide, from Aᵀ = U S Vᵀ); the coefficients c = S⁺ (·)ᵀ(−F) */
      for (guint c = 0; c < cols; c++)
        {
          double sc = gsl_vector_get (S, c), acc = 0;
          if (sc <= SHOOT_RCOND * smax)
            {
              gsl_vector_set (w, c, 0);
              continue;
            }
          for (guint i = 0; i < k; i++)
            acc -= (wide ? gsl_matrix_get (V, i, c) : gsl_matrix_get (M, i, c)) * F[i];
          gsl_vector_set (w, c, acc / sc);
        }
      for (guint j = 0; j < n; j++)
        {
          double acc = 0;
          for (guint c = 0; c < cols; c++)
            acc += (wide ? gsl_matrix_get (M, j, c) : gsl_matrix_get (V, j, c)) * gsl_vector_get (w, c);
          delta[j] = acc;
        }
    }
  gsl_matrix_free (M);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (w);
  return ok;
}

/* Damped Newton from P (updated in place) for GOAL: TRUE when converged.  *ITERS counts
 * the iterations taken, *R the last residual; *WHY (if not NULL) says why it stopped, and
 * *HOPELESS (if not NULL) is set when the targets do not depend on the momenta at all. */
static gboolean
newton (Shoot *s, const double *goal, double *p, guint max_it, guint *iters, double *r, char **why,
        gboolean *hopeless)
{
  guint n = s->n;
  g_autofree double *delta = g_new (double, n), *ptry = g_new (double, n);
  g_autofree double *Fsave = g_new (double, s->k), *Asave = g_new (double, s->k * n);
  g_autoptr (GError) err = NULL;

  *r = INFINITY;
  if (!evaluate (s, p, goal, r, &err))
    {
      if (why)
        *why = g_strdup_printf ("the extremal from the guess does not reach T = %g: %s", s->T,
                                err ? err->message : "non-finite state");
      return FALSE;
    }
  for (guint it = 0;; it++)
    {
      if (*r <= s->tol)
        return TRUE;
      if (it >= max_it)
        {
          if (why)
            *why = g_strdup_printf ("Newton did not converge after %u iterations: residual %.3g at T = %g", max_it, *r,
                                    s->T);
          return FALSE;
        }
      if (!newton_step (s->k, n, s->A, s->F, delta))
        {
          if (why)
            *why = g_strdup_printf ("the targets do not depend on the initial momenta at T = %g (the sensitivity "
                                    "∂z(T)/∂p(0) is zero; residual %.3g)", s->T, *r);
          if (hopeless)
            *hopeless = TRUE;
          return FALSE;
        }
      memcpy (Fsave, s->F, s->k * sizeof (double));
      memcpy (Asave, s->A, s->k * n * sizeof (double));
      double lambda = 1, r_try = INFINITY;
      gboolean accepted = FALSE;
      (*iters)++;
      for (int h = 0; h <= SHOOT_MAX_HALVINGS && !s->exhausted; h++, lambda /= 2)
        {
          for (guint j = 0; j < n; j++)
            ptry[j] = p[j] + lambda * delta[j];
          g_clear_error (&err);
          if (evaluate (s, ptry, goal, &r_try, &err) && r_try < (1 - 1e-4 * lambda) * *r)
            {
              accepted = TRUE;
              break;
            }
        }
      if (!accepted)
        {
          memcpy (s->F, Fsave, s->k * sizeof (double));
          memcpy (s->A, Asave, s->k * n * sizeof (double));
          if (why)
            *why = g_strdup_printf ("Newton could not reduce the residual %.3g at T = %g after %u iterations (the "
                                    "Newton direction does not lower it: the sensitivity is nearly singular here)",
                                    *r, s->T, it + 1);
          return FALSE;
        }
      memcpy (p, ptry, n * sizeof (double));
      *r = r_try;
    }
}

/* ---- conjugate times --------------------------------------------------------------- */

static double
conj_det (Shoot *s, const guint *rows, const double *Z)
{
  guint n = s->n;
  gsl_matrix *M = gsl_matrix_alloc (n, n);
  gsl_permutation *perm = gsl_permutation_alloc (n);
  int sign = 0;
  for (guint r = 0; r < n; r++)
    for (guint j = 0; j < n; j++)
      gsl_matrix_set (M, r, j, Z[s->dim + j * s->dim + rows[r]]);
  gsl_linalg_LU_decomp (M, perm, &sign);
  double d = gsl_linalg_LU_det (M, sign);
  gsl_matrix_free (M);
  gsl_permutation_free (perm);
  return d;
}

/* The zero of D in (TA, TB), where D changes sign, by the Illinois method; ZA is the
 * augmented state at TA (moved with the left end). */
static gboolean
conj_refine (Shoot *s, const guint *rows, double ta, double *ZA, double da, double tb, double db,
             double *tz, GError **error)
{
  g_autofree double *Zt = g_new (double, s->D);
  int side = 0;
  for (int it = 0; it < 100 && fabs (tb - ta) > SHOOT_CONJ_TOL * MAX (1.0, fabs (tb)); it++)
    {
      double t = (ta * db - tb * da) / (db - da);
      double w = 1e-3 * (tb - ta);
      if (!(t > ta + w && t < tb - w))
        t = 0.5 * (ta + tb);
      memcpy (Zt, ZA, s->D * sizeof (double));
      if (!advance (s, ta, t, Zt, error))
        return FALSE;
      double d = conj_det (s, rows, Zt);
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

/* Samples D on (t0, T] along the extremal from P0 and refines every change of sign. */
static gboolean
conjugate_times (Shoot *s, const double *p0, guint n_samples, const guint *rows, GArray *times, GError **error)
{
  g_autofree double *Zprev = g_new (double, s->D), *Zcur = g_new (double, s->D), *Za = g_new (double, s->D);
  double tprev = s->t0, dprev = 0;
  gboolean have_prev = FALSE;

  start_state (s, p0, Zcur);
  for (guint i = 1; i <= n_samples; i++)
    {
      double t = i == n_samples ? s->T : s->t0 + (s->T - s->t0) * i / n_samples;
      memcpy (Zprev, Zcur, s->D * sizeof (double));
      if (!advance (s, tprev, t, Zcur, error))
        return FALSE;
      double d = conj_det (s, rows, Zcur);
      if (d == 0 && i < n_samples)
        g_array_append_val (times, t);
      else if (have_prev && dprev != 0 && d != 0 && (d > 0) != (dprev > 0))
        {
          double tz;
          memcpy (Za, Zprev, s->D * sizeof (double));
          if (!conj_refine (s, rows, tprev, Za, dprev, t, d, &tz, error))
            return FALSE;
          g_array_append_val (times, tz);
        }
      tprev = t, dprev = d, have_prev = TRUE;
    }
  return TRUE;
}

/* ---- the shooting ------------------------------------------------------------------ */

static char *
names_list (CmlSystem *sys, guint from, guint to, guint from2, guint to2)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = from; i < to; i++)
    g_string_append_printf (s, "%s%s", s->len ? ", " : "", cml_system_state_name (sys, i));
  for (guint i = from2; i < to2; i++)
    g_string_append_printf (s, "%s%s", s->len ? ", " : "", cml_system_state_name (sys, i));
  return g_string_free (g_steal_pointer (&s), FALSE);
}

CmlShootResult *
cml_shoot (CmlSimulation *sim, double t_end, guint n_targets, const char *const *target_names,
           const double *target_values, const CmlShootOptions *options, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  CmlShootOptions opt = options ? *options : cml_shoot_options_default ();
  guint dim = sys->dim, m = sys->m, n = sys->n, nr = dim - m - n;

  if (cml_system_get_formalism (sys) != CML_FORMALISM_VAKONOMIC)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "shooting needs a vakonomic system (extremals of a variational problem with constraints, "
                   "whose state holds the momenta to be found); %s has %s",
                   md->name, cml_formalism_to_string (cml_system_get_formalism (sys)));
      return NULL;
    }
  if (sys->na != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "shooting needs the exact Jacobian of the equations of %s, which cmlab derives only when the "
                   "W1 relation is linear in the free velocities",
                   md->name);
      return NULL;
    }
  if (!simulation_ensure_jacobian (sim))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "shooting needs the exact Jacobian of the equations of %s, and %s", md->name, sys->jac_error);
      return NULL;
    }
  double t0 = cml_simulation_get_time (sim);
  if (!(t_end > t0) || !isfinite (t_end))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "the end time T = %g must be after the start t = %g", t_end, t0);
      return NULL;
    }
  if (n_targets == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "no target given: name base coordinates or reconstruction "
                   "variables and their values at T");
      return NULL;
    }
  if (n == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s has no momenta to shoot with", md->name);
      return NULL;
    }

  Shoot s = { .sim = sim, .sys = sys, .dim = dim, .m = m, .n = n, .nr = nr, .D = dim * (1 + n), .t0 = t0,
              .T = t_end, .k = n_targets, .budget = opt.max_steps ? opt.max_steps : CML_SHOOT_MAX_STEPS };
  g_autofree guint *tidx = s.tidx = g_new (guint, n_targets);
  for (guint i = 0; i < n_targets; i++)
    {
      int idx = -1;
      for (guint j = 0; j < dim; j++)
        if (g_str_equal (cml_system_state_name (sys, j), target_names[i]))
          idx = (int) j;
      if (idx < 0 || ((guint) idx >= m && (guint) idx < m + n))
        {
          g_autofree char *allowed = names_list (sys, 0, m, m + n, dim);
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       "“%s” cannot be a target: the targets are base coordinates and reconstruction variables "
                       "(%s), reached at T by choosing the initial momenta",
                       target_names[i], allowed);
          return NULL;
        }
      for (guint j = 0; j < i; j++)
        if (tidx[j] == (guint) idx)
          {
            g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "the target %s is given twice", target_names[i]);
            return NULL;
          }
      if (!isfinite (target_values[i]))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "the target %s needs a finite value", target_names[i]);
          return NULL;
        }
      tidx[i] = (guint) idx;
    }

  CmlIntegratorOptions iopt = *cml_simulation_get_integrator (sim);
  iopt.project = FALSE;
  iopt.stats = NULL;
  CmlOde ode = { .dim = s.D, .rhs = aug_rhs, .jacobian = aug_jac, .project = NULL, .user_data = &s };
  g_autoptr (CmlIntegrator) integ = s.integ = cml_integrator_new (&ode, &iopt, error);
  if (integ == NULL)
    return NULL;

  g_autofree double *z0 = s.z0 = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *J = s.J = g_new (double, dim * dim);
  g_autofree double *dfdt = s.dfdt = g_new (double, dim);
  g_autofree double *jac_out = s.jac_out = g_new (double, dim * dim + dim);
  g_autofree double *Z = s.Z = g_new (double, s.D);
  g_autofree double *F = s.F = g_new (double, n_targets);
  g_autofree double *A = s.A = g_new (double, n_targets * n);
  double tmax = 0;
  for (guint i = 0; i < n_targets; i++)
    tmax = MAX (tmax, fabs (target_values[i]));
  s.tol = opt.tolerance * (1 + tmax);

  g_autoptr (CmlShootResult) res = g_new0 (CmlShootResult, 1);
  res->n_momenta = n;
  res->momentum_names = g_new0 (char *, n + 1);
  for (guint A_ = 0; A_ < n; A_++)
    res->momentum_names[A_] = g_strdup (cml_system_state_name (sys, m + A_));
  res->momenta = g_memdup2 (z0 + m, n * sizeof (double));
  res->conjugate_times = g_array_new (FALSE, FALSE, sizeof (double));

  /* damped Newton from the guess */
  double r = INFINITY;
  g_autofree char *why = NULL;
  gboolean hopeless = FALSE;
  gboolean ok = newton (&s, target_values, res->momenta, opt.max_iterations, &res->iterations, &r, &why, &hopeless);
  if (hopeless)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "the target cannot be reached: %s", why);
      return NULL;
    }
  if (!ok && opt.continuation)
    {
      /* continuation in the target, from where the guess goes */
      g_autofree double *goal0 = g_new (double, n_targets), *goal = g_new (double, n_targets);
      g_autofree double *pc = g_memdup2 (z0 + m, n * sizeof (double)), *ptry = g_new (double, n);
      g_autoptr (GError) err = NULL;
      double r0;
      if (evaluate (&s, pc, target_values, &r0, &err))
        {
          for (guint i = 0; i < n_targets; i++)
            goal0[i] = s.Z[tidx[i]];
          double sp = 0, ds = 0.5, rc = 0;
          while (sp < 1 && ds >= SHOOT_MIN_DS && !s.exhausted)
            {
              double st = MIN (1.0, sp + ds);
              for (guint i = 0; i < n_targets; i++)
                goal[i] = goal0[i] + st * (target_values[i] - goal0[i]);
              memcpy (ptry, pc, n * sizeof (double));
              if (newton (&s, goal, ptry, opt.max_iterations, &res->iterations, &rc, NULL, NULL))
                {
                  memcpy (pc, ptry, n * sizeof (double));
                  sp = st;
                  res->continuation_steps++;
                  ds = MIN (2 * ds, 1.0);
                }
              else
                ds /= 2;
            }
          if (sp >= 1)
            {
              ok = TRUE;
              r = rc;
              res->continuation_used = TRUE;
              memcpy (res->momenta, pc, n * sizeof (double));
            }
          else
            {
              g_autofree char *more = g_strdup_printf ("%s; continuation in the target from where the guess goes "
                                                       "stalled %.0f %% of the way there",
                                                       why, 100 * sp);
              g_free (why);
              why = g_steal_pointer (&more);
            }
        }
    }
  if (!ok && s.exhausted)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "no solution within %llu integrator steps (the runs to T = %g from the trial momenta, in all): "
                   "the targets are far from where the guess goes, or T is long; try a closer guess with --init, "
                   "nearer targets or a shorter T",
                   (unsigned long long) s.budget, s.T);
      return NULL;
    }
  if (!ok)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s; try a closer guess with --init", why);
      return NULL;
    }
  res->residual = r;

  /* conjugate times along the solved extremal */
  g_autofree guint *rows = g_new (guint, n);
  gboolean have_rows = TRUE;
  if (m == n)
    {
      for (guint i = 0; i < n; i++)
        rows[i] = i;
      res->conjugate_rows = names_list (sys, 0, m, 0, 0);
    }
  else if (m + nr == n)
    {
      for (guint i = 0; i < m; i++)
        rows[i] = i;
      for (guint i = 0; i < nr; i++)
        rows[m + i] = m + n + i;
      res->conjugate_rows = names_list (sys, 0, m, m + n, dim);
    }
  else
    {
      have_rows = FALSE;
      res->conjugate_note = g_strdup_printf ("conjugate times not computed: the base coordinates and reconstruction "
                                             "variables (%u) are not as many as the momenta (%u), so ∂x(t)/∂p(0) has "
                                             "no square block to take the determinant of",
                                             m + nr, n);
    }
  if (have_rows && opt.n_samples > 0)
    {
      g_autoptr (GError) err = NULL;
      if (!conjugate_times (&s, res->momenta, opt.n_samples, rows, res->conjugate_times, &err))
        {
          g_array_set_size (res->conjugate_times, 0);
          res->conjugate_note = g_strdup_printf ("conjugate times not computed: %s", err->message);
        }
    }

  /* the simulation starts from the found momenta */
  memcpy (z0 + m, res->momenta, n * sizeof (double));
  cml_simulation_set_state (sim, t0, z0);
  return g_steal_pointer (&res);
}
