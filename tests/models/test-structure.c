/* test-structure.c — structural oracles of doc/theory.md §10: structure equations,
 * regularity matrices, formalisms, the constraint algorithm of Capri–Kobayashi, initial-data
 * semantics, and the nonholonomic and vakonomic brackets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-structure"

#include "physics-util.h"
#include "cml-bracket.h"

/* ---- structure equations ----------------------------------------------------------------------- */

static void
assert_lie (CmlModel *model)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_true (cml_system_is_lie_algebroid (sys));
  g_assert_cmpfloat (cml_system_structure_defect (sys), <, 1e-12);
  const GPtrArray *warnings = cml_system_get_warnings (sys);
  for (guint k = 0; k < warnings->len; k++)
    g_test_message ("warning: %s", (char *) warnings->pdata[k]);
  g_assert_cmpuint (warnings->len, ==, 0);
}

static void
test_lie (gconstpointer name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  assert_lie (model);
}

/* The structure defect is computed at the parameters' defaults: a variant with σ = +1. */
static void
test_lie_plate_sigma_plus (void)
{
  g_autoptr (CmlModel) model = model_variant ("plate-ball", "sigma = -1 |", "sigma = 1 |");
  const CmlParam *sigma = cml_model_find_param (model, "sigma");
  g_assert_nonnull (sigma);
  g_assert_cmpfloat (sigma->value, ==, 1);
  assert_lie (model);
  /* and the default file has σ = −1 */
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) dflt = cml_model_load ("plate-ball", &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (cml_model_find_param (dflt, "sigma")->value, ==, -1);
}

/* ρ(e1) = ∂x, ρ(e2) = x ∂x, [[e1,e2]] = 0: [ρ(e1), ρ(e2)] = ∂x ≠ ρ([[e1,e2]]) = 0.  With
 * L = (u² + w²)/2 the general-algebroid equations (Grabowska and Grabowski 2008) are u, w constant and
 * ẋ = u + x w, so x(t) = (x0 + u/w) e^{wt} − u/w. */
static const char broken_anchor_text[] =
  "[model]\n"
  "name = broken-anchor\n"
  "title = The anchor is not a bracket morphism\n"
  "\n"
  "[algebroid]\n"
  "base = x\n"
  "fibre = u, w\n"
  "\n"
  "[anchor]\n"
  "e1 = x: 1\n"
  "e2 = x: x\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = (u^2 + w^2)/2\n"
  "\n"
  "[initial]\n"
  "x = 0.5\n"
  "u = 0.3\n"
  "w = 0.2\n";

/* A Lie-algebra-like bracket over a point that violates Jacobi:
 * [[e1,e2]] = e2, [[e2,e3]] = e1: Jac(e1,e2,e3) = [[e3,[[e1,e2]]]] + [[e1,[[e2,e3]]]] = −e1. */
static const char broken_jacobi_text[] =
  "[model]\n"
  "name = broken-jacobi\n"
  "title = The bracket violates the Jacobi identity\n"
  "\n"
  "[algebroid]\n"
  "base =\n"
  "fibre = a, b, c\n"
  "\n"
  "[brackets]\n"
  "e1, e2 = e2\n"
  "e2, e3 = e1\n"
  "\n"
  "[dynamics]\n"
  "lagrangian = (a^2 + 2*b^2 + 3*c^2)/2\n"
  "\n"
  "[initial]\n"
  "a = 0.3\n"
  "b = -0.5\n"
  "c = 0.7\n";

static CmlSimulation *
broken_sim (const char *text, const char *name)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, name, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sys);
  g_assert_false (cml_system_is_lie_algebroid (sys));
  g_assert_cmpfloat (cml_system_structure_defect (sys), >, 0.1);
  const GPtrArray *warnings = cml_system_get_warnings (sys);
  g_assert_cmpuint (warnings->len, >=, 1);
  gboolean found = FALSE;
  for (guint k = 0; k < warnings->len; k++)
    found |= strstr (warnings->pdata[k], "general algebroid") != NULL;
  g_assert_true (found);
  /* the derivation's warning is the system's: the model is not written to, and a second
   * system of the same model says it once */
  g_assert_cmpuint (model->warnings->len, ==, 0);
  {
    g_autoptr (CmlSystem) again = cml_system_new (model, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (cml_system_get_warnings (again)->len, ==, warnings->len);
  }
  /* and the description says so */
  g_autofree char *desc = cml_system_describe (sys);
  g_assert_nonnull (strstr (desc, "general algebroid"));
  CmlSimulation *sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sim);
  return sim;
}

/* The warning of a broken model names the identity that fails, for which sections, the
 * line to look at and the point where it was found. */
static void
assert_warning (CmlSimulation *sim, const char *const *parts)
{
  const GPtrArray *warnings = cml_system_get_warnings (cml_simulation_get_system (sim));
  g_assert_cmpuint (warnings->len, >=, 1);
  const char *w = warnings->pdata[0];
  g_test_message ("warning: %s", w);
  for (guint k = 0; parts[k]; k++)
    if (strstr (w, parts[k]) == NULL)
      g_error ("the warning does not say “%s”: %s", parts[k], w);
}

static void
test_broken_anchor (void)
{
  g_autoptr (CmlSimulation) sim = broken_sim (broken_anchor_text, "broken-anchor.cml");
  const double x0 = 0.5, u = 0.3, w = 0.2;

  /* [ρ(e1), ρ(e2)] − ρ([[e1, e2]]) = ∂x: its ∂/∂x component is 1; the anchor of e2 is on
   * line 11 (there is no bracket line) */
  assert_warning (sim, (const char *const[]) { "broken-anchor.cml:11: ", "the anchor is not a bracket morphism",
                                               "e1, e2", "d/dx component 1", "at the sample point x = ", "general algebroid", NULL });

  g_assert_cmpfloat (cml_system_structure_defect (cml_simulation_get_system (sim)), ==, 1);
  sim_precise (sim);
  for (int k = 1; k <= 4; k++)
    {
      sim_advance (sim, k * 0.75);
      double t = k * 0.75;
      assert_close (sim_obs (sim, "x"), (x0 + u / w) * exp (w * t) - u / w, 1e-9);
      assert_close (sim_obs (sim, "u"), u, 1e-12);
      assert_close (sim_obs (sim, "w"), w, 1e-12);
    }
}

static void
test_broken_jacobi (void)
{
  g_autoptr (CmlSimulation) sim = broken_sim (broken_jacobi_text, "broken-jacobi.cml");

  /* the cyclic sum for (e1, e2, e3) is −e1; the first bracket involved is on line 10 */
  assert_warning (sim, (const char *const[]) { "broken-jacobi.cml:10: ", "the Jacobi identity fails",
                                               "e1, e2, e3", "e1 component -1", "general algebroid", NULL });

  /* the Euler–Poincaré-type equations of a general algebroid keep E = L (C antisymmetric) */
  sim_precise (sim);
  double E0 = (0.3 * 0.3 + 2 * 0.25 + 3 * 0.49) / 2;
  for (int k = 1; k <= 4; k++)
    {
      sim_advance (sim, k * 0.5);
      double a = sim_obs (sim, "a"), b = sim_obs (sim, "b"), c = sim_obs (sim, "c");
      assert_close ((a * a + 2 * b * b + 3 * c * c) / 2, E0, 1e-10);
    }
  /* ṗ_A = −C^C_AB y^B p_C at the initial state: p = (a, 2b, 3c);
   * ȧ = −(C^2_12 b p2) = −b·2b,  2ḃ = −(C^2_21 a p2 + C^1_23 c p1) = 2ab − ca,  3ċ = −C^1_32 b p1 = ab */
  sim_reset (sim, NULL);
  double a = 0.3, b = -0.5, c = 0.7;
  assert_close (sim_rhs (sim, "a"), -2 * b * b, 1e-14);
  assert_close (sim_rhs (sim, "b"), (2 * a * b - c * a) / 2, 1e-14);
  assert_close (sim_rhs (sim, "c"), a * b / 3, 1e-14);
}

/* ---- regularity matrices ------------------------------------------------------------------------ */

static void
assert_matrix (CmlSimulation *sim, guint rows, const double *expect, double tol)
{
  double M[64];
  guint r = cml_simulation_regularity_matrix (sim, M, G_N_ELEMENTS (M));
  g_assert_cmpuint (r, ==, rows);
  for (guint i = 0; i < rows * rows; i++)
    assert_close (M[i], expect[i], tol);
}

static void
test_regularity_ball (void)
{
  static const double p[][4] = { { 1, 1, 0.4, 1 }, { 2.5, 0.7, 0.3, -1.3 }, { 0.5, 2, 3, 0.2 }, { 7, 0.1, 0.01, 0 } };
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");
  for (guint k = 0; k < G_N_ELEMENTS (p); k++)
    {
      double m = p[k][0], r = p[k][1], k2 = p[k][2], c = (k2 + r * r) / (m * k2);
      double expect[4] = { c, 0, 0, c };
      sim_set_params (sim, "m", m, "r", r, "k2", k2, "Omega", p[k][3], NULL);
      sim_reset (sim, NULL);
      assert_matrix (sim, 2, expect, 1e-12 * c);
    }
  /* the time-dependent table too */
  g_autoptr (CmlSimulation) var = sim_open ("rolling-ball-varying");
  sim_set_params (var, "m", 2.5, "r", 0.7, "k2", 0.3, NULL);
  double c = (0.3 + 0.49) / (2.5 * 0.3), expect[4] = { c, 0, 0, c };
  assert_matrix (var, 2, expect, 1e-12 * c);
}

static void
test_regularity_plate (void)
{
  static const double I2[4] = { 1, 0, 0, 1 };
  g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");
  assert_matrix (sim, 2, I2, 1e-14);
  sim_set_params (sim, "sigma", 1.0, "c", 0.3, "Omega", 0.4, "r", 1.3, NULL);
  sim_reset (sim, "x1", 0.2, "p3", 0.4, "p4", -0.7, NULL);
  assert_matrix (sim, 2, I2, 1e-14);
}

static void
test_regularity_martinet (void)
{
  static const double I2[4] = { 1, 0, 0, 1 };
  g_autoptr (CmlSimulation) sim = sim_open ("martinet");
  assert_matrix (sim, 2, I2, 1e-14);
  sim_reset (sim, "x1", 2.0, "u", 1.0, "y1", 0.3, "k", -1.5, NULL);
  assert_matrix (sim, 2, I2, 1e-14);
}

/* The extra built-ins (ORACLES-extra.md): vertical disk C = I/m + (r²/Ia) h hᵀ with
 * h = (cos φ, sin φ); sleigh C = 1/m + a²/Ic; the tops W = diag(I1, I2, I3). */
static void
test_regularity_extra (void)
{
  g_autoptr (CmlSimulation) disk = sim_open ("vertical-disk");
  const double m = 2, r = 0.8, Ia = 0.3;
  sim_set_params (disk, "m", m, "r", r, "Ia", Ia, NULL);
  for (int k = 0; k < 4; k++)
    {
      double phi = -1 + 0.9 * k, h[2] = { cos (phi), sin (phi) };
      sim_reset (disk, "phi", phi, NULL);
      double expect[4] = { 1 / m + r * r / Ia * h[0] * h[0], r * r / Ia * h[0] * h[1], r * r / Ia * h[1] * h[0],
                           1 / m + r * r / Ia * h[1] * h[1] };
      assert_matrix (disk, 2, expect, 1e-13);
    }
  g_autoptr (CmlSimulation) sleigh = sim_open ("chaplygin-sleigh");
  sim_set_params (sleigh, "m", 2.0, "Ic", 0.3, "a", 0.7, NULL);
  sim_reset (sleigh, "theta", 0.4, NULL);
  double cs[1] = { 1 / 2.0 + 0.49 / 0.3 };
  assert_matrix (sleigh, 1, cs, 1e-13);
  for (const char *const *name = (const char *const[]) { "rigid-body", "heavy-top", NULL }; *name; name++)
    {
      g_autoptr (CmlSimulation) top = sim_open (*name);
      sim_set_params (top, "I1", 0.7, "I2", 1.9, "I3", 2.4, NULL);
      double W[9] = { 0.7, 0, 0, 0, 1.9, 0, 0, 0, 2.4 };
      assert_matrix (top, 3, W, 1e-14);
    }
}

/* ---- formalisms ---------------------------------------------------------------------------------- */

static void
test_formalisms (void)
{
  static const struct { const char *name; CmlFormalism f; } cases[] = {
    { "rolling-ball", CML_FORMALISM_NONHOLONOMIC },
    { "rolling-ball-varying", CML_FORMALISM_NONHOLONOMIC },
    { "plate-ball", CML_FORMALISM_VAKONOMIC },
    { "martinet", CML_FORMALISM_VAKONOMIC },
    { "capri-kobayashi", CML_FORMALISM_SINGULAR },
    { "capri-kobayashi-full", CML_FORMALISM_SINGULAR },
    { "vertical-disk", CML_FORMALISM_NONHOLONOMIC },
    { "chaplygin-sleigh", CML_FORMALISM_NONHOLONOMIC },
    { "rigid-body", CML_FORMALISM_EULER_LAGRANGE },
    { "heavy-top", CML_FORMALISM_EULER_LAGRANGE },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autoptr (CmlSimulation) sim = sim_open (cases[k].name);
      CmlSystem *sys = cml_simulation_get_system (sim);
      g_assert_cmpint (cml_system_get_formalism (sys), ==, cases[k].f);
      g_assert_nonnull (cml_formalism_to_string (cases[k].f));
      /* only the singular ones have algorithm steps */
      if (cases[k].f == CML_FORMALISM_SINGULAR)
        g_assert_cmpuint (cml_system_algorithm_steps (sys)->len, >, 0);
      else
        g_assert_cmpuint (cml_system_algorithm_steps (sys)->len, ==, 0);
      /* and a constraint residual where there are constraints */
      gboolean has_res = cml_system_observable_index (sys, "residual") >= 0;
      g_assert_true (has_res == (cases[k].f == CML_FORMALISM_NONHOLONOMIC || cases[k].f == CML_FORMALISM_SINGULAR));
    }
}

/* ---- Capri–Kobayashi constraint algorithm (doc/theory.md §9.4, §5) ----------------------------------- */

/* The constraint printed at the end of STEP ("… : <expr> = 0") is a nonzero multiple of NAME. */
static gboolean
constraint_is_multiple_of (CmlSimulation *sim, const char *step, const char *name)
{
  const char *colon = g_strrstr (step, ": ");
  g_assert_nonnull (colon);
  g_assert_true (g_str_has_suffix (step, " = 0"));
  g_autofree char *text = g_strndup (colon + 2, strlen (colon + 2) - 4);
  CmlModel *md = cml_system_get_model (cml_simulation_get_system (sim));
  CmlExpr *e = sim_parse (sim, text);
  CmlExpr *q = cml_expr_div (md->ctx, e, cml_expr_sym (md->ctx, cml_expr_ctx_lookup (md->ctx, name)));
  double c;
  return cml_expr_is_number (q, &c) && c != 0;
}

static void
check_algorithm (const char *model)
{
  g_autoptr (CmlSimulation) sim = sim_open (model);
  CmlSystem *sys = cml_simulation_get_system (sim);
  const GPtrArray *steps = cml_system_algorithm_steps (sys);
  guint n_rank = 0, n_final = 0, n_fixed = 0;
  g_autoptr (GPtrArray) primary = g_ptr_array_new ();
  g_autoptr (GPtrArray) secondary = g_ptr_array_new ();

  g_assert_cmpint (cml_system_get_formalism (sys), ==, CML_FORMALISM_SINGULAR);
  for (guint k = 0; k < steps->len; k++)
    {
      const char *s = steps->pdata[k];
      g_test_message ("step %u: %s", k + 1, s);
      if (strstr (s, "rank W = 2"))
        n_rank++;
      if (g_str_has_prefix (s, "primary constraint"))
        g_ptr_array_add (primary, (gpointer) s);
      if (g_str_has_prefix (s, "secondary constraint"))
        g_ptr_array_add (secondary, (gpointer) s);
      if (g_str_has_prefix (s, "kernel acceleration"))
        {
          /* "kernel acceleration … = VALUE (…)" or "… fixed: VALUE", with VALUE = 0 */
          g_assert_nonnull (strstr (s, "fixed"));
          const char *eq = strstr (s, "= "), *colon = g_strrstr (s, ": ");
          g_assert_true (eq != NULL || colon != NULL);
          g_autofree char *value = g_strdup (eq ? eq + 2 : colon + 2);
          char *paren = strstr (value, " (");
          if (paren)
            *paren = '\0';
          g_assert_true (cml_expr_is_zero (sim_parse (sim, value)));
          n_fixed++;
        }
      if (g_str_has_prefix (s, "final constraint set"))
        n_final++;
      g_assert_null (strstr (s, "gauge freedom, set to 0"));
      g_assert_null (strstr (s, "not determined"));
    }
  g_assert_cmpuint (n_rank, ==, 1);
  g_assert_cmpuint (n_final, ==, 1);
  g_assert_cmpuint (n_fixed, ==, 2);
  g_assert_cmpuint (primary->len, ==, 2);
  g_assert_cmpuint (secondary->len, ==, 2);
  g_assert_true (constraint_is_multiple_of (sim, primary->pdata[0], "x1"));
  g_assert_true (constraint_is_multiple_of (sim, primary->pdata[1], "y1"));
  g_assert_true (constraint_is_multiple_of (sim, secondary->pdata[0], "vx1"));
  g_assert_true (constraint_is_multiple_of (sim, secondary->pdata[1], "vy1"));
  g_assert_false (cml_system_has_gauge_freedom (sys));

  /* the kernel accelerations are 0: ẍ1 = ÿ1 = 0 even off the constraint set */
  CmlSystem *s2 = sys;
  g_autofree double *z = g_new0 (double, cml_system_dim (s2));
  memcpy (z, cml_simulation_get_state (sim), cml_system_dim (s2) * sizeof (double));
  z[cml_sim_state_index (sim, "x1")] = 0.3;
  z[cml_sim_state_index (sim, "y1")] = -0.2;
  z[cml_sim_state_index (sim, "vx1")] = 1;
  z[cml_sim_state_index (sim, "vy1")] = 0.4;
  cml_simulation_set_state (sim, 0.25, z);
  assert_close (sim_rhs (sim, "vx1"), 0, 0);
  assert_close (sim_rhs (sim, "vy1"), 0, 0);
  assert_close (sim_rhs (sim, "x1"), 1, 0);
}

static void test_algorithm_reduced (void) { check_algorithm ("capri-kobayashi"); }
static void test_algorithm_full (void) { check_algorithm ("capri-kobayashi-full"); }

static gboolean
report_mentions (CmlSimulation *sim, const char *name)
{
  const GPtrArray *rep = cml_simulation_get_projection_report (sim);
  g_autofree char *prefix = g_strconcat (name, ":", NULL);
  for (guint k = 0; k < rep->len; k++)
    if (g_str_has_prefix (rep->pdata[k], prefix))
      return TRUE;
  return FALSE;
}

/* (x1, y1, ẋ1, ẏ1) = (0.3, −0.2, 1, 0) are projected to 0; the rest is kept. */
static void
test_off_manifold_reduced (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi");
  sim_reset (sim, "x1", 0.3, "y1", -0.2, "vx1", 1.0, "vy1", 0.0, NULL);
  for (const char *const *c = (const char *const[]) { "x1", "y1", "vx1", "vy1", NULL }; *c; c++)
    assert_close (sim_state (sim, *c), 0, 1e-14);
  assert_close (sim_state (sim, "rho"), 1, 0);
  assert_close (sim_state (sim, "v"), 0, 0);
  assert_close (sim_state (sim, "r"), 0.5, 0);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, >, 0);
  g_assert_true (report_mentions (sim, "x1"));
  g_assert_true (report_mentions (sim, "y1"));
  g_assert_true (report_mentions (sim, "vx1"));
  g_assert_false (report_mentions (sim, "rho"));
  assert_close (sim_obs (sim, "residual"), 0, 1e-14);

  /* given (ρ, v, r) with the off-manifold data are kept exactly */
  sim_reset (sim, "x1", 0.3, "y1", -0.2, "vx1", 1.0, "vy1", 0.0, "rho", 1.1, "v", 0.2, "r", 0.3, NULL);
  assert_close (sim_state (sim, "rho"), 1.1, 0);
  assert_close (sim_state (sim, "v"), 0.2, 0);
  assert_close (sim_state (sim, "r"), 0.3, 0);
  assert_close (sim_state (sim, "x1"), 0, 1e-14);
  assert_close (sim_state (sim, "vx1"), 0, 1e-14);

  /* on the manifold: nothing to report */
  sim_reset (sim, "rho", 1.1, "v", 0.2, NULL);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, ==, 0);
}

static void
test_off_manifold_full (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("capri-kobayashi-full");
  sim_reset (sim, "x1", 0.3, "y1", -0.2, "vx1", 1.0, "vy1", 0.0, NULL);
  for (const char *const *c = (const char *const[]) { "x1", "y1", "vx1", "vy1", NULL }; *c; c++)
    assert_close (sim_state (sim, *c), 0, 1e-14);
  assert_close (sim_state (sim, "x2"), 1, 0);
  assert_close (sim_state (sim, "y2"), 0, 0);
  assert_close (sim_state (sim, "vx2"), 0, 0);
  assert_close (sim_state (sim, "vy2"), 0.5, 0);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, >, 0);
  g_assert_true (report_mentions (sim, "x1"));
  g_assert_true (report_mentions (sim, "vx1"));
}

/* ---- rolling-ball initial data (--init semantics) ------------------------------------------------- */

static void
test_ball_init_solved (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");

  /* defaults: ω1 = (Ωx − v)/r = 0.5, ω2 = (u + Ωy)/r = 0, exactly */
  sim_reset (sim, "x", 1.0, "y", 0.0, "u", 0.0, "v", 0.5, "w3", 0.3, NULL);
  g_assert_cmpfloat (sim_state (sim, "w1"), ==, (1.0 * 1 - 0.5) / 1);
  g_assert_cmpfloat (sim_state (sim, "w2"), ==, (0.0 + 1.0 * 0) / 1);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, ==, 0);
  /* the given values are kept */
  g_assert_cmpfloat (sim_state (sim, "x"), ==, 1);
  g_assert_cmpfloat (sim_state (sim, "v"), ==, 0.5);
  g_assert_cmpfloat (sim_state (sim, "w3"), ==, 0.3);

  /* other parameters and data: to rounding */
  const double W = 1.3, r = 0.8, x = 0.7, y = -0.4, u = 0.2, v = 0.5;
  sim_set_params (sim, "Omega", W, "r", r, "k2", 0.3, NULL);
  sim_reset (sim, "x", x, "y", y, "u", u, "v", v, "w3", 0.3, NULL);
  assert_close (sim_state (sim, "w1"), (W * x - v) / r, 4e-16);
  assert_close (sim_state (sim, "w2"), (u + W * y) / r, 4e-16);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, ==, 0);
  g_assert_cmpfloat (sim_state (sim, "x"), ==, x);
  g_assert_cmpfloat (sim_state (sim, "y"), ==, y);
  g_assert_cmpfloat (sim_state (sim, "u"), ==, u);
  g_assert_cmpfloat (sim_state (sim, "v"), ==, v);
  assert_close (cml_simulation_residual (sim), 0, 1e-15);
}

static void
test_ball_init_projected (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");
  sim_reset (sim, "x", 1.0, "y", 0.0, "u", 0.0, "v", 0.5, "w3", 0.3, "w1", 2.0, NULL);
  g_assert_cmpuint (cml_simulation_get_projection_report (sim)->len, >, 0);
  assert_close (cml_simulation_residual (sim), 0, 1e-12);
  assert_close (sim_obs (sim, "residual"), 0, 1e-12);
  /* the constraints hold with the projected values */
  double W = 1, r = 1;
  assert_close (sim_state (sim, "u") - r * sim_state (sim, "w2") + W * sim_state (sim, "y"), 0, 1e-12);
  assert_close (sim_state (sim, "v") + r * sim_state (sim, "w1") - W * sim_state (sim, "x"), 0, 1e-12);
  g_assert_cmpfloat (fabs (sim_state (sim, "w1") - 2.0), >, 1e-3);
}

/* ---- nonholonomic bracket of the ball (doc/theory.md §9.1; Marrero's lectures, 2005) ------------------- */

static void
check_nh_bracket (double r, double k2, double Omega)
{
  g_autoptr (CmlSimulation) sim = sim_open ("rolling-ball");
  g_autoptr (GRand) rand = g_rand_new_with_seed (20240611);
  const double kappa = k2 / (k2 + r * r);
  CmlExpr *x, *y, *p1, *p2, *p3;

  sim_set_params (sim, "m", 1.0, "r", r, "k2", k2, "Omega", Omega, NULL);
  x = sim_parse (sim, "x");
  y = sim_parse (sim, "y");
  p1 = sim_parse (sim, "r*u + k2*w2");
  p2 = sim_parse (sim, "r*v - k2*w1");
  p3 = sim_parse (sim, "k2*w3");
  for (int k = 0; k < 3; k++)
    {
      sim_reset (sim, "x", g_rand_double_range (rand, -2, 2), "y", g_rand_double_range (rand, -2, 2), "u",
                 g_rand_double_range (rand, -1, 1), "v", g_rand_double_range (rand, -1, 1), "w3",
                 g_rand_double_range (rand, -1, 1), NULL);
      g_assert_cmpfloat (cml_simulation_residual (sim), <, 1e-14);
      double X = sim_state (sim, "x"), Y = sim_state (sim, "y");
      double P1 = cml_simulation_eval_expr (sim, p1), P2 = cml_simulation_eval_expr (sim, p2), P3 = cml_simulation_eval_expr (sim, p3);
      struct { CmlExpr *f, *g; double expect; const char *what; } b[] = {
        { x, p1, r, "{x,π1}" },
        { y, p2, r, "{y,π2}" },
        { p1, p2, P3, "{π1,π2}" },
        { p2, p3, kappa * P1 + r * kappa * Omega * Y, "{π2,π3}" },
        { p3, p1, kappa * P2 - r * kappa * Omega * X, "{π3,π1}" },
        { p2, p1, -P3, "{π2,π1}" },
        { x, y, 0, "{x,y}" },
        { x, p2, 0, "{x,π2}" },
        { x, p3, 0, "{x,π3}" },
        { y, p1, 0, "{y,π1}" },
        { y, p3, 0, "{y,π3}" },
        { p1, p1, 0, "{π1,π1}" },
      };
      for (guint j = 0; j < G_N_ELEMENTS (b); j++)
        {
          g_autoptr (GError) error = NULL;
          double val = NAN;
          g_assert_true (cml_simulation_nonholonomic_bracket (sim, b[j].f, b[j].g, &val, &error));
          g_assert_no_error (error);
          if (!(fabs (val - b[j].expect) <= 1e-10))
            g_error ("%s = %.17g, expected %.17g (r = %g, k2 = %g, Omega = %g)", b[j].what, val, b[j].expect, r, k2, Omega);
        }
    }
}

static void test_nh_bracket_default (void) { check_nh_bracket (1, 0.4, 1); }
static void test_nh_bracket_other (void) { check_nh_bracket (0.8, 0.35, -1.3); }

/* the nonholonomic bracket is for nonholonomic systems only */
static void
test_nh_bracket_wrong_kind (void)
{
  g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");
  g_autoptr (GError) error = NULL;
  double v = 0;
  g_assert_false (cml_simulation_nonholonomic_bracket (sim, sim_parse (sim, "x1"), sim_parse (sim, "p1"), &v, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
}

/* ---- brackets: linearity and antisymmetry are checked relative to the terms' size ------------- */

/* A model over the base x with the sections e1, e2, e3 and the brackets BRACKETS. */
static CmlModel *
bracket_model (const char *brackets, GError **error)
{
  g_autofree char *text = g_strdup_printf ("[model]\n"
                                           "name = brackets\n"
                                           "title = brackets of different sizes\n"
                                           "\n"
                                           "[algebroid]\n"
                                           "base = x\n"
                                           "fibre = a, b, c\n"
                                           "\n"
                                           "[anchor]\n"
                                           "e1 = x: 1\n"
                                           "\n"
                                           "[brackets]\n"
                                           "%s\n"
                                           "\n"
                                           "[dynamics]\n"
                                           "lagrangian = (a^2 + b^2 + c^2)/2\n",
                                           brackets);
  return cml_model_new_from_data (text, "brackets.cml", error);
}

static void
test_bracket_tolerance (void)
{
  /* large coefficients written so that e − Σ C^C_AB e_C is not structurally 0: rounding
   * of about 1e-4 at some points, once taken for a difference (absolute tolerance 1e-9) */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CmlModel) model = bracket_model ("e1, e2 = 1e12*x*(x*e3 + e3)", &error);
    g_assert_no_error (error);
    g_assert_nonnull (model);
    double v[64] = { 0 };
    v[cml_expr_ctx_lookup (model->ctx, "x")] = 0.5;
    assert_close (cml_expr_eval (model->bracket[(0 * 3 + 1) * 3 + 2], v), 1e12 * 0.5 * 1.5, 1e-15);
    assert_close (cml_expr_eval (model->bracket[(1 * 3 + 0) * 3 + 2], v), -1e12 * 0.5 * 1.5, 1e-15);
  }
  /* small brackets that are wrong by a small amount, once taken for right: a constant term
   * in a combination of sections, and the two orders not opposite */
  static const struct
  {
    const char *brackets;
    const char *message;
  } wrong[] = {
    { "e1, e2 = 1e-12*e3 + 1e-12*x", "linear combination of sections" },
    { "e1, e2 = 1e-12*e3\ne2, e1 = 2e-12*e3", "brackets must be antisymmetric" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (wrong); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlModel) model = bracket_model (wrong[k].brackets, &error);
      g_assert_null (model);
      g_assert_error (error, CML_ERROR, CML_ERROR_MODEL);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, wrong[k].message));
      g_assert_true (g_str_has_prefix (error->message, "brackets.cml:13:")
                     || g_str_has_prefix (error->message, "brackets.cml:14:"));
    }
  /* and small right ones pass */
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (CmlModel) model = bracket_model ("e1, e2 = 1e-12*x*e3\ne2, e1 = -1e-12*x*e3", &error);
    g_assert_no_error (error);
  }
}

/* ---- descriptions ----------------------------------------------------------------------------- */

/* The derived equations of a 500-byte nonholonomic model share subexpressions so much that
 * their full text is 21.5 MB (lines of 4.4 MB): the description cuts every expression and
 * stays readable, with every equation named. */
static void
test_describe_bounded (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "models", "data", "describe-blowup.cml", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_file (path, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);

  g_autofree char *desc = cml_system_describe (sys);
  gsize len = strlen (desc);
  g_test_message ("description: %" G_GSIZE_FORMAT " bytes", len);
  g_assert_cmpuint (len, <, 200 * 1000);
  g_assert_true (g_utf8_validate (desc, -1, NULL));
  static const char *const names[] = { "x' = ", "y' = ", "u' = ", "v' = ", "w1' = ", "w2' = ", "w3' = ",
                                       "Regularity: C", "phi1: ", "phi2: " };
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    if (strstr (desc, names[k]) == NULL)
      g_error ("the description does not show “%s”", names[k]);
  g_assert_nonnull (strstr (desc, " more characters)\n"));
  /* no line is much longer than the cut (a row of the 2×2 regularity matrix has two) */
  g_auto (GStrv) lines = g_strsplit (desc, "\n", -1);
  for (guint k = 0; lines[k]; k++)
    g_assert_cmpuint (strlen (lines[k]), <, 5000);
}

/* ---- vakonomic (linear Poisson) bracket of the plate-ball (doc/theory.md §9.2) ------------------------- */

static void
random_plate_state (CmlSimulation *sim, GRand *rand)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  g_autofree double *z = g_new0 (double, cml_system_dim (sys));
  static const char *const names[] = { "x1", "x2", "p1", "p2", "p3", "p4", "p5" };
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    z[cml_sim_state_index (sim, names[k])] = g_rand_double_range (rand, -1.5, 1.5);
  z[cml_sim_state_index (sim, "q0")] = 1;
  cml_simulation_set_state (sim, g_rand_double_range (rand, 0, 3), z);
}

static void
check_poisson (double sigma, double r)
{
  g_autoptr (CmlSimulation) sim = sim_open ("plate-ball");
  g_autoptr (GRand) rand = g_rand_new_with_seed (7 + (int) (10 * r) + (sigma > 0));
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  static const char *const z[] = { "x1", "x2", "p1", "p2", "p3", "p4", "p5" };
  CmlExpr *e[7];

  sim_set_params (sim, "sigma", sigma, "Omega", 0.4, "c", 0.3, "r", r, NULL);
  for (int i = 0; i < 7; i++)
    e[i] = sim_parse (sim, z[i]);

  /* {x_i, p_j} = δ_ij, {x_i, x_j} = 0, {p1, ·} = {p2, ·} = 0 on the momenta */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 7; j++)
      {
        CmlExpr *b = cml_system_poisson_bracket (sys, e[i], e[j]);
        double v;
        g_assert_true (cml_expr_is_number (b, &v));
        g_assert_cmpfloat (v, ==, (j == i + 2) ? 1 : 0);
      }
  /* {p3,p4} = −σ p5, {p4,p5} = −σ p3, {p5,p3} = −σ p4, symbolically */
  static const char *const so3[][3] = { { "p3", "p4", "-sigma*p5" }, { "p4", "p5", "-sigma*p3" }, { "p5", "p3", "-sigma*p4" } };
  for (guint k = 0; k < G_N_ELEMENTS (so3); k++)
    {
      CmlExpr *b = cml_system_poisson_bracket (sys, sim_parse (sim, so3[k][0]), sim_parse (sim, so3[k][1]));
      CmlExpr *want = sim_parse (sim, so3[k][2]);
      if (b != want)
        {
          g_autofree char *bs = cml_expr_to_string (md->ctx, b);
          g_error ("{%s,%s} = %s, expected %s", so3[k][0], so3[k][1], bs, so3[k][2]);
        }
    }

  /* Hamilton's equations: ż_i = {z_i, H} with H written out in (x, p) (doc/theory.md §9.2, §4):
   * H = p1 y1 + p2 y2 + p3 Ψ3 + p4 Ψ4 + p5 c − L̃, y1 = p1 + p4/r, y2 = p2 − p3/r,
   * Ψ3 = (Ω x1 − y2)/r, Ψ4 = (y1 + Ω x2)/r, L̃ = (y1² + y2²)/2 */
  CmlExpr *H = sim_parse (sim,
                          "p1*(p1 + p4/r) + p2*(p2 - p3/r)"
                          " + p3*(Omega*x1 - (p2 - p3/r))/r + p4*((p1 + p4/r) + Omega*x2)/r + p5*c"
                          " - ((p1 + p4/r)^2 + (p2 - p3/r)^2)/2");
  for (int k = 0; k < 3; k++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree double *dz = g_new (double, cml_system_dim (sys));
      random_plate_state (sim, rand);
      g_assert_true (cml_simulation_eval_rhs (sim, dz, &error));
      g_assert_no_error (error);
      for (int i = 0; i < 7; i++)
        {
          double hb = cml_simulation_eval_expr (sim, cml_system_poisson_bracket (sys, e[i], H));
          if (!(fabs (hb - dz[cml_sim_state_index (sim, z[i])]) <= 1e-12 * (1 + fabs (hb))))
            g_error ("σ = %g, r = %g: {%s, H} = %.17g but the derived %s' = %.17g", sigma, r, z[i], hb, z[i],
                     dz[cml_sim_state_index (sim, z[i])]);
        }
      /* the model's monitor H is this Hamiltonian (doc/theory.md §9.2: H_W1 = ½|y|² + c p5 + (Ω/r)(p3 x1 + p4 x2)) */
      assert_close (sim_obs (sim, "H"), cml_simulation_eval_expr (sim, H), 1e-12);
      /* {p3,p4} evaluated */
      double p5 = sim_state (sim, "p5");
      assert_close (cml_simulation_eval_expr (sim, cml_system_poisson_bracket (sys, e[4], e[5])), -sigma * p5, 1e-15);
    }
}

static void test_poisson_minus (void) { check_poisson (-1, 1); }
static void test_poisson_plus (void) { check_poisson (+1, 1); }
static void test_poisson_minus_r (void) { check_poisson (-1, 1.3); }
static void test_poisson_plus_r (void) { check_poisson (+1, 1.3); }

/* The keys written for people: [model] about and citation, [meanings], a scene object's
 * label and a monitor declared "| conserved". */
static void
test_people_keys (void)
{
  static const char text[] =
    "[model]\nname = osc\ntitle = Oscillator\n"
    "about = Watch the energy.\ncitation = A. Author, A title, J. Mech. 1 (2000) 1-2.\n"
    "[parameters]\nk = 1 | 0.1 .. 10 | N/m | stiffness\n"
    "[algebroid]\nbase = x\nfibre = u\n[anchor]\ne1 = x: 1\n"
    "[dynamics]\nlagrangian = u^2/2 - k*x^2/2\n"
    "[monitors]\nenergy = u^2/2 + k*x^2/2 | conserved\nkinetic = u^2/2\n"
    "[meanings]\nx = elongation of the spring\nenergy = total energy\n"
    "[scene mass]\ntype = point\nposition = x, 0, 0\nlabel = the mass\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_new_from_data (text, "osc.cml", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (model->about, ==, "Watch the energy.");
  g_assert_cmpstr (model->citation, ==, "A. Author, A title, J. Mech. 1 (2000) 1-2.");
  g_assert_cmpstr (cml_model_meaning (model, "x"), ==, "elongation of the spring");
  g_assert_cmpstr (cml_model_meaning (model, "energy"), ==, "total energy");
  g_assert_cmpstr (cml_model_meaning (model, "k"), ==, "stiffness");
  g_assert_null (cml_model_meaning (model, "u"));
  g_assert_cmpuint (model->monitors->len, ==, 2);
  g_assert_true (((CmlNamedExpr *) model->monitors->pdata[0])->conserved);
  g_assert_false (((CmlNamedExpr *) model->monitors->pdata[1])->conserved);
  g_assert_cmpstr (((CmlSceneObject *) model->scene->pdata[0])->label, ==, "the mass");
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint k = 0; builtin_models[k]; k++)
    {
      g_autofree char *path = g_strdup_printf ("/models/%s/lie-algebroid", builtin_models[k]);
      g_test_add_data_func (path, builtin_models[k], test_lie);
    }
  for (guint k = 0; extra_models[k]; k++)
    {
      g_autofree char *path = g_strdup_printf ("/models/%s/lie-algebroid", extra_models[k]);
      g_test_add_data_func (path, extra_models[k], test_lie);
    }
  g_test_add_func ("/models/plate-ball/lie-algebroid-sigma+1", test_lie_plate_sigma_plus);
  g_test_add_func ("/models/general-algebroid/anchor-not-morphism", test_broken_anchor);
  g_test_add_func ("/models/general-algebroid/jacobi-fails", test_broken_jacobi);
  g_test_add_func ("/models/rolling-ball/regularity-matrix", test_regularity_ball);
  g_test_add_func ("/models/plate-ball/regularity-matrix", test_regularity_plate);
  g_test_add_func ("/models/martinet/regularity-matrix", test_regularity_martinet);
  g_test_add_func ("/models/all/formalism", test_formalisms);
  g_test_add_func ("/models/format/people-keys", test_people_keys);
  g_test_add_func ("/models/extra/regularity-matrices", test_regularity_extra);
  g_test_add_func ("/models/capri-kobayashi/constraint-algorithm", test_algorithm_reduced);
  g_test_add_func ("/models/capri-kobayashi-full/constraint-algorithm", test_algorithm_full);
  g_test_add_func ("/models/capri-kobayashi/off-manifold-projected", test_off_manifold_reduced);
  g_test_add_func ("/models/capri-kobayashi-full/off-manifold-projected", test_off_manifold_full);
  g_test_add_func ("/models/rolling-ball/init-solved", test_ball_init_solved);
  g_test_add_func ("/models/rolling-ball/init-projected", test_ball_init_projected);
  g_test_add_func ("/models/rolling-ball/nonholonomic-bracket", test_nh_bracket_default);
  g_test_add_func ("/models/rolling-ball/nonholonomic-bracket-other", test_nh_bracket_other);
  g_test_add_func ("/models/plate-ball/nonholonomic-bracket-refused", test_nh_bracket_wrong_kind);
  g_test_add_func ("/models/brackets/relative-tolerance", test_bracket_tolerance);
  g_test_add_func ("/models/describe/bounded", test_describe_bounded);
  g_test_add_func ("/models/plate-ball/poisson-bracket-sigma-1", test_poisson_minus);
  g_test_add_func ("/models/plate-ball/poisson-bracket-sigma+1", test_poisson_plus);
  g_test_add_func ("/models/plate-ball/poisson-bracket-sigma-1-r1.3", test_poisson_minus_r);
  g_test_add_func ("/models/plate-ball/poisson-bracket-sigma+1-r1.3", test_poisson_plus_r);
  return g_test_run ();
}
