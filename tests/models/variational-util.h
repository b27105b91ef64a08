/* variational-util.h — what the tests of the variational integrators share: a model opened
 * by name (a built-in, or bench:NAME / doc:NAME for bench/models/NAME.cml and
 * doc/examples/NAME.cml, or a model file's text), an integrator set up at a fixed step
 * (rk8pd at 1e-13 as the reference), the error against that reference, a CmlVariational
 * built straight from a simulation's system, a model's monitor by name.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "physics-util.h"

#include "cml-variational.h"

#include <glib/gstdio.h>

/* The model NAME: a built-in, or bench:NAME (bench/models/NAME.cml), or doc:NAME
 * (doc/examples/NAME.cml), or data:NAME (tests/data/NAME.cml). */
static inline CmlSimulation *
var_open (const char *name)
{
  static const struct
  {
    const char *prefix, *dir1, *dir2;
  } places[] = { { "bench:", "bench", "models" }, { "doc:", "doc", "examples" }, { "data:", "tests", "data" } };
  for (guint i = 0; i < G_N_ELEMENTS (places); i++)
    if (g_str_has_prefix (name, places[i].prefix))
      {
        g_autofree char *file = g_strdup_printf ("%s.cml", name + strlen (places[i].prefix));
        g_autofree char *path
          = g_test_build_filename (G_TEST_DIST, "..", places[i].dir1, places[i].dir2, file, NULL);
        g_autoptr (GError) error = NULL;
        g_autoptr (CmlModel) model = cml_model_load (path, &error);
        g_assert_no_error (error);
        return sim_from_model (model);
      }
  return sim_open (name);
}

/* SIM integrated by KIND at the fixed step H (rk8pd at rtol 1e-13, atol 1e-14). */
static inline void
var_use (CmlSimulation *sim, CmlIntegratorKind kind, double h)
{
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  o.h_fixed = h;
  if (kind == CML_INTEGRATOR_RK8PD)
    {
      o.rtol = 1e-13;
      o.atol = 1e-14;
    }
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_no_error (error);
}

static inline void
var_advance (CmlSimulation *sim, double t1)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (cml_simulation_advance (sim, t1, &error));
  g_assert_no_error (error);
}

/* The largest difference of the first N entries of the state (all when N is 0) at T
 * between SIM under KIND with step H and REF under rk8pd (both from t = 0). */
static inline double
var_state_error (CmlSimulation *ref, CmlSimulation *sim, CmlIntegratorKind kind, double h, double T,
                 guint n)
{
  var_use (ref, CML_INTEGRATOR_RK8PD, 0);
  var_use (sim, kind, h);
  var_advance (ref, T);
  var_advance (sim, T);
  const double *a = cml_simulation_get_state (ref), *b = cml_simulation_get_state (sim);
  double e = 0;
  if (n == 0)
    n = cml_system_dim (cml_simulation_get_system (sim));
  for (guint i = 0; i < n; i++)
    e = MAX (e, fabs (a[i] - b[i]));
  return e;
}

/* The largest difference of the states of MODEL (var_open) at T between KIND with step H
 * and rk8pd. */
static inline double
var_error_at (const char *model, CmlIntegratorKind kind, double h, double T)
{
  g_autoptr (CmlSimulation) ref = var_open (model);
  g_autoptr (CmlSimulation) sim = var_open (model);
  return var_state_error (ref, sim, kind, h, T, 0);
}

/* A CmlVariational of KIND and step H for SIM's system at SIM's parameters. */
static inline CmlVariational *
var_for (CmlSimulation *sim, CmlIntegratorKind kind, double h)
{
  g_autoptr (GError) error = NULL;
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  g_autofree double *params = g_new0 (double, md->params->len + 1);
  for (guint i = 0; i < md->params->len; i++)
    params[i] = cml_simulation_get_param (sim, ((CmlParam *) md->params->pdata[i])->name);
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  o.h_fixed = h;
  CmlVariational *var = cml_variational_new (sys, &o, params, &error);
  g_assert_no_error (error);
  g_assert_nonnull (var);
  return var;
}

/* The model's monitor NAME. */
static inline CmlExpr *
var_monitor (CmlSimulation *sim, const char *name)
{
  CmlModel *md = cml_system_get_model (cml_simulation_get_system (sim));
  for (guint i = 0; i < md->monitors->len; i++)
    {
      CmlNamedExpr *ne = md->monitors->pdata[i];
      if (g_str_equal (ne->name, name))
        return ne->expr;
    }
  g_assert_not_reached ();
}

/* A model file TEXT, loaded (written to a temporary FILE_NAME and removed again). */
static inline CmlSimulation *
var_text_model (const char *text, const char *file_name)
{
  g_autofree char *dir = g_dir_make_tmp ("test-variational-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, file_name, NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (path, &error);
  g_assert_no_error (error);
  g_remove (path);
  g_rmdir (dir);
  return sim_from_model (model);
}

/* SIM is refused by the variational integrator (CML_ERROR_USAGE) with a message holding
 * each of the strings given, up to NULL. */
static inline void G_GNUC_NULL_TERMINATED
var_assert_refused (CmlSimulation *sim, ...)
{
  g_autoptr (GError) error = NULL;
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = CML_INTEGRATOR_VARIATIONAL;
  g_assert_false (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_test_message ("%s", error->message);
  va_list ap;
  va_start (ap, sim);
  for (const char *want; (want = va_arg (ap, const char *));)
    if (!strstr (error->message, want))
      g_error ("the refusal «%s» does not say «%s»", error->message, want);
  va_end (ap);
}
