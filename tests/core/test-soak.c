/* test-soak.c — the runner at full speed under a storm of commands.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For CMLAB_SOAK_SECONDS (default 30; tools/soak runs 1800) the worker integrates as fast
 * as it can (speeds far above what the machine keeps up with) while a writer thread sends
 * 10^4 random commands spread evenly over the run — play, pause, step, reset (plain and
 * with a preset's initial values), speed, a parameter change within the parameter's range,
 * an integrator change, a switch among all the built-in models — and two reader threads
 * take frames and copy the history (one keeping up, one reading rarely with a buffer larger
 * than the ring).  Checked:
 *
 *   - no deadlock: a watchdog thread aborts when the writer, the readers or the worker stop
 *     making progress for WATCHDOG_SECONDS (cml_runner_sync every SYNC_EVERY commands makes
 *     a stuck worker stop the writer); alarm () is the backstop;
 *   - no crash, and every frame consistent with its own system;
 *   - the history is bounded: one read never returns more than the ring's capacity, even
 *     to a reader asking for more; rows the rare reader fell behind on are counted as
 *     dropped (reported);
 *   - memory flat (with a ring of CMLAB_SOAK_HISTORY rows, default 4096: see soak_history ()):
 *     RSS from /proc/self/statm, sampled every RSS_PERIOD seconds; after the
 *     warm-up (a third of the run, between 5 s and 120 s, in which every model has been
 *     loaded and the ring has had its largest layout) the peak may exceed the warm-up's
 *     peak by at most RSS_BOUND_MB.  Under AddressSanitizer/ThreadSanitizer the allocator
 *     keeps freed memory in quarantine, so there the figures are reported, not asserted
 *     (LeakSanitizer covers leaks);
 *   - afterwards the runner still answers: reset + step 0.25 gives t = 0.25, paused.
 *
 * The RSS figures go to the test log (g_test_message: run with --verbose or see the TAP
 * output).
 */
#define G_LOG_DOMAIN "test-soak"

#include "cml-error.h"
#include "cml-runner.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#define N_COMMANDS       10000
#define SYNC_EVERY       250
#define WATCHDOG_SECONDS 60.0
#define RSS_PERIOD       0.25
#define RSS_BOUND_MB     8.0
#define SPEED_MAX        1e4

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif
#ifndef UNDER_SANITIZER
#define UNDER_SANITIZER 0
#endif

/* Resident set size in MiB (statm's second field, in pages). */
static double
rss_mb (void)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;

  if (f == NULL)
    return NAN;
  if (fscanf (f, "%lu %lu", &size, &resident) != 2)
    resident = 0;
  fclose (f);
  return (double) resident * (double) sysconf (_SC_PAGESIZE) / (1024.0 * 1024.0);
}

static guint
n_cols_of (CmlSystem *sys)
{
  return cml_system_n_observables (sys) + cml_system_n_scene_values (sys);
}

/* ---- the shared state ------------------------------------------------------------------ */

typedef struct
{
  CmlRunner   *runner;
  CmlSystem  **systems;
  guint        n_systems;
  guint        max_cols;
  guint        capacity;
  double       duration;
  double       start;

  atomic_bool  stop;         /* readers and watchdog: finish */
  atomic_bool  writer_done;
  atomic_uint  commands;     /* sent by the writer */
  atomic_uint  kinds[10];    /* per command kind */
  atomic_ulong writer_beat;  /* progress counters for the watchdog */
  atomic_ulong reader_beat[2];
  atomic_ulong reads[2];
  atomic_ulong rows[2];
  atomic_ulong dropped[2];
  atomic_ulong max_rows_one_read;
  atomic_ulong frames_seen;
  atomic_ulong failed_frames;

  /* RSS samples (the watchdog's, read after it is joined) */
  double      *rss_t;
  double      *rss_v;
  guint        n_rss, max_rss;
} Soak;

static const char *const kind_names[] = {
  "play", "pause", "step", "reset", "reset-preset", "speed", "param", "integrator", "model", "sync",
};

/* ---- readers -------------------------------------------------------------------------- */

/* Checks one frame against its own system. */
static void
check_frame (Soak *s, CmlFrame *f, guint64 *last_seq)
{
  gboolean known = FALSE;

  for (guint i = 0; i < s->n_systems; i++)
    known = known || f->system == s->systems[i];
  g_assert_true (known);
  g_assert_cmpuint (f->n_obs, ==, cml_system_n_observables (f->system));
  g_assert_cmpuint (f->n_scene, ==, cml_system_n_scene_values (f->system));
  g_assert_cmpuint (f->dim, ==, cml_system_dim (f->system));
  g_assert_cmpuint (f->n_params, ==, cml_system_get_model (f->system)->params->len);
  g_assert_cmpuint (f->seq, >=, *last_seq);
  g_assert_true (isfinite (f->t) && f->t >= 0);
  g_assert_true (isfinite (f->speed) && f->speed > 0);
  if (f->state == CML_RUNNER_FAILED)
    {
      g_assert_nonnull (f->message);
      atomic_fetch_add (&s->failed_frames, 1);
    }
  else
    for (guint i = 0; i < f->dim; i++)
      g_assert_true (isfinite (f->state_values[i]));
  *last_seq = f->seq;
  atomic_fetch_add (&s->frames_seen, 1);
}

typedef struct
{
  Soak *s;
  int   id;   /* 0: keeps up; 1: reads rarely, with a buffer larger than the ring */
} Reader;

static void *
reader_main (void *data)
{
  Reader *rd = data;
  Soak *s = rd->s;
  /* reader 1 asks for more rows than the ring holds: it must never get more */
  guint max_rows = rd->id == 0 ? 256 : s->capacity + 1024;
  double *t = g_new (double, max_rows);
  double *v = g_new (double, (gsize) max_rows * s->max_cols);
  guint64 cursor = 0, last_seq = 0;

  while (!atomic_load (&s->stop))
    {
      CmlFrame *f = cml_runner_get_frame (s->runner);
      guint64 dropped = 0;
      guint n_cols, n;

      check_frame (s, f, &last_seq);
      n_cols = n_cols_of (f->system);
      g_assert_cmpuint (n_cols, <=, s->max_cols);
      cml_frame_unref (f);

      guint64 before = cursor;
      n = cml_runner_read_history (s->runner, &cursor, n_cols, t, v, max_rows, &dropped);
      g_assert_cmpuint (n, <=, max_rows);
      g_assert_cmpuint (n, <=, s->capacity);
      /* the cursor moves forward, past the dropped rows (and past rows of an older layout,
       * which are skipped, not dropped) */
      g_assert_cmpuint (cursor, >=, before);
      g_assert_cmpuint (dropped, <=, cursor - before);
      for (guint i = 1; i < n; i++)
        g_assert_cmpfloat (t[i], >, t[i - 1]);
      for (guint i = 0; i < n; i++)
        g_assert_true (isfinite (t[i]) && t[i] >= 0);

      atomic_fetch_add (&s->reads[rd->id], 1);
      atomic_fetch_add (&s->rows[rd->id], n);
      atomic_fetch_add (&s->dropped[rd->id], dropped);
      for (unsigned long m = atomic_load (&s->max_rows_one_read);
           n > m && !atomic_compare_exchange_weak (&s->max_rows_one_read, &m, n);)
        ;
      atomic_fetch_add (&s->reader_beat[rd->id], 1);

      if (rd->id == 0)
        g_usleep (n < max_rows ? 1000 : 0);
      else
        g_usleep (5 * G_USEC_PER_SEC); /* falls a whole ring behind at full speed */
    }
  g_free (t);
  g_free (v);
  return NULL;
}

/* ---- the writer ------------------------------------------------------------------------ */

static double
log_uniform (GRand *rand, double lo, double hi)
{
  return exp (g_rand_double_range (rand, log (lo), log (hi)));
}

static void
random_integrator (GRand *rand, CmlIntegratorOptions *o)
{
  *o = cml_integrator_options_default ();
  o->kind = (CmlIntegratorKind) g_rand_int_range (rand, 0, CML_INTEGRATOR_N_ODE_KINDS);
  o->rtol = log_uniform (rand, 1e-10, 1e-6);
  o->atol = log_uniform (rand, 1e-12, 1e-8);
  o->h_fixed = log_uniform (rand, 2e-4, 5e-3);
  o->project = g_rand_boolean (rand);
}

/* A parameter of MODEL set to a value in its range (or one of its choices). */
static void
random_param (GRand *rand, CmlModel *model, const char **name, double *value)
{
  const CmlParam *par = model->params->pdata[g_rand_int_range (rand, 0, model->params->len)];

  double lo = par->min, hi = par->max;

  /* an open range ("m = 1 |") is unbounded: stay near the default there */
  if (!isfinite (lo))
    lo = par->value - MAX (fabs (par->value), 1.0);
  if (!isfinite (hi))
    hi = par->value + MAX (fabs (par->value), 1.0);
  *name = par->name;
  if (par->choices)
    *value = par->choices[g_rand_int_range (rand, 0, par->n_choices)];
  else if (g_rand_int_range (rand, 0, 10) == 0)
    *value = g_rand_boolean (rand) ? lo : hi; /* the ends of the range */
  else
    *value = g_rand_double_range (rand, lo, hi);
}

/* The initial values of a random preset of MODEL (not its parameters), or NULL. */
static GHashTable *
random_preset_given (GRand *rand, CmlModel *model)
{
  GHashTable *given;
  const CmlPreset *pre;
  GHashTableIter it;
  gpointer key, value;

  if (model->presets->len == 0)
    return NULL;
  pre = model->presets->pdata[g_rand_int_range (rand, 0, model->presets->len)];
  given = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_iter_init (&it, pre->values);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (cml_model_find_param (model, key) == NULL)
      g_hash_table_insert (given, key, value);
  return given;
}

static void *
writer_main (void *data)
{
  Soak *s = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  guint current = 0; /* the system the writer last switched to */

  for (guint i = 0; i < N_COMMANDS; i++)
    {
      CmlModel *model = cml_system_get_model (s->systems[current]);
      int r = g_rand_int_range (rand, 0, 100);
      int kind;

      /* weights: mostly running, with every kind of command often */
      if (r < 18)
        {
          kind = 0;
          cml_runner_play (s->runner);
        }
      else if (r < 24)
        {
          kind = 1;
          cml_runner_pause (s->runner);
        }
      else if (r < 31)
        {
          kind = 2;
          cml_runner_step (s->runner, g_rand_double_range (rand, 0, 0.3));
        }
      else if (r < 37)
        {
          kind = 3;
          cml_runner_reset (s->runner, NULL);
        }
      else if (r < 41)
        {
          g_autoptr (GHashTable) given = random_preset_given (rand, model);
          kind = 4;
          cml_runner_reset (s->runner, given);
        }
      else if (r < 52)
        {
          kind = 5;
          cml_runner_set_speed (s->runner, log_uniform (rand, 0.5, SPEED_MAX));
        }
      else if (r < 78)
        {
          const char *name;
          double value;

          kind = 6;
          if (model->params->len == 0)
            {
              cml_runner_play (s->runner);
              kind = 0;
            }
          else
            {
              random_param (rand, model, &name, &value);
              cml_runner_set_param (s->runner, name, value);
            }
        }
      else if (r < 88)
        {
          CmlIntegratorOptions o;

          kind = 7;
          random_integrator (rand, &o);
          cml_runner_set_integrator (s->runner, &o);
        }
      else
        {
          kind = 8;
          current = g_rand_int_range (rand, 0, s->n_systems);
          cml_runner_set_system (s->runner, s->systems[current]);
          /* at full speed again after most switches */
          if (g_rand_int_range (rand, 0, 4) != 0)
            cml_runner_play (s->runner);
        }
      atomic_fetch_add (&s->kinds[kind], 1);
      atomic_fetch_add (&s->commands, 1);

      if ((i + 1) % SYNC_EVERY == 0)
        {
          /* a stuck worker would stop the writer here (the watchdog sees it) */
          cml_runner_sync (s->runner);
          atomic_fetch_add (&s->kinds[9], 1);
        }
      atomic_fetch_add (&s->writer_beat, 1);

      /* spread the commands evenly over the run (bursts happen: sleep only when ahead) */
      double due = s->start + s->duration * (double) (i + 1) / N_COMMANDS;
      double ahead = due - (g_get_monotonic_time () / 1e6);
      if (ahead > 0)
        g_usleep ((gulong) (ahead * G_USEC_PER_SEC));
    }
  atomic_store (&s->writer_done, true);
  return NULL;
}

/* ---- the watchdog ---------------------------------------------------------------------- */

static void *
watchdog_main (void *data)
{
  Soak *s = data;
  unsigned long last_w = 0, last_r[2] = { 0, 0 }, last_cmd = 0;
  double since_w = (g_get_monotonic_time () / 1e6), since_r[2] = { since_w, since_w }, since_cmd = since_w;
  double next_rss = since_w;

  while (!atomic_load (&s->stop))
    {
      double now = (g_get_monotonic_time () / 1e6);
      unsigned long w = atomic_load (&s->writer_beat);
      unsigned long cmd = cml_runner_n_commands (s->runner);

      if (now >= next_rss && s->n_rss < s->max_rss)
        {
          s->rss_t[s->n_rss] = now - s->start;
          s->rss_v[s->n_rss] = rss_mb ();
          s->n_rss++;
          next_rss += RSS_PERIOD;
        }
      if (w != last_w || atomic_load (&s->writer_done))
        {
          last_w = w;
          since_w = now;
        }
      if (cmd != last_cmd)
        {
          last_cmd = cmd;
          since_cmd = now;
        }
      for (int k = 0; k < 2; k++)
        {
          unsigned long b = atomic_load (&s->reader_beat[k]);
          if (b != last_r[k])
            {
              last_r[k] = b;
              since_r[k] = now;
            }
          if (now - since_r[k] > WATCHDOG_SECONDS)
            {
              fprintf (stderr, "test-soak: DEADLOCK? reader %d made no progress for %.0f s (t = %.1f s)\n",
                       k, now - since_r[k], now - s->start);
              abort ();
            }
        }
      if (now - since_w > WATCHDOG_SECONDS)
        {
          fprintf (stderr,
                   "test-soak: DEADLOCK? the writer made no progress for %.0f s (t = %.1f s, %u commands "
                   "sent, %lu carried out, last carried out %.0f s ago)\n",
                   now - since_w, now - s->start, atomic_load (&s->commands), cmd, now - since_cmd);
          abort ();
        }
      g_usleep (50000);
    }
  return NULL;
}

/* ---- the test -------------------------------------------------------------------------- */

static double
soak_seconds (void)
{
  const char *env = g_getenv ("CMLAB_SOAK_SECONDS");
  double d = env && *env ? g_ascii_strtod (env, NULL) : 30.0;

  return isfinite (d) && d >= 1.0 ? d : 30.0;
}

/* The ring's capacity: smaller than the app's 65536 rows (the same code), so that the ring
 * is filled at its largest row layout and wrapped many times within the warm-up; then RSS
 * has no reason to grow afterwards.  (With 65536 rows of up to 43 values the ring is 22 MiB
 * whose pages are first touched over minutes of running.) */
static guint
soak_history (void)
{
  const char *env = g_getenv ("CMLAB_SOAK_HISTORY");
  guint64 n = env && *env ? g_ascii_strtoull (env, NULL, 10) : 0;

  return n >= 16 && n <= (1u << 24) ? (guint) n : 4096;
}

static void
test_soak (void)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = cml_model_list_builtin ();
  g_autoptr (GPtrArray) systems = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_system_unref);
  CmlRunnerOptions opts = cml_runner_options_default ();
  Soak s = { 0 };
  Reader readers[2];
  pthread_t reader_threads[2], writer, watchdog;
  double end_wall;
  CmlFrame *f;

  s.duration = soak_seconds ();
  /* the backstop: the watchdog thread should have caught a hang long before */
  alarm ((unsigned) (s.duration + 4 * WATCHDOG_SECONDS + 120));

  /* every built-in model */
  g_assert_nonnull (names);
  for (guint i = 0; names[i]; i++)
    {
      g_autoptr (CmlModel) model = cml_model_load (names[i], &error);
      g_assert_no_error (error);
      CmlSystem *sys = cml_system_new (model, &error);
      g_assert_no_error (error);
      g_ptr_array_add (systems, sys);
      s.max_cols = MAX (s.max_cols, n_cols_of (sys));
    }
  g_assert_cmpuint (systems->len, >=, 2);
  s.systems = (CmlSystem **) systems->pdata;
  s.n_systems = systems->len;
  g_test_message ("soak: %.0f s, %u commands, %u built-in models", s.duration, N_COMMANDS, s.n_systems);

  s.max_rss = (guint) (s.duration / RSS_PERIOD) + 4096;
  s.rss_t = g_new (double, s.max_rss);
  s.rss_v = g_new (double, s.max_rss);
  atomic_init (&s.stop, false);
  atomic_init (&s.writer_done, false);

  /* full speed: far above what the machine keeps up with */
  opts.speed = SPEED_MAX;
  opts.history_capacity = soak_history ();
  s.capacity = opts.history_capacity;
  s.runner = cml_runner_new (s.systems[0], &opts, &error);
  g_assert_no_error (error);
  cml_runner_play (s.runner);

  s.start = (g_get_monotonic_time () / 1e6);
  g_assert_cmpint (pthread_create (&watchdog, NULL, watchdog_main, &s), ==, 0);
  for (int k = 0; k < 2; k++)
    {
      readers[k].s = &s;
      readers[k].id = k;
      g_assert_cmpint (pthread_create (&reader_threads[k], NULL, reader_main, &readers[k]), ==, 0);
    }
  g_assert_cmpint (pthread_create (&writer, NULL, writer_main, &s), ==, 0);
  pthread_join (writer, NULL);
  cml_runner_sync (s.runner);
  end_wall = (g_get_monotonic_time () / 1e6);
  g_assert_cmpuint (cml_runner_n_commands (s.runner), >=, N_COMMANDS);

  /* still answering commands correctly */
  cml_runner_set_system (s.runner, s.systems[0]);
  cml_runner_reset (s.runner, NULL);
  cml_runner_step (s.runner, 0.25);
  cml_runner_sync (s.runner);
  f = cml_runner_get_frame (s.runner);
  g_assert_true (f->system == s.systems[0]);
  g_assert_cmpint (f->state, ==, CML_RUNNER_PAUSED);
  g_assert_cmpfloat_with_epsilon (f->t, 0.25, 1e-12);
  cml_frame_unref (f);

  atomic_store (&s.stop, true);
  for (int k = 0; k < 2; k++)
    pthread_join (reader_threads[k], NULL);
  pthread_join (watchdog, NULL);
  cml_runner_free (s.runner);
  alarm (0);

  /* ---- the report ---- */
  {
    g_autoptr (GString) kinds = g_string_new (NULL);
    for (guint k = 0; k < G_N_ELEMENTS (kind_names); k++)
      g_string_append_printf (kinds, "%s%s %u", k ? ", " : "", kind_names[k], atomic_load (&s.kinds[k]));
    g_test_message ("soak: %.1f s wall; commands: %s", end_wall - s.start, kinds->str);
  }
  g_test_message ("soak: frames seen %lu (%lu failed-state), reader 0: %lu reads, %lu rows, %lu dropped; "
                  "reader 1: %lu reads, %lu rows, %lu dropped; largest read %lu rows (ring %u)",
                  atomic_load (&s.frames_seen), atomic_load (&s.failed_frames), atomic_load (&s.reads[0]),
                  atomic_load (&s.rows[0]), atomic_load (&s.dropped[0]), atomic_load (&s.reads[1]),
                  atomic_load (&s.rows[1]), atomic_load (&s.dropped[1]), atomic_load (&s.max_rows_one_read),
                  s.capacity);

  /* the history is bounded (each read checked it too) */
  g_assert_cmpuint (atomic_load (&s.max_rows_one_read), <=, s.capacity);
  g_assert_cmpuint (atomic_load (&s.reads[0]), >, 0);
  g_assert_cmpuint (atomic_load (&s.reads[1]), >, 0);

  /* memory flat after the warm-up */
  {
    double warmup = CLAMP (s.duration / 3.0, 5.0, 120.0);
    double warm_peak = 0, post_peak = 0, first = NAN, last = NAN, sx = 0, sy = 0, sxx = 0, sxy = 0;
    guint n_post = 0;

    g_assert_cmpuint (s.n_rss, >, 4);
    for (guint i = 0; i < s.n_rss; i++)
      {
        double t = s.rss_t[i], v = s.rss_v[i];

        g_assert_true (isfinite (v) && v > 0);
        if (isnan (first))
          first = v;
        last = v;
        if (t < warmup)
          warm_peak = MAX (warm_peak, v);
        else
          {
            post_peak = MAX (post_peak, v);
            n_post++;
            sx += t;
            sy += v;
            sxx += t * t;
            sxy += t * v;
          }
      }
    double slope = n_post > 2 ? (n_post * sxy - sx * sy) / (n_post * sxx - sx * sx) : 0;
    double growth = post_peak - warm_peak;

    g_test_message ("soak: RSS %.1f MiB at start, %.1f MiB peak in the %.0f s warm-up, %.1f MiB peak after it, "
                    "%.1f MiB at the end; growth after warm-up %+.2f MiB (bound %.0f MiB), trend %+.3f MiB/min "
                    "(%u samples)",
                    first, warm_peak, warmup, post_peak, last, growth, RSS_BOUND_MB, 60 * slope, s.n_rss);
    /* machine-readable for tools/soak */
    printf ("# soak-rss start=%.2f warmup_peak=%.2f post_peak=%.2f end=%.2f growth=%.2f trend_per_min=%.4f\n",
            first, warm_peak, post_peak, last, growth, 60 * slope);
    fflush (stdout);
    if (UNDER_SANITIZER)
      g_test_message ("soak: under a sanitizer: RSS growth reported, not asserted");
    else if (n_post > 0)
      g_assert_cmpfloat (growth, <=, RSS_BOUND_MB);
  }

  g_free (s.rss_t);
  g_free (s.rss_v);
}

int
main (int argc, char *argv[])
{
  /* as the programs do: GSL reports errors by status, not by abort () */
  gsl_set_error_handler_off ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/soak/storm", test_soak);

  return g_test_run ();
}
