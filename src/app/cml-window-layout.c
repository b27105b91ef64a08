/* cml-window-layout.c — how the window is laid out and styled: light, dark or high
 * contrast (following the desktop or the person's choice, remembered), the side panel,
 * presentation mode and its type growing with the screen, the split between the 3-D view
 * and the plots.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-window"

#include "cml-window-private.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "cml-geometry-view.h"
#include "cml-style.h"
#include "cml-sweep-view.h"
#include "cml-window-geometry.h"
#include "cml-window-sweep.h"

#include <math.h>

/* ---- view settings --------------------------------------------------------------------- */

gboolean
cml_window_get_dark (CmlWindow *self)
{
  return cml_style_is_dark ();
}

/* Dark or light for this run (--dark, a test): the choice remembered is left alone. */
void
cml_window_set_dark (CmlWindow *self, gboolean dark)
{
  /* application-wide, like the desktop's dark style */
  cml_style_set_choice (dark ? "dark" : "light");
}

/* The menu's choice (follow the desktop, light or dark): applied to every window and
 * remembered for the next run. */
void
cml_window_set_style_choice (CmlWindow *self, const char *choice)
{
  if (choice == NULL || !cml_style_set_choice (choice))
    return;
  cml_style_remember (self->settings);
}

/* cmlab's own drawings in the style the widgets have: dark or light, and in black and
 * white with thicker lines when the desktop asks for high contrast. */
void
cml_window_on_style_changed (CmlWindow *self)
{
  gboolean dark = cml_window_get_dark (self);
  gboolean hc = cml_style_is_high_contrast ();

  cml_scene_view_set_style (self->scene_view, dark, hc);
  cml_plot_view_set_style (self->time_plot, dark, hc);
  cml_plot_view_set_style (self->phase_plot, dark, hc);
  cml_section_view_set_style (self->section_view, dark, hc, self->presentation);
  cml_sweep_view_set_style (cml_window_sweep_view (self), dark, hc, self->presentation);
  cml_geometry_view_set_style (cml_window_geometry_view (self), dark, hc, self->presentation);
  g_object_notify_by_pspec (G_OBJECT (self), cml_window_properties[CML_WINDOW_PROP_DARK]);
}

void
cml_window_on_style_choice_changed (CmlWindow *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), cml_window_properties[CML_WINDOW_PROP_STYLE]);
}

void
cml_window_set_sidebar_visible (CmlWindow *self, gboolean visible)
{
  visible = !!visible;
  if (self->sidebar_visible == visible)
    return;
  self->sidebar_visible = visible;
  gtk_widget_set_visible (GTK_WIDGET (self->parameter_panel), visible);
  g_object_notify_by_pspec (G_OBJECT (self), cml_window_properties[CML_WINDOW_PROP_SIDEBAR_VISIBLE]);
}

/* Presentation mode is for a projector: the side panel folds away (its button brings it
 * back), the 3-D view and the plots share the room, type and lines grow.  Leaving it
 * restores the panel and the split as they were. */
void
cml_window_set_presentation (CmlWindow *self, gboolean presentation)
{
  presentation = !!presentation;
  if (self->presentation == presentation)
    return;
  self->presentation = presentation;
  if (presentation)
    {
      int cw = gtk_widget_get_width (GTK_WIDGET (self->content_paned));

      self->saved_sidebar_visible = self->sidebar_visible;
      /* the plots column's width: the paned keeps its end child's width when it is resized */
      self->saved_content_position = self->layout_done && cw > 0
                                       ? cw - gtk_paned_get_position (self->content_paned) : -1;
      gtk_widget_add_css_class (GTK_WIDGET (self), "presentation");
      cml_window_set_sidebar_visible (self, FALSE);
      self->layout_done = FALSE;
      self->layout_wait = 2;
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self), "presentation");
      cml_window_set_sidebar_visible (self, self->saved_sidebar_visible);
      if (self->saved_content_position >= 0)
        {
          int cw = gtk_widget_get_width (GTK_WIDGET (self->content_paned));

          /* the column as wide as it was; when the side panel comes back the view gives
           * up the room, and the column keeps its width */
          gtk_paned_set_position (self->content_paned, MAX (cw - self->saved_content_position, 0));
          self->saved_content_position = -1;
          self->layout_done = TRUE;
        }
      else
        self->layout_done = FALSE;
    }
  /* the integrator's settings and the open button are the teacher's, not the hall's:
   * they leave the header bar to the title */
  gtk_widget_set_visible (GTK_WIDGET (self->integrator_dropdown), !presentation);
  cml_window_show_integrator_choice (self);
  gtk_widget_set_visible (GTK_WIDGET (self->open_button), !presentation);
  /* the header bar shows the speed: the status line's room goes to the scrubber and the
   * distance */
  gtk_widget_set_visible (GTK_WIDGET (self->speed_label), !presentation);
  /* on a projector the title is read whole, on two lines when it must, and the model's
   * file name and formalism (the teacher's) make room for it */
  gtk_label_set_single_line_mode (self->title_label, !presentation);
  gtk_label_set_wrap (self->title_label, presentation);
  gtk_label_set_lines (self->title_label, presentation ? 2 : -1);
  gtk_label_set_justify (self->title_label, GTK_JUSTIFY_CENTER);
  /* a wrapping label asks for its whole text on one line: bounded, the header bar does
   * not widen the window for it */
  gtk_label_set_width_chars (self->title_label, presentation ? 12 : -1);
  gtk_label_set_max_width_chars (self->title_label, presentation ? 32 : -1);
  cml_window_update_title (self);
  cml_scene_view_set_presentation (self->scene_view, presentation);
  cml_window_pen_presentation (self, presentation);
  cml_timeline_set_compact (self->timeline, presentation);
  cml_plot_view_set_presentation (self->time_plot, presentation);
  cml_plot_view_set_presentation (self->phase_plot, presentation);
  cml_section_view_set_style (self->section_view, cml_window_get_dark (self), cml_style_is_high_contrast (),
                              presentation);
  cml_sweep_view_set_style (cml_window_sweep_view (self), cml_window_get_dark (self), cml_style_is_high_contrast (),
                            presentation);
  cml_geometry_view_set_style (cml_window_geometry_view (self), cml_window_get_dark (self),
                               cml_style_is_high_contrast (), presentation);
  g_object_notify_by_pspec (G_OBJECT (self), cml_window_properties[CML_WINDOW_PROP_PRESENTATION]);
}

void
cml_window_set_table_frame (CmlWindow *self, gboolean table_frame)
{
  table_frame = !!table_frame;
  if (self->table_frame == table_frame)
    return;
  self->table_frame = table_frame;
  cml_scene_view_set_table_frame (self->scene_view, table_frame);
  g_object_notify_by_pspec (G_OBJECT (self), cml_window_properties[CML_WINDOW_PROP_TABLE_FRAME]);
}


/* On a projector the type grows with the screen: in presentation mode every text and
 * line is window height / 800 times its size (at least its size), so that the plots'
 * labels, the legend and the status line stay above 2.5 % of the height from 768 lines
 * to 4K.  Checked every frame (a resize, a move to another screen, F5). */
void
cml_window_update_text_scale (CmlWindow *self)
{
  double scale = self->presentation ? MAX (1.0, gtk_widget_get_height (GTK_WIDGET (self)) / 800.0) : 1.0;
  char size[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *css = NULL;

  /* up to the next step of 1/20: a window a pixel taller changes nothing */
  scale = ceil (scale * 20.0) / 20.0;
  if (scale == self->text_scale)
    return;
  self->text_scale = scale;
  cml_plot_view_set_text_scale (self->time_plot, scale);
  cml_plot_view_set_text_scale (self->phase_plot, scale);
  cml_scene_view_set_text_scale (self->scene_view, scale);
  if (self->text_css == NULL)
    {
      self->text_css = gtk_css_provider_new ();
      gtk_style_context_add_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                                  GTK_STYLE_PROVIDER (self->text_css),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION + 1);
    }
  g_ascii_formatd (size, sizeof size, "%.2f", 15.0 * scale);
  css = scale > 1.0 ? g_strdup_printf ("window.presentation { font-size: %spt; }", size) : g_strdup ("");
  gtk_css_provider_load_from_data (self->text_css, css, -1);
  /* the sizes changed: in presentation mode the split is made again for them (leaving it
   * restores the split the normal layout had) */
  if (self->presentation)
    {
      self->layout_done = FALSE;
      self->layout_wait = 2;
    }
}

/* The split between the 3-D view and the plots, once the window has its size: the plots
 * get a readable column (their natural width, within 38–50 % of the space, but not less
 * than their minimum) and the view the rest.  In presentation mode the view, which the
 * hall watches, gets at least 55 %.  Neither gets less than its minimum (the window is
 * never narrower than both: a 1024-pixel screen holds them), so nothing is cut off.  Done
 * again when presentation mode changes the sizes; a position the user chose (or the one
 * remembered) is kept otherwise. */
void
cml_window_initial_layout (CmlWindow *self)
{
  GtkWidget *column = gtk_paned_get_end_child (self->content_paned);
  GtkWidget *view = gtk_paned_get_start_child (self->content_paned);
  int w = gtk_widget_get_width (GTK_WIDGET (self->content_paned));
  int min = 0, nat = 0, view_min = 0, right;
  double hi = self->presentation ? 0.45 : 0.50;

  if (self->layout_done || w <= 0)
    return;
  /* wait for the width to settle: the side panel folding away, or type growing, takes a
   * frame or two to reach the allocation */
  if (w != self->last_layout_w || self->layout_wait > 0)
    {
      self->last_layout_w = w;
      self->layout_wait = MAX (self->layout_wait - 1, 0);
      return;
    }
  gtk_widget_measure (column, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  gtk_widget_measure (view, GTK_ORIENTATION_HORIZONTAL, -1, &view_min, NULL, NULL, NULL);
  right = MAX (CLAMP (nat, (int) (0.38 * w), (int) (hi * w)), min);
  right = MAX (MIN (right, w - view_min), min);
  gtk_paned_set_position (self->content_paned, MAX (w - right, 0));
  self->layout_done = TRUE;
}
