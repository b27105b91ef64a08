#!/usr/bin/env python3
# test-explore-cli.py — `cmlab-cli explore` against truth (doc/theory.md §18).
#
# Heisenberg (doc/examples/heisenberg.cml, the frame momenta p1, p2 of u1, u2 and p3 of
# ∂/∂z): from the origin with c = p1 + i p2, w = x + i y = c (e^{i p3 t} − 1)/(i p3) and
# z = |c|² (t − sin(p3 t)/p3)/(2 p3); every endpoint (at T and at --times) within 1e-8 of
# that, every first conjugate time and first Maxwell time within 1e-8 of 2π/|p3|, the
# covectors on the level H = |c|²/2 asked for; from another point g0 the extremals are
# the left translates g0 · g(t) (the frame is left-invariant).
# Martinet (models/martinet.cml, k = 1 from x1 = 0): the reflection x1 ↦ −x1 keeps the
# distribution and the metric, so the extremals of (p_u, p_y1) and (−p_u, p_y1) meet when x1
# returns to 0, at half the period of the pendulum, t = 2 K(m)/√k with m = (1 − p_y1)/2
# (derived in doc/theory.md §18); the first Maxwell time of each extremal of the fan is
# that one, within 1e-8, and its partner the mirror covector.
# The output does not depend on the number of threads; bad input is refused in plain words.
# Usage: test-explore-cli.py CMLAB_CLI SOURCE_ROOT
import cmath
import csv
import io
import math
import os
import subprocess
import sys

cli, root = sys.argv[1], sys.argv[2]
heis = os.path.join(root, "doc", "examples", "heisenberg.cml")
n = 0
failed = False


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    if not cond:
        failed = True
    return cond


def run(*args):
    return subprocess.run([cli] + [str(a) for a in args], capture_output=True, text=True, timeout=600)


def rows(text):
    lines = [l for l in text.splitlines() if not l.startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


def heis_point(p1, p2, p3, t, g0=(0.0, 0.0, 0.0)):
    c = complex(p1, p2)
    w = c * (cmath.exp(1j * p3 * t) - 1) / (1j * p3)
    z = abs(c) ** 2 * (t - math.sin(p3 * t) / p3) / (2 * p3)
    x0, y0, z0 = g0
    # the group law (x0, y0, z0)·(x, y, z) = (x0 + x, y0 + y, z0 + z + (x0 y − y0 x)/2)
    return (x0 + w.real, y0 + w.imag, z0 + z + (x0 * w.imag - y0 * w.real) / 2)


def check_heisenberg(label, args, p3, level, times, T, g0=(0.0, 0.0, 0.0), N=24):
    r = run("explore", heis, "--t-end", T, "--covectors", N, *args)
    if not ok(r.returncode == 0, "%s: explore runs (%s)" % (label, r.stderr.strip())):
        return None
    rs = rows(r.stdout)
    ok(len(rs) == N, "%s: one row per covector" % label)
    t_cut = 2 * math.pi / abs(p3)
    worst = {"end": 0.0, "level": 0.0, "conj": 0.0, "maxwell": 0.0, "p3": 0.0}
    for row in rs:
        p1, p2, q3 = float(row["p1"]), float(row["p2"]), float(row["p3"])
        worst["p3"] = max(worst["p3"], abs(q3 - p3))
        worst["level"] = max(worst["level"], abs((p1 * p1 + p2 * p2) / 2 - level))
        for t in list(times) + [T]:
            suffix = "" if t == T else "@%g" % t
            want = heis_point(p1, p2, p3, t, g0)
            for name, v in zip("xyz", want):
                worst["end"] = max(worst["end"], abs(float(row[name + suffix]) - v))
        for key, col in (("conj", "t_conjugate"), ("maxwell", "t_maxwell")):
            if t_cut < T:
                worst[key] = max(worst[key], abs(float(row[col]) - t_cut) if row[col] else math.inf)
            else:
                worst[key] = max(worst[key], 0.0 if row[col] == "" else math.inf)
    ok(worst["p3"] == 0, "%s: p3 kept as given" % label)
    ok(worst["level"] < 1e-12, "%s: every covector on the level H = %g (worst %.3g)" % (label, level, worst["level"]))
    ok(worst["end"] < 1e-8, "%s: every point within 1e-8 of the closed form (worst %.3g)" % (label, worst["end"]))
    ok(worst["conj"] < 1e-8, "%s: every first conjugate time 2π/|p3| within 1e-8 (worst %.3g)" % (label, worst["conj"]))
    ok(worst["maxwell"] < 1e-8, "%s: every first Maxwell time 2π/|p3| within 1e-8 (worst %.3g)" % (label, worst["maxwell"]))
    return r.stdout


# ---- Heisenberg -------------------------------------------------------------------------
out1 = check_heisenberg("unit speed, p3 = 1", ["--times", "1,3.5"], 1.0, 0.5, (1.0, 3.5), 7.0)
check_heisenberg("p3 = −2, H = 2", ["--from", "p3=-2", "--level", "2", "--times", "0.5"], -2.0, 2.0, (0.5,), 4.0,
                 N=30)
check_heisenberg("from (0.3, −0.2, 0.1)", ["--from", "x=0.3,y=-0.2,z=0.1,p3=1.5"], 1.5, 0.5, (), 5.0,
                 g0=(0.3, -0.2, 0.1), N=16)
check_heisenberg("T before the cut time", ["--from", "p3=0.5"], 0.5, 0.5, (), 6.0, N=8)

r1 = run("explore", heis, "--t-end", 7, "--covectors", 24, "--times", "1,3.5", "--jobs", 1)
ok(out1 is not None and r1.stdout == out1, "the output with one thread is the output with one per processor")

# ---- three free momenta: the Fibonacci sphere ------------------------------------------------
# tests/models/data/heisenberg-line.cml: (x, y, w) Heisenberg's of (p1, p2, p4), z = p3 t; the
# covectors at p3 = ζ_i = 1 − (2i + 1)/N on the unit sphere (H = ½); first conjugate time 2π/|p4|
line = os.path.join(root, "tests", "models", "data", "heisenberg-line.cml")
N = 12
r = run("explore", line, "--t-end", 7, "--covectors", N, "--from", "p4=1.25", "--times", 2)
if ok(r.returncode == 0, "sphere of covectors: explore runs (%s)" % r.stderr.strip()):
    rs = rows(r.stdout)
    worst_p3 = max(abs(float(row["p3"]) - (1 - (2 * i + 1) / N)) for i, row in enumerate(rs))
    worst_level = max(abs(sum(float(row[p]) ** 2 for p in ("p1", "p2", "p3")) / 2 - 0.5) for row in rs)
    worst_end, worst_conj = 0.0, 0.0
    for row in rs:
        p1, p2, p3, p4 = (float(row[p]) for p in ("p1", "p2", "p3", "p4"))
        for t, suffix in ((2.0, "@2"), (7.0, "")):
            hx, hy, hw = heis_point(p1, p2, p4, t)
            for name, v in (("x", hx), ("y", hy), ("z", p3 * t), ("w", hw)):
                worst_end = max(worst_end, abs(float(row[name + suffix]) - v))
        worst_conj = max(worst_conj, abs(float(row["t_conjugate"]) - 2 * math.pi / 1.25) if row["t_conjugate"] else math.inf)
    ok(len(rs) == N and worst_p3 < 1e-12 and worst_level < 1e-12,
       "sphere: the covectors are the Fibonacci lattice on the level H = ½ (worst %.3g, %.3g)" % (worst_p3, worst_level))
    ok(worst_end < 1e-8, "sphere: every point within 1e-8 of the closed form (worst %.3g)" % worst_end)
    ok(worst_conj < 1e-8, "sphere: every first conjugate time 2π/|p4| within 1e-8 (worst %.3g)" % worst_conj)

# ---- Martinet: the mirror pairs meet at half the pendulum's period -------------------------


def ellipk(m):
    a, b = 1.0, math.sqrt(1 - m)
    for _ in range(40):  # the arithmetic-geometric mean: quadratic, done in a few
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


T = 8.0
r = run("explore", "martinet", "--t-end", T, "--covectors", 40)
if ok(r.returncode == 0, "martinet: explore runs (%s)" % r.stderr.strip()):
    rs = rows(r.stdout)
    worst, partners, checked = 0.0, True, 0
    for i, row in enumerate(rs):
        pu, py, k = float(row["p_u"]), float(row["p_y1"]), float(row["k"])
        if abs(pu) < 1e-9 or abs(py) >= 1:
            continue
        t_half = 2 * ellipk((1 - py) / 2) / math.sqrt(k)
        if t_half >= T:
            worst = max(worst, 0.0 if row["t_maxwell"] == "" else math.inf)
            continue
        checked += 1
        worst = max(worst, abs(float(row["t_maxwell"]) - t_half) if row["t_maxwell"] else math.inf)
        j = int(row["maxwell_with"]) if row["maxwell_with"] else -1
        partners = partners and j >= 0 and abs(float(rs[j]["p_u"]) + pu) < 1e-12 and abs(float(rs[j]["p_y1"]) - py) < 1e-12
    ok(checked >= 20, "martinet: %d extremals meet their mirror before T" % checked)
    ok(worst < 1e-8, "martinet: every first Maxwell time is 2K(m)/√k within 1e-8 (worst %.3g)" % worst)
    ok(partners, "martinet: each meets the mirror covector (−p_u, p_y1)")

# a conjugate time refined to its last digits re-integrates spans shorter than the
# integrator's least step unless the refinement keeps away from the ends of its bracket: every
# extremal of this fan (two of which once failed with "step size underflow") has its row
r = run("explore", "martinet", "--t-end", 10, "--covectors", 250, "--samples", 200)
failures = [l for l in r.stdout.splitlines() if l.startswith("# covector")]
ok(r.returncode == 0 and not failures, "martinet, 250 covectors to T = 10: every run succeeds %s" % failures[:2])

# ---- bad input ------------------------------------------------------------------------------
cases = [
    (["rolling-ball", "--t-end", 1, "--covectors", 4], "vakonomic"),
    ([heis, "--t-end", 1, "--covectors", 0], "--covectors"),
    ([heis, "--t-end", 1, "--covectors", "many"], "--covectors"),
    ([heis, "--t-end", 1], "--covectors"),
    ([heis, "--t-end", 1, "--covectors", 4, "--times", "2"], "--times"),
    ([heis, "--t-end", 1, "--covectors", 4, "--level", "-1"], "--level"),
    ([heis, "--t-end", 1, "--covectors", 4, "--from", "q=1"], "q"),
    ([heis, "--t-end", "1e300", "--covectors", 4], "--t-end"),
    ([heis, "--t-end", 1, "--covectors", 4, "--integrator", "taylor"], "taylor"),
    ([heis, "--t-end", 1, "--covectors", 1000000, "--samples", 100000], "--covectors"),
]
for args, word in cases:
    r = run("explore", *args)
    ok(r.returncode == 2 and word in r.stderr and r.stdout == "" and "Traceback" not in r.stderr
       and len(r.stderr.splitlines()) <= 3,
       "refused in plain words: %s (%s)" % (" ".join(str(a) for a in args[1:]), r.stderr.strip().splitlines()[:1]))

print("1..%d" % n)
sys.exit(1 if failed else 0)
