/* cml-variational-cayley.c — so(3) as the variational integrators use it: whether constant
 * brackets are those of so(3) (the Jacobi identity, a negative definite Killing form) and
 * the node momenta of a step along the Cayley map.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/theory.md §14.1.  With the structure constants C[(A n + B) n + D] = C^D_AB and the
 * Killing form K_AB = tr(ad_A ad_B), the Jacobi identity reads
 *
 *   Σ_F C^F_BD C^E_AF + C^F_DA C^E_BF + C^F_AB C^E_DF = 0   for all A, B, D, E,
 *
 * and the only real three-dimensional Lie algebra with a negative definite Killing form is
 * so(3).  The node momenta of the step with velocity ξ and μ = L_y are
 *
 *   M^±_B(h, ξ) = μ_B ∓ (h/2) C^C_AB ξ^A μ_C − (h²/8) (μ_C ξ^C) K_AB ξ^A,
 *
 * (dcay⁻¹_{±hξ})* μ written with the brackets and the Killing form (ξ·η = −K(ξ, η)/2 in a
 * basis where C^k_ij = ε_ijk), so any basis of so(3) is taken as it is.
 */
#define G_LOG_DOMAIN "cml-variational"

#include "cml-variational-private.h"

#include <math.h>

/* Whether the N × N × N structure constants C, of size SCALE at most, satisfy the Jacobi
 * identity to rounding. */
gboolean
cml_var_jacobi_holds (const double *C, guint n, double scale)
{
  for (guint A = 0; A < n; A++)
    for (guint B = 0; B < n; B++)
      for (guint D = 0; D < n; D++)
        for (guint E = 0; E < n; E++)
          {
            /* Σ_cyclic(A,B,D) C^F_BD C^E_AF */
            double j = 0;
            for (guint F = 0; F < n; F++)
              j += C[(B * n + D) * n + F] * C[(A * n + F) * n + E]
                   + C[(D * n + A) * n + F] * C[(B * n + F) * n + E]
                   + C[(A * n + B) * n + F] * C[(D * n + F) * n + E];
            if (fabs (j) > 1e-12 * (1 + scale * scale))
              return FALSE;
          }
  return TRUE;
}

/* Whether the symmetric 3 × 3 matrix K3 is negative definite (its leading minors alternate
 * in sign, the first negative). */
gboolean
cml_var_negative_definite3 (const double *K3)
{
  double d1 = K3[0], d2 = K3[0] * K3[4] - K3[1] * K3[3];
  double d3 = K3[0] * (K3[4] * K3[8] - K3[5] * K3[7]) - K3[1] * (K3[3] * K3[8] - K3[5] * K3[6])
              + K3[2] * (K3[3] * K3[7] - K3[4] * K3[6]);
  return d1 < 0 && d2 > 0 && d3 < 0;
}

/* The Cayley node momenta M^±(h, ξ) of μ (SIGN +1: the start node, −1: the end node) into
 * OUT (N), with the structure constants C and the Killing form K of the N sections;
 * sections outside the so(3) part (CAY[B] FALSE; CAY NULL: all are in it) get μ_B. */
void
cml_var_node_momentum (guint n, const double *C, const double *K, const gboolean *cay, double h,
                       const double *xi, const double *mu, double sign, double *out)
{
  double mx = 0;
  for (guint D = 0; D < n; D++)
    if (!cay || cay[D])
      mx += mu[D] * xi[D];
  for (guint B = 0; B < n; B++)
    {
      double c = 0, k = 0;
      if (!cay || cay[B])
        for (guint A = 0; A < n; A++)
          {
            for (guint D = 0; D < n; D++)
              c += C[(A * n + B) * n + D] * xi[A] * mu[D];
            k += K[A * n + B] * xi[A];
          }
      out[B] = mu[B] - sign * 0.5 * h * c - 0.125 * h * h * mx * k;
    }
}
