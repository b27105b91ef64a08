/* ui-util.h — what the window tests share: a display check, spinning the main loop
 * until a state holds (never for a time: a busy machine outlasts any fixed wait), and
 * windows that must be the last holder of themselves when a test ends.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <glib/gi18n.h>
#include <gsl/gsl_errno.h>
#include <gtk/gtk.h>

#include "cml-window-private.h"
#include "../test-tmp.h"

/* set by main () from gtk_init_check () */
static gboolean have_display;

#define SKIP_WITHOUT_DISPLAY()                                  \
  G_STMT_START {                                                \
    if (!have_display)                                          \
      {                                                         \
        g_test_skip ("no display (gtk_init_check failed)");     \
        return;                                                 \
      }                                                         \
  } G_STMT_END

typedef gboolean (*Condition) (gpointer data);

/* The longest time the main loop went without an iteration while spin_until ran: a
 * callback that blocks (a synchronous wait for a child process) would show here. */
static double longest_gap G_GNUC_UNUSED;

/* Spins the main loop until COND holds (TRUE) or SECONDS pass (FALSE). */
static inline gboolean
spin_until (Condition cond, gpointer data, double seconds)
{
  gint64 end = g_get_monotonic_time () + (gint64) (seconds * 1e6);
  gint64 last = g_get_monotonic_time ();

  while (!cond (data))
    {
      gint64 now = g_get_monotonic_time ();

      longest_gap = MAX (longest_gap, (now - last) / 1e6);
      if (now > end)
        return FALSE;
      last = now;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return TRUE;
}

/* The longest any wait_for may take: the bound only turns a hang into a failure, it is no
 * measure of how long a busy machine may take. */
#define WAIT_BOUND 600.0

/* Spins the main loop until COND holds; the test fails naming WHAT if it never does. */
static inline void
wait_for (Condition cond, gpointer data, const char *what)
{
  if (!spin_until (cond, data, WAIT_BOUND))
    g_error ("still waiting after %.0f s for %s", WAIT_BOUND, what);
}

/* Frames of a widget's frame clock, counted by a tick callback (which also keeps the clock
 * ticking while a test waits, when nothing else asks for a frame). */
typedef struct
{
  guint  ticks;
  guint  need;      /* wait_frames: the ticks to wait for */
  GArray *layout;   /* the allocations of the widget's tree at the last tick */
  guint  same;      /* ticks in a row with the same allocations */
} FrameCount;

static inline gboolean
count_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  FrameCount *c = data;

  c->ticks++;
  return G_SOURCE_CONTINUE;
}

static inline gboolean
ticked_enough (gpointer data)
{
  FrameCount *c = data;

  return c->ticks >= c->need;
}

/* Waits until WIDGET's frame clock has gone N frames on: time went by in the window's own
 * terms (a tick of frame k + 1 comes after frame k was laid out and painted). */
static inline void
wait_frames (GtkWidget *widget, guint n)
{
  FrameCount c = { .need = n };
  guint id = gtk_widget_add_tick_callback (widget, count_tick, &c, NULL);

  wait_for (ticked_enough, &c, "frames of the window");
  gtk_widget_remove_tick_callback (widget, id);
}

/* Appends WIDGET's and its descendants' mapped state, place and size to OUT; returns TRUE
 * while one of them is in a transition (a stack cross-fading from one page to another keeps
 * both mapped, a revealer sliding its child): a layout is not settled before those end. */
static inline gboolean
collect_layout (GtkWidget *widget, GArray *out)
{
  gboolean moving = (GTK_IS_STACK (widget) && gtk_stack_get_transition_running (GTK_STACK (widget)))
                    || (GTK_IS_REVEALER (widget)
                        && gtk_revealer_get_child_revealed (GTK_REVEALER (widget))
                             != gtk_revealer_get_reveal_child (GTK_REVEALER (widget)));
  int v[5] = { gtk_widget_get_mapped (widget), 0, 0, gtk_widget_get_width (widget),
               gtk_widget_get_height (widget) };
  graphene_point_t p = GRAPHENE_POINT_INIT (0, 0);
  GtkWidget *root = GTK_WIDGET (gtk_widget_get_root (widget));

  if (root && gtk_widget_compute_point (widget, root, &p, &p))
    {
      v[1] = (int) p.x;
      v[2] = (int) p.y;
    }
  g_array_append_vals (out, v, G_N_ELEMENTS (v));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child;
       child = gtk_widget_get_next_sibling (child))
    moving |= collect_layout (child, out);
  return moving;
}

static inline gboolean
layout_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  FrameCount *c = data;
  g_autoptr (GArray) now = g_array_new (FALSE, FALSE, sizeof (int));

  gboolean moving = collect_layout (widget, now);

  if (!moving && c->layout && c->layout->len == now->len
      && memcmp (c->layout->data, now->data, now->len * sizeof (int)) == 0)
    c->same++;
  else
    c->same = 0;
  g_clear_pointer (&c->layout, g_array_unref);
  c->layout = g_steal_pointer (&now);
  c->ticks++;
  return G_SOURCE_CONTINUE;
}

static inline gboolean
layout_still (gpointer data)
{
  FrameCount *c = data;

  return c->same >= 2;
}

/* Waits until the layout of WINDOW has settled: no stack or revealer in a transition, and
 * every widget's place and size the same over three frames in a row (a layout that takes a
 * few frames, as presentation mode's does, has ended). */
static inline void
wait_layout_settled (GtkWidget *window)
{
  FrameCount c = { 0 };
  guint id = gtk_widget_add_tick_callback (window, layout_tick, &c, NULL);

  wait_for (layout_still, &c, "the window's layout to settle");
  gtk_widget_remove_tick_callback (window, id);
  g_test_message ("the layout settled after %u frames", c.ticks);
  g_clear_pointer (&c.layout, g_array_unref);
}

typedef struct
{
  CmlWindow *win;
  guint64    seq;
} SeqWait;

static inline gboolean
timeline_shows_seq (gpointer data)
{
  SeqWait *s = data;

  return cml_timeline_get_shown_seq (s->win->timeline) >= s->seq;
}

/* Waits until the window shows the frame its runner published last (call after
 * cml_runner_sync): the timeline, the scene and the plots are given a frame together. */
static inline void
wait_window_shows_runner (CmlWindow *win)
{
  CmlFrame *f = cml_runner_get_frame (cml_window_get_runner (win));
  SeqWait s = { win, f->seq };

  cml_frame_unref (f);
  wait_for (timeline_shows_seq, &s, "the window to show the runner's last frame");
}

/* A shown window, with MODEL loaded unless NULL. */
static inline CmlWindow *
window_new (const char *model)
{
  CmlWindow *win = cml_window_new (NULL);
  g_autoptr (GError) error = NULL;

  g_object_ref (win); /* dropped by window_free, which checks it is the last */
  gtk_window_present (GTK_WINDOW (win));
  if (model)
    {
      g_assert_true (cml_window_load (win, model, &error));
      g_assert_no_error (error);
    }
  return win;
}

static inline gboolean
not_deriving (gpointer data)
{
  return cml_window_get_deriving (data) == NULL;
}

/* NAME picked in the list of systems, as a click would, and switched to: its system is
 * derived on a worker (cml-window-derive.c), waited for here (bounded). */
static inline gboolean
pick_model (CmlWindow *win, const char *name)
{
  return cml_model_picker_pick (win->model_picker, name) && spin_until (not_deriving, win, WAIT_BOUND);
}

static inline void
window_free (CmlWindow *win)
{
  gtk_window_destroy (GTK_WINDOW (win));
  /* nothing else may hold the window: its dispose stops and joins the worker, and an
   * export dialog holds it only weakly */
  g_assert_finalize_object (win);
}

/* A warning or critical from GTK, GLib or cmlab — fatal in a test, and perhaps raised by a
 * timer long after the code that armed it — goes to the test log with the call stack that
 * raised it, then on as before (the default handler ends the test).  A handler for the
 * domain comes before the test framework's, which would end the test without a stack. */
static void
log_with_backtrace (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    {
      void *frames[64];
      int n = backtrace (frames, G_N_ELEMENTS (frames));

      g_printerr ("%s: %s\ncall stack:\n", domain ? domain : "", message);
      backtrace_symbols_fd (frames, n, 2);
    }
  g_log_default_handler (domain, level, message, data);
}

/* A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL) goes to the test log with the call stack where
 * it happened, then ends the test as before (the default action, re-raised): a crash seen
 * once on a busy machine is then a stack to read, not a guess.  Not under AddressSanitizer,
 * whose own handler says more. */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
static void
crash_with_backtrace (int sig)
{
  static const char head[] = "\nthe test crashed; call stack:\n";
  void *frames[64];
  int n = backtrace (frames, G_N_ELEMENTS (frames));

  if (write (2, head, sizeof head - 1) < 0)
    {
    }
  backtrace_symbols_fd (frames, n, 2);
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
crash_handlers_install (void)
{
  static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
  void *frame;

  backtrace (&frame, 1); /* loads what backtrace needs now, not inside the handler */
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    signal (sigs[i], crash_with_backtrace);
}
#else
static void
crash_handlers_install (void)
{
}
#endif

/* The test process's private data home (ui_test_init), removed when the process exits. */
static char *ui_data_home;

static inline void
ui_data_home_remove (void)
{
  test_tmp_remove (ui_data_home);
  g_clear_pointer (&ui_data_home, g_free);
}

/* After g_test_init (): a quiet, private environment for the window, then the display. */
static inline void
ui_test_init (void)
{
  gsl_set_error_handler_off ();
  crash_handlers_install ();
  {
    static const char *const domains[] = {
      "Gtk", "Gdk", "Gsk", "GLib", "GLib-GObject", "GLib-GIO", "cml-window", "cml-window-io",
      "cml-window-actions", "cml-parameter-panel", "cml-equations-panel", "cml-plot-view",
      "cml-scene-view", "cml-scene-steer", "cml-section-view", "cml-sweep-view", "cml-timeline",
      "cml-export-dialog", "cml-pen-layer", "cml-window-pen", NULL,
    };
    for (guint i = 0; domains[i]; i++)
      g_log_set_handler (domains[i], G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING
                                       | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
                         log_with_backtrace, NULL);
  }
  /* errors go to the test log, not to modal dialogs nobody closes */
  g_setenv ("CMLAB_NO_DIALOGS", "1", TRUE);
  /* no accessibility bus under a bare Xvfb (its absence is a warning, fatal in tests) */
  g_setenv ("GTK_A11Y", "none", TRUE);
  /* recent sessions go to a private place, not the user's list; gone when the process
   * exits (after g_test_run (), or in a test's subprocess) */
  ui_data_home = test_tmp_dir_new ("cmlab-test-data-XXXXXX");
  g_setenv ("XDG_DATA_HOME", ui_data_home, TRUE);
  atexit (ui_data_home_remove);
  /* the build tree's translations (po/), for the runs under another language */
  if (g_getenv ("CMLAB_LOCALEDIR"))
    {
      bindtextdomain (GETTEXT_PACKAGE, g_getenv ("CMLAB_LOCALEDIR"));
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      textdomain (GETTEXT_PACKAGE);
    }
  have_display = gtk_init_check ();
}
