/* cml-regularity.c — why a regularity matrix is singular, said in the model's terms.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The nonholonomic C = Φ_y W⁻¹ Φ_yᵀ (doc/theory.md §3) and the vakonomic
 * R_ab = ∂²L̃/∂y^a∂y^b − p_α ∂²Ψ^α/∂y^a∂y^b (§4), found singular at the sample point:
 * the message names the dependent constraints, or the constraints or free velocities along
 * the matrix's numeric kernel, at the line of the model file to change.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-symsolve.h"

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
constraint_line (const CmlModel *md, guint a)
{
  CmlNamedExpr *ne = md->constraints->pdata[a];
  int line = ne->line > 0 ? ne->line : cml_model_line (md, "constraints", ne->name);
  return line > 0 ? line : md->constraints_line;
}

/* C = Φ_y W⁻¹ Φ_yᵀ is singular at the sample point: either a constraint's velocity
 * gradient is a combination of the earlier ones' (a dependent constraint: name it and
 * those it depends on), or the constraints are independent and W is degenerate on them
 * (name the constraints of C's kernel).  Points at the line of the constraint. */
gboolean
cml_sys_fail_singular_C (const CmlModel *md, CmlExpr *const *Phy, CmlExpr *const *Cm,
                         const double *sample, GError **error)
{
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
        return cml_sys_fail_in_model (md, error, constraint_line (md, a), CML_ERROR_SINGULAR,
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
          gboolean ok = cml_sys_fail_in_model (md, error, constraint_line (md, a), CML_ERROR_SINGULAR,
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
    gboolean ok = cml_sys_fail_in_model (md, error, constraint_line (md, MAX (first, 0)), CML_ERROR_SINGULAR,
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
gboolean
cml_sys_fail_singular_Rab (const CmlModel *md, CmlExpr *const *Rab, guint nf, const guint *free_idx,
                           CmlExpr *const *psi, const double *sample, GError **error)
{
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
  return cml_sys_fail_in_model (md, error, line, CML_ERROR_SINGULAR,
                     "the vakonomic regularity matrix R_ab is singular: with the constraints substituted, the "
                     "Lagrangian does not depend quadratically on %s (R_ab vanishes along it at the sample point), so "
                     "the momenta do not determine it: make the Lagrangian depend on every free velocity "
                     "(a term %s^2/2, say) or constrain it too; the system is not regular (Iglesias, Marrero, "
                     "Martín de Diego and Sosa 2008, Prop. 5.3)",
                     what, count == 1 ? names->str : "u");
}
