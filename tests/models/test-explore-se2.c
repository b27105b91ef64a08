/* test-explore-se2.c — the fan of extremals of SE(2) (doc/examples/se2.cml) against the
 * closed form of its first Maxwell time (doc/theory.md §18.3).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * From the identity with p3 = c held, the covector (p1, p2) = (cos α, sin α) is of the
 * oscillating pendulum's class C1 when its energy E = 2c² + cos 2α is below 1; with
 * k = √((E + 1)/2) it meets its mirror (cos α, −sin α, c) at t = 2K(k), where the heading
 * has turned by ±π.  On fans of 60 covectors for four values of c (at least 100 of class
 * C1 in all): every C1 extremal whose 2K(k) is before T has its first Maxwell time there, to
 * 1e-9 (the fan refines meeting times to 1e-12 max(1, t); the points meet to 1e-6 of their
 * size), with its mirror N − i as partner; the C1 extremals whose 2K(k) is after T meet
 * none before T; and every such pair's endpoints at 2K(k), read as wavefront times, agree
 * to 1e-8 with θ = ±π (θ modulo 2π: the fan compares angles so).
 * The model is recognised as SE(2) by its structure (cml-se2-maxwell.h, what the Geometry
 * page draws Sachkov's Maxwell points from): se2.cml and the same with e3 of the other sign
 * are, with its sections in the order (e1, e2, e3); with another metric, Heisenberg and
 * Martinet are not; cml_se2_maxwell_time is 2K(k) at unit speed and 2K(k)/s at speed s.
 */
#define G_LOG_DOMAIN "test-explore-se2"

#include <gsl/gsl_sf_ellint.h>
#include <string.h>

#include "cml-explore.h"
#include "cml-se2-maxwell.h"
#include "physics-util.h"

#define FAN_N 60
#define FAN_T 6.0

static CmlSimulation *
se2_open (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "se2.cml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (path, &error);
  g_assert_no_error (error);
  return sim_from_model (model);
}

/* 2K(k) for the covector (p1, p2, c) on the unit level, or NAN when it is not of class C1 */
static double
half_period (double p1, double p2, double c)
{
  double E = 2 * c * c + p1 * p1 - p2 * p2;
  if (!(E > -1 && E < 1))
    return NAN;
  return 2 * gsl_sf_ellint_Kcomp (sqrt ((E + 1) / 2), GSL_PREC_DOUBLE);
}

/* the fan of FAN_N from the identity with p3 = C: the covectors of class C1 it has */
static guint
check_fan (double c)
{
  g_autoptr (CmlSimulation) sim = se2_open ();
  g_autoptr (GError) error = NULL;
  sim_reset (sim, "p3", c, NULL);

  CmlExploreOptions opt = cml_explore_options_default ();
  opt.n_covectors = FAN_N;
  opt.t_end = FAN_T;
  opt.n_samples = 20;
  g_autoptr (CmlExploreResult) res = cml_explore (sim, &opt, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (res->n_coords, ==, 3);

  guint nm = res->n_momenta, n_c1 = 0, n_met = 0;
  double worst = 0;
  for (guint i = 0; i < FAN_N; i++)
    {
      const double *p = res->covectors + (gsize) i * nm;
      g_assert_null (res->why[i]);
      g_assert_cmpfloat_with_epsilon (p[2], c, 1e-15);
      double want = half_period (p[0], p[1], c);
      if (isnan (want))
        continue;
      n_c1++;
      if (want < FAN_T - 1e-6)
        {
          g_assert_false (isnan (res->maxwell[i]));
          worst = MAX (worst, fabs (res->maxwell[i] - want));
          assert_close (res->maxwell[i], want, 1e-9);
          g_assert_cmpuint (res->partner[i], ==, (FAN_N - i) % FAN_N);
          n_met++;
        }
      else if (want > FAN_T + 1e-6)
        g_assert_true (isnan (res->maxwell[i]));
    }
  g_test_message ("c = %g: %u covectors of class C1, %u meet their mirror before T, worst |t - 2K| = %.3g",
                  c, n_c1, n_met, worst);
  g_assert_cmpuint (n_met, >, 0);
  return n_c1;
}

static void
test_maxwell (void)
{
  const double cs[] = { 0.3, -0.45, 0.1, 0.2 };
  guint n_c1 = 0;
  for (guint k = 0; k < G_N_ELEMENTS (cs); k++)
    n_c1 += check_fan (cs[k]);
  /* the four fans together: at least 100 covectors of class C1 checked */
  g_assert_cmpuint (n_c1, >=, 100);
}

/* the mirror pairs' endpoints at their own 2K(k), as wavefront times */
static void
test_endpoints (void)
{
  g_autoptr (CmlSimulation) sim = se2_open ();
  g_autoptr (GError) error = NULL;
  const double cs[] = { 0.3, -0.45, 0.15, 0.6 };
  enum { PAIRS = 26 };
  double cov[2 * PAIRS * 3], times[PAIRS];
  guint n_pairs = 0;

  /* pairs of class C1 spread over α (cos α, ± sin α) and c: the times must increase */
  for (guint k = 0; k < PAIRS; k++)
    {
      double c = cs[k % 4], a = 0.35 + 2.4 * k / (PAIRS - 1.0);
      double want = half_period (cos (a), sin (a), c);
      if (isnan (want) || want > 7)
        continue;
      double *p = cov + 6 * n_pairs;
      p[0] = cos (a), p[1] = sin (a), p[2] = c;
      p[3] = cos (a), p[4] = -sin (a), p[5] = c;
      times[n_pairs++] = want;
    }
  g_assert_cmpuint (n_pairs, >=, 10);
  g_test_message ("%u mirror pairs", n_pairs);
  /* the wavefront times in increasing order: sort the pairs by their time */
  for (guint i = 1; i < n_pairs; i++)
    for (guint j = i; j > 0 && times[j - 1] > times[j]; j--)
      {
        double t = times[j], q[6];
        times[j] = times[j - 1], times[j - 1] = t;
        memcpy (q, cov + 6 * j, sizeof q);
        memcpy (cov + 6 * j, cov + 6 * (j - 1), sizeof q);
        memcpy (cov + 6 * (j - 1), q, sizeof q);
      }
  CmlExploreOptions opt = cml_explore_options_default ();
  opt.n_covectors = 2 * n_pairs;
  opt.t_end = times[n_pairs - 1] + 0.5;
  opt.n_times = n_pairs;
  opt.times = times;
  opt.covectors = cov;
  opt.n_samples = 10;
  opt.maxwell_samples = 10;
  g_free (cml_explore_covectors (sim, &opt, NULL, &error)); /* readies the system */
  g_assert_no_error (error);
  g_autoptr (CmlExploreResult) res = cml_explore (sim, &opt, &error);
  g_assert_no_error (error);
  guint nc = res->n_coords, stride = (res->n_times + 1) * nc;
  for (guint k = 0; k < n_pairs; k++)
    {
      const double *a = res->points + (gsize) (2 * k) * stride + (gsize) k * nc;
      const double *b = res->points + (gsize) (2 * k + 1) * stride + (gsize) k * nc;
      double dth = a[2] - b[2];
      dth -= 2 * G_PI * nearbyint (dth / (2 * G_PI));
      assert_close (a[0], b[0], 1e-8);
      assert_close (a[1], b[1], 1e-8);
      assert_close (dth, 0, 1e-8);
      assert_close (fabs (a[2]), G_PI, 1e-8);
    }
}

/* se2.cml's text with each FROM[k] replaced by TO[k] (each must be there) */
static CmlModel *
se2_variant (guint n, const char *const *from, const char *const *to)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "se2.cml", NULL);
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  GString *s = g_string_new (text);
  for (guint k = 0; k < n; k++)
    g_assert_cmpuint (g_string_replace (s, from[k], to[k], 0), >=, 1);
  CmlModel *model = cml_model_new_from_data (s->str, "se2-variant.cml", &error);
  g_assert_no_error (error);
  g_string_free (s, TRUE);
  return model;
}

static void
test_recognise (void)
{
  const double base[3] = { 0.3, -0.2, 0.7 };
  CmlSe2Frame f = { 9, 9, 9 };
  g_autoptr (CmlModel) plain = se2_variant (0, NULL, NULL);
  g_assert_true (cml_se2_recognise (plain, base, &f));
  g_assert_cmpuint (f.translation, ==, 0);
  g_assert_cmpuint (f.rotation, ==, 1);
  g_assert_cmpuint (f.lateral, ==, 2);
  /* e3 of the other sign: [e1, e2] = −e3, [e2, e3] = −e1, the same problem */
  const char *from[] = { "e3 = x: sin(theta); y: -cos(theta)", "e1, e2 = e3", "e2, e3 = e1" };
  const char *to[] = { "e3 = x: -sin(theta); y: cos(theta)", "e1, e2 = -e3", "e2, e3 = -e1" };
  g_autoptr (CmlModel) flipped = se2_variant (3, from, to);
  g_assert_true (cml_se2_recognise (flipped, base, NULL));
  /* another metric: not the problem whose Maxwell time is 2K(k) */
  const char *lf[] = { "lagrangian = (u1^2 + u2^2)/2" }, *lt[] = { "lagrangian = (u1^2 + 2*u2^2)/2" };
  g_autoptr (CmlModel) metric = se2_variant (1, lf, lt);
  g_assert_false (cml_se2_recognise (metric, base, NULL));
  /* nor Heisenberg (its brackets are those of another algebra) nor Martinet (not constant) */
  g_autofree char *hp = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "heisenberg.cml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) heis = cml_model_load (hp, &error);
  g_assert_no_error (error);
  g_assert_false (cml_se2_recognise (heis, base, NULL));
  g_autoptr (CmlModel) martinet = cml_model_load ("martinet", &error);
  g_assert_no_error (error);
  const double mbase[1] = { 0.5 };
  g_assert_false (cml_se2_recognise (martinet, mbase, NULL));

  /* the closed form, at unit speed and at speed 2 */
  for (double a = -3; a < 3.2; a += 0.25)
    for (double c = -0.6; c < 0.7; c += 0.3)
      {
        double want = half_period (cos (a), sin (a), c);
        double got = cml_se2_maxwell_time (cos (a), sin (a), c), fast = cml_se2_maxwell_time (2 * cos (a), 2 * sin (a), 2 * c);
        if (isnan (want))
          g_assert_true (isnan (got) && isnan (fast));
        else
          {
            g_assert_cmpfloat_with_epsilon (got, want, 1e-14 * want);
            g_assert_cmpfloat_with_epsilon (fast, want / 2, 1e-14 * want);
          }
      }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/explore/se2/maxwell", test_maxwell);
  g_test_add_func ("/explore/se2/endpoints", test_endpoints);
  g_test_add_func ("/explore/se2/recognise", test_recognise);
  return g_test_run ();
}
