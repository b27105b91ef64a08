/* cml-system.c — deriving the equations of motion from a model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Implements docs/theory.md §2–7 for any model file.  Notation: base
 * coordinates x^i (m of them), fibre coordinates y^A (n), anchor ρ^i_A(x), structure
 * functions C^C_AB(x), Lagrangian L(t, x, y).
 *
 *   ẋ^i = ρ^i_A y^A
 *   W_AB = ∂²L/∂y^A∂y^B
 *   R_A  = ρ^i_A ∂L/∂x^i − C^C_AB y^B ∂L/∂y^C − (∂²L/∂y^A∂x^i) ẋ^i − ∂²L/∂y^A∂t
 *
 * (a) Euler–Lagrange:        W ẏ = R.
 * (b) Lagrange–d'Alembert:   W ẏ = R + Φ_yᵀ λ with φ(t,x,y) = 0; differentiating the
 *     constraint, λ = −C⁻¹(Φ_x ẋ + Φ_y W⁻¹R + φ_t), C = Φ_y W⁻¹ Φ_yᵀ (regularity matrix).
 * (c) Vakonomic, on W1 with state (x, p):  y^α = Ψ^α(t, x, y^a), L̃ = L(x, y^a, Ψ);
 *     the free velocities solve F_a = p_a + p_α ∂Ψ^α/∂y^a − ∂L̃/∂y^a = 0 (Jacobian −R_ab,
 *     R_ab = ∂²L̃/∂y^a∂y^b − p_α ∂²Ψ^α/∂y^a∂y^b), then
 *       ẋ^i = ρ^i_A ŷ^A,   ṗ_A = ρ^i_A (∂L̃/∂x^i − p_α ∂Ψ^α/∂x^i) − C^B_AD p_B ŷ^D
 *     with ŷ = (y^a, Ψ^α).
 * (d) Singular W: the constraint algorithm with the SODE condition built in: ẏ = ẏ_part
 *     + K v with K a basis of ker W; primary constraints K·R = 0; every constraint must
 *     stay zero, which either fixes some v or gives a new constraint, until nothing new
 *     appears.
 *
 * All derivatives are symbolic and exact; the linear solves are symbolic too
 * (cml-symsolve.c), with their pivots checked at run time.  The results are compiled into
 * register programs whose slow inputs are the parameters, so a parameter change costs
 * one cml_program_prepare() and the right-hand side does no allocation.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-native.h"
#include "cml-symsolve.h"

struct _CmlSystem
{
  gint         ref_count;
  CmlModel    *model;
  CmlExprCtx  *ctx;
  CmlFormalism formalism;

  guint        m, n, nr, dim;
  char       **state_names;
  int         *state_sym;

  guint        n_params;
  int         *param_sym;

  /* fast inputs: t, the state, and (nonlinear vakonomic only) the free velocities */
  guint        na;
  int         *aux_sym;
  int         *fast_sym;
  guint        n_fast;

  /* symbolic results */
  CmlExpr    **rhs;         /* dim */
  GPtrArray   *pivots;      /* CmlExpr*: must be nonzero */
  /* the pivots that depend on parameters only are checked when the parameters change,
   * the others on every call of the right-hand side */
  guint       *fast_pivots, n_fast_pivots;
  guint       *slow_pivots, *slow_pivot_regs, n_slow_pivots;
  GPtrArray   *pivot_names; /* const char*: the matrix each pivot belongs to */
  const char  *reg_name;    /* name of the regularity matrix */
  CmlExpr    **reg;         /* reg_rows² entries, or NULL */
  guint        reg_rows;
  CmlExpr    **newton;      /* na F values then na² ∂F/∂aux, or NULL */
  GPtrArray   *h;           /* CmlExpr*: constraint functions kept by projection */
  guint        movable_from, movable_to; /* state components moved by projection */
  GPtrArray   *obs_names;   /* char* */
  GPtrArray   *obs;         /* CmlExpr* */
  /* replaces momenta / constrained velocities in user expressions */
  guint        n_subs;
  int         *subs_ids;
  CmlExpr    **subs_repl;

  /* numeric fallback of the symbolic solve, for states where a pivot chosen at the sample
   * point is small against the other pivots of its matrix: W (n²), R (n), and for
   * nonholonomic constraints Φ_y (s·n) and φ_t + Φ_x ẋ (s), solved by LU with partial
   * pivoting of the evaluated matrices */
  GPtrArray   *fb;          /* CmlExpr*, or empty */
  guint        fb_s;        /* number of constraints in it */
  /* vakonomic systems (W1 relations linear in the free velocities): fb holds R_ab (nf²)
   * and F at zero free velocities (nf); fb2 the right-hand side (m + n, then the
   * reconstruction rates) with the free velocities fb_aux_sym as inputs */
  guint        fb_vak_nf;
  int         *fb_aux_sym;
  CmlExpr    **fb_yhat;     /* n: the velocities in terms of fb_aux_sym */
  GPtrArray   *fb2;
  CmlProgram  *fb2_prog;
  /* singular Lagrangians (the constraint algorithm): fb holds W (n²), R (n), then for each
   * of the fb_q equations that fix a kernel acceleration, d/dt g = c + g_y ẏ, its c =
   * g_t + g_x ẋ (1) and g_y (n).  ẏ = ẏ_part + K v: for a constant kernel ẏ_part = Kc u
   * with (Kcᵀ W Kc) u = Kcᵀ R (fb_Kc n×r, fb_K n×k numbers); for a kernel that depends on
   * the point, W_PQ ẏ_Q = R_P and K_j = e_{F_j} − e_Q W_PQ⁻¹ W_{P,F_j} (fb_P, fb_Q: r rows and
   * columns of W, fb_F: the k others).  Equation a fixes κ_{fb_cols[a]}; the others are 0. */
  gboolean     fb_sing;
  gboolean     fb_sing_varying;
  guint        fb_r, fb_k, fb_q;
  double      *fb_Kc, *fb_K;
  guint       *fb_P, *fb_Q, *fb_F, *fb_cols;

  CmlProgram  *rhs_prog, *jac_prog, *obs_prog, *proj_prog, *reg_prog, *newton_prog, *scene_prog, *fb_prog;
  /* native code of the hot programs, built on first use (cml-native.c) */
  GMutex       native_lock;
  gboolean     native_tried;
  CmlNative   *native;
  char        *native_error;
  CmlNativeFunc rhs_fn, jac_fn, proj_fn;
  GHashTable  *scene_offsets;  /* "object\nkey" -> offset + 1 */
  guint        n_scene;

  GPtrArray   *steps;
  gboolean     gauge;
  gboolean     lie;
  double       structure_defect;
};

struct _CmlSimulation
{
  CmlSystem   *sys;
  double      *params;
  double       t;
  double      *z;
  double      *fast;
  double      *regs_rhs, *regs_jac, *regs_obs, *regs_proj, *regs_reg, *regs_newton, *regs_scene, *regs_fb;
  double      *fb_out, *fb_work;  /* the fallback's outputs and its dense solves */
  double      *regs_fb2, *fast2;  /* vakonomic fallback: registers, and t, state, free velocities */
  double      *scene_out;
  double      *rhs_out;
  double      *proj_out;
  double      *newton_out;
  double      *work;       /* small dense solves */
  double      *work2;
  CmlNativeFunc rhs_fn, jac_fn, proj_fn;  /* NULL: the interpreter */
  int          slow_pivot_bad;  /* a parameter-only pivot that is 0 or not finite, or -1 */
  CmlIntegrator *integ;
  CmlIntegratorOptions options;
  GPtrArray   *report;
  GError      *pending;    /* the model's own initial data failed (see cml_simulation_new) */
  char         reason[256];
  double       reason_t;   /* the time of the evaluation that failed */
};

const char *
cml_formalism_to_string (CmlFormalism f)
{
  switch (f)
    {
    case CML_FORMALISM_EULER_LAGRANGE: return "Euler–Lagrange equations on a Lie algebroid";
    case CML_FORMALISM_NONHOLONOMIC: return "nonholonomic (Lagrange–d'Alembert) equations";
    case CML_FORMALISM_VAKONOMIC: return "vakonomic equations (normal extremals, Hamiltonian form on W1)";
    case CML_FORMALISM_SINGULAR: return "singular Lagrangian (constraint algorithm with the SODE condition)";
    default: return "?";
    }
}

/* ---- small helpers ------------------------------------------------------------------ */

#define ZERO(ctx) cml_expr_num ((ctx), 0)

static CmlExpr *
sym (CmlExprCtx *ctx, int id)
{
  return cml_expr_sym (ctx, id);
}

static CmlExpr *
madd (CmlExprCtx *ctx, CmlExpr *acc, CmlExpr *a, CmlExpr *b)
{
  if (cml_expr_is_zero (a) || cml_expr_is_zero (b))
    return acc;
  return cml_expr_add (ctx, acc, cml_expr_mul (ctx, a, b));
}

/* A deterministic generic point: parameters at their defaults, t and every other symbol
 * at pseudo-random values, so that expressions that look nonzero but vanish are caught. */
static double *
make_sample (CmlSystem *sys, guint32 seed)
{
  guint ns = cml_expr_ctx_n_symbols (sys->ctx);
  double *v = g_new (double, ns);
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);

  for (guint i = 0; i < ns; i++)
    v[i] = g_rand_double_range (rand, 0.35, 1.35);
  for (guint k = 0; k < sys->n_params; k++)
    v[sys->param_sym[k]] = ((CmlParam *) sys->model->params->pdata[k])->value;
  return v;
}

static gboolean
fail_model (CmlSystem *sys, GError **error, int line, int code, const char *fmt, ...) G_GNUC_PRINTF (5, 6);

static gboolean
fail_model (CmlSystem *sys, GError **error, int line, int code, const char *fmt, ...)
{
  va_list ap;
  g_autofree char *msg = NULL;
  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, CML_ERROR, code, "%s:%d: %s", sys->model->path, MAX (line, 1), msg);
  return FALSE;
}

/* ---- the algebroid's structure equations ------------------------------------------- */

/* One structure equation: which identity, for which sections, which component. */
typedef struct
{
  CmlExpr *e;
  gboolean jacobi;   /* FALSE: the anchor as a bracket morphism */
  guint    A, B, C;  /* the sections (C: Jacobi only) */
  guint    comp;     /* base coordinate i (anchor) or section D (Jacobi) */
} StructureTerm;

/* The line of the bracket [[e_A, e_B]] in the model's text (either order, any spacing),
 * or 0 when it is not given. */
static int
bracket_line (CmlModel *md, guint A, guint B)
{
  g_auto (GStrv) lines = g_strsplit (md->text, "\n", -1);
  gboolean in_group = FALSE;
  for (int i = 0; lines[i]; i++)
    {
      g_autofree char *s = g_strstrip (g_strdup (lines[i]));
      const char *eq = strchr (s, '=');
      if (*s == '[')
        {
          in_group = g_str_equal (s, "[brackets]");
          continue;
        }
      if (!in_group || eq == NULL || *s == '#')
        continue;
      g_autofree char *key = g_strndup (s, eq - s);
      g_auto (GStrv) pair = g_strsplit (key, ",", -1);
      if (g_strv_length (pair) != 2)
        continue;
      g_strstrip (pair[0]);
      g_strstrip (pair[1]);
      if ((g_str_equal (pair[0], md->sections[A]) && g_str_equal (pair[1], md->sections[B]))
          || (g_str_equal (pair[0], md->sections[B]) && g_str_equal (pair[1], md->sections[A])))
        return i + 1;
    }
  return 0;
}

/* The smallest nonzero of the lines A and B (0 if both are 0). */
static int
first_line (int a, int b)
{
  if (a == 0)
    return b;
  if (b == 0)
    return a;
  return MIN (a, b);
}

/* "x = 0.673, y = 1.2" (the base coordinates at V), or "" with no base. */
static char *
base_point_text (CmlModel *md, const double *v)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < md->m; i++)
    g_string_append_printf (s, "%s%s = %.3g", i ? ", " : "", md->base[i], v[md->base_sym[i]]);
  return g_string_free (s, FALSE);
}

/* ρ^j_A ∂_j ρ^i_B − ρ^j_B ∂_j ρ^i_A − ρ^i_C C^C_AB = 0 and the cyclic sum over (A,B,C) of
 * ρ^i_A ∂_i C^D_BC + C^D_AF C^F_BC = 0 (docs/theory.md §1.2), evaluated at random points.
 * Returns the largest residual; where one fails, *MESSAGE says which identity, for which
 * sections, its component and the point, at the line of the bracket (or anchor) to look at. */
static double
structure_defect (CmlSystem *sys, char **message)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n;
  g_autoptr (GArray) terms = g_array_new (FALSE, FALSE, sizeof (StructureTerm));
  double worst = 0, worst_value = 0;
  guint worst_term = 0, n_failing = 0;
  guint32 worst_seed = 0;

#define RHO(i, A) md->anchor[(i) * n + (A)]
#define CC(A, B, C) md->bracket[((A) * n + (B)) * n + (C)]
  for (guint i = 0; i < m; i++)
    for (guint A = 0; A < n; A++)
      for (guint B = A + 1; B < n; B++)
        {
          CmlExpr *s = ZERO (ctx);
          for (guint j = 0; j < m; j++)
            {
              s = madd (ctx, s, RHO (j, A), cml_expr_diff (ctx, RHO (i, B), md->base_sym[j]));
              s = cml_expr_sub (ctx, s, cml_expr_mul (ctx, RHO (j, B), cml_expr_diff (ctx, RHO (i, A), md->base_sym[j])));
            }
          for (guint C = 0; C < n; C++)
            s = cml_expr_sub (ctx, s, cml_expr_mul (ctx, RHO (i, C), CC (A, B, C)));
          if (!cml_expr_is_zero (s))
            g_array_append_val (terms, ((StructureTerm) { s, FALSE, A, B, 0, i }));
        }
  for (guint A = 0; A < n; A++)
    for (guint B = A + 1; B < n; B++)
      for (guint C = B + 1; C < n; C++)
        for (guint D = 0; D < n; D++)
          {
            guint idx[3][3] = { { A, B, C }, { B, C, A }, { C, A, B } };
            CmlExpr *s = ZERO (ctx);
            for (guint c = 0; c < 3; c++)
              {
                guint a = idx[c][0], b = idx[c][1], cc = idx[c][2];
                for (guint i = 0; i < m; i++)
                  s = madd (ctx, s, RHO (i, a), cml_expr_diff (ctx, CC (b, cc, D), md->base_sym[i]));
                for (guint F = 0; F < n; F++)
                  s = madd (ctx, s, CC (a, F, D), CC (b, cc, F));
              }
            if (!cml_expr_is_zero (s))
              g_array_append_val (terms, ((StructureTerm) { s, TRUE, A, B, C, D }));
          }
#undef RHO
#undef CC
  {
    g_autofree gboolean *fails = g_new0 (gboolean, MAX (terms->len, 1));
    for (guint32 seed = 1; seed <= 20 && terms->len; seed++)
      {
        g_autofree double *v = make_sample (sys, seed);
        for (guint k = 0; k < terms->len; k++)
          {
            double x = cml_expr_eval (g_array_index (terms, StructureTerm, k).e, v);
            if (!(fabs (x) < 1e-9))
              fails[k] = TRUE;
            if (fabs (x) > worst)
              {
                worst = fabs (x);
                worst_value = x;
                worst_term = k;
                worst_seed = seed;
              }
          }
      }
    for (guint k = 0; k < terms->len; k++)
      n_failing += fails[k];
  }
  if (message && !(worst < 1e-9))
    {
      const StructureTerm *st = &g_array_index (terms, StructureTerm, worst_term);
      const char *const *sec = (const char *const *) md->sections;
      g_autofree double *v = make_sample (sys, worst_seed);
      g_autofree char *at = base_point_text (md, v);
      g_autofree char *where = m ? g_strdup_printf ("at the sample point %s", at) : g_strdup ("(the bracket's coefficients are constant)");
      g_autofree char *others = n_failing > 2   ? g_strdup_printf ("; %u other equations fail too", n_failing - 1)
                                : n_failing == 2 ? g_strdup ("; one other equation fails too")
                                                 : g_strdup ("");
      GString *s = g_string_new (NULL);
      int line;
      if (!st->jacobi)
        {
          /* the bracket [[e_A, e_B]] if the model gives one, else the anchor of e_B (or e_A) */
          line = bracket_line (md, st->A, st->B);
          if (line == 0)
            line = cml_model_line (md, "anchor", sec[st->B]);
          if (line == 0)
            line = cml_model_line (md, "anchor", sec[st->A]);
          g_string_append_printf (s, "the anchor is not a bracket morphism for %s, %s: [ρ(%s), ρ(%s)] − ρ([[%s, %s]]) "
                                     "has d/d%s component %.6g (it must be 0) %s",
                                  sec[st->A], sec[st->B], sec[st->A], sec[st->B], sec[st->A], sec[st->B],
                                  md->base[st->comp], worst_value, where);
        }
      else
        {
          line = first_line (first_line (bracket_line (md, st->A, st->B), bracket_line (md, st->B, st->C)),
                             bracket_line (md, st->C, st->A));
          g_string_append_printf (s, "the Jacobi identity fails for %s, %s, %s: [[%s, [[%s, %s]]]] + [[%s, [[%s, %s]]]] + "
                                     "[[%s, [[%s, %s]]]] has %s component %.6g (it must be 0) %s",
                                  sec[st->A], sec[st->B], sec[st->C], sec[st->A], sec[st->B], sec[st->C],
                                  sec[st->B], sec[st->C], sec[st->A], sec[st->C], sec[st->A], sec[st->B],
                                  sec[st->comp], worst_value, where);
        }
      if (line == 0)
        line = cml_model_line (md, st->jacobi ? "brackets" : "anchor", NULL);
      *message = g_strdup_printf ("%s:%d: the structure equations of a Lie algebroid fail: %s%s; running it as "
                                  "a general algebroid (in the sense of Grabowska and Grabowski, 2008)",
                                  md->path, MAX (line, 1), s->str, others);
      g_string_free (s, TRUE);
    }
  return worst;
}

/* The name of the matrix that fixes the kernel accelerations of a singular Lagrangian. */
#define KAPPA_MATRIX "of the kernel accelerations (the SODE condition)"

/* Records PIVOT, which must not vanish, as belonging to the matrix MATRIX. */
static void
add_pivot (CmlSystem *sys, CmlExpr *pivot, const char *matrix)
{
  g_ptr_array_add (sys->pivots, pivot);
  g_ptr_array_add (sys->pivot_names, (gpointer) matrix);
}

/* ---- common pieces ------------------------------------------------------------------ */

typedef struct
{
  CmlExpr **xdot; /* m: ρ y */
  CmlExpr **Ly;   /* n: ∂L/∂y */
  CmlExpr **W;    /* n×n */
  CmlExpr **R;    /* n */
} Mechanics;

static void
mechanics_init (CmlSystem *sys, Mechanics *mc)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n;
  CmlExpr *L = md->lagrangian;

  mc->xdot = g_new (CmlExpr *, MAX (m, 1));
  mc->Ly = g_new (CmlExpr *, n);
  mc->W = g_new (CmlExpr *, n * n);
  mc->R = g_new (CmlExpr *, n);
  for (guint i = 0; i < m; i++)
    {
      mc->xdot[i] = ZERO (ctx);
      for (guint A = 0; A < n; A++)
        mc->xdot[i] = madd (ctx, mc->xdot[i], md->anchor[i * n + A], sym (ctx, md->fibre_sym[A]));
    }
  for (guint A = 0; A < n; A++)
    mc->Ly[A] = cml_expr_diff (ctx, L, md->fibre_sym[A]);
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      mc->W[A * n + B] = cml_expr_diff (ctx, mc->Ly[A], md->fibre_sym[B]);
  for (guint A = 0; A < n; A++)
    {
      /* R_A = ρ^i_A L_x^i − C^C_AB y^B L_y^C − L_{y^A x^i} ẋ^i − L_{y^A t} */
      CmlExpr *r = ZERO (ctx);
      for (guint i = 0; i < m; i++)
        r = madd (ctx, r, md->anchor[i * n + A], cml_expr_diff (ctx, L, md->base_sym[i]));
      for (guint B = 0; B < n; B++)
        for (guint C = 0; C < n; C++)
          {
            CmlExpr *c = md->bracket[(A * n + B) * n + C];
            if (!cml_expr_is_zero (c))
              r = cml_expr_sub (ctx, r, cml_expr_mul (ctx, c, cml_expr_mul (ctx, sym (ctx, md->fibre_sym[B]), mc->Ly[C])));
          }
      for (guint i = 0; i < m; i++)
        r = cml_expr_sub (ctx, r, cml_expr_mul (ctx, cml_expr_diff (ctx, mc->Ly[A], md->base_sym[i]), mc->xdot[i]));
      r = cml_expr_sub (ctx, r, cml_expr_diff (ctx, mc->Ly[A], md->t_sym));
      mc->R[A] = r;
    }
}

static void
mechanics_clear (Mechanics *mc)
{
  g_free (mc->xdot);
  g_free (mc->Ly);
  g_free (mc->W);
  g_free (mc->R);
}

/* ---- (a) Euler–Lagrange ------------------------------------------------------------ */

static gboolean
derive_euler_lagrange (CmlSystem *sys, Mechanics *mc, const double *sample, GError **error)
{
  CmlModel *md = sys->model;
  guint m = md->m, n = md->n;
  g_autofree CmlExpr **ydot = g_new (CmlExpr *, n);
  g_autofree CmlExpr **piv = g_new (CmlExpr *, n);

  if (!cml_symsolve (sys->ctx, n, mc->W, 1, mc->R, sample, ydot, piv, NULL))
    return FALSE; /* singular: the caller runs the constraint algorithm */
  for (guint i = 0; i < m; i++)
    sys->rhs[i] = mc->xdot[i];
  for (guint A = 0; A < n; A++)
    {
      sys->rhs[m + A] = ydot[A];
      add_pivot (sys, piv[A], "W = ∂²L/∂y∂y");
    }
  sys->reg_name = "W = ∂²L/∂y∂y";
  sys->reg_rows = n;
  sys->reg = g_memdup2 (mc->W, n * n * sizeof (CmlExpr *));
  for (guint A = 0; A < n * n; A++)
    g_ptr_array_add (sys->fb, mc->W[A]);
  for (guint A = 0; A < n; A++)
    g_ptr_array_add (sys->fb, mc->R[A]);
  return TRUE;
}

/* ---- messages on singular regularity matrices -------------------------------------- */

/* A unit vector of the numeric kernel of the r×r matrix M (the right singular vector of
 * the smallest singular value) into KER. */
static void
numeric_kernel_vector (guint r, const double *M, double *ker)
{
  gsl_matrix *A = gsl_matrix_alloc (r, r), *V = gsl_matrix_alloc (r, r);
  gsl_vector *S = gsl_vector_alloc (r), *wk = gsl_vector_alloc (r);
  for (guint a = 0; a < r * r; a++)
    gsl_matrix_set (A, a / r, a % r, isfinite (M[a]) ? M[a] : 0);
  gsl_linalg_SV_decomp (A, V, S, wk);
  for (guint a = 0; a < r; a++)
    ker[a] = gsl_matrix_get (V, a, r - 1);
  gsl_matrix_free (A);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (wk);
}

/* The line of nonholonomic constraint A (its own line, else the [constraints] header). */
static int
constraint_line (CmlSystem *sys, guint a)
{
  CmlNamedExpr *ne = sys->model->constraints->pdata[a];
  int line = ne->line > 0 ? ne->line : cml_model_line (sys->model, "constraints", ne->name);
  return line > 0 ? line : sys->model->constraints_line;
}

/* C = Φ_y W⁻¹ Φ_yᵀ is singular at the sample point: either a constraint's velocity
 * gradient is a combination of the earlier ones' (a dependent constraint: name it and
 * those it depends on), or the constraints are independent and W is degenerate on them
 * (name the constraints of C's kernel).  Points at the line of the constraint. */
static gboolean
fail_singular_C (CmlSystem *sys, CmlExpr *const *Phy, CmlExpr *const *Cm, const double *sample, GError **error)
{
  CmlModel *md = sys->model;
  guint n = md->n, s = md->constraints->len;
  g_autofree double *P = g_new (double, s * n);
  g_autofree double *Q = g_new (double, s * n); /* orthonormal rows of the independent ones */
  g_autofree guint *indep = g_new (guint, s);
  guint q = 0;
#define CNAME(a) (((CmlNamedExpr *) md->constraints->pdata[a])->name)

  for (guint a = 0; a < s * n; a++)
    P[a] = cml_expr_is_zero (Phy[a]) ? 0 : cml_expr_eval (Phy[a], sample);
  for (guint a = 0; a < s; a++)
    {
      double norm0 = 0, norm = 0;
      double *v = Q + q * n;
      for (guint A = 0; A < n; A++)
        {
          v[A] = P[a * n + A];
          norm0 += v[A] * v[A];
        }
      for (guint b = 0; b < q; b++)
        {
          double d = 0;
          for (guint A = 0; A < n; A++)
            d += Q[b * n + A] * v[A];
          for (guint A = 0; A < n; A++)
            v[A] -= d * Q[b * n + A];
        }
      for (guint A = 0; A < n; A++)
        norm += v[A] * v[A];
      if (norm0 == 0)
        return fail_model (sys, error, constraint_line (sys, a), CML_ERROR_SINGULAR,
                           "the regularity matrix C = Φ_y W⁻¹ Φ_yᵀ is singular: the constraint %s does not depend on "
                           "the velocities at the sample point (its gradient Φ_y is 0 there): write it so that it "
                           "involves the velocities everywhere",
                           CNAME (a));
      if (!(norm > 1e-18 * norm0))
        {
          /* dependent: the earlier constraints with a nonzero share in the combination */
          g_autofree double *G = g_new (double, MAX (q * q, 1));
          g_autofree double *c = g_new (double, MAX (q, 1));
          GString *names = g_string_new (NULL);
          for (guint i = 0; i < q; i++)
            {
              c[i] = 0;
              for (guint A = 0; A < n; A++)
                c[i] += P[indep[i] * n + A] * P[a * n + A];
              for (guint j = 0; j < q; j++)
                {
                  double d = 0;
                  for (guint A = 0; A < n; A++)
                    d += P[indep[i] * n + A] * P[indep[j] * n + A];
                  G[i * q + j] = d;
                }
            }
          if (q && cml_small_solve (q, G, c, 1e-14))
            for (guint i = 0; i < q; i++)
              if (fabs (c[i]) > 1e-9)
                g_string_append_printf (names, "%s%s", names->len ? ", " : "", CNAME (indep[i]));
          gboolean ok = fail_model (sys, error, constraint_line (sys, a), CML_ERROR_SINGULAR,
                                    "the regularity matrix C = Φ_y W⁻¹ Φ_yᵀ is singular: the constraint %s depends on %s "
                                    "(its gradient in the velocities, Φ_y, is a combination of theirs at the sample point): "
                                    "remove it, or replace it by a constraint independent of the others",
                                    CNAME (a), names->len ? names->str : "the others");
          g_string_free (names, TRUE);
          return ok;
        }
      for (guint A = 0; A < n; A++)
        v[A] /= sqrt (norm);
      indep[q++] = a;
    }
  {
    /* independent constraints: W is degenerate on the directions they constrain */
    g_autofree double *Cv = g_new (double, s * s);
    g_autofree double *ker = g_new (double, s);
    GString *names = g_string_new (NULL);
    double big = 0;
    int first = -1;
    for (guint a = 0; a < s * s; a++)
      Cv[a] = cml_expr_is_zero (Cm[a]) ? 0 : cml_expr_eval (Cm[a], sample);
    numeric_kernel_vector (s, Cv, ker);
    for (guint a = 0; a < s; a++)
      big = MAX (big, fabs (ker[a]));
    for (guint a = 0; a < s; a++)
      if (fabs (ker[a]) > 1e-6 * big)
        {
          if (first < 0)
            first = a;
          g_string_append_printf (names, "%s%s", names->len ? ", " : "", CNAME (a));
        }
    gboolean ok = fail_model (sys, error, constraint_line (sys, MAX (first, 0)), CML_ERROR_SINGULAR,
                              "the regularity matrix C = Φ_y W⁻¹ Φ_yᵀ is singular: the constraints are independent, but "
                              "W = ∂²L/∂y∂y is degenerate on the %s that %s %s (C vanishes there at the sample point, so "
                              "no reaction force can keep the motion on the constraints): change the %s or the "
                              "Lagrangian so that C is invertible",
                              strchr (names->str, ',') ? "directions" : "direction", names->str,
                              strchr (names->str, ',') ? "constrain together" : "constrains",
                              strchr (names->str, ',') ? "constraints" : "constraint");
    g_string_free (names, TRUE);
    return ok;
  }
#undef CNAME
}

/* The vakonomic R_ab (NF×NF, over the free velocities FREE_IDX) is singular at the sample
 * point: name the free velocities along its kernel — the cost with the constraints Ψ
 * substituted does not depend quadratically on them — and point at the first constraint
 * that involves one of them (else at the Lagrangian). */
static gboolean
fail_singular_Rab (CmlSystem *sys, CmlExpr *const *Rab, guint nf, const guint *free_idx, CmlExpr *const *psi,
                   const double *sample, GError **error)
{
  CmlModel *md = sys->model;
  g_autofree double *Rv = g_new (double, MAX (nf * nf, 1));
  g_autofree double *ker = g_new (double, MAX (nf, 1));
  g_autoptr (GString) dir = g_string_new (NULL);
  g_autoptr (GString) names = g_string_new (NULL);
  g_autofree char *first_name = NULL;
  double big = 0;
  guint count = 0;
  int line = 0;

  for (guint a = 0; a < nf * nf; a++)
    Rv[a] = cml_expr_is_zero (Rab[a]) ? 0 : cml_expr_eval (Rab[a], sample);
  numeric_kernel_vector (nf, Rv, ker);
  for (guint a = 0; a < nf; a++)
    big = MAX (big, fabs (ker[a]));
  for (guint a = 0; a < nf; a++)
    {
      double c = ker[a] / (big > 0 ? big : 1);
      const char *nm = md->fibre[free_idx[a]];
      if (!(fabs (c) > 1e-6))
        continue;
      count++;
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", nm);
      if (dir->len)
        g_string_append_printf (dir, " %s %.3g*%s", c < 0 ? "-" : "+", fabs (c), nm);
      else
        g_string_append_printf (dir, "%.3g*%s", c, nm);
      for (guint al = 0; al < md->constraints->len && line == 0; al++)
        if (cml_expr_depends_on (psi[al], md->fibre_sym[free_idx[a]]))
          {
            CmlNamedExpr *ne = md->constraints->pdata[al];
            line = ne->line > 0 ? ne->line : cml_model_line (md, "constraints", ne->name);
          }
    }
  if (line == 0)
    line = md->lagrangian_line;
  g_autofree char *what = count == 1 ? g_strdup_printf ("the free velocity %s", names->str)
                                     : g_strdup_printf ("the combination %s of the free velocities %s", dir->str,
                                                        names->str);
  return fail_model (sys, error, line, CML_ERROR_SINGULAR,
                     "the vakonomic regularity matrix R_ab is singular: with the constraints substituted, the "
                     "Lagrangian does not depend quadratically on %s (R_ab vanishes along it at the sample point), so "
                     "the momenta do not determine it: make the Lagrangian depend on every free velocity "
                     "(a term %s^2/2, say) or constrain it too; the system is not regular (Iglesias, Marrero, "
                     "Martín de Diego and Sosa 2008, Prop. 5.3)",
                     what, count == 1 ? names->str : "u");
}

/* ---- (b) Lagrange–d'Alembert ------------------------------------------------------- */

static gboolean
derive_nonholonomic (CmlSystem *sys, Mechanics *mc, const double *sample, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n, s = md->constraints->len;
  g_autofree CmlExpr **rhsW = g_new (CmlExpr *, n * (1 + s));
  g_autofree CmlExpr **solW = g_new (CmlExpr *, n * (1 + s));
  g_autofree CmlExpr **pivW = g_new (CmlExpr *, n);
  g_autofree CmlExpr **Phy = g_new (CmlExpr *, s * n);
  g_autofree CmlExpr **Cm = g_new (CmlExpr *, s * s);
  g_autofree CmlExpr **b = g_new (CmlExpr *, s);
  g_autofree CmlExpr **lam = g_new (CmlExpr *, s);
  g_autofree CmlExpr **pivC = g_new (CmlExpr *, s);

  /* Φ_y, and the right-hand sides [R | Φ_yᵀ] of W */
  for (guint a = 0; a < s; a++)
    for (guint A = 0; A < n; A++)
      Phy[a * n + A] = cml_expr_diff (ctx, ((CmlNamedExpr *) md->constraints->pdata[a])->expr, md->fibre_sym[A]);
  for (guint A = 0; A < n; A++)
    {
      rhsW[A * (1 + s)] = mc->R[A];
      for (guint a = 0; a < s; a++)
        rhsW[A * (1 + s) + 1 + a] = Phy[a * n + A];
    }
  /* ẏ_free = W⁻¹R and Z = W⁻¹Φ_yᵀ in one elimination */
  if (!cml_symsolve (ctx, n, mc->W, 1 + s, rhsW, sample, solW, pivW, NULL))
    return fail_model (sys, error, md->lagrangian_line, CML_ERROR_SINGULAR,
                       "the Lagrangian is singular (det W = 0); nonholonomic constraints need a regular Lagrangian");
  /* C = Φ_y Z */
  for (guint a = 0; a < s; a++)
    for (guint c = 0; c < s; c++)
      {
        CmlExpr *e = ZERO (ctx);
        for (guint A = 0; A < n; A++)
          e = madd (ctx, e, Phy[a * n + A], solW[A * (1 + s) + 1 + c]);
        Cm[a * s + c] = e;
      }
  /* b = Φ_x ẋ + Φ_y ẏ_free + φ_t  (the time derivative of φ along the free motion) */
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      CmlExpr *e = cml_expr_diff (ctx, phi, md->t_sym);
      for (guint i = 0; i < m; i++)
        e = madd (ctx, e, cml_expr_diff (ctx, phi, md->base_sym[i]), mc->xdot[i]);
      for (guint A = 0; A < n; A++)
        e = madd (ctx, e, Phy[a * n + A], solW[A * (1 + s)]);
      b[a] = e;
    }
  /* λ = −C⁻¹ b */
  if (!cml_symsolve (ctx, s, Cm, 1, b, sample, lam, pivC, NULL))
    return fail_singular_C (sys, Phy, Cm, sample, error);
  /* ẏ = ẏ_free − Z C⁻¹ b */
  for (guint i = 0; i < m; i++)
    sys->rhs[i] = mc->xdot[i];
  for (guint A = 0; A < n; A++)
    {
      CmlExpr *e = solW[A * (1 + s)];
      for (guint a = 0; a < s; a++)
        e = cml_expr_sub (ctx, e, cml_expr_mul (ctx, solW[A * (1 + s) + 1 + a], lam[a]));
      sys->rhs[m + A] = e;
    }
  for (guint A = 0; A < n; A++)
    add_pivot (sys, pivW[A], "W = ∂²L/∂y∂y");
  for (guint a = 0; a < s; a++)
    add_pivot (sys, pivC[a], "C = Φ_y W⁻¹ Φ_yᵀ");
  sys->reg_name = "C = Φ_y W⁻¹ Φ_yᵀ";
  sys->reg_rows = s;
  sys->reg = g_memdup2 (Cm, s * s * sizeof (CmlExpr *));
  for (guint A = 0; A < n * n; A++)
    g_ptr_array_add (sys->fb, mc->W[A]);
  for (guint A = 0; A < n; A++)
    g_ptr_array_add (sys->fb, mc->R[A]);
  for (guint a = 0; a < s * n; a++)
    g_ptr_array_add (sys->fb, Phy[a]);
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      CmlExpr *e = cml_expr_diff (ctx, phi, md->t_sym);
      for (guint i = 0; i < m; i++)
        e = madd (ctx, e, cml_expr_diff (ctx, phi, md->base_sym[i]), mc->xdot[i]);
      g_ptr_array_add (sys->fb, e);
    }
  sys->fb_s = s;
  /* projection keeps φ = 0 by moving the fibre coordinates */
  for (guint a = 0; a < s; a++)
    g_ptr_array_add (sys->h, ((CmlNamedExpr *) md->constraints->pdata[a])->expr);
  sys->movable_from = m;
  sys->movable_to = m + n;
  return TRUE;
}

/* ---- (c) vakonomic ----------------------------------------------------------------- */

/* ŷ (the free velocities YFREE and Ψ of them) into YHAT (n), and the vakonomic equations
 *   ẋ^i = ρ^i_A ŷ^A,   ṗ_A = ρ^i_A (∂L̃/∂x^i − p_α ∂Ψ^α/∂x^i) − C^B_AD p_B ŷ^D
 * (partials at fixed y^a) into RHS (m + n). */
static void
yhat_and_rhs (CmlSystem *sys, const int *is_con, const guint *free_idx, CmlExpr *const *psi, CmlExpr *Lt,
              CmlExpr *const *yfree, CmlExpr **yhat, CmlExpr **rhs)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n, k = md->constraints->len, nf = n - k;

  g_autofree int *fsyms = g_new (int, nf);
  for (guint a = 0; a < nf; a++)
    fsyms[a] = md->fibre_sym[free_idx[a]];
  for (guint a = 0; a < nf; a++)
    yhat[free_idx[a]] = yfree[a];
  for (guint A = 0; A < n; A++)
    if (is_con[A])
      yhat[A] = cml_expr_subs (ctx, psi[is_con[A] - 1], nf, fsyms, yfree);

  /* ẋ^i = ρ^i_A ŷ^A */
  for (guint i = 0; i < m; i++)
    {
      CmlExpr *e = ZERO (ctx);
      for (guint A = 0; A < n; A++)
        e = madd (ctx, e, md->anchor[i * n + A], yhat[A]);
      rhs[i] = e;
    }
  /* ṗ_A = ρ^i_A (∂L̃/∂x^i − p_α ∂Ψ^α/∂x^i) − C^B_AD p_B ŷ^D   (partials at fixed y^a) */
  for (guint A = 0; A < n; A++)
    {
      CmlExpr *e = ZERO (ctx);
      for (guint i = 0; i < m; i++)
        {
          if (cml_expr_is_zero (md->anchor[i * n + A]))
            continue;
          CmlExpr *g = cml_expr_diff (ctx, Lt, md->base_sym[i]);
          for (guint B = 0; B < n; B++)
            if (is_con[B])
              g = cml_expr_sub (ctx, g, cml_expr_mul (ctx, sym (ctx, md->momenta_sym[B]),
                                                      cml_expr_diff (ctx, psi[is_con[B] - 1], md->base_sym[i])));
          g = cml_expr_subs (ctx, g, nf, fsyms, yfree);
          e = madd (ctx, e, md->anchor[i * n + A], g);
        }
      for (guint D = 0; D < n; D++)
        for (guint B = 0; B < n; B++)
          {
            CmlExpr *c = md->bracket[(A * n + D) * n + B];
            if (!cml_expr_is_zero (c))
              e = cml_expr_sub (ctx, e, cml_expr_mul (ctx, c, cml_expr_mul (ctx, sym (ctx, md->momenta_sym[B]), yhat[D])));
          }
      rhs[m + A] = e;
    }

}

static gboolean
derive_vakonomic (CmlSystem *sys, const double *sample, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n, k = md->constraints->len, nf = n - k;
  g_autofree int *is_con = g_new0 (int, n);     /* index into constraints + 1, or 0 */
  g_autofree guint *free_idx = g_new (guint, nf);
  g_autofree int *con_sym = g_new (int, k);
  g_autofree CmlExpr **psi = g_new (CmlExpr *, k);
  g_autofree CmlExpr **F = g_new (CmlExpr *, nf);
  g_autofree CmlExpr **Rab = g_new (CmlExpr *, nf * nf);
  g_autofree CmlExpr **yfree = g_new (CmlExpr *, nf);
  g_autofree CmlExpr **yhat = g_new (CmlExpr *, n);
  CmlExpr *Lt;
  gboolean linear = TRUE;

  for (guint a = 0; a < k; a++)
    {
      CmlNamedExpr *ne = md->constraints->pdata[a];
      for (guint A = 0; A < n; A++)
        if (md->fibre_sym[A] == ne->sym)
          is_con[A] = a + 1;
      con_sym[a] = ne->sym;
      psi[a] = ne->expr;
    }
  for (guint A = 0, j = 0; A < n; A++)
    if (!is_con[A])
      free_idx[j++] = A;

  /* L̃ = L(x, y^a, Ψ(x, y^a)) */
  Lt = cml_expr_subs (ctx, md->lagrangian, k, con_sym, psi);

  /* F_a and R_ab */
  for (guint a = 0; a < nf; a++)
    {
      int ya = md->fibre_sym[free_idx[a]];
      CmlExpr *e = cml_expr_sub (ctx, sym (ctx, md->momenta_sym[free_idx[a]]), cml_expr_diff (ctx, Lt, ya));
      for (guint al = 0; al < k; al++)
        {
          guint Aal = 0;
          for (guint A = 0; A < n; A++)
            if (is_con[A] == (int) al + 1)
              Aal = A;
          e = madd (ctx, e, sym (ctx, md->momenta_sym[Aal]), cml_expr_diff (ctx, psi[al], ya));
        }
      F[a] = e;
    }
  for (guint a = 0; a < nf; a++)
    for (guint b = 0; b < nf; b++)
      Rab[a * nf + b] = cml_expr_neg (ctx, cml_expr_diff (ctx, F[a], md->fibre_sym[free_idx[b]]));
  for (guint a = 0; a < nf * nf; a++)
    for (guint b = 0; b < nf; b++)
      if (cml_expr_depends_on (Rab[a], md->fibre_sym[free_idx[b]]))
        linear = FALSE;

  sys->reg_name = "R_ab = ∂²L̃/∂y^a∂y^b − p_α ∂²Ψ^α/∂y^a∂y^b";
  sys->reg_rows = nf;
  sys->reg = g_memdup2 (Rab, nf * nf * sizeof (CmlExpr *));

  if (linear)
    {
      /* F is affine in y: F = F(0) − R y, so y = R⁻¹ F(0) */
      g_autofree CmlExpr **F0 = g_new (CmlExpr *, nf);
      g_autofree CmlExpr **zeros = g_new (CmlExpr *, nf);
      g_autofree int *fsyms = g_new (int, nf);
      g_autofree CmlExpr **piv = g_new (CmlExpr *, nf);
      for (guint a = 0; a < nf; a++)
        {
          zeros[a] = ZERO (ctx);
          fsyms[a] = md->fibre_sym[free_idx[a]];
        }
      for (guint a = 0; a < nf; a++)
        F0[a] = cml_expr_subs (ctx, F[a], nf, fsyms, zeros);
      if (!cml_symsolve (ctx, nf, Rab, 1, F0, sample, yfree, piv, NULL))
        return fail_singular_Rab (sys, Rab, nf, free_idx, psi, sample, error);
      for (guint a = 0; a < nf; a++)
        add_pivot (sys, piv[a], "R_ab");
    }
  else
    {
      /* nonlinear: the free velocities are fast inputs found by Newton's method */
      sys->na = nf;
      sys->aux_sym = g_new (int, nf);
      sys->newton = g_new (CmlExpr *, nf + nf * nf);
      for (guint a = 0; a < nf; a++)
        {
          sys->aux_sym[a] = md->fibre_sym[free_idx[a]];
          yfree[a] = sym (ctx, sys->aux_sym[a]);
          sys->newton[a] = F[a];
        }
      for (guint a = 0; a < nf * nf; a++)
        sys->newton[nf + a] = cml_expr_neg (ctx, Rab[a]);
    }

  /* ŷ: free velocities and Ψ, both in terms of (t, x, p) */
  yhat_and_rhs (sys, is_con, free_idx, psi, Lt, yfree, yhat, sys->rhs);

  /* user expressions see the velocities ŷ */
  sys->n_subs = n;
  sys->subs_ids = g_new (int, n);
  sys->subs_repl = g_new (CmlExpr *, n);
  for (guint A = 0; A < n; A++)
    {
      sys->subs_ids[A] = md->fibre_sym[A];
      sys->subs_repl[A] = yhat[A];
    }

  if (linear)
    {
      /* the numeric fallback (a pivot of R_ab chosen at the sample point may vanish where
       * R_ab does not): R_ab and F(0) evaluated and solved by LU, then the same equations
       * with the free velocities as inputs */
      g_autofree CmlExpr **ysym = g_new (CmlExpr *, nf);
      g_autofree CmlExpr **rhs_sym = g_new (CmlExpr *, m + n);
      for (guint a = 0; a < nf * nf; a++)
        g_ptr_array_add (sys->fb, Rab[a]);
      {
        g_autofree int *fsyms = g_new (int, nf);
        g_autofree CmlExpr **zeros = g_new (CmlExpr *, nf);
        for (guint a = 0; a < nf; a++)
          {
            fsyms[a] = md->fibre_sym[free_idx[a]];
            zeros[a] = ZERO (ctx);
          }
        for (guint a = 0; a < nf; a++)
          g_ptr_array_add (sys->fb, cml_expr_subs (ctx, F[a], nf, fsyms, zeros));
      }
      sys->fb_vak_nf = nf;
      sys->fb_aux_sym = g_new (int, MAX (nf, 1));
      sys->fb_yhat = g_new (CmlExpr *, n);
      for (guint a = 0; a < nf; a++)
        {
          sys->fb_aux_sym[a] = md->fibre_sym[free_idx[a]];
          ysym[a] = sym (ctx, sys->fb_aux_sym[a]);
        }
      yhat_and_rhs (sys, is_con, free_idx, psi, Lt, ysym, sys->fb_yhat, rhs_sym);
      sys->fb2 = g_ptr_array_new ();
      for (guint i = 0; i < m + n; i++)
        g_ptr_array_add (sys->fb2, rhs_sym[i]);
    }
  return TRUE;
}

/* ---- (d) the constraint algorithm -------------------------------------------------- */

/* Gauss–Newton projection of the point V (values by symbol id) onto {G = 0}, moving the
 * symbols in MOVE (n_move of them).  G and its Jacobian are compiled into one register
 * program: a tree walk of derived constraints that share much costs milliseconds per
 * evaluation, and the projection needs thousands. */
static gboolean
project_sample (CmlSystem *sys, GPtrArray *G, const int *move, guint n_move, double *v)
{
  CmlExprCtx *ctx = sys->ctx;
  guint k = G->len, ns = cml_expr_ctx_n_symbols (ctx);
  g_autofree double *A = g_new (double, MAX (k * k, 1));
  g_autofree double *h = g_new (double, MAX (k, 1));
  g_autofree double *out = g_new (double, k + k * n_move + 1);
  g_autofree double *regs = NULL;
  g_autofree int *ids = g_new (int, MAX (ns, 1));
  g_autoptr (GPtrArray) outs = g_ptr_array_new ();
  g_autoptr (CmlProgram) prog = NULL;
  const double *J = out + k;

  for (guint i = 0; i < ns; i++)
    ids[i] = (int) i;
  for (guint a = 0; a < k; a++)
    g_ptr_array_add (outs, G->pdata[a]);
  for (guint a = 0; a < k; a++)
    for (guint j = 0; j < n_move; j++)
      g_ptr_array_add (outs, cml_expr_diff (ctx, G->pdata[a], move[j]));
  prog = cml_program_compile (ctx, (CmlExpr **) outs->pdata, outs->len, NULL, 0, ids, ns, NULL);
  if (prog == NULL)
    return FALSE;
  regs = g_new0 (double, cml_program_n_registers (prog) + 1);
  cml_program_prepare (prog, NULL, regs);

  for (int it = 0; it < 50; it++)
    {
      double hn = 0;
      cml_program_run (prog, v, regs, out);
      for (guint a = 0; a < k; a++)
        {
          h[a] = out[a];
          hn = MAX (hn, fabs (h[a]));
        }
      if (hn < 1e-13)
        return TRUE;
      if (!isfinite (hn))
        return FALSE;
      for (guint a = 0; a < k; a++)
        for (guint b = 0; b < k; b++)
          {
            double s = 0;
            for (guint j = 0; j < n_move; j++)
              s += J[a * n_move + j] * J[b * n_move + j];
            A[a * k + b] = s + (a == b ? 1e-14 : 0);
          }
      if (!cml_small_solve (k, A, h, 1e-15))
        return FALSE;
      for (guint j = 0; j < n_move; j++)
        {
          double s = 0;
          for (guint a = 0; a < k; a++)
            s += J[a * n_move + j] * h[a];
          v[move[j]] -= s;
        }
    }
  return FALSE;
}

/* Three random points projected onto {G = 0}, made again only when G has grown: every
 * question "does H vanish there?" of one stage of the algorithm uses the same points. */
#define N_SAMPLES 3

typedef struct
{
  guint   n_g;                /* G->len they were made for; G_MAXUINT: none yet */
  double *v[N_SAMPLES];       /* NULL: that point could not be projected */
} Samples;

static void
samples_clear (Samples *S)
{
  for (guint s = 0; s < N_SAMPLES; s++)
    g_clear_pointer (&S->v[s], g_free);
  S->n_g = G_MAXUINT;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Samples, samples_clear)

static void samples_ensure (CmlSystem *sys, GPtrArray *G, const int *move, guint n_move, Samples *S);

/* Does H vanish on {G = 0}?  Checked at the three projected random points of S. */
static gboolean
vanishes_on (CmlSystem *sys, CmlExpr *H, GPtrArray *G, const int *move, guint n_move, Samples *S)
{
  if (cml_expr_is_zero (H))
    return TRUE;
  samples_ensure (sys, G, move, n_move, S);
  for (guint s = 0; s < N_SAMPLES; s++)
    {
      if (S->v[s] == NULL)
        return FALSE;
      double hv = cml_expr_eval (H, S->v[s]);
      if (!(fabs (hv) < 1e-9))
        return FALSE;
    }
  return TRUE;
}

/* Makes the sample points of S for G unless they are up to date. */
static void
samples_ensure (CmlSystem *sys, GPtrArray *G, const int *move, guint n_move, Samples *S)
{
  if (S->n_g != G->len)
    {
      samples_clear (S);
      for (guint s = 0; s < N_SAMPLES; s++)
        {
          double *v = make_sample (sys, 101 + s);
          if (G->len && !project_sample (sys, G, move, n_move, v))
            g_clear_pointer (&v, g_free);
          S->v[s] = v;
        }
      S->n_g = G->len;
    }
}

/* Expressions shown to people (the steps of the algorithm, the description) are cut after
 * this many characters, ending "… (about N more characters)": derived equations share
 * subexpressions, which print at every use, and a 500-byte model once described itself in
 * 21.5 MB.  The longest line of a built-in model's description has about 650. */
#define DESCRIBE_MAX_CHARS 2000

/* Removes from TEXT, in place, the factors 1 that a coefficient rounded to 1 leaves in
 * print ("1*(u + v)", "1*u"; typeset "1(u + v)", "1u"): a number 1 standing alone, after
 * the start, a space, "(", ",", "{" or a minus, and before "*" (plain) or a name or "("
 * (typeset).  Returns TEXT. */
static char *
drop_unit_factors (char *text, gboolean pretty)
{
  char *out = text;
  for (const char *p = text; *p;)
    {
      gboolean alone = p == text || strchr (" (,{-", p[-1]) != NULL
                       || (p - text >= 3 && strncmp (p - 3, "−", 3) == 0);
      if (*p == '1' && alone)
        {
          if (!pretty && p[1] == '*' && p[2] != '*')
            {
              p += 2;
              continue;
            }
          if (pretty && (g_ascii_isalpha (p[1]) || p[1] == '(' || ((guchar) p[1] >= 0xc0 && strncmp (p + 1, "×", 2) != 0)))
            {
              p += 1;
              continue;
            }
        }
      *out++ = *p++;
    }
  *out = '\0';
  return text;
}

static char *
print_constraint (CmlSystem *sys, CmlExpr *g)
{
  g_autofree char *s = drop_unit_factors (cml_expr_to_string_max (sys->ctx, cml_expr_monic (sys->ctx, g, NULL),
                                                                  DESCRIBE_MAX_CHARS), FALSE);
  return g_strdup_printf ("%s = 0", s);
}

/* DG with the kernel multipliers set to 0: used once their coefficients are known to
 * vanish on the constraint set, so a new constraint is a function of (t, x, y) only. */
static CmlExpr *
drop_multipliers (CmlSystem *sys, CmlExpr *dg, const int *vsym, guint k)
{
  g_autofree CmlExpr **zeros = g_new (CmlExpr *, MAX (k, 1));
  for (guint j = 0; j < k; j++)
    zeros[j] = ZERO (sys->ctx);
  return cml_expr_subs (sys->ctx, dg, k, vsym, zeros);
}

/* The name of state component J as the model writes it (base i is i, fibre A is m + A). */
static const char *
coordinate_name (CmlSystem *sys, guint j)
{
  CmlModel *md = sys->model;
  return j < md->m ? md->base[j] : md->fibre[j - md->m];
}

/* [dynamics] solve-for against the constraints G (functions of t, x, y): one coordinate per
 * constraint, and ∂G/∂(solve-for) invertible at the sample points on {G = 0} (S), so that
 * the initial data can be solved for them.  A bad solve-for fails here, when the model is
 * loaded, with its line. */
static gboolean
check_solve_for (CmlSystem *sys, GPtrArray *G, const int *move, guint n_move, Samples *S, GError **error)
{
  CmlModel *md = sys->model;
  guint k = G->len, q = md->n_solve_for;
  int line = cml_model_line (md, "dynamics", "solve-for");
  g_autoptr (GString) names = g_string_new (NULL);

  for (guint j = 0; j < q; j++)
    g_string_append_printf (names, "%s%s", j ? ", " : "", coordinate_name (sys, md->solve_for[j]));
  if (k == 0)
    return fail_model (sys, error, line, CML_ERROR_MODEL,
                       "solve-for names coordinates the constraints determine, but %s",
                       sys->formalism == CML_FORMALISM_SINGULAR
                         ? "the constraint algorithm found no constraints"
                         : "this Lagrangian is regular (det W ≠ 0) and there are no constraints");
  if (q != k)
    return fail_model (sys, error, line, CML_ERROR_MODEL,
                       "solve-for names %u coordinates for %u constraints (%s)", q, k,
                       sys->formalism == CML_FORMALISM_SINGULAR ? "those the constraint algorithm found; `cmlab-cli info` lists them"
                                                                : "one per constraint");
  samples_ensure (sys, G, move, n_move, S);
  gboolean tried = FALSE;
  for (guint s = 0; s < N_SAMPLES; s++)
    {
      if (S->v[s] == NULL)
        continue;
      tried = TRUE;
      gsl_matrix *Jm = gsl_matrix_alloc (k, k), *V = gsl_matrix_alloc (k, k);
      gsl_vector *sv = gsl_vector_alloc (k), *wk = gsl_vector_alloc (k);
      for (guint a = 0; a < k; a++)
        for (guint j = 0; j < q; j++)
          {
            guint c = md->solve_for[j];
            int symb = c < md->m ? md->base_sym[c] : md->fibre_sym[c - md->m];
            gsl_matrix_set (Jm, a, j, cml_expr_eval (cml_expr_diff (sys->ctx, G->pdata[a], symb), S->v[s]));
          }
      gsl_linalg_SV_decomp (Jm, V, sv, wk);
      double smax = gsl_vector_get (sv, 0), smin = gsl_vector_get (sv, k - 1);
      gsl_matrix_free (Jm);
      gsl_matrix_free (V);
      gsl_vector_free (sv);
      gsl_vector_free (wk);
      if (isfinite (smax) && smin > 1e-10 * smax)
        return TRUE;
    }
  if (!tried)
    return TRUE; /* no point on the constraint set to judge by: the reset will say more */
  return fail_model (sys, error, line, CML_ERROR_MODEL,
                     "the constraints cannot be solved for %s: their Jacobian with respect to these coordinates "
                     "is singular (name coordinates that the constraints determine)",
                     names->str);
}

/* "₁₂" for 12. */
static char *
subscript_digits (guint v)
{
  static const char *const digits[] = { "₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉" };
  g_autofree char *dec = g_strdup_printf ("%u", v);
  GString *s = g_string_new (NULL);
  for (const char *c = dec; *c; c++)
    g_string_append (s, digits[*c - '0']);
  return g_string_free (s, FALSE);
}

/* "x = 0.83, u = 1.2": the coordinates (and t) at the sample point V, for messages. */
static char *
sample_point_text (CmlSystem *sys, const double *v)
{
  CmlModel *md = sys->model;
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "t = %.3g", v[md->t_sym]);
  for (guint i = 0; i < md->m; i++)
    g_string_append_printf (s, ", %s = %.3g", md->base[i], v[md->base_sym[i]]);
  for (guint A = 0; A < md->n; A++)
    g_string_append_printf (s, ", %s = %.3g", md->fibre[A], v[md->fibre_sym[A]]);
  return g_string_free (s, FALSE);
}

/* Whether W K = 0 (K: n×k expressions, column j is K[A * k + j]) at three more random
 * points: the kernel found at the sample point is the kernel everywhere. */
static gboolean
kernel_holds (CmlSystem *sys, Mechanics *mc, CmlExpr *const *K, guint k)
{
  guint n = sys->model->n;
  for (guint32 seed = 11; seed < 14; seed++)
    {
      g_autofree double *sv = make_sample (sys, seed);
      double big = 0, kbig = 0, res = 0;
      for (guint A = 0; A < n; A++)
        for (guint j = 0; j < k; j++)
          kbig = MAX (kbig, fabs (cml_expr_eval (K[A * k + j], sv)));
      for (guint A = 0; A < n; A++)
        for (guint j = 0; j < k; j++)
          {
            double s = 0;
            for (guint B = 0; B < n; B++)
              {
                double w = cml_expr_eval (mc->W[A * n + B], sv);
                big = MAX (big, fabs (w));
                s += w * cml_expr_eval (K[B * k + j], sv);
              }
            res = MAX (res, fabs (s));
          }
      if (!(res <= 1e-9 * MAX (big, 1) * MAX (kbig, 1)))
        return FALSE;
    }
  return TRUE;
}

/* A kernel of W that depends on the point (docs/theory.md §5, step 2, symbolically).  At the
 * sample point S1, complete pivoting picks r rows P and r columns Q of W with W_PQ
 * invertible; the other columns F are free.  Then, W being symmetric,
 *   K_j = e_{F_j} − e_Q W_PQ⁻¹ W_{P,F_j}   spans ker W (left and right),
 *   ẏ_part = e_Q W_PQ⁻¹ R_P               solves W ẏ = R where the K_j·R vanish,
 * one symbolic elimination with the pivots of W_PQ checked at run time like any other.
 * ẏ = ẏ_part + Σ K_j v_j; the primary constraints are G_j = K_j·R. */
static gboolean
kernel_symbolic (CmlSystem *sys, Mechanics *mc, const double *s1, guint r, const int *vsym,
                 CmlExpr **ydot, CmlExpr **gprim, guint *Pout, guint *Qout, guint *Fout, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint n = md->n, k = n - r;
  g_autofree double *T = g_new (double, n * n);
  g_autofree gboolean *row_used = g_new0 (gboolean, n);
  g_autofree gboolean *col_used = g_new0 (gboolean, n);
  g_autofree guint *P = g_new (guint, r);
  g_autofree guint *Q = g_new (guint, r);
  g_autofree guint *F = g_new (guint, MAX (k, 1));
  g_autofree CmlExpr **Wpq = g_new (CmlExpr *, r * r);
  g_autofree CmlExpr **B = g_new (CmlExpr *, r * (1 + k));
  g_autofree CmlExpr **X = g_new (CmlExpr *, r * (1 + k));
  g_autofree CmlExpr **piv = g_new (CmlExpr *, r);
  g_autofree CmlExpr **K = g_new (CmlExpr *, n * MAX (k, 1));
  double scale = 0;

  for (guint a = 0; a < n * n; a++)
    {
      T[a] = cml_expr_eval (mc->W[a], s1);
      scale = MAX (scale, fabs (T[a]));
    }
  /* complete pivoting on the sampled values; an entry that is a number (1, not x) is
   * preferred when it is not much smaller, so that the pivots vanish nowhere */
  for (guint c = 0; c < r; c++)
    {
      guint bi = G_MAXUINT, bj = 0;
      double best = 0;
      for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
          if (!row_used[i] && !col_used[j])
            {
              double score = fabs (T[i * n + j]) * (cml_expr_is_number (mc->W[i * n + j], NULL) ? 4 : 1);
              if (score > best)
                {
                  best = score;
                  bi = i;
                  bj = j;
                }
            }
      if (bi == G_MAXUINT || !(fabs (T[bi * n + bj]) > 1e-10 * scale))
        return fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                           "W = ∂²L/∂y∂y is singular with a rank that changes from point to point");
      P[c] = bi;
      Q[c] = bj;
      row_used[bi] = col_used[bj] = TRUE;
      for (guint i = 0; i < n; i++)
        if (!row_used[i])
          {
            double f = T[i * n + bj] / T[bi * n + bj];
            for (guint j = 0; j < n; j++)
              T[i * n + j] -= f * T[bi * n + j];
          }
    }
  for (guint j = 0, f = 0; j < n; j++)
    if (!col_used[j])
      F[f++] = j;

  /* W_PQ [ẏ_Q | X_F] = [R_P | W_PF] */
  for (guint a = 0; a < r; a++)
    {
      for (guint b = 0; b < r; b++)
        Wpq[a * r + b] = mc->W[P[a] * n + Q[b]];
      B[a * (1 + k)] = mc->R[P[a]];
      for (guint j = 0; j < k; j++)
        B[a * (1 + k) + 1 + j] = mc->W[P[a] * n + F[j]];
    }
  if (!cml_symsolve (ctx, r, Wpq, 1 + k, B, s1, X, piv, NULL))
    return fail_model (sys, error, md->lagrangian_line, CML_ERROR_SINGULAR,
                       "W restricted to the complement of its kernel is singular");
  for (guint A = 0; A < n * k; A++)
    K[A] = ZERO (ctx);
  for (guint j = 0; j < k; j++)
    {
      K[F[j] * k + j] = cml_expr_num (ctx, 1);
      for (guint b = 0; b < r; b++)
        K[Q[b] * k + j] = cml_expr_neg (ctx, X[b * (1 + k) + 1 + j]);
    }
  if (!kernel_holds (sys, mc, K, k))
    return fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                       "W = ∂²L/∂y∂y is singular with a rank that changes from point to point; the constraint "
                       "algorithm needs W of the same rank everywhere");
  for (guint a = 0; a < r; a++)
    add_pivot (sys, piv[a], "W restricted to (ker W)^⊥");
  sys->reg_name = "W restricted to (ker W)^⊥";
  sys->reg_rows = r;
  sys->reg = g_memdup2 (Wpq, r * r * sizeof (CmlExpr *));
  memcpy (Pout, P, r * sizeof (guint));
  memcpy (Qout, Q, r * sizeof (guint));
  memcpy (Fout, F, k * sizeof (guint));

  for (guint A = 0; A < n; A++)
    {
      CmlExpr *e = ZERO (ctx);
      for (guint b = 0; b < r; b++)
        if (Q[b] == A)
          e = X[b * (1 + k)];
      for (guint j = 0; j < k; j++)
        e = madd (ctx, e, K[A * k + j], sym (ctx, vsym[j]));
      ydot[A] = e;
    }
  for (guint j = 0; j < k; j++)
    {
      CmlExpr *g = ZERO (ctx);
      for (guint A = 0; A < n; A++)
        g = madd (ctx, g, K[A * k + j], mc->R[A]);
      gprim[j] = g;
    }

  g_ptr_array_add (sys->steps, g_strdup_printf ("rank W = %u of %u: the Lagrangian is singular", r, n));
  {
    GString *s = g_string_new ("ker W = span{");
    for (guint j = 0; j < k; j++)
      {
        g_string_append (s, j ? ", (" : "(");
        for (guint A = 0; A < n; A++)
          {
            g_autofree char *c = drop_unit_factors (cml_expr_to_string_max (ctx, K[A * k + j], DESCRIBE_MAX_CHARS), FALSE);
            g_string_append_printf (s, "%s%s", A ? ", " : "", c);
          }
        g_string_append (s, ")");
      }
    g_string_append (s, "} in the basis of sections: it depends on the point");
    g_ptr_array_add (sys->steps, g_string_free (s, FALSE));
  }
  return TRUE;
}

/* Scales each column of the N×C matrix M (row-major) so that its entry of largest size is
 * ±1, and snaps entries within 1e-12 of an integer to it.  A column whose largest entry is
 * already ±1 is left as it is. */
static void
normalise_columns (double *M, guint N, guint C)
{
  for (guint j = 0; j < C; j++)
    {
      double big = 0;
      for (guint A = 0; A < N; A++)
        big = MAX (big, fabs (M[A * C + j]));
      if (big == 0 || big == 1)
        continue;
      for (guint A = 0; A < N; A++)
        {
          double x = M[A * C + j] / big;
          M[A * C + j] = fabs (x - nearbyint (x)) < 1e-12 ? nearbyint (x) + 0.0 : x;
        }
    }
}

static gboolean
derive_singular (CmlSystem *sys, Mechanics *mc, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n, r, k;
  g_autofree double *s1 = make_sample (sys, 7);
  gsl_matrix *Wn = gsl_matrix_alloc (n, n);
  gsl_matrix *V = gsl_matrix_alloc (n, n);
  gsl_vector *S = gsl_vector_alloc (n);
  gsl_vector *wk = gsl_vector_alloc (n);
  double smax;
  g_autofree double *K = NULL;  /* n×k kernel basis */
  g_autofree double *Kc = NULL; /* n×r complement */
  g_autoptr (GPtrArray) G = g_ptr_array_new ();
  g_auto (Samples) samples = { G_MAXUINT, { NULL } };
  g_autoptr (GPtrArray) queue = g_ptr_array_new ();
  g_autoptr (GPtrArray) veq = g_ptr_array_new ();
  g_autoptr (GPtrArray) veq_g = g_ptr_array_new (); /* the constraint each came from */
  g_autofree guint *P = g_new (guint, MAX (n, 1)), *Q = g_new (guint, MAX (n, 1)), *F = g_new (guint, MAX (n, 1));
  g_autofree int *move = g_new (int, m + n);
  g_autofree int *vsym = NULL;
  g_autofree CmlExpr **ydot = g_new (CmlExpr *, n);
  g_autofree CmlExpr **gprim = g_new (CmlExpr *, n);
  gboolean constant = TRUE;
  gboolean ok = FALSE;

  for (guint i = 0; i < m; i++)
    move[i] = md->base_sym[i];
  for (guint A = 0; A < n; A++)
    move[m + A] = md->fibre_sym[A];

  /* 1. the rank of W by SVD at a generic point */
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      {
        double w = cml_expr_eval (mc->W[A * n + B], s1);
        if (!isfinite (w))
          {
            g_autofree char *at = sample_point_text (sys, s1);
            fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                        "W = ∂²L/∂y∂y is not finite at the sample point (%s), where cmlab decides which "
                        "velocities the Lagrangian depends on: its entry (%s, %s) is %g",
                        at, md->fibre[A], md->fibre[B], w);
            goto out;
          }
        gsl_matrix_set (Wn, A, B, w);
      }
  gsl_linalg_SV_decomp (Wn, V, S, wk);
  smax = gsl_vector_get (S, 0);
  r = 0;
  for (guint j = 0; j < n; j++)
    if (gsl_vector_get (S, j) > 1e-10 * MAX (smax, 1e-300))
      r++;
  k = n - r;
  vsym = g_new (int, k);
  for (guint j = 0; j < k; j++)
    {
      g_autofree char *nm = g_strdup_printf ("(kernel multiplier %u)", j + 1);
      vsym[j] = cml_expr_ctx_intern (ctx, nm);
    }
  K = g_new (double, n * k);
  Kc = g_new (double, MAX (n * r, 1));
  if (r == 0)
    {
      /* W = 0: a first-order Lagrangian (L = A(x)·y − H(x)), every velocity in ker W —
       * unless L does not depend on the velocities at all */
      gboolean depends = FALSE;
      for (guint32 seed = 11; seed < 14 && !depends; seed++)
        {
          g_autofree double *sv = make_sample (sys, seed);
          for (guint A = 0; A < n; A++)
            if (!cml_expr_is_zero (mc->Ly[A]) && cml_expr_eval (mc->Ly[A], sv) != 0)
              depends = TRUE;
        }
      if (!depends)
        {
          fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                      "the Lagrangian does not depend on the velocities (∂L/∂y = 0, so W = 0): there are no "
                      "equations of motion to derive");
          goto out;
        }
      for (guint A = 0; A < n; A++)
        for (guint j = 0; j < k; j++)
          K[A * k + j] = A == j;
    }
  else
    {
      for (guint A = 0; A < n; A++)
        {
          for (guint j = 0; j < r; j++)
            {
              double x = gsl_matrix_get (V, A, j);
              Kc[A * r + j] = fabs (x) < 1e-12 ? 0 : fabs (fabs (x) - 1) < 1e-12 ? copysign (1, x) : x;
            }
          for (guint j = 0; j < k; j++)
            {
              double x = gsl_matrix_get (V, A, r + j);
              K[A * k + j] = fabs (x) < 1e-12 ? 0 : fabs (fabs (x) - 1) < 1e-12 ? copysign (1, x) : x;
            }
        }
      /* any basis of the kernel serves: scaled so that its largest entry is ±1,
       * (1, 1)/√2 becomes the exact (1, 1) and the constraints K·R keep exact coefficients */
      normalise_columns (K, n, k);
    }
  /* is the kernel the same elsewhere? */
  for (guint32 seed = 11; seed < 14; seed++)
    {
      g_autofree double *sv = make_sample (sys, seed);
      double big = 0, res = 0;
      for (guint A = 0; A < n; A++)
        for (guint j = 0; j < k; j++)
          {
            double s = 0;
            for (guint B = 0; B < n; B++)
              {
                double w = cml_expr_eval (mc->W[A * n + B], sv);
                big = MAX (big, fabs (w));
                s += w * K[B * k + j];
              }
            res = MAX (res, fabs (s));
          }
      if (res > 1e-9 * MAX (big, 1))
        constant = FALSE;
    }
  if (!constant && r == 0)
    {
      fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                  "W = ∂²L/∂y∂y is singular with a rank that changes from point to point (0 at a sample "
                  "point, not elsewhere); the constraint algorithm needs W of the same rank everywhere");
      goto out;
    }
  if (!constant)
    {
      /* 2'. a kernel that depends on the point: symbolically */
      if (!kernel_symbolic (sys, mc, s1, r, vsym, ydot, gprim, P, Q, F, error))
        goto out;
    }
  else
    {
      g_ptr_array_add (sys->steps, g_strdup_printf ("rank W = %u of %u: the Lagrangian is singular%s", r, n,
                                                    r == 0 ? " (first order in the velocities: every velocity "
                                                             "is in the kernel of W)" : ""));
      {
        GString *s = g_string_new ("ker W = span{");
        for (guint j = 0; j < k; j++)
          {
            g_string_append (s, j ? ", (" : "(");
            for (guint A = 0; A < n; A++)
              g_string_append_printf (s, "%s%g", A ? ", " : "", K[A * k + j]);
            g_string_append (s, ")");
          }
        g_string_append (s, "} in the basis of sections");
        g_ptr_array_add (sys->steps, g_string_free (s, FALSE));
      }

      /* 2. ẏ = Kc u + K v with (Kcᵀ W Kc) u = Kcᵀ R */
      g_autofree CmlExpr **Wr = g_new (CmlExpr *, MAX (r * r, 1));
      g_autofree CmlExpr **br = g_new (CmlExpr *, MAX (r, 1));
      g_autofree CmlExpr **u = g_new (CmlExpr *, MAX (r, 1));
      g_autofree CmlExpr **piv = g_new (CmlExpr *, MAX (r, 1));
      for (guint a = 0; a < r; a++)
        {
          br[a] = ZERO (ctx);
          for (guint A = 0; A < n; A++)
            if (Kc[A * r + a] != 0)
              br[a] = madd (ctx, br[a], cml_expr_num (ctx, Kc[A * r + a]), mc->R[A]);
          for (guint b = 0; b < r; b++)
            {
              CmlExpr *e = ZERO (ctx);
              for (guint A = 0; A < n; A++)
                for (guint B = 0; B < n; B++)
                  if (Kc[A * r + a] != 0 && Kc[B * r + b] != 0)
                    e = madd (ctx, e, cml_expr_num (ctx, Kc[A * r + a] * Kc[B * r + b]), mc->W[A * n + B]);
              Wr[a * r + b] = e;
            }
        }
      if (r > 0)
        {
          if (!cml_symsolve (ctx, r, Wr, 1, br, s1, u, piv, NULL))
            {
              fail_model (sys, error, md->lagrangian_line, CML_ERROR_SINGULAR,
                          "W restricted to the complement of its kernel is singular");
              goto out;
            }
          for (guint a = 0; a < r; a++)
            add_pivot (sys, piv[a], "W restricted to (ker W)^⊥");
          sys->reg_name = "W restricted to (ker W)^⊥";
          sys->reg_rows = r;
          sys->reg = g_memdup2 (Wr, r * r * sizeof (CmlExpr *));
        }

      for (guint A = 0; A < n; A++)
        {
          CmlExpr *e = ZERO (ctx);
          for (guint a = 0; a < r; a++)
            if (Kc[A * r + a] != 0)
              e = madd (ctx, e, cml_expr_num (ctx, Kc[A * r + a]), u[a]);
          for (guint j = 0; j < k; j++)
            if (K[A * k + j] != 0)
              e = madd (ctx, e, cml_expr_num (ctx, K[A * k + j]), sym (ctx, vsym[j]));
          ydot[A] = e;
        }
      for (guint j = 0; j < k; j++)
        {
          CmlExpr *g = ZERO (ctx);
          for (guint A = 0; A < n; A++)
            if (K[A * k + j] != 0)
              g = madd (ctx, g, cml_expr_num (ctx, K[A * k + j]), mc->R[A]);
          gprim[j] = g;
        }
    }

  /* 3. primary constraints g_j = K_j · R */
  for (guint j = 0; j < k; j++)
    {
      CmlExpr *g = gprim[j];
      if (vanishes_on (sys, g, G, move, m + n, &samples))
        continue;
      g_ptr_array_add (G, g);
      g_ptr_array_add (queue, g);
      g_autofree char *txt = print_constraint (sys, g);
      g_ptr_array_add (sys->steps, g_strdup_printf ("primary constraint: %s", txt));
    }
  if (G->len == 0)
    g_ptr_array_add (sys->steps, g_strdup ("no primary constraints"));

  /* 4. the consistency loop: d/dt g = 0 along ẏ either fixes some v or is a new constraint */
  for (guint iter = 0; queue->len && iter < 4 * (m + n) + 4; iter++)
    {
      CmlExpr *g = queue->pdata[0];
      g_ptr_array_remove_index (queue, 0);
      CmlExpr *dg = cml_expr_diff (ctx, g, md->t_sym);
      for (guint i = 0; i < m; i++)
        dg = madd (ctx, dg, cml_expr_diff (ctx, g, md->base_sym[i]), mc->xdot[i]);
      for (guint A = 0; A < n; A++)
        dg = madd (ctx, dg, cml_expr_diff (ctx, g, md->fibre_sym[A]), ydot[A]);
      gboolean has_v = FALSE;
      for (guint j = 0; j < k; j++)
        if (!vanishes_on (sys, cml_expr_diff (ctx, dg, vsym[j]), G, move, m + n, &samples))
          has_v = TRUE;
      g_autofree char *gtxt = drop_unit_factors (cml_expr_to_string_max (ctx, cml_expr_monic (ctx, g, NULL), DESCRIBE_MAX_CHARS),
                                                 FALSE);
      if (has_v)
        {
          g_ptr_array_add (veq, dg);
          g_ptr_array_add (veq_g, g);
          g_ptr_array_add (sys->steps, g_strdup_printf ("d/dt (%s) = 0 fixes kernel accelerations", gtxt));
        }
      else if (!vanishes_on (sys, dg = drop_multipliers (sys, dg, vsym, k), G, move, m + n, &samples))
        {
          g_ptr_array_add (G, dg);
          g_ptr_array_add (queue, dg);
          g_autofree char *txt = print_constraint (sys, dg);
          g_ptr_array_add (sys->steps, g_strdup_printf ("secondary constraint from d/dt (%s) = 0: %s", gtxt, txt));
        }
      else
        g_ptr_array_add (sys->steps, g_strdup_printf ("d/dt (%s) = 0 holds on the constraint set", gtxt));
    }
  if (queue->len)
    {
      fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                  "the constraint algorithm did not stabilise");
      goto out;
    }

  /* 5. solve the v-equations: pick independent equations and the v's they fix */
  {
    guint ne = veq->len;
    g_autofree double *Av = g_new (double, MAX (ne * k, 1));
    g_autofree gboolean *fixed = g_new0 (gboolean, k);
    g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint));
    g_autoptr (GArray) cols = g_array_new (FALSE, FALSE, sizeof (guint));
    g_autofree CmlExpr **vsol = g_new (CmlExpr *, k);
    for (guint e = 0; e < ne; e++)
      for (guint j = 0; j < k; j++)
        Av[e * k + j] = cml_expr_eval (cml_expr_diff (ctx, veq->pdata[e], vsym[j]), s1);
    /* greedy elimination on the sampled coefficients decides rows and columns */
    {
      g_autofree double *T = g_memdup2 (Av, MAX (ne * k, 1) * sizeof (double));
      g_autofree gboolean *used = g_new0 (gboolean, MAX (ne, 1));
      for (guint j = 0; j < k; j++)
        {
          guint best = G_MAXUINT;
          for (guint e = 0; e < ne; e++)
            if (!used[e] && fabs (T[e * k + j]) > 1e-9 && (best == G_MAXUINT || fabs (T[e * k + j]) > fabs (T[best * k + j])))
              best = e;
          if (best == G_MAXUINT)
            continue;
          used[best] = TRUE;
          fixed[j] = TRUE;
          g_array_append_val (rows, best);
          g_array_append_val (cols, j);
          for (guint e = 0; e < ne; e++)
            if (e != best)
              {
                double f = T[e * k + j] / T[best * k + j];
                for (guint c = 0; c < k; c++)
                  T[e * k + c] -= f * T[best * k + c];
              }
        }
    }
    for (guint j = 0; j < k; j++)
      vsol[j] = ZERO (ctx);
    guint q = rows->len;
    if (q)
      {
        g_autofree CmlExpr **Am = g_new (CmlExpr *, q * q);
        g_autofree CmlExpr **bm = g_new (CmlExpr *, q);
        g_autofree CmlExpr **xm = g_new (CmlExpr *, q);
        g_autofree CmlExpr **piv = g_new (CmlExpr *, q);
        g_autofree CmlExpr **zeros = g_new (CmlExpr *, k);
        for (guint j = 0; j < k; j++)
          zeros[j] = ZERO (ctx);
        for (guint a = 0; a < q; a++)
          {
            CmlExpr *eq = veq->pdata[g_array_index (rows, guint, a)];
            /* the free v's (gauge) are set to 0 */
            bm[a] = cml_expr_neg (ctx, cml_expr_subs (ctx, eq, k, vsym, zeros));
            for (guint b = 0; b < q; b++)
              Am[a * q + b] = cml_expr_diff (ctx, eq, vsym[g_array_index (cols, guint, b)]);
          }
        if (!cml_symsolve (ctx, q, Am, 1, bm, s1, xm, piv, NULL))
          {
            fail_model (sys, error, md->lagrangian_line, CML_ERROR_SINGULAR,
                        "the equations for the kernel accelerations are singular");
            goto out;
          }
        for (guint a = 0; a < q; a++)
          {
            vsol[g_array_index (cols, guint, a)] = xm[a];
            add_pivot (sys, piv[a], KAPPA_MATRIX);
          }
      }
    for (guint j = 0; j < k; j++)
      {
        g_autofree char *txt = drop_unit_factors (cml_expr_to_string_max (ctx, vsol[j], DESCRIBE_MAX_CHARS), FALSE);
        /* κ with a subscript: a name no model can use, so it never reads as a parameter */
        g_autofree char *sub = subscript_digits (j + 1);
        if (fixed[j])
          g_ptr_array_add (sys->steps, g_strdup_printf ("kernel acceleration κ%s = %s (fixed by the SODE condition)", sub, txt));
        else
          {
            sys->gauge = TRUE;
            g_ptr_array_add (sys->steps,
                             g_strdup_printf ("kernel acceleration κ%s is not determined: gauge freedom, set to 0", sub));
          }
      }
    if (!sys->gauge)
      g_ptr_array_add (sys->steps, g_strdup ("no gauge freedom"));
    for (guint A = 0; A < n; A++)
      ydot[A] = cml_expr_subs (ctx, ydot[A], k, vsym, vsol);

    /* the numeric fallback of these solves (see rhs_fallback_singular): W, R, and for each
     * equation that fixes a κ, the constraint's g_t + g_x ẋ and g_y */
    sys->fb_sing = TRUE;
    sys->fb_sing_varying = !constant;
    sys->fb_r = r;
    sys->fb_k = k;
    sys->fb_q = q;
    sys->fb_cols = g_new (guint, MAX (q, 1));
    for (guint a = 0; a < q; a++)
      sys->fb_cols[a] = g_array_index (cols, guint, a);
    if (constant)
      {
        sys->fb_Kc = g_memdup2 (Kc, MAX (n * r, 1) * sizeof (double));
        sys->fb_K = g_memdup2 (K, MAX (n * k, 1) * sizeof (double));
      }
    else
      {
        sys->fb_P = g_memdup2 (P, MAX (r, 1) * sizeof (guint));
        sys->fb_Q = g_memdup2 (Q, MAX (r, 1) * sizeof (guint));
        sys->fb_F = g_memdup2 (F, MAX (k, 1) * sizeof (guint));
      }
    for (guint A = 0; A < n * n; A++)
      g_ptr_array_add (sys->fb, mc->W[A]);
    for (guint A = 0; A < n; A++)
      g_ptr_array_add (sys->fb, mc->R[A]);
    for (guint a = 0; a < q; a++)
      {
        CmlExpr *g = veq_g->pdata[g_array_index (rows, guint, a)];
        CmlExpr *c = cml_expr_diff (ctx, g, md->t_sym);
        for (guint i = 0; i < m; i++)
          c = madd (ctx, c, cml_expr_diff (ctx, g, md->base_sym[i]), mc->xdot[i]);
        g_ptr_array_add (sys->fb, c);
        for (guint A = 0; A < n; A++)
          g_ptr_array_add (sys->fb, cml_expr_diff (ctx, g, md->fibre_sym[A]));
      }
  }

  {
    GString *s = g_string_new ("final constraint set S^X: {");
    for (guint a = 0; a < G->len; a++)
      {
        g_autofree char *txt = print_constraint (sys, G->pdata[a]);
        g_string_append_printf (s, "%s%s", a ? ", " : "", txt);
      }
    g_string_append (s, "}");
    g_ptr_array_add (sys->steps, g_string_free (s, FALSE));
  }

  /* solve-for: as many coordinates as constraints, and the constraints solvable for them */
  if (md->n_solve_for && !check_solve_for (sys, G, move, m + n, &samples, error))
    goto out;

  for (guint i = 0; i < m; i++)
    sys->rhs[i] = mc->xdot[i];
  for (guint A = 0; A < n; A++)
    sys->rhs[m + A] = ydot[A];
  for (guint a = 0; a < G->len; a++)
    g_ptr_array_add (sys->h, G->pdata[a]);
  sys->movable_from = 0;
  sys->movable_to = m + n;
  ok = TRUE;

out:
  gsl_matrix_free (Wn);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (wk);
  return ok;
}

/* ---- observables and programs ------------------------------------------------------ */

static CmlExpr *
user_expr (CmlSystem *sys, CmlExpr *e)
{
  if (sys->n_subs == 0)
    return e;
  return cml_expr_subs (sys->ctx, e, sys->n_subs, sys->subs_ids, sys->subs_repl);
}

static void
add_observable (CmlSystem *sys, const char *name, CmlExpr *e)
{
  g_ptr_array_add (sys->obs_names, g_strdup (name));
  g_ptr_array_add (sys->obs, e);
}

static gboolean
compile_programs (CmlSystem *sys, GError **error)
{
  CmlExprCtx *ctx = sys->ctx;
  guint dim = sys->dim;

#define COMPILE(out, outputs, n_out)                                                                 \
  G_STMT_START {                                                                                     \
    out = cml_program_compile (ctx, outputs, n_out, sys->param_sym, sys->n_params, sys->fast_sym,    \
                               sys->n_fast, error);                                                  \
    if (out == NULL)                                                                                 \
      return FALSE;                                                                                  \
  } G_STMT_END

  {
    g_autoptr (GPtrArray) outs = g_ptr_array_new ();
    for (guint i = 0; i < dim; i++)
      g_ptr_array_add (outs, sys->rhs[i]);
    for (guint i = 0; i < sys->pivots->len; i++)
      g_ptr_array_add (outs, sys->pivots->pdata[i]);
    COMPILE (sys->rhs_prog, (CmlExpr **) outs->pdata, outs->len);
    sys->fast_pivots = g_new (guint, sys->pivots->len + 1);
    sys->slow_pivots = g_new (guint, sys->pivots->len + 1);
    sys->slow_pivot_regs = g_new (guint, sys->pivots->len + 1);
    for (guint i = 0; i < sys->pivots->len; i++)
      {
        gboolean fast;
        guint reg = cml_program_output_register (sys->rhs_prog, dim + i, &fast);
        if (fast)
          sys->fast_pivots[sys->n_fast_pivots++] = i;
        else
          {
            sys->slow_pivots[sys->n_slow_pivots] = i;
            sys->slow_pivot_regs[sys->n_slow_pivots++] = reg;
          }
      }
  }
  if (sys->na == 0)
    {
      /* the exact Jacobian ∂f/∂z and ∂f/∂t, for implicit methods */
      g_autoptr (GPtrArray) outs = g_ptr_array_new ();
      for (guint i = 0; i < dim; i++)
        for (guint j = 0; j < dim; j++)
          g_ptr_array_add (outs, cml_expr_diff (ctx, sys->rhs[i], sys->state_sym[j]));
      for (guint i = 0; i < dim; i++)
        g_ptr_array_add (outs, cml_expr_diff (ctx, sys->rhs[i], sys->model->t_sym));
      COMPILE (sys->jac_prog, (CmlExpr **) outs->pdata, outs->len);
    }
  COMPILE (sys->obs_prog, (CmlExpr **) sys->obs->pdata, sys->obs->len);
  if (sys->h->len)
    {
      g_autoptr (GPtrArray) outs = g_ptr_array_new ();
      for (guint a = 0; a < sys->h->len; a++)
        g_ptr_array_add (outs, sys->h->pdata[a]);
      for (guint a = 0; a < sys->h->len; a++)
        for (guint j = 0; j < dim; j++)
          g_ptr_array_add (outs, cml_expr_diff (ctx, sys->h->pdata[a], sys->state_sym[j]));
      COMPILE (sys->proj_prog, (CmlExpr **) outs->pdata, outs->len);
    }
  if (sys->reg_rows)
    COMPILE (sys->reg_prog, sys->reg, sys->reg_rows * sys->reg_rows);
  if (sys->na)
    COMPILE (sys->newton_prog, sys->newton, sys->na + sys->na * sys->na);
  if (sys->fb->len)
    COMPILE (sys->fb_prog, (CmlExpr **) sys->fb->pdata, sys->fb->len);
  if (sys->fb2)
    {
      /* inputs: t, the state, then the free velocities */
      g_autofree int *fast2 = g_new (int, sys->n_fast + sys->fb_vak_nf);
      memcpy (fast2, sys->fast_sym, sys->n_fast * sizeof (int));
      memcpy (fast2 + sys->n_fast, sys->fb_aux_sym, sys->fb_vak_nf * sizeof (int));
      sys->fb2_prog = cml_program_compile (ctx, (CmlExpr **) sys->fb2->pdata, sys->fb2->len, sys->param_sym,
                                           sys->n_params, fast2, sys->n_fast + sys->fb_vak_nf, error);
      if (sys->fb2_prog == NULL)
        return FALSE;
    }
  {
    /* every scene property, flattened in model order */
    g_autoptr (GPtrArray) outs = g_ptr_array_new ();
    CmlModel *md = sys->model;
    sys->scene_offsets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    for (guint k = 0; k < md->scene->len; k++)
      {
        CmlSceneObject *so = md->scene->pdata[k];
        GHashTableIter it;
        gpointer key, val;
        g_hash_table_iter_init (&it, so->props);
        while (g_hash_table_iter_next (&it, &key, &val))
          {
            GPtrArray *exprs = val;
            g_hash_table_insert (sys->scene_offsets, g_strdup_printf ("%u\n%s", k, (char *) key),
                                 GUINT_TO_POINTER (outs->len + 1));
            for (guint c = 0; c < exprs->len; c++)
              g_ptr_array_add (outs, user_expr (sys, exprs->pdata[c]));
          }
      }
    sys->n_scene = outs->len;
    if (outs->len == 0)
      g_ptr_array_add (outs, ZERO (ctx));
    COMPILE (sys->scene_prog, (CmlExpr **) outs->pdata, outs->len);
  }
#undef COMPILE
  return TRUE;
}

/* A numeric coefficient overflowed (to ±inf or NaN) while the equations were derived or
 * differentiated for the Jacobian: y^5.5e76 differentiated twice has a coefficient of
 * 3e153, and a few more products reach inf.  The model is valid, its equations are not
 * computable in double precision. */
static gboolean
fail_nonfinite (CmlSystem *sys, GError **error)
{
  return fail_model (sys, error, sys->model->lagrangian_line, CML_ERROR_UNSUPPORTED,
                     "a numeric coefficient of the derived equations is not finite (it overflows "
                     "double precision while the derivatives are taken): rescale the model's numbers");
}

CmlSystem *
cml_system_new (CmlModel *model, GError **error)
{
  g_autoptr (CmlSystem) sys = g_new0 (CmlSystem, 1);
  g_mutex_init (&sys->native_lock);
  CmlExprCtx *ctx = model->ctx;
  guint m = model->m, n = model->n;
  Mechanics mc = { 0 };
  gboolean ok = TRUE;

  g_return_val_if_fail (model != NULL, NULL);
  sys->ref_count = 1;
  sys->model = cml_model_ref (model);
  sys->ctx = ctx;
  sys->m = m;
  sys->n = n;
  sys->nr = model->reconstruction->len;
  sys->dim = m + n + sys->nr;
  sys->pivots = g_ptr_array_new ();
  sys->pivot_names = g_ptr_array_new ();
  sys->fb = g_ptr_array_new ();
  sys->h = g_ptr_array_new ();
  sys->obs_names = g_ptr_array_new_with_free_func (g_free);
  sys->obs = g_ptr_array_new ();
  sys->steps = g_ptr_array_new_with_free_func (g_free);
  sys->rhs = g_new0 (CmlExpr *, sys->dim);

  sys->n_params = model->params->len;
  sys->param_sym = g_new (int, MAX (sys->n_params, 1));
  for (guint k = 0; k < sys->n_params; k++)
    sys->param_sym[k] = ((CmlParam *) model->params->pdata[k])->sym;

  /* the state: x, then y (or p), then reconstruction variables */
  sys->state_sym = g_new (int, sys->dim);
  sys->state_names = g_new0 (char *, sys->dim + 1);
  for (guint i = 0; i < m; i++)
    sys->state_sym[i] = model->base_sym[i];
  for (guint A = 0; A < n; A++)
    sys->state_sym[m + A] = model->kind == CML_CONSTRAINTS_VAKONOMIC ? model->momenta_sym[A] : model->fibre_sym[A];
  for (guint k = 0; k < sys->nr; k++)
    sys->state_sym[m + n + k] = ((CmlNamedExpr *) model->reconstruction->pdata[k])->sym;
  for (guint i = 0; i < sys->dim; i++)
    sys->state_names[i] = g_strdup (cml_expr_ctx_symbol_name (ctx, sys->state_sym[i]));

  /* numbers that overflow while deriving make the equations meaningless (see the end) */
  guint64 nonfinite0 = cml_expr_ctx_n_nonfinite (ctx);

  /* structure equations */
  {
    char *msg = NULL;
    sys->structure_defect = structure_defect (sys, &msg);
    sys->lie = sys->structure_defect < 1e-9;
    if (msg)
      g_ptr_array_add (model->warnings, msg);
  }

  {
    g_autofree double *sample = make_sample (sys, 1);
    if (model->kind == CML_CONSTRAINTS_VAKONOMIC)
      {
        sys->formalism = CML_FORMALISM_VAKONOMIC;
        ok = derive_vakonomic (sys, sample, error);
      }
    else
      {
        mechanics_init (sys, &mc);
        if (model->kind == CML_CONSTRAINTS_NONHOLONOMIC)
          {
            sys->formalism = CML_FORMALISM_NONHOLONOMIC;
            ok = derive_nonholonomic (sys, &mc, sample, error);
          }
        else
          {
            sys->formalism = CML_FORMALISM_EULER_LAGRANGE;
            if (!derive_euler_lagrange (sys, &mc, sample, error))
              {
                sys->formalism = CML_FORMALISM_SINGULAR;
                g_ptr_array_set_size (sys->pivots, 0);
                g_ptr_array_set_size (sys->pivot_names, 0);
                ok = derive_singular (sys, &mc, error);
              }
          }
        /* user expressions: momenta p_A = ∂L/∂y^A */
        if (ok)
          {
            sys->n_subs = n;
            sys->subs_ids = g_new (int, n);
            sys->subs_repl = g_new (CmlExpr *, n);
            for (guint A = 0; A < n; A++)
              {
                sys->subs_ids[A] = model->momenta_sym[A];
                sys->subs_repl[A] = mc.Ly[A];
              }
          }
      }
  }
  if (!ok)
    {
      mechanics_clear (&mc);
      /* numbers that overflowed are the likelier cause of the failure (a NaN matrix is
       * singular): name them instead */
      if (cml_expr_ctx_n_nonfinite (ctx) != nonfinite0)
        {
          g_clear_error (error);
          fail_nonfinite (sys, error);
        }
      return NULL;
    }

  /* solve-for of nonholonomic constraints, and of a Lagrangian that turned out regular */
  if (model->n_solve_for && sys->formalism != CML_FORMALISM_SINGULAR)
    {
      g_autoptr (GPtrArray) G = g_ptr_array_new ();
      g_auto (Samples) samples = { G_MAXUINT, { NULL } };
      g_autofree int *move = g_new (int, MAX (n, 1));
      for (guint a = 0; a < model->constraints->len; a++)
        g_ptr_array_add (G, ((CmlNamedExpr *) model->constraints->pdata[a])->expr);
      for (guint A = 0; A < n; A++)
        move[A] = model->fibre_sym[A];
      if (!check_solve_for (sys, G, move, n, &samples, error))
        {
          mechanics_clear (&mc);
          return NULL;
        }
    }

  /* reconstruction rates */
  for (guint k = 0; k < sys->nr; k++)
    sys->rhs[m + n + k] = user_expr (sys, ((CmlNamedExpr *) model->reconstruction->pdata[k])->expr);
  if (sys->fb2)
    for (guint k = 0; k < sys->nr; k++)
      g_ptr_array_add (sys->fb2, cml_expr_subs (ctx, ((CmlNamedExpr *) model->reconstruction->pdata[k])->expr, n,
                                                sys->subs_ids, sys->fb_yhat));

  /* fast inputs */
  sys->n_fast = 1 + sys->dim + sys->na;
  sys->fast_sym = g_new (int, sys->n_fast);
  sys->fast_sym[0] = model->t_sym;
  for (guint i = 0; i < sys->dim; i++)
    sys->fast_sym[1 + i] = sys->state_sym[i];
  for (guint a = 0; a < sys->na; a++)
    sys->fast_sym[1 + sys->dim + a] = sys->aux_sym[a];

  /* observables */
  for (guint i = 0; i < m; i++)
    add_observable (sys, model->base[i], sym (ctx, model->base_sym[i]));
  for (guint A = 0; A < n; A++)
    add_observable (sys, model->fibre[A], user_expr (sys, sym (ctx, model->fibre_sym[A])));
  for (guint A = 0; A < n; A++)
    add_observable (sys, model->momenta[A], user_expr (sys, sym (ctx, model->momenta_sym[A])));
  for (guint k = 0; k < sys->nr; k++)
    add_observable (sys, sys->state_names[m + n + k], sym (ctx, sys->state_sym[m + n + k]));
  for (guint k = 0; k < model->definitions->len; k++)
    {
      CmlNamedExpr *ne = model->definitions->pdata[k];
      add_observable (sys, ne->name, user_expr (sys, ne->expr));
    }
  for (guint k = 0; k < model->monitors->len; k++)
    {
      CmlNamedExpr *ne = model->monitors->pdata[k];
      add_observable (sys, ne->name, user_expr (sys, ne->expr));
    }
  if (sys->h->len && cml_system_observable_index (sys, "residual") < 0)
    {
      CmlExpr *s = ZERO (ctx);
      for (guint a = 0; a < sys->h->len; a++)
        s = cml_expr_add (ctx, s, cml_expr_powi (ctx, sys->h->pdata[a], 2));
      add_observable (sys, "residual", cml_expr_func (ctx, CML_FN_SQRT, s));
    }

  mechanics_clear (&mc);
  {
    g_autoptr (GError) cerr = NULL;
    if (!compile_programs (sys, &cerr))
      {
        fail_model (sys, error, model->lagrangian_line, CML_ERROR_UNSUPPORTED,
                    "cmlab cannot compile the derived equations: %s", cerr->message);
        return NULL;
      }
  }
  if (cml_expr_ctx_n_nonfinite (ctx) != nonfinite0)
    {
      fail_nonfinite (sys, error);
      return NULL;
    }
  return g_steal_pointer (&sys);
}

CmlSystem *
cml_system_ref (CmlSystem *sys)
{
  g_atomic_int_inc (&sys->ref_count);
  return sys;
}

void
cml_system_unref (CmlSystem *sys)
{
  if (sys == NULL || !g_atomic_int_dec_and_test (&sys->ref_count))
    return;
  g_clear_pointer (&sys->rhs_prog, cml_program_free);
  g_clear_pointer (&sys->jac_prog, cml_program_free);
  g_clear_pointer (&sys->obs_prog, cml_program_free);
  g_clear_pointer (&sys->proj_prog, cml_program_free);
  g_clear_pointer (&sys->reg_prog, cml_program_free);
  g_clear_pointer (&sys->newton_prog, cml_program_free);
  g_clear_pointer (&sys->scene_prog, cml_program_free);
  g_clear_pointer (&sys->fb_prog, cml_program_free);
  g_clear_pointer (&sys->fb2_prog, cml_program_free);
  g_clear_pointer (&sys->fb2, g_ptr_array_unref);
  g_free (sys->fb_aux_sym);
  g_free (sys->fb_yhat);
  g_free (sys->fb_Kc);
  g_free (sys->fb_K);
  g_free (sys->fb_P);
  g_free (sys->fb_Q);
  g_free (sys->fb_F);
  g_free (sys->fb_cols);
  g_clear_pointer (&sys->native, cml_native_free);
  g_free (sys->native_error);
  g_mutex_clear (&sys->native_lock);
  g_clear_pointer (&sys->scene_offsets, g_hash_table_unref);
  g_free (sys->rhs);
  g_ptr_array_unref (sys->pivots);
  g_free (sys->fast_pivots);
  g_free (sys->slow_pivots);
  g_free (sys->slow_pivot_regs);
  g_ptr_array_unref (sys->pivot_names);
  g_ptr_array_unref (sys->fb);
  g_ptr_array_unref (sys->h);
  g_ptr_array_unref (sys->obs_names);
  g_ptr_array_unref (sys->obs);
  g_ptr_array_unref (sys->steps);
  g_free (sys->reg);
  g_free (sys->newton);
  g_free (sys->aux_sym);
  g_free (sys->fast_sym);
  g_free (sys->param_sym);
  g_free (sys->state_sym);
  g_strfreev (sys->state_names);
  g_free (sys->subs_ids);
  g_free (sys->subs_repl);
  cml_model_unref (sys->model);
  g_free (sys);
}

CmlModel *cml_system_get_model (const CmlSystem *sys) { return sys->model; }
CmlFormalism cml_system_get_formalism (const CmlSystem *sys) { return sys->formalism; }
guint cml_system_dim (const CmlSystem *sys) { return sys->dim; }
const char *cml_system_state_name (const CmlSystem *sys, guint i) { return sys->state_names[i]; }
guint cml_system_n_observables (const CmlSystem *sys) { return sys->obs_names->len; }
const char *cml_system_observable_name (const CmlSystem *sys, guint i) { return sys->obs_names->pdata[i]; }
gboolean cml_system_is_lie_algebroid (const CmlSystem *sys) { return sys->lie; }
const GPtrArray *cml_system_algorithm_steps (const CmlSystem *sys) { return sys->steps; }
gboolean cml_system_has_gauge_freedom (const CmlSystem *sys) { return sys->gauge; }
double cml_system_structure_defect (const CmlSystem *sys) { return sys->structure_defect; }

int
cml_system_observable_index (const CmlSystem *sys, const char *name)
{
  for (guint i = 0; i < sys->obs_names->len; i++)
    if (g_str_equal (sys->obs_names->pdata[i], name))
      return i;
  return -1;
}

/* ---- a readable account ------------------------------------------------------------ */

/* The text of E: plain (parses back) or typeset for reading (cml_expr_print_pretty). */
static char *
expr_text (CmlSystem *sys, CmlExpr *e, gboolean pretty)
{
  if (pretty)
    {
      /* the model's own named quantities (kappa, Omega(t) …) where they shorten the text */
      GPtrArray *defs = sys->model->definitions;
      guint n = defs ? defs->len : 0;
      g_autofree const char **names = g_new0 (const char *, n + 1);
      g_autofree CmlExpr **exprs = g_new0 (CmlExpr *, n + 1);

      for (guint k = 0; k < n; k++)
        {
          names[k] = ((CmlNamedExpr *) defs->pdata[k])->name;
          exprs[k] = ((CmlNamedExpr *) defs->pdata[k])->expr;
        }
      return drop_unit_factors (cml_expr_print_pretty_named (sys->ctx, e, DESCRIBE_MAX_CHARS, n, names, exprs),
                                TRUE);
    }
  return drop_unit_factors (cml_expr_to_string_max (sys->ctx, e, DESCRIBE_MAX_CHARS), FALSE);
}

static char *
name_text (const char *name, gboolean pretty)
{
  return pretty ? cml_expr_pretty_name (name, FALSE) : g_strdup (name);
}

/* "e3", "-e3", "2*e3", "(x1 + 1)*e3": a coefficient times a basis name, for sums
 * (readable: "e₃", "−e₃", "2e₃", "(x₁ + 1) e₃") */
static void
append_term (GString *s, CmlSystem *sys, CmlExpr *coef, const char *basis, gboolean pretty)
{
  double c;
  g_autofree char *t = expr_text (sys, coef, pretty);
  gboolean first = s->len == 0;
  const char *minus = pretty ? "−" : "-", *times = pretty ? " " : "*";
  g_autofree char *plus_sep = g_strdup (" + ");
  g_autofree char *minus_sep = g_strdup_printf (" %s ", minus);
  gsize mlen = pretty ? strlen ("−") : 1;

  if (cml_expr_is_number (coef, &c))
    {
      if (c == 1)
        g_string_append_printf (s, "%s%s", first ? "" : plus_sep, basis);
      else if (c == -1)
        g_string_append_printf (s, "%s%s", first ? minus : minus_sep, basis);
      else if (c < 0)
        g_string_append_printf (s, "%s%s%s%s", first ? minus : minus_sep, t + mlen, times, basis);
      else
        g_string_append_printf (s, "%s%s%s%s", first ? "" : plus_sep, t, times, basis);
      return;
    }
  /* a plain name or a product needs no parentheses */
  gboolean neg = strncmp (t, minus, mlen) == 0;
  gboolean simple = strstr (t + (neg ? mlen : 0), " ") == NULL && strpbrk (t + (neg ? mlen : 0), "+-") == NULL;
  if (simple && neg)
    g_string_append_printf (s, "%s%s%s%s", first ? minus : minus_sep, t + mlen, times, basis);
  else if (simple)
    g_string_append_printf (s, "%s%s%s%s", first ? "" : plus_sep, t, times, basis);
  else
    g_string_append_printf (s, "%s(%s)%s%s", first ? "" : plus_sep, t, times, basis);
}

static void
append_expr_line (GString *s, CmlSystem *sys, const char *lhs, CmlExpr *e, gboolean pretty)
{
  g_autofree char *txt = expr_text (sys, e, pretty);
  g_string_append_printf (s, "    %s = %s\n", lhs, txt);
}

/* TEXT indented by INDENT, its lines wrapped before WIDTH characters (at spaces). */
static void
append_wrapped (GString *s, const char *text, const char *indent, guint width)
{
  g_auto (GStrv) paragraphs = g_strsplit (text, "\n", -1);

  for (guint k = 0; paragraphs[k]; k++)
    {
      g_auto (GStrv) words = g_strsplit (paragraphs[k], " ", -1);
      glong col = 0;

      g_string_append (s, indent);
      for (guint w = 0; words[w]; w++)
        {
          glong len = g_utf8_strlen (words[w], -1);

          if (words[w][0] == '\0')
            continue;
          if (col > 0 && col + 1 + len > (glong) width)
            {
              g_string_append_c (s, '\n');
              g_string_append (s, indent);
              col = 0;
            }
          if (col > 0)
            {
              g_string_append_c (s, ' ');
              col++;
            }
          g_string_append (s, words[w]);
          col += len;
        }
      g_string_append_c (s, '\n');
    }
}

#define DESCRIBE_WRAP 88

static char *
describe (CmlSystem *sys, gboolean pretty)
{
  CmlModel *md = sys->model;
  guint m = md->m, n = md->n;
  GString *s = g_string_new (NULL);
  g_autofree char **sec = g_new0 (char *, n + 1);

  for (guint A = 0; A < n; A++)
    sec[A] = name_text (md->sections[A], pretty);

  g_string_append_printf (s, "%s — %s\n", md->name, md->title);
  if (md->description)
    g_string_append_printf (s, "%s\n", md->description);
  if (md->about)
    {
      g_string_append (s, "\nAbout this system:\n");
      append_wrapped (s, md->about, "  ", DESCRIBE_WRAP);
    }
  if (md->citation)
    {
      g_string_append (s, "\nReferences:\n");
      append_wrapped (s, md->citation, "  ", DESCRIBE_WRAP);
    }
  if (md->source)
    g_string_append_printf (s, "\nSource: %s\n", md->source);
  if (md->errata)
    g_string_append_printf (s, "%sNote on the printed formulas: %s\n", md->source ? "" : "\n", md->errata);
  g_string_append_printf (s, "\nKind: %s\n", cml_formalism_to_string (sys->formalism));

  g_string_append_printf (s, "\nLie algebroid: rank %u over a base of dimension %u%s\n", n, m,
                          sys->lie ? " (structure equations hold)" : " (structure equations FAIL: general algebroid)");
  g_string_append (s, "  base coordinates:  ");
  for (guint i = 0; i < m; i++)
    {
      g_autofree char *b = name_text (md->base[i], pretty);
      g_string_append_printf (s, "%s%s", i ? ", " : "", b);
    }
  g_string_append (s, m ? "\n" : "(none: a Lie algebra)\n");
  g_string_append (s, "  fibre coordinates: ");
  for (guint A = 0; A < n; A++)
    {
      g_autofree char *f = name_text (md->fibre[A], pretty);
      g_string_append_printf (s, "%s%s (along %s)", A ? ", " : "", f, sec[A]);
    }
  g_string_append (s, "\n  anchor:\n");
  for (guint A = 0; A < n; A++)
    {
      GString *v = g_string_new (NULL);
      for (guint i = 0; i < m; i++)
        if (!cml_expr_is_zero (md->anchor[i * n + A]))
          {
            g_autofree char *b = name_text (md->base[i], pretty);
            g_autofree char *basis = g_strdup_printf (pretty ? "∂/∂%s" : "d/d%s", b);
            append_term (v, sys, md->anchor[i * n + A], basis, pretty);
          }
      g_string_append_printf (s, "    %s(%s) = %s\n", pretty ? "ρ" : "rho", sec[A], v->len ? v->str : "0");
      g_string_free (v, TRUE);
    }
  g_string_append (s, "  brackets:\n");
  gboolean any = FALSE;
  for (guint A = 0; A < n; A++)
    for (guint B = A + 1; B < n; B++)
      {
        GString *v = g_string_new (NULL);
        for (guint C = 0; C < n; C++)
          {
            CmlExpr *c = md->bracket[(A * n + B) * n + C];
            if (!cml_expr_is_zero (c))
              append_term (v, sys, c, sec[C], pretty);
          }
        if (v->len)
          {
            g_string_append_printf (s, pretty ? "    ⟦%s, %s⟧ = %s\n" : "    [[%s, %s]] = %s\n", sec[A], sec[B], v->str);
            any = TRUE;
          }
        g_string_free (v, TRUE);
      }
  if (!any)
    g_string_append (s, "    all zero\n");
  for (guint A = 0; A < n; A++)
    g_free (sec[A]);

  g_string_append (s, "\nLagrangian:\n");
  append_expr_line (s, sys, "L", md->lagrangian, pretty);
  if (md->constraints->len)
    {
      g_string_append_printf (s, "\n%s constraints:\n",
                              md->kind == CML_CONSTRAINTS_VAKONOMIC ? "Vakonomic" : "Nonholonomic");
      for (guint a = 0; a < md->constraints->len; a++)
        {
          CmlNamedExpr *ne = md->constraints->pdata[a];
          g_autofree char *t = expr_text (sys, ne->expr, pretty);
          g_autofree char *nm = name_text (ne->name, pretty);
          if (md->kind == CML_CONSTRAINTS_VAKONOMIC)
            g_string_append_printf (s, "    %s = %s\n", nm, t);
          else
            g_string_append_printf (s, "    %s: %s = 0\n", nm, t);
        }
    }

  if (sys->steps->len)
    {
      g_string_append (s, "\nConstraint algorithm (Gotay–Nester–Hinds with the second-order condition, "
                          "on a Lie algebroid: Iglesias, Marrero, Martín de Diego and Sosa 2008):\n");
      for (guint k = 0; k < sys->steps->len; k++)
        {
          /* a step shows up to three expressions, not all of them cut */
          const char *step = sys->steps->pdata[k];
          gsize len = strlen (step), cut = MIN (len, 3 * DESCRIBE_MAX_CHARS);
          while (cut > 0 && cut < len && (step[cut] & 0xc0) == 0x80)
            cut--;
          g_string_append_printf (s, "  %u. %.*s", k + 1, (int) cut, step);
          if (cut < len)
            g_string_append_printf (s, "… (%" G_GSIZE_FORMAT " more characters)", len - cut);
          g_string_append_c (s, '\n');
        }
    }

  g_string_append (s, "\nRegularity: ");
  if (sys->reg_rows)
    {
      g_string_append_printf (s, "%s (%u×%u) must be invertible; the right-hand side checks its pivots\n",
                              sys->reg_name, sys->reg_rows, sys->reg_rows);
      for (guint a = 0; a < sys->reg_rows; a++)
        {
          g_string_append (s, "    [ ");
          for (guint b = 0; b < sys->reg_rows; b++)
            {
              g_autofree char *t = expr_text (sys, sys->reg[a * sys->reg_rows + b], pretty);
              g_string_append_printf (s, "%s%s", b ? ",  " : "", t);
            }
          g_string_append (s, " ]\n");
        }
    }
  else
    g_string_append (s, "nothing to invert\n");
  if (sys->na)
    g_string_append (s, "  The W1 equations are nonlinear in the free velocities: Newton's method solves them at every step.\n");

  g_string_append (s, pretty ? "\nEquations of motion (derived; a dot is d/dt):\n"
                             : "\nEquations of motion (derived; ' is d/dt):\n");
  for (guint i = 0; i < sys->dim; i++)
    {
      g_autofree char *lhs = pretty ? cml_expr_pretty_name (sys->state_names[i], TRUE)
                                    : g_strdup_printf ("%s'", sys->state_names[i]);
      append_expr_line (s, sys, lhs, sys->rhs[i], pretty);
    }
  if (md->kind == CML_CONSTRAINTS_VAKONOMIC)
    {
      GString *solved = g_string_new (NULL);
      g_string_append (s, "  with the velocities\n");
      for (guint A = 0; A < n; A++)
        {
          g_autofree char *nm = name_text (md->fibre[A], pretty);
          /* a free velocity that Newton's method finds is itself: no line "u1 = u1" */
          if (cml_expr_symbol_id (sys->subs_repl[A]) == md->fibre_sym[A])
            g_string_append_printf (solved, "%s%s", solved->len ? ", " : "", nm);
          else
            append_expr_line (s, sys, nm, sys->subs_repl[A], pretty);
        }
      if (solved->len)
        g_string_append_printf (s, "    %s: solved from the W1 relations by Newton's method at every step\n", solved->str);
      g_string_free (solved, TRUE);
    }
  if (sys->h->len)
    {
      g_string_append (s, "  kept on the constraint set by projection after every step:\n");
      for (guint a = 0; a < sys->h->len; a++)
        {
          g_autofree char *t = NULL;
          if (pretty)
            {
              g_autofree char *g = expr_text (sys, cml_expr_monic (sys->ctx, sys->h->pdata[a], NULL), TRUE);
              t = g_strdup_printf ("%s = 0", g);
            }
          else
            t = print_constraint (sys, sys->h->pdata[a]);
          g_string_append_printf (s, "    %s\n", t);
        }
    }
  if (md->quaternions->len)
    g_string_append_printf (s, "  %u attitude quaternion(s) renormalised after every step\n", md->quaternions->len / 4);

  if (md->monitors->len)
    {
      gboolean any_conserved = FALSE, any_other = FALSE;
      for (guint k = 0; k < md->monitors->len; k++)
        {
          CmlNamedExpr *ne = md->monitors->pdata[k];
          any_conserved |= ne->conserved;
          any_other |= !ne->conserved;
        }
      for (int pass = 0; pass < 2; pass++)
        {
          if (pass == 0 && !any_conserved)
            continue;
          if (pass == 1 && !any_other)
            continue;
          g_string_append (s, pass == 0 ? "\nConserved quantities (they stay constant along every motion):\n"
                                        : any_conserved ? "\nOther quantities (not conserved in general):\n"
                                                        : "\nMonitored quantities:\n");
          for (guint k = 0; k < md->monitors->len; k++)
            {
              CmlNamedExpr *ne = md->monitors->pdata[k];
              const char *meaning = cml_model_meaning (md, ne->name);
              if (ne->conserved != (pass == 0))
                continue;
              g_autofree char *t = expr_text (sys, ne->expr, pretty);
              g_autofree char *nm = name_text (ne->name, pretty);
              g_string_append_printf (s, "    %s = %s\n", nm, t);
              if (meaning)
                append_wrapped (s, meaning, "        ", DESCRIBE_WRAP);
            }
        }
    }
  if (pretty && g_hash_table_size (md->meanings) > 0)
    {
      g_string_append (s, "\nWhat the variables mean:\n");
      for (guint i = 0; i < sys->dim; i++)
        {
          const char *meaning = cml_model_meaning (md, sys->state_names[i]);
          g_autofree char *nm = name_text (sys->state_names[i], pretty);
          const char *unit = cml_model_unit (md, sys->state_names[i]);
          if (meaning == NULL)
            continue;
          g_autofree char *line = g_strdup_printf ("%s%s%s%s: %s", nm, unit[0] && !g_str_equal (unit, "1") ? " [" : "",
                                                   unit[0] && !g_str_equal (unit, "1") ? unit : "",
                                                   unit[0] && !g_str_equal (unit, "1") ? "]" : "", meaning);
          append_wrapped (s, line, "    ", DESCRIBE_WRAP);
        }
    }
  for (guint k = 0; k < md->warnings->len; k++)
    g_string_append_printf (s, "\nWarning: %s\n", (char *) md->warnings->pdata[k]);
  return g_string_free (s, FALSE);
}

char *
cml_system_describe (const CmlSystem *sys)
{
  g_return_val_if_fail (sys != NULL, NULL);
  return describe ((CmlSystem *) sys, FALSE);
}

char *
cml_system_describe_readable (const CmlSystem *sys)
{
  g_return_val_if_fail (sys != NULL, NULL);
  return describe ((CmlSystem *) sys, TRUE);
}

/* ---- native code ------------------------------------------------------------------- */

/* Larger programs are left to the interpreter: the C compiler's time grows faster than
 * the program, and such systems spend their time elsewhere. */
#define NATIVE_MAX_INSTRUCTIONS 50000

/* Builds (or finds in the cache) native code for the right-hand side, its Jacobian and
 * the constraint functions, once per system, on the first simulation. */
static void
system_ensure_native (CmlSystem *sys)
{
  g_autoptr (GString) src = NULL;
  g_autoptr (GError) error = NULL;
  guint size;
  gsize c_size;
  gboolean ok;

  g_mutex_lock (&sys->native_lock);
  if (sys->native_tried)
    {
      g_mutex_unlock (&sys->native_lock);
      return;
    }
  sys->native_tried = TRUE;
  size = cml_program_n_fast_instructions (sys->rhs_prog)
         + (sys->jac_prog ? cml_program_n_fast_instructions (sys->jac_prog) : 0)
         + (sys->proj_prog ? cml_program_n_fast_instructions (sys->proj_prog) : 0);
  /* the C source's size, estimated before it is written (the Jacobian of a large state
   * has dim² outputs: 10⁴ variables once wrote 2.7 GB of C) */
  c_size = cml_program_estimate_c_size (sys->rhs_prog, "cml_rhs")
           + (sys->jac_prog ? cml_program_estimate_c_size (sys->jac_prog, "cml_jac") : 0)
           + (sys->proj_prog ? cml_program_estimate_c_size (sys->proj_prog, "cml_proj") : 0);
  if (!cml_native_available ())
    sys->native_error = g_strdup ("no C compiler (or CMLAB_NATIVE=0)");
  else if (size > NATIVE_MAX_INSTRUCTIONS)
    sys->native_error = g_strdup_printf ("%u instructions, more than %u", size, NATIVE_MAX_INSTRUCTIONS);
  else if (c_size > CML_PROGRAM_MAX_C_BYTES)
    sys->native_error = g_strdup_printf ("about %.1f MB of C, more than %d MB", c_size / 1048576.0,
                                         CML_PROGRAM_MAX_C_BYTES / (1024 * 1024));
  else
    {
      src = g_string_new (NULL);
      ok = cml_program_emit_c (sys->rhs_prog, "cml_rhs", sys->dim, sys->dim, src);
      if (ok && sys->jac_prog)
        ok = cml_program_emit_c (sys->jac_prog, "cml_jac", sys->dim, sys->dim * sys->dim, src);
      if (ok && sys->proj_prog)
        ok = cml_program_emit_c (sys->proj_prog, "cml_proj", sys->dim,
                                 cml_program_n_outputs (sys->proj_prog), src);
      if (!ok)
        sys->native_error = g_strdup ("a program could not be written out as C");
      else if ((sys->native = cml_native_build (src->str, &error)) == NULL)
        sys->native_error = g_strdup (error->message);
      else
        {
          sys->rhs_fn = cml_native_lookup (sys->native, "cml_rhs");
          sys->jac_fn = sys->jac_prog ? cml_native_lookup (sys->native, "cml_jac") : NULL;
          sys->proj_fn = sys->proj_prog ? cml_native_lookup (sys->native, "cml_proj") : NULL;
          if (sys->rhs_fn == NULL || (sys->jac_prog && sys->jac_fn == NULL)
              || (sys->proj_prog && sys->proj_fn == NULL))
            {
              sys->rhs_fn = sys->jac_fn = sys->proj_fn = NULL;
              sys->native_error = g_strdup ("the compiled object lacks a function");
            }
        }
      if (sys->native_error)
        g_debug ("native code for %s: %s; the interpreter runs it", sys->model->name, sys->native_error);
    }
  g_mutex_unlock (&sys->native_lock);
}

const char *
cml_system_native_status (CmlSystem *sys)
{
  system_ensure_native (sys);
  return sys->rhs_fn ? NULL : sys->native_error;
}

/* ---- simulation -------------------------------------------------------------------- */

static void
fill_fast (CmlSimulation *sim, double t, const double *z)
{
  sim->fast[0] = t;
  memcpy (sim->fast + 1, z, sim->sys->dim * sizeof (double));
}

/* The constraint functions h and their Jacobian into sim->proj_out. */
static void
run_proj (CmlSimulation *sim, double t, const double *z)
{
  CmlSystem *sys = sim->sys;

  if (sim->proj_fn)
    sim->proj_fn (t, z, sim->fast + 1 + sys->dim, sim->regs_proj, sim->proj_out, NULL);
  else
    {
      fill_fast (sim, t, z);
      cml_program_run (sys->proj_prog, sim->fast, sim->regs_proj, sim->proj_out);
    }
}

/* Nonlinear vakonomic systems: Newton's method for the free velocities, warm-started from
 * the last solution stored in the aux part of sim->fast. */
static int
solve_aux (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  guint na = sys->na;
  double *aux = sim->fast + 1 + sys->dim;

  for (int it = 0; it < 40; it++)
    {
      double dn = 0, an = 0;
      cml_program_run (sys->newton_prog, sim->fast, sim->regs_newton, sim->newton_out);
      memcpy (sim->work, sim->newton_out + na, na * na * sizeof (double));
      for (guint a = 0; a < na; a++)
        sim->work2[a] = -sim->newton_out[a];
      if (!cml_small_solve (na, sim->work, sim->work2, 1e-14))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the vakonomic regularity matrix R_ab is singular");
          return 1;
        }
      for (guint a = 0; a < na; a++)
        {
          aux[a] += sim->work2[a];
          dn = MAX (dn, fabs (sim->work2[a]));
          an = MAX (an, fabs (aux[a]));
        }
      if (!isfinite (dn))
        break;
      if (dn <= 1e-15 * (1 + an))
        return 0;
    }
  g_snprintf (sim->reason, sizeof sim->reason, "Newton's method for the free velocities did not converge");
  return 1;
}

/* Pivots smaller than this against the largest pivot of the same matrix are not trusted:
 * the symbolic solve divides by them (cml-symsolve.c picks pivots at a sample point). */
#define PIVOT_RATIO_MIN 1e-8

/* Whether the symbolic accelerations at this evaluation are not to be trusted: a pivot 0,
 * not finite, or tiny against another pivot of its matrix, or an acceleration not finite. */
static gboolean
needs_fallback (CmlSimulation *sim, const double *dz)
{
  CmlSystem *sys = sim->sys;
  const double *pv = sim->rhs_out + sys->dim;
  guint np = sys->pivots->len;

  for (guint A = 0; A < sys->n; A++)
    if (!isfinite (dz[sys->m + A]))
      return TRUE;
  /* vakonomic: the positions' and reconstruction rates use the solved velocities too */
  for (guint i = 0; sys->fb_vak_nf && i < sys->dim; i++)
    if (!isfinite (dz[i]))
      return TRUE;
  for (guint k = 0; k < np; k++)
    {
      double a = fabs (pv[k]);
      if (!(a > 0) || !isfinite (a))
        return TRUE;
      for (guint j = 0; j < np; j++)
        if (sys->pivot_names->pdata[j] == sys->pivot_names->pdata[k] && a < PIVOT_RATIO_MIN * fabs (pv[j]))
          return TRUE;
    }
  return FALSE;
}

/* A X = B in place (A n×n, B n×k, row-major) by LU with partial pivoting; FALSE if a pivot
 * is below 1e-13 of the largest entry of A (singular to working precision). */
static gboolean
lu_solve (guint n, double *A, guint k, double *B)
{
  double scale = 0;
  for (guint i = 0; i < n * n; i++)
    scale = MAX (scale, fabs (A[i]));
  if (!(scale > 0) || !isfinite (scale))
    return FALSE;
  for (guint c = 0; c < n; c++)
    {
      guint p = c;
      for (guint r = c + 1; r < n; r++)
        if (fabs (A[r * n + c]) > fabs (A[p * n + c]))
          p = r;
      if (!(fabs (A[p * n + c]) > 1e-13 * scale))
        return FALSE;
      if (p != c)
        {
          for (guint j = 0; j < n; j++)
            {
              double t = A[c * n + j];
              A[c * n + j] = A[p * n + j];
              A[p * n + j] = t;
            }
          for (guint j = 0; j < k; j++)
            {
              double t = B[c * k + j];
              B[c * k + j] = B[p * k + j];
              B[p * k + j] = t;
            }
        }
      for (guint r = c + 1; r < n; r++)
        {
          double f = A[r * n + c] / A[c * n + c];
          if (f == 0)
            continue;
          for (guint j = c; j < n; j++)
            A[r * n + j] -= f * A[c * n + j];
          for (guint j = 0; j < k; j++)
            B[r * k + j] -= f * B[c * k + j];
        }
    }
  for (guint c = n; c-- > 0;)
    for (guint j = 0; j < k; j++)
      {
        double v = B[c * k + j];
        for (guint i = c + 1; i < n; i++)
          v -= A[c * n + i] * B[i * k + j];
        B[c * k + j] = v / A[c * n + c];
      }
  return TRUE;
}

/* Singular Lagrangians, the numeric counterpart of derive_singular's solves at (T, Z):
 * runs the fallback program, then ẏ_part into YP (n) and the kernel basis into KN (n×k),
 * the matrix of the kernel accelerations into M (q×q: M_ab = g_y^a · K_{cols[b]}) and the
 * right-hand side of M v = −(g_t + g_x ẋ + g_y ẏ_part) into B (q).  Returns 0, or 1 with
 * sim->reason set.  The buffers are parts of sim->fb_work (see rhs_fallback_singular). */
static int
singular_fb_eval (CmlSimulation *sim, double t, const double *z, double *YP, double *KN, double *M, double *B)
{
  CmlSystem *sys = sim->sys;
  guint n = sys->n, r = sys->fb_r, k = sys->fb_k, q = sys->fb_q;
  const double *o = sim->fb_out, *W = o, *R = o + n * n, *rows = R + n;
  double *A = M + q * q + q + k, *X = A + n * n; /* r×r and r×(1 + k) scratch */

  fill_fast (sim, t, z);
  cml_program_run (sys->fb_prog, sim->fast, sim->regs_fb, sim->fb_out);
  for (guint i = 0; i < sys->fb->len; i++)
    if (!isfinite (o[i]))
      {
        /* with a kernel that depends on the point, the constraints K·R divide by the
         * pivots of W_PQ themselves */
        g_snprintf (sim->reason, sizeof sim->reason,
                    "the equations of the constraint algorithm are not finite at this state%s",
                    sys->fb_sing_varying ? " (the kernel of W is computed with a pivot of W that vanishes here)" : "");
        return 1;
      }

  /* 1. the particular acceleration and the kernel basis */
  memset (YP, 0, n * sizeof (double));
  if (!sys->fb_sing_varying)
    {
      /* (Kcᵀ W Kc) u = Kcᵀ R, ẏ_part = Kc u; K is constant */
      const double *Kc = sys->fb_Kc;
      for (guint a = 0; a < r; a++)
        {
          double s = 0;
          for (guint C = 0; C < n; C++)
            s += Kc[C * r + a] * R[C];
          X[a] = s;
          for (guint b = 0; b < r; b++)
            {
              double w = 0;
              for (guint C = 0; C < n; C++)
                for (guint D = 0; D < n; D++)
                  w += Kc[C * r + a] * W[C * n + D] * Kc[D * r + b];
              A[a * r + b] = w;
            }
        }
      if (r && !lu_solve (r, A, 1, X))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the matrix %s is singular", sys->reg_name);
          return 1;
        }
      for (guint C = 0; C < n; C++)
        for (guint a = 0; a < r; a++)
          YP[C] += Kc[C * r + a] * X[a];
      memcpy (KN, sys->fb_K, n * k * sizeof (double));
    }
  else
    {
      /* W_PQ [ẏ_Q | X_F] = [R_P | W_PF],  K_j = e_{F_j} − e_Q X_{F_j} */
      const guint *P = sys->fb_P, *Q = sys->fb_Q, *F = sys->fb_F;
      for (guint a = 0; a < r; a++)
        {
          for (guint b = 0; b < r; b++)
            A[a * r + b] = W[P[a] * n + Q[b]];
          X[a * (1 + k)] = R[P[a]];
          for (guint j = 0; j < k; j++)
            X[a * (1 + k) + 1 + j] = W[P[a] * n + F[j]];
        }
      if (!lu_solve (r, A, 1 + k, X))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the matrix %s is singular", sys->reg_name);
          return 1;
        }
      memset (KN, 0, n * k * sizeof (double));
      for (guint j = 0; j < k; j++)
        {
          KN[F[j] * k + j] = 1;
          for (guint b = 0; b < r; b++)
            KN[Q[b] * k + j] = -X[b * (1 + k) + 1 + j];
        }
      for (guint b = 0; b < r; b++)
        YP[Q[b]] = X[b * (1 + k)];
    }

  /* 2. the equations d/dt g = 0 of the kernel accelerations, the free ones set to 0 */
  for (guint a = 0; a < q; a++)
    {
      const double *c = rows + a * (1 + n), *gy = c + 1;
      double v = *c;
      for (guint C = 0; C < n; C++)
        v += gy[C] * YP[C];
      B[a] = -v;
      for (guint b = 0; b < q; b++)
        {
          double w = 0;
          for (guint C = 0; C < n; C++)
            w += gy[C] * KN[C * k + sys->fb_cols[b]];
          M[a * q + b] = w;
        }
    }
  return 0;
}

/* The accelerations of a singular Lagrangian from the evaluated W, R and the constraints
 * that fix the kernel accelerations: ẏ = ẏ_part + K v, M v = −(g_t + g_x ẋ + g_y ẏ_part),
 * each solved by LU with partial pivoting (docs/theory.md §5, steps 4–7). */
static int
rhs_fallback_singular (CmlSimulation *sim, double t, const double *z, double *dz)
{
  CmlSystem *sys = sim->sys;
  guint m = sys->m, n = sys->n, k = sys->fb_k, q = sys->fb_q;
  double *YP = sim->fb_work, *KN = YP + n, *M = KN + n * k, *B = M + q * q, *v = B + q;

  if (singular_fb_eval (sim, t, z, YP, KN, M, B) != 0)
    {
      sim->reason_t = t;
      return 1;
    }
  if (q && !lu_solve (q, M, 1, B))
    {
      g_snprintf (sim->reason, sizeof sim->reason, "the matrix " KAPPA_MATRIX " is singular");
      sim->reason_t = t;
      return 1;
    }
  memset (v, 0, k * sizeof (double));
  for (guint b = 0; b < q; b++)
    v[sys->fb_cols[b]] = B[b];
  for (guint C = 0; C < n; C++)
    {
      double a = YP[C];
      for (guint j = 0; j < k; j++)
        a += KN[C * k + j] * v[j];
      dz[m + C] = a;
    }
  return 0;
}

/* Singular Lagrangians: the smallest singular value of the matrix of the kernel
 * accelerations against its largest at (T, Z); 1 where there is none, NaN where it
 * cannot be evaluated (so that it is not called singular).  For messages after a failed
 * step (it allocates). */
static double
kappa_matrix_conditioning (CmlSimulation *sim, double t, const double *z)
{
  CmlSystem *sys = sim->sys;
  guint n = sys->n, k = sys->fb_k, q = sys->fb_q;
  double ratio = 0;

  if (!sys->fb_sing || q == 0)
    return 1;
  g_autofree double *buf = g_new0 (double, 4 * n * n + 4 * n + 16);
  double *YP = buf, *KN = YP + n, *M = KN + n * k, *B = M + q * q;
  char reason[sizeof sim->reason];
  memcpy (reason, sim->reason, sizeof reason);
  int status = singular_fb_eval (sim, t, z, YP, KN, M, B);
  memcpy (sim->reason, reason, sizeof reason);
  if (status != 0)
    return NAN;
  gsl_matrix *A = gsl_matrix_alloc (q, q), *V = gsl_matrix_alloc (q, q);
  gsl_vector *S = gsl_vector_alloc (q), *wk = gsl_vector_alloc (q);
  for (guint a = 0; a < q * q; a++)
    gsl_matrix_set (A, a / q, a % q, M[a]);
  gsl_linalg_SV_decomp (A, V, S, wk);
  double smax = gsl_vector_get (S, 0), smin = gsl_vector_get (S, q - 1);
  ratio = smax > 0 ? smin / smax : 0;
  gsl_matrix_free (A);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (wk);
  return ratio;
}

/* The accelerations from the evaluated W, R (and Φ_y, φ_t + Φ_x ẋ): ẏ = W⁻¹(R + Φ_yᵀ λ),
 * λ = −C⁻¹(φ_t + Φ_x ẋ + Φ_y W⁻¹ R), C = Φ_y W⁻¹ Φ_yᵀ (docs/theory.md §2, §3). */
static int
rhs_fallback (CmlSimulation *sim, double t, const double *z, double *dz)
{
  CmlSystem *sys = sim->sys;
  guint m = sys->m, n = sys->n, s = sys->fb_s, k = 1 + s;
  const double *o = sim->fb_out;
  const double *W = o, *R = o + n * n, *Phy = R + n, *b0 = Phy + s * n;
  double *A = sim->fb_work, *X = A + n * n, *Cm = X + n * k, *lam = Cm + s * s;

  if (sys->fb_sing)
    return rhs_fallback_singular (sim, t, z, dz);
  if (!sys->na)
    fill_fast (sim, t, z);
  cml_program_run (sys->fb_prog, sim->fast, sim->regs_fb, sim->fb_out);
  if (sys->fb_vak_nf)
    {
      /* vakonomic: R_ab y = F(0) for the free velocities, then ẋ, ṗ and the
       * reconstruction rates at them */
      guint nf = sys->fb_vak_nf;
      memcpy (A, o, nf * nf * sizeof (double));
      memcpy (X, o + nf * nf, nf * sizeof (double));
      if (!lu_solve (nf, A, 1, X))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the vakonomic regularity matrix R_ab is singular");
          sim->reason_t = t;
          return 1;
        }
      memcpy (sim->fast2, sim->fast, sys->n_fast * sizeof (double));
      memcpy (sim->fast2 + sys->n_fast, X, nf * sizeof (double));
      cml_program_run (sys->fb2_prog, sim->fast2, sim->regs_fb2, dz);
      return 0;
    }
  /* W X = [R | Φ_yᵀ] */
  memcpy (A, W, n * n * sizeof (double));
  for (guint B = 0; B < n; B++)
    {
      X[B * k] = R[B];
      for (guint a = 0; a < s; a++)
        X[B * k + 1 + a] = Phy[a * n + B];
    }
  if (!lu_solve (n, A, k, X))
    {
      g_snprintf (sim->reason, sizeof sim->reason, "the regularity matrix W = ∂²L/∂y∂y is singular");
      sim->reason_t = t;
      return 1;
    }
  if (s)
    {
      for (guint a = 0; a < s; a++)
        {
          double v = b0[a];
          for (guint B = 0; B < n; B++)
            v += Phy[a * n + B] * X[B * k];
          lam[a] = -v;
          for (guint c = 0; c < s; c++)
            {
              double w = 0;
              for (guint B = 0; B < n; B++)
                w += Phy[a * n + B] * X[B * k + 1 + c];
              Cm[a * s + c] = w;
            }
        }
      if (!lu_solve (s, Cm, 1, lam))
        {
          g_snprintf (sim->reason, sizeof sim->reason,
                      "the regularity matrix C = Φ_y W⁻¹ Φ_yᵀ is singular");
          sim->reason_t = t;
          return 1;
        }
    }
  for (guint B = 0; B < n; B++)
    {
      double v = X[B * k];
      for (guint a = 0; a < s; a++)
        v += X[B * k + 1 + a] * lam[a];
      dz[m + B] = v;
    }
  return 0;
}

static int
sim_rhs (double t, const double *z, double *dz, void *data)
{
  CmlSimulation *sim = data;
  CmlSystem *sys = sim->sys;
  const double *pivots = sim->rhs_out + sys->dim;

  sim->reason_t = t;

  if (G_UNLIKELY (sim->slow_pivot_bad >= 0) && sys->fb_prog)
    {
      /* a pivot that depends on the parameters only vanishes at these parameters */
      if (sim->rhs_fn)
        sim->rhs_fn (t, z, sim->fast + 1 + sys->dim, sim->regs_rhs, dz, sim->rhs_out + sys->dim);
      else
        {
          fill_fast (sim, t, z);
          cml_program_run (sys->rhs_prog, sim->fast, sim->regs_rhs, sim->rhs_out);
          memcpy (dz, sim->rhs_out, sys->dim * sizeof (double));
        }
      return rhs_fallback (sim, t, z, dz);
    }
  if (G_UNLIKELY (sim->slow_pivot_bad >= 0))
    {
      g_snprintf (sim->reason, sizeof sim->reason, "the matrix %s is singular",
                  (const char *) sys->pivot_names->pdata[sim->slow_pivot_bad]);
      return 1;
    }

  if (sys->na)
    {
      fill_fast (sim, t, z);
      if (solve_aux (sim) != 0)
        return 1;
    }
  if (sim->rhs_fn)
    sim->rhs_fn (t, z, sim->fast + 1 + sys->dim, sim->regs_rhs, dz, sim->rhs_out + sys->dim);
  else
    {
      if (!sys->na)
        fill_fast (sim, t, z);
      cml_program_run (sys->rhs_prog, sim->fast, sim->regs_rhs, sim->rhs_out);
      memcpy (dz, sim->rhs_out, sys->dim * sizeof (double));
    }
  /* A pivot is chosen once, at a sample point; at this state it may be small against the
   * other pivots of its matrix (or 0) although the matrix is not singular.  Then the
   * accelerations come from the evaluated matrices instead (LU, partial pivoting). */
  if (sys->fb_prog && needs_fallback (sim, dz))
    return rhs_fallback (sim, t, z, dz);
  for (guint j = 0; j < sys->n_fast_pivots; j++)
    {
      guint k = sys->fast_pivots[j];
      double p = pivots[k];
      if (p == 0 || !isfinite (p))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the matrix %s is singular",
                      (const char *) sys->pivot_names->pdata[k]);
          sim->reason_t = t;
          return 1;
        }
    }
  return 0;
}

static int
sim_jac (double t, const double *z, double *dfdz, double *dfdt, void *data)
{
  CmlSimulation *sim = data;
  CmlSystem *sys = sim->sys;
  guint dim = sys->dim;
  if (sim->jac_fn)
    {
      sim->jac_fn (t, z, sim->fast + 1 + dim, sim->regs_jac, dfdz, dfdt);
      return 0;
    }
  /* the Jacobian program's outputs are dim² then dim: write into a scratch then split */
  fill_fast (sim, t, z);
  cml_program_run (sys->jac_prog, sim->fast, sim->regs_jac, sim->work);
  memcpy (dfdz, sim->work, dim * dim * sizeof (double));
  memcpy (dfdt, sim->work + dim * dim, dim * sizeof (double));
  return 0;
}

/* Moves the components [from, to) of Z by the least change that makes the constraint
 * functions vanish (Gauss–Newton, minimum norm), then renormalises quaternions. */
static int
project_range (CmlSimulation *sim, double t, double *z, guint from, guint to, const gboolean *mask)
{
  CmlSystem *sys = sim->sys;
  guint k = sys->h->len, dim = sys->dim;
  double *h = sim->proj_out, *J = sim->proj_out + k;

  for (int it = 0; k && it < 20; it++)
    {
      double hn = 0, zn = 0;
      run_proj (sim, t, z);
      for (guint a = 0; a < k; a++)
        hn = MAX (hn, fabs (h[a]));
      for (guint j = from; j < to; j++)
        zn = MAX (zn, fabs (z[j]));
      if (!isfinite (hn))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the constraint functions are not finite at this state");
          return 1;
        }
      if (hn <= 1e-15 * (1 + zn))
        break;
      /* (J Jᵀ) μ = h over the movable columns; z -= Jᵀ μ */
      for (guint a = 0; a < k; a++)
        {
          for (guint b = 0; b < k; b++)
            {
              double s = 0;
              for (guint j = from; j < to; j++)
                if (!mask || mask[j])
                  s += J[a * dim + j] * J[b * dim + j];
              sim->work[a * k + b] = s;
            }
          sim->work2[a] = h[a];
        }
      if (!cml_small_solve (k, sim->work, sim->work2, 1e-14))
        {
          g_snprintf (sim->reason, sizeof sim->reason, "the constraints cannot be solved for the chosen coordinates");
          return 1;
        }
      double step = 0;
      for (guint j = from; j < to; j++)
        if (!mask || mask[j])
          {
            double s = 0;
            for (guint a = 0; a < k; a++)
              s += J[a * dim + j] * sim->work2[a];
            z[j] -= s;
            step = MAX (step, fabs (s));
          }
      if (step <= 1e-16 * (1 + zn))
        break;
      if (it == 19)
        {
          /* still off the constraint set after 20 Gauss–Newton steps */
          run_proj (sim, t, z);
          double hn2 = 0;
          for (guint a = 0; a < k; a++)
            hn2 = MAX (hn2, fabs (h[a]));
          if (!(hn2 <= 1e-9 * (1 + zn)))
            {
              g_snprintf (sim->reason, sizeof sim->reason,
                          "the state cannot be brought onto the constraint set (residual %.3g)", hn2);
              return 1;
            }
        }
    }
  /* unit quaternions */
  GArray *q = sys->model->quaternions;
  for (guint i = 0; i + 3 < q->len; i += 4)
    {
      guint base = sys->m + sys->n;
      double s = 0;
      for (guint c = 0; c < 4; c++)
        s += z[base + g_array_index (q, guint, i + c)] * z[base + g_array_index (q, guint, i + c)];
      if (s > 0 && isfinite (s))
        {
          s = 1 / sqrt (s);
          for (guint c = 0; c < 4; c++)
            z[base + g_array_index (q, guint, i + c)] *= s;
        }
    }
  return 0;
}

static int
sim_project (double t, double *z, void *data)
{
  CmlSimulation *sim = data;
  sim->reason_t = t;
  if (project_range (sim, t, z, sim->sys->movable_from, sim->sys->movable_to, NULL) == 0)
    return 0;
  /* a first-order Lagrangian's constraints are solved for the velocities through the
   * same matrix that fixes the kernel accelerations: name that matrix when it is what
   * failed */
  if (kappa_matrix_conditioning (sim, t, z) < 1e-6)
    g_snprintf (sim->reason, sizeof sim->reason, "the matrix " KAPPA_MATRIX " became singular");
  return 1;
}

static gboolean
make_integrator (CmlSimulation *sim, GError **error)
{
  CmlSystem *sys = sim->sys;
  CmlOde ode = {
    .dim = sys->dim,
    .rhs = sim_rhs,
    .jacobian = sys->jac_prog ? sim_jac : NULL,
    .project = (sys->h->len || sys->model->quaternions->len) ? sim_project : NULL,
    .user_data = sim,
  };
  CmlIntegrator *integ = cml_integrator_new (&ode, &sim->options, error);
  if (integ == NULL)
    return FALSE;
  g_clear_pointer (&sim->integ, cml_integrator_free);
  sim->integ = integ;
  return TRUE;
}

static void
prepare_all (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  cml_program_prepare (sys->rhs_prog, sim->params, sim->regs_rhs);
  sim->slow_pivot_bad = -1;
  for (guint j = 0; j < sys->n_slow_pivots && sim->slow_pivot_bad < 0; j++)
    {
      double p = sim->regs_rhs[sys->slow_pivot_regs[j]];
      if (p == 0 || !isfinite (p))
        sim->slow_pivot_bad = (int) sys->slow_pivots[j];
    }
  cml_program_prepare (sys->obs_prog, sim->params, sim->regs_obs);
  if (sys->jac_prog)
    cml_program_prepare (sys->jac_prog, sim->params, sim->regs_jac);
  if (sys->proj_prog)
    cml_program_prepare (sys->proj_prog, sim->params, sim->regs_proj);
  if (sys->reg_prog)
    cml_program_prepare (sys->reg_prog, sim->params, sim->regs_reg);
  if (sys->newton_prog)
    cml_program_prepare (sys->newton_prog, sim->params, sim->regs_newton);
  if (sys->fb_prog)
    cml_program_prepare (sys->fb_prog, sim->params, sim->regs_fb);
  if (sys->fb2_prog)
    cml_program_prepare (sys->fb2_prog, sim->params, sim->regs_fb2);
  cml_program_prepare (sys->scene_prog, sim->params, sim->regs_scene);
}

CmlSimulation *
cml_simulation_new (CmlSystem *sys, GError **error)
{
  g_autoptr (CmlSimulation) sim = g_new0 (CmlSimulation, 1);
  guint dim = sys->dim, k = sys->h->len;
  guint wsize = MAX (MAX (k * k, sys->na * sys->na), dim * dim + dim) + 16;

  sim->sys = cml_system_ref (sys);
  sim->params = g_new (double, MAX (sys->n_params, 1));
  for (guint i = 0; i < sys->n_params; i++)
    sim->params[i] = ((CmlParam *) sys->model->params->pdata[i])->value;
  sim->z = g_new0 (double, dim);
  sim->fast = g_new0 (double, sys->n_fast);
  sim->regs_rhs = g_new0 (double, cml_program_n_registers (sys->rhs_prog));
  sim->regs_obs = g_new0 (double, cml_program_n_registers (sys->obs_prog));
  if (sys->jac_prog)
    sim->regs_jac = g_new0 (double, cml_program_n_registers (sys->jac_prog));
  if (sys->proj_prog)
    sim->regs_proj = g_new0 (double, cml_program_n_registers (sys->proj_prog));
  if (sys->reg_prog)
    sim->regs_reg = g_new0 (double, cml_program_n_registers (sys->reg_prog));
  if (sys->newton_prog)
    {
      sim->regs_newton = g_new0 (double, cml_program_n_registers (sys->newton_prog));
      sim->newton_out = g_new0 (double, sys->na + sys->na * sys->na);
    }
  sim->regs_scene = g_new0 (double, cml_program_n_registers (sys->scene_prog));
  if (sys->fb_prog)
    {
      guint n = sys->n, fs = sys->fb_s;
      sim->regs_fb = g_new0 (double, cml_program_n_registers (sys->fb_prog));
      sim->fb_out = g_new0 (double, sys->fb->len);
      sim->fb_work = g_new0 (double, sys->fb_sing ? 4 * n * n + 4 * n + 16 : n * n + n * (1 + fs) + fs * fs + fs + 1);
    }
  if (sys->fb2_prog)
    {
      sim->regs_fb2 = g_new0 (double, cml_program_n_registers (sys->fb2_prog) + 1);
      sim->fast2 = g_new0 (double, sys->n_fast + sys->fb_vak_nf);
    }
  sim->scene_out = g_new0 (double, cml_program_n_outputs (sys->scene_prog));
  sim->rhs_out = g_new0 (double, dim + sys->pivots->len);
  sim->proj_out = g_new0 (double, k + k * dim + 1);
  sim->work = g_new0 (double, wsize);
  sim->work2 = g_new0 (double, MAX (MAX (k, sys->na), dim) + 1);
  sim->report = g_ptr_array_new_with_free_func (g_free);
  sim->options = cml_integrator_options_default ();
  system_ensure_native (sys);
  sim->rhs_fn = sys->rhs_fn;
  sim->jac_fn = sys->jac_fn;
  sim->proj_fn = sys->proj_fn;
  prepare_all (sim);
  if (!make_integrator (sim, error))
    return NULL;
  /* The model's own initial data are only a starting point: a caller that gives values
   * (the command line, the window) resets again with them, and those may be what makes
   * the data consistent.  So a failure here is kept, not returned: the simulation holds
   * the file's values as they are, and advancing it fails with this error until a reset
   * succeeds. */
  if (!cml_simulation_reset (sim, NULL, &sim->pending))
    {
      CmlModel *md = sys->model;
      g_assert (sim->pending != NULL);
      g_ptr_array_set_size (sim->report, 0);
      memset (sim->z, 0, dim * sizeof (double));
      for (guint i = 0; i + 3 < md->quaternions->len; i += 4)
        sim->z[sys->m + sys->n + g_array_index (md->quaternions, guint, i)] = 1;
      for (guint i = 0; i < dim; i++)
        {
          double *v = g_hash_table_lookup (md->initial, sys->state_names[i]);
          if (v)
            sim->z[i] = *v;
        }
    }
  return g_steal_pointer (&sim);
}

void
cml_simulation_free (CmlSimulation *sim)
{
  if (sim == NULL)
    return;
  g_clear_pointer (&sim->integ, cml_integrator_free);
  g_free (sim->params);
  g_free (sim->z);
  g_free (sim->fast);
  g_free (sim->regs_rhs);
  g_free (sim->regs_jac);
  g_free (sim->regs_obs);
  g_free (sim->regs_proj);
  g_free (sim->regs_reg);
  g_free (sim->regs_newton);
  g_free (sim->regs_scene);
  g_free (sim->regs_fb);
  g_free (sim->fb_out);
  g_free (sim->fb_work);
  g_free (sim->regs_fb2);
  g_free (sim->fast2);
  g_free (sim->scene_out);
  g_free (sim->rhs_out);
  g_free (sim->proj_out);
  g_free (sim->newton_out);
  g_free (sim->work);
  g_free (sim->work2);
  g_ptr_array_unref (sim->report);
  g_clear_error (&sim->pending);
  cml_system_unref (sim->sys);
  g_free (sim);
}

CmlSystem *cml_simulation_get_system (const CmlSimulation *sim) { return sim->sys; }
double cml_simulation_get_time (const CmlSimulation *sim) { return sim->t; }
const double *cml_simulation_get_state (const CmlSimulation *sim) { return sim->z; }
const GPtrArray *cml_simulation_get_projection_report (const CmlSimulation *sim) { return sim->report; }
const CmlIntegratorOptions *cml_simulation_get_integrator (const CmlSimulation *sim) { return &sim->options; }
guint64 cml_simulation_n_rhs (const CmlSimulation *sim) { return sim->integ ? cml_integrator_n_rhs (sim->integ) : 0; }

gboolean
cml_simulation_set_param (CmlSimulation *sim, const char *name, double value, GError **error)
{
  CmlModel *md = sim->sys->model;
  int i = cml_model_param_index (md, name);

  if (i < 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s has no parameter “%s”", md->name, name);
      return FALSE;
    }
  if (!cml_model_check_param (md, md->params->pdata[i], value, error))
    return FALSE;
  sim->params[i] = value;
  prepare_all (sim);
  if (sim->integ)
    cml_integrator_reset (sim->integ);
  return TRUE;
}

double
cml_simulation_get_param (const CmlSimulation *sim, const char *name)
{
  int i = cml_model_param_index (sim->sys->model, name);
  return i < 0 ? NAN : sim->params[i];
}

gboolean
cml_simulation_set_integrator (CmlSimulation *sim, const CmlIntegratorOptions *options, GError **error)
{
  CmlIntegratorOptions old = sim->options;
  sim->options = *options;
  if (!make_integrator (sim, error))
    {
      sim->options = old;
      return FALSE;
    }
  return TRUE;
}

static int
state_index (CmlSystem *sys, const char *name)
{
  for (guint i = 0; i < sys->dim; i++)
    if (g_str_equal (sys->state_names[i], name))
      return i;
  return -1;
}

/* Checks that the regularity matrix is invertible at the current state. */
static gboolean
check_regular (CmlSimulation *sim, GError **error)
{
  CmlSystem *sys = sim->sys;
  guint r = sys->reg_rows;
  if (sys->reg_prog == NULL || r == 0)
    return TRUE;
  fill_fast (sim, sim->t, sim->z);
  g_autofree double *M = g_new (double, r * r + r);
  cml_program_run (sys->reg_prog, sim->fast, sim->regs_reg, M);
  for (guint a = 0; a < r; a++)
    M[r * r + a] = 1;
  gboolean finite = TRUE;
  for (guint a = 0; a < r * r; a++)
    finite &= isfinite (M[a]);
  int line = sys->formalism == CML_FORMALISM_EULER_LAGRANGE || sys->formalism == CML_FORMALISM_SINGULAR
               ? sys->model->lagrangian_line
               : sys->model->constraints_line;
  if (!finite || !cml_small_solve (r, M, M + r * r, 1e-12))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR, "%s:%d: the regularity matrix %s is singular at the initial state",
                   sys->model->path, MAX (line, 1), sys->reg_name);
      return FALSE;
    }
  /* every pivot of the derived equations (the kernel accelerations' too) */
  g_autofree double *dz = g_new (double, sys->dim);
  if (sim_rhs (sim->t, sim->z, dz, sim) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR, "%s:%d: %s at the initial state", sys->model->path,
                   MAX (line, 1), sim->reason);
      return FALSE;
    }
  return TRUE;
}

/* ---- initial data -------------------------------------------------------------------
 *
 * The rule, for every kind of system (models/README.md, "Initial data"):
 *   1. the values given (command line, window) override the model file's [initial];
 *   2. the coordinates the constraints determine are solved from the rest: first the
 *      solve-for coordinates that were not given, then, if the constraints still fail,
 *      every coordinate that was not given (least change);
 *   3. only if the given values themselves contradict a constraint are they projected
 *      onto the constraint set, with a note naming each one and the constraint.
 * A vakonomic system has no constraint set to project onto: its free velocities and
 * momenta are tied by the W1 relation, which is solved with every given velocity and
 * momentum held fixed; a given value that contradicts it, or a constraint y^α = Ψ^α, is
 * refused. */

/* Least-change Gauss–Newton on the constraint functions, moving the components of Z
 * where MASK is set: z −= Jᵀ (J Jᵀ)⁺ h, with the pseudo-inverse, so constraints that
 * these components cannot satisfy are left as they are (least squares).  Reset-time only
 * (it allocates). */
static void
project_least_squares (CmlSimulation *sim, double t, double *z, const gboolean *mask)
{
  CmlSystem *sys = sim->sys;
  guint k = sys->h->len, dim = sys->dim;
  const double *h = sim->proj_out, *J = sim->proj_out + k;
  gsl_matrix *A = gsl_matrix_alloc (k, k), *Q = gsl_matrix_alloc (k, k);
  gsl_vector *lam = gsl_vector_alloc (k);
  gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc (k);
  g_autofree double *mu = g_new (double, k);

  for (int it = 0; it < 60; it++)
    {
      double hn = 0, zn = 0, lmax = 0, step = 0;
      run_proj (sim, t, z);
      for (guint a = 0; a < k; a++)
        hn = MAX (hn, fabs (h[a]));
      for (guint j = 0; j < dim; j++)
        if (mask[j])
          zn = MAX (zn, fabs (z[j]));
      if (!isfinite (hn) || hn <= 1e-15 * (1 + zn))
        break;
      for (guint a = 0; a < k; a++)
        for (guint b = 0; b < k; b++)
          {
            double s = 0;
            for (guint j = 0; j < dim; j++)
              if (mask[j])
                s += J[a * dim + j] * J[b * dim + j];
            gsl_matrix_set (A, a, b, s);
          }
      gsl_eigen_symmv (A, lam, Q, ws);
      for (guint a = 0; a < k; a++)
        lmax = MAX (lmax, fabs (gsl_vector_get (lam, a)));
      if (!(lmax > 0) || !isfinite (lmax))
        break;
      /* μ = (J Jᵀ)⁺ h */
      for (guint a = 0; a < k; a++)
        mu[a] = 0;
      for (guint e = 0; e < k; e++)
        {
          double l = gsl_vector_get (lam, e), c = 0;
          if (!(fabs (l) > 1e-12 * lmax))
            continue;
          for (guint a = 0; a < k; a++)
            c += gsl_matrix_get (Q, a, e) * h[a];
          for (guint a = 0; a < k; a++)
            mu[a] += gsl_matrix_get (Q, a, e) * c / l;
        }
      for (guint j = 0; j < dim; j++)
        if (mask[j])
          {
            double s = 0;
            for (guint a = 0; a < k; a++)
              s += J[a * dim + j] * mu[a];
            z[j] -= s;
            step = MAX (step, fabs (s));
          }
      if (!(step > 1e-16 * (1 + zn)))
        break;
    }
  gsl_matrix_free (A);
  gsl_matrix_free (Q);
  gsl_vector_free (lam);
  gsl_eigen_symmv_free (ws);
}

/* The largest |h_a| at Z, and the scale it is compared with (as project_range does). */
static gboolean
on_constraint_set (CmlSimulation *sim, const double *z)
{
  CmlSystem *sys = sim->sys;
  double hn = 0, zn = 0;
  run_proj (sim, 0, z);
  for (guint a = 0; a < sys->h->len; a++)
    hn = MAX (hn, fabs (sim->proj_out[a]));
  for (guint j = sys->movable_from; j < sys->movable_to; j++)
    zn = MAX (zn, fabs (z[j]));
  return hn <= 1e-15 * (1 + zn);
}

/* The value of an initial datum: explicitly given, else the model's, else missing. */
static gboolean
lookup_initial (CmlSystem *sys, GHashTable *given, const char *name, double *v, gboolean *explicit_)
{
  double *p = given ? g_hash_table_lookup (given, name) : NULL;
  *explicit_ = p != NULL;
  if (p == NULL)
    p = g_hash_table_lookup (sys->model->initial, name);
  if (p)
    *v = *p;
  return p != NULL;
}

/* G_A = ∂L̃/∂y^A − Σ_α p_α ∂Ψ^α/∂y^A, the momentum p_A of the free direction A that the
 * W1 relation gives (F_A = p_A − G_A). */
static CmlExpr *
vakonomic_momentum_expr (CmlSystem *sys, guint A)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint k = md->constraints->len, n = md->n;
  g_autofree int *cs = g_new (int, MAX (k, 1));
  g_autofree CmlExpr **ps = g_new (CmlExpr *, MAX (k, 1));
  CmlExpr *Lt, *Ga;

  for (guint a = 0; a < k; a++)
    {
      cs[a] = ((CmlNamedExpr *) md->constraints->pdata[a])->sym;
      ps[a] = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
    }
  Lt = cml_expr_subs (ctx, md->lagrangian, k, cs, ps);
  Ga = cml_expr_diff (ctx, Lt, md->fibre_sym[A]);
  for (guint a = 0; a < k; a++)
    {
      int Bs = -1;
      for (guint B = 0; B < n; B++)
        if (md->fibre_sym[B] == cs[a])
          Bs = B;
      Ga = cml_expr_sub (ctx, Ga, cml_expr_mul (ctx, cml_expr_sym (ctx, md->momenta_sym[Bs]),
                                                cml_expr_diff (ctx, ps[a], md->fibre_sym[A])));
    }
  return Ga;
}

/* Vakonomic initial data (see above).  For each free direction a one of y^a, p_a is
 * held fixed — the user's (both if both are given), else the file's momentum, else the
 * file's velocity, else p_a = 0 — and the W1 relations F_a = p_a − G_a(x, p_α, y) = 0 of
 * the directions whose momentum is fixed are solved (Newton) for their velocities; the
 * momenta of the directions whose velocity is fixed then follow.  Writes the momenta into
 * Z and the free velocities into YF (by fibre index). */
static gboolean
vakonomic_initial (CmlSimulation *sim, GHashTable *given, double *z, double *yv, GError **error)
{
  CmlSystem *sys = sim->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = sys->m, n = sys->n, dim = sys->dim, ns = cml_expr_ctx_n_symbols (ctx);
  g_autofree double *vals = g_new0 (double, ns);
  g_autofree int *con = g_new0 (int, n);            /* constraint index + 1, or 0 */
  g_autofree gboolean *p_fixed = g_new0 (gboolean, n);
  g_autofree gboolean *y_fixed = g_new0 (gboolean, n);
  g_autofree gboolean *y_user = g_new0 (gboolean, n);
  g_autofree gboolean *p_user = g_new0 (gboolean, n);
  g_autofree CmlExpr **G = g_new0 (CmlExpr *, n);
  g_autoptr (GArray) unknown = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint a = 0; a < md->constraints->len; a++)
    for (guint A = 0; A < n; A++)
      if (((CmlNamedExpr *) md->constraints->pdata[a])->sym == md->fibre_sym[A])
        con[A] = a + 1;
  for (guint k = 0; k < sys->n_params; k++)
    vals[sys->param_sym[k]] = sim->params[k];
  vals[md->t_sym] = 0;
  for (guint i = 0; i < dim; i++)
    vals[sys->state_sym[i]] = z[i];

  /* which of (y^a, p_a) is held fixed */
  for (guint A = 0; A < n; A++)
    {
      double v, p;
      gboolean vx, px;
      gboolean has_v = lookup_initial (sys, given, md->fibre[A], &v, &vx);
      gboolean has_p = lookup_initial (sys, given, md->momenta[A], &p, &px);
      y_user[A] = vx;
      p_user[A] = px;
      yv[A] = has_v ? v : 0;
      vals[md->fibre_sym[A]] = yv[A];
      if (con[A])
        continue;
      if (px || (!vx && has_p) || (!vx && !has_v))
        p_fixed[A] = TRUE;
      if (vx || (!px && !has_p && has_v))
        y_fixed[A] = TRUE;
      if (p_fixed[A] && !y_fixed[A])
        g_array_append_val (unknown, A);
    }

  /* Newton on F_a = 0, a with p_a fixed, for their velocities */
  if (unknown->len)
    {
      guint q = unknown->len;
      g_autofree CmlExpr **F = g_new (CmlExpr *, q);
      g_autofree CmlExpr **J = g_new (CmlExpr *, q * q);
      g_autofree double *Jv = g_new (double, q * q);
      g_autofree double *Fv = g_new (double, q);
      gboolean converged = FALSE;
      for (guint a = 0; a < q; a++)
        {
          guint A = g_array_index (unknown, guint, a);
          G[A] = vakonomic_momentum_expr (sys, A);
          F[a] = cml_expr_sub (ctx, cml_expr_sym (ctx, md->momenta_sym[A]), G[A]);
          for (guint b = 0; b < q; b++)
            J[a * q + b] = cml_expr_diff (ctx, F[a], md->fibre_sym[g_array_index (unknown, guint, b)]);
        }
      for (int it = 0; it < 50 && !converged; it++)
        {
          double dn = 0, an = 0;
          for (guint a = 0; a < q; a++)
            {
              Fv[a] = -cml_expr_eval (F[a], vals);
              for (guint b = 0; b < q; b++)
                Jv[a * q + b] = cml_expr_eval (J[a * q + b], vals);
            }
          if (!cml_small_solve (q, Jv, Fv, 1e-14))
            {
              GString *names = g_string_new (NULL);
              for (guint a = 0; a < q; a++)
                g_string_append_printf (names, "%s%s", a ? ", " : "", md->fibre[g_array_index (unknown, guint, a)]);
              g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR,
                           "%s:%d: initial data: the W1 relations cannot be solved for %s from the given momenta "
                           "(the vakonomic regularity matrix R_ab restricted to them is singular here): give these "
                           "velocities instead",
                           md->path, MAX (md->constraints_line, 1), names->str);
              g_string_free (names, TRUE);
              return FALSE;
            }
          for (guint a = 0; a < q; a++)
            {
              int s = md->fibre_sym[g_array_index (unknown, guint, a)];
              vals[s] += Fv[a];
              dn = MAX (dn, fabs (Fv[a]));
              an = MAX (an, fabs (vals[s]));
            }
          if (!isfinite (dn))
            break;
          converged = dn <= 1e-15 * (1 + an);
          /* an affine W1 relation is solved by the first step; one more confirms it */
          if (it >= 1 && dn <= 1e-13 * (1 + an))
            converged = TRUE;
        }
      if (!converged)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "%s:%d: initial data: Newton's method for the free velocities did not converge",
                       md->path, MAX (md->constraints_line, 1));
          return FALSE;
        }
      for (guint a = 0; a < q; a++)
        {
          guint A = g_array_index (unknown, guint, a);
          yv[A] = vals[md->fibre_sym[A]];
        }
    }

  /* the momenta of the directions whose velocity is fixed (p_a = G_a); a momentum given
   * together with its own velocity must agree with it */
  for (guint A = 0; A < n; A++)
    {
      if (con[A] || !y_fixed[A])
        continue;
      if (G[A] == NULL)
        G[A] = vakonomic_momentum_expr (sys, A);
      double g = cml_expr_eval (G[A], vals);
      if (!p_fixed[A])
        {
          z[m + A] = g;
          vals[md->momenta_sym[A]] = g;
        }
      else if (!(fabs (z[m + A] - g) <= 1e-10 * (1 + fabs (g))))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       "%s:%d: initial data: %s = %.17g and %s = %.17g contradict the W1 relation, which gives "
                       "%s = %.17g for this velocity: give the velocity or the momentum, not both",
                       md->path, MAX (md->constraints_line, 1), md->fibre[A], yv[A], md->momenta[A], z[m + A],
                       md->momenta[A], g);
          return FALSE;
        }
    }

  /* constrained velocities follow from the free ones: one that was given must agree */
  for (guint A = 0; A < n; A++)
    {
      double v;
      gboolean vx;
      if (!con[A] || !lookup_initial (sys, given, md->fibre[A], &v, &vx))
        continue;
      CmlNamedExpr *ne = md->constraints->pdata[con[A] - 1];
      double psi = cml_expr_eval (ne->expr, vals);
      if (!(fabs (v - psi) <= 1e-10 * (1 + fabs (psi))))
        {
          g_autofree char *txt = cml_expr_to_string_max (ctx, ne->expr, DESCRIBE_MAX_CHARS);
          /* the line of the constraint, or of the file's value when it came from the file */
          int line = vx ? ne->line : cml_model_line (md, "initial", md->fibre[A]);
          g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                       "%s:%d: initial data: %s%s = %.17g contradicts the vakonomic constraint %s = %s, which "
                       "gives %s = %.17g here: a constrained velocity follows from the free velocities; give "
                       "those (or the momenta) instead",
                       md->path, MAX (line, 1), vx ? "the given " : "", md->fibre[A], v, ne->name, txt,
                       md->fibre[A], psi);
          return FALSE;
        }
    }
  return TRUE;
}

/* Moves the file's initial data, overridden by GIVEN, onto the constraint set by the
 * rule above.  Z holds the merged values on entry; IS_GIVEN marks the user's. */
static gboolean
solve_initial (CmlSimulation *sim, double *z, const gboolean *is_given, gboolean *solved, GError **error)
{
  CmlSystem *sys = sim->sys;
  CmlModel *md = sys->model;
  guint dim = sys->dim, from = sys->movable_from, to = sys->movable_to;
  g_autofree gboolean *mask = g_new0 (gboolean, dim);
  g_autofree double *tmp = g_new (double, dim);
  guint cnt = 0;

  /* 1. the solve-for coordinates that were not given */
  for (guint k = 0; k < md->n_solve_for; k++)
    {
      guint j = md->solve_for[k];
      if (j >= from && j < to && !is_given[j])
        {
          mask[j] = TRUE;
          cnt++;
        }
    }
  if (cnt)
    {
      memcpy (tmp, z, dim * sizeof (double));
      if (cnt == sys->h->len && project_range (sim, 0, tmp, from, to, mask) == 0)
        memcpy (z, tmp, dim * sizeof (double));
      else
        project_least_squares (sim, 0, z, mask);
      for (guint j = 0; j < dim; j++)
        solved[j] = mask[j];
    }
  /* 2. every coordinate that was not given */
  if (!on_constraint_set (sim, z))
    {
      for (guint j = 0; j < dim; j++)
        mask[j] = j >= from && j < to && !is_given[j];
      project_least_squares (sim, 0, z, mask);
    }
  /* 3. the given values too: the least change onto the constraint set */
  if (project_range (sim, 0, z, from, to, NULL) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s:%d: initial data: %s", md->path,
                   MAX (md->constraints_line, 1), sim->reason);
      return FALSE;
    }
  return TRUE;
}

/* "phi2 = v + r*w1 - Omega*x" (nonholonomic) or "x1 = 0" (the constraint algorithm's). */
static char *
constraint_text (CmlSystem *sys, guint a)
{
  CmlModel *md = sys->model;
  if (sys->formalism == CML_FORMALISM_NONHOLONOMIC)
    {
      CmlNamedExpr *ne = md->constraints->pdata[a];
      g_autofree char *e = cml_expr_to_string_max (sys->ctx, ne->expr, 200);
      return g_strdup_printf ("%s = %s = 0 (line %d)", ne->name, e, ne->line);
    }
  g_autofree char *txt = cml_expr_to_string_max (sys->ctx, cml_expr_monic (sys->ctx, sys->h->pdata[a], NULL), 200);
  return g_strdup_printf ("%s = 0", txt);
}

gboolean
cml_simulation_reset (CmlSimulation *sim, GHashTable *given, GError **error)
{
  CmlSystem *sys = sim->sys;
  CmlModel *md = sys->model;
  guint m = sys->m, n = sys->n, dim = sys->dim;
  g_autofree double *z = g_new0 (double, dim);
  g_autofree double *z_given = g_new0 (double, dim);
  g_autofree gboolean *is_given = g_new0 (gboolean, dim);
  g_autofree gboolean *solved = g_new0 (gboolean, dim);
  g_autofree double *yv = g_new0 (double, n);
  GHashTableIter it;
  gpointer key;

  g_ptr_array_set_size (sim->report, 0);
  g_clear_error (&sim->pending);
  /* every given name must be something that can be set */
  if (given)
    {
      g_hash_table_iter_init (&it, given);
      while (g_hash_table_iter_next (&it, &key, NULL))
        {
          const char *nm = key;
          gboolean ok = state_index (sys, nm) >= 0;
          for (guint A = 0; A < n && !ok; A++)
            ok = g_str_equal (md->fibre[A], nm) || g_str_equal (md->momenta[A], nm);
          if (!ok)
            {
              g_autofree char *names = g_strjoinv (", ", sys->state_names);
              g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                           "“%s” is not an initial datum of %s (state: %s)", nm, md->name, names);
              return FALSE;
            }
        }
    }

  /* 1. the file's values, overridden by the given ones; quaternions default to 1 */
  for (guint i = 0; i + 3 < md->quaternions->len; i += 4)
    z[m + n + g_array_index (md->quaternions, guint, i)] = 1;
  for (guint i = 0; i < dim; i++)
    lookup_initial (sys, given, sys->state_names[i], &z[i], &is_given[i]);

  /* 2. the W1 relation (vakonomic) */
  if (sys->formalism == CML_FORMALISM_VAKONOMIC && !vakonomic_initial (sim, given, z, yv, error))
    return FALSE;

  memcpy (z_given, z, dim * sizeof (double));
  sim->t = 0;

  /* 3. the constraint set (nonholonomic, singular); unit quaternions */
  if (sys->h->len)
    {
      if (!solve_initial (sim, z, is_given, solved, error))
        return FALSE;
    }
  else if (md->quaternions->len && project_range (sim, 0, z, sys->movable_from, sys->movable_to, NULL) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s:%d: initial data: %s", md->path,
                   MAX (md->constraints_line, 1), sim->reason);
      return FALSE;
    }

  /* 4. what changed, and why */
  {
    g_autofree double *h0 = NULL;
    gboolean given_moved = FALSE;
    for (guint i = 0; i < dim; i++)
      given_moved |= is_given[i] && fabs (z[i] - z_given[i]) > 1e-12 * (1 + fabs (z_given[i]));
    if (sys->h->len && given_moved)
      {
        /* the constraints at the given values with the others solved: those that still
         * fail are the ones the given values contradict */
        g_autofree double *zs = g_memdup2 (z_given, dim * sizeof (double));
        g_autofree gboolean *mask = g_new0 (gboolean, dim);
        for (guint j = sys->movable_from; j < sys->movable_to; j++)
          mask[j] = !is_given[j];
        project_least_squares (sim, 0, zs, mask);
        run_proj (sim, 0, zs);
        h0 = g_memdup2 (sim->proj_out, (sys->h->len + sys->h->len * dim) * sizeof (double));
      }
    for (guint i = 0; i < dim; i++)
      {
        if (!(fabs (z[i] - z_given[i]) > 1e-12 * (1 + fabs (z_given[i]))) || solved[i])
          continue;
        if (is_given[i] && h0)
          {
            GString *why = g_string_new (NULL);
            double zn = 0;
            for (guint j = sys->movable_from; j < sys->movable_to; j++)
              zn = MAX (zn, fabs (z_given[j]));
            for (guint a = 0; a < sys->h->len; a++)
              if (fabs (h0[a]) > 1e-12 * (1 + zn) && h0[sys->h->len + a * dim + i] != 0)
                {
                  g_autofree char *c = constraint_text (sys, a);
                  g_string_append_printf (why, "%s%s", why->len ? "; " : "", c);
                }
            g_ptr_array_add (sim->report,
                             g_strdup_printf ("%s: %.17g -> %.17g (the given value contradicts %s%s; projected "
                                              "onto the constraint set)",
                                              sys->state_names[i], z_given[i], z[i],
                                              why->len ? "the constraint " : "the constraints",
                                              why->len ? why->str : ""));
            g_string_free (why, TRUE);
          }
        else if (i >= m + n || sys->h->len == 0)
          g_ptr_array_add (sim->report, g_strdup_printf ("%s: %.17g -> %.17g (projected onto the constraint set)",
                                                         sys->state_names[i], z_given[i], z[i]));
        else
          g_ptr_array_add (sim->report,
                           g_strdup_printf ("%s: %.17g -> %.17g (not given: solved from the constraints)",
                                            sys->state_names[i], z_given[i], z[i]));
      }
  }

  memcpy (sim->z, z, dim * sizeof (double));
  if (sim->integ)
    cml_integrator_reset (sim->integ);
  if (sys->na)
    {
      /* Newton for the free velocities starts from the solved ones */
      for (guint a = 0; a < sys->na; a++)
        for (guint A = 0; A < n; A++)
          if (md->fibre_sym[A] == sys->aux_sym[a])
            sim->fast[1 + dim + a] = yv[A];
      fill_fast (sim, 0, sim->z);
      if (solve_aux (sim) != 0)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR, "%s:%d: initial data: %s", md->path,
                       MAX (md->constraints_line, 1), sim->reason);
          return FALSE;
        }
    }
  return check_regular (sim, error);
}

/* After a failed step: if the regularity matrix is nearly singular at the last good state
 * (the accelerations blow up as it becomes singular, and the step size collapses before
 * a pivot is exactly 0), a sentence that says so; else NULL. */
static char *
regularity_lost (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  guint r = sys->reg_rows;
  char *msg = NULL;
  double kc;

  /* a singular Lagrangian: the matrix that fixes the kernel accelerations too */
  if ((kc = kappa_matrix_conditioning (sim, sim->t, sim->z)) < 1e-6)
    return g_strdup_printf ("the matrix " KAPPA_MATRIX " became singular at t = %.17g (its smallest singular value "
                            "is %.3g of the largest there)", sim->t, kc);
  if (sys->reg_prog == NULL || r == 0)
    return NULL;
  g_autofree double *M = g_new (double, r * r);
  if (sys->na)
    {
      fill_fast (sim, sim->t, sim->z);
      solve_aux (sim);
    }
  else
    fill_fast (sim, sim->t, sim->z);
  cml_program_run (sys->reg_prog, sim->fast, sim->regs_reg, M);
  gsl_matrix *A = gsl_matrix_alloc (r, r), *V = gsl_matrix_alloc (r, r);
  gsl_vector *S = gsl_vector_alloc (r), *wk = gsl_vector_alloc (r);
  gboolean finite = TRUE;
  for (guint a = 0; a < r * r; a++)
    {
      finite &= isfinite (M[a]);
      gsl_matrix_set (A, a / r, a % r, isfinite (M[a]) ? M[a] : 0);
    }
  if (finite)
    {
      gsl_linalg_SV_decomp (A, V, S, wk);
      double smax = gsl_vector_get (S, 0), smin = gsl_vector_get (S, r - 1);
      if (!(smin > 1e-6 * smax))
        msg = g_strdup_printf ("the regularity matrix %s became singular at t = %.17g (its smallest singular "
                               "value is %.3g of the largest there)",
                               sys->reg_name, sim->t, smax > 0 ? smin / smax : 0.0);
    }
  gsl_matrix_free (A);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (wk);
  return msg;
}

gboolean
cml_simulation_advance (CmlSimulation *sim, double t1, GError **error)
{
  g_autoptr (GError) err = NULL;
  if (sim->pending)
    {
      g_propagate_error (error, g_error_copy (sim->pending));
      return FALSE;
    }
  sim->reason[0] = '\0';
  /* the integrator's step budget (options.max_steps, 10⁸ steps by default) bounds every
   * call: a span far too long for the steps fails with the integrator's own words */
  if (!cml_integrator_advance (sim->integ, &sim->t, t1, sim->z, &err))
    {
      g_autofree char *singular = NULL;
      if (cml_integrator_error_is_budget (err))
        g_propagate_error (error, g_steal_pointer (&err));
      else if (sim->reason[0])
        {
          /* the reason names the time of the evaluation that failed */
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "%s at t = %.17g (the last step accepted ended at t = %.17g)", sim->reason,
                       sim->reason_t, sim->t);
        }
      else if ((singular = regularity_lost (sim)) != NULL)
        {
          /* not "step size underflow": the motion does not run away, its equations end */
          g_debug ("%s", err->message);
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s: the accelerations are not determined there",
                       singular);
        }
      else
        g_propagate_error (error, g_steal_pointer (&err));
      return FALSE;
    }
  return TRUE;
}

void
cml_simulation_set_state (CmlSimulation *sim, double t, const double *z)
{
  sim->t = t;
  memcpy (sim->z, z, sim->sys->dim * sizeof (double));
  g_clear_error (&sim->pending);
  if (sim->integ)
    cml_integrator_reset (sim->integ);
}

guint
cml_simulation_step_state_size (const CmlSimulation *sim)
{
  return cml_integrator_step_state_size (sim->integ);
}

gboolean
cml_simulation_step_state_is_exact (const CmlSimulation *sim)
{
  return cml_integrator_step_state_is_exact (sim->integ);
}

void
cml_simulation_save_step_state (const CmlSimulation *sim, double *out)
{
  cml_integrator_save_step_state (sim->integ, sim->z, out);
}

void
cml_simulation_restore (CmlSimulation *sim, double t, const double *z, const double *step_state)
{
  cml_simulation_set_state (sim, t, z);
  cml_integrator_restore_step_state (sim->integ, sim->z, step_state);
}

void
cml_simulation_observe (CmlSimulation *sim, double *out)
{
  fill_fast (sim, sim->t, sim->z);
  if (sim->sys->na)
    solve_aux (sim);
  cml_program_run (sim->sys->obs_prog, sim->fast, sim->regs_obs, out);
}

gboolean
cml_simulation_eval_rhs (CmlSimulation *sim, double *dzdt, GError **error)
{
  if (sim_rhs (sim->t, sim->z, dzdt, sim) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s at t = %g", sim->reason, sim->t);
      return FALSE;
    }
  return TRUE;
}

gboolean
cml_simulation_eval_rhs_at (CmlSimulation *sim, double t, const double *z, double *dzdt, GError **error)
{
  if (sim_rhs (t, z, dzdt, sim) != 0)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC, "%s at t = %g", sim->reason, t);
      return FALSE;
    }
  return TRUE;
}

double
cml_simulation_residual (CmlSimulation *sim)
{
  CmlSystem *sys = sim->sys;
  double s = 0;
  if (sys->h->len == 0)
    return 0;
  run_proj (sim, sim->t, sim->z);
  for (guint a = 0; a < sys->h->len; a++)
    s += sim->proj_out[a] * sim->proj_out[a];
  return sqrt (s);
}

guint
cml_simulation_regularity_matrix (CmlSimulation *sim, double *out, guint max_entries)
{
  CmlSystem *sys = sim->sys;
  guint r = sys->reg_rows;
  if (sys->reg_prog == NULL || r * r > max_entries)
    return 0;
  fill_fast (sim, sim->t, sim->z);
  cml_program_run (sys->reg_prog, sim->fast, sim->regs_reg, out);
  return r;
}

double
cml_simulation_eval_expr (CmlSimulation *sim, CmlExpr *f)
{
  CmlSystem *sys = sim->sys;
  guint ns = cml_expr_ctx_n_symbols (sys->ctx);
  g_autofree double *vals = g_new0 (double, ns);
  CmlExpr *e = user_expr (sys, f);

  for (guint k = 0; k < sys->n_params; k++)
    vals[sys->param_sym[k]] = sim->params[k];
  vals[sys->model->t_sym] = sim->t;
  for (guint i = 0; i < sys->dim; i++)
    vals[sys->state_sym[i]] = sim->z[i];
  if (sys->na)
    {
      fill_fast (sim, sim->t, sim->z);
      solve_aux (sim);
      for (guint a = 0; a < sys->na; a++)
        vals[sys->aux_sym[a]] = sim->fast[1 + sys->dim + a];
    }
  return cml_expr_eval (e, vals);
}

guint
cml_system_n_scene_values (const CmlSystem *sys)
{
  return sys->n_scene;
}

int
cml_system_scene_offset (const CmlSystem *sys, guint object, const char *key)
{
  g_autofree char *k = g_strdup_printf ("%u\n%s", object, key);
  return (int) GPOINTER_TO_UINT (g_hash_table_lookup (sys->scene_offsets, k)) - 1;
}

void
cml_simulation_eval_scene (CmlSimulation *sim, double *out)
{
  CmlSystem *sys = sim->sys;
  fill_fast (sim, sim->t, sim->z);
  if (sys->na)
    solve_aux (sim);
  cml_program_run (sys->scene_prog, sim->fast, sim->regs_scene, sim->scene_out);
  memcpy (out, sim->scene_out, sys->n_scene * sizeof (double));
}

gboolean
cml_simulation_set_native (CmlSimulation *sim, gboolean native)
{
  CmlSystem *sys = sim->sys;

  sim->rhs_fn = native ? sys->rhs_fn : NULL;
  sim->jac_fn = native ? sys->jac_fn : NULL;
  sim->proj_fn = native ? sys->proj_fn : NULL;
  return sim->rhs_fn != NULL;
}

gboolean
cml_simulation_is_native (const CmlSimulation *sim)
{
  return sim->rhs_fn != NULL;
}
