/* cml-parameter-panel.c — parameters, presets and initial conditions of the running model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-parameter-panel"

#include "cml-parameter-panel-private.h"

#include <glib/gi18n.h>

#include "cml-error.h"
#include "cml-plot.h"

#include <math.h>
#include <string.h>

typedef struct
{
  CmlParameterPanel *self;
  char          *name;
  char          *shown;      /* as people read it: "Ω", "k₂" */
  char          *unit;       /* for messages ("" when dimensionless) */
  double         min, max, value;
  gboolean       log_scale;  /* the slider moves log10 (value): ranges over decades */
  GtkSpinButton *spin;
  GtkScale      *scale;
  GtkDropDown   *choice;     /* instead of spin + scale for a set of allowed values */
  double        *choices;
  guint          n_choices;
} ParamRow;

typedef struct
{
  CmlParameterPanel *self;
  char          *name;
  char          *shown;     /* as people read it: "w₁" */
  char          *unit;      /* for messages ("" when dimensionless) */
  gboolean       in_model;  /* given in the model's [initial] */
  gboolean       edited;    /* changed by the user since the last run started */
  GtkSpinButton *spin;
  GtkLabel      *label;
} InitialRow;

struct _CmlParameterPanel
{
  GtkWidget    parent_instance;

  /* template */
  GtkBox      *outer;
  GtkBox      *box;
  GtkLabel    *params_heading;
  GtkButton   *defaults_button;
  GtkGrid     *param_grid;
  GtkLabel    *no_params_label;
  GtkBox      *preset_box;
  GtkDropDown *preset_dropdown;
  GtkButton   *preset_apply_button;
  GtkLabel    *initial_heading;
  GtkGrid     *initial_grid;
  GtkExpander *recon_expander;
  GtkGrid     *recon_grid;
  GtkScrolledWindow *scroller;
  GtkLabel    *input_error_label; /* ours: put in the row under the refused field */
  GtkGrid     *input_error_grid;  /* where it is now (NULL: not shown) … */
  int          input_error_row;   /* … in its own row */
  guint        reveal_ticks;      /* frames since it was placed (reveal_input_error) */
  guint        reveal_id;         /* that tick callback, or 0 */
  GtkButton   *restart_button;
  GtkLabel    *projection_label;

  /* undo and redo: UndoStep*, newest last */
  GPtrArray   *undo;
  GPtrArray   *redo;
  char        *last_param;      /* the parameter of the newest undo step, for coalescing a drag */
  gint64       last_param_us;
  gboolean     restoring;       /* undoing or redoing: record nothing */

  CmlSystem   *sys;
  GPtrArray   *params;    /* ParamRow* */
  GPtrArray   *initial;   /* InitialRow* */
  GHashTable  *given;     /* last applied initial values, or NULL */
  GHashTable  *pending;   /* what the last restart asked for, until its first sample */
  gboolean     updating;  /* setting widgets from code: no signals */
  char        *note;
};

G_DEFINE_FINAL_TYPE (CmlParameterPanel, cml_parameter_panel, GTK_TYPE_WIDGET)

enum
{
  PARAM_CHANGED,
  RESTART_REQUESTED,
  SWEEP_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
param_row_free (ParamRow *row)
{
  g_free (row->name);
  g_free (row->shown);
  g_free (row->unit);
  g_free (row->choices);
  g_free (row);
}

static void
initial_row_free (InitialRow *row)
{
  g_free (row->name);
  g_free (row->shown);
  g_free (row->unit);
  g_free (row);
}

static GHashTable *
values_table_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
values_table_set (GHashTable *table, const char *name, double value)
{
  double *v = g_new (double, 1);

  *v = value;
  g_hash_table_replace (table, g_strdup (name), v);
}

/* Numbers as a person writes them: 1, 0.4, 0.666667, 1e-06. */
static gboolean
on_spin_output (GtkSpinButton *spin, gpointer user_data)
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
static void
hide_input_error (CmlParameterPanel *self)
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
static void
show_input_error (CmlParameterPanel *self, GtkWidget *field, const char *text)
{
  GtkWidget *parent = field ? gtk_widget_get_parent (field) : NULL;
  GtkGrid *grid = parent && GTK_IS_GRID (parent) ? GTK_GRID (parent) : self->param_grid;
  int column, row = -1, width, height, columns;

  hide_input_error (self);
  if (field && parent == GTK_WIDGET (grid))
    gtk_grid_query_child (grid, field, &column, &row, &width, &height);
  else
    for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (grid)); c; c = gtk_widget_get_next_sibling (c))
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
    self->reveal_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->input_error_label), reveal_input_error, self, NULL);
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

static ParamRow *find_param (CmlParameterPanel *self, const char *name);

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
static gboolean
param_possible (ParamRow *row, double value, char **message)
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
      ParamRow *r = find_param (self, p->name);

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
    *message = g_strdup_printf (_("%s = %g%s%s is not possible: %s (%s). %s stays %g."), row->shown, value,
                                *row->unit ? " " : "", row->unit, model->require_message, cond, row->shown,
                                row->value);
  else
    /* TRANSLATORS: a parameter, its value, a space and its unit (or nothing), the condition
     * ("I₁ ≤ I₂ + I₃"), the parameter, its value */
    *message = g_strdup_printf (_("%s = %g%s%s is not possible: the model needs %s. %s stays %g."), row->shown,
                                value, *row->unit ? " " : "", row->unit, cond, row->shown, row->value);
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
  g_snprintf (shown, sizeof shown, "%.6g", fabs (gtk_adjustment_get_value (adj)) < 1e-300 ? 0.0 : gtk_adjustment_get_value (adj));
  if (g_str_equal (text, shown))
    {
      *new_value = gtk_adjustment_get_value (adj);
      return TRUE;
    }
  if (text[strspn (text, " \t")] == '\0')
    {
      /* an emptied field: say what it wants, not that nothing is not a number */
      /* TRANSLATORS: the quantity's name, its value, a space and its unit (or nothing) */
      g_autofree char *msg = g_strdup_printf (_("Type a number for %s; it stays %g%s%s."), name,
                                              gtk_adjustment_get_value (adj), unit ? " " : "", unit ? unit : "");
      if (info)
        show_input_error (info->self, GTK_WIDGET (spin), msg);
      return GTK_INPUT_ERROR;
    }
  if (!parse_typed (text, &v))
    {
      /* TRANSLATORS: the text typed, the quantity's name, its value, a space and its unit (or nothing) */
      g_autofree char *msg = g_strdup_printf (_("“%s” is not a number: %s stays %g%s%s."), text, name,
                                              gtk_adjustment_get_value (adj), unit ? " " : "", unit ? unit : "");
      if (info)
        show_input_error (info->self, GTK_WIDGET (spin), msg);
      return GTK_INPUT_ERROR;
    }
  if (v < lo || v > hi)
    {
      g_autofree char *msg = g_strdup_printf (_("%s must be between %g and %g%s%s; it stays %g."), name, lo, hi,
                                              unit ? " " : "", unit ? unit : "", gtk_adjustment_get_value (adj));
      if (info)
        show_input_error (info->self, GTK_WIDGET (spin), msg);
      return GTK_INPUT_ERROR;
    }
  if (info && info->row && !param_possible (info->row, v, &msg_possible))
    {
      show_input_error (info->self, GTK_WIDGET (spin), msg_possible);
      return GTK_INPUT_ERROR;
    }
  if (info)
    hide_input_error (info->self);
  *new_value = v;
  return TRUE;
}

/* ---- the wheel scrolls the panel --------------------------------------------------------- */

/* Over a slider or a number field that does not have the keyboard focus, the wheel
 * scrolls the panel and leaves the value alone: scrolling down to the presets must not
 * drag a parameter to its minimum on the way.  A focused control takes the wheel. */
gboolean
cml_parameter_panel_wheel_over (CmlParameterPanel *self, GtkWidget *widget, double dy, gboolean notches)
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

  return cml_parameter_panel_wheel_over (user_data, w, dy,
                                         gtk_event_controller_scroll_get_unit (controller) == GDK_SCROLL_UNIT_WHEEL);
}

static void
guard_wheel (CmlParameterPanel *self, GtkWidget *widget)
{
  GtkEventController *scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);

  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (on_value_scroll), self);
  gtk_widget_add_controller (widget, scroll);
}

static GtkSpinButton *
make_spin (CmlParameterPanel *self, ParamRow *row, const char *name, const char *unit,
           double lower, double upper, double step, double value)
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
  g_signal_connect (spin, "output", G_CALLBACK (on_spin_output), NULL);
  g_signal_connect (spin, "input", G_CALLBACK (on_spin_input), NULL);
  /* the default formatting ran before "output" was connected */
  on_spin_output (GTK_SPIN_BUTTON (spin), NULL);
  /* a field, not a stepper: the slider beside it steps, and the panel keeps its width
   * for the slider (Up and Down still step the value) */
  for (GtkWidget *c = gtk_widget_get_first_child (spin); c; c = gtk_widget_get_next_sibling (c))
    if (GTK_IS_BUTTON (c))
      gtk_widget_set_visible (c, FALSE);
  gtk_widget_add_css_class (spin, "value-field");
  guard_wheel (self, spin);
  return GTK_SPIN_BUTTON (spin);
}

/* A step of about 1/100 of the range, rounded to a power of ten. */
static double
nice_step (double min, double max, gboolean log_scale)
{
  double span = log_scale ? min : (max - min) / 100.0;

  if (!(span > 0) || !isfinite (span))
    return 0.01;
  return pow (10.0, floor (log10 (span)));
}

/* ---- undo and redo ----------------------------------------------------------------------- */

static GHashTable *values_table_new (void);
static void values_table_set (GHashTable *table, const char *name, double value);
static void initial_row_update_label (InitialRow *row);

/* The model's own initial data, as a table of given values. */
static GHashTable *
model_given (CmlParameterPanel *self)
{
  CmlModel *model = cml_system_get_model (self->sys);
  GHashTable *given = values_table_new ();
  GHashTableIter iter;
  gpointer key, value;

  if (model->initial)
    {
      g_hash_table_iter_init (&iter, model->initial);
      while (g_hash_table_iter_next (&iter, &key, &value))
        values_table_set (given, key, *(double *) value);
    }
  return given;
}

/* The initial-value fields show GIVEN (as asked, until the run's first sample says what
 * was used), none marked as edited. */
static void
show_given (CmlParameterPanel *self, GHashTable *given)
{
  self->updating = TRUE;
  for (guint i = 0; i < self->initial->len; i++)
    {
      InitialRow *row = self->initial->pdata[i];
      double *v = g_hash_table_lookup (given, row->name);

      row->edited = FALSE;
      if (v)
        gtk_spin_button_set_value (row->spin, *v);
      initial_row_update_label (row);
    }
  self->updating = FALSE;
}

/* The panel's state before a change: every parameter, and the initial values the run
 * started from.  Undoing a restart restarts from the older initial values. */
typedef struct
{
  GHashTable *params;   /* name -> double* */
  GHashTable *given;    /* name -> double*, or NULL: the model's own initial data */
  gboolean    restart;  /* the change restarted the run */
} UndoStep;

#define UNDO_DEPTH       100
#define UNDO_COALESCE_US (G_USEC_PER_SEC) /* one drag of one slider is one step */

static void
undo_step_free (gpointer data)
{
  UndoStep *step = data;

  g_hash_table_unref (step->params);
  g_clear_pointer (&step->given, g_hash_table_unref);
  g_free (step);
}

static UndoStep *
undo_snapshot (CmlParameterPanel *self, gboolean restart)
{
  UndoStep *step = g_new0 (UndoStep, 1);

  step->params = values_table_new ();
  for (guint i = 0; i < self->params->len; i++)
    {
      ParamRow *row = self->params->pdata[i];

      values_table_set (step->params, row->name, row->value);
    }
  step->given = self->given ? g_hash_table_ref (self->given) : NULL;
  step->restart = restart;
  return step;
}

/* Called before a change by the user: PARAM names a parameter being set (a drag of the
 * same slider within a second adds no step), RESTART a new start. */
static void
undo_record (CmlParameterPanel *self, const char *param, gboolean restart)
{
  gint64 now = g_get_monotonic_time ();

  if (self->restoring || self->updating || self->sys == NULL)
    return;
  if (!restart && param && g_strcmp0 (param, self->last_param) == 0
      && now - self->last_param_us < UNDO_COALESCE_US)
    {
      self->last_param_us = now;
      return;
    }
  g_ptr_array_add (self->undo, undo_snapshot (self, restart));
  if (self->undo->len > UNDO_DEPTH)
    g_ptr_array_remove_index (self->undo, 0);
  g_ptr_array_set_size (self->redo, 0);
  g_free (self->last_param);
  self->last_param = g_strdup (param);
  self->last_param_us = now;
}

static void param_row_set_value (ParamRow *row, double value);
static void request_restart (CmlParameterPanel *self, GHashTable *given);
static ParamRow *find_param (CmlParameterPanel *self, const char *name);

static void
undo_restore (CmlParameterPanel *self, UndoStep *step)
{
  GHashTableIter iter;
  gpointer key, value;

  self->restoring = TRUE;
  g_hash_table_iter_init (&iter, step->params);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      ParamRow *row = find_param (self, key);

      if (row && row->value != *(double *) value)
        param_row_set_value (row, *(double *) value);
    }
  if (step->restart)
    {
      g_autoptr (GHashTable) given = step->given ? g_hash_table_ref (step->given) : model_given (self);

      show_given (self, given);
      request_restart (self, given);
    }
  self->restoring = FALSE;
  g_clear_pointer (&self->last_param, g_free);
}

gboolean
cml_parameter_panel_undo (CmlParameterPanel *self)
{
  UndoStep *step;

  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), FALSE);

  if (self->sys == NULL || self->undo->len == 0)
    return FALSE;
  step = g_ptr_array_steal_index (self->undo, self->undo->len - 1);
  g_ptr_array_add (self->redo, undo_snapshot (self, step->restart));
  undo_restore (self, step);
  undo_step_free (step);
  return TRUE;
}

gboolean
cml_parameter_panel_redo (CmlParameterPanel *self)
{
  UndoStep *step;

  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), FALSE);

  if (self->sys == NULL || self->redo->len == 0)
    return FALSE;
  step = g_ptr_array_steal_index (self->redo, self->redo->len - 1);
  g_ptr_array_add (self->undo, undo_snapshot (self, step->restart));
  undo_restore (self, step);
  undo_step_free (step);
  return TRUE;
}

/* ---- parameters ------------------------------------------------------------------------ */

static void
param_row_emit (ParamRow *row, double value)
{
  if (value != row->value)
    undo_record (row->self, row->name, FALSE);
  row->value = value;
  if (!row->self->updating)
    g_signal_emit (row->self, signals[PARAM_CHANGED], 0, row->name, value);
}

static double
scale_to_value (ParamRow *row, double s)
{
  return row->log_scale ? pow (10.0, s) : s;
}

static double
value_to_scale (ParamRow *row, double v)
{
  return row->log_scale ? log10 (MAX (v, row->min)) : v;
}

static void
on_param_scale_changed (GtkRange *range, ParamRow *row)
{
  double v;

  if (row->self->updating)
    return;
  v = CLAMP (scale_to_value (row, gtk_range_get_value (range)), row->min, row->max);
  {
    g_autofree char *msg = NULL;

    /* a value no body can have: the slider stays at the last possible one, and says why */
    if (!param_possible (row, v, &msg))
      {
        row->self->updating = TRUE;
        gtk_range_set_value (range, value_to_scale (row, row->value));
        row->self->updating = FALSE;
        show_input_error (row->self, GTK_WIDGET (row->spin), msg);
        return;
      }
  }
  hide_input_error (row->self);
  /* the spin button follows; its handler sends the value */
  if (fabs (v - gtk_spin_button_get_value (row->spin)) > 1e-12 * MAX (1.0, fabs (v)))
    gtk_spin_button_set_value (row->spin, v);
}

static void
on_param_spin_changed (GtkSpinButton *spin, ParamRow *row)
{
  double v = gtk_spin_button_get_value (spin);
  double s = value_to_scale (row, v);
  gboolean was = row->self->updating;

  /* move the slider without it sending the (rounded) value back */
  row->self->updating = TRUE;
  if (fabs (gtk_range_get_value (GTK_RANGE (row->scale)) - s) > 1e-12 * MAX (1.0, fabs (s)))
    gtk_range_set_value (GTK_RANGE (row->scale), s);
  row->self->updating = was;

  param_row_emit (row, v);
}

static void
on_param_choice_changed (GtkDropDown *dropdown, GParamSpec *pspec, ParamRow *row)
{
  guint i = gtk_drop_down_get_selected (dropdown);

  if (i < row->n_choices)
    param_row_emit (row, row->choices[i]);
}

static void
param_row_set_value (ParamRow *row, double value)
{
  if (row->choice)
    {
      for (guint i = 0; i < row->n_choices; i++)
        if (fabs (row->choices[i] - value) < 1e-12)
          {
            if (gtk_drop_down_get_selected (row->choice) == i)
              param_row_emit (row, value);
            else
              gtk_drop_down_set_selected (row->choice, i);
            return;
          }
      return;
    }
  value = CLAMP (value, row->min, row->max);
  if (gtk_spin_button_get_value (row->spin) == value)
    param_row_emit (row, value);
  else
    gtk_spin_button_set_value (row->spin, value);
}

/* A row's "Sweep this parameter…" */
static void
on_sweep_clicked (GtkButton *button, ParamRow *row)
{
  GtkWidget *popover = gtk_widget_get_ancestor (GTK_WIDGET (button), GTK_TYPE_POPOVER);
  if (popover)
    gtk_popover_popdown (GTK_POPOVER (popover));
  g_signal_emit (row->self, signals[SWEEP_REQUESTED], 0, row->name);
}

static void
add_param_row (CmlParameterPanel *self, const CmlParam *p, guint index)
{
  ParamRow *row = g_new0 (ParamRow, 1);
  GtkWidget *name, *unit, *value_widget;
  g_autofree char *tip = NULL;
  g_autofree char *unit_text = cml_plot_format_unit (p->unit);
  g_autofree char *shown = cml_expr_pretty_name (p->name, FALSE);
  int r = index;

  row->self = self;
  row->name = g_strdup (p->name);
  row->shown = g_strdup (shown);
  row->unit = g_strdup (unit_text);
  row->min = p->min;
  row->max = p->max;
  row->value = p->value;
  if (p->choices)
    tip = g_strdup_printf (_("%s\nDefault %g (on the command line: --set %s=…)"),
                           p->meaning ? p->meaning : p->name, p->value, p->name);
  else
    tip = g_strdup_printf (_("%s\nDefault %g %s; range %g … %g (on the command line: --set %s=…)"),
                           p->meaning ? p->meaning : p->name, p->value, unit_text, p->min, p->max, p->name);

  name = gtk_label_new (shown);
  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_widget_add_css_class (name, "param-name");
  gtk_widget_set_tooltip_text (name, tip);

  unit = gtk_label_new (unit_text);
  gtk_label_set_xalign (GTK_LABEL (unit), 0);
  gtk_widget_add_css_class (unit, "dim-label");
  gtk_widget_set_size_request (unit, 40, -1);

  if (p->choices)
    {
      GtkStringList *strings = gtk_string_list_new (NULL);
      guint selected = 0;

      row->choices = g_memdup2 (p->choices, p->n_choices * sizeof (double));
      row->n_choices = p->n_choices;
      for (guint i = 0; i < p->n_choices; i++)
        {
          char buf[64];

          g_snprintf (buf, sizeof buf, "%g", p->choices[i]);
          gtk_string_list_append (strings, buf);
          if (fabs (p->choices[i] - p->value) < 1e-12)
            selected = i;
        }
      value_widget = gtk_drop_down_new (G_LIST_MODEL (strings), NULL);
      gtk_drop_down_set_selected (GTK_DROP_DOWN (value_widget), selected);
      row->choice = GTK_DROP_DOWN (value_widget);
      g_signal_connect (value_widget, "notify::selected", G_CALLBACK (on_param_choice_changed), row);
    }
  else
    {
      double step;

      row->log_scale = p->min > 0 && p->max / p->min >= 100.0;
      step = nice_step (p->min, p->max, row->log_scale);
      row->spin = make_spin (self, row, row->shown, row->unit, p->min, p->max, step, p->value);
      value_widget = GTK_WIDGET (row->spin);
      g_signal_connect (row->spin, "value-changed", G_CALLBACK (on_param_spin_changed), row);

      if (row->log_scale)
        row->scale = GTK_SCALE (gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL,
                                                          log10 (p->min), log10 (p->max), 0.001));
      else
        row->scale = GTK_SCALE (gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL,
                                                          p->min, p->max, step));
      gtk_range_set_value (GTK_RANGE (row->scale), value_to_scale (row, p->value));
      gtk_scale_set_draw_value (row->scale, FALSE);
      /* no mark at the default: it would double the line's height (the tooltip names the
       * default, and "Defaults" goes back to it) */
      gtk_widget_set_hexpand (GTK_WIDGET (row->scale), TRUE);
      gtk_widget_set_tooltip_text (GTK_WIDGET (row->scale), tip);
      gtk_widget_add_css_class (GTK_WIDGET (row->scale), "param-scale");
      gtk_widget_set_size_request (GTK_WIDGET (row->scale), 90, -1);
      g_signal_connect (row->scale, "value-changed", G_CALLBACK (on_param_scale_changed), row);
      guard_wheel (self, GTK_WIDGET (row->scale));
      gtk_grid_attach (self->param_grid, GTK_WIDGET (row->scale), 1, r, 1, 1);
    }
  gtk_widget_set_tooltip_text (value_widget, tip);
  gtk_widget_set_valign (value_widget, GTK_ALIGN_CENTER);

  /* one line per parameter: name, slider, value, unit (a dropdown spans the slider's
   * and the value's columns) */
  gtk_grid_attach (self->param_grid, name, 0, r, 1, 1);
  if (p->choices)
    {
      gtk_widget_set_halign (value_widget, GTK_ALIGN_END);
      gtk_grid_attach (self->param_grid, value_widget, 1, r, 2, 1);
    }
  else
    gtk_grid_attach (self->param_grid, value_widget, 2, r, 1, 1);
  gtk_grid_attach (self->param_grid, unit, 3, r, 1, 1);
  if (!p->choices)
    {
      /* the row's menu: "Sweep this parameter…" (the Sweep page, over the slider's range) */
      GtkWidget *sweep = gtk_button_new_with_label (_("Sweep this parameter…"));
      gtk_button_set_has_frame (GTK_BUTTON (sweep), FALSE);
      GtkWidget *popover = gtk_popover_new ();
      gtk_popover_set_child (GTK_POPOVER (popover), sweep);
      g_signal_connect (sweep, "clicked", G_CALLBACK (on_sweep_clicked), row);
      GtkWidget *more = gtk_menu_button_new ();
      gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (more), "view-more-symbolic");
      gtk_menu_button_set_popover (GTK_MENU_BUTTON (more), popover);
      gtk_menu_button_set_has_frame (GTK_MENU_BUTTON (more), FALSE);
      gtk_widget_set_valign (more, GTK_ALIGN_CENTER);
      g_autofree char *more_tip = g_strdup_printf (_("More for %s: sweep it over its range and plot a quantity "
                                                   "against it"), shown);
      gtk_widget_set_tooltip_text (more, more_tip);
      gtk_grid_attach (self->param_grid, more, 4, r, 1, 1);
    }

  g_ptr_array_add (self->params, row);
}

static ParamRow *
find_param (CmlParameterPanel *self, const char *name)
{
  for (guint i = 0; self->params && i < self->params->len; i++)
    {
      ParamRow *row = self->params->pdata[i];

      if (g_strcmp0 (row->name, name) == 0)
        return row;
    }
  return NULL;
}

/* ---- initial conditions ---------------------------------------------------------------- */

static void
initial_row_update_label (InitialRow *row)
{
  gboolean given = row->in_model || row->edited;

  if (given)
    gtk_widget_add_css_class (GTK_WIDGET (row->label), "given");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (row->label), "given");
}

static void
on_initial_changed (GtkSpinButton *spin, InitialRow *row)
{
  if (row->self->updating)
    return;
  row->edited = TRUE;
  initial_row_update_label (row);
}

static InitialRow *
find_initial (CmlParameterPanel *self, const char *name)
{
  for (guint i = 0; self->initial && i < self->initial->len; i++)
    {
      InitialRow *row = self->initial->pdata[i];

      if (g_strcmp0 (row->name, name) == 0)
        return row;
    }
  return NULL;
}

/* A reconstruction variable: integrated along, but not part of the dynamics. */
static gboolean
is_reconstructed (CmlModel *model, const char *name)
{
  for (guint i = 0; model->reconstruction && i < model->reconstruction->len; i++)
    if (g_strcmp0 (((CmlNamedExpr *) model->reconstruction->pdata[i])->name, name) == 0)
      return TRUE;
  return FALSE;
}

static void
add_initial_row (CmlParameterPanel *self, CmlModel *model, const char *name, gboolean in_model,
                 double value)
{
  InitialRow *row = g_new0 (InitialRow, 1);
  const char *unit = cml_model_unit (model, name);
  GtkWidget *unit_label;
  gboolean recon = is_reconstructed (model, name);
  GtkGrid *grid = recon ? self->recon_grid : self->initial_grid;
  guint r = 0;
  g_autofree char *tip = NULL;
  const char *meaning = cml_model_meaning (model, name);

  for (guint i = 0; i < self->initial->len; i++)
    r += is_reconstructed (model, ((InitialRow *) self->initial->pdata[i])->name) == recon;

  g_autofree char *shown = cml_expr_pretty_name (name, FALSE);
  g_autofree char *unit_text = cml_plot_format_unit (unit);

  row->self = self;
  row->name = g_strdup (name);
  row->shown = g_strdup (shown);
  row->unit = g_strdup (unit_text);
  row->in_model = in_model;

  row->label = GTK_LABEL (gtk_label_new (shown));
  gtk_label_set_xalign (row->label, 0);
  gtk_widget_set_hexpand (GTK_WIDGET (row->label), TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (row->label), "initial-name");
  tip = g_strdup_printf (_("%s%s%s (on the command line: --init %s=…)"), meaning ? meaning : "", meaning ? "\n" : "",
                         in_model ? _("Given in the model file")
                                  : _("Not given in the model file: the constraints determine it, "
                                    "or it starts at 0.  Edit it to give it."), name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->label), tip);

  row->spin = make_spin (self, NULL, row->shown, row->unit, -1e9, 1e9, 0.1, value);
  gtk_widget_set_tooltip_text (GTK_WIDGET (row->spin), meaning);
  gtk_widget_set_valign (GTK_WIDGET (row->spin), GTK_ALIGN_CENTER);
  g_signal_connect (row->spin, "value-changed", G_CALLBACK (on_initial_changed), row);

  unit_label = gtk_label_new (unit_text);
  gtk_label_set_xalign (GTK_LABEL (unit_label), 0);
  gtk_widget_add_css_class (unit_label, "dim-label");
  gtk_widget_set_size_request (unit_label, 40, -1);

  gtk_grid_attach (grid, GTK_WIDGET (row->label), 0, r, 1, 1);
  gtk_grid_attach (grid, GTK_WIDGET (row->spin), 1, r, 1, 1);
  gtk_grid_attach (grid, unit_label, 2, r, 1, 1);
  if (recon)
    gtk_widget_set_visible (GTK_WIDGET (self->recon_expander), TRUE);

  g_ptr_array_add (self->initial, row);
  initial_row_update_label (row);
}

static gboolean
model_initial (CmlModel *model, const char *name, double *value)
{
  double *v = model->initial ? g_hash_table_lookup (model->initial, name) : NULL;

  if (v && value)
    *value = *v;
  return v != NULL;
}

/* The fibre index whose velocity or momentum NAME is, or -1. */
static int
fibre_partner (CmlModel *model, const char *name, const char **partner)
{
  for (guint a = 0; a < model->n; a++)
    {
      if (model->momenta && g_strcmp0 (model->momenta[a], name) == 0)
        {
          *partner = model->fibre[a];
          return (int) a;
        }
      if (g_strcmp0 (model->fibre[a], name) == 0)
        {
          *partner = model->momenta ? model->momenta[a] : NULL;
          return (int) a;
        }
    }
  return -1;
}

/* One row per state variable, in state order, except that a momentum whose velocity the
 * model gives instead (vakonomic) shows as that velocity; then any other given name. */
static void
build_initial_rows (CmlParameterPanel *self)
{
  CmlModel *model = cml_system_get_model (self->sys);
  g_autoptr (GHashTable) shown = g_hash_table_new (g_str_hash, g_str_equal);
  guint dim = cml_system_dim (self->sys);

  for (guint i = 0; i < dim; i++)
    {
      const char *name = cml_system_state_name (self->sys, i);
      const char *partner = NULL;
      double v = 0.0;

      if (!model_initial (model, name, &v) && fibre_partner (model, name, &partner) >= 0
          && partner && model_initial (model, partner, &v))
        name = partner;
      if (g_hash_table_contains (shown, name))
        continue;
      g_hash_table_add (shown, (gpointer) name);
      add_initial_row (self, model, name, model_initial (model, name, NULL), v);
    }

  if (model->initial)
    {
      GHashTableIter iter;
      gpointer key, value;
      g_autoptr (GPtrArray) extra = g_ptr_array_new ();

      g_hash_table_iter_init (&iter, model->initial);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (!g_hash_table_contains (shown, key))
          g_ptr_array_add (extra, key);
      g_ptr_array_sort (extra, (GCompareFunc) g_strcmp0);
      for (guint i = 0; i < extra->len; i++)
        add_initial_row (self, model, extra->pdata[i], TRUE,
                         *(double *) g_hash_table_lookup (model->initial, extra->pdata[i]));
    }
}

/* The values to start from: every name the model gives plus every edited one. */
static GHashTable *
collect_given (CmlParameterPanel *self)
{
  GHashTable *given = values_table_new ();

  for (guint i = 0; i < self->initial->len; i++)
    {
      InitialRow *row = self->initial->pdata[i];

      if (row->in_model || row->edited)
        values_table_set (given, row->name, gtk_spin_button_get_value (row->spin));
    }
  return given;
}

static void
request_restart (CmlParameterPanel *self, GHashTable *given)
{
  g_clear_pointer (&self->given, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  self->given = g_hash_table_ref (given);
  self->pending = g_hash_table_ref (given);
  g_signal_emit (self, signals[RESTART_REQUESTED], 0, given);
}

void
cml_parameter_panel_apply_initial (CmlParameterPanel *self)
{
  g_autoptr (GHashTable) given = NULL;

  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  if (self->sys == NULL)
    return;
  /* a spin button being edited has not yet committed its text */
  for (guint i = 0; i < self->initial->len; i++)
    gtk_spin_button_update (((InitialRow *) self->initial->pdata[i])->spin);
  undo_record (self, NULL, TRUE);
  given = collect_given (self);
  request_restart (self, given);
}

static void
on_restart_clicked (CmlParameterPanel *self)
{
  cml_parameter_panel_apply_initial (self);
}

static void
set_note (CmlParameterPanel *self, const char *note)
{
  g_free (self->note);
  self->note = g_strdup (note ? note : "");
  gtk_label_set_text (self->projection_label, self->note);
  gtk_widget_set_visible (GTK_WIDGET (self->projection_label), *self->note != '\0');
}

void
cml_parameter_panel_show_initial (CmlParameterPanel *self, CmlSystem *sys, const double *obs,
                                  guint n_obs)
{
  g_autoptr (GString) projected = g_string_new (NULL);

  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  if (sys != self->sys || sys == NULL || n_obs != cml_system_n_observables (sys))
    return;

  self->updating = TRUE;
  for (guint i = 0; i < self->initial->len; i++)
    {
      InitialRow *row = self->initial->pdata[i];
      int k = cml_system_observable_index (sys, row->name);
      double used, *asked;

      if (k < 0)
        continue;
      used = obs[k];
      asked = self->pending ? g_hash_table_lookup (self->pending, row->name) : NULL;
      if (asked && fabs (*asked - used) > 1e-9 * MAX (1.0, fabs (*asked)))
        g_string_append_printf (projected, "%s%s: %.6g → %.6g", projected->len ? ", " : "",
                                row->name, *asked, used);
      gtk_spin_button_set_value (row->spin, used);
      row->edited = FALSE;
      initial_row_update_label (row);
    }
  self->updating = FALSE;

  if (self->pending)
    {
      g_autofree char *note = NULL;

      if (projected->len)
        note = g_strdup_printf (_("Projected onto the constraint set: %s"), projected->str);
      set_note (self, note);
      g_clear_pointer (&self->pending, g_hash_table_unref);
    }
}

GHashTable *
cml_parameter_panel_get_given (CmlParameterPanel *self)
{
  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), NULL);

  return self->given;
}

const char *
cml_parameter_panel_get_projection_note (CmlParameterPanel *self)
{
  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), NULL);

  return self->note ? self->note : "";
}

/* ---- presets --------------------------------------------------------------------------- */

void
cml_parameter_panel_apply_preset (CmlParameterPanel *self, guint index)
{
  CmlModel *model;
  CmlPreset *preset;
  g_autoptr (GHashTable) given = NULL;
  GHashTableIter iter;
  gpointer key, value;

  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  if (self->sys == NULL)
    return;
  model = cml_system_get_model (self->sys);
  if (model->presets == NULL || index >= model->presets->len)
    return;
  preset = model->presets->pdata[index];
  /* the preset is one step to undo, its parameters and its restart together */
  undo_record (self, NULL, TRUE);
  self->restoring = TRUE;

  /* parameters first (live), then start again from the model's initial data with the
   * preset's initial values: a preset is a reproducible scene */
  given = model_given (self);
  g_hash_table_iter_init (&iter, preset->values);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      ParamRow *p = find_param (self, key);

      if (p)
        param_row_set_value (p, *(double *) value);
      else
        values_table_set (given, key, *(double *) value);
    }

  show_given (self, given);
  request_restart (self, given);
  self->restoring = FALSE;
}

static void
on_preset_apply_clicked (CmlParameterPanel *self)
{
  guint i = gtk_drop_down_get_selected (self->preset_dropdown);

  if (i != GTK_INVALID_LIST_POSITION)
    cml_parameter_panel_apply_preset (self, i);
}

static void
on_defaults_clicked (CmlParameterPanel *self)
{
  CmlModel *model;

  if (self->sys == NULL)
    return;
  model = cml_system_get_model (self->sys);
  undo_record (self, NULL, FALSE);
  self->restoring = TRUE;
  for (guint i = 0; i < model->params->len; i++)
    {
      const CmlParam *p = model->params->pdata[i];
      ParamRow *row = find_param (self, p->name);

      if (row)
        param_row_set_value (row, p->value);
    }
  self->restoring = FALSE;
}

/* Preset titles are sentences: the button and the list wrap them. */
static void
setup_preset_label (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer wrap)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (GPOINTER_TO_INT (wrap))
    {
      /* one fixed width: the list is measured for the height its rows have at the width
       * they get (with a range of widths it was measured at the widest, where the titles
       * take fewer lines, and the last item had to be scrolled to) */
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_width_chars (GTK_LABEL (label), 32);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 32);
    }
  else
    {
      /* the button shows the title's head ("Solid sphere"), the list and the tooltip the
       * whole sentence; a head too long for the button is cut, with the tooltip */
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_width_chars (GTK_LABEL (label), 10);
      gtk_widget_add_css_class (label, "may-ellipsize");
    }

  gtk_list_item_set_child (item, label);
}

static void
bind_preset_label (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer wrap)
{
  GtkStringObject *string = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);

  const char *title = gtk_string_object_get_string (string);
  const char *paren = strstr (title, " (");

  if (!GPOINTER_TO_INT (wrap) && paren && paren > title)
    {
      g_autofree char *head = g_strndup (title, paren - title);

      gtk_label_set_text (GTK_LABEL (label), head);
    }
  else
    gtk_label_set_text (GTK_LABEL (label), title);
  gtk_widget_set_tooltip_text (label, title);
}

static GtkListItemFactory *
preset_factory (gboolean wrap)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();

  g_signal_connect (factory, "setup", G_CALLBACK (setup_preset_label), GINT_TO_POINTER (wrap));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_preset_label), GINT_TO_POINTER (wrap));
  return factory;
}

/* ---- building -------------------------------------------------------------------------- */

static void
clear_grid (GtkGrid *grid)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (grid))))
    gtk_grid_remove (grid, child);
}

void
cml_parameter_panel_set_system (CmlParameterPanel *self, CmlSystem *sys)
{
  CmlModel *model;
  GtkStringList *presets;

  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  self->updating = TRUE;
  hide_input_error (self);
  clear_grid (self->param_grid);
  clear_grid (self->initial_grid);
  clear_grid (self->recon_grid);
  gtk_widget_set_visible (GTK_WIDGET (self->recon_expander), FALSE);
  g_ptr_array_set_size (self->params, 0);
  g_ptr_array_set_size (self->initial, 0);
  g_clear_pointer (&self->given, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_ptr_array_set_size (self->undo, 0);
  g_ptr_array_set_size (self->redo, 0);
  g_clear_pointer (&self->last_param, g_free);
  set_note (self, NULL);
  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->sys, cml_system_unref);
  self->sys = sys;

  presets = gtk_string_list_new (NULL);
  if (sys)
    {
      model = cml_system_get_model (sys);
      for (guint i = 0; i < model->params->len; i++)
        add_param_row (self, model->params->pdata[i], i);
      for (guint i = 0; model->presets && i < model->presets->len; i++)
        {
          CmlPreset *preset = model->presets->pdata[i];

          gtk_string_list_append (presets, preset->title ? preset->title : preset->name);
        }
      build_initial_rows (self);
    }
  gtk_drop_down_set_model (self->preset_dropdown, G_LIST_MODEL (presets));
  g_object_unref (presets);

  gtk_widget_set_visible (GTK_WIDGET (self->no_params_label), sys && self->params->len == 0);
  /* no model open: no empty headings either */
  gtk_widget_set_visible (GTK_WIDGET (self->params_heading), sys != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->initial_heading), sys != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->defaults_button), self->params->len > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->preset_box),
                          g_list_model_get_n_items (gtk_drop_down_get_model (self->preset_dropdown)) > 0);
  gtk_widget_set_sensitive (GTK_WIDGET (self->restart_button), sys != NULL);
  self->updating = FALSE;
}

CmlSystem *
cml_parameter_panel_get_system (CmlParameterPanel *self)
{
  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), NULL);

  return self->sys;
}

/* ---- from the command line ---------------------------------------------------------------- */

gboolean
cml_parameter_panel_set_param (CmlParameterPanel *self, const char *name, double value, GError **error)
{
  ParamRow *row;
  const CmlParam *p;

  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), FALSE);

  row = find_param (self, name);
  p = self->sys ? cml_model_find_param (cml_system_get_model (self->sys), name) : NULL;
  if (row == NULL || p == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("“%s” is not a parameter of this model"), name);
      return FALSE;
    }
  if (!cml_model_check_param (cml_system_get_model (self->sys), p, value, error))
    return FALSE;
  {
    g_autofree char *msg = NULL;

    if (!param_possible (row, value, &msg))
      {
        g_set_error_literal (error, CML_ERROR, CML_ERROR_USAGE, msg);
        if (row->spin)
          show_input_error (self, GTK_WIDGET (row->spin), msg);
        return FALSE;
      }
  }
  hide_input_error (self);
  param_row_set_value (row, value);
  return TRUE;
}

gboolean
cml_parameter_panel_start_from (CmlParameterPanel *self, GHashTable *values, GError **error)
{
  return cml_parameter_panel_start_from_step (self, values, TRUE, error);
}

gboolean
cml_parameter_panel_start_from_step (CmlParameterPanel *self, GHashTable *values, gboolean new_step,
                                     GError **error)
{
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (CML_IS_PARAMETER_PANEL (self), FALSE);

  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (find_initial (self, key) == NULL)
      {
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                     _("“%s” is not an initial value of this model"), (const char *) key);
        return FALSE;
      }
  g_hash_table_iter_init (&iter, values);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      InitialRow *row = find_initial (self, key);

      gtk_spin_button_set_value (row->spin, *(double *) value);
      row->edited = TRUE;
      initial_row_update_label (row);
    }
  /* a drag goes on within the step its start made */
  gboolean restoring = self->restoring;
  self->restoring = restoring || !new_step;
  cml_parameter_panel_apply_initial (self);
  self->restoring = restoring;
  return TRUE;
}

/* ---- for tests ------------------------------------------------------------------------- */

GtkSpinButton *
cml_parameter_panel_get_param_spin (CmlParameterPanel *self, const char *name)
{
  ParamRow *row = find_param (self, name);

  return row ? row->spin : NULL;
}

/* Locks WIDGET (or lets it go) with TOOLTIP, keeping the tooltip it had for later. */
static void
lock_widget (GtkWidget *widget, gboolean lock, const char *tooltip)
{
  if (widget == NULL)
    return;
  if (lock && g_object_get_data (G_OBJECT (widget), "cml-shown-tooltip") == NULL)
    g_object_set_data_full (G_OBJECT (widget), "cml-shown-tooltip",
                            g_strdup (gtk_widget_get_tooltip_text (widget) ? gtk_widget_get_tooltip_text (widget) : ""),
                            g_free);
  if (lock)
    gtk_widget_set_tooltip_text (widget, tooltip);
  else if (g_object_get_data (G_OBJECT (widget), "cml-shown-tooltip"))
    {
      const char *tip = g_object_get_data (G_OBJECT (widget), "cml-shown-tooltip");

      gtk_widget_set_tooltip_text (widget, *tip ? tip : NULL);
      g_object_set_data (G_OBJECT (widget), "cml-shown-tooltip", NULL);
    }
  gtk_widget_set_sensitive (widget, !lock);
}

void
cml_parameter_panel_set_hidden (CmlParameterPanel *self, const char *const *names, const char *tooltip)
{
  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));

  for (guint i = 0; self->params && i < self->params->len; i++)
    {
      ParamRow *row = self->params->pdata[i];
      gboolean hide = names && g_strv_contains (names, row->name);

      lock_widget (GTK_WIDGET (row->scale), hide, tooltip);
      lock_widget (GTK_WIDGET (row->choice), hide, tooltip);
      if (row->spin == NULL)
        continue;
      lock_widget (GTK_WIDGET (row->spin), hide, tooltip);
      if (!!g_object_get_data (G_OBJECT (row->spin), "cml-hidden") == hide)
        continue;
      g_object_set_data (G_OBJECT (row->spin), "cml-hidden", GINT_TO_POINTER (hide));
      on_spin_output (row->spin, NULL);
    }
}

gboolean
cml_parameter_panel_is_hidden (CmlParameterPanel *self, const char *name)
{
  ParamRow *row = find_param (self, name);

  return row && row->spin && g_object_get_data (G_OBJECT (row->spin), "cml-hidden") != NULL;
}

GtkRange *
cml_parameter_panel_get_param_scale (CmlParameterPanel *self, const char *name)
{
  ParamRow *row = find_param (self, name);

  return row && row->scale ? GTK_RANGE (row->scale) : NULL;
}

GtkSpinButton *
cml_parameter_panel_get_initial_spin (CmlParameterPanel *self, const char *name)
{
  InitialRow *row = find_initial (self, name);

  return row ? row->spin : NULL;
}

GtkDropDown *
cml_parameter_panel_get_preset_dropdown (CmlParameterPanel *self)
{
  return self->preset_dropdown;
}

/* ---- GObject --------------------------------------------------------------------------- */

static void
cml_parameter_panel_dispose (GObject *object)
{
  CmlParameterPanel *self = CML_PARAMETER_PANEL (object);

  hide_input_error (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_PARAMETER_PANEL);
  g_clear_pointer (&self->params, g_ptr_array_unref);
  g_clear_pointer (&self->initial, g_ptr_array_unref);
  g_clear_pointer (&self->given, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->note, g_free);
  g_clear_pointer (&self->undo, g_ptr_array_unref);
  g_clear_pointer (&self->redo, g_ptr_array_unref);
  g_clear_pointer (&self->last_param, g_free);
  g_clear_object (&self->input_error_label);

  G_OBJECT_CLASS (cml_parameter_panel_parent_class)->dispose (object);
}

static void
cml_parameter_panel_class_init (CmlParameterPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_parameter_panel_dispose;

  /* CmlParameterPanel::param-changed (name, value): a parameter was set; send it on now */
  signals[PARAM_CHANGED] = g_signal_new ("param-changed", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_DOUBLE);
  /* CmlParameterPanel::restart-requested (given): start again from GIVEN (name -> double*) */
  signals[RESTART_REQUESTED] = g_signal_new ("restart-requested", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 1, G_TYPE_HASH_TABLE);
  /* CmlParameterPanel::sweep-requested (name): "Sweep this parameter…" was chosen */
  signals[SWEEP_REQUESTED] = g_signal_new ("sweep-requested", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-parameter-panel.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "cmlparameterpanel");
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, outer);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, box);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, params_heading);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, defaults_button);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, param_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, no_params_label);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, preset_box);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, preset_dropdown);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, preset_apply_button);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, initial_heading);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, initial_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, recon_expander);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, recon_grid);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, scroller);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, restart_button);
  gtk_widget_class_bind_template_child (widget_class, CmlParameterPanel, projection_label);
  gtk_widget_class_bind_template_callback (widget_class, on_restart_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_preset_apply_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_defaults_clicked);
}

static void
cml_parameter_panel_init (CmlParameterPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  {
    g_autoptr (GtkListItemFactory) button = preset_factory (FALSE);
    g_autoptr (GtkListItemFactory) list = preset_factory (TRUE);

    gtk_drop_down_set_factory (self->preset_dropdown, button);
    gtk_drop_down_set_list_factory (self->preset_dropdown, list);
  }
  /* the message for a refused value: the panel keeps it between the rows it visits */
  self->input_error_label = GTK_LABEL (g_object_ref_sink (gtk_label_new (NULL)));
  gtk_label_set_xalign (self->input_error_label, 0);
  gtk_label_set_wrap (self->input_error_label, TRUE);
  gtk_label_set_wrap_mode (self->input_error_label, PANGO_WRAP_WORD_CHAR);
  /* it wraps to the column's width instead of widening it */
  gtk_label_set_width_chars (self->input_error_label, 10);
  gtk_label_set_max_width_chars (self->input_error_label, 10);
  gtk_widget_set_hexpand (GTK_WIDGET (self->input_error_label), FALSE);
  gtk_widget_set_margin_bottom (GTK_WIDGET (self->input_error_label), 4);
  gtk_widget_add_css_class (GTK_WIDGET (self->input_error_label), "input-error");
  self->params = g_ptr_array_new_with_free_func ((GDestroyNotify) param_row_free);
  self->initial = g_ptr_array_new_with_free_func ((GDestroyNotify) initial_row_free);
  self->note = g_strdup ("");
  self->undo = g_ptr_array_new_with_free_func (undo_step_free);
  self->redo = g_ptr_array_new_with_free_func (undo_step_free);
  cml_parameter_panel_set_system (self, NULL);
}

void
cml_parameter_panel_request_sweep (CmlParameterPanel *self, const char *name)
{
  g_return_if_fail (CML_IS_PARAMETER_PANEL (self));
  g_signal_emit (self, signals[SWEEP_REQUESTED], 0, name);
}

GtkWidget *
cml_parameter_panel_new (void)
{
  return g_object_new (CML_TYPE_PARAMETER_PANEL, NULL);
}
