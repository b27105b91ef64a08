/* cml-variational-lie.c — any Lie algebra given by its structure constants as the
 * variational integrators use it: the node momenta of a step along the exponential map,
 * and their exact derivatives in the step's velocity.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.6.  With C[(A n + B) n + D] = C^D_AB and the matrix of ad_ξ,
 * (ad_ξ)^C_B = ξ^E C^C_EB, the retraction τ = exp has
 *
 *   dexp⁻¹_x = Σ_k b_k ad_x^k,   b_k = B_k / k!   (B_k the Bernoulli numbers, B₁ = −½),
 *
 * the Taylor series of z/(eᶻ − 1), which needs nothing but ad: no matrix representation
 * of the group.  The node momenta of the step with velocity ξ and μ = L_y are
 *
 *   M^±(h, ξ) = (dexp⁻¹_{±hξ})ᵀ μ = Σ_k b_k a_k,   a_0 = μ,   a_{k+1} = a_k A,   A = ±h ad_ξ,
 *
 * (a_k row vectors), and their derivatives, with W_CD = ∂μ_C/∂ξ^D and E_D = ad_{e_D},
 *
 *   ∂M^±_B/∂ξ^D = Σ_k b_k ((Aᵀ)^k W)_BD ± h Σ_k b_k Σ_{j<k} (a_j E_D A^{k−1−j})_B.
 *
 * The series converges for ‖A‖ < 2π; it is summed until its terms fall below 2⁻⁵⁶ of the
 * first (the odd b_k but b₁ vanish), and refused (the step is too long) when ‖A‖ > 3, so
 * the sum is dexp⁻¹ to rounding and M^− = Ad*_{exp(hξ)} M^+ to rounding: the step keeps
 * the coadjoint orbit, so every Casimir of g.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-private.h"

#include <math.h>
#include <string.h>

/* the largest ‖h ad_ξ‖ (the largest absolute row sum) the series is summed for */
#define EXP_NORM_MAX 3.0
#define EXP_TERMS_MAX 60

/* b_k = B_k / k! for even k (z/(eᶻ − 1) = 1 − z/2 + Σ b_{2j} z^{2j}) */
static const double bern[EXP_TERMS_MAX + 1] = {
  [0] = 1.00000000000000000000,
  [2] = 0.0833333333333333333333,
  [4] = -0.00138888888888888888889,
  [6] = 0.0000330687830687830687831,
  [8] = -8.26719576719576719577e-7,
  [10] = 2.08767569878680989792e-8,
  [12] = -5.28419013868749318485e-10,
  [14] = 1.33825365306846788328e-11,
  [16] = -3.38968029632258286683e-13,
  [18] = 8.58606205627784456414e-15,
  [20] = -2.17486869855806187304e-16,
  [22] = 5.50900282836022951520e-18,
  [24] = -1.39544646858125233407e-19,
  [26] = 3.53470703962946747169e-21,
  [28] = -8.95351742703754685040e-23,
  [30] = 2.26795245233768306031e-24,
  [32] = -5.74479066887220244526e-26,
  [34] = 1.45517247561486490187e-27,
  [36] = -3.68599494066531017818e-29,
  [38] = 9.33673425709504467203e-31,
  [40] = -2.36502241570062993456e-32,
  [42] = 5.99067176248213430466e-34,
  [44] = -1.51745488446829026171e-35,
  [46] = 3.84375812545418823223e-37,
  [48] = -9.73635307264669103527e-39,
  [50] = 2.46624704420068095711e-40,
  [52] = -6.24707674182074369315e-42,
  [54] = 1.58240302446449142975e-43,
  [56] = -4.00827368594893596853e-45,
  [58] = 1.01530758555695563116e-46,
  [60] = -2.57180415824187174992e-48,
};

static inline double
bk (guint k)
{
  return k == 1 ? -0.5 : (k & 1) ? 0.0 : bern[k];
}

/* The number of words of work cml_var_exp_node_momentum needs for N sections. */
gsize
cml_var_exp_work_size (guint n)
{
  return (gsize) n * n + (EXP_TERMS_MAX + 2) * (gsize) n + 3 * (gsize) n;
}

/* The exponential node momenta M^±(h, ξ) of μ (SIGN +1: the start node, −1: the end node)
 * into OUT (N), with the structure constants C of the N sections; with W (∂μ/∂ξ, N × N)
 * and DM not NULL, also DM[B n + D] = ∂M^±_B/∂ξ^D.  WORK holds cml_var_exp_work_size (N)
 * words.  FALSE (OUT unset) when ‖h ad_ξ‖ is too large for the series. */
gboolean
cml_var_exp_node_momentum (guint n, const double *C, double h, const double *xi, const double *mu,
                           const double *W, double sign, double *out, double *dM, double *work)
{
  double *A = work, *a = A + n * n, *r = a + (EXP_TERMS_MAX + 2) * n, *r2 = r + n, *t = r2 + n;
  const double sh = sign * h;
  double norm = 0;

  for (guint Cc = 0; Cc < n; Cc++)
    {
      double row = 0;
      for (guint B = 0; B < n; B++)
        {
          double v = 0;
          for (guint E = 0; E < n; E++)
            v += xi[E] * C[(E * n + B) * n + Cc];
          A[Cc * n + B] = sh * v;
          row += fabs (A[Cc * n + B]);
        }
      norm = MAX (norm, row);
    }
  if (!(norm <= EXP_NORM_MAX))
    return FALSE;

  /* the terms a_k = μᵀ A^k up to the last that counts */
  double mu_size = 0;
  for (guint B = 0; B < n; B++)
    mu_size += fabs (mu[B]);
  guint K = 1;
  memcpy (a, mu, n * sizeof (double));
  for (guint k = 1; k <= EXP_TERMS_MAX; k++)
    {
      double size = 0;
      for (guint B = 0; B < n; B++)
        {
          double v = 0;
          for (guint Cc = 0; Cc < n; Cc++)
            v += a[(k - 1) * n + Cc] * A[Cc * n + B];
          a[k * n + B] = v;
          size += fabs (v);
        }
      K = k;
      if (k >= 2 && !(k & 1) && fabs (bk (k)) * size <= ldexp (mu_size, -56))
        break;
    }
  for (guint B = 0; B < n; B++)
    {
      double m = 0;
      for (guint k = K + 1; k-- > 0;)
        m += bk (k) * a[k * n + B];
      out[B] = m;
    }
  if (!dM)
    return TRUE;

  /* Σ_k b_k ((Aᵀ)^k W)_BD: column D of W carried through Aᵀ */
  for (guint D = 0; D < n; D++)
    {
      for (guint B = 0; B < n; B++)
        {
          r[B] = W[B * n + D];
          t[B] = r[B];
        }
      for (guint k = 1; k <= K; k++)
        {
          for (guint B = 0; B < n; B++)
            {
              double v = 0;
              for (guint Cc = 0; Cc < n; Cc++)
                v += A[Cc * n + B] * r[Cc];
              r2[B] = v;
            }
          memcpy (r, r2, n * sizeof (double));
          for (guint B = 0; B < n; B++)
            t[B] += bk (k) * r[B];
        }
      for (guint B = 0; B < n; B++)
        dM[B * n + D] = t[B];
    }
  /* ± h Σ_k b_k Σ_{j<k} a_j E_D A^{k−1−j} = ± h Σ_j Σ_i b_{i+j+1} (a_j E_D) A^i */
  for (guint D = 0; D < n; D++)
    {
      memset (t, 0, n * sizeof (double));
      for (guint j = 0; j < K; j++)
        {
          /* r = a_j E_D, (E_D)^Cc_F = C^Cc_DF */
          for (guint F = 0; F < n; F++)
            {
              double v = 0;
              for (guint Cc = 0; Cc < n; Cc++)
                v += a[j * n + Cc] * C[(D * n + F) * n + Cc];
              r[F] = v;
            }
          for (guint i = 0; i + j + 1 <= K; i++)
            {
              if (i > 0)
                {
                  for (guint B = 0; B < n; B++)
                    {
                      double v = 0;
                      for (guint Cc = 0; Cc < n; Cc++)
                        v += r[Cc] * A[Cc * n + B];
                      r2[B] = v;
                    }
                  memcpy (r, r2, n * sizeof (double));
                }
              double b = bk (i + j + 1);
              if (b != 0.0)
                for (guint B = 0; B < n; B++)
                  t[B] += b * r[B];
            }
        }
      for (guint B = 0; B < n; B++)
        dM[B * n + D] += sh * t[B];
    }
  return TRUE;
}
