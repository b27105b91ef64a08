/* cml-py-poincare.c — Model.poincare(): where a run crosses a section, as NumPy arrays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The section is "EXPR = VALUE" crossed up, down or both ways (cml-section.h); the run is
 * integrated in pieces of at most max_step and each crossing located by Brent's method on
 * the integrator's own solution, as `cmlab-cli poincare` does it: the same pieces, taken
 * POINCARE_CHUNK_PIECES at a time, so the same crossings bit for bit.  Between two chunks
 * the GIL is taken back to look for a signal (Ctrl-C) and the count of crossings; the
 * integration itself runs without it.  The crossings are gathered in C arrays (no Python
 * object without the GIL) and handed over as NumPy arrays at the end.
 */
#define G_LOG_DOMAIN "cml-py-poincare"

#include "cml-py-private.h"

#include <math.h>

#include "cml-error.h"
#include "cml-model.h"
#include "cml-section.h"

#define POINCARE_CHUNK_PIECES 1000        /* pieces between two looks (cml-poincare-cmd.c's) */
#define POINCARE_MAX_CROSSINGS 100000000  /* 10⁸, as cmlab-cli's to a file */

const char cml_py_poincare_doc[] =
"poincare($self, /, section, t_end, columns=None, direction='up', max_step=None, max_crossings=None, init=None, integrator=None, rtol=None, atol=None, step=None)\n--\n\n"
"Runs the model from t = 0 to t_end and returns where it crosses the section\n"
"'EXPR = VALUE' (e.g. 'y = 0', 'x1 - x2 = 0.5'; 'EXPR' alone is EXPR = 0) in the\n"
"direction asked ('up': EXPR - VALUE goes from negative to positive, 'down', or\n"
"'both'): a dict of arrays, 't' the crossing times, then each column (default the\n"
"model's output columns) there.  Each crossing is located by Brent's method on\n"
"the integrator's own solution, as `cmlab-cli poincare` locates it (the same\n"
"numbers), in pieces of at most max_step (default min(t_end/10000, 0.01)).  The\n"
"run stops after max_crossings crossings (at most 10^8); .meta['t_reached'] says\n"
"where it stopped.  Ctrl-C stops it between two chunks of pieces.";

typedef struct
{
  const int *idx;
  guint      n_cols;
  GArray    *values; /* double: t and the columns, crossing after crossing */
  guint64    n, max;
} Crossings;

static void
on_crossing (double t, const double *obs, gpointer data)
{
  Crossings *c = data;

  if (c->n >= c->max)
    return;
  g_array_append_val (c->values, t);
  for (guint k = 0; k < c->n_cols; k++)
    g_array_append_val (c->values, obs[c->idx[k]]);
  c->n++;
}

PyObject *
cml_py_model_poincare (CmlPyModel *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "section", "t_end", "columns", "direction", "max_step", "max_crossings", "init",
                            "integrator", "rtol", "atol", "step", NULL };
  const char *section_text, *direction_text = "up";
  PyObject *t_end_obj, *columns_obj = NULL, *max_step_obj = NULL, *max_crossings_obj = NULL, *init = NULL,
           *integrator = NULL, *rtol = NULL, *atol = NULL, *step = NULL;
  CmlPyRunOptions ro = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (CmlSection) section = NULL;
  CmlModel *model = cml_system_get_model (self->sys);
  CmlSectionDirection direction;
  Crossings c = { 0 };
  int *idx = NULL;
  char *described = NULL;
  PyObject *result = NULL, *meta = NULL;
  double t_end = 0, max_step = 0, max_crossings = 0;
  gboolean has, has_max_step, has_max_crossings;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "sO|OsOOOOOOO:poincare", kwlist, &section_text, &t_end_obj,
                                    &columns_obj, &direction_text, &max_step_obj, &max_crossings_obj, &init,
                                    &integrator, &rtol, &atol, &step))
    return NULL;
  if (!cml_py_optional_number (t_end_obj, "poincare", "t_end", &t_end, &has)
      || !cml_py_optional_number (max_step_obj, "poincare", "max_step", &max_step, &has_max_step)
      || !cml_py_optional_number (max_crossings_obj, "poincare", "max_crossings", &max_crossings, &has_max_crossings))
    goto out;
  if (!(t_end > 0 && isfinite (t_end)))
    {
      cml_py_raise_printf ("poincare: t_end needs a number > 0, not %g", t_end);
      goto out;
    }
  if (g_str_equal (direction_text, "up"))
    direction = CML_SECTION_UP;
  else if (g_str_equal (direction_text, "down"))
    direction = CML_SECTION_DOWN;
  else if (g_str_equal (direction_text, "both"))
    direction = CML_SECTION_BOTH;
  else
    {
      cml_py_raise_printf ("poincare: direction is 'up', 'down' or 'both', not “%s”", direction_text);
      goto out;
    }
  if (has_max_step && !(max_step > 0 && isfinite (max_step)))
    {
      cml_py_raise_printf ("poincare: max_step needs a number > 0, not %g", max_step);
      goto out;
    }
  if (!has_max_step)
    max_step = MIN (t_end / 10000, 0.01);
  if (t_end / max_step > 1e9)
    {
      cml_py_raise_printf ("poincare: t_end %g in pieces of %g is more than 10^9 pieces: use a larger max_step or a "
                           "shorter t_end", t_end, max_step);
      goto out;
    }
  if (has_max_crossings && !(max_crossings >= 1 && max_crossings == floor (max_crossings)))
    {
      cml_py_raise_printf ("poincare: max_crossings takes a whole number >= 1, not %g", max_crossings);
      goto out;
    }
  c.max = has_max_crossings ? (guint64) MIN (max_crossings, POINCARE_MAX_CROSSINGS) : POINCARE_MAX_CROSSINGS;
  if (!cml_py_run_options_parse (&ro, "poincare", init, integrator, rtol, atol, step))
    goto out;
  if (columns_obj && columns_obj != Py_None)
    {
      if ((names = cml_py_names (columns_obj, "poincare", "columns")) == NULL)
        goto out;
    }
  else
    {
      names = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; model->columns && model->columns[k]; k++)
        g_ptr_array_add (names, g_strdup (model->columns[k]));
      g_ptr_array_add (names, NULL);
    }
  c.n_cols = names->len - 1;
  idx = g_new (int, c.n_cols + 1);
  c.idx = idx;
  if (!cml_py_observables (self->sys, (const char *const *) names->pdata, "poincare", idx))
    goto out;

  /* the run, set up as `cmlab-cli poincare` sets it up */
  cml_system_prepare (self->sys, ro.iopt.kind);
  if ((sim = cml_py_model_new_simulation (self)) == NULL)
    goto out;
  if (!cml_simulation_set_integrator (sim, &ro.iopt, &error))
    {
      cml_py_raise (error, "the integrator could not be set");
      goto out;
    }
  if (!cml_simulation_reset (sim, ro.given, &error))
    {
      cml_py_raise (error, "the initial state could not be used");
      goto out;
    }
  if (!cml_py_check_span (sim, ro.given, t_end, "poincare"))
    goto out;
  if ((section = cml_section_new (self->sys, section_text, direction, &error)) == NULL)
    {
      cml_py_raise_printf ("poincare: %s", error->message);
      goto out;
    }

  /* the run, a chunk of pieces at a time, until t_end or the limit */
  c.values = g_array_new (FALSE, FALSE, sizeof (double));
  gboolean ok = TRUE, interrupted = FALSE;
  double t = cml_simulation_get_time (sim);
  while (ok && t < t_end && c.n < c.max && !interrupted)
    {
      double t1 = t;
      for (guint k = 0; k < POINCARE_CHUNK_PIECES && t1 < t_end; k++)
        t1 = MIN (t1 + max_step, t_end);
      Py_BEGIN_ALLOW_THREADS
      ok = cml_section_run (section, sim, t1, max_step, on_crossing, &c, &error);
      Py_END_ALLOW_THREADS
      t = cml_simulation_get_time (sim);
      interrupted = PyErr_CheckSignals () < 0;
    }
  if (interrupted)
    goto out;
  if (!ok)
    {
      cml_py_raise_printf ("run failed: %s", error->message);
      goto out;
    }

  /* the result: t and the columns */
  described = cml_integrator_options_describe (cml_simulation_get_integrator (sim));
  meta = PyDict_New ();
  if (meta == NULL)
    goto out;
  PyObject *items[][2] = {
    { PyUnicode_FromString ("model"), PyUnicode_FromString (model->name) },
    { PyUnicode_FromString ("parameters"), cml_py_parameters_dict (sim) },
    { PyUnicode_FromString ("section"), PyUnicode_FromString (section_text) },
    { PyUnicode_FromString ("direction"), PyUnicode_FromString (direction_text) },
    { PyUnicode_FromString ("t_end"), PyFloat_FromDouble (t_end) },
    { PyUnicode_FromString ("t_reached"), PyFloat_FromDouble (t) },
    { PyUnicode_FromString ("max_step"), PyFloat_FromDouble (max_step) },
    { PyUnicode_FromString ("integrator"), PyUnicode_FromString (described) },
    { PyUnicode_FromString ("version"), PyUnicode_FromString (CMLAB_VERSION) },
  };
  gboolean built = TRUE;
  for (guint k = 0; k < G_N_ELEMENTS (items); k++)
    {
      built = built && items[k][0] && items[k][1] && PyDict_SetItem (meta, items[k][0], items[k][1]) == 0;
      Py_XDECREF (items[k][0]);
      Py_XDECREF (items[k][1]);
    }
  if (!built || (result = cml_py_result_new (meta)) == NULL)
    goto out;
  for (guint k = 0; k <= c.n_cols; k++)
    {
      npy_intp n = (npy_intp) c.n;
      PyArrayObject *a = (PyArrayObject *) PyArray_SimpleNew (1, &n, NPY_DOUBLE);
      if (a == NULL)
        {
          Py_CLEAR (result);
          goto out;
        }
      double *d = PyArray_DATA (a);
      const double *v = (const double *) c.values->data;
      for (guint64 i = 0; i < c.n; i++)
        d[i] = v[i * (c.n_cols + 1) + k];
      int r = PyDict_SetItemString (result, k == 0 ? "t" : names->pdata[k - 1], (PyObject *) a);
      Py_DECREF (a);
      if (r < 0)
        {
          Py_CLEAR (result);
          goto out;
        }
    }

out:
  if (c.values)
    g_array_unref (c.values);
  g_free (idx);
  g_free (described);
  Py_XDECREF (meta);
  cml_py_run_options_clear (&ro);
  return result;
}
