/* test-project-fused.c — the projection a native step makes of its end (cml-project-core.h,
 * CML_PJ_FUSED_FN), compiled here around a constraint of the test's own: the unit circle
 * h(z) = z₀² + z₁² − 1 in the first two of three components.  It projects like the
 * projection itself, bit for bit, and says whether the state moved; where the projection
 * fails, or the state is not finite, it leaves the state as it was, bit for bit, and says
 * so, so that the integrator projects (and fails) as it would have without it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <glib.h>
#include <math.h>
#include <string.h>

/* NOT_FINITE_LATER: h is not finite from its second evaluation on, after a first step has
 * moved the state */
enum { HEALTHY, NOT_FINITE, SINGULAR, NOT_FINITE_LATER };
static int mode, calls;

/* h and its Jacobian (one row of three) into OUT */
static void
circle (const double *z, double *out)
{
  calls++;
  out[0] = mode == NOT_FINITE || (mode == NOT_FINITE_LATER && calls > 1) ? NAN : z[0] * z[0] + z[1] * z[1] - 1;
  out[1] = mode == SINGULAR ? 0 : 2 * z[0];
  out[2] = mode == SINGULAR ? 0 : 2 * z[1];
  out[3] = 0;
}

static const unsigned no_quaternions[1] = { 0 };

#define CML_PJ_FN                         project_circle
#define CML_PJ_RUN(T, Z)                  circle ((Z), out)
#define CML_PJ_EXTRA_PARAMS
#define CML_PJ_FUSED_FN                   project_circle_fused
#define CML_PJ_FUSED_N                    3
#define CML_PJ_FUSED_RUN(T, Z, PJ, RESID) \
  project_circle ((T), (Z), 1, 3, 0, 3, NULL, no_quaternions, 0, 0, (PJ)->out, (PJ)->A, (PJ)->b, (RESID))
#include "cml-project-core.h"

typedef struct
{
  double out[4], A[1], b[1], z0[3];
  CmlProjectFused pj;
} Fixture;

static void
fixture_init (Fixture *f)
{
  memset (f, 0, sizeof *f);
  f->pj = (CmlProjectFused) { .out = f->out, .A = f->A, .b = f->b, .z0 = f->z0 };
}

/* Off the circle: projected onto it, as the projection itself projects, and said to have
 * moved; on it: said to be unchanged. */
static void
test_projects (void)
{
  Fixture f;
  double z[3] = { 1.2, -0.4, 5.0 }, w[3], resid = 0;

  fixture_init (&f);
  mode = HEALTHY;
  memcpy (w, z, sizeof z);
  project_circle_fused (0.5, z, &f.pj);
  g_assert_cmpint (f.pj.done, ==, 2);
  g_assert_cmpuint (f.pj.n, ==, 1);
  g_assert_cmpfloat_with_epsilon (z[0] * z[0] + z[1] * z[1], 1.0, 1e-14); /* |h| ≤ 1e−15 (1 + |z|∞) */
  g_assert_cmpfloat (z[2], ==, 5.0);
  /* the same bits as the projection called on its own */
  double out[4], A[1], b[1];
  g_assert_cmpint (project_circle (0.5, w, 1, 3, 0, 3, NULL, no_quaternions, 0, 0, out, A, b, &resid), ==, 0);
  g_assert_cmpmem (z, sizeof z, w, sizeof w);

  /* on the circle exactly: nothing to move */
  double on[3] = { 1.0, 0.0, -2.0 };
  project_circle_fused (0.5, on, &f.pj);
  g_assert_cmpint (f.pj.done, ==, 1);
  g_assert_cmpuint (f.pj.n, ==, 2);
  g_assert_cmpfloat (on[0], ==, 1.0);
  g_assert_cmpfloat (on[1], ==, 0.0);
}

/* Where the projection fails — constraint functions not finite, at once or after a first
 * step has moved the state, J Jᵀ singular — or the state is not finite to begin with, the
 * state stays as it came, bit for bit, and nothing is counted. */
static void
test_leaves_failures (void)
{
  static const int modes[] = { NOT_FINITE, SINGULAR, NOT_FINITE_LATER, HEALTHY };
  Fixture f;

  fixture_init (&f);
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      double z[3] = { 1.2, -0.4, 5.0 }, w[3];
      mode = modes[i];
      calls = 0;
      if (mode == HEALTHY)
        z[1] = INFINITY;
      memcpy (w, z, sizeof z);
      f.pj.done = 7;
      project_circle_fused (0.5, z, &f.pj);
      g_assert_cmpint (f.pj.done, ==, 0);
      g_assert_cmpmem (z, sizeof z, w, sizeof w);
      g_assert_cmpuint (f.pj.n, ==, 0);
      g_assert_cmpint (calls, ==, mode == HEALTHY ? 0 : mode == NOT_FINITE_LATER ? 2 : 1);
    }
  /* and a failure leaves no trace for the next projection */
  double z[3] = { 0.6, 0.9, 1.0 };
  mode = HEALTHY;
  project_circle_fused (0.0, z, &f.pj);
  g_assert_cmpint (f.pj.done, ==, 2);
  g_assert_cmpuint (f.pj.n, ==, 1);
  g_assert_cmpfloat_with_epsilon (z[0] * z[0] + z[1] * z[1], 1.0, 1e-14); /* |h| ≤ 1e−15 (1 + |z|∞) */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/project-fused/projects", test_projects);
  g_test_add_func ("/project-fused/leaves-failures", test_leaves_failures);
  return g_test_run ();
}
