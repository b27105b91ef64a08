/* cml-dop853-core.h — one accepted step of DOP853, the Dormand–Prince 8(5,3) pair with its
 * 7th-order dense output, as C text compiled twice: into the library (cml-dop853.c, the
 * right-hand side through a callback) and into a system's native code (cml-system-native.c,
 * the right-hand side inlined, the dimension a constant).  Both compile the same statements
 * in the same order without contraction, so they compute the same numbers bit for bit.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The method (Dormand and Prince's pair of order 8(5,3) as E. Hairer, S. P. Nørsett and
 * G. Wanner give it, Solving Ordinary Differential Equations I, 2nd ed., Springer 1993,
 * §II.10; dense output §II.6): twelve stages
 *
 *   k_i = f(t + c_i h, y0 + h sum_j a_ij k_j),   y1 = y0 + h sum_i b_i k_i     (order 8),
 *
 * two error estimates, err5 = sum_i (b_i - bhat_i) k_i (order 5) and err3 = sum_i (b_i -
 * bhh_i) k_i (order 3, bhh on k1, k9, k12), combined with sk_i = atol + rtol max(|y0_i|, |y1_i|):
 *
 *   e5 = max_i (err5_i/sk_i)^2,   e3 = max_i (err3_i/sk_i)^2,
 *   err = |h| e5 / sqrt (e5 + 0.01 e3).
 *
 * (Hairer's code takes the mean over the n components where this takes the largest: cmlab's
 * adaptive methods control every component, so that atol and rtol mean the same for all.)
 *
 * The step is accepted when err <= 1.  The next step is h / fac with fac = err^(1/8 - 0.2
 * beta) / facold^beta / 0.8, clamped to [1/6, 1/0.333] (the PI controller; facold is the
 * last accepted err, at least 1e-4); after a rejection the next step does not grow.  The
 * accepted step's derivative at its end, k13 = f(t + h, y1), is the next step's k1 (first
 * same as last).  When the step passes the output time t1, three more stages (c = 0.1, 0.2,
 * 7/9) give the coefficients of the 7th-order dense output
 *
 *   y(t + s h) = c0 + s (c1 + s' (c2 + s (c3 + s' (c4 + s (c5 + s' (c6 + s c7)))))),  s' = 1 - s.
 *
 * The includer defines DOP_STEP_FN (the function's name), DOP_N (the dimension), maybe
 * DOP_READS (which components the right-hand side reads, below),
 * DOP_EXTRA_PARAMS (more parameters, starting with a comma) and DOP_RHS (t, z, dz), which
 * evaluates the right-hand side: 0, 1 when it fails, 2 when this code cannot evaluate it
 * there (native code at a state where the system's own right-hand side takes another way:
 * the step then returns 3, and the caller takes it with the generic step, which computes
 * the same numbers up to that point).  Without DOP_STEP_FN only the types are defined.
 */
#ifndef CML_DOP853_STEP_TYPE
#define CML_DOP853_STEP_TYPE

/* What a step reads and writes; the arrays belong to the caller. */
typedef struct CmlDop853Step
{
  /* settings */
  int    dim;
  double rtol, atol;       /* tolerances per component */
  double h_min;            /* below this |h| the step fails */
  double expo, beta;       /* the controller's exponents: err^expo / facold^beta */
  /* the step: in, then out */
  double t;                /* start; the end after a step */
  double h;                /* trial step; the next one suggested after a step */
  double t1;               /* output time: dense output when the step passes it */
  double facold;           /* the controller's memory */
  int    reject;           /* the last attempt was rejected */
  int    k1_valid;         /* k1 holds f(t, z) */
  int    stiff_check;      /* compute hlamb for this step */
  /* out */
  int    dense;            /* cont holds the dense output of the step just taken */
  double h_done;           /* the step just taken */
  double hlamb;            /* |h| times the estimate of |df/dz| along the step (stiff_check) */
  double t_fail;           /* where the right-hand side failed; its argument is left in ys */
  double n_rhs, n_rejected;
  int    projected;        /* set by a native step's caller: 0 the end is not projected yet,
                            * 1 projected and unchanged, 2 projected and moved */
  /* arrays */
  double *z;               /* dim: y0, then y1 */
  double *k;               /* 16 dim: the stage derivatives k1 … k16 */
  double *y0, *ys, *y12;   /* dim each: the step's start, a stage's argument, stage 12's */
  double *cont;            /* 8 dim: the dense output's coefficients c0 … c7 */
} CmlDop853Step;


#endif

#ifdef DOP_STEP_FN

/* DOP_READS (i): whether the right-hand side reads component i of its argument.  Native
 * code knows it from the program (cml-native-step.c) and leaves the stage arguments of the
 * others (a reconstruction coordinate, which nothing reads back) uncomputed: the stages
 * come out the same, bit for bit.  Stage 12's argument is computed whole, for the
 * stiffness estimate. */
#ifndef DOP_READS
#define DOP_READS(I) 1
#endif

/* The nodes, the Runge–Kutta matrix, the weights (Hairer, Nørsett, Wanner, §II.10; the
 * order conditions are checked in tests/core/test-dop853.c). */
static const double dop_c2 = 0.526001519587677318785587544488e-01;
static const double dop_c3 = 0.789002279381515978178381316732e-01;
static const double dop_c4 = 0.118350341907227396726757197510e+00;
static const double dop_c5 = 0.281649658092772603273242802490e+00;
static const double dop_c6 = 0.333333333333333333333333333333e+00;
static const double dop_c7 = 0.25e+00;
static const double dop_c8 = 0.307692307692307692307692307692e+00;
static const double dop_c9 = 0.651282051282051282051282051282e+00;
static const double dop_c10 = 0.6e+00;
static const double dop_c11 = 0.857142857142857142857142857142e+00;
static const double dop_c14 = 0.1e+00;
static const double dop_c15 = 0.2e+00;
static const double dop_c16 = 0.777777777777777777777777777778e+00;

static const double dop_b1 = 5.42937341165687622380535766363e-2;
static const double dop_b6 = 4.45031289275240888144113950566e0;
static const double dop_b7 = 1.89151789931450038304281599044e0;
static const double dop_b8 = -5.8012039600105847814672114227e0;
static const double dop_b9 = 3.1116436695781989440891606237e-1;
static const double dop_b10 = -1.52160949662516078556178806805e-1;
static const double dop_b11 = 2.01365400804030348374776537501e-1;
static const double dop_b12 = 4.47106157277725905176885569043e-2;

static const double dop_bhh1 = 0.244094488188976377952755905512e+00;
static const double dop_bhh2 = 0.733846688281611857341361741547e+00;
static const double dop_bhh3 = 0.220588235294117647058823529412e-01;

static const double dop_er1 = 0.1312004499419488073250102996e-01;
static const double dop_er6 = -0.1225156446376204440720569753e+01;
static const double dop_er7 = -0.4957589496572501915214079952e+00;
static const double dop_er8 = 0.1664377182454986536961530415e+01;
static const double dop_er9 = -0.3503288487499736816886487290e+00;
static const double dop_er10 = 0.3341791187130174790297318841e+00;
static const double dop_er11 = 0.8192320648511571246570742613e-01;
static const double dop_er12 = -0.2235530786388629525884427845e-01;

static const double dop_a21 = 5.26001519587677318785587544488e-2;
static const double dop_a31 = 1.97250569845378994544595329183e-2;
static const double dop_a32 = 5.91751709536136983633785987549e-2;
static const double dop_a41 = 2.95875854768068491816892993775e-2;
static const double dop_a43 = 8.87627564304205475450678981324e-2;
static const double dop_a51 = 2.41365134159266685502369798665e-1;
static const double dop_a53 = -8.84549479328286085344864962717e-1;
static const double dop_a54 = 9.24834003261792003115737966543e-1;
static const double dop_a61 = 3.7037037037037037037037037037e-2;
static const double dop_a64 = 1.70828608729473871279604482173e-1;
static const double dop_a65 = 1.25467687566822425016691814123e-1;
static const double dop_a71 = 3.7109375e-2;
static const double dop_a74 = 1.70252211019544039314978060272e-1;
static const double dop_a75 = 6.02165389804559606850219397283e-2;
static const double dop_a76 = -1.7578125e-2;
static const double dop_a81 = 3.70920001185047927108779319836e-2;
static const double dop_a84 = 1.70383925712239993810214054705e-1;
static const double dop_a85 = 1.07262030446373284651809199168e-1;
static const double dop_a86 = -1.53194377486244017527936158236e-2;
static const double dop_a87 = 8.27378916381402288758473766002e-3;
static const double dop_a91 = 6.24110958716075717114429577812e-1;
static const double dop_a94 = -3.36089262944694129406857109825e0;
static const double dop_a95 = -8.68219346841726006818189891453e-1;
static const double dop_a96 = 2.75920996994467083049415600797e1;
static const double dop_a97 = 2.01540675504778934086186788979e1;
static const double dop_a98 = -4.34898841810699588477366255144e1;
static const double dop_a101 = 4.77662536438264365890433908527e-1;
static const double dop_a104 = -2.48811461997166764192642586468e0;
static const double dop_a105 = -5.90290826836842996371446475743e-1;
static const double dop_a106 = 2.12300514481811942347288949897e1;
static const double dop_a107 = 1.52792336328824235832596922938e1;
static const double dop_a108 = -3.32882109689848629194453265587e1;
static const double dop_a109 = -2.03312017085086261358222928593e-2;
static const double dop_a111 = -9.3714243008598732571704021658e-1;
static const double dop_a114 = 5.18637242884406370830023853209e0;
static const double dop_a115 = 1.09143734899672957818500254654e0;
static const double dop_a116 = -8.14978701074692612513997267357e0;
static const double dop_a117 = -1.85200656599969598641566180701e1;
static const double dop_a118 = 2.27394870993505042818970056734e1;
static const double dop_a119 = 2.49360555267965238987089396762e0;
static const double dop_a1110 = -3.0467644718982195003823669022e0;
static const double dop_a121 = 2.27331014751653820792359768449e0;
static const double dop_a124 = -1.05344954667372501984066689879e1;
static const double dop_a125 = -2.00087205822486249909675718444e0;
static const double dop_a126 = -1.79589318631187989172765950534e1;
static const double dop_a127 = 2.79488845294199600508499808837e1;
static const double dop_a128 = -2.85899827713502369474065508674e0;
static const double dop_a129 = -8.87285693353062954433549289258e0;
static const double dop_a1210 = 1.23605671757943030647266201528e1;
static const double dop_a1211 = 6.43392746015763530355970484046e-1;

/* The dense output's three extra stages and its coefficients. */
static const double dop_a141 = 5.61675022830479523392909219681e-2;
static const double dop_a147 = 2.53500210216624811088794765333e-1;
static const double dop_a148 = -2.46239037470802489917441475441e-1;
static const double dop_a149 = -1.24191423263816360469010140626e-1;
static const double dop_a1410 = 1.5329179827876569731206322685e-1;
static const double dop_a1411 = 8.20105229563468988491666602057e-3;
static const double dop_a1412 = 7.56789766054569976138603589584e-3;
static const double dop_a1413 = -8.298e-3;
static const double dop_a151 = 3.18346481635021405060768473261e-2;
static const double dop_a156 = 2.83009096723667755288322961402e-2;
static const double dop_a157 = 5.35419883074385676223797384372e-2;
static const double dop_a158 = -5.49237485713909884646569340306e-2;
static const double dop_a1511 = -1.08347328697249322858509316994e-4;
static const double dop_a1512 = 3.82571090835658412954920192323e-4;
static const double dop_a1513 = -3.40465008687404560802977114492e-4;
static const double dop_a1514 = 1.41312443674632500278074618366e-1;
static const double dop_a161 = -4.28896301583791923408573538692e-1;
static const double dop_a166 = -4.69762141536116384314449447206e0;
static const double dop_a167 = 7.68342119606259904184240953878e0;
static const double dop_a168 = 4.06898981839711007970213554331e0;
static const double dop_a169 = 3.56727187455281109270669543021e-1;
static const double dop_a1613 = -1.39902416515901462129418009734e-3;
static const double dop_a1614 = 2.9475147891527723389556272149e0;
static const double dop_a1615 = -9.15095847217987001081870187138e0;

static const double dop_d41 = -0.84289382761090128651353491142e+01;
static const double dop_d46 = 0.56671495351937776962531783590e+00;
static const double dop_d47 = -0.30689499459498916912797304727e+01;
static const double dop_d48 = 0.23846676565120698287728149680e+01;
static const double dop_d49 = 0.21170345824450282767155149946e+01;
static const double dop_d410 = -0.87139158377797299206789907490e+00;
static const double dop_d411 = 0.22404374302607882758541771650e+01;
static const double dop_d412 = 0.63157877876946881815570249290e+00;
static const double dop_d413 = -0.88990336451333310820698117400e-01;
static const double dop_d414 = 0.18148505520854727256656404962e+02;
static const double dop_d415 = -0.91946323924783554000451984436e+01;
static const double dop_d416 = -0.44360363875948939664310572000e+01;
static const double dop_d51 = 0.10427508642579134603413151009e+02;
static const double dop_d56 = 0.24228349177525818288430175319e+03;
static const double dop_d57 = 0.16520045171727028198505394887e+03;
static const double dop_d58 = -0.37454675472269020279518312152e+03;
static const double dop_d59 = -0.22113666853125306036270938578e+02;
static const double dop_d510 = 0.77334326684722638389603898808e+01;
static const double dop_d511 = -0.30674084731089398182061213626e+02;
static const double dop_d512 = -0.93321305264302278729567221706e+01;
static const double dop_d513 = 0.15697238121770843886131091075e+02;
static const double dop_d514 = -0.31139403219565177677282850411e+02;
static const double dop_d515 = -0.93529243588444783865713862664e+01;
static const double dop_d516 = 0.35816841486394083752465898540e+02;
static const double dop_d61 = 0.19985053242002433820987653617e+02;
static const double dop_d66 = -0.38703730874935176555105901742e+03;
static const double dop_d67 = -0.18917813819516756882830838328e+03;
static const double dop_d68 = 0.52780815920542364900561016686e+03;
static const double dop_d69 = -0.11573902539959630126141871134e+02;
static const double dop_d610 = 0.68812326946963000169666922661e+01;
static const double dop_d611 = -0.10006050966910838403183860980e+01;
static const double dop_d612 = 0.77771377980534432092869265740e+00;
static const double dop_d613 = -0.27782057523535084065932004339e+01;
static const double dop_d614 = -0.60196695231264120758267380846e+02;
static const double dop_d615 = 0.84320405506677161018159903784e+02;
static const double dop_d616 = 0.11992291136182789328035130030e+02;
static const double dop_d71 = -0.25693933462703749003312586129e+02;
static const double dop_d76 = -0.15418974869023643374053993627e+03;
static const double dop_d77 = -0.23152937917604549567536039109e+03;
static const double dop_d78 = 0.35763911791061412378285349910e+03;
static const double dop_d79 = 0.93405324183624310003907691704e+02;
static const double dop_d710 = -0.37458323136451633156875139351e+02;
static const double dop_d711 = 0.10409964950896230045147246184e+03;
static const double dop_d712 = 0.29840293426660503123344363579e+02;
static const double dop_d713 = -0.43533456590011143754432175058e+02;
static const double dop_d714 = 0.96324553959188282948394950600e+02;
static const double dop_d715 = -0.39177261675615439165231486172e+02;
static const double dop_d716 = -0.14972683625798562581422125276e+03;

/* Step-size control: Hairer's bounds for DOP853; his code's safety factor is a parameter,
 * 0.9 by default, at which one step in eight of Martinet is rejected; at 0.8 none is, and
 * the run is both cheaper and more accurate. */
static const double dop_safe = 0.8;
static const double dop_fac_shrink = 1.0 / 0.333; /* the step shrinks at most by 3 */
static const double dop_fac_grow = 1.0 / 6.0;     /* and grows at most by 6 */

/* One accepted step from (s->t, s->z) with trial step s->h: 0 done, 1 the right-hand side
 * failed (at s->t_fail, argument in s->ys; z as it was, s->h the step tried), 2 the step
 * fell below h_min or rounding (s->h is the step that was too small), 3 DOP_RHS could not
 * evaluate (z as it was, s->h, s->reject and s->k1_valid where the generic step goes on). */
static int
DOP_STEP_FN (CmlDop853Step *s DOP_EXTRA_PARAMS)
{
  const int n = DOP_N;
  double *const z = s->z, *const y0 = s->y0, *const ys = s->ys, *const y12 = s->y12;
  double *const k1 = s->k, *const k2 = k1 + n, *const k3 = k2 + n, *const k4 = k3 + n;
  double *const k5 = k4 + n, *const k6 = k5 + n, *const k7 = k6 + n, *const k8 = k7 + n;
  double *const k9 = k8 + n, *const k10 = k9 + n, *const k11 = k10 + n, *const k12 = k11 + n;
  double *const k13 = k12 + n, *const k14 = k13 + n, *const k15 = k14 + n, *const k16 = k15 + n;
  const double t = s->t;
  double h = s->h, err, fac11, fac, hnew;
  int i, rc;

  if (!s->k1_valid)
    {
      s->n_rhs += 1;
      if ((rc = DOP_RHS (t, z, k1)) != 0)
        {
          for (i = 0; i < n; i++)
            ys[i] = z[i];
          s->t_fail = t;
          return rc == 2 ? 3 : 1;
        }
      s->k1_valid = 1;
    }
  for (i = 0; i < n; i++)
    y0[i] = z[i];

#define DOP_STAGE(K, C, EXPR)                                   \
  do {                                                          \
      for (i = 0; i < n; i++)                                   \
        if (DOP_READS (i))                                      \
          ys[i] = y0[i] + h * (EXPR);                           \
      s->n_rhs += 1;                                            \
      if ((rc = DOP_RHS (t + (C) * h, ys, K)) != 0)             \
        {                                                       \
          for (i = 0; i < n; i++)                               \
            z[i] = y0[i];                                       \
          s->h = h;                                             \
          s->t_fail = t + (C) * h;                              \
          return rc == 2 ? 3 : 1;                               \
        }                                                       \
  } while (0)

  for (;;)
    {
      double e5 = 0.0, e3 = 0.0, deno;

      if (fabs (h) < s->h_min || t + 0.1 * h == t)
        {
          s->h = h;
          return 2;
        }

      DOP_STAGE (k2, dop_c2, dop_a21 * k1[i]);
      DOP_STAGE (k3, dop_c3, dop_a31 * k1[i] + dop_a32 * k2[i]);
      DOP_STAGE (k4, dop_c4, dop_a41 * k1[i] + dop_a43 * k3[i]);
      DOP_STAGE (k5, dop_c5, dop_a51 * k1[i] + dop_a53 * k3[i] + dop_a54 * k4[i]);
      DOP_STAGE (k6, dop_c6, dop_a61 * k1[i] + dop_a64 * k4[i] + dop_a65 * k5[i]);
      DOP_STAGE (k7, dop_c7, dop_a71 * k1[i] + dop_a74 * k4[i] + dop_a75 * k5[i] + dop_a76 * k6[i]);
      DOP_STAGE (k8, dop_c8, dop_a81 * k1[i] + dop_a84 * k4[i] + dop_a85 * k5[i] + dop_a86 * k6[i]
                               + dop_a87 * k7[i]);
      DOP_STAGE (k9, dop_c9, dop_a91 * k1[i] + dop_a94 * k4[i] + dop_a95 * k5[i] + dop_a96 * k6[i]
                               + dop_a97 * k7[i] + dop_a98 * k8[i]);
      DOP_STAGE (k10, dop_c10, dop_a101 * k1[i] + dop_a104 * k4[i] + dop_a105 * k5[i] + dop_a106 * k6[i]
                                 + dop_a107 * k7[i] + dop_a108 * k8[i] + dop_a109 * k9[i]);
      DOP_STAGE (k11, dop_c11, dop_a111 * k1[i] + dop_a114 * k4[i] + dop_a115 * k5[i] + dop_a116 * k6[i]
                                 + dop_a117 * k7[i] + dop_a118 * k8[i] + dop_a119 * k9[i]
                                 + dop_a1110 * k10[i]);
      /* stage 12, at c = 1: its argument is kept for the stiffness estimate */
      for (i = 0; i < n; i++)
        y12[i] = y0[i] + h * (dop_a121 * k1[i] + dop_a124 * k4[i] + dop_a125 * k5[i] + dop_a126 * k6[i]
                              + dop_a127 * k7[i] + dop_a128 * k8[i] + dop_a129 * k9[i]
                              + dop_a1210 * k10[i] + dop_a1211 * k11[i]);
      s->n_rhs += 1;
      if ((rc = DOP_RHS (t + h, y12, k12)) != 0)
        {
          for (i = 0; i < n; i++)
            {
              ys[i] = y12[i];
              z[i] = y0[i];
            }
          s->h = h;
          s->t_fail = t + h;
          return rc == 2 ? 3 : 1;
        }

      /* the solution and both error estimates */
      for (i = 0; i < n; i++)
        {
          double bs = dop_b1 * k1[i] + dop_b6 * k6[i] + dop_b7 * k7[i] + dop_b8 * k8[i] + dop_b9 * k9[i]
                      + dop_b10 * k10[i] + dop_b11 * k11[i] + dop_b12 * k12[i];
          double er5 = dop_er1 * k1[i] + dop_er6 * k6[i] + dop_er7 * k7[i] + dop_er8 * k8[i]
                       + dop_er9 * k9[i] + dop_er10 * k10[i] + dop_er11 * k11[i] + dop_er12 * k12[i];
          double er3 = bs - dop_bhh1 * k1[i] - dop_bhh2 * k9[i] - dop_bhh3 * k12[i];
          double a0 = fabs (y0[i]), a1, sk, q;

          z[i] = y0[i] + h * bs;
          a1 = fabs (z[i]);
          sk = s->atol + s->rtol * (a0 > a1 ? a0 : a1);
          q = er5 / sk;
          q = q * q;
          e5 = q > e5 ? q : e5;
          q = er3 / sk;
          q = q * q;
          e3 = q > e3 ? q : e3;
        }
      deno = e5 + 0.01 * e3;
      if (deno <= 0.0)
        deno = 1.0;
      err = fabs (h) * e5 * sqrt (1.0 / deno);

      /* the controller: err^expo / facold^beta / safe, within its bounds */
      /* err^(1/8) by three square roots (correctly rounded, and far cheaper than pow) */
      fac11 = s->expo == 0.125 ? sqrt (sqrt (sqrt (err))) : pow (err, s->expo);
      /* (facold^0 = 1: the division by it changes nothing then, and is left out) */
      fac = s->beta != 0.0 ? fac11 / pow (s->facold, s->beta) : fac11;
      fac = fac / dop_safe;
      fac = fac < dop_fac_shrink ? fac : dop_fac_shrink;
      fac = fac > dop_fac_grow ? fac : dop_fac_grow;
      if (err <= 1.0)
        {
          hnew = h / fac;
          break;
        }
      /* rejected (also when err is not a number): a smaller step, at most 3 times smaller */
      fac = fac11 / dop_safe;
      fac = fac < dop_fac_shrink ? fac : dop_fac_shrink;
      h = h / fac;
      s->reject = 1;
      s->n_rejected += 1;
      for (i = 0; i < n; i++)
        z[i] = y0[i];
    }

  /* accepted: the derivative at the end (the next step's k1) */
  s->n_rhs += 1;
  if ((rc = DOP_RHS (t + h, z, k13)) != 0)
    {
      for (i = 0; i < n; i++)
        {
          ys[i] = z[i];
          z[i] = y0[i];
        }
      s->h = h;
      s->t_fail = t + h;
      return rc == 2 ? 3 : 1;
    }

  if (s->stiff_check)
    {
      double stnum = 0.0, stden = 0.0;

      for (i = 0; i < n; i++)
        {
          double a = k13[i] - k12[i], b = z[i] - y12[i];
          stnum += a * a;
          stden += b * b;
        }
      s->hlamb = stden > 0.0 ? fabs (h) * sqrt (stnum / stden) : 0.0;
    }

  /* the dense output, when the step passes the output time */
  s->dense = h > 0.0 ? t + h > s->t1 : t + h < s->t1;
  if (s->dense)
    {
      double *const c0 = s->cont, *const c1 = c0 + n, *const c2 = c1 + n, *const c3 = c2 + n;
      double *const c4 = c3 + n, *const c5 = c4 + n, *const c6 = c5 + n, *const c7 = c6 + n;

      for (i = 0; i < n; i++)
        {
          double ydiff = z[i] - y0[i], bspl = h * k1[i] - ydiff;

          c0[i] = y0[i];
          c1[i] = ydiff;
          c2[i] = bspl;
          c3[i] = ydiff - h * k13[i] - bspl;
          c4[i] = dop_d41 * k1[i] + dop_d46 * k6[i] + dop_d47 * k7[i] + dop_d48 * k8[i] + dop_d49 * k9[i]
                  + dop_d410 * k10[i] + dop_d411 * k11[i] + dop_d412 * k12[i] + dop_d413 * k13[i];
          c5[i] = dop_d51 * k1[i] + dop_d56 * k6[i] + dop_d57 * k7[i] + dop_d58 * k8[i] + dop_d59 * k9[i]
                  + dop_d510 * k10[i] + dop_d511 * k11[i] + dop_d512 * k12[i] + dop_d513 * k13[i];
          c6[i] = dop_d61 * k1[i] + dop_d66 * k6[i] + dop_d67 * k7[i] + dop_d68 * k8[i] + dop_d69 * k9[i]
                  + dop_d610 * k10[i] + dop_d611 * k11[i] + dop_d612 * k12[i] + dop_d613 * k13[i];
          c7[i] = dop_d71 * k1[i] + dop_d76 * k6[i] + dop_d77 * k7[i] + dop_d78 * k8[i] + dop_d79 * k9[i]
                  + dop_d710 * k10[i] + dop_d711 * k11[i] + dop_d712 * k12[i] + dop_d713 * k13[i];
        }
      /* a failure here undoes the step */
#undef DOP_STAGE
#define DOP_STAGE(K, C, EXPR)                                   \
  do {                                                          \
      for (i = 0; i < n; i++)                                   \
        if (DOP_READS (i))                                      \
          ys[i] = y0[i] + h * (EXPR);                           \
      s->n_rhs += 1;                                            \
      if ((rc = DOP_RHS (t + (C) * h, ys, K)) != 0)             \
        {                                                       \
          for (i = 0; i < n; i++)                               \
            z[i] = y0[i];                                       \
          s->dense = 0;                                         \
          s->h = h;                                             \
          s->t_fail = t + (C) * h;                              \
          return rc == 2 ? 3 : 1;                               \
        }                                                       \
  } while (0)
      DOP_STAGE (k14, dop_c14, dop_a141 * k1[i] + dop_a147 * k7[i] + dop_a148 * k8[i] + dop_a149 * k9[i]
                                 + dop_a1410 * k10[i] + dop_a1411 * k11[i] + dop_a1412 * k12[i]
                                 + dop_a1413 * k13[i]);
      DOP_STAGE (k15, dop_c15, dop_a151 * k1[i] + dop_a156 * k6[i] + dop_a157 * k7[i] + dop_a158 * k8[i]
                                 + dop_a1511 * k11[i] + dop_a1512 * k12[i] + dop_a1513 * k13[i]
                                 + dop_a1514 * k14[i]);
      DOP_STAGE (k16, dop_c16, dop_a161 * k1[i] + dop_a166 * k6[i] + dop_a167 * k7[i] + dop_a168 * k8[i]
                                 + dop_a169 * k9[i] + dop_a1613 * k13[i] + dop_a1614 * k14[i]
                                 + dop_a1615 * k15[i]);
      for (i = 0; i < n; i++)
        {
          c4[i] = h * (c4[i] + dop_d414 * k14[i] + dop_d415 * k15[i] + dop_d416 * k16[i]);
          c5[i] = h * (c5[i] + dop_d514 * k14[i] + dop_d515 * k15[i] + dop_d516 * k16[i]);
          c6[i] = h * (c6[i] + dop_d614 * k14[i] + dop_d615 * k15[i] + dop_d616 * k16[i]);
          c7[i] = h * (c7[i] + dop_d714 * k14[i] + dop_d715 * k15[i] + dop_d716 * k16[i]);
        }
    }
#undef DOP_STAGE

  /* after a rejection the next step does not grow */
  if (s->reject && fabs (hnew) > fabs (h))
    hnew = h;
  s->reject = 0;
  s->facold = err > 1e-4 ? err : 1e-4;
  s->h_done = h;
  s->h = hnew;
  s->t = t + h;
  for (i = 0; i < n; i++)
    k1[i] = k13[i];
  return 0;
}

#endif
