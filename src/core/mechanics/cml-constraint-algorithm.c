/* cml-constraint-algorithm.c — the constraint algorithm for a singular Lagrangian, with
 * the second-order (SODE) condition built in.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §5 (Iglesias, Marrero, Martín de Diego and Sosa, 2008, sections 3–4).
 * When det W = 0 the equations W ẏ = R do not determine the motion.  The steps:
 *
 *   1. Rank: r = rank W < n, the same everywhere (r = 0 is allowed).
 *   2. Kernel: a basis K_k of ker W as expressions (it may depend on the point).
 *   3. Primary constraints: g_k = K_k · R = 0.
 *   4. Accelerations: ẏ = ẏ_part + Σ κ_k K_k, with ẏ_part a particular solution of
 *      W ẏ = R on the complement of the kernel.
 *   5. Consistency: for each constraint g, ġ = ∂g/∂x ρ y + ∂g/∂y ẏ + ∂g/∂t either fixes a
 *      kernel acceleration κ_k still free or, reduced modulo the known constraints, is
 *      zero or a new (secondary) constraint.
 *   6. Repeat 5 on the new constraints until none appear (at most dim E rounds).
 *   7. Gauge freedom: the kernel accelerations that no constraint fixes are set to 0.
 *   8. Final constraint set: the union of all constraints, kept by projection.
 *
 * "Vanishes on the constraint set" is decided at random points projected onto it
 * (Gauss–Newton), with the check of a model's solve-for coordinates against its
 * constraints, in cml-constraint-samples.c.  Also here: the text of constraints and points
 * in messages and steps.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <glib/gi18n-lib.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-symsolve.h"

/* ---- (d) the constraint algorithm -------------------------------------------------- */

/* Removes from TEXT, in place, the factors 1 that a coefficient rounded to 1 leaves in
 * print ("1*(u + v)", "1*u"; typeset "1(u + v)", "1u"): a number 1 standing alone, after
 * the start, a space, "(", ",", "{" or a minus, and before "*" (plain) or a name or "("
 * (typeset).  Returns TEXT. */
char *
cml_sys_drop_unit_factors (char *text, gboolean pretty)
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

char *
cml_sys_print_constraint (CmlSystem *sys, CmlExpr *g)
{
  g_autofree char *s = cml_sys_drop_unit_factors (cml_expr_to_string_max (sys->ctx, cml_expr_monic (sys->ctx, g, NULL),
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
const char *
cml_sys_coordinate_name (CmlSystem *sys, guint j)
{
  CmlModel *md = sys->model;
  return j < md->m ? md->base[j] : md->fibre[j - md->m];
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
      g_autofree double *sv = cml_sys_make_sample (sys, seed);
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

/* A kernel of W that depends on the point (doc/theory.md §5, step 2, symbolically).  At the
 * sample point S1, complete pivoting picks r rows P and r columns Q of W with W_PQ
 * invertible; the other columns F are free.  Then, W being symmetric,
 *   K_j = e_{F_j} − e_Q W_PQ⁻¹ W_{P,F_j}   spans ker W (left and right),
 *   ẏ_part = e_Q W_PQ⁻¹ R_P               solves W ẏ = R where the K_j·R vanish,
 * one symbolic elimination with the pivots of W_PQ checked at run time like any other.
 * ẏ = ẏ_part + Σ K_j v_j; the primary constraints are G_j = K_j·R. */
static gboolean
kernel_symbolic (CmlSystem *sys, CmlDerivation *d, Mechanics *mc, const double *s1, guint r,
                 const int *vsym, CmlExpr **ydot, CmlExpr **gprim, guint *Pout, guint *Qout, guint *Fout,
                 GError **error)
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
        return cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
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
    return cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_SINGULAR,
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
    return cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                       "W = ∂²L/∂y∂y is singular with a rank that changes from point to point; the constraint "
                       "algorithm needs W of the same rank everywhere");
  for (guint a = 0; a < r; a++)
    cml_derivation_add_pivot (d, piv[a], "W restricted to (ker W)^⊥");
  d->reg_name = N_("W restricted to (ker W)^⊥");
  d->reg_rows = r;
  d->reg = g_memdup2 (Wpq, r * r * sizeof (CmlExpr *));
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
        e = cml_sys_madd (ctx, e, K[A * k + j], cml_sys_sym (ctx, vsym[j]));
      ydot[A] = e;
    }
  for (guint j = 0; j < k; j++)
    {
      CmlExpr *g = ZERO (ctx);
      for (guint A = 0; A < n; A++)
        g = cml_sys_madd (ctx, g, K[A * k + j], mc->R[A]);
      gprim[j] = g;
    }

  g_ptr_array_add (d->steps, g_strdup_printf (_("rank W = %u of %u: the Lagrangian is singular"), r, n));
  {
    GString *s = g_string_new ("ker W = span{");
    for (guint j = 0; j < k; j++)
      {
        g_string_append (s, j ? ", (" : "(");
        for (guint A = 0; A < n; A++)
          {
            g_autofree char *c = cml_sys_drop_unit_factors (cml_expr_to_string_max (ctx, K[A * k + j], DESCRIBE_MAX_CHARS), FALSE);
            g_string_append_printf (s, "%s%s", A ? ", " : "", c);
          }
        g_string_append (s, ")");
      }
    g_string_append (s, _("} in the basis of sections: it depends on the point"));
    g_ptr_array_add (d->steps, g_string_free (s, FALSE));
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

/* The constraint algorithm's state as its steps hand it on (cml_sys_derive_singular). */
typedef struct
{
  CmlSystem  *sys;       /* what the algorithm reads: the model, the context, the sample */
  CmlDerivation *d;      /* what it derives */
  Mechanics  *mc;
  double     *s1;        /* the generic sample point */
  guint       r, k;      /* the rank of W and the dimension of its kernel */
  double     *K;         /* n×k: a basis of the kernel (a constant kernel) */
  double     *Kc;        /* n×r: a basis of its complement */
  gboolean    constant;  /* the kernel is the same at every point */
  int        *vsym;      /* k: the symbols of the kernel accelerations κ */
  int        *move;      /* m + n: the symbols a projection onto the constraints moves */
  CmlExpr   **ydot;      /* n: ẏ in terms of κ */
  CmlExpr   **gprim;     /* k: K_k · R */
  guint      *P, *Q, *F; /* a kernel that depends on the point: see kernel_symbolic */
  GPtrArray  *G;         /* CmlExpr*: the constraints found so far */
  Samples     samples;   /* points on {G = 0} */
  GPtrArray  *queue;     /* CmlExpr*: constraints whose derivative is still to be examined */
  GPtrArray  *veq;       /* CmlExpr*: the equations d/dt g = 0 that fix kernel accelerations */
  GPtrArray  *veq_g;     /* CmlExpr*: the constraint g of each */
} Singular;

/* Steps 1 and 2 at a generic point: the rank r of W by SVD, a basis K of ker W and Kc of
 * its complement there, and whether W K = 0 elsewhere too (a constant kernel; else the
 * kernel depends on the point, which needs r > 0). */
static gboolean
singular_rank (Singular *st, GError **error)
{
  CmlSystem *sys = st->sys;
  CmlModel *md = st->sys->model;
  CmlExprCtx *ctx = st->sys->ctx;
  Mechanics *mc = st->mc;
  guint n = st->sys->model->n;
  const double *s1 = st->s1;
  gsl_matrix *Wn = gsl_matrix_alloc (n, n);
  gsl_matrix *V = gsl_matrix_alloc (n, n);
  gsl_vector *S = gsl_vector_alloc (n);
  gsl_vector *wk = gsl_vector_alloc (n);
  double smax;
  guint r, k;
  double *K, *Kc;
  int *vsym;
  gboolean constant = TRUE;
  gboolean ok = FALSE;

  /* 1. the rank of W by SVD at a generic point */
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      {
        double w = cml_expr_eval (mc->W[A * n + B], s1);
        if (!isfinite (w))
          {
            g_autofree char *at = sample_point_text (sys, s1);
            cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
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
  st->vsym = vsym = g_new (int, k);
  for (guint j = 0; j < k; j++)
    {
      g_autofree char *nm = g_strdup_printf ("(kernel multiplier %u)", j + 1);
      vsym[j] = cml_expr_ctx_intern (ctx, nm);
    }
  st->K = K = g_new (double, n * k);
  st->Kc = Kc = g_new (double, MAX (n * r, 1));
  if (r == 0)
    {
      /* W = 0: a first-order Lagrangian (L = A(x)·y − H(x)), every velocity in ker W —
       * unless L does not depend on the velocities at all */
      gboolean depends = FALSE;
      for (guint32 seed = 11; seed < 14 && !depends; seed++)
        {
          g_autofree double *sv = cml_sys_make_sample (sys, seed);
          for (guint A = 0; A < n; A++)
            if (!cml_expr_is_zero (mc->Ly[A]) && cml_expr_eval (mc->Ly[A], sv) != 0)
              depends = TRUE;
        }
      if (!depends)
        {
          cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
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
      g_autofree double *sv = cml_sys_make_sample (sys, seed);
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
      cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                  "W = ∂²L/∂y∂y is singular with a rank that changes from point to point (0 at a sample "
                  "point, not elsewhere); the constraint algorithm needs W of the same rank everywhere");
      goto out;
    }
  st->r = r;
  st->k = k;
  st->constant = constant;
  ok = TRUE;

out:
  gsl_matrix_free (Wn);
  gsl_matrix_free (V);
  gsl_vector_free (S);
  gsl_vector_free (wk);
  return ok;
}

/* Step 4, the accelerations: ẏ = ẏ_part + Σ κ_k K_k with the kernel accelerations κ_k
 * as symbols, and K_k · R, the candidates for primary constraints; for a constant kernel
 * also the steps' lines for rank and kernel (a kernel that depends on the point:
 * kernel_symbolic, which finds it too). */
static gboolean
singular_accelerations (Singular *st, GError **error)
{
  CmlSystem *sys = st->sys;
  CmlDerivation *d = st->d;
  CmlModel *md = st->sys->model;
  CmlExprCtx *ctx = st->sys->ctx;
  Mechanics *mc = st->mc;
  guint n = st->sys->model->n;
  guint r = st->r;
  guint k = st->k;
  const double *s1 = st->s1;
  const double *K = st->K;
  const double *Kc = st->Kc;
  gboolean constant = st->constant;
  const int *vsym = st->vsym;
  CmlExpr **ydot = st->ydot;
  CmlExpr **gprim = st->gprim;
  guint *P = st->P;
  guint *Q = st->Q;
  guint *F = st->F;

  if (!constant)
    {
      /* 2'. a kernel that depends on the point: symbolically */
      if (!kernel_symbolic (sys, d, mc, s1, r, vsym, ydot, gprim, P, Q, F, error))
        return FALSE;
    }
  else
    {
      g_ptr_array_add (d->steps,
                       r == 0 ? g_strdup_printf (_("rank W = %u of %u: the Lagrangian is singular (first order in the "
                                                   "velocities: every velocity is in the kernel of W)"), r, n)
                              : g_strdup_printf (_("rank W = %u of %u: the Lagrangian is singular"), r, n));
      {
        GString *s = g_string_new ("ker W = span{");
        for (guint j = 0; j < k; j++)
          {
            g_string_append (s, j ? ", (" : "(");
            for (guint A = 0; A < n; A++)
              g_string_append_printf (s, "%s%g", A ? ", " : "", K[A * k + j]);
            g_string_append (s, ")");
          }
        g_string_append (s, _("} in the basis of sections"));
        g_ptr_array_add (d->steps, g_string_free (s, FALSE));
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
              br[a] = cml_sys_madd (ctx, br[a], cml_expr_num (ctx, Kc[A * r + a]), mc->R[A]);
          for (guint b = 0; b < r; b++)
            {
              CmlExpr *e = ZERO (ctx);
              for (guint A = 0; A < n; A++)
                for (guint B = 0; B < n; B++)
                  if (Kc[A * r + a] != 0 && Kc[B * r + b] != 0)
                    e = cml_sys_madd (ctx, e, cml_expr_num (ctx, Kc[A * r + a] * Kc[B * r + b]), mc->W[A * n + B]);
              Wr[a * r + b] = e;
            }
        }
      if (r > 0)
        {
          if (!cml_symsolve (ctx, r, Wr, 1, br, s1, u, piv, NULL))
            {
              cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_SINGULAR,
                          "W restricted to the complement of its kernel is singular");
              return FALSE;
            }
          for (guint a = 0; a < r; a++)
            cml_derivation_add_pivot (d, piv[a], "W restricted to (ker W)^⊥");
          d->reg_name = N_("W restricted to (ker W)^⊥");
          d->reg_rows = r;
          d->reg = g_memdup2 (Wr, r * r * sizeof (CmlExpr *));
        }

      for (guint A = 0; A < n; A++)
        {
          CmlExpr *e = ZERO (ctx);
          for (guint a = 0; a < r; a++)
            if (Kc[A * r + a] != 0)
              e = cml_sys_madd (ctx, e, cml_expr_num (ctx, Kc[A * r + a]), u[a]);
          for (guint j = 0; j < k; j++)
            if (K[A * k + j] != 0)
              e = cml_sys_madd (ctx, e, cml_expr_num (ctx, K[A * k + j]), cml_sys_sym (ctx, vsym[j]));
          ydot[A] = e;
        }
      for (guint j = 0; j < k; j++)
        {
          CmlExpr *g = ZERO (ctx);
          for (guint A = 0; A < n; A++)
            if (K[A * k + j] != 0)
              g = cml_sys_madd (ctx, g, cml_expr_num (ctx, K[A * k + j]), mc->R[A]);
          gprim[j] = g;
        }
    }
  return TRUE;
}

/* Step 3, the primary constraints g_k = K_k · R that do not vanish already. */
static gboolean
singular_primary (Singular *st)
{
  CmlSystem *sys = st->sys;
  CmlDerivation *d = st->d;
  guint m = st->sys->model->m;
  guint n = st->sys->model->n;
  guint k = st->k;
  const int *move = st->move;
  CmlExpr **gprim = st->gprim;
  GPtrArray *G = st->G;
  GPtrArray *queue = st->queue;

  /* 3. primary constraints g_j = K_j · R */
  for (guint j = 0; j < k; j++)
    {
      CmlExpr *g = gprim[j];
      if (cml_sys_vanishes_on (sys, g, G, move, m + n, &st->samples))
        continue;
      g_ptr_array_add (G, g);
      g_ptr_array_add (queue, g);
      g_autofree char *txt = cml_sys_print_constraint (sys, g);
      g_ptr_array_add (d->steps, g_strdup_printf (_("primary constraint: %s"), txt));
    }
  if (G->len == 0)
    g_ptr_array_add (d->steps, g_strdup (_("no primary constraints")));
  return TRUE;
}

/* Steps 5 and 6, the consistency loop: d/dt g = 0 along ẏ either fixes kernel
 * accelerations, or is a new (secondary) constraint, or holds on the constraint set, until
 * no new constraint appears. */
static gboolean
singular_consistency (Singular *st, GError **error)
{
  CmlSystem *sys = st->sys;
  CmlDerivation *d = st->d;
  CmlModel *md = st->sys->model;
  CmlExprCtx *ctx = st->sys->ctx;
  Mechanics *mc = st->mc;
  guint m = st->sys->model->m;
  guint n = st->sys->model->n;
  guint k = st->k;
  const int *vsym = st->vsym;
  const int *move = st->move;
  CmlExpr **ydot = st->ydot;
  GPtrArray *G = st->G;
  GPtrArray *queue = st->queue;
  GPtrArray *veq = st->veq;
  GPtrArray *veq_g = st->veq_g;

  /* 4. the consistency loop: d/dt g = 0 along ẏ either fixes some v or is a new constraint,
   * one level after g's (the primary constraints are level 1) */
  g_autoptr (GHashTable) level = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint iter = 0; queue->len && iter < 4 * (m + n) + 4; iter++)
    {
      CmlExpr *g = queue->pdata[0];
      guint g_level = GPOINTER_TO_UINT (g_hash_table_lookup (level, g));
      g_level = g_level ? g_level : 1;
      g_ptr_array_remove_index (queue, 0);
      CmlExpr *dg = cml_expr_diff (ctx, g, md->t_sym);
      for (guint i = 0; i < m; i++)
        dg = cml_sys_madd (ctx, dg, cml_expr_diff (ctx, g, md->base_sym[i]), mc->xdot[i]);
      for (guint A = 0; A < n; A++)
        dg = cml_sys_madd (ctx, dg, cml_expr_diff (ctx, g, md->fibre_sym[A]), ydot[A]);
      gboolean has_v = FALSE;
      for (guint j = 0; j < k; j++)
        if (!cml_sys_vanishes_on (sys, cml_expr_diff (ctx, dg, vsym[j]), G, move, m + n, &st->samples))
          has_v = TRUE;
      g_autofree char *gtxt = cml_sys_drop_unit_factors (cml_expr_to_string_max (ctx, cml_expr_monic (ctx, g, NULL), DESCRIBE_MAX_CHARS),
                                                 FALSE);
      if (has_v)
        {
          g_ptr_array_add (veq, dg);
          g_ptr_array_add (veq_g, g);
          g_ptr_array_add (d->steps, g_strdup_printf (_("d/dt (%s) = 0 fixes kernel accelerations"), gtxt));
        }
      else if (!cml_sys_vanishes_on (sys, dg = drop_multipliers (sys, dg, vsym, k), G, move, m + n, &st->samples))
        {
          g_ptr_array_add (G, dg);
          g_ptr_array_add (queue, dg);
          g_autofree char *txt = cml_sys_print_constraint (sys, dg);
          g_hash_table_insert (level, dg, GUINT_TO_POINTER (g_level + 1));
          if (g_level + 1 == 2)
            g_ptr_array_add (d->steps, g_strdup_printf (_("secondary constraint from d/dt (%s) = 0: %s"), gtxt, txt));
          else if (g_level + 1 == 3)
            g_ptr_array_add (d->steps, g_strdup_printf (_("tertiary constraint from d/dt (%s) = 0: %s"), gtxt, txt));
          else if (g_level + 1 == 4)
            g_ptr_array_add (d->steps, g_strdup_printf (_("quaternary constraint from d/dt (%s) = 0: %s"), gtxt, txt));
          else
            g_ptr_array_add (d->steps, g_strdup_printf (_("constraint of level %u from d/dt (%s) = 0: %s"),
                                                          g_level + 1, gtxt, txt));
        }
      else
        g_ptr_array_add (d->steps, g_strdup_printf (_("d/dt (%s) = 0 holds on the constraint set"), gtxt));
    }
  if (queue->len)
    {
      cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_UNSUPPORTED,
                  "the constraint algorithm did not stabilise");
      return FALSE;
    }
  return TRUE;
}

/* Step 7: the equations d/dt g = 0 solved for the kernel accelerations they fix; the
 * others are gauge freedom, set to 0.  Also the numeric fallback of these solves. */
static gboolean
singular_kernel_accelerations (Singular *st, GError **error)
{
  CmlSystem *sys = st->sys;
  CmlDerivation *d = st->d;
  CmlModel *md = st->sys->model;
  CmlExprCtx *ctx = st->sys->ctx;
  Mechanics *mc = st->mc;
  guint m = st->sys->model->m;
  guint n = st->sys->model->n;
  guint r = st->r;
  guint k = st->k;
  const double *s1 = st->s1;
  const double *K = st->K;
  const double *Kc = st->Kc;
  gboolean constant = st->constant;
  const int *vsym = st->vsym;
  CmlExpr **ydot = st->ydot;
  guint *P = st->P;
  guint *Q = st->Q;
  guint *F = st->F;
  GPtrArray *veq = st->veq;
  GPtrArray *veq_g = st->veq_g;

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
            cml_sys_fail_model (sys, error, md->lagrangian_line, CML_ERROR_SINGULAR,
                        "the equations for the kernel accelerations are singular");
            return FALSE;
          }
        for (guint a = 0; a < q; a++)
          {
            vsol[g_array_index (cols, guint, a)] = xm[a];
            cml_derivation_add_pivot (d, piv[a], KAPPA_MATRIX);
          }
      }
    for (guint j = 0; j < k; j++)
      {
        g_autofree char *txt = cml_sys_drop_unit_factors (cml_expr_to_string_max (ctx, vsol[j], DESCRIBE_MAX_CHARS), FALSE);
        /* κ with a subscript: a name no model can use, so it never reads as a parameter */
        g_autofree char *sub = subscript_digits (j + 1);
        if (fixed[j])
          g_ptr_array_add (d->steps, g_strdup_printf (_("kernel acceleration κ%s = %s (fixed by the SODE condition)"), sub, txt));
        else
          {
            d->gauge = TRUE;
            g_ptr_array_add (d->steps,
                             g_strdup_printf (_("kernel acceleration κ%s is not determined: gauge freedom, set to 0"), sub));
          }
      }
    if (!d->gauge)
      g_ptr_array_add (d->steps, g_strdup (_("no gauge freedom")));
    for (guint A = 0; A < n; A++)
      ydot[A] = cml_expr_subs (ctx, ydot[A], k, vsym, vsol);

    /* the numeric fallback of these solves (see rhs_fallback_singular): W, R, and for each
     * equation that fixes a κ, the constraint's g_t + g_x ẋ and g_y */
    d->fb_sing = TRUE;
    d->fb_sing_varying = !constant;
    d->fb_r = r;
    d->fb_k = k;
    d->fb_q = q;
    d->fb_cols = g_new (guint, MAX (q, 1));
    for (guint a = 0; a < q; a++)
      d->fb_cols[a] = g_array_index (cols, guint, a);
    if (constant)
      {
        d->fb_Kc = g_memdup2 (Kc, MAX (n * r, 1) * sizeof (double));
        d->fb_K = g_memdup2 (K, MAX (n * k, 1) * sizeof (double));
      }
    else
      {
        d->fb_P = g_memdup2 (P, MAX (r, 1) * sizeof (guint));
        d->fb_Q = g_memdup2 (Q, MAX (r, 1) * sizeof (guint));
        d->fb_F = g_memdup2 (F, MAX (k, 1) * sizeof (guint));
      }
    for (guint A = 0; A < n * n; A++)
      g_ptr_array_add (d->fb, mc->W[A]);
    for (guint A = 0; A < n; A++)
      g_ptr_array_add (d->fb, mc->R[A]);
    for (guint a = 0; a < q; a++)
      {
        CmlExpr *g = veq_g->pdata[g_array_index (rows, guint, a)];
        CmlExpr *c = cml_expr_diff (ctx, g, md->t_sym);
        for (guint i = 0; i < m; i++)
          c = cml_sys_madd (ctx, c, cml_expr_diff (ctx, g, md->base_sym[i]), mc->xdot[i]);
        g_ptr_array_add (d->fb, c);
        for (guint A = 0; A < n; A++)
          g_ptr_array_add (d->fb, cml_expr_diff (ctx, g, md->fibre_sym[A]));
      }
  }
  return TRUE;
}

/* Step 8, the final constraint set: recorded, checked against the model's solve-for
 * coordinates, and the right-hand side and the projection's constraints set. */
static gboolean
singular_final (Singular *st, GError **error)
{
  CmlSystem *sys = st->sys;
  CmlDerivation *d = st->d;
  CmlModel *md = st->sys->model;
  Mechanics *mc = st->mc;
  guint m = st->sys->model->m;
  guint n = st->sys->model->n;
  const int *move = st->move;
  CmlExpr **ydot = st->ydot;
  GPtrArray *G = st->G;

  {
    GString *s = g_string_new (_("final constraint set S^X: {"));
    for (guint a = 0; a < G->len; a++)
      {
        g_autofree char *txt = cml_sys_print_constraint (sys, G->pdata[a]);
        g_string_append_printf (s, "%s%s", a ? ", " : "", txt);
      }
    g_string_append (s, "}");
    g_ptr_array_add (d->steps, g_string_free (s, FALSE));
  }

  /* solve-for: as many coordinates as constraints, and the constraints solvable for them */
  if (md->n_solve_for && !cml_sys_check_solve_for (sys, G, move, m + n, &st->samples, error))
    return FALSE;

  for (guint i = 0; i < m; i++)
    d->rhs[i] = mc->xdot[i];
  for (guint A = 0; A < n; A++)
    d->rhs[m + A] = ydot[A];
  for (guint a = 0; a < G->len; a++)
    g_ptr_array_add (d->h, G->pdata[a]);
  d->movable_from = 0;
  d->movable_to = m + n;
  return TRUE;
}

/* The constraint algorithm (doc/theory.md §5), step by step; the steps are recorded in
 * the derivation's steps for people. */
CmlDerivation *
cml_sys_derive_singular (CmlSystem *sys, Mechanics *mc, GError **error)
{
  CmlModel *md = sys->model;
  guint m = md->m, n = md->n;
  g_autoptr (CmlDerivation) d = cml_derivation_new (m + n);
  Singular st = { .sys = sys, .d = d, .mc = mc, .constant = TRUE, .samples = { G_MAXUINT, { NULL } } };
  gboolean ok;

  st.s1 = cml_sys_make_sample (sys, 7);
  st.G = g_ptr_array_new ();
  st.queue = g_ptr_array_new ();
  st.veq = g_ptr_array_new ();
  st.veq_g = g_ptr_array_new ();
  st.P = g_new (guint, MAX (n, 1));
  st.Q = g_new (guint, MAX (n, 1));
  st.F = g_new (guint, MAX (n, 1));
  st.move = g_new (int, m + n);
  st.ydot = g_new (CmlExpr *, n);
  st.gprim = g_new (CmlExpr *, n);

  for (guint i = 0; i < m; i++)
    st.move[i] = md->base_sym[i];
  for (guint A = 0; A < n; A++)
    st.move[m + A] = md->fibre_sym[A];

  ok = singular_rank (&st, error) && singular_accelerations (&st, error) && singular_primary (&st)
       && singular_consistency (&st, error) && singular_kernel_accelerations (&st, error)
       && singular_final (&st, error);

  g_free (st.s1);
  g_free (st.K);
  g_free (st.Kc);
  g_free (st.vsym);
  g_free (st.move);
  g_free (st.ydot);
  g_free (st.gprim);
  g_free (st.P);
  g_free (st.Q);
  g_free (st.F);
  cml_sys_samples_clear (&st.samples);
  g_ptr_array_unref (st.G);
  g_ptr_array_unref (st.queue);
  g_ptr_array_unref (st.veq);
  g_ptr_array_unref (st.veq_g);
  return ok ? g_steal_pointer (&d) : NULL;
}
