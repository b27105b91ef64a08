/* cml-conserved-moving.c — the moving energy of affine nonholonomic constraints: the
 * frames in which the constraints become linear, the energy E_Z = E_L − p·Z in each, the
 * rates at which it changes, and the candidate offered (cml-conserved.c decides it).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §15.
 * The moving energy.  Affine constraints are φ(t, x, y) = Φ_y(t, x) y + φ₀(t, x) with
 * φ₀ = φ(t, x, 0).  A velocity field Z(t, x) with Φ_y Z + φ₀ = 0 satisfies them; in the
 * frame moving with Z, y − Z, the constraints are linear, Φ_y (y − Z) = 0, and the energy
 * there is the moving energy E_Z = ∂L/∂y·(y − Z) − L = E_L − p·Z.  Z is not unique (any
 * element of ker Φ_y may be added), and E_Z is conserved for the right Z only: the
 * velocity field of the support when it is a symmetry of L and of the constraints (the
 * rotation of a table turning steadily, the translation of a belt at constant speed;
 * Fassò and Sansonetto 2016).  cmlab judges a few frames that do not depend on what the
 * model solves for, in this order:
 *
 *   Z = ρ_a⁻¹ X,  X = Σ_{i∈I} X^i ∂/∂x^i   the support's velocity along s of the base
 *                                         coordinates I, carried to the sections by the
 *                                         inverse of the anchor on the anchored sections
 *   Z_J = −Φ_J⁻¹ φ₀, 0 elsewhere           along s of the velocities J
 *   Z = −W⁻¹ Φ_yᵀ (Φ_y W⁻¹ Φ_yᵀ)⁻¹ φ₀       the least kinetic norm, W = ∂²L/∂y∂y
 *
 * and offers the first whose E_Z is conserved exactly, else the first conserved at the
 * sampled states, else the first whose change is exactly the sum of the rates
 *
 *   dE_Z/dt = F·(y − Z) − p·∂Z/∂t − ∂L/∂t   (forces, an unsteady support, L(t))
 *
 * naming each rate that is not 0 with the parameters' values, else the least-norm one.
 * For the ball on a turning table (§9.1) the first is the table's velocity under the
 * contact point, Z = (−Ωy, Ωx, 0, 0, 0), and E_Z = E_L − Ω m (x v − y u), conserved for
 * constant Ω.
 */
#define G_LOG_DOMAIN "cml-conserved"

#include "cml-conserved-private.h"

#include "cml-simulation-private.h"

#include <glib/gi18n-lib.h>
#include <math.h>
#include <string.h>

#include "cml-symsolve.h"

/* The frames kept, with their values at two random points (every symbol in [0.35, 1.35])
 * to tell them apart. */
typedef struct
{
  GPtrArray *frames; /* CmlExpr*[n] */
  guint      ns;     /* symbols of the context */
  double    *pts;    /* 2 rows of ns values */
  double    *vals;   /* 2n values of each frame, then room for one more */
} FrameSet;

/* The affine terms φ₀ = φ(t, x, 0) of nonholonomic constraints affine in y, or NULL. */
CmlExpr **
cml_conserved_affine_terms (Inspector *in)
{
  CmlModel *md = in->sys->model;
  guint n = md->n, s = md->constraints->len;
  g_autofree CmlExpr **zeros = g_new (CmlExpr *, n);
  CmlExpr **phi0 = g_new (CmlExpr *, MAX (s, 1));

  for (guint A = 0; A < n; A++)
    zeros[A] = ZERO (in->ctx);
  for (guint a = 0; a < s; a++)
    {
      CmlExpr *phi = ((CmlNamedExpr *) md->constraints->pdata[a])->expr;
      for (guint A = 0; A < n; A++)
        for (guint B = 0; B < n; B++)
          if (!cml_expr_is_zero (cml_expr_diff (in->ctx, cml_expr_diff (in->ctx, phi, md->fibre_sym[A]),
                                                md->fibre_sym[B])))
            {
              g_free (phi0);
              return NULL;
            }
      phi0[a] = cml_expr_subs (in->ctx, phi, n, md->fibre_sym, zeros);
    }
  return phi0;
}

/* Z of the opening comment over the velocities J (n_J of them), or FALSE. */
static gboolean
moving_frame (Inspector *in, CmlExpr **phi0, const guint *J, guint nJ, CmlExpr **Z)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, s = md->constraints->len;
  g_autofree CmlExpr **W = g_new (CmlExpr *, nJ * nJ);
  g_autofree CmlExpr **B = g_new (CmlExpr *, nJ * s);
  g_autofree CmlExpr **X = g_new (CmlExpr *, nJ * s);
  g_autofree CmlExpr **Cm = g_new (CmlExpr *, s * s);
  g_autofree CmlExpr **mu = g_new (CmlExpr *, s);
  g_autofree double *sample = cml_sys_make_sample (sys, 7);

  if (nJ < s)
    return FALSE;
  for (guint i = 0; i < nJ; i++)
    for (guint j = 0; j < nJ; j++)
      W[i * nJ + j] = cml_expr_diff (ctx, cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[J[i]]),
                                     md->fibre_sym[J[j]]);
  for (guint i = 0; i < nJ; i++)
    for (guint a = 0; a < s; a++)
      B[i * s + a] = cml_expr_diff (ctx, ((CmlNamedExpr *) md->constraints->pdata[a])->expr, md->fibre_sym[J[i]]);
  /* X = W_JJ⁻¹ Φ_Jᵀ, then (Φ_J X) μ = φ₀, Z_J = −X μ */
  if (!cml_symsolve (ctx, nJ, W, s, B, sample, X, NULL, NULL))
    return FALSE;
  for (guint a = 0; a < s; a++)
    for (guint b = 0; b < s; b++)
      {
        CmlExpr *e = ZERO (ctx);
        for (guint i = 0; i < nJ; i++)
          e = cml_sys_madd (ctx, e, B[i * s + a], X[i * s + b]);
        Cm[a * s + b] = e;
      }
  if (!cml_symsolve (ctx, s, Cm, 1, phi0, sample, mu, NULL, NULL))
    return FALSE;
  for (guint A = 0; A < n; A++)
    Z[A] = ZERO (ctx);
  for (guint i = 0; i < nJ; i++)
    {
      CmlExpr *e = ZERO (ctx);
      for (guint a = 0; a < s; a++)
        e = cml_sys_madd (ctx, e, X[i * s + a], mu[a]);
      Z[J[i]] = cml_expr_neg (ctx, e);
    }
  return TRUE;
}

/* Keeps the frame Z (n expressions, taken) unless it depends on the velocities, is not
 * finite at the points or equals one kept (then it is freed); returns the index of the
 * frame kept or equal to it, or −1. */
static int
keep_frame (Inspector *in, FrameSet *fs, CmlExpr **Z)
{
  CmlModel *md = in->sys->model;
  guint n = md->n, len = fs->frames->len;
  double *v = fs->vals + (gsize) len * 2 * n;
  gboolean ok = len < MAX_FRAMES;

  for (guint A = 0; ok && A < n; A++)
    for (guint B = 0; ok && B < n; B++)
      ok = !cml_expr_depends_on (Z[A], md->fibre_sym[B]);
  for (guint A = 0; ok && A < n; A++)
    for (guint p = 0; p < 2; p++)
      {
        v[p * n + A] = cml_expr_eval (Z[A], fs->pts + (gsize) p * fs->ns);
        ok &= isfinite (v[p * n + A]);
      }
  if (!ok)
    {
      g_free (Z);
      return -1;
    }
  for (guint f = 0; f < len; f++)
    {
      gboolean same = TRUE;
      for (guint i = 0; same && i < 2 * n; i++)
        same = fabs (fs->vals[(gsize) f * 2 * n + i] - v[i]) <= 1e-12 * (1 + fabs (v[i]));
      if (same)
        {
          g_free (Z);
          return f;
        }
    }
  g_ptr_array_add (fs->frames, Z);
  return len;
}

/* The frames Z (n components each) in which the affine constraints Φ_y y + φ₀ = 0 are
 * linear, Φ_y Z = −φ₀, none depending on what the model solves for:
 *
 *  1. the velocity of the support as a field on the base, X = Σ_{i∈I} X^i ∂/∂x^i for s
 *     of the base coordinates I, carried to the sections by the inverse of the anchor
 *     (when the sections with a nonzero anchor are as many as the base coordinates and
 *     the anchor on them is invertible, ρ_a): Z = ρ_a⁻¹ X with (Φ_a ρ_a⁻¹)_I X_I = −φ₀.
 *     The rotation of a turning table, Ω (−y ∂/∂x + x ∂/∂y), and the translation of a
 *     belt, b ∂/∂x, are such fields, whatever velocities the model uses;
 *  2. Z along s of the velocities J only, Φ_J Z_J = −φ₀;
 *  3. the one of least kinetic norm, Z = −W⁻¹ Φ_yᵀ (Φ_y W⁻¹ Φ_yᵀ)⁻¹ φ₀.
 *
 * Frames equal to an earlier one are dropped.  Returns them in that order (at most
 * MAX_FRAMES); *LEAST is the index of the third, or −1. */
static GPtrArray *
moving_frames (Inspector *in, CmlExpr **phi0, int *least)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, m = md->m, s = md->constraints->len;
  GPtrArray *frames = g_ptr_array_new_with_free_func (g_free);
  g_autofree double *sample = cml_sys_make_sample (sys, 13);
  g_autofree CmlExpr **mphi0 = g_new (CmlExpr *, MAX (s, 1));
  g_autoptr (GRand) rand = g_rand_new_with_seed (SEED + 1);
  FrameSet fs = { frames, cml_expr_ctx_n_symbols (ctx), NULL, NULL };

  *least = -1;
  if (s == 0 || s > n)
    return frames;
  fs.pts = g_new (double, 2 * fs.ns);
  for (guint i = 0; i < 2 * fs.ns; i++)
    fs.pts[i] = g_rand_double_range (rand, 0.35, 1.35);
  fs.vals = g_new (double, (gsize) (MAX_FRAMES + 1) * 2 * n);
  for (guint a = 0; a < s; a++)
    mphi0[a] = cml_expr_neg (ctx, phi0[a]);

  /* 1. fields on the base carried by the anchor */
  {
    g_autofree guint *Aset = g_new (guint, n);
    guint na = 0;
    for (guint A = 0; A < n; A++)
      {
        gboolean anchored = FALSE;
        for (guint i = 0; i < m; i++)
          anchored |= !cml_expr_is_zero (md->anchor[i * n + A]);
        if (anchored)
          Aset[na++] = A;
      }
    if (na == m && m >= s && m > 0)
      {
        g_autofree CmlExpr **P = g_new (CmlExpr *, m * m);
        g_autofree CmlExpr **Id = g_new (CmlExpr *, m * m);
        g_autofree CmlExpr **Q = g_new (CmlExpr *, m * m);
        g_autofree CmlExpr **Phia = g_new (CmlExpr *, s * m);
        g_autofree guint *I = g_new (guint, s);
        guint tried = 0;

        for (guint i = 0; i < m; i++)
          for (guint a = 0; a < m; a++)
            {
              P[i * m + a] = md->anchor[i * n + Aset[a]];
              Id[i * m + a] = cml_expr_num (ctx, i == a);
            }
        cml_conserved_constraint_matrix (in, Aset, m, Phia);
        /* Q = ρ_a⁻¹: Q[a][i] is the section component a of ∂/∂x^i */
        if (cml_symsolve (ctx, m, P, m, Id, sample, Q, NULL, NULL))
          {
            for (guint i = 0; i < s; i++)
              I[i] = i;
            do
              {
                g_autofree CmlExpr **M = g_new (CmlExpr *, s * s);
                g_autofree CmlExpr **X = g_new (CmlExpr *, s);
                for (guint a = 0; a < s; a++)
                  for (guint j = 0; j < s; j++)
                    {
                      CmlExpr *e = ZERO (ctx);
                      for (guint b = 0; b < m; b++)
                        e = cml_sys_madd (ctx, e, Phia[a * m + b], Q[b * m + I[j]]);
                      M[a * s + j] = e;
                    }
                if (!cml_symsolve (ctx, s, M, 1, mphi0, sample, X, NULL, NULL))
                  continue;
                CmlExpr **Z = g_new (CmlExpr *, n);
                for (guint A = 0; A < n; A++)
                  Z[A] = ZERO (ctx);
                for (guint b = 0; b < m; b++)
                  for (guint j = 0; j < s; j++)
                    Z[Aset[b]] = cml_sys_madd (ctx, Z[Aset[b]], Q[b * m + I[j]], X[j]);
                keep_frame (in, &fs, Z);
              }
            while (++tried < MAX_SUBSETS && cml_conserved_next_subset (I, s, m));
          }
      }
  }

  /* 2. along s of the velocities */
  {
    g_autofree guint *J = g_new (guint, s);
    guint tried = 0;
    for (guint i = 0; i < s; i++)
      J[i] = i;
    do
      {
        g_autofree CmlExpr **PhiJ = g_new (CmlExpr *, s * s);
        g_autofree CmlExpr **X = g_new (CmlExpr *, s);
        cml_conserved_constraint_matrix (in, J, s, PhiJ);
        if (!cml_symsolve (ctx, s, PhiJ, 1, mphi0, sample, X, NULL, NULL))
          continue;
        CmlExpr **Z = g_new (CmlExpr *, n);
        for (guint A = 0; A < n; A++)
          Z[A] = ZERO (ctx);
        for (guint j = 0; j < s; j++)
          Z[J[j]] = X[j];
        keep_frame (in, &fs, Z);
      }
    while (++tried < MAX_SUBSETS && cml_conserved_next_subset (J, s, n));
  }

  /* 3. the least kinetic norm */
  {
    g_autofree guint *J = g_new (guint, n);
    CmlExpr **Z = g_new (CmlExpr *, n);
    for (guint A = 0; A < n; A++)
      J[A] = A;
    if (moving_frame (in, phi0, J, n, Z))
      *least = keep_frame (in, &fs, Z);
    else
      g_free (Z);
  }
  g_free (fs.pts);
  g_free (fs.vals);
  return frames;
}

/* E_Z = E − p·Z, E the Lagrangian energy. */
static CmlExpr *
moving_energy (Inspector *in, CmlExpr *E, CmlExpr **Z)
{
  CmlModel *md = in->sys->model;
  CmlExpr *pZ = ZERO (in->ctx);

  for (guint A = 0; A < md->n; A++)
    pZ = cml_sys_madd (in->ctx, pZ, cml_expr_diff (in->ctx, md->lagrangian, md->fibre_sym[A]), Z[A]);
  return cml_expr_sub (in->ctx, E, pZ);
}

/* The rates at which E_Z changes in the frame Z, each a function of (t, x, y):
 * RATE[0] = F·(y − Z) the power of the forces in the frame (0 without [forces]),
 * RATE[1] = −p·∂Z/∂t from a frame that does not move steadily, RATE[2] = −∂L/∂t. */
static void
moving_energy_rates (Inspector *in, CmlExpr **Z, CmlExpr **rate)
{
  CmlModel *md = in->sys->model;
  CmlExprCtx *ctx = in->ctx;

  rate[0] = rate[1] = ZERO (ctx);
  for (guint A = 0; A < md->n; A++)
    {
      if (md->forces)
        rate[0] = cml_sys_madd (ctx, rate[0], md->forces[A], cml_expr_sub (ctx, cml_sys_sym (ctx, md->fibre_sym[A]), Z[A]));
      rate[1] = cml_sys_madd (ctx, rate[1], cml_expr_diff (ctx, md->lagrangian, md->fibre_sym[A]),
                      cml_expr_diff (ctx, Z[A], md->t_sym));
    }
  rate[1] = cml_expr_neg (ctx, rate[1]);
  rate[2] = cml_expr_neg (ctx, cml_expr_diff (ctx, md->lagrangian, md->t_sym));
}

/* The moving energy: each frame of moving_frames judged, and offered: the first whose E_Z
 * is shown conserved exactly, else the first found conserved at the sampled states, else
 * the first whose change is exactly the rates of moving_energy_rates (the frame of the
 * support: the changes come from the forces, from the support's unsteady motion or from
 * L's dependence on t, and each is named), else the one of least norm. */
void
cml_conserved_add_moving_energy (Inspector *in, CmlConservedReport *r, CmlExpr *E, CmlExpr **phi0)
{
  CmlSystem *sys = in->sys;
  CmlModel *md = sys->model;
  CmlExprCtx *ctx = in->ctx;
  guint n = md->n, s = md->constraints->len;
  gboolean needed = FALSE, explained = FALSE;
  int least = -1, chosen = -1;
  g_autoptr (GPtrArray) frames = NULL;
  g_autofree CmlExpr **grad = g_new (CmlExpr *, sys->dim);
  CmlExpr *rate[3];
  CmlConservedCandidate *c;

  for (guint a = 0; a < s; a++)
    needed |= !cml_expr_is_zero (phi0[a])
              || cml_expr_depends_on (((CmlNamedExpr *) md->constraints->pdata[a])->expr, md->t_sym);
  if (!needed)
    return;
  frames = moving_frames (in, phi0, &least);
  if (frames->len == 0)
    return;
  /* exactly conserved */
  for (guint f = 0; f < frames->len && chosen < 0; f++)
    {
      CmlExpr *dt, *d = cml_conserved_time_derivative (in, moving_energy (in, E, frames->pdata[f]), grad, &dt);
      if (cml_conserved_exact_zero (in, d) >= 0)
        chosen = f;
    }
  /* no change at the sampled states */
  for (guint f = 0; f < frames->len && chosen < 0; f++)
    {
      CmlConservedCandidate *t = g_new0 (CmlConservedCandidate, 1);
      t->expr = moving_energy (in, E, frames->pdata[f]);
      cml_conserved_decide (in, t, NULL);
      if (cml_conserved_verdict_is_conserved (t->verdict))
        chosen = f;
      cml_conserved_candidate_free (t);
    }
  /* changed by the named rates only */
  for (guint f = 0; f < frames->len && chosen < 0; f++)
    {
      CmlExpr *dt, *d = cml_conserved_time_derivative (in, moving_energy (in, E, frames->pdata[f]), grad, &dt);
      moving_energy_rates (in, frames->pdata[f], rate);
      for (guint k = 0; k < 3; k++)
        d = cml_expr_sub (ctx, d, rate[k]);
      if (cml_conserved_exact_zero (in, d) >= 0)
        {
          chosen = f;
          explained = TRUE;
        }
    }
  if (chosen < 0)
    chosen = least >= 0 ? least : 0;

  CmlExpr **Z = frames->pdata[chosen];
  GString *zt = g_string_new ("Z = (");
  for (guint A = 0; A < n; A++)
    {
      g_autofree char *t = cml_conserved_pretty (in, Z[A], 200);
      g_string_append_printf (zt, "%s%s", A ? ", " : "", t);
    }
  g_string_append (zt, ")");
  if (g_utf8_strlen (zt->str, -1) > 240)
    g_string_assign (zt, "Z");
  g_autofree char *what = g_strdup_printf (_("moving energy (Fassò and Sansonetto 2016), E_Z = E_L − p·Z with "
                                             "%s the velocity of the frame in which the constraints are linear"),
                                           zt->str);
  g_string_free (zt, TRUE);
  c = cml_conserved_add_candidate (in, r, CML_CANDIDATE_MOVING_ENERGY, "E_Z", what, moving_energy (in, E, Z));

  /* why it changes, each reason only when it is not 0 with the parameters' values (a term
   * Ω₁ sin(ν t) of a table's speed with Ω₁ = 0 is no reason) */
  g_autoptr (GString) hint = g_string_new (NULL);
  moving_energy_rates (in, Z, rate);
  {
    CmlExpr *Zt_val = cml_conserved_at_values (in, rate[1]);
    gboolean Zt = FALSE;
    if (!explained)
      for (guint A = 0; A < n; A++)
        Zt |= cml_conserved_depends_on_t_at_values (in, Z[A]);
    if (explained ? Zt_val == NULL || !cml_expr_is_zero (Zt_val) : Zt)
      {
        g_autofree char *t = cml_conserved_pretty (in, rate[1], 200);
        g_string_append (hint, _("the frame's velocity Z depends on t (the support does not move steadily)"));
        if (explained)
          g_string_append_printf (hint, _(", which changes E_Z at the rate −p·∂Z/∂t = %s"), t);
      }
  }
  if (cml_conserved_depends_on_t_at_values (in, md->lagrangian))
    {
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append (hint, _("L depends on t"));
    }
  if (md->forces)
    {
      g_autofree char *pw = cml_conserved_pretty (in, rate[0], 200);
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append_printf (hint, _("forces act ([forces]), doing work in the frame at the rate F·(y − Z) = %s"), pw);
    }
  if (explained)
    {
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append (hint, _("where the constraints hold, dE_Z/dt is exactly the sum of these rates"));
    }
  if (frames->len > 1)
    {
      g_string_append (hint, hint->len ? "; " : "");
      g_string_append_printf (hint, _("none of the %u frames tried (the support's velocity along the coordinates, "
                                      "along some of the velocities, and the one of least kinetic energy) keeps "
                                      "its moving energy constant"),
                              frames->len);
    }
  cml_conserved_decide (in, c, hint->len ? hint->str : NULL);
}
