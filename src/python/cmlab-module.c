/* cmlab-module.c — the Python module `cmlab`: cmlab's core (src/core) for Python, with the
 * runs' numbers as NumPy arrays.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The module's functions (load, models), its exception cmlab.Error, and its start: NumPy's
 * C API imported, the types Model and Result made ready.  What a Model does is in
 * cml-py-model.c, its runs in cml-py-simulate.c, their results in cml-py-result.c.  The
 * numbers are those `cmlab-cli` writes, bit for bit: the same core calls, in the same order
 * (tests/python/test_cmlab.py holds them to it).
 */
#define G_LOG_DOMAIN "cmlab-module"
#define CML_PY_IMPORT_NUMPY
#include "cml-py-private.h"

#include <stdarg.h>

#include "cml-model.h"

PyObject *cml_py_error = NULL;

PyObject *
cml_py_raise (const GError *error, const char *what)
{
  PyErr_SetString (cml_py_error, error && error->message ? error->message : what);
  return NULL;
}

PyObject *
cml_py_raise_printf (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *message = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  PyErr_SetString (cml_py_error, message);
  return NULL;
}

PyDoc_STRVAR (load_doc,
"load($module, name_or_path, /, **params)\n--\n\n"
"Loads a model and derives its equations of motion.\n"
"\n"
"name_or_path: a built-in model's name ('rolling-ball', 'martinet', …; see\n"
"cmlab.models()) or the path of a model file (.cml).  params: values of the\n"
"model's parameters (m=2.0, Omega=0.5), as `cmlab-cli simulate --set` takes them;\n"
"the others keep the model's defaults.\n"
"\n"
"Raises cmlab.Error with cmlab's message: for a malformed model file it names the\n"
"file and the line (\"FILE:LINE: message\"); for a parameter it names the parameter\n"
"and its allowed range.  The model's warnings (a general algebroid, …) are given as\n"
"Python warnings (UserWarning).");

static PyObject *
py_load (PyObject *module, PyObject *args, PyObject *kwargs)
{
  PyObject *name_obj;

  if (!PyArg_ParseTuple (args, "O:load", &name_obj))
    return NULL;
  /* a str or an os.PathLike */
  PyObject *path = PyOS_FSPath (name_obj);
  if (path == NULL)
    return NULL;
  PyObject *bytes = NULL;
  if (!PyUnicode_FSConverter (path, &bytes))
    {
      Py_DECREF (path);
      return NULL;
    }
  Py_DECREF (path);
  PyObject *model = cml_py_model_load (PyBytes_AS_STRING (bytes), kwargs);
  Py_DECREF (bytes);
  return model;
}

PyDoc_STRVAR (models_doc,
"models($module, /)\n--\n\n"
"The names of the built-in models, sorted (what `cmlab-cli list models` names),\n"
"each a name cmlab.load() takes.");

static PyObject *
py_models (PyObject *module, PyObject *unused)
{
  g_auto (GStrv) names = cml_model_list_builtin ();
  PyObject *list = PyList_New (0);

  for (guint k = 0; list && names && names[k]; k++)
    {
      PyObject *s = PyUnicode_FromString (names[k]);
      if (s == NULL || PyList_Append (list, s) < 0)
        Py_CLEAR (list);
      Py_XDECREF (s);
    }
  return list;
}

static PyMethodDef module_methods[] = {
  { "load", (PyCFunction) (void (*) (void)) py_load, METH_VARARGS | METH_KEYWORDS, load_doc },
  { "models", py_models, METH_NOARGS, models_doc },
  { NULL, NULL, 0, NULL },
};

PyDoc_STRVAR (module_doc,
"cmlab — Constrained Mechanics Lab for Python.\n"
"\n"
"Mechanical systems with constraints on Lie algebroids (nonholonomic, vakonomic,\n"
"singular Lagrangians, Euler–Lagrange), from model files whose equations of motion\n"
"cmlab derives exactly.  The numbers are those `cmlab-cli` writes, bit for bit.\n"
"\n"
"    import cmlab\n"
"    m = cmlab.load('rolling-ball', Omega=0.5)   # a built-in name or a .cml file\n"
"    m.info()['state']                           # ['x', 'y', 'u', 'v', …]\n"
"    r = m.simulate(10)                          # t = 0 … 10, a row every 0.01\n"
"    r['t'], r['x']                              # NumPy float64 arrays by column\n"
"    r.meta['integrator']                        # what ran, with its tolerances\n"
"    z0 = r.meta['initial_state']                # the state the run started from\n"
"    m.rhs(0.0, z0)                              # dz/dt there\n"
"    m.jacobian(0.0, z0)                         # ∂f/∂z there, exact\n"
"    print(m.equations('latex'))                 # also 'sympy' and 'json'\n"
"    s = m.sweep({'Omega': (0.5, 2, 16)}, 20, ['energy'])   # on every processor\n"
"    p = m.poincare('y = 0', 100, columns=['x', 'u'])       # a Poincaré section\n"
"    e = cmlab.load('martinet').shoot(1, {'x1': 0.5, 'x2': 0.3, 'x3': 0.01})\n"
"\n"
"Every failure raises cmlab.Error with cmlab's message.  Runs release the GIL while\n"
"they integrate: threads simulate in parallel.");

PyDoc_STRVAR (error_doc,
"A failure of cmlab: a model file it refuses (the message names FILE:LINE), an\n"
"unknown model, a parameter out of its range, an initial state it cannot use, a\n"
"run that fails (the message names the time and the reason).");

static struct PyModuleDef module_def = {
  PyModuleDef_HEAD_INIT,
  .m_name = "cmlab",
  .m_doc = module_doc,
  .m_size = -1,
  .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit_cmlab (void);

PyMODINIT_FUNC
PyInit_cmlab (void)
{
  PyObject *m;

  import_array ();
  CmlPyResult_Type.tp_base = &PyDict_Type;
  if (PyType_Ready (&CmlPyModel_Type) < 0 || PyType_Ready (&CmlPyResult_Type) < 0)
    return NULL;
  if ((m = PyModule_Create (&module_def)) == NULL)
    return NULL;
  if (cml_py_error == NULL)
    cml_py_error = PyErr_NewExceptionWithDoc ("cmlab.Error", error_doc, PyExc_Exception, NULL);
  if (cml_py_error == NULL
      || PyModule_AddObjectRef (m, "Error", cml_py_error) < 0
      || PyModule_AddObjectRef (m, "Model", (PyObject *) &CmlPyModel_Type) < 0
      || PyModule_AddObjectRef (m, "Result", (PyObject *) &CmlPyResult_Type) < 0
      || PyModule_AddStringConstant (m, "__version__", CMLAB_VERSION) < 0)
    {
      Py_DECREF (m);
      return NULL;
    }
  return m;
}
