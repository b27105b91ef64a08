/* cml-section-view.c — a Poincaré section built by clicking.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page shows the crossings of a section g(z) = 0 (an equation in the state, crossed
 * upwards, downwards or both ways; cml-section.c locates each crossing on the
 * integrator's own solution) in the plane of two chosen quantities.  A click in the plot
 * starts an orbit from that point: the run's current state with the two quantities set
 * to the point, the section's own quantity (for a section "name = value") set to its
 * value, each conserved quantity of the coordinates alone (|Γ|² of the heavy top) kept
 * at the run's value by a coordinate neither clicked nor on the section (the root on the
 * branch of its present value), and — where the model has an energy monitor — one
 * velocity solved so that the energy is the run's now, on the branch (the sign of that
 * velocity) whose motion crosses the section the way it counts: so that every orbit lies
 * on one energy level, its first crossing is the point clicked (marked with a ring), and
 * the section shows that level's tori, islands and chaos.  A point no such motion passes
 * through is refused, and the axes open on the region starts exist in.  The constraints
 * solve or project the rest when the orbit starts (as for any start).  Each orbit runs
 * for the orbit time in a worker thread on a simulation of its own and is drawn in a
 * colour of its own.
 */
#define G_LOG_DOMAIN "cml-section-view"

#include "cml-section-view.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-plot-area.h"
#include "cml-plot.h"
#include "cml-section.h"

#define DEFAULT_ORBIT_TIME 200.0 /* time units per orbit */
#define CHUNK              10.0  /* an orbit is run in pieces this long, to be cancellable */

struct _CmlSectionView
{
  GtkWidget       parent_instance;

  GtkEntry       *section_entry;
  GtkDropDown    *direction;
  GtkDropDown    *x_drop, *y_drop;
  GtkStringList  *names;
  GtkSpinButton  *orbit_time;
  GtkLabel       *status;
  CmlPlotArea    *area;

  CmlSystem      *sys;
  CmlRunner      *runner;
  char           *section_text;
  CmlPlot        *plot;       /* the area's */
  GPtrArray      *orbits;     /* CmlPlotSeries*, one per orbit */
  GArray         *starts;     /* double pairs: where each orbit started (the point clicked) */
  GArray         *last_start; /* the observables at the last orbit's start (tests) */
  gboolean        fitted;     /* the axes hold the region a click can start from */
  guint           n_running;
  GCancellable   *cancel;     /* the orbits of the current settings */
  double          last_started, last_level;
  gboolean        syncing;
};

G_DEFINE_FINAL_TYPE (CmlSectionView, cml_section_view, GTK_TYPE_WIDGET)

static const char *const direction_ids[] = { "up", "down", "both" };

/* ---- an orbit, in a worker thread ------------------------------------------------------- */

typedef struct
{
  CmlSimulation *sim;   /* at the orbit's start, its own (made on the UI thread) */
  CmlSection *section;
  double      t_end;
  int         ix, iy;
  GArray     *out;      /* double pairs */
  char       *error;
} Orbit;

static void
orbit_free (Orbit *o)
{
  cml_simulation_free (o->sim);
  cml_section_free (o->section);
  g_array_unref (o->out);
  g_free (o->error);
  g_free (o);
}

static void
on_crossing (double t, const double *obs, gpointer data)
{
  Orbit *o = data;
  /* the start is the first crossing already (a start on g = 0 within rounding may be
   * found again at once) */
  if (t <= 1e-9 * MAX (1.0, o->t_end))
    return;
  double xy[2] = { obs[o->ix], obs[o->iy] };
  g_array_append_vals (o->out, xy, 2);
}

static void
orbit_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
  Orbit *o = data;
  g_autoptr (GError) error = NULL;
  double max_step = MIN (o->t_end / 10000, 0.01);
  g_autofree double *obs = g_new (double, cml_system_n_observables (cml_simulation_get_system (o->sim)));

  /* the start lies on the section and crosses it the way it counts: the first crossing */
  cml_simulation_observe (o->sim, obs);
  double xy[2] = { obs[o->ix], obs[o->iy] };
  g_array_append_vals (o->out, xy, 2);

  for (double t = 0; t < o->t_end && !g_cancellable_is_cancelled (cancel);)
    {
      double t1 = MIN (t + CHUNK, o->t_end);
      if (!cml_section_run (o->section, o->sim, t1, max_step, on_crossing, o, &error))
        break;
      t = t1;
    }
  if (error)
    o->error = g_strdup (error->message);
  g_task_return_boolean (task, TRUE);
}

static void
update_status (CmlSectionView *self, const char *error)
{
  guint n = 0;
  for (guint k = 0; k < self->orbits->len; k++)
    n += cml_plot_series_get_n (g_ptr_array_index (self->orbits, k));
  g_autofree char *text = NULL;
  if (error)
    text = g_strdup (error);
  else if (self->orbits->len == 0)
    text = g_strdup (_("Click in the plot to start an orbit from that point."));
  else
    {
      g_autofree char *orbits = g_strdup_printf (ngettext ("%u orbit", "%u orbits", self->orbits->len), self->orbits->len);
      g_autofree char *crossings = g_strdup_printf (ngettext ("%u crossing", "%u crossings", n), n);
      /* TRANSLATORS: "3 orbits (running), 120 crossings" */
      text = g_strdup_printf (_("%s%s, %s"), orbits, self->n_running ? _(" (running)") : "", crossings);
    }
  gtk_label_set_text (self->status, text);
}

/* The axes hold the region clicked in so far and every crossing: they grow, never jump. */
static void
grow_ranges (CmlSectionView *self)
{
  for (int a = 0; a < 2; a++)
    {
      CmlPlotAxis *axis = a == 0 ? cml_plot_get_x_axis (self->plot) : cml_plot_get_y_axis (self->plot);
      double lo, hi;
      cml_plot_axis_get_range (axis, &lo, &hi);
      double dlo = INFINITY, dhi = -INFINITY;
      for (guint k = 0; k < self->orbits->len; k++)
        {
          CmlPlotSeries *s = g_ptr_array_index (self->orbits, k);
          const CmlPlotColumn *c = a == 0 ? cml_plot_series_get_x_column (s) : cml_plot_series_get_y_column (s);
          const double *v = cml_plot_column_get_data (c);
          for (guint i = 0; i < cml_plot_column_get_n (c); i++)
            if (isfinite (v[i]))
              dlo = MIN (dlo, v[i]), dhi = MAX (dhi, v[i]);
        }
      if (!(dlo <= dhi))
        continue;
      double pad = 0.05 * MAX (dhi - dlo, 1e-9);
      if (dlo - pad < lo || dhi + pad > hi)
        cml_plot_axis_set_range (axis, MIN (lo, dlo - pad), MAX (hi, dhi + pad));
    }
}

static void
orbit_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CmlSectionView *self = CML_SECTION_VIEW (source);
  GTask *task = G_TASK (result);
  Orbit *o = g_task_get_task_data (task);
  CmlPlotSeries *series = g_object_get_data (G_OBJECT (task), "series");

  self->n_running--;
  if (!g_cancellable_is_cancelled (g_task_get_cancellable (task)) && series)
    {
      guint n = o->out->len / 2;
      const double *xy = (const double *) (gpointer) o->out->data;
      for (guint k = 0; k < n; k++)
        cml_plot_series_append (series, &xy[2 * k], &xy[2 * k + 1], 1);
      grow_ranges (self);
      gtk_widget_queue_draw (GTK_WIDGET (self->area));
    }
  update_status (self, o->error);
}

/* ---- starting an orbit ------------------------------------------------------------------ */

/* The model's energy monitor ("energy", else a monitor named like "H" or "E"), or NULL. */
static const CmlNamedExpr *
energy_monitor (CmlModel *model)
{
  static const char *const names[] = { "energy", "E", "H", NULL };
  for (guint n = 0; names[n]; n++)
    for (guint k = 0; k < model->monitors->len; k++)
      {
        CmlNamedExpr *m = g_ptr_array_index (model->monitors, k);
        if (g_str_equal (m->name, names[n]))
          return m;
      }
  return NULL;
}

/* Whether monitor M is a conserved quantity of the base coordinates alone (as |Γ|² of the
 * heavy top): the motion keeps it, whatever the velocities, so a start must have it at
 * the run's value.  *BASE: the base coordinates it depends on (m flags). */
static gboolean
held_invariant (CmlModel *model, const CmlNamedExpr *m, gboolean *base)
{
  guint ns = cml_expr_ctx_n_symbols (model->ctx);
  g_autofree gboolean *used = g_new0 (gboolean, ns);
  gboolean any = FALSE;

  if (!m->conserved)
    return FALSE;
  cml_expr_collect_symbols (m->expr, used);
  for (guint k = 0; k < model->m; k++)
    base[k] = FALSE;
  for (guint id = 0; id < ns; id++)
    {
      if (!used[id])
        continue;
      const char *name = cml_expr_ctx_symbol_name (model->ctx, id);
      gboolean is_base = FALSE;
      for (guint k = 0; k < model->m; k++)
        if (g_str_equal (name, model->base[k]))
          base[k] = is_base = any = TRUE;
      if (!is_base && cml_model_find_param (model, name) == NULL)
        return FALSE;
    }
  return any;
}

/* The value of observable I at the start made from GIVEN, or NAN when that start does
 * not exist. */
static double
value_at (CmlSimulation *sim, int i, GHashTable *given, double *obs)
{
  if (!cml_simulation_reset (sim, given, NULL))
    return NAN;
  cml_simulation_observe (sim, obs);
  return obs[i];
}

/* Solves F(v) = LEVEL, F observable I, for the value v of NAME in GIVEN by the secant
 * method from FROM (so the root found is the one nearest FROM, the branch of FROM);
 * TRUE when |F − LEVEL| ≤ 1e-12 (relative to the level's size). */
static gboolean
solve_value (CmlSimulation *sim, int i, GHashTable *given, const char *name, double level, double from, double *obs)
{
  double *v = g_hash_table_lookup (given, name);
  double v0 = from;
  *v = v0;
  double e0 = value_at (sim, i, given, obs) - level;
  double v1 = v0 != 0 ? v0 + 1e-3 * v0 : 1e-3;
  *v = v1;
  double e1 = value_at (sim, i, given, obs) - level;
  double scale = MAX (1.0, fabs (level));
  for (int it = 0; it < 80 && isfinite (e0) && isfinite (e1); it++)
    {
      if (fabs (e1) <= 1e-14 * scale)
        break;
      if (e1 == e0)
        break;
      double v2 = v1 - e1 * (v1 - v0) / (e1 - e0);
      if (!isfinite (v2))
        break;
      v0 = v1, e0 = e1, v1 = v2;
      *v = v1;
      e1 = value_at (sim, i, given, obs) - level;
    }
  if (!(isfinite (e0) && isfinite (e1)))
    return FALSE;
  if (fabs (e0) < fabs (e1))
    {
      *v = v0;
      e1 = value_at (sim, i, given, obs) - level;
    }
  return isfinite (e1) && fabs (e1) <= 1e-12 * scale;
}

/* What an orbit starts from, as a click would make it: SIM at its start. */
typedef struct
{
  CmlSimulation *sim;
  double         level;    /* the energy level (NAN: no energy monitor) */
  double         started;  /* the energy at the start */
  CmlSection    *section;
} Start;

static void
start_clear (Start *s)
{
  g_clear_pointer (&s->sim, cml_simulation_free);
  g_clear_pointer (&s->section, cml_section_free);
}

/* "G₁ = 0.5, W₁ = 0.2" */
static char *
point_text (const char *xn, double x, const char *yn, double y)
{
  g_autofree char *px = cml_expr_pretty_name (xn, FALSE), *py = cml_expr_pretty_name (yn, FALSE);
  return g_strdup_printf ("%s = %.4g, %s = %.4g", px, x, py, y);
}

/* What a held invariant stands for, for people: its meaning up to the first comma
 * ("|Γ|²"), else its name. */
static char *
invariant_text (CmlModel *model, const char *name)
{
  const char *meaning = cml_model_meaning (model, name);
  if (meaning && *meaning)
    {
      gsize n = strcspn (meaning, ",;(");
      g_autofree char *head = g_strstrip (g_strndup (meaning, n));
      if (*head)
        return g_steal_pointer (&head);
    }
  return cml_expr_pretty_name (name, FALSE);
}

/* Makes the start of an orbit through the point (X, Y) of the section plot (see
 * cml_section_view_start_orbit), into OUT; FALSE with the reason in plain words when no
 * motion of the run's energy crosses the section there in its direction. */
static gboolean
make_start (CmlSectionView *self, double x, double y, Start *out, GError **error)
{
  memset (out, 0, sizeof *out);
  if (self->sys == NULL || self->runner == NULL || self->section_text == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("no system to start an orbit of"));
      return FALSE;
    }
  CmlModel *model = cml_system_get_model (self->sys);
  guint ixd = gtk_drop_down_get_selected (self->x_drop), iyd = gtk_drop_down_get_selected (self->y_drop);
  if (ixd == GTK_INVALID_LIST_POSITION || iyd == GTK_INVALID_LIST_POSITION)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("no system to start an orbit of"));
      return FALSE;
    }
  const char *xn = gtk_string_list_get_string (self->names, ixd);
  const char *yn = gtk_string_list_get_string (self->names, iyd);
  CmlSectionDirection dir = (CmlSectionDirection) (gtk_drop_down_get_selected (self->direction) + 1);
  g_autoptr (CmlSection) section = cml_section_new (self->sys, self->section_text, dir, error);
  if (section == NULL)
    return FALSE;

  /* the run as it is now: its parameters and its state */
  CmlFrame *frame = cml_runner_get_frame (self->runner);
  if (frame->system != self->sys)
    {
      cml_frame_unref (frame);
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the run is switching systems: click again"));
      return FALSE;
    }
  g_autoptr (GHashTable) given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  const char *const *starting[3] = { (const char *const *) model->base, (const char *const *) model->fibre,
                                     (const char *const *) model->momenta };
  guint counts[3] = { model->m, model->n, model->kind == CML_CONSTRAINTS_VAKONOMIC ? model->n : 0 };
  for (int g = 0; g < 3; g++)
    for (guint k = 0; k < counts[g]; k++)
      {
        int i = cml_system_observable_index (self->sys, starting[g][k]);
        /* what the constraints determine is solved again from the rest, not kept */
        gboolean solved = FALSE;
        for (guint j = 0; g < 2 && j < model->n_solve_for; j++)
          solved = solved || model->solve_for[j] == (int) (g == 0 ? k : model->m + k);
        if (solved)
          continue;
        /* a vakonomic system starts from its momenta: its velocities follow */
        if (i >= 0 && !(g == 1 && model->kind == CML_CONSTRAINTS_VAKONOMIC))
          g_hash_table_insert (given, g_strdup (starting[g][k]), g_memdup2 (&frame->obs[i], sizeof (double)));
      }
  double params[256];
  guint n_params = MIN (frame->n_params, G_N_ELEMENTS (params));
  memcpy (params, frame->params, n_params * sizeof (double));
  int ie = -1;
  const CmlNamedExpr *em = energy_monitor (model);
  if (em)
    ie = cml_system_observable_index (self->sys, em->name);
  double level = ie >= 0 ? frame->obs[ie] : NAN;
  /* the invariants of the base coordinates, at the run's values */
  guint n_mon = model->monitors->len;
  g_autofree double *inv_level = g_new (double, MAX (n_mon, 1));
  for (guint k = 0; k < n_mon; k++)
    {
      int i = cml_system_observable_index (self->sys, ((CmlNamedExpr *) model->monitors->pdata[k])->name);
      inv_level[k] = i >= 0 ? frame->obs[i] : NAN;
    }
  cml_frame_unref (frame);

  /* the point clicked, on the section */
  g_autofree char *sname = NULL;
  double svalue = 0;
  {
    const char *eq = strchr (self->section_text, '=');
    sname = g_strstrip (eq ? g_strndup (self->section_text, eq - self->section_text) : g_strdup (self->section_text));
    if (eq)
      svalue = g_ascii_strtod (eq + 1, NULL);
  }
  if (g_hash_table_contains (given, sname))
    g_hash_table_insert (given, g_strdup (sname), g_memdup2 (&svalue, sizeof svalue));
  const char *set[2] = { xn, yn };
  double at[2] = { x, y };
  for (int k = 0; k < 2; k++)
    {
      if (!g_hash_table_contains (given, set[k]))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("%s is not a quantity a run starts from: plot two coordinates, velocities or momenta "
                       "to start orbits by clicking"), set[k]);
          return FALSE;
        }
      g_hash_table_insert (given, g_strdup (set[k]), g_memdup2 (&at[k], sizeof (double)));
    }
  g_autofree char *where = point_text (xn, x, yn, y);

  CmlSimulation *sim = cml_simulation_new (self->sys, error);
  if (sim == NULL)
    return FALSE;
  out->sim = sim;
  out->level = level;
  out->started = NAN;
  for (guint k = 0; k < n_params && k < model->params->len; k++)
    cml_simulation_set_param (sim, ((CmlParam *) model->params->pdata[k])->name, params[k], NULL);
  g_autofree double *obs = g_new (double, cml_system_n_observables (self->sys));

  /* each invariant of the base coordinates (|Γ|² = 1) kept: a coordinate neither clicked
   * nor on the section is solved, on the branch of its present value */
  g_autofree gboolean *base = g_new0 (gboolean, MAX (model->m, 1));
  g_autofree gboolean *taken = g_new0 (gboolean, MAX (model->m, 1));
  for (guint k = 0; k < n_mon; k++)
    {
      const CmlNamedExpr *m = g_ptr_array_index (model->monitors, k);
      int im = cml_system_observable_index (self->sys, m->name);
      if (m == em || im < 0 || !isfinite (inv_level[k]) || !held_invariant (model, m, base))
        continue;
      const char *best = NULL;
      guint best_k = 0;
      double best_slope = 0, c0 = value_at (sim, im, given, obs);
      for (guint j = 0; j < model->m && isfinite (c0); j++)
        {
          const char *q = model->base[j];
          if (!base[j] || taken[j] || g_str_equal (q, xn) || g_str_equal (q, yn) || g_str_equal (q, sname)
              || !g_hash_table_contains (given, q))
            continue;
          double *val = g_hash_table_lookup (given, q), keep = *val;
          *val = keep + 1e-3 * MAX (1.0, fabs (keep));
          double slope = fabs (value_at (sim, im, given, obs) - c0);
          *val = keep;
          if (slope > best_slope)
            best_slope = slope, best = q, best_k = j;
        }
      if (best == NULL)
        continue; /* nothing left to keep it with: the start shows what it is */
      double *val = g_hash_table_lookup (given, best);
      if (!solve_value (sim, im, given, best, inv_level[k], *val, obs))
        {
          g_autofree char *what = invariant_text (model, m->name);
          g_autofree char *solved = cml_expr_pretty_name (best, FALSE);
          start_clear (out);
          /* TRANSLATORS: "no motion with this energy passes through G₁ = 1.55, W₁ = 0.2: no value of G₃ keeps |Γ|² at 1
           * (it is conserved); choose a point where it can" */
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("no motion with this energy passes through %s: no value of %s keeps %s at %.6g (it stays constant in "
                       "every motion); choose a point inside the region shown"),
                       where, solved, what, inv_level[k]);
          return FALSE;
        }
      taken[best_k] = TRUE;
    }

  /* on the run's energy level, crossing the section in its direction: the velocities with
   * the most effect on the energy are tried in turn, each on the branch of its present
   * value and then on the other, until the start crosses the way the section counts */
  if (ie >= 0 && isfinite (level))
    {
      const char *const *velocities = model->kind == CML_CONSTRAINTS_VAKONOMIC ? (const char *const *) model->momenta
                                                                               : (const char *const *) model->fibre;
      g_autofree double *slopes = g_new0 (double, MAX (model->n, 1));
      double e0 = value_at (sim, ie, given, obs);
      for (guint k = 0; k < model->n && isfinite (e0); k++)
        {
          const char *v = velocities[k];
          if (g_str_equal (v, xn) || g_str_equal (v, yn) || g_str_equal (v, sname) || !g_hash_table_contains (given, v))
            continue;
          double *val = g_hash_table_lookup (given, v), keep = *val;
          *val = keep + 1e-3 * MAX (1.0, fabs (keep));
          double slope = fabs (value_at (sim, ie, given, obs) - e0);
          *val = keep;
          slopes[k] = isfinite (slope) ? slope : 0;
        }
      gboolean found = FALSE, on_level = FALSE;
      while (!found)
        {
          guint best = model->n;
          for (guint k = 0; k < model->n; k++)
            if (slopes[k] > 0 && (best == model->n || slopes[k] > slopes[best]))
              best = k;
          if (best == model->n)
            break;
          slopes[best] = 0;
          const char *v = velocities[best];
          double *val = g_hash_table_lookup (given, v), keep = *val;
          double root = NAN;
          for (int branch = 0; branch < 2 && !found; branch++)
            {
              /* the other branch: from the mirror of the root found (E even in v), else of the guess */
              double from = branch == 0 ? keep : isfinite (root) ? -root : -keep;
              if (branch == 1 && from == keep)
                from = keep + 1;
              if (!solve_value (sim, ie, given, v, level, from, obs))
                continue;
              on_level = TRUE;
              root = *(double *) g_hash_table_lookup (given, v);
              double rate = cml_section_rate (section, sim);
              found = dir == CML_SECTION_BOTH || (dir == CML_SECTION_UP ? rate > 0 : rate < 0);
            }
          if (!found)
            *val = keep;
        }
      if (!found)
        {
          start_clear (out);
          if (on_level)
            g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                         dir == CML_SECTION_UP
                           ? _("no motion with this energy (%.6g) crosses the section upwards at %s: try another "
                             "point, or count the crossings both ways")
                           : _("no motion with this energy (%.6g) crosses the section downwards at %s: try another "
                             "point, or count the crossings both ways"),
                         level, where);
          else
            g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                         _("no motion with this energy (%.6g) passes through %s: choose a point inside the region "
                         "shown"), level, where);
          return FALSE;
        }
      out->started = obs[ie];
    }
  else if (!cml_simulation_reset (sim, given, error))
    {
      start_clear (out);
      return FALSE;
    }
  out->section = g_steal_pointer (&section);
  return TRUE;
}

/* Where clicks start: around the run's present values v of the two quantities, v ± max
 * (|v|, 1), or, where starts stop existing within v ± 2 max (|v|, 1) along the axis
 * through the present point (an impossible point, as G₁ > 1 where |Γ| = 1, is left
 * out), up to that edge (found by bisection to a thousandth of the span); padded by 5 %
 * of the range. */
static void
initial_ranges (CmlSectionView *self, const char *xn, const char *yn)
{
  if (self->runner == NULL || self->sys == NULL)
    return;
  CmlFrame *frame = cml_runner_get_frame (self->runner);
  const char *names[2] = { xn, yn };
  double v[2], s[2];
  gboolean ready = frame->system == self->sys;
  for (int a = 0; a < 2; a++)
    {
      int i = ready ? cml_system_observable_index (self->sys, names[a]) : -1;
      v[a] = i >= 0 && isfinite (frame->obs[i]) ? frame->obs[i] : 0;
      s[a] = MAX (fabs (v[a]), 1.0);
    }
  cml_frame_unref (frame);
  Start st;
  gboolean here = ready && make_start (self, v[0], v[1], &st, NULL);
  if (here)
    start_clear (&st);
  for (int a = 0; a < 2; a++)
    {
      double lo = v[a] - s[a], hi = v[a] + s[a];
      for (int side = -1; here && side <= 1; side += 2)
        {
          double good = v[a], bad = NAN;
          for (int k = 1; k <= 32 && isnan (bad); k++)
            {
              double p = v[a] + side * s[a] * k / 16.0;
              double xy[2] = { v[0], v[1] };
              xy[a] = p;
              if (make_start (self, xy[0], xy[1], &st, NULL))
                start_clear (&st), good = p;
              else
                bad = p;
            }
          if (isnan (bad))
            continue; /* nothing cut within twice the span: the span as it was */
          while (fabs (bad - good) > 1e-3 * s[a])
            {
              double mid = 0.5 * (good + bad), xy[2] = { v[0], v[1] };
              xy[a] = mid;
              if (make_start (self, xy[0], xy[1], &st, NULL))
                start_clear (&st), good = mid;
              else
                bad = mid;
            }
          if (side < 0)
            lo = good;
          else
            hi = good;
        }
      double pad = 0.05 * MAX (hi - lo, 1e-9);
      cml_plot_axis_set_range (a == 0 ? cml_plot_get_x_axis (self->plot) : cml_plot_get_y_axis (self->plot),
                               lo - pad, hi + pad);
    }
  self->fitted = ready;
}

gboolean
cml_section_view_start_orbit (CmlSectionView *self, double x, double y, GError **error)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), FALSE);

  Start start;
  if (!make_start (self, x, y, &start, error))
    return FALSE;
  self->last_started = start.started;
  self->last_level = start.level;
  CmlModel *model = cml_system_get_model (self->sys);
  const char *xn = gtk_string_list_get_string (self->names, gtk_drop_down_get_selected (self->x_drop));
  const char *yn = gtk_string_list_get_string (self->names, gtk_drop_down_get_selected (self->y_drop));

  /* the orbit, in a worker, on the simulation now at its start */
  Orbit *o = g_new0 (Orbit, 1);
  o->sim = g_steal_pointer (&start.sim);
  o->section = g_steal_pointer (&start.section);
  o->t_end = gtk_spin_button_get_value (self->orbit_time);
  o->ix = cml_system_observable_index (self->sys, xn);
  o->iy = cml_system_observable_index (self->sys, yn);
  o->out = g_array_new (FALSE, FALSE, sizeof (double));
  double xy[2] = { x, y };
  g_array_append_vals (self->starts, xy, 2);
  g_array_set_size (self->last_start, cml_system_n_observables (self->sys));
  cml_simulation_observe (o->sim, (double *) (gpointer) self->last_start->data);

  g_autoptr (CmlPlotSeries) series = cml_plot_series_new (xn, cml_model_unit (model, yn));
  cml_plot_series_set_markers (series, TRUE);
  cml_plot_series_set_palette_index (series, self->orbits->len);
  cml_plot_add_series (self->plot, series);
  g_ptr_array_add (self->orbits, cml_plot_series_ref (series));

  GTask *task = g_task_new (self, self->cancel, orbit_done, NULL);
  g_object_set_data_full (G_OBJECT (task), "series", cml_plot_series_ref (series),
                          (GDestroyNotify) cml_plot_series_unref);
  g_task_set_task_data (task, o, (GDestroyNotify) orbit_free);
  self->n_running++;
  g_task_run_in_thread (task, orbit_thread);
  g_object_unref (task);
  update_status (self, NULL);
  return TRUE;
}

/* ---- settings ---------------------------------------------------------------------------- */

static void
clear_orbits (CmlSectionView *self)
{
  g_cancellable_cancel (self->cancel);
  g_clear_object (&self->cancel);
  self->cancel = g_cancellable_new ();
  cml_plot_remove_all_series (self->plot);
  g_ptr_array_set_size (self->orbits, 0);
  g_array_set_size (self->starts, 0);
  cml_plot_reset_ranges (self->plot);
  update_status (self, NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self->area));
}

static void
label_axes (CmlSectionView *self)
{
  CmlModel *model = self->sys ? cml_system_get_model (self->sys) : NULL;
  guint ix = gtk_drop_down_get_selected (self->x_drop), iy = gtk_drop_down_get_selected (self->y_drop);
  const char *xn = ix != GTK_INVALID_LIST_POSITION ? gtk_string_list_get_string (self->names, ix) : NULL;
  const char *yn = iy != GTK_INVALID_LIST_POSITION ? gtk_string_list_get_string (self->names, iy) : NULL;
  cml_plot_axis_set_label (cml_plot_get_x_axis (self->plot), xn ? xn : "", model && xn ? cml_model_unit (model, xn) : "");
  cml_plot_axis_set_label (cml_plot_get_y_axis (self->plot), yn ? yn : "", model && yn ? cml_model_unit (model, yn) : "");
}

static guint
name_position (CmlSectionView *self, const char *name)
{
  for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (self->names)); k++)
    if (g_str_equal (gtk_string_list_get_string (self->names, k), name))
      return k;
  return GTK_INVALID_LIST_POSITION;
}

gboolean
cml_section_view_set_section (CmlSectionView *self, const char *section, const char *direction, const char *x,
                              const char *y, GError **error)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), FALSE);

  if (self->sys == NULL)
    return FALSE;
  guint d = 0;
  while (d < G_N_ELEMENTS (direction_ids) && g_strcmp0 (direction, direction_ids[d]) != 0)
    d++;
  if (d == G_N_ELEMENTS (direction_ids))
    d = 0;
  g_autoptr (CmlSection) check = cml_section_new (self->sys, section, (CmlSectionDirection) (d + 1), error);
  if (check == NULL)
    return FALSE;
  guint ix = name_position (self, x), iy = name_position (self, y);
  if (ix == GTK_INVALID_LIST_POSITION || iy == GTK_INVALID_LIST_POSITION)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_UNKNOWN_NAME, _("no quantity “%s” to plot"),
                   ix == GTK_INVALID_LIST_POSITION ? x : y);
      return FALSE;
    }
  self->syncing = TRUE;
  g_free (self->section_text);
  self->section_text = g_strdup (section);
  gtk_editable_set_text (GTK_EDITABLE (self->section_entry), section);
  gtk_drop_down_set_selected (self->direction, d);
  gtk_drop_down_set_selected (self->x_drop, ix);
  gtk_drop_down_set_selected (self->y_drop, iy);
  self->syncing = FALSE;
  label_axes (self);
  clear_orbits (self);
  initial_ranges (self, x, y);
  return TRUE;
}

static void
on_settings_changed (CmlSectionView *self)
{
  g_autoptr (GError) error = NULL;

  if (self->syncing || self->sys == NULL)
    return;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->section_entry));
  guint ix = gtk_drop_down_get_selected (self->x_drop), iy = gtk_drop_down_get_selected (self->y_drop);
  if (ix == GTK_INVALID_LIST_POSITION || iy == GTK_INVALID_LIST_POSITION)
    return;
  if (!cml_section_view_set_section (self, text, direction_ids[gtk_drop_down_get_selected (self->direction)],
                                     gtk_string_list_get_string (self->names, ix),
                                     gtk_string_list_get_string (self->names, iy), &error))
    update_status (self, error->message);
}

void
cml_section_view_set_system (CmlSectionView *self, CmlSystem *sys, CmlRunner *runner)
{
  g_return_if_fail (CML_IS_SECTION_VIEW (self));

  if (sys)
    cml_system_ref (sys);
  g_clear_pointer (&self->sys, cml_system_unref);
  self->sys = sys;
  self->runner = runner;
  g_clear_pointer (&self->section_text, g_free);

  self->syncing = TRUE;
  guint n_old = g_list_model_get_n_items (G_LIST_MODEL (self->names));
  guint n = sys ? cml_system_n_observables (sys) : 0;
  g_autofree const char **names = g_new0 (const char *, n + 1);
  for (guint k = 0; k < n; k++)
    names[k] = cml_system_observable_name (sys, k);
  gtk_string_list_splice (self->names, 0, n_old, names);
  self->syncing = FALSE;
  clear_orbits (self);
  if (sys == NULL)
    return;

  /* the default: the second coordinate = 0 crossed upwards, the first against its velocity */
  CmlModel *model = cml_system_get_model (sys);
  const char *sx = model->m > 0 ? model->base[0] : cml_system_observable_name (sys, 0);
  const char *sy = model->n > 0 ? (model->kind == CML_CONSTRAINTS_VAKONOMIC ? model->momenta[0] : model->fibre[0])
                                : cml_system_observable_name (sys, MIN (1, n - 1));
  g_autofree char *section = g_strdup_printf ("%s = 0", model->m > 1 ? model->base[1] : sx);
  g_autoptr (GError) error = NULL;
  if (!cml_section_view_set_section (self, section, "up", sx, sy, &error))
    update_status (self, error->message);
}

/* ---- drawing and the pointer -------------------------------------------------------------- */

static void
draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
  CmlSectionView *self = data;
  CmlPlotStyle style;

  cml_plot_area_get_style (self->area, &style);
  /* the run had not started when the section was set: the axes now fit what it reaches */
  if (!self->fitted && self->orbits->len == 0 && self->section_text)
    {
      guint ix = gtk_drop_down_get_selected (self->x_drop), iy = gtk_drop_down_get_selected (self->y_drop);
      if (ix != GTK_INVALID_LIST_POSITION && iy != GTK_INVALID_LIST_POSITION)
        initial_ranges (self, gtk_string_list_get_string (self->names, ix), gtk_string_list_get_string (self->names, iy));
    }
  cml_plot_area_draw_plot (self->area, cr, width, height);

  /* where each orbit started: a ring with a cross in the orbit's colour */
  gboolean dark = cml_plot_area_get_dark (self->area);
  double r = cml_plot_area_get_presentation (self->area) ? 9 : 6;
  for (guint k = 0; k < self->starts->len / 2 && k < self->orbits->len; k++)
    {
      double dx = g_array_index (self->starts, double, 2 * k), dy = g_array_index (self->starts, double, 2 * k + 1);
      double px, py;
      if (!cml_plot_area_locate (self->area, width, height, dx, dy, &px, &py))
        continue; /* outside the plot area */
      CmlPlotRgba c;
      cml_plot_series_get_color (g_ptr_array_index (self->orbits, k), &style, &c);
      for (int pass = 0; pass < 2; pass++)
        {
          cairo_new_path (cr);
          if (pass == 0)
            cairo_set_source_rgba (cr, dark ? 0 : 1, dark ? 0 : 1, dark ? 0 : 1, 0.9),
              cairo_set_line_width (cr, r * 0.75);
          else
            cairo_set_source_rgb (cr, c.r, c.g, c.b), cairo_set_line_width (cr, r * 0.33);
          cairo_arc (cr, px, py, r, 0, 2 * G_PI);
          cairo_move_to (cr, px - 1.7 * r, py), cairo_line_to (cr, px + 1.7 * r, py);
          cairo_move_to (cr, px, py - 1.7 * r), cairo_line_to (cr, px, py + 1.7 * r);
          cairo_stroke (cr);
        }
    }
}

static void
on_plot_pressed (CmlSectionView *self, double x, double y)
{
  g_autoptr (GError) error = NULL;

  if (!cml_section_view_start_orbit (self, x, y, &error))
    update_status (self, error->message);
}

/* ---- GObject ------------------------------------------------------------------------------ */

static void
cml_section_view_dispose (GObject *object)
{
  CmlSectionView *self = CML_SECTION_VIEW (object);
  GtkWidget *child;

  if (self->cancel)
    g_cancellable_cancel (self->cancel);
  gtk_widget_dispose_template (GTK_WIDGET (self), CML_TYPE_SECTION_VIEW);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))))
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (cml_section_view_parent_class)->dispose (object);
}

static void
cml_section_view_finalize (GObject *object)
{
  CmlSectionView *self = CML_SECTION_VIEW (object);

  g_clear_object (&self->cancel);
  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->orbits, g_ptr_array_unref);
  g_clear_pointer (&self->starts, g_array_unref);
  g_clear_pointer (&self->last_start, g_array_unref);
  g_free (self->section_text);
  G_OBJECT_CLASS (cml_section_view_parent_class)->finalize (object);
}

static void
cml_section_view_class_init (CmlSectionViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = cml_section_view_dispose;
  object_class->finalize = cml_section_view_finalize;

  g_type_ensure (CML_TYPE_PLOT_AREA);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/cmlab/Cmlab/ui/cml-section-view.ui");
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, section_entry);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, direction);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, x_drop);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, y_drop);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, names);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, orbit_time);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, area);
  gtk_widget_class_bind_template_child (widget_class, CmlSectionView, status);
  gtk_widget_class_bind_template_callback (widget_class, on_settings_changed);
  gtk_widget_class_bind_template_callback (widget_class, clear_orbits);
  gtk_widget_class_bind_template_callback (widget_class, on_plot_pressed);
  gtk_widget_class_set_css_name (widget_class, "cmlsectionview");
}

static void
cml_section_view_init (CmlSectionView *self)
{
  self->orbits = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_plot_series_unref);
  self->starts = g_array_new (FALSE, FALSE, sizeof (double));
  self->last_start = g_array_new (FALSE, FALSE, sizeof (double));
  self->cancel = g_cancellable_new ();
  self->last_started = self->last_level = NAN;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->plot = cml_plot_area_get_plot (self->area);
  cml_plot_set_legend_visible (self->plot, FALSE);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->area), draw, self, NULL);
  gtk_widget_set_cursor_from_name (GTK_WIDGET (self->area), "crosshair");
  gtk_spin_button_set_value (self->orbit_time, DEFAULT_ORBIT_TIME);
  update_status (self, NULL);
}

GtkWidget *
cml_section_view_new (void)
{
  return g_object_new (CML_TYPE_SECTION_VIEW, NULL);
}

void
cml_section_view_set_style (CmlSectionView *self, gboolean dark, gboolean high_contrast, gboolean presentation)
{
  g_return_if_fail (CML_IS_SECTION_VIEW (self));
  cml_plot_area_set_style (self->area, dark, high_contrast, presentation);
}

/* ---- for tests ---------------------------------------------------------------------------- */

guint
cml_section_view_get_n_running (CmlSectionView *self)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), 0);
  return self->n_running;
}

const double *
cml_section_view_get_crossings (CmlSectionView *self, guint k, guint *n)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), NULL);
  if (k >= self->orbits->len)
    return NULL;
  CmlPlotSeries *s = g_ptr_array_index (self->orbits, k);
  *n = cml_plot_series_get_n (s);
  /* x and y come as two columns: hand out pairs */
  GArray *pairs = g_object_get_data (G_OBJECT (self), "crossings");
  if (pairs == NULL)
    {
      pairs = g_array_new (FALSE, FALSE, sizeof (double));
      g_object_set_data_full (G_OBJECT (self), "crossings", pairs, (GDestroyNotify) g_array_unref);
    }
  g_array_set_size (pairs, 2 * *n);
  const double *xs = cml_plot_column_get_data (cml_plot_series_get_x_column (s));
  const double *ys = cml_plot_column_get_data (cml_plot_series_get_y_column (s));
  for (guint i = 0; i < *n; i++)
    {
      g_array_index (pairs, double, 2 * i) = xs[i];
      g_array_index (pairs, double, 2 * i + 1) = ys[i];
    }
  return (const double *) (gpointer) pairs->data;
}

void
cml_section_view_get_last_energy (CmlSectionView *self, double *started, double *level)
{
  g_return_if_fail (CML_IS_SECTION_VIEW (self));
  *started = self->last_started;
  *level = self->last_level;
}

gboolean
cml_section_view_get_start (CmlSectionView *self, guint k, double *x, double *y)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), FALSE);
  if (k >= self->starts->len / 2)
    return FALSE;
  *x = g_array_index (self->starts, double, 2 * k);
  *y = g_array_index (self->starts, double, 2 * k + 1);
  return TRUE;
}

double
cml_section_view_get_last_start_value (CmlSectionView *self, const char *name)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), NAN);
  int i = self->sys ? cml_system_observable_index (self->sys, name) : -1;
  return i >= 0 && (guint) i < self->last_start->len ? g_array_index (self->last_start, double, i) : NAN;
}

void
cml_section_view_get_ranges (CmlSectionView *self, double x[2], double y[2])
{
  g_return_if_fail (CML_IS_SECTION_VIEW (self));
  cml_plot_axis_get_range (cml_plot_get_x_axis (self->plot), &x[0], &x[1]);
  cml_plot_axis_get_range (cml_plot_get_y_axis (self->plot), &y[0], &y[1]);
}

gboolean
cml_section_view_point_at (CmlSectionView *self, double x, double y, GtkWidget *relative, double *wx, double *wy)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), FALSE);
  int w = gtk_widget_get_width (GTK_WIDGET (self->area)), h = gtk_widget_get_height (GTK_WIDGET (self->area));
  double px, py;
  graphene_point_t out;

  if (!cml_plot_area_locate (self->area, w, h, x, y, &px, &py)
      || !gtk_widget_compute_point (GTK_WIDGET (self->area), relative, &GRAPHENE_POINT_INIT (px, py), &out))
    return FALSE;
  *wx = out.x, *wy = out.y;
  return TRUE;
}

const char *
cml_section_view_get_status (CmlSectionView *self)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), NULL);
  return gtk_label_get_text (self->status);
}

guint
cml_section_view_get_n_orbits (CmlSectionView *self)
{
  g_return_val_if_fail (CML_IS_SECTION_VIEW (self), 0);
  return self->orbits->len;
}
