#!/usr/bin/env python3
# test-equations-export.py — the equations `cmlab-cli info MODEL --format sympy|latex|json`
# exports are the equations cmlab integrates.
#
# For every built-in model and every model file of the repository (models/, doc/examples/,
# tests/models/data/; the files cmlab refuses are listed and skipped): the SymPy script is
# run, its right-hand side (with its shared parts, as sympy.cse hands them to lambdify) is
# evaluated at 100 random states near the model's initial state, and compared with
# `cmlab-cli rhs` at the same times and states, all of them in one call per model.  The
# right-hand side is compared as a function of the whole state, so the states need not
# satisfy the constraints.  Agreement: |sympy - cmlab| <= 1e-13 * max(1, |cmlab|) (relative,
# or absolute for values below 1).  States at which either side cannot be evaluated (a
# singular matrix, a logarithm of a negative number) are left out, and at least half of
# the states must be compared.  A model whose right-hand side depends on velocities that
# Newton's method solves for (nonlinear vakonomic) is compared at the free velocities cmlab
# found (`rhs --with-free-velocities`), which must satisfy the exported W1 relations.
# The JSON holds the state's names and units, the parameters with values, and one
# expression per state variable, which evaluated (as Python, ^ read as **) at one of the
# states give cmlab's values; the LaTeX has balanced braces, an align* row per state
# variable, names every state variable in its header and, when pdflatex is installed,
# compiles in a document with amsmath.
# Usage: test-equations-export.py CMLAB_CLI SOURCE_ROOT
import atexit
import glob
import json
import keyword
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import sympy as sp
except ImportError as e:
    print("1..0 # SKIP SymPy or NumPy missing for %s (%s)" % (sys.executable, e))
    sys.exit(0)

cli, root = sys.argv[1], sys.argv[2]
N_STATES = 100
TOL = 1e-13
n = 0
failed = False


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    if not cond:
        failed = True
    return cond


def run(args, **kw):
    return subprocess.run([cli] + args, capture_output=True, text=True, **kw)


models = run(["list", "model-names"]).stdout.split()
for folder in ("doc/examples", "tests/models/data"):
    models += sorted(glob.glob(os.path.join(root, folder, "*.cml")))

refused, skipped = [], []
pdflatex = shutil.which("pdflatex")
tmp = tempfile.mkdtemp(prefix="cmlab-eq-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
rng = random.Random(36)

# a model whose names are Python keywords and the script's own names (renamed in Python
# with a trailing underscore, and not onto each other): the oscillator with k -> lambda,
# x -> state, y -> state_, u -> sp, v -> rhs
with open(os.path.join(root, "tests", "models", "data", "oscillator-reference.cml")) as f:
    text = f.read().split("\n[reference]")[0].replace("[definitions]\nw = sqrt(k)\n", "")
head, body = text[:text.index("[parameters]")], text[text.index("[parameters]"):]
for old, new in (("k", "lambda"), ("x", "state"), ("y", "state_"), ("u", "sp"), ("v", "rhs")):
    body = re.sub(r"\b%s\b" % old, new, body)
renamed = os.path.join(tmp, "python-names.cml")
with open(renamed, "w") as f:
    f.write(head + body.replace("energy", "expand"))
models.append(renamed)

for model in models:
    label = (os.path.basename(model) if model.startswith(tmp)
             else os.path.relpath(model, root) if os.path.sep in model else model)
    py = run(["info", model, "--format", "sympy"])
    if py.returncode != 0:
        refused.append(label)
        continue
    ns = {}
    try:
        exec(compile(py.stdout, label + ".py", "exec"), ns)
    except Exception as e:  # noqa: BLE001 — any failure of the script is the test's
        ok(False, "%s: the SymPy script runs (%s)" % (label, e))
        continue
    state, params = ns["state"], ns["parameters"]
    if model == renamed:
        ok([str(v) for v in state] == ["state", "state_", "sp", "rhs"]
           and [str(v) for v in params] == ["lambda"] and len(set(map(id, state))) == 4
           and list(ns["conserved"]) == ["expand"],
           "%s: symbols named like Python keywords or the script's names keep their names" % label)
    ok(len(ns["rhs"]) == len(state) and all(isinstance(e, sp.Basic) for e in ns["rhs"]),
       "%s: the SymPy script has one SymPy expression per state variable" % label)

    # JSON: names, units, parameters, one expression per state variable
    js = json.loads(run(["info", model, "--format", "json"]).stdout)
    ok([s["name"] for s in js["state"]] == [str(s) for s in state]
       and len(js["rhs"]) == len(state) and all("unit" in s for s in js["state"])
       and [p["name"] for p in js["parameters"]] == [str(p) for p in params]
       and all(float(v) == p["value"] for v, p in zip(params.values(), js["parameters"])),
       "%s: the JSON has the state, the parameters with their values and the rhs" % label)

    # LaTeX: balanced braces, a row per state variable, every name in the header
    tex = run(["info", model, "--format", "latex"]).stdout
    body = "\n".join(l for l in tex.splitlines() if not l.startswith("%"))
    depth, balanced = 0, True
    for ch in body.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        balanced &= depth >= 0
    header = [l for l in tex.splitlines() if l.startswith("% state:")]
    ok(balanced and depth == 0 and body.count("\\dot{") == len(state)
       and header and all(" %s" % s in header[0] for s in js["state"] for s in [s["name"]]),
       "%s: the LaTeX has balanced braces, a row per state variable, every name" % label)
    if pdflatex:
        doc = os.path.join(tmp, "eq.tex")
        with open(doc, "w") as f:
            f.write("\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n"
                    + tex + "\n\\end{document}\n")
        r = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "eq.tex"],
                           cwd=tmp, capture_output=True, text=True, timeout=120)
        ok(r.returncode == 0, "%s: the LaTeX compiles with amsmath" % label
           + ("" if r.returncode == 0 else ": " + r.stdout[-800:]))

    # states near the initial one (every variable moved by up to 0.3 (1 + |z0|)), t in [0, 2]
    # (a model whose initial data cannot be solved for: around 0.5)
    sim = run(["simulate", model, "--t-end", "0", "--format", "json"])
    z0 = ([json.loads(sim.stdout)["initial"][str(s)] for s in state] if sim.returncode == 0
          else [0.5] * len(state))
    rows = []
    for _ in range(N_STATES):
        rows.append([rng.uniform(0, 2)] + [z + rng.uniform(-0.3, 0.3) * (1 + abs(z)) for z in z0])
    path = os.path.join(tmp, "states.txt")
    with open(path, "w") as f:
        for row in rows:
            f.write(" ".join(repr(v) for v in row) + "\n")
    # (and the free velocities Newton's method found, where there are)
    free = list(ns["free_velocities"])
    r = run(["rhs", model, "--states", path] + (["--with-free-velocities"] if free else []))
    out = np.array([[float(v) for v in line.split(",")] for line in r.stdout.splitlines()])
    ok(out.shape == (N_STATES, len(state) + len(free)), "%s: cmlab-cli rhs gives a row per state" % label)
    cm, aux = out[:, :len(state)], out[:, len(state):]

    # the SymPy right-hand side, evaluated with its shared parts as assignments
    t = ns["time"]
    args = [t] + list(state) + list(params) + free
    with np.errstate(all="ignore"):
        cols = [np.array(rows)[:, k] for k in range(len(rows[0]))]
        cols += [np.full(N_STATES, float(v)) for v in params.values()] + list(aux.T)

        def evaluate(exprs):
            f = sp.lambdify(args, exprs, modules="numpy", cse=lambda e: (ns["shared"], e))
            return np.column_stack([np.broadcast_to(np.asarray(v, dtype=float), (N_STATES,))
                                    for v in f(*cols)])
        sy = evaluate(ns["rhs"])
        w1 = evaluate(ns["free_velocity_equations"]) if free else np.zeros((N_STATES, 0))
    good = np.all(np.isfinite(cm), axis=1) & np.all(np.isfinite(sy), axis=1)
    if free:
        # the free velocities cmlab found satisfy the exported W1 relations
        res = float(np.max(np.abs(w1[good]) / (1 + np.abs(aux[good])) ** 3)) if good.any() else 1.0
        ok(res <= 1e-12, "%s: cmlab's free velocities satisfy the exported W1 relations "
           "(largest residual %.3g)" % (label, res))
        skipped.append(label)
    err = np.abs(sy - cm) / np.maximum(1.0, np.abs(cm))
    worst = float(np.max(err[good])) if good.any() else float("nan")
    ok(good.sum() >= N_STATES // 2 and worst <= TOL,
       "%s: the SymPy rhs equals cmlab's at %d random states (largest difference %.3g)"
       % (label, int(good.sum()), worst))

    # the JSON's expressions (cmlab's syntax: ^ for powers) give the same numbers, at the
    # first state both sides could evaluate
    # (Python's eval cannot read a name that is one of its keywords)
    names = [v["name"] for v in js["state"] + js["parameters"]]
    if good.any() and not free and not any(keyword.iskeyword(v) for v in names):
        i = int(np.argmax(good))
        env = {f: getattr(math, f) for f in ("sin", "cos", "tan", "asin", "acos", "atan",
                                               "atan2", "sinh", "cosh", "tanh", "exp", "log",
                                               "sqrt", "pi", "inf", "nan")}
        env.update(abs=abs, sign=lambda v: float((v > 0) - (v < 0)), t=rows[i][0])
        env.update({s["name"]: v for s, v in zip(js["state"], rows[i][1:])})
        env.update({p["name"]: p["value"] for p in js["parameters"]})
        try:
            for sh in js["shared"]:
                env[sh["name"]] = eval(sh["expr"].replace("^", "**"), env)
            vj = [complex(eval(e.replace("^", "**"), env)) for e in js["rhs"]]
            dj = max(abs(a - b) / max(1.0, abs(b)) for a, b in zip(vj, cm[i]))
        except (ValueError, ZeroDivisionError, OverflowError, SyntaxError, NameError) as e:
            dj = "%s" % e
        ok(isinstance(dj, float) and dj <= TOL,
           "%s: the JSON rhs gives cmlab's values (difference %s)" % (label, dj))

builtins = set(run(["list", "model-names"]).stdout.split())
ok(not builtins & set(refused) and len(refused) < len(models) // 2,
   "every built-in model exports its equations (refused: %s)" % (", ".join(refused) or "none"))
print("# refused by cmlab-cli (no equations to compare): %s" % (", ".join(refused) or "none"))
print("# right-hand side depends on velocities Newton's method solves for (compared at those cmlab found): %s"
      % (", ".join(skipped) or "none"))
if not pdflatex:
    print("# pdflatex not installed: the LaTeX was checked for balanced braces, not compiled")
print("1..%d" % n)
sys.exit(1 if failed else 0)
