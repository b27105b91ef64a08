/* cml-model-picker.h — the list of systems: built-in models and opened model files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each row shows the model's title, its short name and who wrote about it (the first
 * authors and year of its references; the kind of system when it has none); the
 * description and the first reference are the tooltip.  Selecting a row emits ::model-selected; the window
 * switches the runner's system.  All functions: UI thread.
 */
#pragma once

#include <gtk/gtk.h>

#include "cml-model.h"

G_BEGIN_DECLS

#define CML_TYPE_MODEL_PICKER (cml_model_picker_get_type ())
G_DECLARE_FINAL_TYPE (CmlModelPicker, cml_model_picker, CML, MODEL_PICKER, GtkWidget)

GtkWidget *cml_model_picker_new (void);

/* Adds a model loaded from a file under "Opened files", or replaces the row of a model
 * loaded earlier from the same path (a file reopened after an edit).  Does not select. */
void       cml_model_picker_add_model (CmlModelPicker *self, CmlModel *model);
/* The model with that name (built-ins first) or path, or NULL.  No reference. */
CmlModel  *cml_model_picker_find (CmlModelPicker *self, const char *name_or_path);
/* Marks MODEL's row as selected without emitting ::model-selected (NULL: none). */
void       cml_model_picker_set_selected (CmlModelPicker *self, CmlModel *model);
CmlModel  *cml_model_picker_get_selected (CmlModelPicker *self);
/* Selects the row of NAME_OR_PATH as a click would (emits ::model-selected).  FALSE if
 * there is no such row or it cannot be chosen (a built-in that failed to load). */
gboolean   cml_model_picker_pick (CmlModelPicker *self, const char *name_or_path);

/* The built-in model names that loaded, in the order shown (free with g_strfreev). */
char     **cml_model_picker_list_builtin (CmlModelPicker *self);

/* The first reference of a model's citation in short: its authors' surnames ("Arnold",
 * "Marsden and Ratiu", "Iglesias et al.") and year; "" for none. */
char      *cml_model_short_citation (const char *citation);

G_END_DECLS
