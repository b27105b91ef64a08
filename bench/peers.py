#!/usr/bin/python3
# peers.py — SciPy's side of `cmlab-bench`: the built-in systems' equations typed in
# by hand (doc/theory.md §9, the same equations and state layouts as
# bench/reference-rhs.c and the XPPAUT files beside this one), integrated with
# scipy.integrate.solve_ivp(method='DOP853').
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   /usr/bin/python3 peers.py MODEL --t-end T --dt-out H [--rtol R] [--atol A]
#       integrates MODEL from its default initial data to T, with output every H, and
#       prints "name value" lines: t (the last output time), solve_seconds and
#       solve_cpu_seconds (solve_ivp's own wall and CPU time), nfev, and the final values
#       of the components the benchmark compares with the closed form (the same names as
#       `cmlab-cli simulate` columns).
#   /usr/bin/python3 peers.py --startup
#       imports what a run imports and exits: the start-up cost that the benchmark
#       subtracts.
#
# Debian's /usr/bin/python3 with python3-scipy; the scalar right-hand sides below are
# plain Python (faster than NumPy array arithmetic for states of 6 to 12 components).

import math
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp


def quaternion_rate(q0, q1, q2, q3, w1, w2, w3):
    # dq/dt = (1/2) (0, w) (x) q, spatial angular velocity w (doc/theory.md §9.1)
    return (-(w1 * q1 + w2 * q2 + w3 * q3) / 2,
            (q0 * w1 + w2 * q3 - w3 * q2) / 2,
            (q0 * w2 + w3 * q1 - w1 * q3) / 2,
            (q0 * w3 + w1 * q2 - w2 * q1) / 2)


def rolling_ball():
    # doc/theory.md §9.1, constant Omega; state (x, y, u, v, w1, w2, w3, q0..q3, alpha)
    m, r, k2, Omega = 1.0, 1.0, 0.4, 1.0
    kO = k2 / (k2 + r * r) * Omega
    rO = r / (k2 + r * r) * Omega

    def f(t, z):
        x, y, u, v, w1, w2, w3, q0, q1, q2, q3, alpha = z
        return [u, v, -kO * v, kO * u, rO * u, rO * v, 0.0,
                *quaternion_rate(q0, q1, q2, q3, w1, w2, w3), Omega]

    z0 = [1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0, 0.0]
    names = {"x": 0, "y": 1, "u": 2, "v": 3}
    return f, z0, names


def plate_ball():
    # doc/theory.md §9.2, Hamiltonian form on W1; state (x1, x2, p1..p5, q0..q3, alpha)
    r, Omega, c, sigma = 1.0, 0.0, 0.0, -1.0

    def f(t, z):
        x1, x2, p1, p2, p3, p4, p5, q0, q1, q2, q3, alpha = z
        y1 = p1 + p4 / r
        y2 = p2 - p3 / r
        psi3 = (Omega * x1 - y2) / r
        psi4 = (y1 + Omega * x2) / r
        return [y1, y2, -Omega * p3 / r, -Omega * p4 / r,
                sigma * (c * p4 - psi4 * p5),
                sigma * (psi3 * p5 - c * p3),
                sigma * (psi4 * p3 - psi3 * p4),
                *quaternion_rate(q0, q1, q2, q3, psi3, psi4, c), Omega]

    z0 = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0]
    names = {"x1": 0, "x2": 1, "p1": 2, "p2": 3, "p3": 4, "p4": 5, "p5": 6}
    return f, z0, names


def martinet():
    # doc/theory.md §9.3; state (x1, p_u = u, p_y1 = y1, k, x2, x3)
    def f(t, z):
        x, u, y1, k, x2, x3 = z
        return [u, -k * x * y1, k * x * u, 0.0, y1, x * x * y1 / 2]

    z0 = [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    names = {"x1": 0, "u": 1, "y1": 2, "x2": 4}
    return f, z0, names


def capri_kobayashi():
    # doc/theory.md §9.4, reduced, after the constraint algorithm; state
    # (x1, y1, rho, vx1, vy1, v, r, theta)
    m2 = 1.0

    def f(t, z):
        x1, y1, rho, vx1, vy1, v, r, theta = z
        return [vx1, vy1, v, 0.0, 0.0, rho * (m2 * r * r + 2 * r - 2) / m2,
                -2 * v * (m2 * r + 1) / (m2 * rho), r]

    z0 = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.0]
    names = {"rho": 2, "v": 5, "r": 6}
    return f, z0, names


def capri_kobayashi_full():
    # doc/theory.md §9.4, unreduced on T R^4; state (x1, y1, x2, y2, vx1, vy1, vx2, vy2)
    m2 = 1.0

    def f(t, z):
        x1, y1, x2, y2, vx1, vy1, vx2, vy2 = z
        return [vx1, vy1, vx2, vy2, 0.0, 0.0, 2 * (vy2 - x2) / m2, -2 * (vx2 + y2) / m2]

    z0 = [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.5]
    names = {"x2": 2, "y2": 3}
    return f, z0, names


SYSTEMS = {
    "rolling-ball": rolling_ball,
    "plate-ball": plate_ball,
    "martinet": martinet,
    "capri-kobayashi": capri_kobayashi,
    "capri-kobayashi-full": capri_kobayashi_full,
}


def main(argv):
    if len(argv) == 2 and argv[1] == "--startup":
        return 0
    if len(argv) < 2 or argv[1] not in SYSTEMS:
        print("usage: peers.py MODEL --t-end T --dt-out H [--rtol R] [--atol A] | --startup\n"
              "models: " + ", ".join(SYSTEMS), file=sys.stderr)
        return 2
    opts = {"--t-end": None, "--dt-out": None, "--rtol": "1e-10", "--atol": "1e-10"}
    i = 2
    while i < len(argv):
        if argv[i] not in opts or i + 1 >= len(argv):
            print("peers.py: bad argument " + argv[i], file=sys.stderr)
            return 2
        opts[argv[i]] = argv[i + 1]
        i += 2
    if opts["--t-end"] is None or opts["--dt-out"] is None:
        print("peers.py: --t-end and --dt-out are required", file=sys.stderr)
        return 2
    t_end, dt = float(opts["--t-end"]), float(opts["--dt-out"])
    rtol, atol = float(opts["--rtol"]), float(opts["--atol"])

    f, z0, names = SYSTEMS[argv[1]]()
    # output times 0, H, 2H, ... and t_end, as `cmlab-cli simulate --dt-out H` writes them
    n = int(math.floor(t_end / dt * (1 + 1e-12)))
    t_eval = [min(k * dt, t_end) for k in range(n + 1)]
    if t_eval[-1] < t_end:
        t_eval.append(t_end)
    t0, c0 = time.perf_counter(), time.process_time()
    sol = solve_ivp(f, (0.0, t_end), z0, method="DOP853", t_eval=np.array(t_eval),
                    rtol=rtol, atol=atol)
    seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
    if not sol.success:
        print("peers.py: solve_ivp failed: " + sol.message, file=sys.stderr)
        return 1
    print("t %r" % float(sol.t[-1]))
    print("solve_seconds %r" % seconds)
    print("solve_cpu_seconds %r" % cpu_seconds)
    print("nfev %d" % sol.nfev)
    for name, i in names.items():
        print("%s %r" % (name, float(sol.y[i, -1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
