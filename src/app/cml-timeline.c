/* cml-timeline.c — the timeline in the status line.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-timeline"

#include "cml-timeline.h"

#include <glib/gi18n.h>

#include <math.h>

#include "cml-model.h"
#include "cml-plot.h"

/* After the user moves the scrubber, frames do not move it for this long: the worker's
 * answer to a seek arrives a frame or two later, and a drag must not be pulled back. */
#define USER_HOLD_US 300000

struct _CmlTimeline
{
  GtkWidget        parent_instance;

  GtkCheckButton  *reverse_button;
  GtkScale        *scale;
  GtkAdjustment   *adjustment;
  GtkLabel        *span_label;
  GtkLabel        *distance_label;

  gboolean         updating;     /* the change comes from a frame, not from the user */
  gboolean         compact;      /* presentation mode: the distance without its coordinates' names */
  gint64           user_us;      /* when the user last moved the scrubber */
  char            *distance_text;
  gconstpointer    tooltip_system; /* the system the distance's tooltip was made for (compared only) */
  guint64          shown_seq;    /* the runner's number of the frame shown (its seq) */
};

G_DEFINE_FINAL_TYPE (CmlTimeline, cml_timeline, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_REVERSED,
  N_PROPS
};

enum
{
  SIGNAL_SEEK,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
on_value_changed (GtkAdjustment *adjustment, CmlTimeline *self)
{
  if (self->updating)
    return;
  self->user_us = g_get_monotonic_time ();
  g_signal_emit (self, signals[SIGNAL_SEEK], 0, gtk_adjustment_get_value (adjustment));
}

static void
on_reverse_toggled (GtkCheckButton *button, CmlTimeline *self)
{
  if (!self->updating)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REVERSED]);
}

/* "t = 3.25 s" style numbers: a dimensionless time reads best without a unit. */
static const char *
time_unit (CmlFrame *frame)
{
  const char *unit = frame->system ? cml_system_get_model (frame->system)->time_unit : NULL;

  return (unit == NULL || *unit == '\0' || g_str_equal (unit, "1")) ? "" : unit;
}

/* "x, y: 0.52 m from the start" ("0.52 m from the start" for more than two coordinates;
 * empty without a position), and its tooltip saying what it is. */
static char *
distance_text (CmlFrame *frame, gboolean compact)
{
  CmlModel *model = frame->system ? cml_system_get_model (frame->system) : NULL;
  g_autofree guint *index = NULL;
  g_autoptr (GString) names = g_string_new (NULL);
  const char *unit = NULL;
  guint n;

  if (model == NULL || frame->distance_unit == NULL || !isfinite (frame->distance))
    return g_strdup ("");
  index = g_new0 (guint, MAX (model->m, 1));
  n = cml_model_position_coords (model, index, &unit);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *shown = cml_expr_pretty_name (model->base[index[k]], FALSE);

      g_string_append_printf (names, "%s%s", k ? ", " : "", shown);
    }
  {
    g_autofree char *unit_text = cml_plot_format_unit (frame->distance_unit);

    /* more than two coordinates, or presentation mode's large type, would crowd the status
     * line: the tooltip names them */
    if (n > 2 || compact)
      /* TRANSLATORS: how far the body is from where the run started, and the unit: "0.52 m from the start" */
      return g_strdup_printf (_("%.3g %s from the start"), frame->distance, unit_text);
    /* TRANSLATORS: the body's position coordinates ("x, y"), how far they are from where the
     * run started, and the unit: "x, y: 0.52 m from the start" */
    return g_strdup_printf (_("%s: %.3g %s from the start"), names->str, frame->distance, unit_text);
  }
}

/* The tooltip: what the number is. */
static char *
distance_tooltip (CmlFrame *frame)
{
  CmlModel *model = frame->system ? cml_system_get_model (frame->system) : NULL;
  g_autofree guint *index = NULL;
  g_autoptr (GString) names = g_string_new (NULL);
  const char *unit = NULL;
  guint n;

  if (model == NULL)
    return NULL;
  index = g_new0 (guint, MAX (model->m, 1));
  n = cml_model_position_coords (model, index, &unit);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *shown = cml_expr_pretty_name (model->base[index[k]], FALSE);

      g_string_append_printf (names, "%sΔ%s²", k ? " + " : "", shown);
    }
  /* TRANSLATORS: the sum of squares ("Δx² + Δy²") */
  return g_strdup_printf (_("How far the body is from where it was when the run (or the last restart) began: "
                            "the straight-line distance √(%s)"), names->str);
}

void
cml_timeline_update (CmlTimeline *self, CmlFrame *frame)
{
  double lower = frame->recorded_t0, upper = frame->recorded_t1;
  const char *unit = time_unit (frame);
  char buf[96];

  g_return_if_fail (CML_IS_TIMELINE (self));
  g_return_if_fail (frame != NULL);

  self->shown_seq = frame->seq;
  if (isnan (lower))
    lower = upper = frame->t;
  upper = MAX (upper, frame->t);
  lower = MIN (lower, frame->t);

  self->updating = TRUE;
  if (g_get_monotonic_time () - self->user_us > USER_HOLD_US)
    gtk_adjustment_configure (self->adjustment, frame->t, lower, MAX (upper, lower + 1e-9),
                              (upper - lower) / 100, (upper - lower) / 10, 0);
  else
    {
      gtk_adjustment_set_lower (self->adjustment, lower);
      gtk_adjustment_set_upper (self->adjustment, MAX (upper, lower + 1e-9));
    }
  gtk_check_button_set_active (self->reverse_button, frame->direction < 0);
  self->updating = FALSE;

  /* a stopped run's reason needs the room in the status line; the scrubber stays, to go
   * back to before it went wrong */
  gtk_widget_set_visible (GTK_WIDGET (self->span_label), frame->state != CML_RUNNER_FAILED);
  /* shown only for a body with a position in one unit (x, y in m): a distance over angles
   * and lengths together would mean nothing */
  gtk_widget_set_visible (GTK_WIDGET (self->distance_label),
                          frame->state != CML_RUNNER_FAILED && frame->distance_unit && isfinite (frame->distance));

  /* the record keeps the newest samples only: once its start has moved on from t = 0, the
   * span says where it begins */
  if (lower > 0)
    /* TRANSLATORS: the recorded span beside the scrubber once its start has moved on,
     * "136.53–682.67 s" */
    g_snprintf (buf, sizeof buf, C_("timeline span", "%.2f–%.2f%s%s"), lower, upper, *unit ? " " : "", unit);
  else
    /* TRANSLATORS: the recorded span beside the scrubber, "of 8.08 s" */
    g_snprintf (buf, sizeof buf, C_("timeline span", "of %.2f%s%s"), upper, *unit ? " " : "", unit);
  gtk_label_set_text (self->span_label, buf);

  g_free (self->distance_text);
  self->distance_text = distance_text (frame, self->compact);
  gtk_label_set_text (self->distance_label, self->distance_text);
  /* in presentation mode the distance is read whole: its label takes the room its
   * longest text so far needs (it only grows, so the scrubber does not jitter) and the
   * scrubber the rest */
  if (self->compact)
    {
      int chars = (int) g_utf8_strlen (self->distance_text, -1) + 1;
      if (chars > gtk_label_get_width_chars (self->distance_label))
        {
          gtk_label_set_width_chars (self->distance_label, chars);
          gtk_label_set_max_width_chars (self->distance_label, MAX (chars, 24));
        }
    }
  if (frame->system != self->tooltip_system)
    {
      g_autofree char *tip = distance_tooltip (frame);

      gtk_widget_set_tooltip_text (GTK_WIDGET (self->distance_label), tip);
      self->tooltip_system = frame->system;
    }
}

gboolean
cml_timeline_get_reversed (CmlTimeline *self)
{
  g_return_val_if_fail (CML_IS_TIMELINE (self), FALSE);

  return gtk_check_button_get_active (self->reverse_button);
}

void
cml_timeline_set_reversed (CmlTimeline *self, gboolean reversed)
{
  g_return_if_fail (CML_IS_TIMELINE (self));

  gtk_check_button_set_active (self->reverse_button, reversed);
}

/* Presentation mode: the distance from the start without the names of its coordinates
 * (the tooltip still names them), so that it fits the status line in large type. */
void
cml_timeline_set_compact (CmlTimeline *self, gboolean compact)
{
  g_return_if_fail (CML_IS_TIMELINE (self));
  self->compact = !!compact;
  /* the label's room as the interface file gives it, until a text asks for more */
  gtk_label_set_width_chars (self->distance_label, 8);
  gtk_label_set_max_width_chars (self->distance_label, 24);
  /* and the scrubber gives up room for it: in large type on a 4:3 screen the line is
   * full */
  gtk_widget_set_size_request (GTK_WIDGET (self->scale), compact ? 60 : 120, -1);
}

const char *
cml_timeline_get_distance_text (CmlTimeline *self)
{
  g_return_val_if_fail (CML_IS_TIMELINE (self), NULL);

  return self->distance_text ? self->distance_text : "";
}

guint64
cml_timeline_get_shown_seq (CmlTimeline *self)
{
  g_return_val_if_fail (CML_IS_TIMELINE (self), 0);

  return self->shown_seq;
}

GtkRange *
cml_timeline_get_scale (CmlTimeline *self)
{
  g_return_val_if_fail (CML_IS_TIMELINE (self), NULL);

  return GTK_RANGE (self->scale);
}

GtkWidget *
cml_timeline_new (void)
{
  return g_object_new (CML_TYPE_TIMELINE, NULL);
}

static void
cml_timeline_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  CmlTimeline *self = CML_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_REVERSED:
      g_value_set_boolean (value, cml_timeline_get_reversed (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_timeline_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  CmlTimeline *self = CML_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_REVERSED:
      cml_timeline_set_reversed (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
cml_timeline_dispose (GObject *object)
{
  CmlTimeline *self = CML_TIMELINE (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_TIMELINE);
  G_OBJECT_CLASS (cml_timeline_parent_class)->dispose (object);
}

static void
cml_timeline_finalize (GObject *object)
{
  CmlTimeline *self = CML_TIMELINE (object);

  g_free (self->distance_text);
  G_OBJECT_CLASS (cml_timeline_parent_class)->finalize (object);
}

static void
cml_timeline_class_init (CmlTimelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = cml_timeline_get_property;
  object_class->set_property = cml_timeline_set_property;
  object_class->dispose = cml_timeline_dispose;
  object_class->finalize = cml_timeline_finalize;

  properties[PROP_REVERSED] =
    g_param_spec_boolean ("reversed", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* the user moved the scrubber to T (simulated time) */
  signals[SIGNAL_SEEK] = g_signal_new ("seek", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                       NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-timeline.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlTimeline, reverse_button);
  gtk_widget_class_bind_template_child (widget_class, CmlTimeline, scale);
  gtk_widget_class_bind_template_child (widget_class, CmlTimeline, adjustment);
  gtk_widget_class_bind_template_child (widget_class, CmlTimeline, span_label);
  gtk_widget_class_bind_template_child (widget_class, CmlTimeline, distance_label);
  gtk_widget_class_set_css_name (widget_class, "timeline");
}

static void
cml_timeline_init (CmlTimeline *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  g_signal_connect (self->adjustment, "value-changed", G_CALLBACK (on_value_changed), self);
  g_signal_connect (self->reverse_button, "toggled", G_CALLBACK (on_reverse_toggled), self);
}
