/* cml-section-start.c — where a click on the Section page starts an orbit: the start
 * made from the point clicked, and the region such starts exist in.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The start is the run's current state with the two plotted quantities set to the point,
 * the section's own quantity (for a section "name = value") set to its value, each
 * conserved quantity of the coordinates alone (|Γ|² of the heavy top) kept at the run's
 * value by a coordinate neither clicked nor on the section (the root on the branch of its
 * present value, by the secant method), and — where the model has an energy monitor —
 * one velocity solved so that E(z) = E_run, on the branch whose motion crosses the
 * section the way it counts.  A point no such motion passes through is refused; the axes
 * open on the region starts exist in (found by bisection along the axes through the
 * present point).
 */
#define G_LOG_DOMAIN "cml-section-start"

#include "cml-section-view-private.h"

#include <glib/gi18n.h>

#include <math.h>
#include <string.h>

#include "cml-error.h"

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

void
cml_section_start_clear (CmlSectionStart *s)
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
gboolean
cml_section_start_make (CmlSectionView *self, double x, double y, CmlSectionStart *out, GError **error)
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
          cml_section_start_clear (out);
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
          cml_section_start_clear (out);
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
      cml_section_start_clear (out);
      return FALSE;
    }
  out->section = g_steal_pointer (&section);
  return TRUE;
}

/* one start's cost (µs) above which cml_section_start_ranges keeps the plain span */
#define EDGE_SEARCH_MAX_START_US 2000

/* Where clicks start: around the run's present values v of the two quantities, v ± max
 * (|v|, 1), or, where starts stop existing within v ± 2 max (|v|, 1) along the axis
 * through the present point (an impossible point, as G₁ > 1 where |Γ| = 1, is left
 * out), up to that edge (found by bisection to a thousandth of the span); padded by 5 %
 * of the range. */
void
cml_section_start_ranges (CmlSectionView *self, const char *xn, const char *yn)
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
  CmlSectionStart st;
  gint64 t0 = g_get_monotonic_time ();
  gboolean here = ready && cml_section_start_make (self, v[0], v[1], &st, NULL);
  if (here)
    cml_section_start_clear (&st);
  /* the search for the edges takes some 150 starts: where one start is slow (a large
   * system: each solves its energy level through the mass matrix), the window would stop
   * answering for minutes, so the span around the present point is kept as it is */
  if (g_get_monotonic_time () - t0 > EDGE_SEARCH_MAX_START_US)
    here = FALSE;
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
              if (cml_section_start_make (self, xy[0], xy[1], &st, NULL))
                cml_section_start_clear (&st), good = p;
              else
                bad = p;
            }
          if (isnan (bad))
            continue; /* nothing cut within twice the span: the span as it was */
          while (fabs (bad - good) > 1e-3 * s[a])
            {
              double mid = 0.5 * (good + bad), xy[2] = { v[0], v[1] };
              xy[a] = mid;
              if (cml_section_start_make (self, xy[0], xy[1], &st, NULL))
                cml_section_start_clear (&st), good = mid;
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
  self->n_fits++;
}
