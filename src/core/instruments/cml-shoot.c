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
 * Conjugate times (the zeros of det ∂q(t)/∂p(t0), told apart from integration error):
 * cml-shoot-conjugate.c.
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
 * halved.  All the runs of one shooting take at most CML_SHOOT_MAX_STEPS steps in all, and
 * all its Newton iterations (damped Newton and every continuation step) at most
 * max_iterations; a Newton solve stops as stalled when SHOOT_STALL_WINDOW iterations did
 * not halve its residual, and continuation when SHOOT_CONT_FAILS steps in a row failed.  Then it stops and says how far it got and what to try.  Where
 * the residual stalls with a rank-deficient ∂z_targets(T)/∂p(t0) and points out of its
 * range (the residual cannot be lowered to first order), the targets are off the set the
 * extremals from this start reach at T, and the message says so.
 *
 * Targets at the start point (zero displacement): the extremal at rest, p(t0) = 0, is
 * tried first, and taken when it stays there.
 */
#define G_LOG_DOMAIN "cml-shoot"

#include "cml-shoot-private.h"

#include <glib/gi18n-lib.h>

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-program.h"

CmlShootOptions
cml_shoot_options_default (void)
{
  return (CmlShootOptions) { .max_iterations = CML_SHOOT_MAX_ITERATIONS, .tolerance = 1e-10, .continuation = TRUE, .n_samples = 1000,
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
  cml_program_run (cml_system_runtime (s->sys)->jac_prog, sim->fast, sim->regs_jac, s->jac_out);
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
void
cml_shoot_start_state (Shoot *s, const double *p0, double *Z)
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

/* Advances Z from T to T1 with INTEG in at most CAP steps (0: the budget's rest); the
 * error names the time and the reason. */
gboolean
cml_shoot_advance_capped (Shoot *s, CmlIntegrator *integ, double t, double t1, double *Z,
                          guint64 cap, GError **error)
{
  g_autoptr (GError) err = NULL;
  guint64 used = s->used, before = cml_integrator_n_steps (integ);
  gboolean ok;

  if (used >= s->budget)
    {
      s->exhausted = TRUE;
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "the budget of %llu integrator steps is spent",
                   (unsigned long long) s->budget);
      return FALSE;
    }
  cap = cap ? MIN (cap, s->budget - used) : s->budget - used;
  cml_integrator_set_max_steps (integ, (guint) MIN (cap, G_MAXUINT));
  cml_integrator_reset (integ);
  s->sim->reason[0] = '\0';
  ok = cml_integrator_advance (integ, &t, t1, Z, &err);
  s->used += cml_integrator_n_steps (integ) - before;
  if (ok)
    return TRUE;
  if (s->sim->reason[0])
    g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s at t = %.6g", s->sim->reason, s->sim->reason_t);
  else
    g_propagate_error (error, g_steal_pointer (&err));
  if (s->used >= s->budget)
    s->exhausted = TRUE;
  return FALSE;
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
  guint64 before = s->used;

  cml_shoot_start_state (s, p0, s->Z);
  if (!cml_shoot_advance_capped (s, s->integ, s->t0, s->T, s->Z, s->run_cap, error))
    return FALSE;
  /* the first run is the guess's: the trials' runs are measured against it */
  if (s->run_cap == 0)
    s->run_cap = MAX ((s->used - before) * SHOOT_RUNAWAY, SHOOT_MIN_RUN_STEPS);
  for (guint i = 0; i < s->k; i++)
    {
      s->F[i] = s->Z[s->tidx[i]] - goal[i];
      for (guint j = 0; j < s->n; j++)
        s->A[i * s->n + j] = s->Z[s->dim + j * s->dim + s->tidx[i]];
    }
  *r = norm2 (s->k, s->F);
  return isfinite (*r);
}

/* The minimum-norm least-squares solution of A δ = −F (A k×n) by SVD, with the singular
 * values below RCOND × the largest taken as 0 (their number into *DROPPED); FALSE if
 * A = 0. */
static gboolean
newton_step (guint k, guint n, const double *A, const double *F, double rcond, double *delta,
             guint *dropped)
{
  gboolean wide = k < n;
  guint rows = wide ? n : k, cols = wide ? k : n;
  gsl_matrix *M = gsl_matrix_alloc (rows, cols), *V = gsl_matrix_alloc (cols, cols);
  gsl_vector *S = gsl_vector_alloc (cols), *w = gsl_vector_alloc (cols);
  gboolean ok = TRUE;

  *dropped = 0;
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
          if (sc <= rcond * smax)
            {
              (*dropped)++;
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

/* Whether changes of the momenta hardly lower the residual F where Newton stopped:
 * ‖Aᵀ F‖ ≤ SHOOT_OFF_RANGE ‖A‖ ‖F‖, ‖A‖ the larger of A's norm there and at the guess.  Aᵀ F
 * is the gradient of ‖F‖²/2: the end point is as near the targets as the extremals from
 * here come, either because A is rank-deficient and F points out of its range (integrable
 * constraints), or because A has shrunk (the edge of the reachable set).  The rank of A
 * with its rows scaled by their norms (each target in its own unit; singular values above
 * SHOOT_RANK_TOL × the largest) goes into *RANK. */
static gboolean
off_range (Shoot *s, guint *rank)
{
  guint k = s->k, n = s->n;
  gboolean wide = k < n;
  guint rows = wide ? n : k, cols = wide ? k : n;
  gsl_matrix *M = gsl_matrix_alloc (rows, cols), *V = gsl_matrix_alloc (cols, cols);
  gsl_vector *S = gsl_vector_alloc (cols), *w = gsl_vector_alloc (cols);
  double g2 = 0, a2 = 0;

  /* ‖Aᵀ F‖ against ‖A‖_F ‖F‖ */
  for (guint j = 0; j < n; j++)
    {
      double acc = 0;
      for (guint i = 0; i < k; i++)
        acc += s->A[i * n + j] * s->F[i];
      g2 += acc * acc;
    }
  for (guint i = 0; i < k * n; i++)
    a2 += s->A[i] * s->A[i];
  for (guint i = 0; i < k; i++)
    {
      double rn = norm2 (n, s->A + i * n);
      double sc = rn > 0 ? 1 / rn : 1;
      for (guint j = 0; j < n; j++)
        {
          if (wide)
            gsl_matrix_set (M, j, i, s->A[i * n + j] * sc);
          else
            gsl_matrix_set (M, i, j, s->A[i * n + j] * sc);
        }
    }
  gsl_linalg_SV_decomp (M, V, S, w);
  double smax = gsl_vector_get (S, 0);
  *rank = 0;
  for (guint c = 0; c < cols; c++)
    if (gsl_vector_get (S, c) > SHOOT_RANK_TOL * smax)
      (*rank)++;
  gsl_matrix_free (M);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (w);
  double f = norm2 (k, s->F);
  double a = MAX (sqrt (a2), s->a_ref);
  return f > 0 && a > 0 && sqrt (g2) <= SHOOT_OFF_RANGE * a * f;
}

typedef enum
{
  NEWTON_CONVERGED,
  NEWTON_FAILED,   /* stalled, or could not lower the residual, or a run failed */
  NEWTON_FLAT,     /* the targets do not depend on the momenta at all */
  NEWTON_LIMIT,    /* the shooting's iterations are spent */
} NewtonStatus;

/* Damped Newton from P (updated in place to the last point accepted) for GOAL.  *ITERS
 * counts the iterations of the whole shooting, at most MAX_ITERS; *R is the last residual;
 * *WHY (if not NULL) says why it stopped.  When it stops after a first evaluation, s->F and
 * s->A are those of P, and *OFF (if not NULL) says whether the residual is off the range
 * there (off_range (), its rank into *RANK). */
static NewtonStatus
newton (Shoot *s, const double *goal, double *p, guint max_iters, guint *iters, double *r,
        char **why, gboolean *off, guint *rank)
{
  guint n = s->n;
  g_autofree double *delta = g_new (double, n), *ptry = g_new (double, n);
  g_autofree double *Fsave = g_new (double, s->k), *Asave = g_new (double, s->k * n);
  double hist[SHOOT_STALL_WINDOW];
  g_autoptr (GError) err = NULL;
  NewtonStatus status;

  *r = INFINITY;
  if (off)
    *off = FALSE;
  if (!evaluate (s, p, goal, r, &err))
    {
      if (why)
        *why = g_strdup_printf (_("the extremal from the guess does not reach T = %g: %s"), s->T,
                                err ? err->message : _("a value is not finite"));
      return NEWTON_FAILED;
    }
  if (s->a_ref == 0)
    s->a_ref = norm2 (s->k * n, s->A);
  for (guint it = 0;; it++)
    {
      if (*r <= s->tol)
        return NEWTON_CONVERGED;
      if (*iters >= max_iters)
        {
          if (why)
            *why = g_strdup_printf (_("the residual was still %.3g at T = %g"), *r, s->T);
          status = NEWTON_LIMIT;
          break;
        }
      /* stalled: the last SHOOT_STALL_WINDOW iterations did not halve the residual */
      if (it >= SHOOT_STALL_WINDOW && *r > SHOOT_STALL_FACTOR * hist[it % SHOOT_STALL_WINDOW])
        {
          if (why)
            *why = g_strdup_printf (_("Newton's method stalled at the residual %.3g at T = %g (%u iterations did "
                                      "not halve it)"),
                                    *r, s->T, SHOOT_STALL_WINDOW);
          status = NEWTON_FAILED;
          break;
        }
      hist[it % SHOOT_STALL_WINDOW] = *r;
      guint dropped = 0, dropped_retry = 0;
      if (!newton_step (s->k, n, s->A, s->F, SHOOT_RCOND, delta, &dropped))
        {
          if (why)
            *why = g_strdup_printf (_("the targets do not depend on the initial momenta at T = %g (the sensitivity "
                                      "∂z(T)/∂p(0) is zero; residual %.3g)"),
                                    s->T, *r);
          return NEWTON_FLAT;
        }
      memcpy (Fsave, s->F, s->k * sizeof (double));
      memcpy (Asave, s->A, s->k * n * sizeof (double));
      double lambda = 1, r_try = INFINITY;
      gboolean accepted = FALSE;
      (*iters)++;
      /* backtracking along the Newton direction; when that lowers nothing, along the
       * direction without the nearly singular directions of A (a huge step along them,
       * from integration error, is what fails when A is rank-deficient) */
      for (int pass = 0; pass < 2 && !accepted; pass++)
        {
          if (pass == 1)
            {
              memcpy (s->F, Fsave, s->k * sizeof (double));
              memcpy (s->A, Asave, s->k * n * sizeof (double));
              newton_step (s->k, n, s->A, s->F, SHOOT_RCOND_RETRY, delta, &dropped_retry);
              if (dropped_retry == dropped)
                break; /* the same direction: tried already */
              lambda = 1;
            }
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
        }
      if (!accepted)
        {
          memcpy (s->F, Fsave, s->k * sizeof (double));
          memcpy (s->A, Asave, s->k * n * sizeof (double));
          if (why)
            *why = g_strdup_printf (_("Newton's method could not lower the residual %.3g at T = %g (no step along "
                                      "its direction lowers it: the sensitivity is nearly singular here)"),
                                    *r, s->T);
          status = NEWTON_FAILED;
          break;
        }
      memcpy (p, ptry, n * sizeof (double));
      *r = r_try;
    }
  if (off)
    *off = off_range (s, rank);
  return status;
}

/* ---- the shooting ------------------------------------------------------------------ */

char *
cml_shoot_names_list (CmlSystem *sys, guint from, guint to, guint from2, guint to2)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = from; i < to; i++)
    g_string_append_printf (s, "%s%s", s->len ? ", " : "", cml_system_state_name (sys, i));
  for (guint i = from2; i < to2; i++)
    g_string_append_printf (s, "%s%s", s->len ? ", " : "", cml_system_state_name (sys, i));
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* What a shooting and a sampled extremal share: the checks of SIM's system and of T_END
 * (the errors of cml_shoot () but the targets'), and S set up for them — the integrators,
 * the state at t0 (SIM's) and the Jacobian's scratch; the targets are the caller's.  S is
 * cleared with shoot_end () whatever this returns. */
static gboolean
shoot_begin (Shoot *s, CmlSimulation *sim, double t_end, const CmlShootOptions *opt, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  guint dim = sys->dim, m = sys->m, n = sys->n, nr = dim - m - n;
  double t0 = cml_simulation_get_time (sim);

  if (cml_system_get_formalism (sys) != CML_FORMALISM_VAKONOMIC)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "shooting needs a vakonomic system (extremals of a variational problem with constraints, "
                   "whose state holds the momenta to be found); %s has %s",
                   md->name, cml_formalism_to_string (cml_system_get_formalism (sys)));
      return FALSE;
    }
  if (sys->derived.na != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "shooting needs the exact Jacobian of the equations of %s, which cmlab derives only when the "
                   "W1 relation is linear in the free velocities",
                   md->name);
      return FALSE;
    }
  if (!cml_sim_ensure_jacobian (sim))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "shooting needs the exact Jacobian of the equations of %s, and %s", md->name,
                   cml_system_runtime (sys)->jac_error);
      return FALSE;
    }
  if (!(t_end > t0) || !isfinite (t_end))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "the end time T = %g must be after the start t = %g", t_end, t0);
      return FALSE;
    }
  if (n == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s has no momenta to shoot with", md->name);
      return FALSE;
    }

  *s = (Shoot) { .sim = sim, .sys = sys, .dim = dim, .m = m, .n = n, .nr = nr, .D = dim * (1 + n), .t0 = t0,
                 .T = t_end, .budget = opt->max_steps ? opt->max_steps : CML_SHOOT_MAX_STEPS };
  CmlIntegratorOptions iopt = *cml_simulation_get_integrator (sim);
  /* (auto's choice of taylor becomes rk8pd for the augmented ODE, cml_integrator_new ()) */
  if (iopt.chosen == NULL
      && (iopt.kind == CML_INTEGRATOR_TAYLOR || iopt.kind == CML_INTEGRATOR_VARIATIONAL
          || iopt.kind == CML_INTEGRATOR_VARIATIONAL4))
    {
      g_autoptr (GString) ok_kinds = g_string_new (NULL);
      for (int kd = 0; kd < CML_INTEGRATOR_N_KINDS; kd++)
        if (kd != CML_INTEGRATOR_TAYLOR && kd != CML_INTEGRATOR_VARIATIONAL && kd != CML_INTEGRATOR_VARIATIONAL4)
          g_string_append_printf (ok_kinds, "%s%s", ok_kinds->len ? ", " : "",
                                  cml_integrator_kind_to_string ((CmlIntegratorKind) kd));
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("shooting integrates, beside the extremal, how its end point moves when the initial momenta "
                     "change (the variational equations), and the %s integrator does not carry them; choose one "
                     "of %s"),
                   cml_integrator_kind_to_string (iopt.kind), ok_kinds->str);
      return FALSE;
    }
  iopt.project = FALSE;
  iopt.stats = NULL;
  CmlOde ode = { .dim = s->D, .rhs = aug_rhs, .jacobian = aug_jac, .project = NULL, .user_data = s };
  s->integ = cml_integrator_new (&ode, &iopt, error);
  if (s->integ == NULL)
    return FALSE;
  /* the conjugate times' finer run: half the fixed step, or a sixteenth of the tolerances */
  CmlIntegratorOptions fopt = iopt;
  if (cml_integrator_kind_is_fixed_step (iopt.kind))
    fopt.h_fixed = iopt.h_fixed / SHOOT_FINE_STEP;
  else
    {
      fopt.rtol = MAX (iopt.rtol / SHOOT_FINE_TOL, 1e-15);
      fopt.atol = MAX (iopt.atol / SHOOT_FINE_TOL, 1e-300);
    }
  s->fine = cml_integrator_new (&ode, &fopt, error);
  if (s->fine == NULL)
    return FALSE;

  s->z0 = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  s->J = g_new (double, dim * dim);
  s->dfdt = g_new (double, dim);
  s->jac_out = g_new (double, dim * dim + dim);
  s->Z = g_new (double, s->D);
  return TRUE;
}

static void
shoot_end (Shoot *s)
{
  g_clear_pointer (&s->integ, cml_integrator_free);
  g_clear_pointer (&s->fine, cml_integrator_free);
  g_clear_pointer (&s->z0, g_free);
  g_clear_pointer (&s->J, g_free);
  g_clear_pointer (&s->dfdt, g_free);
  g_clear_pointer (&s->jac_out, g_free);
  g_clear_pointer (&s->Z, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Shoot, shoot_end)

CmlShootResult *
cml_shoot (CmlSimulation *sim, double t_end, guint n_targets, const char *const *target_names,
           const double *target_values, const CmlShootOptions *options, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlShootOptions opt = options ? *options : cml_shoot_options_default ();
  guint dim = sys->dim, m = sys->m, n = sys->n;
  g_auto (Shoot) s = { 0 };

  if (!shoot_begin (&s, sim, t_end, &opt, error))
    return NULL;
  if (n_targets == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "no target given: name base coordinates or reconstruction "
                   "variables and their values at T");
      return NULL;
    }
  s.k = n_targets;
  g_autofree guint *tidx = s.tidx = g_new (guint, n_targets);
  for (guint i = 0; i < n_targets; i++)
    {
      int idx = -1;
      for (guint j = 0; j < dim; j++)
        if (g_str_equal (cml_system_state_name (sys, j), target_names[i]))
          idx = (int) j;
      if (idx < 0 || ((guint) idx >= m && (guint) idx < m + n))
        {
          g_autofree char *allowed = cml_shoot_names_list (sys, 0, m, m + n, dim);
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

  double t0 = s.t0;
  double *z0 = s.z0;
  g_autofree double *F = s.F = g_new (double, n_targets);
  g_autofree double *A = s.A = g_new (double, n_targets * n);
  double tmax = 0;
  for (guint i = 0; i < n_targets; i++)
    tmax = MAX (tmax, fabs (target_values[i]));
  s.tol = opt.tolerance * (1 + tmax);
  guint max_iters = opt.max_iterations ? opt.max_iterations : CML_SHOOT_MAX_ITERATIONS;

  g_autoptr (CmlShootResult) res = g_new0 (CmlShootResult, 1);
  res->n_momenta = n;
  res->momentum_names = g_new0 (char *, n + 1);
  for (guint A_ = 0; A_ < n; A_++)
    res->momentum_names[A_] = g_strdup (cml_system_state_name (sys, m + A_));
  res->momenta = g_memdup2 (z0 + m, n * sizeof (double));
  res->conjugate_times = g_array_new (FALSE, FALSE, sizeof (double));

  double r = INFINITY;
  g_autofree char *why = NULL;
  gboolean ok = FALSE, off = FALSE, at_start = TRUE;
  guint rank = 0;
  NewtonStatus st = NEWTON_FAILED;

  /* targets at the start point: the extremal at rest, when it stays there */
  for (guint i = 0; i < n_targets; i++)
    at_start = at_start && fabs (z0[tidx[i]] - target_values[i]) <= s.tol;
  if (at_start)
    {
      g_autofree double *zero = g_new0 (double, n);
      g_autoptr (GError) err = NULL;
      if (evaluate (&s, zero, target_values, &r, &err) && r <= s.tol)
        {
          ok = TRUE;
          res->at_rest = TRUE;
          memset (res->momenta, 0, n * sizeof (double));
        }
      s.run_cap = 0; /* the trials are measured against the guess's run */
    }

  /* damped Newton from the guess */
  if (!ok)
    {
      st = newton (&s, target_values, res->momenta, max_iters, &res->iterations, &r, &why, &off, &rank);
      ok = st == NEWTON_CONVERGED;
    }
  if (st == NEWTON_FLAT)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, _("the target cannot be reached: %s"), why);
      return NULL;
    }
  /* how far continuation got, for the message: -1 when it did not run */
  double sp = -1;
  if (!ok && opt.continuation && st != NEWTON_LIMIT)
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
          double ds = 0.5, rc = 0;
          guint fails = 0;
          sp = 0;
          while (sp < 1 && ds >= SHOOT_MIN_DS && fails < SHOOT_CONT_FAILS && !s.exhausted
                 && res->iterations < max_iters)
            {
              double stp = MIN (1.0, sp + ds);
              for (guint i = 0; i < n_targets; i++)
                goal[i] = goal0[i] + stp * (target_values[i] - goal0[i]);
              memcpy (ptry, pc, n * sizeof (double));
              if (newton (&s, goal, ptry, max_iters, &res->iterations, &rc, NULL, NULL, NULL) == NEWTON_CONVERGED)
                {
                  memcpy (pc, ptry, n * sizeof (double));
                  sp = stp;
                  res->continuation_steps++;
                  ds = MIN (2 * ds, 1.0);
                  fails = 0;
                }
              else
                {
                  ds /= 2;
                  fails++;
                }
            }
          if (sp >= 1)
            {
              ok = TRUE;
              r = rc;
              res->continuation_used = TRUE;
              memcpy (res->momenta, pc, n * sizeof (double));
            }
        }
    }
  if (!ok)
    {
      g_autoptr (GString) msg = g_string_new (NULL);
      if (s.exhausted)
        g_string_printf (msg, _("no solution within %llu integrator steps (the runs to T = %g from the trial "
                                "momenta, in all)"),
                         (unsigned long long) s.budget, s.T);
      else if (res->iterations >= max_iters)
        g_string_printf (msg, _("no solution within %u Newton iterations (the limit)"), max_iters);
      else if (off)
        g_string_printf (msg, _("the targets are not reachable at T = %g along extremals from this start"), s.T);
      else
        g_string_printf (msg, _("no solution found after %u Newton iterations"), res->iterations);
      if (off)
        {
          /* a closer guess cannot help here: say what is wrong with the targets */
          g_string_append_printf (msg, _(": where Newton's method stopped (residual %.3g, after %u Newton "
                                         "iterations), no change of the initial momenta moves the end point nearer "
                                         "to them"),
                                  r, res->iterations);
          if (rank < n_targets)
            g_string_append_printf (msg, _(" (it can move in only %u of the %u directions of the targets: "
                                           "∂(targets)/∂p(0) has rank %u)"),
                                    rank, n_targets, rank);
          g_string_append (msg, _(".  The targets seem to be off the set of points these extremals reach at T, which "
                                  "a closer guess cannot change: choose targets on that set, another T or another "
                                  "start"));
        }
      else
        {
          g_string_append (msg, ": ");
          g_string_append (msg, why);
          if (sp >= 0)
            g_string_append_printf (msg, _("; continuation in the target, from where the guess goes, got %.0f %% "
                                           "of the way there"),
                                    floor (100 * sp));
          if (res->iterations >= max_iters)
            g_string_append (msg, _("; allow more with --max-iterations, or try a closer guess with --init, "
                                    "nearer targets or a shorter T"));
          else if (s.exhausted)
            g_string_append (msg, _("; the targets are far from where the guess goes, or T is long: try a closer "
                                    "guess with --init, nearer targets or a shorter T"));
          else
            g_string_append (msg, _("; try a closer guess with --init, nearer targets or a shorter T"));
          if (n_targets > n)
            g_string_append_printf (msg, _(" (with more targets, %u, than momenta, %u, the points the extremals from "
                                           "this start reach at T form a set of lower dimension: most targets are "
                                           "off it)"),
                                    n_targets, n);
        }
      g_set_error_literal (error, CML_ERROR, off ? CML_ERROR_UNREACHABLE : CML_ERROR_NUMERIC, msg->str);
      return NULL;
    }
  res->residual = r;

  /* conjugate times along the solved extremal */
  cml_shoot_conjugate_result (&s, res, opt.n_samples, 0, NULL, NULL, NULL);

  /* the simulation starts from the found momenta */
  memcpy (z0 + m, res->momenta, n * sizeof (double));
  cml_simulation_set_state (sim, t0, z0);
  return g_steal_pointer (&res);
}

CmlShootResult *
cml_shoot_extremal (CmlSimulation *sim, double t_end, const CmlShootOptions *options, guint n_at,
                    const double *at, double *states, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlShootOptions opt = options ? *options : cml_shoot_options_default ();
  g_auto (Shoot) s = { 0 };

  g_return_val_if_fail (n_at == 0 || (at != NULL && states != NULL), NULL);
  if (!shoot_begin (&s, sim, t_end, &opt, error))
    return NULL;
  for (guint j = 0; j < n_at; j++)
    if (!(at[j] > s.t0 && at[j] <= t_end) || (j > 0 && !(at[j] > at[j - 1])))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "the times %g … %g must increase within (%g, %g]", at[0],
                     at[n_at - 1], s.t0, t_end);
        return NULL;
      }

  g_autoptr (CmlShootResult) res = g_new0 (CmlShootResult, 1);
  res->n_momenta = s.n;
  res->momentum_names = g_new0 (char *, s.n + 1);
  for (guint A = 0; A < s.n; A++)
    res->momentum_names[A] = g_strdup (cml_system_state_name (sys, s.m + A));
  res->momenta = g_memdup2 (s.z0 + s.m, s.n * sizeof (double));
  res->conjugate_times = g_array_new (FALSE, FALSE, sizeof (double));
  /* all momenta zero: the extremal at rest, which has no conjugate times */
  res->at_rest = TRUE;
  for (guint A = 0; A < s.n; A++)
    res->at_rest = res->at_rest && res->momenta[A] == 0;
  if (!cml_shoot_conjugate_result (&s, res, opt.n_samples, n_at, at, states, error))
    return NULL;
  return g_steal_pointer (&res);
}
