/* cml-integrator-choice.c — the integrator a run gets when its user names none
 * (CML_INTEGRATOR_AUTO, the default of cml_integrator_options_default ()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rule, with ε = min (rtol, atol) the tolerance the Taylor method's order follows
 * (cml_taylor_order_for_tolerance ()):
 *
 *   taylor  when ε ≤ CML_INTEGRATOR_CHOICE_TAYLOR_TOL and the right-hand side is
 *           polynomial or trigonometric (polynomial in the state and sines, cosines,
 *           exponentials of it): the Taylor method differentiates it, and it has no
 *           division that could vanish;
 *   rk8pd   otherwise: looser tolerances; free velocities found by Newton's method (no
 *           expressions to differentiate); a rational or algebraic right-hand side, whose
 *           divisions by the state-dependent pivots of its matrices rk8pd checks at every
 *           evaluation, so that a run that reaches a singular matrix stops there and names
 *           it, where the Taylor method's long steps stop short of it with a failed
 *           projection (tests/models/test-pivots.c, regularity-lost).
 *
 * Why (bench/cmlab-bench --only dop853, its second table; doc/performance.md, "The
 * default integrator"): at the same tolerance the Taylor method, which holds every component to its
 * own tolerance, is as fast as rk8pd and dop853 or faster from ε = 1e-9 on, on every
 * built-in with a closed form, with an error 10–1000 times smaller; at looser tolerances
 * its order falls less than the Runge–Kutta methods' step count, and rk8pd wins on some
 * models (Martinet, the plate–ball, the rolling ball at 1e-6).  rk8pd and dop853,
 * both with their whole step in native code, are level with each other; rk8pd is kept
 * where the Taylor method is not chosen, so that those runs give the numbers they gave
 * before auto was the default.
 *
 * What the Taylor method makes of a system's right-hand side is found in
 * cml-integrator-for-system.c; this file holds the rule and the reasons, knowing no system.
 */
#define G_LOG_DOMAIN "cml-integrator-choice"

#include "cml-integrator-choice.h"

#include <glib/gi18n.h>

/* the reasons, as they read after "chosen: " (English in files, translated for people) */
const char cml_integrator_chosen_newton[] =
  N_("the Taylor method cannot run this system: its free velocities are found by Newton's method");
const char cml_integrator_chosen_function[] =
  N_("the Taylor method cannot run this system: its right-hand side has a function without a Taylor recurrence");
static const char chosen_loose[] = N_("the Taylor method pays at tighter tolerances");
static const char chosen_ode[] = N_("an ODE given as a function");
static const char chosen_polynomial[] = N_("polynomial right-hand side");
static const char chosen_trigonometric[] = N_("trigonometric right-hand side");
static const char chosen_rational[] =
  N_("the right-hand side divides by quantities that may vanish, which rk8pd checks at every step");

/* The reason for the Taylor method on a right-hand side of KIND, or NULL when it is not
 * chosen for it. */
static const char *
rhs_reason (const char *kind)
{
  if (g_str_equal (kind, "polynomial"))
    return chosen_polynomial;
  if (g_str_equal (kind, "trigonometric"))
    return chosen_trigonometric;
  return NULL;
}

static double
tolerance (const CmlIntegratorOptions *o)
{
  return o->rtol > 0 && o->atol > 0 ? MIN (o->rtol, o->atol) : MAX (o->rtol, o->atol);
}

void
cml_integrator_choose_for_rhs (CmlIntegratorOptions *o, const char *rhs_kind, const char *why_not)
{
  g_return_if_fail (o != NULL);

  if (rhs_kind != NULL && rhs_reason (rhs_kind) == NULL)
    {
      o->kind = CML_INTEGRATOR_RK8PD;
      o->chosen = chosen_rational;
    }
  else if (rhs_kind != NULL && tolerance (o) <= CML_INTEGRATOR_CHOICE_TAYLOR_TOL)
    {
      o->kind = CML_INTEGRATOR_TAYLOR;
      o->chosen = rhs_reason (rhs_kind);
    }
  else
    {
      o->kind = CML_INTEGRATOR_RK8PD;
      o->chosen = rhs_kind != NULL ? chosen_loose : why_not;
    }
}

void
cml_integrator_choose_for_ode (CmlIntegratorOptions *o)
{
  g_return_if_fail (o != NULL);

  if (o->kind != CML_INTEGRATOR_AUTO && (o->chosen == NULL || o->kind != CML_INTEGRATOR_TAYLOR))
    return;
  o->kind = CML_INTEGRATOR_RK8PD;
  o->chosen = chosen_ode;
}

char *
cml_integrator_choice_reason (const CmlIntegratorOptions *o, gboolean translated)
{
  char tol[G_ASCII_DTOSTR_BUF_SIZE];

  if (o->chosen == NULL || o->kind == CML_INTEGRATOR_AUTO)
    return NULL;
  const char *why = translated ? _(o->chosen) : o->chosen;
  if (o->chosen == cml_integrator_chosen_newton || o->chosen == cml_integrator_chosen_function
      || o->chosen == chosen_ode || o->chosen == chosen_rational)
    return g_strdup (why);
  /* chosen by the tolerance */
  if (translated)
    /* TRANSLATORS: the tolerance an integrator was chosen for, then why (a phrase from this catalogue) */
    return g_strdup_printf (_("tolerance %g, %s"), tolerance (o), why);
  return g_strdup_printf ("tolerance %s, %s", g_ascii_formatd (tol, sizeof tol, "%g", tolerance (o)), why);
}

char *
cml_integrator_choice_describe (const CmlIntegratorOptions *o)
{
  g_autofree char *why = cml_integrator_choice_reason (o, TRUE);
  const char *name = cml_integrator_kind_to_string (o->kind);

  if (why == NULL)
    return g_strdup (name);
  /* TRANSLATORS: an integrator's name (not translated) and why it was chosen */
  return g_strdup_printf (_("%s (chosen: %s)"), name, why);
}
