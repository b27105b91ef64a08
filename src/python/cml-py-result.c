/* cml-py-result.c — cmlab.Result: what Model.simulate() returns, a dict of NumPy arrays
 * by column name ('t' first) with the run's metadata in .meta.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A subclass of dict, so that r['x'], list(r), pandas.DataFrame(r) and
 * numpy.column_stack(list(r.values())) work as on any dict; .meta is a dict of its own
 * (cml-py-simulate.c says what it holds).
 */
#define G_LOG_DOMAIN "cml-py-result"

#include "cml-py-private.h"

#include <structmember.h>

typedef struct
{
  PyDictObject dict;
  PyObject    *meta;
} CmlPyResult;

PyObject *
cml_py_result_new (PyObject *meta)
{
  PyObject *r = PyObject_CallNoArgs ((PyObject *) &CmlPyResult_Type);

  if (r != NULL)
    ((CmlPyResult *) r)->meta = Py_NewRef (meta);
  return r;
}

static int
result_traverse (CmlPyResult *self, visitproc visit, void *arg)
{
  Py_VISIT (self->meta);
  return PyDict_Type.tp_traverse ((PyObject *) self, visit, arg);
}

static int
result_clear (CmlPyResult *self)
{
  Py_CLEAR (self->meta);
  return PyDict_Type.tp_clear ((PyObject *) self);
}

static void
result_dealloc (CmlPyResult *self)
{
  PyObject_GC_UnTrack (self);
  Py_CLEAR (self->meta);
  PyDict_Type.tp_dealloc ((PyObject *) self);
}

static PyObject *
result_repr (CmlPyResult *self)
{
  PyObject *model = self->meta ? PyDict_GetItemString (self->meta, "model") : NULL;
  PyObject *keys = PyDict_Keys ((PyObject *) self);
  PyObject *t = PyDict_GetItemString ((PyObject *) self, "t");
  if (keys == NULL)
    return NULL;
  PyObject *r = PyUnicode_FromFormat ("<cmlab.Result of %S: %zd rows, columns %R>", model ? model : Py_None,
                                      t ? PyObject_Length (t) : (Py_ssize_t) 0, keys);
  Py_DECREF (keys);
  return r;
}

static PyMemberDef result_members[] = {
  { "meta", T_OBJECT, offsetof (CmlPyResult, meta), READONLY,
    "The run's metadata: model, parameters, initial state, times, integrator, units, notes." },
  { NULL, 0, 0, 0, NULL },
};

PyTypeObject CmlPyResult_Type = {
  PyVarObject_HEAD_INIT (NULL, 0)
  .tp_name = "cmlab.Result",
  .tp_doc = "The rows of a run (Model.simulate()): a dict of NumPy float64 arrays by column\n"
            "name, 't' first, with the run's metadata in .meta.",
  .tp_basicsize = sizeof (CmlPyResult),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DICT_SUBCLASS,
  .tp_dealloc = (destructor) result_dealloc,
  .tp_traverse = (traverseproc) result_traverse,
  .tp_clear = (inquiry) result_clear,
  .tp_repr = (reprfunc) result_repr,
  .tp_members = result_members,
};
