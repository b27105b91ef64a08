/* cmlab-bench.c — the benchmark of cmlab: how fast and how accurate the engine is, side
 * by side with the same equations written by hand, with XPPAUT and with SciPy.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A program of the build tree, never installed (`meson test -C _build --benchmark` runs
 * its --quick form; bench/README.md gives the full command).  It finds the peers' files
 * (bench/) through $CMLAB_BENCH_DIR, else the source tree it was built from, and the
 * cmlab-cli it measures through $CMLAB_CLI, else the one built beside it.
 *
 * Ten figures, each a ratio or a comparison measured in one run (bench/README.md
 * explains every number):
 *
 *   1. engine overhead — the generic right-hand side compiled from models/NAME.cml against
 *      the same equations written by hand in C (bench/reference-rhs.c), in ns per
 *      evaluation, after checking that the two agree to 1e-12 at many states (if they do
 *      not, the benchmark reports the bug and exits 1); and a whole rk8pd integration with
 *      each, which prices the callback the integrator really calls;
 *   2. against the peers — `cmlab-cli simulate` vs XPPAUT (method 83dp) vs SciPy
 *      solve_ivp (DOP853), same equations, tolerances and span, as subprocesses; wall time
 *      with and without process start-up, and each one's error against the closed form;
 *   3. work–precision — error against the closed form vs right-hand-side evaluations for
 *      every integrator on every built-in over a sweep of tolerances (of step sizes for
 *      the fixed-step implicit midpoint rule);
 *   4. long runs — the relative error of an invariant after 10⁴ and 10⁵ periods (10³ and
 *      10⁴ with --quick) for every integrator at about equal cost (right-hand-side
 *      evaluations per period);
 *   5. constraint residuals (and the attitude quaternion's norm) with and without the
 *      projection after every step;
 *   6. exports — a plot of 10⁶ samples and a 10 s 720p60 video through cmlab-cli;
 *   7. the window's frame statistics (cmlab --frame-stats);
 *   8. the variational integrators on long runs (bench-variational.c);
 *   9. the start-up of cmlab-cli (bench-startup.c);
 *  10. a parameter sweep on one thread and on two (bench-sweep.c);
 *  11. the Taylor integrator against rk8pd at equal error (bench-taylor.c).
 *
 * Timings are medians of repetitions; the machine's load average is recorded with them.
 */
#define G_LOG_DOMAIN "cmlab-bench"

#include "bench-stats.h"
#include "bench-csv.h"
#include "bench-sweep.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <gsl/gsl_errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cml-error.h"
#include "cml-integrator.h"
#include "cml-json.h"
#include "cml-model.h"
#include "cml-system.h"
#include "reference-rhs.h"
#include "bench-shoot.h"
#include "bench-variational.h"
#include "bench-startup.h"
#include "bench-taylor.h"
#include "bench-dop853.h"
#include "bench-wp.h"

/* bench/ of the source tree and the built cmlab-cli (bench/meson.build passes both) */
#ifndef CMLAB_BENCH_SOURCE_DIR
#define CMLAB_BENCH_SOURCE_DIR "bench"
#endif
#ifndef CMLAB_BENCH_BOOST_PEER
#define CMLAB_BENCH_BOOST_PEER NULL  /* bench/boost-peer.cpp, when built */
#endif
#ifndef CMLAB_BENCH_CLI
#define CMLAB_BENCH_CLI "cmlab-cli"
#endif

#define EXIT_BENCH_FAILED 1
#define EXIT_USAGE        2

/* The generic and the hand-written right-hand sides must agree to this, relative to
 * 1 + |f|, at every sampled state. */
#define RHS_AGREEMENT 1e-12

static const char *const figure_names[] = { "overhead", "peers", "work-precision", "long-runs", "exports",
                                             "frames",
                                            "residuals", "variational", "variational-seeded", "startup", "sweep",
                                            "taylor", "dop853",
                                            "work-precision-figures", "interpreter", NULL };

/* Writes CONTENTS to PATH under a temporary name, then renames it: a reader never sees a
 * partial file.  The file gets the mode a plain create would give it. */
static gboolean
write_atomically (const char *path, const char *contents, GError **error)
{
  g_autofree char *tmp = g_strdup_printf ("%s.XXXXXX", path);
  int fd = g_mkstemp (tmp);
  struct stat st;
  mode_t mode;
  size_t len = strlen (contents), done = 0;

  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      return FALSE;
    }
  if (g_stat (path, &st) == 0)
    mode = st.st_mode & 07777;
  else
    {
      mode_t mask = umask (0);
      umask (mask);
      mode = 0666 & ~mask;
    }
  (void) fchmod (fd, mode);
  while (done < len)
    {
      ssize_t w = write (fd, contents + done, len - done);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        {
          int e = errno;
          close (fd);
          g_unlink (tmp);
          g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
          return FALSE;
        }
      done += (size_t) w;
    }
  if (fsync (fd) != 0 || close (fd) != 0 || g_rename (tmp, path) != 0)
    {
      int e = errno;
      g_unlink (tmp);
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "cannot write %s: %s", path, g_strerror (e));
      return FALSE;
    }
  return TRUE;
}

/* ---- small helpers ------------------------------------------------------------------------ */

static void
read_loadavg (double la[3])
{
  g_autofree char *text = NULL;
  la[0] = la[1] = la[2] = NAN;
  if (g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    sscanf (text, "%lf %lf %lf", &la[0], &la[1], &la[2]);
}

/* V printed with FORMAT into BUF, "-" for NaN and infinities */
static const char *
fmt_or_dash (char *buf, size_t size, const char *format, double v)
{
  if (!isfinite (v))
    g_strlcpy (buf, "-", size);
  else
    g_snprintf (buf, size, format, v);
  return buf;
}

/* "1.2e-09" in a fixed width; a count; a ratio with two significant figures or so */
#define FE(v) fmt_or_dash ((char[32]) { 0 }, 32, "%.1e", (v))
#define FC(v) fmt_or_dash ((char[32]) { 0 }, 32, "%.0f", (v))
#define FR(v) fmt_or_dash ((char[32]) { 0 }, 32, (v) < 10 ? "%.1f" : (v) < 1e5 ? "%.0f" : "%.0e", (v))

/* ---- the benchmark's state ------------------------------------------------------------------ */

typedef struct
{
  gboolean quick;
  const char *json_path;
  GStrv    only;           /* figure and/or built-in names, or NULL for everything */
  gboolean rhs_mismatch;   /* a correctness failure: exit 1 */
  double   plot_png_s, video_s;  /* figure 6, NaN when not measured */
  gboolean run_failed;     /* a run that must succeed failed: exit 1 */
  CmlJson *json;          /* every number, as JSON (six significant digits) … */
  GString *json_text;     /* … written here, to --json FILE at the end */
  char    *cli;            /* the cmlab-cli measured, run as a subprocess */
  char    *bench_dir;      /* bench/: the .ode files and peers.py */

  /* for the targets summary */
  double   worst_rhs_ratio;
  const char *worst_rhs_model;
  GArray  *peer_rows;      /* PeerRow */
  GArray  *long_rows;      /* LongRow */
  double   worst_projected_residual;
} Bench;

typedef struct
{
  const char *model;
  double xpp_ratio, scipy_ratio;          /* net wall time over cmlab's */
  double err_cmlab, err_xpp, err_scipy;
  double xpp_cpu_ratio, scipy_cpu_ratio;  /* net CPU time over cmlab's */
  double scipy_equal_error_ratio;         /* solve_ivp alone over cmlab in-process at its error */
} PeerRow;

typedef struct
{
  const char *model;                      /* static */
  const char *label;
  gboolean reversible;
  CmlIntegratorKind kind;
  double max1, max2, growth;
  const char *verdict;
} LongRow;

static gboolean
only_has_kind (Bench *b, gboolean figures)
{
  if (b->only == NULL)
    return FALSE;
  for (guint i = 0; b->only[i]; i++)
    if (g_strv_contains (figure_names, b->only[i]) == figures)
      return TRUE;
  return FALSE;
}

static gboolean
want_figure (Bench *b, const char *figure)
{
  return !only_has_kind (b, TRUE) || g_strv_contains ((const char *const *) b->only, figure);
}

static gboolean
want_model (Bench *b, const char *model)
{
  return !only_has_kind (b, FALSE) || g_strv_contains ((const char *const *) b->only, model);
}

/* ---- one built-in, opened for measuring ------------------------------------------------------ */

typedef struct
{
  const CmlRefSystem *ref;
  CmlSystem          *sys;
  CmlSimulation      *sim;
  CmlRefParams        params;  /* the simulation's parameter values, for the reference */
  double              z0[CML_REF_MAX_DIM];
  guint               dim;
  double              period;
  double             *obs;     /* observables scratch */
} Case;

static void
case_close (Case *c)
{
  g_clear_pointer (&c->sim, cml_simulation_free);
  g_clear_pointer (&c->sys, cml_system_unref);
  g_clear_pointer (&c->obs, g_free);
}

/* Loads built-in MODEL, sets the N_SETS parameters, starts at its initial data and checks
 * that the derived state has the reference's layout. */
static gboolean
case_open (Case *c, const char *model, guint n_sets, const char *const *set_names,
           const double *set_values, GError **error)
{
  g_autoptr (CmlModel) md = NULL;

  memset (c, 0, sizeof *c);
  c->ref = cml_ref_system_lookup (model);
  if (c->ref == NULL)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "no hand-written reference for “%s”", model);
      return FALSE;
    }
  if ((md = cml_model_load (model, error)) == NULL)
    return FALSE;
  if ((c->sys = cml_system_new (md, error)) == NULL)
    return FALSE;
  if ((c->sim = cml_simulation_new (c->sys, error)) == NULL)
    return FALSE;
  for (guint k = 0; k < n_sets; k++)
    if (!cml_simulation_set_param (c->sim, set_names[k], set_values[k], error))
      return FALSE;
  if (!cml_simulation_reset (c->sim, NULL, error))
    return FALSE;

  /* the reference must use the engine's state layout */
  c->dim = cml_system_dim (c->sys);
  if (c->dim != c->ref->dim)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "%s: the derived state has %u components, the hand-written one %u", model,
                   c->dim, c->ref->dim);
      return FALSE;
    }
  for (guint i = 0; i < c->dim; i++)
    if (!g_str_equal (cml_system_state_name (c->sys, i), c->ref->state_names[i]))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                     "%s: state component %u is “%s” in the engine, “%s” in the reference", model,
                     i, cml_system_state_name (c->sys, i), c->ref->state_names[i]);
        return FALSE;
      }
  memcpy (c->z0, cml_simulation_get_state (c->sim), c->dim * sizeof (double));
  for (guint k = 0; k < c->ref->n_params; k++)
    c->params.p[k] = cml_simulation_get_param (c->sim, c->ref->param_names[k]);
  c->ref->prepare (&c->params);
  c->period = cml_ref_period (c->ref, &c->params, c->z0);
  c->obs = g_new0 (double, cml_system_n_observables (c->sys));
  return TRUE;
}

/* The largest deviation of the named components at the simulation's current state from
 * the closed form at time T (NaN when there is none). */
static double
case_error_now (Case *c)
{
  const char *names[16];
  double exact[16], err = 0.0;
  double t = cml_simulation_get_time (c->sim);
  guint n = cml_ref_exact (c->ref, &c->params, c->z0, t, names, exact, 16);

  if (n == 0)
    return NAN;
  cml_simulation_observe (c->sim, c->obs);
  for (guint k = 0; k < n; k++)
    {
      int i = cml_system_observable_index (c->sys, names[k]);
      g_assert (i >= 0);
      err = MAX (err, fabs (c->obs[i] - exact[k]));
    }
  return err;
}

/* The error of a state given by name = value pairs (a subprocess's output). */
static double
case_error_of (Case *c, double t, GHashTable *values)
{
  const char *names[16];
  double exact[16], err = 0.0;
  guint n = cml_ref_exact (c->ref, &c->params, c->z0, t, names, exact, 16);

  if (n == 0)
    return NAN;
  for (guint k = 0; k < n; k++)
    {
      double *v = g_hash_table_lookup (values, names[k]);
      if (v == NULL)
        continue;
      err = MAX (err, fabs (*v - exact[k]));
    }
  return err;
}

/* Chooses integrator OPTIONS and starts again at the initial data. */
static gboolean
case_restart (Case *c, const CmlIntegratorOptions *options, GError **error)
{
  return cml_simulation_set_integrator (c->sim, options, error)
         && cml_simulation_reset (c->sim, NULL, error);
}

/* ======================================================================================
 * 1. Engine overhead
 * ====================================================================================== */

#define N_STATES 256

typedef struct
{
  double hand_ns, generic_ns, ratio;
  double interp_ns, interp_ratio;   /* the same with the interpreter instead of native code */
  gboolean native;
  double hand_fixed_ns, generic_fixed_ns;
  double max_dev;
  /* rk8pd integration with each */
  double int_hand_s, int_generic_s;
  guint64 int_hand_rhs, int_generic_rhs;
  double int_state_diff, int_callback_ns, int_ratio;
} Overhead;

/* A state where both right-hand sides are defined: every component in [−1.5, 1.5], ρ of
 * Capri–Kobayashi in [0.5, 1.5]; t in [0, 10]. */
static void
random_state (Case *c, GRand *rand, double *t, double *z)
{
  *t = g_rand_double_range (rand, 0.0, 10.0);
  for (guint i = 0; i < c->dim; i++)
    z[i] = g_rand_double_range (rand, -1.5, 1.5);
  if (g_str_has_prefix (c->ref->model, "capri-kobayashi") && g_str_equal (c->ref->state_names[2], "rho"))
    z[2] = g_rand_double_range (rand, 0.5, 1.5);
}

static volatile double sink;

static void
measure_overhead (Bench *b, Case *c, Overhead *o)
{
  const guint dim = c->dim;
  /* many short repetitions: on a shared machine most of them run undisturbed, and the
   * median is one of those */
  const guint n_eval = 16384;
  const guint reps = b->quick ? 41 : 151;
  g_autoptr (GRand) rand = g_rand_new_with_seed (20240601);
  g_autofree double *ts = g_new (double, N_STATES);
  g_autofree double *zs = g_new (double, N_STATES * dim);
  double dz[CML_REF_MAX_DIM], dh[CML_REF_MAX_DIM];
  g_autofree double *hand = g_new (double, reps);
  g_autofree double *gen = g_new (double, reps);
  g_autofree double *interp = g_new (double, reps);
  g_autofree double *gen_fixed = g_new (double, reps);
  g_autofree double *hand_fixed = g_new (double, reps);
  CmlRefRhsFunc rhs = c->ref->rhs;
  void *pp = &c->params;
  double acc = 0.0;

  for (guint k = 0; k < N_STATES; k++)
    random_state (c, rand, &ts[k], zs + k * dim);
  o->native = cml_simulation_is_native (c->sim);

  /* correctness first: the two must agree at every sampled state */
  o->max_dev = 0.0;
  for (guint k = 0; k < N_STATES; k++)
    {
      g_autoptr (GError) error = NULL;
      if (!cml_simulation_eval_rhs_at (c->sim, ts[k], zs + k * dim, dz, &error))
        {
          g_printerr ("bench: %s: the generic right-hand side failed: %s\n", c->ref->model, error->message);
          o->max_dev = INFINITY;
          continue;
        }
      rhs (ts[k], zs + k * dim, dh, pp);
      for (guint i = 0; i < dim; i++)
        {
          double d = fabs (dz[i] - dh[i]) / (1.0 + fabs (dh[i]));
          if (!(d <= o->max_dev))
            o->max_dev = isnan (d) ? INFINITY : d;
          if (!(d <= RHS_AGREEMENT))
            {
              static guint reported;
              if (reported++ < 8)
                g_printerr ("bench: %s: d%s/dt differs: generic %.17g, hand-written %.17g (t = %g)\n",
                            c->ref->model, c->ref->state_names[i], dz[i], dh[i], ts[k]);
            }
        }
    }

  /* timing: the five loops interleaved in every repetition, medians over repetitions
   * (repetition 0 is a warm-up: caches, branch predictors, clock frequency) */
  for (guint r = 0; r < reps; r++)
    {
      double t0, t1;

      t0 = bench_thread_cpu_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          guint s = k & (N_STATES - 1);
          rhs (ts[s], zs + s * dim, dh, pp);
          acc += dh[0];
        }
      t1 = bench_thread_cpu_s ();
      hand[r] = (t1 - t0) / n_eval * 1e9;

      t0 = bench_thread_cpu_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          guint s = k & (N_STATES - 1);
          cml_simulation_eval_rhs_at (c->sim, ts[s], zs + s * dim, dz, NULL);
          acc += dz[0];
        }
      t1 = bench_thread_cpu_s ();
      gen[r] = (t1 - t0) / n_eval * 1e9;

      cml_simulation_set_native (c->sim, FALSE);
      t0 = bench_thread_cpu_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          guint s = k & (N_STATES - 1);
          cml_simulation_eval_rhs_at (c->sim, ts[s], zs + s * dim, dz, NULL);
          acc += dz[0];
        }
      t1 = bench_thread_cpu_s ();
      interp[r] = (t1 - t0) / n_eval * 1e9;
      cml_simulation_set_native (c->sim, o->native);

      cml_simulation_set_state (c->sim, ts[0], zs);
      t0 = bench_thread_cpu_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          cml_simulation_eval_rhs (c->sim, dz, NULL);
          acc += dz[0];
        }
      t1 = bench_thread_cpu_s ();
      gen_fixed[r] = (t1 - t0) / n_eval * 1e9;

      t0 = bench_thread_cpu_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          rhs (ts[0], zs, dh, pp);
          acc += dh[0];
        }
      t1 = bench_thread_cpu_s ();
      hand_fixed[r] = (t1 - t0) / n_eval * 1e9;
    }
  sink = acc;
  o->hand_ns = bench_median (hand + 1, reps - 1);
  o->generic_ns = bench_median (gen + 1, reps - 1);
  o->interp_ns = bench_median (interp + 1, reps - 1);
  o->interp_ratio = o->interp_ns / o->hand_ns;
  o->generic_fixed_ns = bench_median (gen_fixed + 1, reps - 1);
  o->hand_fixed_ns = bench_median (hand_fixed + 1, reps - 1);
  o->ratio = o->generic_ns / o->hand_ns;

  /* a whole rk8pd integration (rtol = atol = 1e-10, no projection) with each right-hand
   * side: the same steps, so the difference per evaluation is what the generic callback
   * costs the integrator beyond the hand-written one */
  {
    const guint ireps = b->quick ? 9 : 31;
    const double t_end = 10 * c->period;
    CmlIntegratorOptions opt = cml_integrator_options_default ();
    g_autofree double *tg = g_new (double, ireps);
    g_autofree double *th = g_new (double, ireps);
    double zh[CML_REF_MAX_DIM];
    CmlOde ode = { .dim = dim, .rhs = rhs, .user_data = pp };
    g_autoptr (GError) error = NULL;

    opt.rtol = opt.atol = 1e-10;
    opt.project = FALSE;
    o->int_state_diff = 0.0;
    if (!case_restart (c, &opt, &error))
      {
        g_printerr ("bench: %s: %s\n", c->ref->model, error->message);
        b->run_failed = TRUE;
        return;
      }
    for (guint r = 0; r < ireps; r++)
      {
        g_autoptr (CmlIntegrator) integ = cml_integrator_new (&ode, &opt, &error);
        guint64 n0;
        double t = 0.0, t0;
        gboolean ok;

        cml_simulation_reset (c->sim, NULL, NULL);
        n0 = cml_simulation_n_rhs (c->sim);
        t0 = bench_thread_cpu_s ();
        ok = cml_simulation_advance (c->sim, t_end, &error);
        tg[r] = bench_thread_cpu_s () - t0;
        o->int_generic_rhs = cml_simulation_n_rhs (c->sim) - n0;

        memcpy (zh, c->z0, dim * sizeof (double));
        t0 = bench_thread_cpu_s ();
        ok = ok && cml_integrator_advance (integ, &t, t_end, zh, &error);
        th[r] = bench_thread_cpu_s () - t0;
        o->int_hand_rhs = cml_integrator_n_rhs (integ);
        if (!ok)
          {
            g_printerr ("bench: %s: integration failed: %s\n", c->ref->model, error->message);
            b->run_failed = TRUE;
            return;
          }
        for (guint i = 0; i < dim; i++)
          o->int_state_diff = MAX (o->int_state_diff, fabs (zh[i] - cml_simulation_get_state (c->sim)[i]));
      }
    o->int_generic_s = bench_median (tg, ireps);
    o->int_hand_s = bench_median (th, ireps);
    o->int_ratio = (o->int_generic_s / o->int_generic_rhs) / (o->int_hand_s / o->int_hand_rhs);
    o->int_callback_ns = o->hand_ns
                         + 1e9 * (o->int_generic_s / o->int_generic_rhs - o->int_hand_s / o->int_hand_rhs);
  }
}

static void
fig_overhead (Bench *b)
{
  guint n;
  const CmlRefSystem *refs = cml_ref_systems (&n);

  printf ("\n1. Engine overhead: generic right-hand side (compiled from models/NAME.cml) vs the same\n"
          "   equations hand-written in C; ns per evaluation, medians of repetitions\n\n");
  printf ("   %-22s %8s %8s %7s %8s %7s %9s   %-26s %9s\n", "model", "hand", "generic", "ratio",
          "interp.", "ratio", "agree", "in rk8pd: callback ns", "int.ratio");
  cml_json_begin_array (b->json, "overhead", CML_JSON_BLOCK);
  b->worst_rhs_ratio = 0.0;
  for (guint k = 0; k < n; k++)
    {
      Case c;
      Overhead o = { 0 };
      g_autoptr (GError) error = NULL;

      if (!want_model (b, refs[k].model))
        continue;
      g_printerr ("bench: overhead %s\n", refs[k].model);
      if (!case_open (&c, refs[k].model, 0, NULL, NULL, &error))
        {
          g_printerr ("bench: %s\n", error->message);
          b->rhs_mismatch = TRUE;
          case_close (&c);
          continue;
        }
      measure_overhead (b, &c, &o);
      if (!(o.max_dev <= RHS_AGREEMENT))
        b->rhs_mismatch = TRUE;
      if (o.ratio > b->worst_rhs_ratio)
        {
          b->worst_rhs_ratio = o.ratio;
          b->worst_rhs_model = refs[k].model;
        }
      printf ("   %-22s %8.1f %8.1f %6.2fx %8.1f %6.2fx %9s   %7.1f (%6.0f evals) %8.2fx\n", refs[k].model,
              o.hand_ns, o.generic_ns, o.ratio, o.interp_ns, o.interp_ratio, o.max_dev <= RHS_AGREEMENT ? FE (o.max_dev) : "MISMATCH",
              o.int_callback_ns, (double) o.int_generic_rhs, o.int_ratio);

      cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
      cml_json_string (b->json, "model", refs[k].model);
      cml_json_int (b->json, "dim", c.dim);
      cml_json_number (b->json, "hand_ns", o.hand_ns);
      cml_json_number (b->json, "generic_ns", o.generic_ns);
      cml_json_number (b->json, "ratio", o.ratio);
      cml_json_bool (b->json, "native_code", o.native);
      cml_json_number (b->json, "interpreter_ns", o.interp_ns);
      cml_json_number (b->json, "interpreter_ratio", o.interp_ratio);
      cml_json_number (b->json, "hand_fixed_state_ns", o.hand_fixed_ns);
      cml_json_number (b->json, "generic_fixed_state_ns", o.generic_fixed_ns);
      cml_json_number (b->json, "fixed_state_ratio", o.generic_fixed_ns / o.hand_fixed_ns);
      cml_json_number (b->json, "max_relative_deviation", o.max_dev);
      cml_json_bool (b->json, "agree", o.max_dev <= RHS_AGREEMENT);
      cml_json_begin_object (b->json, "rk8pd_integration", CML_JSON_BLOCK);
      cml_json_number (b->json, "periods", 10);
      cml_json_number (b->json, "hand_s", o.int_hand_s);
      cml_json_number (b->json, "generic_s", o.int_generic_s);
      cml_json_int (b->json, "hand_rhs_evals", o.int_hand_rhs);
      cml_json_int (b->json, "generic_rhs_evals", o.int_generic_rhs);
      cml_json_number (b->json, "per_eval_ratio", o.int_ratio);
      cml_json_number (b->json, "generic_callback_ns", o.int_callback_ns);
      cml_json_number (b->json, "final_state_difference", o.int_state_diff);
      cml_json_end (b->json);
      cml_json_end (b->json);
      case_close (&c);
    }
  cml_json_end (b->json);
  printf ("\n   hand, generic: ns of CPU time per call at 256 varying states (generic: cml_simulation_eval_rhs_at,\n"
          "   native code compiled from the model; interp.: the same program through the interpreter, which runs\n"
          "   when no C compiler is at hand); agree: largest |generic − hand|/(1+|hand|);\n"
          "   in rk8pd: a whole integration (rtol = atol = 1e-10) with each right-hand side, the extra\n"
          "   time per evaluation added to the hand-written cost, and the ratio of time per evaluation.\n");
}

/* ======================================================================================
 * 2. Against the peers: XPPAUT and SciPy, as subprocesses
 * ====================================================================================== */

static double
children_cpu_s (void)
{
  struct rusage ru;
  getrusage (RUSAGE_CHILDREN, &ru);
  return (double) ru.ru_utime.tv_sec + 1e-6 * (double) ru.ru_utime.tv_usec + (double) ru.ru_stime.tv_sec
         + 1e-6 * (double) ru.ru_stime.tv_usec;
}

/* Runs ARGV in CWD; on success returns the wall time in seconds (the child's user + system
 * CPU time in *CPU, its stdout in *OUT, its stderr in *ERR; each may be NULL). */
static double
run_process (char **argv, const char *cwd, char **out, char **err, double *cpu, GError **error)
{
  g_autofree char *sout = NULL, *serr = NULL;
  int status;
  double c0 = children_cpu_s (), t0 = bench_wall_s (), t;

  if (!g_spawn_sync (cwd, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &sout, &serr, &status, error))
    return NAN;
  t = bench_wall_s () - t0;
  if (cpu)
    *cpu = children_cpu_s () - c0;
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s failed: %s", argv[0],
                   serr && *serr ? g_strstrip (serr) : "non-zero exit status");
      return NAN;
    }
  if (out)
    *out = g_steal_pointer (&sout);
  if (err)
    *err = g_steal_pointer (&serr);
  return t;
}

/* The last non-empty line of TEXT (a static copy is not needed: returns a new string). */
static char *
last_line (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (int i = (int) g_strv_length (lines) - 1; i >= 0; i--)
    if (*g_strstrip (lines[i]))
      return g_strdup (lines[i]);
  return NULL;
}

/* Name → value of the last row of a `cmlab-cli simulate` CSV file (after its "#" lines,
 * the header row, then one row per output time). */
static GHashTable *
parse_simulate_csv (const char *path, double *t, GError **error)
{
  g_autoptr (GHashTable) values = bench_csv_last_row (path, error);

  if (values == NULL)
    return NULL;
  if (!g_hash_table_contains (values, "t"))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "%s: no column t", path);
      return NULL;
    }
  *t = *(double *) g_hash_table_lookup (values, "t");
  return g_steal_pointer (&values);
}

static double
lookup_num (GHashTable *values, const char *name)
{
  double *v = values ? g_hash_table_lookup (values, name) : NULL;
  return v ? *v : NAN;
}

typedef struct
{
  double total_s, startup_s, net_s; /* wall time, medians; net = total − start-up */
  double cpu_net_s;                 /* user + system CPU time, total − start-up */
  double err;
  double extra;                     /* cmlab: in-process time; SciPy: solve_ivp's own time */
  double nfev;
  gboolean available;
  char  *why;                       /* when not available or failed */
} PeerResult;

static void
peer_result_clear (PeerResult *r)
{
  g_clear_pointer (&r->why, g_free);
}

/* cmlab in-process: the `simulate` loop (advance to each output time, observe there) at
 * rtol = atol = TOL, without loading the model or writing rows; the median time of REPS
 * runs, and the error at the end in *ERR. */
static double
cmlab_in_process (Case *c, double t_end, double dt_out, double tol, guint reps, double *err)
{
  CmlIntegratorOptions opt = cml_integrator_options_default ();
  g_autofree double *times = g_new (double, reps);
  guint n_rows = (guint) floor (t_end / dt_out * (1 + 1e-12));

  *err = NAN;
  opt.rtol = opt.atol = tol;
  if (!case_restart (c, &opt, NULL))
    return NAN;
  for (guint r = 0; r < reps; r++)
    {
      double t0;
      cml_simulation_reset (c->sim, NULL, NULL);
      t0 = bench_thread_cpu_s ();
      cml_simulation_observe (c->sim, c->obs);
      for (guint k = 1; k <= n_rows; k++)
        {
          double tk = MIN (k * dt_out, t_end);
          if (!cml_simulation_advance (c->sim, tk, NULL))
            return NAN;
          cml_simulation_observe (c->sim, c->obs);
        }
      if (cml_simulation_get_time (c->sim) < t_end && !cml_simulation_advance (c->sim, t_end, NULL))
        return NAN;
      times[r] = bench_thread_cpu_s () - t0;
    }
  *err = case_error_now (c);
  return bench_median (times, reps);
}

/* The loosest tolerance (1e-10 · 10^(k/4), k = 0…16) at which cmlab's error is still at most
 * TARGET: the peers' error, for a comparison at equal error rather than equal tolerance. */
static double
cmlab_matched_tolerance (Case *c, double t_end, double dt_out, double target)
{
  double best = NAN;
  for (int k = 0; k <= 16; k++)
    {
      double tol = 1e-10 * pow (10.0, k / 4.0), err;
      if (isnan (cmlab_in_process (c, t_end, dt_out, tol, 1, &err)) || !(err <= target))
        break;
      best = tol;
    }
  return best;
}

static const char *
python_path (void)
{
  return g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE) ? "/usr/bin/python3" : "python3";
}

/* Reads a run's result (from its stdout or its output file) into R->err (and more);
 * FALSE with an error when the run's output is unusable. */
typedef gboolean (*PeerCheck) (const char *out, gpointer data, PeerResult *r, GError **error);

/* One tool of the comparison: its run and start-up commands, how to read its result. */
typedef struct
{
  char     **run, **startup;
  PeerCheck  check;
  gpointer   data;
  PeerResult *r;
  gboolean   active;
  double    *tt, *ts, *tn, *cn;
} PeerTool;

/* Runs every active tool's command and its start-up command, tool after tool, REPS times
 * (after one untimed round): a burst of load on the shared machine then hits all tools
 * alike.  Medians of the total, of the start-up and of the paired differences; a tool
 * whose run fails is dropped with the reason in r->why. */
static void
time_peers (PeerTool *tools, guint n, const char *cwd, guint reps)
{
  for (guint i = 0; i < n; i++)
    {
      tools[i].tt = g_new (double, reps);
      tools[i].ts = g_new (double, reps);
      tools[i].tn = g_new (double, reps);
      tools[i].cn = g_new (double, reps);
    }
  for (guint k = 0; k <= reps; k++)
    for (guint i = 0; i < n; i++)
      {
        PeerTool *p = &tools[i];
        g_autoptr (GError) error = NULL;
        g_autofree char *out = NULL;
        double ca = 0.0, cs = 0.0, a, s = NAN;

        if (!p->active)
          continue;
        a = run_process (p->run, cwd, &out, NULL, &ca, &error);
        if (!isnan (a) && p->check (out, p->data, p->r, &error))
          s = run_process (p->startup, cwd, NULL, NULL, &cs, &error);
        if (isnan (s))
          {
            p->r->why = g_strdup (error->message);
            p->active = FALSE;
            continue;
          }
        if (k == 0)
          continue; /* warm-up: caches, page-ins */
        p->tt[k - 1] = a;
        p->ts[k - 1] = s;
        p->tn[k - 1] = a - s;
        p->cn[k - 1] = ca - cs;
      }
  for (guint i = 0; i < n; i++)
    {
      PeerTool *p = &tools[i];
      if (p->active)
        {
          p->r->total_s = bench_median (p->tt, reps);
          p->r->startup_s = bench_median (p->ts, reps);
          p->r->net_s = bench_median (p->tn, reps);
          p->r->cpu_net_s = bench_median (p->cn, reps);
          p->r->available = TRUE;
        }
      g_free (p->tt);
      g_free (p->ts);
      g_free (p->tn);
      g_free (p->cn);
    }
}

typedef struct
{
  Case       *c;
  const char *path;   /* the output file */
  double      t_end;
  guint       dim;
  double     *extra;  /* SciPy: solve_ivp's own times, one per call */
  guint       n_extra;
} PeerData;

static gboolean
check_cmlab (const char *out, gpointer data, PeerResult *r, GError **error)
{
  PeerData *d = data;
  double t;
  g_autoptr (GHashTable) v = parse_simulate_csv (d->path, &t, error);
  if (v == NULL)
    return FALSE;
  r->err = case_error_of (d->c, t, v);
  return TRUE;
}

/* XPPAUT's last row: t, the state, then the error columns of the .ode file, scaled by
 * 1e12 there because XPPAUT stores its output in single precision. */
static gboolean
check_xppaut (const char *out, gpointer data, PeerResult *r, GError **error)
{
  PeerData *d = data;
  g_autofree char *dat = NULL, *last = NULL;
  g_auto (GStrv) cells = NULL;
  guint nc = 0;

  if (!g_file_get_contents (d->path, &dat, NULL, error))
    return FALSE;
  last = last_line (dat);
  cells = g_strsplit_set (last ? last : "", " \t", -1);
  r->err = 0.0;
  for (guint i = 0; cells[i]; i++)
    {
      double v;
      if (!*cells[i])
        continue;
      v = g_ascii_strtod (cells[i], NULL);
      if (nc == 0 && !(fabs (v - d->t_end) <= 1e-5 * d->t_end))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "XPPAUT stopped at t = %g, not %g", v, d->t_end);
          return FALSE;
        }
      if (nc > d->dim)
        r->err = MAX (r->err, fabs (v) * 1e-12);
      nc++;
    }
  if (nc <= d->dim + 1)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "XPPAUT's output has no error columns");
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_scipy (const char *out, gpointer data, PeerResult *r, GError **error)
{
  PeerData *d = data;
  g_autoptr (GHashTable) v = bench_parse_pairs (out ? out : "");
  double t = lookup_num (v, "t");
  if (!(fabs (t - d->t_end) <= 1e-9 * d->t_end))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "peers.py printed no final state");
      return FALSE;
    }
  r->err = case_error_of (d->c, t, v);
  r->nfev = lookup_num (v, "nfev");
  d->extra[d->n_extra++] = lookup_num (v, "solve_cpu_seconds");
  return TRUE;
}

/* A copy of the .ode file ODE with its line "@ total=…" set to TOTAL (the span). */
static gboolean
write_ode_with_total (const char *ode, const char *dest, const char *total, GError **error)
{
  g_autofree char *text = NULL, *joined = NULL;
  g_auto (GStrv) lines = NULL;
  gboolean found = FALSE;

  if (!g_file_get_contents (ode, &text, NULL, error))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    if (g_str_has_prefix (lines[i], "@ total="))
      {
        g_free (lines[i]);
        lines[i] = g_strdup_printf ("@ total=%s", total);
        found = TRUE;
      }
  if (!found)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_IO, "%s has no line “@ total=…”", ode);
      return FALSE;
    }
  joined = g_strjoinv ("\n", lines);
  return g_file_set_contents (dest, joined, -1, error);
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)))
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      g_unlink (p);
    }
  g_rmdir (dir);
}

static void
json_peer (CmlJson *j, const char *key, PeerResult *r, int which)
{
  cml_json_begin_object (j, key, CML_JSON_BLOCK);
  cml_json_bool (j, "available", r->available);
  if (r->available)
    {
      cml_json_number (j, "total_s", r->total_s);
      cml_json_number (j, "startup_s", r->startup_s);
      cml_json_number (j, "net_s", r->net_s);
      cml_json_number (j, "cpu_net_s", r->cpu_net_s);
      cml_json_number (j, "error", r->err);
      if (which == 0)
        cml_json_number (j, "in_process_s", r->extra);
      if (which == 2)
        {
          cml_json_number (j, "solve_ivp_s", r->extra);
          cml_json_number (j, "nfev", r->nfev);
        }
    }
  else
    cml_json_string (j, "why", r->why);
  cml_json_end (j);
}

static void
fig_peers (Bench *b)
{
  static const char *const models[] = { "rolling-ball", "plate-ball", "martinet", "capri-kobayashi",
                                        "capri-kobayashi-full", NULL };
  /* spans (in periods) that give cmlab some 50 ms of work in the full run, so that its net
   * time stands clear of the start-up's jitter */
  static const double full_periods[] = { 1000, 1000, 2000, 3000, 10000 };
  const guint reps = b->quick ? 3 : 7;
  const double tol = 1e-10;
  g_autoptr (GError) terr = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("cmlab-bench-XXXXXX", &terr);
  g_autofree char *xpp = g_find_program_in_path ("xppaut");
  g_autofree char *peers_py = g_build_filename (b->bench_dir, "peers.py", NULL);
  g_autofree char *scipy_why = NULL;
  g_autofree char *tol_s = g_strdup_printf ("%g", tol);
  char *py_startup[] = { (char *) python_path (), peers_py, "--startup", NULL };

  printf ("\n2. Against the peers: rtol = atol = %g, a row every period, %s;\n"
          "   wall time in ms of subprocesses (medians of %u rounds, each running every tool and,\n"
          "   after it, the same command with nothing to integrate), net = total − start-up (median\n"
          "   of the pairs); error = largest deviation from the closed form at the end\n\n",
          tol, b->quick ? "100 periods" : "span in periods after the name", reps);
  cml_json_begin_object (b->json, "peers", CML_JSON_BLOCK);
  cml_json_number (b->json, "rtol", tol);
  cml_json_number (b->json, "atol", tol);
  cml_json_int (b->json, "repetitions", reps);
  if (tmp == NULL)
    {
      printf ("   (cannot make a temporary directory: %s)\n", terr->message);
      cml_json_string (b->json, "error", terr->message);
      cml_json_end (b->json);
      return;
    }
  {
    g_autoptr (GError) error = NULL;
    if (isnan (run_process (py_startup, tmp, NULL, NULL, NULL, &error)))
      scipy_why = g_strdup (error->message);
  }
  if (xpp == NULL)
    printf ("   XPPAUT not found (Debian package xppaut): its columns are left empty\n");
  if (scipy_why)
    printf ("   SciPy not usable (%s): its columns are left empty\n", scipy_why);

  printf ("   %-26s %-19s %9s %9s %9s %9s %9s %10s %10s\n", "model", "", "total ms", "start ms",
          "net ms", "cpu ms", "error", "net/cmlab", "cpu/cmlab");
  cml_json_begin_array (b->json, "runs", CML_JSON_BLOCK);
  for (guint m = 0; models[m]; m++)
    {
      Case c;
      g_autoptr (GError) error = NULL;
      PeerResult cm = { 0 }, xp = { 0 }, sp = { 0 };
      double T, t_end, periods, matched_tol = NAN, matched_s = NAN;
      g_autofree char *t_end_s = NULL, *dt_s = NULL;

      if (!want_model (b, models[m]))
        continue;
      g_printerr ("bench: peers %s\n", models[m]);
      if (!case_open (&c, models[m], 0, NULL, NULL, &error))
        {
          g_printerr ("bench: %s\n", error->message);
          b->rhs_mismatch = TRUE;
          case_close (&c);
          continue;
        }
      T = c.period;
      periods = b->quick ? 100 : full_periods[m];
      t_end = periods * T;
      t_end_s = g_strdup_printf ("%.17g", t_end);
      dt_s = g_strdup_printf ("%.17g", T);

      /* the three tools, each as a subprocess with its start-up command */
      {
        /* cmlab-cli simulate, as a user runs it; start-up: the same with --t-end 0 */
        g_autofree char *out_cm = g_build_filename (tmp, "cmlab.csv", NULL);
        char *argv_cm[] = { b->cli, "simulate", (char *) models[m], "--t-end", t_end_s, "--dt-out", dt_s,
                            "--rtol", tol_s, "--atol", tol_s, "-o", out_cm, NULL };
        char *argv_cm0[] = { b->cli, "simulate", (char *) models[m], "--t-end", "0", "--dt-out", dt_s,
                             "--rtol", tol_s, "--atol", tol_s, "-o", out_cm, NULL };
        PeerData d_cm = { &c, out_cm, t_end, c.dim };
        /* XPPAUT: bench/MODEL.ode in batch mode, its span set to t_end; start-up: the
         * same file with a span of 1e-9 */
        g_autofree char *src = g_strdup_printf ("%s/%s.ode", b->bench_dir, models[m]);
        g_autofree char *ode = g_build_filename (tmp, "run.ode", NULL);
        g_autofree char *ode0 = g_build_filename (tmp, "startup.ode", NULL);
        g_autofree char *out_xp = g_build_filename (tmp, "xpp.dat", NULL);
        g_autofree char *out_xp0 = g_build_filename (tmp, "xpp0.dat", NULL);
        char *argv_xp[] = { xpp, ode, "-silent", "-quiet", "1", "-outfile", out_xp, NULL };
        char *argv_xp0[] = { xpp, ode0, "-silent", "-quiet", "1", "-outfile", out_xp0, NULL };
        PeerData d_xp = { &c, out_xp, t_end, c.dim };
        /* SciPy: bench/peers.py MODEL; start-up: peers.py --startup (the imports) */
        char *argv_sp[] = { (char *) python_path (), peers_py, (char *) models[m], "--t-end", t_end_s,
                            "--dt-out", dt_s, "--rtol", tol_s, "--atol", tol_s, NULL };
        g_autofree double *solve = g_new (double, reps + 1);
        PeerData d_sp = { &c, NULL, t_end, c.dim, solve, 0 };
        PeerTool tools[] = {
          { argv_cm, argv_cm0, check_cmlab, &d_cm, &cm, TRUE },
          { argv_xp, argv_xp0, check_xppaut, &d_xp, &xp, xpp != NULL },
          { argv_sp, py_startup, check_scipy, &d_sp, &sp, scipy_why == NULL },
        };

        if (xpp == NULL)
          xp.why = g_strdup ("xppaut is not installed");
        else if (!write_ode_with_total (src, ode, t_end_s, &error)
                 || !write_ode_with_total (src, ode0, "1e-9", &error))
          {
            xp.why = g_strdup (error->message);
            g_clear_error (&error);
            tools[1].active = FALSE;
          }
        if (scipy_why)
          sp.why = g_strdup (scipy_why);
        time_peers (tools, G_N_ELEMENTS (tools), tmp, reps);
        if (!cm.available)
          b->run_failed = TRUE;
        else
          {
            double e;
            cm.extra = cmlab_in_process (&c, t_end, T, tol, reps, &e);
          }
        if (sp.available)
          sp.extra = bench_median (solve + 1, d_sp.n_extra - 1);
      }

      /* cmlab at the loosest tolerance that still gives the peers' (smaller) error */
      if (cm.available && (xp.available || sp.available))
        {
          double target = MIN (xp.available ? xp.err : INFINITY, sp.available ? sp.err : INFINITY), e;
          matched_tol = cmlab_matched_tolerance (&c, t_end, T, target);
          if (!isnan (matched_tol))
            matched_s = cmlab_in_process (&c, t_end, T, matched_tol, reps, &e);
        }

      {
        /* a net time at or below zero means the run was lost in the start-up's jitter */
        gboolean cm_ok = cm.available && cm.net_s > 0.0;
        double rx = xp.available && cm_ok && xp.net_s > 0.0 ? xp.net_s / cm.net_s : NAN;
        double rs = sp.available && cm_ok && sp.net_s > 0.0 ? sp.net_s / cm.net_s : NAN;
        PeerRow row = { models[m], rx, rs, cm.available ? cm.err : NAN, xp.available ? xp.err : NAN,
                        sp.available ? sp.err : NAN,
                        xp.available && cm.available ? xp.cpu_net_s / cm.cpu_net_s : NAN,
                        sp.available && cm.available ? sp.cpu_net_s / cm.cpu_net_s : NAN,
                        sp.available ? sp.extra / matched_s : NAN };
#define MS(r, f) ((r).available ? 1e3 * (r).f : NAN)
        g_autofree char *label = b->quick ? g_strdup (models[m]) : g_strdup_printf ("%s %.0f", models[m], periods);
        printf ("   %-26s %-19s %9.0f %9.0f %9.0f %9.0f %9s\n", label, "cmlab-cli simulate",
                MS (cm, total_s), MS (cm, startup_s), MS (cm, net_s), MS (cm, cpu_net_s),
                FE (cm.available ? cm.err : NAN));
        printf ("   %-26s %-19s %9s %9s %9s %9.0f\n", "", "  (in-process loop)", "", "", "", MS (cm, extra));
        if (!isnan (matched_s))
          printf ("   %-26s %-19s %9s %9s %9s %9.0f %9s   (rtol = atol = %.1e: the peers' error)\n", "",
                  "  (same, equal err)", "", "", "", 1e3 * matched_s, "", matched_tol);
        printf ("   %-26s %-19s %9.0f %9.0f %9.0f %9.0f %9s %9sx %9sx\n", "", "XPPAUT 83dp",
                MS (xp, total_s), MS (xp, startup_s), MS (xp, net_s), MS (xp, cpu_net_s),
                FE (xp.available ? xp.err : NAN), FR (rx),
                FR (xp.available && cm.available ? xp.cpu_net_s / cm.cpu_net_s : NAN));
        printf ("   %-26s %-19s %9.0f %9.0f %9.0f %9.0f %9s %9sx %9sx\n", "", "SciPy DOP853",
                MS (sp, total_s), MS (sp, startup_s), MS (sp, net_s), MS (sp, cpu_net_s),
                FE (sp.available ? sp.err : NAN), FR (rs),
                FR (sp.available && cm.available ? sp.cpu_net_s / cm.cpu_net_s : NAN));
        printf ("   %-26s %-19s %9s %9s %9s %9.0f\n", "", "  (solve_ivp alone)", "", "", "", MS (sp, extra));
#undef MS
        cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
        cml_json_string (b->json, "model", models[m]);
        cml_json_number (b->json, "period", T);
        cml_json_number (b->json, "periods", periods);
        cml_json_number (b->json, "t_end", t_end);
        json_peer (b->json, "cmlab", &cm, 0);
        json_peer (b->json, "xppaut", &xp, 1);
        json_peer (b->json, "scipy", &sp, 2);
        cml_json_number (b->json, "xppaut_over_cmlab_net", rx);
        cml_json_number (b->json, "scipy_over_cmlab_net", rs);
        cml_json_number (b->json, "xppaut_over_cmlab_total", xp.available && cm.available ? xp.total_s / cm.total_s : NAN);
        cml_json_number (b->json, "scipy_over_cmlab_total", sp.available && cm.available ? sp.total_s / cm.total_s : NAN);
        cml_json_number (b->json, "scipy_solve_over_cmlab_in_process",
                  sp.available && cm.available ? sp.extra / cm.extra : NAN);
        cml_json_number (b->json, "xppaut_over_cmlab_cpu",
                  xp.available && cm.available ? xp.cpu_net_s / cm.cpu_net_s : NAN);
        cml_json_number (b->json, "scipy_over_cmlab_cpu",
                  sp.available && cm.available ? sp.cpu_net_s / cm.cpu_net_s : NAN);
        cml_json_begin_object (b->json, "cmlab_at_equal_error", CML_JSON_BLOCK);
        cml_json_number (b->json, "tolerance", matched_tol);
        cml_json_number (b->json, "in_process_s", matched_s);
        cml_json_number (b->json, "scipy_solve_over_this", sp.available ? sp.extra / matched_s : NAN);
        cml_json_end (b->json);
        cml_json_end (b->json);
        g_array_append_val (b->peer_rows, row);
      }
      if (!cm.available)
        printf ("   %-20s  cmlab: %s\n", "", cm.why);
      if (xpp && !xp.available)
        printf ("   %-20s  XPPAUT: %s\n", "", xp.why);
      if (scipy_why == NULL && !sp.available)
        printf ("   %-20s  SciPy: %s\n", "", sp.why);
      peer_result_clear (&cm);
      peer_result_clear (&xp);
      peer_result_clear (&sp);
      case_close (&c);
    }
  cml_json_end (b->json);
  cml_json_end (b->json);
  if (b->quick)
    printf ("\n   (--quick: spans this short leave net times of a few ms, within the start-up's jitter;\n"
            "   judge the ratios on a full run)");
  printf ("\n   cpu = the child's user + system CPU time, total − start-up (steadier than wall time on a\n"
          "   busy machine); in-process loop = cmlab's simulate loop, CPU time inside this process;\n"
          "   solve_ivp alone = its CPU time inside Python.  The targets are judged on net wall time.\n");
  remove_tree (tmp);
}

/* ======================================================================================
 * 3. Work–precision
 * ====================================================================================== */

static const CmlIntegratorKind all_kinds[] = {
  CML_INTEGRATOR_RK8PD, CML_INTEGRATOR_RKF45, CML_INTEGRATOR_RKCK, CML_INTEGRATOR_RK4,
  CML_INTEGRATOR_MSADAMS, CML_INTEGRATOR_MSBDF, CML_INTEGRATOR_IMPLICIT_MIDPOINT,
};

/* Sets the accuracy knob of OPTIONS: the tolerances (rtol = atol = X) of an adaptive
 * method, the step h = X of the fixed-step one. */
static void
set_accuracy (CmlIntegratorOptions *o, double x)
{
  if (o->kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT)
    o->h_fixed = x;
  else
    o->rtol = o->atol = x;
}

typedef struct
{
  double   x;        /* tolerance, or step size */
  double   err;      /* against the closed form at the end */
  guint64  n_rhs;
  double   secs;
  char    *failure;
} WpPoint;

/* Integrates from the initial data to T_END in one advance and measures. */
static void
wp_point (Case *c, CmlIntegratorKind kind, double x, double t_end, WpPoint *p)
{
  CmlIntegratorOptions o = cml_integrator_options_default ();
  g_autoptr (GError) error = NULL;
  double t0;

  o.kind = kind;
  set_accuracy (&o, x);
  p->x = x;
  p->err = NAN;
  p->n_rhs = 0;
  p->failure = NULL;
  if (!case_restart (c, &o, &error))
    {
      p->failure = g_strdup (error->message);
      return;
    }
  t0 = bench_thread_cpu_s ();
  if (!cml_simulation_advance (c->sim, t_end, &error))
    {
      p->failure = g_strdup (error->message);
      p->n_rhs = cml_simulation_n_rhs (c->sim);
      return;
    }
  p->secs = bench_thread_cpu_s () - t0;
  p->n_rhs = cml_simulation_n_rhs (c->sim);
  p->err = case_error_now (c);
}

/* Right-hand-side evaluations needed to reach error ≤ TARGET, interpolated log–log between
 * the sweep's points (sorted by cost); NaN when no point reaches it. */
static double
evals_for (WpPoint *pts, guint n, double target)
{
  for (guint i = 0; i < n; i++)
    {
      if (pts[i].failure || !(pts[i].err <= target))
        continue;
      for (int j = (int) i - 1; j >= 0; j--)
        if (!pts[j].failure && pts[j].err > target && pts[j].n_rhs < pts[i].n_rhs)
          {
            double a = log (pts[j].err), bb = log (pts[i].err), s = (log (target) - a) / (bb - a);
            return exp (log ((double) pts[j].n_rhs)
                        + s * (log ((double) pts[i].n_rhs) - log ((double) pts[j].n_rhs)));
          }
      return (double) pts[i].n_rhs;
    }
  return NAN;
}

static int
cmp_wp (const void *a, const void *b)
{
  const WpPoint *p = a, *q = b;
  return p->n_rhs < q->n_rhs ? -1 : p->n_rhs > q->n_rhs;
}

static void
fig_work_precision (Bench *b)
{
  static const double tols_full[] = { 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12 };
  static const double tols_quick[] = { 1e-4, 1e-6, 1e-8, 1e-10, 1e-12 };
  static const double steps_full[] = { 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384 };
  static const double steps_quick[] = { 16, 128, 1024, 8192 };
  const double *tols = b->quick ? tols_quick : tols_full;
  const guint n_tols = b->quick ? G_N_ELEMENTS (tols_quick) : G_N_ELEMENTS (tols_full);
  const double *steps = b->quick ? steps_quick : steps_full;
  const guint n_steps = b->quick ? G_N_ELEMENTS (steps_quick) : G_N_ELEMENTS (steps_full);
  const double periods = 10;
  guint n;
  const CmlRefSystem *refs = cml_ref_systems (&n);

  printf ("\n3. Work–precision: %g periods from the default initial data; error = largest deviation\n"
          "   from the closed form at the end; rtol = atol swept over %g … %g (implicit midpoint:\n"
          "   h = T/%g … T/%g); evals per period needed for error ≤ 1e-6 and ≤ 1e-9 (log–log\n"
          "   interpolation between sweep points), and the best error reached\n\n",
          periods, tols[0], tols[n_tols - 1], steps[0], steps[n_steps - 1]);
  printf ("   %-22s %-18s %12s %12s %10s %12s\n", "model", "integrator", "evals/T @1e-6",
          "evals/T @1e-9", "best err", "at evals/T");
  cml_json_begin_array (b->json, "work_precision", CML_JSON_BLOCK);
  for (guint k = 0; k < n; k++)
    {
      Case c;
      g_autoptr (GError) error = NULL;

      if (!want_model (b, refs[k].model))
        continue;
      g_printerr ("bench: work-precision %s\n", refs[k].model);
      if (!case_open (&c, refs[k].model, 0, NULL, NULL, &error))
        {
          g_printerr ("bench: %s\n", error->message);
          b->rhs_mismatch = TRUE;
          case_close (&c);
          continue;
        }
      cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
      cml_json_string (b->json, "model", refs[k].model);
      cml_json_number (b->json, "period", c.period);
      cml_json_number (b->json, "periods", periods);
      cml_json_begin_array (b->json, "integrators", CML_JSON_BLOCK);
      for (guint i = 0; i < G_N_ELEMENTS (all_kinds); i++)
        {
          CmlIntegratorKind kind = all_kinds[i];
          gboolean mid = kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT;
          guint np = mid ? n_steps : n_tols;
          g_autofree WpPoint *pts = g_new0 (WpPoint, np);
          double best = INFINITY, best_cost = NAN;
          const char *failure = NULL;

          for (guint j = 0; j < np; j++)
            {
              wp_point (&c, kind, mid ? c.period / steps[j] : tols[j], periods * c.period, &pts[j]);
              if (pts[j].failure && !failure)
                failure = pts[j].failure;
              if (pts[j].err < best)
                {
                  best = pts[j].err;
                  best_cost = pts[j].n_rhs / periods;
                }
            }
          cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
          cml_json_string (b->json, "integrator", cml_integrator_kind_to_string (kind));
          cml_json_string (b->json, "knob", mid ? "h" : "rtol=atol");
          cml_json_begin_array (b->json, "points", CML_JSON_BLOCK);
          for (guint j = 0; j < np; j++)
            {
              cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
              cml_json_number (b->json, mid ? "h" : "tol", pts[j].x);
              cml_json_int (b->json, "rhs_evals", pts[j].n_rhs);
              cml_json_number (b->json, "error", pts[j].err);
              cml_json_number (b->json, "seconds", pts[j].secs);
              if (pts[j].failure)
                cml_json_string (b->json, "failure", pts[j].failure);
              cml_json_end (b->json);
            }
          cml_json_end (b->json);
          qsort (pts, np, sizeof (WpPoint), cmp_wp);
          {
            double e6 = evals_for (pts, np, 1e-6) / periods, e9 = evals_for (pts, np, 1e-9) / periods;
            cml_json_number (b->json, "evals_per_period_for_1e-6", e6);
            cml_json_number (b->json, "evals_per_period_for_1e-9", e9);
            cml_json_number (b->json, "best_error", best);
            cml_json_end (b->json);
            printf ("   %-22s %-18s %12s %12s %10s %12s%s%s\n", i == 0 ? refs[k].model : "",
                    cml_integrator_kind_to_string (kind), FC (e6), FC (e9), FE (best), FC (best_cost),
                    failure ? "  (failed: " : "", failure ? "see JSON)" : "");
          }
          for (guint j = 0; j < np; j++)
            g_free (pts[j].failure);
        }
      cml_json_end (b->json);
      cml_json_end (b->json);
      case_close (&c);
    }
  cml_json_end (b->json);
}

/* ======================================================================================
 * 4. Long runs at equal cost
 * ====================================================================================== */

typedef struct
{
  const char *label;
  const char *model;
  guint       n_sets;
  const char *set_names[2];
  double      set_values[2];
  const char *invariant;  /* a monitor of the model */
  gboolean    reversible;
} LongCase;

static const LongCase long_cases[] = {
  { "martinet", "martinet", 0, { NULL }, { 0 }, "energy", TRUE },
  { "plate-ball c=Omega=0", "plate-ball", 2, { "c", "Omega" }, { 0, 0 }, "H", TRUE },
  { "capri-kobayashi", "capri-kobayashi", 0, { NULL }, { 0 }, "energy", TRUE },
  { "rolling-ball Omega=0", "rolling-ball", 1, { "Omega" }, { 0 }, "energy", TRUE },
  { "rolling-ball Omega=1", "rolling-ball", 1, { "Omega" }, { 1 }, "I", FALSE },
};

/* Right-hand-side evaluations per period at which every integrator is run ("equal cost"). */
#define LONG_BUDGET 200.0

/* Evaluations per period of a run of PERIODS periods with accuracy knob X (NaN on failure). */
static double
evals_per_period (Case *c, CmlIntegratorKind kind, double x, double periods)
{
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = kind;
  set_accuracy (&o, x);
  if (!case_restart (c, &o, NULL) || !cml_simulation_advance (c->sim, periods * c->period, NULL))
    return NAN;
  return cml_simulation_n_rhs (c->sim) / periods;
}

/* The accuracy knob that spends about BUDGET evaluations per period: bisection on its
 * logarithm (cost falls as the tolerance or the step grows). */
static double
calibrate (Case *c, CmlIntegratorKind kind, double budget, double periods, double *spent)
{
  gboolean mid = kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT;
  double lo = mid ? log10 (c->period) - 5.0 : -14.0; /* expensive end */
  double hi = mid ? log10 (c->period) - 0.5 : -2.0;  /* cheap end */
  double best_x = pow (10.0, 0.5 * (lo + hi)), best_gap = INFINITY;

  *spent = NAN;
  for (int it = 0; it < 16; it++)
    {
      double xm = 0.5 * (lo + hi), x = pow (10.0, xm);
      double e = evals_per_period (c, kind, x, periods);
      double gap = isnan (e) ? INFINITY : fabs (log (e / budget));
      if (gap < best_gap)
        {
          best_gap = gap;
          best_x = x;
          *spent = e;
        }
      if (gap < 0.05)
        break;
      if (isnan (e) || e < budget)
        hi = xm; /* too cheap (or failed): tighten */
      else
        lo = xm;
    }
  return best_x;
}

typedef struct
{
  double x, epp_cal;
  double max1, max2, end1, end2, growth;
  double sol1, sol2;  /* the solution's error against the closed form at P1 and P2 periods */
  double epp, secs;
  char  *failure;
} LongResult;

/* The relative error |M − M0|/|M0| of the invariant, sampled 1000 times up to P2 periods;
 * its largest value up to P1 and up to P2 = 10 P1. */
static void
long_run (Case *c, CmlIntegratorKind kind, double x, const char *invariant, double p1, double p2,
          LongResult *r)
{
  CmlIntegratorOptions o = cml_integrator_options_default ();
  g_autoptr (GError) error = NULL;
  int idx = cml_system_observable_index (c->sys, invariant);
  const guint n_checks = 1000;
  guint check1 = (guint) llround (n_checks * p1 / p2);
  double m0, t0;

  g_assert (idx >= 0);
  o.kind = kind;
  set_accuracy (&o, x);
  r->max1 = r->max2 = r->end1 = r->end2 = r->sol1 = r->sol2 = NAN;
  if (!case_restart (c, &o, &error))
    {
      r->failure = g_strdup (error->message);
      return;
    }
  cml_simulation_observe (c->sim, c->obs);
  m0 = c->obs[idx];
  r->max1 = r->max2 = 0.0;
  t0 = bench_thread_cpu_s ();
  for (guint k = 1; k <= n_checks; k++)
    {
      double e;
      if (!cml_simulation_advance (c->sim, k * (p2 / n_checks) * c->period, &error))
        {
          r->failure = g_strdup (error->message);
          break;
        }
      cml_simulation_observe (c->sim, c->obs);
      e = fabs (c->obs[idx] - m0) / fabs (m0);
      if (k <= check1)
        r->max1 = MAX (r->max1, e);
      r->max2 = MAX (r->max2, e);
      if (!(e <= 10.0))
        {
          /* blown up: the rest of the run says nothing more (and would only crawl) */
          r->failure = g_strdup_printf ("diverged: invariant error %.1e after %.0f periods", e,
                                        k * (p2 / n_checks));
          break;
        }
      if (k == check1)
        {
          r->end1 = e;
          r->sol1 = case_error_now (c);
        }
      if (k == n_checks)
        {
          r->end2 = e;
          r->sol2 = case_error_now (c);
        }
    }
  r->secs = bench_thread_cpu_s () - t0;
  r->epp = cml_simulation_n_rhs (c->sim) / MAX (cml_simulation_get_time (c->sim) / c->period, 1e-300);
  r->growth = r->max2 / r->max1;
}

/* Bounded, or growing (roughly like √t for a random walk of rounding errors, like t for a
 * secular drift); errors at rounding level count as bounded. */
static const char *
growth_verdict (const LongResult *r)
{
  if (r->failure)
    return g_str_has_prefix (r->failure, "diverged") ? "diverged" : "failed";
  if (r->max2 <= 1e-13)
    return "rounding";
  if (r->growth < 2.0)
    return "bounded";
  if (r->growth < 5.0)
    return "~sqrt(t)";
  if (r->growth < 30.0)
    return "~t";
  return "faster";
}

static void
fig_long_runs (Bench *b)
{
  const double p1 = b->quick ? 1e3 : 1e4, p2 = 10 * p1;
  const double cal_periods = b->quick ? 10 : 20;

  printf ("\n4. Long runs at equal cost (about %.0f right-hand-side evaluations per period for every\n"
          "   integrator, tolerance or step calibrated on %g periods): largest relative error of the\n"
          "   invariant up to %.0e and %.0e periods, growth = their ratio (bounded < 2, ~sqrt(t) < 5,\n"
          "   ~t < 30, else faster), and the solution's error against the closed form at the end\n\n",
          LONG_BUDGET, cal_periods, p1, p2);
  printf ("   %-20s %-6s %-17s %8s %7s %9s %9s %6s %-8s %9s %6s\n", "system", "invar.", "integrator",
          "tol / h", "evals/T", FE (p1), FE (p2), "growth", "verdict", "sol.err", "secs");
  cml_json_begin_object (b->json, "long_runs", CML_JSON_BLOCK);
  cml_json_number (b->json, "budget_evals_per_period", LONG_BUDGET);
  cml_json_number (b->json, "periods_short", p1);
  cml_json_number (b->json, "periods_long", p2);
  cml_json_begin_array (b->json, "runs", CML_JSON_BLOCK);
  for (guint k = 0; k < G_N_ELEMENTS (long_cases); k++)
    {
      const LongCase *lc = &long_cases[k];
      Case c;
      g_autoptr (GError) error = NULL;

      if (!want_model (b, lc->model))
        continue;
      if (!case_open (&c, lc->model, lc->n_sets, lc->set_names, lc->set_values, &error))
        {
          g_printerr ("bench: %s\n", error->message);
          b->rhs_mismatch = TRUE;
          case_close (&c);
          continue;
        }
      cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
      cml_json_string (b->json, "system", lc->label);
      cml_json_string (b->json, "model", lc->model);
      cml_json_string (b->json, "invariant", lc->invariant);
      cml_json_bool (b->json, "reversible", lc->reversible);
      cml_json_number (b->json, "period", c.period);
      cml_json_begin_array (b->json, "integrators", CML_JSON_BLOCK);
      for (guint i = 0; i < G_N_ELEMENTS (all_kinds); i++)
        {
          CmlIntegratorKind kind = all_kinds[i];
          LongResult r = { 0 };
          g_printerr ("bench: long run %s %s\n", lc->label, cml_integrator_kind_to_string (kind));
          r.x = calibrate (&c, kind, LONG_BUDGET, cal_periods, &r.epp_cal);
          long_run (&c, kind, r.x, lc->invariant, p1, p2, &r);
          /* a fixed step calibrated on a few periods can be too long somewhere later
           * (the stage equation has no solution nearby): shorter steps, at a higher cost,
           * which the evals/T column shows */
          for (int retry = 0; kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT && r.failure != NULL
                              && !g_str_has_prefix (r.failure, "diverged") && retry < 4; retry++)
            {
              double x = r.x * 0.7, cal = r.epp_cal;
              g_printerr ("bench: %s: %s; again with h = %.3g\n", lc->label, r.failure, x);
              g_clear_pointer (&r.failure, g_free);
              memset (&r, 0, sizeof r);
              r.x = x;
              r.epp_cal = cal;
              long_run (&c, kind, r.x, lc->invariant, p1, p2, &r);
            }
          printf ("   %-20s %-6s %-17s %8.1e %7.0f %9s %9s %6s %-8s %9s %6.1f\n", i == 0 ? lc->label : "",
                  i == 0 ? lc->invariant : "", cml_integrator_kind_to_string (kind), r.x, r.epp,
                  FE (r.max1), FE (r.max2), FR (r.growth), growth_verdict (&r), FE (r.sol2), r.secs);
          cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
          cml_json_string (b->json, "integrator", cml_integrator_kind_to_string (kind));
          cml_json_number (b->json, kind == CML_INTEGRATOR_IMPLICIT_MIDPOINT ? "h" : "tol", r.x);
          cml_json_number (b->json, "evals_per_period", r.epp);
          cml_json_number (b->json, "evals_per_period_calibration", r.epp_cal);
          cml_json_number (b->json, "max_rel_error_short", r.max1);
          cml_json_number (b->json, "max_rel_error_long", r.max2);
          cml_json_number (b->json, "rel_error_at_short", r.end1);
          cml_json_number (b->json, "rel_error_at_long", r.end2);
          cml_json_number (b->json, "growth", r.growth);
          cml_json_string (b->json, "verdict", growth_verdict (&r));
          cml_json_number (b->json, "solution_error_short", r.sol1);
          cml_json_number (b->json, "solution_error_long", r.sol2);
          cml_json_number (b->json, "seconds", r.secs);
          if (r.failure)
            cml_json_string (b->json, "failure", r.failure);
          cml_json_end (b->json);
          {
            LongRow row = { lc->model, lc->label, lc->reversible, kind, r.max1, r.max2, r.growth,
                            growth_verdict (&r) };
            g_array_append_val (b->long_rows, row);
          }
          g_free (r.failure);
        }
      cml_json_end (b->json);
      cml_json_end (b->json);
      case_close (&c);
    }
  cml_json_end (b->json);
  cml_json_end (b->json);
}

/* ======================================================================================
 * 5. Constraint residuals with and without projection
 * ====================================================================================== */

/* ======================================================================================
 * 6. Exports: a plot of 10^6 samples to PNG, a 10 s 720p60 video, both through cmlab-cli
 * ====================================================================================== */

/* Runs ARGV (a cmlab-cli command): the wall time and the command's standard error, or NaN
 * after saying why. */
static double
run_cli (Bench *b, char **argv, char **err)
{
  g_autoptr (GError) error = NULL;
  double t = run_process (argv, NULL, NULL, err, NULL, &error);

  if (isnan (t))
    {
      g_printerr ("bench: cmlab-cli %s: %s\n", argv[1], error->message);
      b->run_failed = TRUE;
    }
  return t;
}

/* The number after "KEY": in TEXT (the flat JSON of cmlab --frame-stats), NaN if absent. */
static double
json_number (const char *text, const char *key)
{
  g_autofree char *pattern = g_strdup_printf ("\"%s\": ", key);
  const char *p = strstr (text, pattern);

  return p ? g_ascii_strtod (p + strlen (pattern), NULL) : NAN;
}

static void
fig_exports (Bench *b)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-bench-XXXXXX", &error);
  const guint reps = b->quick ? 1 : 3;

  if (dir == NULL)
    {
      g_printerr ("bench: %s\n", error->message);
      b->run_failed = TRUE;
      return;
    }
  printf ("\n6. Exports through cmlab-cli (wall time, the best of %u)\n\n", reps);
  cml_json_begin_object (b->json, "exports", CML_JSON_BLOCK);

  /* a plot of 10^6 samples: the simulation and the drawing are timed apart by the command */
  {
    g_autofree char *png = g_build_filename (dir, "plot.png", NULL);
    g_autofree char *pdf = g_build_filename (dir, "plot.pdf", NULL);
    const char *outs[] = { png, pdf };
    const char *names[] = { "png", "pdf" };
    for (guint f = 0; f < G_N_ELEMENTS (outs); f++)
      {
        double best_draw = INFINITY, best_total = INFINITY;
        for (guint r = 0; r < reps; r++)
          {
            g_autofree char *err = NULL;
            char *argv[] = { b->cli, "plot", "martinet", "--t-end", "2000", "--samples", "1000000",
                             "--y", "x1,u", "--size", "1200x700", "-o", (char *) outs[f], NULL };
            double total = run_cli (b, argv, &err);
            const char *p = err ? strstr (err, "drawing and writing ") : NULL;
            double draw = p ? g_ascii_strtod (p + strlen ("drawing and writing "), NULL) : NAN;
            if (!(total < best_total))
              continue;
            best_total = total;
            best_draw = draw;
          }
        printf ("   plot of 10^6 samples (2 series, martinet, 2000 time units) to %s, 1200x700: "
                "drawing and writing %.3f s, with the simulation %.2f s\n", names[f], best_draw, best_total);
        cml_json_begin_object (b->json, names[f], CML_JSON_BLOCK);
        cml_json_number (b->json, "samples", 1e6);
        cml_json_number (b->json, "drawing_s", best_draw);
        cml_json_number (b->json, "total_s", best_total);
        cml_json_end (b->json);
        if (f == 0)
          b->plot_png_s = best_draw;
      }
  }

  /* a 10 s video at 720p60 (its target: faster than real time) */
  if (g_find_program_in_path ("ffmpeg") == NULL)
    printf ("   video: ffmpeg is not installed, not measured\n");
  else
    {
      g_autofree char *mp4 = g_build_filename (dir, "ball.mp4", NULL);
      double best = INFINITY;
      for (guint r = 0; r < reps; r++)
        {
          g_autofree char *err = NULL;
          char *argv[] = { b->cli, "render", "rolling-ball", "--t-end", "10", "--fps", "60",
                           "--size", "1280x720", "-o", mp4, NULL };
          best = MIN (best, run_cli (b, argv, &err));
        }
      printf ("   video: rolling-ball, 10 s of video, 1280x720 at 60 fps, MP4 (H.264): %.2f s "
              "(%.1fx real time)\n", best, 10.0 / best);
      cml_json_number (b->json, "video_720p60_10s_s", best);
      b->video_s = best;
      g_unlink (mp4);
    }
  cml_json_end (b->json);
  {
    g_autofree char *png = g_build_filename (dir, "plot.png", NULL);
    g_autofree char *pdf = g_build_filename (dir, "plot.pdf", NULL);
    g_unlink (png);
    g_unlink (pdf);
  }
  g_rmdir (dir);
}

/* ======================================================================================
 * 7. The window's frame statistics: `cmlab --model NAME --play --quit-after S
 *    --frame-stats FILE`, on the display there is, else under xvfb-run
 * ====================================================================================== */

static void
fig_frames (Bench *b)
{
  static const char *const models[] = { "rolling-ball", "rolling-ball-varying", "plate-ball", "martinet",
                                        "capri-kobayashi", "capri-kobayashi-full", NULL };
  g_autofree char *bindir = g_path_get_dirname (b->cli);
  /* the build tree (src/cli next to src/app), else an installed cmlab beside cmlab-cli */
  g_autofree char *built = g_build_filename (bindir, "..", "app", "cmlab", NULL);
  g_autofree char *beside = g_build_filename (bindir, "cmlab", NULL);
  const char *app = g_file_test (built, G_FILE_TEST_IS_EXECUTABLE) ? built
                    : g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE) ? beside : NULL;
  g_autofree char *xvfb = g_find_program_in_path ("xvfb-run");
  gboolean display = g_getenv ("DISPLAY") != NULL || g_getenv ("WAYLAND_DISPLAY") != NULL;
  const char *secs = b->quick ? "4" : "10";
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("cmlab-bench-XXXXXX", &error);

  printf ("\n7. The window's frame statistics: cmlab --play for %s s per model, default window size,\n"
          "   %s; frame intervals from the frame clock (16.7 ms = 60 Hz)\n\n", secs,
          display ? "on this display" : "under xvfb-run (1600x1000, Mesa llvmpipe)");
  cml_json_begin_array (b->json, "frames", CML_JSON_BLOCK);
  if (app == NULL || dir == NULL || (!display && xvfb == NULL))
    {
      printf ("   not measured: %s\n", app == NULL ? "the cmlab program was not found beside cmlab-cli"
                                       : dir == NULL ? error->message : "no display and no xvfb-run");
      cml_json_end (b->json);
      return;
    }
  printf ("   %-22s %8s %12s %12s %10s\n", "model", "frames", "median ms", "p95 ms", "sim. s");
  for (guint m = 0; models[m]; m++)
    {
      g_autofree char *json_path = g_build_filename (dir, "stats.json", NULL);
      g_autofree char *text = NULL;
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();

      if (!want_model (b, models[m]))
        continue;
      if (!display)
        {
          g_ptr_array_add (argv, xvfb);
          g_ptr_array_add (argv, "-a");
          g_ptr_array_add (argv, "-s");
          g_ptr_array_add (argv, "-screen 0 1600x1000x24");
        }
      g_ptr_array_add (argv, (char *) app);
      g_ptr_array_add (argv, "--model");
      g_ptr_array_add (argv, (char *) models[m]);
      g_ptr_array_add (argv, "--play");
      g_ptr_array_add (argv, "--quit-after");
      g_ptr_array_add (argv, (char *) secs);
      g_ptr_array_add (argv, "--frame-stats");
      g_ptr_array_add (argv, json_path);
      g_ptr_array_add (argv, NULL);
      g_printerr ("bench: frames %s\n", models[m]);
      g_unlink (json_path);
      if (isnan (run_process ((char **) argv->pdata, NULL, NULL, NULL, NULL, &error))
          || !g_file_get_contents (json_path, &text, NULL, NULL))
        {
          printf ("   %-22s not measured (%s)\n", models[m], error ? error->message : "no statistics written");
          g_clear_error (&error);
          continue;
        }
      {
        double nf = json_number (text, "frames"), vm = json_number (text, "median_interval_ms");
        double vp = json_number (text, "p95_interval_ms"), vs = json_number (text, "sim_time");
        printf ("   %-22s %8.0f %12.3f %12.3f %10.2f\n", models[m], nf, vm, vp, vs);
        cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
        cml_json_string (b->json, "model", models[m]);
        cml_json_number (b->json, "frames", nf);
        cml_json_number (b->json, "median_interval_ms", vm);
        cml_json_number (b->json, "p95_interval_ms", vp);
        cml_json_number (b->json, "sim_time", vs);
        cml_json_end (b->json);
      }
      g_unlink (json_path);
    }
  cml_json_end (b->json);
  g_rmdir (dir);
}

static void
fig_residuals (Bench *b)
{
  static const char *const models[] = { "rolling-ball", "rolling-ball-varying", "capri-kobayashi", NULL };
  const double periods = b->quick ? 1e3 : 1e4;
  const guint n_checks = 100;

  printf ("\n5. Constraint residuals over %.0e periods, with and without projection after every step:\n"
          "   the largest norm of the constraint functions (and of |q| − 1 for the ball's attitude)\n\n",
          periods);
  printf ("   %-21s %-28s %-8s %12s %12s %7s\n", "model", "integrator", "project", "max residual",
          "max ||q|-1|", "secs");
  cml_json_begin_object (b->json, "residuals", CML_JSON_BLOCK);
  cml_json_number (b->json, "periods", periods);
  cml_json_begin_array (b->json, "runs", CML_JSON_BLOCK);
  for (guint m = 0; models[m]; m++)
    {
      Case c;
      g_autoptr (GError) error = NULL;
      int q0 = -1;

      if (!want_model (b, models[m]))
        continue;
      g_printerr ("bench: residuals %s\n", models[m]);
      if (!case_open (&c, models[m], 0, NULL, NULL, &error))
        {
          g_printerr ("bench: %s\n", error->message);
          b->rhs_mismatch = TRUE;
          case_close (&c);
          continue;
        }
      for (guint i = 0; i < c.dim; i++)
        if (g_str_equal (cml_system_state_name (c.sys, i), "q0"))
          q0 = (int) i;
      for (guint ik = 0; ik < 2; ik++)
        for (int proj = 1; proj >= 0; proj--)
          {
            CmlIntegratorOptions o = cml_integrator_options_default ();
            double res = 0.0, qn = q0 >= 0 ? 0.0 : NAN, t0, secs;
            const char *failure = NULL;
            g_autofree char *label = NULL;

            if (ik == 1)
              {
                o.kind = CML_INTEGRATOR_RKF45;
                o.rtol = o.atol = 1e-6;
              }
            o.project = proj;
            label = g_strdup_printf ("%s rtol %g atol %g", cml_integrator_kind_to_string (o.kind), o.rtol, o.atol);
            if (!case_restart (&c, &o, &error))
              failure = error->message;
            t0 = bench_thread_cpu_s ();
            for (guint k = 1; k <= n_checks && !failure; k++)
              {
                if (!cml_simulation_advance (c.sim, k * (periods / n_checks) * c.period, &error))
                  {
                    failure = error->message;
                    break;
                  }
                res = MAX (res, cml_simulation_residual (c.sim));
                if (q0 >= 0)
                  {
                    const double *z = cml_simulation_get_state (c.sim);
                    double n2 = z[q0] * z[q0] + z[q0 + 1] * z[q0 + 1] + z[q0 + 2] * z[q0 + 2] + z[q0 + 3] * z[q0 + 3];
                    qn = MAX (qn, fabs (sqrt (n2) - 1.0));
                  }
              }
            secs = bench_thread_cpu_s () - t0;
            printf ("   %-21s %-28s %-8s %12s %12s %7.1f%s%s\n", models[m], label, proj ? "yes" : "no",
                    FE (res), FE (qn), secs, failure ? "  failed: " : "", failure ? failure : "");
            cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
            cml_json_string (b->json, "model", models[m]);
            cml_json_string (b->json, "integrator", cml_integrator_kind_to_string (o.kind));
            cml_json_number (b->json, "rtol", o.rtol);
            cml_json_number (b->json, "atol", o.atol);
            cml_json_bool (b->json, "project", proj);
            cml_json_number (b->json, "max_residual", res);
            cml_json_number (b->json, "max_quaternion_norm_error", qn);
            cml_json_number (b->json, "seconds", secs);
            if (failure)
              cml_json_string (b->json, "failure", failure);
            cml_json_end (b->json);
            if (proj)
              b->worst_projected_residual = MAX (b->worst_projected_residual, failure ? INFINITY : res);
            g_clear_error (&error);
          }
      case_close (&c);
    }
  cml_json_end (b->json);
  cml_json_end (b->json);
}

/* ======================================================================================
 * The targets (issue 5) and the command
 * ====================================================================================== */

static void
report_targets (Bench *b)
{
  printf ("\nTargets\n\n");
  cml_json_begin_object (b->json, "targets", CML_JSON_BLOCK);

  if (want_figure (b, "exports"))
    {
      if (b->plot_png_s > 0)
        printf ("   PNG plot of 10^6 samples in under 1 s: %s (%.3f s)\n",
                b->plot_png_s < 1.0 ? "HOLDS" : "DOES NOT HOLD", b->plot_png_s);
      if (b->video_s > 0)
        printf ("   10 s 720p60 MP4 of the rolling ball in <= 10 s (goal 5 s): %s (%.2f s%s)\n",
                b->video_s <= 10.0 ? "HOLDS" : "DOES NOT HOLD", b->video_s,
                b->video_s <= 5.0 ? ", goal met" : "");
      cml_json_number (b->json, "plot_png_1e6_s", b->plot_png_s);
      cml_json_number (b->json, "video_720p60_10s_s", b->video_s);
    }

  if (want_figure (b, "overhead") && b->worst_rhs_model)
    {
      gboolean ok = b->worst_rhs_ratio <= 2.0;
      printf ("   generic RHS <= 2x hand-written on every built-in: %s (worst %.2fx, %s)\n",
              ok ? "HOLDS" : "DOES NOT HOLD", b->worst_rhs_ratio, b->worst_rhs_model);
      cml_json_begin_object (b->json, "generic_rhs_within_2x", CML_JSON_BLOCK);
      cml_json_bool (b->json, "holds", ok);
      cml_json_number (b->json, "worst_ratio", b->worst_rhs_ratio);
      cml_json_string (b->json, "worst_model", b->worst_rhs_model);
      cml_json_end (b->json);
    }

  if (want_figure (b, "peers") && b->peer_rows->len)
    {
      /* smallest ratio over the models, by wall time (the target's measure), by CPU time
       * and, for SciPy, in-process at equal error */
      double mx = INFINITY, ms = INFINITY, cx = INFINITY, cs = INFINITY, es = INFINITY;
      gboolean err_x = TRUE, err_s = TRUE, have_x = FALSE, have_s = FALSE;
      for (guint i = 0; i < b->peer_rows->len; i++)
        {
          PeerRow *r = &g_array_index (b->peer_rows, PeerRow, i);
          if (!isnan (r->err_xpp))
            {
              have_x = TRUE;
              mx = MIN (mx, isnan (r->xpp_ratio) ? 0.0 : r->xpp_ratio);
              cx = MIN (cx, isnan (r->xpp_cpu_ratio) ? 0.0 : r->xpp_cpu_ratio);
              err_x &= r->err_cmlab <= r->err_xpp;
            }
          if (!isnan (r->err_scipy))
            {
              have_s = TRUE;
              ms = MIN (ms, isnan (r->scipy_ratio) ? 0.0 : r->scipy_ratio);
              cs = MIN (cs, isnan (r->scipy_cpu_ratio) ? 0.0 : r->scipy_cpu_ratio);
              es = MIN (es, isnan (r->scipy_equal_error_ratio) ? 0.0 : r->scipy_equal_error_ratio);
              err_s &= r->err_cmlab <= r->err_scipy;
            }
        }
      if (have_x)
        printf ("   faster than XPPAUT (goal 3x), net wall time: %s (smallest ratio %sx; goal %s);\n"
                "     by CPU time: smallest %sx; cmlab's error <= XPPAUT's on every model: %s\n",
                mx >= 1.0 ? "HOLDS" : "DOES NOT HOLD", FR (mx), mx >= 3.0 ? "met" : "not met", FR (cx),
                err_x ? "yes" : "no");
      else
        printf ("   faster than XPPAUT: NOT MEASURED (xppaut missing)\n");
      if (have_s)
        printf ("   >= 100x faster than SciPy DOP853, net wall time: %s (smallest ratio %sx);\n"
                "     by CPU time: smallest %sx; in-process at equal error: smallest %sx;"
                " cmlab's error <= SciPy's on every model: %s\n",
                ms >= 100.0 ? "HOLDS" : "DOES NOT HOLD", FR (ms), FR (cs), FR (es), err_s ? "yes" : "no");
      else
        printf ("   >= 100x faster than SciPy: NOT MEASURED (SciPy missing)\n");
      cml_json_begin_object (b->json, "peers", CML_JSON_BLOCK);
      cml_json_bool (b->json, "faster_than_xppaut", have_x && mx >= 1.0);
      cml_json_bool (b->json, "xppaut_goal_3x", have_x && mx >= 3.0);
      cml_json_number (b->json, "smallest_xppaut_ratio_wall", have_x ? mx : NAN);
      cml_json_number (b->json, "smallest_xppaut_ratio_cpu", have_x ? cx : NAN);
      cml_json_bool (b->json, "error_le_xppaut", have_x && err_x);
      cml_json_bool (b->json, "scipy_100x", have_s && ms >= 100.0);
      cml_json_number (b->json, "smallest_scipy_ratio_wall", have_s ? ms : NAN);
      cml_json_number (b->json, "smallest_scipy_ratio_cpu", have_s ? cs : NAN);
      cml_json_number (b->json, "smallest_scipy_ratio_equal_error_in_process", have_s ? es : NAN);
      cml_json_bool (b->json, "error_le_scipy", have_s && err_s);
      cml_json_end (b->json);
    }

  if (want_figure (b, "long-runs") && b->long_rows->len)
    {
      gboolean no_growth = TRUE, hundred = TRUE;
      printf ("   implicit midpoint on the reversible cases, vs rkf45 at equal cost:\n");
      cml_json_begin_array (b->json, "structure_preserving", CML_JSON_BLOCK);
      for (guint i = 0; i < b->long_rows->len; i++)
        {
          LongRow *m = &g_array_index (b->long_rows, LongRow, i);
          LongRow *f = NULL;
          double adv;
          gboolean grows;
          if (m->kind != CML_INTEGRATOR_IMPLICIT_MIDPOINT)
            continue;
          for (guint j = 0; j < b->long_rows->len; j++)
            {
              LongRow *r = &g_array_index (b->long_rows, LongRow, j);
              if (r->kind == CML_INTEGRATOR_RKF45 && g_str_equal (r->label, m->label))
                f = r;
            }
          adv = f ? f->max2 / m->max2 : NAN;
          grows = !g_str_equal (m->verdict, "bounded") && !g_str_equal (m->verdict, "rounding");
          printf ("     %-20s midpoint %s -> %s (%s), rkf45 %s%s: %s%s %s\n", m->label,
                  FE (m->max1), FE (m->max2), m->verdict, FE (f ? f->max2 : NAN),
                  f && (g_str_equal (f->verdict, "failed") || g_str_equal (f->verdict, "diverged")) ? " (blew up)" : "",
                  m->max2 == 0.0 && f && f->max2 == 0.0 ? "both exact" : FR (adv),
                  m->max2 == 0.0 && f && f->max2 == 0.0 ? "" : "x smaller",
                  m->reversible ? "" : "(non-reversible: for information)");
          if (m->reversible)
            {
              no_growth &= !grows;
              hundred &= adv >= 100.0 || (m->max2 <= 1e-13 && f && f->max2 <= 1e-13);
            }
          cml_json_begin_object (b->json, NULL, CML_JSON_BLOCK);
          cml_json_string (b->json, "system", m->label);
          cml_json_bool (b->json, "reversible", m->reversible);
          cml_json_number (b->json, "midpoint_error_long", m->max2);
          cml_json_number (b->json, "rkf45_error_long", f ? f->max2 : NAN);
          cml_json_number (b->json, "advantage", adv);
          cml_json_string (b->json, "midpoint_verdict", m->verdict);
          cml_json_end (b->json);
        }
      cml_json_end (b->json);
      printf ("   no secular growth (reversible cases): %s; >= 100x smaller than rkf45: %s\n",
              no_growth ? "HOLDS" : "DOES NOT HOLD", hundred ? "HOLDS" : "DOES NOT HOLD");
      cml_json_bool (b->json, "midpoint_no_secular_growth", no_growth);
      cml_json_bool (b->json, "midpoint_100x_rkf45", hundred);
    }

  if (want_figure (b, "residuals") && b->worst_projected_residual >= 0.0)
    {
      gboolean ok = b->worst_projected_residual <= 1e-12;
      printf ("   constraint residual <= 1e-12 with projection: %s (largest %s)\n",
              ok ? "HOLDS" : "DOES NOT HOLD", FE (b->worst_projected_residual));
      cml_json_begin_object (b->json, "residual_with_projection", CML_JSON_BLOCK);
      cml_json_bool (b->json, "holds", ok);
      cml_json_number (b->json, "largest", b->worst_projected_residual);
      cml_json_end (b->json);
    }
  cml_json_end (b->json);
}

static const char *bench_usage =
  "Usage: cmlab-bench [--quick] [--json FILE] [--only NAME[,NAME...]] [--csv DIR]\n"
  "\n"
  "  --quick      shorter runs and fewer repetitions (about two minutes)\n"
  "  --json FILE  also write every number as JSON (atomically)\n"
  "  --only NAME  only these figures (overhead, peers, work-precision, long-runs, residuals,\n"
  "               exports, frames, variational, variational-seeded, startup, sweep, taylor,\n"
  "               dop853, work-precision-figures, interpreter)\n"
  "               and/or these built-in models; may be repeated or comma-separated\n"
  "  --csv DIR    the variational benchmark's energy errors against time, and the\n"
  "               work-precision figures, as CSV and PNG (and SVG) in DIR\n";

int
main (int argc, char **argv)
{
  Bench b = { 0 };
  g_autoptr (GPtrArray) only = g_ptr_array_new_with_free_func (g_free);
  double load0[3], load1[3], t_start = bench_wall_s ();
  int status;

  setlocale (LC_ALL, "");
  gsl_set_error_handler_off ();
  /* every run measured with its native code built, in this process and in the programs it
   * starts: what a user's runs get once the first has compiled it.  (By default a run
   * starts on the interpreter and takes the native code when it is ready, and a run too
   * short to profit never waits: an order of the Taylor method first met in a timed run
   * would be timed on the interpreter.  The first run of a new model is the scaling
   * table's, bench/scaling.py.)  CMLAB_NATIVE set by the caller is kept. */
  g_setenv ("CMLAB_NATIVE", "wait", FALSE);
  /* messages go to standard error, never among the tables */
  g_log_writer_default_set_use_stderr (TRUE);
  /* the arguments after the program's name */
  argc--;
  argv++;
  for (int i = 0; i < argc; i++)
    {
      const char *a = argv[i];
      if (g_str_equal (a, "--help") || g_str_equal (a, "-h"))
        {
          fputs (bench_usage, stdout);
          return 0;
        }
      else if (g_str_equal (a, "--quick"))
        b.quick = TRUE;
      else if (g_str_equal (a, "--csv") && i + 1 < argc)
        {
          bench_variational_set_csv_dir (argv[i + 1]);
          bench_wp_set_csv_dir (argv[++i]);
        }
      else if (g_str_equal (a, "--json") || g_str_equal (a, "--only"))
        {
          if (i + 1 >= argc)
            {
              fprintf (stderr, "cmlab-bench: %s needs a value\n%s", a, bench_usage);
              return EXIT_USAGE;
            }
          if (g_str_equal (a, "--json"))
            b.json_path = argv[++i];
          else
            {
              g_auto (GStrv) parts = g_strsplit (argv[++i], ",", -1);
              for (guint k = 0; parts[k]; k++)
                if (*g_strstrip (parts[k]))
                  g_ptr_array_add (only, g_strdup (parts[k]));
            }
        }
      else if (g_str_has_prefix (a, "--json="))
        b.json_path = a + strlen ("--json=");
      else if (g_str_has_prefix (a, "--only="))
        {
          g_auto (GStrv) parts = g_strsplit (a + strlen ("--only="), ",", -1);
          for (guint k = 0; parts[k]; k++)
            if (*g_strstrip (parts[k]))
              g_ptr_array_add (only, g_strdup (parts[k]));
        }
      else
        {
          fprintf (stderr, "cmlab-bench: unknown option “%s”\n%s", a, bench_usage);
          return EXIT_USAGE;
        }
    }
  for (guint k = 0; k < only->len; k++)
    if (!g_strv_contains (figure_names, only->pdata[k]) && cml_ref_system_lookup (only->pdata[k]) == NULL
        && !bench_wp_is_builtin (only->pdata[k]))
      {
        fprintf (stderr, "cmlab-bench: --only: “%s” is neither a figure (overhead, peers, work-precision,"
                         " long-runs, residuals, exports, frames, variational, variational-seeded, startup, sweep, taylor, dop853,"
                         " work-precision-figures, interpreter) nor a built-in model\n",
                 (char *) only->pdata[k]);
        return EXIT_USAGE;
      }
  if (only->len)
    {
      g_ptr_array_add (only, NULL);
      b.only = (GStrv) g_ptr_array_steal (only, NULL);
    }

  b.cli = g_strdup (g_getenv ("CMLAB_CLI") ? g_getenv ("CMLAB_CLI") : CMLAB_BENCH_CLI);
  b.bench_dir = g_strdup (g_getenv ("CMLAB_BENCH_DIR") ? g_getenv ("CMLAB_BENCH_DIR") : CMLAB_BENCH_SOURCE_DIR);
  b.peer_rows = g_array_new (FALSE, FALSE, sizeof (PeerRow));
  b.long_rows = g_array_new (FALSE, FALSE, sizeof (LongRow));
  b.worst_projected_residual = -1.0;
  b.json_text = g_string_new (NULL);
  b.json = cml_json_new_string (b.json_text);
  cml_json_set_digits (b.json, 6);
  read_loadavg (load0);

  printf ("cmlab bench%s — %u cores, load average %.2f %.2f %.2f at the start%s\n", b.quick ? " --quick" : "",
          g_get_num_processors (), load0[0], load0[1], load0[2],
          load0[0] > 0.5 * g_get_num_processors () ? " (the machine is shared and busy: times are medians)" : "");
  cml_json_begin_object (b.json, NULL, CML_JSON_BLOCK);
  cml_json_string (b.json, "benchmark", "cmlab-bench");
  cml_json_bool (b.json, "quick", b.quick);
  cml_json_int (b.json, "cores", g_get_num_processors ());
  cml_json_begin_array (b.json, "load_average_start", CML_JSON_BLOCK);
  for (int i = 0; i < 3; i++)
    cml_json_number (b.json, NULL, load0[i]);
  cml_json_end (b.json);

  if (want_figure (&b, "overhead"))
    fig_overhead (&b);
  fflush (stdout);
  if (want_figure (&b, "peers"))
    fig_peers (&b);
  fflush (stdout);
  if (want_figure (&b, "work-precision"))
    fig_work_precision (&b);
  fflush (stdout);
  if (want_figure (&b, "long-runs"))
    fig_long_runs (&b);
  fflush (stdout);
  if (want_figure (&b, "residuals"))
    fig_residuals (&b);
  fflush (stdout);
  if (want_figure (&b, "exports"))
    fig_exports (&b);
  fflush (stdout);
  if (want_figure (&b, "frames"))
    fig_frames (&b);
  fflush (stdout);
  b.run_failed |= !bench_shoot (b.json, b.quick);
  if (want_figure (&b, "sweep"))
    bench_sweep (b.quick, b.json);

  bench_variational (b.quick, (const char *const *) b.only);
  bench_taylor (b.quick, (const char *const *) b.only);
  b.run_failed |= !bench_startup (b.cli, b.bench_dir, b.json, b.quick, (const char *const *) b.only);
  b.run_failed |= !bench_dop853 (b.cli, b.bench_dir, CMLAB_BENCH_BOOST_PEER, b.json, b.quick,
                                 (const char *const *) b.only);
  bench_wp_figures (b.cli, b.json, b.quick, (const char *const *) b.only);
  bench_interp (b.json, b.quick, (const char *const *) b.only);
  report_targets (&b);
  read_loadavg (load1);
  printf ("\nload average %.2f %.2f %.2f at the end; %.0f s in all\n", load1[0], load1[1], load1[2],
          bench_wall_s () - t_start);
  cml_json_begin_array (b.json, "load_average_end", CML_JSON_BLOCK);
  for (int i = 0; i < 3; i++)
    cml_json_number (b.json, NULL, load1[i]);
  cml_json_end (b.json);
  cml_json_number (b.json, "seconds", bench_wall_s () - t_start);
  cml_json_bool (b.json, "rhs_check_passed", !b.rhs_mismatch);
  cml_json_end (b.json);

  status = 0;
  if (b.rhs_mismatch)
    {
      printf ("\nFAILED: the generic and the hand-written right-hand sides disagree (see above)\n");
      status = EXIT_BENCH_FAILED;
    }
  else if (b.run_failed)
    {
      printf ("\nFAILED: a run that must succeed failed (see above)\n");
      status = EXIT_BENCH_FAILED;
    }
  if (b.json_path)
    {
      g_autoptr (GError) error = NULL;
      if (!write_atomically (b.json_path, b.json_text->str, &error))
        {
          fprintf (stderr, "cmlab-bench: %s\n", error->message);
          status = EXIT_USAGE;
        }
    }
  cml_json_free (b.json);
  g_string_free (b.json_text, TRUE);
  g_array_unref (b.peer_rows);
  g_array_unref (b.long_rows);
  g_strfreev (b.only);
  g_free (b.cli);
  g_free (b.bench_dir);
  return status;
}
