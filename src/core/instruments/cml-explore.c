/* cml-explore.c — the fan of normal extremals of a vakonomic system from one point.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §18 (the vakonomic equations §4, conjugate points §13).  The state is
 * z = (x, p, r); the point q = (x, r) is held, and so are the constrained momenta p_α (the
 * multipliers, e.g. p₃ of the Heisenberg group); the free momenta p_a (those of the free
 * velocities) range over the level set of the Hamiltonian on W1,
 *
 *   H(x, p) = p_A ŷ^A − L(x, ŷ),   ŷ = (y^a, Ψ^α(y^a)), y^a from the W1 relation,
 *
 * (½ |p_a|² for a sub-Riemannian metric in an orthonormal frame).  The N covectors: the
 * directions ω_i = (cos θ_i, sin θ_i), θ_i = 2π i/N for two free momenta, or the Fibonacci
 * lattice ω_i = (ρ cos φ_i, ρ sin φ_i, ζ_i), ζ_i = 1 − (2i + 1)/N, ρ = √(1 − ζ_i²),
 * φ_i = i π (3 − √5) for three; each scaled, p_a = s ω_i, to H = h by the Illinois method
 * on s ↦ H(s ω_i) − h from a bracket [0, s₁] found by doubling (no derivatives).
 *
 * Each extremal: cml_shoot_extremal (), which gives its first conjugate time as shoot
 * finds it (the sign changes of det ∂q(t)/∂p(0), refined) and its states at the Maxwell
 * grid t_k = t0 + k (T − t0)/M (k = 1…M), at the wavefront times and at T, from the
 * finer run.  The extremals run on a GThreadPool, each with a simulation taken from a
 * queue of one per thread; results go into slots by index, so the output does not depend
 * on the threads.
 *
 * Maxwell points: two extremals i ≠ j meet at t* when q_i(t*) = q_j(t*).  The distance
 * touches 0 there without changing sign, so the root sought is that of
 *
 *   g(t) = (q_i − q_j) · (q̇_i − q̇_j)   (½ d|q_i − q_j|²/dt),
 *
 * which goes from − to + through a meeting (a simple root where the velocities differ).
 * On each step [t_k, t_{k+1}] of the grid (k ≥ 1: at t0 every extremal is at the start),
 * a pair is a candidate when both its distances at the ends are at most twice what the two
 * points moved over the step (they could have met in it) and g changes from − to +; the
 * root is refined by the Illinois method, both extremals re-integrated from their states
 * at t_k with SIM, to 10⁻¹² max(1, |t|); the pair has met when |q_i − q_j| ≤
 * meet_tolerance · (1 + max |q|) there.  An angle — a coordinate whose unit is rad, such as
 * the heading θ of SE(2) — is compared modulo 2π (differences taken in (−π, π]): two
 * extremals meet where they reach the same configuration, not the same point of the
 * universal cover.  Neighbours on the circle or sphere (directions
 * closer than 1.5 spacings, 2π/N or √(4π/N)) are not compared: near a fold of the
 * wavefront (a conjugate point) they pass within the square of their spacing of each other,
 * which is not a meeting.  A pair is compared only while one of the two has no Maxwell time
 * yet; each extremal keeps the earliest time found and the extremal it met.  Meetings
 * closer together than one step of the grid, or touching without crossing (g ≥ 0 on both
 * sides), are not found.
 *
 * The covectors are made apart (cml_explore_covectors: they build the Hamiltonian's
 * expression, which needs the model's context to itself) so that the rest, given them,
 * can run on a worker thread of a window.  Progress: a count of the extremals run, raised
 * under the lock so that it only grows; a cancel flag, read before each extremal starts
 * and at each step of the Maxwell grid, ends the call with CML_ERROR_CANCELLED and frees
 * everything it made.
 */
#define G_LOG_DOMAIN "cml-explore"

#include "cml-explore.h"

#include <glib/gi18n-lib.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-shoot.h"
#include "cml-system-private.h"

#define EXPLORE_LEVEL_DOUBLINGS 80    /* the bracket of the level: s up to 2⁸⁰ */
#define EXPLORE_ROOT_ITERATIONS 200   /* Illinois iterations, level and Maxwell times */
#define EXPLORE_TIME_TOL        1e-12 /* Maxwell times to this × max (1, |t|) */
#define EXPLORE_NEIGHBOURS      1.5   /* directions closer than this × the spacing are neighbours */

CmlExploreOptions
cml_explore_options_default (void)
{
  return (CmlExploreOptions) { .n_covectors = 100, .t_end = 1, .level = 0.5, .n_samples = 200,
                               .maxwell_samples = 200, .meet_tolerance = 1e-6, .jobs = 0 };
}

void
cml_explore_result_free (CmlExploreResult *result)
{
  if (result == NULL)
    return;
  g_strfreev (result->momentum_names);
  g_strfreev (result->coord_names);
  g_free (result->times);
  g_free (result->covectors);
  g_free (result->points);
  g_free (result->conjugate);
  g_free (result->maxwell);
  g_free (result->partner);
  if (result->why)
    for (guint i = 0; i < result->n; i++)
      g_free (result->why[i]);
  g_free (result->why);
  g_free (result->conjugate_rows);
  g_free (result->conjugate_note);
  g_free (result);
}

typedef struct
{
  CmlExploreResult *res;
  CmlShootOptions   sopt;
  guint             dim, m, n, nr;
  double            t0, T;
  const double     *z0;      /* the start (its momenta replaced by each covector) */
  guint             n_at;    /* the Maxwell grid, the wavefront times and T, merged */
  double           *at;
  int              *at_front;/* where each of AT goes among the points: 0…n_times, or −1 */
  int              *at_grid; /* … and on the Maxwell grid: 1…M, or −1 */
  double           *states;  /* n × n_at × dim */
  GAsyncQueue      *sims;    /* the worker simulations not in use */
  GMutex            lock;    /* guards the notes */
  double           *scratch; /* the Maxwell search's: 4 points */
  double           *period;  /* of each coordinate of a point: 2π for an angle (unit rad), else 0 */
  GError           *first;   /* why the first extremal failed, or NULL */
  const gint       *cancel;  /* read atomically: stop when not 0 (may be NULL) */
  CmlExploreProgress progress;
  CmlExploreEnded   ended;   /* each extremal's point at T as it ends (may be NULL) */
  gpointer          progress_data;
  guint             done;    /* extremals run (under LOCK) */
} Explore;

static gboolean
explore_cancelled (const Explore *ex)
{
  return ex->cancel && g_atomic_int_get (ex->cancel) != 0;
}

/* One more extremal done (I): its point at T and conjugate time to the ENDED callback
 * (outside the lock: it may take its time), then the count and the progress, under the
 * lock (so that the counts reported increase). */
static void
explore_count (Explore *ex, guint i)
{
  if (ex->ended)
    {
      CmlExploreResult *res = ex->res;
      ex->ended (i, res->points + ((gsize) i * (res->n_times + 1) + res->n_times) * res->n_coords,
                 res->conjugate[i], ex->progress_data);
    }
  g_mutex_lock (&ex->lock);
  ex->done++;
  if (ex->progress)
    ex->progress (ex->done, ex->res->n, ex->progress_data);
  g_mutex_unlock (&ex->lock);
}

/* H at the base point of SIM's state Z0 with the momenta P (all n). */
static double
hamiltonian_at (CmlSimulation *sim, CmlExpr *H, const double *z0, guint m, guint n, const double *p)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  g_autofree double *z = g_memdup2 (z0, sys->dim * sizeof (double));
  memcpy (z + m, p, n * sizeof (double));
  cml_simulation_set_state (sim, cml_simulation_get_time (sim), z);
  return cml_simulation_eval_expr (sim, H);
}

/* The Hamiltonian on W1, H = p_A ŷ^A − L, as an expression of the model's context (the
 * velocities in it are those of the state: the W1 relation and the constraints give them). */
static CmlExpr *
hamiltonian_expr (CmlModel *md)
{
  CmlExprCtx *ctx = md->ctx;
  CmlExpr *H = cml_expr_num (ctx, 0);
  for (guint A = 0; A < md->n; A++)
    H = cml_expr_add (ctx, H, cml_expr_mul (ctx, cml_expr_sym (ctx, md->momenta_sym[A]),
                                            cml_expr_sym (ctx, md->fibre_sym[A])));
  return cml_expr_sub (ctx, H, md->lagrangian);
}

/* H(s ω) − LEVEL: the free momenta FREE at s ω in P (the others as they are). */
static double
level_gap (CmlSimulation *sim, CmlExpr *H, const double *z0, guint m, guint n, const guint *free,
           guint nf, const double *omega, double level, double *p, double s)
{
  for (guint a = 0; a < nf; a++)
    p[free[a]] = s * omega[a];
  return hamiltonian_at (sim, H, z0, m, n, p) - level;
}

/* The scale s > 0 with H(s ω) = LEVEL along the direction OMEGA of the free momenta FREE
 * (the others as in Z0): a bracket by doubling, then the Illinois method.  FALSE when the
 * level is not reached; H at s = 0 into *H0. */
static gboolean
scale_to_level (CmlSimulation *sim, CmlExpr *H, const double *z0, guint m, guint n,
                const guint *free, guint nf, const double *omega, double level, double *s_out,
                double *h0)
{
  g_autofree double *p = g_memdup2 (z0 + m, n * sizeof (double));
  double sa = 0, sb = 1, fa, fb;
  int side = 0;

  fa = level_gap (sim, H, z0, m, n, free, nf, omega, level, p, sa);
  *h0 = fa + level;
  if (!(fa < 0))
    return FALSE;
  fb = level_gap (sim, H, z0, m, n, free, nf, omega, level, p, sb);
  for (guint k = 0; isfinite (fb) && fb < 0 && k < EXPLORE_LEVEL_DOUBLINGS; k++)
    {
      sa = sb, fa = fb;
      sb *= 2;
      fb = level_gap (sim, H, z0, m, n, free, nf, omega, level, p, sb);
    }
  if (!(fb >= 0) || !isfinite (fb))
    return FALSE;
  for (guint it = 0; it < EXPLORE_ROOT_ITERATIONS && fb != 0 && sb - sa > 4 * DBL_EPSILON * sb; it++)
    {
      double s = (sa * fb - sb * fa) / (fb - fa);
      if (!(s > sa && s < sb))
        s = 0.5 * (sa + sb);
      double f = level_gap (sim, H, z0, m, n, free, nf, omega, level, p, s);
      if (f == 0)
        {
          sa = sb = s;
          fa = fb = 0;
          break;
        }
      if (f > 0)
        {
          sb = s, fb = f;
          if (side == -1)
            fa /= 2;
          side = -1;
        }
      else
        {
          sa = s, fa = f;
          if (side == 1)
            fb /= 2;
          side = 1;
        }
    }
  *s_out = fabs (fa) < fabs (fb) ? sa : sb;
  return TRUE;
}

/* The extremal I on a worker thread (GThreadPool's function: DATA is I + 1). */
static void
explore_one (gpointer data, gpointer user_data)
{
  Explore *ex = user_data;
  CmlExploreResult *res = ex->res;
  guint i = GPOINTER_TO_UINT (data) - 1;
  if (explore_cancelled (ex))
    return;
  CmlSimulation *sim = g_async_queue_pop (ex->sims);
  g_autofree double *z = g_memdup2 (ex->z0, ex->dim * sizeof (double));
  g_autoptr (GError) error = NULL;

  memcpy (z + ex->m, res->covectors + (gsize) i * ex->n, ex->n * sizeof (double));
  cml_simulation_set_state (sim, ex->t0, z);
  g_autoptr (CmlShootResult) sr = cml_shoot_extremal (sim, ex->T, &ex->sopt, ex->n_at, ex->at,
                                                      ex->states + (gsize) i * ex->n_at * ex->dim, &error);
  g_async_queue_push (ex->sims, sim);
  if (sr == NULL)
    {
      res->why[i] = g_strdup (error->message);
      if (i == 0)
        ex->first = g_steal_pointer (&error);
      explore_count (ex, i);
      return;
    }
  if (sr->conjugate_times->len > 0)
    res->conjugate[i] = g_array_index (sr->conjugate_times, double, 0);
  /* the point at each wavefront time and at T */
  for (guint a = 0; a < ex->n_at; a++)
    if (ex->at_front[a] >= 0)
      {
        const double *za = ex->states + ((gsize) i * ex->n_at + a) * ex->dim;
        double *q = res->points + ((gsize) i * (res->n_times + 1) + (guint) ex->at_front[a]) * res->n_coords;
        memcpy (q, za, ex->m * sizeof (double));
        memcpy (q + ex->m, za + ex->m + ex->n, ex->nr * sizeof (double));
      }
  g_mutex_lock (&ex->lock);
  if (res->conjugate_rows == NULL && res->conjugate_note == NULL)
    {
      res->conjugate_rows = g_strdup (sr->conjugate_rows);
      res->conjugate_note = g_strdup (sr->conjugate_note);
    }
  g_mutex_unlock (&ex->lock);
  explore_count (ex, i);
}

/* ---- Maxwell points ------------------------------------------------------------------ */

/* The point q = (x, r) of the state Z into Q, and (when V is not NULL) its velocity. */
static void
point_of (const Explore *ex, CmlSimulation *sim, double t, const double *z, double *q, double *v)
{
  memcpy (q, z, ex->m * sizeof (double));
  memcpy (q + ex->m, z + ex->m + ex->n, ex->nr * sizeof (double));
  if (v == NULL)
    return;
  g_autofree double *dz = g_new (double, ex->dim);
  if (!cml_simulation_eval_rhs_at (sim, t, z, dz, NULL))
    {
      for (guint c = 0; c < ex->m + ex->nr; c++)
        v[c] = NAN;
      return;
    }
  memcpy (v, dz, ex->m * sizeof (double));
  memcpy (v + ex->m, dz + ex->m + ex->n, ex->nr * sizeof (double));
}

static double
dist (guint k, const double *a, const double *b)
{
  double s = 0;
  for (guint c = 0; c < k; c++)
    s += (a[c] - b[c]) * (a[c] - b[c]);
  return sqrt (s);
}

/* The coordinate C of the point A minus that of B: for an angle, modulo its period, in
 * (−P/2, P/2]. */
static double
qdiff (const Explore *ex, guint c, double a, double b)
{
  double d = a - b, P = ex->period[c];
  return P > 0 ? d - P * nearbyint (d / P) : d;
}

/* The distance of two points (angles modulo their period). */
static double
qdist (const Explore *ex, const double *a, const double *b)
{
  double s = 0;
  for (guint c = 0; c < ex->m + ex->nr; c++)
    {
      double d = qdiff (ex, c, a[c], b[c]);
      s += d * d;
    }
  return sqrt (s);
}

/* g = (q_i − q_j)·(q̇_i − q̇_j) and |q_i − q_j| at T of the extremals whose states at TA
 * are ZI, ZJ, run there with SIM (TA itself when T = TA).  FALSE when a run fails. */
static gboolean
pair_at (Explore *ex, CmlSimulation *sim, double ta, const double *zi, const double *zj, double t,
         double *g, double *d, double *qmax)
{
  guint nc = ex->m + ex->nr;
  double *qi = ex->scratch, *qj = qi + nc, *vi = qj + nc, *vj = vi + nc;
  const double *z[2] = { zi, zj };
  double *q[2] = { qi, qj }, *v[2] = { vi, vj };

  for (int e = 0; e < 2; e++)
    {
      const double *ze = z[e];
      if (t != ta)
        {
          cml_simulation_set_state (sim, ta, z[e]);
          if (!cml_simulation_advance (sim, t, NULL))
            return FALSE;
          ze = cml_simulation_get_state (sim);
        }
      point_of (ex, sim, t, ze, q[e], v[e]);
    }
  *g = 0;
  *qmax = 0;
  for (guint c = 0; c < nc; c++)
    {
      *g += qdiff (ex, c, qi[c], qj[c]) * (vi[c] - vj[c]);
      *qmax = MAX (*qmax, MAX (fabs (qi[c]), fabs (qj[c])));
    }
  *d = qdist (ex, qi, qj);
  return isfinite (*g);
}

/* The root of g in (TA, TB) (ga < 0 ≤ gb) for the pair I, J by the Illinois method; its
 * distance there into *D. */
static gboolean
meeting_time (Explore *ex, CmlSimulation *sim, const double *zi, const double *zj, double ta,
              double ga, double tb, double gb, double *tz, double *d, double *qmax)
{
  double t0 = ta;
  int side = 0;
  double g;

  if (gb == 0)
    {
      *tz = tb;
      return pair_at (ex, sim, t0, zi, zj, tb, &g, d, qmax);
    }
  for (guint it = 0; it < EXPLORE_ROOT_ITERATIONS && tb - ta > EXPLORE_TIME_TOL * MAX (1.0, fabs (tb)); it++)
    {
      double t = (ta * gb - tb * ga) / (gb - ga);
      /* (away from the ends by a tenth of the tolerance: no span below the least step) */
      double w = MAX (1e-3 * (tb - ta), 0.1 * EXPLORE_TIME_TOL * MAX (1.0, fabs (tb)));
      if (!(t > ta + w && t < tb - w))
        t = 0.5 * (ta + tb);
      if (!pair_at (ex, sim, t0, zi, zj, t, &g, d, qmax))
        return FALSE;
      if (g == 0)
        {
          *tz = t;
          return TRUE;
        }
      if (g > 0)
        {
          tb = t, gb = g;
          if (side == -1)
            ga /= 2;
          side = -1;
        }
      else
        {
          ta = t, ga = g;
          if (side == 1)
            gb /= 2;
          side = 1;
        }
    }
  *tz = 0.5 * (ta + tb);
  return pair_at (ex, sim, t0, zi, zj, *tz, &g, d, qmax);
}

/* Whether the directions of the covectors I and J are neighbours on the circle or sphere. */
static gboolean
neighbours (const Explore *ex, const double *omega, guint nf, guint i, guint j)
{
  double spacing = nf == 2 ? 2 * G_PI / ex->res->n : sqrt (4 * G_PI / ex->res->n);
  return dist (nf, omega + (gsize) i * nf, omega + (gsize) j * nf) < EXPLORE_NEIGHBOURS * spacing;
}

typedef struct
{
  const double *q;
  guint         nc;
} QaOrder;

/* The extremals by their first coordinate (NaN last), then by number. */
static gint
compare_first (gconstpointer a, gconstpointer b, gpointer data)
{
  const QaOrder *o = data;
  guint i = *(const guint *) a, j = *(const guint *) b;
  double x = o->q[(gsize) i * o->nc], y = o->q[(gsize) j * o->nc];
  if (isnan (x) || isnan (y))
    return isnan (x) && isnan (y) ? (i > j) - (i < j) : isnan (x) ? 1 : -1;
  if (x != y)
    return x < y ? -1 : 1;
  return (i > j) - (i < j);
}

static void
find_maxwell (Explore *ex, CmlSimulation *sim, const double *omega, guint nf, guint M,
              double meet_tol)
{
  CmlExploreResult *res = ex->res;
  guint N = res->n, nc = res->n_coords, dim = ex->dim;
  /* the state index (into AT) of each grid time t_k, k = 1…M */
  g_autofree guint *k_at = g_new (guint, M + 1);
  for (guint a = 0; a < ex->n_at; a++)
    if (ex->at_grid[a] >= 0)
      k_at[ex->at_grid[a]] = a;
  g_autofree double *qa = g_new (double, (gsize) N * nc), *qb = g_new (double, (gsize) N * nc);
  g_autofree double *moved = g_new (double, N);
  g_autofree guint *order = g_new (guint, N);
  QaOrder qa_nc[1] = { { qa, nc } };

  for (guint k = 1; k < M && !explore_cancelled (ex); k++)
    {
      guint a = k_at[k], b = k_at[k + 1];
      double ta = ex->at[a], tb = ex->at[b];
      for (guint i = 0; i < N; i++)
        {
          const double *za = ex->states + ((gsize) i * ex->n_at + a) * dim;
          const double *zb = ex->states + ((gsize) i * ex->n_at + b) * dim;
          point_of (ex, sim, ta, za, qa + (gsize) i * nc, NULL);
          point_of (ex, sim, tb, zb, qb + (gsize) i * nc, NULL);
          moved[i] = qdist (ex, qa + (gsize) i * nc, qb + (gsize) i * nc);
        }
      /* sweep and prune: in the order of the first coordinate at t_k, a pair is near
       * enough only while that coordinate differs by at most the reach of the two (not
       * when it is an angle: its order wraps round) */
      double moved_max = 0;
      for (guint i = 0; i < N; i++)
        {
          order[i] = i;
          moved_max = MAX (moved_max, isfinite (moved[i]) ? moved[i] : 0);
        }
      g_qsort_with_data (order, (gint) N, sizeof (guint), compare_first, qa_nc);
      for (guint oi = 0; oi < N; oi++)
        for (guint oj = oi + 1; oj < N; oj++)
          {
            guint i = MIN (order[oi], order[oj]), j = MAX (order[oi], order[oj]);
            if (ex->period[0] == 0
                && qa[(gsize) order[oj] * nc] - qa[(gsize) order[oi] * nc] > 2 * (moved[order[oi]] + moved_max))
              break;
            if (res->why[i] || res->why[j] || (!isnan (res->maxwell[i]) && !isnan (res->maxwell[j])))
              continue;
            double reach = 2 * (moved[i] + moved[j]);
            if (!(qdist (ex, qa + (gsize) i * nc, qa + (gsize) j * nc) <= reach)
                || !(qdist (ex, qb + (gsize) i * nc, qb + (gsize) j * nc) <= reach) || neighbours (ex, omega, nf, i, j))
              continue;
            const double *zia = ex->states + ((gsize) i * ex->n_at + a) * dim;
            const double *zja = ex->states + ((gsize) j * ex->n_at + a) * dim;
            const double *zib = ex->states + ((gsize) i * ex->n_at + b) * dim;
            const double *zjb = ex->states + ((gsize) j * ex->n_at + b) * dim;
            double ga, gb, d, qmax, tz;
            if (!pair_at (ex, sim, ta, zia, zja, ta, &ga, &d, &qmax)
                || !pair_at (ex, sim, tb, zib, zjb, tb, &gb, &d, &qmax) || !(ga < 0 && gb >= 0))
              continue;
            if (!meeting_time (ex, sim, zia, zja, ta, ga, tb, gb, &tz, &d, &qmax) || !(d <= meet_tol * (1 + qmax)))
              continue;
            /* each keeps the earliest meeting */
            if (isnan (res->maxwell[i]) || tz < res->maxwell[i])
              res->maxwell[i] = tz, res->partner[i] = j;
            if (isnan (res->maxwell[j]) || tz < res->maxwell[j])
              res->maxwell[j] = tz, res->partner[j] = i;
          }
    }
}

/* ---- the fan ------------------------------------------------------------------------- */

static int
compare_doubles (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* What every call checks: the formalism, N, T, the times and the level; the free momenta
 * (those of the velocities the constraints leave free) into FREE (n of them at most). */
static gboolean
explore_check (CmlSimulation *sim, const CmlExploreOptions *opt, guint *free, guint *n_free, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  double t0 = cml_simulation_get_time (sim), T = opt->t_end;

  if (cml_system_get_formalism (sys) != CML_FORMALISM_VAKONOMIC)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the fan of extremals needs a vakonomic model (an optimal-control problem: a Lagrangian with "
                   "constraints read vakonomically), and %s has %s"),
                   md->name, cml_formalism_to_string (cml_system_get_formalism (sys)));
      return FALSE;
    }
  if (opt->n_covectors == 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the fan needs at least one covector"));
      return FALSE;
    }
  if (!(T > t0) || !isfinite (T))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the end time T = %g must be after the start t = %g"), T, t0);
      return FALSE;
    }
  for (guint j = 0; j < opt->n_times; j++)
    if (!(opt->times[j] > t0 && opt->times[j] < T) || (j > 0 && !(opt->times[j] > opt->times[j - 1])))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                     _("the wavefront times must increase and lie between the start t = %g and T = %g, and %g does "
                     "not"),
                     t0, T, opt->times[j]);
        return FALSE;
      }
  if (!(opt->level > 0) || !isfinite (opt->level))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, _("the level of the Hamiltonian must be a number > 0, not %g"),
                   opt->level);
      return FALSE;
    }

  guint nf = 0;
  for (guint A = 0; A < sys->n; A++)
    {
      gboolean con = FALSE;
      for (guint a = 0; a < md->constraints->len; a++)
        con = con || ((CmlNamedExpr *) md->constraints->pdata[a])->sym == md->fibre_sym[A];
      if (!con)
        free[nf++] = A;
    }
  if (nf < 2 || nf > 3)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   _("the fan spreads the momenta of the free velocities over a circle (two of them) or a sphere "
                   "(three), and %s has %u"),
                   md->name, nf);
      return FALSE;
    }
  *n_free = nf;
  return TRUE;
}

double *
cml_explore_covectors (CmlSimulation *sim, const CmlExploreOptions *options, guint *n_momenta, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  CmlExploreOptions opt = options ? *options : cml_explore_options_default ();
  guint dim = sys->dim, m = sys->m, n = sys->n, N = opt.n_covectors, nf;
  double t0 = cml_simulation_get_time (sim);
  g_autofree guint *free = g_new (guint, MAX (n, 1));

  if (!explore_check (sim, &opt, free, &nf, error))
    return NULL;

  /* the directions on the circle or sphere, each scaled to the level */
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *covectors = g_new (double, (gsize) N * n);
  CmlExpr *H = hamiltonian_expr (md);
  for (guint i = 0; i < N; i++)
    {
      double w[3], s, h0;
      if (nf == 2)
        {
          double th = 2 * G_PI * i / N;
          w[0] = cos (th), w[1] = sin (th);
        }
      else
        {
          double zeta = 1 - (2.0 * i + 1) / N, rho = sqrt (MAX (0, 1 - zeta * zeta)), phi = i * G_PI * (3 - sqrt (5));
          w[0] = rho * cos (phi), w[1] = rho * sin (phi), w[2] = zeta;
        }
      if (!scale_to_level (sim, H, z0, m, n, free, nf, w, opt.level, &s, &h0))
        {
          cml_simulation_set_state (sim, t0, z0);
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       _("the level H = %g of the Hamiltonian is not reached along the direction of covector %u "
                       "from this point (H = %g where the free momenta are 0): choose another level"),
                       opt.level, i + 1, h0);
          return NULL;
        }
      double *p = covectors + (gsize) i * n;
      memcpy (p, z0 + m, n * sizeof (double));
      for (guint a = 0; a < nf; a++)
        p[free[a]] = s * w[a];
    }
  cml_simulation_set_state (sim, t0, z0);
  /* what the extremals' simulations derive from the model's expressions on first use */
  cml_system_prepare (sys, cml_simulation_get_integrator (sim)->kind);
  (void) cml_system_jacobian_status (sys);
  if (n_momenta)
    *n_momenta = n;
  return g_steal_pointer (&covectors);
}

CmlExploreResult *
cml_explore (CmlSimulation *sim, const CmlExploreOptions *options, GError **error)
{
  return cml_explore_full (sim, options, NULL, NULL, NULL, error);
}

CmlExploreResult *
cml_explore_full (CmlSimulation *sim, const CmlExploreOptions *options, CmlExploreProgress progress,
                  gpointer user_data, const gint *cancel, GError **error)
{
  return cml_explore_watch (sim, options, progress, NULL, user_data, cancel, error);
}

CmlExploreResult *
cml_explore_watch (CmlSimulation *sim, const CmlExploreOptions *options, CmlExploreProgress progress,
                   CmlExploreEnded ended, gpointer user_data, const gint *cancel, GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  CmlExploreOptions opt = options ? *options : cml_explore_options_default ();
  guint dim = sys->dim, m = sys->m, n = sys->n, nr = dim - m - n, nf;
  double t0 = cml_simulation_get_time (sim), T = opt.t_end;
  g_autofree guint *free = g_new (guint, MAX (n, 1));

  if (!explore_check (sim, &opt, free, &nf, error))
    return NULL;
  if (cancel && g_atomic_int_get (cancel))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_CANCELLED, _("the fan of extremals was cancelled"));
      return NULL;
    }
  g_autofree double *made = NULL;
  if (opt.covectors == NULL && (made = cml_explore_covectors (sim, &opt, NULL, error)) == NULL)
    return NULL;
  const double *given = made ? made : opt.covectors;

  g_autoptr (CmlExploreResult) res = g_new0 (CmlExploreResult, 1);
  guint N = opt.n_covectors;
  res->n = N;
  res->n_free = nf;
  res->n_momenta = n;
  res->n_coords = m + nr;
  res->momentum_names = g_new0 (char *, n + 1);
  for (guint A = 0; A < n; A++)
    res->momentum_names[A] = g_strdup (cml_system_state_name (sys, m + A));
  res->coord_names = g_new0 (char *, m + nr + 1);
  for (guint i = 0; i < m; i++)
    res->coord_names[i] = g_strdup (cml_system_state_name (sys, i));
  for (guint i = 0; i < nr; i++)
    res->coord_names[m + i] = g_strdup (cml_system_state_name (sys, m + n + i));
  res->n_times = opt.n_times;
  res->times = g_memdup2 (opt.times, MAX (opt.n_times, 1) * sizeof (double));
  res->covectors = g_memdup2 (given, (gsize) N * n * sizeof (double));
  res->points = g_new (double, (gsize) N * (opt.n_times + 1) * (m + nr));
  res->conjugate = g_new (double, N);
  res->maxwell = g_new (double, N);
  res->partner = g_new (guint, N);
  res->why = g_new0 (char *, N);
  for (gsize k = 0; k < (gsize) N * (opt.n_times + 1) * (m + nr); k++)
    res->points[k] = NAN;
  for (guint i = 0; i < N; i++)
    res->conjugate[i] = res->maxwell[i] = NAN, res->partner[i] = G_MAXUINT;

  /* the directions of the covectors (their free momenta, normalised): which are
   * neighbours on the circle or sphere */
  g_autofree double *z0 = g_memdup2 (cml_simulation_get_state (sim), dim * sizeof (double));
  g_autofree double *omega = g_new (double, (gsize) N * nf);
  for (guint i = 0; i < N; i++)
    {
      double *w = omega + (gsize) i * nf, norm = 0;
      for (guint a = 0; a < nf; a++)
        w[a] = given[(gsize) i * n + free[a]], norm += w[a] * w[a];
      norm = sqrt (norm);
      for (guint a = 0; a < nf; a++)
        w[a] = norm > 0 ? w[a] / norm : 0;
    }

  /* the times each extremal is sampled at: the Maxwell grid, the wavefront times, T */
  guint M = MAX (opt.maxwell_samples, 1);
  g_autoptr (GArray) at = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint k = 1; k <= M; k++)
    {
      double t = k == M ? T : t0 + (T - t0) * k / M;
      g_array_append_val (at, t);
    }
  for (guint j = 0; j < opt.n_times; j++)
    g_array_append_val (at, opt.times[j]);
  g_array_sort (at, compare_doubles);
  guint n_at = 0;
  for (guint a = 0; a < at->len; a++)
    if (n_at == 0 || g_array_index (at, double, a) > g_array_index (at, double, n_at - 1))
      g_array_index (at, double, n_at++) = g_array_index (at, double, a);
  g_array_set_size (at, n_at);

  Explore ex = { .res = res, .sopt = cml_shoot_options_default (), .dim = dim, .m = m, .n = n, .nr = nr, .t0 = t0,
                 .T = T, .z0 = z0, .n_at = n_at, .at = (double *) at->data, .cancel = cancel,
                 .progress = progress, .ended = ended, .progress_data = user_data };
  ex.sopt.n_samples = opt.n_samples;
  g_autofree int *at_front = ex.at_front = g_new (int, n_at);
  g_autofree int *at_grid = ex.at_grid = g_new (int, n_at);
  for (guint a = 0; a < n_at; a++)
    {
      double t = ex.at[a];
      at_front[a] = at_grid[a] = -1;
      for (guint j = 0; j < opt.n_times; j++)
        if (opt.times[j] == t)
          at_front[a] = (int) j;
      if (t == T)
        at_front[a] = (int) opt.n_times;
      for (guint k = 1; k <= M; k++)
        if ((k == M ? T : t0 + (T - t0) * k / M) == t)
          at_grid[a] = (int) k;
    }
  g_autofree double *states = ex.states = g_new (double, (gsize) N * n_at * dim);
  /* (a failed extremal's states stay NaN: the Maxwell search leaves them aside) */
  for (gsize k = 0; k < (gsize) N * n_at * dim; k++)
    states[k] = NAN;

  /* the extremals on worker threads, one simulation each */
  guint jobs = opt.jobs ? opt.jobs : g_get_num_processors ();
  jobs = MAX (1, MIN (jobs, N));
  g_autoptr (GPtrArray) sims = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_simulation_free);
  ex.sims = g_async_queue_new ();
  g_mutex_init (&ex.lock);
  for (guint j = 0; j < jobs; j++)
    {
      g_autoptr (GError) err = NULL;
      CmlSimulation *w = cml_simulation_new (sys, &err);
      gboolean ok = w != NULL;
      for (guint k = 0; ok && k < md->params->len; k++)
        {
          const char *name = ((CmlParam *) md->params->pdata[k])->name;
          ok = cml_simulation_set_param (w, name, cml_simulation_get_param (sim, name), &err);
        }
      ok = ok && cml_simulation_set_integrator (w, cml_simulation_get_integrator (sim), &err);
      if (w)
        g_ptr_array_add (sims, w);
      if (!ok)
        {
          g_async_queue_unref (ex.sims);
          g_mutex_clear (&ex.lock);
          g_propagate_error (error, g_steal_pointer (&err));
          return NULL;
        }
      cml_simulation_set_state (w, t0, z0);
      g_async_queue_push (ex.sims, w);
    }
  /* the first extremal on this thread: what the model or the integrator cannot do
   * (no exact Jacobian, an integrator without the variational equations) is an error of
   * the whole fan, said once */
  explore_one (GUINT_TO_POINTER (1), &ex);
  if (ex.first && ex.first->domain == CML_ERROR
      && (ex.first->code == CML_ERROR_USAGE || ex.first->code == CML_ERROR_UNSUPPORTED))
    {
      g_async_queue_unref (ex.sims);
      g_mutex_clear (&ex.lock);
      g_propagate_error (error, g_steal_pointer (&ex.first));
      return NULL;
    }
  g_clear_error (&ex.first);
  GThreadPool *pool = jobs > 1 ? g_thread_pool_new (explore_one, &ex, (int) jobs, TRUE, NULL) : NULL;
  for (guint i = 1; i < N; i++)
    {
      if (pool == NULL || !g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL))
        explore_one (GUINT_TO_POINTER (i + 1), &ex);
    }
  if (pool)
    g_thread_pool_free (pool, FALSE, TRUE);
  g_async_queue_unref (ex.sims);
  g_mutex_clear (&ex.lock);

  /* the Maxwell points, on this thread */
  g_autofree double *scratch = ex.scratch = g_new (double, 4 * (m + nr));
  g_autofree double *period = ex.period = g_new0 (double, m + nr);
  for (guint c = 0; c < m + nr; c++)
    if (g_strcmp0 (cml_model_unit (md, res->coord_names[c]), "rad") == 0)
      period[c] = 2 * G_PI;
  if (!explore_cancelled (&ex))
    find_maxwell (&ex, sim, omega, nf, M, opt.meet_tolerance);
  cml_simulation_set_state (sim, t0, z0);
  if (explore_cancelled (&ex))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_CANCELLED, _("the fan of extremals was cancelled"));
      return NULL;
    }
  return g_steal_pointer (&res);
}
