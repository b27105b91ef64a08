/* bench-wp.c — the benchmark's figure "work-precision-figures": error against wall time of
 * every integrator on every built-in, drawn as one log–log diagram per model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each built-in runs from its default initial data over its span in one advance: 10 periods
 * where reference-rhs.c has a closed form (its error is then the largest deviation from the
 * closed form at the end, doc/theory.md §9), else 10 s (the error is the largest deviation
 * of the state from a reference run: taylor at 1e-15, checked against rk8pd at 1e-14; their
 * difference is the floor under the errors).  Adaptive integrators sweep rtol = atol, the
 * fixed-step ones (implicit-midpoint, variational, variational4 where the model has that
 * form, rk4-fixed) the step h = P/N, P the span over 10.  The time is wall time in this
 * process (CLOCK_MONOTONIC), median of repetitions; Martinet also as whole `cmlab-cli
 * simulate` processes, wall time from spawn to exit, start-up included.
 */
#define G_LOG_DOMAIN "cmlab-bench"

#include "bench-stats.h"
#include "bench-wp.h"
#include "bench-csv.h"

#ifdef CMLAB_BENCH_HAVE_RENDER
#include "cml-plot-cairo.h"
#include "cml-plot.h"
#endif

#include "cml-error.h"
#include "cml-integrator.h"
#include "cml-model.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct
{
  CmlIntegratorKind kind;
  gboolean fixed;
} WpMethod;

static const WpMethod methods[] = {
  { CML_INTEGRATOR_RK8PD },   { CML_INTEGRATOR_RKF45 },  { CML_INTEGRATOR_RKCK },
  { CML_INTEGRATOR_RK4 },     { CML_INTEGRATOR_MSADAMS }, { CML_INTEGRATOR_MSBDF },
  { CML_INTEGRATOR_TAYLOR },  { CML_INTEGRATOR_DOP853 },
  { CML_INTEGRATOR_IMPLICIT_MIDPOINT, TRUE }, { CML_INTEGRATOR_VARIATIONAL, TRUE },
  { CML_INTEGRATOR_VARIATIONAL4, TRUE },      { CML_INTEGRATOR_RK4_FIXED, TRUE },
};

typedef struct
{
  double x;      /* tolerance, or step */
  double err;
  double secs;   /* wall time */
  guint64 n_rhs;
} WpPoint;

static char *csv_dir;

void
bench_wp_set_csv_dir (const char *dir)
{
  g_free (csv_dir);
  csv_dir = g_strdup (dir);
}

static int
cmp_point (const void *a, const void *b)
{
  return bench_cmp_double (&((const WpPoint *) a)->secs, &((const WpPoint *) b)->secs);
}

gboolean
bench_wp_is_builtin (const char *name)
{
  g_auto (GStrv) models = cml_model_list_builtin ();
  return models && g_strv_contains ((const char *const *) models, name);
}

/* ---- one model ------------------------------------------------------------------------------ */

static gboolean
set_method (CmlSimulation *sim, CmlIntegratorKind kind, gboolean fixed, double x, GError **error)
{
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  if (fixed)
    o.h_fixed = x;
  else
    o.rtol = o.atol = x;
  return cml_simulation_set_integrator (sim, &o, error) && cml_simulation_reset (sim, NULL, error);
}

/* The state at the end of the span with KIND at rtol = atol = TOL, into OUT. */
static gboolean
reference_run (BenchWpModel *m, CmlIntegratorKind kind, double tol, double *out, GError **error)
{
  guint dim = cml_system_dim (m->sys);
  if (!set_method (m->sim, kind, FALSE, tol, error) || !cml_simulation_advance (m->sim, m->span, error))
    return FALSE;
  memcpy (out, cml_simulation_get_state (m->sim), dim * sizeof (double));
  return TRUE;
}

gboolean
bench_wp_model_open (BenchWpModel *m, const char *model, GError **error)
{
  g_autoptr (CmlModel) md = NULL;

  memset (m, 0, sizeof *m);
  m->model = g_strdup (model);
  if ((md = cml_model_load (model, error)) == NULL || (m->sys = cml_system_new (md, error)) == NULL
      || (m->sim = cml_simulation_new (m->sys, error)) == NULL)
    return FALSE;
  m->title = g_strdup (md->title ? md->title : model);
  m->obs = g_new0 (double, cml_system_n_observables (m->sys) + 1);
  m->ref = cml_ref_system_lookup (model);
  if (m->ref && m->ref->dim == cml_system_dim (m->sys))
    {
      const char *names[16];
      double exact[16];
      memcpy (m->z0, cml_simulation_get_state (m->sim), m->ref->dim * sizeof (double));
      for (guint k = 0; k < m->ref->n_params; k++)
        m->params.p[k] = cml_simulation_get_param (m->sim, m->ref->param_names[k]);
      m->ref->prepare (&m->params);
      m->period = cml_ref_period (m->ref, &m->params, m->z0);
      m->span = 10 * m->period;
      m->closed_form = cml_ref_exact (m->ref, &m->params, m->z0, m->span, names, exact, 16) > 0;
    }
  if (!m->closed_form)
    {
      guint dim = cml_system_dim (m->sys);
      g_autofree double *other = g_new (double, dim);
      m->span = 10;
      m->period = 1;
      m->ref_state = g_new (double, dim);
      if (!reference_run (m, CML_INTEGRATOR_TAYLOR, 1e-15, m->ref_state, NULL)
          && !reference_run (m, CML_INTEGRATOR_RK8PD, 1e-14, m->ref_state, error))
        return FALSE;
      if (!reference_run (m, CML_INTEGRATOR_RK8PD, 1e-14, other, error))
        return FALSE;
      for (guint i = 0; i < dim; i++)
        m->ref_spread = MAX (m->ref_spread, fabs (other[i] - m->ref_state[i]));
    }
  return TRUE;
}

void
bench_wp_model_close (BenchWpModel *m)
{
  g_clear_pointer (&m->sim, cml_simulation_free);
  g_clear_pointer (&m->sys, cml_system_unref);
  g_clear_pointer (&m->obs, g_free);
  g_clear_pointer (&m->ref_state, g_free);
  g_clear_pointer (&m->model, g_free);
  g_clear_pointer (&m->title, g_free);
}

double
bench_wp_model_error (BenchWpModel *m)
{
  double err = 0;
  if (m->closed_form)
    {
      const char *names[16];
      double exact[16];
      guint n = cml_ref_exact (m->ref, &m->params, m->z0, cml_simulation_get_time (m->sim), names, exact, 16);
      if (n == 0)
        return NAN;
      cml_simulation_observe (m->sim, m->obs);
      for (guint k = 0; k < n; k++)
        {
          int i = cml_system_observable_index (m->sys, names[k]);
          if (i >= 0)
            err = MAX (err, fabs (m->obs[i] - exact[k]));
        }
      return err;
    }
  const double *z = cml_simulation_get_state (m->sim);
  for (guint i = 0; i < cml_system_dim (m->sys); i++)
    err = MAX (err, fabs (z[i] - m->ref_state[i]));
  return err;
}

/* One point: an untimed run (it gives the error, and builds whatever native code the
 * method needs), then repetitions, as many as fit in about BUDGET seconds (at least one,
 * at most 21): the median wall time.  FALSE when the method refuses or fails. */
static gboolean
wp_point (BenchWpModel *m, const WpMethod *me, double x, double budget, WpPoint *p, GError **error)
{
  double t0, first, times[21];
  guint reps;

  p->x = x;
  if (!set_method (m->sim, me->kind, me->fixed, x, error))
    return FALSE;
  t0 = bench_wall_s ();
  if (!cml_simulation_advance (m->sim, m->span, error))
    return FALSE;
  first = bench_wall_s () - t0;
  p->err = bench_wp_model_error (m);
  p->n_rhs = cml_simulation_n_rhs (m->sim);
  reps = first > budget ? 1 : (guint) CLAMP (budget / MAX (first, 1e-6), 1, 21);
  for (guint r = 0; r < reps; r++)
    {
      if (!set_method (m->sim, me->kind, me->fixed, x, error))
        return FALSE;
      t0 = bench_wall_s ();
      if (!cml_simulation_advance (m->sim, m->span, error))
        return FALSE;
      times[r] = bench_wall_s () - t0;
    }
  p->secs = bench_median (times, reps);
  return TRUE;
}

/* ---- Martinet as whole processes ------------------------------------------------------------- */

/* The closed-form error of the last row of a `cmlab-cli simulate` CSV file. */
static double
process_error (BenchWpModel *m, const char *path)
{
  g_autoptr (GHashTable) row = bench_csv_last_row (path, NULL);
  const char *names[16];
  double exact[16], err = 0;
  guint n;

  if (row == NULL || !g_hash_table_contains (row, "t"))
    return NAN;
  n = cml_ref_exact (m->ref, &m->params, m->z0, *(double *) g_hash_table_lookup (row, "t"), names, exact, 16);
  if (n == 0)
    return NAN;
  for (guint k = 0; k < n; k++)
    {
      double *v = g_hash_table_lookup (row, names[k]);
      if (v)
        err = MAX (err, fabs (*v - exact[k]));
    }
  return err;
}

static gboolean
process_point (BenchWpModel *m, const char *cli, const char *tmp, const WpMethod *me, double x, guint reps,
               WpPoint *p)
{
  g_autofree char *csv = g_build_filename (tmp, "run.csv", NULL);
  g_autofree char *span_s = g_strdup_printf ("%.17g", m->span), *x_s = g_strdup_printf ("%.17g", x);
  const char *name = cml_integrator_kind_to_string (me->kind);
  char *argv_fixed[] = { (char *) cli, "simulate", m->model, "--t-end", span_s, "--dt-out", span_s, "--integrator",
                         (char *) name, "--step", x_s, "-o", csv, NULL };
  char *argv_adapt[] = { (char *) cli, "simulate", m->model, "--t-end", span_s, "--dt-out", span_s, "--integrator",
                         (char *) name, "--rtol", x_s, "--atol", x_s, "-o", csv, NULL };
  char **argv = me->fixed ? argv_fixed : argv_adapt;
  double times[9];

  p->x = x;
  reps = CLAMP (reps, 1, 9);
  for (guint r = 0; r <= reps; r++)
    {
      int status = -1;
      double t0 = bench_wall_s ();
      /* by vfork (descriptors left open), as bench-startup.c spawns */
      if (!g_spawn_sync (NULL, argv, NULL,
                         G_SPAWN_LEAVE_DESCRIPTORS_OPEN | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                         NULL, NULL, NULL, NULL, &status, NULL)
          || !g_spawn_check_wait_status (status, NULL))
        return FALSE;
      if (r > 0) /* the first run fills the native-code cache */
        times[r - 1] = bench_wall_s () - t0;
    }
  p->secs = bench_median (times, reps);
  p->err = process_error (m, csv);
  p->n_rhs = 0;
  g_unlink (csv);
  return !isnan (p->err);
}

/* ---- the figure ------------------------------------------------------------------------------- */

typedef struct
{
  char   *label;
  gboolean fixed;
  GArray *points;  /* WpPoint, sorted by time */
} WpLine;

static void
wp_line_clear (WpLine *l)
{
  g_free (l->label);
  if (l->points)
    g_array_unref (l->points);
}

static void
write_figure (BenchWpModel *m, const char *base, const char *subtitle, WpLine *lines, guint n)
{
  g_autofree char *csv = g_strdup_printf ("%s/%s.csv", csv_dir, base);
  FILE *f = fopen (csv, "w");
  if (f == NULL)
    {
      printf ("    (cannot write %s)\n", csv);
      return;
    }
  fprintf (f, "integrator,knob,x,error,rhs_evals,wall_s\n");
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < lines[i].points->len; k++)
      {
        WpPoint *p = &g_array_index (lines[i].points, WpPoint, k);
        fprintf (f, "%s,%s,%.6g,%.6e,%" G_GUINT64_FORMAT ",%.6e\n", lines[i].label, lines[i].fixed ? "h" : "tol", p->x,
                 p->err, p->n_rhs, p->secs);
      }
  fclose (f);
  printf ("    data: %s\n", csv);
#ifdef CMLAB_BENCH_HAVE_RENDER
  g_autoptr (CmlPlot) plot = cml_plot_new ();
  g_autofree char *title = g_strdup_printf ("Work–precision: %s", m->title);
  cml_plot_set_title (plot, title);
  cml_plot_set_subtitle (plot, subtitle);
  cml_plot_axis_set_label (cml_plot_get_x_axis (plot), "log10 wall time", "s");
  cml_plot_axis_set_label (cml_plot_get_y_axis (plot), "log10 error", NULL);
  cml_plot_set_against_time (plot, FALSE);
  cml_plot_set_equal_scales (plot, FALSE);
  cml_plot_set_show_all (plot, TRUE);
  cml_plot_set_legend_visible (plot, TRUE);
  for (guint i = 0; i < n; i++)
    {
      guint np = lines[i].points->len;
      if (np == 0)
        continue;
      /* a hair space after the name: the legend would read "rk4" as a symbol, "rk₄" */
      g_autofree char *name = g_strconcat (lines[i].label, "\u200a", NULL);
      g_autoptr (CmlPlotSeries) s = cml_plot_series_new (name, NULL);
      g_autofree double *x = g_new (double, np);
      g_autofree double *y = g_new (double, np);
      for (guint k = 0; k < np; k++)
        {
          WpPoint *p = &g_array_index (lines[i].points, WpPoint, k);
          /* strictly increasing x: the series' x is also its time column */
          x[k] = log10 (MAX (p->secs, 1e-9));
          if (k > 0 && x[k] <= x[k - 1])
            x[k] = x[k - 1] + 1e-9;
          y[k] = log10 (MAX (p->err, 1e-17));
        }
      /* a line through the points (a dot when there is one) */
      cml_plot_series_set_markers (s, np == 1);
      cml_plot_series_set_dashed (s, lines[i].fixed);
      cml_plot_series_append (s, x, y, np);
      cml_plot_add_series (plot, s);
    }
  const char *ext[] = { "png", "svg" };
  for (guint e = 0; e < G_N_ELEMENTS (ext); e++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%s.%s", csv_dir, base, ext[e]);
      g_autoptr (GError) error = NULL;
      if (cml_plot_export (plot, path, 1100, 720, &error))
        printf ("    figure: %s\n", path);
      else
        printf ("    figure not written: %s\n", error->message);
    }
#else
  (void) m;
  (void) subtitle;
#endif
}

static void
print_line (const char *label, GArray *pts, const char *failure)
{
  double best = INFINITY, best_s = NAN, fastest = INFINITY, fastest_err = NAN;
  for (guint k = 0; k < pts->len; k++)
    {
      WpPoint *p = &g_array_index (pts, WpPoint, k);
      if (p->err < best)
        best = p->err, best_s = p->secs;
      if (p->secs < fastest)
        fastest = p->secs, fastest_err = p->err;
    }
  /* a refusal's reason is its last clause ("…; its constraints are vakonomic (use …)") */
  const char *why = failure && strrchr (failure, ';') ? strrchr (failure, ';') + 2 : failure;
  if (pts->len == 0)
    printf ("    %-28s  refused or failed: %.80s\n", label, why ? why : "no point");
  else
    printf ("    %-28s  %3u  %9.1e at %9.3f ms   %9.1e at %9.3f ms%s%.60s\n", label, pts->len, best, 1e3 * best_s,
            fastest_err, 1e3 * fastest, failure ? "  (some failed: " : "", failure ? failure : "");
}

static void
json_line (CmlJson *json, const char *label, gboolean fixed, GArray *pts)
{
  cml_json_begin_object (json, NULL, CML_JSON_BLOCK);
  cml_json_string (json, "integrator", label);
  cml_json_string (json, "knob", fixed ? "h" : "rtol=atol");
  cml_json_begin_array (json, "points", CML_JSON_BLOCK);
  for (guint k = 0; k < pts->len; k++)
    {
      WpPoint *p = &g_array_index (pts, WpPoint, k);
      cml_json_begin_object (json, NULL, CML_JSON_LINE);
      cml_json_number (json, fixed ? "h" : "tol", p->x);
      cml_json_number (json, "error", p->err);
      cml_json_int (json, "rhs_evals", p->n_rhs);
      cml_json_number (json, "wall_s", p->secs);
      cml_json_end (json);
    }
  cml_json_end (json);
  cml_json_end (json);
}

void
bench_wp_figures (const char *cli, CmlJson *json, gboolean quick, const char *const *only)
{
  static const double tols_full[] = { 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13 };
  static const double tols_quick[] = { 1e-4, 1e-8, 1e-12 };
  static const double steps_full[] = { 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096 };
  static const double steps_quick[] = { 16, 256 };
  const double *tols = quick ? tols_quick : tols_full, *steps = quick ? steps_quick : steps_full;
  const guint n_tols = quick ? G_N_ELEMENTS (tols_quick) : G_N_ELEMENTS (tols_full);
  const guint n_steps = quick ? G_N_ELEMENTS (steps_quick) : G_N_ELEMENTS (steps_full);
  const double budget = quick ? 0.002 : 0.2;
  gboolean any_figure = FALSE, any_model = FALSE;
  g_auto (GStrv) models = cml_model_list_builtin ();

  gboolean other_figure = FALSE;
  for (guint i = 0; only && only[i]; i++)
    {
      if (g_str_equal (only[i], "work-precision-figures"))
        any_figure = TRUE;
      else if (models && g_strv_contains ((const char *const *) models, only[i]))
        any_model = TRUE;
      else
        other_figure = TRUE;
    }
  /* --only names figures (and not this one), or the models it names are none */
  if (other_figure && !any_figure)
    return;
  printf ("\n13. Work–precision figures: every integrator on every built-in, error against wall time in\n"
          "    this process (median of repetitions); rtol = atol = %g … %g, fixed steps h = P/%g … P/%g\n"
          "    (P: the period, or a tenth of the span); best error and at what time, fastest and its error\n",
          tols[0], tols[n_tols - 1], steps[0], steps[n_steps - 1]);
  cml_json_begin_array (json, "work_precision_figures", CML_JSON_BLOCK);
  for (guint mi = 0; models && models[mi]; mi++)
    {
      BenchWpModel m;
      g_autoptr (GError) error = NULL;
      if (any_model && !g_strv_contains (only, models[mi]))
        continue;
      g_printerr ("bench: work-precision figure %s\n", models[mi]);
      if (!bench_wp_model_open (&m, models[mi], &error))
        {
          printf ("  %s: %s\n", models[mi], error->message);
          bench_wp_model_close (&m);
          continue;
        }
      g_autofree char *subtitle =
        m.closed_form
          ? g_strdup_printf ("10 periods (%.4g s) from the default initial data, error against the closed form at the "
                             "end; solid: rtol = atol %.0e … %.0e, dashed: h = P/%g … P/%g",
                             m.span, tols[0], tols[n_tols - 1], steps[0], steps[n_steps - 1])
          : g_strdup_printf ("%.4g s from the default initial data, error against a reference run (floor %.0e); "
                             "solid: rtol = atol %.0e … %.0e, dashed: h = %.3g … %.3g s",
                             m.span, m.ref_spread, tols[0], tols[n_tols - 1], m.period / steps[0],
                             m.period / steps[n_steps - 1]);
      printf ("  %s: span %.4g s, error against %s\n    %-28s  %3s  %27s   %27s\n", m.model, m.span,
              m.closed_form ? "the closed form" : "a reference run", "integrator", "pts", "best error",
              "fastest");
      cml_json_begin_object (json, NULL, CML_JSON_BLOCK);
      cml_json_string (json, "model", m.model);
      cml_json_number (json, "span", m.span);
      cml_json_bool (json, "closed_form", m.closed_form);
      if (!m.closed_form)
        cml_json_number (json, "reference_spread", m.ref_spread);
      cml_json_begin_array (json, "integrators", CML_JSON_BLOCK);
      WpLine lines[G_N_ELEMENTS (methods)] = { { 0 } };
      guint n_lines = 0;
      for (guint k = 0; k < G_N_ELEMENTS (methods); k++)
        {
          const WpMethod *me = &methods[k];
          guint np = me->fixed ? n_steps : n_tols;
          g_autofree char *failure = NULL;
          WpLine *l = &lines[n_lines];
          l->label = g_strdup (cml_integrator_kind_to_string (me->kind));
          l->fixed = me->fixed;
          l->points = g_array_new (FALSE, FALSE, sizeof (WpPoint));
          for (guint j = 0; j < np; j++)
            {
              WpPoint p = { 0 };
              g_autoptr (GError) e = NULL;
              if (wp_point (&m, me, me->fixed ? m.period / steps[j] : tols[j], budget, &p, &e))
                g_array_append_val (l->points, p);
              else if (!failure)
                failure = g_strdup (e ? e->message : "failed");
              /* a method that refuses the model refuses it at every point */
              if (j == 0 && l->points->len == 0 && e && e->domain == CML_ERROR && e->code != CML_ERROR_NUMERIC)
                break;
            }
          qsort (l->points->data, l->points->len, sizeof (WpPoint), cmp_point);
          print_line (l->label, l->points, failure);
          json_line (json, l->label, l->fixed, l->points);
          if (l->points->len)
            n_lines++;
          else
            wp_line_clear (l);
        }
      cml_json_end (json);
      if (csv_dir)
        {
          g_autofree char *base = g_strdup_printf ("work-precision-%s", m.model);
          write_figure (&m, base, subtitle, lines, n_lines);
        }
      for (guint k = 0; k < n_lines; k++)
        wp_line_clear (&lines[k]);

      /* Martinet also as whole processes */
      if (g_str_equal (m.model, "martinet") && m.closed_form && cli)
        {
          g_autofree char *tmp = g_dir_make_tmp ("cmlab-bench-wp-XXXXXX", NULL);
          WpLine pl[G_N_ELEMENTS (methods)] = { { 0 } };
          guint npl = 0;
          printf ("  martinet, whole `cmlab-cli simulate` processes (wall time from spawn to exit)\n");
          cml_json_begin_array (json, "martinet_process", CML_JSON_BLOCK);
          for (guint k = 0; tmp && k < G_N_ELEMENTS (methods); k++)
            {
              const WpMethod *me = &methods[k];
              guint np = me->fixed ? n_steps : n_tols;
              WpLine *l = &pl[npl];
              l->label = g_strdup (cml_integrator_kind_to_string (me->kind));
              l->fixed = me->fixed;
              l->points = g_array_new (FALSE, FALSE, sizeof (WpPoint));
              for (guint j = 0; j < np; j++)
                {
                  WpPoint p = { 0 };
                  if (process_point (&m, cli, tmp, me, me->fixed ? m.period / steps[j] : tols[j], quick ? 1 : 7,
                                     &p))
                    g_array_append_val (l->points, p);
                  else if (j == 0 && me->kind >= CML_INTEGRATOR_VARIATIONAL && me->kind <= CML_INTEGRATOR_VARIATIONAL4)
                    break; /* refused: not this model's form */
                }
              qsort (l->points->data, l->points->len, sizeof (WpPoint), cmp_point);
              print_line (l->label, l->points, l->points->len ? NULL : "the command failed");
              json_line (json, l->label, l->fixed, l->points);
              if (l->points->len)
                npl++;
              else
                wp_line_clear (l);
            }
          cml_json_end (json);
          if (csv_dir && npl)
            {
              g_autofree char *sub = g_strdup_printf (
                "cmlab-cli simulate martinet, 10 periods (%.4g s): wall time of the whole process, start-up "
                "included; error against the closed form; solid: rtol = atol, dashed: fixed h",
                m.span);
              write_figure (&m, "work-precision-martinet-process", sub, pl, npl);
            }
          for (guint k = 0; k < npl; k++)
            wp_line_clear (&pl[k]);
          if (tmp)
            g_rmdir (tmp);
        }
      cml_json_end (json);
      bench_wp_model_close (&m);
      fflush (stdout);
    }
  cml_json_end (json);
}
