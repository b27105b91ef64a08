/* cml-window-status.c — the status line under the view and the timeline: the time
 * and its unit, the run's state, a note when the run cannot keep up, a failure explained in
 * plain words, and seeking or reversing time from the timeline.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <glib/gi18n.h>

#include "cml-run-failure.h"

#include <math.h>
#include <string.h>

/* ---- timeline hooks -------------------------------------------------------------------- */

/* At a recorded moment (after a seek) or in reversed time the plots and trails show the
 * run up to the frame's time: the record is read again from the runner and cut there (at
 * most 20 times a second while the time moves). */
void
cml_window_timeline_show_until (CmlWindow *self, CmlFrame *frame, gint64 now)
{
  double until = (frame->in_record || frame->direction < 0) ? frame->t : INFINITY;
  guint64 cursor = 0;

  if (until == self->shown_until || frame->generation != self->run_generation
      || frame->system != self->shown_system)
    return;
  if (isfinite (until) && isfinite (self->shown_until) && now - self->shown_until_us < 50000)
    return;
  self->shown_until = until;
  self->shown_until_us = now;

  cml_scene_view_clear_trails (self->scene_view);
  cml_plot_view_clear (self->time_plot);
  cml_plot_view_clear (self->phase_plot);
  cml_plot_queue_clear (self->plot_queue[0]);
  cml_plot_queue_clear (self->plot_queue[1]);
  for (;;)
    {
      guint n = cml_runner_read_history (self->runner, &cursor, self->history_cols, self->history_t,
                                         self->history_rows, self->history_cap, NULL);
      guint end = 0;

      while (end < n && self->history_t[end] <= until)
        end++;
      cml_window_push_rows (self, 0, end);
      if (end < n || n < self->history_cap)
        break;
    }
}

void
cml_window_on_timeline_seek (CmlWindow *self, double t)
{
  if (self->runner)
    cml_runner_seek (self->runner, t);
  cml_window_compare_seek (self, t);
}

void
cml_window_on_timeline_reversed (CmlWindow *self)
{
  if (self->runner)
    cml_runner_set_reversed (self->runner, cml_timeline_get_reversed (self->timeline));
  cml_window_compare_reversed (self, cml_timeline_get_reversed (self->timeline));
}

static void
format_time (char *buf, gsize size, double t, const char *unit)
{
  /* a dimensionless time (unit "1") reads best without one */
  const char *sep = (unit == NULL || *unit == '\0' || g_str_equal (unit, "1")) ? "" : " ";

  if (*sep == '\0')
    unit = "";
  if (fabs (t) < 1e5)
    g_snprintf (buf, size, "t = %.2f%s%s", t, sep, unit);
  else
    g_snprintf (buf, size, "t = %.4g%s%s", t, sep, unit);
}

void
cml_window_update_status (CmlWindow *self, CmlFrame *frame, gint64 now)
{
  CmlModel *model = cml_system_get_model (frame->system);
  const char *unit = model->time_unit ? model->time_unit : "s";
  char buf[256]; /* (the lagging note, translated, runs to some 100 bytes) */
  g_autofree char *tip = NULL;

  format_time (buf, sizeof buf, frame->t, unit);
  gtk_label_set_text (self->time_label, buf);

  g_snprintf (buf, sizeof buf, "×%g", frame->speed);
  gtk_label_set_text (self->speed_label, buf);

  switch (frame->state)
    {
    case CML_RUNNER_RUNNING:
      gtk_label_set_text (self->state_label, C_("run state", "running"));
      break;
    case CML_RUNNER_PAUSED:
      gtk_label_set_text (self->state_label, C_("run state", "paused"));
      break;
    case CML_RUNNER_FAILED:
    default:
      gtk_label_set_text (self->state_label, "");
      break;
    }

  /* how fast simulated time really goes, for the lagging note */
  if (frame->state == CML_RUNNER_RUNNING)
    {
      if (self->rate_wall0 == 0 || frame->t < self->rate_t0)
        {
          self->rate_wall0 = now;
          self->rate_t0 = frame->t;
        }
      else if (now - self->rate_wall0 >= 1000000)
        {
          self->effective_speed = (frame->t - self->rate_t0) / (1e-6 * (double) (now - self->rate_wall0));
          self->rate_wall0 = now;
          self->rate_t0 = frame->t;
        }
    }
  else
    self->rate_wall0 = 0;

  if (frame->state == CML_RUNNER_FAILED)
    {
      const char *message = frame->message ? frame->message : _("the run failed");

      if (g_strcmp0 (self->failure_shown, message) != 0)
        {
          g_autoptr (CmlRunFailure) why = cml_run_failure_explain (message, unit);

          g_free (self->failure_shown);
          self->failure_shown = g_strdup (message);
          gtk_label_set_text (self->failure_label, why->summary);
          gtk_widget_set_tooltip_text (GTK_WIDGET (self->failure_label), why->explanation);
          gtk_label_set_text (self->failure_explanation, why->explanation);
          gtk_label_set_text (self->failure_technical, message);
        }
      gtk_widget_set_visible (GTK_WIDGET (self->failure_box), TRUE);
      gtk_widget_set_visible (GTK_WIDGET (self->message_label), FALSE);
      gtk_label_set_text (self->message_label, "");
    }
  else
    {
      gtk_widget_set_visible (GTK_WIDGET (self->failure_box), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->message_label), TRUE);
      g_clear_pointer (&self->failure_shown, g_free);
      if (frame->message)
        gtk_label_set_text (self->message_label, frame->message);
      else if (frame->lagging && frame->state == CML_RUNNER_RUNNING)
        {
          /* short enough for the status bar of a 1024-pixel window: what happens and what
           * to do; the whole explanation in the tooltip */
          if (self->effective_speed > 0)
            {
              /* in presentation mode's large type only the numbers fit beside the timeline */
              if (self->presentation)
                /* TRANSLATORS: the speed reached, then the speed chosen (×1 is real time); the
                 * shortest note in the status bar, in presentation mode */
                g_snprintf (buf, sizeof buf, _("Plays at ×%.2g, not ×%g"), self->effective_speed, frame->speed);
              else
                /* TRANSLATORS: the speed reached, then the speed chosen (×1 is real time); a
                 * short note in the status bar */
                g_snprintf (buf, sizeof buf, _("Plays at ×%.2g, not ×%g: lower speed or use a faster integrator"),
                            self->effective_speed, frame->speed);
              /* TRANSLATORS: the speed chosen, then the speed reached (×1 is real time) */
              tip = g_strdup_printf (_("The simulation is slower than ×%g: it plays at ×%.2g, as fast as it is "
                                       "computed. Lower the speed or choose a faster integrator."),
                                     frame->speed, self->effective_speed);
            }
          else
            {
              if (self->presentation)
                /* TRANSLATORS: the speed chosen (×1 is real time); the shortest note in the
                 * status bar, in presentation mode */
                g_snprintf (buf, sizeof buf, _("Slower than ×%g"), frame->speed);
              else
                /* TRANSLATORS: the speed chosen (×1 is real time); a short note in the status bar */
                g_snprintf (buf, sizeof buf, _("Slower than ×%g: lower speed or use a faster integrator"),
                            frame->speed);
              /* TRANSLATORS: the speed chosen (×1 is real time) */
              tip = g_strdup_printf (_("The simulation is slower than ×%g: it plays as fast as it is computed. "
                                       "Lower the speed or choose a faster integrator."),
                                     frame->speed);
            }
          gtk_label_set_text (self->message_label, buf);
        }
      else
        gtk_label_set_text (self->message_label, "");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->message_label),
                                   tip ? tip : gtk_label_get_text (self->message_label));
    }
}

void
cml_window_update_play_button (CmlWindow *self, CmlRunnerState state)
{
  gboolean running = state == CML_RUNNER_RUNNING;

  gtk_button_set_icon_name (self->play_button, running ? "media-playback-pause-symbolic"
                                                       : "media-playback-start-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->play_button), running ? _("Pause (Space)") : _("Play (Space)"));
}
