/* test-headless-cli.c — cmlab-cli with and without the render library (-Drender): the
 * commands it lists are the ones it has, and a command it was built without says so and
 * what to do instead, while the others run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-headless-cli"

#include "cli-util.h"

static void
test_commands (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "list", "commands", NULL), ==, 0);
  g_auto (GStrv) commands = g_strsplit (g_strstrip (out), "\n", -1);
  for (const char *const *c = (const char *const[]) { "simulate", "poincare", "sweep", "shoot", "info", "list", NULL };
       *c; c++)
    g_assert_true (g_strv_contains ((const char *const *) commands, *c));
#ifdef CMLAB_HAVE_RENDER
  g_assert_true (g_strv_contains ((const char *const *) commands, "plot"));
  g_assert_true (g_strv_contains ((const char *const *) commands, "render"));
#else
  g_assert_false (g_strv_contains ((const char *const *) commands, "plot"));
  g_assert_false (g_strv_contains ((const char *const *) commands, "render"));
#endif
}

/* Without the render library, plot and render are refused with the reason and the way out;
 * the simulation commands run either way. */
static void
test_without_render (void)
{
  g_autofree char *out = NULL, *err = NULL;
  g_assert_cmpint (cli_run (&out, &err, "simulate", "rolling-ball", "--t-end", "1", "--dt-out", "1", NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\n1,"));
#ifndef CMLAB_HAVE_RENDER
  for (const char *const *c = (const char *const[]) { "plot", "render", NULL }; *c; c++)
    {
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      g_assert_cmpint (cli_run (&out, &err, *c, "rolling-ball", "--t-end", "1", "-o", "x.png", NULL), ==, 2);
      g_assert_nonnull (strstr (err, "without the render library"));
      g_assert_nonnull (strstr (err, "simulate"));
      g_assert_false (g_file_test ("x.png", G_FILE_TEST_EXISTS));
    }
#endif
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/headless/commands", test_commands);
  g_test_add_func ("/cli/headless/without-render", test_without_render);
  return g_test_run ();
}
