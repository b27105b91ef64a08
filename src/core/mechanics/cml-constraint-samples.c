/* cml-constraint-samples.c — "vanishes on the constraint set", as the constraint
 * algorithm (cml-constraint-algorithm.c) decides it: at three random points projected
 * onto {G = 0} by Gauss–Newton, made again only when G has grown; and, with the same
 * points, the check of a model's solve-for coordinates against its constraints.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §5.  The projection moves the chosen symbols v by the least-norm
 * Gauss–Newton step v ← v − Jᵀ (J Jᵀ + 10⁻¹⁴ I)⁻¹ G(v), J = ∂G/∂v, until |G| < 10⁻¹³,
 * with G and J compiled into one register program.
 */
#define G_LOG_DOMAIN "cml-system"

#include "cml-system-private.h"

#include <glib/gi18n-lib.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

#include "cml-error.h"
#include "cml-symsolve.h"

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

void
cml_sys_samples_clear (Samples *S)
{
  for (guint s = 0; s < N_SAMPLES; s++)
    g_clear_pointer (&S->v[s], g_free);
  S->n_g = G_MAXUINT;
}

/* Makes the sample points of S for G unless they are up to date. */
static void
samples_ensure (CmlSystem *sys, GPtrArray *G, const int *move, guint n_move, Samples *S)
{
  if (S->n_g != G->len)
    {
      cml_sys_samples_clear (S);
      for (guint s = 0; s < N_SAMPLES; s++)
        {
          double *v = cml_sys_make_sample (sys, 101 + s);
          if (G->len && !project_sample (sys, G, move, n_move, v))
            g_clear_pointer (&v, g_free);
          S->v[s] = v;
        }
      S->n_g = G->len;
    }
}

/* Does H vanish on {G = 0}?  Checked at the three projected random points of S. */
gboolean
cml_sys_vanishes_on (CmlSystem *sys, CmlExpr *H, GPtrArray *G, const int *move, guint n_move,
                     Samples *S)
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

/* [dynamics] solve-for against the constraints G (functions of t, x, y): one coordinate per
 * constraint, and ∂G/∂(solve-for) invertible at the sample points on {G = 0} (S), so that
 * the initial data can be solved for them.  A bad solve-for fails here, when the model is
 * loaded, with its line. */
gboolean
cml_sys_check_solve_for (CmlSystem *sys, GPtrArray *G, const int *move, guint n_move, Samples *S,
                         GError **error)
{
  CmlModel *md = sys->model;
  guint k = G->len, q = md->n_solve_for;
  int line = cml_model_line (md, "dynamics", "solve-for");
  g_autoptr (GString) names = g_string_new (NULL);

  for (guint j = 0; j < q; j++)
    g_string_append_printf (names, "%s%s", j ? ", " : "", cml_sys_coordinate_name (sys, md->solve_for[j]));
  if (k == 0)
    return cml_sys_fail_model (sys, error, line, CML_ERROR_MODEL,
                       "solve-for names coordinates the constraints determine, but %s",
                       sys->formalism == CML_FORMALISM_SINGULAR
                         ? "the constraint algorithm found no constraints"
                         : "this Lagrangian is regular (det W ≠ 0) and there are no constraints");
  if (q != k)
    return cml_sys_fail_model (sys, error, line, CML_ERROR_MODEL,
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
  return cml_sys_fail_model (sys, error, line, CML_ERROR_MODEL,
                     "the constraints cannot be solved for %s: their Jacobian with respect to these coordinates "
                     "is singular (name coordinates that the constraints determine)",
                     names->str);
}
