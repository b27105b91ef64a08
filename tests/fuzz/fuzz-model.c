/* fuzz-model.c — libFuzzer harness for the model-file loader.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is the text of a model file.  It goes through what loading a file does:
 *
 *   cml_model_new_from_data  →  cml_system_new  →  cml_simulation_new (interpreted: native
 *   code is switched off with CMLAB_NATIVE=0, unless CMLAB_FUZZ_NATIVE=1: then the system's
 *   programs are written out as C, compiled and loaded, as the programs do)  →  a short
 *   cml_simulation_advance (with a small max_steps guard, so a fuzzed model cannot run
 *   for long) and the read-only queries the app makes (observe, scene, describe, units,
 *   lines, presets).
 *
 * Besides the sanitizers (ASan, UBSan, LeakSanitizer) it checks the loader's contract:
 * every failure sets a CML_ERROR that starts with "FILE:LINE:" (doc/model-format.md: "Every
 * problem is reported as FILE:LINE: message"); a failure without an error, or with an
 * unlocated one, aborts (a finding).  And the derived-system cache's (cml-system-cache.c):
 * a system derived and written is read back from the same text as the same system — as
 * many expressions, the same description, the same right-hand side bit for bit at the
 * initial state — or it is a finding.  The cache is $CMLAB_DERIVED_CACHE (tools/fuzz: in
 * its output directory, emptied at each run).
 *
 * Inputs with a NUL byte are skipped: cml_model_new_from_file () refuses them before the
 * parser runs, and cml_model_new_from_data () takes a C string.
 *
 * Built by tools/fuzz; reproduce a finding with `tools/fuzz repro model FILE`.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cml-error.h"
#include "cml-model.h"
#include "cml-system.h"
#include "cml-simulation.h"

#define DISPLAY_NAME "fuzz.cml"

/* Abort (a finding) unless ERROR is a located CML_ERROR from STAGE. */
static void
check_error (const char *stage, const GError *error)
{
  const char *msg, *p, *digits;

  if (error == NULL)
    {
      fprintf (stderr, "fuzz-model: %s failed without setting an error\n", stage);
      abort ();
    }
  if (error->domain != CML_ERROR)
    {
      fprintf (stderr, "fuzz-model: %s: error of domain %s, not CML_ERROR: %s\n", stage,
               g_quark_to_string (error->domain), error->message);
      abort ();
    }
  msg = error->message;
  if (!g_str_has_prefix (msg, DISPLAY_NAME ":"))
    {
      fprintf (stderr, "fuzz-model: %s: the error does not start with \"" DISPLAY_NAME ":\": %s\n",
               stage, msg);
      abort ();
    }
  p = digits = msg + strlen (DISPLAY_NAME ":");
  while (g_ascii_isdigit (*p))
    p++;
  if (p == digits || *p != ':')
    {
      fprintf (stderr, "fuzz-model: %s: the error does not name a line (\"FILE:LINE:\"): %s\n", stage,
               msg);
      abort ();
    }
}

/* Runs the simulation a little with every integrator-independent query the app makes. */
static void
exercise_simulation (CmlSystem *sys, CmlSimulation *sim)
{
  CmlModel *model = cml_system_get_model (sys);
  CmlIntegratorOptions opts = cml_integrator_options_default ();
  guint n_obs = cml_system_n_observables (sys);
  guint n_scene = cml_system_n_scene_values (sys);
  guint dim = cml_system_dim (sys);
  g_autofree double *obs = g_new0 (double, MAX (n_obs, 1));
  g_autofree double *scene = g_new0 (double, MAX (n_scene, 1));
  g_autofree double *dz = g_new0 (double, MAX (dim, 1));
  g_autofree double *reg = g_new0 (double, 64);
  g_autoptr (GError) error = NULL;

  /* the guard: few steps, a step-size floor that is reached quickly */
  opts.max_steps = 64;
  opts.h_min = 1e-9;
  if (!cml_simulation_set_integrator (sim, &opts, &error))
    check_error ("cml_simulation_set_integrator", error);
  g_clear_error (&error);

  for (guint i = 0; i < dim; i++)
    (void) cml_system_state_name (sys, i);
  for (guint i = 0; i < n_obs; i++)
    {
      const char *name = cml_system_observable_name (sys, i);
      (void) cml_system_observable_index (sys, name);
      (void) cml_model_unit (model, name);
    }
  (void) cml_simulation_eval_rhs (sim, dz, NULL);
  (void) cml_simulation_regularity_matrix (sim, reg, 64);

  /* failures of advance are expected (non-finite state, max_steps): the error must be set */
  if (!cml_simulation_advance (sim, 0.05, &error) && error == NULL)
    {
      fprintf (stderr, "fuzz-model: cml_simulation_advance failed without setting an error\n");
      abort ();
    }
  g_clear_error (&error);
  cml_simulation_observe (sim, obs);
  cml_simulation_eval_scene (sim, scene);
  (void) cml_simulation_residual (sim);

  /* each parameter to the ends of its range, then a reset (as the app's sliders do) */
  for (guint i = 0; i < model->params->len && i < 4; i++)
    {
      const CmlParam *par = model->params->pdata[i];
      double v = par->choices ? par->choices[par->n_choices - 1] : par->max;

      if (!cml_simulation_set_param (sim, par->name, v, &error) && error == NULL)
        abort ();
      g_clear_error (&error);
    }
  if (!cml_simulation_reset (sim, NULL, &error) && error == NULL)
    {
      fprintf (stderr, "fuzz-model: cml_simulation_reset failed without setting an error\n");
      abort ();
    }
  g_clear_error (&error);

  /* a preset as the app applies it: parameters set, the rest given to reset */
  if (model->presets->len > 0)
    {
      const CmlPreset *pre = model->presets->pdata[0];
      g_autoptr (GHashTable) given = g_hash_table_new (g_str_hash, g_str_equal);
      GHashTableIter it;
      gpointer key, value;

      g_hash_table_iter_init (&it, pre->values);
      while (g_hash_table_iter_next (&it, &key, &value))
        {
          if (cml_model_find_param (model, key))
            {
              (void) cml_simulation_set_param (sim, key, *(double *) value, &error);
              g_clear_error (&error);
            }
          else
            g_hash_table_insert (given, key, value);
        }
      if (!cml_simulation_reset (sim, given, &error) && error == NULL)
        {
          fprintf (stderr, "fuzz-model: cml_simulation_reset (preset) failed without setting an error\n");
          abort ();
        }
      g_clear_error (&error);
      (void) cml_simulation_get_projection_report (sim);
    }

  if (!cml_simulation_advance (sim, cml_simulation_get_time (sim) + 0.02, &error) && error == NULL)
    abort ();
  g_clear_error (&error);
  cml_simulation_observe (sim, obs);
  cml_simulation_eval_scene (sim, scene);
}

/* The system derived from TEXT (SYS, with N_NODES expressions in its context when it was
 * made) read back from the derived-system cache: the same system, or abort (). */
static void
check_round_trip (const char *text, CmlSystem *sys, guint n_nodes)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, DISPLAY_NAME, &error);
  g_autoptr (CmlSystem) back = model ? cml_system_new (model, &error) : NULL;
  g_autoptr (CmlSimulation) s1 = NULL, s2 = NULL;
  g_autofree char *d1 = NULL, *d2 = NULL;
  guint dim = cml_system_dim (sys);

  if (back == NULL)
    {
      fprintf (stderr, "fuzz-model: derived once, but not the second time: %s\n", error ? error->message : "?");
      abort ();
    }
  if (!cml_system_was_cached (back))
    return; /* not written (too large for the cache) */
  if (cml_expr_ctx_n_nodes (model->ctx) != n_nodes || cml_system_dim (back) != dim
      || cml_system_n_observables (back) != cml_system_n_observables (sys))
    {
      fprintf (stderr, "fuzz-model: the system read back is not the one derived (%u against %u expressions)\n",
               cml_expr_ctx_n_nodes (model->ctx), n_nodes);
      abort ();
    }
  d1 = cml_system_describe (sys);
  d2 = cml_system_describe (back);
  if (strcmp (d1, d2) != 0)
    {
      fprintf (stderr, "fuzz-model: the system read back describes itself otherwise\n");
      abort ();
    }
  s1 = cml_simulation_new (sys, NULL);
  s2 = cml_simulation_new (back, NULL);
  if ((s1 == NULL) != (s2 == NULL))
    {
      fprintf (stderr, "fuzz-model: one of the two systems starts a simulation, the other does not\n");
      abort ();
    }
  if (s1 != NULL)
    {
      g_autofree double *f1 = g_new0 (double, dim + 1), *f2 = g_new0 (double, dim + 1);
      gboolean ok1 = cml_simulation_eval_rhs (s1, f1, NULL), ok2 = cml_simulation_eval_rhs (s2, f2, NULL);
      if (ok1 != ok2 || (ok1 && memcmp (f1, f2, dim * sizeof (double)) != 0))
        {
          fprintf (stderr, "fuzz-model: the right-hand sides differ at the initial state\n");
          abort ();
        }
    }
}

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  /* as the programs do: GSL reports errors by status, not by abort () */
  gsl_set_error_handler_off ();
  /* the interpreter, unless CMLAB_FUZZ_NATIVE=1 (tools/fuzz's model-native target): native
   * code (cml-native.c) runs the C compiler for every input that reaches a simulation, a
   * thousand times slower than the rest, so it gets its own, shorter run; then the
   * generated C, its compilation, the cache and the loaded code are fuzzed too — compiled
   * before the simulation goes on (wait), so that each input runs the code made for it */
  if (g_strcmp0 (g_getenv ("CMLAB_FUZZ_NATIVE"), "1") != 0)
    g_setenv ("CMLAB_NATIVE", "0", TRUE);
  else
    g_setenv ("CMLAB_NATIVE", "wait", TRUE);
  /* a g_return_if_fail in the library is a bug the fuzzer found */
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = NULL;
  g_autoptr (CmlSystem) sys = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autofree char *text = NULL;

  if (memchr (data, 0, size) != NULL)
    return -1;
  text = g_malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';

  model = cml_model_new_from_data (text, DISPLAY_NAME, &error);
  if (model == NULL)
    {
      check_error ("cml_model_new_from_data", error);
      return 0;
    }
  if (error != NULL)
    {
      fprintf (stderr, "fuzz-model: the model loaded but an error was set: %s\n", error->message);
      abort ();
    }

  /* the read-only model queries */
  (void) cml_model_line (model, "dynamics", "lagrangian");
  (void) cml_model_line (model, "model", NULL);
  for (guint i = 0; i < model->params->len; i++)
    {
      const CmlParam *par = model->params->pdata[i];
      (void) cml_model_check_param (model, par, par->value, NULL);
      (void) cml_model_unit (model, par->name);
    }

  sys = cml_system_new (model, &error);
  if (sys == NULL)
    {
      check_error ("cml_system_new", error);
      return 0;
    }
  if (!cml_system_was_cached (sys))
    check_round_trip (text, sys, cml_expr_ctx_n_nodes (model->ctx));
  g_free (cml_system_describe (sys));

  sim = cml_simulation_new (sys, &error);
  if (sim == NULL)
    {
      check_error ("cml_simulation_new", error);
      return 0;
    }
  exercise_simulation (sys, sim);
  return 0;
}
