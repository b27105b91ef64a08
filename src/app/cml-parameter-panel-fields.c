/* cml-parameter-panel-fields.c — the panel's number fields: values written as people write them,
 * a typed value checked (a number, in range, possible with the other parameters) or refused
 * with the reason under the field, and the wheel that scrolls the panel over them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-parameter-panel"

#include "cml-parameter-panel-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

/* Numbers as a person writes them: 1, 0.4, 0.666667, 1e-06. */
gboolean
cml_parameter_panel_on_spin_output (GtkSpinButton *spin, gpointer user_data)
{
  char buf[64];
  double v = gtk_adjustment_get_value (gtk_spin_button_get_adjustment (spin));

  /* a value the teacher hid from the class (a lesson step's "hidden") */
  if (g_object_get_data (G_OBJECT (spin), "cml-hidden"))
    {
      if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (spin)), "?") != 0)
        gtk_editable_set_text (GTK_EDITABLE (spin), "?");
      return TRUE;
    }
  if (fabs (v) < 1e-300)
    v = 0.0;
  g_snprintf (buf, sizeof buf, "%.6g", v);
  if (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (spin)), buf) != 0)
    gtk_editable_set_text (GTK_EDITABLE (spin), buf);
  return TRUE;
}

/* ---- typed values ------------------------------------------------------------------------ */

/* Once the message has its place, the panel scrolls as little as brings it whole into
 * view (a field at the bottom of the visible part has its message below the edge). */
static gboolean
reveal_input_error (GtkWidget *label, GdkFrameClock *clock, gpointer data)
{
  CmlParameterPanel *self = data;
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  graphene_rect_t r;
  double top, bottom, value, page;

  if (self->input_error_grid == NULL)
    {
      self->reveal_id = 0;
      return G_SOURCE_REMOVE;
    }
  /* the frame that placed it lays it out after this tick: measure on the next */
  if (self->reveal_ticks++ == 0)
    return G_SOURCE_CONTINUE;
  if (!gtk_widget_compute_bounds (label, GTK_WIDGET (self->box), &r) || r.size.height <= 0)
    return G_SOURCE_CONTINUE; /* not laid out yet: the next frame */
  top = r.origin.y;
  bottom = r.origin.y + r.size.height;
  value = gtk_adjustment_get_value (adj);
  page = gtk_adjustment_get_page_size (adj);
  if (bottom > value + page)
    gtk_adjustment_set_value (adj, MIN (bottom - page, top));
  self->reveal_id = 0;
  return G_SOURCE_REMOVE;
}

/* The message leaves its row (and the row goes). */
void
cml_parameter_panel_hide_input_error (CmlParameterPanel *self)
{
  if (self->reveal_id)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->input_error_label), self->reveal_id);
  self->reveal_id = 0;
  if (self->input_error_grid)
    gtk_grid_remove_row (self->input_error_grid, self->input_error_row);
  self->input_error_grid = NULL;
}

/* Says why a typed value was refused, in a row of its own just under FIELD's row, where the
 * eye is; it stays until a value is taken or the model changes.  A field outside the grids
 * (none today) would get it under the parameters. */
void
cml_parameter_panel_show_input_error (CmlParameterPanel *self, GtkWidget *field, const char *text)
{
  GtkWidget *parent = field ? gtk_widget_get_parent (field) : NULL;
  GtkGrid *grid = parent && GTK_IS_GRID (parent) ? GTK_GRID (parent) : self->param_grid;
  int column, row = -1, width, height, columns;

  cml_parameter_panel_hide_input_error (self);
  if (field && parent == GTK_WIDGET (grid))
    gtk_grid_query_child (grid, field, &column, &row, &width, &height);
  else
    for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (grid)); c;
         c = gtk_widget_get_next_sibling (c))
      {
        int r;

        gtk_grid_query_child (grid, c, &column, &r, &width, &height);
        row = MAX (row, r);
      }
  /* the parameters' grid has name, slider, value, unit and menu; the others name, value, unit */
  columns = grid == self->param_grid ? 5 : 3;
  gtk_label_set_text (self->input_error_label, text);
  gtk_grid_insert_row (grid, row + 1);
  gtk_grid_attach (grid, GTK_WIDGET (self->input_error_label), 0, row + 1, columns, 1);
  self->input_error_grid = grid;
  self->input_error_row = row + 1;
  self->reveal_ticks = 0;
  if (self->reveal_id == 0)
    self->reveal_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->input_error_label),
                                                    reveal_input_error, self, NULL);
  if (field)
    gtk_widget_error_bell (field);
}

const char *
cml_parameter_panel_get_input_error (CmlParameterPanel *self)
{
  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), NULL);

  return self->input_error_grid ? gtk_label_get_text (self->input_error_label) : NULL;
}

GtkWidget *
cml_parameter_panel_get_input_error_widget (CmlParameterPanel *self)
{
  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), NULL);

  return self->input_error_grid ? GTK_WIDGET (self->input_error_label) : NULL;
}

/* A number as typed: "1.5", "-2e-3", with a decimal point or comma. */
static gboolean
parse_typed (const char *text, double *value)
{
  g_autofree char *t = g_strstrip (g_strdup (text));
  char *end = NULL;

  g_strdelimit (t, ",", '.');
  if (*t == '\0')
    return FALSE;
  *value = g_ascii_strtod (t, &end);
  return end && *end == '\0' && isfinite (*value);
}

typedef struct
{
  CmlParameterPanel *self;
  const char        *name;
  const char        *unit;
  ParamRow          *row;  /* the parameter's row, or NULL for an initial value */
} FieldInfo;

/* A requirement as people read it: "I₁ ≤ I₂ + I₃". */
static char *
requirement_pretty (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *c = text; *c;)
    {
      if (g_ascii_isalpha (*c) || *c == '_')
        {
          const char *end = c;

          while (g_ascii_isalnum (*end) || *end == '_')
            end++;
          g_autofree char *name = g_strndup (c, end - c);
          g_autofree char *pretty = cml_expr_pretty_name (name, FALSE);
          g_string_append (out, pretty);
          c = end;
        }
      else if ((c[0] == '<' || c[0] == '>') && c[1] == '=')
        {
          g_string_append (out, c[0] == '<' ? "≤" : "≥");
          c += 2;
        }
      else if (c[0] == '*')
        {
          g_string_append (out, "·");
          c++;
        }
      else
        g_string_append_c (out, *c++);
    }
  return g_string_free (out, FALSE);
}

/* Whether ROW's parameter may be VALUE with the others as they are: the model's
 * requirements (no body has I₁ > I₂ + I₃).  Else MESSAGE says why, for people. */
gboolean
cml_parameter_panel_param_possible (ParamRow *row, double value, char **message)
{
  CmlParameterPanel *self = row->self;
  CmlModel *model = self->sys ? cml_system_get_model (self->sys) : NULL;
  g_autofree double *values = NULL;
  const CmlRequirement *unmet;
  g_autofree char *cond = NULL;
  int index = -1;

  if (model == NULL || model->requirements->len == 0)
    return TRUE;
  values = g_new0 (double, model->params->len);
  for (guint i = 0; i < model->params->len; i++)
    {
      const CmlParam *p = model->params->pdata[i];
      ParamRow *r = cml_parameter_panel_find_param (self, p->name);

      values[i] = r == row ? value : r ? r->value : p->value;
      if (r == row)
        index = i;
    }
  if (index < 0 || (unmet = cml_model_unmet_requirement (model, values)) == NULL)
    return TRUE;
  cond = requirement_pretty (unmet->text);
  if (model->require_message)
    /* TRANSLATORS: a parameter, its value, a space and its unit (or nothing), why it is not
     * possible (from the model file), the condition ("I₁ ≤ I₂ + I₃"), the parameter, its value */
    *message = g_strdup_printf (_("%s = %g%s%s is not possible: %s (%s). %s stays %g."),
                                row->shown, value, *row->unit ? " " : "", row->unit,
                                model->require_message, cond, row->shown, row->value);
  else
    /* TRANSLATORS: a parameter, its value, a space and its unit (or nothing), the condition
     * ("I₁ ≤ I₂ + I₃"), the parameter, its value */
    *message = g_strdup_printf (_("%s = %g%s%s is not possible: the model needs %s. %s stays %g."),
                                row->shown, value, *row->unit ? " " : "", row->unit, cond,
                                row->shown, row->value);
  return FALSE;
}

/* The spin buttons' "input": a value that is not a number, or lies outside the allowed
 * range, is refused with a reason; the field keeps its previous value (the spin buttons
 * update only when valid). */
static int
on_spin_input (GtkSpinButton *spin, double *new_value, gpointer user_data)
{
  const FieldInfo *info = g_object_get_data (G_OBJECT (spin), "cml-field");
  const char *text = gtk_editable_get_text (GTK_EDITABLE (spin));
  GtkAdjustment *adj = gtk_spin_button_get_adjustment (spin);
  double lo = gtk_adjustment_get_lower (adj), hi = gtk_adjustment_get_upper (adj);
  const char *name = info ? info->name : _("the value");
  const char *unit = info && info->unit && *info->unit ? info->unit : NULL;
  double v;
  char shown[64];
  g_autofree char *msg_possible = NULL;

  /* a hidden value's "?" stands for the value it hides */
  if (g_object_get_data (G_OBJECT (spin), "cml-hidden"))
    {
      *new_value = gtk_adjustment_get_value (adj);
      return TRUE;
    }
  /* the text as "output" wrote it: the value keeps its full precision */
  g_snprintf (shown, sizeof shown, "%.6g",
              fabs (gtk_adjustment_get_value (adj)) < 1e-300 ? 0.0
                                                             : gtk_adjustment_get_value (adj));
  if (g_str_equal (text, shown))
    {
      *new_value = gtk_adjustment_get_value (adj);
      return TRUE;
    }
  if (text[strspn (text, " \t")] == '\0')
    {
      /* an emptied field: say what it wants, not that nothing is not a number */
      /* TRANSLATORS: the quantity's name, its value, a space and its unit (or nothing) */
      g_autofree char *msg
          = g_strdup_printf (_("Type a number for %s; it stays %g%s%s."), name,
                             gtk_adjustment_get_value (adj), unit ? " " : "", unit ? unit : "");
      if (info)
        cml_parameter_panel_show_input_error (info->self, GTK_WIDGET (spin), msg);
      return GTK_INPUT_ERROR;
    }
  if (!parse_typed (text, &v))
    {
      /* TRANSLATORS: the text typed, the quantity's name, its value, a space and its unit (or nothing) */
      g_autofree char *msg
          = g_strdup_printf (_("“%s” is not a number: %s stays %g%s%s."), text, name,
                             gtk_adjustment_get_value (adj), unit ? " " : "", unit ? unit : "");
      if (info)
        cml_parameter_panel_show_input_error (info->self, GTK_WIDGET (spin), msg);
      return GTK_INPUT_ERROR;
    }
  if (v < lo || v > hi)
    {
      g_autofree char *msg
          = g_strdup_printf (_("%s must be between %g and %g%s%s; it stays %g."), name, lo, hi,
                             unit ? " " : "", unit ? unit : "", gtk_adjustment_get_value (adj));
      if (info)
        cml_parameter_panel_show_input_error (info->self, GTK_WIDGET (spin), msg);
      return GTK_INPUT_ERROR;
    }
  if (info && info->row && !cml_parameter_panel_param_possible (info->row, v, &msg_possible))
    {
      cml_parameter_panel_show_input_error (info->self, GTK_WIDGET (spin), msg_possible);
      return GTK_INPUT_ERROR;
    }
  if (info)
    cml_parameter_panel_hide_input_error (info->self);
  *new_value = v;
  return TRUE;
}

/* ---- the wheel scrolls the panel --------------------------------------------------------- */

/* Over a slider or a number field that does not have the keyboard focus, the wheel
 * scrolls the panel and leaves the value alone: scrolling down to the presets must not
 * drag a parameter to its minimum on the way.  A focused control takes the wheel. */
gboolean
cml_parameter_panel_wheel_over (CmlParameterPanel *self, GtkWidget *widget, double dy,
                                gboolean notches)
{
  GtkAdjustment *adj;
  double page, delta;

  if (gtk_widget_get_state_flags (widget) & GTK_STATE_FLAG_FOCUS_WITHIN)
    return FALSE;
  adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  page = gtk_adjustment_get_page_size (adj);
  /* a wheel notch moves as far as the scrolled window's own would */
  delta = notches ? dy * pow (MAX (page, 1.0), 2.0 / 3.0) : dy;
  gtk_adjustment_set_value (adj, gtk_adjustment_get_value (adj) + delta);
  return TRUE;
}

static gboolean
on_value_scroll (GtkEventControllerScroll *controller, double dx, double dy, gpointer user_data)
{
  GtkWidget *w = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));

  return cml_parameter_panel_wheel_over (
      user_data, w, dy, gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL);
}

void
cml_parameter_panel_guard_wheel (CmlParameterPanel *self, GtkWidget *widget)
{
  GtkEventController *scroll
      = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);

  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_value_scroll), self);
  gtk_widget_add_controller (widget, scroll);
}

GtkSpinButton *
cml_parameter_panel_make_spin (CmlParameterPanel *self, ParamRow *row, const char *name,
                               const char *unit, double lower, double upper, double step,
                               double value)
{
  GtkAdjustment *adj = gtk_adjustment_new (value, lower, upper, step, 10 * step, 0);
  GtkWidget *spin = gtk_spin_button_new (adj, step, 6);
  FieldInfo *info = g_new0 (FieldInfo, 1);

  info->self = self;
  info->name = name;
  info->unit = unit;
  info->row = row;
  g_object_set_data_full (G_OBJECT (spin), "cml-field", info, g_free);
  {
    /* what the field is, for the tests that click it from outside (cml-window-state.c) */
    g_autofree char *id = g_strconcat ("cml-field:", name, NULL);
    gtk_widget_set_name (spin, id);
  }
  gtk_spin_button_set_numeric (GTK_SPIN_BUTTON (spin), FALSE);
  gtk_spin_button_set_update_policy (GTK_SPIN_BUTTON (spin), GTK_UPDATE_IF_VALID);
  /* room for a whole typical value, "-0.333333" or "1.23456e-05" (what "output" writes) */
  gtk_editable_set_width_chars (GTK_EDITABLE (spin), 11);
  /* Ctrl+Z is the panel's (the parameter's last change, field and slider together), not
   * the text's own: with the text's undo the field would go back alone */
  gtk_editable_set_enable_undo (GTK_EDITABLE (spin), FALSE);
  g_signal_connect (spin, "output", G_CALLBACK (cml_parameter_panel_on_spin_output), NULL);
  g_signal_connect (spin, "input", G_CALLBACK (on_spin_input), NULL);
  /* the default formatting ran before "output" was connected */
  cml_parameter_panel_on_spin_output (GTK_SPIN_BUTTON (spin), NULL);
  /* a field, not a stepper: the slider beside it steps, and the panel keeps its width
   * for the slider (Up and Down still step the value) */
  for (GtkWidget *c = gtk_widget_get_first_child (spin); c; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_BUTTON (c))
      gtk_widget_set_visible (c, FALSE);
  gtk_widget_add_css_class (spin, "value-field");
  cml_parameter_panel_guard_wheel (self, spin);
  return GTK_SPIN_BUTTON (spin);
}
