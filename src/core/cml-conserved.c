/* cml-conserved.c — the conserved-quantity inspector: candidate conserved quantities
 * derived from a model, each decided along the derived vector field.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §15.  Notation of §1: state z = (x, y, reconstruction variables) (for a
 * vakonomic system (x, p, …)), right-hand side ż = f(t, z), Lagrangian L(t, x, y),
 * nonholonomic constraints φ^a(t, x, y) = 0 with W ẏ = R + Φ_yᵀ λ (§3).
 *
 * Candidates:
 *
 *   E_L = y^A ∂L/∂y^A − L                the Lagrangian energy (vakonomic: the
 *                                         Hamiltonian H = p_A y^A − L on W1, §4)
 *   E_Z = E_L − p_A Z^A,  p_A = ∂L/∂y^A   the "moving energy" of Fassò and Sansonetto
 *                                         (2016), for constraints affine in y or
 *                                         depending on t
 *   J_A = ∂L/∂y^A                         the momenta (vakonomic: p_A)
 *   C = a^A p_A,  C = S^AB p_A p_B         Casimirs of the Lie–Poisson bracket when the
 *                                         base is a point (a Lie algebra)
 *   the model's monitors.
 *
 * The moving energy.  Affine constraints are φ(t, x, y) = Φ_y(t, x) y + φ₀(t, x) with
 * φ₀ = φ(t, x, 0).  A velocity field Z(t, x) with Φ_y Z + φ₀ = 0 satisfies them; in the
 * frame moving with Z, y − Z, the constraints are linear, Φ_y (y − Z) = 0, and the energy
 * there is the moving energy E_Z = ∂L/∂y·(y − Z) − L = E_L − p·Z.  Z is not unique (any
 * element of ker Φ_y may be added); cmlab takes the one that moves only the velocities the
 * constraints do not determine (those not in [dynamics] solve-for; all of them when there
 * is none or that fails) and, among those, has the least kinetic norm:
 *
 *   Z_J = −W_JJ⁻¹ Φ_Jᵀ (Φ_J W_JJ⁻¹ Φ_Jᵀ)⁻¹ φ₀,   Z = 0 on the other velocities,
 *
 * J the chosen velocities, W = ∂²L/∂y∂y.  For the ball on a turning table (§9.1) this is
 * the velocity of the table under the contact point, Z = (−Ωy, Ωx, 0, 0, 0), and
 * E_Z = E_L − Ω m (x v − y u), conserved for constant Ω (Fassò and Sansonetto, 2016).
 *
 * The energy balance (§3): with W ẏ = R + Φ_yᵀ λ, dE_L/dt = λ_a Φ^a_A y^A − ∂L/∂t, and on
 * affine constraints Φ_y y = −φ₀, so dE_L/dt = −λ·φ₀ − ∂L/∂t: the reaction does work when
 * the constraints have an affine part (a moving support).
 *
 * Casimirs.  On E* over a point the bracket is {F, G} = −C^C_AB p_C F_p_A G_p_B.  A linear
 * C = a^A p_A is a Casimir iff a^A C^D_AB = 0 for all B, D (a is in the centre); a
 * quadratic C = S^AB p_A p_B (S symmetric, summed over all A and B, so that p_A p_B with A ≠ B
 * has the coefficient 2 S^AB) iff for every D the quadratic form
 * p_E p_B Σ_A C^E_AD S^AB vanishes, i.e. Σ_A (C^E_AD S^AB + C^B_AD S^AE) = 0 for all D, E, B.
 * These linear equations are solved for their null space numerically (GSL's SVD) at the
 * parameters' values, the basis is put in reduced row-echelon form and, when the structure
 * constants are numbers, rounded to rationals; each Casimir found is checked symbolically
 * ({C, p_D} = 0 with cml_system_poisson_bracket).  Where the state holds velocities (every
 * formalism but the vakonomic one) C is shown through the Legendre map p_A = ∂L/∂y^A: the
 * Euler–Poincaré equations are ṗ_A = −C^C_AB y^B p_C, and dC/dt = ∂C/∂p_A ṗ_A = 0 for a
 * Casimir whatever the Lagrangian.  In an abelian algebra every function of p is a Casimir;
 * then none is listed apart from the momenta.
 *
 * Deciding a candidate F: dF/dt = ∂F/∂t + Σ_i ∂F/∂z_i f_i(t, z).  First symbolically (exact
 * derivatives of the symbolic right-hand side, products multiplied out): 0 is "conserved
 * (exactly)".  Otherwise at CML_CONSERVED_N_STATES admissible states, with the
 * parameters' values: the model's initial state, states along a run from it (where the
 * motion goes: a force felt only far from the origin is met there), states near it, and
 * random ones (random values given to cml_simulation_reset, which solves or projects them
 * onto the constraints, then a random time with the state projected onto the constraints
 * at that time; unit quaternions and unit vectors kept on their spheres).  When every
 * |dF/dt| is below 1e-9 times Σ |terms| the verdict is "no change found at the sampled
 * states" — evidence, never called "conserved" — else "not conserved", with dF/dt printed
 * when it is short, where the change was largest and the physical reason where one
 * applies.  The random numbers come from a fixed seed.
 */
#define G_LOG_DOMAIN "cml-conserved"

#include "cml-conserved.h"
#include "cml-system-private.h"

#include <glib/gi18n-lib.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-symsolve.h"

#define SEED 20160101u
#define REL_TOL 1e-9
#define MAX_SHOWN_DERIVATIVE 160
#define MAX_QUADRATIC_CASIMIRS 6
/* quadratic Casimirs are looked for up to this rank (n²(n + 1)/2 equations in n(n + 1)/2
 * unknowns) */
#define MAX_CASIMIR_RANK 12

/* the run sampled from the initial state: its length (in the model's time unit) and its
 * states; the states near the initial state */
#define RUN_LENGTH 10.0
#define RUN_STATES 60
#define NEAR_STATES 40

typedef enum
{
  SAMPLE_INITIAL,
  SAMPLE_RUN,
  SAMPLE_NEAR,
  SAMPLE_RANDOM,
  N_SAMPLE_KINDS
} SampleKind;

typedef struct
{
  CmlSystem     *sys;
  CmlExprCtx    *ctx;
  CmlSimulation *sim;     /* NULL: no admissible states */
  guint          ns;      /* symbols of the context */
  double        *states;  /* n_states rows of ns values (t, state, parameters) */
  double        *rhs;     /* n_states rows of dim values */
  guint          n_states;
  char          *no_states_reason;
  const double  *params;  /* the parameters' values, or NULL: the model's */
  SampleKind    *kinds;   /* where each state comes from */
  double        *sample_t; /* the time of each state */
  guint          n_kind[N_SAMPLE_KINDS];
  double         run_to;  /* the end of the sampled run */
  GArray        *unit_groups; /* (first index, length) pairs of unit vectors in the state */
} Inspector;

static gboolean is_zero_expanded (CmlExprCtx *ctx, CmlExpr *e);
static gboolean depends_on_aux (CmlSystem *sys, CmlExpr *e);
static CmlExpr *time_derivative (Inspector *in, CmlExpr *F, CmlExpr **grad, CmlExpr **dFdt_partial);

static void
candidate_free (CmlConservedCandidate *c)
{
  g_free (c->name);
  g_free (c->what);
  g_free (c->formula);
  g_free (c->reason);
  g_free (c);
}

void
cml_conserved_report_free (CmlConservedReport *report)
{
  if (report == NULL)
    return;
  g_ptr_array_unref (report->candidates);
  g_ptr_array_unref (report->warnings);
  g_free (report);
}

gboolean
cml_conserved_verdict_is_conserved (CmlConservedVerdict verdict)
{
  return verdict == CML_CONSERVED_EXACTLY || verdict == CML_CONSERVED_TO_ROUNDING;
}

const char *
cml_conserved_verdict_to_string (CmlConservedVerdict verdict)
{
  switch (verdict)
    {
    case CML_CONSERVED_EXACTLY: return _("conserved (exactly)");
    case CML_CONSERVED_TO_ROUNDING: return _("no change found at the sampled states (not a proof)");
    case CML_CONSERVED_NOT: return _("not conserved");
    case CML_CONSERVED_UNDECIDED: default: return _("undecided");
    }
}

const char *
cml_conserved_verdict_explain (CmlConservedVerdict verdict)
{
  switch (verdict)
    {
    case CML_CONSERVED_EXACTLY:
      return _("Its time derivative along the equations of motion simplifies to 0 symbolically: "
               "it is constant along every motion.");
    case CML_CONSERVED_TO_ROUNDING:
      return _("Its time derivative along the equations of motion did not simplify to 0, and it is "
               "at rounding level at every sampled state on the constraint set (the initial state, "
               "states along a run from it and near it, and random ones), with the parameters' "
               "values. That is evidence, not a proof: a change away from these states would not be "
               "seen.");
    case CML_CONSERVED_NOT:
      return _("Its time derivative along the equations of motion is not zero at some state: it changes "
               "during a motion.");
    case CML_CONSERVED_UNDECIDED:
    default:
      return _("Neither the symbolic derivative nor the numbers could decide it.");
    }
}

const CmlConservedCandidate *
cml_conserved_report_find (const CmlConservedReport *report, CmlCandidateKind kind, const char *name)
{
  for (guint k = 0; report && k < report->candidates->len; k++)
    {
      const CmlConservedCandidate *c = report->candidates->pdata[k];
      if (c->kind == kind && g_strcmp0 (c->name, name) == 0)
        return c;
    }
  return NULL;
}

/* ---- text ----------------------------------------------------------------------------- */

/* E typeset, with the model's definitions factored out where they shorten it. */
static char *
pretty (Inspector *in, CmlExpr *e, gsize max_chars)
{
  GPtrArray *defs = in->sys->model->definitions;
  guint n = defs ? defs->len : 0;
  g_autofree const char **names = g_new0 (const char *, n + 1);
  g_autofree CmlExpr **exprs = g_new0 (CmlExpr *, n + 1);

  for (guint k = 0; k < n; k++)
    {
      names[k] = ((CmlNamedExpr *) defs->pdata[k])->name;
      exprs[k] = ((CmlNamedExpr *) defs->pdata[k])->expr;
    }
  return cml_expr_print_pretty_named (in->ctx, e, max_chars, n, names, exprs);
}

/* ---- admissible states ------------------------------------------------------------------ */

static gboolean
depends_on_t (CmlSystem *sys)
{
  for (guint a = 0; a < sys->h->len; a++)
    if (cml_expr_depends_on (sys->h->pdata[a], sys->model->t_sym))
      return TRUE;
  return FALSE;
}

/* Groups of 3 or 4 consecutive base coordinates (or reconstruction variables) that hold a
 * unit vector or a unit quaternion: Σ z_i² = 1 at the initial state Z0 and
 * d/dt Σ z_i² simplifies to 0 along the equations.  Random states are put on that sphere:
 * off it, quantities the model keeps on it need not be conserved (a Chaplygin sphere with
 * its attitude quaternion among the base coordinates, the Veselova system's Γ). */
static void
find_unit_groups (Inspector *in, const double *z0)
{
  CmlSystem *sys = in->sys;
  g_autofree CmlExpr **grad = g_new (CmlExpr *, sys->dim);
  guint ranges[2][2] = { { 0, sys->m }, { sys->m + sys->n, sys->dim } };

  in->unit_groups = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint r = 0; r < 2; r++)
    for (guint i = ranges[r][0]; i < ranges[r][1];)
      {
        guint len = 0;
        for (guint l = 4; l >= 3 && len == 0; l--)
          {
            double s = 0;
            CmlExpr *F = ZERO (in->ctx), *dt;
            if (i + l > ranges[r][1])
              continue;
            for (guint j = i; j < i + l; j++)
              {
                s += z0[j] * z0[j];
                F = madd (in->ctx, F, sym (in->ctx, sys->state_sym[j]), sym (in->ctx, sys->state_sym[j]));
              }
            if (!(fabs (s - 1) < 1e-9))
              continue;
            CmlExpr *d = time_derivative (in, F, grad, &dt);
            if (!depends_on_aux (sys, d) && is_zero_expanded (in->ctx, d))
              len = l;
          }
        if (len == 0)
          {
            i++;
            continue;
          }
        g_array_append_val (in->unit_groups, i);
        g_array_append_val (in->unit_groups, len);
        i += len;
      }
}

/* VALS (a state) with the model's unit quaternions and the unit groups normalised. */
static void
normalise_units (Inspector *in, double *vals)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;

  for (guint q = 0; q + 3 < md->quaternions->len; q += 4)
    {
      guint *ix = &g_array_index (md->quaternions, guint, q);
      double s = 0;
      for (guint j = 0; j < 4; j++)
        s += vals[sys->m + sys->n + ix[j]] * vals[sys->m + sys->n + ix[j]];
      s = sqrt (MAX (s, 1e-300));
      for (guint j = 0; j < 4; j++)
        vals[sys->m + sys->n + ix[j]] /= s;
    }
  for (guint g = 0; in->unit_groups && g + 1 < in->unit_groups->len; g += 2)
    {
      guint i = g_array_index (in->unit_groups, guint, g), l = g_array_index (in->unit_groups, guint, g + 1);
      double s = 0;
      for (guint j = i; j < i + l; j++)
        s += vals[j] * vals[j];
      s = sqrt (MAX (s, 1e-300));
      for (guint j = i; j < i + l; j++)
        vals[j] /= s;
    }
}

/* Records the admissible state (T, Z) of kind KIND when its right-hand side is finite. */
static gboolean
add_state (Inspector *in, double t, const double *z, SampleKind kind)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  guint dim = sys->dim;
  double *row, *f;

  if (in->n_states >= CML_CONSERVED_N_STATES)
    return FALSE;
  f = in->rhs + (gsize) in->n_states * dim;
  if (!cml_simulation_eval_rhs_at (in->sim, t, z, f, NULL))
    return FALSE;
  for (guint i = 0; i < dim; i++)
    if (!isfinite (f[i]) || !isfinite (z[i]))
      return FALSE;
  row = in->states + (gsize) in->n_states * in->ns;
  for (guint s = 0; s < in->ns; s++)
    row[s] = NAN;
  row[md->t_sym] = t;
  for (guint i = 0; i < dim; i++)
    row[sys->state_sym[i]] = z[i];
  for (guint k = 0; k < sys->n_params; k++)
    row[sys->param_sym[k]] = in->params ? in->params[k] : ((CmlParam *) md->params->pdata[k])->value;
  in->kinds[in->n_states++] = kind;
  in->n_kind[kind]++;
  return TRUE;
}

/* The given values VALS (every state variable) projected by the reset onto the
 * constraints; at time T when the constraints move.  FALSE: no admissible state there. */
static gboolean
admissible (Inspector *in, double *vals, double t, gboolean at_t, double *z, double *t_out)
{
  CmlSystem *sys = in->sys;
  g_autoptr (GHashTable) given = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < sys->dim; i++)
    g_hash_table_insert (given, sys->state_names[i], &vals[i]);
  if (!cml_simulation_reset (in->sim, given, &error))
    {
      g_free (in->no_states_reason);
      in->no_states_reason = g_strdup (error->message);
      return FALSE;
    }
  memcpy (z, cml_simulation_get_state (in->sim), sys->dim * sizeof (double));
  if (!at_t)
    t = cml_simulation_get_time (in->sim);
  else if (depends_on_t (sys) && sys->h->len > 0)
    {
      if (project_range (in->sim, t, z, sys->movable_from, sys->movable_to, NULL) != 0)
        return FALSE;
      cml_simulation_set_state (in->sim, t, z);
      if (!(cml_simulation_residual (in->sim) < 1e-9))
        return FALSE;
    }
  *t_out = t;
  return TRUE;
}

/* The states the numbers are taken at: the model's initial state (with the parameters'
 * values), RUN_STATES states along a run from it to RUN_LENGTH later (where the motion
 * goes), NEAR_STATES states near it (random changes of 1 %, 10 % and 50 % of each value
 * plus as much of 1, projected onto the constraints), and random states (values in
 * [−1.5, 1.5], a random time) up to CML_CONSERVED_N_STATES.  Unit quaternions and unit
 * vectors stay on their spheres. */
static void
make_states (Inspector *in)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  guint dim = sys->dim, tries = 0;
  g_autoptr (GError) error = NULL;
  g_autoptr (GRand) rand = g_rand_new_with_seed (SEED);
  g_autofree double *vals = g_new (double, dim);
  g_autofree double *z = g_new (double, dim);
  g_autofree double *z0 = g_new (double, dim);
  double t0 = 0, t;

  in->sim = cml_simulation_new (sys, &error);
  if (in->sim == NULL)
    {
      in->no_states_reason = g_strdup (error->message);
      return;
    }
  for (guint k = 0; in->params && k < sys->n_params; k++)
    if (!cml_simulation_set_param (in->sim, ((CmlParam *) md->params->pdata[k])->name, in->params[k], &error))
      {
        in->no_states_reason = g_strdup (error->message);
        g_clear_pointer (&in->sim, cml_simulation_free);
        return;
      }
  in->states = g_new0 (double, (gsize) CML_CONSERVED_N_STATES * in->ns);
  in->rhs = g_new0 (double, (gsize) CML_CONSERVED_N_STATES * dim);
  in->kinds = g_new0 (SampleKind, CML_CONSERVED_N_STATES);
  in->sample_t = g_new0 (double, CML_CONSERVED_N_STATES);

  if (cml_simulation_reset (in->sim, NULL, &error))
    {
      t0 = cml_simulation_get_time (in->sim);
      memcpy (z0, cml_simulation_get_state (in->sim), dim * sizeof (double));
      in->sample_t[in->n_states] = t0;
      add_state (in, t0, z0, SAMPLE_INITIAL);
      for (guint k = 1; k <= RUN_STATES; k++)
        {
          double t1 = t0 + RUN_LENGTH * k / RUN_STATES;
          g_autoptr (GError) run_error = NULL;
          if (!cml_simulation_advance (in->sim, t1, &run_error))
            break;
          in->sample_t[in->n_states] = t1;
          if (add_state (in, t1, cml_simulation_get_state (in->sim), SAMPLE_RUN))
            in->run_to = t1;
        }
      find_unit_groups (in, z0);
      for (guint k = 0; k < 3 * NEAR_STATES && in->n_kind[SAMPLE_NEAR] < NEAR_STATES; k++)
        {
          double r = k % 3 == 0 ? 0.01 : k % 3 == 1 ? 0.1 : 0.5;
          for (guint i = 0; i < dim; i++)
            vals[i] = z0[i] + r * (fabs (z0[i]) + 1) * g_rand_double_range (rand, -1, 1);
          normalise_units (in, vals);
          if (!admissible (in, vals, t0, FALSE, z, &t))
            continue;
          in->sample_t[in->n_states] = t;
          add_state (in, t, z, SAMPLE_NEAR);
        }
    }
  else
    {
      in->no_states_reason = g_strdup (error->message);
      g_clear_error (&error);
    }
  while (in->n_states < CML_CONSERVED_N_STATES && tries++ < 10 * CML_CONSERVED_N_STATES)
    {
      double tr = g_rand_double_range (rand, 0, 4);

      for (guint i = 0; i < dim; i++)
        vals[i] = g_rand_double_range (rand, -1.5, 1.5);
      normalise_units (in, vals);
      if (!admissible (in, vals, tr, TRUE, z, &t))
        continue;
      cml_simulation_set_state (in->sim, t, z);
      in->sample_t[in->n_states] = t;
      add_state (in, t, z, SAMPLE_RANDOM);
    }
}

/* Where the states were, for a verdict's reason: "the initial state, 60 along a run from
 * it to t = 10, 40 near it and 99 random ones". */
static char *
states_text (Inspector *in)
{
  GString *s = g_string_new (NULL);
  const char *sep = "";

  if (in->n_kind[SAMPLE_INITIAL])
    {
      g_string_append (s, _("the initial state"));
      sep = ", ";
    }
  if (in->n_kind[SAMPLE_RUN])
    {
      g_autofree char *to = g_strdup_printf ("%g", in->run_to);
      g_string_append (s, sep);
      g_string_append_printf (s, _("%u along the run from it to t = %s"), in->n_kind[SAMPLE_RUN], to);
      sep = ", ";
    }
  if (in->n_kind[SAMPLE_NEAR])
    {
      g_string_append (s, sep);
      g_string_append_printf (s, _("%u near it"), in->n_kind[SAMPLE_NEAR]);
      sep = ", ";
    }
  if (in->n_kind[SAMPLE_RANDOM])
    {
      g_string_append (s, sep);
      g_string_append_printf (s, _("%u random ones"), in->n_kind[SAMPLE_RANDOM]);
    }
  for (guint g = 0; in->unit_groups && g + 1 < in->unit_groups->len; g += 2)
    {
      guint i = g_array_index (in->unit_groups, guint, g), l = g_array_index (in->unit_groups, guint, g + 1);
      GString *names = g_string_new (NULL);
      for (guint j = i; j < i + l; j++)
        {
          g_autofree char *nm = cml_expr_pretty_name (in->sys->state_names[j], FALSE);
          g_string_append_printf (names, "%s%s", j > i ? ", " : "", nm);
        }
      g_string_append_printf (s, _("; (%s) of length 1 in the states near it and the random ones, as at the initial state (the equations "
                                  "keep its length)"), names->str);
      g_string_free (names, TRUE);
    }
  return g_string_free (s, FALSE);
}

/* ---- deciding a candidate ------------------------------------------------------------- */

static gboolean
is_zero_expanded (CmlExprCtx *ctx, CmlExpr *e)
{
  g_autoptr (GError) error = NULL;
  CmlExpr *x;

  if (cml_expr_is_zero (e))
    return TRUE;
  x = cml_expr_expand (ctx, e, &error);
  return x != NULL && cml_expr_is_zero (x);
}

static gboolean
depends_on_aux (CmlSystem *sys, CmlExpr *e)
{
  for (guint a = 0; a < sys->na; a++)
    if (cml_expr_depends_on (e, sys->aux_sym[a]))
      return TRUE;
  return FALSE;
}

/* dF/dt along the vector field, symbolic. */
static CmlExpr *
time_derivative (Inspector *in, CmlExpr *F, CmlExpr **grad, CmlExpr **dFdt_partial)
{
  CmlSystem *sys = in->sys;
  CmlExpr *d = cml_expr_diff (in->ctx, F, sys->model->t_sym);

  *dFdt_partial = d;
  for (guint i = 0; i < sys->dim; i++)
    {
      grad[i] = cml_expr_diff (in->ctx, F, sys->state_sym[i]);
      d = madd (in->ctx, d, grad[i], sys->rhs[i]);
    }
  return d;
}

/* Decides C; HINT (may be NULL) is said when it is not conserved. */
static void
decide (Inspector *in, CmlConservedCandidate *c, const char *hint)
{
  CmlSystem *sys = in->sys;
  guint dim = sys->dim;
  g_autofree CmlExpr **grad = g_new (CmlExpr *, dim);
  CmlExpr *dt, *d;
  double worst = 0, worst_abs = 0;
  guint bad = 0, finite = 0, worst_k = 0;

  if (depends_on_aux (sys, c->expr))
    {
      c->verdict = CML_CONSERVED_UNDECIDED;
      c->reason = g_strdup (_("it depends on the free velocities that Newton's method solves at every step"));
      return;
    }
  d = time_derivative (in, c->expr, grad, &dt);
  if (!depends_on_aux (sys, d) && is_zero_expanded (in->ctx, d))
    {
      c->verdict = CML_CONSERVED_EXACTLY;
      c->reason = g_strdup (_("dF/dt = ∂F/∂t + Σ ∂F/∂z·ż simplifies to 0"));
      return;
    }
  if (in->n_states == 0)
    {
      c->verdict = CML_CONSERVED_UNDECIDED;
      c->reason = in->no_states_reason ? g_strdup_printf (_("no admissible state to test it at: %s"), in->no_states_reason)
                                       : g_strdup (_("no admissible state to test it at"));
      return;
    }
  for (guint k = 0; k < in->n_states; k++)
    {
      const double *row = in->states + (gsize) k * in->ns, *f = in->rhs + (gsize) k * dim;
      double v = cml_expr_eval (dt, row), scale = fabs (v), gsum = 0, fmax = 0;

      /* the size of the terms: each |∂F/∂z_i f_i|, and |∂F/∂z_i| times the largest rate,
       * the size of the rounding error of an f_i that vanishes */
      for (guint i = 0; i < dim; i++)
        fmax = MAX (fmax, fabs (f[i]));
      for (guint i = 0; i < dim; i++)
        {
          if (cml_expr_is_zero (grad[i]))
            continue;
          double g = cml_expr_eval (grad[i], row), term = g * f[i];
          v += term;
          scale += fabs (term);
          gsum += fabs (g);
        }
      scale += gsum * fmax;
      if (!isfinite (v) || !isfinite (scale))
        continue;
      finite++;
      double rel = scale > 0 ? fabs (v) / scale : 0;
      if (rel > REL_TOL)
        bad++;
      if (rel > worst)
        {
          worst = rel;
          worst_k = k;
          worst_abs = fabs (v);
        }
    }
  c->n_states = finite;
  c->max_rel = worst;
  if (finite == 0)
    {
      c->verdict = CML_CONSERVED_UNDECIDED;
      c->reason = g_strdup (_("dF/dt is not finite at any of the sampled admissible states"));
      return;
    }
  g_autofree char *where = states_text (in);
  if (bad == 0)
    {
      c->verdict = CML_CONSERVED_TO_ROUNDING;
      c->reason = g_strdup_printf (_("dF/dt does not simplify to 0; |dF/dt| ≤ %.1e of the size of its terms at "
                                     "%u admissible states: %s"),
                                   MAX (worst, 1e-17), finite, where);
      return;
    }
  c->verdict = CML_CONSERVED_NOT;
  {
    GString *s = g_string_new (NULL);
    g_autofree char *text = depends_on_aux (sys, d) ? NULL : pretty (in, d, 4 * MAX_SHOWN_DERIVATIVE);

    if (hint)
      g_string_append_printf (s, "%s; ", hint);
    if (text && g_utf8_strlen (text, -1) <= MAX_SHOWN_DERIVATIVE && !strstr (text, "…"))
      g_string_append_printf (s, "dF/dt = %s", text);
    else
      g_string_append_printf (s, "dF/dt ≠ 0");
    g_string_append_printf (s, _(" (|dF/dt| up to %.2g, %.1e of its terms, at %u of %u admissible states: %s)"),
                            worst_abs, worst, bad, finite, where);
    switch (in->kinds[worst_k])
      {
      case SAMPLE_INITIAL: g_string_append (s, _("; the largest at the initial state")); break;
      case SAMPLE_RUN:
        g_string_append_printf (s, _("; the largest on the run from the initial state, at t = %g"), in->sample_t[worst_k]);
        break;
      case SAMPLE_NEAR: g_string_append (s, _("; the largest near the initial state")); break;
      case SAMPLE_RANDOM: default: g_string_append (s, _("; the largest at a random state")); break;
      }
    c->reason = g_string_free (s, FALSE);
  }
}

static CmlConservedCandidate *
add_candidate (Inspector *in, CmlConservedReport *r, CmlCandidateKind kind, const char *name, const char *what,
               CmlExpr *expr)
{
  CmlConservedCandidate *c = g_new0 (CmlConservedCandidate, 1);

  c->kind = kind;
  c->name = g_strdup (name);
  c->what = g_strdup (what);
  c->expr = expr;
  c->formula = pretty (in, expr, 600);
  {
    g_autoptr (GError) error = NULL;
    CmlExpr *x = cml_expr_expand (in->ctx, expr, &error);
    if (x && x != expr)
      {
        char *t = pretty (in, x, 600);
        if (strlen (t) < strlen (c->formula))
          {
            g_free (c->formula);
            c->formula = t;
          }
        else
          g_free (t);
      }
  }
  g_ptr_array_add (r->candidates, c);
  return c;
}

/* ---- the candidates ---------------------------------------------------------------------- */

/* The affine terms φ₀ = φ(t, x, 0) of nonholonomic constraints affine in y, or NULL. */
static CmlExpr **
affine_terms (Inspector *in)
{
  CmlModel *md = in->sys->model;
  guint n = md->n, s = md->constraints->len;
  g_autofree CmlExpr **zeros = g_new (CmlExpr *, n);
  CmlExpr **phi0 = g_new (CmlExpr *, MAX (s, 1));

  for (guint A = 0; A < n; A++)
    zeros[A] = ZERO (in->ctx);
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      for (guint A = 0; A < n; A++)
        for (guint B = 0; B < n; B++)
          if (!cml_expr_is_zero (cml_expr_diff (in->ctx, cml_expr_diff (in->ctx, phi, md->fibre_sym[A]),
                                                md->fibre_sym[B])))
            {
              g_free (phi0);
              return NULL;
            }
      phi0[a] = cml_expr_subs (in->ctx, phi, n, md->fibre_sym, zeros);
    }
  return phi0;
}

/* Z of the opening comment over the velocities J (n_J of them), or FALSE. */
static gboolean
moving_frame (Inspector *in, CmlExpr **phi0, const guint *J, guint nJ, CmlExpr **Z)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, s = md->constraints->len;
  g_autofree CmlExpr **W = g_new (CmlExpr *, nJ * nJ);
  g_autofree CmlExpr **B = g_new (CmlExpr *, nJ * s);
  g_autofree CmlExpr **X = g_new (CmlExpr *, nJ * s);
  g_autofree CmlExpr **Cm = g_new (CmlExpr *, s * s);
  g_autofree CmlExpr **mu = g_new (CmlExpr *, s);
  g_autofree double *sample = make_sample (sys, 7);

  if (nJ < s)
    return FALSE;
  for (guint i = 0; i < nJ; i++)
    for (guint j = 0; j < nJ; j++)
      W[i * nJ + j] = cml_expr_diff (ctx, cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[J[i]]),
                                     md->fibre_sym[J[j]]);
  for (guint i = 0; i < nJ; i++)
    for (guint a = 0; a < s; a++)
      B[i * s + a] = cml_expr_diff (ctx, ((CmlNamedExpr *) md->constraints->pdata[a])->expr, md->fibre_sym[J[i]]);
  /* X = W_JJ⁻¹ Φ_Jᵀ, then (Φ_J X) μ = φ₀, Z_J = −X μ */
  if (!cml_symsolve (ctx, nJ, W, s, B, sample, X, NULL, NULL))
    return FALSE;
  for (guint a = 0; a < s; a++)
    for (guint b = 0; b < s; b++)
      {
        CmlExpr *e = ZERO (ctx);
        for (guint i = 0; i < nJ; i++)
          e = madd (ctx, e, B[i * s + a], X[i * s + b]);
        Cm[a * s + b] = e;
      }
  if (!cml_symsolve (ctx, s, Cm, 1, phi0, sample, mu, NULL, NULL))
    return FALSE;
  for (guint A = 0; A < n; A++)
    Z[A] = ZERO (ctx);
  for (guint i = 0; i < nJ; i++)
    {
      CmlExpr *e = ZERO (ctx);
      for (guint a = 0; a < s; a++)
        e = madd (ctx, e, X[i * s + a], mu[a]);
      Z[J[i]] = cml_expr_neg (ctx, e);
    }
  return TRUE;
}

static void
add_energies (Inspector *in, CmlConservedReport *r)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, s = md->constraints->len;
  CmlExpr *E = cml_expr_neg (ctx, md->lagrangian);
  gboolean vak = md->kind == CML_CONSTRAINTS_VAKONOMIC;
  gboolean L_t = cml_expr_depends_on (md->lagrangian, md->t_sym);
  g_autofree CmlExpr **phi0 = NULL;
  g_autoptr (GString) hint = g_string_new (NULL);
  CmlConservedCandidate *c;

  for (guint A = 0; A < n; A++)
    E = cml_expr_add (ctx, E, cml_expr_mul (ctx, sym (ctx, vak ? md->momenta_sym[A] : md->fibre_sym[A]),
                                            vak ? sym (ctx, md->fibre_sym[A])
                                                : cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[A])));
  E = user_expr (sys, E);

  if (L_t)
    g_string_append (hint, _("L depends on t (∂L/∂t ≠ 0)"));
  if (md->kind == CML_CONSTRAINTS_NONHOLONOMIC)
    {
      phi0 = affine_terms (in);
      gboolean affine = FALSE;
      for (guint a = 0; phi0 && a < s; a++)
        affine |= !cml_expr_is_zero (phi0[a]);
      if (affine)
        {
          GString *terms = g_string_new (NULL);
          for (guint a = 0; a < s; a++)
            {
              g_autofree char *t = pretty (in, phi0[a], 200);
              g_string_append_printf (terms, "%s%s", a ? ", " : "", t);
            }
          g_string_append (hint, hint->len ? "; " : "");
          g_string_append_printf (hint,
                                  _("the constraints are affine, φ = Φ_y y + φ₀ with φ₀ = (%s) ≠ 0, so "
                                    "dE_L/dt = −λ·φ₀%s ≠ 0: the reaction of the constraints does work (a moving "
                                    "support, such as a turning table, does work on the body)"),
                                  terms->str, L_t ? " − ∂L/∂t" : "");
          g_string_free (terms, TRUE);
        }
      else if (phi0 == NULL)
        {
          g_string_append (hint, hint->len ? "; " : "");
          g_string_append (hint, _("the constraints are not affine in the velocities (Chetaev's rule: the "
                                   "reaction λ·Φ_y y need not vanish)"));
        }
    }
  if (md->forces)
    {
      /* the power of the forces: dE_L/dt = F·y (plus the terms above) */
      CmlExpr *P = ZERO (ctx);
      for (guint A = 0; A < n; A++)
        P = madd (ctx, P, md->forces[A], sym (ctx, md->fibre_sym[A]));
      g_autofree char *pw = pretty (in, P, 200);
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append_printf (hint, _("forces act ([forces]), doing work at the rate F·y = %s"), pw);
      if (md->dissipation)
        {
          /* Euler: y·∂D/∂y = 2D when D is quadratic (homogeneous of degree 2) in y */
          CmlExpr *e = cml_expr_mul (ctx, cml_expr_num (ctx, -2), md->dissipation);
          for (guint A = 0; A < n; A++)
            e = madd (ctx, e, cml_expr_diff (ctx, md->dissipation, md->fibre_sym[A]), sym (ctx, md->fibre_sym[A]));
          if (is_zero_expanded (ctx, e))
            g_string_append (hint, _("; the dissipation function D is quadratic in the velocities, so its power is "
                                     "−2D ≤ 0: it only takes energy away"));
        }
    }
  c = add_candidate (in, r, CML_CANDIDATE_ENERGY, vak ? "H" : "E_L",
                     vak ? _("Hamiltonian on W1, H = p_A y^A − L (the vakonomic energy)")
                         : _("Lagrangian energy, E_L = y^A ∂L/∂y^A − L"),
                     E);
  decide (in, c, hint->len ? hint->str : NULL);

  /* the moving energy */
  if (md->kind == CML_CONSTRAINTS_NONHOLONOMIC && phi0)
    {
      gboolean needed = FALSE;
      for (guint a = 0; a < s; a++)
        needed |= !cml_expr_is_zero (phi0[a])
                  || cml_expr_depends_on (((CmlNamedExpr *) md->constraints->pdata[a])->expr, md->t_sym);
      if (!needed)
        return;
      g_autofree guint *J = g_new (guint, n);
      g_autofree CmlExpr **Z = g_new (CmlExpr *, n);
      guint nJ = 0;
      gboolean ok = FALSE;
      for (guint A = 0; A < n; A++)
        {
          gboolean dep = FALSE;
          for (guint k = 0; k < md->n_solve_for; k++)
            dep |= md->solve_for[k] == (int) (md->m + A);
          if (!dep)
            J[nJ++] = A;
        }
      if (nJ < n)
        ok = moving_frame (in, phi0, J, nJ, Z);
      if (!ok)
        {
          for (guint A = 0; A < n; A++)
            J[A] = A;
          ok = moving_frame (in, phi0, J, n, Z);
        }
      /* a frame's velocity is a function of (t, x): with a Lagrangian that is not quadratic
       * in y, W and so Z would depend on y */
      for (guint A = 0; ok && A < n; A++)
        for (guint B = 0; ok && B < n; B++)
          ok = !cml_expr_depends_on (Z[A], md->fibre_sym[B]);
      if (!ok)
        return;
      CmlExpr *pZ = ZERO (ctx);
      gboolean Zt = FALSE;
      for (guint A = 0; A < n; A++)
        {
          pZ = madd (ctx, pZ, cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[A]), Z[A]);
          Zt |= cml_expr_depends_on (Z[A], md->t_sym);
        }
      GString *zt = g_string_new ("Z = (");
      for (guint A = 0; A < n; A++)
        {
          g_autofree char *t = pretty (in, Z[A], 200);
          g_string_append_printf (zt, "%s%s", A ? ", " : "", t);
        }
      g_string_append (zt, ")");
      if (g_utf8_strlen (zt->str, -1) > 240)
        g_string_assign (zt, "Z");
      g_autofree char *what = g_strdup_printf (_("moving energy (Fassò and Sansonetto 2016), E_Z = E_L − p·Z with "
                                                 "%s the velocity of the frame in which the constraints are linear"),
                                               zt->str);
      g_string_free (zt, TRUE);
      c = add_candidate (in, r, CML_CANDIDATE_MOVING_ENERGY, "E_Z", what, cml_expr_sub (ctx, E, pZ));
      decide (in, c, Zt ? _("the frame's velocity Z depends on t (the support does not move steadily)")
                        : L_t ? _("L depends on t") : NULL);
    }
}

static void
add_momenta (Inspector *in, CmlConservedReport *r)
{
  CmlModel *md = in->sys->model;
  gboolean vak = md->kind == CML_CONSTRAINTS_VAKONOMIC;

  for (guint A = 0; A < md->n; A++)
    {
      CmlExpr *J = vak ? sym (in->ctx, md->momenta_sym[A]) : cml_expr_diff (in->ctx, md->lagrangian, md->fibre_sym[A]);
      g_autofree char *what = vak ? g_strdup_printf (_("momentum (costate) along %s"), md->sections[A])
                                  : g_strdup_printf (_("momentum along %s, %s = ∂L/∂%s"), md->sections[A],
                                                     md->momenta[A], md->fibre[A]);
      if (vak && md->momenta_sym[A] < 0)
        continue;
      CmlConservedCandidate *c = add_candidate (in, r, CML_CANDIDATE_MOMENTUM, md->momenta[A], what, user_expr (in->sys, J));
      decide (in, c, NULL);
    }
}

/* Reduced row-echelon form of the R×N matrix M (row-major) in place; returns the rank. */
static guint
rref (double *M, guint R, guint N)
{
  guint row = 0;

  for (guint col = 0; col < N && row < R; col++)
    {
      guint best = row;
      for (guint i = row + 1; i < R; i++)
        if (fabs (M[i * N + col]) > fabs (M[best * N + col]))
          best = i;
      if (fabs (M[best * N + col]) < 1e-9)
        continue;
      for (guint j = 0; j < N; j++)
        {
          double t = M[row * N + j];
          M[row * N + j] = M[best * N + j];
          M[best * N + j] = t;
        }
      double p = M[row * N + col];
      for (guint j = 0; j < N; j++)
        M[row * N + j] /= p;
      for (guint i = 0; i < R; i++)
        if (i != row && M[i * N + col] != 0)
          {
            double f = M[i * N + col];
            for (guint j = 0; j < N; j++)
              M[i * N + j] -= f * M[row * N + j];
          }
      row++;
    }
  return row;
}

/* X rounded to a rational p/q with q ≤ 1000 when one is within 1e-9, else X. */
static double
round_rational (double x)
{
  for (int q = 1; q <= 1000; q++)
    {
      double p = round (x * q);
      if (fabs (p / q - x) < 1e-9)
        return p / q;
    }
  return x;
}

/* The null space of the R×N matrix A (row-major) as rows of a K×N matrix in reduced
 * row-echelon form, or NULL with *K = 0. */
static double *
null_space (const double *A, guint R, guint N, gboolean rational, guint *K)
{
  guint rows = MAX (R, N);
  gsl_matrix *U = gsl_matrix_calloc (rows, N), *V = gsl_matrix_alloc (N, N);
  gsl_vector *S = gsl_vector_alloc (N), *work = gsl_vector_alloc (N);
  double *basis = NULL, smax;
  guint k = 0;

  for (guint i = 0; i < R; i++)
    for (guint j = 0; j < N; j++)
      gsl_matrix_set (U, i, j, A[i * N + j]);
  gsl_linalg_SV_decomp (U, V, S, work);
  smax = gsl_vector_get (S, 0);
  basis = g_new0 (double, (gsize) N * N);
  for (guint j = 0; j < N; j++)
    if (gsl_vector_get (S, j) <= 1e-10 * MAX (smax, 1e-300) || smax == 0)
      {
        for (guint i = 0; i < N; i++)
          basis[k * N + i] = gsl_matrix_get (V, i, j);
        k++;
      }
  k = rref (basis, k, N);
  for (guint i = 0; rational && i < k * N; i++)
    basis[i] = round_rational (basis[i]);
  gsl_matrix_free (U);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (work);
  *K = k;
  if (k == 0)
    g_clear_pointer (&basis, g_free);
  return basis;
}

/* A Casimir C(p): TRUE when {C, p_D} simplifies to 0 for every D. */
static gboolean
casimir_exact (Inspector *in, CmlExpr *Cp)
{
  CmlModel *md = in->sys->model;

  for (guint D = 0; D < md->n; D++)
    if (!is_zero_expanded (in->ctx, cml_system_poisson_bracket (in->sys, Cp, sym (in->ctx, md->momenta_sym[D]))))
      return FALSE;
  return TRUE;
}

static void
add_casimir (Inspector *in, CmlConservedReport *r, guint *count, CmlExpr *Cp, gboolean rational, gboolean quadratic)
{
  g_autofree char *name = g_strdup_printf ("C%u", ++*count);
  g_autofree char *cp = pretty (in, Cp, 300);
  gboolean exact = casimir_exact (in, Cp);
  gboolean vak = in->sys->model->kind == CML_CONSTRAINTS_VAKONOMIC;
  const char *how = exact ? _("{C, p_A} = 0 exactly")
                    : rational ? _("{C, p_A} = 0 not shown symbolically")
                               : _("found numerically at the parameters' values");
  g_autofree char *what = quadratic
                            ? (vak ? g_strdup_printf (_("quadratic Casimir of the Lie–Poisson bracket, C = %s (%s)"), cp, how)
                                   : g_strdup_printf (_("quadratic Casimir of the Lie–Poisson bracket, C = %s through the "
                                                        "Legendre map p = ∂L/∂y (%s)"), cp, how))
                            : (vak ? g_strdup_printf (_("linear Casimir of the Lie–Poisson bracket, C = %s (%s)"), cp, how)
                                   : g_strdup_printf (_("linear Casimir of the Lie–Poisson bracket, C = %s through the "
                                                        "Legendre map p = ∂L/∂y (%s)"), cp, how));
  CmlConservedCandidate *c = add_candidate (in, r, CML_CANDIDATE_CASIMIR, name, what, user_expr (in->sys, Cp));
  decide (in, c, NULL);
}

static void
add_casimirs (Inspector *in, CmlConservedReport *r)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, count = 0, K = 0;
  gboolean rational = TRUE;
  g_autofree double *sample = make_sample (sys, 3);
  g_autofree double *Cn = g_new (double, n * n * n); /* Cn[(A*n + B)*n + C] = C^C_AB */

  if (md->m != 0 || n == 0)
    return;
  for (guint A = 0; A < n; A++)
    if (md->momenta_sym[A] < 0)
      return;
  for (guint i = 0; i < n * n * n; i++)
    {
      rational &= cml_expr_is_number (md->bracket[i], NULL);
      Cn[i] = cml_expr_eval (md->bracket[i], sample);
    }
#define CC(C, A, B) Cn[((A) * n + (B)) * n + (C)]
  /* linear: a^A C^D_AB = 0 for all B, D */
  {
    g_autofree double *M = g_new0 (double, n * n * n);
    g_autofree double *basis = NULL;
    for (guint B = 0; B < n; B++)
      for (guint D = 0; D < n; D++)
        for (guint A = 0; A < n; A++)
          M[(B * n + D) * n + A] = CC (D, A, B);
    basis = null_space (M, n * n, n, rational, &K);
    if (K == n)
      return; /* abelian: every function of p; the momenta are listed already */
    for (guint k = 0; k < K; k++)
      {
        CmlExpr *Cp = ZERO (ctx);
        for (guint A = 0; A < n; A++)
          Cp = madd (ctx, Cp, cml_expr_num (ctx, basis[k * n + A]), sym (ctx, md->momenta_sym[A]));
        add_casimir (in, r, &count, Cp, rational, FALSE);
      }
  }
  /* quadratic: S^AB = S^BA, unknowns A ≤ B; rows (D, E ≤ B) */
  if (n <= MAX_CASIMIR_RANK)
  {
    guint N = n * (n + 1) / 2, R = n * N;
    g_autofree guint *ix = g_new (guint, n * n);
    g_autofree double *M = g_new0 (double, (gsize) R * N);
    g_autofree double *basis = NULL;
    guint u = 0;

    for (guint A = 0; A < n; A++)
      for (guint B = A; B < n; B++)
        ix[A * n + B] = ix[B * n + A] = u++;
    for (guint D = 0; D < n; D++)
      for (guint E = 0; E < n; E++)
        for (guint B = E; B < n; B++)
          {
            double *row = M + (gsize) (D * N + ix[E * n + B]) * N;
            for (guint A = 0; A < n; A++)
              {
                row[ix[A * n + B]] += CC (E, A, D);
                row[ix[A * n + E]] += CC (B, A, D);
              }
          }
    basis = null_space (M, R, N, rational, &K);
    for (guint k = 0; k < MIN (K, MAX_QUADRATIC_CASIMIRS); k++)
      {
        CmlExpr *Cp = ZERO (ctx);
        for (guint A = 0; A < n; A++)
          for (guint B = A; B < n; B++)
            {
              /* Σ_AB S^AB p_A p_B: S^AB and S^BA on p_A p_B, A ≠ B */
              double v = (A == B ? 1 : 2) * basis[k * N + ix[A * n + B]];
              if (v == 0)
                continue;
              Cp = madd (ctx, Cp, cml_expr_num (ctx, v),
                         cml_expr_mul (ctx, sym (ctx, md->momenta_sym[A]), sym (ctx, md->momenta_sym[B])));
            }
        if (!cml_expr_is_zero (Cp))
          add_casimir (in, r, &count, Cp, rational, TRUE);
      }
  }
#undef CC
}

static void
add_monitors (Inspector *in, CmlConservedReport *r)
{
  CmlModel *md = in->sys->model;

  for (guint k = 0; k < md->monitors->len; k++)
    {
      CmlNamedExpr *ne = md->monitors->pdata[k];
      g_autofree char *what = g_strdup (ne->conserved ? _("monitor of the model, declared conserved")
                                                      : _("monitor of the model"));
      CmlConservedCandidate *c = add_candidate (in, r, CML_CANDIDATE_MONITOR, ne->name, what,
                                                user_expr (in->sys, ne->expr));
      c->declared = ne->conserved;
      decide (in, c, NULL);
      if (ne->conserved && c->verdict == CML_CONSERVED_NOT)
        {
          c->contradiction = TRUE;
          g_ptr_array_add (r->warnings,
                           g_strdup_printf (_("%s:%d: the monitor %s is declared conserved (“| conserved”) but it is "
                                              "not: %s"),
                                            md->path, ne->line, ne->name, c->reason));
        }
    }
}

CmlConservedReport *
cml_conserved_inspect (CmlSystem *sys)
{
  return cml_conserved_inspect_at (sys, NULL);
}

CmlConservedReport *
cml_conserved_inspect_at (CmlSystem *sys, const double *params)
{
  CmlConservedReport *r = g_new0 (CmlConservedReport, 1);
  Inspector in = { 0 };

  g_return_val_if_fail (sys != NULL, NULL);
  r->candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) candidate_free);
  r->warnings = g_ptr_array_new_with_free_func (g_free);
  in.sys = sys;
  in.ctx = sys->ctx;
  in.ns = cml_expr_ctx_n_symbols (sys->ctx);
  in.params = params;
  make_states (&in);
  add_energies (&in, r);
  add_momenta (&in, r);
  add_casimirs (&in, r);
  add_monitors (&in, r);
  g_clear_pointer (&in.sim, cml_simulation_free);
  g_free (in.states);
  g_free (in.rhs);
  g_free (in.no_states_reason);
  g_free (in.kinds);
  g_free (in.sample_t);
  if (in.unit_groups)
    g_array_unref (in.unit_groups);
  return r;
}

/* ---- the section of `cmlab-cli info` ----------------------------------------------------- */

char *
cml_conserved_report_to_text (const CmlConservedReport *report)
{
  GString *s = g_string_new (_("\nConserved quantities, derived and checked along the equations of motion:\n"));

  for (guint k = 0; k < report->candidates->len; k++)
    {
      const CmlConservedCandidate *c = report->candidates->pdata[k];
      g_autofree char *name = cml_expr_pretty_name (c->name, FALSE);

      g_string_append_printf (s, "    %s = %s\n", name, c->formula);
      g_string_append_printf (s, "        %s\n", c->what);
      g_string_append_printf (s, "        %s%s: %s\n", cml_conserved_verdict_to_string (c->verdict),
                              c->contradiction ? _(" — CONTRADICTS the model, which declares it conserved") : "",
                              c->reason);
    }
  for (guint k = 0; k < report->warnings->len; k++)
    g_string_append_printf (s, _("\nWarning: %s\n"), (char *) report->warnings->pdata[k]);
  return g_string_free (s, FALSE);
}
