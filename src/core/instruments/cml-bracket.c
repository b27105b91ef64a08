/* cml-bracket.c — the vakonomic (linear Poisson) and nonholonomic brackets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Implements doc/theory.md §2 (linear Poisson bracket on E*) and §6
 * (nonholonomic bracket: Iglesias, Marrero, Martín de Diego and Sosa, 2007, and Marrero,
 * 2005, references [4, 5] of doc/theory.md §12):
 *
 *   O_XX[A][B] = L_{x^i y^A} ρ^i_B − L_{x^i y^B} ρ^i_A + L_{y^C} C^C_AB
 *   O = [[O_XX, W], [−W, 0]]                      (Cartan 2-section, basis X_A | V_A)
 *   K1 = (Φ_x ρ | Φ_y),  K2 = (Φ_y | 0),  T^νM = ker [K1; K2]
 *   {f, g}_nh = − df_Eᵀ B (Bᵀ O B)⁻¹ Bᵀ dg_E,  df_E = (ρᵀ ∂f/∂x ; ∂f/∂y)
 *
 * The nonholonomic bracket is evaluated at a point (the null-space basis is numeric);
 * the derivatives are symbolic.
 */
#define G_LOG_DOMAIN "cml-bracket"

#include "cml-bracket.h"

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <math.h>

#include "cml-error.h"
#include "cml-symsolve.h"

CmlExpr *
cml_system_poisson_bracket (CmlSystem *sys, CmlExpr *f, CmlExpr *g)
{
  CmlModel *md = cml_system_get_model (sys);
  CmlExprCtx *ctx = md->ctx;
  guint m = md->m, n = md->n;
  CmlExpr *s = cml_expr_num (ctx, 0);

  for (guint A = 0; A < n; A++)
    {
      CmlExpr *fp = cml_expr_diff (ctx, f, md->momenta_sym[A]);
      CmlExpr *gp = cml_expr_diff (ctx, g, md->momenta_sym[A]);
      for (guint i = 0; i < m; i++)
        {
          CmlExpr *rho = md->anchor[i * n + A];
          if (cml_expr_is_zero (rho))
            continue;
          CmlExpr *t = cml_expr_sub (ctx, cml_expr_mul (ctx, cml_expr_diff (ctx, f, md->base_sym[i]), gp),
                                     cml_expr_mul (ctx, fp, cml_expr_diff (ctx, g, md->base_sym[i])));
          s = cml_expr_add (ctx, s, cml_expr_mul (ctx, rho, t));
        }
      for (guint B = 0; B < n; B++)
        for (guint C = 0; C < n; C++)
          {
            CmlExpr *c = md->bracket[(A * n + B) * n + C];
            if (cml_expr_is_zero (c))
              continue;
            CmlExpr *t = cml_expr_mul (ctx, c, cml_expr_mul (ctx, cml_expr_sym (ctx, md->momenta_sym[C]),
                                                             cml_expr_mul (ctx, fp, cml_expr_diff (ctx, g, md->momenta_sym[B]))));
            s = cml_expr_sub (ctx, s, t);
          }
    }
  return s;
}

/* Fills VALS (by symbol id) with the simulation's parameters, time and state. */
static double *
point_values (CmlSimulation *sim)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  guint ns = cml_expr_ctx_n_symbols (md->ctx);
  double *vals = g_new0 (double, ns);
  const double *z = cml_simulation_get_state (sim);

  for (guint k = 0; k < md->params->len; k++)
    {
      CmlParam *p = md->params->pdata[k];
      vals[p->sym] = cml_simulation_get_param (sim, p->name);
    }
  vals[md->t_sym] = cml_simulation_get_time (sim);
  for (guint i = 0; i < cml_system_dim (sys); i++)
    vals[cml_expr_ctx_lookup (md->ctx, cml_system_state_name (sys, i))] = z[i];
  return vals;
}

gboolean
cml_simulation_nonholonomic_bracket (CmlSimulation *sim, CmlExpr *f, CmlExpr *g, double *value,
                                     GError **error)
{
  CmlSystem *sys = cml_simulation_get_system (sim);
  CmlModel *md = cml_system_get_model (sys);
  CmlExprCtx *ctx = md->ctx;
  guint m = md->m, n = md->n, s = md->constraints->len, N = 2 * n;
  CmlExpr *L = md->lagrangian;
  g_autofree double *v = NULL;
  gboolean ok = FALSE;

  if (cml_system_get_formalism (sys) != CML_FORMALISM_NONHOLONOMIC)
    {
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s is not a nonholonomic system", md->name);
      return FALSE;
    }
  v = point_values (sim);
#define EV(e) cml_expr_eval ((e), v)
#define RHO(i, A) EV (md->anchor[(i) * n + (A)])

  gsl_matrix *O = gsl_matrix_calloc (N, N);
  gsl_matrix *K = gsl_matrix_calloc (2 * s, N);
  gsl_matrix *KtK = gsl_matrix_calloc (N, N);
  gsl_vector *eval = gsl_vector_alloc (N);
  gsl_matrix *evec = gsl_matrix_alloc (N, N);
  gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc (N);
  g_autofree double *df = g_new0 (double, N);
  g_autofree double *dg = g_new0 (double, N);

  /* the Cartan 2-section O */
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      {
        double o = 0;
        for (guint i = 0; i < m; i++)
          {
            CmlExpr *Lxi = cml_expr_diff (ctx, L, md->base_sym[i]);
            o += EV (cml_expr_diff (ctx, Lxi, md->fibre_sym[A])) * RHO (i, B)
                 - EV (cml_expr_diff (ctx, Lxi, md->fibre_sym[B])) * RHO (i, A);
          }
        for (guint C = 0; C < n; C++)
          {
            CmlExpr *c = md->bracket[(A * n + B) * n + C];
            if (!cml_expr_is_zero (c))
              o += EV (cml_expr_diff (ctx, L, md->fibre_sym[C])) * EV (c);
          }
        double w = EV (cml_expr_diff (ctx, cml_expr_diff (ctx, L, md->fibre_sym[A]), md->fibre_sym[B]));
        gsl_matrix_set (O, A, B, o);
        gsl_matrix_set (O, A, n + B, w);
        gsl_matrix_set (O, n + A, B, -w);
      }
  /* constraint rows K1 = (Φ_x ρ | Φ_y), K2 = (Φ_y | 0) */
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      for (guint A = 0; A < n; A++)
        {
          double fx = 0;
          for (guint i = 0; i < m; i++)
            fx += EV (cml_expr_diff (ctx, phi, md->base_sym[i])) * RHO (i, A);
          double fy = EV (cml_expr_diff (ctx, phi, md->fibre_sym[A]));
          gsl_matrix_set (K, a, A, fx);
          gsl_matrix_set (K, a, n + A, fy);
          gsl_matrix_set (K, s + a, A, fy);
        }
    }
  /* B: the null space of K, from the eigenvectors of KᵀK with eigenvalue ~0 */
  gsl_blas_dgemm (CblasTrans, CblasNoTrans, 1.0, K, K, 0.0, KtK);
  gsl_eigen_symmv (KtK, eval, evec, ws);
  gsl_eigen_symmv_sort (eval, evec, GSL_EIGEN_SORT_ABS_ASC);
  guint nb = N - 2 * s;
  {
    double top = fabs (gsl_vector_get (eval, N - 1));
    if (nb == 0 || fabs (gsl_vector_get (eval, nb - 1)) > 1e-10 * MAX (top, 1)
        || (nb < N && fabs (gsl_vector_get (eval, nb)) < 1e-10 * MAX (top, 1)))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR, "T^νM does not have dimension 2(n − s) here");
        goto out;
      }
  }
  /* df_E, dg_E */
  for (guint A = 0; A < n; A++)
    {
      for (guint i = 0; i < m; i++)
        {
          df[A] += RHO (i, A) * EV (cml_expr_diff (ctx, f, md->base_sym[i]));
          dg[A] += RHO (i, A) * EV (cml_expr_diff (ctx, g, md->base_sym[i]));
        }
      df[n + A] = EV (cml_expr_diff (ctx, f, md->fibre_sym[A]));
      dg[n + A] = EV (cml_expr_diff (ctx, g, md->fibre_sym[A]));
    }
  {
    /* M = Bᵀ O B; solve M u = Bᵀ dg; value = −(Bᵀ df) · u */
    g_autofree double *M = g_new0 (double, nb * nb);
    g_autofree double *u = g_new0 (double, nb);
    g_autofree double *bf = g_new0 (double, nb);
    for (guint a = 0; a < nb; a++)
      {
        for (guint b = 0; b < nb; b++)
          {
            double acc = 0;
            for (guint i = 0; i < N; i++)
              for (guint j = 0; j < N; j++)
                acc += gsl_matrix_get (evec, i, a) * gsl_matrix_get (O, i, j) * gsl_matrix_get (evec, j, b);
            M[a * nb + b] = acc;
          }
        for (guint i = 0; i < N; i++)
          {
            u[a] += gsl_matrix_get (evec, i, a) * dg[i];
            bf[a] += gsl_matrix_get (evec, i, a) * df[i];
          }
      }
    if (!cml_small_solve (nb, M, u, 1e-12))
      {
        g_set_error (error, CML_ERROR, CML_ERROR_SINGULAR,
                     "Bᵀ O B is singular: the nonholonomic system is not regular here");
        goto out;
      }
    double acc = 0;
    for (guint a = 0; a < nb; a++)
      acc += bf[a] * u[a];
    *value = -acc;
    ok = TRUE;
  }
#undef EV
#undef RHO
out:
  gsl_matrix_free (O);
  gsl_matrix_free (K);
  gsl_matrix_free (KtK);
  gsl_vector_free (eval);
  gsl_matrix_free (evec);
  gsl_eigen_symmv_free (ws);
  return ok;
}
