/* cml-export-command.c — the command line an animation export runs: where cmlab-cli
 * is, the run saved as a temporary session file, and `cmlab-cli render` with the
 * dialog's settings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-export-command"

#include "cml-export-dialog-private.h"

#include <glib/gi18n.h>

#include <glib/gstdio.h>
#include <unistd.h>

#include "cml-error.h"

/* ---- finding cmlab-cli ---------------------------------------------------------------- */

static gboolean
is_program (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (path, G_FILE_TEST_IS_DIR);
}


char *
cml_export_find_cli (GError **error)
{
  const char *env = g_getenv ("CMLAB_CLI");
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = exe ? g_path_get_dirname (exe) : NULL;
  g_autoptr (GPtrArray) tried = g_ptr_array_new_with_free_func (g_free);

  /* an explicit choice is the only one: a test that names a missing program means it */
  if (env && *env)
    {
      if (is_program (env))
        return g_strdup (env);
      g_set_error (error, CML_ERROR, CML_ERROR_IO,
                   _("cmlab-cli, the program that makes the animation, is not at %s (CMLAB_CLI)"), env);
      return NULL;
    }
  if (dir)
    {
      g_ptr_array_add (tried, g_build_filename (dir, "cmlab-cli", NULL));
      g_ptr_array_add (tried, g_build_filename (dir, "..", "cli", "cmlab-cli", NULL));
    }
#ifdef CMLAB_BINDIR
  g_ptr_array_add (tried, g_build_filename (CMLAB_BINDIR, "cmlab-cli", NULL));
#endif
  for (guint i = 0; i < tried->len; i++)
    if (is_program (tried->pdata[i]))
      return g_canonicalize_filename (tried->pdata[i], NULL);
  {
    char *on_path = g_find_program_in_path ("cmlab-cli");
    if (on_path)
      return on_path;
  }
  g_set_error (error, CML_ERROR, CML_ERROR_IO,
               _("cmlab-cli, the program that makes the animation, was not found beside this "
               "program%s%s%s nor on PATH: install it with cmlab, or name it with CMLAB_CLI"),
               dir ? " (" : "", dir ? dir : "", dir ? ")" : "");
  return NULL;
}


/* ---- the command line ----------------------------------------------------------------- */

static char *
format_double (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}


/* SESSION in a new temporary file (readable by its owner only): its path. */
char *
cml_export_session_file (CmlSession *session, GError **error)
{
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("cmlab-export-XXXXXX.cmlsession", &path, error);

  if (fd < 0)
    return NULL;
  close (fd);
  if (!cml_session_save (session, path, error))
    {
      g_unlink (path);
      return NULL;
    }
  return g_steal_pointer (&path);
}


static void
add (GPtrArray *argv, const char *a)
{
  g_ptr_array_add (argv, g_strdup (a));
}


static void
add_take (GPtrArray *argv, char *a)
{
  g_ptr_array_add (argv, a);
}



/* cmlab-cli render with the run in the session file SESSION and the dialog's settings. */
GPtrArray *
cml_export_dialog_build_argv (CmlExportDialog *self, const char *cli, const char *session)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  guint plot = gtk_drop_down_get_selected (self->plot_dropdown);

  add (argv, cli);
  add (argv, "render");
  add (argv, "--session");
  add (argv, session);
  add (argv, "--t-end");
  add_take (argv, format_double (gtk_spin_button_get_value (self->duration_spin)));
  add (argv, "--fps");
  add_take (argv, format_double (gtk_spin_button_get_value (self->fps_spin)));
  add (argv, "--speed");
  add_take (argv, format_double (gtk_spin_button_get_value (self->speed_spin)));
  add (argv, "--size");
  add_take (argv, g_strdup_printf ("%dx%d", gtk_spin_button_get_value_as_int (self->width_spin),
                                   gtk_spin_button_get_value_as_int (self->height_spin)));
  add (argv, "--frame");
  add (argv, gtk_drop_down_get_selected (self->frame_dropdown) == 1 ? "table" : "lab");
  if (plot > 0 && plot < g_list_model_get_n_items (G_LIST_MODEL (self->plot_names)))
    {
      add (argv, "--with-plot");
      add (argv, cml_export_dialog_plot_name (self, plot));
    }
  if (!gtk_check_button_get_active (self->clock_check))
    add (argv, "--no-clock");
  add (argv, "--progress");
  add (argv, "lines");
  add (argv, "-o");
  add (argv, self->output);
  g_ptr_array_add (argv, NULL);
  return argv;
}
