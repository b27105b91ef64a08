/* cml-py-run-options.c — the run options simulate(), sweep() and poincare() share, read
 * from their Python arguments: the initial values (init), the integrator, its tolerances
 * or its step, and lists of names (columns, measure).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Checked as `cmlab-cli` checks --init, --integrator, --rtol, --atol and --step
 * (cml-cli-common.c): each value alone, then a fixed step only with a fixed-step method
 * and tolerances only with an adaptive one.  Messages name the function and the argument.
 * GIL held.
 */
#define G_LOG_DOMAIN "cml-py-run-options"

#include "cml-py-private.h"

#include <math.h>

gboolean
cml_py_optional_number (PyObject *obj, const char *fname, const char *name, double *out, gboolean *has)
{
  *has = FALSE;
  if (obj == NULL || obj == Py_None)
    return TRUE;
  double v = PyFloat_AsDouble (obj);
  if (v == -1.0 && PyErr_Occurred ())
    {
      PyErr_Clear ();
      PyErr_Format (cml_py_error, "%s: %s takes a number, not %R", fname, name, obj);
      return FALSE;
    }
  *out = v;
  *has = TRUE;
  return TRUE;
}

gboolean
cml_py_run_options_parse (CmlPyRunOptions *o, const char *fname, PyObject *init, PyObject *integrator,
                          PyObject *rtol, PyObject *atol, PyObject *step)
{
  gboolean has_rtol, has_atol, has_step;
  double rtol_v = 0, atol_v = 0, step_v = 0;

  o->iopt = cml_integrator_options_default ();
  o->given = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (!cml_py_optional_number (rtol, fname, "rtol", &rtol_v, &has_rtol)
      || !cml_py_optional_number (atol, fname, "atol", &atol_v, &has_atol)
      || !cml_py_optional_number (step, fname, "step", &step_v, &has_step))
    return FALSE;
  if (has_rtol && !(rtol_v > 0 && rtol_v < 1))
    return cml_py_raise_printf ("%s: rtol needs a number between 0 and 1 (e.g. 1e-8), not %g", fname, rtol_v), FALSE;
  if (has_atol && !(atol_v > 0 && isfinite (atol_v)))
    return cml_py_raise_printf ("%s: atol needs a number > 0, not %g", fname, atol_v), FALSE;
  if (has_step && !(step_v > 0 && isfinite (step_v)))
    return cml_py_raise_printf ("%s: step needs a number > 0, not %g", fname, step_v), FALSE;

  /* the integrator, as cml_cli_run_options_integrator () sets it */
  if (integrator && integrator != Py_None)
    {
      const char *name = PyUnicode_Check (integrator) ? PyUnicode_AsUTF8 (integrator) : NULL;
      if (name == NULL || !cml_integrator_kind_from_string (name, &o->iopt.kind))
        {
          PyErr_Clear ();
          PyErr_Format (cml_py_error, "%s: unknown integrator %R: auto, rk8pd, rkf45, rkck, rk4, msadams, msbdf, "
                        "implicit-midpoint, variational, variational4, taylor, dop853 or rk4-fixed", fname, integrator);
          return FALSE;
        }
    }
  gboolean fixed = cml_integrator_kind_is_fixed_step (o->iopt.kind);
  if (has_step && !fixed)
    return cml_py_raise_printf ("%s: step sets the step of a fixed-step integrator (implicit-midpoint, "
                                "variational, variational4); %s chooses its own steps from rtol and atol", fname,
                                cml_integrator_kind_to_string (o->iopt.kind)), FALSE;
  if ((has_rtol || has_atol) && fixed)
    return cml_py_raise_printf ("%s: %s takes fixed steps (step=H, default %g): rtol and atol do not apply", fname,
                                cml_integrator_kind_to_string (o->iopt.kind), o->iopt.h_fixed), FALSE;
  if (has_rtol)
    o->iopt.rtol = rtol_v;
  if (has_atol)
    o->iopt.atol = atol_v;
  if (has_step)
    o->iopt.h_fixed = step_v;

  /* init: {name: number} */
  if (init && init != Py_None)
    {
      PyObject *items = PyMapping_Check (init) && !PySequence_Check (init) ? PyMapping_Items (init) : NULL;
      if (items == NULL)
        {
          PyErr_Clear ();
          return cml_py_raise_printf ("%s: init takes a dict {name: number}", fname), FALSE;
        }
      for (Py_ssize_t k = 0; k < PyList_GET_SIZE (items); k++)
        {
          PyObject *item = PyList_GET_ITEM (items, k);
          PyObject *key = PyTuple_GET_ITEM (item, 0), *value = PyTuple_GET_ITEM (item, 1);
          const char *name = PyUnicode_Check (key) ? PyUnicode_AsUTF8 (key) : NULL;
          double v = name ? PyFloat_AsDouble (value) : -1.0;
          if (name == NULL || (v == -1.0 && PyErr_Occurred ()) || !isfinite (v))
            {
              PyErr_Clear ();
              PyErr_Format (cml_py_error, "%s: init takes {name: finite number}, not %R: %R", fname, key, value);
              Py_DECREF (items);
              return FALSE;
            }
          g_hash_table_insert (o->given, g_strdup (name), g_memdup2 (&v, sizeof v));
        }
      Py_DECREF (items);
    }
  return TRUE;
}

void
cml_py_run_options_clear (CmlPyRunOptions *o)
{
  g_clear_pointer (&o->given, g_hash_table_unref);
}

GPtrArray *
cml_py_names (PyObject *obj, const char *fname, const char *what)
{
  if (PyUnicode_Check (obj))
    {
      /* one name, or names separated by commas as on the command line */
      const char *text = PyUnicode_AsUTF8 (obj);
      g_auto (GStrv) parts = text ? g_strsplit (text, ",", -1) : NULL;
      GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
      for (guint k = 0; parts && parts[k]; k++)
        if (*g_strstrip (parts[k]) != '\0')
          g_ptr_array_add (names, g_strdup (parts[k]));
      if (names->len == 0)
        {
          g_ptr_array_unref (names);
          return cml_py_raise_printf ("%s: %s takes a list of names, e.g. ['x', 'energy']", fname, what), NULL;
        }
      g_ptr_array_add (names, NULL);
      return names;
    }
  PyObject *seq = PySequence_Fast (obj, "");
  if (seq == NULL || PySequence_Fast_GET_SIZE (seq) == 0)
    {
      PyErr_Clear ();
      Py_XDECREF (seq);
      return cml_py_raise_printf ("%s: %s takes a list of names, e.g. ['x', 'energy']", fname, what), NULL;
    }
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE (seq); k++)
    {
      PyObject *c = PySequence_Fast_GET_ITEM (seq, k);
      const char *name = PyUnicode_Check (c) ? PyUnicode_AsUTF8 (c) : NULL;
      if (name == NULL)
        {
          PyErr_Clear ();
          PyErr_Format (cml_py_error, "%s: %s takes names, not %R", fname, what, c);
          Py_DECREF (seq);
          g_ptr_array_unref (names);
          return NULL;
        }
      g_ptr_array_add (names, g_strdup (name));
    }
  Py_DECREF (seq);
  g_ptr_array_add (names, NULL);
  return names;
}

gboolean
cml_py_observables (CmlSystem *sys, const char *const *names, const char *fname, int *idx)
{
  for (guint c = 0; names[c]; c++)
    if ((idx[c] = cml_system_observable_index (sys, names[c])) < 0)
      return cml_py_raise_printf ("%s: %s has no quantity “%s” (its observables: Model.info()['observables'])", fname,
                                  cml_system_get_model (sys)->name, names[c]), FALSE;
  return TRUE;
}
