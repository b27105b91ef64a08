/* cml-simulation-private.h — what the files of a run share: the simulation's structure,
 * and the pieces of the simulation used across files (the projection, the native code a
 * run takes, what runs derive from a system on first use).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not installed: the public interface is cml-simulation.h.
 */
#pragma once

#include <glib.h>
#include <math.h>

#include "cml-native.h"
#include "cml-project-core.h"
#include "cml-simulation.h"
#include "cml-system-private.h"
#include "cml-system-runtime.h"
#include "cml-variational.h"

G_BEGIN_DECLS

struct _CmlSimulation
{
  CmlSystem   *sys;
  double      *params;
  double       t;
  double      *z;
  double      *fast;
  double      *regs_rhs, *regs_jac, *regs_obs, *regs_proj, *regs_reg, *regs_newton, *regs_scene, *regs_fb;
  double      *fb_out, *fb_work;  /* the fallback's outputs and its dense solves */
  double      *regs_fb2, *fast2;  /* vakonomic fallback: registers, and t, state, free velocities */
  double      *scene_out;
  double      *rhs_out;
  double      *proj_out;
  double      *newton_out;
  double      *work;       /* small dense solves */
  double      *work2;
  CmlNativeFunc rhs_fn, jac_fn, proj_fn, obs_fn; /* NULL: the interpreter */
  CmlNativeProjectFunc project_fn;        /* NULL: the projection's library text */
  gboolean     native_off;  /* cml_simulation_set_native (FALSE): the interpreter only */
  guint        native_gen;  /* cml_native_generation () when it last looked for native code */
  gboolean     native_stale; /* look again at the next step boundary all the same */
  guint64      n_native_projections;
  CmlProjectFused fused;   /* the projection fused into native steps (cml-system-native.c) */
  int          slow_pivot_bad;  /* a parameter-only pivot that is 0 or not finite, or -1 */
  struct _CmlPivotCheck *pivot_check; /* the pivots each evaluation must look at (cml-simulation.c) */
  CmlIntegrator *integ;
  CmlVariational *var;     /* instead of integ for the variational integrators (cml-variational.c) */
  CmlIntegratorOptions options;
  GPtrArray   *report;
  GError      *pending;    /* the model's own initial data failed (see cml_simulation_new) */
  char         reason[256];
  double       reason_t;   /* the time of the evaluation that failed */
  struct _CmlRecording *recording; /* played instead of integrating (cml-recording.c), or NULL */
  int         *rec_state_col;      /* dim: each state variable's column in it */
  int         *rec_obs_col;        /* each observable's column in it, or -1 */
};

/* cml-system-prepare.c: the exact Jacobian, derived and compiled on first use */
CmlProgram *cml_sys_ensure_jacobian (CmlSystem *sys);

/* cml-system-native.c */
void cml_sys_ensure_native (CmlSystem *sys);
void cml_sys_native_jacobian (CmlSystem *sys);
void cml_sim_attach_native_step (CmlSimulation *sim);
/* At a step boundary: the native code built since SIM last looked, taken (cheap when
 * none was: one atomic read). */
void cml_sim_sync_native (CmlSimulation *sim);
/* Whether SIM may run native code: not turned off, and the system has it or is having it
 * built. */
gboolean cml_sim_native_possible (CmlSimulation *sim);
/* cml-simulation.c: the pivot check of its right-hand side, for the native step */
typedef struct CmlDop853Pivots CmlDop853Pivots;
gboolean cml_sim_pivot_check (CmlSimulation *sim, CmlDop853Pivots *out);

/* cml-simulation-fallback.c: the accelerations from the evaluated matrices by LU (0, or 1
 * with sim->reason set), and the conditioning of a singular system's kernel accelerations */
int    cml_sim_rhs_fallback (CmlSimulation *sim, double t, const double *z, double *dz);
double cml_sim_kappa_matrix_conditioning (CmlSimulation *sim, double t, const double *z);

/* cml-simulation.c */
void cml_sim_fill_fast (CmlSimulation *sim, double t, const double *z);
void cml_sim_run_proj (CmlSimulation *sim, double t, const double *z);
int cml_sim_solve_aux (CmlSimulation *sim);
int cml_sim_project_range (CmlSimulation *sim, double t, double *z, guint from, guint to,
                           const gboolean *mask);
gboolean cml_sim_ensure_jacobian (CmlSimulation *sim);

/* cml-recording.c: a simulation playing a recorded motion (sim->recording set): its
 * state at T0 (a reset), at T1 (an advance: FALSE outside the rows), the recorded
 * observables written over those computed into OUT, and the recording let go */
void cml_sim_recorded_reset (CmlSimulation *sim, double t0);
gboolean cml_sim_recorded_advance (CmlSimulation *sim, double t1, GError **error);
void cml_sim_recorded_observe (CmlSimulation *sim, double *out);
void cml_sim_recording_clear (CmlSimulation *sim);

/* cml-initial.c: a vakonomic system's relations for its initial data, derived once */
void cml_sys_prepare_initial (CmlSystem *sys);

/* cml-variational.c: the variational integrators' program, when the system supports them */
void cml_variational_prepare (CmlSystem *sys);
int cml_sim_state_index (CmlSystem *sys, const char *name);
gboolean cml_sim_check_regular (CmlSimulation *sim, GError **error);

G_END_DECLS
