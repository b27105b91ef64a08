/* cml-py-private.h — what the files of the Python module `cmlab` share: the Model type's
 * structure, the Result type, and turning cmlab's errors into Python's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every function here is called with the GIL held.  Python.h comes first (it sets the
 * feature macros), then NumPy's C API, whose table of functions lives in cmlab-module.c
 * (PY_ARRAY_UNIQUE_SYMBOL) and is imported once when the module is.
 */
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL cml_py_numpy_api
#ifndef CML_PY_IMPORT_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <glib.h>

#include "cml-simulation.h"
#include "cml-system.h"

G_BEGIN_DECLS

/* cmlab.Model: a model loaded and its equations derived, with the parameters given to
 * cmlab.load().  The system is immutable once prepared (cml_system_prepare) and shared by
 * every run; EVAL is the Model's own simulation for rhs() and jacobian(), used with the
 * GIL held only. */
typedef struct
{
  PyObject_HEAD
  CmlSystem     *sys;
  CmlSimulation *eval;
  GPtrArray     *set_names;  /* the parameters given to load(), in the order given (char*) */
  GArray        *set_values; /* … and their values (double) */
} CmlPyModel;

extern PyTypeObject CmlPyModel_Type;
extern PyTypeObject CmlPyResult_Type;
/* cmlab.Error, the exception every failure of cmlab raises */
extern PyObject *cml_py_error;

/* cmlab.load (): the Model of NAME (a built-in name or a model file) with the parameters
 * KWARGS (name -> number), or NULL with cmlab.Error set. */
PyObject *cml_py_model_load (const char *name, PyObject *kwargs);

/* Model.simulate (), cml-py-simulate.c */
PyObject *cml_py_model_simulate (CmlPyModel *self, PyObject *args, PyObject *kwargs);
extern const char cml_py_simulate_doc[];

/* A new simulation of SELF's system with the parameters load() was given (as
 * `cmlab-cli simulate --set` applies them), or NULL with cmlab.Error set. */
CmlSimulation *cml_py_model_new_simulation (CmlPyModel *self);
/* The values of every parameter of SIM's model, in the model's order, as a dict. */
PyObject *cml_py_parameters_dict (CmlSimulation *sim);

/* The run options shared by simulate(), sweep() and poincare() (cml-py-run-options.c). */
typedef struct
{
  CmlIntegratorOptions iopt;  /* integrator, rtol, atol, step */
  GHashTable          *given; /* init: name -> double* */
} CmlPyRunOptions;

/* Reads INIT, INTEGRATOR, RTOL, ATOL and STEP (each NULL or None when not given) into O
 * (clear it afterwards, whatever the outcome); FALSE with cmlab.Error set (naming FNAME). */
gboolean cml_py_run_options_parse (CmlPyRunOptions *o, const char *fname, PyObject *init, PyObject *integrator,
                                   PyObject *rtol, PyObject *atol, PyObject *step);
void     cml_py_run_options_clear (CmlPyRunOptions *o);
/* An optional number: OBJ NULL or None leaves *HAS FALSE; else *OUT.  FALSE with cmlab.Error
 * set when OBJ is not a number. */
gboolean cml_py_optional_number (PyObject *obj, const char *fname, const char *name, double *out, gboolean *has);
/* Names from a list of str (or one str, names separated by commas), NULL-terminated; NULL
 * with cmlab.Error set (WHAT names the argument). */
GPtrArray *cml_py_names (PyObject *obj, const char *fname, const char *what);
/* The observable index of each of NAMES into IDX; FALSE with cmlab.Error set for a name
 * SYS does not have. */
gboolean cml_py_observables (CmlSystem *sys, const char *const *names, const char *fname, int *idx);

/* Whether SIM (reset with GIVEN at its time) can be run to T_END: FALSE with cmlab.Error
 * set (naming FNAME) for a span no run covers in a day; SIM is then back at its start
 * (cml-py-span.c, as cmlab-cli's probe). */
gboolean cml_py_check_span (CmlSimulation *sim, GHashTable *given, double t_end, const char *fname);

/* Model.sweep (), cml-py-sweep.c; Model.poincare (), cml-py-poincare.c */
PyObject *cml_py_model_sweep (CmlPyModel *self, PyObject *args, PyObject *kwargs);
extern const char cml_py_sweep_doc[];
PyObject *cml_py_model_poincare (CmlPyModel *self, PyObject *args, PyObject *kwargs);
extern const char cml_py_poincare_doc[];
/* Model.shoot (), cml-py-shoot.c */
PyObject *cml_py_model_shoot (CmlPyModel *self, PyObject *args, PyObject *kwargs);
extern const char cml_py_shoot_doc[];

/* A new cmlab.Result (a dict of columns with a .meta dict), or NULL. */
PyObject *cml_py_result_new (PyObject *meta);

/* Raises cmlab.Error with ERROR's message (NULL: WHAT), returns NULL. */
PyObject *cml_py_raise (const GError *error, const char *what);
/* Raises cmlab.Error with a formatted message, returns NULL. */
PyObject *cml_py_raise_printf (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS
