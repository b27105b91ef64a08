/* cml-py-sweep.c — Model.sweep(): a parameter sweep on threads, its measures as NumPy arrays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The grid is the product of the varied parameters' ranges (N values from A to B inclusive;
 * the first varies slowest), as `cmlab-cli sweep --vary P=A:B:N` makes it; every point is a
 * fresh simulation of the model's system with the parameters given to load(), the point's
 * values, the integrator, a reset from init and a run to each time of `at`, where the
 * measured observables are read — cml-sweep.c's runs, the ones `cmlab-cli sweep` writes
 * (each point the run `simulate` makes with those parameters).  The rows come back in grid
 * order into arrays made beforehand.
 *
 * Threads: cml_sweep_run runs on `jobs` worker threads and hands the rows to the calling
 * thread, which holds no GIL meanwhile; its progress callback takes the GIL only to see
 * whether a signal (Ctrl-C) came, and then cancels the sweep.
 */
#define G_LOG_DOMAIN "cml-py-sweep"

#include "cml-py-private.h"

#include <math.h>

#include "cml-error.h"
#include "cml-model.h"
#include "cml-sweep.h"

/* At most this many measured values in one sweep (points × measures × times): 10⁸ */
#define MAX_VALUES 100000000.0

const char cml_py_sweep_doc[] =
"sweep($self, /, vary, t_end, measure, at=None, init=None, integrator=None, rtol=None, atol=None, step=None, jobs=None)\n--\n\n"
"Runs the model at every point of a grid of parameter values, on `jobs` threads\n"
"(default: one per processor), and measures observables at the end of each run\n"
"(or at each time of `at`) — the runs `cmlab-cli sweep` makes, bit for bit.\n"
"\n"
"vary     {name: (a, b, n)}: n values from a to b inclusive for each varied\n"
"         parameter; the grid is their product, the first varying slowest\n"
"measure  [name, …]: observables read at the times (info()['observables'])\n"
"at       [t1, t2, …]: increasing times in (0, t_end] (default: t_end alone)\n"
"init, integrator, rtol, atol, step: as simulate() takes them\n"
"\n"
"Returns a dict of arrays, one row per point in grid order: each varied\n"
"parameter's values, then each measure (shape (points,), or (points, len(at))\n"
"with `at`).  A point whose run fails has nan from the failure on;\n"
".meta['failed'] maps its grid index to the reason.  Ctrl-C cancels the sweep.";

/* What the rows are gathered into (no Python object: the calling thread holds no GIL). */
typedef struct
{
  guint          n_vary, n_measures, n_at;
  const CmlSweepVary *vary;
  double       **vary_data;    /* per varied parameter: the points' values */
  double       **measure_data; /* per measure: the points' values, n_at a point */
  GArray        *failed_index; /* guint64: the grid indices of the points that failed */
  GPtrArray     *failed_why;   /* char*: why */
  PyThreadState *ts;           /* the calling thread's, while the GIL is released */
  gint           cancel;       /* read by cml_sweep_run */
  gboolean       interrupted;  /* a signal came: its exception is set */
} Gather;

static void
on_row (guint64 k, guint64 g, const guint *idx, const double *values, const char *why, gpointer data)
{
  Gather *ga = data;

  for (guint j = 0; j < ga->n_vary; j++)
    ga->vary_data[j][k] = cml_sweep_vary_value (&ga->vary[j], idx[j]);
  for (guint m = 0; m < ga->n_measures; m++)
    for (guint a = 0; a < ga->n_at; a++)
      ga->measure_data[m][k * ga->n_at + a] = values[m * ga->n_at + a];
  if (why)
    {
      g_array_append_val (ga->failed_index, g);
      g_ptr_array_add (ga->failed_why, g_strdup (why));
    }
}

/* Called at least four times a second while rows are awaited: a look for Ctrl-C. */
static void
on_progress (guint64 done, guint64 total, gpointer data)
{
  Gather *ga = data;

  if (ga->interrupted)
    return;
  PyEval_RestoreThread (ga->ts);
  ga->interrupted = PyErr_CheckSignals () < 0;
  ga->ts = PyEval_SaveThread ();
  if (ga->interrupted)
    g_atomic_int_set (&ga->cancel, 1);
}

/* VARY ({name: (a, b, n)}) into V, checked against the model's parameters. */
static gboolean
parse_vary (PyObject *vary, CmlModel *model, GArray *v)
{
  PyObject *items = PyDict_Check (vary) ? PyDict_Items (vary) : NULL;

  if (items == NULL || PyList_GET_SIZE (items) == 0)
    {
      Py_XDECREF (items);
      return cml_py_raise_printf ("sweep: vary takes {name: (a, b, n)}, e.g. {'Omega': (0.5, 2.0, 16)}"), FALSE;
    }
  for (Py_ssize_t k = 0; k < PyList_GET_SIZE (items); k++)
    {
      PyObject *key = PyTuple_GET_ITEM (PyList_GET_ITEM (items, k), 0);
      PyObject *range = PyTuple_GET_ITEM (PyList_GET_ITEM (items, k), 1);
      CmlSweepVary sv = { 0 };
      const char *name = PyUnicode_Check (key) ? PyUnicode_AsUTF8 (key) : NULL;
      long n = 0;
      if (name == NULL || !PyTuple_Check (range) || !PyArg_ParseTuple (range, "ddl", &sv.a, &sv.b, &n)
          || !isfinite (sv.a) || !isfinite (sv.b) || n < 1 || n > G_MAXINT)
        {
          PyErr_Clear ();
          PyErr_Format (cml_py_error, "sweep: vary takes {name: (a, b, n)} with finite a, b and a count n >= 1, "
                        "not %R: %R", key, range);
          Py_DECREF (items);
          return FALSE;
        }
      sv.n = (guint) n;
      if ((sv.param = cml_model_param_index (model, name)) < 0)
        {
          Py_DECREF (items);
          return cml_py_raise_printf ("sweep: %s has no parameter “%s” to vary", model->name, name), FALSE;
        }
      /* a range's values lie between its ends; a list of allowed values is checked one by one */
      const CmlParam *par = model->params->pdata[sv.param];
      g_autoptr (GError) error = NULL;
      for (guint i = 0; i < sv.n; i = par->choices || i + 1 >= sv.n - 1 ? i + 1 : sv.n - 1)
        if (!cml_model_check_param (model, par, cml_sweep_vary_value (&sv, i), &error))
          {
            Py_DECREF (items);
            return cml_py_raise_printf ("sweep: vary %s: %s", name, error->message), FALSE;
          }
      sv.name = g_strdup (name);
      g_array_append_val (v, sv);
    }
  Py_DECREF (items);
  return TRUE;
}

static void
vary_clear (gpointer p)
{
  g_free (((CmlSweepVary *) p)->name);
}

PyObject *
cml_py_model_sweep (CmlPyModel *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "vary", "t_end", "measure", "at", "init", "integrator", "rtol", "atol", "step", "jobs",
                            NULL };
  PyObject *vary_obj, *t_end_obj, *measure_obj, *at_obj = NULL, *init = NULL, *integrator = NULL, *rtol = NULL,
           *atol = NULL, *step = NULL, *jobs_obj = NULL;
  CmlPyRunOptions ro = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) vary = g_array_new (FALSE, TRUE, sizeof (CmlSweepVary));
  g_autoptr (GArray) at = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) measure = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autofree double *base = NULL;
  CmlModel *model = cml_system_get_model (self->sys);
  PyObject *result = NULL, *meta = NULL;
  PyArrayObject **arrays = NULL;
  guint n_arrays = 0;
  Gather ga = { 0 };
  char *described = NULL; /* the integrator that ran */
  double t_end = 0, jobs_d = 0;
  gboolean has_t_end, has_jobs;

  g_array_set_clear_func (vary, vary_clear);
  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "OOO|OOOOOOO:sweep", kwlist, &vary_obj, &t_end_obj, &measure_obj,
                                    &at_obj, &init, &integrator, &rtol, &atol, &step, &jobs_obj))
    return NULL;
  if (!cml_py_optional_number (t_end_obj, "sweep", "t_end", &t_end, &has_t_end)
      || !cml_py_optional_number (jobs_obj, "sweep", "jobs", &jobs_d, &has_jobs))
    goto out;
  if (!(t_end > 0 && isfinite (t_end)))
    {
      cml_py_raise_printf ("sweep: t_end needs a number > 0, not %g", t_end);
      goto out;
    }
  if (has_jobs && !(jobs_d >= 1 && jobs_d <= CML_SWEEP_MAX_JOBS && jobs_d == floor (jobs_d)))
    {
      cml_py_raise_printf ("sweep: jobs takes a whole number from 1 to %d, not %g", CML_SWEEP_MAX_JOBS, jobs_d);
      goto out;
    }
  if (!parse_vary (vary_obj, model, vary))
    goto out;
  if ((names = cml_py_names (measure_obj, "sweep", "measure")) == NULL)
    goto out;
  g_array_set_size (measure, names->len - 1);
  if (!cml_py_observables (self->sys, (const char *const *) names->pdata, "sweep", (int *) measure->data))
    goto out;
  /* at: increasing times in (0, t_end] */
  if (at_obj && at_obj != Py_None)
    {
      PyArrayObject *a = (PyArrayObject *) PyArray_FROMANY (at_obj, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
      if (a == NULL)
        goto out;
      g_array_append_vals (at, PyArray_DATA (a), (guint) PyArray_DIM (a, 0));
      Py_DECREF (a);
      for (guint i = 0; i < at->len; i++)
        {
          double ti = g_array_index (at, double, i);
          if (!(ti > 0 && ti <= t_end) || (i > 0 && !(ti > g_array_index (at, double, i - 1))))
            {
              cml_py_raise_printf ("sweep: at takes increasing times in (0, t_end], not %g", ti);
              goto out;
            }
        }
      if (at->len == 0)
        {
          cml_py_raise_printf ("sweep: at takes at least one time");
          goto out;
        }
    }
  else
    g_array_append_val (at, t_end);
  if (!cml_py_run_options_parse (&ro, "sweep", init, integrator, rtol, atol, step))
    goto out;

  /* the run options with the model's own values: the initial values' names, the initial
   * data (as `cmlab-cli sweep` checks them before any thread starts); what the runs derive
   * from the model's expressions is derived now */
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
      if (error->domain == CML_ERROR && (error->code == CML_ERROR_USAGE || error->code == CML_ERROR_UNKNOWN_NAME))
        {
          cml_py_raise (error, "the initial values could not be used");
          goto out;
        }
      g_clear_error (&error);
    }
  else if (!cml_py_check_span (sim, ro.given, t_end, "sweep"))
    goto out;
  base = g_new (double, model->params->len + 1);
  for (guint p = 0; p < model->params->len; p++)
    base[p] = cml_simulation_get_param (sim, ((CmlParam *) model->params->pdata[p])->name);

  CmlSweepSpec spec = {
    .sys = self->sys, .base = base,
    .vary = (const CmlSweepVary *) vary->data, .n_vary = vary->len,
    .shard_i = 0, .shard_n = 1,
    .iopt = &ro.iopt, .given = ro.given,
    .at = (const double *) at->data, .n_at = at->len,
    .measure = (const int *) measure->data, .n_measures = measure->len,
    .jobs = has_jobs ? (guint) jobs_d : 0,
  };
  guint64 n_points = cml_sweep_n_points (&spec);
  if ((double) n_points * (measure->len * at->len + vary->len) > MAX_VALUES)
    {
      cml_py_raise_printf ("sweep: %llu points × %u values is more than 10^8 values: a coarser grid, or several "
                           "sweeps", (unsigned long long) n_points, measure->len * at->len + vary->len);
      goto out;
    }

  /* the arrays, made beforehand: the varied parameters', then the measures' */
  n_arrays = vary->len + measure->len;
  arrays = g_new0 (PyArrayObject *, n_arrays);
  ga.n_vary = vary->len;
  ga.n_measures = measure->len;
  ga.n_at = at->len;
  ga.vary = (const CmlSweepVary *) vary->data;
  ga.vary_data = g_new (double *, vary->len + 1);
  ga.measure_data = g_new (double *, measure->len + 1);
  ga.failed_index = g_array_new (FALSE, FALSE, sizeof (guint64));
  ga.failed_why = g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < n_arrays; k++)
    {
      gboolean is_vary = k < vary->len;
      npy_intp dims[2] = { (npy_intp) n_points, at->len };
      int nd = is_vary || !(at_obj && at_obj != Py_None) ? 1 : 2;
      if ((arrays[k] = (PyArrayObject *) PyArray_ZEROS (nd, dims, NPY_DOUBLE, 0)) == NULL)
        goto out;
      if (is_vary)
        ga.vary_data[k] = PyArray_DATA (arrays[k]);
      else
        ga.measure_data[k - vary->len] = PyArray_DATA (arrays[k]);
    }

  /* the runs, without the GIL */
  guint jobs_run = 0;
  spec.jobs_run = &jobs_run;
  ga.ts = PyEval_SaveThread ();
  cml_sweep_run (&spec, on_row, on_progress, &ga, &ga.cancel);
  PyEval_RestoreThread (ga.ts);
  if (ga.interrupted)
    goto out;

  /* the result, and what made it */
  meta = PyDict_New ();
  PyObject *failed = PyDict_New ();
  if (meta == NULL || failed == NULL)
    {
      Py_XDECREF (failed);
      goto out;
    }
  for (guint k = 0; k < ga.failed_index->len; k++)
    {
      PyObject *g = PyLong_FromUnsignedLongLong (g_array_index (ga.failed_index, guint64, k));
      PyObject *why = PyUnicode_FromString (ga.failed_why->pdata[k]);
      if (g == NULL || why == NULL || PyDict_SetItem (failed, g, why) < 0)
        {
          Py_XDECREF (g);
          Py_XDECREF (why);
          Py_DECREF (failed);
          goto out;
        }
      Py_DECREF (g);
      Py_DECREF (why);
    }
  described = cml_integrator_options_describe (cml_simulation_get_integrator (sim));
  npy_intp n_at = at->len;
  PyArrayObject *at_array = (PyArrayObject *) PyArray_SimpleNew (1, &n_at, NPY_DOUBLE);
  if (at_array)
    memcpy (PyArray_DATA (at_array), at->data, at->len * sizeof (double));
  PyObject *items[][2] = {
    { PyUnicode_FromString ("model"), PyUnicode_FromString (model->name) },
    { PyUnicode_FromString ("parameters"), cml_py_parameters_dict (sim) },
    { PyUnicode_FromString ("t_end"), PyFloat_FromDouble (t_end) },
    { PyUnicode_FromString ("at"), (PyObject *) at_array },
    { PyUnicode_FromString ("integrator"), PyUnicode_FromString (described) },
    { PyUnicode_FromString ("points"), PyLong_FromUnsignedLongLong (n_points) },
    { PyUnicode_FromString ("jobs"), PyLong_FromUnsignedLong (jobs_run) },
    { PyUnicode_FromString ("failed"), failed },
    { PyUnicode_FromString ("version"), PyUnicode_FromString (CMLAB_VERSION) },
  };
  gboolean ok = TRUE;
  for (guint k = 0; k < G_N_ELEMENTS (items); k++)
    {
      ok = ok && items[k][0] && items[k][1] && PyDict_SetItem (meta, items[k][0], items[k][1]) == 0;
      Py_XDECREF (items[k][0]);
      Py_XDECREF (items[k][1]);
    }
  if (!ok || (result = cml_py_result_new (meta)) == NULL)
    goto out;
  for (guint k = 0; k < n_arrays; k++)
    {
      const char *key = k < vary->len ? g_array_index (vary, CmlSweepVary, k).name : names->pdata[k - vary->len];
      if (PyDict_SetItemString (result, key, (PyObject *) arrays[k]) < 0)
        {
          Py_CLEAR (result);
          goto out;
        }
    }

out:
  for (guint k = 0; arrays && k < n_arrays; k++)
    Py_XDECREF (arrays[k]);
  g_free (arrays);
  g_free (described);
  g_free (ga.vary_data);
  g_free (ga.measure_data);
  if (ga.failed_index)
    g_array_unref (ga.failed_index);
  if (ga.failed_why)
    g_ptr_array_unref (ga.failed_why);
  Py_XDECREF (meta);
  cml_py_run_options_clear (&ro);
  return result;
}
