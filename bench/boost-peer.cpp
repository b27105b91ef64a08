// boost-peer.cpp — Boost.Odeint's side of `cmlab-bench` (figure "dop853"): the Martinet
// equations typed in by hand (doc/theory.md §9.3, the same equations and state layout as
// bench/reference-rhs.c, bench/martinet.ode and bench/peers.py), integrated in C++.
//
// SPDX-License-Identifier: GPL-3.0-or-later
//
//   boost-peer METHOD T_END DT_OUT RTOL ATOL REPS
//
// METHOD rkf78: runge_kutta_fehlberg78 under a controlled stepper (steps shortened to land
// on every output time); dopri5: runge_kutta_dopri5 with its dense output (free steps, the
// outputs interpolated).  Integrates REPS times from the initial data of bench/martinet.ode
// (x1 = 0, u = 1, y1 = 0, k = 1) to T_END with an output every DT_OUT, and prints
// "name value" lines: solve_cpu_seconds (the median CPU time of one integration, in this
// process), steps, and the final x1, p_u, p_y1, x2 (the names of `cmlab-cli simulate`).
// With T_END = 0 it does nothing but start and print: the start-up the benchmark subtracts.

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <boost/numeric/odeint.hpp>

namespace odeint = boost::numeric::odeint;

typedef std::array<double, 6> State;

// ẋ = u, u̇ = −k x y1, ẏ1 = k x u, k̇ = 0, ẋ2 = y1, ẋ3 = x² y1/2
static void
martinet (const State &z, State &dz, double)
{
  const double x = z[0], u = z[1], y1 = z[2], k = z[3];
  dz[0] = u;
  dz[1] = -k * x * y1;
  dz[2] = k * x * u;
  dz[3] = 0.0;
  dz[4] = y1;
  dz[5] = 0.5 * x * x * y1;
}

static double
cpu_now ()
{
  struct timespec ts;
  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// The simulate loop: an output every DT_OUT up to T_END, each one read (as cmlab-cli writes
// a row); the final state in Z.
template <class Integrate>
static size_t
run (Integrate integrate, State &z)
{
  z = State{ 0.0, 1.0, 0.0, 1.0, 0.0, 0.0 };
  return integrate (z);
}

int
main (int argc, char **argv)
{
  if (argc != 7)
    {
      std::fprintf (stderr, "usage: %s rkf78|dopri5 T_END DT_OUT RTOL ATOL REPS\n", argv[0]);
      return 2;
    }
  const char *method = argv[1];
  const double t_end = std::atof (argv[2]), dt = std::atof (argv[3]);
  const double rtol = std::atof (argv[4]), atol = std::atof (argv[5]);
  const int reps = std::max (1, std::atoi (argv[6]));
  const bool fehlberg = std::strcmp (method, "rkf78") == 0;
  if (!fehlberg && std::strcmp (method, "dopri5") != 0)
    {
      std::fprintf (stderr, "%s: unknown method %s\n", argv[0], method);
      return 2;
    }
  if (t_end <= 0)
    {
      std::printf ("solve_cpu_seconds 0\n");
      return 0;
    }

  const long n_out = (long) (t_end / dt * (1 + 1e-12));
  volatile double sink = 0;
  std::vector<double> times;
  State z{};
  size_t steps = 0;
  for (int r = 0; r < reps; r++)
    {
      const double t0 = cpu_now ();
      if (fehlberg)
        steps = run ([&] (State &s) {
            auto stepper = odeint::make_controlled (atol, rtol, odeint::runge_kutta_fehlberg78<State> ());
            size_t n = 0;
            double t = 0;
            for (long k = 1; k <= n_out; k++)
              {
                n += odeint::integrate_adaptive (stepper, martinet, s, t, k * dt, dt / 10);
                t = k * dt;
                sink += s[0];
              }
            return n;
          }, z);
      else
        steps = run ([&] (State &s) {
            auto stepper = odeint::make_dense_output (atol, rtol, odeint::runge_kutta_dopri5<State> ());
            return odeint::integrate_const (stepper, martinet, s, 0.0, n_out * dt, dt,
                                            [&] (const State &o, double) { sink += o[0]; });
          }, z);
      times.push_back (cpu_now () - t0);
    }
  std::sort (times.begin (), times.end ());
  std::printf ("solve_cpu_seconds %.9g\n", times[times.size () / 2]);
  std::printf ("steps %zu\n", steps);
  std::printf ("t %.17g\n", n_out * dt);
  std::printf ("x1 %.17g\np_u %.17g\np_y1 %.17g\nk %.17g\nx2 %.17g\nx3 %.17g\n", z[0], z[1], z[2], z[3], z[4],
               z[5]);
  return 0;
}
