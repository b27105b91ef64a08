/* test-program.c — tests of the expression compiler (cml_program_*).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "cml-test-program"

#include "cml-expr.h"
#include "cml-program.h"
#include "cml-error.h"

#include <math.h>
#include <string.h>

static const char *const symbol_names[] = {
  "x", "y", "t", "m", "g", "a", "b", "l", "unused",
};

static CmlExprCtx *
new_ctx (void)
{
  CmlExprCtx *ctx = cml_expr_ctx_new ();

  for (guint i = 0; i < G_N_ELEMENTS (symbol_names); i++)
    cml_expr_ctx_intern (ctx, symbol_names[i]);
  return ctx;
}

static CmlExpr *
P (CmlExprCtx *ctx,
   const char *text)
{
  g_autoptr (GError) error = NULL;
  CmlExpr *e = cml_expr_parse (ctx, text, NULL, &error);

  g_assert_no_error (error);
  return e;
}

static int
S (CmlExprCtx *ctx,
   const char *name)
{
  int id = cml_expr_ctx_lookup (ctx, name);

  g_assert_cmpint (id, >=, 0);
  return id;
}

static void
assert_close (double got,
              double want,
              double rel)
{
  if (isnan (got) && isnan (want))
    return;
  if (isinf (got) && got == want)
    return;
  if (!(fabs (got - want) <= rel * MAX (1.0, fabs (want))))
    g_error ("got %.17g, want %.17g", got, want);
}

/* A program of OUTPUTS with inputs SLOW and FAST (symbol names), checked against
 * cml_expr_eval at random points, for several parameter sets. */
static CmlProgram *
compile_and_check (CmlExprCtx        *ctx,
                   const char *const *texts,
                   guint              n_out,
                   const char *const *slow_names,
                   guint              n_slow,
                   const char *const *fast_names,
                   guint              n_fast,
                   double             rel)
{
  g_autoptr (GError) error = NULL;
  g_autofree CmlExpr **outputs = g_new (CmlExpr *, n_out);
  g_autofree int *slow = g_new (int, n_slow + 1);
  g_autofree int *fast = g_new (int, n_fast + 1);
  g_autofree double *regs = NULL;
  double values[32], slow_v[32], fast_v[32], out[64];
  CmlProgram *prog;

  for (guint i = 0; i < n_out; i++)
    outputs[i] = P (ctx, texts[i]);
  for (guint k = 0; k < n_slow; k++)
    slow[k] = S (ctx, slow_names[k]);
  for (guint k = 0; k < n_fast; k++)
    fast[k] = S (ctx, fast_names[k]);

  prog = cml_program_compile (ctx, outputs, n_out, slow, n_slow, fast, n_fast, &error);
  g_assert_no_error (error);
  g_assert_nonnull (prog);
  g_assert_cmpuint (cml_program_n_outputs (prog), ==, n_out);
  g_assert_cmpuint (cml_program_n_registers (prog), >=, n_slow + n_fast);
  regs = g_new0 (double, cml_program_n_registers (prog));

  for (int p = 0; p < 3; p++)
    {
      for (guint i = 0; i < G_N_ELEMENTS (values); i++)
        values[i] = g_test_rand_double_range (0.2, 1.8);
      for (guint k = 0; k < n_slow; k++)
        slow_v[k] = values[slow[k]];
      cml_program_prepare (prog, slow_v, regs);

      for (int r = 0; r < 5; r++)
        {
          for (guint k = 0; k < n_fast; k++)
            fast_v[k] = values[fast[k]] = g_test_rand_double_range (-1.5, 1.5);
          for (guint i = 0; i < n_out; i++)
            out[i] = -12345.0;
          cml_program_run (prog, fast_v, regs, out);
          for (guint i = 0; i < n_out; i++)
            assert_close (out[i], cml_expr_eval (outputs[i], values), rel);
        }
    }
  return prog;
}

static void
test_matches_eval (void)
{
  g_autoptr (CmlExprCtx) ctx = new_ctx ();
  static const char *const outputs[] = {
    "m*g*l*cos(x) + 0.5*m*l^2*y^2",
    "-(a + b)/(l*m) + x*y - t",
    "sin(x)^2 + sin(x)^3 + cos(x)*sin(x)",
    "tan(x/3) + asin(x/2) + acos(y/2) + atan(x*y)",
    "sinh(x) + cosh(y) + tanh(x*y) + exp(-t)",
    "log(1 + x^2) + sqrt(1 + y^2) + abs(x - y) + sign(x*y)",
    "atan2(y, x) + atan2(a, b)",
    "2^x + x^a + (1 + y^2)^b + m^l",
    "x^7 - x^-3 + (2 + x)^-0.5 + (2 + y)^1.5 + (2 + x)^2.5 + (3 + y)^0.3",
    "a*b + a^2 + 3",
    "7",
    "m/(a + x^2)/(b + y^2)^2",
  };
  static const char *const slow[] = { "m", "g", "l", "a", "b" };
  static const char *const fast[] = { "x", "y", "t" };
  CmlProgram *prog;

  prog = compile_and_check (ctx, outputs, G_N_ELEMENTS (outputs), slow, G_N_ELEMENTS (slow),
                            fast, G_N_ELEMENTS (fast), 1e-13);
  g_test_message ("%u registers, %u fast instructions", cml_program_n_registers (prog),
                  cml_program_n_fast_instructions (prog));
  cml_program_free (prog);

  /* the same, everything fast */
  {
    static const char *const all[] = { "x", "y", "t", "m", "g", "l", "a", "b" };

    prog = compile_and_check (ctx, outputs, G_N_ELEMENTS (outputs), NULL, 0, all,
                              G_N_ELEMENTS (all), 1e-13);
    cml_program_free (prog);
  }
}

static void
test_slow_not_counted (void)
{
  g_autoptr (CmlExprCtx) ctx = new_ctx ();
  static const char *const slow[] = { "m", "g", "l", "a" };
  static const char *const fast[] = { "x" };
  CmlProgram *prog;

  /* only the final addition depends on x */
  {
    static const char *const out[] = { "m*g*l*cos(a) + sqrt(m*l) + x" };

    prog = compile_and_check (ctx, out, 1, slow, 4, fast, 1, 1e-14);
    g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 1);
    cml_program_free (prog);
  }
  /* a sum with slow and fast terms: the slow part is summed once, in prepare */
  {
    static const char *const out[] = { "m*g + a*l + m*a + 2*x" };

    prog = compile_and_check (ctx, out, 1, slow, 4, fast, 1, 1e-14);
    g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 1);
    cml_program_free (prog);
  }
  /* a product with slow and fast factors: the slow part is multiplied once */
  {
    static const char *const out[] = { "m*g*l*a*x/(m + a)" };

    prog = compile_and_check (ctx, out, 1, slow, 4, fast, 1, 1e-14);
    g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 1);
    cml_program_free (prog);
  }
  /* outputs that are slow-only or constant: no fast instruction, still written */
  {
    static const char *const out[] = { "m*g*l", "2.5", "-1", "a^2 + 1" };

    prog = compile_and_check (ctx, out, 4, slow, 4, fast, 1, 1e-15);
    g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 0);
    cml_program_free (prog);
  }
  /* the fast work of cos(x)*m*g*l: cos, one multiplication */
  {
    static const char *const out[] = { "m*g*l*cos(x)" };

    prog = compile_and_check (ctx, out, 1, slow, 4, fast, 1, 1e-14);
    g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 2);
    cml_program_free (prog);
  }
}

static void
test_shared_subexpressions (void)
{
  g_autoptr (CmlExprCtx) ctx = new_ctx ();
  static const char *const fast[] = { "x", "y" };
  static const char *const slow[] = { "a", "b" };
  CmlProgram *prog;

  /* sin(x) once, sin(x)^2 once (reused by the cube): sin, square, multiply */
  {
    static const char *const out[] = { "sin(x)^2", "sin(x)^3" };

    prog = compile_and_check (ctx, out, 2, NULL, 0, fast, 2, 1e-14);
    g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 3);
    cml_program_free (prog);
  }
  /* sin(x*y) is computed once for three outputs */
  {
    static const char *const out[] = { "a*sin(x*y)", "b*sin(x*y)", "sin(x*y)" };

    prog = compile_and_check (ctx, out, 3, slow, 2, fast, 2, 1e-14);
    /* x*y, sin, two products */
    g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 4);
    cml_program_free (prog);
  }
  /* the same output twice costs nothing more */
  {
    static const char *const out1[] = { "exp(x)*cos(y) + x" };
    static const char *const out2[] = { "exp(x)*cos(y) + x", "x + cos(y)*exp(x)" };
    CmlProgram *p1 = compile_and_check (ctx, out1, 1, NULL, 0, fast, 2, 1e-14);
    CmlProgram *p2 = compile_and_check (ctx, out2, 2, NULL, 0, fast, 2, 1e-14);

    g_assert_cmpuint (cml_program_n_fast_instructions (p1), ==,
                      cml_program_n_fast_instructions (p2));
    cml_program_free (p1);
    cml_program_free (p2);
  }
  /* integer powers by multiplication: x^8 is three squarings */
  {
    static const char *const out[] = { "x^8" };

    prog = compile_and_check (ctx, out, 1, NULL, 0, fast, 2, 1e-14);
    g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 3);
    cml_program_free (prog);
  }
}

static void
test_unknown_symbol (void)
{
  g_autoptr (CmlExprCtx) ctx = new_ctx ();
  g_autoptr (GError) error = NULL;
  CmlExpr *outputs[] = { P (ctx, "x + 1"), P (ctx, "sin(x)*unused") };
  int fast[] = { S (ctx, "x") };
  int slow[] = { S (ctx, "m") };
  CmlProgram *prog;

  prog = cml_program_compile (ctx, outputs, 2, slow, 1, fast, 1, &error);
  g_assert_null (prog);
  g_assert_error (error, CML_ERROR, CML_ERROR_UNKNOWN_NAME);
  g_assert_cmpstr (error->message, ==, "symbol 'unused' is not an input of the program");

  /* NULL error is fine too */
  g_assert_null (cml_program_compile (ctx, outputs, 2, slow, 1, fast, 1, NULL));
  /* an input that no output uses is fine */
  prog = cml_program_compile (ctx, outputs, 1, slow, 1, fast, 1, NULL);
  g_assert_nonnull (prog);
  cml_program_free (prog);
}

static void
test_empty (void)
{
  g_autoptr (CmlExprCtx) ctx = new_ctx ();
  g_autoptr (CmlProgram) prog = cml_program_compile (ctx, NULL, 0, NULL, 0, NULL, 0, NULL);
  double regs[1] = { 0 };

  g_assert_nonnull (prog);
  g_assert_cmpuint (cml_program_n_outputs (prog), ==, 0);
  g_assert_cmpuint (cml_program_n_fast_instructions (prog), ==, 0);
  cml_program_prepare (prog, NULL, regs);
  cml_program_run (prog, NULL, regs, NULL);
}

/* Derivatives of a biggish expression compile and agree with the tree walk; reports the
 * cost per instruction (informative only: benchmarks measure speed). */
static void
test_big (void)
{
  g_autoptr (CmlExprCtx) ctx = new_ctx ();
  g_autoptr (GError) error = NULL;
  g_autoptr (CmlProgram) prog = NULL;
  g_autofree double *regs = NULL;
  CmlExpr *lagrangian, *outputs[6];
  int x = S (ctx, "x"), y = S (ctx, "y");
  int slow[] = { S (ctx, "m"), S (ctx, "g"), S (ctx, "l"), S (ctx, "a"), S (ctx, "b") };
  int fast[] = { x, y, S (ctx, "t") };
  double values[32], slow_v[5], fast_v[3], out[6];
  gint64 start;
  int n_runs = 200000;

  /* a double-pendulum-like Lagrangian and its first and second derivatives */
  lagrangian = P (ctx, "m*l^2*(t^2 + a*y^2 + 2*b*t*y*cos(x - y))/2 + m*g*l*(2*cos(x) + cos(y))"
                       " + sin(x*y)^3*exp(-t^2)/(1 + a*x^2)");
  outputs[0] = cml_expr_diff (ctx, lagrangian, x);
  outputs[1] = cml_expr_diff (ctx, lagrangian, y);
  outputs[2] = cml_expr_diff (ctx, outputs[0], x);
  outputs[3] = cml_expr_diff (ctx, outputs[0], y);
  outputs[4] = cml_expr_diff (ctx, outputs[1], y);
  outputs[5] = cml_expr_diff (ctx, outputs[2], x);

  prog = cml_program_compile (ctx, outputs, 6, slow, 5, fast, 3, &error);
  g_assert_no_error (error);
  regs = g_new0 (double, cml_program_n_registers (prog));

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    values[i] = g_test_rand_double_range (0.2, 1.8);
  for (guint k = 0; k < 5; k++)
    slow_v[k] = values[slow[k]];
  for (guint k = 0; k < 3; k++)
    fast_v[k] = values[fast[k]];
  cml_program_prepare (prog, slow_v, regs);
  cml_program_run (prog, fast_v, regs, out);
  for (guint i = 0; i < 6; i++)
    assert_close (out[i], cml_expr_eval (outputs[i], values), 1e-12);

  start = g_get_monotonic_time ();
  for (int r = 0; r < n_runs; r++)
    {
      fast_v[0] = 0.5 + 1e-6 * r;
      cml_program_run (prog, fast_v, regs, out);
    }
  g_test_message ("%u fast instructions, %u registers: %.1f ns per run, %.2f ns per instruction",
                  cml_program_n_fast_instructions (prog), cml_program_n_registers (prog),
                  (g_get_monotonic_time () - start) * 1e3 / n_runs,
                  (g_get_monotonic_time () - start) * 1e3 / n_runs
                    / MAX (1, cml_program_n_fast_instructions (prog)));
  g_assert_true (isfinite (out[0]));
}

typedef struct
{
  const CmlProgram *prog;
  double            want;
  gboolean          ok;
} ThreadData;

static gpointer
run_thread (gpointer p)
{
  ThreadData *d = p;
  g_autofree double *regs = g_new0 (double, cml_program_n_registers (d->prog));
  double slow[1] = { 2.0 }, fast[1] = { 0.5 }, out[1];

  d->ok = TRUE;
  cml_program_prepare (d->prog, slow, regs);
  for (int i = 0; i < 10000; i++)
    {
      cml_program_run (d->prog, fast, regs, out);
      d->ok = d->ok && fabs (out[0] - d->want) <= 1e-14;
    }
  return NULL;
}

static void
test_threads (void)
{
  g_autoptr (CmlExprCtx) ctx = new_ctx ();
  CmlExpr *e = P (ctx, "m*sin(x)^2 + exp(x)/m");
  int slow[] = { S (ctx, "m") }, fast[] = { S (ctx, "x") };
  g_autoptr (CmlProgram) prog = cml_program_compile (ctx, &e, 1, slow, 1, fast, 1, NULL);
  ThreadData d[2];
  GThread *th[2];

  for (int i = 0; i < 2; i++)
    {
      d[i].prog = prog;
      d[i].want = 2.0 * sin (0.5) * sin (0.5) + exp (0.5) / 2.0;
      th[i] = g_thread_new ("run", run_thread, &d[i]);
    }
  for (int i = 0; i < 2; i++)
    {
      g_thread_join (th[i]);
      g_assert_true (d[i].ok);
    }
}

/* ---- merged operations ----------------------------------------------------------------- */

static double f_sub_mul_mul (double x, double y, double a, double b) { return x * y - a * b; }
static double f_add_mul_mul (double x, double y, double a, double b) { return x * y + a * b; }
static double f_mul_mul_l (double x, double y, double a, double b) { return (x * y) * a; }
static double f_mul_sqr_r (double x, double y, double a, double b) { return x * (a * a); }
static double f_mul_add_r (double x, double y, double a, double b) { return x * (a + b); }
static double f_mul_sub_r (double x, double y, double a, double b) { return x * (b - a); }
static double f_div_mul_l (double x, double y, double a, double b) { return (x * y) / a; }
static double f_sub_mul_r (double x, double y, double a, double b) { return x - a * b; }
static double f_sub_mul_l (double x, double y, double a, double b) { return x * y - a; }
static double f_muladd (double x, double y, double a, double b) { return x + a * b; }
static double f_mul_add_l (double x, double y, double a, double b) { return (x + y) * sin (b); }
static double f_mul_sub_l (double x, double y, double a, double b) { return (b - a) * exp (b); }
static double f_muladd_mul_r (double x, double y, double a, double b) { return x + 0.5 * (a * b); }
static double f_mul_muladd_r (double x, double y, double a, double b) { return sin (y) * (x + a * b); }
static double f_mul_sub_mul_r_r (double x, double y, double a, double b) { return sin (y) * (b - x * y); }
static double f_mul_add_mul_l_r (double x, double y, double a, double b) { return cos (b) * (x * y + sin (a)); }
static double f_mul_sub_mul_l_r (double x, double y, double a, double b) { return sin (y) * (a * b - x); }
static double f_mul_add_mul_mul_r (double x, double y, double a, double b) { return sin (y) * (a * b + x * y); }
static double f_mul_sub_mul_mul_r (double x, double y, double a, double b) { return sin (y) * (a * b - x * y); }
static double f_mul_muladd_l (double x, double y, double a, double b) { return (x + a * b) * exp (b); }
static double f_mul_sub_mul_r_l (double x, double y, double a, double b) { return (b - x * y) * exp (b); }
static double f_mul_add_mul_l_l (double x, double y, double a, double b) { return (x * y + sin (a)) * exp (b); }
static double f_mul_sub_mul_l_l (double x, double y, double a, double b) { return (a * b - x) * exp (b); }
static double f_mul_add_mul_mul_l (double x, double y, double a, double b) { return (x * y + a * b) * exp (b); }
static double f_mul_sub_mul_mul_l (double x, double y, double a, double b) { return (a * b - x * y) * exp (b); }
static double f_kprod (double x, double y, double a, double b)
{
  return 0.5 * (x * y) + -0.25 * (a * b);
}
static double f_kprod3 (double x, double y, double a, double b)
{
  return (0.5 * (x * y) + -0.25 * (a * b)) + 2.0 * (x * b);
}

/* Equal bit for bit, or both NaN (a NaN's payload may depend on the order of the
 * operands of a commutative operation, which C leaves to the compiler). */
static gboolean
same_double (double u, double v)
{
  return (isnan (u) && isnan (v)) || memcmp (&u, &v, sizeof u) == 0;
}

/* Every merged operation of the interpreter computes what its parts compute, each part
 * rounded (never a fused multiply-add): the program against the same expression in C, on
 * a grid of values with signed zeros, infinities, NaN, huge and subnormal numbers (so
 * overflow, 0 * inf, inf - inf and division by zero), bit for bit. */
static void
test_fused (void)
{
  static const struct
  {
    const char *text;
    const char *op;  /* an operation its interpreter code must contain */
    double    (*f) (double, double, double, double);
    const char *other;  /* a second output (a value used twice is not merged) */
  } cases[] = {
    { "x*y - a*b", "SUB_MUL_MUL ", f_sub_mul_mul },
    { "x*y + a*b", "ADD_MUL_MUL ", f_add_mul_mul },
    { "x*y*a", "MUL_MUL_L ", f_mul_mul_l },
    { "x*a^2", "MUL_SQR_R ", f_mul_sqr_r },
    { "x*(a + b)", "MUL_ADD_R ", f_mul_add_r },
    { "x*(b - a)", "MUL_SUB_R ", f_mul_sub_r },
    { "x*y/a", "DIV_MUL_L ", f_div_mul_l },
    { "x - a*b", "SUB_MUL_R ", f_sub_mul_r },
    { "x*y - a", "SUB_MUL_L ", f_sub_mul_l },
    { "x + a*b", "MULADD ", f_muladd },
    { "(x + y)*sin(b)", "MUL_ADD_L ", f_mul_add_l },
    { "(b - a)*exp(b)", "MUL_SUB_L ", f_mul_sub_l },
    { "x + 0.5*a*b", "MULADD_MUL_R ", f_muladd_mul_r },
    { "sin(y)*(x + a*b)", "MUL_MULADD_R ", f_mul_muladd_r },
    { "sin(y)*(b - x*y)", "MUL_SUB_MUL_R_R ", f_mul_sub_mul_r_r },
    { "cos(b)*(x*y + sin(a))", "MUL_ADD_MUL_L_R ", f_mul_add_mul_l_r },
    { "sin(y)*(a*b - x)", "MUL_SUB_MUL_L_R ", f_mul_sub_mul_l_r },
    { "sin(y)*(x*y + a*b)", "MUL_ADD_MUL_MUL_R ", f_mul_add_mul_mul_r },
    { "sin(y)*(a*b - x*y)", "MUL_SUB_MUL_MUL_R ", f_mul_sub_mul_mul_r },
    { "(x + a*b)*exp(b)", "MUL_MULADD_L ", f_mul_muladd_l },
    { "(b - x*y)*exp(b)", "MUL_SUB_MUL_R_L ", f_mul_sub_mul_r_l },
    { "(x*y + sin(a))*exp(b)", "MUL_ADD_MUL_L_L ", f_mul_add_mul_l_l },
    { "(a*b - x)*exp(b)", "MUL_SUB_MUL_L_L ", f_mul_sub_mul_l_l },
    { "(x*y + a*b)*exp(b)", "MUL_ADD_MUL_MUL_L ", f_mul_add_mul_mul_l },
    { "(a*b - x*y)*exp(b)", "MUL_SUB_MUL_MUL_L ", f_mul_sub_mul_mul_l },
    { "0.5*x*y - 0.25*a*b", "MUL_MUL_R ", f_kprod, "0.5*x*y + 0.25*a*sin(b)" },
    { "0.5*x*y - 0.25*a*b", "KPROD_SUM ", f_kprod },
    { "0.5*x*y - 0.25*a*b + 2*x*b", "KPROD_SUM ", f_kprod3 },
  };
  static const double values[] = {
    0.0, -0.0, 1.0, -1.5, 3.0, INFINITY, -INFINITY, NAN, 1e308, -1e308, 4.9e-324, 1e-300,
  };
  const guint nv = G_N_ELEMENTS (values);

  /* each in a context of its own: the order of a product's factors, and so which of the
   * operations a program gets, follows the order in which expressions were made */
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (CmlExprCtx) ctx = new_ctx ();
      int fast[] = { S (ctx, "x"), S (ctx, "y"), S (ctx, "a"), S (ctx, "b") };
      CmlExpr *out[2] = { P (ctx, cases[i].text), cases[i].other ? P (ctx, cases[i].other) : NULL };
      guint n_out = cases[i].other ? 2 : 1;
      g_autoptr (GError) error = NULL;
      g_autoptr (CmlProgram) prog = cml_program_compile (ctx, out, n_out, NULL, 0, fast, 4, &error);
      g_autofree double *regs = NULL;
      g_autofree char *code = NULL;

      g_assert_no_error (error);
      code = cml_program_describe (prog);
      if (g_test_verbose ())
        g_printerr ("%s:\n%s", cases[i].text, code);
      if (strstr (code, cases[i].op) == NULL)
        g_error ("%s: no %s in\n%s", cases[i].text, cases[i].op, code);
      g_assert_cmpuint (cml_program_n_dispatches (prog), <, cml_program_n_fast_instructions (prog));
      regs = g_new0 (double, cml_program_n_registers (prog));
      cml_program_prepare (prog, NULL, regs);
      for (guint n = 0; n < nv * nv * nv * nv; n++)
        {
          double v[4] = { values[n % nv], values[n / nv % nv], values[n / nv / nv % nv],
                          values[n / nv / nv / nv] };
          double got[2] = { -12345.0, -12345.0 }, want = cases[i].f (v[0], v[1], v[2], v[3]);

          cml_program_run (prog, v, regs, got);
          if (!same_double (got[0], want))
            g_error ("%s at x = %g, y = %g, a = %g, b = %g: got %a, want %a", cases[i].text, v[0], v[1],
                     v[2], v[3], got[0], want);
          cml_program_run_unmerged (prog, v, regs, got);
          if (!same_double (got[0], want))
            g_error ("%s at x = %g, y = %g, a = %g, b = %g: got %a, want %a", cases[i].text, v[0], v[1],
                     v[2], v[3], got[0], want);
        }
    }
}

/* Long sums of weighted products (chains of four and more terms, whose operands take
 * several slots of the interpreter's code) and a mix of everything: the merged code
 * against the compiler's instructions one by one, at random points built from special
 * values and ordinary numbers. */
static void
test_fused_long (void)
{
  static const char *const names[] = { "x", "y", "t", "m", "g", "a", "b", "l" };
  static const char *const texts[] = {
    "0.5*x*y - 0.25*a*b + 2*x*b - 3*y*a + 5*x*a + 0.125*t*m - 7*g*l + 1.5*x*l + 0.75*y*t"
    " - 1.25*m*g + 3.5*a*l + 0.375*b*t - 2.5*x*g + 1.75*y*m - 0.625*a*t + 4.5*b*l",
    "x*y - a*b + (x + y)*sin(b) - (b - a)*exp(t)*m + x*y*a/(g + 2) - l*a^2 + 0.5*x*y*m",
    "(x*y - a*b)*(t*m + g*l) - 0.5*(x*l - y*t)*(a*g + b*m)",
  };
  static const double special[] = {
    0.0, -0.0, 1.0, -1.5, INFINITY, -INFINITY, NAN, 1e308, 4.9e-324, -1e-300,
  };
  g_autoptr (CmlExprCtx) ctx = new_ctx ();
  int fast[G_N_ELEMENTS (names)];

  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    fast[k] = S (ctx, names[k]);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      CmlExpr *out = P (ctx, texts[i]);
      g_autoptr (CmlProgram) prog = cml_program_compile (ctx, &out, 1, NULL, 0, fast, 8, NULL);
      g_autofree double *regs = NULL;
      g_autofree char *code = NULL;

      g_assert_nonnull (prog);
      code = cml_program_describe (prog);
      if (g_test_verbose ())
        g_printerr ("%s:\n%s", texts[i], code);
      g_assert_cmpuint (cml_program_n_dispatches (prog), <, cml_program_n_fast_instructions (prog));
      if (i == 0)
        g_assert_nonnull (strstr (code, "KPROD_SUM"));
      regs = g_new0 (double, cml_program_n_registers (prog));
      cml_program_prepare (prog, NULL, regs);
      for (guint n = 0; n < 20000; n++)
        {
          double v[G_N_ELEMENTS (names)], got = -1, want = -2;

          for (guint k = 0; k < G_N_ELEMENTS (v); k++)
            v[k] = g_test_rand_bit () ? special[g_test_rand_int_range (0, G_N_ELEMENTS (special))]
                                      : g_test_rand_double_range (-3, 3);
          cml_program_run (prog, v, regs, &got);
          cml_program_run_unmerged (prog, v, regs, &want);
          if (!same_double (got, want))
            g_error ("%s: got %a, want %a", texts[i], got, want);
          if (n < 200)
            {
              for (guint k = 0; k < G_N_ELEMENTS (v); k++)
                v[k] = g_test_rand_double_range (-3, 3);
              cml_program_run (prog, v, regs, &got);
              cml_program_run_unmerged (prog, v, regs, &want);
              g_assert_true (memcmp (&got, &want, sizeof got) == 0);
            }
        }
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/program/matches-eval", test_matches_eval);
  g_test_add_func ("/core/program/slow-not-counted", test_slow_not_counted);
  g_test_add_func ("/core/program/shared-subexpressions", test_shared_subexpressions);
  g_test_add_func ("/core/program/unknown-symbol", test_unknown_symbol);
  g_test_add_func ("/core/program/empty", test_empty);
  g_test_add_func ("/core/program/big", test_big);
  g_test_add_func ("/core/program/threads", test_threads);
  g_test_add_func ("/core/program/fused", test_fused);
  g_test_add_func ("/core/program/fused-long", test_fused_long);

  return g_test_run ();
}
