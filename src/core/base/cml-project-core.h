/* cml-project-core.h — the projection onto the constraint set and onto unit quaternions
 * as C text.  The library compiles it around the constraint program (interpreted or
 * native; cml-simulation.c), and a system's native code compiles the same text around its
 * constraint functions, inlined, with the dimension, the number of constraints and the
 * quaternions' places as constants (cml-system-native.c) — so that a state is projected to
 * the same numbers either way, bit for bit.  cml_small_solve (cml-symsolve.c) is this
 * text's solver.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With h(z) the k constraint functions and J = ∂h/∂z restricted to the movable components
 * [from, to) (and to those MASK marks, when given), one Gauss–Newton step moves z by the
 * least change, in the Euclidean norm, that makes the linearised constraints vanish:
 *
 *   (J Jᵀ) μ = h,    z ← z − Jᵀ μ,
 *
 * repeated until |h|_∞ ≤ 1e−15 (1 + |z|_∞) or the step is below 1e−16 (1 + |z|_∞), at most
 * 20 times (a row whose J is zero on the moved components is left out when |h_a| ≤
 * 1e−9 (1 + |z|_∞): the moved components cannot change it; otherwise J Jᵀ is singular); after 20 the state is accepted only if |h|_∞ ≤ 1e−9 (1 + |z|_∞).  Then every
 * quaternion (q0, q1, q2, q3) is divided by its norm.  J Jᵀ is solved by Gaussian
 * elimination with partial pivoting; a pivot below 1e−14 times the largest entry makes it
 * singular.
 *
 * The includer defines CML_PJ_FN (the projection's name), CML_PJ_RUN (T, Z) (evaluates h
 * and J at (T, Z) into OUT: the k values, then J row by row, DIM columns a row) and
 * CML_PJ_EXTRA_PARAMS (more parameters, starting with a comma).  The projection returns 0
 * when the state is on the constraint set, 1 when h is not finite, 2 when J Jᵀ is singular,
 * 3 when 20 steps leave the residual *RESID above the bound.  Without CML_PJ_FN only the
 * solver and the type CmlProjectFused are defined.  No header is included: native code
 * compiles this text with sqrt and fabs declared and nothing else.
 *
 * Fused into a native step (cml-native-step.c, the Taylor step of cml-system-native.c): the
 * includer also defines CML_PJ_FUSED_FN (the name), CML_PJ_FUSED_N (the dimension) and
 * CML_PJ_FUSED_RUN (T, Z, PJ, RESID) (the projection above with its constants); the step's
 * exported function projects its end with it, so that a step and its projection are one
 * call.  It projects only a finite state, and keeps the projection only when it succeeds
 * and leaves the state finite; otherwise it puts the state back as the step left it and
 * says so (done = 0), and the caller projects as it would have without it — the same
 * projection, failing the same way, with the library's message.
 */
#ifndef CML_PROJECT_CORE_SOLVE
#define CML_PROJECT_CORE_SOLVE

/* Solves A x = b (n × n, row-major) in place into b; 0 when a pivot is below TINY times
 * the largest |A_ij| (or every entry is 0 and n > 0). */
static inline int
cml_pj_solve (unsigned n, double *A, double *b, double tiny)
{
  double scale = 0;
  unsigned i, c, r, j;

  for (i = 0; i < n * n; i++)
    scale = scale > fabs (A[i]) ? scale : fabs (A[i]);
  if (!(scale > 0))
    return n == 0;
  for (c = 0; c < n; c++)
    {
      unsigned p = c;
      for (r = c + 1; r < n; r++)
        if (fabs (A[r * n + c]) > fabs (A[p * n + c]))
          p = r;
      if (!(fabs (A[p * n + c]) > tiny * scale))
        return 0;
      if (p != c)
        {
          for (j = 0; j < n; j++)
            {
              double t = A[c * n + j];
              A[c * n + j] = A[p * n + j];
              A[p * n + j] = t;
            }
          double t = b[c];
          b[c] = b[p];
          b[p] = t;
        }
      for (r = c + 1; r < n; r++)
        {
          double f = A[r * n + c] / A[c * n + c];
          if (f == 0)
            continue;
          for (j = c; j < n; j++)
            A[r * n + j] -= f * A[c * n + j];
          b[r] -= f * b[c];
        }
    }
  for (c = n; c-- > 0;)
    {
      double s = b[c];
      for (j = c + 1; j < n; j++)
        s -= A[c * n + j] * b[j];
      b[c] = s / A[c * n + c];
    }
  return 1;
}

#endif

#ifndef CML_PROJECT_FUSED_TYPE
#define CML_PROJECT_FUSED_TYPE

/* What a fused projection reads and writes; the arrays belong to the caller. */
typedef struct CmlProjectFused
{
  const double *aux, *R;  /* the constraint program's inputs and prepared registers */
  double *out, *A, *b;    /* scratch: h and J (k + k dim), J Jᵀ (k × k), μ (k) */
  double *z0;             /* scratch: the state as the step left it (dim) */
  int done;               /* out: 0 not projected (the caller projects), 1 projected and
                           * unchanged, 2 projected and moved */
  unsigned long n;        /* the projections made (done ≠ 0), counted on */
} CmlProjectFused;

#endif

#ifdef CML_PJ_FN

/* Projects the components [FROM, TO) of Z (those MASK marks, or all when it is 0) onto
 * the K constraints, then the N_QUAT / 4 quaternions whose components are
 * Z[BASE + QUAT[i]]; A (K × K) and B (K) are scratch. */
static inline __attribute__ ((always_inline)) int
CML_PJ_FN (double t, double *z, int k, int dim, int from, int to, const int *mask,
           const unsigned *quat, int n_quat, int base, double *out, double *A, double *b,
           double *resid CML_PJ_EXTRA_PARAMS)
{
  const double *h = out, *J = out + k;
  int it, a, c, j, i;

  for (it = 0; k && it < 20; it++)
    {
      double hn = 0, zn = 0;
      CML_PJ_RUN (t, z);
      for (a = 0; a < k; a++)
        hn = hn > fabs (h[a]) ? hn : fabs (h[a]);
      for (j = from; j < to; j++)
        zn = zn > fabs (z[j]) ? zn : fabs (z[j]);
      if (!(hn - hn == 0.0))
        return 1;
      if (hn <= 1e-15 * (1 + zn))
        break;
      for (a = 0; a < k; a++)
        {
          for (c = 0; c < k; c++)
            {
              double s = 0;
              for (j = from; j < to; j++)
                if (!mask || mask[j])
                  s += J[a * dim + j] * J[c * dim + j];
              A[a * k + c] = s;
            }
          b[a] = h[a];
        }
      /* a row that does not depend on the components moved (an invariant of the
       * configuration while only velocities move) is left as it is when it holds */
      double dmax = 0;
      for (a = 0; a < k; a++)
        dmax = dmax > A[a * k + a] ? dmax : A[a * k + a];
      for (a = 0; a < k; a++)
        if (A[a * k + a] == 0)
          {
            if (!(fabs (h[a]) <= 1e-9 * (1 + zn)))
              return 2;
            for (c = 0; c < k; c++)
              A[a * k + c] = A[c * k + a] = 0;
            A[a * k + a] = dmax > 0 ? dmax : 1; /* (μ_a = 0, the scale of the others kept) */
            b[a] = 0;
          }
      if (!cml_pj_solve ((unsigned) k, A, b, 1e-14))
        return 2;
      double step = 0;
      for (j = from; j < to; j++)
        if (!mask || mask[j])
          {
            double s = 0;
            for (a = 0; a < k; a++)
              s += J[a * dim + j] * b[a];
            z[j] -= s;
            step = step > fabs (s) ? step : fabs (s);
          }
      if (step <= 1e-16 * (1 + zn))
        break;
      if (it == 19)
        {
          CML_PJ_RUN (t, z);
          double hn2 = 0;
          for (a = 0; a < k; a++)
            hn2 = hn2 > fabs (h[a]) ? hn2 : fabs (h[a]);
          if (!(hn2 <= 1e-9 * (1 + zn)))
            {
              *resid = hn2;
              return 3;
            }
        }
    }
  for (i = 0; i + 3 < n_quat; i += 4)
    {
      double s = 0;
      for (c = 0; c < 4; c++)
        s += z[base + quat[i + c]] * z[base + quat[i + c]];
      if (s > 0 && s - s == 0.0)
        {
          s = 1 / sqrt (s);
          for (c = 0; c < 4; c++)
            z[base + quat[i + c]] *= s;
        }
    }
  return 0;
}

#endif

#ifdef CML_PJ_FUSED_FN

/* Projects the end (T, Z) of a step taken (CML_PJ_FUSED_RUN), or leaves it as it is with
 * PJ->done = 0. */
static inline __attribute__ ((always_inline)) void
CML_PJ_FUSED_FN (double t, double *z, CmlProjectFused *pj)
{
  double resid = 0;
  int i;

  pj->done = 0;
  for (i = 0; i < CML_PJ_FUSED_N; i++)
    {
      if (!(z[i] - z[i] == 0.0))
        return;
      pj->z0[i] = z[i];
    }
  if (CML_PJ_FUSED_RUN (t, z, pj, &resid) == 0)
    {
      for (i = 0; i < CML_PJ_FUSED_N && z[i] - z[i] == 0.0; i++)
        ;
      if (i == CML_PJ_FUSED_N)
        {
          pj->done = __builtin_memcmp (pj->z0, z, CML_PJ_FUSED_N * sizeof (double)) != 0 ? 2 : 1;
          pj->n++;
          return;
        }
    }
  for (i = 0; i < CML_PJ_FUSED_N; i++)
    z[i] = pj->z0[i];
}

#endif
