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

/* A new cmlab.Result (a dict of columns with a .meta dict), or NULL. */
PyObject *cml_py_result_new (PyObject *meta);

/* Raises cmlab.Error with ERROR's message (NULL: WHAT), returns NULL. */
PyObject *cml_py_raise (const GError *error, const char *what);
/* Raises cmlab.Error with a formatted message, returns NULL. */
PyObject *cml_py_raise_printf (const char *fmt, ...) G_GNUC_PRINTF (1, 2);

G_END_DECLS
