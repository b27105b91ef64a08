#!/usr/bin/python3
"""Oracle numbers for the extra built-in models of cmlab (not from the papers of doc/theory.md §12).

Systems: vertical-disk, chaplygin-sleigh, rigid-body, heavy-top (models/*.cml).
For each: the closed form of tests/models/ORACLES-extra.md evaluated with mpmath at 30 digits,
checked against an independent DOP853 integration (scipy, rtol = atol = 1e-13) of the equations
of motion written out below (Lagrange-d'Alembert with the multipliers eliminated numerically for
the nonholonomic systems; Euler and Euler-Poisson equations for the tops).

Run:  /usr/bin/python3 tests/models/oracles_extra.py [--markdown]
Prints the oracle tables (as Markdown tables with --markdown, as in ORACLES-extra.md); exits with status 1 if closed form and integration disagree by more
than 1e-9 anywhere.
"""
import sys

import mpmath as mp
import numpy as np
from scipy.integrate import solve_ivp

mp.mp.dps = 30
TOL = 1e-9
RTOL = ATOL = 1e-13
failures = []


def dec(v):
    """exact decimal value of a number given in the source (0.6 means 6/10, not the double)"""
    return v if isinstance(v, mp.mpf) else mp.mpf(str(v))


def integrate(f, y0, ts):
    ts = [float(t) for t in ts]
    sol = solve_ivp(f, (0.0, max(ts)), np.array(y0, float), method='DOP853', rtol=RTOL, atol=ATOL,
                    dense_output=True)
    assert sol.success, sol.message
    return sol.sol


MARKDOWN = '--markdown' in sys.argv


def fmt(x):
    """16 significant digits; exact zeros (closed-form rounding noise below 1e-25) as 0"""
    return '0' if abs(x) < mp.mpf(10) ** -25 else mp.nstr(x, 16, min_fixed=-5, max_fixed=5)


def tl(t):
    """label of a time: multiples of pi as such"""
    t = mp.mpf(t)
    q = t / mp.pi
    for den in (1, 2, 3, 4, 6):
        if abs(q * den - mp.nint(q * den)) < mp.mpf(10) ** -20 and mp.nint(q * den) != 0:
            num = int(mp.nint(q * den))
            s = ('%d' % num if num != 1 else '') + 'pi'
            return s if den == 1 else s + '/%d' % den
    return mp.nstr(t, 16)


def report(system, case, rows):
    """rows: (label, exact (mpf), numerical (float))"""
    if MARKDOWN:
        print('\n| quantity | exact | \\|exact − DOP853\\| |\n|---|---|---|')
    else:
        print('  %-34s %24s %10s' % ('quantity', 'exact', '|exact-DOP853|'))
    for label, ex, num in rows:
        d = abs(float(ex) - num)
        flag = ''
        if d > TOL:
            flag = '  <-- MISMATCH'
            failures.append((system, case, label, d))
        if MARKDOWN:
            print('| %s | %s | %.0e%s |' % (label, fmt(ex), d, flag))
        else:
            print('  %-34s %24s %10.1e%s' % (label, fmt(ex), d, flag))


def lda_tq(M, phi_y, phi_x, n):
    """Lagrange-d'Alembert on TQ for L = 1/2 v^T M v (M constant, diagonal) and linear constraints
    phi(q, v) = phi_y(q) v = 0.  State (q, v).  Multipliers eliminated numerically:
    M vdot = Phi_y^T lam,  d/dt(Phi_y v) = Phi_y vdot + (dPhi_y/dt) v = 0."""
    Minv = np.diag(1.0 / np.asarray(M, float))

    def f(t, z):
        q, v = z[:n], z[n:]
        A = phi_y(q)                       # s x n
        Adot = phi_x(q, v)                 # (d/dt Phi_y) v, with qdot = v
        C = A @ Minv @ A.T
        lam = np.linalg.solve(C, -Adot)
        vdot = Minv @ A.T @ lam
        return np.concatenate([v, vdot])
    return f


# ============================================================================ vertical disk
def vertical_disk(case, m, r, Ia, Id, x0, y0, th0, ph0, dth, dph, times):
    print('\n[vertical-disk] %s: m=%s r=%s Ia=%s Id=%s; x0=%s y0=%s theta0=%s phi0=%s dtheta=%s dphi=%s'
          % (case, m, r, Ia, Id, x0, y0, th0, ph0, dth, dph))
    r, x0, y0, th0, ph0, dth, dph = map(dec, (r, x0, y0, th0, ph0, dth, dph))

    def exact(t):
        t = mp.mpf(t)
        ph = ph0 + dph * t
        th = th0 + dth * t
        if dph == 0:
            x = x0 + r * dth * t * mp.cos(ph0)
            y = y0 + r * dth * t * mp.sin(ph0)
        else:
            R = r * dth / dph
            x = x0 + R * (mp.sin(ph) - mp.sin(ph0))
            y = y0 - R * (mp.cos(ph) - mp.cos(ph0))
        return x, y, th, ph, r * mp.cos(ph) * dth, r * mp.sin(ph) * dth

    if dph != 0:
        R = r * dth / dph
        print('  circle: centre (%s, %s), radius %s, period 2*pi/|dphi| = %s'
              % (mp.nstr(x0 - R * mp.sin(ph0), 16), mp.nstr(y0 + R * mp.cos(ph0), 16), mp.nstr(abs(R), 16),
                 mp.nstr(2 * mp.pi / abs(dph), 16)))
    # independent integration: state (x, y, theta, phi, u, v, dtheta, dphi)
    fr = float(r)

    def phi_y(q):
        ph = q[3]
        return np.array([[1.0, 0.0, -fr * np.cos(ph), 0.0], [0.0, 1.0, -fr * np.sin(ph), 0.0]])

    def phi_x(q, v):
        ph = q[3]
        return np.array([fr * np.sin(ph) * v[3] * v[2], -fr * np.cos(ph) * v[3] * v[2]])
    f = lda_tq([m, m, Ia, Id], phi_y, phi_x, 4)
    u0, v0 = float(r * mp.cos(ph0) * dth), float(r * mp.sin(ph0) * dth)
    sol = integrate(f, [x0, y0, th0, ph0, u0, v0, dth, dph], times)
    energy = dec(m) / 2 * (r * dth) ** 2 + dec(Ia) / 2 * dth ** 2 + dec(Id) / 2 * dph ** 2
    rows = []
    for t in times:
        ex = exact(t)
        z = sol(float(t))
        for k, nm in enumerate(['x', 'y', 'theta', 'phi', 'u', 'v']):
            rows.append(('%s(%s)' % (nm, tl(t)), ex[k], z[k]))
    e = 0.5 * m * (z[4] ** 2 + z[5] ** 2) + 0.5 * Ia * z[6] ** 2 + 0.5 * Id * z[7] ** 2
    rows.append(('energy(%s)' % tl(t), energy, e))
    report('vertical-disk', case, rows)


# ============================================================================ Chaplygin sleigh
def sleigh(case, m, Ic, a, x0, y0, th0, u0, v0, times):
    print('\n[chaplygin-sleigh] %s: m=%s Ic=%s a=%s; x0=%s y0=%s theta0=%s u0=%s v0=%s'
          % (case, m, Ic, a, x0, y0, th0, u0, v0))
    m, Ic, a, x0, y0, th0, u0, v0 = map(dec, (m, Ic, a, x0, y0, th0, u0, v0))
    w0 = (-u0 * mp.sin(th0) + v0 * mp.cos(th0)) / a          # from the constraint
    f0 = u0 * mp.cos(th0) + v0 * mp.sin(th0)                 # forward speed
    J = Ic + m * a ** 2
    E = m / 2 * (u0 ** 2 + v0 ** 2) + Ic / 2 * w0 ** 2       # = m f^2/2 + J w^2/2
    V = mp.sqrt(2 * E / m)
    c = m * a / J
    s0 = mp.atanh(f0 / V)
    K = w0 * mp.cosh(s0) / (c * V)
    gd = lambda s: mp.atan(mp.sinh(s))

    def closed(t):
        s = c * V * t + s0
        fwd = V * mp.tanh(s)
        w = w0 * mp.cosh(s0) / mp.cosh(s)
        th = th0 + K * (gd(s) - gd(s0))
        return fwd, w, th

    def xy(t):
        def integrand(tt, comp):
            fwd, w, th = closed(tt)
            if comp == 0:
                return fwd * mp.cos(th) - a * w * mp.sin(th)
            return fwd * mp.sin(th) + a * w * mp.cos(th)
        return (x0 + mp.quad(lambda tt: integrand(tt, 0), [0, t]),
                y0 + mp.quad(lambda tt: integrand(tt, 1), [0, t]))
    th_inf = th0 + K * (mp.pi / 2 - gd(s0))
    print('  w0 = %s, energy = %s, final speed V = %s, final heading theta_inf = %s'
          % (mp.nstr(w0, 16), mp.nstr(E, 16), mp.nstr(V, 16), mp.nstr(th_inf, 16)))
    print('  rate c*V = m*a*V/(Ic + m*a^2) = %s, s0 = atanh(f0/V) = %s' % (mp.nstr(c * V, 16), mp.nstr(s0, 16)))
    fm, fI, fa = float(m), float(Ic), float(a)

    def phi_y(q):
        th = q[2]
        return np.array([[-np.sin(th), np.cos(th), -fa]])

    def phi_x(q, v):
        th = q[2]
        return np.array([(-np.cos(th) * v[0] - np.sin(th) * v[1]) * v[2]])
    f = lda_tq([fm, fm, fI], phi_y, phi_x, 3)
    sol = integrate(f, [x0, y0, th0, u0, v0, w0], times)
    rows = []
    for t in times:
        t = mp.mpf(t)
        fwd, w, th = closed(t)
        x, y = xy(t)
        z = sol(float(t))
        tn = tl(t)
        rows += [('x(%s)' % tn, x, z[0]), ('y(%s)' % tn, y, z[1]), ('theta(%s)' % tn, th, z[2]),
                 ('u(%s)' % tn, fwd * mp.cos(th) - a * w * mp.sin(th), z[3]),
                 ('v(%s)' % tn, fwd * mp.sin(th) + a * w * mp.cos(th), z[4]),
                 ('w(%s)' % tn, w, z[5]),
                 ('forward(%s)' % tn, fwd, z[3] * np.cos(z[2]) + z[4] * np.sin(z[2]))]
    rows.append(('energy(%s)' % tn, E, 0.5 * fm * (z[3] ** 2 + z[4] ** 2) + 0.5 * fI * z[5] ** 2))
    report('chaplygin-sleigh', case, rows)
    # the heading tends to theta_inf
    z = integrate(f, [x0, y0, th0, u0, v0, w0], [60.0])(60.0)
    print('  heading at t = 60: theta_inf - theta(60) = %s (closed form), %.1e (DOP853)'
          % (mp.nstr(th_inf - closed(mp.mpf(60))[2], 3), float(th_inf) - z[2]))


# ============================================================================ free rigid body
def rigid_body_closed(I, W0):
    """Jacobi-elliptic solution of the Euler equations, I1 < I2 < I3 (ORACLES-extra.md)."""
    I1, I2, I3 = map(dec, I)
    W0 = [dec(w) for w in W0]
    E2 = I1 * W0[0] ** 2 + I2 * W0[1] ** 2 + I3 * W0[2] ** 2          # 2 * energy
    D = (I1 * W0[0]) ** 2 + (I2 * W0[1]) ** 2 + (I3 * W0[2]) ** 2    # |M|^2
    if D > E2 * I2:      # regime I: W3 keeps its sign
        a1 = mp.sqrt((E2 * I3 - D) / (I1 * (I3 - I1)))
        a2 = mp.sqrt((E2 * I3 - D) / (I2 * (I3 - I2)))
        a3 = mp.sqrt((D - E2 * I1) / (I3 * (I3 - I1)))
        lam = mp.sqrt((I3 - I2) * (D - E2 * I1) / (I1 * I2 * I3))
        k2 = (I2 - I1) * (E2 * I3 - D) / ((I3 - I2) * (D - E2 * I1))
        eps = mp.sign(W0[2])
        amp0 = mp.atan2(eps * W0[1] / a2, W0[0] / a1)
        tau0 = mp.ellipf(amp0, k2)

        def W(t):
            tau = lam * t + tau0
            return (a1 * mp.ellipfun('cn', tau, k2), eps * a2 * mp.ellipfun('sn', tau, k2),
                    eps * a3 * mp.ellipfun('dn', tau, k2))
        case = 'regime I (|M|^2 > 2 E I2: W3 keeps its sign)'
    else:                # regime II: W1 keeps its sign
        b1 = mp.sqrt((E2 * I3 - D) / (I1 * (I3 - I1)))
        b2 = mp.sqrt((D - E2 * I1) / (I2 * (I2 - I1)))
        b3 = mp.sqrt((D - E2 * I1) / (I3 * (I3 - I1)))
        lam = mp.sqrt((I2 - I1) * (E2 * I3 - D) / (I1 * I2 * I3))
        k2 = (I3 - I2) * (D - E2 * I1) / ((I2 - I1) * (E2 * I3 - D))
        eps = mp.sign(W0[0])
        amp0 = mp.atan2(eps * W0[1] / b2, W0[2] / b3)
        tau0 = mp.ellipf(amp0, k2)

        def W(t):
            tau = lam * t + tau0
            return (eps * b1 * mp.ellipfun('dn', tau, k2), eps * b2 * mp.ellipfun('sn', tau, k2),
                    b3 * mp.ellipfun('cn', tau, k2))
        case = 'regime II (|M|^2 < 2 E I2: W1 keeps its sign)'
    period = 4 * mp.ellipk(k2) / lam
    return W, dict(case=case, E=E2 / 2, D=D, lam=lam, k2=k2, tau0=tau0, period=period)


def rigid_body(case, I, W0, times):
    print('\n[rigid-body] %s: I = %s, W0 = %s' % (case, I, W0))
    W, info = rigid_body_closed(I, W0)
    print('  %s; energy = %s, |M|^2 = %s' % (info['case'], mp.nstr(info['E'], 16), mp.nstr(info['D'], 16)))
    print('  lambda = %s, modulus k^2 = %s, tau0 = %s, period of W = 4K(k^2)/lambda = %s'
          % tuple(mp.nstr(info[k], 16) for k in ('lam', 'k2', 'tau0', 'period')))
    I1, I2, I3 = map(float, I)

    def f(t, z):
        # Euler equations + attitude quaternion dq/dt = q (x) (0, W) / 2 (body angular velocity)
        W1, W2, W3, q0, q1, q2, q3 = z
        return [(I2 - I3) * W2 * W3 / I1, (I3 - I1) * W3 * W1 / I2, (I1 - I2) * W1 * W2 / I3,
                -(q1 * W1 + q2 * W2 + q3 * W3) / 2, (q0 * W1 + q2 * W3 - q3 * W2) / 2,
                (q0 * W2 + q3 * W1 - q1 * W3) / 2, (q0 * W3 + q1 * W2 - q2 * W1) / 2]
    sol = integrate(f, list(W0) + [1, 0, 0, 0], times)
    rows = []
    for t in times:
        ex = W(mp.mpf(t))
        z = sol(float(t))
        for k in range(3):
            rows.append(('W%d(%s)' % (k + 1, tl(t)), ex[k], z[k]))
        # spatial angular momentum R(q) I W must stay equal to I W0 (q0 = identity)
        q0, q1, q2, q3 = z[3:]
        R = np.array([[1 - 2 * (q2 ** 2 + q3 ** 2), 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2)],
                      [2 * (q1 * q2 + q0 * q3), 1 - 2 * (q1 ** 2 + q3 ** 2), 2 * (q2 * q3 - q0 * q1)],
                      [2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), 1 - 2 * (q1 ** 2 + q2 ** 2)]])
        ms = R @ (np.array([I1, I2, I3]) * z[:3])
    for k, nm in enumerate(['mx', 'my', 'mz']):
        rows.append(('%s(%s) (= I W0, q0 = 1)' % (nm, tl(t)), dec(I[k]) * dec(W0[k]), ms[k]))
    report('rigid-body', case, rows)
    return info


# ============================================================================ heavy (Lagrange) top
def heavy_top(case, A, C, mgl, G0, W0, times):
    print('\n[heavy-top] %s: I1 = I2 = %s, I3 = %s, mgl = %s; Gamma0 = %s, W0 = %s' % (case, A, C, mgl, G0, W0))
    A, C, mgl = map(dec, (A, C, mgl))
    G = [dec(g) for g in G0]
    Wm = [dec(w) for w in W0]
    E = (A * (Wm[0] ** 2 + Wm[1] ** 2) + C * Wm[2] ** 2) / 2 + mgl * G[2]
    mz = A * (Wm[0] * G[0] + Wm[1] * G[1]) + C * Wm[2] * G[2]
    M3 = C * Wm[2]
    u0 = G[2]
    udot0 = G[0] * Wm[1] - G[1] * Wm[0]
    # f(u) = udot^2 = (1 - u^2)(2E - C W3^2 - 2 mgl u)/A - (mz - M3 u)^2/A^2 = (2 mgl/A) u^3 + ...
    c3 = 2 * mgl / A
    c2 = -(2 * E - C * Wm[2] ** 2) / A - M3 ** 2 / A ** 2
    c1 = -2 * mgl / A + 2 * mz * M3 / A ** 2
    c0 = (2 * E - C * Wm[2] ** 2) / A - mz ** 2 / A ** 2
    fu = lambda u: c3 * u ** 3 + c2 * u ** 2 + c1 * u + c0
    assert abs(fu(u0) - udot0 ** 2) < mp.mpf(10) ** -25
    roots = sorted([mp.re(z) for z in mp.polyroots([c3, c2, c1, c0], maxsteps=200, extraprec=60)])
    u1, u2, u3 = roots
    k2 = (u2 - u1) / (u3 - u1)
    lam = mp.sqrt(mgl * (u3 - u1) / (2 * A))
    ratio = (u0 - u1) / (u2 - u1)
    ratio = min(max(ratio, mp.mpf(0)), mp.mpf(1))
    tau0 = mp.ellipf(mp.asin(mp.sqrt(ratio)), k2)
    if udot0 < 0:
        tau0 = -tau0
    period = 2 * mp.ellipk(k2) / lam
    print('  energy = %s, mz = I W . Gamma = %s, I3 W3 = %s' % (mp.nstr(E, 16), mp.nstr(mz, 16), mp.nstr(M3, 16)))
    print('  roots of f: u1 = %s, u2 = %s, u3 = %s' % tuple(mp.nstr(r, 16) for r in roots))
    print('  lambda = %s, k^2 = %s, tau0 = %s, nutation period 2K(k^2)/lambda = %s'
          % tuple(mp.nstr(v, 16) for v in (lam, k2, tau0, period)))
    # precession rate dphi/dt = (mz - M3 u)/(A (1 - u^2)) at the two turning points
    pr = [(mz - M3 * u) / (A * (1 - u ** 2)) for u in (u1, u2)]
    print('  precession rate at u1, u2: %s, %s (%s)' % (mp.nstr(pr[0], 10), mp.nstr(pr[1], 10),
          'cusps' if min(abs(pr[0]), abs(pr[1])) < 1e-20 else ('loops' if pr[0] * pr[1] < 0 else 'waves')))

    def u_exact(t):
        return u1 + (u2 - u1) * mp.ellipfun('sn', lam * t + tau0, k2) ** 2

    fA, fC, fm = float(A), float(C), float(mgl)

    def f(t, z):
        # Euler-Poisson: dGamma/dt = Gamma x W, d(IW)/dt = IW x W + mgl Gamma x (0,0,1)
        g = z[:3]
        w = z[3:]
        Iw = np.array([fA, fA, fC]) * w
        dg = np.cross(g, w)
        dM = np.cross(Iw, w) + fm * np.cross(g, [0.0, 0.0, 1.0])
        return np.concatenate([dg, dM / np.array([fA, fA, fC])])
    sol = integrate(f, [float(x) for x in G0] + [float(x) for x in W0], list(times) + [float(period)])
    rows = []
    for t in list(times) + [period]:
        z = sol(float(t))
        tn = 'T_nut' if t is period else tl(t)
        u = u_exact(mp.mpf(t))
        rows += [('G3(%s)' % tn, u, z[2]),
                 ('W1^2+W2^2(%s)' % tn, (2 * E - C * Wm[2] ** 2 - 2 * mgl * u) / A, z[3] ** 2 + z[4] ** 2)]
    rows += [('W3(%s)' % tn, Wm[2], z[5]),
             ('energy(%s)' % tn, E, (fA * (z[3] ** 2 + z[4] ** 2) + fC * z[5] ** 2) / 2 + fm * z[2]),
             ('mz(%s)' % tn, mz, fA * (z[3] * z[0] + z[4] * z[1]) + fC * z[5] * z[2]),
             ('casimir(%s)' % tn, mp.mpf(1), float(z[0] ** 2 + z[1] ** 2 + z[2] ** 2))]
    report('heavy-top', case, rows)


if __name__ == '__main__':
    print('Oracles for the extra cmlab models (closed form, mpmath %d digits, vs DOP853 rtol=atol=%g)'
          % (mp.mp.dps, RTOL))
    vertical_disk('A (model defaults)', 1, 1, 0.5, 0.25, 0, 0, 0, 0, 2, 0.5,
                  [1, mp.pi, 2 * mp.pi, 4 * mp.pi])
    vertical_disk('B', 2, 0.8, 0.3, 0.2, 1, -0.5, 0.2, 0.3, 1.5, -0.7, [2.5, 10])
    vertical_disk('C (straight line)', 1, 1, 0.5, 0.25, 0, 0, 0, 0.5, 2, 0, [3])
    sleigh('A (model defaults)', 1, 0.2, 0.5, 0, 0, 0, 0.2, 1, [1, 2.5, 5, 10])
    sleigh('B (pushed backwards; preset "backwards")', 1, 0.2, 0.5, 0, 0, 0, -1, 0.4, [2, 6])
    sleigh('C (other parameters and start)', 2, 0.3, 0.7, 0.5, -1, 0.4, 0.3, -0.8, [1.5, 4])
    rigid_body('A (model defaults)', (1, 2, 3), (1, 0.1, 0.5), [1, 2.5, 5, 10])
    rigid_body('B (regime I of the closed form)', (1, 2, 3), (0.3, -0.4, 1), [1, 3, 7])
    heavy_top('A (model defaults, released with spin only)', 1, 0.5, 1, (0.6, 0, 0.8), (0, 0, 5), [0.5, 1, 2.5])
    heavy_top('B (general start)', 1, 0.5, 1, (0.6, 0, 0.8), (0.4, -0.3, 5), [0.7, 2, 4])
    heavy_top('C (preset "loops")', 1, 0.5, 1, (0.6, 0, 0.8), (-0.5, 0, 5), [1, 3])
    if failures:
        print('\nFAILURES:')
        for f_ in failures:
            print('  ', f_)
        sys.exit(1)
    print('\nall closed forms agree with the integration to better than %g' % TOL)
