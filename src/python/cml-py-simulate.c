/* cml-py-simulate.c — Model.simulate(): a run of a model, its rows as NumPy arrays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same calls as `cmlab-cli simulate` (src/cli/cmlab-cli.c, run_simulate) in the same
 * order, so the numbers are the ones it writes, bit for bit: a simulation with the
 * parameters given to load(), the integrator set, the initial data reset at T0 with the
 * values given, then rows at t = T0, T0 ± H, T0 ± 2H, … and a last one at T (rows of the
 * observables, cml_simulation_observe).  The rows go straight into NumPy arrays made
 * beforehand, one per column.
 *
 * Threads: everything that builds or reads Python objects, and what derives from the
 * model's expressions (the system prepared for the integrator, cml_system_prepare), runs
 * with the GIL held; the integration itself runs without it (so threads simulate in
 * parallel), taking it back between two rows only to look for a signal (Ctrl-C).
 */
#define G_LOG_DOMAIN "cml-py-simulate"

#include "cml-py-private.h"

#include <math.h>

#include "cml-error.h"
#include "cml-model.h"

/* At most this many rows (as `cmlab-cli simulate` writes to a file, CML_CLI_MAX_ROWS) */
#define MAX_ROWS 100000000.0 /* 10⁸ */

const char cml_py_simulate_doc[] =
"simulate($self, /, t_end, dt_out=None, init=None, integrator=None, rtol=None, atol=None, columns=None, step=None, t_start=None)\n--\n\n"
"Runs the model from t_start (default 0) to t_end and returns a row every dt_out\n"
"(default (t_end - t_start)/1000, a thousand rows after the first) and one at\n"
"t_end: a cmlab.Result, a dict of NumPy float64 arrays by column name ('t' first,\n"
"then the model's output columns or those asked for), with the run's metadata in\n"
"its .meta dict.  The numbers are those `cmlab-cli simulate` writes with the same\n"
"options, bit for bit.  A t_end before t_start runs backwards.\n"
"\n"
"init        {name: value}: initial values of coordinates, velocities, momenta or\n"
"            reconstruction variables (--init); the constraints solve for the rest\n"
"integrator  'auto' (the default), 'rk8pd', 'dop853', 'taylor', 'msbdf',\n"
"            'implicit-midpoint', 'variational', … (`cmlab-cli list integrators`)\n"
"rtol, atol  the adaptive methods' tolerances (defaults 1e-10 and 1e-12)\n"
"step        the fixed step of implicit-midpoint, variational, variational4, rk4-fixed\n"
"columns     [name, …]: any observables (info()['observables']), e.g. 'energy'\n"
"\n"
"meta: 'model', 'parameters', 'initial' (name -> value where the run started),\n"
"'initial_state' (the state there, as rhs() takes it), 't_start', 't_end',\n"
"'dt_out', 'integrator' (the method with its tolerances, and why auto chose it),\n"
"'method', 'rtol', 'atol', 'step', 'columns', 'units', 'notes' (initial values\n"
"the constraints changed, as cmlab-cli's notes), 'version'.\n"
"\n"
"The GIL is released while the run integrates: runs in several threads go on in\n"
"parallel.  Ctrl-C stops a run between two rows.  Raises cmlab.Error for bad\n"
"options or initial values and when the run fails (the message names the time\n"
"and the reason).";

/* What simulate() was asked. */
typedef struct
{
  double          t_end, t_start, dt_out;
  gboolean        has_t_start, has_dt_out;
  CmlPyRunOptions ro;
  GPtrArray      *columns; /* char*, NULL-terminated, or NULL: the model's */
} Request;

static void
request_clear (Request *rq)
{
  cml_py_run_options_clear (&rq->ro);
  g_clear_pointer (&rq->columns, g_ptr_array_unref);
}

/* The arguments into RQ, checked as `cmlab-cli simulate` checks its options. */
static gboolean
parse_request (PyObject *args, PyObject *kwargs, Request *rq)
{
  static char *kwlist[] = { "t_end", "dt_out", "init", "integrator", "rtol", "atol", "columns", "step", "t_start",
                            NULL };
  PyObject *t_end = NULL, *dt_out = NULL, *init = NULL, *integrator = NULL, *rtol = NULL, *atol = NULL,
           *columns = NULL, *step = NULL, *t_start = NULL;
  gboolean has_t_end;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "O|OOOOOOOO:simulate", kwlist, &t_end, &dt_out, &init, &integrator,
                                    &rtol, &atol, &columns, &step, &t_start))
    return FALSE;
  if (!cml_py_optional_number (t_end, "simulate", "t_end", &rq->t_end, &has_t_end)
      || !cml_py_optional_number (dt_out, "simulate", "dt_out", &rq->dt_out, &rq->has_dt_out)
      || !cml_py_optional_number (t_start, "simulate", "t_start", &rq->t_start, &rq->has_t_start))
    return FALSE;
  if (!has_t_end || !isfinite (rq->t_end))
    return cml_py_raise_printf ("simulate: t_end needs a finite number, not %g", rq->t_end), FALSE;
  if (rq->has_t_start && !isfinite (rq->t_start))
    return cml_py_raise_printf ("simulate: t_start needs a finite number, not %g", rq->t_start), FALSE;
  if (!rq->has_t_start && rq->t_end < 0)
    return cml_py_raise_printf ("simulate: t_end needs a number >= 0 (or t_start > t_end to run backwards), not %g",
                                rq->t_end), FALSE;
  if (rq->has_dt_out && !(rq->dt_out > 0 && isfinite (rq->dt_out)))
    return cml_py_raise_printf ("simulate: dt_out needs a number > 0, not %g", rq->dt_out), FALSE;
  if (!cml_py_run_options_parse (&rq->ro, "simulate", init, integrator, rtol, atol, step))
    return FALSE;
  if (columns && columns != Py_None && (rq->columns = cml_py_names (columns, "simulate", "columns")) == NULL)
    return FALSE;
  return TRUE;
}

/* The run's metadata. */
static PyObject *
make_meta (CmlSimulation *sim, const Request *rq, double t0, double dt_out, const char *const *columns,
           PyArrayObject *z0)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  const CmlIntegratorOptions *io = cml_simulation_get_integrator (sim);
  g_autofree char *described = cml_integrator_options_describe (io);
  PyObject *meta = PyDict_New (), *initial = PyDict_New (), *units = PyDict_New (), *cols = PyList_New (0),
           *notes = PyList_New (0);
  gboolean ok = meta && initial && units && cols && notes;
  const double *z = PyArray_DATA (z0);

  for (guint i = 0; ok && i < cml_system_dim (sys); i++)
    {
      PyObject *v = PyFloat_FromDouble (z[i]);
      ok = v && PyDict_SetItemString (initial, cml_system_state_name (sys, i), v) == 0;
      Py_XDECREF (v);
    }
  for (guint k = 0; ok && columns[k]; k++)
    {
      const char *unit = model->units ? g_hash_table_lookup (model->units, columns[k]) : NULL;
      PyObject *s = PyUnicode_FromString (columns[k]), *u = PyUnicode_FromString (unit ? unit : "");
      ok = s && u && PyList_Append (cols, s) == 0 && PyDict_SetItem (units, s, u) == 0;
      Py_XDECREF (s);
      Py_XDECREF (u);
    }
  if (ok)
    {
      PyObject *u = PyUnicode_FromString (model->time_unit ? model->time_unit : "");
      ok = u && PyDict_SetItemString (units, "t", u) == 0;
      Py_XDECREF (u);
    }
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  for (guint k = 0; ok && k < report->len; k++)
    {
      PyObject *s = PyUnicode_FromString (report->pdata[k]);
      ok = s && PyList_Append (notes, s) == 0;
      Py_XDECREF (s);
    }
  gboolean fixed = cml_integrator_kind_is_fixed_step (io->kind);
#define PUT(key, value) \
  if (ok) { PyObject *v_ = (value); ok = v_ && PyDict_SetItemString (meta, key, v_) == 0; Py_XDECREF (v_); }
  PUT ("model", PyUnicode_FromString (model->name));
  PUT ("title", PyUnicode_FromString (model->title_untranslated ? model->title_untranslated : model->name));
  PUT ("parameters", cml_py_parameters_dict (sim));
  PUT ("initial", Py_NewRef (initial));
  PUT ("initial_state", Py_NewRef ((PyObject *) z0));
  PUT ("t_start", PyFloat_FromDouble (t0));
  PUT ("t_end", PyFloat_FromDouble (rq->t_end));
  PUT ("dt_out", PyFloat_FromDouble (dt_out));
  PUT ("integrator", PyUnicode_FromString (described));
  PUT ("method", PyUnicode_FromString (cml_integrator_kind_to_string (io->kind)));
  PUT ("rtol", fixed ? Py_NewRef (Py_None) : PyFloat_FromDouble (io->rtol));
  PUT ("atol", fixed ? Py_NewRef (Py_None) : PyFloat_FromDouble (io->atol));
  PUT ("step", fixed ? PyFloat_FromDouble (io->h_fixed) : Py_NewRef (Py_None));
  PUT ("columns", Py_NewRef (cols));
  PUT ("units", Py_NewRef (units));
  PUT ("notes", Py_NewRef (notes));
  PUT ("version", PyUnicode_FromString (CMLAB_VERSION));
#undef PUT
  Py_XDECREF (initial);
  Py_XDECREF (units);
  Py_XDECREF (cols);
  Py_XDECREF (notes);
  if (!ok)
    Py_CLEAR (meta);
  return meta;
}

/* One row into the arrays: t and the columns at SIM's state. */
static inline void
put_row (CmlSimulation *sim, double *obs, const int *idx, guint n_cols, double **data, npy_intp row)
{
  cml_simulation_observe (sim, obs);
  data[0][row] = cml_simulation_get_time (sim);
  for (guint c = 0; c < n_cols; c++)
    data[1 + c][row] = obs[idx[c]];
}

PyObject *
cml_py_model_simulate (CmlPyModel *self, PyObject *args, PyObject *kwargs)
{
  Request rq = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  PyObject *result = NULL, *meta = NULL;
  PyArrayObject **arrays = NULL;
  guint n_cols = 0;
  int *idx = NULL;        /* the columns' observables */
  double **data = NULL;   /* the arrays' numbers */
  double *obs = NULL;     /* every observable at a state */

  if (!parse_request (args, kwargs, &rq))
    goto out;
  /* from T0 (0 unless t_start) to T, backwards when T < T0; without dt_out a thousand rows
   * after the first */
  const double t0 = rq.has_t_start ? rq.t_start : 0.0, span = fabs (rq.t_end - t0);
  const double dir = rq.t_end < t0 ? -1.0 : 1.0;
  const double dt_out = rq.has_dt_out ? rq.dt_out : span > 0 ? span / 1000 : 1.0;
  const double n_rows_d = floor (span / dt_out * (1 + 1e-12));
  if (n_rows_d + 2 > MAX_ROWS)
    {
      cml_py_raise_printf ("simulate: t_end %g and dt_out %g ask for %.3g rows, more than 10^8: use a larger dt_out",
                           rq.t_end, dt_out, n_rows_d + 2);
      goto out;
    }
  const guint64 n_rows = (guint64) n_rows_d;

  /* the run, set up as `cmlab-cli simulate` sets it up; what the integrator derives from
   * the model's expressions is derived now, before other threads run this system */
  cml_system_prepare (self->sys, rq.ro.iopt.kind);
  if ((sim = cml_py_model_new_simulation (self)) == NULL)
    goto out;
  if (!cml_simulation_set_integrator (sim, &rq.ro.iopt, &error))
    {
      cml_py_raise (error, "the integrator could not be set");
      goto out;
    }
  if (!cml_simulation_reset_at (sim, t0, rq.ro.given, &error))
    {
      cml_py_raise (error, "the initial state could not be used");
      goto out;
    }
  /* a span the integrator cannot cover (t_end = 1e308), probed from T0 as cmlab-cli probes
   * it; the probe puts the simulation back at its start */
  if (t0 != 0.0)
    cml_simulation_set_state (sim, t0, cml_simulation_get_state (sim));
  if (!cml_py_check_span (sim, rq.ro.given, rq.t_end, "simulate"))
    goto out;
  if (t0 != 0.0)
    cml_simulation_set_state (sim, t0, cml_simulation_get_state (sim));

  /* the columns */
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *model = cml_system_get_model (sys);
  const char *const *columns = rq.columns ? (const char *const *) rq.columns->pdata : (const char *const *) model->columns;
  n_cols = g_strv_length ((char **) columns);
  idx = g_new (int, n_cols + 1);
  if (!cml_py_observables (sys, columns, "simulate", idx))
    goto out;

  /* the arrays, one per column, and the metadata */
  npy_intp capacity = (npy_intp) n_rows + 2, dim = cml_system_dim (sys);
  arrays = g_new0 (PyArrayObject *, n_cols + 1);
  data = g_new (double *, n_cols + 1);
  for (guint c = 0; c <= n_cols; c++)
    {
      if ((arrays[c] = (PyArrayObject *) PyArray_SimpleNew (1, &capacity, NPY_DOUBLE)) == NULL)
        goto out;
      data[c] = PyArray_DATA (arrays[c]);
    }
  PyArrayObject *z0 = (PyArrayObject *) PyArray_SimpleNew (1, &dim, NPY_DOUBLE);
  if (z0 == NULL)
    goto out;
  memcpy (PyArray_DATA (z0), cml_simulation_get_state (sim), dim * sizeof (double));
  meta = make_meta (sim, &rq, t0, dt_out, columns, z0);
  Py_DECREF (z0);
  if (meta == NULL)
    goto out;
  const GPtrArray *report = cml_simulation_get_projection_report (sim);
  for (guint k = 0; k < report->len; k++)
    if (PyErr_WarnFormat (PyExc_UserWarning, 1, "%s", (char *) report->pdata[k]) < 0)
      goto out;

  /* rows at t = T0, T0 ± H, T0 ± 2H, … and a last one at T; without the GIL, which is
   * taken back between two rows only to see whether a signal (Ctrl-C) came */
  obs = g_new (double, cml_system_n_observables (sys) + 1);
  npy_intp row = 0;
  gboolean ok = TRUE, interrupted = FALSE;
  PyThreadState *ts = PyEval_SaveThread ();
  put_row (sim, obs, idx, n_cols, data, row++);
  for (guint64 k = 1; ok && k <= n_rows; k++)
    {
      double tk = t0 + dir * (double) k * dt_out;
      if (dir * (tk - rq.t_end) > 0)
        tk = rq.t_end;
      ok = cml_simulation_advance (sim, tk, &error);
      if (ok)
        put_row (sim, obs, idx, n_cols, data, row++);
      PyEval_RestoreThread (ts);
      interrupted = PyErr_CheckSignals () < 0;
      ts = PyEval_SaveThread ();
      if (interrupted)
        break;
    }
  if (ok && !interrupted && cml_simulation_get_time (sim) != rq.t_end)
    {
      ok = cml_simulation_advance (sim, rq.t_end, &error);
      if (ok)
        put_row (sim, obs, idx, n_cols, data, row++);
    }
  PyEval_RestoreThread (ts);
  if (interrupted)
    goto out;
  if (!ok)
    {
      cml_py_raise_printf ("run failed: %s", error->message);
      goto out;
    }

  /* the result: the arrays cut to the rows written */
  if ((result = cml_py_result_new (meta)) == NULL)
    goto out;
  for (guint c = 0; c <= n_cols; c++)
    {
      PyArray_Dims shape = { &row, 1 };
      PyObject *r = row < capacity ? PyArray_Resize (arrays[c], &shape, 0, NPY_CORDER) : Py_NewRef (Py_None);
      if (r == NULL || PyDict_SetItemString (result, c == 0 ? "t" : columns[c - 1], (PyObject *) arrays[c]) < 0)
        {
          Py_XDECREF (r);
          Py_CLEAR (result);
          goto out;
        }
      Py_DECREF (r);
    }

out:
  for (guint c = 0; arrays && c <= n_cols; c++)
    Py_XDECREF (arrays[c]);
  g_free (arrays);
  g_free (idx);
  g_free (data);
  g_free (obs);
  Py_XDECREF (meta);
  request_clear (&rq);
  return result;
}
