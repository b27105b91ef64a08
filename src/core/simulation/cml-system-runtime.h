/* cml-system-runtime.h — what a system's simulations build from it on first use and keep
 * for the next ones: the exact Jacobian as a program, native code (the system's, the
 * Jacobian's, the whole DOP853 and rk8pd steps, the Taylor programs') and the background
 * jobs building it, the variational programs, the Taylor method's verdict on the
 * right-hand side, and a vakonomic system's initial-data relations.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not installed.  The system holds it without looking inside (cml_sys_runtime in
 * cml-system-private.h): it is made on the first cml_system_runtime () and freed with the
 * system.  What the formalisms derived stays in the system; this is the simulation
 * layer's.
 */
#pragma once

#include <glib.h>

#include "cml-native.h"
#include "cml-program.h"
#include "cml-system.h"

G_BEGIN_DECLS

typedef struct
{
  /* taken to build any of what follows, and to add to the system's expression context
   * while its simulations run (several threads may run simulations of one system) */
  GMutex        lock;
  /* the exact Jacobian, derived and compiled on first use (cml_sys_ensure_jacobian), with
   * its native code, under the lock; read without it once jac_tried is set */
  gint          jac_tried;
  CmlProgram   *jac_prog;
  CmlNative    *jac_native;
  char         *jac_error;   /* why the Jacobian has no native code, or NULL */
  /* native code of the hot programs, built on first use (cml-system-native.c) */
  gboolean      native_tried;
  CmlNative    *native;
  char         *native_error;
  /* objects being compiled in the background (cml-native-queue.c), taken by
   * system_adopt_native under the lock when done: the system's, the Jacobian's, the
   * DOP853 and rk8pd steps', and the Taylor programs' (TaylorJob, one per order) */
  CmlNativeJob *native_job, *jac_job, *step_job, *rk8pd_job;
  GPtrArray    *taylor_jobs;
  /* the whole DOP853 step as native code, built on first use (cml-system-native.c) */
  gboolean      native_step_tried;
  CmlNative    *native_step;
  gpointer      native_step_fn;
  /* … and the rk8pd step, built when a simulation first takes a step with rk8pd */
  gboolean      native_rk8pd_tried;
  CmlNative    *native_rk8pd;
  gpointer      native_rk8pd_fn;
  CmlNativeFunc rhs_fn, jac_fn, proj_fn, obs_fn;
  CmlNativeProjectFunc project_fn; /* the whole projection (cml-project-core.h), or NULL */
  CmlProgram   *variational_prog; /* cml-variational.c: built on first use, under the lock */
  CmlProgram   *groupoid_prog;    /* cml-variational-groupoid.c: likewise */
  /* what the Taylor method makes of the right-hand side (cml-integrator-for-system.c),
   * found on the first automatic choice: taylor_verdict 0 not yet, 1 it runs it
   * (taylor_rhs_kind says what the right-hand side is made of), 2 it cannot (taylor_no says
   * why); the strings are static and written before the verdict */
  gint          taylor_verdict;
  const char   *taylor_rhs_kind, *taylor_no;
  /* vakonomic initial data (cml-initial.c): G_A, F_A = p_A − G_A and ∂F_A/∂y^B (n, n, n²;
   * NULL for the constrained directions), derived on the first reset under the lock and
   * only evaluated after */
  gint          vak_ready;
  CmlExpr     **vak_G, **vak_F, **vak_J;
} CmlSystemRuntime;

/* SYS's runtime, made on the first call (from any thread) and freed with SYS. */
CmlSystemRuntime *cml_system_runtime (CmlSystem *sys);

G_END_DECLS
