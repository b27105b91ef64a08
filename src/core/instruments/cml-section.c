/* cml-section.c — Poincaré sections: where a run crosses a surface g(state) = 0.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Over each piece [a, b] of the run, g(a) and g(b) are compared; a change of sign in
 * the section's direction brackets a crossing, and Brent's method (GSL's
 * gsl_root_fsolver_brent) finds the τ in [a, b] with g(z(τ)) = 0, where z(τ) is
 * integrated from z(a) by the run's own integrator at the run's tolerances.  The run then
 * goes on from z(b), integrated as before the search.
 */
#define G_LOG_DOMAIN "cml-section"

#include "cml-section.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-model.h"

#define BRENT_MAX_ITER 100

struct _CmlSection
{
  CmlSystem          *sys;
  CmlExpr            *g;      /* EXPR − VALUE, over the state, parameters and t */
  CmlSectionDirection direction;
};

/* ---- reading "EXPR = VALUE" ------------------------------------------------------------ */

/* Replaces the model's monitors and definitions in E by their expressions (earlier ones
 * are already substituted in later ones). */
static CmlExpr *
substitute_named (CmlModel *model, CmlExpr *e)
{
  GPtrArray *lists[2] = { model->monitors, model->definitions };

  for (guint l = 0; l < G_N_ELEMENTS (lists); l++)
    {
      GPtrArray *list = lists[l];
      g_autofree int *ids = NULL;
      g_autofree CmlExpr **exprs = NULL;

      if (list == NULL || list->len == 0)
        continue;
      ids = g_new (int, list->len);
      exprs = g_new (CmlExpr *, list->len);
      for (guint k = 0; k < list->len; k++)
        {
          ids[k] = ((CmlNamedExpr *) list->pdata[k])->sym;
          exprs[k] = ((CmlNamedExpr *) list->pdata[k])->expr;
        }
      e = cml_expr_subs (model->ctx, e, list->len, ids, exprs);
    }
  return e;
}

/* Every name in E must be something a state, its parameters and t give a value to. */
static gboolean
check_names (CmlSystem *sys, CmlExpr *e, const char *text, GError **error)
{
  CmlModel *model = cml_system_get_model (sys);
  guint ns = cml_expr_ctx_n_symbols (model->ctx);
  g_autofree gboolean *used = g_new0 (gboolean, ns);

  cml_expr_collect_symbols (e, used);
  for (guint id = 0; id < ns; id++)
    {
      const char *name;

      if (!used[id])
        continue;
      name = cml_expr_ctx_symbol_name (model->ctx, id);
      if ((int) id == model->t_sym || cml_model_find_param (model, name) != NULL
          || cml_system_observable_index (sys, name) >= 0)
        continue;
      g_set_error (error, CML_ERROR, CML_ERROR_UNKNOWN_NAME,
                   "the section “%s” uses “%s”, which is not a coordinate, velocity, momentum, "
                   "monitor or parameter of %s", text, name, model->name);
      return FALSE;
    }
  return TRUE;
}

static CmlExpr *
parse_side (CmlModel *model, const char *text, const char *whole, GError **error)
{
  g_autoptr (GError) err = NULL;
  int col = 0;
  CmlExpr *e;

  e = cml_expr_parse (model->ctx, text, &col, &err);
  if (e == NULL)
    g_set_error (error, CML_ERROR, err ? err->code : CML_ERROR_PARSE, "the section “%s”: %s", whole,
                 err ? err->message : "not an expression");
  return e;
}

CmlSection *
cml_section_new (CmlSystem *sys, const char *text, CmlSectionDirection direction, GError **error)
{
  CmlModel *model;
  g_autofree char *lhs = NULL;
  const char *eq;
  CmlExpr *g, *value = NULL;
  CmlSection *s;

  g_return_val_if_fail (sys != NULL && text != NULL, NULL);

  if (direction < CML_SECTION_UP || direction > CML_SECTION_BOTH)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "a section's direction is up, down or both");
      return NULL;
    }
  model = cml_system_get_model (sys);
  eq = strchr (text, '=');
  lhs = eq ? g_strndup (text, eq - text) : g_strdup (text);
  g_strstrip (lhs);
  if (*lhs == '\0' || (eq && strchr (eq + 1, '=')))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "a section is “EXPRESSION=VALUE” (e.g. y=0 or energy=0.5), not “%s”", text);
      return NULL;
    }
  if ((g = parse_side (model, lhs, text, error)) == NULL)
    return NULL;
  if (eq)
    {
      g_autofree char *rhs = g_strstrip (g_strdup (eq + 1));

      if (*rhs == '\0' || (value = parse_side (model, rhs, text, error)) == NULL)
        {
          if (*rhs == '\0')
            g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "the section “%s” has nothing after “=”", text);
          return NULL;
        }
      g = cml_expr_sub (model->ctx, g, value);
    }
  g = substitute_named (model, g);
  if (!check_names (sys, g, text, error))
    return NULL;

  s = g_new0 (CmlSection, 1);
  s->sys = cml_system_ref (sys);
  s->g = g;
  s->direction = direction;
  return s;
}

void
cml_section_free (CmlSection *section)
{
  if (section == NULL)
    return;
  cml_system_unref (section->sys);
  g_free (section);
}

double
cml_section_value (CmlSection *section, CmlSimulation *sim)
{
  g_return_val_if_fail (section != NULL && sim != NULL, NAN);

  return cml_simulation_eval_expr (sim, section->g);
}

double
cml_section_rate (CmlSection *section, CmlSimulation *sim)
{
  g_return_val_if_fail (section != NULL && sim != NULL, NAN);

  guint dim = cml_system_dim (section->sys);
  double t = cml_simulation_get_time (sim);
  g_autofree double *z = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *f = g_new (double, dim), *zh = g_new (double, dim);
  double zmax = 1, fmax = 0, gp, gm;

  if (!cml_simulation_eval_rhs (sim, f, NULL))
    return NAN;
  for (guint i = 0; i < dim; i++)
    zmax = MAX (zmax, fabs (z[i])), fmax = MAX (fmax, fabs (f[i]));
  if (!(fmax > 0) || !isfinite (fmax))
    return isfinite (fmax) ? 0.0 : NAN;
  double h = 1e-6 * zmax / fmax;
  for (guint i = 0; i < dim; i++)
    zh[i] = z[i] + h * f[i];
  cml_simulation_set_state (sim, t, zh);
  gp = cml_section_value (section, sim);
  for (guint i = 0; i < dim; i++)
    zh[i] = z[i] - h * f[i];
  cml_simulation_set_state (sim, t, zh);
  gm = cml_section_value (section, sim);
  cml_simulation_set_state (sim, t, z);
  return (gp - gm) / (2 * h);
}

/* ---- locating a crossing --------------------------------------------------------------- */

typedef struct
{
  CmlSection    *section;
  CmlSimulation *sim;
  double         ta;
  const double  *za;
  GError        *error;  /* the first failure of an integration */
} Probe;

/* g(z(τ)), z integrated from (ta, za). */
static double
probe_g (double tau, void *data)
{
  Probe *p = data;

  cml_simulation_set_state (p->sim, p->ta, p->za);
  if (tau > p->ta && !cml_simulation_advance (p->sim, tau, p->error ? NULL : &p->error))
    return NAN;
  return cml_section_value (p->section, p->sim);
}

/* The crossing in [ta, tb] where g goes from GA to GB (of opposite signs, or GB = 0). */
static gboolean
locate (Probe *p, double tb, double ga, double gb, double *tau, GError **error)
{
  gsl_root_fsolver *solver;
  gsl_function f = { probe_g, p };
  double lo = p->ta, hi = tb;
  int status = GSL_CONTINUE;

  if (gb == 0.0)
    {
      *tau = tb;
      return TRUE;
    }
  (void) ga;
  solver = gsl_root_fsolver_alloc (gsl_root_fsolver_brent);
  if (gsl_root_fsolver_set (solver, &f, lo, hi) != GSL_SUCCESS)
    {
      gsl_root_fsolver_free (solver);
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "the section's crossing between t = %.17g and t = %.17g could not be bracketed", lo, hi);
      return FALSE;
    }
  for (int it = 0; it < BRENT_MAX_ITER && status == GSL_CONTINUE; it++)
    {
      if (gsl_root_fsolver_iterate (solver) != GSL_SUCCESS || p->error)
        break;
      lo = gsl_root_fsolver_x_lower (solver);
      hi = gsl_root_fsolver_x_upper (solver);
      /* to a few units in the last place of t */
      status = gsl_root_test_interval (lo, hi, 0.0, 4 * DBL_EPSILON);
    }
  *tau = gsl_root_fsolver_root (solver);
  gsl_root_fsolver_free (solver);
  if (p->error)
    {
      g_propagate_error (error, g_steal_pointer (&p->error));
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_section_run (CmlSection *section, CmlSimulation *sim, double t_end, double max_step,
                 CmlCrossingFunc func, gpointer data, GError **error)
{
  guint dim, n_obs;
  g_autofree double *za = NULL, *zb = NULL, *obs = NULL;
  double t, ga;

  g_return_val_if_fail (section != NULL && sim != NULL, FALSE);
  g_return_val_if_fail (max_step > 0, FALSE);

  dim = cml_system_dim (section->sys);
  n_obs = cml_system_n_observables (section->sys);
  za = g_new (double, dim);
  zb = g_new (double, dim);
  obs = g_new (double, MAX (n_obs, 1));
  t = cml_simulation_get_time (sim);
  ga = cml_section_value (section, sim);

  while (t < t_end)
    {
      double tb = MIN (t + max_step, t_end), gb;
      gboolean up, down;

      memcpy (za, cml_simulation_get_state (sim), dim * sizeof (double));
      if (!cml_simulation_advance (sim, tb, error))
        return FALSE;
      tb = cml_simulation_get_time (sim);
      gb = cml_section_value (section, sim);
      up = ga < 0 && gb >= 0;
      down = ga > 0 && gb <= 0;
      if ((up && (section->direction & CML_SECTION_UP)) || (down && (section->direction & CML_SECTION_DOWN)))
        {
          Probe p = { section, sim, t, za, NULL };
          double tau = tb;

          memcpy (zb, cml_simulation_get_state (sim), dim * sizeof (double));
          if (!locate (&p, tb, ga, gb, &tau, error))
            return FALSE;
          cml_simulation_set_state (sim, t, za);
          if (tau > t && !cml_simulation_advance (sim, tau, error))
            return FALSE;
          cml_simulation_observe (sim, obs);
          if (func)
            func (tau, obs, data);
          /* the run goes on from the piece's end */
          cml_simulation_set_state (sim, tb, zb);
        }
      if (isfinite (gb))
        ga = gb;
      t = tb;
    }
  return TRUE;
}
