/* test-taylor.c — the Taylor integrator (cml-taylor.h): every recurrence against the exact
 * Taylor coefficients of known functions, native code against the interpreter bit for bit,
 * convergence with the tolerance, the closed forms of the built-ins, backward integration,
 * dense output, restarting from a saved step state, and what it refuses.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-taylor"

#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-expr.h"
#include "cml-integrator.h"
#include "cml-model.h"
#include "cml-native.h"
#include "cml-native-step.h"
#include "cml-reference.h"
#include "cml-simulation.h"
#include "cml-system.h"
#include "cml-taylor.h"

#define ORDER 20

/* The program of y' = g(t) (y the only state): its coefficients give g's, g_[k] = (k + 1) y_[k+1]. */
static CmlTaylor *
compile_g (CmlExprCtx *ctx, const char *g, guint order, GError **error)
{
  int t = cml_expr_ctx_intern (ctx, "t"), y = cml_expr_ctx_intern (ctx, "y");
  g_autoptr (GError) perr = NULL;
  CmlExpr *e = cml_expr_parse (ctx, g, NULL, &perr);
  g_assert_no_error (perr);
  return cml_taylor_compile (ctx, &e, 1, t, &y, NULL, 0, order, error);
}

/* g's coefficients at T0 into OUT (ORDER of them). */
static void
g_coefficients (CmlTaylor *tp, double t0, double *out)
{
  double y0 = 0, X[ORDER + 1];
  cml_taylor_jet (tp, t0, &y0, X);
  for (guint k = 0; k < ORDER; k++)
    out[k] = (k + 1) * X[k + 1];
}

static double
binom (double a, guint k)
{
  double r = 1;
  for (guint j = 0; j < k; j++)
    r *= (a - j) / (j + 1);
  return r;
}

static double
fact (guint k)
{
  double r = 1;
  for (guint j = 2; j <= k; j++)
    r *= j;
  return r;
}

typedef double (*ExactFunc) (guint k);

static double ex_sin_exp (guint k) { return pow (2, k / 2.0) * sin (k * G_PI / 4) / fact (k); }
static double ex_geom (guint k) { return 1; }
static double ex_sqrt (guint k) { return binom (0.5, k); }
static double ex_log (guint k) { return k == 0 ? 0 : (k % 2 ? 1.0 : -1.0) / k; }
static double ex_tan (guint k)
{
  static const double c[] = { 0, 1, 0, 1.0 / 3, 0, 2.0 / 15, 0, 17.0 / 315, 0, 62.0 / 2835, 0, 1382.0 / 155925 };
  return k < G_N_ELEMENTS (c) ? c[k] : NAN;
}
static double ex_tanh (guint k) { return ex_tan (k) * (k % 4 == 3 ? -1 : 1); }
static double ex_atan (guint k) { return k % 2 ? ((k / 2) % 2 ? -1.0 : 1.0) / k : 0; }
static double ex_asin (guint k)
{
  if (k % 2 == 0)
    return 0;
  guint j = k / 2;
  return fact (2 * j) / (pow (4, j) * fact (j) * fact (j) * (2 * j + 1));
}
static double ex_acos (guint k) { return (k == 0 ? G_PI / 2 : 0) - ex_asin (k); }
static double ex_sinh (guint k) { return k % 2 ? 1 / fact (k) : 0; }
static double ex_cosh (guint k) { return k % 2 ? 0 : 1 / fact (k); }
static double ex_cos (guint k) { return k % 2 ? 0 : ((k / 2) % 2 ? -1 : 1) / fact (k); }
static double ex_pow25 (guint k) { return binom (2.5, k); }
static double ex_pow3 (guint k) { return binom (3, k); }
static double ex_powm2 (guint k) { return (k % 2 ? -1.0 : 1.0) * (k + 1); }
static double ex_powm15 (guint k) { return binom (-1.5, k); }
static double ex_pow07 (guint k) { return binom (0.7, k); }
static double ex_2t (guint k) { return pow (G_LN2, k) / fact (k); }
static double ex_atan2 (guint k) { return (k == 0 ? G_PI / 4 : 0) + ex_atan (k); }
static double ex_abs (guint k) { return k == 0 ? 2 : k == 1 ? -1 : 0; }
static double ex_sign (guint k) { return k == 0 ? -1 : 0; }
static double ex_quot (guint k) { return k == 0 ? 1 : 2; } /* (1 + t)/(1 - t) */
static double ex_tpow (guint k)
{
  /* (1 + t)^t = exp (t log (1 + t)) */
  static const double c[] = { 1, 0, 1, -0.5, 5.0 / 6 };
  return k < G_N_ELEMENTS (c) ? c[k] : NAN;
}

typedef struct
{
  const char *g;
  ExactFunc   exact;
  guint       n;  /* coefficients compared */
} Case;

static const Case cases[] = {
  { "sin(t)*exp(t)", ex_sin_exp, ORDER },
  { "1/(1 - t)", ex_geom, ORDER },
  { "sqrt(1 + t)", ex_sqrt, ORDER },
  { "log(1 + t)", ex_log, ORDER },
  { "tan(t)", ex_tan, 12 },
  { "tanh(t)", ex_tanh, 12 },
  { "atan(t)", ex_atan, ORDER },
  { "asin(t)", ex_asin, ORDER },
  { "acos(t)", ex_acos, ORDER },
  { "sinh(t)", ex_sinh, ORDER },
  { "cosh(t)", ex_cosh, ORDER },
  { "cos(t)", ex_cos, ORDER },
  { "(1 + t)^2.5", ex_pow25, ORDER },
  { "(1 + t)^3", ex_pow3, ORDER },
  { "(1 + t)^-2", ex_powm2, ORDER },
  { "(1 + t)^-1.5", ex_powm15, ORDER },
  { "(1 + t)^0.7", ex_pow07, ORDER },
  { "2^t", ex_2t, ORDER },
  { "atan2(1 + t, 1 - t)", ex_atan2, ORDER },
  { "abs(t - 2)", ex_abs, ORDER },
  { "sign(t - 2)", ex_sign, ORDER },
  { "(1 + t)/(1 - t)", ex_quot, ORDER },
  { "(1 + t)^t", ex_tpow, 5 },
};

static void
test_recurrences (void)
{
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlTaylor) tp = compile_g (ctx, cases[c].g, ORDER, &error);
      double got[ORDER];
      g_assert_no_error (error);
      g_coefficients (tp, 0.0, got);
      for (guint k = 0; k < cases[c].n; k++)
        {
          double ex = cases[c].exact (k);
          if (fabs (got[k] - ex) > 1e-14 * MAX (1.0, fabs (ex)) * (k + 1))
            g_error ("%s: coefficient %u is %.17g, not %.17g", cases[c].g, k, got[k], ex);
        }
    }
}

/* A state-dependent right-hand side: y' = y², y(0) = 1 gives 1/(1 − t); y' = -y e^(-t). */
static void
test_state_recurrences (void)
{
  g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  int t = cml_expr_ctx_intern (ctx, "t"), y = cml_expr_ctx_intern (ctx, "y");
  CmlExpr *e = cml_expr_parse (ctx, "y^2", NULL, &error);
  g_autoptr (CmlTaylor) tp = cml_taylor_compile (ctx, &e, 1, t, &y, NULL, 0, ORDER, &error);
  double y0 = 1, X[ORDER + 1];
  g_assert_no_error (error);
  cml_taylor_jet (tp, 0, &y0, X);
  for (guint k = 0; k <= ORDER; k++)
    g_assert_cmpfloat_with_epsilon (X[k], 1.0, 1e-15 * (k + 1));

  e = cml_expr_parse (ctx, "-y", NULL, &error);
  g_autoptr (CmlTaylor) tp2 = cml_taylor_compile (ctx, &e, 1, t, &y, NULL, 0, ORDER, &error);
  g_assert_no_error (error);
  cml_taylor_jet (tp2, 0, &y0, X);
  for (guint k = 0; k <= ORDER; k++)
    g_assert_cmpfloat_with_epsilon (X[k], (k % 2 ? -1 : 1) / fact (k), 1e-16);
}

/* ---- native code ----------------------------------------------------------------------- */

static gboolean
attach_native (CmlTaylor *tp)
{
  g_autoptr (GString) src = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (cml_taylor_emit_c (tp, "cml_taylor", src));
  g_assert_nonnull (strstr (src->str, "generator version"));
  CmlNative *nat = cml_native_build (src->str, &error);
  g_assert_no_error (error);
  cml_taylor_set_native (tp, nat, "cml_taylor");
  return cml_taylor_is_native (tp);
}

static void
test_native_identical (void)
{
  if (!cml_native_available ())
    {
      g_test_skip ("no C compiler");
      return;
    }
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlTaylor) a = compile_g (ctx, cases[c].g, ORDER, &error);
      g_autoptr (CmlTaylor) b = compile_g (ctx, cases[c].g, ORDER, &error);
      double ga[ORDER], gb[ORDER];
      g_assert_true (attach_native (b));
      for (double t0 = -0.4; t0 < 0.5; t0 += 0.3)
        {
          g_coefficients (a, t0, ga);
          g_coefficients (b, t0, gb);
          if (memcmp (ga, gb, sizeof ga) != 0)
            g_error ("%s at t = %g: native code differs from the interpreter", cases[c].g, t0);
        }
    }
}

/* The convolutions in a Taylor program's C text: calls of tk_mul and sums in a shared
 * loop (v += r * (tk_v2) { S[b + k - j - 1], S[b + k - j] }). */
static guint
count_convolutions (const char *text)
{
  guint n = 0;
  for (const char *q = text; (q = strstr (q, "tk_mul (S")) != NULL; q++)
    n++;
  for (const char *q = text; (q = strstr (q, " + k - j] }")) != NULL; q++)
    n++;
  return n;
}

/* Two programs of three states give the same coefficients bit for bit, interpreted and
 * native, at times TS and at states of both signs, zeros of both signs among them: the
 * special recurrences of A against B's general ones (WHAT says which). */
static void
assert_same_jets (CmlTaylor *a, CmlTaylor *b, const double *ts, guint n_t, const char *what)
{
  static const double zs[][3] = { { 0.3, -0.7, 1.5 }, { -1.2, 0.0, -2.0 }, { 0.0, -0.0, 0.0 }, { 2.0, 1e-300, -1e10 } };

  for (int native = 0; native < 2; native++)
    {
      if (native && !(cml_native_available () && attach_native (a) && attach_native (b)))
        break;
      for (guint i = 0; i < G_N_ELEMENTS (zs); i++)
        for (guint j = 0; j < n_t; j++)
          {
            double xa[3 * (ORDER + 1)], xb[3 * (ORDER + 1)];
            cml_taylor_jet (a, ts[j], zs[i], xa);
            cml_taylor_jet (b, ts[j], zs[i], xb);
            for (guint m = 0; m < G_N_ELEMENTS (xa); m++)
              if (memcmp (&xa[m], &xb[m], sizeof (double)) != 0)
                g_error ("%s, state %u, t = %g (%s): coefficient %u of row %u is %a, not %a", what, i, ts[j],
                         native ? "native" : "interpreted", m % (ORDER + 1), m / (ORDER + 1), xa[m], xb[m]);
          }
    }
}

/* A state with ż = 0 is a constant series, and products with it one multiplication per
 * order: the coefficients are those of the same system whose third equation, ċ = p with
 * p = 0, leaves c an ordinary series (the full convolutions), bit for bit — also for
 * zero and negative values, where the convolutions' signed zeros show. */
static void
test_constant_series (void)
{
  static const char *const rhs[] = { "c*y", "-c*x - c*c*y + x*x*c", "0" };
  static const double ts[] = { 0.25 };
  g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  int ids[3] = { cml_expr_ctx_intern (ctx, "x"), cml_expr_ctx_intern (ctx, "y"), cml_expr_ctx_intern (ctx, "c") };
  int t = cml_expr_ctx_intern (ctx, "t"), p = cml_expr_ctx_intern (ctx, "p");
  CmlExpr *fa[3], *fb[3];
  for (int i = 0; i < 3; i++)
    {
      fa[i] = cml_expr_parse (ctx, rhs[i], NULL, &error);
      g_assert_no_error (error);
      fb[i] = i < 2 ? fa[i] : cml_expr_parse (ctx, "p", NULL, &error);
    }
  g_autoptr (CmlTaylor) a = cml_taylor_compile (ctx, fa, 3, t, ids, NULL, 0, ORDER, &error);
  g_assert_no_error (error);
  g_autoptr (CmlTaylor) b = cml_taylor_compile (ctx, fb, 3, t, ids, &p, 1, ORDER, &error);
  g_assert_no_error (error);
  double zero = 0.0;
  cml_taylor_set_params (b, &zero);

  /* a's products with c are the one-multiplication kind, b's are convolutions */
  g_autoptr (GString) ca = g_string_new (NULL), cb = g_string_new (NULL);
  g_assert_true (cml_taylor_emit_c (a, "fa", ca) && cml_taylor_emit_c (b, "fb", cb));
  g_assert_cmpuint (count_convolutions (ca->str), <, count_convolutions (cb->str));
  assert_same_jets (a, b, ts, G_N_ELEMENTS (ts), "the constant series' products against the convolutions");
}

/* sin, cos and exp of a series linear in time — w t + φ, or a state θ with θ̇ = w — take
 * one term per order (tk_dpl) instead of k (tk_dp): the coefficients are those of the same
 * system whose arguments carry a "+ p x" with p = 0 (which the program cannot know to be
 * linear), bit for bit, interpreted and native, signed zeros included; sin (t²) keeps the
 * general recurrence. */
static void
test_linear_argument (void)
{
  static const char *const rhs[] = { "sin(w*t + 0.3)*y + cos(theta)", "-x*cos(w*t) + exp(0.5*t - 1) + sin(t*t)",
                                     "w" };
  static const char *const rhs_b[] = { "sin(w*t + 0.3 + p*x)*y + cos(theta + p*x)",
                                       "-x*cos(w*t + p*y) + exp(0.5*t - 1 + p*x) + sin(t*t + p*y)", "w" };
  double ts[] = { 0.25, -3.0, 0.0 };
  g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  int ids[3] = { cml_expr_ctx_intern (ctx, "x"), cml_expr_ctx_intern (ctx, "y"), cml_expr_ctx_intern (ctx, "theta") };
  int t = cml_expr_ctx_intern (ctx, "t");
  int params[2] = { cml_expr_ctx_intern (ctx, "w"), cml_expr_ctx_intern (ctx, "p") };
  double pv[2] = { 1.7, 0.0 };
  CmlExpr *fa[3], *fb[3];
  for (int i = 0; i < 3; i++)
    {
      fa[i] = cml_expr_parse (ctx, rhs[i], NULL, &error);
      g_assert_no_error (error);
      fb[i] = cml_expr_parse (ctx, rhs_b[i], NULL, &error);
      g_assert_no_error (error);
    }
  g_autoptr (CmlTaylor) a = cml_taylor_compile (ctx, fa, 3, t, ids, params, 2, ORDER, &error);
  g_assert_no_error (error);
  g_autoptr (CmlTaylor) b = cml_taylor_compile (ctx, fb, 3, t, ids, params, 2, ORDER, &error);
  g_assert_no_error (error);
  cml_taylor_set_params (a, pv);
  cml_taylor_set_params (b, pv);

  /* a's four functions of linear arguments (sin, cos twice, exp; and the cos and sin that
   * come with sin and cos) are the one-term kind, b's none */
  g_autoptr (GString) ca = g_string_new (NULL), cb = g_string_new (NULL);
  g_assert_true (cml_taylor_emit_c (a, "fa", ca) && cml_taylor_emit_c (b, "fb", cb));
  guint na = 0, nb = 0;
  for (const char *q = ca->str; (q = strstr (q, "tk_dpl (S")) != NULL; q++)
    na++;
  for (const char *q = cb->str; (q = strstr (q, "tk_dpl (S")) != NULL; q++)
    nb++;
  g_assert_cmpuint (na, >=, 4);
  g_assert_cmpuint (nb, ==, 0);
  assert_same_jets (a, b, ts, G_N_ELEMENTS (ts), "the linear arguments' recurrences against the general ones");
}

/* Products that two terms share are computed once (I₂ W₂ W₃ and I₃ W₂ W₃ in Euler's
 * equations), and products ready together share one loop in the native code — more of them
 * than one loop takes, some reading others — with the interpreter's numbers bit for bit. */
static void
test_products (void)
{
  static const char *const rhs[] = {
    "a*x*y - b*x*y", "x*y*z + y*z*w + z*w*x + w*x*y", "x*z - y*w + (x*y)*(z*w) + x*x*y*y*z*z",
    "x*w + y*z + (x*z)*(y*w)*(x*w) - (y*z)*(x*y)",
  };
  double zs[][4] = { { 0.3, -0.7, 1.5, 0.25 }, { -1.2, 0.0, -2.0, 3.0 }, { 0.0, -0.0, 0.0, 1e-300 } };
  g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  int ids[4] = { cml_expr_ctx_intern (ctx, "x"), cml_expr_ctx_intern (ctx, "y"), cml_expr_ctx_intern (ctx, "z"),
                 cml_expr_ctx_intern (ctx, "w") };
  int t = cml_expr_ctx_intern (ctx, "t");
  int params[2] = { cml_expr_ctx_intern (ctx, "a"), cml_expr_ctx_intern (ctx, "b") };
  double pv[2] = { 2.0, 3.0 };
  CmlExpr *f[4];
  for (int i = 0; i < 4; i++)
    {
      f[i] = cml_expr_parse (ctx, rhs[i], NULL, &error);
      g_assert_no_error (error);
    }

  /* a x y − b x y: one convolution */
  {
    CmlExpr *g[2] = { f[0], cml_expr_parse (ctx, "1", NULL, &error) };
    g_assert_no_error (error);
    g_autoptr (CmlTaylor) one = cml_taylor_compile (ctx, g, 2, t, ids, params, 2, ORDER, &error);
    g_assert_no_error (error);
    g_autoptr (GString) c = g_string_new (NULL);
    g_assert_true (cml_taylor_emit_c (one, "f", c));
    g_assert_cmpuint (count_convolutions (c->str), ==, 1);
  }

  g_autoptr (CmlTaylor) a = cml_taylor_compile (ctx, f, 4, t, ids, params, 2, ORDER, &error);
  g_assert_no_error (error);
  g_autoptr (CmlTaylor) b = cml_taylor_compile (ctx, f, 4, t, ids, params, 2, ORDER, &error);
  g_assert_no_error (error);
  cml_taylor_set_params (a, pv);
  cml_taylor_set_params (b, pv);
  g_autoptr (GString) c = g_string_new (NULL);
  g_assert_true (cml_taylor_emit_c (a, "f", c));
  /* a full loop of eight and another after it */
  g_assert_nonnull (strstr (c->str, "s7 += S["));
  g_assert_cmpuint (count_convolutions (c->str), >, 8);
  if (!cml_native_available ())
    {
      g_test_skip ("no C compiler");
      return;
    }
  g_assert_true (attach_native (b));
  for (guint i = 0; i < G_N_ELEMENTS (zs); i++)
    {
      double xa[4 * (ORDER + 1)], xb[4 * (ORDER + 1)];
      cml_taylor_jet (a, 0.25, zs[i], xa);
      cml_taylor_jet (b, 0.25, zs[i], xb);
      if (memcmp (xa, xb, sizeof xa) != 0)
        g_error ("state %u: the native program's shared loops differ from the interpreter", i);
    }
}

/* ---- built-in models ------------------------------------------------------------------ */

static const char *const builtins[] = {
  "rigid-body", "heavy-top", "chaplygin-sleigh", "vertical-disk", "martinet", "rolling-ball",
  "rolling-ball-varying", "plate-ball", "capri-kobayashi", "capri-kobayashi-full",
};

static CmlSimulation *
open_sim (const char *name, double tol, gboolean native)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlModel) model = cml_model_load (name, &error);
  g_assert_no_error (error);
  g_autoptr (CmlSystem) sys = cml_system_new (model, &error);
  g_assert_no_error (error);
  CmlSimulation *sim = cml_simulation_new (sys, &error);
  g_assert_no_error (error);
  if (!native)
    cml_simulation_set_native (sim, FALSE);
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = CML_INTEGRATOR_TAYLOR;
  o.rtol = o.atol = tol;
  if (!cml_simulation_set_integrator (sim, &o, &error))
    g_error ("%s: %s", name, error->message);
  /* native code from the first step: the objects compiling in the background are taken at
   * the first step boundary once they are there */
  if (native)
    cml_native_wait ();
  return sim;
}

/* Every built-in with native code — its whole step compiled around the program
 * (cml-taylor-core.h) — and with the interpreter and the library's step: the same states
 * at every output, forward, then backward after a parameter change, bit for bit. */
static void
test_builtins_native (void)
{
  if (!cml_native_available ())
    {
      g_test_skip ("no C compiler");
      return;
    }
  guint n_fused = 0;
  for (guint m = 0; m < G_N_ELEMENTS (builtins); m++)
    {
      g_autoptr (CmlSimulation) a = open_sim (builtins[m], 1e-12, TRUE);
      g_autoptr (CmlSimulation) b = open_sim (builtins[m], 1e-12, FALSE);
      g_autoptr (GError) error = NULL;
      CmlSystem *sys = cml_simulation_get_system (a);
      const CmlModel *md = cml_system_get_model (sys);
      guint dim = cml_system_dim (sys);
      for (int i = 1; i <= 10; i++)
        {
          double t = (i <= 5 ? i : 9 - i) * 0.7; /* forward to 3.5, then back to −0.7 */
          if (i == 6 && md->params->len > 0)
            {
              const CmlParam *p = md->params->pdata[0];
              double v = cml_simulation_get_param (a, p->name);
              v = v * 1.01 <= p->max ? v * 1.01 : v * 0.99;
              g_assert_true (cml_simulation_set_param (a, p->name, v, &error));
              g_assert_true (cml_simulation_set_param (b, p->name, v, &error));
            }
          g_assert_true (cml_simulation_advance (a, t, &error));
          g_assert_true (cml_simulation_advance (b, t, &error));
          if (memcmp (cml_simulation_get_state (a), cml_simulation_get_state (b), dim * sizeof (double)) != 0)
            g_error ("%s: native and interpreted Taylor steps differ at t = %g", builtins[m], t);
        }
      g_test_message ("%s: %" G_GUINT64_FORMAT " native steps, %" G_GUINT64_FORMAT " projections fused into them",
                      builtins[m], cml_simulation_n_native_steps (a), cml_simulation_n_fused_projections (a));
      g_assert_cmpuint (cml_simulation_n_native_steps (a), >, 0);
      g_assert_cmpuint (cml_simulation_n_native_steps (b), ==, 0);
      /* a model whose states are projected (unit quaternions, nonholonomic constraints) has
       * every step's end projected inside the native step, to the library's bits */
      g_assert_cmpuint (cml_simulation_n_fused_projections (b), ==, 0);
      if (md->quaternions->len >= 4 || md->kind == CML_CONSTRAINTS_NONHOLONOMIC)
        g_assert_cmpuint (cml_simulation_n_fused_projections (a), ==, cml_simulation_n_native_steps (a));
      n_fused += cml_simulation_n_fused_projections (a) > 0;
    }
  g_assert_cmpuint (n_fused, >=, 3); /* the rigid body, the rolling balls, the heavy top … */
}

/* A new integrator of the same order takes the program of the one it replaces (the CLI's
 * probe of the span changes only the step budget): the run afterwards is a fresh
 * integrator's, bit for bit; a tolerance of another order, or the interpreter asked for,
 * gets a program of its own. */
static void
test_program_kept (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlSimulation) fresh = open_sim ("heavy-top", 1e-12, TRUE);
  g_autoptr (CmlSimulation) sim = open_sim ("heavy-top", 1e-12, TRUE);
  g_autoptr (CmlSimulation) loose = open_sim ("heavy-top", 1e-6, TRUE);
  guint dim = cml_system_dim (cml_simulation_get_system (sim));
  CmlIntegratorOptions o = *cml_simulation_get_integrator (sim), budget = o;

  budget.max_steps = 3;
  g_assert_true (cml_simulation_set_integrator (sim, &budget, &error));
  g_assert_false (cml_simulation_advance (sim, 50, &error));
  g_assert_true (cml_integrator_error_is_budget (error));
  g_clear_error (&error);
  g_assert_true (cml_simulation_set_integrator (sim, &o, &error));
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_true (cml_simulation_advance (sim, 2.5, &error));
  g_assert_true (cml_simulation_advance (fresh, 2.5, &error));
  g_assert_cmpmem (cml_simulation_get_state (sim), dim * sizeof (double), cml_simulation_get_state (fresh),
                   dim * sizeof (double));
  if (cml_native_available ())
    g_assert_cmpuint (cml_simulation_n_native_steps (sim), ==, cml_simulation_n_native_steps (fresh));

  /* another order: the steps of a program of that order */
  CmlIntegratorOptions lo = o;
  lo.rtol = lo.atol = 1e-6;
  g_assert_true (cml_simulation_set_integrator (sim, &lo, &error));
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_true (cml_simulation_advance (sim, 2.5, &error));
  g_assert_true (cml_simulation_advance (loose, 2.5, &error));
  g_assert_cmpmem (cml_simulation_get_state (sim), dim * sizeof (double), cml_simulation_get_state (loose),
                   dim * sizeof (double));

  /* the interpreter asked for: no native step runs */
  cml_simulation_set_native (sim, FALSE);
  g_assert_true (cml_simulation_set_integrator (sim, &lo, &error));
  g_assert_true (cml_simulation_reset (sim, NULL, &error));
  g_assert_true (cml_simulation_advance (sim, 2.5, &error));
  g_assert_cmpuint (cml_simulation_n_native_steps (sim), ==, 0);
  g_assert_cmpmem (cml_simulation_get_state (sim), dim * sizeof (double), cml_simulation_get_state (loose),
                   dim * sizeof (double));
}

/* Every built-in's closed forms ([reference]) at tight tolerances. */
static void
test_reference (void)
{
  static const double tols[] = { 1e-12, 1e-14 };
  for (guint m = 0; m < G_N_ELEMENTS (builtins); m++)
    for (guint it = 0; it < G_N_ELEMENTS (tols); it++)
      {
        g_autoptr (CmlSimulation) sim = open_sim (builtins[m], tols[it], TRUE);
        g_autoptr (GError) error = NULL;
        CmlSystem *sys = cml_simulation_get_system (sim);
        g_autoptr (CmlReference) ref = cml_reference_new (sys, &error);
        g_assert_no_error (error);
        if (ref == NULL)
          continue;
        guint n_obs = cml_system_n_observables (sys), n = cml_reference_get_n (ref);
        g_autofree double *obs = g_new (double, n_obs);
        g_autofree double *val = g_new (double, n), *err = g_new (double, n), *scale = g_new0 (double, n);
        double worst = 0;
        cml_simulation_observe (sim, obs);
        cml_reference_start_from_simulation (ref, sim);
        for (int i = 1; i <= 40; i++)
          {
            double t = i * 0.5;
            if (!cml_simulation_advance (sim, t, &error))
              g_error ("%s: %s", builtins[m], error->message);
            cml_simulation_observe (sim, obs);
            cml_reference_compare (ref, t, obs, val, err);
            for (guint r = 0; r < n; r++)
              {
                scale[r] = MAX (scale[r], MAX (1.0, fabs (val[r])));
                worst = MAX (worst, fabs (err[r]) / scale[r]);
              }
          }
        g_test_message ("%s at %g: worst relative error %.3g", builtins[m], tols[it], worst);
        if (!(worst < 1e3 * tols[it]))
          g_error ("%s at tolerance %g: the closed forms are missed by %.3g", builtins[m], tols[it], worst);
      }
}

/* ---- the integrator on a small ODE ------------------------------------------------------ */

static int
no_rhs (double t, const double *z, double *dz, void *data)
{
  return 1;
}

/* The Taylor integrator of ż = f(z) for the states NAMES with right-hand sides RHS (DIM of
 * each), at rtol = atol = TOL; its program into *OUT when OUT is given. */
static CmlIntegrator *
taylor_ode (guint dim, const char *const *names, const char *const *rhs, double tol, CmlTaylor **out)
{
  CmlExprCtx *ctx = cml_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  g_autofree int *ids = g_new (int, dim);
  g_autofree CmlExpr **f = g_new (CmlExpr *, dim);
  int t = cml_expr_ctx_intern (ctx, "t");
  for (guint i = 0; i < dim; i++)
    ids[i] = cml_expr_ctx_intern (ctx, names[i]);
  for (guint i = 0; i < dim; i++)
    {
      f[i] = cml_expr_parse (ctx, rhs[i], NULL, &error);
      g_assert_no_error (error);
    }
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = CML_INTEGRATOR_TAYLOR;
  o.rtol = o.atol = tol;
  CmlTaylor *tp = cml_taylor_compile (ctx, f, dim, t, ids, NULL, 0, cml_taylor_order_for_tolerance (tol, tol), &error);
  g_assert_no_error (error);
  /* the program holds no pointer into the context's nodes once compiled without parameters */
  CmlOde ode = { dim, no_rhs, NULL, NULL, NULL };
  CmlIntegrator *integ = cml_integrator_new_taylor (&ode, tp, &o, &error);
  g_assert_no_error (error);
  if (out)
    *out = tp;
  cml_expr_ctx_free (ctx);
  return integ;
}

/* x' = v, v' = -x: the harmonic oscillator. */
static CmlIntegrator *
oscillator (double tol, CmlTaylor **out)
{
  static const char *const names[] = { "x", "v" }, *const rhs[] = { "v", "-x" };
  return taylor_ode (2, names, rhs, tol, out);
}

static void
test_convergence (void)
{
  static const double tols[] = { 1e-6, 1e-8, 1e-10, 1e-12, 1e-14 };
  double last = INFINITY;

  g_assert_cmpuint (cml_taylor_order_for_tolerance (1e-14, 1e-14), ==, 18);
  for (guint i = 0; i < G_N_ELEMENTS (tols); i++)
    {
      g_autoptr (CmlIntegrator) integ = oscillator (tols[i], NULL);
      g_autoptr (GError) error = NULL;
      double t = 0, z[2] = { 1, 0 };
      g_assert_true (cml_integrator_advance (integ, &t, 20, z, &error));
      double e = MAX (fabs (z[0] - cos (20.0)), fabs (z[1] + sin (20.0)));
      g_test_message ("tolerance %g: error %.3g in %" G_GUINT64_FORMAT " steps", tols[i], e,
                      cml_integrator_n_steps (integ));
      /* proportional to the tolerance (over the span), and decreasing with it */
      g_assert_cmpfloat (e, <, 100 * tols[i] + 1e-14);
      g_assert_cmpfloat (e, <=, last);
      last = e;
    }
}

/* The tolerances hold for every component on its own: a third component far larger than
 * the oscillator's (c' = 0, c = 1e6, as a coordinate that drifts far from the origin) leaves
 * the oscillator's error where it is without it, instead of scaling its tolerance by the
 * largest component of the state. */
static void
test_tolerance_per_component (void)
{
  static const double tols[] = { 1e-8, 1e-10, 1e-12 };

  for (guint i = 0; i < G_N_ELEMENTS (tols); i++)
    {
      double e[2];
      guint64 steps[2];
      for (int big = 0; big < 2; big++)
        {
          static const char *const names[] = { "x", "v", "c" }, *const rhs[] = { "v", "-x", "0" };
          g_autoptr (GError) error = NULL;
          g_autoptr (CmlIntegrator) integ = taylor_ode (3, names, rhs, tols[i], NULL);
          double tt = 0, z[3] = { 1, 0, big ? 1e6 : 0 };
          g_assert_true (cml_integrator_advance (integ, &tt, 20, z, &error));
          e[big] = MAX (fabs (z[0] - cos (20.0)), fabs (z[1] + sin (20.0)));
          steps[big] = cml_integrator_n_steps (integ);
          g_assert_cmpfloat (z[2], ==, big ? 1e6 : 0);
        }
      g_test_message ("tolerance %g: error %.3g in %" G_GUINT64_FORMAT " steps, with c = 1e6 %.3g in %"
                      G_GUINT64_FORMAT " steps", tols[i], e[0], steps[0], e[1], steps[1]);
      g_assert_cmpfloat (e[1], <, 100 * tols[i] + 1e-14);
      g_assert_cmpfloat (e[1], <, 10 * e[0] + 1e-14);
    }
}

/* Outputs inside the steps come from the polynomial: the steps are the same whatever the
 * output times, and backwards the run comes back to its start. */
static void
test_dense_and_backward (void)
{
  g_autoptr (CmlIntegrator) a = oscillator (1e-13, NULL);
  g_autoptr (CmlIntegrator) b = oscillator (1e-13, NULL);
  g_autoptr (GError) error = NULL;
  double ta = 0, tb = 0, za[2] = { 1, 0 }, zb[2] = { 1, 0 };

  for (int i = 1; i <= 1000; i++)
    {
      g_assert_true (cml_integrator_advance (a, &ta, i * 0.01, za, &error));
      g_assert_cmpfloat (fabs (za[0] - cos (ta)), <, 1e-12);
    }
  g_assert_true (cml_integrator_advance (b, &tb, 10, zb, &error));
  g_assert_cmpfloat (ta, ==, 10);
  g_assert_cmpuint (cml_integrator_n_steps (a), ==, cml_integrator_n_steps (b));
  g_assert_true (memcmp (za, zb, sizeof za) == 0);

  g_assert_true (cml_integrator_advance (b, &tb, 0, zb, &error));
  g_assert_cmpfloat (tb, ==, 0);
  g_assert_cmpfloat (fabs (zb[0] - 1), <, 1e-11);
  g_assert_cmpfloat (fabs (zb[1]), <, 1e-11);
  g_assert_true (cml_integrator_advance (b, &tb, -3, zb, &error));
  g_assert_cmpfloat (fabs (zb[0] - cos (3.0)), <, 1e-11);
}

/* A saved step state continues bit for bit. */
static void
test_step_state (void)
{
  g_autoptr (CmlSimulation) sim = open_sim ("heavy-top", 1e-12, TRUE);
  g_autoptr (GError) error = NULL;
  guint dim = cml_system_dim (cml_simulation_get_system (sim));
  guint n = cml_simulation_step_state_size (sim);
  g_autofree double *st = g_new (double, n), *z1 = g_new (double, dim), *z2 = g_new (double, dim);

  g_assert_true (cml_simulation_step_state_is_exact (sim));
  g_assert_true (cml_simulation_advance (sim, 1.3, &error));
  memcpy (z1, cml_simulation_get_state (sim), dim * sizeof (double));
  cml_simulation_save_step_state (sim, st);
  g_assert_true (cml_simulation_advance (sim, 2.9, &error));
  memcpy (z2, cml_simulation_get_state (sim), dim * sizeof (double));

  cml_simulation_restore (sim, 1.3, z1, st);
  g_assert_true (cml_simulation_advance (sim, 2.9, &error));
  g_assert_true (memcmp (z2, cml_simulation_get_state (sim), dim * sizeof (double)) == 0);
}

static void
test_refusals (void)
{
  g_autoptr (CmlExprCtx) ctx = cml_expr_ctx_new ();
  g_autoptr (GError) error = NULL;
  int t = cml_expr_ctx_intern (ctx, "t"), y = cml_expr_ctx_intern (ctx, "y");
  cml_expr_ctx_intern (ctx, "mystery");
  CmlExpr *e = cml_expr_parse (ctx, "sin(mystery*y)", NULL, &error);
  g_assert_no_error (error);
  CmlTaylor *tp = cml_taylor_compile (ctx, &e, 1, t, &y, NULL, 0, 10, &error);
  g_assert_null (tp);
  g_assert_error (error, CML_ERROR, CML_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "mystery"));
  g_clear_error (&error);

  /* an ODE given only as a function has no expressions to differentiate */
  CmlOde ode = { 1, no_rhs, NULL, NULL, NULL };
  CmlIntegratorOptions o = cml_integrator_options_default ();
  o.kind = CML_INTEGRATOR_TAYLOR;
  g_assert_null (cml_integrator_new (&ode, &o, &error));
  g_assert_error (error, CML_ERROR, CML_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "taylor"));
  g_clear_error (&error);

  /* a failure names the time and the reason: y' = 1/(1 - t) ends at t = 1 */
  {
    static const char *const names[] = { "y" }, *const rhs[] = { "1/(1 - t)" };
    g_autoptr (CmlIntegrator) integ = taylor_ode (1, names, rhs, 1e-10, NULL);
    double tt = 0, z = 0;
    g_assert_false (cml_integrator_advance (integ, &tt, 2, &z, &error));
    g_assert_error (error, CML_ERROR, CML_ERROR_NUMERIC);
    g_assert_nonnull (strstr (error->message, "t = "));
    g_assert_cmpfloat (tt, <, 1);
    g_assert_cmpfloat (tt, >, 0.99);
  }

  /* coefficients that are not finite where the run starts (√y at y = 0, |y| at 0) are
   * named as such, at that time, and the state stays where it was */
  g_clear_error (&error);
  static const char *const names[] = { "y" }, *const singular[] = { "sqrt(y)", "abs(y)" };
  for (guint i = 0; i < G_N_ELEMENTS (singular); i++)
    {
      g_autoptr (CmlIntegrator) integ = taylor_ode (1, names, &singular[i], 1e-10, NULL);
      double tt = 0.5, z = 0;
      g_assert_false (cml_integrator_advance (integ, &tt, 2, &z, &error));
      g_assert_error (error, CML_ERROR, CML_ERROR_NUMERIC);
      if (strstr (error->message, "non-finite Taylor coefficients at t = 0.5") == NULL)
        g_error ("%s: %s", singular[i], error->message);
      g_assert_cmpfloat (tt, ==, 0.5);
      g_assert_cmpfloat (z, ==, 0);
      g_clear_error (&error);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/taylor/recurrences", test_recurrences);
  g_test_add_func ("/taylor/state-recurrences", test_state_recurrences);
  g_test_add_func ("/taylor/native-identical", test_native_identical);
  g_test_add_func ("/taylor/builtins-native", test_builtins_native);
  g_test_add_func ("/taylor/program-kept", test_program_kept);
  g_test_add_func ("/taylor/constant-series", test_constant_series);
  g_test_add_func ("/taylor/linear-argument", test_linear_argument);
  g_test_add_func ("/taylor/products", test_products);
  g_test_add_func ("/taylor/reference", test_reference);
  g_test_add_func ("/taylor/convergence", test_convergence);
  g_test_add_func ("/taylor/tolerance-per-component", test_tolerance_per_component);
  g_test_add_func ("/taylor/dense-and-backward", test_dense_and_backward);
  g_test_add_func ("/taylor/step-state", test_step_state);
  g_test_add_func ("/taylor/refusals", test_refusals);
  return g_test_run ();
}
