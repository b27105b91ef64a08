/* cml-structure.c — the structure equations of a Lie algebroid, checked at random points.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §1.2: the anchor carries brackets to brackets of vector fields, and the
 * bracket satisfies the Jacobi identity,
 *
 *   ρ^j_A ∂_j ρ^i_B − ρ^j_B ∂_j ρ^i_A = ρ^i_C C^C_AB
 *   Σ_cyclic(A,B,C) [ ρ^i_A ∂_i C^D_BC + C^D_AF C^F_BC ] = 0
 *
 * A model that fails them still runs, as a general algebroid (Grabowska and Grabowski,
 * 2008); its warning names the identity, the sections, the component, the point and the
 * line of the model file to look at.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <math.h>
#include <string.h>

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
 * ρ^i_A ∂_i C^D_BC + C^D_AF C^F_BC = 0 (doc/theory.md §1.2), evaluated at random points.
 * Returns the largest residual; where one fails, *MESSAGE says which identity, for which
 * sections, its component and the point, at the line of the bracket (or anchor) to look at. */
double
cml_sys_structure_defect (CmlSystem *sys, char **message)
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
              if (!cml_expr_is_zero (RHO (j, A)))
                s = cml_sys_madd (ctx, s, RHO (j, A), cml_expr_diff (ctx, RHO (i, B), md->base_sym[j]));
              if (!cml_expr_is_zero (RHO (j, B)))
                s = cml_expr_sub (ctx, s, cml_expr_mul (ctx, RHO (j, B), cml_expr_diff (ctx, RHO (i, A), md->base_sym[j])));
            }
          for (guint C = 0; C < n; C++)
            s = cml_expr_sub (ctx, s, cml_expr_mul (ctx, RHO (i, C), CC (A, B, C)));
          if (!cml_expr_is_zero (s))
            g_array_append_val (terms, ((StructureTerm) { s, FALSE, A, B, 0, i }));
        }
  /* Every term of the cyclic sum for A, B, C has a factor C^·_BC, C^·_CA or C^·_AB: where
   * all three brackets vanish (every triple on T Q) there is nothing to sum, and the n⁴
   * loop over D is skipped — the same terms, without looking at zeros. */
  g_autofree gboolean *bracket_nz = g_new0 (gboolean, (gsize) n * n + 1);
  for (guint B = 0; B < n; B++)
    for (guint C = 0; C < n; C++)
      for (guint F = 0; F < n && !bracket_nz[B * n + C]; F++)
        bracket_nz[B * n + C] = !cml_expr_is_zero (CC (B, C, F));
  for (guint A = 0; A < n; A++)
    for (guint B = A + 1; B < n; B++)
      for (guint C = B + 1; C < n; C++)
        for (guint D = 0; D < n && (bracket_nz[B * n + C] || bracket_nz[C * n + A] || bracket_nz[A * n + B]); D++)
          {
            guint idx[3][3] = { { A, B, C }, { B, C, A }, { C, A, B } };
            CmlExpr *s = ZERO (ctx);
            for (guint c = 0; c < 3; c++)
              {
                guint a = idx[c][0], b = idx[c][1], cc = idx[c][2];
                if (!bracket_nz[b * n + cc])
                  continue;
                if (!cml_expr_is_zero (CC (b, cc, D)))
                  for (guint i = 0; i < m; i++)
                    s = cml_sys_madd (ctx, s, RHO (i, a), cml_expr_diff (ctx, CC (b, cc, D), md->base_sym[i]));
                for (guint F = 0; F < n; F++)
                  s = cml_sys_madd (ctx, s, CC (a, F, D), CC (b, cc, F));
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
        g_autofree double *v = cml_sys_make_sample (sys, seed);
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
      g_autofree double *v = cml_sys_make_sample (sys, worst_seed);
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
