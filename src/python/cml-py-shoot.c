/* cml-py-shoot.c — Model.shoot(): the normal extremal of a vakonomic system that reaches
 * given targets at a given time, its conjugate times, and its run as NumPy arrays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The same calls as `cmlab-cli shoot` (src/cli/cml-shoot-cmd.c) in the same order:
 * cml_shoot finds the initial momenta (Newton's method on the exact sensitivity ∂z(T)/∂p(0),
 * then continuation in the target; doc/theory.md §13) and leaves the simulation at the
 * state found, which is then run to T with a row every dt_out — the rows `cmlab-cli shoot`
 * writes, bit for bit.  The exact Jacobian the shooting needs is derived beforehand, with
 * the GIL held; the shooting and the run go on without it.
 */
#define G_LOG_DOMAIN "cml-py-shoot"

#include "cml-py-private.h"

#include <math.h>

#include "cml-error.h"
#include "cml-model.h"
#include "cml-shoot.h"

const char cml_py_shoot_doc[] =
"shoot($self, /, t_end, targets, dt_out=None, columns=None, init=None, integrator=None, rtol=None, atol=None, max_iterations=None)\n--\n\n"
"For a vakonomic model (an optimal control problem): the initial momenta whose\n"
"extremal, from the initial state (init over the model's), reaches the targets at\n"
"t_end — targets {name: value} of base coordinates or reconstruction variables —\n"
"found by Newton's method on the exact variational equations, then continuation\n"
"in the target; and the conjugate times along it.  Returns the run of that\n"
"extremal, a row every dt_out (default t_end/100), as simulate() returns a run:\n"
"the rows `cmlab-cli shoot` writes, bit for bit.  .meta adds 'momenta' (name ->\n"
"p(0) found), 'residual' (|targets reached - targets| at the run's end, as\n"
"cmlab-cli reports it; 'newton_residual' the Newton iteration's), 'iterations',\n"
"'continuation_used', 'conjugate_times' (an array), 'conjugate_note' (why none\n"
"were computed, or None), 'at_rest', 'degenerate'.  Raises cmlab.Error when the\n"
"targets cannot be reached (the\n"
"message says how far it got and what to try).";

PyObject *
cml_py_model_shoot (CmlPyModel *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "t_end", "targets", "dt_out", "columns", "init", "integrator", "rtol", "atol",
                            "max_iterations", NULL };
  PyObject *t_end_obj, *targets_obj, *dt_out_obj = NULL, *columns_obj = NULL, *init = NULL, *integrator = NULL,
           *rtol = NULL, *atol = NULL, *max_it_obj = NULL;
  CmlPyRunOptions ro = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) target_names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) target_values = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GPtrArray) names = NULL;
  g_autoptr (CmlSimulation) sim = NULL;
  g_autoptr (CmlShootResult) res = NULL;
  CmlModel *model = cml_system_get_model (self->sys);
  PyObject *result = NULL, *meta = NULL, *items = NULL;
  PyArrayObject **arrays = NULL;
  guint n_cols = 0;
  int *idx = NULL;
  double *obs = NULL;
  double **data = NULL; /* the arrays' numbers */
  char *described = NULL;
  double t_end = 0, dt_out = 0, max_it = 0;
  gboolean has, has_dt_out, has_max_it;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "OO|OOOOOOO:shoot", kwlist, &t_end_obj, &targets_obj, &dt_out_obj,
                                    &columns_obj, &init, &integrator, &rtol, &atol, &max_it_obj))
    return NULL;
  if (!cml_py_optional_number (t_end_obj, "shoot", "t_end", &t_end, &has)
      || !cml_py_optional_number (dt_out_obj, "shoot", "dt_out", &dt_out, &has_dt_out)
      || !cml_py_optional_number (max_it_obj, "shoot", "max_iterations", &max_it, &has_max_it))
    goto out;
  if (!(t_end > 0 && isfinite (t_end)))
    {
      cml_py_raise_printf ("shoot: t_end needs a number > 0, not %g", t_end);
      goto out;
    }
  if (has_dt_out && !(dt_out > 0 && isfinite (dt_out)))
    {
      cml_py_raise_printf ("shoot: dt_out needs a number > 0, not %g", dt_out);
      goto out;
    }
  if (!has_dt_out)
    dt_out = t_end / 100;
  if (floor (t_end / dt_out * (1 + 1e-12)) + 2 > 1e8)
    {
      cml_py_raise_printf ("shoot: t_end %g and dt_out %g ask for more than 10^8 rows: use a larger dt_out", t_end,
                           dt_out);
      goto out;
    }
  if (has_max_it && !(max_it >= 1 && max_it <= 1e6 && max_it == floor (max_it)))
    {
      cml_py_raise_printf ("shoot: max_iterations takes a whole number from 1 to 10^6, not %g", max_it);
      goto out;
    }
  /* targets: {name: number} */
  items = PyDict_Check (targets_obj) ? PyDict_Items (targets_obj) : NULL;
  if (items == NULL || PyList_GET_SIZE (items) == 0)
    {
      cml_py_raise_printf ("shoot: targets takes {name: number}, e.g. {'x1': 1.0, 'x2': 0.5}");
      goto out;
    }
  for (Py_ssize_t k = 0; k < PyList_GET_SIZE (items); k++)
    {
      PyObject *key = PyTuple_GET_ITEM (PyList_GET_ITEM (items, k), 0);
      PyObject *value = PyTuple_GET_ITEM (PyList_GET_ITEM (items, k), 1);
      const char *name = PyUnicode_Check (key) ? PyUnicode_AsUTF8 (key) : NULL;
      double v = name ? PyFloat_AsDouble (value) : -1.0;
      if (name == NULL || (v == -1.0 && PyErr_Occurred ()) || !isfinite (v))
        {
          PyErr_Clear ();
          PyErr_Format (cml_py_error, "shoot: targets takes {name: finite number}, not %R: %R", key, value);
          goto out;
        }
      g_ptr_array_add (target_names, g_strdup (name));
      g_array_append_val (target_values, v);
    }
  g_ptr_array_add (target_names, NULL);
  if (!cml_py_run_options_parse (&ro, "shoot", init, integrator, rtol, atol, NULL))
    goto out;
  if (columns_obj && columns_obj != Py_None)
    {
      if ((names = cml_py_names (columns_obj, "shoot", "columns")) == NULL)
        goto out;
    }
  else
    {
      names = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; model->columns && model->columns[k]; k++)
        g_ptr_array_add (names, g_strdup (model->columns[k]));
      g_ptr_array_add (names, NULL);
    }
  n_cols = names->len - 1;
  idx = g_new (int, n_cols + 1);
  if (!cml_py_observables (self->sys, (const char *const *) names->pdata, "shoot", idx))
    goto out;

  /* as `cmlab-cli shoot`: the simulation, its integrator, the initial data; the exact
   * Jacobian and what the integrator derives, derived now */
  cml_system_prepare (self->sys, CML_INTEGRATOR_MSBDF);
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
  if (!cml_py_check_span (sim, ro.given, t_end, "shoot"))
    goto out;
  CmlShootOptions sopt = cml_shoot_options_default ();
  if (has_max_it)
    sopt.max_iterations = (guint) max_it;
  Py_BEGIN_ALLOW_THREADS
  res = cml_shoot (sim, t_end, target_values->len, (const char *const *) target_names->pdata,
                   (const double *) target_values->data, &sopt, &error);
  Py_END_ALLOW_THREADS
  if (res == NULL)
    {
      gboolean usage = error->domain == CML_ERROR && error->code == CML_ERROR_USAGE;
      cml_py_raise_printf ("%s%s", usage ? "shoot: " : "shooting failed: ", error->message);
      goto out;
    }

  /* the run from the momenta found, as `cmlab-cli shoot` writes it */
  npy_intp capacity = (npy_intp) floor (t_end / dt_out * (1 + 1e-12)) + 2, row = 0;
  arrays = g_new0 (PyArrayObject *, n_cols + 1);
  data = g_new (double *, n_cols + 1);
  for (guint c = 0; c <= n_cols; c++)
    {
      if ((arrays[c] = (PyArrayObject *) PyArray_SimpleNew (1, &capacity, NPY_DOUBLE)) == NULL)
        goto out;
      data[c] = PyArray_DATA (arrays[c]);
    }
  obs = g_new (double, cml_system_n_observables (self->sys) + 1);
  guint64 n_rows = (guint64) floor (t_end / dt_out * (1 + 1e-12));
  gboolean ok = TRUE;
  Py_BEGIN_ALLOW_THREADS
#define ROW()                                                  \
  do {                                                         \
      cml_simulation_observe (sim, obs);                       \
      data[0][row] = cml_simulation_get_time (sim);            \
      for (guint c = 0; c < n_cols; c++)                       \
        data[1 + c][row] = obs[idx[c]];                        \
      row++;                                                   \
  } while (0)
  ROW ();
  for (guint64 k = 1; ok && k <= n_rows; k++)
    {
      double tk = MIN ((double) k * dt_out, t_end);
      if ((ok = cml_simulation_advance (sim, tk, &error)))
        ROW ();
    }
  if (ok && cml_simulation_get_time (sim) != t_end && (ok = cml_simulation_advance (sim, t_end, &error)))
    ROW ();
#undef ROW
  Py_END_ALLOW_THREADS
  if (!ok)
    {
      cml_py_raise_printf ("run failed: %s", error->message);
      goto out;
    }

  /* the residual of the rows: ‖z_targets(T) − targets‖₂ at the run's end, as `cmlab-cli
   * shoot` reports it (the Newton iteration's own is newton_residual) */
  double r2 = 0;
  const double *z = cml_simulation_get_state (sim);
  for (guint k = 0; k < target_values->len; k++)
    for (guint i = 0; i < cml_system_dim (self->sys); i++)
      if (g_str_equal (cml_system_state_name (self->sys, i), target_names->pdata[k]))
        r2 += (z[i] - g_array_index (target_values, double, k)) * (z[i] - g_array_index (target_values, double, k));

  /* the metadata: the run's, and the shooting's */
  described = cml_integrator_options_describe (cml_simulation_get_integrator (sim));
  PyObject *momenta = PyDict_New ();
  for (guint j = 0; momenta && j < res->n_momenta; j++)
    {
      PyObject *v = PyFloat_FromDouble (res->momenta[j]);
      if (v == NULL || PyDict_SetItemString (momenta, res->momentum_names[j], v) < 0)
        Py_CLEAR (momenta);
      Py_XDECREF (v);
    }
  npy_intp n_conj = res->conjugate_times->len;
  PyArrayObject *conj = (PyArrayObject *) PyArray_SimpleNew (1, &n_conj, NPY_DOUBLE);
  if (conj && n_conj > 0)
    memcpy (PyArray_DATA (conj), res->conjugate_times->data, n_conj * sizeof (double));
  meta = PyDict_New ();
  if (meta == NULL)
    {
      Py_XDECREF (momenta);
      Py_XDECREF ((PyObject *) conj);
      goto out;
    }
  PyObject *entries[][2] = {
    { PyUnicode_FromString ("model"), PyUnicode_FromString (model->name) },
    { PyUnicode_FromString ("parameters"), cml_py_parameters_dict (sim) },
    { PyUnicode_FromString ("t_end"), PyFloat_FromDouble (t_end) },
    { PyUnicode_FromString ("dt_out"), PyFloat_FromDouble (dt_out) },
    { PyUnicode_FromString ("integrator"), PyUnicode_FromString (described) },
    { PyUnicode_FromString ("momenta"), momenta },
    { PyUnicode_FromString ("residual"), PyFloat_FromDouble (sqrt (r2)) },
    { PyUnicode_FromString ("newton_residual"), PyFloat_FromDouble (res->residual) },
    { PyUnicode_FromString ("iterations"), PyLong_FromUnsignedLong (res->iterations) },
    { PyUnicode_FromString ("continuation_used"), PyBool_FromLong (res->continuation_used) },
    { PyUnicode_FromString ("conjugate_times"), (PyObject *) conj },
    { PyUnicode_FromString ("conjugate_rows"),
      res->conjugate_rows ? PyUnicode_FromString (res->conjugate_rows) : Py_NewRef (Py_None) },
    { PyUnicode_FromString ("conjugate_note"),
      res->conjugate_note ? PyUnicode_FromString (res->conjugate_note) : Py_NewRef (Py_None) },
    { PyUnicode_FromString ("at_rest"), PyBool_FromLong (res->at_rest) },
    { PyUnicode_FromString ("degenerate"), PyBool_FromLong (res->degenerate) },
    { PyUnicode_FromString ("version"), PyUnicode_FromString (CMLAB_VERSION) },
  };
  gboolean built = TRUE;
  for (guint k = 0; k < G_N_ELEMENTS (entries); k++)
    {
      built = built && entries[k][0] && entries[k][1] && PyDict_SetItem (meta, entries[k][0], entries[k][1]) == 0;
      Py_XDECREF (entries[k][0]);
      Py_XDECREF (entries[k][1]);
    }
  if (!built || (result = cml_py_result_new (meta)) == NULL)
    goto out;
  for (guint c = 0; c <= n_cols; c++)
    {
      PyArray_Dims shape = { &row, 1 };
      PyObject *r = row < capacity ? PyArray_Resize (arrays[c], &shape, 0, NPY_CORDER) : Py_NewRef (Py_None);
      if (r == NULL || PyDict_SetItemString (result, c == 0 ? "t" : names->pdata[c - 1], (PyObject *) arrays[c]) < 0)
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
  g_free (data);
  g_free (idx);
  g_free (obs);
  g_free (described);
  Py_XDECREF (items);
  Py_XDECREF (meta);
  cml_py_run_options_clear (&ro);
  return result;
}
