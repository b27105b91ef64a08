/* test-cli-common.c — the logic shared by cmlab-cli's commands (src/cli/cml-cli-common.c):
 * the run options parsed with GOptionContext, the progress line and the word on
 * stiffness, without a terminal.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib.h>
#include <string.h>

#include "cml-cli-common.h"

/* Parses ARGS (NULL-terminated) with the run options; the status, the model in *MODEL. */
static int
parse (CmlCliRunOptions *ro, char **model, const char *const *args)
{
  int argc = (int) g_strv_length ((char **) args);
  return cml_cli_parse_args (argc, (char **) args, NULL, NULL, ro, CML_CLI_RUN_OPTIONS_ALL, NULL, model);
}

static void
test_run_options (void)
{
  g_auto (CmlCliRunOptions) ro = { 0 };
  g_autofree char *model = NULL;
  const char *args[] = { "--set", "m=2", "rolling-ball", "--init", "x=-1", "--t-end", "1", "--t-end=5",
                         "--integrator", "msbdf", "--rtol", "1e-6", "--atol=1e-9", "-o", "-", "--set", "r=1", NULL };

  cml_cli_run_options_init (&ro);
  g_assert_cmpint (parse (&ro, &model, args), ==, CML_CLI_CONTINUE);
  g_assert_cmpstr (model, ==, "rolling-ball");
  g_assert_cmpuint (ro.sets->len, ==, 2);
  g_assert_cmpstr (ro.sets->pdata[1], ==, "r=1");
  g_assert_cmpstr (ro.inits->pdata[0], ==, "x=-1");
  g_assert_true (ro.has_t_end);
  g_assert_cmpfloat (ro.t_end, ==, 5);
  g_assert_true (ro.has_integrator);
  g_assert_cmpint (ro.kind, ==, CML_INTEGRATOR_MSBDF);
  g_assert_cmpfloat (ro.rtol, ==, 1e-6);
  g_assert_cmpfloat (ro.atol, ==, 1e-9);
  g_assert_cmpstr (ro.output, ==, "-");

  /* the integrator's options: tolerances for an adaptive method */
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  g_assert_cmpint (cml_cli_run_options_integrator (&ro, &iopt, NULL), ==, 0);
  g_assert_cmpint (iopt.kind, ==, CML_INTEGRATOR_MSBDF);
  g_assert_cmpfloat (iopt.rtol, ==, 1e-6);
}

/* Each bad argument: exit status 2 and what standard error says (in a subprocess). */
static void
test_run_options_errors (void)
{
  struct { const char *args[8]; const char *expect; } cases[] = {
    { { "m", "-o" }, "option -o needs a value" },
    { { "m", "--t-end" }, "option --t-end needs a value" },
    { { "m", "-o=" }, "-o needs a file name" },
    { { "m", "--t-end", "-1" }, "--t-end needs a number > 0" },
    { { "m", "--rtol", "1" }, "--rtol needs a number between 0 and 1" },
    { { "m", "--atol", "0" }, "--atol needs a number > 0" },
    { { "m", "--step", "nan" }, "--step needs a number > 0" },
    { { "m", "--integrator", "euler" }, "unknown integrator “euler”" },
    { { "m", "--bogus" }, "unknown option “--bogus”" },
    { { "m", "n" }, "unexpected argument “n”" },
    { { "--t-end", "1" }, "which model?" },
    { { "m", "--step", "0.1" }, "--step sets the step of a fixed-step integrator" },
    { { "m", "--integrator", "implicit-midpoint", "--rtol", "1e-6" }, "--rtol and --atol do not apply" },
  };
  if (g_test_subprocess ())
    {
      guint k = (guint) g_ascii_strtoull (g_getenv ("CASE"), NULL, 10);
      g_auto (CmlCliRunOptions) ro = { 0 };
      g_autofree char *model = NULL;
      cml_cli_run_options_init (&ro);
      int st = parse (&ro, &model, cases[k].args);
      if (st == CML_CLI_CONTINUE)
        {
          g_autofree char *path = NULL;
          CmlIntegratorOptions iopt = cml_integrator_options_default ();
          st = cml_cli_run_options_integrator (&ro, &iopt, NULL);
          if (st == 0 && !cml_cli_check_output_path ("-o", ro.output, &path))
            {
              g_printerr ("cmlab-cli: %s\n", path);
              st = 2;
            }
        }
      exit (st);
    }
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *n = g_strdup_printf ("%u", k);
      g_setenv ("CASE", n, TRUE);
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDIN);
      g_test_trap_assert_failed ();
      g_autofree char *pattern = g_strdup_printf ("*%s*", cases[k].expect);
      g_test_trap_assert_stderr (pattern);
    }
}

static void
test_help (void)
{
  if (g_test_subprocess ())
    {
      g_auto (CmlCliRunOptions) ro = { 0 };
      g_autofree char *model = NULL;
      const char *args[] = { "m", "-h", NULL };
      cml_cli_run_options_init (&ro);
      int st = cml_cli_parse_args (2, (char **) args, NULL, NULL, &ro, CML_CLI_RUN_OPTIONS_SET_ONLY,
                                   "Usage: the command\n", &model);
      exit (st == 0 ? 0 : 3);
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("Usage: the command\n");
}

/* Only on a terminal, not in the first second, at most four times a second. */
static void
test_progress_line (void)
{
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  CmlCliProgress p;
  char *line;

  cml_cli_progress_init (&p, "simulating", &iopt);
  g_assert_true (iopt.stats == &p.stats);
  p.start = p.last = 0;
  p.tty = FALSE;
  g_assert_null (cml_cli_progress_line (&p, 5, 10, 3 * G_USEC_PER_SEC));
  p.tty = TRUE;
  g_assert_null (cml_cli_progress_line (&p, 1, 10, G_USEC_PER_SEC / 2));
  line = cml_cli_progress_line (&p, 5, 10, 2 * G_USEC_PER_SEC);
  g_assert_cmpstr (line, ==, "simulating: t = 5 of 10 (50%), 2 s left");
  g_free (line);
  /* a tenth of a second later: nothing new */
  g_assert_null (cml_cli_progress_line (&p, 6, 10, 2 * G_USEC_PER_SEC + G_USEC_PER_SEC / 10));
  line = cml_cli_progress_line (&p, 0, 10, 3 * G_USEC_PER_SEC);
  g_assert_cmpstr (line, ==, "simulating: t = 0 of 10");
  g_free (line);
}

/* The word on stiffness: explicit methods only, once, from the integrator's stats. */
static void
test_stiff_logic (void)
{
  CmlIntegratorStats s = { 0 };
  CmlIntegratorOptions iopt = cml_integrator_options_default ();
  CmlCliProgress p;
  char *note;

  /* too short a run to say */
  s.n_steps = 500;
  s.n_rejected = 600;
  g_assert_false (cml_cli_looks_stiff (&s));
  /* most tries rejected */
  s.n_steps = 2000;
  s.n_rejected = 2100;
  g_assert_true (cml_cli_looks_stiff (&s));
  /* the usual share of rejections of GSL's controller (15–25 %), the step not at the limit */
  s.n_rejected = 500;
  s.n_stiff_checks = 30;
  s.n_stiff = 3;
  g_assert_false (cml_cli_looks_stiff (&s));
  /* the step at the stability limit in most estimates */
  s.n_stiff = 25;
  g_assert_true (cml_cli_looks_stiff (&s));
  s.n_stiff_checks = 4;
  s.n_stiff = 4;
  g_assert_false (cml_cli_looks_stiff (&s));

  /* auto, then the method it chose (rk8pd here) */
  cml_cli_progress_init (&p, "simulating", &iopt);
  cml_cli_progress_set_kind (&p, CML_INTEGRATOR_RK8PD);
  p.stats = (CmlIntegratorStats){ .n_steps = 5000, .n_rejected = 1000, .h = 5e-6, .n_stiff_checks = 78,
                                  .n_stiff = 70 };
  note = cml_cli_progress_note (&p, 0.5, p.start, 0.5);
  g_assert_nonnull (note);
  g_assert_true (g_str_has_prefix (note, "the system looks stiff here: try --integrator msbdf"));
  g_free (note);
  /* once */
  g_assert_null (cml_cli_progress_note (&p, 0.6, p.start, 0.6));

  /* msbdf: never */
  iopt.kind = CML_INTEGRATOR_MSBDF;
  cml_cli_progress_init (&p, "simulating", &iopt);
  p.stats = (CmlIntegratorStats){ .n_steps = 5000, .n_rejected = 6000, .n_stiff_checks = 78, .n_stiff = 70 };
  g_assert_null (cml_cli_progress_note (&p, 0.5, p.start + 60 * G_USEC_PER_SEC, 0.0));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/run-options/parse", test_run_options);
  g_test_add_func ("/cli/run-options/errors", test_run_options_errors);
  g_test_add_func ("/cli/run-options/help", test_help);
  g_test_add_func ("/cli/progress/line", test_progress_line);
  g_test_add_func ("/cli/progress/stiff-logic", test_stiff_logic);
  return g_test_run ();
}
