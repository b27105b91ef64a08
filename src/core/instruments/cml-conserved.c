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
 * The moving energy of affine constraints and its frames: cml-conserved-moving.c.  The
 * admissible states: cml-conserved-states.c.
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
 * Casimirs (linear and quadratic, from the structure constants): cml-conserved-casimir.c.
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

#include "cml-conserved-private.h"
#include "cml-bracket.h"
#include "cml-simulation-private.h"

#include <glib/gi18n-lib.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-symsolve.h"

static char *elim_names (Inspector *in, guint k);

void
cml_conserved_candidate_free (CmlConservedCandidate *c)
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
cml_conserved_report_find (const CmlConservedReport *report, CmlCandidateKind kind,
                           const char *name)
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
char *
cml_conserved_pretty (Inspector *in, CmlExpr *e, gsize max_chars)
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

/* ---- deciding a candidate ------------------------------------------------------------- */

gboolean
cml_conserved_depends_on_aux (CmlSystem *sys, CmlExpr *e)
{
  for (guint a = 0; a < sys->derived.na; a++)
    if (cml_expr_depends_on (e, sys->derived.aux_sym[a]))
      return TRUE;
  return FALSE;
}

/* dF/dt along the vector field, symbolic. */
CmlExpr *
cml_conserved_time_derivative (Inspector *in, CmlExpr *F, CmlExpr **grad, CmlExpr **dFdt_partial)
{
  CmlSystem *sys = in->sys;
  CmlExpr *d = cml_expr_diff (in->ctx, F, sys->model->t_sym);

  *dFdt_partial = d;
  for (guint i = 0; i < sys->dim; i++)
    {
      grad[i] = cml_expr_diff (in->ctx, F, sys->state_sym[i]);
      d = cml_sys_madd (in->ctx, d, grad[i], sys->derived.rhs[i]);
    }
  return d;
}

/* The next subset of K of 0 … N − 1 after J in lexicographic order; FALSE after the last. */
gboolean
cml_conserved_next_subset (guint *J, guint k, guint n)
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
void
cml_conserved_constraint_matrix (Inspector *in, const guint *J, guint k, CmlExpr **PhiJ)
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

          cml_conserved_constraint_matrix (in, J, s, PhiJ);
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
      while (in->n_elims < MAX_ELIMINATIONS && ++tried < MAX_SUBSETS && cml_conserved_next_subset (J, s, n));
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
int
cml_conserved_exact_zero (Inspector *in, CmlExpr *d)
{
  CmlModel *md = in->sys->model;

  if (cml_conserved_depends_on_aux (in->sys, d))
    return -1;
  if (cml_expr_is_zero_expanded (in->ctx, d))
    return 0;
  for (guint k = 0; k < in->n_elims; k++)
    if (cml_expr_is_zero_expanded (in->ctx, cml_expr_subs (in->ctx, d, md->constraints->len, in->elim_ids[k], in->elim_repl[k])))
      return (int) k + 1;
  return -1;
}

/* E with the parameters' values put in, multiplied out (NULL when that fails). */
CmlExpr *
cml_conserved_at_values (Inspector *in, CmlExpr *e)
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
gboolean
cml_conserved_depends_on_t_at_values (Inspector *in, CmlExpr *e)
{
  CmlExpr *x;

  if (!cml_expr_depends_on (e, in->sys->model->t_sym))
    return FALSE;
  x = cml_conserved_at_values (in, e);
  return x == NULL || cml_expr_depends_on (x, in->sys->model->t_sym);
}

/* Decides C; HINT (may be NULL) is said when it is not conserved. */
void
cml_conserved_decide (Inspector *in, CmlConservedCandidate *c, const char *hint)
{
  CmlSystem *sys = in->sys;
  guint dim = sys->dim;
  g_autofree CmlExpr **grad = g_new (CmlExpr *, dim);
  CmlExpr *dt, *d;
  double worst = 0, worst_abs = 0;
  guint bad = 0, finite = 0, worst_k = 0;

  if (cml_conserved_depends_on_aux (sys, c->expr))
    {
      c->verdict = CML_CONSERVED_UNDECIDED;
      c->reason = g_strdup (_("it depends on the free velocities that Newton's method solves at every step"));
      return;
    }
  d = cml_conserved_time_derivative (in, c->expr, grad, &dt);
  {
    int how = cml_conserved_exact_zero (in, d);
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
  g_autofree char *where = cml_conserved_states_text (in);
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
    g_autofree char *text = cml_conserved_depends_on_aux (sys, d) ? NULL : cml_conserved_pretty (in, d, 4 * MAX_SHOWN_DERIVATIVE);

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
      case SAMPLE_RANDOM:
      case N_SAMPLE_KINDS: /* the count of kinds, never stored */
        g_string_append (s, _("; the largest at a random state"));
        break;
      }
    c->reason = g_string_free (s, FALSE);
  }
}

CmlConservedCandidate *
cml_conserved_add_candidate (Inspector *in, CmlConservedReport *r, CmlCandidateKind kind,
                             const char *name, const char *what, CmlExpr *expr)
{
  CmlConservedCandidate *c = g_new0 (CmlConservedCandidate, 1);

  c->kind = kind;
  c->name = g_strdup (name);
  c->what = g_strdup (what);
  c->expr = expr;
  c->formula = cml_conserved_pretty (in, expr, 600);
  {
    g_autoptr (GError) error = NULL;
    CmlExpr *x = cml_expr_expand (in->ctx, expr, &error);
    if (x && x != expr)
      {
        char *t = cml_conserved_pretty (in, x, 600);
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

static void
add_energies (Inspector *in, CmlConservedReport *r)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, s = md->constraints->len;
  CmlExpr *E = cml_expr_neg (ctx, md->lagrangian);
  gboolean vak = md->kind == CML_CONSTRAINTS_VAKONOMIC;
  gboolean L_t = cml_conserved_depends_on_t_at_values (in, md->lagrangian);
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
      phi0 = cml_conserved_affine_terms (in);
      make_eliminations (in, phi0);
      gboolean affine = FALSE;
      for (guint a = 0; phi0 && a < s; a++)
        affine |= !cml_expr_is_zero (phi0[a]);
      if (affine)
        {
          GString *terms = g_string_new (NULL);
          for (guint a = 0; a < s; a++)
            {
              g_autofree char *t = cml_conserved_pretty (in, phi0[a], 200);
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
      g_autofree char *pw = cml_conserved_pretty (in, P, 200);
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
  c = cml_conserved_add_candidate (in, r, CML_CANDIDATE_ENERGY, vak ? "H" : "E_L",
                     vak ? _("Hamiltonian on W1, H = p_A y^A − L (the vakonomic energy)")
                         : _("Lagrangian energy, E_L = y^A ∂L/∂y^A − L"),
                     E);
  cml_conserved_decide (in, c, hint->len ? hint->str : NULL);

  /* the moving energy */
  if (md->kind == CML_CONSTRAINTS_NONHOLONOMIC && phi0)
    cml_conserved_add_moving_energy (in, r, E, phi0);
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
      CmlConservedCandidate *c = cml_conserved_add_candidate (in, r, CML_CANDIDATE_MOMENTUM, md->momenta[A], what, cml_sys_user_expr (in->sys, J));
      cml_conserved_decide (in, c, NULL);
    }
}

/* Frees what cml_conserved_make_states () and the eliminations made for IN. */
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
      cml_conserved_make_states (&other);
      t.expr = c->expr;
      cml_conserved_decide (&other, &t, NULL);
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
      CmlConservedCandidate *c = cml_conserved_add_candidate (in, r, CML_CANDIDATE_MONITOR, ne->name, what,
                                                cml_sys_user_expr (in->sys, ne->expr));
      c->declared = ne->conserved;
      cml_conserved_decide (in, c, NULL);
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
  r->candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) cml_conserved_candidate_free);
  r->warnings = g_ptr_array_new_with_free_func (g_free);
  in.sys = sys;
  in.ctx = sys->ctx;
  in.ns = cml_expr_ctx_n_symbols (sys->ctx);
  in.params = params;
  cml_conserved_make_states (&in);
  add_energies (&in, r);
  add_momenta (&in, r);
  cml_conserved_add_casimirs (&in, r);
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
