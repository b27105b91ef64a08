/* cml-window.h — the main window: run controls, model picker, parameters, 3-D view,
 * plots, equations and a status line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window owns one CmlRunner (the worker thread) and one tick callback that pulls the
 * newest frame and the new history samples into the views (the worker publishes frames; see cml-runner.h).
 * All functions: UI thread.
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-model.h"
#include "cml-runner.h"
#include "cml-session.h"

G_BEGIN_DECLS

#define CML_TYPE_WINDOW (cml_window_get_type ())
G_DECLARE_FINAL_TYPE (CmlWindow, cml_window, CML, WINDOW, GtkApplicationWindow)

CmlWindow *cml_window_new (GtkApplication *application);

/* What windows remember between runs (size, panes, style): the installed schema's
 * settings, or the build tree's; NULL without a schema. */
GSettings *cml_window_open_settings (void);

/* Opens a built-in model by name or a model file by path and switches to it.  On failure
 * (FILE:LINE: message) the window keeps what it was showing. */
gboolean   cml_window_load (CmlWindow *self, const char *name_or_path, GError **error);
/* The same for a file; failures are shown in a dialog. */
void       cml_window_open_file (CmlWindow *self, GFile *file);
/* How an open begun with cml_window_open_model_then ended: INSTALLED (the window shows
 * the model now), or not — ERROR says why (already shown in the window), or is NULL when
 * the window stopped waiting for it (another model chosen meanwhile). */
typedef void (*CmlWindowOpenedFunc) (CmlWindow *window, gboolean installed, const GError *error, gpointer data);

/* Switches to MODEL (already loaded) once its system is derived on a worker thread: the
 * window answers meanwhile and shows what it derives.  PATH (may be NULL) is the file it
 * came from, SESSION (may be NULL; taken) a session to open onto it.  THEN (may be NULL)
 * is called once, on this thread, when the open has ended — unless the window is
 * destroyed first. */
void       cml_window_open_model_then (CmlWindow *self, CmlModel *model, const char *path, CmlSession *session,
                                       CmlWindowOpenedFunc then, gpointer then_data);
/* The session file PATH read (FALSE and ERROR when it cannot be), then opened onto its
 * model as cml_window_open_model_then opens one. */
gboolean   cml_window_open_session_then (CmlWindow *self, const char *path, CmlWindowOpenedFunc then,
                                         gpointer then_data, GError **error);
/* cml_window_load, with the system derived on a worker as cml_window_open_model_then
 * derives it: FALSE (and ERROR) only when the model cannot be read (FILE:LINE: message). */
gboolean   cml_window_load_then (CmlWindow *self, const char *name_or_path, CmlWindowOpenedFunc then,
                                 gpointer then_data, GError **error);
/* Switches to MODEL (already loaded). */
gboolean   cml_window_set_model (CmlWindow *self, CmlModel *model, GError **error);

void       cml_window_play (CmlWindow *self);

/* A modal error dialog (with CMLAB_NO_DIALOGS set, a log message instead: tests). */
void       cml_window_show_error (CmlWindow *self, const char *primary, const char *secondary);
/* A model file that could not be opened: the error (FILE:LINE: message) takes the 3-D
 * view's place, with "Open Again", until a model runs.  PATH may be NULL. */
void       cml_window_show_load_error (CmlWindow *self, const char *path, const char *message);
/* The text of the toast shown now, or NULL. */
const char *cml_window_get_toast (CmlWindow *self);

/* Draws the model's closed forms over both plots (or not). */
void       cml_window_show_closed_form (CmlWindow *self, gboolean show);
/* Shows "plots" or "equations" beside the 3-D view. */
void       cml_window_show_page (CmlWindow *self, const char *page);
/* Chooses the integrator as its dropdown would (NAME as cmlab-cli takes it) and, for a
 * fixed-step one, the offered step nearest to STEP (0: leave it). */
gboolean   cml_window_set_integrator (CmlWindow *self, const char *name, double step, GError **error);
/* The command line's --set NAME=VALUE and --init NAME=VALUE (either may be NULL): the
 * parameters set, then a restart from the initial values given. */
gboolean   cml_window_apply_command_line (CmlWindow *self, const char *const *set, const char *const *init,
                                          GError **error);

/* Writes a PNG of the window, as it is drawn now, to PATH. */
gboolean   cml_window_save_screenshot (CmlWindow *self, const char *path, GError **error);
/* After --quit-after's time, save a screenshot to PATH before closing. */
void       cml_window_set_screenshot (CmlWindow *self, const char *path);
/* A fixed window size (--window-size): the remembered size is neither used nor changed. */
void       cml_window_set_fixed_size (CmlWindow *self, int width, int height);

/* From the frame clock, write frame statistics to PATH (may be NULL) and close the
 * window after QUIT_AFTER wall seconds (<= 0: never). */
void       cml_window_set_frame_stats (CmlWindow *self, const char *path, double quit_after);

/* The runner (NULL before a model is loaded), for scripts and tests. */
CmlRunner *cml_window_get_runner (CmlWindow *self);

/* Sessions (a .cmlsession key file, see cml-session.h): the model (embedded), the
 * newest parameters, the initial state of the current run, the integrator and the view
 * settings.  Opening validates everything before the window changes: on an error the
 * window keeps what it shows.  Both add the file to the recent sessions. */
gboolean   cml_window_save_session (CmlWindow *self, const char *path, GError **error);
/* The current run as a session, as Save Session writes it (free it): the run as it
 * started (t = 0) — the model, the newest parameters, the initial state it was reset from,
 * the integrator — with its derived system (session->system) and the view settings.
 * NULL with CML_ERROR_USAGE when no model is running.  What an export hands to
 * `cmlab-cli render --session`. */
CmlSession *cml_window_get_session (CmlWindow *self, GError **error);
gboolean   cml_window_open_session (CmlWindow *self, const char *path, GError **error);

/* The run's history as the plots hold it (time and every observable), as CSV (with the
 * '#' header of cml-output) or JSON, chosen by PATH's extension; written atomically. */
gboolean   cml_window_export_data (CmlWindow *self, const char *path, GError **error);

/* TRUE when PATH names a session file (by its extension). */
gboolean   cml_is_session_path (const char *path);
/* TRUE when PATH names a lesson file (.cmllesson). */
gboolean   cml_is_lesson_path (const char *path);

/* Lessons (a .cmllesson key file, see cml-lesson.h), presented step by step: opens the
 * lesson at PATH (checked whole first: on an error the window keeps what it shows) and
 * shows its step STEP (from 1; 0: the first), with its state, its caption for the class
 * and its prediction.  Page Down and Page Up go to the next and the previous step. */
gboolean   cml_window_open_lesson (CmlWindow *self, const char *path, guint step, GError **error);
/* Shows the lesson's step STEP (from 1): its state, caption and prediction. */
gboolean   cml_window_lesson_go_to (CmlWindow *self, guint step, GError **error);
/* The step shown (from 1; 0: no lesson) and how many there are. */
guint      cml_window_lesson_get_step (CmlWindow *self, guint *n_steps);
/* The class's answer to the step's question: a choice (from 1), or a number (CHOICE 0). */
gboolean   cml_window_lesson_answer (CmlWindow *self, guint choice, double number, GError **error);

/* Compares the run with a second one drawn faint beside it: WHAT is "copy" (this run as
 * it is now), "vakonomic" (the same Lagrangian and constraints read by the vakonomic
 * principle), "integrator" (another integrator and tolerance) or "none". */
gboolean    cml_window_compare_with (CmlWindow *self, const char *what, GError **error);

/* Shows the Poincaré section page and starts an orbit from its point (X, Y) once the run
 * has its first frame (as a click there would). */
void        cml_window_start_orbit (CmlWindow *self, double x, double y);

/* On SIGUSR1, the active window writes what it shows to $CMLAB_STATE_FILE, when that is
 * set (cml-window-state.c; the tests that drive the window from outside read it). */
void cml_window_state_watch (GtkApplication *app);

G_END_DECLS
