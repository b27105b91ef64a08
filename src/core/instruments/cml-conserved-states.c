/* cml-conserved-states.c — the admissible states at which the conserved-quantity
 * inspector (cml-conserved.c) takes its numbers: the model's initial state, states along a
 * run from it, states near it and random ones, each projected onto the constraints, with
 * unit quaternions and unit vectors kept on their spheres.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §15.  Random values are given to cml_simulation_reset, which solves or
 * projects them onto the constraints, then a random time with the state projected onto
 * the constraints at that time; the random numbers come from a fixed seed.
 */
#define G_LOG_DOMAIN "cml-conserved"

#include "cml-conserved-private.h"

#include "cml-simulation-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

static gboolean
depends_on_t (CmlSystem *sys)
{
  for (guint a = 0; a < sys->derived.h->len; a++)
    if (cml_expr_depends_on (sys->derived.h->pdata[a], sys->model->t_sym))
      return TRUE;
  return FALSE;
}

/* Groups of 3 or 4 consecutive base coordinates (or reconstruction variables) that hold a
 * unit vector or a unit quaternion: Σ z_i² = 1 at the initial state Z0 and
 * d/dt Σ z_i² simplifies to 0 along the equations.  Random states are put on that sphere:
 * off it, quantities the model keeps on it need not be conserved (a Chaplygin sphere with
 * its attitude quaternion among the base coordinates, the Veselova system's Γ). */
static void
find_unit_groups (Inspector *in, const double *z0)
{
  CmlSystem *sys = in->sys;
  g_autofree CmlExpr **grad = g_new (CmlExpr *, sys->dim);
  guint ranges[2][2] = { { 0, sys->m }, { sys->m + sys->n, sys->dim } };

  in->unit_groups = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint r = 0; r < 2; r++)
    for (guint i = ranges[r][0]; i < ranges[r][1];)
      {
        guint len = 0;
        for (guint l = 4; l >= 3 && len == 0; l--)
          {
            double s = 0;
            CmlExpr *F = ZERO (in->ctx), *dt;
            if (i + l > ranges[r][1])
              continue;
            for (guint j = i; j < i + l; j++)
              {
                s += z0[j] * z0[j];
                F = cml_sys_madd (in->ctx, F, cml_sys_sym (in->ctx, sys->state_sym[j]), cml_sys_sym (in->ctx, sys->state_sym[j]));
              }
            if (!(fabs (s - 1) < 1e-9))
              continue;
            CmlExpr *d = cml_conserved_time_derivative (in, F, grad, &dt);
            if (!cml_conserved_depends_on_aux (sys, d) && cml_expr_is_zero_expanded (in->ctx, d))
              len = l;
          }
        if (len == 0)
          {
            i++;
            continue;
          }
        g_array_append_val (in->unit_groups, i);
        g_array_append_val (in->unit_groups, len);
        i += len;
      }
}

/* VALS (a state) with the model's unit quaternions and the unit groups normalised. */
static void
normalise_units (Inspector *in, double *vals)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;

  for (guint q = 0; q + 3 < md->quaternions->len; q += 4)
    {
      guint *ix = &g_array_index (md->quaternions, guint, q);
      double s = 0;
      for (guint j = 0; j < 4; j++)
        s += vals[sys->m + sys->n + ix[j]] * vals[sys->m + sys->n + ix[j]];
      s = sqrt (MAX (s, 1e-300));
      for (guint j = 0; j < 4; j++)
        vals[sys->m + sys->n + ix[j]] /= s;
    }
  for (guint g = 0; in->unit_groups && g + 1 < in->unit_groups->len; g += 2)
    {
      guint i = g_array_index (in->unit_groups, guint, g), l = g_array_index (in->unit_groups, guint, g + 1);
      double s = 0;
      for (guint j = i; j < i + l; j++)
        s += vals[j] * vals[j];
      s = sqrt (MAX (s, 1e-300));
      for (guint j = i; j < i + l; j++)
        vals[j] /= s;
    }
}

/* Records the admissible state (T, Z) of kind KIND when its right-hand side is finite. */
static gboolean
add_state (Inspector *in, double t, const double *z, SampleKind kind)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  guint dim = sys->dim;
  double *row, *f;

  if (in->n_states >= CML_CONSERVED_N_STATES)
    return FALSE;
  f = in->rhs + (gsize) in->n_states * dim;
  if (!cml_simulation_eval_rhs_at (in->sim, t, z, f, NULL))
    return FALSE;
  for (guint i = 0; i < dim; i++)
    if (!isfinite (f[i]) || !isfinite (z[i]))
      return FALSE;
  row = in->states + (gsize) in->n_states * in->ns;
  for (guint s = 0; s < in->ns; s++)
    row[s] = NAN;
  row[md->t_sym] = t;
  for (guint i = 0; i < dim; i++)
    row[sys->state_sym[i]] = z[i];
  for (guint k = 0; k < sys->n_params; k++)
    row[sys->param_sym[k]] = in->params ? in->params[k] : ((CmlParam *) md->params->pdata[k])->value;
  in->kinds[in->n_states++] = kind;
  in->n_kind[kind]++;
  return TRUE;
}

/* The given values VALS (every state variable) projected by the reset onto the
 * constraints; at time T when the constraints move.  FALSE: no admissible state there. */
gboolean
cml_conserved_admissible (Inspector *in, double *vals, double t, gboolean at_t, double *z,
                          double *t_out)
{
  CmlSystem *sys = in->sys;
  g_autoptr (GHashTable) given = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < sys->dim; i++)
    g_hash_table_insert (given, sys->state_names[i], &vals[i]);
  if (!cml_simulation_reset (in->sim, given, &error))
    {
      g_free (in->no_states_reason);
      in->no_states_reason = g_strdup (error->message);
      return FALSE;
    }
  memcpy (z, cml_simulation_get_state (in->sim), sys->dim * sizeof (double));
  if (!at_t)
    t = cml_simulation_get_time (in->sim);
  else if (depends_on_t (sys) && sys->derived.h->len > 0)
    {
      if (cml_sim_project_range (in->sim, t, z, sys->derived.movable_from, sys->derived.movable_to, NULL) != 0)
        return FALSE;
      cml_simulation_set_state (in->sim, t, z);
      if (!(cml_simulation_residual (in->sim) < 1e-9))
        return FALSE;
    }
  *t_out = t;
  return TRUE;
}

/* The states the numbers are taken at: the model's initial state (with the parameters'
 * values), RUN_STATES states along a run from it to RUN_LENGTH later (where the motion
 * goes), NEAR_STATES states near it (random changes of 1 %, 10 % and 50 % of each value
 * plus as much of 1, projected onto the constraints), and random states (values in
 * [−1.5, 1.5], a random time) up to CML_CONSERVED_N_STATES.  Unit quaternions and unit
 * vectors stay on their spheres. */
void
cml_conserved_make_states (Inspector *in)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  guint dim = sys->dim, tries = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (SEED);
  g_autofree double *vals = g_new (double, dim);
  g_autofree double *z = g_new (double, dim);
  g_autofree double *z0 = g_new (double, dim);
  double t0 = 0, t;

  in->sim = cml_simulation_new (sys, &error);
  if (in->sim == NULL)
    {
      in->no_states_reason = g_strdup (error->message);
      return;
    }
  for (guint k = 0; in->params && k < sys->n_params; k++)
    if (!cml_simulation_set_param (in->sim, ((CmlParam *) md->params->pdata[k])->name, in->params[k], &error))
      {
        in->no_states_reason = g_strdup (error->message);
        g_clear_pointer (&in->sim, cml_simulation_free);
        return;
      }
  in->states = g_new0 (double, (gsize) CML_CONSERVED_N_STATES * in->ns);
  in->rhs = g_new0 (double, (gsize) CML_CONSERVED_N_STATES * dim);
  in->kinds = g_new0 (SampleKind, CML_CONSERVED_N_STATES);
  in->sample_t = g_new0 (double, CML_CONSERVED_N_STATES);

  if (cml_simulation_reset (in->sim, NULL, &error))
    {
      t0 = cml_simulation_get_time (in->sim);
      memcpy (z0, cml_simulation_get_state (in->sim), dim * sizeof (double));
      in->sample_t[in->n_states] = t0;
      add_state (in, t0, z0, SAMPLE_INITIAL);
      for (guint k = 1; k <= RUN_STATES; k++)
        {
          double t1 = t0 + RUN_LENGTH * k / RUN_STATES;
          g_autoptr (GError) run_error = NULL;
          if (!cml_simulation_advance (in->sim, t1, &run_error))
            break;
          in->sample_t[in->n_states] = t1;
          if (add_state (in, t1, cml_simulation_get_state (in->sim), SAMPLE_RUN))
            in->run_to = t1;
        }
      find_unit_groups (in, z0);
      for (guint k = 0; k < 3 * NEAR_STATES && in->n_kind[SAMPLE_NEAR] < NEAR_STATES; k++)
        {
          double r = k % 3 == 0 ? 0.01 : k % 3 == 1 ? 0.1 : 0.5;
          for (guint i = 0; i < dim; i++)
            vals[i] = z0[i] + r * (fabs (z0[i]) + 1) * g_rand_double_range (rand, -1, 1);
          normalise_units (in, vals);
          if (!cml_conserved_admissible (in, vals, t0, FALSE, z, &t))
            continue;
          in->sample_t[in->n_states] = t;
          add_state (in, t, z, SAMPLE_NEAR);
        }
    }
  else
    {
      in->no_states_reason = g_strdup (error->message);
      g_clear_error (&error);
    }
  while (in->n_states < CML_CONSERVED_N_STATES && tries++ < 10 * CML_CONSERVED_N_STATES)
    {
      double tr = g_rand_double_range (rand, 0, 4);

      for (guint i = 0; i < dim; i++)
        vals[i] = g_rand_double_range (rand, -1.5, 1.5);
      normalise_units (in, vals);
      if (!cml_conserved_admissible (in, vals, tr, TRUE, z, &t))
        continue;
      cml_simulation_set_state (in->sim, t, z);
      in->sample_t[in->n_states] = t;
      add_state (in, t, z, SAMPLE_RANDOM);
    }
}

/* Where the states were, for a verdict's reason: "the initial state, 60 along a run from
 * it to t = 10, 40 near it and 99 random ones". */
char *
cml_conserved_states_text (Inspector *in)
{
  GString *s = g_string_new (NULL);
  const char *sep = "";

  if (in->n_kind[SAMPLE_INITIAL])
    {
      g_string_append (s, _("the initial state"));
      sep = ", ";
    }
  if (in->n_kind[SAMPLE_RUN])
    {
      g_autofree char *to = g_strdup_printf ("%g", in->run_to);
      g_string_append (s, sep);
      g_string_append_printf (s, _("%u along the run from it to t = %s"), in->n_kind[SAMPLE_RUN], to);
      sep = ", ";
    }
  if (in->n_kind[SAMPLE_NEAR])
    {
      g_string_append (s, sep);
      g_string_append_printf (s, _("%u near it"), in->n_kind[SAMPLE_NEAR]);
      sep = ", ";
    }
  if (in->n_kind[SAMPLE_RANDOM])
    {
      g_string_append (s, sep);
      g_string_append_printf (s, _("%u random ones"), in->n_kind[SAMPLE_RANDOM]);
    }
  for (guint g = 0; in->unit_groups && g + 1 < in->unit_groups->len; g += 2)
    {
      guint i = g_array_index (in->unit_groups, guint, g), l = g_array_index (in->unit_groups, guint, g + 1);
      GString *names = g_string_new (NULL);
      for (guint j = i; j < i + l; j++)
        {
          g_autofree char *nm = cml_expr_pretty_name (in->sys->state_names[j], FALSE);
          g_string_append_printf (names, "%s%s", j > i ? ", " : "", nm);
        }
      g_string_append_printf (s, _("; (%s) of length 1 in the states near it and the random ones, as at the initial state (the equations "
                                  "keep its length)"), names->str);
      g_string_free (names, TRUE);
    }
  return g_string_free (s, FALSE);
}
