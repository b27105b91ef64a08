/* cmlab-cli-render.c — the program behind `cmlab-cli plot` and `cmlab-cli render`: the two
 * commands that draw, in an executable of their own so that cmlab-cli itself links only
 * GLib and GSL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * cmlab-cli replaces itself with this program (execv, the same arguments and the same
 * process) for `plot` and `render`; it lives in the libexec directory, or beside cmlab-cli
 * in the build tree.  Run by hand it takes the same command line as cmlab-cli:
 * `cmlab-cli-render plot|render ARGS…`.  Exit status as cmlab-cli's.
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include <glib.h>
#include <gsl/gsl_errno.h>
#include <locale.h>
#include <stdio.h>

#include "cml-cli-common.h"

#include <glib/gi18n.h>
#include "cml-lesson-handout.h"
#include "cml-plot-cmd.h"
#include "cml-render-cmd.h"

#define EXIT_USAGE 2

int
main (int argc, char **argv)
{
  /* setlocale, bindtextdomain, bind_textdomain_codeset, textdomain */
  cml_cli_init_i18n ();
  gsl_set_error_handler_off ();
  /* every message on standard error, never among the output */
  g_log_writer_default_set_use_stderr (TRUE);

  if (argc >= 2 && (g_str_equal (argv[1], "plot") || g_str_equal (argv[1], "render")))
    cml_cli_set_command (argv[1]);
  if (argc >= 2 && g_str_equal (argv[1], "plot"))
    return cml_plot_main (argc - 2, argv + 2);
  if (argc >= 2 && g_str_equal (argv[1], "render"))
    return cml_render_main (argc - 2, argv + 2);
  if (argc >= 3 && g_str_equal (argv[1], "lesson") && g_str_equal (argv[2], "handout"))
    {
      cml_cli_set_command ("lesson");
      return cml_lesson_handout_main (argc - 3, argv + 3);
    }
  fputs (_("cmlab-cli-render: which command? plot, render or lesson handout (the rest are cmlab-cli's)\n"), stderr);
  return EXIT_USAGE;
}
