/* physics-util.h — small helpers shared by the physics acceptance tests (tests/models).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tests compare the engine against doc/theory.md (§9 closed forms, §10 oracles);
 * these helpers only load models, drive simulations and read observables.  Nothing here
 * computes an expected value.
 */
#pragma once

#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cml-error.h"
#include "cml-expr.h"
#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-native-step.h"
#include "cml-system.h"

/* The built-in models of doc/theory.md §9 (worked examples of the papers of doc/theory.md §12). */
static const char *const builtin_models[] G_GNUC_UNUSED = {
  "rolling-ball", "rolling-ball-varying", "plate-ball", "martinet", "capri-kobayashi", "capri-kobayashi-full", NULL,
};

/* The extra built-ins (not worked examples of those papers; oracles in tests/models/ORACLES-extra.md). */
static const char *const extra_models[] G_GNUC_UNUSED = {
  "vertical-disk", "chaplygin-sleigh", "rigid-body", "heavy-top", NULL,
};

/* Adds the test FN as PREFIX/MODEL for every built-in, basic and extra, that ONLY (when
 * given) accepts, MODEL the test's data. */
static inline void
add_model_tests (const char *prefix, GTestDataFunc fn, gboolean (*only) (const char *model))
{
  for (const char *const *lists[] = { builtin_models, extra_models }, *const *const *l = lists; l < lists + 2; l++)
    for (const char *const *m = *l; *m != NULL; m++)
      if (only == NULL || only (*m))
        {
          g_autofree char *path = g_strdup_printf ("%s/%s", prefix, *m);
          g_test_add_data_func (path, *m, fn);
        }
}

/* |a − b| ≤ tol, with both numbers in the message. */
#define assert_close(a, b, tol)                                                                    \
  G_STMT_START {                                                                                   \
    double _a = (a), _b = (b), _t = (tol);                                                         \
    if (!(fabs (_a - _b) <= _t))                                                                   \
      {                                                                                            \
        g_autofree char *_m = g_strdup_printf ("%s = %.17g, expected %s = %.17g (|diff| = %.3g > %.3g)", \
                                               #a, _a, #b, _b, fabs (_a - _b), _t);                \
        g_assertion_message (G_LOG_DOMAIN, __FILE__, __LINE__, G_STRFUNC, _m);                     \
      }                                                                                            \
  } G_STMT_END

static inline CmlSimulation *
sim_from_model (CmlModel *model)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sys);
  CmlSimulation *sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sim);
  return sim;
}

/* After a run with native code (NATIVE) beside its interpreted twin (INTERP), which the
 * caller compared bit for bit: the native steps projected their ends themselves, fused into
 * the step (cml-native-step.h) — every one of them when the model's states are projected
 * (unit quaternions, nonholonomic constraints), every one or none otherwise — and the
 * interpreted run none.  TRUE when the native run fused its projections. */
static inline gboolean
sim_check_fused (CmlSimulation *native, CmlSimulation *interp)
{
  const CmlModel *md = cml_system_get_model (cml_simulation_get_system (native));
  gboolean projects = md->quaternions->len >= 4 || md->kind == CML_CONSTRAINTS_NONHOLONOMIC;
  guint64 steps = cml_simulation_n_native_steps (native), fused = cml_simulation_n_fused_projections (native);

  g_assert_cmpuint (cml_simulation_n_fused_projections (interp), ==, 0);
  g_assert_true (fused == steps || (fused == 0 && !projects));
  return fused > 0;
}

/* A simulation of the built-in NAME at its defaults (default integrator). */
static inline CmlSimulation *
sim_open (const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  return sim_from_model (model);
}

/* Sets parameters: NAME, double, …, NULL. */
static inline void G_GNUC_NULL_TERMINATED
sim_set_params (CmlSimulation *sim, ...)
{
  va_list ap;
  const char *name;
  va_start (ap, sim);
  while ((name = va_arg (ap, const char *)) != NULL)
    {
      g_autoptr (GError) error = NULL;
      double v = va_arg (ap, double);
      g_assert_true (cml_simulation_set_param (sim, name, v, &error));
      g_assert_no_error (error);
      g_assert_cmpfloat (cml_simulation_get_param (sim, name), ==, v);
    }
  va_end (ap);
}

/* Restarts at t = 0 from the model's initial data overridden by NAME, double, …, NULL. */
static inline void G_GNUC_NULL_TERMINATED
sim_reset (CmlSimulation *sim, ...)
{
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GError) error = NULL;
  va_list ap;
  const char *name;
  va_start (ap, sim);
  while ((name = va_arg (ap, const char *)) != NULL)
    {
      double v = va_arg (ap, double);
      g_hash_table_insert (given, g_strdup (name), g_memdup2 (&v, sizeof v));
    }
  va_end (ap);
  g_assert_true (cml_simulation_reset (sim, given, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (cml_simulation_get_time (sim), ==, 0.0);
}

static inline void
sim_set_integrator (CmlSimulation *sim, CmlIntegratorKind kind, double rtol, double atol)
{
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  o.rtol = rtol;
  o.atol = atol;
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
}

/* rk8pd at rtol = atol = 1e-12 (the acceptance setting of doc/theory.md §10). */
static inline void
sim_precise (CmlSimulation *sim)
{
  sim_set_integrator (sim, CML_INTEGRATOR_RK8PD, 1e-12, 1e-12);
}

static inline void
sim_advance (CmlSimulation *sim, double t)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = cml_simulation_advance (sim, t, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  g_assert_cmpfloat (cml_simulation_get_time (sim), ==, t);
}

/* The observable NAME at the current state. */
static inline double
sim_obs (CmlSimulation *sim, const char *name)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  int i = cml_system_observable_index (sys, name);
  if (i < 0)
    g_error ("no observable “%s”", name);
  g_autofree double *all = g_new (double, cml_system_n_observables (sys));
  cml_simulation_observe (sim, all);
  return all[i];
}

static inline int
cml_sim_state_index (CmlSimulation *sim, const char *name)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  for (guint i = 0; i < cml_system_dim (sys); i++)
    if (g_str_equal (cml_system_state_name (sys, i), name))
      return i;
  g_error ("no state component “%s”", name);
  return -1;
}

static inline double
sim_state (CmlSimulation *sim, const char *name)
{
  return cml_simulation_get_state (sim)[cml_sim_state_index (sim, name)];
}

/* An expression of the model's context. */
static inline CmlExpr *
sim_parse (CmlSimulation *sim, const char *text)
{
  g_autoptr (GError) error = NULL;
  CmlModel *model = cml_system_get_model (cml_simulation_get_system (sim));
  CmlExpr *e = cml_expr_parse (model->ctx, text, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (e);
  return e;
}

static inline double
sim_eval (CmlSimulation *sim, const char *text)
{
  return cml_simulation_eval_expr (sim, sim_parse (sim, text));
}

/* The right-hand side at the current state, component NAME. */
static inline double
sim_rhs (CmlSimulation *sim, const char *name)
{
  g_autoptr (GError) error = NULL;
  CmlSystem *sys = cml_simulation_get_system (sim);
  g_autofree double *dz = g_new (double, cml_system_dim (sys));
  g_assert_true (cml_simulation_eval_rhs (sim, dz, &error));
  g_assert_no_error (error);
  return dz[cml_sim_state_index (sim, name)];
}

/* A model's text with one line-start replaced (the replaced text must occur exactly once). */
static inline CmlModel *
model_variant (const char *name, const char *from, const char *to)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (cml_model_builtin_dir (), name, NULL);
  g_autofree char *file = g_strconcat (path, ".cml", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (file, &text, NULL, &error));
  g_assert_no_error (error);
  const char *hit = strstr (text, from);
  g_assert_nonnull (hit);
  g_assert_null (strstr (hit + 1, from));
  GString *s = g_string_new_len (text, hit - text);
  g_string_append (s, to);
  g_string_append (s, hit + strlen (from));
  g_autofree char *variant = g_string_free (s, FALSE);
  CmlModel *model = cml_model_new_from_data (variant, file, &error);
  g_assert_no_error (error);
  g_assert_nonnull (model);
  return model;
}
