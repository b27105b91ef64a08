#!/usr/bin/python3
"""scaling.py — the scaling table of the n-link planar pendulum (bench/models/pendulum/pendulum-N.cml,
written by bench/gen-pendulum.py): for each N, cmlab's derive time, compile time, time to the
first computed row with cold caches, steps per second native and interpreted, peak memory;
beside SymPy's LagrangesMethod + lambdify + numpy.linalg.solve of the mass matrix, integrated
by SciPy's solve_ivp (DOP853) at the same tolerances.  Whole processes, wall time, each
measurement the median of REPS runs; the machine's load average is printed first and last.

    bench/scaling.py                              # n = 2 5 10 20 50, 3 repetitions
    bench/scaling.py --n 2,5,10 --reps 1 --sympy-timeout 120 --json scaling.json
    bench/scaling.py --sympy-one 10               # SymPy's side alone, for one N

cmlab-cli is $CMLAB_CLI, else _build/src/cli/cmlab-cli beside this directory.  The peer needs
Debian's python3-sympy and python3-scipy (tools/debian-packages-peers); without them its
columns stay empty.

What each column is:
  derive       `CMLAB_NATIVE=0 cmlab-cli simulate MODEL --t-end 0`, derived-system cache
               empty: reading, deriving, writing the derived cache; the whole process.
  compile      the same run as `first row` below waiting for its native code
               (CMLAB_NATIVE=wait) with an empty native cache, minus the same run with the
               objects cached (both with the derived cache warm): what building the native
               code costs (the system's object and the rk8pd step's).  Without the wait, the
               default run starts on the interpreter and never waits for the compiler.
  cc cpu       the CPU time of those compilers (children's user + system time).
  first row    time until `cmlab-cli simulate MODEL --t-end 10 --dt-out 0.1` writes its
               first computed row (t = 0.1), both caches empty, stdout line-buffered (as on a
               terminal): `default` as a user runs it (tiered: the interpreter at once, the
               native code built behind it and taken when it is ready); `interp.` with
               CMLAB_NATIVE=0 (the interpreter alone).
  steps/s      rk4-fixed (--integrator rk4-fixed --step 0.001), 4 evaluations a step,
               warm caches: steps over the run's CPU time (user + system) minus a
               --t-end 0 run's (CPU time: waiting for a CPU on a loaded machine not counted).
  run 10 s     the whole `simulate --t-end 10 --dt-out 0.1 --integrator dop853 --rtol 1e-10
               --atol 1e-12`, warm caches (native; interpreted).
  peak MB      the largest resident set of the cold runs: default (cmlab-cli and the C
               compilers it ran: wait4 reports the largest of them) / interpreter (cmlab-cli
               alone).
  SymPy        derive = LagrangesMethod (form_lagranges_equations, mass matrix and forcing);
               lambdify; first = derive + lambdify + solve_ivp to t = 0.1; evals/s of the
               whole solve_ivp(DOP853, rtol = 1e-10, atol = 1e-12) to t = 10; peak MB; and
               |Δz| at t = 10 against cmlab's dop853 run (the same equations).
"""

import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RTOL, ATOL = 1e-10, 1e-12


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cli_path():
    p = os.environ.get("CMLAB_CLI")
    if p:
        return p
    return os.path.join(os.path.dirname(HERE), "_build", "src", "cli", "cmlab-cli")


def model_path(n):
    return os.path.join(HERE, "models", "pendulum", "pendulum-%d.cml" % n)


def run(argv, env_extra, first_row=False, timeout=None):
    """Runs ARGV; returns (wall s, time to the first computed row or None, rusage, stdout)."""
    env = dict(os.environ)
    env.update(env_extra)
    if first_row:
        argv = ["stdbuf", "-oL"] + argv
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    t_first = None
    out = []
    data_rows = 0
    for line in p.stdout:
        out.append(line)
        if first_row and t_first is None and not line.startswith(b"#") and line[:1].isdigit():
            data_rows += 1
            if data_rows == 2:  # the row at t = 0 is the initial state; the next is computed
                t_first = time.monotonic() - t0
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), p.returncode, err.decode()[-400:]))
    return wall, t_first, ru, b"".join(out)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def last_state(csv_bytes):
    rows = [l for l in csv_bytes.decode().splitlines() if l and not l.startswith("#")]
    head = rows[0].split(",")
    vals = [float(v) for v in rows[-1].split(",")]
    return head, vals


def cmlab_one(n, reps, cli):
    model = model_path(n)
    sim10 = [cli, "simulate", model, "--t-end", "10", "--dt-out", "0.1"]
    r = {"n": n}
    tmp = tempfile.mkdtemp(prefix="cmlab-scaling-")
    try:
        def fresh(name):
            d = os.path.join(tmp, name)
            shutil.rmtree(d, ignore_errors=True)
            os.mkdir(d, 0o700)
            return d

        # derive: interpreter, cold derived cache, no integration
        r["derive"] = median([run([cli, "simulate", model, "--t-end", "0"],
                                  {"CMLAB_NATIVE": "0", "CMLAB_DERIVED_CACHE": fresh("d%d" % k),
                                   "CMLAB_NATIVE_CACHE": fresh("n")})[0] for k in range(reps)])
        # first computed row, both caches cold: default and interpreter
        firsts, walls, peaks, peaks_i, firsts_i = [], [], [], [], []
        for k in range(reps):
            dc, nc = fresh("dc"), fresh("nc")
            wall, first, ru, _ = run(sim10, {"CMLAB_DERIVED_CACHE": dc, "CMLAB_NATIVE_CACHE": nc}, True)
            firsts.append(first)
            walls.append(wall)
            peaks.append(ru.ru_maxrss / 1024.0)
            wall_i, first_i, ru_i, _ = run(sim10, {"CMLAB_DERIVED_CACHE": fresh("dc"), "CMLAB_NATIVE": "0",
                                                "CMLAB_NATIVE_CACHE": fresh("n")}, True)
            firsts_i.append(first_i)
            peaks_i.append(ru_i.ru_maxrss / 1024.0)
        r["first_row_default"] = median(firsts)
        r["whole_cold_default"] = median(walls)
        r["first_row_interp"] = median(firsts_i)
        r["peak_mb"] = max(peaks)
        r["peak_mb_interp"] = max(peaks_i)
        # compile: cold native cache minus warm, both waiting for the native code, the derived
        # cache warm
        dc = fresh("dcw")
        run([cli, "simulate", model, "--t-end", "0"], {"CMLAB_NATIVE": "0", "CMLAB_DERIVED_CACHE": dc})
        cold, warm, cc_cpu = [], [], []
        for k in range(reps):
            nc = fresh("ncc")
            # the compilers' CPU: RUSAGE_CHILDREN of cmlab-cli's own children is not reported
            # by wait4, so take the whole process's user + system time minus the warm run's
            env = {"CMLAB_DERIVED_CACHE": dc, "CMLAB_NATIVE_CACHE": nc, "CMLAB_NATIVE": "wait"}
            w, _, ru, _ = run(sim10, env)
            w2, _, ru2, _ = run(sim10, env)
            cold.append(w)
            warm.append(w2)
            cc_cpu.append((ru.ru_utime + ru.ru_stime) - (ru2.ru_utime + ru2.ru_stime))
        r["compile"] = max(0.0, median(cold) - median(warm))
        r["cc_cpu"] = median(cc_cpu)
        r["native"] = b"interpreter" not in run([cli, "info", model], {"CMLAB_DERIVED_CACHE": dc,
                                                                       "CMLAB_NATIVE_CACHE": nc})[3].split(b"Evaluation:")[1][:40]
        # steps per second: rk4-fixed, warm caches; the CPU time (user + system) of a run
        # minus a --t-end 0 run's, robust against waiting for a CPU on a loaded machine
        h = 1e-3
        for label, extra in (("native", {}), ("interp", {"CMLAB_NATIVE": "0"})):
            env = {"CMLAB_DERIVED_CACHE": dc, "CMLAB_NATIVE_CACHE": nc}
            env.update(extra)
            # every object this model's runs use, built before anything is timed
            run(sim10 + ["--integrator", "dop853", "--t-end", "0.01"], env)

            def cpu(t_end):
                ru = run([cli, "simulate", model, "--t-end", repr(t_end), "--dt-out", repr(max(t_end, h)),
                          "--integrator", "rk4-fixed", "--step", repr(h)], env)[2]
                return ru.ru_utime + ru.ru_stime
            base = median([cpu(0) for k in range(reps)])
            # long enough for about a second of CPU: a first guess from 0.1 s of steps
            probe = max(cpu(0.1) - base, 1e-3)
            t_end = min(100.0, max(0.2, round(0.1 * 1.0 / probe, 1)))
            tt = median([cpu(t_end) for k in range(reps)])
            r["steps_per_s_" + label] = round(t_end / h) / max(tt - base, 1e-3)
            runs = [run(sim10 + ["--integrator", "dop853", "--rtol", repr(RTOL), "--atol", repr(ATOL)], env)
                    for k in range(reps)]
            r["run10_" + label] = median([x[0] for x in runs])
            r["run10_cpu_" + label] = median([x[2].ru_utime + x[2].ru_stime for x in runs])
            r["final_" + label] = last_state(runs[0][3])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return r


# ---- SymPy's side ---------------------------------------------------------------------------

def sympy_one(n):
    """Prints "name value" lines: SymPy's derive, lambdify, first row, evals/s, final state."""
    t0 = time.monotonic()
    import numpy as np
    import sympy as sp
    from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols
    from scipy.integrate import solve_ivp
    t_import = time.monotonic() - t0

    t0 = time.monotonic()
    q = dynamicsymbols("a1:%d" % (n + 1))
    w = [sp.diff(qi, dynamicsymbols._t) for qi in q]
    m, l, g = sp.symbols("m l g")
    T = 0
    for i in range(n):
        T += (n - i) * w[i] ** 2
        for j in range(i + 1, n):
            T += 2 * (n - j) * sp.cos(q[i] - q[j]) * w[i] * w[j]
    T = m * l ** 2 / 2 * T
    U = m * g * l * sum((n - i) * sp.cos(q[i]) for i in range(n))
    LM = LagrangesMethod(T + U, q)
    LM.form_lagranges_equations()
    M = LM.mass_matrix
    F = LM.forcing
    t_derive = time.monotonic() - t0

    t0 = time.monotonic()
    qs = sp.symbols("q1:%d" % (n + 1))
    us = sp.symbols("u1:%d" % (n + 1))
    sub = dict(zip(w, us))
    sub.update(zip(q, qs))
    Ms = M.subs(sub)
    Fs = F.subs(sub)
    fM = sp.lambdify((qs, us, m, l, g), Ms, "numpy")
    fF = sp.lambdify((qs, us, m, l, g), Fs, "numpy")
    t_lambdify = time.monotonic() - t0

    par = (1.0, 1.0, 9.81)

    def rhs(t, y):
        qv, uv = y[:n], y[n:]
        acc = np.linalg.solve(np.asarray(fM(qv, uv, *par), dtype=float),
                              np.asarray(fF(qv, uv, *par), dtype=float).ravel())
        return np.concatenate((uv, acc))

    y0 = np.array([0.1 * (i + 1) if n <= 5 else round(0.5 * (i + 1) / n, 6) for i in range(n)] + [0.0] * n)
    t0 = time.monotonic()
    solve_ivp(rhs, (0.0, 0.1), y0, method="DOP853", rtol=RTOL, atol=ATOL, t_eval=[0.0, 0.1])
    t_first_int = time.monotonic() - t0
    t0 = time.monotonic()
    sol = solve_ivp(rhs, (0.0, 10.0), y0, method="DOP853", rtol=RTOL, atol=ATOL,
                    t_eval=np.linspace(0.0, 10.0, 101))
    t_run = time.monotonic() - t0
    print("import %.6f" % t_import)
    print("derive %.6f" % t_derive)
    print("lambdify %.6f" % t_lambdify)
    print("first %.6f" % (t_derive + t_lambdify + t_first_int))
    print("run10 %.6f" % t_run)
    print("nfev %d" % sol.nfev)
    print("evals_per_s %.3f" % (sol.nfev / t_run))
    print("final " + " ".join(repr(float(v)) for v in sol.y[:, -1]))
    print("peak_mb %.1f" % (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
    sys.stdout.flush()
    return 0


def sympy_peer(n, timeout):
    argv = [sys.executable, os.path.abspath(__file__), "--sympy-one", str(n)]
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return {"timeout": timeout}
    if p.returncode != 0:
        return {"error": err.decode()[-300:]}
    r = {"wall": time.monotonic() - t0}
    for line in out.decode().splitlines():
        k, _, v = line.partition(" ")
        r[k] = [float(x) for x in v.split()] if k == "final" else float(v)
    return r


def fit_exponent(ns, ys):
    pts = [(math.log(n), math.log(y)) for n, y in zip(ns, ys) if y is not None and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx > 0 else None


def fmt(v, unit=""):
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v >= 100:
        return "%.0f%s" % (v, unit)
    if v >= 10:
        return "%.1f%s" % (v, unit)
    return "%.2f%s" % (v, unit) if v >= 0.1 else "%.3f%s" % (v, unit)


def main(argv):
    ns = [2, 5, 10, 20, 50]
    reps = 3
    sympy_timeout = 600.0
    json_path = None
    with_sympy = True
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--sympy-one":
            return sympy_one(int(argv[i + 1]))
        if a == "--n":
            ns = [int(x) for x in argv[i + 1].split(",")]
            i += 2
        elif a == "--reps":
            reps = int(argv[i + 1])
            i += 2
        elif a == "--sympy-timeout":
            sympy_timeout = float(argv[i + 1])
            i += 2
        elif a == "--no-sympy":
            with_sympy = False
            i += 1
        elif a == "--json":
            json_path = argv[i + 1]
            i += 2
        else:
            sys.stderr.write(__doc__)
            return 2
    cli = cli_path()
    print("# load average at start: %s; cmlab-cli: %s" % (load(), cli), flush=True)
    rows = []
    for n in ns:
        r = cmlab_one(n, reps, cli)
        if with_sympy:
            s = sympy_peer(n, sympy_timeout)
            if "final" in s:
                a, b = s["final"], r["final_native"][1][1:1 + 2 * n]
                s["dz_final"] = max(abs(x - y) for x, y in zip(a, b))
            r["sympy"] = s
        r["final_native"] = r["final_native"][1][1:1 + 2 * n]
        r["final_interp"] = r["final_interp"][1][1:1 + 2 * n]
        r["load"] = load()
        rows.append(r)
        print("# n = %d done, load %s: %s" % (n, r["load"], json.dumps({k: v for k, v in r.items()
                                                                     if not k.startswith("final")})),
              flush=True)

    print()
    print("| n | derive | compile (cc cpu) | first row: default / interp. | steps/s native / interp. "
          "| run 10 s native / interp. | peak MB | SymPy derive + lambdify | SymPy first row | "
          "SymPy evals/s | SymPy peak MB | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        s = r.get("sympy", {})
        if "timeout" in s:
            sd = sf = "> %.0f s" % s["timeout"]
        elif "derive" in s:
            sd = "%s + %s s" % (fmt(s["derive"]), fmt(s["lambdify"]))
            sf = fmt(s["first"], " s")
        else:
            sd = sf = "—"
        comp = "%s s (%s)" % (fmt(r["compile"]), fmt(r["cc_cpu"])) if r["native"] else "interpreter only"
        print("| %d | %s s | %s | %s / %s s | %s / %s | %s / %s s | %s | %s | %s | %s | %s | %s |" % (
            r["n"], fmt(r["derive"]), comp, fmt(r["first_row_default"]), fmt(r["first_row_interp"]),
            fmt(r["steps_per_s_native"]) if r["native"] else "—", fmt(r["steps_per_s_interp"]),
            fmt(r["run10_native"]) if r["native"] else "—", fmt(r["run10_interp"]),
            "%s / %s" % (fmt(r["peak_mb"]), fmt(r.get("peak_mb_interp"))),
            sd, sf, fmt(s.get("evals_per_s")), fmt(s.get("peak_mb")), r["load"]))
    print()
    for key, what in (("derive", "derive"), ("compile", "compile"), ("first_row_interp", "first row (interp.)"),
                      ("first_row_default", "first row (default)")):
        # compiling only where there is native code (a program over the limit has none)
        fit = [r for r in rows if key != "compile" or r["native"]]
        k = fit_exponent([r["n"] for r in fit], [r[key] for r in fit])
        if k is not None:
            print("# %s ~ n^%.2f over n = %s" % (what, k, ",".join(str(r["n"]) for r in fit)))
    k = fit_exponent(ns_, [1.0 / r["steps_per_s_interp"] for r in rows])
    if k is not None:
        print("# interpreter time per step ~ n^%.2f" % k)
    nat = [r for r in rows if r["native"]]
    k = fit_exponent([r["n"] for r in nat], [1.0 / r["steps_per_s_native"] for r in nat])
    if k is not None:
        print("# native time per step ~ n^%.2f (n = %s)" % (k, ",".join(str(r["n"]) for r in nat)))
    sy = [r for r in rows if "derive" in r.get("sympy", {})]
    k = fit_exponent([r["n"] for r in sy], [r["sympy"]["derive"] for r in sy])
    if k is not None:
        print("# SymPy derive ~ n^%.2f (n = %s)" % (k, ",".join(str(r["n"]) for r in sy)))
    print("# load average at end: %s" % load())
    if json_path:
        with open(json_path + ".tmp", "w") as f:
            json.dump({"rows": rows}, f, indent=1)
        os.replace(json_path + ".tmp", json_path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
