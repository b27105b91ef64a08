/* cml-parameter-panel-private.h — the panel's fields and what its files share
 * (cml-parameter-panel.c and cml-parameter-panel-{fields,params,initial,presets,undo}.c),
 * and the accessors the tests use.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "cml-parameter-panel.h"

G_BEGIN_DECLS

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

/* The spin button / slider of parameter NAME (NULL for a dropdown parameter or none). */
GtkSpinButton *cml_parameter_panel_get_param_spin (CmlParameterPanel *self, const char *name);
GtkRange      *cml_parameter_panel_get_param_scale (CmlParameterPanel *self, const char *name);
/* The spin button of initial value NAME, or NULL. */
GtkSpinButton *cml_parameter_panel_get_initial_spin (CmlParameterPanel *self, const char *name);
GtkDropDown   *cml_parameter_panel_get_preset_dropdown (CmlParameterPanel *self);
/* What "Apply & restart" and the preset's "Apply" buttons do. */
void           cml_parameter_panel_apply_initial (CmlParameterPanel *self);
void           cml_parameter_panel_apply_preset (CmlParameterPanel *self, guint index);
/* Why the last typed value was refused, while the message shows; else NULL. */
const char    *cml_parameter_panel_get_input_error (CmlParameterPanel *self);
/* The label that shows it (under the refused field), or NULL while none shows. */
GtkWidget     *cml_parameter_panel_get_input_error_widget (CmlParameterPanel *self);
/* What the wheel does over WIDGET (a slider or field of the panel): DY notches (or
 * pixels); TRUE when the panel scrolled instead of the value changing. */
gboolean       cml_parameter_panel_wheel_over (CmlParameterPanel *self, GtkWidget *widget,
                                               double dy, gboolean notches);
/* What a row's "Sweep this parameter…" does: emits ::sweep-requested for NAME. */
void           cml_parameter_panel_request_sweep (CmlParameterPanel *self, const char *name);

/* cml-parameter-panel.c: the tables of given values (name -> double*) and the signals */
GHashTable    *cml_parameter_panel_values_table_new (void);
void           cml_parameter_panel_values_table_set (GHashTable *table, const char *name,
                                                     double value);
void           cml_parameter_panel_param_row_emit (ParamRow *row, double value);
void           cml_parameter_panel_on_sweep_clicked (GtkButton *button, ParamRow *row);
void           cml_parameter_panel_request_restart (CmlParameterPanel *self, GHashTable *given);

/* cml-parameter-panel-fields.c: the number fields, what is typed in them, the wheel */
gboolean       cml_parameter_panel_on_spin_output (GtkSpinButton *spin, gpointer user_data);
void           cml_parameter_panel_hide_input_error (CmlParameterPanel *self);
void           cml_parameter_panel_show_input_error (CmlParameterPanel *self, GtkWidget *field,
                                                     const char *text);
gboolean       cml_parameter_panel_param_possible (ParamRow *row, double value, char **message);
void           cml_parameter_panel_guard_wheel (CmlParameterPanel *self, GtkWidget *widget);
GtkSpinButton *cml_parameter_panel_make_spin (CmlParameterPanel *self, ParamRow *row,
                                              const char *name, const char *unit, double lower,
                                              double upper, double step, double value);

/* cml-parameter-panel-params.c: the parameters' rows */
void           cml_parameter_panel_param_row_set_value (ParamRow *row, double value);
void           cml_parameter_panel_add_param_row (CmlParameterPanel *self, const CmlParam *p,
                                                  guint index);
ParamRow      *cml_parameter_panel_find_param (CmlParameterPanel *self, const char *name);

/* cml-parameter-panel-initial.c: the initial values' rows */
void           cml_parameter_panel_initial_row_update_label (InitialRow *row);
InitialRow    *cml_parameter_panel_find_initial (CmlParameterPanel *self, const char *name);
void           cml_parameter_panel_build_initial_rows (CmlParameterPanel *self);
void           cml_parameter_panel_set_note (CmlParameterPanel *self, const char *note);
void           cml_parameter_panel_on_restart_clicked (CmlParameterPanel *self);

/* cml-parameter-panel-presets.c */
void           cml_parameter_panel_on_preset_apply_clicked (CmlParameterPanel *self);
void           cml_parameter_panel_on_defaults_clicked (CmlParameterPanel *self);
GtkListItemFactory *cml_parameter_panel_preset_factory (gboolean wrap);

/* cml-parameter-panel-undo.c */
GHashTable    *cml_parameter_panel_model_given (CmlParameterPanel *self);
void           cml_parameter_panel_show_given (CmlParameterPanel *self, GHashTable *given);
void           cml_parameter_panel_undo_record (CmlParameterPanel *self, const char *param,
                                                gboolean restart);
void           cml_parameter_panel_undo_step_free (gpointer data);

G_END_DECLS
