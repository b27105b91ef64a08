/* cml-lesson-handout.c — `cmlab-cli lesson handout LESSON -o FILE.pdf`: a printable
 * worksheet of a lesson, drawn with Cairo and Pango (so it lives in cmlab-cli-render).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One A4 page a step: the lesson's title and the step's number, its caption, a figure of
 * how the step starts and its question with room to answer — boxes for the choices, a line
 * for a number and its unit, ruled lines for the reasons.  Never an answer, an afterwards
 * text, a note for the teacher or a hidden value: the figure has no title or parameter line,
 * and it stops long before the motion answers the question (draw_figure says how).  A step
 * that plays a recorded motion (a student's copy) is plotted from its rows.  The PDF is written to a
 * temporary file beside FILE and renamed: all or nothing.
 */
#define G_LOG_DOMAIN "cmlab-cli"

#include "cml-lesson-handout.h"

#include <cairo-pdf.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <string.h>

#include "cml-cli-common.h"
#include "cml-lesson.h"
#include "cml-plot-cairo.h"
#include "cml-plot.h"
#include "cml-system.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2

/* A4 in points, and the margins */
#define PAGE_W 595.0
#define PAGE_H 842.0
#define MARGIN 56.0
#define FIGURE_H 230.0
#define FIGURE_SAMPLES 400

static const char *handout_usage =
  N_("Usage: cmlab-cli lesson handout LESSON -o FILE.pdf\n"
  "Writes a printable worksheet of the lesson: a page for each step with its caption, a\n"
  "figure of how it starts and its question with room to answer.  No answers, notes or\n"
  "hidden values.  LESSON is a lesson file or the name of a shipped lesson.\n");

/* Draws TEXT at (MARGIN, *Y) in the page's width in FONT; *Y moves below it. */
static void
draw_text (cairo_t *cr, double *y, const char *font, const char *text, double grey)
{
  g_autoptr (PangoLayout) layout = pango_cairo_create_layout (cr);
  PangoFontDescription *fd = pango_font_description_from_string (font);
  int w, h;

  pango_layout_set_font_description (layout, fd);
  pango_font_description_free (fd);
  pango_layout_set_width (layout, (int) ((PAGE_W - 2 * MARGIN) * PANGO_SCALE));
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_text (layout, text, -1);
  cairo_set_source_rgb (cr, grey, grey, grey);
  cairo_move_to (cr, MARGIN, *y);
  pango_cairo_show_layout (cr, layout);
  pango_layout_get_size (layout, &w, &h);
  *y += (double) h / PANGO_SCALE;
}

static void
draw_rule (cairo_t *cr, double x0, double x1, double y)
{
  cairo_set_source_rgb (cr, 0.6, 0.6, 0.6);
  cairo_set_line_width (cr, 0.6);
  cairo_move_to (cr, x0, y);
  cairo_line_to (cr, x1, y);
  cairo_stroke (cr);
}

/* The figure of STEP, drawn in (MARGIN, Y, width, FIGURE_H): with a prediction asked at
 * a time T > 0, its quantity over the first twentieth of T (the start the class predicts
 * from, never the answer); else the first of the model's output quantities that moves
 * over the first fifth of the step (not the quantity a question asks at t = 0).  No
 * figure when the step's given data were changed by the constraints and it asks a
 * question: the start itself would answer it.  *NOTE gets what to print instead. */
static gboolean
draw_figure (cairo_t *cr, const CmlLessonStep *st, double y, const char **note, GError **error)
{
  const CmlPrediction *pr = &st->prediction;
  gboolean asked_later = pr->kind != CML_PREDICTION_NONE && pr->at > 0;
  double span = st->t_end > 0 ? st->t_end : 2 * 5;
  double t_end = asked_later ? pr->at / 20 : span / 5;
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  g_autoptr (GArray) ts = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) values = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  const char *quantity = NULL;
  GArray *vs = NULL;

  *note = NULL;
  if (asked_later)
    g_ptr_array_add (names, pr->quantity);
  else
    for (guint c = 0; st->model->columns && st->model->columns[c]; c++)
      if (pr->kind == CML_PREDICTION_NONE || !g_str_equal (st->model->columns[c], pr->quantity))
        g_ptr_array_add (names, st->model->columns[c]);
  for (guint k = 0; k <= FIGURE_SAMPLES; k++)
    {
      double t = k == FIGURE_SAMPLES ? t_end : t_end * k / FIGURE_SAMPLES;
      g_array_append_val (ts, t);
    }
  for (guint q = 0; q < names->len; q++)
    g_ptr_array_add (values, g_array_new (FALSE, FALSE, sizeof (double)));
  if (st->motion)
    {
      for (guint q = 0; q < names->len; q++)
        for (guint k = 0; k < ts->len; k++)
          {
            double v = NAN;
            cml_lesson_motion_value (st->motion, names->pdata[q], g_array_index (ts, double, k), &v);
            g_array_append_val (values->pdata[q], v);
          }
    }
  else
    {
      g_autoptr (CmlSimulation) sim = cml_lesson_step_simulation (st, error);
      CmlSystem *sys;
      if (sim == NULL)
        return FALSE;
      if (pr->kind != CML_PREDICTION_NONE && cml_simulation_get_projection_report (sim)->len > 0)
        {
          *note = _("(No figure: the constraints change the data given, and the start itself would answer the "
                    "question.)");
          return TRUE;
        }
      sys = cml_simulation_get_system (sim);
      g_autofree double *obs = g_new (double, cml_system_n_observables (sys));
      for (guint k = 0; k < ts->len; k++)
        {
          if (k > 0 && !cml_simulation_advance (sim, g_array_index (ts, double, k), error))
            return FALSE;
          cml_simulation_observe (sim, obs);
          for (guint q = 0; q < names->len; q++)
            {
              int idx = cml_system_observable_index (sys, names->pdata[q]);
              double v = idx >= 0 ? obs[idx] : NAN;
              g_array_append_val (values->pdata[q], v);
            }
        }
    }
  /* the quantity: the one asked, else the first that moves */
  for (guint q = 0; q < names->len && quantity == NULL; q++)
    {
      GArray *a = values->pdata[q];
      double lo = INFINITY, hi = -INFINITY;
      for (guint k = 0; k < a->len; k++)
        {
          lo = MIN (lo, g_array_index (a, double, k));
          hi = MAX (hi, g_array_index (a, double, k));
        }
      if (isfinite (lo) && isfinite (hi) && (asked_later || hi - lo > 1e-9 * (1 + fabs (hi))))
        {
          quantity = names->pdata[q];
          vs = a;
        }
    }
  if (quantity == NULL || !(t_end > 0))
    return TRUE;

  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autoptr (CmlPlotSeries) series = cml_plot_series_new (quantity, cml_model_unit (st->model, quantity));
  CmlPlotStyle style;
  /* no title and no line of parameters: a hidden value stays hidden */
  cml_plot_set_title (plot, "");
  cml_plot_set_against_time (plot, TRUE);
  cml_plot_set_show_all (plot, TRUE);
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "t", st->model->time_unit);
  cml_plot_axis_set_label (cml_plot_get_y_axis (plot), quantity, cml_model_unit (st->model, quantity));
  cml_plot_series_append (series, (const double *) ts->data, (const double *) vs->data, ts->len);
  cml_plot_add_series (plot, series);
  cml_plot_style_init_for_figure (&style, FALSE, PAGE_W - 2 * MARGIN, FIGURE_H);
  cairo_save (cr);
  cairo_translate (cr, MARGIN, y);
  cml_plot_cairo_draw (plot, cr, PAGE_W - 2 * MARGIN, FIGURE_H, &style);
  cairo_restore (cr);
  return TRUE;
}

static cairo_status_t
write_to_string (void *closure, const unsigned char *data, unsigned int length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static gboolean
draw_handout (const CmlLesson *lesson, GByteArray *pdf, GError **error)
{
  cairo_surface_t *surface = cairo_pdf_surface_create_for_stream (write_to_string, pdf, PAGE_W, PAGE_H);
  cairo_t *cr = cairo_create (surface);
  const char *title = cml_lesson_translated (lesson->translations, "title", lesson->title);
  gboolean ok = TRUE;

  cairo_pdf_surface_set_metadata (surface, CAIRO_PDF_METADATA_TITLE, title);
  for (guint k = 0; k < lesson->steps->len && ok; k++)
    {
      const CmlLessonStep *st = lesson->steps->pdata[k];
      const CmlPrediction *pr = &st->prediction;
      double y = MARGIN;
      g_autofree char *head = g_strdup_printf (_("%s — step %u of %u"), title, k + 1, lesson->steps->len);

      draw_text (cr, &y, "Sans 9", head, 0.4);
      draw_rule (cr, MARGIN, PAGE_W - MARGIN, y + 4);
      y += 14;
      g_autofree char *step_title = g_strdup_printf (_("Step %u"), k + 1);
      draw_text (cr, &y, "Sans Bold 15", step_title, 0);
      y += 6;
      draw_text (cr, &y, "Serif 12", cml_lesson_translated (st->translations, "caption", st->caption), 0);
      y += 12;
      const char *note = NULL;
      if (!(ok = draw_figure (cr, st, y, &note, error)))
        break;
      if (note)
        {
          draw_text (cr, &y, "Sans 10", note, 0.3);
          y += 18;
        }
      else
        y += FIGURE_H + 18;
      if (pr->kind == CML_PREDICTION_NONE)
        {
          draw_text (cr, &y, "Sans Bold 11", _("What do you see?"), 0);
          y += 10;
        }
      else
        {
          draw_text (cr, &y, "Sans Bold 12", cml_lesson_translated (st->translations, "question", pr->question), 0);
          y += 10;
          if (pr->kind == CML_PREDICTION_CHOICE)
            {
              const char *raw = cml_lesson_translated (st->translations, "choices", NULL);
              g_auto (GStrv) choices = raw ? g_strsplit (raw, ";", -1) : g_strdupv (pr->choices);
              for (guint c = 0; choices[c]; c++)
                {
                  g_autofree char *line = g_strdup_printf ("☐  %s", g_strstrip (choices[c]));
                  if (*choices[c] == '\0')
                    continue;
                  draw_text (cr, &y, "Serif 12", line, 0);
                  y += 6;
                }
            }
          else
            {
              const char *unit = pr->unit ? cml_lesson_translated (st->translations, "unit", pr->unit) : "";
              g_autofree char *line = g_strdup_printf (_("Your answer: ____________________ %s"), unit);
              draw_text (cr, &y, "Serif 12", line, 0);
            }
          y += 14;
          draw_text (cr, &y, "Sans 10", _("Why? Write your reasons before you watch:"), 0.3);
        }
      /* room to write */
      for (double ry = y + 28; ry < PAGE_H - MARGIN; ry += 28)
        draw_rule (cr, MARGIN, PAGE_W - MARGIN, ry);
      cairo_show_page (cr);
    }
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  if (ok && cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s", cairo_status_to_string (cairo_surface_status (surface)));
      ok = FALSE;
    }
  cairo_surface_destroy (surface);
  return ok;
}

int
cml_lesson_handout_main (int argc, char **argv)
{
  g_autofree char *output = NULL;
  g_auto (GStrv) rest = NULL;
  gboolean help = FALSE;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "", "FILE" },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, "", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &rest, "", NULL },
    G_OPTION_ENTRY_NULL
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char **args = g_new0 (char *, argc + 2);
  g_autofree char *try_help = cml_cli_try_help ();
  int n_args = argc + 1;
  char **pargs = args;

  args[0] = (char *) "cmlab-cli lesson handout";
  for (int k = 0; k < argc; k++)
    args[k + 1] = argv[k];
  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &n_args, &pargs, &error))
    {
      fprintf (stderr, "cmlab-cli lesson: %s\n%s", error->message, try_help);
      return EXIT_USAGE;
    }
  if (help)
    {
      fputs (_(handout_usage), stdout);
      return 0;
    }
  if (rest == NULL || rest[0] == NULL || rest[1] != NULL)
    {
      fprintf (stderr, _("cmlab-cli lesson: lesson handout needs one lesson\n%s"), try_help);
      return EXIT_USAGE;
    }
  if (output == NULL || !g_str_has_suffix (output, ".pdf"))
    {
      fprintf (stderr, _("cmlab-cli lesson: lesson handout needs -o FILE.pdf\n%s"), try_help);
      return EXIT_USAGE;
    }

  g_autofree char *path = cml_cli_find_lesson (rest[0]);
  g_autoptr (CmlLesson) lesson = cml_lesson_load (path, &error);
  if (lesson == NULL)
    {
      fprintf (stderr, "cmlab-cli lesson: %s\n", error->message);
      return EXIT_USAGE;
    }
  g_autoptr (GByteArray) pdf = g_byte_array_new ();
  if (!draw_handout (lesson, pdf, &error))
    {
      fprintf (stderr, _("cmlab-cli lesson: the handout cannot be drawn: %s\n"), error->message);
      return EXIT_FAILED;
    }
  if (!g_file_set_contents (output, (const char *) pdf->data, (gssize) pdf->len, &error))
    {
      fprintf (stderr, "cmlab-cli lesson: %s\n", error->message);
      return EXIT_USAGE;
    }
  printf (_("wrote %s: %u pages, one for each step\n"), output, lesson->steps->len);
  return 0;
}
