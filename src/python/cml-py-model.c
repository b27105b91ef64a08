/* cml-py-model.c — cmlab.Model: a model file loaded and its equations derived, for Python.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * load() reads the model (a built-in name or a file), derives its system and makes a
 * simulation with the parameters given, as `cmlab-cli` does (cml-cli-common.c,
 * cml_cli_open_simulation): each value checked alone, then all of them together.  A Model
 * answers info() (what the system is, with the conserved-quantity inspector's verdicts),
 * rhs() and jacobian() at any time and state (the evaluation the integrators make:
 * cml_simulation_eval_rhs_at, cml_simulation_eval_jacobian_at) and equations() (the text of
 * `cmlab-cli info --format latex|sympy|json`).  Its runs are cml-py-simulate.c's.
 * All of it runs with the GIL held: the model's expressions are built by one thread at a
 * time.
 */
#define G_LOG_DOMAIN "cml-py-model"

#include "cml-py-private.h"

#include <math.h>

#include "cml-conserved.h"
#include "cml-equations-export.h"
#include "cml-error.h"
#include "cml-model.h"

/* ---- loading ---------------------------------------------------------------------------- */

CmlSimulation *
cml_py_model_new_simulation (CmlPyModel *self)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (self->sys, &error);

  if (sim == NULL)
    {
      cml_py_raise (error, "the simulation could not be made");
      return NULL;
    }
  /* the values given, in the order given (as --set applies them) */
  for (guint k = 0; k < self->set_names->len; k++)
    if (!cml_simulation_set_param (sim, self->set_names->pdata[k], g_array_index (self->set_values, double, k),
                                   &error))
      {
        cml_py_raise (error, "bad parameter");
        return NULL;
      }
  return g_steal_pointer (&sim);
}

PyObject *
cml_py_parameters_dict (CmlSimulation *sim)
{
  CmlModel *model = cml_system_get_model (cml_simulation_get_system (sim));
  PyObject *d = PyDict_New ();

  for (guint k = 0; d && k < model->params->len; k++)
    {
      const char *name = ((CmlParam *) model->params->pdata[k])->name;
      PyObject *v = PyFloat_FromDouble (cml_simulation_get_param (sim, name));
      if (v == NULL || PyDict_SetItemString (d, name, v) < 0)
        Py_CLEAR (d);
      Py_XDECREF (v);
    }
  return d;
}

/* The parameters' values of SELF, model order, into a new array. */
static double *
model_params (CmlPyModel *self)
{
  CmlModel *model = cml_system_get_model (self->sys);
  double *params = g_new (double, model->params->len + 1);

  for (guint k = 0; k < model->params->len; k++)
    params[k] = cml_simulation_get_param (self->eval, ((CmlParam *) model->params->pdata[k])->name);
  return params;
}

PyObject *
cml_py_model_load (const char *name, PyObject *kwargs)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  PyObject *key, *value;
  Py_ssize_t pos = 0;

  if (model == NULL)
    return cml_py_raise (error, "the model could not be loaded");
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  if (sys == NULL)
    return cml_py_raise (error, "the equations could not be derived");
  /* what `cmlab-cli` prints as "warning: …" */
  const GPtrArray *warnings = cml_system_get_warnings (sys);
  for (guint k = 0; k < warnings->len; k++)
    if (PyErr_WarnEx (PyExc_UserWarning, warnings->pdata[k], 1) < 0)
      return NULL;

  CmlPyModel *self = PyObject_New (CmlPyModel, &CmlPyModel_Type);
  if (self == NULL)
    return NULL;
  self->sys = g_steal_pointer (&sys);
  self->eval = NULL;
  self->set_names = g_ptr_array_new_with_free_func (g_free);
  self->set_values = g_array_new (FALSE, FALSE, sizeof (double));
  while (kwargs && PyDict_Next (kwargs, &pos, &key, &value))
    {
      const char *pname = PyUnicode_AsUTF8 (key);
      double v = PyFloat_AsDouble (value);
      if (pname == NULL || (v == -1.0 && PyErr_Occurred ()))
        {
          if (PyErr_ExceptionMatches (PyExc_TypeError))
            {
              PyErr_Clear ();
              PyErr_Format (cml_py_error, "the parameter %s takes a number, not %R", pname ? pname : "?", value);
            }
          Py_DECREF (self);
          return NULL;
        }
      if (!isfinite (v))
        {
          Py_DECREF (self);
          return cml_py_raise_printf ("the parameter %s takes a finite number, not %g", pname, v);
        }
      g_ptr_array_add (self->set_names, g_strdup (pname));
      g_array_append_val (self->set_values, v);
    }
  if ((self->eval = cml_py_model_new_simulation (self)) == NULL)
    {
      Py_DECREF (self);
      return NULL;
    }
  /* the values together are possible (each was checked alone above) */
  g_autofree double *values = model_params (self);
  if (!cml_model_check_params (model, values, &error))
    {
      Py_DECREF (self);
      return cml_py_raise (error, "the parameters are not possible together");
    }
  return (PyObject *) self;
}

static void
model_dealloc (CmlPyModel *self)
{
  g_clear_pointer (&self->eval, cml_simulation_free);
  g_clear_pointer (&self->sys, cml_system_unref);
  g_clear_pointer (&self->set_names, g_ptr_array_unref);
  g_clear_pointer (&self->set_values, g_array_unref);
  PyObject_Free (self);
}

static PyObject *
model_repr (CmlPyModel *self)
{
  return PyUnicode_FromFormat ("<cmlab.Model %s>", cml_system_get_model (self->sys)->name);
}

/* ---- info ------------------------------------------------------------------------------- */

/* SET[NAME] = VALUE (stolen); FALSE on failure. */
static gboolean
put (PyObject *d, const char *name, PyObject *value)
{
  int r = value ? PyDict_SetItemString (d, name, value) : -1;
  Py_XDECREF (value);
  return r == 0;
}

static PyObject *
string_list (guint n, const char *(*get) (const CmlSystem *, guint), const CmlSystem *sys)
{
  PyObject *list = PyList_New (n);
  for (guint i = 0; list && i < n; i++)
    {
      PyObject *s = PyUnicode_FromString (get (sys, i));
      if (s == NULL)
        Py_CLEAR (list);
      else
        PyList_SET_ITEM (list, i, s);
    }
  return list;
}

static const char *
verdict_name (CmlConservedVerdict v)
{
  switch (v)
    {
    case CML_CONSERVED_EXACTLY: return "exactly";
    case CML_CONSERVED_TO_ROUNDING: return "to-rounding";
    case CML_CONSERVED_NOT: return "not";
    case CML_CONSERVED_UNDECIDED: default: return "undecided";
    }
}

static PyObject *
conserved_list (const CmlConservedReport *report)
{
  PyObject *list = PyList_New (0);

  for (guint k = 0; list && k < report->candidates->len; k++)
    {
      const CmlConservedCandidate *c = report->candidates->pdata[k];
      PyObject *d = PyDict_New ();
      if (d == NULL
          || !put (d, "name", PyUnicode_FromString (c->name))
          || !put (d, "what", PyUnicode_FromString (c->what ? c->what : ""))
          || !put (d, "formula", PyUnicode_FromString (c->formula ? c->formula : ""))
          || !put (d, "verdict", PyUnicode_FromString (verdict_name (c->verdict)))
          || !put (d, "conserved", PyBool_FromLong (cml_conserved_verdict_is_conserved (c->verdict)))
          || !put (d, "reason", PyUnicode_FromString (c->reason ? c->reason : ""))
          || !put (d, "declared", PyBool_FromLong (c->declared))
          || !put (d, "contradiction", PyBool_FromLong (c->contradiction))
          || PyList_Append (list, d) < 0)
        Py_CLEAR (list);
      Py_XDECREF (d);
    }
  return list;
}

PyDoc_STRVAR (info_doc,
"info($self, /)\n--\n\n"
"What the model is, as a dict:\n"
"  'name', 'title'   the model's name and title\n"
"  'kind'            the formalism: 'euler-lagrange', 'nonholonomic', 'vakonomic' or\n"
"                    'singular'; 'formalism' says it in words\n"
"  'state'           the state's names, in the order rhs() and jacobian() take them\n"
"  'observables'     every quantity simulate(columns=…) can give\n"
"  'columns'         the columns simulate() gives by default\n"
"  'parameters'      name -> value (the model's defaults with load()'s values)\n"
"  'units'           name -> unit, for the state, the observables, the parameters\n"
"                    and 't' (time)\n"
"  'lie_algebroid'   whether the structure equations of a Lie algebroid hold\n"
"  'warnings'        what cmlab-cli prints as warnings\n"
"  'conserved'       the conserved-quantity inspector's candidates, each a dict:\n"
"                    'name', 'what', 'formula', 'verdict' ('exactly', 'to-rounding',\n"
"                    'not', 'undecided'), 'conserved' (bool), 'reason', 'declared',\n"
"                    'contradiction'\n"
"  'description'     the readable account `cmlab-cli info` prints: the\n"
"                    equations derived and the conserved quantities' verdicts");

static PyObject *
model_info (CmlPyModel *self, PyObject *unused)
{
  CmlSystem *sys = self->sys;
  CmlModel *model = cml_system_get_model (sys);
  const char *kinds[] = { "euler-lagrange", "nonholonomic", "vakonomic", "singular" };
  CmlFormalism f = cml_system_get_formalism (sys);
  PyObject *d = PyDict_New ();
  PyObject *units = PyDict_New (), *columns = PyList_New (0), *warnings = PyList_New (0);
  gboolean ok = d && units && columns && warnings;

  /* units: every name the model gives one, and time */
  if (ok && model->units)
    {
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, model->units);
      while (ok && g_hash_table_iter_next (&it, &k, &v))
        ok = put (units, k, PyUnicode_FromString (v));
    }
  for (guint k = 0; ok && model->params && k < model->params->len; k++)
    {
      const CmlParam *p = g_ptr_array_index (model->params, k);
      if (p->unit && *p->unit)
        ok = put (units, p->name, PyUnicode_FromString (p->unit));
    }
  if (ok)
    ok = put (units, "t", PyUnicode_FromString (model->time_unit ? model->time_unit : ""));
  for (guint k = 0; ok && model->columns && model->columns[k]; k++)
    {
      PyObject *s = PyUnicode_FromString (model->columns[k]);
      ok = s && PyList_Append (columns, s) == 0;
      Py_XDECREF (s);
    }
  const GPtrArray *w = cml_system_get_warnings (sys);
  for (guint k = 0; ok && k < w->len; k++)
    {
      PyObject *s = PyUnicode_FromString (w->pdata[k]);
      ok = s && PyList_Append (warnings, s) == 0;
      Py_XDECREF (s);
    }
  if (ok)
    {
      /* the inspector judges at the parameters' values, as `cmlab-cli info` */
      g_autofree double *params = model_params (self);
      g_autoptr (CmlConservedReport) report = cml_conserved_inspect_at (sys, params);
      g_autofree char *equations = cml_system_describe_readable_equations (sys);
      g_autofree char *verdicts = cml_conserved_report_to_text (report);
      g_autofree char *description = g_strconcat (equations, "\n", verdicts, NULL);
      ok = put (d, "name", PyUnicode_FromString (model->name))
           && put (d, "title", PyUnicode_FromString (model->title_untranslated ? model->title_untranslated : model->name))
           && put (d, "kind", PyUnicode_FromString ((guint) f < G_N_ELEMENTS (kinds) ? kinds[f] : "unknown"))
           && put (d, "formalism", PyUnicode_FromString (cml_formalism_to_string (f)))
           && put (d, "state", string_list (cml_system_dim (sys), cml_system_state_name, sys))
           && put (d, "observables", string_list (cml_system_n_observables (sys), cml_system_observable_name, sys))
           && put (d, "columns", Py_NewRef (columns))
           && put (d, "parameters", cml_py_parameters_dict (self->eval))
           && put (d, "units", Py_NewRef (units))
           && put (d, "lie_algebroid", PyBool_FromLong (cml_system_is_lie_algebroid (sys)))
           && put (d, "warnings", Py_NewRef (warnings))
           && put (d, "conserved", conserved_list (report))
           && put (d, "description", PyUnicode_FromString (description));
    }
  Py_XDECREF (units);
  Py_XDECREF (columns);
  Py_XDECREF (warnings);
  if (!ok)
    Py_CLEAR (d);
  return d;
}

/* ---- right-hand side and Jacobian ------------------------------------------------------- */

/* T and STATE (any sequence of numbers, the system's dimension) from ARGS; NULL with an
 * exception set.  The array returned is C-contiguous float64. */
static PyArrayObject *
time_and_state (CmlPyModel *self, PyObject *args, PyObject *kwargs, const char *fname, double *t)
{
  static char *kwlist[] = { "t", "state", NULL };
  PyObject *state_obj;
  g_autofree char *format = g_strdup_printf ("dO:%s", fname);

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, format, kwlist, t, &state_obj))
    return NULL;
  PyArrayObject *z = (PyArrayObject *) PyArray_FROMANY (state_obj, NPY_DOUBLE, 1, 1, NPY_ARRAY_IN_ARRAY);
  if (z == NULL)
    return NULL;
  guint dim = cml_system_dim (self->sys);
  if (PyArray_DIM (z, 0) != (npy_intp) dim)
    {
      g_autoptr (GString) names = g_string_new (NULL);
      for (guint i = 0; i < dim; i++)
        g_string_append_printf (names, "%s%s", i ? ", " : "", cml_system_state_name (self->sys, i));
      Py_DECREF (z);
      PyErr_Format (cml_py_error, "%s: the state of %s has %u values (%s), not %zd", fname,
                    cml_system_get_model (self->sys)->name, dim, names->str, (Py_ssize_t) PyArray_DIM (z, 0));
      return NULL;
    }
  return z;
}

PyDoc_STRVAR (rhs_doc,
"rhs($self, /, t, state)\n--\n\n"
"The right-hand side f(t, z) of the equations of motion dz/dt = f(t, z): the time\n"
"derivative of every state variable (in the order of info()['state']) at time t and\n"
"state z, with the model's parameters — the evaluation the integrators make (and\n"
"`cmlab-cli rhs`), bit for bit.  Raises cmlab.Error where it cannot be evaluated\n"
"(a matrix to invert is singular there).");

static PyObject *
model_rhs (CmlPyModel *self, PyObject *args, PyObject *kwargs)
{
  g_autoptr (GError) error = NULL;
  double t;
  PyArrayObject *z = time_and_state (self, args, kwargs, "rhs", &t);

  if (z == NULL)
    return NULL;
  npy_intp dim = PyArray_DIM (z, 0);
  PyArrayObject *f = (PyArrayObject *) PyArray_SimpleNew (1, &dim, NPY_DOUBLE);
  if (f == NULL)
    {
      Py_DECREF (z);
      return NULL;
    }
  gboolean ok = cml_simulation_eval_rhs_at (self->eval, t, PyArray_DATA (z), PyArray_DATA (f), &error);
  Py_DECREF (z);
  if (!ok)
    {
      Py_DECREF (f);
      return cml_py_raise (error, "the right-hand side could not be evaluated");
    }
  return (PyObject *) f;
}

PyDoc_STRVAR (jacobian_doc,
"jacobian($self, /, t, state)\n--\n\n"
"The exact Jacobian ∂f/∂z of the right-hand side at time t and state z, as an\n"
"n × n array J with J[i, j] = ∂f_i/∂z_j (the state in the order of\n"
"info()['state']): derived symbolically from the equations, no finite differences,\n"
"as the implicit integrators (msbdf, implicit-midpoint) take it.  Raises\n"
"cmlab.Error for a system without one (too large to differentiate exactly, or\n"
"with velocities solved by Newton's method).");

static PyObject *
model_jacobian (CmlPyModel *self, PyObject *args, PyObject *kwargs)
{
  g_autoptr (GError) error = NULL;
  double t;
  PyArrayObject *z = time_and_state (self, args, kwargs, "jacobian", &t);

  if (z == NULL)
    return NULL;
  npy_intp dims[2] = { PyArray_DIM (z, 0), PyArray_DIM (z, 0) };
  PyArrayObject *j = (PyArrayObject *) PyArray_SimpleNew (2, dims, NPY_DOUBLE);
  g_autofree double *dfdt = g_new (double, dims[0] + 1);
  if (j == NULL)
    {
      Py_DECREF (z);
      return NULL;
    }
  /* derived here, with the GIL held, before any run of this system can want it */
  cml_system_prepare (self->sys, CML_INTEGRATOR_MSBDF);
  gboolean ok = cml_simulation_eval_jacobian_at (self->eval, t, PyArray_DATA (z), PyArray_DATA (j), dfdt, &error);
  Py_DECREF (z);
  if (!ok)
    {
      Py_DECREF (j);
      return cml_py_raise (error, "the Jacobian could not be evaluated");
    }
  return (PyObject *) j;
}

/* ---- the equations ---------------------------------------------------------------------- */

PyDoc_STRVAR (equations_doc,
"equations($self, /, format='latex')\n--\n\n"
"The derived equations of motion for other programs, with the model's parameter\n"
"values: format 'latex' (amsmath align* blocks to \\input into a document), 'sympy'\n"
"(a Python script that builds the expressions with SymPy: exec it and read 'state',\n"
"'parameters', 'rhs', 'shared', …) or 'json'.  The same text as\n"
"`cmlab-cli info MODEL --format FORMAT`; the manual page cmlab-cli(1) describes each.");

static PyObject *
model_equations (CmlPyModel *self, PyObject *args, PyObject *kwargs)
{
  static char *kwlist[] = { "format", NULL };
  const char *format = "latex";
  CmlEquationsFormat f;

  if (!PyArg_ParseTupleAndKeywords (args, kwargs, "|s:equations", kwlist, &format))
    return NULL;
  if (!cml_equations_format_from_string (format, &f))
    return cml_py_raise_printf ("equations: the format must be latex, sympy or json, not “%s”", format);
  g_autofree double *params = model_params (self);
  g_autofree char *text = cml_system_export_equations (self->sys, params, f);
  return PyUnicode_FromString (text);
}

/* ---- attributes ------------------------------------------------------------------------- */

static PyObject *
model_get_name (CmlPyModel *self, void *closure)
{
  return PyUnicode_FromString (cml_system_get_model (self->sys)->name);
}

static PyObject *
model_get_parameters (CmlPyModel *self, void *closure)
{
  return cml_py_parameters_dict (self->eval);
}

static PyObject *
model_get_state_names (CmlPyModel *self, void *closure)
{
  return string_list (cml_system_dim (self->sys), cml_system_state_name, self->sys);
}

static PyGetSetDef model_getset[] = {
  { "name", (getter) model_get_name, NULL, "The model's name ('rolling-ball', or the file's).", NULL },
  { "parameters", (getter) model_get_parameters, NULL, "Every parameter's value: name -> float.", NULL },
  { "state_names", (getter) model_get_state_names, NULL,
    "The state's names, in the order rhs() and jacobian() take them.", NULL },
  { NULL, NULL, NULL, NULL, NULL },
};

static PyMethodDef model_methods[] = {
  { "info", (PyCFunction) model_info, METH_NOARGS, info_doc },
  { "simulate", (PyCFunction) (void (*) (void)) cml_py_model_simulate, METH_VARARGS | METH_KEYWORDS,
    cml_py_simulate_doc },
  { "sweep", (PyCFunction) (void (*) (void)) cml_py_model_sweep, METH_VARARGS | METH_KEYWORDS, cml_py_sweep_doc },
  { "poincare", (PyCFunction) (void (*) (void)) cml_py_model_poincare, METH_VARARGS | METH_KEYWORDS,
    cml_py_poincare_doc },
  { "shoot", (PyCFunction) (void (*) (void)) cml_py_model_shoot, METH_VARARGS | METH_KEYWORDS, cml_py_shoot_doc },
  { "rhs", (PyCFunction) (void (*) (void)) model_rhs, METH_VARARGS | METH_KEYWORDS, rhs_doc },
  { "jacobian", (PyCFunction) (void (*) (void)) model_jacobian, METH_VARARGS | METH_KEYWORDS, jacobian_doc },
  { "equations", (PyCFunction) (void (*) (void)) model_equations, METH_VARARGS | METH_KEYWORDS, equations_doc },
  { NULL, NULL, 0, NULL },
};

PyDoc_STRVAR (model_doc,
"A model loaded by cmlab.load(): its equations of motion derived, with the\n"
"parameters given.  Immutable: a run with other parameters is another load().\n"
"Safe to use from several threads; simulate() releases the GIL while it\n"
"integrates.");

PyTypeObject CmlPyModel_Type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "cmlab.Model",
  .tp_doc = model_doc,
  .tp_basicsize = sizeof (CmlPyModel),
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_dealloc = (destructor) model_dealloc,
  .tp_repr = (reprfunc) model_repr,
  .tp_methods = model_methods,
  .tp_getset = model_getset,
};
