/* test-conserved.c — the conserved-quantity inspector's verdicts on every built-in model
 * and on a model that declares a quantity conserved that is not (doc/theory.md §15).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-conserved"

#include "physics-util.h"

#include "cml-conserved.h"

static CmlConservedReport *
inspect_model (CmlModel *model, CmlSystem **sys_out, const char *param, double value)
{
  g_autoptr (GError) error = NULL;
  CmlSystem *sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_autofree double *params = g_new (double, model->params->len + 1);
  for (guint k = 0; k < model->params->len; k++)
    {
      CmlParam *p = model->params->pdata[k];
      params[k] = param && g_str_equal (p->name, param) ? value : p->value;
    }
  CmlConservedReport *r = cml_conserved_inspect_at (sys, params);
  g_assert_nonnull (r);
  *sys_out = sys;
  return r;
}

static CmlConservedReport *
inspect (const char *name, CmlSystem **sys_out, const char *param, double value)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  return inspect_model (model, sys_out, param, value);
}

static const CmlConservedCandidate *
find (const CmlConservedReport *r, CmlCandidateKind kind, const char *name)
{
  const CmlConservedCandidate *c = cml_conserved_report_find (r, kind, name);
  if (c == NULL)
    g_error ("no candidate %s", name);
  return c;
}

static void
assert_conserved (const CmlConservedReport *r, CmlCandidateKind kind, const char *name)
{
  const CmlConservedCandidate *c = find (r, kind, name);
  if (!cml_conserved_verdict_is_conserved (c->verdict))
    g_error ("%s: %s: %s", name, cml_conserved_verdict_to_string (c->verdict), c->reason);
}

static void
assert_not_conserved (const CmlConservedReport *r, CmlCandidateKind kind, const char *name)
{
  const CmlConservedCandidate *c = find (r, kind, name);
  if (c->verdict != CML_CONSERVED_NOT)
    g_error ("%s: %s: %s", name, cml_conserved_verdict_to_string (c->verdict), c->reason);
}

/* every monitor the model declares conserved is found conserved: no contradiction */
static void
assert_no_contradiction (const CmlConservedReport *r)
{
  for (guint k = 0; k < r->candidates->len; k++)
    {
      const CmlConservedCandidate *c = r->candidates->pdata[k];
      g_assert_false (c->contradiction);
      if (c->declared)
        assert_conserved (r, CML_CANDIDATE_MONITOR, c->name);
    }
  g_assert_cmpuint (r->warnings->len, ==, 0);
}

static void
test_rolling_ball (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect ("rolling-ball", &sys, NULL, 0);
  const CmlConservedCandidate *e = find (r, CML_CANDIDATE_ENERGY, "E_L");

  /* Ω = 1: the table does work, and the reason says so */
  g_assert_cmpint (e->verdict, ==, CML_CONSERVED_NOT);
  g_assert_nonnull (strstr (e->reason, "affine"));
  g_assert_nonnull (strstr (e->reason, "λ·φ₀"));
  assert_not_conserved (r, CML_CANDIDATE_MONITOR, "energy");
  /* the moving energy E_L − Ω m (x v − y u) is conserved (Fassò and Sansonetto) */
  assert_conserved (r, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  assert_conserved (r, CML_CANDIDATE_MOMENTUM, "p5");
  assert_not_conserved (r, CML_CANDIDATE_MOMENTUM, "p1");
  assert_conserved (r, CML_CANDIDATE_MONITOR, "I");
  assert_conserved (r, CML_CANDIDATE_MONITOR, "Cx");
  assert_conserved (r, CML_CANDIDATE_MONITOR, "Cy");
  assert_no_contradiction (r);
  g_assert_cmpuint (find (r, CML_CANDIDATE_MONITOR, "I")->n_states, ==, CML_CONSERVED_N_STATES);
  cml_system_unref (sys);

  /* Ω = 0: a still table, the energy is conserved */
  g_autoptr (CmlConservedReport) still = inspect ("rolling-ball", &sys, "Omega", 0);
  assert_conserved (still, CML_CANDIDATE_ENERGY, "E_L");
  assert_conserved (still, CML_CANDIDATE_MONITOR, "energy");
  assert_conserved (still, CML_CANDIDATE_MONITOR, "I");
  assert_conserved (still, CML_CANDIDATE_MOMENTUM, "p1");
  cml_system_unref (sys);
}

static void
test_rolling_ball_varying (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect ("rolling-ball-varying", &sys, NULL, 0);

  assert_not_conserved (r, CML_CANDIDATE_ENERGY, "E_L");
  /* Ω(t): the frame does not move steadily, and the moving energy changes too */
  assert_not_conserved (r, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  g_assert_nonnull (strstr (find (r, CML_CANDIDATE_MOVING_ENERGY, "E_Z")->reason, "depends on t"));
  assert_conserved (r, CML_CANDIDATE_MOMENTUM, "p5");
  assert_conserved (r, CML_CANDIDATE_MONITOR, "I");
  assert_not_conserved (r, CML_CANDIDATE_MONITOR, "table_speed");
  assert_no_contradiction (r);
  cml_system_unref (sys);
}

static void
test_plate_ball (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect ("plate-ball", &sys, NULL, 0);

  assert_conserved (r, CML_CANDIDATE_ENERGY, "H");
  g_assert_cmpint (find (r, CML_CANDIDATE_ENERGY, "H")->verdict, ==, CML_CONSERVED_EXACTLY);
  assert_conserved (r, CML_CANDIDATE_MONITOR, "casimir");
  assert_conserved (r, CML_CANDIDATE_MONITOR, "H");
  assert_conserved (r, CML_CANDIDATE_MONITOR, "J");
  assert_not_conserved (r, CML_CANDIDATE_MONITOR, "heading");
  assert_no_contradiction (r);
  cml_system_unref (sys);
}

static void
test_rigid_body (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect ("rigid-body", &sys, NULL, 0);
  const CmlConservedCandidate *c1 = find (r, CML_CANDIDATE_CASIMIR, "C1");
  g_autoptr (GError) error = NULL;
  CmlModel *model = cml_system_get_model (sys);
  CmlExpr *M2 = cml_expr_parse (model->ctx, "(I1*W1)^2 + (I2*W2)^2 + (I3*W3)^2", NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpint (find (r, CML_CANDIDATE_ENERGY, "E_L")->verdict, ==, CML_CONSERVED_EXACTLY);
  /* so(3) has no centre and one quadratic Casimir, |M|², found exactly */
  g_assert_null (cml_conserved_report_find (r, CML_CANDIDATE_CASIMIR, "C2"));
  g_assert_cmpint (c1->verdict, ==, CML_CONSERVED_EXACTLY);
  g_assert_nonnull (strstr (c1->what, "exactly"));
  {
    /* C1 = |M|² up to a factor */
    CmlExpr *ratio = cml_expr_div (model->ctx, c1->expr, M2);
    double v;
    g_assert_true (cml_expr_is_number (ratio, &v));
    g_assert_cmpfloat (v, !=, 0);
  }
  assert_conserved (r, CML_CANDIDATE_MONITOR, "casimir");
  assert_conserved (r, CML_CANDIDATE_MONITOR, "mx");
  assert_not_conserved (r, CML_CANDIDATE_MOMENTUM, "p1");
  assert_no_contradiction (r);
  cml_system_unref (sys);
}

static void
test_heavy_top (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect ("heavy-top", &sys, NULL, 0);

  g_assert_cmpint (find (r, CML_CANDIDATE_ENERGY, "E_L")->verdict, ==, CML_CONSERVED_EXACTLY);
  g_assert_cmpint (find (r, CML_CANDIDATE_MONITOR, "casimir")->verdict, ==, CML_CONSERVED_EXACTLY);
  g_assert_cmpint (find (r, CML_CANDIDATE_MONITOR, "mz")->verdict, ==, CML_CONSERVED_EXACTLY);
  /* a symmetric top (I1 = I2): the spin about its axis is conserved; I1 ≠ I2: it is not */
  assert_conserved (r, CML_CANDIDATE_MOMENTUM, "p3");
  assert_not_conserved (r, CML_CANDIDATE_MOMENTUM, "p1");
  assert_no_contradiction (r);
  cml_system_unref (sys);
  g_autoptr (CmlConservedReport) asym = inspect ("heavy-top", &sys, "I2", 2);
  assert_not_conserved (asym, CML_CANDIDATE_MOMENTUM, "p3");
  assert_conserved (asym, CML_CANDIDATE_ENERGY, "E_L");
  cml_system_unref (sys);
}

static void
test_vertical_disk_and_sleigh (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) disk = inspect ("vertical-disk", &sys, NULL, 0);

  assert_conserved (disk, CML_CANDIDATE_ENERGY, "E_L");
  /* linear constraints: no moving energy */
  g_assert_null (cml_conserved_report_find (disk, CML_CANDIDATE_MOVING_ENERGY, "E_Z"));
  assert_conserved (disk, CML_CANDIDATE_MOMENTUM, "p3");
  assert_conserved (disk, CML_CANDIDATE_MOMENTUM, "p4");
  assert_not_conserved (disk, CML_CANDIDATE_MOMENTUM, "p1");
  assert_conserved (disk, CML_CANDIDATE_MONITOR, "speed");
  assert_no_contradiction (disk);
  cml_system_unref (sys);

  g_autoptr (CmlConservedReport) sleigh = inspect ("chaplygin-sleigh", &sys, NULL, 0);
  assert_conserved (sleigh, CML_CANDIDATE_ENERGY, "E_L");
  assert_not_conserved (sleigh, CML_CANDIDATE_MOMENTUM, "p3");
  assert_not_conserved (sleigh, CML_CANDIDATE_MONITOR, "forward");
  assert_no_contradiction (sleigh);
  cml_system_unref (sys);
}

static void
test_martinet_and_capri_kobayashi (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) mart = inspect ("martinet", &sys, NULL, 0);

  assert_conserved (mart, CML_CANDIDATE_ENERGY, "H");
  assert_conserved (mart, CML_CANDIDATE_MOMENTUM, "k");
  assert_not_conserved (mart, CML_CANDIDATE_MOMENTUM, "p_u");
  assert_conserved (mart, CML_CANDIDATE_MONITOR, "a");
  assert_no_contradiction (mart);
  cml_system_unref (sys);

  for (int full = 0; full < 2; full++)
    {
      g_autoptr (CmlConservedReport) ck = inspect (full ? "capri-kobayashi-full" : "capri-kobayashi", &sys, NULL, 0);
      assert_conserved (ck, CML_CANDIDATE_ENERGY, "E_L");
      assert_conserved (ck, CML_CANDIDATE_MONITOR, "energy");
      assert_conserved (ck, CML_CANDIDATE_MONITOR, "pr");
      assert_not_conserved (ck, CML_CANDIDATE_MOMENTUM, "p3");
      if (full)
        assert_not_conserved (ck, CML_CANDIDATE_MONITOR, "rho");
      else
        assert_conserved (ck, CML_CANDIDATE_MOMENTUM, "p4"); /* the reduced angle's momentum */
      assert_no_contradiction (ck);
      cml_system_unref (sys);
    }
}

/* every built-in: a verdict for every candidate, and none undecided */
static void
test_every_builtin (void)
{
  g_auto (GStrv) names = cml_model_list_builtin ();

  g_assert_cmpuint (g_strv_length (names), >=, 10);
  for (guint k = 0; names[k]; k++)
    {
      CmlSystem *sys = NULL;
      g_autoptr (CmlConservedReport) r = inspect (names[k], &sys, NULL, 0);
      g_autofree char *text = cml_conserved_report_to_text (r);

      g_assert_cmpuint (r->candidates->len, >, 0);
      g_assert_nonnull (cml_conserved_report_find (r, CML_CANDIDATE_ENERGY,
                                                   cml_system_get_formalism (sys) == CML_FORMALISM_VAKONOMIC ? "H" : "E_L"));
      for (guint i = 0; i < r->candidates->len; i++)
        {
          const CmlConservedCandidate *c = r->candidates->pdata[i];
          if (c->verdict == CML_CONSERVED_UNDECIDED)
            g_error ("%s: %s undecided: %s", names[k], c->name, c->reason);
          g_assert_nonnull (strstr (text, cml_conserved_verdict_to_string (c->verdict)));
        }
      assert_no_contradiction (r);
      cml_system_unref (sys);
    }
}

/* the same report twice: the random states come from a fixed seed */
static void
test_deterministic (void)
{
  CmlSystem *sys = NULL, *sys2 = NULL;
  g_autoptr (CmlConservedReport) a = inspect ("rolling-ball", &sys, NULL, 0);
  g_autoptr (CmlConservedReport) b = inspect ("rolling-ball", &sys2, NULL, 0);
  g_autofree char *ta = cml_conserved_report_to_text (a);
  g_autofree char *tb = cml_conserved_report_to_text (b);

  g_assert_cmpstr (ta, ==, tb);
  cml_system_unref (sys);
  cml_system_unref (sys2);
}

/* a monitor declared conserved that is not: a contradiction, reported as a warning */
static void
test_contradiction (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "models", "data", "wrongly-conserved.cml", NULL);
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect (path, &sys, NULL, 0);
  const CmlConservedCandidate *kin = find (r, CML_CANDIDATE_MONITOR, "kinetic");
  g_autofree char *text = cml_conserved_report_to_text (r);
  g_autofree char *info = cml_system_describe_readable (sys);

  g_assert_cmpint (find (r, CML_CANDIDATE_MONITOR, "energy")->verdict, ==, CML_CONSERVED_EXACTLY);
  g_assert_false (find (r, CML_CANDIDATE_MONITOR, "energy")->contradiction);
  g_assert_true (kin->declared);
  g_assert_cmpint (kin->verdict, ==, CML_CONSERVED_NOT);
  g_assert_true (kin->contradiction);
  g_assert_cmpuint (r->warnings->len, ==, 1);
  g_assert_nonnull (strstr (r->warnings->pdata[0], "kinetic is declared conserved"));
  g_assert_nonnull (strstr (r->warnings->pdata[0], "wrongly-conserved.cml:"));
  g_assert_nonnull (strstr (text, "CONTRADICTS"));
  g_assert_nonnull (strstr (text, "Warning:"));
  /* and `cmlab-cli info` says it in its section */
  g_assert_nonnull (strstr (info, "\nConserved quantities, derived and checked"));
  g_assert_nonnull (strstr (info, "kinetic is declared conserved"));
  cml_system_unref (sys);
}

static CmlConservedReport *
inspect_file (const char *file, CmlSystem **sys_out)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "models", "data", file, NULL);
  return inspect (path, sys_out, NULL, 0);
}

/* C is WANT (given in the velocities) up to a nonzero factor */
static gboolean
proportional (CmlSystem *sys, CmlExpr *c, const char *want)
{
  g_autoptr (GError) error = NULL;
  CmlModel *model = cml_system_get_model (sys);
  CmlExpr *w = cml_expr_parse (model->ctx, want, NULL, &error);
  g_assert_no_error (error);
  g_autofree double *z = g_new0 (double, cml_expr_ctx_n_symbols (model->ctx));
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  double ratio = NAN;

  /* the ratio C/WANT is one number at random points */
  for (int k = 0; k < 5; k++)
    {
      for (guint s = 0; s < cml_expr_ctx_n_symbols (model->ctx); s++)
        z[s] = g_rand_double_range (rand, -2, 2);
      for (guint p = 0; p < model->params->len; p++)
        z[cml_expr_ctx_lookup (model->ctx, ((CmlParam *) model->params->pdata[p])->name)]
          = ((CmlParam *) model->params->pdata[p])->value;
      double r = cml_expr_eval (c, z) / cml_expr_eval (w, z);
      if (!isfinite (r) || r == 0 || (k > 0 && fabs (r - ratio) > 1e-9 * fabs (ratio)))
        return FALSE;
      ratio = r;
    }
  return TRUE;
}

/* every Casimir listed is exactly conserved, and the quadratic one with cross terms is
 * among them: the symmetric matrix S gives Σ_AB S^AB p_A p_B, twice S^AB on p_A p_B, A ≠ B */
static void
test_casimirs_with_cross_terms (void)
{
  const struct
  {
    const char *file, *casimir;
  } cases[] = {
    { "engel-algebra.cml", "W3^2 - 2*W2*W4" },
    { "cartan-algebra.cml", "W3^2 - 2*W2*W4 + 2*W1*W5" },
    /* p1 = I1 (W1 + W2), p2 = p1 + I2 W2, p3 = I3 W3: p1² − p1 p2 + p2²/2 + p3²/2 */
    { "skew-rigid-body.cml", "(I1*(W1 + W2))^2 - I1*(W1 + W2)*(I1*(W1 + W2) + I2*W2) "
                             "+ (I1*(W1 + W2) + I2*W2)^2/2 + (I3*W3)^2/2" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      CmlSystem *sys = NULL;
      g_autoptr (CmlConservedReport) r = inspect_file (cases[k].file, &sys);
      guint n = 0;
      gboolean found = FALSE;

      for (guint i = 0; i < r->candidates->len; i++)
        {
          const CmlConservedCandidate *c = r->candidates->pdata[i];
          if (c->kind != CML_CANDIDATE_CASIMIR)
            continue;
          n++;
          if (c->verdict != CML_CONSERVED_EXACTLY)
            g_error ("%s: %s = %s: %s: %s", cases[k].file, c->name, c->formula,
                     cml_conserved_verdict_to_string (c->verdict), c->reason);
          found |= proportional (sys, c->expr, cases[k].casimir);
        }
      g_assert_cmpuint (n, >, 0);
      if (!found)
        g_error ("%s: the Casimir %s is not listed", cases[k].file, cases[k].casimir);
      assert_no_contradiction (r);
      cml_system_unref (sys);
    }
}

/* a momentum broken only near a bump at (5, 0): no random state near the origin sees it,
 * the run from the initial state crosses the bump; and a verdict from samples is never
 * called "conserved" */
static void
test_sampling_covers_the_run (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect_file ("bump-momentum.cml", &sys);
  const CmlConservedCandidate *p1 = find (r, CML_CANDIDATE_MOMENTUM, "p1");

  g_assert_cmpint (find (r, CML_CANDIDATE_ENERGY, "E_L")->verdict, ==, CML_CONSERVED_EXACTLY);
  if (p1->verdict != CML_CONSERVED_NOT)
    g_error ("p1: %s: %s", cml_conserved_verdict_to_string (p1->verdict), p1->reason);
  g_assert_nonnull (strstr (p1->reason, "run"));
  assert_not_conserved (r, CML_CANDIDATE_MOMENTUM, "p2");
  /* what a sampled verdict rests on, in its words */
  g_assert_null (strstr (cml_conserved_verdict_to_string (CML_CONSERVED_TO_ROUNDING), "conserved"));
  g_assert_nonnull (strstr (cml_conserved_verdict_to_string (CML_CONSERVED_TO_ROUNDING), "sampled"));
  g_assert_nonnull (strstr (cml_conserved_verdict_to_string (CML_CONSERVED_EXACTLY), "exact"));
  cml_system_unref (sys);

  /* a sampled verdict says how many states, where they were and the bound found */
  g_autoptr (CmlConservedReport) still = inspect ("rolling-ball", &sys, "Omega", 0);
  const CmlConservedCandidate *e = find (still, CML_CANDIDATE_ENERGY, "E_L");
  g_assert_cmpint (e->verdict, ==, CML_CONSERVED_TO_ROUNDING);
  g_assert_nonnull (strstr (e->reason, "|dF/dt| ≤"));
  g_assert_nonnull (strstr (e->reason, "initial state"));
  g_assert_nonnull (strstr (e->reason, "run"));
  cml_system_unref (sys);
}

/* a unit quaternion among the base coordinates: the angular momentum in space is conserved
 * on |q| = 1 only, and the states it is judged at keep |q| = 1 (no false contradiction) */
static void
test_unit_quaternion_in_base (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect_file ("quaternion-body.cml", &sys);

  assert_no_contradiction (r);
  assert_conserved (r, CML_CANDIDATE_MONITOR, "mx");
  g_assert_nonnull (strstr (find (r, CML_CANDIDATE_MONITOR, "mx")->reason, "length 1"));
  assert_not_conserved (r, CML_CANDIDATE_MOMENTUM, "p1");
  cml_system_unref (sys);
}

/* a monitor declared conserved that is conserved only for special values of the parameters
 * (I3 W3 while I1 = I2) is flagged, with other values at which it changes; those conserved
 * for every value are not */
static void
test_special_parameter_values (void)
{
  CmlSystem *sys = NULL;
  g_autoptr (CmlConservedReport) r = inspect_file ("symmetric-body.cml", &sys);
  const CmlConservedCandidate *spin = find (r, CML_CANDIDATE_MONITOR, "spin");

  /* at the present values it is conserved, by sampling */
  g_assert_cmpint (spin->verdict, ==, CML_CONSERVED_TO_ROUNDING);
  g_assert_true (spin->contradiction);
  g_assert_nonnull (strstr (spin->reason, "only for special values of the parameters"));
  g_assert_false (find (r, CML_CANDIDATE_MONITOR, "energy")->contradiction);
  g_assert_false (find (r, CML_CANDIDATE_MONITOR, "casimir")->contradiction);
  g_assert_cmpuint (r->warnings->len, ==, 1);
  g_assert_nonnull (strstr (r->warnings->pdata[0], "symmetric-body.cml:36:"));
  g_assert_nonnull (strstr (r->warnings->pdata[0], "spin"));
  cml_system_unref (sys);
}

/* F − G at a few random points (every symbol in [0.35, 1.35]) is 0 */
static void
assert_same_function (CmlSystem *sys, CmlExpr *F, const char *G_text)
{
  g_autoptr (GError) error = NULL;
  CmlModel *model = cml_system_get_model (sys);
  CmlExpr *G = cml_expr_parse (model->ctx, G_text, NULL, &error);
  g_autoptr (GRand) rand = g_rand_new_with_seed (37);
  guint ns = cml_expr_ctx_n_symbols (model->ctx);
  g_autofree double *z = g_new0 (double, ns);

  g_assert_no_error (error);
  for (guint k = 0; k < 5; k++)
    {
      for (guint i = 0; i < ns; i++)
        z[i] = g_rand_double_range (rand, 0.35, 1.35);
      assert_close (cml_expr_eval (F, z), cml_expr_eval (G, z), 1e-12 * (1 + fabs (cml_expr_eval (G, z))));
    }
}

/* F along a run of SYS from its initial state (parameter PARAM = VALUE, when given) to
 * T_END: it moves by at most TOL */
static void
assert_constant_along_run (CmlSystem *sys, CmlExpr *F, const char *param, double value, double t_end, double tol)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) sim = cml_simulation_new (sys, &error);
  double F0, worst = 0;

  g_assert_no_error (error);
  if (param)
    sim_set_params (sim, param, value, NULL);
  sim_set_integrator (sim, CML_INTEGRATOR_RK8PD, 1e-13, 1e-13);
  sim_reset (sim, NULL);
  F0 = cml_simulation_eval_expr (sim, F);
  for (guint k = 1; k <= 40; k++)
    {
      sim_advance (sim, t_end * k / 40);
      worst = MAX (worst, fabs (cml_simulation_eval_expr (sim, F) - F0));
    }
  if (!(worst <= tol))
    g_error ("moved by %.3g along the run (tolerance %.1g)", worst, tol);
}

static gboolean
moving_energy_conserved (const CmlConservedReport *r)
{
  for (guint k = 0; k < r->candidates->len; k++)
    {
      const CmlConservedCandidate *c = r->candidates->pdata[k];
      if (c->kind == CML_CANDIDATE_MOVING_ENERGY && cml_conserved_verdict_is_conserved (c->verdict))
        return TRUE;
    }
  return FALSE;
}

/* The moving energy of a support that moves steadily comes from the support's own velocity
 * field (the turning table's rotation, the belt's translation) whatever the model solves
 * for; it is conserved exactly and stays constant along a run.  On a belt that
 * accelerates no moving energy is conserved, and none is claimed. */
static void
test_moving_energy_of_the_support (void)
{
  CmlSystem *sys = NULL, *sys2 = NULL;

  /* the turning table: Z = Ω (−y, x), E_Z = E_L − Ω m (x v − y u) */
  g_autoptr (CmlConservedReport) ball = inspect ("rolling-ball", &sys, NULL, 0);
  const CmlConservedCandidate *ez = find (ball, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  if (ez->verdict != CML_CONSERVED_EXACTLY)
    g_error ("rolling-ball: E_Z = %s: %s: %s", ez->formula, cml_conserved_verdict_to_string (ez->verdict), ez->reason);
  assert_same_function (sys, ez->expr, "m/2*(u^2 + v^2) + m*k2/2*(w1^2 + w2^2 + w3^2) - Omega*m*(x*v - y*u)");
  assert_constant_along_run (sys, ez->expr, NULL, 0, 20, 1e-10);

  /* the same ball solving the rolling constraints for u, v instead of w1, w2: the same
   * moving energy, and the same verdict on every candidate */
  g_autoptr (CmlModel) swapped = model_variant ("rolling-ball", "solve-for = w1, w2", "solve-for = u, v");
  g_autoptr (CmlConservedReport) ball2 = inspect_model (swapped, &sys2, NULL, 0);
  const CmlConservedCandidate *ez2 = find (ball2, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  g_assert_cmpint (ez2->verdict, ==, CML_CONSERVED_EXACTLY);
  g_assert_cmpstr (ez2->formula, ==, ez->formula);
  g_assert_cmpuint (ball2->candidates->len, ==, ball->candidates->len);
  for (guint k = 0; k < ball->candidates->len; k++)
    {
      const CmlConservedCandidate *a = ball->candidates->pdata[k], *b = ball2->candidates->pdata[k];
      g_assert_cmpstr (a->name, ==, b->name);
      if (a->verdict != b->verdict)
        g_error ("%s: %s with solve-for = w1, w2, %s with solve-for = u, v", a->name,
                 cml_conserved_verdict_to_string (a->verdict), cml_conserved_verdict_to_string (b->verdict));
    }
  cml_system_unref (sys);
  cml_system_unref (sys2);

  /* with rolling resistance the table's field is still the frame, and the resistance the
   * reason it changes; without resistance it is conserved */
  g_autofree char *res = g_test_build_filename (G_TEST_DIST, "..", "doc", "examples", "rolling-ball-resistance.cml", NULL);
  g_autoptr (CmlConservedReport) rr = inspect (res, &sys, NULL, 0);
  const CmlConservedCandidate *er = find (rr, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  g_assert_cmpint (er->verdict, ==, CML_CONSERVED_NOT);
  g_assert_nonnull (strstr (er->reason, "forces"));
  g_assert_null (strstr (er->reason, "depends on t"));
  assert_same_function (sys, er->expr, "m/2*(u^2 + v^2) + m*k2/2*(w1^2 + w2^2 + w3^2) - Omega*m*(x*v - y*u)");
  cml_system_unref (sys);
  g_autoptr (CmlConservedReport) rr0 = inspect (res, &sys, "c", 0);
  assert_conserved (rr0, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  cml_system_unref (sys);

  /* a belt at constant speed b, velocities in the lab: Z = (b, 0, 0) */
  g_autofree char *belt = g_test_build_filename (G_TEST_DIST, "models", "data", "sleigh-steady-belt.cml", NULL);
  g_autoptr (CmlConservedReport) sb = inspect (belt, &sys, NULL, 0);
  const CmlConservedCandidate *eb = find (sb, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  if (eb->verdict != CML_CONSERVED_EXACTLY)
    g_error ("sleigh-steady-belt: E_Z = %s: %s: %s", eb->formula, cml_conserved_verdict_to_string (eb->verdict), eb->reason);
  assert_same_function (sys, eb->expr, "m/2*(u^2 + v^2) + Ic/2*w^2 - m*b*u");
  assert_constant_along_run (sys, eb->expr, NULL, 0, 20, 1e-10);
  assert_not_conserved (sb, CML_CANDIDATE_ENERGY, "E_L");
  cml_system_unref (sys);

  /* the same with the velocities in the sleigh's frame: Z = b (cos θ, −sin θ, 0) */
  g_autofree char *body = g_test_build_filename (G_TEST_DIST, "models", "data", "sleigh-steady-belt-body.cml", NULL);
  g_autoptr (CmlConservedReport) sbb = inspect (body, &sys, NULL, 0);
  const CmlConservedCandidate *ebb = find (sbb, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  if (!cml_conserved_verdict_is_conserved (ebb->verdict))
    g_error ("sleigh-steady-belt-body: E_Z = %s: %s: %s", ebb->formula, cml_conserved_verdict_to_string (ebb->verdict),
             ebb->reason);
  assert_same_function (sys, ebb->expr, "m/2*(v1^2 + v2^2) + Ic/2*w^2 - m*b*(v1*cos(theta) - v2*sin(theta))");
  assert_constant_along_run (sys, ebb->expr, NULL, 0, 20, 1e-10);
  cml_system_unref (sys);

  /* a belt that accelerates: no moving energy is conserved, and none is said to be */
  g_autofree char *acc = g_test_build_filename (G_TEST_DIST, "models", "data", "sleigh-belt.cml", NULL);
  g_autoptr (CmlConservedReport) sa = inspect (acc, &sys, NULL, 0);
  assert_not_conserved (sa, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  g_assert_false (moving_energy_conserved (sa));
  g_assert_nonnull (strstr (find (sa, CML_CANDIDATE_MOVING_ENERGY, "E_Z")->reason, "depends on t"));
  cml_system_unref (sys);
}

/* "Z depends on t" is said only when it does with the parameters' values: a table whose
 * Ω = Ω₀ + Ω₁ sin(ν t) has Ω₁ = 0 turns steadily */
static void
test_moving_energy_reason_at_values (void)
{
  CmlSystem *sys = NULL;
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "models", "data", "ball-table-resistance-steady.cml", NULL);
  g_autoptr (CmlConservedReport) steady = inspect (path, &sys, NULL, 0);
  const CmlConservedCandidate *e = find (steady, CML_CANDIDATE_MOVING_ENERGY, "E_Z");

  g_assert_cmpint (e->verdict, ==, CML_CONSERVED_NOT);
  if (strstr (e->reason, "depends on t"))
    g_error ("Ω₁ = 0, yet: %s", e->reason);
  g_assert_nonnull (strstr (e->reason, "forces"));
  cml_system_unref (sys);

  g_autoptr (CmlConservedReport) steady_c0 = inspect (path, &sys, "c", 0);
  assert_conserved (steady_c0, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  cml_system_unref (sys);

  g_autoptr (CmlConservedReport) varying = inspect (path, &sys, "Omega1", 0.5);
  e = find (varying, CML_CANDIDATE_MOVING_ENERGY, "E_Z");
  g_assert_cmpint (e->verdict, ==, CML_CONSERVED_NOT);
  g_assert_nonnull (strstr (e->reason, "depends on t"));
  cml_system_unref (sys);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/conserved/rolling-ball", test_rolling_ball);
  g_test_add_func ("/conserved/rolling-ball-varying", test_rolling_ball_varying);
  g_test_add_func ("/conserved/plate-ball", test_plate_ball);
  g_test_add_func ("/conserved/rigid-body", test_rigid_body);
  g_test_add_func ("/conserved/heavy-top", test_heavy_top);
  g_test_add_func ("/conserved/vertical-disk-and-sleigh", test_vertical_disk_and_sleigh);
  g_test_add_func ("/conserved/martinet-and-capri-kobayashi", test_martinet_and_capri_kobayashi);
  g_test_add_func ("/conserved/every-builtin", test_every_builtin);
  g_test_add_func ("/conserved/deterministic", test_deterministic);
  g_test_add_func ("/conserved/contradiction", test_contradiction);
  g_test_add_func ("/conserved/casimirs-with-cross-terms", test_casimirs_with_cross_terms);
  g_test_add_func ("/conserved/sampling-covers-the-run", test_sampling_covers_the_run);
  g_test_add_func ("/conserved/unit-quaternion-in-base", test_unit_quaternion_in_base);
  g_test_add_func ("/conserved/special-parameter-values", test_special_parameter_values);
  g_test_add_func ("/conserved/moving-energy-of-the-support", test_moving_energy_of_the_support);
  g_test_add_func ("/conserved/moving-energy-reason-at-values", test_moving_energy_reason_at_values);
  return g_test_run ();
}
