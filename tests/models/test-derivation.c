/* test-derivation.c — what a formalism derives is a value it returns, and what simulations
 * build on first use is kept apart from the system (the simulation layer's runtime).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The oscillator L = u²/2 − k x²/2 on TR (ẋ = u): the Euler–Lagrange equations return
 * ẋ = u, u̇ = −k x with the pivot W = 1, the regularity matrix W and the fallback's W and
 * R; a Lagrangian linear in u (W = 0) gives no Euler–Lagrange value (the constraint
 * algorithm takes over) and the system it makes is the singular one.  A system is derived
 * without a runtime; its first simulation (or question about native code) makes one, the
 * same one on every thread, and the system frees it.
 */
#define G_LOG_DOMAIN "test-derivation"

#include "cml-simulation.h"
#include "cml-system-private.h"
#include "cml-system-runtime.h"

#include <math.h>

static const char oscillator[] =
  "[model]\nname = oscillator\ntitle = an oscillator\n\n"
  "[algebroid]\nbase = x\nfibre = u\n\n[anchor]\ne1 = x: 1\n\n"
  "[parameters]\nk = 3 | 0.1 .. 10 | 1/s^2 | the stiffness\n\n"
  "[dynamics]\nlagrangian = u^2/2 - k*x^2/2\n";

static const char linear[] =
  "[model]\nname = linear\ntitle = a Lagrangian linear in the velocity\n\n"
  "[algebroid]\nbase = x\nfibre = u\n\n[anchor]\ne1 = x: 1\n\n"
  "[dynamics]\nlagrangian = x*u - x^2/2\n";

static CmlModel *
model_of (const char *text)
{
  g_autoptr (GError) error = NULL;
  CmlModel *model = cml_model_new_from_data (text, "test.cml", &error);
  g_assert_no_error (error);
  return model;
}

/* Values for every symbol of MODEL's context: 0.7, x = X, u = U, k = 3. */
static double *
values_of (CmlModel *model, double x, double u)
{
  guint ns = cml_expr_ctx_n_symbols (model->ctx);
  double *v = g_new (double, ns);
  for (guint i = 0; i < ns; i++)
    v[i] = 0.7;
  v[model->base_sym[0]] = x;
  v[model->fibre_sym[0]] = u;
  for (guint k = 0; k < model->params->len; k++)
    v[((CmlParam *) model->params->pdata[k])->sym] = ((CmlParam *) model->params->pdata[k])->value;
  return v;
}

static void
test_euler_lagrange_returns_its_value (void)
{
  g_autoptr (CmlModel) model = model_of (oscillator);
  g_autofree double *sample = values_of (model, 0.4, -1.3);
  Mechanics mc = { 0 };

  cml_sys_mechanics_init (model->ctx, model, &mc);
  g_autoptr (CmlDerivation) d = cml_sys_derive_euler_lagrange (model->ctx, model, &mc, sample);
  g_assert_nonnull (d);
  g_assert_cmpuint (d->n_rhs, ==, 2);
  g_assert_cmpfloat (cml_expr_eval (d->rhs[0], sample), ==, -1.3);
  g_assert_cmpfloat_with_epsilon (cml_expr_eval (d->rhs[1], sample), -3 * 0.4, 1e-15);
  g_assert_cmpuint (d->pivots->len, ==, 1);
  g_assert_cmpuint (d->pivot_names->len, ==, 1);
  g_assert_cmpfloat (cml_expr_eval (d->pivots->pdata[0], sample), ==, 1);
  g_assert_cmpuint (d->reg_rows, ==, 1);
  g_assert_cmpfloat (cml_expr_eval (d->reg[0], sample), ==, 1);
  g_assert_cmpuint (d->fb->len, ==, 2); /* W, R */
  g_assert_cmpfloat_with_epsilon (cml_expr_eval (d->fb->pdata[1], sample), -3 * 0.4, 1e-15);
  g_assert_cmpuint (d->h->len, ==, 0);
  g_assert_null (d->lambda);
  g_assert_cmpuint (d->steps->len, ==, 0);
  cml_sys_mechanics_clear (&mc);
}

static void
test_singular_has_no_euler_lagrange_value (void)
{
  g_autoptr (CmlModel) model = model_of (linear);
  g_autofree double *sample = values_of (model, 0.4, -1.3);
  g_autoptr (GError) error = NULL;
  Mechanics mc = { 0 };

  cml_sys_mechanics_init (model->ctx, model, &mc);
  g_assert_null (cml_sys_derive_euler_lagrange (model->ctx, model, &mc, sample));
  cml_sys_mechanics_clear (&mc);

  /* the system the model makes is the constraint algorithm's, its steps kept */
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_cmpint (cml_system_get_formalism (sys), ==, CML_FORMALISM_SINGULAR);
  g_assert_cmpuint (cml_system_algorithm_steps (sys)->len, >, 0);
}

static gpointer
runtime_on_a_thread (gpointer data)
{
  return cml_system_runtime (data);
}

static void
test_runtime_is_the_simulation_layers (void)
{
  g_autoptr (CmlModel) model = model_of (oscillator);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  GThread *threads[4];
  gpointer seen[4];

  g_assert_no_error (error);
  /* derived, not simulated: nothing of the simulations' is there yet */
  g_assert_null (sys->runtime);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("runtime", runtime_on_a_thread, sys);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    seen[i] = g_thread_join (threads[i]);
  g_assert_nonnull (seen[0]);
  for (guint i = 1; i < G_N_ELEMENTS (threads); i++)
    g_assert_true (seen[i] == seen[0]);
  g_assert_true (cml_system_runtime (sys) == seen[0]);

  /* the Jacobian, derived on first use, is kept there */
  g_assert_false (cml_system_runtime (sys)->jac_tried);
  (void) cml_system_jacobian_status (sys);
  g_assert_true (cml_system_runtime (sys)->jac_tried);
  g_assert_nonnull (cml_system_runtime (sys)->jac_prog);
}

static void
test_simulation_makes_the_runtime (void)
{
  g_autoptr (CmlModel) model = model_of (oscillator);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);

  g_assert_no_error (error);
  g_assert_null (sys->runtime);
  {
    g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
    g_assert_no_error (error);
    g_assert_nonnull (sim);
  }
  g_assert_nonnull (sys->runtime);
  /* (freed with the system: the sanitizer builds see a leak otherwise) */
}

int
main (int argc, char **argv)
{
  g_setenv ("CMLAB_NATIVE", "0", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/derivation/euler-lagrange", test_euler_lagrange_returns_its_value);
  g_test_add_func ("/derivation/singular", test_singular_has_no_euler_lagrange_value);
  g_test_add_func ("/derivation/runtime", test_runtime_is_the_simulation_layers);
  g_test_add_func ("/derivation/simulation-runtime", test_simulation_makes_the_runtime);
  return g_test_run ();
}
