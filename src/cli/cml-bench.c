/* cml-bench.c — `cmlab-cli bench`: how fast and how accurate the engine is, side by side.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Five figures, each a ratio or a comparison measured in one run (tests/bench/README.md
 * explains every number):
 *
 *   1. engine overhead — the generic right-hand side compiled from models/NAME.cml against
 *      the same equations written by hand in C (tests/bench/reference-rhs.c), in ns per
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
 *      projection after every step.
 *
 * Timings are medians of repetitions; the machine's load average is recorded with them.
 */
#define G_LOG_DOMAIN "cml-bench"

#include "cml-bench.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cml-error.h"
#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-system.h"
#include "reference-rhs.h"

#ifndef CMLAB_BENCH_SOURCE_DIR
#define CMLAB_BENCH_SOURCE_DIR "tests/bench"
#endif

#define EXIT_BENCH_FAILED 1
#define EXIT_USAGE        2

/* The generic and the hand-written right-hand sides must agree to this, relative to
 * 1 + |f|, at every sampled state. */
#define RHS_AGREEMENT 1e-12

static const char *const figure_names[] = { "overhead", "peers", "work-precision", "long-runs",
                                            "residuals", NULL };

/* ---- a small JSON writer ------------------------------------------------------------------ */

typedef struct
{
  GString *s;
  gboolean first[64];
  int      depth;
} Json;

static void
json_sep (Json *j, const char *key)
{
  if (!j->first[j->depth])
    g_string_append_c (j->s, ',');
  j->first[j->depth] = FALSE;
  g_string_append_c (j->s, '\n');
  for (int i = 0; i < j->depth; i++)
    g_string_append (j->s, "  ");
  if (key)
    {
      g_autofree char *k = g_strescape (key, NULL);
      g_string_append_printf (j->s, "\"%s\": ", k);
    }
}

static void
json_open (Json *j, const char *key, char bracket)
{
  if (j->depth >= 0 && j->s->len)
    json_sep (j, key);
  g_string_append_c (j->s, bracket);
  j->depth++;
  j->first[j->depth] = TRUE;
}

static void
json_close (Json *j, char bracket)
{
  gboolean empty = j->first[j->depth];
  j->depth--;
  if (!empty)
    {
      g_string_append_c (j->s, '\n');
      for (int i = 0; i < j->depth; i++)
        g_string_append (j->s, "  ");
    }
  g_string_append_c (j->s, bracket);
}

#define json_object(j, key) json_open ((j), (key), '{')
#define json_array(j, key)  json_open ((j), (key), '[')
#define json_end_object(j)  json_close ((j), '}')
#define json_end_array(j)   json_close ((j), ']')

static void
json_num (Json *j, const char *key, double v)
{
  json_sep (j, key);
  if (isfinite (v))
    g_string_append_printf (j->s, "%.6g", v);
  else
    g_string_append (j->s, "null");
}

static void
json_int (Json *j, const char *key, gint64 v)
{
  json_sep (j, key);
  g_string_append_printf (j->s, "%" G_GINT64_FORMAT, v);
}

static void
json_bool (Json *j, const char *key, gboolean v)
{
  json_sep (j, key);
  g_string_append (j->s, v ? "true" : "false");
}

static void
json_str (Json *j, const char *key, const char *v)
{
  json_sep (j, key);
  if (v == NULL)
    {
      g_string_append (j->s, "null");
      return;
    }
  g_string_append_c (j->s, '"');
  for (const char *p = v; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (j->s, "\\%c", *p);
      else if ((unsigned char) *p < 0x20)
        g_string_append_printf (j->s, "\\u%04x", *p);
      else
        g_string_append_c (j->s, *p);
    }
  g_string_append_c (j->s, '"');
}

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

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The median of N values (NaN when N = 0); V is left sorted. */
static double
median (double *v, guint n)
{
  if (n == 0)
    return NAN;
  qsort (v, n, sizeof (double), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void
read_loadavg (double la[3])
{
  g_autofree char *text = NULL;
  la[0] = la[1] = la[2] = NAN;
  if (g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    sscanf (text, "%lf %lf %lf", &la[0], &la[1], &la[2]);
}

/* "1.2e-09" in a fixed width, "—" for NaN */
static const char *
fmt_e (char *buf, size_t size, double v)
{
  if (!isfinite (v))
    g_strlcpy (buf, "-", size);
  else
    g_snprintf (buf, size, "%.1e", v);
  return buf;
}

#define FE(v) fmt_e ((char[32]) { 0 }, 32, (v))

/* ---- the benchmark's state ------------------------------------------------------------------ */

typedef struct
{
  gboolean quick;
  const char *json_path;
  GStrv    only;           /* figure and/or built-in names, or NULL for everything */
  gboolean rhs_mismatch;   /* a correctness failure: exit 1 */
  gboolean run_failed;     /* a run that must succeed failed: exit 1 */
  Json     json;
  char    *self;           /* this executable, for `simulate` as a subprocess */
  char    *bench_dir;      /* tests/bench: the .ode files and peers.py */

  /* for the targets summary */
  double   worst_rhs_ratio;
  const char *worst_rhs_model;
  GString *targets;
} Bench;

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
  double generic_with_set_ns, set_state_ns;
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
  const guint n_eval = b->quick ? 100000 : 400000;
  const guint reps = b->quick ? 7 : 15;
  g_autoptr (GRand) rand = g_rand_new_with_seed (20240601);
  g_autofree double *ts = g_new (double, N_STATES);
  g_autofree double *zs = g_new (double, N_STATES * dim);
  double dz[CML_REF_MAX_DIM], dh[CML_REF_MAX_DIM];
  g_autofree double *hand = g_new (double, reps);
  g_autofree double *gen_set = g_new (double, reps);
  g_autofree double *set_only = g_new (double, reps);
  g_autofree double *gen_net = g_new (double, reps);
  g_autofree double *gen_fixed = g_new (double, reps);
  g_autofree double *hand_fixed = g_new (double, reps);
  CmlRefRhsFunc rhs = c->ref->rhs;
  void *pp = &c->params;
  double acc = 0.0;

  for (guint k = 0; k < N_STATES; k++)
    random_state (c, rand, &ts[k], zs + k * dim);

  /* correctness first: the two must agree at every sampled state */
  o->max_dev = 0.0;
  for (guint k = 0; k < N_STATES; k++)
    {
      g_autoptr (GError) error = NULL;
      cml_simulation_set_state (c->sim, ts[k], zs + k * dim);
      if (!cml_simulation_eval_rhs (c->sim, dz, &error))
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

  /* timing: the five loops interleaved in every repetition, medians over repetitions */
  for (guint r = 0; r < reps; r++)
    {
      double t0, t1;

      t0 = now_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          guint s = k & (N_STATES - 1);
          rhs (ts[s], zs + s * dim, dh, pp);
          acc += dh[0];
        }
      t1 = now_s ();
      hand[r] = (t1 - t0) / n_eval * 1e9;

      t0 = now_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          guint s = k & (N_STATES - 1);
          cml_simulation_set_state (c->sim, ts[s], zs + s * dim);
          cml_simulation_eval_rhs (c->sim, dz, NULL);
          acc += dz[0];
        }
      t1 = now_s ();
      gen_set[r] = (t1 - t0) / n_eval * 1e9;

      t0 = now_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          guint s = k & (N_STATES - 1);
          cml_simulation_set_state (c->sim, ts[s], zs + s * dim);
          acc += cml_simulation_get_state (c->sim)[0];
        }
      t1 = now_s ();
      set_only[r] = (t1 - t0) / n_eval * 1e9;
      gen_net[r] = gen_set[r] - set_only[r];

      cml_simulation_set_state (c->sim, ts[0], zs);
      t0 = now_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          cml_simulation_eval_rhs (c->sim, dz, NULL);
          acc += dz[0];
        }
      t1 = now_s ();
      gen_fixed[r] = (t1 - t0) / n_eval * 1e9;

      t0 = now_s ();
      for (guint k = 0; k < n_eval; k++)
        {
          rhs (ts[0], zs, dh, pp);
          acc += dh[0];
        }
      t1 = now_s ();
      hand_fixed[r] = (t1 - t0) / n_eval * 1e9;
    }
  sink = acc;
  o->hand_ns = median (hand, reps);
  o->generic_with_set_ns = median (gen_set, reps);
  o->set_state_ns = median (set_only, reps);
  o->generic_ns = median (gen_net, reps);
  o->generic_fixed_ns = median (gen_fixed, reps);
  o->hand_fixed_ns = median (hand_fixed, reps);
  o->ratio = o->generic_ns / o->hand_ns;

  /* a whole rk8pd integration (rtol = atol = 1e-10, no projection) with each right-hand
   * side: the same steps, so the difference per evaluation is what the generic callback
   * costs the integrator beyond the hand-written one */
  {
    const guint ireps = b->quick ? 3 : 7;
    const double t_end = (b->quick ? 10 : 40) * c->period;
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
        t0 = now_s ();
        ok = cml_simulation_advance (c->sim, t_end, &error);
        tg[r] = now_s () - t0;
        o->int_generic_rhs = cml_simulation_n_rhs (c->sim) - n0;

        memcpy (zh, c->z0, dim * sizeof (double));
        t0 = now_s ();
        ok = ok && cml_integrator_advance (integ, &t, t_end, zh, &error);
        th[r] = now_s () - t0;
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
    o->int_generic_s = median (tg, ireps);
    o->int_hand_s = median (th, ireps);
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
  printf ("   %-22s %8s %8s %7s %9s   %-26s %9s\n", "model", "hand", "generic", "ratio",
          "agree", "in rk8pd: callback ns", "int.ratio");
  json_array (&b->json, "overhead");
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
      printf ("   %-22s %8.1f %8.1f %6.2fx %9s   %7.1f (%6.0f evals) %8.2fx\n", refs[k].model,
              o.hand_ns, o.generic_ns, o.ratio, o.max_dev <= RHS_AGREEMENT ? FE (o.max_dev) : "MISMATCH",
              o.int_callback_ns, (double) o.int_generic_rhs, o.int_ratio);

      json_object (&b->json, NULL);
      json_str (&b->json, "model", refs[k].model);
      json_int (&b->json, "dim", c.dim);
      json_num (&b->json, "hand_ns", o.hand_ns);
      json_num (&b->json, "generic_ns", o.generic_ns);
      json_num (&b->json, "ratio", o.ratio);
      json_num (&b->json, "generic_with_set_state_ns", o.generic_with_set_ns);
      json_num (&b->json, "set_state_ns", o.set_state_ns);
      json_num (&b->json, "hand_fixed_state_ns", o.hand_fixed_ns);
      json_num (&b->json, "generic_fixed_state_ns", o.generic_fixed_ns);
      json_num (&b->json, "fixed_state_ratio", o.generic_fixed_ns / o.hand_fixed_ns);
      json_num (&b->json, "max_relative_deviation", o.max_dev);
      json_bool (&b->json, "agree", o.max_dev <= RHS_AGREEMENT);
      json_object (&b->json, "rk8pd_integration");
      json_num (&b->json, "periods", (b->quick ? 10 : 40));
      json_num (&b->json, "hand_s", o.int_hand_s);
      json_num (&b->json, "generic_s", o.int_generic_s);
      json_int (&b->json, "hand_rhs_evals", o.int_hand_rhs);
      json_int (&b->json, "generic_rhs_evals", o.int_generic_rhs);
      json_num (&b->json, "per_eval_ratio", o.int_ratio);
      json_num (&b->json, "generic_callback_ns", o.int_callback_ns);
      json_num (&b->json, "final_state_difference", o.int_state_diff);
      json_end_object (&b->json);
      json_end_object (&b->json);
      case_close (&c);
    }
  json_end_array (&b->json);
  printf ("\n   hand, generic: ns per call at 256 varying states (generic = cml_simulation_set_state +\n"
          "   cml_simulation_eval_rhs, less set_state measured alone); agree: largest |generic − hand|/(1+|hand|);\n"
          "   in rk8pd: a whole integration (rtol = atol = 1e-10) with each right-hand side, the extra\n"
          "   time per evaluation added to the hand-written cost, and the ratio of time per evaluation.\n");
}
