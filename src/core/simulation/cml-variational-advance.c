/* cml-variational-advance.c — how a variational integrator goes from one output time to
 * the next, whatever its algebroid: the momenta carried from step to step, the equal steps
 * to exactly the end time, the triple jump of variational4, going back to the last good
 * state on failure, the step state and the counters.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.  The momenta p are carried from step to step (the step state), so the
 * shown velocity never feeds back into the step map; a state changed from outside starts
 * from p = L_y at it.  Output at exact times as the implicit midpoint rule: N = ceil
 * (|T1 − t|/h − 1e-9) equal steps of (T1 − t)/N, backwards too.  variational4 composes
 * three steps of h γ₁, h γ₂, h γ₁, γ₁ = 1/(2 − 2^{1/3}), γ₂ = 1 − 2γ₁ (Yoshida 1990):
 * symmetric, fourth order.  Cost: every evaluation of the compiled derivatives counts as
 * its instructions over those of the system's right-hand side.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-private.h"

#include "cml-error.h"
#include "cml-system-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

/* Fills CORE for SYS with its compiled derivatives PROG and NR reconstruction variables. */
void
cml_var_core_init (CmlVarCore *core, CmlSystem *sys, CmlProgram *prog,
                   const CmlIntegratorOptions *options, guint nr)
{
  CmlModel *md = sys->model;
  guint m = md->m, n = md->n;
  guint s = sys->formalism == CML_FORMALISM_NONHOLONOMIC ? md->constraints->len : 0;
  guint k = n + s;

  core->sys = cml_system_ref (sys);
  core->prog = prog;
  cml_var_layout_init (&core->L, m, n, s, nr, md->forces ? n : 0);
  core->dim = m + n + nr;
  core->options = *options;
  core->regs = g_new0 (double, cml_program_n_registers (prog) + 1);
  core->fast = g_new0 (double, 1 + core->dim);
  core->out = g_new0 (double, core->L.total + 1);
  guint rhs_cost = sys->rhs_prog ? cml_program_n_fast_instructions (sys->rhs_prog) : 0;
  core->cost_per_eval
    = (double) MAX (cml_program_n_fast_instructions (prog), 1) / MAX (rhs_cost, 1);
  core->p = g_new0 (double, n);
  core->z_last = g_new0 (double, core->dim);
  core->rhs = g_new0 (double, k + m + nr + 1);
  core->vnu = g_new0 (double, s + 1);
  core->pp = g_new0 (double, n);
  core->z_good = g_new0 (double, core->dim);
  core->J = gsl_matrix_alloc (k, k);
  core->perm = gsl_permutation_alloc (k);
  core->dr = g_new0 (double, nr + 1);
  core->rm = g_new0 (double, nr + 1);
  core->Jr = gsl_matrix_alloc (MAX (nr, 1), MAX (nr, 1));
  core->permr = gsl_permutation_alloc (MAX (nr, 1));
}

void
cml_var_core_clear (CmlVarCore *core)
{
  g_clear_pointer (&core->regs, g_free);
  g_clear_pointer (&core->fast, g_free);
  g_clear_pointer (&core->out, g_free);
  g_clear_pointer (&core->p, g_free);
  g_clear_pointer (&core->z_last, g_free);
  g_clear_pointer (&core->rhs, g_free);
  g_clear_pointer (&core->vnu, g_free);
  g_clear_pointer (&core->pp, g_free);
  g_clear_pointer (&core->z_good, g_free);
  g_clear_pointer (&core->J, gsl_matrix_free);
  g_clear_pointer (&core->perm, gsl_permutation_free);
  g_clear_pointer (&core->dr, g_free);
  g_clear_pointer (&core->rm, g_free);
  g_clear_pointer (&core->Jr, gsl_matrix_free);
  g_clear_pointer (&core->permr, gsl_permutation_free);
  g_clear_pointer (&core->sys, cml_system_unref);
}

void
cml_var_core_set_params (CmlVarCore *core, const double *params)
{
  cml_program_prepare (core->prog, params, core->regs);
  core->p_valid = FALSE;
}

/* The sizes of the discrete steps of one step of the method of size H into HS (three
 * entries); returns how many: one (variational) or three (variational4's triple jump). */
guint
cml_var_substeps (const CmlVarCore *core, double h, double *hs)
{
  static const double g1 = 1.3512071919596576340476878089715; /* 1/(2 − 2^{1/3}) */
  const double gam[3] = { g1, 1.0 - 2.0 * g1, g1 };
  const gboolean four = core->options.kind == CML_INTEGRATOR_VARIATIONAL4;
  guint n_sub = four ? 3 : 1;
  for (guint j = 0; j < n_sub; j++)
    hs[j] = four ? gam[j] * h : h;
  return n_sub;
}

/* The momenta for the state (T, Z): the carried ones when Z is what the last step returned,
 * else L_y at Z. */
void
cml_var_ensure_momentum (CmlVarCore *core, double t, const double *z)
{
  guint m = core->L.m, n = core->L.n;
  if (core->p_valid && t == core->t_last
      && memcmp (z, core->z_last, core->dim * sizeof (double)) == 0)
    return;
  cml_var_eval (core, t, z, z + m, z + m + n);
  memcpy (core->p, core->out + core->L.Lv, n * sizeof (double));
  memcpy (core->z_last, z, core->dim * sizeof (double));
  core->t_last = t;
  core->p_valid = TRUE;
}

void
cml_var_momentum (CmlVarCore *core, double t, const double *z, double *p)
{
  cml_var_ensure_momentum (core, t, z);
  memcpy (p, core->p, core->L.n * sizeof (double));
}

/* Advances Z from *T to exactly T1 by equal steps of the method F->step (called with
 * SELF), each checked for a finite state: the loop every variational integrator shares.
 * N = ceil (|T1 − t|/h − 1e-9) equal steps of (T1 − t)/N (O->h_fixed = h), at most
 * O->max_steps of them; Z_GOOD (DIM) keeps the state before each step.  On failure Z is
 * that state again, F->restore gives back the rest of it, and *T is its time.  REC (or
 * NULL) is kept up to date: the steps taken, the state and time each ends at, its warm
 * start valid after a good step and not after a failed one. */
gboolean
cml_var_fixed_steps (const CmlVarStepper *f, gpointer self, CmlVarRecord *rec,
                     const CmlIntegratorOptions *o, guint dim, double *z_good, double *t, double t1,
                     double *z, GError **error)
{
  const double t0 = *t;
  gboolean ok = TRUE;

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (t1 == *t)
    return TRUE;
  for (guint i = 0; i < dim; i++)
    if (!isfinite (z[i]))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                     _("non-finite state at t = %.6g (before the first step)"), *t);
        return FALSE;
      }

  double n_real = ceil (fabs (t1 - t0) / o->h_fixed - 1e-9);
  guint64 nsteps = n_real < 1.0 ? 1 : n_real < 1e15 ? (guint64) n_real : G_MAXUINT64;
  double h = nsteps == G_MAXUINT64 ? (t1 > t0 ? o->h_fixed : -o->h_fixed)
                                   : (t1 - t0) / (double) nsteps;

  if (f->start)
    f->start (self, *t, z);
  for (guint64 k = 0; k < nsteps; k++)
    {
      const double t_good = *t;
      if (o->max_steps > 0 && k >= o->max_steps)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       _("the integrator took %.0f steps between t = %.6g and t = %.6g without "
                         "reaching t = %.6g: its steps (%.3g now) are far too short for the span; "
                         "a shorter span or a longer step may reach it"),
                       (double) k, t0, *t, t1, h);
          ok = FALSE;
          break;
        }
      memcpy (z_good, z, dim * sizeof (double));
      if (f->save)
        f->save (self);
      gboolean step_ok = f->step (self, t_good, h, z, error);
      for (guint i = 0; step_ok && i < dim; i++)
        if (!isfinite (z[i]))
          {
            g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, _("non-finite state at t = %.6g"),
                         t_good);
            step_ok = FALSE;
          }
      if (!step_ok)
        {
          /* back to the last good state */
          memcpy (z, z_good, dim * sizeof (double));
          if (f->restore)
            f->restore (self);
          if (rec)
            rec->warm = FALSE;
          ok = FALSE;
          break;
        }
      *t = k + 1 == nsteps ? t1 : t0 + (double) (k + 1) * h;
      if (rec)
        {
          rec->n_steps++;
          memcpy (rec->z_last, z, dim * sizeof (double));
          rec->t_last = *t;
          rec->warm = TRUE;
        }
      if (f->done)
        f->done (self, *t, z);
    }
  if (o->stats)
    f->stats (self, o->stats);
  return ok;
}

/* The hooks of the methods on a CmlVarCore: the momenta at the start, kept before each
 * step and given back after a failed one; the counters. */
typedef struct
{
  CmlVarCore      *core;
  CmlVarMethodStep step;
  gpointer         self;
} CoreStepper;

static gboolean
core_step (gpointer data, double t0, double h, double *z, GError **error)
{
  CoreStepper *c = data;
  return c->step (c->self, t0, h, z, error);
}

static void
core_start (gpointer data, double t, const double *z)
{
  CoreStepper *c = data;
  cml_var_ensure_momentum (c->core, t, z);
}

static void
core_save (gpointer data)
{
  CmlVarCore *core = ((CoreStepper *) data)->core;
  memcpy (core->pp, core->p, core->L.n * sizeof (double));
}

static void
core_restore (gpointer data)
{
  CmlVarCore *core = ((CoreStepper *) data)->core;
  memcpy (core->p, core->pp, core->L.n * sizeof (double));
}

static void
core_done (gpointer data, double t, const double *z)
{
  CmlVarCore *core = ((CoreStepper *) data)->core;
  core->n_steps++;
  memcpy (core->z_last, z, core->dim * sizeof (double));
  core->t_last = t;
}

static void
core_stats (gpointer data, CmlIntegratorStats *stats)
{
  cml_var_get_stats (((CoreStepper *) data)->core, stats);
}

/* Advances Z from *T to exactly T1 by equal steps of STEP (called with SELF), each
 * checked for a finite state; on failure Z and the momenta are those of the last good
 * step and *T its time. */
gboolean
cml_var_advance (CmlVarCore *core, double *t, double t1, double *z, CmlVarMethodStep step,
                 gpointer self, GError **error)
{
  static const CmlVarStepper f = { core_step, core_start, core_save, core_restore, core_done, core_stats };
  CoreStepper c = { core, step, self };

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  core->midpoint_residual = 0;
  return cml_var_fixed_steps (&f, &c, NULL, &core->options, core->dim, core->z_good, t, t1, z, error);
}

guint
cml_var_step_state_size (const CmlVarCore *core)
{
  return 1 + core->L.n;
}

void
cml_var_save_step_state (const CmlVarCore *core, double t, const double *z, double *out)
{
  guint n = core->L.n;
  gboolean valid = core->p_valid && t == core->t_last
                   && memcmp (z, core->z_last, core->dim * sizeof (double)) == 0;
  out[0] = valid ? 1.0 : 0.0;
  if (valid)
    memcpy (out + 1, core->p, n * sizeof (double));
  else
    memset (out + 1, 0, n * sizeof (double));
}

void
cml_var_restore_step_state (CmlVarCore *core, double t, const double *z, const double *in)
{
  guint n = core->L.n;
  core->p_valid = in[0] != 0.0;
  if (core->p_valid)
    {
      memcpy (core->p, in + 1, n * sizeof (double));
      memcpy (core->z_last, z, core->dim * sizeof (double));
      core->t_last = t;
    }
}

guint64
cml_var_n_rhs (const CmlVarCore *core)
{
  return (guint64) ceil (core->cost);
}

void
cml_var_get_stats (const CmlVarCore *core, CmlIntegratorStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->n_steps = core->n_steps;
  stats->n_rhs = cml_var_n_rhs (core);
  stats->h = core->options.h_fixed;
}
