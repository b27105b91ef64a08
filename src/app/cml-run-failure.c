/* cml-run-failure.c — why a run stopped, in words for a student.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-run-failure"

#include "cml-run-failure.h"

#include <glib/gi18n.h>

#include <string.h>

/* The time in MESSAGE ("… at t = 0.382512 …"), as written there, or NULL. */
static char *
failure_time (const char *message)
{
  const char *at = strstr (message, "t = ");
  const char *end;

  if (at == NULL)
    return NULL;
  at += strlen ("t = ");
  end = at;
  while (*end && (g_ascii_isdigit (*end) || strchr ("+-.eE", *end)))
    end++;
  /* a sentence may end with the number's full stop */
  while (end > at && end[-1] == '.')
    end--;
  return end > at ? g_strndup (at, end - at) : NULL;
}

CmlRunFailure *
cml_run_failure_explain (const char *message, const char *time_unit)
{
  CmlRunFailure *f = g_new0 (CmlRunFailure, 1);
  g_autofree char *t = NULL;
  g_autofree char *when = NULL;
  const char *unit = (time_unit && *time_unit && g_strcmp0 (time_unit, "1") != 0) ? time_unit : NULL;

  if (message == NULL)
    message = "";
  t = failure_time (message);
  if (t && unit)
    when = g_strdup_printf (_("Stopped at t = %s %s"), t, unit);
  else if (t)
    when = g_strdup_printf (_("Stopped at t = %s"), t);
  else
    when = g_strdup (_("Stopped"));

  if (strstr (message, "step size underflow"))
    {
      f->summary = g_strdup_printf (_("%s: the motion runs away"), when);
      f->explanation = g_strdup (
        _("The solution changed faster than the integrator could follow, even with the smallest "
        "step it may take: the motion is growing without bound (it would reach infinity in a "
        "finite time), or the equations are very stiff here.  The picture shows the last state "
        "that was computed reliably.  Try other initial values or parameters, or, for a stiff "
        "system, the integrator msbdf.  Reset (R) starts again."));
    }
  else if (strstr (message, "non-finite"))
    {
      f->summary = g_strdup_printf (_("%s: the state became infinite"), when);
      f->explanation = g_strdup (
        _("A quantity of the state became infinite or undefined: the equations divided by zero "
        "or a value overflowed.  The picture shows the last finite state.  Try other initial "
        "values or parameters; Reset (R) starts again."));
    }
  else if (strstr (message, "singular"))
    {
      f->summary = g_strdup_printf (_("%s: the equations cannot be solved here"), when);
      f->explanation = g_strdup (
        _("A matrix the equations of motion must invert became singular at this state (the "
        "constraints or the Lagrangian degenerate here), so the accelerations are not "
        "determined.  Try other initial values or parameters; Reset (R) starts again."));
    }
  else if (strstr (message, "right-hand side failed") || strstr (message, "Jacobian failed"))
    {
      f->summary = g_strdup_printf (_("%s: the equations could not be evaluated"), when);
      f->explanation = g_strdup (
        _("The equations of motion could not be evaluated at this state: a function left its "
        "domain (a square root or logarithm of a negative number, a division by zero) or a "
        "matrix became singular.  Try other initial values or parameters; Reset (R) starts "
        "again."));
    }
  else
    {
      f->summary = g_strdup_printf (_("%s: the run failed"), when);
      f->explanation = g_strdup (_("The run could not go on from this state.  Reset (R) starts "
                                 "again; the details below say what the integrator reported."));
    }
  return f;
}

void
cml_run_failure_free (CmlRunFailure *failure)
{
  if (failure == NULL)
    return;
  g_free (failure->summary);
  g_free (failure->explanation);
  g_free (failure);
}
