/* cml-simulation.c — one run of a system (CmlSimulation): parameters, state, time,
 * integrator and scratch memory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The right-hand side runs the compiled programs (native code or the interpreter), solves
 * the vakonomic free velocities by Newton's method where they are not symbolic, checks the
 * pivots and, where a pivot chosen at the sample point is small against its matrix, falls
 * back to LU with partial pivoting of the evaluated matrices; the projection keeps the
 * state on the constraint set after every step.  Also: advancing in time, observables,
 * the scene, the regularity matrix and expressions at the current state.  The fallback
 * by LU of the evaluated matrices is in cml-simulation-fallback.c.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-simulation-private.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-dop853-core.h"
#include "cml-pivot-check-core.h"
#include "cml-error.h"
#include "cml-symsolve.h"
#include "cml-taylor.h"
#include "cml-integrator-for-system.h"

/* ---- simulation -------------------------------------------------------------------- */

void
cml_sim_fill_fast (CmlSimulation *sim, double t, const double *z)
{
  const guint dim = sim->sys->dim;

  /* one value at a time, like the programs' own copies: a wide copy would read what was
   * just stored one value at a time, and wait for it */
  sim->fast[0] = t;
  for (guint i = 0; i < dim; i++)
    sim->fast[1 + i] = z[i];
}

/* The constraint functions h and their Jacobian into sim->proj_out. */
void
cml_sim_run_proj (CmlSimulation *sim, double t, const double *z)
{
  CmlSystem *sys = sim->sys;

  if (sim->proj_fn)
    sim->proj_fn (t, z, sim->fast + 1 + sys->dim, sim->regs_proj, sim->proj_out, NULL);
  else
    {
      cml_sim_fill_fast (sim, t, z);
      cml_program_run (sys->proj_prog, sim->fast, sim->regs_proj, sim->proj_out);
    }
}

/* Nonlinear vakonomic systems: Newton's method for the free velocities, warm-started from
 * the last solution stored in the aux part of sim->fast. */
int
cml_sim_solve_aux (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  guint na = sys->derived.na;
  double *aux = sim->fast + 1 + sys->dim;

  for (int it = 0; it < 40; it++)
    {
      double dn = 0, an = 0;
      cml_program_run (sys->newton_prog, sim->fast, sim->regs_newton, sim->newton_out);
      memcpy (sim->work, sim->newton_out + na, na * na * sizeof (double));
      for (guint a = 0; a < na; a++)
        sim->work2[a] = -sim->newton_out[a];
      if (!cml_small_solve (na, sim->work, sim->work2, 1e-14))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the vakonomic regularity matrix R_ab is singular");
          return 1;
        }
      for (guint a = 0; a < na; a++)
        {
          aux[a] += sim->work2[a];
          dn = MAX (dn, fabs (sim->work2[a]));
          an = MAX (an, fabs (aux[a]));
        }
      if (!isfinite (dn))
        break;
      if (dn <= 1e-15 * (1 + an))
        return 0;
    }
  g_snprintf (sim->reason, sizeof sim->reason, "Newton's method for the free velocities did not converge");
  return 1;
}

/* Pivots smaller than this against the largest pivot of the same matrix are not trusted:
 * the symbolic solve divides by them (cml-symsolve.c picks pivots at a sample point). */
#define PIVOT_RATIO_MIN 1e-8

/* What of the pivot check depends on the state.  A pivot that depends on the parameters
 * only (slow) is the same at every evaluation: whether it is 0 or not finite is known once
 * the parameters are (slow_pivot_bad), and so is whether it is tiny against another slow
 * pivot of its matrix (slow_tiny).  Each evaluation looks at the fast pivots, and compares
 * the pivots of the matrices that have a fast one — a pivot is tiny against another of its
 * matrix exactly when it is tiny against the largest of them. */
typedef struct _CmlPivotCheck
{
  guint    n_fast, *fast;  /* the fast pivots */
  guint    n_cmp, *cmp;    /* the pivots of the matrices with a fast pivot, … */
  guint   *head;           /* … for each the position in cmp of its matrix's first one */
  double  *max;            /* scratch: the largest |pivot| of each matrix, at its head */
  gboolean slow_tiny;      /* a slow pivot tiny against another slow one of its matrix */
  CmlDop853Pivots view;    /* the above as cml_dop853_check reads it (cml-pivot-check-core.h) */
} CmlPivotCheck;

static void
pivot_check_free (CmlPivotCheck *pc)
{
  if (pc == NULL)
    return;
  g_free (pc->fast);
  g_free (pc->cmp);
  g_free (pc->head);
  g_free (pc->max);
  g_free (pc);
}

static CmlPivotCheck *
pivot_check_new (CmlSystem *sys)
{
  const guint np = sys->derived.pivots->len;
  CmlPivotCheck *pc = g_new0 (CmlPivotCheck, 1);
  g_autofree gboolean *fast = g_new0 (gboolean, MAX (np, 1));
  g_autofree gboolean *mixed = g_new0 (gboolean, MAX (np, 1)); /* per pivot: its matrix has a fast one */

  for (guint j = 0; j < sys->n_fast_pivots; j++)
    fast[sys->fast_pivots[j]] = TRUE;
  for (guint k = 0; k < np; k++)
    for (guint j = 0; j < np; j++)
      if (fast[j] && sys->derived.pivot_names->pdata[j] == sys->derived.pivot_names->pdata[k])
        mixed[k] = TRUE;
  pc->fast = g_new (guint, MAX (np, 1));
  pc->cmp = g_new (guint, MAX (np, 1));
  pc->head = g_new (guint, MAX (np, 1));
  pc->max = g_new0 (double, MAX (np, 1));
  for (guint k = 0; k < np; k++)
    {
      if (fast[k])
        pc->fast[pc->n_fast++] = k;
      if (!mixed[k])
        continue;
      guint i = pc->n_cmp++;
      pc->cmp[i] = k;
      pc->head[i] = i;
      for (guint h = 0; h < i; h++)
        if (sys->derived.pivot_names->pdata[pc->cmp[h]] == sys->derived.pivot_names->pdata[k])
          {
            pc->head[i] = h;
            break;
          }
    }
  /* a matrix whose pivots are all compared with one another needs at least two */
  gboolean shared = FALSE;
  for (guint i = 0; i < pc->n_cmp; i++)
    shared |= pc->head[i] != i;
  if (!shared)
    pc->n_cmp = 0;
  pc->view.fb = sys->fb_prog != NULL;
  pc->view.d_off = sys->derived.fb_vak_nf ? 0 : sys->m;
  pc->view.nd = sys->derived.fb_vak_nf ? sys->dim : sys->n;
  pc->view.fast = pc->fast;
  pc->view.n_fast = pc->n_fast;
  pc->view.cmp = pc->cmp;
  pc->view.head = pc->head;
  pc->view.n_cmp = pc->n_cmp;
  pc->view.max = pc->max;
  pc->view.ratio_min = PIVOT_RATIO_MIN;
  return pc;
}

/* slow_tiny, from the slow pivots' values at the current parameters (prepare_all) */
static void
pivot_check_prepare (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  CmlPivotCheck *pc = sim->pivot_check;

  pc->slow_tiny = FALSE;
  for (guint a = 0; a < sys->n_slow_pivots; a++)
    for (guint b = 0; b < sys->n_slow_pivots; b++)
      if (sys->derived.pivot_names->pdata[sys->slow_pivots[a]]
            == sys->derived.pivot_names->pdata[sys->slow_pivots[b]]
          && fabs (sim->regs_rhs[sys->slow_pivot_regs[a]])
               < PIVOT_RATIO_MIN * fabs (sim->regs_rhs[sys->slow_pivot_regs[b]]))
        pc->slow_tiny = TRUE;
}

static int
sim_rhs (double t, const double *z, double *dz, void *data)
{
  CmlSimulation *sim = data;
  CmlSystem *sys = sim->sys;
  const double *pivots = sim->rhs_out + sys->dim;

  sim->reason_t = t;

  if (G_UNLIKELY (sim->slow_pivot_bad >= 0) && sys->fb_prog)
    {
      /* a pivot that depends on the parameters only vanishes at these parameters */
      if (sim->rhs_fn)
        sim->rhs_fn (t, z, sim->fast + 1 + sys->dim, sim->regs_rhs, dz, sim->rhs_out + sys->dim);
      else
        {
          cml_sim_fill_fast (sim, t, z);
          cml_program_run (sys->rhs_prog, sim->fast, sim->regs_rhs, sim->rhs_out);
          memcpy (dz, sim->rhs_out, sys->dim * sizeof (double));
        }
      return cml_sim_rhs_fallback (sim, t, z, dz);
    }
  if (G_UNLIKELY (sim->slow_pivot_bad >= 0))
    {
      g_snprintf (sim->reason, sizeof sim->reason, "the matrix %s is singular",
                  (const char *) sys->derived.pivot_names->pdata[sim->slow_pivot_bad]);
      return 1;
    }

  if (sys->derived.na)
    {
      cml_sim_fill_fast (sim, t, z);
      if (cml_sim_solve_aux (sim) != 0)
        return 1;
    }
  if (sim->rhs_fn)
    sim->rhs_fn (t, z, sim->fast + 1 + sys->dim, sim->regs_rhs, dz, sim->rhs_out + sys->dim);
  else
    {
      if (!sys->derived.na)
        cml_sim_fill_fast (sim, t, z);
      cml_program_run (sys->rhs_prog, sim->fast, sim->regs_rhs, sim->rhs_out);
      for (guint i = 0; i < sys->dim; i++)
        dz[i] = sim->rhs_out[i];
    }
  /* A pivot is chosen once, at a sample point; at this state it may be small against the
   * other pivots of its matrix (or 0) although the matrix is not singular.  Then the
   * accelerations come from the evaluated matrices instead (LU, partial pivoting). */
  if (sys->fb_prog)
    return sim->pivot_check->slow_tiny || cml_dop853_check (dz, pivots, &sim->pivot_check->view) == 2
             ? cml_sim_rhs_fallback (sim, t, z, dz)
             : 0;
  if (cml_dop853_check (dz, pivots, &sim->pivot_check->view) == 0)
    return 0;
  /* a fast pivot is 0 or not finite: which one, for the message */
  for (guint j = 0; j < sys->n_fast_pivots; j++)
    {
      guint k = sys->fast_pivots[j];
      if (pivots[k] == 0 || !isfinite (pivots[k]))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the matrix %s is singular",
                      (const char *) sys->derived.pivot_names->pdata[k]);
          break;
        }
    }
  sim->reason_t = t;
  return 1;
}

/* Makes the Jacobian ready for SIM (cml_sys_ensure_jacobian): its registers, prepared with
 * the simulation's parameters, and its native code when the simulation runs native code.
 * FALSE when the system has none. */
gboolean
cml_sim_ensure_jacobian (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  CmlProgram *jac;

  if (sim->regs_jac != NULL)
    return TRUE;
  if ((jac = cml_sys_ensure_jacobian (sys)) == NULL)
    return FALSE;
  sim->regs_jac = g_new0 (double, cml_program_n_registers (jac));
  cml_program_prepare (jac, sim->params, sim->regs_jac);
  g_mutex_lock (&cml_system_runtime (sys)->lock); /* (a background build may be setting it) */
  sim->jac_fn = sim->rhs_fn != NULL ? cml_system_runtime (sys)->jac_fn : NULL;
  g_mutex_unlock (&cml_system_runtime (sys)->lock);
  return TRUE;
}

static int
sim_jac (double t, const double *z, double *dfdz, double *dfdt, void *data)
{
  CmlSimulation *sim = data;
  CmlSystem *sys = sim->sys;
  guint dim = sys->dim;
  if (!cml_sim_ensure_jacobian (sim))
    return 1;
  if (sim->jac_fn)
    {
      sim->jac_fn (t, z, sim->fast + 1 + dim, sim->regs_jac, dfdz, dfdt);
      return 0;
    }
  /* the Jacobian program's outputs are dim² then dim: write into a scratch then split */
  cml_sim_fill_fast (sim, t, z);
  cml_program_run (cml_system_runtime (sys)->jac_prog, sim->fast, sim->regs_jac, sim->work);
  memcpy (dfdz, sim->work, dim * dim * sizeof (double));
  memcpy (dfdt, sim->work + dim * dim, dim * sizeof (double));
  return 0;
}

/* The projection's text around the constraint program as the simulation runs it (native
 * code or the interpreter, cml_sim_run_proj); a system with native code has the same text compiled
 * around its constraint functions (sim->project_fn). */
#define CML_PJ_FN project_library
#define CML_PJ_RUN(T, Z) cml_sim_run_proj (sim, (T), (Z))
#define CML_PJ_EXTRA_PARAMS , CmlSimulation *sim
#include "cml-project-core.h"

/* Moves the components [from, to) of Z (those MASK marks, or all) by the least change
 * that makes the constraint functions vanish (Gauss–Newton, minimum norm), then
 * renormalises quaternions (cml-project-core.h); nonzero with sim->reason when it cannot. */
int
cml_sim_project_range (CmlSimulation *sim, double t, double *z, guint from, guint to,
                       const gboolean *mask)
{
  CmlSystem *sys = sim->sys;
  GArray *q = sys->model->quaternions;
  double resid = 0;
  int r;

  if (sim->project_fn != NULL && mask == NULL && from == sys->derived.movable_from && to == sys->derived.movable_to)
    {
      r = sim->project_fn (t, z, sim->fast + 1 + sys->dim, sim->regs_proj, sim->proj_out, sim->work, sim->work2,
                           &resid);
      sim->n_native_projections++;
    }
  else
    r = project_library (t, z, (int) sys->derived.h->len, (int) sys->dim, (int) from, (int) to, mask,
                         (const unsigned *) q->data, (int) q->len, (int) (sys->m + sys->n), sim->proj_out,
                         sim->work, sim->work2, &resid, sim);
  switch (r)
    {
    case 0:
      return 0;
    case 1:
      g_snprintf (sim->reason, sizeof sim->reason, "the constraint functions are not finite at this state");
      break;
    case 2:
      g_snprintf (sim->reason, sizeof sim->reason, "the constraints cannot be solved for the chosen coordinates");
      break;
    default:
      g_snprintf (sim->reason, sizeof sim->reason,
                  "the state cannot be brought onto the constraint set (residual %.3g)", resid);
      break;
    }
  return 1;
}

static int
sim_project (double t, double *z, void *data)
{
  CmlSimulation *sim = data;
  sim->reason_t = t;
  if (cml_sim_project_range (sim, t, z, sim->sys->derived.movable_from, sim->sys->derived.movable_to, NULL) == 0)
    return 0;
  /* a first-order Lagrangian's constraints are solved for the velocities through the
   * same matrix that fixes the kernel accelerations: name that matrix when it is what
   * failed */
  if (cml_sim_kappa_matrix_conditioning (sim, t, z) < 1e-6)
    g_snprintf (sim->reason, sizeof sim->reason, "the matrix " KAPPA_MATRIX " became singular");
  return 1;
}

/* The pivot check sim_rhs makes, for native code that repeats it (cml-system-native.c);
 * FALSE when at these parameters every evaluation takes the fallback or fails. */
gboolean
cml_sim_pivot_check (CmlSimulation *sim, CmlDop853Pivots *out)
{
  *out = sim->pivot_check->view;
  return sim->slow_pivot_bad < 0 && !(out->fb && sim->pivot_check->slow_tiny);
}

static gboolean
make_integrator (CmlSimulation *sim, GError **error)
{
  CmlSystem *sys = sim->sys;
  if (sim->options.kind == CML_INTEGRATOR_VARIATIONAL || sim->options.kind == CML_INTEGRATOR_VARIATIONAL4)
    {
      /* derived from the system itself, not from its ODE (cml-variational.c) */
      CmlVariational *var = cml_variational_new (sys, &sim->options, sim->params, error);
      if (var == NULL)
        return FALSE;
      g_clear_pointer (&sim->integ, cml_integrator_free);
      g_clear_pointer (&sim->var, cml_variational_free);
      sim->var = var;
      return TRUE;
    }
  /* the exact Jacobian for the methods that use it: the implicit ones, which get it now, on
   * the first such integrator, and the stiffness estimate of the explicit ones, which gets it
   * at its first estimate (after CML_INTEGRATOR_STIFF_EVERY steps: a short run never
   * derives it) */
  gboolean implicit = sim->options.kind == CML_INTEGRATOR_MSBDF || sim->options.kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT;
  gboolean jac = sys->derived.na == 0 && (implicit ? cml_sim_ensure_jacobian (sim) : sim->options.stats != NULL);
  if (sim->options.kind == CML_INTEGRATOR_MSBDF && sys->derived.na == 0 && !jac)
    return cml_sys_fail_model (sys, error, sys->model->lagrangian_line, CML_ERROR_UNSUPPORTED,
                       "msbdf needs the exact Jacobian of the equations, and %s",
                       cml_system_runtime (sys)->jac_error);
  CmlOde ode = {
    .dim = sys->dim,
    .rhs = sim_rhs,
    .jacobian = jac ? sim_jac : NULL,
    .project = (sys->derived.h->len || sys->model->quaternions->len) ? sim_project : NULL,
    .user_data = sim,
  };
  CmlIntegrator *integ;
  if (sim->options.kind == CML_INTEGRATOR_TAYLOR)
    {
      /* from the expressions of the right-hand side (cml-taylor.h); the program of the
       * integrator replaced when it has the order and the native code wanted (a change of
       * the step budget, as the CLI's probe of the span makes, keeps it: compiling it and
       * loading its native code are most of a Taylor integrator's start-up) */
      CmlTaylor *tp = sim->integ ? cml_integrator_get_taylor (sim->integ) : NULL;
      guint order = cml_taylor_order_for_tolerance (sim->options.rtol, sim->options.atol);
      gboolean native = cml_sim_native_possible (sim);
      gboolean reuse = tp != NULL && cml_taylor_order (tp) == order && (native || !cml_taylor_is_native (tp));
      if (!reuse)
        tp = cml_taylor_new_for_system (sys, sim->params, &sim->options, native, error);
      integ = tp ? cml_integrator_new_taylor (&ode, tp, &sim->options, error) : NULL;
      if (integ != NULL && reuse)
        cml_integrator_steal_taylor (sim->integ);
      else if (integ == NULL && tp != NULL && !reuse)
        cml_taylor_free (tp);
    }
  else
    integ = cml_integrator_new (&ode, &sim->options, error);
  if (integ == NULL)
    return FALSE;
  g_clear_pointer (&sim->integ, cml_integrator_free);
  g_clear_pointer (&sim->var, cml_variational_free);
  sim->integ = integ;
  if (sim->options.kind == CML_INTEGRATOR_DOP853 || sim->options.kind == CML_INTEGRATOR_RK8PD
      || sim->options.kind == CML_INTEGRATOR_TAYLOR)
    cml_sim_attach_native_step (sim); /* the whole step in native code, when there is one */
  return TRUE;
}

static void
prepare_all (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  cml_program_prepare (sys->rhs_prog, sim->params, sim->regs_rhs);
  sim->slow_pivot_bad = -1;
  for (guint j = 0; j < sys->n_slow_pivots && sim->slow_pivot_bad < 0; j++)
    {
      double p = sim->regs_rhs[sys->slow_pivot_regs[j]];
      if (p == 0 || !isfinite (p))
        sim->slow_pivot_bad = (int) sys->slow_pivots[j];
    }
  pivot_check_prepare (sim);
  cml_program_prepare (sys->obs_prog, sim->params, sim->regs_obs);
  if (sim->regs_jac)
    cml_program_prepare (cml_system_runtime (sys)->jac_prog, sim->params, sim->regs_jac);
  if (sys->proj_prog)
    cml_program_prepare (sys->proj_prog, sim->params, sim->regs_proj);
  if (sys->reg_prog)
    cml_program_prepare (sys->reg_prog, sim->params, sim->regs_reg);
  if (sys->newton_prog)
    cml_program_prepare (sys->newton_prog, sim->params, sim->regs_newton);
  if (sys->fb_prog)
    cml_program_prepare (sys->fb_prog, sim->params, sim->regs_fb);
  if (sys->fb2_prog)
    cml_program_prepare (sys->fb2_prog, sim->params, sim->regs_fb2);
  cml_program_prepare (sys->scene_prog, sim->params, sim->regs_scene);
  if (sim->var)
    cml_variational_set_params (sim->var, sim->params);
}

CmlSimulation *
cml_simulation_new (CmlSystem *sys, GError **error)
{
  g_autoptr (CmlSimulation) sim = g_new0 (CmlSimulation, 1);
  guint dim = sys->dim, k = sys->derived.h->len;
  guint wsize = MAX (MAX (k * k, sys->derived.na * sys->derived.na), dim * dim + dim) + 16;

  sim->sys = cml_system_ref (sys);
  sim->params = g_new (double, MAX (sys->n_params, 1));
  for (guint i = 0; i < sys->n_params; i++)
    sim->params[i] = ((CmlParam *) sys->model->params->pdata[i])->value;
  sim->z = g_new0 (double, dim);
  sim->fast = g_new0 (double, sys->n_fast);
  sim->regs_rhs = g_new0 (double, cml_program_n_registers (sys->rhs_prog));
  sim->regs_obs = g_new0 (double, cml_program_n_registers (sys->obs_prog));
  if (sys->proj_prog)
    sim->regs_proj = g_new0 (double, cml_program_n_registers (sys->proj_prog));
  if (sys->reg_prog)
    sim->regs_reg = g_new0 (double, cml_program_n_registers (sys->reg_prog));
  if (sys->newton_prog)
    {
      sim->regs_newton = g_new0 (double, cml_program_n_registers (sys->newton_prog));
      sim->newton_out = g_new0 (double, sys->derived.na + sys->derived.na * sys->derived.na);
    }
  sim->regs_scene = g_new0 (double, cml_program_n_registers (sys->scene_prog));
  if (sys->fb_prog)
    {
      guint n = sys->n, fs = sys->derived.fb_s;
      sim->regs_fb = g_new0 (double, cml_program_n_registers (sys->fb_prog));
      sim->fb_out = g_new0 (double, sys->derived.fb->len);
      sim->fb_work = g_new0 (double, sys->derived.fb_sing ? 4 * n * n + 4 * n + 16
                                                          : n * n + n * (1 + fs) + fs * fs + fs + 1);
    }
  if (sys->fb2_prog)
    {
      sim->regs_fb2 = g_new0 (double, cml_program_n_registers (sys->fb2_prog) + 1);
      sim->fast2 = g_new0 (double, sys->n_fast + sys->derived.fb_vak_nf);
    }
  sim->scene_out = g_new0 (double, cml_program_n_outputs (sys->scene_prog));
  sim->rhs_out = g_new0 (double, dim + sys->derived.pivots->len);
  sim->proj_out = g_new0 (double, k + k * dim + 1);
  sim->work = g_new0 (double, wsize);
  sim->work2 = g_new0 (double, MAX (MAX (k, sys->derived.na), dim) + 1);
  sim->report = g_ptr_array_new_with_free_func (g_free);
  sim->options = cml_integrator_options_default ();
  sim->options.kind = CML_INTEGRATOR_RK8PD; /* auto chooses when a caller sets the integrator */
  cml_sys_ensure_native (sys);
  sim->native_gen = cml_native_generation ();
  cml_simulation_set_native (sim, TRUE);
  sim->fused = (CmlProjectFused) { .aux = sim->fast + 1 + dim, .R = sim->regs_proj, .out = sim->proj_out,
                                   .A = sim->work, .b = sim->work2, .z0 = g_new (double, dim) };
  sim->pivot_check = pivot_check_new (sys);
  prepare_all (sim);
  if (!make_integrator (sim, error))
    return NULL;
  /* The model's own initial data are only a starting point: a caller that gives values
   * (the command line, the window) resets again with them, and those may be what makes
   * the data consistent.  So a failure here is kept, not returned: the simulation holds
   * the file's values as they are, and advancing it fails with this error until a reset
   * succeeds. */
  if (!cml_simulation_reset (sim, NULL, &sim->pending))
    {
      CmlModel *md = sys->model;
      g_assert (sim->pending != NULL);
      g_ptr_array_set_size (sim->report, 0);
      memset (sim->z, 0, dim * sizeof (double));
      for (guint i = 0; i + 3 < md->quaternions->len; i += 4)
        sim->z[sys->m + sys->n + g_array_index (md->quaternions, guint, i)] = 1;
      for (guint i = 0; i < dim; i++)
        {
          double *v = g_hash_table_lookup (md->initial, sys->state_names[i]);
          if (v)
            sim->z[i] = *v;
        }
    }
  return g_steal_pointer (&sim);
}

void
cml_simulation_free (CmlSimulation *sim)
{
  if (sim == NULL)
    return;
  g_clear_pointer (&sim->integ, cml_integrator_free);
  g_clear_pointer (&sim->var, cml_variational_free);
  g_free (sim->params);
  g_free (sim->z);
  g_free (sim->fast);
  g_free (sim->regs_rhs);
  g_free (sim->regs_jac);
  g_free (sim->regs_obs);
  g_free (sim->regs_proj);
  g_free (sim->regs_reg);
  g_free (sim->regs_newton);
  g_free (sim->regs_scene);
  g_free (sim->regs_fb);
  g_free (sim->fb_out);
  g_free (sim->fb_work);
  g_free (sim->regs_fb2);
  g_free (sim->fast2);
  g_free (sim->scene_out);
  g_free (sim->rhs_out);
  g_free (sim->proj_out);
  g_free (sim->newton_out);
  g_free (sim->work);
  g_free (sim->work2);
  g_free (sim->fused.z0);
  pivot_check_free (sim->pivot_check);
  g_ptr_array_unref (sim->report);
  g_clear_error (&sim->pending);
  cml_sim_recording_clear (sim);
  cml_system_unref (sim->sys);
  g_free (sim);
}

CmlSystem *cml_simulation_get_system (const CmlSimulation *sim) { return sim->sys; }
double cml_simulation_get_time (const CmlSimulation *sim) { return sim->t; }
const double *cml_simulation_get_state (const CmlSimulation *sim) { return sim->z; }
const GPtrArray *cml_simulation_get_projection_report (const CmlSimulation *sim) { return sim->report; }
const CmlIntegratorOptions *cml_simulation_get_integrator (const CmlSimulation *sim) { return &sim->options; }
guint64 cml_simulation_n_rhs (const CmlSimulation *sim)
{
  return sim->var ? cml_variational_n_rhs (sim->var) : sim->integ ? cml_integrator_n_rhs (sim->integ) : 0;
}

gboolean
cml_simulation_set_param (CmlSimulation *sim, const char *name, double value, GError **error)
{
  CmlModel *md = sim->sys->model;
  int i = cml_model_param_index (md, name);

  if (i < 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("%s has no parameter “%s”"), md->name, name);
      return FALSE;
    }
  if (!cml_model_check_param (md, md->params->pdata[i], value, error))
    return FALSE;
  sim->params[i] = value;
  prepare_all (sim);
  if (sim->integ)
    cml_integrator_reset (sim->integ);
  if (sim->var)
    cml_variational_reset (sim->var);
  return TRUE;
}

double
cml_simulation_get_param (const CmlSimulation *sim, const char *name)
{
  int i = cml_model_param_index (sim->sys->model, name);
  return i < 0 ? NAN : sim->params[i];
}

gboolean
cml_simulation_set_integrator (CmlSimulation *sim, const CmlIntegratorOptions *options,
                               GError **error)
{
  CmlIntegratorOptions old = sim->options;
  sim->options = *options;
  cml_integrator_choose (sim->sys, &sim->options); /* auto: the method for this system */
  if (!make_integrator (sim, error))
    {
      sim->options = old;
      return FALSE;
    }
  return TRUE;
}

int
cml_sim_state_index (CmlSystem *sys, const char *name)
{
  for (guint i = 0; i < sys->dim; i++)
    if (g_str_equal (sys->state_names[i], name))
      return i;
  return -1;
}

/* Checks that the regularity matrix is invertible at the current state. */
gboolean
cml_sim_check_regular (CmlSimulation *sim, GError **error)
{
  CmlSystem *sys = sim->sys;
  guint r = sys->derived.reg_rows;
  if (sys->reg_prog == NULL || r == 0)
    return TRUE;
  cml_sim_fill_fast (sim, sim->t, sim->z);
  g_autofree double *M = g_new (double, r * r + r);
  cml_program_run (sys->reg_prog, sim->fast, sim->regs_reg, M);
  for (guint a = 0; a < r; a++)
    M[r * r + a] = 1;
  gboolean finite = TRUE;
  for (guint a = 0; a < r * r; a++)
    finite &= isfinite (M[a]);
  int line = sys->formalism == CML_FORMALISM_EULER_LAGRANGE || sys->formalism == CML_FORMALISM_SINGULAR
               ? sys->model->lagrangian_line
               : sys->model->constraints_line;
  if (!finite || !cml_small_solve (r, M, M + r * r, 1e-12))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR, "%s:%d: the regularity matrix %s is singular at the initial state",
                   sys->model->path, MAX (line, 1), sys->derived.reg_name);
      return FALSE;
    }
  /* every pivot of the derived equations (the kernel accelerations' too) */
  g_autofree double *dz = g_new (double, sys->dim);
  if (sim_rhs (sim->t, sim->z, dz, sim) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR, "%s:%d: %s at the initial state", sys->model->path,
                   MAX (line, 1), sim->reason);
      return FALSE;
    }
  return TRUE;
}

/* After a failed step: if the regularity matrix is nearly singular at the last good state
 * (the accelerations blow up as it becomes singular, and the step size collapses before
 * a pivot is exactly 0), a sentence that says so; else NULL. */
static char *
regularity_lost (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  guint r = sys->derived.reg_rows;
  char *msg = NULL;
  double kc;

  /* a singular Lagrangian: the matrix that fixes the kernel accelerations too */
  if ((kc = cml_sim_kappa_matrix_conditioning (sim, sim->t, sim->z)) < 1e-6)
    return g_strdup_printf ("the matrix " KAPPA_MATRIX " became singular at t = %.17g (its smallest singular value "
                            "is %.3g of the largest there)", sim->t, kc);
  if (sys->reg_prog == NULL || r == 0)
    return NULL;
  g_autofree double *M = g_new (double, r * r);
  if (sys->derived.na)
    {
      cml_sim_fill_fast (sim, sim->t, sim->z);
      cml_sim_solve_aux (sim);
    }
  else
    cml_sim_fill_fast (sim, sim->t, sim->z);
  cml_program_run (sys->reg_prog, sim->fast, sim->regs_reg, M);
  gsl_matrix *A = gsl_matrix_alloc (r, r), *V = gsl_matrix_alloc (r, r);
  gsl_vector *S = gsl_vector_alloc (r), *wk = gsl_vector_alloc (r);
  gboolean finite = TRUE;
  for (guint a = 0; a < r * r; a++)
    {
      finite &= isfinite (M[a]);
      gsl_matrix_set (A, a / r, a % r, isfinite (M[a]) ? M[a] : 0);
    }
  if (finite)
    {
      gsl_linalg_SV_decomp (A, V, S, wk);
      double smax = gsl_vector_get (S, 0), smin = gsl_vector_get (S, r - 1);
      if (!(smin > 1e-6 * smax))
        msg = g_strdup_printf ("the regularity matrix %s became singular at t = %.17g (its smallest singular "
                               "value is %.3g of the largest there)",
                               sys->derived.reg_name, sim->t, smax > 0 ? smin / smax : 0.0);
    }
  gsl_matrix_free (A);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (wk);
  return msg;
}

gboolean
cml_simulation_advance (CmlSimulation *sim, double t1, GError **error)
{
  g_autoptr (GError) err = NULL;
  /* a recorded motion: its state at T1, nothing integrated */
  if (sim->recording)
    return cml_sim_recorded_advance (sim, t1, error);
  if (sim->pending)
    {
      g_propagate_error (error, g_error_copy (sim->pending));
      return FALSE;
    }
  sim->reason[0] = '\0';
  cml_sim_sync_native (sim); /* native code built since the last call takes over here */
  if (sim->var)
    return cml_variational_advance (sim->var, &sim->t, t1, sim->z, error);
  /* the integrator's step budget (options.max_steps, 10⁸ steps by default) bounds every
   * call: a span far too long for the steps fails with the integrator's own words */
  if (!cml_integrator_advance (sim->integ, &sim->t, t1, sim->z, &err))
    {
      g_autofree char *singular = NULL;
      if (cml_integrator_error_is_budget (err))
        g_propagate_error (error, g_steal_pointer (&err));
      else if (sim->reason[0])
        {
          /* the reason names the time of the evaluation that failed */
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "%s at t = %.17g (the last step accepted ended at t = %.17g)", sim->reason,
                       sim->reason_t, sim->t);
        }
      else if ((singular = regularity_lost (sim)) != NULL)
        {
          /* not "step size underflow": the motion does not run away, its equations end */
          g_debug ("%s", err->message);
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s: the accelerations are not determined there",
                       singular);
        }
      else
        g_propagate_error (error, g_steal_pointer (&err));
      return FALSE;
    }
  return TRUE;
}

void
cml_simulation_set_state (CmlSimulation *sim, double t, const double *z)
{
  sim->t = t;
  memcpy (sim->z, z, sim->sys->dim * sizeof (double));
  g_clear_error (&sim->pending);
  if (sim->integ)
    cml_integrator_reset (sim->integ);
  if (sim->var)
    cml_variational_reset (sim->var);
}

guint
cml_simulation_step_state_size (const CmlSimulation *sim)
{
  if (sim->var)
    return cml_variational_step_state_size (sim->var);
  return cml_integrator_step_state_size (sim->integ);
}

gboolean
cml_simulation_step_state_is_exact (const CmlSimulation *sim)
{
  if (sim->var)
    return TRUE;
  return cml_integrator_step_state_is_exact (sim->integ);
}

void
cml_simulation_save_step_state (const CmlSimulation *sim, double *out)
{
  if (sim->var)
    cml_variational_save_step_state (sim->var, sim->t, sim->z, out);
  else
    cml_integrator_save_step_state (sim->integ, sim->z, out);
}

void
cml_simulation_restore (CmlSimulation *sim, double t, const double *z, const double *step_state)
{
  cml_simulation_set_state (sim, t, z);
  if (sim->var)
    cml_variational_restore_step_state (sim->var, sim->t, sim->z, step_state);
  else
    cml_integrator_restore_step_state (sim->integ, sim->z, step_state);
}

void
cml_simulation_observe (CmlSimulation *sim, double *out)
{
  cml_sim_fill_fast (sim, sim->t, sim->z);
  if (sim->sys->derived.na)
    cml_sim_solve_aux (sim);
  if (sim->obs_fn)
    sim->obs_fn (sim->t, sim->z, sim->fast + 1 + sim->sys->dim, sim->regs_obs, out, NULL);
  else
    cml_program_run (sim->sys->obs_prog, sim->fast, sim->regs_obs, out);
  /* a recorded motion: the values recorded (made with parameters this run may lack) */
  if (sim->recording)
    cml_sim_recorded_observe (sim, out);
}

gboolean
cml_simulation_eval_rhs (CmlSimulation *sim, double *dzdt, GError **error)
{
  if (sim_rhs (sim->t, sim->z, dzdt, sim) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s at t = %g", sim->reason, sim->t);
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_simulation_eval_rhs_at (CmlSimulation *sim, double t, const double *z, double *dzdt,
                            GError **error)
{
  if (sim_rhs (t, z, dzdt, sim) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s at t = %g", sim->reason, t);
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_simulation_eval_jacobian_at (CmlSimulation *sim, double t, const double *z, double *dfdz, double *dfdt,
                                 GError **error)
{
  g_return_val_if_fail (sim != NULL && z != NULL && dfdz != NULL && dfdt != NULL, FALSE);
  /* the velocities Newton's method solves for are not in the Jacobian's program */
  if (sim->sys->derived.na > 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "%s has velocities solved by Newton's method at every evaluation: its exact Jacobian "
                   "is not derived", sim->sys->model->name);
      return FALSE;
    }
  if (!cml_sim_ensure_jacobian (sim))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED, "%s has no exact Jacobian: %s", sim->sys->model->name,
                   cml_system_runtime (sim->sys)->jac_error ? cml_system_runtime (sim->sys)->jac_error
                                                            : "it could not be derived");
      return FALSE;
    }
  return sim_jac (t, z, dfdz, dfdt, sim) == 0;
}

guint
cml_system_n_free_velocities (const CmlSystem *sys)
{
  g_return_val_if_fail (sys != NULL, 0);
  return sys->derived.na;
}

const char *
cml_system_free_velocity_name (const CmlSystem *sys, guint a)
{
  g_return_val_if_fail (sys != NULL && a < sys->derived.na, NULL);
  return cml_expr_ctx_symbol_name (sys->ctx, sys->derived.aux_sym[a]);
}

void
cml_simulation_get_free_velocities (const CmlSimulation *sim, double *out)
{
  /* the fast inputs are t, the state, then the free velocities (system_set_fast_inputs) */
  g_return_if_fail (sim != NULL);
  memcpy (out, sim->fast + 1 + sim->sys->dim, sim->sys->derived.na * sizeof (double));
}

double
cml_simulation_residual (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  double s = 0;
  if (sys->derived.h->len == 0)
    return 0;
  cml_sim_run_proj (sim, sim->t, sim->z);
  for (guint a = 0; a < sys->derived.h->len; a++)
    s += sim->proj_out[a] * sim->proj_out[a];
  return sqrt (s);
}

gboolean
cml_simulation_project (CmlSimulation *sim, double t, double *z, GError **error)
{
  if (sim_project (t, z, sim) == 0)
    return TRUE;
  g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s at t = %.17g", sim->reason, t);
  return FALSE;
}

guint
cml_simulation_regularity_matrix (CmlSimulation *sim, double *out, guint max_entries)
{
  CmlSystem *sys = sim->sys;
  guint r = sys->derived.reg_rows;
  if (sys->reg_prog == NULL || r * r > max_entries)
    return 0;
  cml_sim_fill_fast (sim, sim->t, sim->z);
  cml_program_run (sys->reg_prog, sim->fast, sim->regs_reg, out);
  return r;
}

double
cml_simulation_eval_expr (CmlSimulation *sim, CmlExpr *f)
{
  CmlSystem *sys = sim->sys;
  guint ns = cml_expr_ctx_n_symbols (sys->ctx);
  g_autofree double *vals = g_new0 (double, ns);
  CmlExpr *e = cml_sys_user_expr (sys, f);

  for (guint k = 0; k < sys->n_params; k++)
    vals[sys->param_sym[k]] = sim->params[k];
  vals[sys->model->t_sym] = sim->t;
  for (guint i = 0; i < sys->dim; i++)
    vals[sys->state_sym[i]] = sim->z[i];
  if (sys->derived.na)
    {
      cml_sim_fill_fast (sim, sim->t, sim->z);
      cml_sim_solve_aux (sim);
      for (guint a = 0; a < sys->derived.na; a++)
        vals[sys->derived.aux_sym[a]] = sim->fast[1 + sys->dim + a];
    }
  return cml_expr_eval (e, vals);
}

guint
cml_system_n_scene_values (const CmlSystem *sys)
{
  return sys->n_scene;
}

int
cml_system_scene_offset (const CmlSystem *sys, guint object, const char *key)
{
  g_autofree char *k = g_strdup_printf ("%u\n%s", object, key);
  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (sys->scene_offsets, k)) - 1;
}

void
cml_simulation_eval_scene (CmlSimulation *sim, double *out)
{
  CmlSystem *sys = sim->sys;
  cml_sim_fill_fast (sim, sim->t, sim->z);
  if (sys->derived.na)
    cml_sim_solve_aux (sim);
  cml_program_run (sys->scene_prog, sim->fast, sim->regs_scene, sim->scene_out);
  memcpy (out, sim->scene_out, sys->n_scene * sizeof (double));
}
