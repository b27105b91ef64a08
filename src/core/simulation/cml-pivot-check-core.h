/* cml-pivot-check-core.h — the check a system's right-hand side makes of its pivots, as C
 * text compiled twice: into the library (cml-simulation.c, sim_rhs) and into a system's
 * native steps (cml-native-step.c), so that both take the fallback at the same states.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The symbolic solve divides by pivots chosen once, at a sample point.  At a state where a
 * pivot is 0, not finite, or below RATIO_MIN times the largest pivot of its matrix, the
 * symbolic accelerations are not to be trusted.  Without a fallback (FB 0) a fast pivot 0
 * or not finite makes the right-hand side fail; with one, that, an acceleration not finite
 * or a tiny pivot sends the evaluation the fallback's way (the evaluated matrices solved by
 * LU).  A pivot is tiny against another of its matrix exactly when it is tiny against the
 * largest of them, so each matrix with a fast pivot is compared through its largest.
 * No header is included: native code compiles this text with fabs declared.
 */
#ifndef CML_PIVOT_CHECK_CORE
#define CML_PIVOT_CHECK_CORE

/* Which pivots to look at, and where the accelerations are. */
typedef struct CmlDop853Pivots
{
  int             fb;
  unsigned        d_off, nd;         /* the accelerations checked: dz[d_off … d_off + nd) */
  const unsigned *fast;              /* the fast pivots */
  unsigned        n_fast;
  const unsigned *cmp, *head;        /* the compared pivots and their matrix's first */
  unsigned        n_cmp;
  double         *max;               /* scratch, n_cmp */
  double          ratio_min;
} CmlDop853Pivots;

/* 0 the derivatives DZ stand, 1 the right-hand side fails, 2 its fallback is needed; O1
 * holds the pivots */
static inline __attribute__ ((always_inline)) int
cml_dop853_check (const double *dz, const double *o1, const CmlDop853Pivots *pc)
{
  unsigned i;
  if (!pc->fb)
    {
      for (i = 0; i < pc->n_fast; i++)
        {
          double p = o1[pc->fast[i]];
          if (p == 0.0 || !(p - p == 0.0))
            return 1;
        }
      return 0;
    }
  for (i = 0; i < pc->nd; i++)
    if (!(dz[pc->d_off + i] - dz[pc->d_off + i] == 0.0))
      return 2;
  for (i = 0; i < pc->n_fast; i++)
    {
      double a = fabs (o1[pc->fast[i]]);
      if (!(a > 0 && a <= 1.7976931348623157e308))
        return 2;
    }
  if (pc->n_cmp == 0)
    return 0;
  for (i = 0; i < pc->n_cmp; i++)
    {
      unsigned h = pc->head[i];
      double a = fabs (o1[pc->cmp[i]]);
      pc->max[h] = h == i ? a : (pc->max[h] > a ? pc->max[h] : a);
    }
  for (i = 0; i < pc->n_cmp; i++)
    if (fabs (o1[pc->cmp[i]]) < pc->ratio_min * pc->max[pc->head[i]])
      return 2;
  return 0;
}

#endif
