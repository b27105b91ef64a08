/* test-dop853.c — the DOP853 integrator (cml-dop853.c): its tableau against the order
 * conditions, its order of convergence and that of its dense output, output at exact
 * times, both directions, failures, restarts bit for bit, determinism.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The order conditions (Hairer, Nørsett, Wanner, Solving ODEs I, 2nd ed., 1993, §II.2): for
 * every rooted tree τ with at most p vertices, sum_i b_i Φ_i(τ) = 1/γ(τ), where for τ =
 * [τ1, …, τm] Φ_i(τ) = prod_k sum_j a_ij Φ_j(τk) and γ(τ) = |τ| prod_k γ(τk).  The trees are
 * generated here (200 up to order 8) and the sums taken in long double.
 */
#define G_LOG_DOMAIN "test-dop853"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "cml-dop853.h"
#include "cml-error.h"
#include "cml-integrator.h"

/* The tableau: the coefficients of cml-dop853-core.h, compiled here with a dummy step. */
#define DOP_STEP_FN      G_GNUC_UNUSED tableau_unused_step
#define DOP_N            1
#define DOP_EXTRA_PARAMS
#define DOP_RHS(T, Z, DZ) ((void) (T), (void) (Z), (void) (DZ), 0)
#include "cml-dop853-core.h"

#define S 16  /* stages, dense output included */

static long double A[S][S], C[S], B[S], BHAT[S], BHH[S];

static void
fill_tableau (void)
{
  memset (A, 0, sizeof A);
  memset (B, 0, sizeof B);
  memset (BHAT, 0, sizeof BHAT);
  memset (BHH, 0, sizeof BHH);
  /* stage i (1-based) is row i - 1 */
#define SET(i, j, v) A[(i) - 1][(j) - 1] = (v)
  SET (2, 1, dop_a21);
  SET (3, 1, dop_a31); SET (3, 2, dop_a32);
  SET (4, 1, dop_a41); SET (4, 3, dop_a43);
  SET (5, 1, dop_a51); SET (5, 3, dop_a53); SET (5, 4, dop_a54);
  SET (6, 1, dop_a61); SET (6, 4, dop_a64); SET (6, 5, dop_a65);
  SET (7, 1, dop_a71); SET (7, 4, dop_a74); SET (7, 5, dop_a75); SET (7, 6, dop_a76);
  SET (8, 1, dop_a81); SET (8, 4, dop_a84); SET (8, 5, dop_a85); SET (8, 6, dop_a86); SET (8, 7, dop_a87);
  SET (9, 1, dop_a91); SET (9, 4, dop_a94); SET (9, 5, dop_a95); SET (9, 6, dop_a96); SET (9, 7, dop_a97);
  SET (9, 8, dop_a98);
  SET (10, 1, dop_a101); SET (10, 4, dop_a104); SET (10, 5, dop_a105); SET (10, 6, dop_a106);
  SET (10, 7, dop_a107); SET (10, 8, dop_a108); SET (10, 9, dop_a109);
  SET (11, 1, dop_a111); SET (11, 4, dop_a114); SET (11, 5, dop_a115); SET (11, 6, dop_a116);
  SET (11, 7, dop_a117); SET (11, 8, dop_a118); SET (11, 9, dop_a119); SET (11, 10, dop_a1110);
  SET (12, 1, dop_a121); SET (12, 4, dop_a124); SET (12, 5, dop_a125); SET (12, 6, dop_a126);
  SET (12, 7, dop_a127); SET (12, 8, dop_a128); SET (12, 9, dop_a129); SET (12, 10, dop_a1210);
  SET (12, 11, dop_a1211);
  /* stage 13 is f(t + h, y1): its row is b */
  SET (13, 1, dop_b1); SET (13, 6, dop_b6); SET (13, 7, dop_b7); SET (13, 8, dop_b8); SET (13, 9, dop_b9);
  SET (13, 10, dop_b10); SET (13, 11, dop_b11); SET (13, 12, dop_b12);
  SET (14, 1, dop_a141); SET (14, 7, dop_a147); SET (14, 8, dop_a148); SET (14, 9, dop_a149);
  SET (14, 10, dop_a1410); SET (14, 11, dop_a1411); SET (14, 12, dop_a1412); SET (14, 13, dop_a1413);
  SET (15, 1, dop_a151); SET (15, 6, dop_a156); SET (15, 7, dop_a157); SET (15, 8, dop_a158);
  SET (15, 11, dop_a1511); SET (15, 12, dop_a1512); SET (15, 13, dop_a1513); SET (15, 14, dop_a1514);
  SET (16, 1, dop_a161); SET (16, 6, dop_a166); SET (16, 7, dop_a167); SET (16, 8, dop_a168);
  SET (16, 9, dop_a169); SET (16, 13, dop_a1613); SET (16, 14, dop_a1614); SET (16, 15, dop_a1615);
#undef SET
  const double c[S] = { 0, dop_c2, dop_c3, dop_c4, dop_c5, dop_c6, dop_c7, dop_c8, dop_c9, dop_c10, dop_c11,
                        1, 1, dop_c14, dop_c15, dop_c16 };
  for (int i = 0; i < S; i++)
    C[i] = c[i];
  const double b[12] = { dop_b1, 0, 0, 0, 0, dop_b6, dop_b7, dop_b8, dop_b9, dop_b10, dop_b11, dop_b12 };
  const double er[12] = { dop_er1, 0, 0, 0, 0, dop_er6, dop_er7, dop_er8, dop_er9, dop_er10, dop_er11, dop_er12 };
  for (int i = 0; i < 12; i++)
    {
      B[i] = b[i];
      BHAT[i] = (long double) b[i] - er[i]; /* er = b - bhat */
    }
  BHH[0] = dop_bhh1;
  BHH[8] = dop_bhh2;
  BHH[11] = dop_bhh3;
}

/* The rooted trees up to order 8: children as indices of smaller trees (non-increasing). */
#define MAX_TREES 256
typedef struct
{
  int         order;
  long double gamma;
  long double phi[S];  /* Φ_i over the 12 stages of the method */
} Tree;

static Tree trees[MAX_TREES];
static int n_trees;

static void
add_tree (const int *children, int n_children, int order)
{
  Tree *t = &trees[n_trees++];

  g_assert_cmpint (n_trees, <=, MAX_TREES);
  t->order = order;
  t->gamma = order;
  for (int i = 0; i < 12; i++)
    t->phi[i] = 1.0L;
  for (int k = 0; k < n_children; k++)
    {
      const Tree *u = &trees[children[k]];
      t->gamma *= u->gamma;
      for (int i = 0; i < 12; i++)
        {
          long double s = 0;
          for (int j = 0; j < i; j++)
            s += A[i][j] * u->phi[j];
          t->phi[i] *= s;
        }
    }
}

/* Every multiset of existing trees (indices <= MAX_INDEX, non-increasing) of total order LEFT. */
static void
gen_children (int order, int left, int max_index, int *children, int n_children, int n_before)
{
  if (left == 0)
    {
      add_tree (children, n_children, order);
      return;
    }
  for (int k = max_index; k >= 0; k--)
    if (trees[k].order <= left)
      {
        children[n_children] = k;
        gen_children (order, left - trees[k].order, k, children, n_children + 1, n_before);
      }
}

static void
make_trees (int max_order)
{
  int children[16];

  n_trees = 0;
  add_tree (children, 0, 1);
  for (int order = 2; order <= max_order; order++)
    {
      int n_before = n_trees;
      gen_children (order, order - 1, n_before - 1, children, 0, n_before);
    }
}

/* The largest |sum b_i Φ_i - 1/γ| over the trees up to order P, relative to the size of
 * the sum's terms, sum |b_i Φ_i| (at least 1): the coefficients are doubles, so a condition
 * whose terms are large holds only to their rounding. */
static long double
worst_condition (const long double *b, int p, int *which)
{
  long double worst = 0;

  for (int k = 0; k < n_trees; k++)
    {
      if (trees[k].order > p)
        continue;
      long double s = 0, scale = 1;
      for (int i = 0; i < 12; i++)
        {
          s += b[i] * trees[k].phi[i];
          scale += fabsl (b[i] * trees[k].phi[i]);
        }
      long double d = fabsl (s - 1.0L / trees[k].gamma) / scale;
      if (d > worst)
        {
          worst = d;
          *which = k;
        }
    }
  return worst;
}

static void
test_order_conditions (void)
{
  int which = -1;
  long double w;

  fill_tableau ();
  make_trees (8);
  g_assert_cmpint (n_trees, ==, 200); /* 1 + 1 + 2 + 4 + 9 + 20 + 48 + 115 */

  /* the nodes are the row sums, dense stages included (relative to the size of the
   * terms, as below) */
  for (int i = 0; i < S; i++)
    {
      long double s = 0, scale = 1;
      for (int j = 0; j < i; j++)
        {
          s += A[i][j];
          scale += fabsl (A[i][j]);
        }
      g_assert_cmpfloat (fabsl (s - C[i]) / scale, <=, 1e-15);
    }

  w = worst_condition (B, 8, &which);
  g_test_message ("order 8: worst |sum b Phi - 1/gamma| = %.3Lg (tree %d of order %d)", w, which,
                  which >= 0 ? trees[which].order : 0);
  g_assert_cmpfloat (w, <=, 1e-15);
  /* and it is of order 8 exactly: some tree of order 9 fails (checked through the 5th-
   * and 3rd-order weights below, which must fail at orders 6 and 4) */
  w = worst_condition (BHAT, 5, &which);
  g_test_message ("order 5 (embedded): worst %.3Lg", w);
  g_assert_cmpfloat (w, <=, 1e-15);
  g_assert_cmpfloat (worst_condition (BHAT, 6, &which), >, 1e-6);
  w = worst_condition (BHH, 3, &which);
  g_test_message ("order 3 (embedded): worst %.3Lg", w);
  g_assert_cmpfloat (w, <=, 1e-15);
  g_assert_cmpfloat (worst_condition (BHH, 4, &which), >, 1e-6);
}

/* The oscillator z1' = z2, z2' = -z1 (linear): z = (cos t, -sin t) from (1, 0). */
static int
osc_rhs (double t, const double *z, double *dz, void *data)
{
  dz[0] = z[1];
  dz[1] = -z[0];
  if (data != NULL)
    (*(int *) data)++;
  return 0;
}

/* Fixed steps: the global error at t = 2 falls as h^8. */
static void
test_convergence_order (void)
{
  CmlOde ode = { 2, osc_rhs, NULL, NULL, NULL };
  double err[3];

  for (int k = 0; k < 3; k++)
    {
      const int n = 4 << k;
      const double h = 2.0 / n;
      double z[2] = { 1, 0 };
      for (int i = 0; i < n; i++)
        g_assert_true (cml_dop853_fixed_step (&ode, i * h, h, z, 0, NULL));
      err[k] = hypot (z[0] - cos (2.0), z[1] + sin (2.0));
    }
  for (int k = 0; k + 1 < 3; k++)
    {
      double p = log2 (err[k] / err[k + 1]);
      g_test_message ("error %.3g -> %.3g: order %.2f", err[k], err[k + 1], p);
      g_assert_cmpfloat (p, >, 7.5);
      g_assert_cmpfloat (p, <, 9.0);
    }
}

/* The dense output at mid-step: its error falls as h^8 (a 7th-order interpolant), and it
 * meets the step's ends. */
static void
test_dense_order (void)
{
  CmlOde ode = { 2, osc_rhs, NULL, NULL, NULL };
  double err[3];

  for (int k = 0; k < 3; k++)
    {
      const double h = 1.0 / (1 << k);
      double z[2] = { 1, 0 }, mid[2];
      g_assert_true (cml_dop853_fixed_step (&ode, 0, h, z, 0.5, mid));
      err[k] = hypot (mid[0] - cos (h / 2), mid[1] + sin (h / 2));
      /* near the end the interpolant agrees with the step */
      double z2[2] = { 1, 0 }, end[2];
      g_assert_true (cml_dop853_fixed_step (&ode, 0, h, z2, 1.0 - 1e-12, end));
      g_assert_cmpfloat (fabs (end[0] - z2[0]), <, 1e-11);
    }
  for (int k = 0; k + 1 < 3; k++)
    {
      double p = log2 (err[k] / err[k + 1]);
      g_test_message ("dense output at mid-step: %.3g -> %.3g: order %.2f (local)", err[k], err[k + 1], p);
      g_assert_cmpfloat (p, >, 7.3);
      g_assert_cmpfloat (p, <, 9.5);
    }
}

static CmlIntegratorOptions
dop_options (double tol)
{
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = CML_INTEGRATOR_DOP853;
  o.rtol = tol;
  o.atol = tol;
  return o;
}

/* Output at exactly the requested times (from the dense output: far fewer steps than
 * outputs), within the tolerance of the closed form. */
static void
test_exact_times (void)
{
  CmlOde ode = { 2, osc_rhs, NULL, NULL, NULL };
  CmlIntegratorOptions o = dop_options (1e-10);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlIntegrator) integ = cml_integrator_new (&ode, &o, &error);
  double z[2] = { 1, 0 }, t = 0;

  g_assert_no_error (error);
  for (int k = 1; k <= 1000; k++)
    {
      const double t1 = k * 0.01;
      g_assert_true (cml_integrator_advance (integ, &t, t1, z, &error));
      g_assert_no_error (error);
      g_assert_true (t == t1);
      g_assert_cmpfloat (fabs (z[0] - cos (t1)), <, 1e-8);
      g_assert_cmpfloat (fabs (z[1] + sin (t1)), <, 1e-8);
    }
  /* a thousand outputs, and the steps were not cut at them */
  g_assert_cmpuint (cml_integrator_n_steps (integ), <, 200);
  g_test_message ("%" G_GUINT64_FORMAT " steps for 1000 outputs", cml_integrator_n_steps (integ));
}

/* Forward to 20, back to 0: the start again, within the tolerances. */
static void
test_backwards (void)
{
  CmlOde ode = { 2, osc_rhs, NULL, NULL, NULL };
  CmlIntegratorOptions o = dop_options (1e-12);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlIntegrator) integ = cml_integrator_new (&ode, &o, &error);
  double z[2] = { 1, 0 }, t = 0;

  for (int k = 1; k <= 20; k++)
    g_assert_true (cml_integrator_advance (integ, &t, k, z, &error));
  g_assert_cmpfloat (fabs (z[0] - cos (20.0)), <, 1e-9);
  for (int k = 19; k >= -3; k--)
    {
      g_assert_true (cml_integrator_advance (integ, &t, k, z, &error));
      g_assert_no_error (error);
      g_assert_true (t == k);
    }
  g_assert_cmpfloat (fabs (z[0] - cos (-3.0)), <, 1e-9);
  g_assert_cmpfloat (fabs (z[1] + sin (-3.0)), <, 1e-9);
}

/* z' = z² from 1 blows up at t = 1: the run stops before, naming the time and the reason. */
static int
blowup_rhs (double t, const double *z, double *dz, void *data)
{
  dz[0] = z[0] * z[0];
  return 0;
}

static void
test_blowup (void)
{
  CmlOde ode = { 1, blowup_rhs, NULL, NULL, NULL };
  CmlIntegratorOptions o = dop_options (1e-10);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlIntegrator) integ = cml_integrator_new (&ode, &o, &error);
  double z[1] = { 1 }, t = 0;

  g_assert_false (cml_integrator_advance (integ, &t, 2.0, z, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_NUMERIC);
  g_test_message ("%s (t = %.17g, z = %g)", error->message, t, z[0]);
  g_assert_nonnull (strstr (error->message, "at t = "));
  g_assert_true (strstr (error->message, "step size underflow") != NULL
                 || strstr (error->message, "non-finite state") != NULL);
  g_assert_cmpfloat (t, <, 1.0 + 1e-9);
  g_assert_cmpfloat (t, >, 0.99);
  g_assert_true (isfinite (z[0]));
  g_assert_cmpfloat_with_epsilon (1.0 / z[0] + t, 1.0, 1e-6);
}

/* A right-hand side that fails past t = 0.5. */
static int
failing_rhs (double t, const double *z, double *dz, void *data)
{
  dz[0] = -z[0];
  return t > 0.5;
}

static void
test_rhs_failure (void)
{
  CmlOde ode = { 1, failing_rhs, NULL, NULL, NULL };
  CmlIntegratorOptions o = dop_options (1e-10);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlIntegrator) integ = cml_integrator_new (&ode, &o, &error);
  double z[1] = { 1 }, t = 0;

  g_assert_false (cml_integrator_advance (integ, &t, 1.0, z, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_NUMERIC);
  g_assert_nonnull (strstr (error->message, "right-hand side failed at t = "));
  /* the last accepted step's end, before the failure (the steps are long here) */
  g_assert_cmpfloat (t, <=, 0.5);
  g_assert_cmpfloat (t, >, 0.1);
  g_assert_cmpfloat_with_epsilon (z[0], exp (-t), 1e-8);
}

/* A nonlinear problem for the restarts: the pendulum. */
static int
pendulum_rhs (double t, const double *z, double *dz, void *data)
{
  dz[0] = z[1];
  dz[1] = -sin (z[0]);
  return 0;
}

static void
run_outputs (CmlIntegrator *integ, double *t, double *z, int from, int to)
{
  g_autoptr (GError) error = NULL;
  for (int k = from; k <= to; k++)
    {
      g_assert_true (cml_integrator_advance (integ, t, k * 0.37, z, &error));
      g_assert_no_error (error);
    }
}

/* Saved at an output and restored into a new integrator, a run goes on bit for bit. */
static void
test_save_restore (void)
{
  CmlOde ode = { 2, pendulum_rhs, NULL, NULL, NULL };
  CmlIntegratorOptions o = dop_options (1e-9);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlIntegrator) a = cml_integrator_new (&ode, &o, &error);
  g_autoptr (CmlIntegrator) b = cml_integrator_new (&ode, &o, &error);
  double za[2] = { 2.5, 0 }, zb[2], ta = 0, tb;
  const guint n = cml_integrator_step_state_size (a);
  g_autofree double *state = g_new (double, n);

  g_assert_true (cml_integrator_step_state_is_exact (a));
  run_outputs (a, &ta, za, 1, 50);
  cml_integrator_save_step_state (a, za, state);
  tb = ta;
  memcpy (zb, za, sizeof za);
  /* b has run something else before: the restore replaces all of it */
  {
    double zo[2] = { 0.1, 0.2 }, to = 0;
    run_outputs (b, &to, zo, 1, 7);
  }
  cml_integrator_restore_step_state (b, zb, state);
  run_outputs (a, &ta, za, 51, 300);
  run_outputs (b, &tb, zb, 51, 300);
  g_assert_true (ta == tb);
  g_assert_cmpmem (za, sizeof za, zb, sizeof zb);

  /* a caller that moves the state restarts from it */
  za[0] += 1e-3;
  run_outputs (a, &ta, za, 301, 310);
  g_assert_true (isfinite (za[0]));
}

/* The same run twice gives the same bits; outputs requested more densely do not change the
 * steps (the integrator steps freely), so the state at common output times agrees to the
 * dense output's accuracy, and the number of steps is the same. */
static void
test_determinism (void)
{
  CmlOde ode = { 2, pendulum_rhs, NULL, NULL, NULL };
  CmlIntegratorOptions o = dop_options (1e-10);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlIntegrator) a = cml_integrator_new (&ode, &o, &error);
  g_autoptr (CmlIntegrator) b = cml_integrator_new (&ode, &o, &error);
  g_autoptr (CmlIntegrator) c = cml_integrator_new (&ode, &o, &error);
  double za[2] = { 2.5, 0 }, zb[2] = { 2.5, 0 }, zc[2] = { 2.5, 0 }, ta = 0, tb = 0, tc = 0;

  run_outputs (a, &ta, za, 1, 200);
  run_outputs (b, &tb, zb, 1, 200);
  g_assert_cmpmem (za, sizeof za, zb, sizeof zb);
  for (int k = 1; k <= 200; k++)
    {
      g_assert_true (cml_integrator_advance (c, &tc, (k - 0.5) * 0.37, zc, &error));
      g_assert_true (cml_integrator_advance (c, &tc, k * 0.37, zc, &error));
    }
  g_assert_cmpuint (cml_integrator_n_steps (a), ==, cml_integrator_n_steps (c));
  g_assert_cmpfloat (fabs (za[0] - zc[0]), <, 1e-8);
}

/* The stiffness estimate: y' = -1000 (y - cos t) is held by stability at loose tolerance. */
static int
stiff_rhs (double t, const double *z, double *dz, void *data)
{
  dz[0] = -1000.0 * (z[0] - cos (t));
  return 0;
}

static void
test_stiffness (void)
{
  CmlOde ode = { 1, stiff_rhs, NULL, NULL, NULL };
  CmlIntegratorOptions o = dop_options (1e-4);
  CmlIntegratorStats stats;
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlIntegrator) integ = NULL;
  double z[1] = { 1 }, t = 0;

  o.stats = &stats;
  integ = cml_integrator_new (&ode, &o, &error);
  g_assert_true (cml_integrator_advance (integ, &t, 10.0, z, &error));
  g_assert_no_error (error);
  g_test_message ("%" G_GUINT64_FORMAT " steps, %" G_GUINT64_FORMAT " checks, %" G_GUINT64_FORMAT " stiff, h rho %.3g",
                  stats.n_steps, stats.n_stiff_checks, stats.n_stiff, stats.h_rho);
  g_assert_cmpuint (stats.n_stiff_checks, >, 0);
  g_assert_cmpuint (stats.n_stiff, >, 0);
  g_assert_cmpfloat (stats.h_rho, >, 3.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/dop853/order-conditions", test_order_conditions);
  g_test_add_func ("/core/dop853/convergence-order", test_convergence_order);
  g_test_add_func ("/core/dop853/dense-output-order", test_dense_order);
  g_test_add_func ("/core/dop853/exact-times", test_exact_times);
  g_test_add_func ("/core/dop853/backwards", test_backwards);
  g_test_add_func ("/core/dop853/blowup", test_blowup);
  g_test_add_func ("/core/dop853/rhs-failure", test_rhs_failure);
  g_test_add_func ("/core/dop853/save-restore", test_save_restore);
  g_test_add_func ("/core/dop853/determinism", test_determinism);
  g_test_add_func ("/core/dop853/stiffness", test_stiffness);

  return g_test_run ();
}
