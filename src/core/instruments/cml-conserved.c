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
 * element of ker Φ_y may be added), and E_Z is conserved for the right Z only: the
 * velocity field of the support when it is a symmetry of L and of the constraints (the
 * rotation of a table turning steadily, the translation of a belt at constant speed;
 * Fassò and Sansonetto 2016).  cmlab judges a few frames that do not depend on what the
 * model solves for, in this order:
 *
 *   Z = ρ_a⁻¹ X,  X = Σ_{i∈I} X^i ∂/∂x^i   the support's velocity along s of the base
 *                                         coordinates I, carried to the sections by the
 *                                         inverse of the anchor on the anchored sections
 *   Z_J = −Φ_J⁻¹ φ₀, 0 elsewhere           along s of the velocities J
 *   Z = −W⁻¹ Φ_yᵀ (Φ_y W⁻¹ Φ_yᵀ)⁻¹ φ₀       the least kinetic norm, W = ∂²L/∂y∂y
 *
 * and offers the first whose E_Z is conserved exactly, else the first conserved at the
 * sampled states, else the first whose change is exactly the sum of the rates
 *
 *   dE_Z/dt = F·(y − Z) − p·∂Z/∂t − ∂L/∂t   (forces, an unsteady support, L(t))
 *
 * naming each rate that is not 0 with the parameters' values, else the least-norm one.
 * For the ball on a turning table (§9.1) the first is the table's velocity under the
 * contact point, Z = (−Ωy, Ωx, 0, 0, 0), and E_Z = E_L − Ω m (x v − y u), conserved for
 * constant Ω.
 *
 * Where the constraints hold.  With affine constraints a derivative may vanish only on
 * the constraint set: it is shown to vanish exactly there by solving the constraints for
 * s of the velocities (the first subsets in lexicographic order whose Φ_J depends on the
 * parameters only, then any), substituting and multiplying out.
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
#include "cml-bracket.h"
#include "cml-simulation-private.h"

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

/* the ways the affine constraints are solved for some of the velocities to decide "dF/dt
 * vanishes where the constraints hold" exactly; the subsets of velocities looked at for
 * them and for the moving frames; the moving frames judged */
#define MAX_ELIMINATIONS 2
#define MAX_SUBSETS 64
#define MAX_FRAMES 16

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
  /* where the constraints hold: affine constraints solved for s of the velocities, up to
   * MAX_ELIMINATIONS ways (velocity ids, then their values, s of each) */
  guint          n_elims;
  int           *elim_ids[MAX_ELIMINATIONS];
  CmlExpr      **elim_repl[MAX_ELIMINATIONS];
} Inspector;

static gboolean depends_on_aux (CmlSystem *sys, CmlExpr *e);
static CmlExpr *time_derivative (Inspector *in, CmlExpr *F, CmlExpr **grad, CmlExpr **dFdt_partial);
static int exact_zero (Inspector *in, CmlExpr *d);
static char *elim_names (Inspector *in, guint k);

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
                F = cml_sys_madd (in->ctx, F, cml_sys_sym (in->ctx, sys->state_sym[j]), cml_sys_sym (in->ctx, sys->state_sym[j]));
              }
            if (!(fabs (s - 1) < 1e-9))
              continue;
            CmlExpr *d = time_derivative (in, F, grad, &dt);
            if (!depends_on_aux (sys, d) && cml_expr_is_zero_expanded (in->ctx, d))
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
      if (cml_sim_project_range (in->sim, t, z, sys->movable_from, sys->movable_to, NULL) != 0)
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
      d = cml_sys_madd (in->ctx, d, grad[i], sys->rhs[i]);
    }
  return d;
}

/* The next subset of K of 0 … N − 1 after J in lexicographic order; FALSE after the last. */
static gboolean
next_subset (guint *J, guint k, guint n)
{
  for (guint i = k; i-- > 0;)
    if (J[i] < n - k + i)
      {
        J[i]++;
        for (guint j = i + 1; j < k; j++)
          J[j] = J[j - 1] + 1;
        return TRUE;
      }
  return FALSE;
}

/* The matrix Φ_J = ∂φ/∂y_J (s × k, row-major) of the velocities J. */
static void
constraint_matrix (Inspector *in, const guint *J, guint k, CmlExpr **PhiJ)
{
  CmlModel *md = in->sys->model;
  guint s = md->constraints->len;

  for (guint a = 0; a < s; a++)
    for (guint i = 0; i < k; i++)
      PhiJ[a * k + i] = cml_expr_diff (in->ctx, ((CmlNamedExpr *) md->constraints->pdata[a])->expr,
                                       md->fibre_sym[J[i]]);
}

/* TRUE when E depends on nothing but the parameters. */
static gboolean
depends_on_parameters_only (Inspector *in, CmlExpr *e)
{
  CmlSystem *sys = in->sys;

  if (cml_expr_depends_on (e, sys->model->t_sym))
    return FALSE;
  for (guint i = 0; i < sys->dim; i++)
    if (cml_expr_depends_on (e, sys->state_sym[i]))
      return FALSE;
  return TRUE;
}

/* The ways of solving affine constraints Φ_y y + φ₀ = 0 for s of the velocities, y_J =
 * −Φ_J⁻¹ (φ with y_J = 0), so that "dF/dt = 0 where the constraints hold" can be shown
 * exactly: the first subsets J in lexicographic order whose Φ_J depends on the
 * parameters only (no division by a function of the state), then any.  The same whatever
 * the model solves for. */
static void
make_eliminations (Inspector *in, CmlExpr **phi0)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, s = md->constraints->len;
  g_autofree double *sample = cml_sys_make_sample (sys, 11);

  if (md->kind != CML_CONSTRAINTS_NONHOLONOMIC || phi0 == NULL || s == 0 || s > n)
    return;
  for (guint pass = 0; pass < 2 && in->n_elims < MAX_ELIMINATIONS; pass++)
    {
      g_autofree guint *J = g_new (guint, s);
      guint tried = 0;
      for (guint i = 0; i < s; i++)
        J[i] = i;
      do
        {
          g_autofree CmlExpr **PhiJ = g_new (CmlExpr *, s * s);
          g_autofree CmlExpr **B = g_new (CmlExpr *, s);
          g_autofree CmlExpr **zeros = g_new (CmlExpr *, s);
          g_autofree int *ids = g_new (int, s);
          CmlExpr **X = g_new (CmlExpr *, s);
          gboolean constant = TRUE;

          constraint_matrix (in, J, s, PhiJ);
          for (guint i = 0; i < s * s; i++)
            constant &= depends_on_parameters_only (in, PhiJ[i]);
          if (constant != (pass == 0))
            {
              g_free (X);
              continue;
            }
          for (guint i = 0; i < s; i++)
            {
              ids[i] = md->fibre_sym[J[i]];
              zeros[i] = ZERO (ctx);
            }
          for (guint a = 0; a < s; a++)
            B[a] = cml_expr_neg (ctx, cml_expr_subs (ctx, ((CmlNamedExpr *) md->constraints->pdata[a])->expr, s, ids,
                                                     zeros));
          if (!cml_symsolve (ctx, s, PhiJ, 1, B, sample, X, NULL, NULL))
            {
              g_free (X);
              continue;
            }
          in->elim_ids[in->n_elims] = g_steal_pointer (&ids);
          in->elim_repl[in->n_elims] = X;
          in->n_elims++;
        }
      while (in->n_elims < MAX_ELIMINATIONS && ++tried < MAX_SUBSETS && next_subset (J, s, n));
    }
}

/* The velocities of the elimination K, typeset: "u, v". */
static char *
elim_names (Inspector *in, guint k)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < in->sys->model->constraints->len; i++)
    {
      g_autofree char *nm = cml_expr_pretty_name (cml_expr_ctx_symbol_name (in->ctx, in->elim_ids[k][i]), FALSE);
      g_string_append_printf (s, "%s%s", i ? ", " : "", nm);
    }
  return g_string_free (s, FALSE);
}

/* Whether D (a time derivative along the equations) is 0: 0 when it simplifies to 0 as it
 * is, K + 1 when it does where the constraints hold (the velocities of the elimination K
 * replaced by their values), −1 when neither was shown. */
static int
exact_zero (Inspector *in, CmlExpr *d)
{
  CmlModel *md = in->sys->model;

  if (depends_on_aux (in->sys, d))
    return -1;
  if (cml_expr_is_zero_expanded (in->ctx, d))
    return 0;
  for (guint k = 0; k < in->n_elims; k++)
    if (cml_expr_is_zero_expanded (in->ctx, cml_expr_subs (in->ctx, d, md->constraints->len, in->elim_ids[k], in->elim_repl[k])))
      return (int) k + 1;
  return -1;
}

/* E with the parameters' values put in, multiplied out (NULL when that fails). */
static CmlExpr *
at_values (Inspector *in, CmlExpr *e)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  g_autofree CmlExpr **vals = g_new (CmlExpr *, sys->n_params + 1);
  g_autoptr (GError) error = NULL;

  for (guint k = 0; k < sys->n_params; k++)
    vals[k] = cml_expr_num (in->ctx, in->params ? in->params[k] : ((CmlParam *) md->params->pdata[k])->value);
  return cml_expr_expand (in->ctx, cml_expr_subs (in->ctx, e, sys->n_params, sys->param_sym, vals), &error);
}

/* TRUE when E depends on t with the parameters' values put in (a term Ω₁ sin(ν t) with
 * Ω₁ = 0 does not count). */
static gboolean
depends_on_t_at_values (Inspector *in, CmlExpr *e)
{
  CmlExpr *x;

  if (!cml_expr_depends_on (e, in->sys->model->t_sym))
    return FALSE;
  x = at_values (in, e);
  return x == NULL || cml_expr_depends_on (x, in->sys->model->t_sym);
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
  {
    int how = exact_zero (in, d);
    if (how == 0)
      {
        c->verdict = CML_CONSERVED_EXACTLY;
        c->reason = g_strdup (_("dF/dt = ∂F/∂t + Σ ∂F/∂z·ż simplifies to 0"));
        return;
      }
    if (how > 0)
      {
        g_autofree char *names = elim_names (in, how - 1);
        c->verdict = CML_CONSERVED_EXACTLY;
        c->reason = g_strdup_printf (_("dF/dt = ∂F/∂t + Σ ∂F/∂z·ż simplifies to 0 where the constraints hold "
                                       "(with %s solved from them)"),
                                     names);
        return;
      }
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
  g_autofree double *sample = cml_sys_make_sample (sys, 7);

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
          e = cml_sys_madd (ctx, e, B[i * s + a], X[i * s + b]);
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
        e = cml_sys_madd (ctx, e, X[i * s + a], mu[a]);
      Z[J[i]] = cml_expr_neg (ctx, e);
    }
  return TRUE;
}

/* The frames kept, with their values at two random points (every symbol in [0.35, 1.35])
 * to tell them apart. */
typedef struct
{
  GPtrArray *frames; /* CmlExpr*[n] */
  guint      ns;     /* symbols of the context */
  double    *pts;    /* 2 rows of ns values */
  double    *vals;   /* 2n values of each frame, then room for one more */
} FrameSet;

/* Keeps the frame Z (n expressions, taken) unless it depends on the velocities, is not
 * finite at the points or equals one kept (then it is freed); returns the index of the
 * frame kept or equal to it, or −1. */
static int
keep_frame (Inspector *in, FrameSet *fs, CmlExpr **Z)
{
  CmlModel *md = in->sys->model;
  guint n = md->n, len = fs->frames->len;
  double *v = fs->vals + (gsize) len * 2 * n;
  gboolean ok = len < MAX_FRAMES;

  for (guint A = 0; ok && A < n; A++)
    for (guint B = 0; ok && B < n; B++)
      ok = !cml_expr_depends_on (Z[A], md->fibre_sym[B]);
  for (guint A = 0; ok && A < n; A++)
    for (guint p = 0; p < 2; p++)
      {
        v[p * n + A] = cml_expr_eval (Z[A], fs->pts + (gsize) p * fs->ns);
        ok &= isfinite (v[p * n + A]);
      }
  if (!ok)
    {
      g_free (Z);
      return -1;
    }
  for (guint f = 0; f < len; f++)
    {
      gboolean same = TRUE;
      for (guint i = 0; same && i < 2 * n; i++)
        same = fabs (fs->vals[(gsize) f * 2 * n + i] - v[i]) <= 1e-12 * (1 + fabs (v[i]));
      if (same)
        {
          g_free (Z);
          return f;
        }
    }
  g_ptr_array_add (fs->frames, Z);
  return len;
}

/* The frames Z (n components each) in which the affine constraints Φ_y y + φ₀ = 0 are
 * linear, Φ_y Z = −φ₀, none depending on what the model solves for:
 *
 *  1. the velocity of the support as a field on the base, X = Σ_{i∈I} X^i ∂/∂x^i for s
 *     of the base coordinates I, carried to the sections by the inverse of the anchor
 *     (when the sections with a nonzero anchor are as many as the base coordinates and
 *     the anchor on them is invertible, ρ_a): Z = ρ_a⁻¹ X with (Φ_a ρ_a⁻¹)_I X_I = −φ₀.
 *     The rotation of a turning table, Ω (−y ∂/∂x + x ∂/∂y), and the translation of a
 *     belt, b ∂/∂x, are such fields, whatever velocities the model uses;
 *  2. Z along s of the velocities J only, Φ_J Z_J = −φ₀;
 *  3. the one of least kinetic norm, Z = −W⁻¹ Φ_yᵀ (Φ_y W⁻¹ Φ_yᵀ)⁻¹ φ₀.
 *
 * Frames equal to an earlier one are dropped.  Returns them in that order (at most
 * MAX_FRAMES); *LEAST is the index of the third, or −1. */
static GPtrArray *
moving_frames (Inspector *in, CmlExpr **phi0, int *least)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, m = md->m, s = md->constraints->len;
  GPtrArray *frames = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *sample = cml_sys_make_sample (sys, 13);
  g_autofree CmlExpr **mphi0 = g_new (CmlExpr *, MAX (s, 1));
  g_autoptr (GRand) rand = g_rand_new_with_seed (SEED + 1);
  FrameSet fs = { frames, cml_expr_ctx_n_symbols (ctx), NULL, NULL };

  *least = -1;
  if (s == 0 || s > n)
    return frames;
  fs.pts = g_new (double, 2 * fs.ns);
  for (guint i = 0; i < 2 * fs.ns; i++)
    fs.pts[i] = g_rand_double_range (rand, 0.35, 1.35);
  fs.vals = g_new (double, (gsize) (MAX_FRAMES + 1) * 2 * n);
  for (guint a = 0; a < s; a++)
    mphi0[a] = cml_expr_neg (ctx, phi0[a]);

  /* 1. fields on the base carried by the anchor */
  {
    g_autofree guint *Aset = g_new (guint, n);
    guint na = 0;
    for (guint A = 0; A < n; A++)
      {
        gboolean anchored = FALSE;
        for (guint i = 0; i < m; i++)
          anchored |= !cml_expr_is_zero (md->anchor[i * n + A]);
        if (anchored)
          Aset[na++] = A;
      }
    if (na == m && m >= s && m > 0)
      {
        g_autofree CmlExpr **P = g_new (CmlExpr *, m * m);
        g_autofree CmlExpr **Id = g_new (CmlExpr *, m * m);
        g_autofree CmlExpr **Q = g_new (CmlExpr *, m * m);
        g_autofree CmlExpr **Phia = g_new (CmlExpr *, s * m);
        g_autofree guint *I = g_new (guint, s);
        guint tried = 0;

        for (guint i = 0; i < m; i++)
          for (guint a = 0; a < m; a++)
            {
              P[i * m + a] = md->anchor[i * n + Aset[a]];
              Id[i * m + a] = cml_expr_num (ctx, i == a);
            }
        constraint_matrix (in, Aset, m, Phia);
        /* Q = ρ_a⁻¹: Q[a][i] is the section component a of ∂/∂x^i */
        if (cml_symsolve (ctx, m, P, m, Id, sample, Q, NULL, NULL))
          {
            for (guint i = 0; i < s; i++)
              I[i] = i;
            do
              {
                g_autofree CmlExpr **M = g_new (CmlExpr *, s * s);
                g_autofree CmlExpr **X = g_new (CmlExpr *, s);
                for (guint a = 0; a < s; a++)
                  for (guint j = 0; j < s; j++)
                    {
                      CmlExpr *e = ZERO (ctx);
                      for (guint b = 0; b < m; b++)
                        e = cml_sys_madd (ctx, e, Phia[a * m + b], Q[b * m + I[j]]);
                      M[a * s + j] = e;
                    }
                if (!cml_symsolve (ctx, s, M, 1, mphi0, sample, X, NULL, NULL))
                  continue;
                CmlExpr **Z = g_new (CmlExpr *, n);
                for (guint A = 0; A < n; A++)
                  Z[A] = ZERO (ctx);
                for (guint b = 0; b < m; b++)
                  for (guint j = 0; j < s; j++)
                    Z[Aset[b]] = cml_sys_madd (ctx, Z[Aset[b]], Q[b * m + I[j]], X[j]);
                keep_frame (in, &fs, Z);
              }
            while (++tried < MAX_SUBSETS && next_subset (I, s, m));
          }
      }
  }

  /* 2. along s of the velocities */
  {
    g_autofree guint *J = g_new (guint, s);
    guint tried = 0;
    for (guint i = 0; i < s; i++)
      J[i] = i;
    do
      {
        g_autofree CmlExpr **PhiJ = g_new (CmlExpr *, s * s);
        g_autofree CmlExpr **X = g_new (CmlExpr *, s);
        constraint_matrix (in, J, s, PhiJ);
        if (!cml_symsolve (ctx, s, PhiJ, 1, mphi0, sample, X, NULL, NULL))
          continue;
        CmlExpr **Z = g_new (CmlExpr *, n);
        for (guint A = 0; A < n; A++)
          Z[A] = ZERO (ctx);
        for (guint j = 0; j < s; j++)
          Z[J[j]] = X[j];
        keep_frame (in, &fs, Z);
      }
    while (++tried < MAX_SUBSETS && next_subset (J, s, n));
  }

  /* 3. the least kinetic norm */
  {
    g_autofree guint *J = g_new (guint, n);
    CmlExpr **Z = g_new (CmlExpr *, n);
    for (guint A = 0; A < n; A++)
      J[A] = A;
    if (moving_frame (in, phi0, J, n, Z))
      *least = keep_frame (in, &fs, Z);
    else
      g_free (Z);
  }
  g_free (fs.pts);
  g_free (fs.vals);
  return frames;
}

/* E_Z = E − p·Z, E the Lagrangian energy. */
static CmlExpr *
moving_energy (Inspector *in, CmlExpr *E, CmlExpr **Z)
{
  CmlModel *md = in->sys->model;
  CmlExpr *pZ = ZERO (in->ctx);

  for (guint A = 0; A < md->n; A++)
    pZ = cml_sys_madd (in->ctx, pZ, cml_expr_diff (in->ctx, md->lagrangian, md->fibre_sym[A]), Z[A]);
  return cml_expr_sub (in->ctx, E, pZ);
}

/* The rates at which E_Z changes in the frame Z, each a function of (t, x, y):
 * RATE[0] = F·(y − Z) the power of the forces in the frame (0 without [forces]),
 * RATE[1] = −p·∂Z/∂t from a frame that does not move steadily, RATE[2] = −∂L/∂t. */
static void
moving_energy_rates (Inspector *in, CmlExpr **Z, CmlExpr **rate)
{
  CmlModel *md = in->sys->model;
  CmlExprCtx *ctx = in->ctx;

  rate[0] = rate[1] = ZERO (ctx);
  for (guint A = 0; A < md->n; A++)
    {
      if (md->forces)
        rate[0] = cml_sys_madd (ctx, rate[0], md->forces[A], cml_expr_sub (ctx, cml_sys_sym (ctx, md->fibre_sym[A]), Z[A]));
      rate[1] = cml_sys_madd (ctx, rate[1], cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[A]),
                      cml_expr_diff (ctx, Z[A], md->t_sym));
    }
  rate[1] = cml_expr_neg (ctx, rate[1]);
  rate[2] = cml_expr_neg (ctx, cml_expr_diff (ctx, md->lagrangian, md->t_sym));
}

/* The moving energy: each frame of moving_frames judged, and offered: the first whose E_Z
 * is shown conserved exactly, else the first found conserved at the sampled states, else
 * the first whose change is exactly the rates of moving_energy_rates (the frame of the
 * support: the changes come from the forces, from the support's unsteady motion or from
 * L's dependence on t, and each is named), else the one of least norm. */
static void
add_moving_energy (Inspector *in, CmlConservedReport *r, CmlExpr *E, CmlExpr **phi0)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, s = md->constraints->len;
  gboolean needed = FALSE, explained = FALSE;
  int least = -1, chosen = -1;
  g_autoptr (GPtrArray) frames = NULL;
  g_autofree CmlExpr **grad = g_new (CmlExpr *, sys->dim);
  CmlExpr *rate[3];
  CmlConservedCandidate *c;

  for (guint a = 0; a < s; a++)
    needed |= !cml_expr_is_zero (phi0[a])
              || cml_expr_depends_on (((CmlNamedExpr *) md->constraints->pdata[a])->expr, md->t_sym);
  if (!needed)
    return;
  frames = moving_frames (in, phi0, &least);
  if (frames->len == 0)
    return;
  /* exactly conserved */
  for (guint f = 0; f < frames->len && chosen < 0; f++)
    {
      CmlExpr *dt, *d = time_derivative (in, moving_energy (in, E, frames->pdata[f]), grad, &dt);
      if (exact_zero (in, d) >= 0)
        chosen = f;
    }
  /* no change at the sampled states */
  for (guint f = 0; f < frames->len && chosen < 0; f++)
    {
      CmlConservedCandidate *t = g_new0 (CmlConservedCandidate, 1);
      t->expr = moving_energy (in, E, frames->pdata[f]);
      decide (in, t, NULL);
      if (cml_conserved_verdict_is_conserved (t->verdict))
        chosen = f;
      candidate_free (t);
    }
  /* changed by the named rates only */
  for (guint f = 0; f < frames->len && chosen < 0; f++)
    {
      CmlExpr *dt, *d = time_derivative (in, moving_energy (in, E, frames->pdata[f]), grad, &dt);
      moving_energy_rates (in, frames->pdata[f], rate);
      for (guint k = 0; k < 3; k++)
        d = cml_expr_sub (ctx, d, rate[k]);
      if (exact_zero (in, d) >= 0)
        {
          chosen = f;
          explained = TRUE;
        }
    }
  if (chosen < 0)
    chosen = least >= 0 ? least : 0;

  CmlExpr **Z = frames->pdata[chosen];
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
  c = add_candidate (in, r, CML_CANDIDATE_MOVING_ENERGY, "E_Z", what, moving_energy (in, E, Z));

  /* why it changes, each reason only when it is not 0 with the parameters' values (a term
   * Ω₁ sin(ν t) of a table's speed with Ω₁ = 0 is no reason) */
  g_autoptr (GString) hint = g_string_new (NULL);
  moving_energy_rates (in, Z, rate);
  {
    CmlExpr *Zt_val = at_values (in, rate[1]);
    gboolean Zt = FALSE;
    if (!explained)
      for (guint A = 0; A < n; A++)
        Zt |= depends_on_t_at_values (in, Z[A]);
    if (explained ? Zt_val == NULL || !cml_expr_is_zero (Zt_val) : Zt)
      {
        g_autofree char *t = pretty (in, rate[1], 200);
        g_string_append (hint, _("the frame's velocity Z depends on t (the support does not move steadily)"));
        if (explained)
          g_string_append_printf (hint, _(", which changes E_Z at the rate −p·∂Z/∂t = %s"), t);
      }
  }
  if (depends_on_t_at_values (in, md->lagrangian))
    {
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append (hint, _("L depends on t"));
    }
  if (md->forces)
    {
      g_autofree char *pw = pretty (in, rate[0], 200);
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append_printf (hint, _("forces act ([forces]), doing work in the frame at the rate F·(y − Z) = %s"), pw);
    }
  if (explained)
    {
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append (hint, _("where the constraints hold, dE_Z/dt is exactly the sum of these rates"));
    }
  if (frames->len > 1)
    {
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append_printf (hint, _("none of the %u frames tried (the support's velocity along the coordinates, "
                                      "along some of the velocities, and the one of least kinetic energy) keeps "
                                      "its moving energy constant"),
                              frames->len);
    }
  decide (in, c, hint->len ? hint->str : NULL);
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
  gboolean L_t = depends_on_t_at_values (in, md->lagrangian);
  g_autofree CmlExpr **phi0 = NULL;
  g_autoptr (GString) hint = g_string_new (NULL);
  CmlConservedCandidate *c;

  for (guint A = 0; A < n; A++)
    E = cml_expr_add (ctx, E, cml_expr_mul (ctx, cml_sys_sym (ctx, vak ? md->momenta_sym[A] : md->fibre_sym[A]),
                                            vak ? cml_sys_sym (ctx, md->fibre_sym[A])
                                                : cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[A])));
  E = cml_sys_user_expr (sys, E);

  if (L_t)
    g_string_append (hint, _("L depends on t (∂L/∂t ≠ 0)"));
  if (md->kind == CML_CONSTRAINTS_NONHOLONOMIC)
    {
      phi0 = affine_terms (in);
      make_eliminations (in, phi0);
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
        P = cml_sys_madd (ctx, P, md->forces[A], cml_sys_sym (ctx, md->fibre_sym[A]));
      g_autofree char *pw = pretty (in, P, 200);
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append_printf (hint, _("forces act ([forces]), doing work at the rate F·y = %s"), pw);
      if (md->dissipation)
        {
          /* Euler: y·∂D/∂y = 2D when D is quadratic (homogeneous of degree 2) in y */
          CmlExpr *e = cml_expr_mul (ctx, cml_expr_num (ctx, -2), md->dissipation);
          for (guint A = 0; A < n; A++)
            e = cml_sys_madd (ctx, e, cml_expr_diff (ctx, md->dissipation, md->fibre_sym[A]), cml_sys_sym (ctx, md->fibre_sym[A]));
          if (cml_expr_is_zero_expanded (ctx, e))
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
    add_moving_energy (in, r, E, phi0);
}

static void
add_momenta (Inspector *in, CmlConservedReport *r)
{
  CmlModel *md = in->sys->model;
  gboolean vak = md->kind == CML_CONSTRAINTS_VAKONOMIC;

  for (guint A = 0; A < md->n; A++)
    {
      CmlExpr *J = vak ? cml_sys_sym (in->ctx, md->momenta_sym[A]) : cml_expr_diff (in->ctx, md->lagrangian, md->fibre_sym[A]);
      g_autofree char *what = vak ? g_strdup_printf (_("momentum (costate) along %s"), md->sections[A])
                                  : g_strdup_printf (_("momentum along %s, %s = ∂L/∂%s"), md->sections[A],
                                                     md->momenta[A], md->fibre[A]);
      if (vak && md->momenta_sym[A] < 0)
        continue;
      CmlConservedCandidate *c = add_candidate (in, r, CML_CANDIDATE_MOMENTUM, md->momenta[A], what, cml_sys_user_expr (in->sys, J));
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
    if (!cml_expr_is_zero_expanded (in->ctx, cml_system_poisson_bracket (in->sys, Cp, cml_sys_sym (in->ctx, md->momenta_sym[D]))))
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
  CmlConservedCandidate *c = add_candidate (in, r, CML_CANDIDATE_CASIMIR, name, what, cml_sys_user_expr (in->sys, Cp));
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
  g_autofree double *sample = cml_sys_make_sample (sys, 3);
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
          Cp = cml_sys_madd (ctx, Cp, cml_expr_num (ctx, basis[k * n + A]), cml_sys_sym (ctx, md->momenta_sym[A]));
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
              Cp = cml_sys_madd (ctx, Cp, cml_expr_num (ctx, v),
                         cml_expr_mul (ctx, cml_sys_sym (ctx, md->momenta_sym[A]), cml_sys_sym (ctx, md->momenta_sym[B])));
            }
        if (!cml_expr_is_zero (Cp))
          add_casimir (in, r, &count, Cp, rational, TRUE);
      }
  }
#undef CC
}

/* Frees what make_states () and the eliminations made for IN. */
static void
inspector_clear (Inspector *in)
{
  g_clear_pointer (&in->sim, cml_simulation_free);
  g_clear_pointer (&in->states, g_free);
  g_clear_pointer (&in->rhs, g_free);
  g_clear_pointer (&in->no_states_reason, g_free);
  g_clear_pointer (&in->kinds, g_free);
  g_clear_pointer (&in->sample_t, g_free);
  g_clear_pointer (&in->unit_groups, g_array_unref);
  for (guint k = 0; k < in->n_elims; k++)
    {
      g_free (in->elim_ids[k]);
      g_free (in->elim_repl[k]);
    }
  in->n_elims = 0;
}

/* Values of the parameters other than IN's, drawn uniformly in their ranges (or among their
 * choices) until they meet the model's requirements, into OUT; FALSE when no draw does. */
static gboolean
draw_params (Inspector *in, GRand *rand, double *out)
{
  CmlModel *md = in->sys->model;

  for (guint tries = 0; tries < 100; tries++)
    {
      for (guint k = 0; k < md->params->len; k++)
        {
          CmlParam *p = md->params->pdata[k];
          if (p->choices && p->n_choices)
            out[k] = p->choices[g_rand_int_range (rand, 0, (gint32) p->n_choices)];
          else if (isfinite (p->min) && isfinite (p->max) && p->max > p->min)
            out[k] = g_rand_double_range (rand, p->min, p->max);
          else
            out[k] = p->value * g_rand_double_range (rand, 0.5, 1.5);
        }
      if (cml_model_check_params (md, out, NULL))
        return TRUE;
    }
  return FALSE;
}

/* "I1 = 1.3, I2 = 0.71" */
static char *
params_text (CmlModel *md, const double *values)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < md->params->len; k++)
    {
      g_autofree char *name = cml_expr_pretty_name (((CmlParam *) md->params->pdata[k])->name, FALSE);
      g_string_append_printf (s, "%s%s = %.3g", k ? ", " : "", name, values[k]);
    }
  return g_string_free (s, FALSE);
}

/* A monitor declared conserved ("| conserved") is declared so for every value of the
 * parameters.  One whose dF/dt does not simplify to 0, so that it was judged by sampling at
 * the present values, is judged again at N_OTHER_PARAMS other values drawn in the
 * parameters' ranges: if it changes there, it is conserved only for special values (a
 * body's third angular momentum while I₁ = I₂), and the declaration is contradicted. */
#define N_OTHER_PARAMS 3

static gboolean
changes_at_other_params (Inspector *in, CmlConservedCandidate *c, char **reason)
{
  CmlModel *md = in->sys->model;
  g_autoptr (GRand) rand = g_rand_new_with_seed (SEED + 1);
  g_autofree double *values = g_new (double, MAX (md->params->len, 1));

  if (md->params->len == 0)
    return FALSE;
  for (guint k = 0; k < N_OTHER_PARAMS; k++)
    {
      Inspector other = { 0 };
      CmlConservedCandidate t = { 0 };
      gboolean changes;

      if (!draw_params (in, rand, values))
        return FALSE;
      other.sys = in->sys;
      other.ctx = in->ctx;
      other.ns = in->ns;
      other.params = values;
      make_states (&other);
      t.expr = c->expr;
      decide (&other, &t, NULL);
      changes = t.verdict == CML_CONSERVED_NOT;
      if (changes)
        {
          g_autofree char *at = params_text (md, values);
          *reason = g_strdup_printf (_("it is conserved only for special values of the parameters: at %s it "
                                       "changes, %s"),
                                     at, t.reason);
        }
      g_free (t.reason);
      inspector_clear (&other);
      if (changes)
        return TRUE;
    }
  return FALSE;
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
                                                cml_sys_user_expr (in->sys, ne->expr));
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
      else if (ne->conserved && c->verdict == CML_CONSERVED_TO_ROUNDING)
        {
          g_autofree char *why = NULL;
          if (changes_at_other_params (in, c, &why))
            {
              char *reason = g_strdup_printf ("%s; %s", c->reason, why);
              g_free (c->reason);
              c->reason = reason;
              c->contradiction = TRUE;
              g_ptr_array_add (r->warnings,
                               g_strdup_printf (_("%s:%d: the monitor %s is declared conserved (“| conserved”), that "
                                                  "is for every value of the parameters, but %s"),
                                                md->path, ne->line, ne->name, why));
            }
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
  inspector_clear (&in);
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
