/* cml-geometry-draw.c — the Geometry page's drawing: the wavefront of the fan shown, its
 * conjugate and Maxwell points and the start on the axes the drop-downs choose, the closed
 * forms where the model has them ([reference]; on SE(2) the points at Sachkov's first
 * Maxwell time), and, while a fan runs, its endpoints as
 * they come.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-geometry-view"

#include "cml-geometry-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-string-list.h"

static int
coord_index (const CmlExploreResult *res, const char *name)
{
  for (guint c = 0; name && c < res->n_coords; c++)
    if (g_str_equal (res->coord_names[c], name))
      return (int) c;
  return -1;
}

/* A series of the points (X[k], Y[k]) in order, K giving each its place (the plot's
 * time): the wavefront's x goes back and forth.  Its name is the legend's, without unit
 * (the axes have them). */
static CmlPlotSeries *
points_series (const char *name, GArray *xs, GArray *ys)
{
  g_autoptr (CmlPlotColumn) t = cml_plot_column_new (), x = cml_plot_column_new (), y = cml_plot_column_new ();
  for (guint k = 0; k < xs->len; k++)
    {
      double v = k;
      cml_plot_column_append (t, &v, 1, 1);
    }
  cml_plot_column_append (x, (const double *) (gpointer) xs->data, xs->len, 1);
  cml_plot_column_append (y, (const double *) (gpointer) ys->data, ys->len, 1);
  return cml_plot_series_new_for_columns (name, "", t, x, y);
}

/* The closed forms of the axes IX, IY (point coordinates XN, YN) for extremal I of the fan
 * shown at the times TIMES (N_T of them) into XY (pairs, NaN where there is none): FALSE
 * when the model has no closed form of both. */
static gboolean
closed_form_at (CmlGeometryView *self, const char *xn, const char *yn, guint i, const double *times, guint n_t,
                double *xy)
{
  if (self->reference == NULL || self->shown == NULL)
    return FALSE;
  int rx = cml_reference_find (self->reference, xn), ry = cml_reference_find (self->reference, yn);
  if (rx < 0 || ry < 0)
    return FALSE;
  CmlModel *model = cml_system_get_model (self->sys);
  CmlSimulation *sim = self->shown->sim;
  const CmlExploreResult *res = self->shown->res;
  guint dim = cml_system_dim (self->sys), n_obs = cml_system_n_observables (self->sys);
  double t0 = cml_simulation_get_time (sim);
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *z = g_memdup2 (z0, dim * sizeof (double));
  g_autofree double *obs = g_new (double, n_obs);
  g_autofree double *params = g_new0 (double, model->params->len + 1);
  g_autofree double *values = g_new (double, cml_reference_get_n (self->reference));

  /* the extremal's start: the fan's point with its covector */
  memcpy (z + model->m, res->covectors + (gsize) i * res->n_momenta, res->n_momenta * sizeof (double));
  cml_simulation_set_state (sim, t0, z);
  cml_simulation_observe (sim, obs);
  cml_simulation_set_state (sim, t0, z0);
  for (guint k = 0; k < model->params->len; k++)
    params[k] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[k])->name);
  cml_reference_start_at (self->reference, t0, params, obs);
  for (guint k = 0; k < n_t; k++)
    {
      xy[2 * k] = xy[2 * k + 1] = NAN;
      if (!isfinite (times[k]))
        continue;
      cml_reference_eval (self->reference, times[k], values);
      xy[2 * k] = values[rx], xy[2 * k + 1] = values[ry];
    }
  return TRUE;
}

/* How strongly the wavefront at the K-th of N_F times is drawn: the earliest faintest, the
 * one at T fully (0.4 … 1, so that the earliest still shows on every background). */
static double
front_opacity (guint k, guint n_f)
{
  return n_f > 1 ? 0.4 + 0.6 * k / (n_f - 1) : 1;
}

/* Widens [*LO, *HI] to the finite values of V. */
static void
extend (const GArray *v, double *lo, double *hi)
{
  for (guint k = 0; k < v->len; k++)
    {
      double x = g_array_index (v, double, k);
      if (isfinite (x))
        *lo = MIN (*lo, x), *hi = MAX (*hi, x);
    }
}

/* An axis whose data drawn span [LO, HI] auto-scales to them unless they are all within
 * rounding of one point (closer than TOL × (1 + their size): the fan's meet tolerance, within
 * which two of its points are the same); then it shows a span from the start's scale around
 * them, ±10 % of START (±1 when the start is at zero), rather than zooming into the
 * rounding noise (Heisenberg's wavefront at its cut time 2π is a point). */
static void
hold_axis_open (CmlPlotAxis *axis, double lo, double hi, double start, double tol)
{
  cml_plot_axis_set_auto_scale (axis, TRUE);
  if (!(lo <= hi))
    return;
  double size = MAX (fabs (lo), fabs (hi));
  if (hi - lo > tol * (1 + size))
    return;
  double mid = 0.5 * (lo + hi);
  double half = isfinite (start) && fabs (start) > tol * (1 + size) ? 0.1 * fabs (start) : 1;
  cml_plot_axis_set_range (axis, mid - half, mid + half);
}

/* The fan drawn (the axes the drop-downs choose): the wavefront at each of the fan's times,
 * closed through its points, the earlier ones fainter and the one at T strongest, the
 * conjugate and the Maxwell points, the start; the closed forms where there are. */
void
cml_geometry_view_draw_fan (CmlGeometryView *self)
{
  cml_plot_remove_all_series (self->plot);
  cml_plot_axis_set_auto_scale (cml_plot_get_x_axis (self->plot), TRUE);
  cml_plot_axis_set_auto_scale (cml_plot_get_y_axis (self->plot), TRUE);
  g_array_set_size (self->points, 0);
  g_array_set_size (self->fronts, 0);
  self->n_fronts = 0;
  self->partial = FALSE;
  self->closed[0] = self->closed[1] = self->closed[2] = NAN;
  self->sachkov[0] = self->sachkov[1] = NAN;
  if (self->shown == NULL || self->sys == NULL)
    {
      gtk_widget_queue_draw (GTK_WIDGET (self->area));
      return;
    }
  CmlModel *model = cml_system_get_model (self->sys);
  const CmlExploreResult *res = self->shown->res;
  const char *xn = cml_string_list_selected (self->x_drop, self->names), *yn = cml_string_list_selected (self->y_drop, self->names);
  int ix = coord_index (res, xn), iy = coord_index (res, yn);
  if (ix < 0 || iy < 0)
    return;
  guint nc = res->n_coords, N = res->n, nf = res->n_times + 1, n_at = nf + 2;
  const char *yunit = cml_model_unit (model, yn);
  double T = self->shown->opt.t_end;
  g_autofree char *time_unit = cml_plot_format_unit (model->time_unit);

  g_autoptr (GArray) cx = g_array_new (FALSE, FALSE, sizeof (double)), cy = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) mx = g_array_new (FALSE, FALSE, sizeof (double)), my = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) sx = g_array_new (FALSE, FALSE, sizeof (double)), sy = g_array_new (FALSE, FALSE, sizeof (double));
  /* the closed forms of every front, one after the other (NaN between them) */
  g_autoptr (GArray) rx = g_array_new (FALSE, FALSE, sizeof (double)), ry = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) fronts = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_series_unref);
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;

  /* each extremal's closed form at the fan's times, T, its conjugate and Maxwell times, and
   * the largest differences of the conjugate and the Maxwell points from them */
  g_autofree double *at = g_new (double, n_at);
  g_autofree double *ref = g_new (double, (gsize) N * 2 * n_at);
  gboolean closed = FALSE;
  double d_front = 0, d_conj = 0, d_max = 0;
  for (guint f = 0; f < res->n_times; f++)
    at[f] = res->times[f];
  at[nf - 1] = T;
  for (guint i = 0; i < N; i++)
    {
      double *r = ref + (gsize) i * 2 * n_at;
      at[nf] = res->conjugate[i] <= T ? res->conjugate[i] : NAN;
      at[nf + 1] = res->maxwell[i] <= T ? res->maxwell[i] : NAN;
      const double *c = self->shown->conj_pts + (gsize) i * nc, *w = self->shown->max_pts + (gsize) i * nc;
      if (closed_form_at (self, xn, yn, i, at, n_at, r))
        {
          closed = TRUE;
          if (isfinite (at[nf]))
            d_conj = MAX (d_conj, MAX (fabs (c[ix] - r[2 * nf]), fabs (c[iy] - r[2 * nf + 1])));
          if (isfinite (at[nf + 1]))
            d_max = MAX (d_max, MAX (fabs (w[ix] - r[2 * nf + 2]), fabs (w[iy] - r[2 * nf + 3])));
        }
      else
        for (guint k = 0; k < 2 * n_at; k++)
          r[k] = NAN;
      if (isfinite (c[ix]) && isfinite (c[iy]))
        g_array_append_val (cx, c[ix]), g_array_append_val (cy, c[iy]);
      if (isfinite (w[ix]) && isfinite (w[iy]))
        g_array_append_val (mx, w[ix]), g_array_append_val (my, w[iy]);
    }

  /* the wavefronts, earliest first, each around the circle of covectors and back */
  for (guint f = 0; f < nf; f++)
    {
      g_autoptr (GArray) fx = g_array_new (FALSE, FALSE, sizeof (double));
      g_autoptr (GArray) fy = g_array_new (FALSE, FALSE, sizeof (double));
      guint first = G_MAXUINT, ring = rx->len;
      for (guint i = 0; i < N; i++)
        {
          const double *q = res->points + ((gsize) i * nf + f) * nc;
          const double *r = ref + (gsize) i * 2 * n_at + 2 * f;
          double xy[2] = { q[ix], q[iy] };
          g_array_append_vals (self->fronts, xy, 2);
          if (f == nf - 1)
            g_array_append_vals (self->points, xy, 2);
          if (isfinite (xy[0]) && isfinite (xy[1]))
            {
              g_array_append_val (fx, xy[0]);
              g_array_append_val (fy, xy[1]);
              first = first == G_MAXUINT ? i : first;
            }
          if (isfinite (r[0]) && isfinite (r[1]))
            {
              g_array_append_val (rx, r[0]);
              g_array_append_val (ry, r[1]);
              d_front = MAX (d_front, MAX (fabs (xy[0] - r[0]), fabs (xy[1] - r[1])));
            }
        }
      if (first != G_MAXUINT && N > 2)
        {
          g_array_append_val (fx, g_array_index (fx, double, 0));
          g_array_append_val (fy, g_array_index (fy, double, 0));
        }
      if (rx->len - ring > 2)
        {
          double nan = NAN;
          g_array_append_val (rx, g_array_index (rx, double, ring));
          g_array_append_val (ry, g_array_index (ry, double, ring));
          g_array_append_val (rx, nan);
          g_array_append_val (ry, nan);
        }
      extend (fx, &x_lo, &x_hi);
      extend (fy, &y_lo, &y_hi);
      double t = at[f];
      g_autofree char *name
        = f == nf - 1 ? g_strdup_printf (_("wavefront at t = %.3g%s%s"), t, *time_unit ? " " : "", time_unit)
                      : g_strdup_printf ("t = %.3g%s%s", t, *time_unit ? " " : "", time_unit);
      CmlPlotSeries *front = points_series (name, fx, fy);
      cml_plot_series_set_palette_index (front, 0);
      cml_plot_series_set_opacity (front, front_opacity (f, nf));
      g_ptr_array_add (fronts, front);
    }
  self->n_fronts = nf;
  const double *z0 = cml_simulation_get_state (self->shown->sim);
  double x0 = (guint) ix < model->m ? z0[ix] : z0[ix + res->n_momenta];
  double y0 = (guint) iy < model->m ? z0[iy] : z0[iy + res->n_momenta];
  g_array_append_val (sx, x0);
  g_array_append_val (sy, y0);
  extend (rx, &x_lo, &x_hi), extend (ry, &y_lo, &y_hi);
  extend (cx, &x_lo, &x_hi), extend (cy, &y_lo, &y_hi);
  extend (mx, &x_lo, &x_hi), extend (my, &y_lo, &y_hi);
  extend (sx, &x_lo, &x_hi), extend (sy, &y_lo, &y_hi);

  /* SE(2): the points at Sachkov's first Maxwell times, a curve in the order of the
   * covectors (broken where an extremal has none before T), and how far the Maxwell times
   * and points found are from them */
  g_autoptr (GArray) kx = g_array_new (FALSE, FALSE, sizeof (double)), ky = g_array_new (FALSE, FALSE, sizeof (double));
  double d_ktime = 0, d_kpoint = 0;
  guint n_k = 0;
  if (self->shown->sachkov_t)
    for (guint i = 0; i < N; i++)
      {
        const double *k = self->shown->sachkov_pts + (gsize) i * nc, *w = self->shown->max_pts + (gsize) i * nc;
        double nan = NAN;
        if (!(isfinite (k[ix]) && isfinite (k[iy])))
          {
            if (kx->len && isfinite (g_array_index (kx, double, kx->len - 1)))
              g_array_append_val (kx, nan), g_array_append_val (ky, nan);
            continue;
          }
        g_array_append_val (kx, k[ix]);
        g_array_append_val (ky, k[iy]);
        n_k++;
        if (res->maxwell[i] <= T)
          {
            d_ktime = MAX (d_ktime, fabs (res->maxwell[i] - self->shown->sachkov_t[i]));
            d_kpoint = MAX (d_kpoint, MAX (fabs (w[ix] - k[ix]), fabs (w[iy] - k[iy])));
          }
      }
  extend (kx, &x_lo, &x_hi), extend (ky, &y_lo, &y_hi);
  g_autofree char *sachkov_name = NULL;
  if (n_k)
    {
      self->sachkov[0] = mx->len ? d_ktime : NAN;
      self->sachkov[1] = mx->len ? d_kpoint : NAN;
      /* TRANSLATORS: the points at Sachkov's closed form of the first Maxwell time on SE(2),
       * 2K(k); %.2g is the largest difference of the Maxwell times found from it */
      sachkov_name = mx->len ? g_strdup_printf (_("at Sachkov's 2K(k) (times within %.2g)"), d_ktime)
                             : g_strdup (_("at Sachkov's Maxwell time 2K(k)"));
    }

  g_autofree char *conj_name = NULL, *max_name = NULL, *closed_name = NULL;
  if (closed)
    {
      self->closed[0] = rx->len ? d_front : NAN;
      self->closed[1] = cx->len ? d_conj : NAN;
      self->closed[2] = mx->len ? d_max : NAN;
      /* TRANSLATORS: %.2g is the largest difference of the points from their closed form */
      conj_name = g_strdup_printf (_("conjugate points (within %.2g of the closed form)"), d_conj);
      /* TRANSLATORS: %.2g is the largest difference of the points from their closed form */
      max_name = g_strdup_printf (_("Maxwell points (within %.2g of the closed form)"), d_max);
      /* TRANSLATORS: %.2g is the largest difference of the wavefronts from their closed form */
      closed_name = g_strdup_printf (_("wavefronts, closed form (largest difference %.2g)"), d_front);
    }
  g_autoptr (CmlPlotSeries) conj = points_series (conj_name ? conj_name : _("conjugate points (first, up to T)"), cx, cy);
  g_autoptr (CmlPlotSeries) maxw = points_series (max_name ? max_name : _("Maxwell points (two extremals meet)"), mx, my);
  g_autoptr (CmlPlotSeries) front_ref = closed ? points_series (closed_name, rx, ry) : NULL;
  g_autoptr (CmlPlotSeries) start = points_series (_("start"), sx, sy);
  cml_plot_series_set_palette_index (conj, 1);
  cml_plot_series_set_palette_index (maxw, 3);
  cml_plot_series_set_palette_index (start, 2);
  cml_plot_series_set_markers (conj, TRUE);
  cml_plot_series_set_markers (maxw, TRUE);
  cml_plot_series_set_markers (start, TRUE);
  if (front_ref && rx->len)
    {
      /* under the numerics, in their colour but half as strong (the fainter fronts' lines
       * show on them): where the two agree the dashes show on both sides of the lines */
      cml_plot_series_set_palette_index (front_ref, 0);
      cml_plot_series_set_opacity (front_ref, 0.5);
      cml_plot_series_set_dashed (front_ref, TRUE);
      cml_plot_add_series (self->plot, front_ref);
    }
  if (n_k)
    {
      /* dashed in the Maxwell points' colour, under them: the closed form's cut locus */
      CmlPlotSeries *cut = points_series (sachkov_name, kx, ky);
      cml_plot_series_set_palette_index (cut, 3);
      cml_plot_series_set_opacity (cut, 0.6);
      cml_plot_series_set_dashed (cut, TRUE);
      cml_plot_add_series (self->plot, cut);
      cml_plot_series_unref (cut);
    }
  for (guint f = 0; f < fronts->len; f++)
    cml_plot_add_series (self->plot, fronts->pdata[f]);
  if (cx->len)
    cml_plot_add_series (self->plot, conj);
  if (mx->len)
    cml_plot_add_series (self->plot, maxw);
  cml_plot_add_series (self->plot, start);
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), xn, cml_model_unit (model, xn));
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), yn, yunit);
  g_autofree char *title = g_strdup_printf (ngettext ("The fan of %u extremal to t = %.3g%s%s",
                                                      "The fan of %u extremals to t = %.3g%s%s", N),
                                            N, T, *time_unit ? " " : "", time_unit);
  cml_plot_set_title (self->plot, title);
  /* never zoomed into rounding noise: a wavefront collapsed to a point sits inside the
   * earlier ones, and if every one is a point the axes keep the start's scale */
  double tol = self->shown->opt.meet_tolerance;
  hold_axis_open (cml_plot_get_x_axis (self->plot), x_lo, x_hi, x0, tol);
  hold_axis_open (cml_plot_get_y_axis (self->plot), y_lo, y_hi, y0, tol);
  cml_plot_reset_ranges (self->plot);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

/* The running fan's endpoints that have come (markers: the wavefront is not closed yet),
 * on the axes the drop-downs choose. */
void
cml_geometry_view_draw_ended (CmlGeometryView *self)
{
  Job *job = self->job;
  if (job == NULL || self->sys == NULL || job->ended == NULL)
    return;
  CmlModel *model = cml_system_get_model (self->sys);
  const char *xn = cml_string_list_selected (self->x_drop, self->names), *yn = cml_string_list_selected (self->y_drop, self->names);
  guint ix = cml_string_list_find (self->names, xn), iy = cml_string_list_find (self->names, yn);
  if (ix == GTK_INVALID_LIST_POSITION || iy == GTK_INVALID_LIST_POSITION || ix >= job->n_coords
      || iy >= job->n_coords)
    return;
  guint N = job->opt.n_covectors, nc = job->n_coords;
  double T = job->opt.t_end;
  g_autoptr (GArray) fx = g_array_new (FALSE, FALSE, sizeof (double)), fy = g_array_new (FALSE, FALSE, sizeof (double));

  cml_plot_remove_all_series (self->plot);
  g_array_set_size (self->points, 0);
  g_array_set_size (self->fronts, 0);
  self->n_fronts = 0;
  self->partial = TRUE;
  g_mutex_lock (&job->lock);
  self->n_drawn = job->n_ended;
  for (guint i = 0; i < N; i++)
    {
      const double *q = job->ended + (gsize) i * nc;
      double xy[2] = { q[ix], q[iy] };
      g_array_append_vals (self->points, xy, 2);
      if (isfinite (xy[0]) && isfinite (xy[1]))
        g_array_append_val (fx, xy[0]), g_array_append_val (fy, xy[1]);
    }
  g_mutex_unlock (&job->lock);
  g_autofree char *time_unit = cml_plot_format_unit (model->time_unit);
  g_autofree char *name = g_strdup_printf (ngettext ("%u endpoint at t = %.3g%s%s so far",
                                                     "%u endpoints at t = %.3g%s%s so far", fx->len),
                                           fx->len, T, *time_unit ? " " : "", time_unit);
  g_autoptr (CmlPlotSeries) front = points_series (name, fx, fy);
  cml_plot_series_set_palette_index (front, 0);
  cml_plot_series_set_markers (front, TRUE);
  cml_plot_add_series (self->plot, front);
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), xn, cml_model_unit (model, xn));
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), yn, cml_model_unit (model, yn));
  g_autofree char *title = g_strdup_printf (ngettext ("The fan of %u extremal to t = %.3g%s%s",
                                                      "The fan of %u extremals to t = %.3g%s%s", N),
                                            N, T, *time_unit ? " " : "", time_unit);
  cml_plot_set_title (self->plot, title);
  /* the endpoints at a cut time may all be one point: the axes keep the start's scale */
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  extend (fx, &x_lo, &x_hi);
  extend (fy, &y_lo, &y_hi);
  hold_axis_open (cml_plot_get_x_axis (self->plot), x_lo, x_hi, job->start[ix], job->opt.meet_tolerance);
  hold_axis_open (cml_plot_get_y_axis (self->plot), y_lo, y_hi, job->start[iy], job->opt.meet_tolerance);
  cml_plot_reset_ranges (self->plot);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}
