/* cml-application.c — the application (libadwaita's): command line, style, app-wide
 * actions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-application"

#include "cml-application.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include <epoxy/gl.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

#include "cml-help.h"
#include "cml-integrator.h"
#include "cml-style.h"
#include "cml-window-geometry.h"
#include "cml-window-steer.h"
#include "cml-window.h"

#ifndef CMLAB_APP_ID
#define CMLAB_APP_ID "org.cmlab.Cmlab"
#endif
#ifndef CMLAB_VERSION
#define CMLAB_VERSION "0"
#endif

#define DEFAULT_MODEL "rolling-ball"

struct _CmlApplication
{
  AdwApplication parent_instance;

  /* command-line options */
  char    *model;
  gboolean play;
  gboolean presentation;
  gboolean dark;
  double   quit_after;
  char    *frame_stats;
  char    *screenshot;
  int      width, height;  /* --window-size, or 0 */
  gboolean table_frame;
  gboolean closed_form;
  char    *page;           /* --page plots|equations */
  char    *compare;        /* --compare copy|vakonomic|integrator */
  char    *integrator;     /* --integrator NAME */
  double   step;           /* --step H (fixed-step integrators), or 0 */
  char   **orbits;         /* --orbit X,Y … (the section page) */
  double   target[3];      /* --target X,Y[,Z]: steer the run there (vakonomic models) */
  guint    n_target;
  double   target_time;    /* --target-time T, or 0: CML_SCENE_SHOOT_DEFAULT_T */
  char   **set;            /* --set NAME=VALUE … */
  char   **init;           /* --init NAME=VALUE … */
  char    *lesson;         /* --lesson FILE (then --step N is its step) */
};

G_DEFINE_FINAL_TYPE (CmlApplication, cml_application, ADW_TYPE_APPLICATION)

static const GOptionEntry option_entries[] = {
  { "model", 'm', 0, G_OPTION_ARG_STRING, NULL,
    N_("Open a built-in model (e.g. rolling-ball, plate-ball, martinet) or a model file"), "NAME" },
  { "play", 'p', 0, G_OPTION_ARG_NONE, NULL, N_("Start the simulation at once"), NULL },
  { "presentation", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Start in presentation mode (large fonts, thick lines)"), NULL },
  { "dark", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Use the dark style for this run (the style chosen in the menu is left alone)"), NULL },
  { "window-size", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Open the window at exactly this size (e.g. 1280x720); the remembered size is left alone"), "WxH" },
  { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL, N_("Set a parameter (as its slider would)"), "NAME=VALUE" },
  { "init", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
    N_("Give an initial value and start from it (as Apply & restart would)"), "NAME=VALUE" },
  { "table-frame", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Draw the trails in the turning table's frame"), NULL },
  { "closed-form", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Draw the model's closed forms over the plots"), NULL },
  { "page", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Show the plots, the equations, the Poincaré section, the sweep or the geometry (the fan of extremals) "
       "beside the view"),
    "plots|equations|section|sweep|geometry" },
  { "orbit", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
    N_("Start an orbit of the Poincaré section page from this point of its plot (shows the page)"), "X,Y" },
  { "target", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Steer the run (a vakonomic model) so that what its scene draws at plain coordinates is at this point at the "
    "end time (--target-time), as a click with Steer to a Target would"), "X,Y[,Z]" },
  { "target-time", 0, 0, G_OPTION_ARG_DOUBLE, NULL, N_("The end time for --target (default 5 time units)"), "T" },
  { "compare", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Draw a second run beside the first: a copy (made before --set and --init change the first), "
    "the vakonomic reading of the same system, or another integrator"), "copy|vakonomic|integrator" },
  { "integrator", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Integrate with this method (as its menu would: auto, the default, chooses for the system and tolerance; rk8pd, rk4, implicit-midpoint, variational, …)"), "NAME" },
  { "step", 0, 0, G_OPTION_ARG_DOUBLE, NULL,
    N_("The step of a fixed-step integrator (the nearest the menu offers: 0.2, 0.1, 0.05, 0.01, 0.001); "
       "with a lesson, the lesson’s step to show (1, 2, …)"), "H|N" },
  { "lesson", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    N_("Present a lesson (a .cmllesson file) step by step, from its first step or the one --step gives; "
       "Page Down and Page Up go to the next and the previous step"), "FILE" },
  { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    N_("Write a PNG of the window to FILE when --quit-after ends the run"), "FILE" },
  { "quit-after", 0, 0, G_OPTION_ARG_DOUBLE, NULL, N_("Close the window after SECONDS of wall time"), "SECONDS" },
  { "frame-stats", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    N_("Write frame-clock statistics (JSON) to FILE when the window closes"), "FILE" },
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
  { NULL }
};

static int
cml_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  CmlApplication *self = CML_APPLICATION (app);
  g_autofree char *stats = NULL;

  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("cmlab %s\n", CMLAB_VERSION);
      return 0;
    }
  g_autofree char *size = NULL;
  g_autofree char *shot = NULL;

  g_variant_dict_lookup (options, "model", "s", &self->model);
  self->table_frame = g_variant_dict_contains (options, "table-frame");
  self->closed_form = g_variant_dict_contains (options, "closed-form");
  g_variant_dict_lookup (options, "page", "s", &self->page);
  g_variant_dict_lookup (options, "compare", "s", &self->compare);
  g_variant_dict_lookup (options, "integrator", "s", &self->integrator);
  g_variant_dict_lookup (options, "step", "d", &self->step);
  {
    g_autofree char *lesson = NULL;

    if (g_variant_dict_lookup (options, "lesson", "^ay", &lesson))
      self->lesson = g_steal_pointer (&lesson);
  }
  if (self->integrator && !cml_integrator_kind_from_string (self->integrator, NULL))
    {
      g_printerr (_("cmlab: there is no integrator “%s” (cmlab-cli list integrators)\n"), self->integrator);
      return 2;
    }
  if (g_variant_dict_contains (options, "step") && !(self->step > 0))
    {
      g_printerr (_("cmlab: --step takes a number > 0\n"));
      return 2;
    }
  if (self->lesson && g_variant_dict_contains (options, "step")
      && (self->step != floor (self->step) || self->step > G_MAXUINT))
    {
      g_printerr (_("cmlab: with --lesson, --step takes the number of a step (1, 2, …)\n"));
      return 2;
    }
  g_variant_dict_lookup (options, "orbit", "^as", &self->orbits);
  for (char **o = self->orbits; o && *o; o++)
    {
      char *end = NULL;
      g_ascii_strtod (*o, &end);
      if (end == *o || *end != ',' || (g_ascii_strtod (end + 1, &end), *end != '\0'))
        {
          g_printerr (_("cmlab: --orbit takes X,Y (two numbers), not “%s”\n"), *o);
          return 2;
        }
    }
  g_autofree char *target = NULL;
  if (g_variant_dict_lookup (options, "target", "s", &target))
    {
      g_auto (GStrv) parts = g_strsplit (target, ",", -1);
      guint n = g_strv_length (parts);
      gboolean ok = n >= 1 && n <= 3;
      for (guint k = 0; ok && k < n; k++)
        {
          char *end = NULL;
          self->target[k] = g_ascii_strtod (parts[k], &end);
          ok = end != parts[k] && *end == '\0' && isfinite (self->target[k]);
        }
      if (!ok)
        {
          g_printerr (_("cmlab: --target takes X,Y or X,Y,Z (numbers), not “%s”\n"), target);
          return 2;
        }
      self->n_target = n;
    }
  if (g_variant_dict_lookup (options, "target-time", "d", &self->target_time)
      && !(self->target_time > 0 && isfinite (self->target_time)))
    {
      g_printerr (_("cmlab: --target-time takes a time > 0\n"));
      return 2;
    }
  if (self->compare && !g_strv_contains ((const char *const[]) { "copy", "vakonomic", "integrator", NULL },
                                         self->compare))
    {
      g_printerr (_("cmlab: --compare takes copy, vakonomic or integrator, not “%s”\n"), self->compare);
      return 2;
    }
  g_variant_dict_lookup (options, "set", "^as", &self->set);
  g_variant_dict_lookup (options, "init", "^as", &self->init);
  if (self->page && g_strcmp0 (self->page, "plots") != 0 && g_strcmp0 (self->page, "equations") != 0
      && g_strcmp0 (self->page, "section") != 0 && g_strcmp0 (self->page, "sweep") != 0
      && g_strcmp0 (self->page, "geometry") != 0)
    {
      g_printerr (_("cmlab: --page takes plots, equations, section, sweep or geometry, not “%s”\n"), self->page);
      return 2;
    }
  for (int pass = 0; pass < 2; pass++)
    for (char **a = pass ? self->init : self->set; a && *a; a++)
      {
        const char *eq = strchr (*a, '=');
        char *end = NULL;

        if (eq == NULL || eq == *a || (g_ascii_strtod (eq + 1, &end), end == eq + 1 || *end != '\0'))
          {
            g_printerr (_("cmlab: --%s takes NAME=VALUE with a number, not “%s”\n"), pass ? "init" : "set", *a);
            return 2;
          }
      }
  self->dark = g_variant_dict_contains (options, "dark");
  if (g_variant_dict_lookup (options, "window-size", "s", &size))
    {
      char *x = NULL;
      gint64 w = g_ascii_strtoll (size, &x, 10), h = 0;

      if (x && (*x == 'x' || *x == 'X'))
        h = g_ascii_strtoll (x + 1, &x, 10);
      if (x == NULL || *x != '\0' || w < 200 || h < 200 || w > 16384 || h > 16384)
        {
          g_printerr (_("cmlab: --window-size takes WIDTHxHEIGHT in pixels, e.g. 1280x720 (200 … 16384), not “%s”\n"),
                      size);
          return 2;
        }
      self->width = (int) w;
      self->height = (int) h;
    }
  if (g_variant_dict_lookup (options, "screenshot", "^ay", &shot))
    self->screenshot = g_steal_pointer (&shot);
  self->play = g_variant_dict_contains (options, "play");
  self->presentation = g_variant_dict_contains (options, "presentation");
  g_variant_dict_lookup (options, "quit-after", "d", &self->quit_after);
  if (g_variant_dict_lookup (options, "frame-stats", "^ay", &stats))
    self->frame_stats = g_steal_pointer (&stats);
  if (self->quit_after < 0)
    {
      g_printerr (_("cmlab: --quit-after needs a positive number of seconds\n"));
      return 2;
    }
  if (self->screenshot && self->quit_after <= 0)
    {
      g_printerr (_("cmlab: --screenshot is taken when the run ends: give --quit-after SECONDS\n"));
      return 2;
    }
  if (self->frame_stats && self->quit_after <= 0)
    g_printerr (_("cmlab: --frame-stats is written when the window closes; "
                "use --quit-after SECONDS for a timed run\n"));
  return -1;
}

/* The command line's options that belong to the window, applied as it is made and
 * before its model is derived: it shows at once. */
static void
present_window (CmlApplication *self, CmlWindow *window)
{
  if (self->width > 0)
    cml_window_set_fixed_size (window, self->width, self->height);
  if (self->dark)
    g_object_set (window, "dark", TRUE, NULL);
  if (self->presentation)
    g_object_set (window, "presentation", TRUE, NULL);
  if (self->screenshot)
    cml_window_set_screenshot (window, self->screenshot);
  if (self->table_frame)
    g_object_set (window, "table-frame", TRUE, NULL);
  if (self->closed_form)
    cml_window_show_closed_form (window, TRUE);
  if (self->page)
    cml_window_show_page (window, self->page);
  gtk_window_present (GTK_WINDOW (window));
}

/* How many opens of the command line's files a window still waits for: the run options
 * wait for the last. */
static int
pending_opens (CmlWindow *window)
{
  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (window), "cmlab-opens"));
}

static void
begin_open (CmlWindow *window)
{
  g_object_set_data (G_OBJECT (window), "cmlab-opens", GINT_TO_POINTER (pending_opens (window) + 1));
}

static void
end_open (CmlWindow *window)
{
  g_object_set_data (G_OBJECT (window), "cmlab-opens", GINT_TO_POINTER (pending_opens (window) - 1));
}

/* The options that belong to the run, applied once the model given is installed (its
 * system derived on a worker while the window showed what it derived), or has failed.
 * --quit-after counts from here, so a picture is of the model, however long its
 * derivation took. */
static void
apply_run_options (CmlApplication *self, CmlWindow *window, gboolean installed)
{
  if (installed && (self->integrator || (self->step > 0 && !self->lesson)))
    {
      CmlIntegratorKind kind = CML_INTEGRATOR_AUTO;
      if (self->integrator)
        cml_integrator_kind_from_string (self->integrator, &kind);
      cml_window_set_integrator (window, cml_integrator_kind_to_string (kind), self->lesson ? 0 : self->step, NULL);
    }
  if (installed && self->compare)
    {
      g_autoptr (GError) compare_error = NULL;

      if (!cml_window_compare_with (window, self->compare, &compare_error))
        {
          g_printerr ("cmlab: %s\n", compare_error->message);
          cml_window_show_error (window, _("Cannot compare these runs"), compare_error->message);
        }
    }
  if (installed && (self->set || self->init))
    {
      g_autoptr (GError) set_error = NULL;

      if (!cml_window_apply_command_line (window, (const char *const *) self->set,
                                          (const char *const *) self->init, &set_error))
        {
          g_printerr ("cmlab: %s\n", set_error->message);
          cml_window_show_error (window, _("Could not use the command line's values"), set_error->message);
        }
    }
  for (char **o = self->orbits; installed && o && *o; o++)
    {
      char *end = NULL;
      double x = g_ascii_strtod (*o, &end), y = g_ascii_strtod (end + 1, NULL);
      cml_window_start_orbit (window, x, y);
    }
  if (installed && g_strcmp0 (self->page, "geometry") == 0)
    cml_window_geometry_run_when_ready (window);
  if (installed && self->n_target > 0)
    cml_window_steer_when_ready (window, self->target, self->n_target, self->target_time);
  if (self->frame_stats || self->quit_after > 0)
    cml_window_set_frame_stats (window, self->frame_stats, self->quit_after);
  if (self->play)
    cml_window_play (window);
}

static void
on_opened (CmlWindow *window, gboolean installed, const GError *error, gpointer data)
{
  CmlApplication *self = data;

  if (error)
    g_printerr ("cmlab: %s\n", error->message);
  end_open (window);
  if (pending_opens (window) == 0)
    apply_run_options (self, window, installed);
}

static void
cml_application_activate (GApplication *app)
{
  CmlApplication *self = CML_APPLICATION (app);
  CmlWindow *window = cml_window_new (GTK_APPLICATION (app));
  g_autoptr (GError) error = NULL;
  const char *model = self->model ? self->model : DEFAULT_MODEL;

  present_window (self, window);
  if (self->lesson)
    {
      /* the lesson's step opens its own model (derived on a worker when it must be) */
      if (!cml_window_open_lesson (window, self->lesson, (guint) self->step, &error))
        {
          g_printerr ("cmlab: %s\n", error->message);
          cml_window_show_error (window, _("Could not open the lesson"), error->message);
          begin_open (window);
          if (!cml_window_load_then (window, model, on_opened, self, NULL))
            on_opened (window, FALSE, NULL, self);
          return;
        }
      apply_run_options (self, window, TRUE);
      return;
    }
  begin_open (window);
  if (!cml_window_load_then (window, model, on_opened, self, &error))
    {
      /* no other model in its place: the window says what went wrong, with the file and
       * the line, and offers the list of systems and "Open Again" */
      cml_window_show_load_error (window, g_file_test (model, G_FILE_TEST_EXISTS) ? model : NULL,
                                  error->message);
      on_opened (window, FALSE, error, self);
    }
}

static void
cml_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  CmlApplication *self = CML_APPLICATION (app);
  CmlWindow *window = cml_window_new (GTK_APPLICATION (app));
  gboolean loaded = FALSE, failed = FALSE, lesson = FALSE;

  present_window (self, window);
  /* each file read in turn and opened; the last opened is the one shown (the earlier ones
   * are derived too, for the list of systems), and the run options wait for it */
  for (int i = 0; i < n_files; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *path = g_file_get_path (files[i]);

      if (path && cml_is_lesson_path (path))
        {
          /* a lesson: its first step (or --step's) */
          if (cml_window_open_lesson (window, path, self->lesson ? 0 : (guint) self->step, &error))
            loaded = lesson = TRUE;
          else
            {
              g_printerr ("cmlab: %s\n", error->message);
              if (!loaded)
                {
                  begin_open (window);
                  if (!cml_window_load_then (window, self->model ? self->model : DEFAULT_MODEL, on_opened, self,
                                             NULL))
                    end_open (window);
                }
              loaded = TRUE;
              cml_window_show_error (window, _("Could not open the lesson"), error->message);
            }
          continue;
        }
      if (path && cml_is_session_path (path))
        {
          /* a session: the window shows its model, or says why not */
          begin_open (window);
          if (cml_window_open_session_then (window, path, on_opened, self, &error))
            loaded = TRUE;
          else
            {
              end_open (window);
              g_printerr ("cmlab: %s\n", error->message);
              if (!loaded)
                {
                  begin_open (window);
                  if (!cml_window_load_then (window, self->model ? self->model : DEFAULT_MODEL, on_opened, self,
                                             NULL))
                    end_open (window);
                }
              loaded = TRUE;
              cml_window_show_error (window, _("Could not open the session"), error->message);
            }
          continue;
        }
      begin_open (window);
      if (path && cml_window_load_then (window, path, on_opened, self, &error))
        {
          loaded = TRUE;
          continue;
        }
      end_open (window);
      g_printerr ("cmlab: %s\n", error ? error->message : _("not a local file"));
      if (!loaded && path)
        cml_window_show_load_error (window, path, error->message);
      else
        cml_window_open_file (window, files[i]); /* shows the error in the window */
      failed = TRUE;
    }
  /* a file that failed is not replaced by another model: its error stays in view */
  if (!loaded && !failed)
    {
      begin_open (window);
      if (!cml_window_load_then (window, self->model ? self->model : DEFAULT_MODEL, on_opened, self, NULL))
        end_open (window);
    }
  /* a lesson's step applies its own state once derived; the run options come now */
  if (pending_opens (window) == 0)
    apply_run_options (self, window, lesson);
}

static void
quit_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = user_data;
  GList *windows = g_list_copy (gtk_application_get_windows (app));

  /* close the windows (their workers stop) rather than leave them to exit () */
  for (GList *l = windows; l; l = l->next)
    gtk_window_destroy (l->data);
  g_list_free (windows);
  g_application_quit (G_APPLICATION (app));
}

static void
about_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = user_data;
  const char *developers[] = { "The cmlab authors", NULL };
  GtkWidget *about = adw_about_window_new ();

  g_object_set (about,
                "transient-for", gtk_application_get_active_window (app),
                "modal", TRUE,
                "application-name", "cmlab",
                "application-icon", CMLAB_APP_ID,
                "version", CMLAB_VERSION,
                "comments", _("Constrained Mechanics Lab: simulate and show mechanical systems "
                              "with nonholonomic and vakonomic constraints and singular "
                              "Lagrangians, from model files on Lie algebroids."),
                "license-type", GTK_LICENSE_GPL_3_0,
                "developers", developers,
                NULL);
  gtk_window_present (GTK_WINDOW (about));
}

/* F1: the user guide (cml-help.c chooses yelp, the HTML or a dialog saying where it is) */
static void
help_action (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  cml_help_show (gtk_application_get_active_window (GTK_APPLICATION (user_data)), NULL);
}

static const GActionEntry app_actions[] = {
  { .name = "quit", .activate = quit_action },
  { .name = "about", .activate = about_action },
  { .name = "help", .activate = help_action },
};

/* With software OpenGL (Mesa llvmpipe: no GPU, as under Xvfb) GTK's GL renderer repaints
 * the whole window every frame, about 50 ms at 1280×720 on two cores; the Cairo renderer
 * repaints only what changed, and the 3-D view and the plots still draw with OpenGL into
 * their own textures.  So: Cairo for the widgets on software GL, unless GSK_RENDERER says
 * otherwise.  Must run before the first window is realized. */
static void
choose_renderer (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  g_autoptr (GdkGLContext) context = NULL;
  const char *renderer;

  if (g_getenv ("GSK_RENDERER") || display == NULL)
    return;
  context = gdk_display_create_gl_context (display, NULL);
  if (context == NULL || !gdk_gl_context_realize (context, NULL))
    return;
  gdk_gl_context_make_current (context);
  renderer = (const char *) glGetString (GL_RENDERER);
  if (renderer && (strstr (renderer, "llvmpipe") || strstr (renderer, "softpipe")
                   || strstr (renderer, "SwiftShader")))
    {
      g_debug ("software OpenGL (%s): widgets drawn with Cairo", renderer);
      g_setenv ("GSK_RENDERER", "cairo", TRUE);
    }
  gdk_gl_context_clear_current ();
}

static void
cml_application_startup (GApplication *app)
{
  static const char *quit_accels[] = { "<Control>q", NULL };
  static const char *open_accels[] = { "<Control>o", NULL };
  static const char *save_session_accels[] = { "<Control>s", NULL };
  static const char *open_session_accels[] = { "<Control><Shift>o", NULL };
  static const char *presentation_accels[] = { "F5", NULL };
  static const char *help_accels[] = { "F1", NULL };

  /* GSL's default handler aborts the program; every status is handled instead */
  gsl_set_error_handler_off ();

  /* libadwaita's startup: its style sheet, and the desktop's style followed */
  G_APPLICATION_CLASS (cml_application_parent_class)->startup (app);
  choose_renderer ();
  {
    /* the style chosen in the menu the last time (--dark overrides it for this run) */
    g_autoptr (GSettings) settings = cml_window_open_settings ();
    cml_style_restore (settings);
  }

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open", open_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.save-session", save_session_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open-session", open_session_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.presentation", presentation_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.help", help_accels);
  cml_window_state_watch (GTK_APPLICATION (app));
}

static void
cml_application_finalize (GObject *object)
{
  CmlApplication *self = CML_APPLICATION (object);

  g_free (self->model);
  g_free (self->lesson);
  g_free (self->frame_stats);
  g_free (self->screenshot);
  g_free (self->page);
  g_free (self->compare);
  g_free (self->integrator);
  g_strfreev (self->orbits);
  g_strfreev (self->set);
  g_strfreev (self->init);

  G_OBJECT_CLASS (cml_application_parent_class)->finalize (object);
}

static void
cml_application_class_init (CmlApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = cml_application_finalize;
  app_class->handle_local_options = cml_application_handle_local_options;
  app_class->startup = cml_application_startup;
  app_class->activate = cml_application_activate;
  app_class->open = cml_application_open;
}

static void
cml_application_init (CmlApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), option_entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), "[FILE.cml|FILE.cmlsession…]");
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Constrained Mechanics Lab: opens the window on a model "
                                            "(the rolling ball by default)."));
}

CmlApplication *
cml_application_new (void)
{
  /* not unique: every invocation is its own window and worker (scripted benchmark runs
   * may overlap) */
  return g_object_new (CML_TYPE_APPLICATION,
                       "application-id", CMLAB_APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       "resource-base-path", "/org/cmlab/Cmlab",
                       NULL);
}
