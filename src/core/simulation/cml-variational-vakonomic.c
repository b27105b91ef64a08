/* cml-variational-vakonomic.c — the discrete vakonomic integrators (variational: second
 * order; variational4: its symmetric triple jump, fourth order) of a vakonomic system
 * whose algebroid is T Q in a frame: the base and the reconstruction variables are
 * coordinates q of Q, the free sections' anchor and reconstruction rates are vector fields
 * E_f on Q, each constrained section a coordinate direction (Martinet, Heisenberg).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.3 (Benito & Martín de Diego, J. Math. Phys. 46 (2005) 083521).  On
 * Q the admissible velocities are q̇ = E_f(q) y_f.  Solving n − s of these rows (chosen
 * where E_f is best conditioned) for the free velocities, y_f = Y_f(q, q̇), the other s rows
 * are the constraints
 *
 *   φ_α(q, q̇) = q̇_{R(α)} − Σ_f E^{R(α)}_f(q) Y_f(q, q̇) = 0,
 *
 * R(α) the coordinate direction of the constrained section e_α; the Lagrangian on T Q is
 * L(t, q, q̇) = L_model(t, x, Y_f(q, q̇), y_α = 0).  With the midpoint m = ((q₀ + q₁)/2,
 * (q₁ − q₀)/h, t + h/2), the discrete Lagrangian L_d = h L(m) and the discrete constraint
 * Φ_d = h φ(m), the discrete vakonomic equations are the discrete Euler–Lagrange equations
 * of L̃_d = L_d + λ·Φ_d, λ one multiplier per step and constraint, i.e. with
 * L̃ = L + λ·φ at the step's midpoint
 *
 *   P₀ = L̃_q̇(m) − (h/2) L̃_q(m),   φ(m) = 0          (unknowns q₁, λ)
 *   P₁ = L̃_q̇(m) + (h/2) L̃_q(m).
 *
 * A coordinate on which L̃ does not depend (x₂ and x₃ for Martinet) keeps its momentum P
 * exactly: P₁ − P₀ = h ∂L̃/∂q(m) = 0 (P₁ is computed in this form, so bit for bit).  The
 * map is symmetric ((q₁, P₁, −h) gives back (q₀, P₀) with the same m and λ), so the triple
 * jump is of fourth order.
 *
 * The model's state is (x, p, r) with p the momenta in the frame: p_f = ⟨P, E_f⟩,
 * p_α = P_{R(α)} (the multiplier of the constraint, Martinet's k); so P solves Mᵀ P = p,
 * M the matrix of the frame (E_f and the unit vectors of R(α)).  Between the steps of a
 * run q and P are carried as they are (the step state), so nothing is rounded through M.
 *
 * Newton's method for (u = q₁ − q₀, λ) with the exact Jacobian (times h)
 *
 *   [ L̃_q̇q̇ + (h/2)(L̃_q̇q − L̃_qq̇) − (h²/4) L̃_qq    h (φ_q̇ − (h/2) φ_q)ᵀ ]
 *   [ φ_q̇ + (h/2) φ_q                                 0                  ]
 *
 * (the second derivatives compiled once per system) starts from the last step's u and λ
 * (the first from u = 0, λ = P_R) and stops when the correction is at 1e-10 of the state.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-vakonomic.h"

#include "cml-variational-private.h"

#include "cml-error.h"
#include "cml-symsolve.h"
#include "cml-system-private.h"
#include "cml-system-runtime.h"

#include <float.h>
#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_linalg.h>

#define VAK_NEWTON_MAX_IT 30
#define VAK_TOL 1e-10

/* What the frame of a system is: sizes, the free and constrained fibre indices, the rows
 * of Q solved for the free velocities, the coordinate direction of each constrained
 * section, the Q coordinates' symbols and the free sections' vector fields. */
typedef struct
{
  guint m, n, s, N, nf;
  guint *fr, *con;       /* nf free, s constrained fibre indices */
  guint *rows;           /* nf rows of Q solved for the free velocities */
  guint *rest;           /* s: R(α), the coordinate of constrained section con[α] */
  int *qsym;             /* N: base, then reconstruction variables */
  CmlExpr **E;           /* N × nf: E[i nf + f] */
} Frame;

static void
frame_clear (Frame *F)
{
  g_free (F->fr);
  g_free (F->con);
  g_free (F->rows);
  g_free (F->rest);
  g_free (F->qsym);
  g_free (F->E);
  memset (F, 0, sizeof *F);
}

/* The vector field of section A on Q, component I, as an expression: the anchor (I < m)
 * or the derivative of the reconstruction rate (I ≥ m) along y^A. */
static CmlExpr *
section_component (CmlSystem *sys, guint I, guint A)
{
  CmlModel *md = sys->model;
  if (I < md->m)
    return md->anchor[I * md->n + A];
  CmlExpr *rate = ((CmlNamedExpr *) md->reconstruction->pdata[I - md->m])->expr;
  return cml_expr_diff (sys->ctx, rate, md->fibre_sym[A]);
}

/* Reads SYS's frame into F (see cml_vakonomic_var_supports); FALSE with the reason in
 * *WHY.  Makes expressions in the system's context: under its native_lock. */
static gboolean
frame_read (CmlSystem *sys, Frame *F, const char **why)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  guint m = md->m, n = md->n, nr = sys->nr, s = md->constraints->len;

  *why = NULL;
  if (md->forces)
    {
      *why = _("it has forces ([forces]), which the discrete vakonomic equations do not take");
      return FALSE;
    }
  if (sys->dim != m + n + nr || m + nr != n || s == 0 || s >= n)
    {
      *why = _("its base and reconstruction variables are not coordinates of a configuration space of the "
               "fibre’s dimension");
      return FALSE;
    }
  F->m = m, F->n = n, F->s = s, F->N = m + nr, F->nf = n - s;
  F->fr = g_new0 (guint, n);
  F->con = g_new0 (guint, s);
  F->rows = g_new0 (guint, n);
  F->rest = g_new0 (guint, s);
  F->qsym = g_new0 (int, F->N);
  F->E = g_new0 (CmlExpr *, F->N * F->nf + 1);
  for (guint i = 0; i < m; i++)
    F->qsym[i] = md->base_sym[i];
  for (guint k = 0; k < nr; k++)
    F->qsym[m + k] = sys->state_sym[m + n + k];

  /* the constraints: y^α = 0 */
  g_autofree gboolean *is_con = g_new0 (gboolean, n);
  for (guint a = 0; a < s; a++)
    {
      /* a vakonomic constraint is y^α = Ψ(x, y_free): the name of y^α and Ψ */
      CmlNamedExpr *c = md->constraints->pdata[a];
      guint A = 0;
      while (A < n && !g_str_equal (md->fibre[A], c->name))
        A++;
      if (A == n || is_con[A] || !cml_expr_is_zero (c->expr))
        {
          *why = _("its constraints do not set fibre coordinates to zero (y = 0)");
          return FALSE;
        }
      is_con[A] = TRUE;
      F->con[a] = A;
    }
  for (guint A = 0, f = 0; A < n; A++)
    if (!is_con[A])
      F->fr[f++] = A;

  /* the reconstruction rates are linear in the velocities */
  for (guint k = 0; k < nr; k++)
    {
      CmlExpr *rate = ((CmlNamedExpr *) md->reconstruction->pdata[k])->expr;
      CmlExpr *lin = rate;
      for (guint A = 0; A < n; A++)
        lin = cml_expr_sub (ctx, lin, cml_expr_mul (ctx, cml_expr_sym (ctx, md->fibre_sym[A]),
                                                    cml_expr_diff (ctx, rate, md->fibre_sym[A])));
      gboolean ok = cml_expr_is_zero_expanded (ctx, lin);
      for (guint A = 0; ok && A < n; A++)
        for (guint B = 0; ok && B < n; B++)
          ok = cml_expr_is_zero (cml_expr_diff (ctx, cml_expr_diff (ctx, rate, md->fibre_sym[A]), md->fibre_sym[B]));
      if (!ok)
        {
          *why = _("its reconstruction rates are not linear in the velocities");
          return FALSE;
        }
    }
  for (guint I = 0; I < F->N; I++)
    for (guint f = 0; f < F->nf; f++)
      F->E[I * F->nf + f] = section_component (sys, I, F->fr[f]);

  /* the rows solved for the free velocities: complete pivoting at a sample point */
  g_autofree double *sample = cml_sys_make_sample (sys, 7);
  guint N = F->N, nf = F->nf;
  g_autofree double *a = g_new0 (double, N * nf + 1);
  g_autofree gboolean *used_row = g_new0 (gboolean, N);
  g_autofree gboolean *used_col = g_new0 (gboolean, nf);
  double scale = 0;
  for (guint i = 0; i < N * nf; i++)
    {
      a[i] = cml_expr_eval (F->E[i], sample);
      scale = MAX (scale, fabs (a[i]));
    }
  for (guint c = 0; c < nf; c++)
    {
      guint bi = 0, bj = 0;
      double best = -1;
      for (guint i = 0; i < N; i++)
        for (guint j = 0; j < nf; j++)
          if (!used_row[i] && !used_col[j] && fabs (a[i * nf + j]) > best)
            best = fabs (a[i * nf + j]), bi = i, bj = j;
      if (!(best > 1e-9 * scale))
        {
          *why = _("its free sections are not independent vector fields on the configuration space");
          return FALSE;
        }
      used_row[bi] = used_col[bj] = TRUE;
      F->rows[c] = bi;
      for (guint i = 0; i < N; i++)
        if (!used_row[i])
          {
            double r = a[i * nf + bj] / a[bi * nf + bj];
            for (guint j = 0; j < nf; j++)
              a[i * nf + j] -= r * a[bi * nf + j];
          }
    }

  /* each constrained section is a coordinate direction among the rows left */
  g_autofree gboolean *taken = g_new0 (gboolean, N);
  for (guint c = 0; c < nf; c++)
    taken[F->rows[c]] = TRUE;
  for (guint al = 0; al < s; al++)
    {
      int unit = -1;
      gboolean zero = TRUE, ok = TRUE;
      for (guint I = 0; I < N && ok; I++)
        {
          double v;
          CmlExpr *e = section_component (sys, I, F->con[al]);
          if (!cml_expr_is_number (e, &v) || (v != 0.0 && v != 1.0))
            ok = FALSE;
          else if (v == 1.0)
            {
              ok = unit < 0;
              unit = (int) I;
              zero = FALSE;
            }
        }
      if (ok && zero && s == 1)
        for (guint I = 0; I < N; I++)
          if (!taken[I])
            unit = (int) I;
      if (!ok || unit < 0 || taken[unit])
        {
          *why = _("a constrained section is not a coordinate direction of the configuration space");
          return FALSE;
        }
      taken[unit] = TRUE;
      F->rest[al] = (guint) unit;
    }

  /* the brackets of the vector fields are the model's, at two sample points */
  g_autofree CmlExpr **V = g_new0 (CmlExpr *, N * n);
  for (guint A = 0; A < n; A++)
    for (guint I = 0; I < N; I++)
      {
        if (!is_con[A])
          {
            guint f = 0;
            while (F->fr[f] != A)
              f++;
            V[A * N + I] = F->E[I * nf + f];
          }
        else
          {
            guint al = 0;
            while (F->con[al] != A)
              al++;
            V[A * N + I] = cml_expr_num (ctx, I == F->rest[al] ? 1.0 : 0.0);
          }
      }
  for (guint seed = 11; seed <= 12; seed++)
    {
      g_autofree double *pt = cml_sys_make_sample (sys, seed);
      for (guint A = 0; A < n; A++)
        for (guint B = A + 1; B < n; B++)
          for (guint I = 0; I < N; I++)
            {
              double lhs = 0, rhs = 0, size = 1;
              for (guint J = 0; J < N; J++)
                {
                  double t1 = cml_expr_eval (V[A * N + J], pt)
                              * cml_expr_eval (cml_expr_diff (ctx, V[B * N + I], F->qsym[J]), pt);
                  double t2 = cml_expr_eval (V[B * N + J], pt)
                              * cml_expr_eval (cml_expr_diff (ctx, V[A * N + I], F->qsym[J]), pt);
                  lhs += t1 - t2;
                  size += fabs (t1) + fabs (t2);
                }
              for (guint C = 0; C < n; C++)
                {
                  CmlExpr *c = md->bracket ? md->bracket[(A * n + B) * n + C] : NULL;
                  if (c)
                    rhs += cml_expr_eval (c, pt) * cml_expr_eval (V[C * N + I], pt);
                }
              if (!(fabs (lhs - rhs) <= 1e-9 * (size + fabs (rhs))))
                {
                  *why = _("its brackets are not those of its sections as vector fields on the configuration "
                           "space (its base and reconstruction variables)");
                  return FALSE;
                }
            }
    }
  return TRUE;
}

gboolean
cml_vakonomic_var_supports (CmlSystem *sys, const char **why)
{
  const char *w = NULL;
  if (sys->formalism != CML_FORMALISM_VAKONOMIC)
    w = _("its constraints are not vakonomic");
  else
    {
      Frame F = { 0 };
      g_mutex_lock (&cml_system_runtime (sys)->lock);
      frame_read (sys, &F, &w);
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
      frame_clear (&F);
    }
  if (why)
    *why = w;
  return w == NULL;
}

/* Offsets of the program's outputs at (t, q, q̇, λ): L̃_q̇ (N), L̃_q (N), φ (s), φ_q̇ (s N),
 * φ_q (s N), L̃_q̇q̇ (N N), L̃_q̇q[A N + B] = ∂²L̃/∂q̇_A∂q_B, L̃_qq (N N), E (N nf). */
typedef struct
{
  guint Lv, Lq, phi, Pv, Pq, Lvv, Lvq, Lqq, E, total;
} Layout;

static void
layout_init (Layout *L, const Frame *F)
{
  guint o = 0, N = F->N, s = F->s;
  L->Lv = o, o += N;
  L->Lq = o, o += N;
  L->phi = o, o += s;
  L->Pv = o, o += s * N;
  L->Pq = o, o += s * N;
  L->Lvv = o, o += N * N;
  L->Lvq = o, o += N * N;
  L->Lqq = o, o += N * N;
  L->E = o, o += N * F->nf;
  L->total = o;
}

/* The program (inputs t, q, q̇, λ), built once per system into sys->variational_prog (not
 * used otherwise by a vakonomic system), under the system's native_lock. */
static CmlProgram *
program_ensure (CmlSystem *sys, GError **error)
{
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = sys->ctx;
  Frame F = { 0 };
  const char *why = NULL;
  Layout L;

  g_mutex_lock (&cml_system_runtime (sys)->lock);
  if (cml_system_runtime (sys)->variational_prog)
    {
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
      return cml_system_runtime (sys)->variational_prog;
    }
  if (!frame_read (sys, &F, &why))
    {
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
      frame_clear (&F);
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE, "%s: %s", md->name, why);
      return NULL;
    }
  guint N = F.N, s = F.s, nf = F.nf;
  layout_init (&L, &F);
  g_autofree int *vsym = g_new0 (int, N);
  g_autofree int *lsym = g_new0 (int, s + 1);
  for (guint i = 0; i < N; i++)
    {
      g_autofree char *name = g_strdup_printf ("vak·d%s", cml_expr_ctx_symbol_name (ctx, F.qsym[i]));
      vsym[i] = cml_expr_ctx_intern (ctx, name);
    }
  for (guint a = 0; a < s; a++)
    {
      g_autofree char *name = g_strdup_printf ("vak·λ%u", a);
      lsym[a] = cml_expr_ctx_intern (ctx, name);
    }
  g_autofree double *sample = cml_sys_make_sample (sys, 5);

  /* Y_f(q, q̇) from the chosen rows */
  g_autofree CmlExpr **B = g_new0 (CmlExpr *, nf * nf);
  g_autofree CmlExpr **rhs = g_new0 (CmlExpr *, nf);
  g_autofree CmlExpr **Y = g_new0 (CmlExpr *, nf);
  for (guint c = 0; c < nf; c++)
    {
      for (guint f = 0; f < nf; f++)
        B[c * nf + f] = F.E[F.rows[c] * nf + f];
      rhs[c] = cml_expr_sym (ctx, vsym[F.rows[c]]);
    }
  guint rank = 0;
  if (!cml_symsolve (ctx, nf, B, 1, rhs, sample, Y, NULL, &rank))
    {
      g_mutex_unlock (&cml_system_runtime (sys)->lock);
      frame_clear (&F);
      g_set_error (error, CML_ERROR, CML_ERROR_USAGE,
                   "%s: the free velocities cannot be solved from the velocities of the configuration", md->name);
      return NULL;
    }
  /* L(t, q, q̇) and φ(q, q̇), L̃ = L + λ·φ */
  g_autofree int *ids = g_new0 (int, md->n);
  g_autofree CmlExpr **repl = g_new0 (CmlExpr *, md->n);
  for (guint f = 0; f < nf; f++)
    ids[f] = md->fibre_sym[F.fr[f]], repl[f] = Y[f];
  for (guint a = 0; a < s; a++)
    ids[nf + a] = md->fibre_sym[F.con[a]], repl[nf + a] = cml_expr_num (ctx, 0);
  CmlExpr *Lt = cml_expr_subs (ctx, md->lagrangian, md->n, ids, repl);
  g_autofree CmlExpr **phi = g_new0 (CmlExpr *, s + 1);
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *e = cml_expr_sym (ctx, vsym[F.rest[a]]);
      for (guint f = 0; f < nf; f++)
        e = cml_expr_sub (ctx, e, cml_expr_mul (ctx, F.E[F.rest[a] * nf + f], Y[f]));
      phi[a] = e;
      Lt = cml_expr_add (ctx, Lt, cml_expr_mul (ctx, cml_expr_sym (ctx, lsym[a]), e));
    }
  g_autofree CmlExpr **o = g_new0 (CmlExpr *, L.total + 1);
  for (guint A = 0; A < N; A++)
    {
      CmlExpr *lv = cml_expr_diff (ctx, Lt, vsym[A]), *lq = cml_expr_diff (ctx, Lt, F.qsym[A]);
      o[L.Lv + A] = lv;
      o[L.Lq + A] = lq;
      for (guint Bq = 0; Bq < N; Bq++)
        {
          o[L.Lvv + A * N + Bq] = cml_expr_diff (ctx, lv, vsym[Bq]);
          o[L.Lvq + A * N + Bq] = cml_expr_diff (ctx, lv, F.qsym[Bq]);
          o[L.Lqq + A * N + Bq] = cml_expr_diff (ctx, lq, F.qsym[Bq]);
        }
    }
  for (guint a = 0; a < s; a++)
    {
      o[L.phi + a] = phi[a];
      for (guint A = 0; A < N; A++)
        {
          o[L.Pv + a * N + A] = cml_expr_diff (ctx, phi[a], vsym[A]);
          o[L.Pq + a * N + A] = cml_expr_diff (ctx, phi[a], F.qsym[A]);
        }
    }
  for (guint i = 0; i < N * nf; i++)
    o[L.E + i] = F.E[i];
  guint nfast = 1 + 2 * N + s;
  g_autofree int *fast = g_new0 (int, nfast);
  fast[0] = md->t_sym;
  for (guint i = 0; i < N; i++)
    {
      fast[1 + i] = F.qsym[i];
      fast[1 + N + i] = vsym[i];
    }
  for (guint a = 0; a < s; a++)
    fast[1 + 2 * N + a] = lsym[a];
  cml_system_runtime (sys)->variational_prog = cml_program_compile (ctx, o, L.total, sys->param_sym, sys->n_params, fast, nfast, error);
  CmlProgram *prog = cml_system_runtime (sys)->variational_prog;
  g_mutex_unlock (&cml_system_runtime (sys)->lock);
  frame_clear (&F);
  return prog;
}

struct _CmlVakonomicVar
{
  CmlSystem *sys;
  CmlProgram *prog;
  Frame F;
  Layout L;
  CmlIntegratorOptions options;
  guint dim;
  double *regs, *fast, *out;
  double cost_per_eval, cost;
  double midpoint_residual;
  CmlVarRecord rec; /* the steps taken; the warm start below is valid for rec.z_last at rec.t_last */

  /* work: q, P, the step's unknowns (u, λ), the Newton system; the warm start (the last
   * step's u and λ) */
  double *q, *P, *u, *lam, *b, *M;
  double h_last;
  gsl_matrix *J;
  gsl_permutation *perm;
};

void
cml_vakonomic_var_prepare (CmlSystem *sys)
{
  if (cml_vakonomic_var_supports (sys, NULL))
    (void) program_ensure (sys, NULL);
}

CmlVakonomicVar *
cml_vakonomic_var_new (CmlSystem *sys, const CmlIntegratorOptions *options, const double *params,
                       GError **error)
{
  CmlProgram *prog = program_ensure (sys, error);
  if (!prog)
    return NULL;
  CmlVakonomicVar *var = g_new0 (CmlVakonomicVar, 1);
  const char *why;
  g_mutex_lock (&cml_system_runtime (sys)->lock);
  frame_read (sys, &var->F, &why);
  g_mutex_unlock (&cml_system_runtime (sys)->lock);
  layout_init (&var->L, &var->F);
  guint N = var->F.N, s = var->F.s;
  var->sys = cml_system_ref (sys);
  var->prog = prog;
  var->options = *options;
  var->dim = sys->dim;
  var->regs = g_new0 (double, cml_program_n_registers (prog) + 1);
  var->fast = g_new0 (double, 1 + 2 * N + s);
  var->out = g_new0 (double, var->L.total + 1);
  guint rhs_cost = sys->rhs_prog ? cml_program_n_fast_instructions (sys->rhs_prog) : 0;
  var->cost_per_eval = (double) MAX (cml_program_n_fast_instructions (prog), 1) / MAX (rhs_cost, 1);
  var->q = g_new0 (double, N);
  var->P = g_new0 (double, N);
  var->u = g_new0 (double, N);
  var->lam = g_new0 (double, s + 1); /* (one more: never empty, copied whole with its step) */
  var->b = g_new0 (double, N + s);
  var->M = g_new0 (double, N * N);
  var->rec.z_good = g_new0 (double, var->dim);
  var->rec.z_last = g_new0 (double, var->dim);
  var->J = gsl_matrix_alloc (N + s, N + s);
  var->perm = gsl_permutation_alloc (N + s);
  cml_vakonomic_var_set_params (var, params);
  return var;
}

void
cml_vakonomic_var_free (CmlVakonomicVar *var)
{
  if (!var)
    return;
  frame_clear (&var->F);
  g_free (var->regs);
  g_free (var->fast);
  g_free (var->out);
  g_free (var->q);
  g_free (var->P);
  g_free (var->u);
  g_free (var->lam);
  g_free (var->b);
  g_free (var->M);
  g_free (var->rec.z_good);
  g_free (var->rec.z_last);
  gsl_matrix_free (var->J);
  gsl_permutation_free (var->perm);
  cml_system_unref (var->sys);
  g_free (var);
}

void
cml_vakonomic_var_set_params (CmlVakonomicVar *var, const double *params)
{
  cml_program_prepare (var->prog, params, var->regs);
  var->rec.warm = FALSE;
}

void
cml_vakonomic_var_reset (CmlVakonomicVar *var)
{
  var->rec.warm = FALSE;
}

/* The program at (T, Q, V, LAM) into var->out; FALSE if an output is not finite. */
static gboolean
eval (CmlVakonomicVar *var, double t, const double *q, const double *v, const double *lam)
{
  guint N = var->F.N, s = var->F.s;
  var->fast[0] = t;
  memcpy (var->fast + 1, q, N * sizeof (double));
  memcpy (var->fast + 1 + N, v, N * sizeof (double));
  memcpy (var->fast + 1 + 2 * N, lam, s * sizeof (double));
  cml_program_run (var->prog, var->fast, var->regs, var->out);
  var->cost += var->cost_per_eval;
  for (guint i = 0; i < var->L.total; i++)
    if (!isfinite (var->out[i]))
      return FALSE;
  return TRUE;
}

/* The frame's matrix M at the last evaluation: column A is the vector field of section A
 * (E_f, or the unit vector of R(α)); var->M[I N + A]. */
static void
frame_matrix (CmlVakonomicVar *var)
{
  const Frame *F = &var->F;
  guint N = F->N, nf = F->nf;
  memset (var->M, 0, N * N * sizeof (double));
  for (guint f = 0; f < nf; f++)
    for (guint I = 0; I < N; I++)
      var->M[I * N + F->fr[f]] = var->out[var->L.E + I * nf + f];
  for (guint a = 0; a < F->s; a++)
    var->M[F->rest[a] * N + F->con[a]] = 1.0;
}

/* The state's (x, p, r) at T into var->q and var->P (Mᵀ P = p); FALSE if the frame is
 * singular there. */
static gboolean
state_to_qP (CmlVakonomicVar *var, double t, const double *z)
{
  const Frame *F = &var->F;
  guint m = F->m, n = F->n, N = F->N;
  memcpy (var->q, z, m * sizeof (double));
  memcpy (var->q + m, z + m + n, (N - m) * sizeof (double));
  memset (var->u, 0, N * sizeof (double));
  if (!eval (var, t, var->q, var->u, var->lam))
    return FALSE;
  frame_matrix (var);
  g_autofree double *Mt = g_new (double, N * N);
  for (guint I = 0; I < N; I++)
    for (guint A = 0; A < N; A++)
      Mt[A * N + I] = var->M[I * N + A];
  memcpy (var->P, z + m, n * sizeof (double));
  return cml_small_solve (N, Mt, var->P, 1e-14);
}

/* var->q, var->P at T back into Z: p = Mᵀ P. */
static gboolean
qP_to_state (CmlVakonomicVar *var, double t, double *z)
{
  const Frame *F = &var->F;
  guint m = F->m, n = F->n, N = F->N;
  g_autofree double *zero = g_new0 (double, N);
  if (!eval (var, t, var->q, zero, var->lam))
    return FALSE;
  frame_matrix (var);
  memcpy (z, var->q, m * sizeof (double));
  memcpy (z + m + n, var->q + m, (N - m) * sizeof (double));
  for (guint A = 0; A < n; A++)
    {
      double p = 0;
      for (guint I = 0; I < N; I++)
        p += var->M[I * N + A] * var->P[I];
      z[m + A] = p;
    }
  return TRUE;
}

/* One discrete vakonomic step of size H from (T0, var->q, var->P), in place, Newton's
 * method starting from var->u and var->lam (left at the solution). */
static gboolean
vak_step (CmlVakonomicVar *var, double t0, double h, GError **error)
{
  const Layout *L = &var->L;
  guint N = var->F.N, s = var->F.s, k = N + s;
  const double *o = var->out;
  double *q = var->q, *P = var->P, *u = var->u, *lam = var->lam, *b = var->b, *J = var->J->data;
  double tm = t0 + 0.5 * h, qmax = 0, pmax = 0;
  g_autofree double *qm = g_new (double, N);
  g_autofree double *vm = g_new (double, N);
  gboolean done = FALSE;

  for (guint A = 0; A < N; A++)
    {
      qmax = MAX (qmax, fabs (q[A]));
      pmax = MAX (pmax, fabs (P[A]));
    }
  for (int it = 0;; it++)
    {
      for (guint A = 0; A < N; A++)
        {
          qm[A] = q[A] + 0.5 * u[A];
          vm[A] = u[A] / h;
        }
      if (!eval (var, tm, qm, vm, lam))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the discrete vakonomic equations are not finite in the step from t = %.6g; lower the step",
                       t0);
          return FALSE;
        }
      if (done)
        break;
      if (it == VAK_NEWTON_MAX_IT)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete vakonomic equations did not converge in the step from "
                       "t = %.6g; lower the step", t0);
          return FALSE;
        }
      /* residuals, times h: h (L̃_q̇ − (h/2) L̃_q − P₀) and h φ */
      for (guint A = 0; A < N; A++)
        b[A] = -h * (o[L->Lv + A] - 0.5 * h * o[L->Lq + A] - P[A]);
      for (guint a = 0; a < s; a++)
        b[N + a] = -h * o[L->phi + a];
      for (guint A = 0; A < N; A++)
        {
          for (guint B = 0; B < N; B++)
            J[A * k + B] = o[L->Lvv + A * N + B] + 0.5 * h * (o[L->Lvq + A * N + B] - o[L->Lvq + B * N + A])
                           - 0.25 * h * h * o[L->Lqq + A * N + B];
          for (guint a = 0; a < s; a++)
            J[A * k + N + a] = h * (o[L->Pv + a * N + A] - 0.5 * h * o[L->Pq + a * N + A]);
        }
      for (guint a = 0; a < s; a++)
        {
          for (guint B = 0; B < N; B++)
            J[(N + a) * k + B] = o[L->Pv + a * N + B] + 0.5 * h * o[L->Pq + a * N + B];
          for (guint c = 0; c < s; c++)
            J[(N + a) * k + N + c] = 0;
        }
      int signum;
      double scale = 0;
      for (guint i = 0; i < k * k; i++)
        scale = MAX (scale, fabs (J[i]));
      gsl_linalg_LU_decomp (var->J, var->perm, &signum);
      gboolean singular = FALSE;
      for (guint i = 0; i < k; i++)
        if (!(fabs (gsl_matrix_get (var->J, i, i)) > 1e-14 * scale))
          singular = TRUE;
      if (singular)
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "the Newton matrix of the discrete vakonomic equations is singular in the step from "
                       "t = %.6g; lower the step", t0);
          return FALSE;
        }
      gsl_vector_view bv = gsl_vector_view_array (b, k);
      gsl_linalg_LU_svx (var->J, var->perm, &bv.vector);
      double r = 0, umax = 0;
      for (guint A = 0; A < N; A++)
        umax = MAX (umax, fabs (u[A]));
      for (guint A = 0; A < N; A++)
        {
          u[A] += b[A];
          r = MAX (r, fabs (b[A]) / (fabs (q[A]) + fabs (u[A]) + 1e-6 * (1 + qmax + umax)));
        }
      for (guint a = 0; a < s; a++)
        {
          lam[a] += b[N + a];
          r = MAX (r, fabs (b[N + a]) / (fabs (lam[a]) + pmax + fabs (h) + DBL_MIN));
        }
      if (!isfinite (r))
        {
          g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                       "Newton's method for the discrete vakonomic equations diverged in the step from t = %.6g; "
                       "lower the step", t0);
          return FALSE;
        }
      done = r <= VAK_TOL;
    }
  /* at the solution: q₁ = q₀ + u, P₁ = L̃_q̇ + (h/2) L̃_q = P₀ + h L̃_q (this form keeps the
   * momentum of a cyclic coordinate bit for bit: L̃_q is then exactly 0) */
  for (guint a = 0; a < s; a++)
    var->midpoint_residual = MAX (var->midpoint_residual, fabs (o[L->phi + a]));
  for (guint A = 0; A < N; A++)
    {
      q[A] += u[A];
      P[A] += h * o[L->Lq + A];
    }
  return TRUE;
}

/* One step of the method (one discrete step, or variational4's three) from (T0, Z) to
 * T0 + H, in place. */
static gboolean
method_step (gpointer self, double t0, double h, double *z, GError **error)
{
  CmlVakonomicVar *var = self;
  static const double g1 = 1.3512071919596576340476878089715; /* 1/(2 − 2^{1/3}) */
  const gboolean four = var->options.kind == CML_INTEGRATOR_VARIATIONAL4;
  const double gam[3] = { g1, 1.0 - 2.0 * g1, g1 };
  guint n_sub = four ? 3 : 1, N = var->F.N, s = var->F.s;
  gboolean warm = var->rec.warm && t0 == var->rec.t_last && memcmp (z, var->rec.z_last, var->dim * sizeof (double)) == 0;
  g_autofree double *u0 = g_memdup2 (var->u, N * sizeof (double));
  g_autofree double *l0 = g_memdup2 (var->lam, (s + 1) * sizeof (double));

  /* warm: var->q and var->P are those of Z (the last step's), kept without rounding */
  if (!warm && !state_to_qP (var, t0, z))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "the frame of the sections is singular at t = %.6g (the momenta cannot be carried to the "
                   "configuration space)", t0);
      return FALSE;
    }
  double h_prev = var->h_last, t = t0;
  if (warm)
    {
      memcpy (var->u, u0, N * sizeof (double));
      memcpy (var->lam, l0, s * sizeof (double));
    }
  else
    {
      /* u = 0, λ = P_R(α) (the multiplier is the constrained momentum) */
      memset (var->u, 0, N * sizeof (double));
      for (guint a = 0; a < s; a++)
        var->lam[a] = var->P[var->F.rest[a]];
      h_prev = four ? gam[0] * h : h;
    }
  for (guint j = 0; j < n_sub; j++)
    {
      double hj = four ? gam[j] * h : h;
      for (guint A = 0; A < N; A++)
        var->u[A] *= hj / h_prev;
      if (!vak_step (var, t, hj, error))
        return FALSE;
      t = j + 1 == n_sub ? t0 + h : t + hj;
      h_prev = hj;
    }
  var->h_last = h_prev;
  if (!qP_to_state (var, t0 + h, z))
    {
      g_set_error (error, CML_ERROR, CML_ERROR_NUMERIC,
                   "the discrete vakonomic equations are not finite at t = %.6g; lower the step", t0 + h);
      return FALSE;
    }
  return TRUE;
}

static void
stepper_stats (gpointer self, CmlIntegratorStats *stats)
{
  cml_vakonomic_var_get_stats (self, stats);
}

gboolean
cml_vakonomic_var_advance (CmlVakonomicVar *var, double *t, double t1, double *z, GError **error)
{
  static const CmlVarStepper f = { method_step, NULL, NULL, NULL, NULL, stepper_stats };

  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  var->midpoint_residual = 0;
  return cml_var_fixed_steps (&f, var, &var->rec, &var->options, var->dim, var->rec.z_good, t, t1, z, error);
}

/* The step state: a flag, the carried P (N), the last step's u (N) and λ (s) and its size,
 * so a run restored from it continues bit for bit (P not rounded through M, Newton's method
 * from the same start). */
guint
cml_vakonomic_var_step_state_size (const CmlVakonomicVar *var)
{
  return 2 + 2 * var->F.N + var->F.s;
}

void
cml_vakonomic_var_save_step_state (const CmlVakonomicVar *var, double t, const double *z, double *out)
{
  guint N = var->F.N, s = var->F.s;
  gboolean valid = var->rec.warm && t == var->rec.t_last && memcmp (z, var->rec.z_last, var->dim * sizeof (double)) == 0;
  memset (out, 0, cml_vakonomic_var_step_state_size (var) * sizeof (double));
  out[0] = valid ? 1.0 : 0.0;
  if (!valid)
    return;
  memcpy (out + 1, var->P, N * sizeof (double));
  memcpy (out + 1 + N, var->u, N * sizeof (double));
  memcpy (out + 1 + 2 * N, var->lam, s * sizeof (double));
  out[1 + 2 * N + s] = var->h_last;
}

void
cml_vakonomic_var_restore_step_state (CmlVakonomicVar *var, double t, const double *z, const double *in)
{
  const Frame *F = &var->F;
  guint N = F->N, s = F->s;
  var->rec.warm = in[0] != 0.0;
  if (!var->rec.warm)
    return;
  memcpy (var->P, in + 1, N * sizeof (double));
  memcpy (var->u, in + 1 + N, N * sizeof (double));
  memcpy (var->lam, in + 1 + 2 * N, s * sizeof (double));
  var->h_last = in[1 + 2 * N + s];
  memcpy (var->q, z, F->m * sizeof (double));
  memcpy (var->q + F->m, z + F->m + F->n, (N - F->m) * sizeof (double));
  memcpy (var->rec.z_last, z, var->dim * sizeof (double));
  var->rec.t_last = t;
}

void
cml_vakonomic_var_momentum (CmlVakonomicVar *var, double t, const double *z, double *p)
{
  (void) t;
  memcpy (p, z + var->F.m, var->F.n * sizeof (double));
}

guint64
cml_vakonomic_var_n_rhs (const CmlVakonomicVar *var)
{
  return (guint64) ceil (var->cost);
}

void
cml_vakonomic_var_get_stats (const CmlVakonomicVar *var, CmlIntegratorStats *stats)
{
  memset (stats, 0, sizeof *stats);
  stats->n_steps = var->rec.n_steps;
  stats->n_rhs = cml_vakonomic_var_n_rhs (var);
  stats->h = var->options.h_fixed;
}

double
cml_vakonomic_var_midpoint_residual (const CmlVakonomicVar *var)
{
  return var->midpoint_residual;
}
