/* cml-rk8pd-core.h — one step of rk8pd as cmlab takes it through GSL (gsl_odeiv2_evolve_apply
 * with the rk8pd stepper and the standard control), as C text that a system's native code
 * compiles around its right-hand side (cml-native-step.c), so that the step runs with the
 * right-hand side inlined and the dimension a constant — and gives GSL's numbers bit for bit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The method: Prince and Dormand's thirteen-stage pair of orders 8 and 7 (P. J. Prince and
 * J. R. Dormand, "High order embedded Runge–Kutta formulae", J. Comput. Appl. Math. 7
 * (1981) 67–75), with the coefficients and the order of the operations of GSL's rk8pd:
 *
 *   k_1 = f(t, y),   k_i = f(t + c_i h, y + h Σ_j a_ij k_j)   (k_2's argument y + (a_21 h) k_1),
 *   y1 = y + h Σ_i b_i k_i   (order 8),   err = h (Σ_i b̂_i k_i − Σ_i b_i k_i)   (b̂ of order 7).
 *
 * The control (GSL's standard one with a_y = 1, a_dydt = 0, as cml-integrator.c sets it):
 *
 *   D_i = rtol (|y1_i| + 0 |h f_i(t + h, y1)|) + atol,   r = max_i |err_i| / |D_i|
 *
 * (a term f_i not finite makes D_i NaN and drops component i from the maximum, as in GSL);
 * r > 1.1: h ← h max (0.2, 0.9 r^(−1/8)) and the step is tried again from the same k_1 —
 * or, when that changes neither h nor t + h, the step fails; r < 0.5: the next step is
 * h min (5, max (1, 0.9 r^(−1/9))).  A step longer than the time left to the output time
 * T1 is cut to end there (its end is then T1 itself, and it does not set the next step).
 *
 * Like GSL (2.7), the step's first stage is the derivative at the end of the last step,
 * f(t + h, y1), evaluated after every try for the control — also when the state was moved
 * after that step (a projection): k_1 is evaluated afresh only on the first step after a
 * reset.  The step keeps it in GSL's own arrays (the evolution's dydt_in and dydt_out), so
 * that GSL can take any step in between and the steps go on as GSL's would.
 *
 * The includer defines RK_STEP_FN (the function's name), RK_N (the dimension), maybe
 * RK_READS (I) (whether the right-hand side reads component I: the stage arguments of the
 * others are not needed), RK_EXTRA_PARAMS (more parameters, starting with a comma) and
 * RK_RHS (t, z, dz): 0 when the derivatives stand.  The step returns 0 when it was taken,
 * 1 when it leaves the step to GSL (an evaluation failed or needs the right-hand side's
 * fallback, or the step cannot shrink): Y is then as it came in, and GSL, starting again
 * from it, says what went wrong.  Without RK_STEP_FN only the type is defined.
 */
#ifndef CML_RK8PD_STEP_TYPE
#define CML_RK8PD_STEP_TYPE

typedef struct CmlRk8pdStep
{
  double rtol, atol;
  double t;               /* in: the start; out: the end */
  double t1;              /* the output time, where a step ends at the latest */
  double h;               /* in: the step to try; out: the next step suggested */
  double last;            /* out: the step taken */
  unsigned long tries;    /* out: the tries (the step and those rejected on the way) */
  unsigned long n_rhs;    /* out: the evaluations made */
  int    fresh;           /* in: evaluate k_1 = f(t, y) (the first step after a reset) */
  int    projected;       /* out, set by a native step's caller: 0 the end is not projected
                           * yet, 1 projected (and maybe moved) */
  double *y;              /* the state, in and out */
  double *f0, *f1;        /* k_1, in, and f(t + h, y1), out (then copied into f0) */
  double *work;           /* 15 dim: y0, err, ytmp, k2 … k13 */
} CmlRk8pdStep;

#endif

#ifdef RK_STEP_FN

#ifndef RK_READS
#define RK_READS(I) 1
#endif

double pow (double x, double y);
double fabs (double x);

/* Stage arguments: y + h (Σ coefficient × k) in GSL's order, for the components read. */
#define RK_ARG(SUM)                                                     \
  for (i = 0; i < RK_N; i++)                                            \
    if (RK_READS (i))                                                   \
      yt[i] = y[i] + h * (SUM);
#define RK_STAGE(K, C, SUM)                                             \
  RK_ARG (SUM)                                                          \
  if (RK_RHS (t0 + (C) * h, yt, K) != 0)                                \
    goto give_up;                                                       \
  s->n_rhs++;

static inline __attribute__ ((always_inline)) int
RK_STEP_FN (CmlRk8pdStep *s RK_EXTRA_PARAMS)
{
  const double t0 = s->t, t1 = s->t1, dt = t1 - t0;
  double *const y = s->y, *const k1 = s->f0, *const fe = s->f1;
  double *const y0 = s->work, *const err = y0 + RK_N, *const yt = err + RK_N;
  double *const k2 = yt + RK_N, *const k3 = k2 + RK_N, *const k4 = k3 + RK_N;
  double *const k5 = k4 + RK_N, *const k6 = k5 + RK_N, *const k7 = k6 + RK_N;
  double *const k8 = k7 + RK_N, *const k9 = k8 + RK_N, *const k10 = k9 + RK_N;
  double *const k11 = k10 + RK_N, *const k12 = k11 + RK_N, *const k13 = k12 + RK_N;
  double h = s->h;
  int i;

  for (i = 0; i < RK_N; i++)
    y0[i] = y[i];
  if (s->fresh)
    {
      if (RK_RHS (t0, y, k1) != 0)
        return 1;
      s->n_rhs++;
    }

  for (;;)
    {
      const int final = (dt >= 0.0 && h > dt) || (dt < 0.0 && h < dt);
      if (final)
        h = dt;

      for (i = 0; i < RK_N; i++)
        if (RK_READS (i))
          yt[i] = y[i] + (1.0 / 18.0) * h * k1[i];
      if (RK_RHS (t0 + (1.0 / 18.0) * h, yt, k2) != 0)
        goto give_up;
      s->n_rhs++;
      RK_STAGE (k3, 1.0 / 12.0, (1.0 / 48.0) * k1[i] + (1.0 / 16.0) * k2[i])
      RK_STAGE (k4, 1.0 / 8.0, (1.0 / 32.0) * k1[i] + (3.0 / 32.0) * k3[i])
      RK_STAGE (k5, 5.0 / 16.0, (5.0 / 16.0) * k1[i] + (-75.0 / 64.0) * k3[i] + (75.0 / 64.0) * k4[i])
      RK_STAGE (k6, 3.0 / 8.0, (3.0 / 80.0) * k1[i] + (3.0 / 16.0) * k4[i] + (3.0 / 20.0) * k5[i])
      RK_STAGE (k7, 59.0 / 400.0,
                (29443841.0 / 614563906.0) * k1[i] + (77736538.0 / 692538347.0) * k4[i]
                + (-28693883.0 / 1125000000.0) * k5[i] + (23124283.0 / 1800000000.0) * k6[i])
      RK_STAGE (k8, 93.0 / 200.0,
                (16016141.0 / 946692911.0) * k1[i] + (61564180.0 / 158732637.0) * k4[i]
                + (22789713.0 / 633445777.0) * k5[i] + (545815736.0 / 2771057229.0) * k6[i]
                + (-180193667.0 / 1043307555.0) * k7[i])
      RK_STAGE (k9, 5490023248.0 / 9719169821.0,
                (39632708.0 / 573591083.0) * k1[i] + (-433636366.0 / 683701615.0) * k4[i]
                + (-421739975.0 / 2616292301.0) * k5[i] + (100302831.0 / 723423059.0) * k6[i]
                + (790204164.0 / 839813087.0) * k7[i] + (800635310.0 / 3783071287.0) * k8[i])
      RK_STAGE (k10, 13.0 / 20.0,
                (246121993.0 / 1340847787.0) * k1[i] + (-37695042795.0 / 15268766246.0) * k4[i]
                + (-309121744.0 / 1061227803.0) * k5[i] + (-12992083.0 / 490766935.0) * k6[i]
                + (6005943493.0 / 2108947869.0) * k7[i] + (393006217.0 / 1396673457.0) * k8[i]
                + (123872331.0 / 1001029789.0) * k9[i])
      RK_STAGE (k11, 1201146811.0 / 1299019798.0,
                (-1028468189.0 / 846180014.0) * k1[i] + (8478235783.0 / 508512852.0) * k4[i]
                + (1311729495.0 / 1432422823.0) * k5[i] + (-10304129995.0 / 1701304382.0) * k6[i]
                + (-48777925059.0 / 3047939560.0) * k7[i] + (15336726248.0 / 1032824649.0) * k8[i]
                + (-45442868181.0 / 3398467696.0) * k9[i] + (3065993473.0 / 597172653.0) * k10[i])
      RK_ARG ((185892177.0 / 718116043.0) * k1[i] + (-3185094517.0 / 667107341.0) * k4[i]
              + (-477755414.0 / 1098053517.0) * k5[i] + (-703635378.0 / 230739211.0) * k6[i]
              + (5731566787.0 / 1027545527.0) * k7[i] + (5232866602.0 / 850066563.0) * k8[i]
              + (-4093664535.0 / 808688257.0) * k9[i] + (3962137247.0 / 1805957418.0) * k10[i]
              + (65686358.0 / 487910083.0) * k11[i])
      if (RK_RHS (t0 + h, yt, k12) != 0)
        goto give_up;
      s->n_rhs++;
      RK_ARG ((403863854.0 / 491063109.0) * k1[i] + (-5068492393.0 / 434740067.0) * k4[i]
              + (-411421997.0 / 543043805.0) * k5[i] + (652783627.0 / 914296604.0) * k6[i]
              + (11173962825.0 / 925320556.0) * k7[i] + (-13158990841.0 / 6184727034.0) * k8[i]
              + (3936647629.0 / 1978049680.0) * k9[i] + (-160528059.0 / 685178525.0) * k10[i]
              + (248638103.0 / 1413531060.0) * k11[i] + 0.0 * k12[i])
      if (RK_RHS (t0 + h, yt, k13) != 0)
        goto give_up;
      s->n_rhs++;

      /* the 8th-order sum (kept in ERR until the 7th-order one is formed) */
      for (i = 0; i < RK_N; i++)
        {
          err[i] = (14005451.0 / 335480064.0) * k1[i] + (-59238493.0 / 1068277825.0) * k6[i]
                   + (181606767.0 / 758867731.0) * k7[i] + (561292985.0 / 797845732.0) * k8[i]
                   + (-1041891430.0 / 1371343529.0) * k9[i] + (760417239.0 / 1151165299.0) * k10[i]
                   + (118820643.0 / 751138087.0) * k11[i] + (-528747749.0 / 2220607170.0) * k12[i]
                   + (1.0 / 4.0) * k13[i];
          y[i] += h * err[i];
        }
      if (RK_RHS (t0 + h, y, fe) != 0)
        goto give_up;
      s->n_rhs++;
      for (i = 0; i < RK_N; i++)
        err[i] = h * ((13451932.0 / 455176623.0) * k1[i] + (-808719846.0 / 976000145.0) * k6[i]
                      + (1757004468.0 / 5645159321.0) * k7[i] + (656045339.0 / 265891186.0) * k8[i]
                      + (-3867574721.0 / 1518517206.0) * k9[i] + (465885868.0 / 322736535.0) * k10[i]
                      + (53011238.0 / 667516719.0) * k11[i] + (2.0 / 45.0) * k12[i] - err[i]);

      /* the control */
      s->tries++;
      {
        const double h_old = h, t_new = final ? t1 : t0 + h;
        double rmax = 2.2250738585072014e-308; /* DBL_MIN */
        for (i = 0; i < RK_N; i++)
          {
            const double d = s->rtol * (1.0 * fabs (y[i]) + 0.0 * fabs (h_old * fe[i])) + s->atol;
            const double r = fabs (err[i]) / fabs (d);
            rmax = r > rmax ? r : rmax;
          }
        if (rmax > 1.1)
          {
            double r = 0.9 / pow (rmax, 1.0 / 8.0);
            if (r < 0.2)
              r = 0.2;
            h = r * h_old;
            if (!(fabs (h) < fabs (h_old) && t_new + h != t_new))
              goto give_up;
            for (i = 0; i < RK_N; i++)
              y[i] = y0[i];
            continue;
          }
        if (rmax < 0.5)
          {
            double r = 0.9 / pow (rmax, 1.0 / 9.0);
            if (r > 5.0)
              r = 5.0;
            if (r < 1.0)
              r = 1.0;
            h = r * h_old;
          }
        s->last = h_old;
        s->t = t_new;
        if (!final)
          s->h = h;
        for (i = 0; i < RK_N; i++)
          k1[i] = fe[i];
        return 0;
      }
    }

give_up:
  for (i = 0; i < RK_N; i++)
    y[i] = y0[i];
  return 1;
}

#undef RK_ARG
#undef RK_STAGE

#endif
