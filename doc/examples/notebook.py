# notebook.py — cmlab from Python, as a notebook: the rolling ball on a turning table
# loaded, simulated, plotted, swept over the table's speed (in threads, and with
# Model.sweep), and its equations as LaTeX.
#
# Cells are marked "# %%" (Jupyter, VS Code and Spyder open them as a notebook; jupytext
# makes an .ipynb of it).  Run as a script it needs the module `cmlab` (doc/python.md):
#   PYTHONPATH=_build/src/python python3 doc/examples/notebook.py
# The figures are written as PNG files into a temporary folder when matplotlib is
# installed (Debian: python3-matplotlib); without it the numbers are printed alone.
# The tests run it as it is (tests/meson.build, test-python-notebook).

# %% [markdown]
# # A ball rolling on a turning table
# A ball rolls without slipping on a table turning at the angular velocity Omega: its
# centre moves on a circle (Earnshaw, Routh), at the frequency Omega k2/(1 + k2) for a
# homogeneous ball (k2 = 2/5).  cmlab derives the nonholonomic equations of motion from
# the model file and integrates them.

# %%
import os
import tempfile
import threading

import numpy as np

import cmlab

ball = cmlab.load("rolling-ball")
info = ball.info()
print(info["title"], "—", info["kind"])
print("state:", ", ".join(info["state"]))
print("parameters:", info["parameters"])
for c in info["conserved"]:
    print("  %-8s %-12s %s" % (c["name"], c["verdict"], c["what"]))

# %% [markdown]
# ## A run
# `simulate` returns NumPy arrays by column name — the very numbers `cmlab-cli simulate`
# writes — and the run's metadata in `.meta`.

# %%
run = ball.simulate(20, dt_out=0.01)
print(run)
print("integrator:", run.meta["integrator"])
x, y, t = run["x"], run["y"], run["t"]
print("x(20) = %.15g, y(20) = %.15g" % (x[-1], y[-1]))
# the centre stays on a circle: its distance from the circle's centre barely changes
cx, cy = (x.max() + x.min()) / 2, (y.max() + y.min()) / 2
radius = np.hypot(x - cx, y - cy)
print("radius of the orbit: %.6f ± %.1e" % (radius.mean(), radius.std()))
energy = run["energy"]
print("energy changes by %.2e (the table does work on the ball)" % (energy.max() - energy.min()))

# %%
outdir = tempfile.mkdtemp(prefix="cmlab-notebook-")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
    print("matplotlib is not installed: no figures")

if plt is not None:
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot(x, y)
    ax.set_aspect("equal")
    ax.set_xlabel("x (%s)" % run.meta["units"]["x"])
    ax.set_ylabel("y (%s)" % run.meta["units"]["y"])
    ax.set_title("The ball's centre on a turning table")
    path = os.path.join(outdir, "orbit.png")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    print("figure:", path)

# %% [markdown]
# ## A sweep over the table's speed
# Each speed is a model loaded with its parameter; the runs release the GIL while they
# integrate, so threads run them at once.  The orbit's period is 2π(1 + k2)/(Omega k2).

# %%
speeds = np.linspace(1.0, 3.0, 5)
periods = [None] * len(speeds)


def measure(k):
    m = cmlab.load("rolling-ball", Omega=float(speeds[k]))
    r = m.simulate(80, dt_out=0.01, columns=["x"])
    xs = r["x"] - r["x"].mean()
    up = np.flatnonzero((xs[:-1] < 0) & (xs[1:] >= 0))  # upward crossings of the mean
    periods[k] = float(np.mean(np.diff(r["t"][up])))


threads = [threading.Thread(target=measure, args=(k,)) for k in range(len(speeds))]
for th in threads:
    th.start()
for th in threads:
    th.join()
k2 = ball.parameters["k2"]
for omega, period in zip(speeds, periods):
    expected = 2 * np.pi * (1 + k2) / (omega * k2)
    print("Omega = %.2f: period %.4f (Routh: %.4f)" % (omega, period, expected))
    assert abs(period - expected) < 0.01 * expected

if plt is not None:
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(speeds, periods, "o", label="cmlab")
    w = np.linspace(speeds[0], speeds[-1], 100)
    ax.plot(w, 2 * np.pi * (1 + k2) / (w * k2), label="2π(1 + k2)/(Omega k2)")
    ax.set_xlabel("Omega (%s)" % info["units"]["Omega"])
    ax.set_ylabel("period (%s)" % run.meta["units"]["t"])
    ax.legend()
    path = os.path.join(outdir, "sweep.png")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
    print("figure:", path)

# %% [markdown]
# `sweep` does a grid of parameter values in one call, on a thread per processor — the
# runs `cmlab-cli sweep` makes — and measures observables at the times asked for.

# %%
grid = ball.sweep({"Omega": (0.5, 3.0, 6)}, 10, ["x", "energy"], at=[5, 10])
for omega, e in zip(grid["Omega"], grid["energy"]):
    print("Omega = %.1f: energy at t = 5 and 10: %.6f, %.6f" % (omega, e[0], e[1]))

# %% [markdown]
# ## The equations
# The equations cmlab derived, as LaTeX for a paper (amsmath), as a SymPy script for a
# computer algebra system, or as JSON.

# %%
latex = ball.equations("latex")
print("\n".join(latex.splitlines()[:12]))
assert "\\begin{align*}" in latex

# %%
z0 = run.meta["initial_state"]
print("dz/dt at the start:", ball.rhs(0.0, z0))
print("its Jacobian is %d × %d" % ball.jacobian(0.0, z0).shape)
