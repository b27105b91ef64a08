/* cml-system-native.c — native code for a system: its right-hand side, observables,
 * constraint functions and projection (cml-project-core.h) written out as C, compiled and
 * loaded once per system (cml-native.c), its Jacobian apart when it is first needed, and a
 * simulation's choice between native code and the interpreter; and the whole DOP853 step
 * as native code (cml-native-step.c), attached to a simulation that runs dop853.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-simulation-private.h"
#include "cml-taylor.h"
#include "cml-error.h"
#include "cml-native-step.h"
#include "cml-project-core-text.h"

#include <math.h>

/* ---- native code ------------------------------------------------------------------- */

/* Larger programs are left to the interpreter: the C compiler's time grows faster than
 * the program, and such systems spend their time elsewhere. */
#define NATIVE_MAX_INSTRUCTIONS 50000

/* Why a program of SIZE fast instructions and about C_SIZE bytes of C is left to the
 * interpreter, or NULL when it is within the limits. */
static char *
too_large (guint size, gsize c_size)
{
  if (size > NATIVE_MAX_INSTRUCTIONS)
    return g_strdup_printf ("%u instructions, more than %u", size, NATIVE_MAX_INSTRUCTIONS);
  if (c_size > CML_PROGRAM_MAX_C_BYTES)
    return g_strdup_printf ("about %.1f MB of C, more than %d MB", c_size / 1048576.0,
                            CML_PROGRAM_MAX_C_BYTES / (1024 * 1024));
  return NULL;
}

/* Whether the system's states are projected: constraints to keep, or unit quaternions. */
static gboolean
has_projection (const CmlSystem *sys)
{
  return (sys->derived.h->len > 0 && sys->proj_prog != NULL) || sys->model->quaternions->len >= 4;
}

/* The constraint functions and their Jacobian: cml_proj, exported for the simulation's
 * cml_sim_run_proj, around the program as a static function that the projection inlines. */
static gboolean
emit_proj (const CmlSystem *sys, GString *src)
{
  g_string_append (src, "\nstatic inline ");
  if (!cml_program_emit_c (sys->proj_prog, "cml_proj_body", sys->dim, cml_program_n_outputs (sys->proj_prog), src))
    return FALSE;
  g_string_append (src, "\nvoid cml_proj (double t, const double *restrict z, const double *restrict aux,\n"
                        "               const double *restrict R, double *restrict o0, double *restrict o1)\n"
                        "{\n"
                        "  cml_proj_body (t, z, aux, R, o0, o1);\n"
                        "}\n");
  return TRUE;
}

/* The whole projection: cml-project-core.h's text around cml_proj_body, with the
 * dimension, the number of constraints, the movable range and the quaternions' places as
 * constants — exported as cml_project (CmlNativeProjectFunc), or, FUSED, as the
 * projection a native step makes of its end (CML_PJ_FUSED_FN, cml_pj_fused). */
static void
emit_project (const CmlSystem *sys, GString *src, gboolean fused)
{
  GArray *q = sys->model->quaternions;
  guint k = sys->proj_prog ? sys->derived.h->len : 0;
  g_autofree char *constants = g_strdup_printf ("%u, %u, %u, %u, (const int *) 0, cml_pj_quat + 1, %u, %u", k,
                                                sys->dim, sys->derived.movable_from, sys->derived.movable_to, q->len,
                                                sys->m + sys->n);

  g_string_append (src, "\nstatic const unsigned cml_pj_quat[] = { 0");
  for (guint i = 0; i < q->len; i++)
    g_string_append_printf (src, ", %u", g_array_index (q, guint, i));
  g_string_append (src, " };\n#define CML_PJ_FN cml_project_inline\n");
  if (k > 0)
    g_string_append (src, "#define CML_PJ_RUN(T, Z) cml_proj_body ((T), (Z), aux, R, out, 0)\n");
  else
    g_string_append (src, "#define CML_PJ_RUN(T, Z) ((void) 0)\n");
  g_string_append (src, "#define CML_PJ_EXTRA_PARAMS , const double *aux, const double *R\n");
  if (fused)
    g_string_append_printf (src,
                            "#define CML_PJ_FUSED_FN cml_pj_fused\n"
                            "#define CML_PJ_FUSED_N %u\n"
                            "#define CML_PJ_FUSED_RUN(T, Z, PJ, RESID) \\\n"
                            "  cml_project_inline ((T), (Z), %s, \\\n"
                            "                      (PJ)->out, (PJ)->A, (PJ)->b, (RESID), (PJ)->aux, (PJ)->R)\n",
                            sys->dim, constants);
  g_string_append (src, cml_project_core_text);
  if (!fused)
    g_string_append_printf (src,
                            "int cml_project (double t, double *z, const double *aux, const double *R, double *out,\n"
                            "                 double *A, double *b, double *resid)\n"
                            "{\n"
                            "  return cml_project_inline (t, z, %s,\n"
                            "                             out, A, b, resid, aux, R);\n"
                            "}\n",
                            constants);
}

/* The projection a native step makes of its end (cml-native-step.h): the constraint
 * functions as a static function and the fused projection around them — or, for a system
 * whose states are not projected, only the types of cml-project-core.h's text. */
static char *
fused_projection_source (const CmlSystem *sys)
{
  GString *src = g_string_new ("\n/* the projection of the step's end */\n");

  if (!has_projection (sys))
    g_string_append (src, cml_project_core_text);
  else
    {
      if (sys->proj_prog)
        {
          g_string_append (src, "static inline ");
          if (!cml_program_emit_c (sys->proj_prog, "cml_proj_body", sys->dim,
                                   cml_program_n_outputs (sys->proj_prog), src))
            {
              g_string_free (src, TRUE);
              return NULL;
            }
        }
      emit_project (sys, src, TRUE);
    }
  return g_string_free (src, FALSE);
}

/* The fused projection of SIM's native steps (cml-native-step.h), or NULL when its steps'
 * ends are projected by the integrator: no native projection, or none asked for. */
static CmlProjectFused *
fused_projection (CmlSimulation *sim)
{
  return sim->project_fn != NULL && sim->options.project ? &sim->fused : NULL;
}

/* After a native step: whether it projected its end (the step's PROJECTED field). */
static int
fused_done (CmlProjectFused *pj)
{
  return pj != NULL ? pj->done : 0;
}

/* The key of a native object's memo (cml_native_build_keyed): the system's entry in the
 * derived-system cache and what the object is for — only for objects whose source follows
 * from the programs that entry holds; NULL when the system is not in that cache. */
static char *
memo_key (const CmlSystem *sys, const char *what)
{
  return sys->cache_key ? g_strconcat (sys->cache_key, " ", what, NULL) : NULL;
}

typedef struct
{
  CmlSystem *sys;    /* first, as system_build_held wants */
  gboolean   with_obs;
} SystemSource;

/* The source of the system's object: cml_rhs, cml_obs (WITH_OBS), cml_proj and
 * cml_project. */
static gboolean
system_source (gpointer data, GString *src)
{
  SystemSource *ss = data;
  CmlSystem *sys = ss->sys;
  gboolean ok = cml_program_emit_c (sys->rhs_prog, "cml_rhs", sys->dim, sys->dim, src);

  if (ok && ss->with_obs)
    ok = cml_program_emit_c (sys->obs_prog, "cml_obs", sys->dim, cml_program_n_outputs (sys->obs_prog), src);
  if (ok && sys->proj_prog)
    ok = emit_proj (sys, src);
  if (ok && has_projection (sys))
    emit_project (sys, src, FALSE);
  return ok;
}

/* Takes NATIVE (the system's object, or NULL with the reason ERROR) as the system's
 * native code, under the runtime's lock. */
static void
system_take_native (CmlSystem *sys, CmlNative *native, const char *error)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  gboolean with_obs = cml_program_n_outputs (sys->obs_prog) == 0;

  if (native == NULL)
    {
      rt->native_error = g_strdup (error);
      g_debug ("native code for %s: %s; the interpreter runs it", sys->model->name, rt->native_error);
      return;
    }
  rt->native = native;
  rt->rhs_fn = cml_native_lookup (native, "cml_rhs");
  rt->proj_fn = sys->proj_prog ? cml_native_lookup (native, "cml_proj") : NULL;
  rt->obs_fn = cml_native_lookup (native, "cml_obs");
  with_obs = with_obs || rt->obs_fn != NULL;
  rt->project_fn = has_projection (sys)
                      ? (CmlNativeProjectFunc) (void (*) (void)) cml_native_lookup (native, "cml_project")
                      : NULL;
  if (rt->rhs_fn == NULL || (sys->proj_prog && rt->proj_fn == NULL) || (has_projection (sys) && rt->project_fn == NULL))
    {
      rt->rhs_fn = rt->proj_fn = rt->obs_fn = NULL;
      rt->project_fn = NULL;
      rt->native_error = g_strdup ("the compiled object lacks a function");
      g_debug ("native code for %s: %s; the interpreter runs it", sys->model->name, rt->native_error);
    }
}

/* An object the system lacks, found in the cache or built: at once (the object, or NULL
 * with *ERROR set), or — unless $CMLAB_NATIVE=wait — in the background when the cache has
 * not got it (NULL, *JOB set, to be taken by system_adopt_native).  KEY, SOURCE, DATA as
 * cml_native_build_keyed's (KEY NULL: by the source alone). */
static CmlNative *
system_build (const char *key, CmlNativeSource source, gpointer data, CmlNativeJob **job,
              GError **error)
{
  g_autoptr (GString) src = NULL;
  CmlNative *native;

  if (!cml_native_in_background ())
    return cml_native_build_keyed (key, source, data, error);
  native = cml_native_find_keyed (key, source, data, &src, error);
  if (native == NULL && src != NULL)
    *job = cml_native_build_later (key, g_string_free (g_steal_pointer (&src), FALSE));
  return native;
}

/* A source's data held for the worker: a copy whose first member, the system, holds a
 * reference (released with the copy). */
static void
release_held (gpointer data)
{
  cml_system_unref (*(CmlSystem **) data);
  g_free (data);
}

/* system_build (), but when the memo of KEY does not name the object, its source is written
 * on the worker too, from a copy of DATA (SIZE bytes, starting with the CmlSystem it holds:
 * what the source reads of the system — the compiled programs, the constraints — does not
 * change once it is derived): a large system's C costs the caller nothing. */
static CmlNative *
system_build_held (const char *key, CmlNativeSource source, gpointer data, gsize size,
                   CmlNativeJob **job, GError **error)
{
  CmlNative *native;

  if (!cml_native_in_background () || key == NULL)
    return system_build (key, source, data, job, error);
  native = cml_native_find_memo (key, error);
  if (native == NULL && (error == NULL || *error == NULL))
    {
      gpointer held = g_memdup2 (data, size);
      cml_system_ref (*(CmlSystem **) held);
      *job = cml_native_build_keyed_later (key, source, held, release_held);
    }
  return native;
}

/* Builds (or finds in the cache) native code for the right-hand side, the observables,
 * the constraint functions and the projection, once per system, on the first simulation
 * (the Jacobian has its own, cml_sys_native_jacobian) — or has it built in the background
 * when the cache has not got it. */
void
cml_sys_ensure_native (CmlSystem *sys)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  g_autoptr (GError) error = NULL;
  guint size;
  gsize c_size;
  gboolean with_obs;

  g_mutex_lock (&rt->lock);
  if (rt->native_tried)
    {
      g_mutex_unlock (&rt->lock);
      return;
    }
  rt->native_tried = TRUE;
  size = cml_program_n_fast_instructions (sys->rhs_prog)
         + (sys->proj_prog ? cml_program_n_fast_instructions (sys->proj_prog) : 0);
  /* the C source's size, estimated before it is written (the Jacobian of a large state
   * has dim² outputs: 10⁴ variables once wrote 2.7 GB of C) */
  c_size = cml_program_estimate_c_size (sys->rhs_prog, "cml_rhs")
           + (sys->proj_prog ? cml_program_estimate_c_size (sys->proj_prog, "cml_proj") : 0);
  /* the observables join them only within the same limits: a model with many monitors
   * keeps its right-hand side native, its observables interpreted */
  with_obs = size + cml_program_n_fast_instructions (sys->obs_prog) <= NATIVE_MAX_INSTRUCTIONS
             && c_size + cml_program_estimate_c_size (sys->obs_prog, "cml_obs") <= CML_PROGRAM_MAX_C_BYTES;
  if (!cml_native_available ())
    rt->native_error = g_strdup ("no C compiler (or CMLAB_NATIVE=0)");
  else if ((rt->native_error = too_large (size, c_size)) != NULL)
    g_debug ("native code for %s: %s; the interpreter runs it", sys->model->name, rt->native_error);
  else
    {
      SystemSource ss = { sys, with_obs };
      g_autofree char *key = memo_key (sys, "system");
      CmlNative *native = system_build_held (key, system_source, &ss, sizeof ss, &rt->native_job, &error);
      if (native != NULL || rt->native_job == NULL)
        system_take_native (sys, native, error ? error->message : "no object");
    }
  g_mutex_unlock (&rt->lock);
}

/* Takes JOB's object into *OBJ (its function NAME into *FN, atomically: the steps read it
 * without the lock) when JOB is done; under the runtime's lock. */
static void
adopt_step (CmlSystem *sys, CmlNativeJob **job, CmlNative **obj, gpointer *fn, const char *name)
{
  g_autofree char *error = NULL;

  if (*job == NULL || !cml_native_job_done (*job))
    return;
  *obj = cml_native_job_steal (*job, &error);
  g_clear_pointer (job, cml_native_job_unref);
  if (*obj == NULL)
    g_debug ("the %s step of %s: %s; the generic step runs", name, sys->model->name, error);
  else
    {
      gpointer f = (gpointer) cml_native_lookup (*obj, name);
      if (f == NULL)
        g_clear_pointer (obj, cml_native_free);
      g_atomic_pointer_set (fn, f);
    }
}

/* Takes the objects built in the background for SYS that are done; under the runtime's lock. */
static void
system_adopt_native (CmlSystem *sys)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  g_autofree char *error = NULL;

  if (rt->native_job != NULL && cml_native_job_done (rt->native_job))
    {
      CmlNative *native = cml_native_job_steal (rt->native_job, &error);
      g_clear_pointer (&rt->native_job, cml_native_job_unref);
      system_take_native (sys, native, error);
    }
  if (rt->jac_job != NULL && cml_native_job_done (rt->jac_job))
    {
      g_clear_pointer (&error, g_free);
      rt->jac_native = cml_native_job_steal (rt->jac_job, &error);
      g_clear_pointer (&rt->jac_job, cml_native_job_unref);
      if (rt->jac_native != NULL && (rt->jac_fn = cml_native_lookup (rt->jac_native, "cml_jac")) == NULL)
        rt->jac_error = g_strdup ("the compiled object lacks a function");
      else if (rt->jac_native == NULL)
        rt->jac_error = g_steal_pointer (&error);
    }
  adopt_step (sys, &rt->step_job, &rt->native_step, &rt->native_step_fn, CML_NATIVE_STEP_DOP853);
  adopt_step (sys, &rt->rk8pd_job, &rt->native_rk8pd, &rt->native_rk8pd_fn, CML_NATIVE_STEP_RK8PD);
}

/* Native code for the Jacobian program, cml_jac, beside the system's when the system has
 * native code (or is having it built) and within the same limits; called once, with
 * the runtime's lock held, when the program is first compiled (cml_sys_ensure_jacobian).  Built in
 * the background, unless $CMLAB_NATIVE=wait, when the cache has not got it. */
static gboolean
jacobian_source (gpointer data, GString *src)
{
  CmlSystem *sys = data;
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  return cml_program_emit_c (rt->jac_prog, "cml_jac", sys->dim, sys->dim * sys->dim, src);
}

void
cml_sys_native_jacobian (CmlSystem *sys)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  g_autoptr (GError) error = NULL;

  if (rt->rhs_fn == NULL && rt->native_job == NULL)
    rt->jac_error = g_strdup_printf ("the right-hand side has none (%s)", rt->native_error);
  else if ((rt->jac_error = too_large (cml_program_n_fast_instructions (rt->jac_prog),
                                        cml_program_estimate_c_size (rt->jac_prog, "cml_jac"))) == NULL)
    {
      if ((rt->jac_native = system_build (NULL, jacobian_source, sys, &rt->jac_job, &error)) != NULL)
        {
          if ((rt->jac_fn = cml_native_lookup (rt->jac_native, "cml_jac")) == NULL)
            rt->jac_error = g_strdup ("the compiled object lacks a function");
        }
      else if (rt->jac_job == NULL)
        rt->jac_error = g_strdup (error ? error->message : "no object");
    }
  if (rt->jac_error)
    g_debug ("native code for the Jacobian of %s: %s; the interpreter runs it", sys->model->name, rt->jac_error);
}

/* Waits for the system's background builds and takes them (for the questions of info). */
static void
system_wait_native (CmlSystem *sys)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  if (rt->native_job == NULL && rt->jac_job == NULL)
    return;
  cml_native_wait ();
  g_mutex_lock (&rt->lock);
  system_adopt_native (sys);
  g_mutex_unlock (&rt->lock);
}

const char *
cml_system_jacobian_status (CmlSystem *sys)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  if (sys->derived.na != 0)
    return "the system has no exact Jacobian (its free velocities are found by Newton's method)";
  cml_sys_ensure_jacobian (sys);
  system_wait_native (sys);
  return rt->jac_fn ? NULL : rt->jac_error;
}

const char *
cml_system_native_status (CmlSystem *sys)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  cml_sys_ensure_native (sys);
  system_wait_native (sys);
  return rt->rhs_fn ? NULL : rt->native_error;
}

/* SIM's native functions: the system's (NATIVE), or none; under the runtime's lock. */
static gboolean
simulation_take_native (CmlSimulation *sim, gboolean native)
{
  CmlSystem *sys = sim->sys;
  CmlSystemRuntime *rt = cml_system_runtime (sys);

  sim->rhs_fn = native ? rt->rhs_fn : NULL;
  sim->jac_fn = native && sim->regs_jac != NULL ? rt->jac_fn : NULL;
  sim->proj_fn = native ? rt->proj_fn : NULL;
  sim->obs_fn = native ? rt->obs_fn : NULL;
  sim->project_fn = native ? rt->project_fn : NULL;
  if (sim->integ != NULL && sim->options.kind == CML_INTEGRATOR_TAYLOR)
    cml_taylor_set_fused_projection (cml_integrator_get_taylor (sim->integ), fused_projection (sim));
  return sim->rhs_fn != NULL;
}

gboolean
cml_simulation_set_native (CmlSimulation *sim, gboolean native)
{
  gboolean r;

  sim->native_off = !native;
  sim->native_stale = TRUE; /* the Taylor program and the whole step are looked at again */
  g_mutex_lock (&cml_system_runtime (sim->sys)->lock);
  system_adopt_native (sim->sys);
  r = simulation_take_native (sim, native);
  g_mutex_unlock (&cml_system_runtime (sim->sys)->lock);
  return r;
}

gboolean
cml_simulation_is_native (const CmlSimulation *sim)
{
  return sim->rhs_fn != NULL;
}

typedef struct
{
  CmlTaylor *tp;
  CmlSystem *sys;
} TaylorSource;

/* The source of a Taylor program's object, within the size native code may have: the
 * program and its step (cml_taylor, cml_taylor_step), and for a system whose states are
 * projected the step with its end projected, cml_taylor_step_projected. */
static gboolean
taylor_source (gpointer data, GString *src)
{
  TaylorSource *ts = data;

  if (!cml_taylor_emit_c (ts->tp, "cml_taylor", src))
    return FALSE;
  if (has_projection (ts->sys))
    {
      g_autofree char *projection = fused_projection_source (ts->sys);
      if (projection == NULL)
        return FALSE;
      g_string_append (src, projection);
      g_string_append (src, "\nint cml_taylor_step_projected (double *S, const double *C, CmlTaylorStep *s,\n"
                            "                               CmlProjectFused *pj);\n"
                            "int\n"
                            "cml_taylor_step_projected (double *S, const double *C, CmlTaylorStep *s, CmlProjectFused *pj)\n"
                            "{\n"
                            "  int r = cml_taylor_step (S, C, s);\n"
                            "  if (r == 0)\n"
                            "    cml_pj_fused (s->t + s->h, s->zb, pj);\n"
                            "  return r;\n"
                            "}\n");
    }
  return src->len <= CML_PROGRAM_MAX_C_BYTES;
}

/* A Taylor program's native object, one per order, shared by the system's simulations. */
typedef struct
{
  guint         order;
  CmlNativeJob *job;    /* being built in the background */
  CmlNative    *native;
  gboolean      failed;
} TaylorJob;

static void
taylor_job_free (gpointer p)
{
  TaylorJob *tj = p;
  cml_native_job_unref (tj->job);
  cml_native_free (tj->native);
  g_free (tj);
}

/* Native code for TP: the system's object for its order, taken from the cache or from a
 * background build that is done, or asked for (TP runs on the interpreter meanwhile). */
static void
taylor_find_native (CmlSystem *sys, CmlTaylor *tp)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  g_autoptr (GError) err = NULL;
  guint order = cml_taylor_order (tp);
  TaylorJob *tj = NULL;
  CmlNative *nat = NULL;

  g_mutex_lock (&rt->lock);
  if (rt->taylor_jobs == NULL)
    rt->taylor_jobs = g_ptr_array_new_with_free_func (taylor_job_free);
  for (guint i = 0; i < rt->taylor_jobs->len && tj == NULL; i++)
    if (((TaylorJob *) rt->taylor_jobs->pdata[i])->order == order)
      tj = rt->taylor_jobs->pdata[i];
  if (tj == NULL)
    {
      tj = g_new0 (TaylorJob, 1);
      tj->order = order;
      g_ptr_array_add (rt->taylor_jobs, tj);
    }
  if (tj->job != NULL && cml_native_job_done (tj->job))
    {
      g_autofree char *why = NULL;
      tj->native = cml_native_job_steal (tj->job, &why);
      tj->failed = tj->native == NULL;
      g_clear_pointer (&tj->job, cml_native_job_unref);
      if (tj->failed)
        g_debug ("native Taylor code for %s: %s; the interpreter runs it", sys->model->name, why);
    }
  else if (tj->job == NULL && tj->native == NULL && !tj->failed)
    {
      /* the Taylor program follows from the right-hand side's expressions and the order */
      g_autofree char *what = g_strdup_printf ("taylor %u", order);
      g_autofree char *key = memo_key (sys, what);
      TaylorSource ts = { tp, sys };
      tj->native = system_build (key, taylor_source, &ts, &tj->job, &err);
      tj->failed = tj->native == NULL && tj->job == NULL;
      if (tj->failed)
        g_debug ("native Taylor code for %s: %s; the interpreter runs it", sys->model->name,
                 err ? err->message : "no object");
    }
  if (tj->native != NULL)
    nat = cml_native_dup (tj->native);
  g_mutex_unlock (&rt->lock);
  if (nat != NULL)
    cml_taylor_set_native (tp, nat, "cml_taylor");
}

/* The Taylor program of the right-hand side and its native code (cml-taylor.h). */
CmlTaylor *
cml_taylor_new_for_system (CmlSystem *sys, const double *params, const CmlIntegratorOptions *o,
                           gboolean native, GError **error)
{
  g_autoptr (GError) err = NULL;
  CmlTaylor *tp;

  if (sys->derived.na)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED,
                   "taylor cannot integrate %s: its free velocities are found by Newton's method, not "
                   "given by expressions", sys->model->name);
      return NULL;
    }
  tp = cml_taylor_compile (sys->ctx, sys->derived.rhs, sys->dim, sys->fast_sym[0], sys->fast_sym + 1,
                           sys->param_sym, sys->n_params, cml_taylor_order_for_tolerance (o->rtol, o->atol), &err);
  if (tp == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED, "taylor cannot integrate %s: %s", sys->model->name,
                   err->message);
      return NULL;
    }
  cml_taylor_set_params (tp, params);
  if (native && cml_native_available ())
    taylor_find_native (sys, tp);
  return tp;
}

/* ---- the whole step in native code ------------------------------------------------- */

typedef gboolean (*StepSource) (const CmlProgram *rhs_prog, guint dim, const char *projection, GString *s);

typedef struct
{
  CmlSystem *sys; /* first, as system_build_held wants */
  StepSource source;
} StepData;

static gboolean
step_source (gpointer data, GString *src)
{
  StepData *sd = data;
  g_autofree char *projection = fused_projection_source (sd->sys);
  return projection != NULL && sd->source (sd->sys->rhs_prog, sd->sys->dim, projection, src);
}

/* Builds (or finds in the cache) a step with the right-hand side inlined — the source
 * SOURCE writes, the function NAME — once per system, into *OBJ and *FN, or has it built
 * in the background (*JOB, taken by system_adopt_native).  Not for the
 * vakonomic systems whose free velocities are solved by Newton's method at every
 * evaluation. */
static void
system_ensure_step (CmlSystem *sys, gboolean *tried, CmlNative **obj, gpointer *fn,
                    CmlNativeJob **job, StepSource source, const char *name, const char *what)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  g_autoptr (GError) error = NULL;

  cml_sys_ensure_native (sys);
  g_mutex_lock (&rt->lock);
  if (*tried)
    {
      g_mutex_unlock (&rt->lock);
      return;
    }
  if ((rt->rhs_fn != NULL || rt->native_job != NULL) && sys->derived.na == 0)
    {
      gpointer f = NULL;
      StepData sd = { sys, source };
      g_autofree char *key = memo_key (sys, name);
      if ((*obj = system_build_held (key, step_source, &sd, sizeof sd, job, &error)) == NULL)
        {
          if (*job == NULL)
            g_debug ("the %s step of %s: %s; the generic step runs", what, sys->model->name,
                     error ? error->message : "no object");
        }
      else if ((f = (gpointer) cml_native_lookup (*obj, name)) == NULL)
        g_clear_pointer (obj, cml_native_free);
      /* read without the lock by the steps of the system's simulations */
      g_atomic_pointer_set (fn, f);
    }
  g_atomic_int_set (tried, TRUE);
  g_mutex_unlock (&rt->lock);
}

/* A DOP853 step in native code, or -1 (the generic step) when this simulation does not run
 * native code or its parameters send every evaluation to sim_rhs's fallback; the step
 * itself returns 3 where one evaluation needs the fallback (the generic step goes on). */
static int
native_dop853_step (CmlDop853Step *step, void *data)
{
  CmlSimulation *sim = data;
  CmlSystem *sys = sim->sys;
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  CmlNativeDop853Func fn = (CmlNativeDop853Func) g_atomic_pointer_get (&rt->native_step_fn);
  CmlDop853Pivots pc;

  if (sim->rhs_fn == NULL || fn == NULL || !cml_sim_pivot_check (sim, &pc))
    return -1;
  CmlProjectFused *pj = fused_projection (sim);
  int r = fn (step, sim->fast + 1 + sys->dim, sim->regs_rhs, sim->rhs_out + sys->dim, &pc, pj);
  step->projected = r == 0 ? fused_done (pj) : 0;
  return r;
}

static void
system_ensure_rk8pd (CmlSystem *sys)
{
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  system_ensure_step (sys, &rt->native_rk8pd_tried, &rt->native_rk8pd, &rt->native_rk8pd_fn, &rt->rk8pd_job,
                      cml_native_step_rk8pd_source, CML_NATIVE_STEP_RK8PD, "rk8pd");
}

/* An rk8pd step in native code, likewise: -1 when this simulation cannot take it there,
 * 1 when the step leaves it to GSL.  The object is built (or loaded from the cache) on the
 * first step, so that a run that takes none (--t-end 0) does not pay for it; the window
 * asks for it beforehand (cml_simulation_prepare_native_step). */
static int
native_rk8pd_step (CmlRk8pdStep *step, void *data)
{
  CmlSimulation *sim = data;
  CmlSystem *sys = sim->sys;
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  CmlDop853Pivots pc;
  gpointer fn = g_atomic_pointer_get (&rt->native_rk8pd_fn);

  /* asked for on the first step, while the system's own object may still be compiling in
   * the background: the two are built one after the other */
  if (fn == NULL && !sim->native_off && !g_atomic_int_get (&rt->native_rk8pd_tried))
    {
      system_ensure_rk8pd (sys);
      fn = g_atomic_pointer_get (&rt->native_rk8pd_fn);
    }
  if (sim->rhs_fn == NULL || fn == NULL || !cml_sim_pivot_check (sim, &pc))
    return -1;
  CmlProjectFused *pj = fused_projection (sim);
  int r = ((CmlNativeRk8pdFunc) fn) (step, sim->fast + 1 + sys->dim, sim->regs_rhs, sim->rhs_out + sys->dim, &pc, pj);
  step->projected = r == 0 && fused_done (pj) != 0;
  return r;
}

void
cml_simulation_prepare_native_step (CmlSimulation *sim)
{
  if (sim->options.kind == CML_INTEGRATOR_RK8PD && !sim->native_off)
    system_ensure_rk8pd (sim->sys);
}

void
cml_sim_attach_native_step (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  CmlSystemRuntime *rt = cml_system_runtime (sys);

  if (sim->options.kind == CML_INTEGRATOR_TAYLOR)
    {
      cml_taylor_set_fused_projection (cml_integrator_get_taylor (sim->integ), fused_projection (sim));
      return;
    }
  if (sim->options.kind == CML_INTEGRATOR_RK8PD)
    {
      cml_integrator_set_rk8pd_step (sim->integ, native_rk8pd_step, sim);
      return;
    }
  system_ensure_step (sys, &rt->native_step_tried, &rt->native_step, &rt->native_step_fn, &rt->step_job,
                      cml_native_step_dop853_source, CML_NATIVE_STEP_DOP853, "DOP853");
  /* (it takes the generic step while the native one is not there: being built, or none) */
  cml_integrator_set_dop853_step (sim->integ, native_dop853_step, sim);
}

gboolean
cml_sim_native_possible (CmlSimulation *sim)
{
  gboolean r;

  if (sim->native_off)
    return FALSE;
  g_mutex_lock (&cml_system_runtime (sim->sys)->lock);
  r = cml_system_runtime (sim->sys)->rhs_fn != NULL || cml_system_runtime (sim->sys)->native_job != NULL;
  g_mutex_unlock (&cml_system_runtime (sim->sys)->lock);
  return r;
}

void
cml_sim_sync_native (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  CmlSystemRuntime *rt = cml_system_runtime (sys);
  guint gen = cml_native_generation ();

  if (gen == sim->native_gen && !sim->native_stale)
    return;
  sim->native_gen = gen;
  sim->native_stale = FALSE;
  if (sim->native_off)
    return;
  g_mutex_lock (&rt->lock);
  system_adopt_native (sys);
  simulation_take_native (sim, TRUE);
  g_mutex_unlock (&rt->lock);
  if (sim->integ == NULL)
    return;
  if (sim->options.kind == CML_INTEGRATOR_TAYLOR)
    {
      CmlTaylor *tp = cml_integrator_get_taylor (sim->integ);
      if (!cml_taylor_is_native (tp))
        taylor_find_native (sys, tp);
    }
  if (sim->options.kind == CML_INTEGRATOR_DOP853 || sim->options.kind == CML_INTEGRATOR_RK8PD
      || sim->options.kind == CML_INTEGRATOR_TAYLOR)
    cml_sim_attach_native_step (sim);
}

guint64
cml_simulation_n_native_steps (const CmlSimulation *sim)
{
  return sim->integ != NULL ? cml_integrator_n_func_steps (sim->integ) : 0;
}

guint64
cml_simulation_n_native_projections (const CmlSimulation *sim)
{
  return sim->n_native_projections + sim->fused.n;
}

guint64
cml_simulation_n_fused_projections (const CmlSimulation *sim)
{
  return sim->fused.n;
}
