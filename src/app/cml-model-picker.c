/* cml-model-picker.c — the list of systems: built-in models and opened model files.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-model-picker"

#include "cml-model-picker.h"

#include <glib/gi18n.h>

#include <string.h>

struct _CmlModelPicker
{
  GtkWidget   parent_instance;

  /* template */
  GtkBox     *box;
  GtkLabel   *heading;
  GtkListBox *list_box;
  GtkScrolledWindow *scroller;

  guint       scroll_tick;   /* brings the selected row into view after the next layout */
};

G_DEFINE_FINAL_TYPE (CmlModelPicker, cml_model_picker, GTK_TYPE_WIDGET)

enum
{
  MODEL_SELECTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The seeds' worked examples come first, in the order of doc/theory.md §9; the other
 * built-ins follow alphabetically. */
static const char *const featured[] = {
  "rolling-ball", "rolling-ball-varying", "plate-ball", "martinet",
  "capri-kobayashi", "capri-kobayashi-full", NULL
};

/* Row data keys */
#define ROW_MODEL   "cml-model"      /* CmlModel* (a reference), NULL if it failed to load */
#define ROW_NAME    "cml-name"       /* the built-in's name or the file's path */
#define ROW_BUILTIN "cml-builtin"    /* GINT_TO_POINTER (TRUE) for built-ins */

/* TRUE if WORD is an initial: "D.", "J.", "Ju." */
static gboolean
is_initial (const char *word)
{
  gsize len = strlen (word);

  return len >= 2 && len <= 4 && word[len - 1] == '.' && g_unichar_isupper (g_utf8_get_char (word));
}

/* The surname in "D. Martín de Diego": the words after the initials. */
static char *
surname (const char *author)
{
  g_auto (GStrv) words = g_strsplit (author, " ", -1);
  g_autoptr (GString) s = g_string_new (NULL);
  gboolean initials = TRUE;

  for (guint i = 0; words[i]; i++)
    {
      if (*words[i] == '\0')
        continue;
      if (initials && is_initial (words[i]))
        continue;
      initials = FALSE;
      if (s->len)
        g_string_append_c (s, ' ');
      g_string_append (s, words[i]);
    }
  return g_strdup (s->str);
}

char *
cml_model_short_citation (const char *citation)
{
  g_autofree char *line = NULL;
  g_auto (GStrv) segments = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GRegex) year_re = NULL;
  g_autoptr (GMatchInfo) mi = NULL;
  g_autofree char *year = NULL;
  GString *out;

  if (citation == NULL || *citation == '\0')
    return g_strdup ("");

  /* the first reference: "D. Iglesias, J. C. Marrero, D. Martín de Diego and D. Sosa,
   * “Singular …”, Dynamical Systems 23 (2008), …" -> "Iglesias et al. 2008" */
  line = g_strndup (citation, strcspn (citation, "\n"));
  segments = g_strsplit (line, ", ", -1);
  for (guint i = 0; segments[i]; i++)
    {
      g_autofree char *first_word = g_strndup (segments[i], strcspn (segments[i], " "));

      if (!is_initial (first_word))
        break;
      {
      g_auto (GStrv) authors = g_strsplit (segments[i], " and ", -1);

      for (guint k = 0; authors[k]; k++)
        g_ptr_array_add (names, surname (authors[k]));
      }
    }

  year_re = g_regex_new ("\\b(1[5-9][0-9][0-9]|20[0-9][0-9])\\b", 0, 0, NULL);
  if (g_regex_match (year_re, line, 0, &mi))
    year = g_match_info_fetch (mi, 1);

  out = g_string_new (NULL);
  if (names->len == 1)
    g_string_append (out, names->pdata[0]);
  else if (names->len == 2)
    /* TRANSLATORS: two authors' names */
    g_string_append_printf (out, _("%s and %s"), (char *) names->pdata[0], (char *) names->pdata[1]);
  else if (names->len > 2)
    g_string_append_printf (out, "%s et al.", (char *) names->pdata[0]);
  if (year)
    g_string_append_printf (out, "%s%s", out->len ? " " : "", year);
  return g_string_free (out, FALSE);
}

/* A row's tooltip wraps at a readable width (a plain tooltip runs the description and
 * the reference on one line, off a 1024-pixel screen). */
static gboolean
on_row_query_tooltip (GtkWidget *row, int x, int y, gboolean keyboard, GtkTooltip *tooltip, gpointer data)
{
  const char *markup = g_object_get_data (G_OBJECT (row), "cml-tip");
  GtkWidget *label;

  if (markup == NULL)
    return FALSE;
  label = gtk_label_new (NULL);
  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 60);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_tooltip_set_custom (tooltip, label);
  return TRUE;
}

static GtkWidget *
make_row (CmlModel *model, const char *name, gboolean builtin, const char *failure)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *title, *subtitle;
  g_autofree char *source = NULL;
  g_autofree char *sub = NULL;

  if (model)
    {
      /* who wrote about it (first reference), else what kind of system it is */
      source = cml_model_short_citation (model->citation);
      if (*source == '\0')
        {
          g_free (source);
          source = g_strdup (model->kind == CML_CONSTRAINTS_NONE ? _("no constraints")
                                                                  : cml_constraint_kind_to_string (model->kind));
        }
      if (builtin)
        sub = g_strdup_printf ("%s · %s", model->name, source);
      else
        {
          g_autofree char *base = g_path_get_basename (model->path);
          sub = g_strdup_printf ("%s · %s", model->name, base);
        }
    }
  else
    sub = g_strdup_printf (_("%s · could not be loaded"), name);

  title = gtk_label_new (model && model->title ? model->title : name);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_label_set_wrap (GTK_LABEL (title), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (title), PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (title, "model-title");

  subtitle = gtk_label_new (sub);
  gtk_label_set_xalign (GTK_LABEL (subtitle), 0);
  gtk_label_set_ellipsize (GTK_LABEL (subtitle), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (subtitle, "dim-label");
  gtk_widget_add_css_class (subtitle, "model-subtitle");

  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), subtitle);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);

  if (model)
    {
      /* the first reference, or for a file without one where it is */
      g_autofree char *first_ref = model->citation ? g_strndup (model->citation, strcspn (model->citation, "\n"))
                                                   : g_strdup (model->path);
      g_autofree char *tip = g_markup_printf_escaped ("<b>%s</b>\n%s\n\n<i>%s</i>",
                                                      model->title ? model->title : model->name,
                                                      model->description ? model->description : "",
                                                      first_ref);
      g_object_set_data_full (G_OBJECT (row), "cml-tip", g_steal_pointer (&tip), g_free);
      gtk_widget_set_has_tooltip (row, TRUE);
      g_signal_connect (row, "query-tooltip", G_CALLBACK (on_row_query_tooltip), NULL);
      g_object_set_data_full (G_OBJECT (row), ROW_MODEL, cml_model_ref (model),
                              (GDestroyNotify) cml_model_unref);
    }
  else
    {
      gtk_widget_set_tooltip_text (row, failure);
      gtk_widget_set_sensitive (row, FALSE);
    }
  g_object_set_data_full (G_OBJECT (row), ROW_NAME, g_strdup (name), g_free);
  g_object_set_data (G_OBJECT (row), ROW_BUILTIN, GINT_TO_POINTER (builtin));

  return row;
}

static CmlModel *
row_model (GtkListBoxRow *row)
{
  return row ? g_object_get_data (G_OBJECT (row), ROW_MODEL) : NULL;
}

static gboolean
row_is_builtin (GtkListBoxRow *row)
{
  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (row), ROW_BUILTIN));
}

/* Opened files come first (what was just opened is in view), under a heading; the
 * built-ins get theirs when there are opened files above them. */
static void
update_header (GtkListBoxRow *row, GtkListBoxRow *before, gpointer user_data)
{
  const char *text = NULL;

  if (!row_is_builtin (row) && before == NULL)
    text = _("Opened files");
  else if (row_is_builtin (row) && before != NULL && !row_is_builtin (before))
    text = _("Built-in systems");

  if (text == NULL)
    gtk_list_box_row_set_header (row, NULL);
  else
    {
      GtkWidget *label = gtk_list_box_row_get_header (row);

      if (label == NULL || g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), text) != 0)
        {
          label = gtk_label_new (text);
          gtk_label_set_xalign (GTK_LABEL (label), 0);
          gtk_widget_add_css_class (label, "sidebar-heading");
          gtk_widget_add_css_class (label, "picker-section");
          gtk_list_box_row_set_header (row, label);
        }
    }
}

/* A row chosen with a click, or with Enter after the arrow keys.  Selection alone never
 * chooses: the list box selects the row that takes the focus, and it takes the focus as
 * the list opens; a system switched (and the list closed) from inside the opening is
 * what left the list unmapped and its grab holding every key. */
static void
on_row_activated (CmlModelPicker *self, GtkListBoxRow *row)
{
  CmlModel *model = row_model (row);

  if (model == NULL)
    return;
  g_signal_emit (self, signals[MODEL_SELECTED], 0, model);
}

static void
load_builtins (CmlModelPicker *self)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  g_autoptr (GPtrArray) order = g_ptr_array_new ();

  if (names == NULL)
    return;
  for (guint i = 0; featured[i]; i++)
    if (g_strv_contains ((const char *const *) names, featured[i]))
      g_ptr_array_add (order, (gpointer) featured[i]);
  for (guint i = 0; names[i]; i++)
    if (!g_strv_contains (featured, names[i]))
      g_ptr_array_add (order, names[i]);

  for (guint i = 0; i < order->len; i++)
    {
      const char *name = order->pdata[i];
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = cml_model_load (name, &error);

      if (model == NULL)
        g_warning ("built-in model %s: %s", name, error->message);
      gtk_list_box_append (self->list_box,
                           make_row (model, name, TRUE, error ? error->message : NULL));
    }
}

static GtkListBoxRow *
find_row (CmlModelPicker *self, const char *name_or_path, gboolean builtin_only)
{
  GtkListBoxRow *by_model_name = NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child; child = gtk_widget_get_next_sibling (child))
    {
      GtkListBoxRow *row;
      CmlModel *model;

      if (!GTK_IS_LIST_BOX_ROW (child))
        continue;
      row = GTK_LIST_BOX_ROW (child);
      if (builtin_only && !row_is_builtin (row))
        continue;
      if (g_strcmp0 (g_object_get_data (G_OBJECT (row), ROW_NAME), name_or_path) == 0)
        return row;
      model = row_model (row);
      if (model && by_model_name == NULL && g_strcmp0 (model->name, name_or_path) == 0)
        by_model_name = row;
    }
  return by_model_name;
}

static GtkListBoxRow *
find_row_of_model (CmlModelPicker *self, CmlModel *model)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_BOX_ROW (child) && row_model (GTK_LIST_BOX_ROW (child)) == model)
      return GTK_LIST_BOX_ROW (child);
  return NULL;
}

void
cml_model_picker_add_model (CmlModelPicker *self, CmlModel *model)
{
  GtkListBoxRow *old;
  GtkWidget *row;
  gboolean was_selected = FALSE;
  int position = -1;

  g_return_if_fail (CML_IS_MODEL_PICKER (self));
  g_return_if_fail (model != NULL && model->path != NULL);

  row = make_row (model, model->path, FALSE, NULL);
  old = find_row (self, model->path, FALSE);
  if (old && !row_is_builtin (old))
    {
      position = gtk_list_box_row_get_index (old);
      was_selected = gtk_list_box_row_is_selected (old);
      gtk_list_box_remove (self->list_box, GTK_WIDGET (old));
    }
  else
    {
      /* after the other opened files, above the built-ins */
      position = 0;
      for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
           child; child = gtk_widget_get_next_sibling (child))
        if (GTK_IS_LIST_BOX_ROW (child) && !row_is_builtin (GTK_LIST_BOX_ROW (child)))
          position++;
    }
  gtk_list_box_insert (self->list_box, row, position);
  if (was_selected)
    {
      gtk_list_box_select_row (self->list_box, GTK_LIST_BOX_ROW (row));
    }
  gtk_list_box_invalidate_headers (self->list_box);
}

CmlModel *
cml_model_picker_find (CmlModelPicker *self, const char *name_or_path)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (CML_IS_MODEL_PICKER (self), NULL);
  g_return_val_if_fail (name_or_path != NULL, NULL);

  row = find_row (self, name_or_path, TRUE);
  if (row == NULL)
    row = find_row (self, name_or_path, FALSE);
  return row_model (row);
}

/* Scrolls the list so that the selected row shows (the running system should be in view
 * on the projector, whatever selected it).  A tick callback, so the rows have their
 * allocations. */
static gboolean
scroll_to_selected (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  CmlModelPicker *self = CML_MODEL_PICKER (widget);
  GtkListBoxRow *row = gtk_list_box_get_selected_row (self->list_box);
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  graphene_point_t top;
  double page, value;
  int height;

  if (row == NULL)
    {
      self->scroll_tick = 0;
      return G_SOURCE_REMOVE;
    }
  height = gtk_widget_get_height (GTK_WIDGET (row));
  page = gtk_adjustment_get_page_size (adj);
  /* not laid out yet: try again next frame */
  if (height <= 0 || page <= 0
      || !gtk_widget_compute_point (GTK_WIDGET (row), GTK_WIDGET (self->list_box),
                                    &GRAPHENE_POINT_INIT (0, 0), &top))
    return G_SOURCE_CONTINUE;
  self->scroll_tick = 0;
  value = gtk_adjustment_get_value (adj);
  if (top.y < value)
    gtk_adjustment_set_value (adj, top.y);
  else if (top.y + height > value + page)
    gtk_adjustment_set_value (adj, top.y + height - page);
  return G_SOURCE_REMOVE;
}

static void
queue_scroll_to_selected (CmlModelPicker *self)
{
  if (self->scroll_tick == 0)
    self->scroll_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), scroll_to_selected, NULL, NULL);
}

void
cml_model_picker_set_selected (CmlModelPicker *self, CmlModel *model)
{
  GtkListBoxRow *row;

  g_return_if_fail (CML_IS_MODEL_PICKER (self));

  row = model ? find_row_of_model (self, model) : NULL;
  if (row)
    gtk_list_box_select_row (self->list_box, row);
  else
    gtk_list_box_unselect_all (self->list_box);
  queue_scroll_to_selected (self);
}

CmlModel *
cml_model_picker_get_selected (CmlModelPicker *self)
{
  g_return_val_if_fail (CML_IS_MODEL_PICKER (self), NULL);

  return row_model (gtk_list_box_get_selected_row (self->list_box));
}

gboolean
cml_model_picker_pick (CmlModelPicker *self, const char *name_or_path)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (CML_IS_MODEL_PICKER (self), FALSE);

  row = find_row (self, name_or_path, TRUE);
  if (row == NULL)
    row = find_row (self, name_or_path, FALSE);
  if (row == NULL || row_model (row) == NULL)
    return FALSE;
  gtk_list_box_select_row (self->list_box, row);
  on_row_activated (self, row);
  return TRUE;
}

char **
cml_model_picker_list_builtin (CmlModelPicker *self)
{
  GStrvBuilder *b = g_strv_builder_new ();
  char **names;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       child; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_BOX_ROW (child) && row_is_builtin (GTK_LIST_BOX_ROW (child))
        && row_model (GTK_LIST_BOX_ROW (child)))
      g_strv_builder_add (b, row_model (GTK_LIST_BOX_ROW (child))->name);
  names = g_strv_builder_end (b);
  g_strv_builder_unref (b);
  return names;
}

static void
cml_model_picker_dispose (GObject *object)
{
  CmlModelPicker *self = CML_MODEL_PICKER (object);

  if (self->scroll_tick)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->scroll_tick);
      self->scroll_tick = 0;
    }
  gtk_widget_dispose_template (GTK_WIDGET (object), CML_TYPE_MODEL_PICKER);

  G_OBJECT_CLASS (cml_model_picker_parent_class)->dispose (object);
}

static void
cml_model_picker_class_init (CmlModelPickerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_model_picker_dispose;

  /**
   * CmlModelPicker::model-selected:
   * @model: (type gpointer): the CmlModel chosen (no reference is passed)
   */
  signals[MODEL_SELECTED] = g_signal_new ("model-selected", G_TYPE_FROM_CLASS (klass),
                                          G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_POINTER);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-model-picker.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "cmlmodelpicker");
  gtk_widget_class_bind_template_child (widget_class, CmlModelPicker, box);
  gtk_widget_class_bind_template_child (widget_class, CmlModelPicker, heading);
  gtk_widget_class_bind_template_child (widget_class, CmlModelPicker, list_box);
  gtk_widget_class_bind_template_child (widget_class, CmlModelPicker, scroller);
  gtk_widget_class_bind_template_callback (widget_class, on_row_activated);
}

static void
cml_model_picker_init (CmlModelPicker *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_list_box_set_header_func (self->list_box, update_header, NULL, NULL);
  load_builtins (self);
}

GtkWidget *
cml_model_picker_new (void)
{
  return g_object_new (CML_TYPE_MODEL_PICKER, NULL);
}
