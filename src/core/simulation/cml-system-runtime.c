/* cml-system-runtime.c — what a system's simulations build from it on first use
 * (cml-system-runtime.h): made when first asked for, handed to the system to keep, freed
 * with it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-runtime.h"

#include "cml-system-private.h"

static gpointer
runtime_new (void)
{
  CmlSystemRuntime *rt = g_new0 (CmlSystemRuntime, 1);

  g_mutex_init (&rt->lock);
  return rt;
}

static void
runtime_free (gpointer data)
{
  CmlSystemRuntime *rt = data;

  g_clear_pointer (&rt->jac_prog, cml_program_free);
  g_clear_pointer (&rt->variational_prog, cml_program_free);
  g_clear_pointer (&rt->groupoid_prog, cml_program_free);
  g_free (rt->vak_G);
  g_free (rt->vak_F);
  g_free (rt->vak_J);
  g_clear_pointer (&rt->native, cml_native_free);
  g_clear_pointer (&rt->native_step, cml_native_free);
  g_clear_pointer (&rt->native_rk8pd, cml_native_free);
  g_clear_pointer (&rt->jac_native, cml_native_free);
  /* a background build still running goes on into the cache; its result is dropped */
  g_clear_pointer (&rt->native_job, cml_native_job_unref);
  g_clear_pointer (&rt->jac_job, cml_native_job_unref);
  g_clear_pointer (&rt->step_job, cml_native_job_unref);
  g_clear_pointer (&rt->rk8pd_job, cml_native_job_unref);
  g_clear_pointer (&rt->taylor_jobs, g_ptr_array_unref);
  g_free (rt->jac_error);
  g_free (rt->native_error);
  g_mutex_clear (&rt->lock);
  g_free (rt);
}

CmlSystemRuntime *
cml_system_runtime (CmlSystem *sys)
{
  return cml_sys_runtime (sys, runtime_new, runtime_free);
}
