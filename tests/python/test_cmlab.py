#!/usr/bin/env python3
# test_cmlab.py — the Python module `cmlab` (src/python) gives what cmlab-cli gives.
#
# * simulate() equals `cmlab-cli simulate` bit for bit, for every built-in model (the CLI's
#   CSV read exactly: it writes %.17g, which Python's float() reads back to the same double),
#   and with parameters, initial values, another integrator, columns and a backwards run;
# * sweep(), poincare() and shoot() equal `cmlab-cli sweep`, `poincare` and `shoot` bit for bit;
# * equations() is the text of `cmlab-cli info --format latex|sympy|json`;
# * rhs() at a state is `cmlab-cli rhs` there, bit for bit; jacobian() equals the derivative
#   SymPy takes of the exported SymPy right-hand side (no finite differences);
# * failures raise cmlab.Error with cmlab's message: an unknown model, a malformed model file
#   (FILE:LINE), a bad parameter, a bad option;
# * two threads simulating at once give what one after the other gives.
# Run by meson (suite python) with the build's module on PYTHONPATH and CMLAB_CLI set;
# skipped (exit status 77) with the reason meson gives in CMLAB_PYTHON_SKIP when the module was
# not built or cannot be loaded in this build (AddressSanitizer).
import os
import subprocess
import sys
import tempfile
import threading
import unittest

if os.environ.get("CMLAB_PYTHON_SKIP"):
    print("SKIP: " + os.environ["CMLAB_PYTHON_SKIP"])
    sys.exit(77)
import numpy as np  # noqa: E402
import cmlab  # noqa: E402

CLI = os.environ["CMLAB_CLI"]
SRCDIR = os.environ.get("G_TEST_SRCDIR", os.path.join(os.path.dirname(__file__), ".."))


def cli(*args):
    r = subprocess.run([CLI] + list(args), capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError("cmlab-cli %s failed: %s" % (" ".join(args), r.stderr))
    return r.stdout


def cli_simulate(*args):
    """The rows `cmlab-cli simulate` writes: column names and exact values."""
    lines = [line for line in cli("simulate", *args).splitlines() if not line.startswith("#")]
    names = lines[0].split(",")
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]], dtype=np.float64)
    return names, rows


def bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.uint64)


class BitForBit(unittest.TestCase):
    def assert_same(self, names, rows, result, what):
        self.assertEqual(list(result), names, what + ": the columns")
        for k, name in enumerate(names):
            a, b = bits(rows[:, k]), bits(result[name])
            self.assertEqual(a.shape, b.shape, "%s: rows of %s" % (what, name))
            differ = np.flatnonzero(a != b)
            self.assertEqual(len(differ), 0, "%s: %s differs from cmlab-cli's in %d rows, first at t = %r "
                             "(%r, not %r)" % (what, name, len(differ), rows[differ[0], 0] if len(differ) else 0,
                                               result[name][differ[0]] if len(differ) else 0,
                                               rows[differ[0], k] if len(differ) else 0))

    def test_every_builtin(self):
        models = cli("list", "model-names").split()
        self.assertGreaterEqual(len(models), 6)
        self.assertEqual(sorted(models), cmlab.models())
        for name in models:
            with self.subTest(model=name):
                names, rows = cli_simulate(name, "--t-end", "3")
                r = cmlab.load(name).simulate(3)
                self.assert_same(names, rows, r, name)
                self.assertEqual(r.meta["model"], name)

    def test_options(self):
        names, rows = cli_simulate("rolling-ball", "--set", "Omega=0.3", "--set", "m=2", "--init", "x=0.2",
                                   "--integrator", "dop853", "--rtol", "1e-8", "--atol", "1e-10",
                                   "--t-end", "4", "--dt-out", "0.03", "--columns", "x,energy,w3")
        r = cmlab.load("rolling-ball", Omega=0.3, m=2).simulate(
            4, dt_out=0.03, init={"x": 0.2}, integrator="dop853", rtol=1e-8, atol=1e-10,
            columns=["x", "energy", "w3"])
        self.assert_same(names, rows, r, "rolling-ball with options")
        self.assertEqual(r.meta["parameters"]["Omega"], 0.3)
        self.assertEqual(r.meta["method"], "dop853")
        self.assertEqual(r.meta["initial"]["x"], 0.2)

    def test_backwards_and_fixed_step(self):
        names, rows = cli_simulate("martinet", "--t-start", "2", "--t-end", "0.5", "--dt-out", "0.1")
        r = cmlab.load("martinet").simulate(0.5, t_start=2, dt_out=0.1)
        self.assert_same(names, rows, r, "martinet backwards")
        names, rows = cli_simulate("heavy-top", "--integrator", "implicit-midpoint", "--step", "0.01",
                                   "--t-end", "1")
        r = cmlab.load("heavy-top").simulate(1, integrator="implicit-midpoint", step=0.01)
        self.assert_same(names, rows, r, "heavy-top, implicit midpoint")

    def test_sweep(self):
        out = cli("sweep", "rolling-ball", "--vary", "Omega=0.5:2:4", "--vary", "m=1:2:2", "--set", "k2=0.5",
                  "--t-end", "5", "--measure", "x,energy", "--at", "2,5", "--jobs", "3", "--integrator", "rk8pd")
        lines = [line for line in out.splitlines() if not line.startswith("#")]
        rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
        r = cmlab.load("rolling-ball", k2=0.5).sweep({"Omega": (0.5, 2, 4), "m": (1, 2, 2)}, 5, ["x", "energy"],
                                                    at=[2, 5], jobs=3, integrator="rk8pd")
        got = np.column_stack([r["Omega"], r["m"], r["x"], r["energy"]])
        self.assertEqual(lines[0], "Omega,m,x@2,x@5,energy@2,energy@5")
        self.assertTrue(np.array_equal(bits(rows), bits(got)), "the sweep's rows differ from cmlab-cli's")
        self.assertEqual(r.meta["points"], 8)
        self.assertEqual(r.meta["failed"], {})
        # without at: the measures at t_end, one value a point (a run to t_end alone)
        out = cli("sweep", "rolling-ball", "--vary", "Omega=0.5:2:3", "--t-end", "5", "--measure", "x")
        want = np.array([float(line.split(",")[1]) for line in out.splitlines()[-3:]])
        r1 = cmlab.load("rolling-ball").sweep({"Omega": (0.5, 2, 3)}, 5, "x")
        self.assertEqual(r1["x"].shape, (3,))
        self.assertTrue(np.array_equal(bits(r1["x"]), bits(want)))

    def test_poincare(self):
        out = cli("poincare", "rolling-ball", "--set", "Omega=2", "--section", "y=0.1", "--direction", "both",
                  "--columns", "x,u", "--t-end", "40")
        lines = [line for line in out.splitlines() if not line.startswith("#")]
        rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
        r = cmlab.load("rolling-ball", Omega=2).poincare("y=0.1", 40, columns=["x", "u"], direction="both")
        self.assertGreater(len(rows), 2)
        got = np.column_stack([r["t"], r["x"], r["u"]])
        self.assertTrue(np.array_equal(bits(rows), bits(got)), "the crossings differ from cmlab-cli's")
        self.assertEqual(len(cmlab.load("rolling-ball", Omega=2).poincare("y=0.1", 40, direction="both",
                                                                         max_crossings=2)["t"]), 2)

    def test_shoot(self):
        out = cli("shoot", "martinet", "--t-end", "1", "--target", "x1=0.5,x2=0.3,x3=0.01", "--dt-out", "0.02")
        lines = [line for line in out.splitlines() if not line.startswith("#")]
        rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
        r = cmlab.load("martinet").shoot(1, {"x1": 0.5, "x2": 0.3, "x3": 0.01}, dt_out=0.02)
        self.assertEqual(list(r), lines[0].split(","))
        self.assertTrue(np.array_equal(bits(rows), bits(np.column_stack(list(r.values())))),
                        "the extremal's rows differ from cmlab-cli's")
        momenta = [line for line in out.splitlines() if line.startswith("# shoot: momenta found: ")][0]
        found = dict(item.split(" = ") for item in momenta.split(": ", 2)[2].split(", "))
        self.assertEqual({k: float(v) for k, v in found.items()}, r.meta["momenta"])
        self.assertIn("# shoot: residual %.3g " % r.meta["residual"], out)
        with self.assertRaisesRegex(cmlab.Error, "vakonomic"):
            cmlab.load("rolling-ball").shoot(1, {"x": 0.5})

    def test_equations_text(self):
        for name in ("rolling-ball", "capri-kobayashi"):
            m = cmlab.load(name)
            for fmt in ("latex", "sympy", "json"):
                self.assertEqual(m.equations(fmt), cli("info", name, "--format", fmt), "%s %s" % (name, fmt))
        m = cmlab.load("rolling-ball", Omega=0.7)
        self.assertEqual(m.equations("json"), cli("info", "rolling-ball", "--set", "Omega=0.7", "--format", "json"))


class Evaluations(unittest.TestCase):
    def test_rhs_is_cmlab_cli_rhs(self):
        for name in ("rolling-ball", "plate-ball", "capri-kobayashi", "chaplygin-sleigh"):
            with self.subTest(model=name):
                m = cmlab.load(name)
                z0 = m.simulate(0.5, dt_out=0.5).meta["initial_state"]
                z1 = m.simulate(0.5, dt_out=0.5)
                z = z0 + 0.01 * np.arange(1, len(z0) + 1)
                with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
                    for t, s in ((0.0, z0), (0.25, z)):
                        f.write(" ".join(repr(float(v)) for v in [t] + list(s)) + "\n")
                    f.flush()
                    out = cli("rhs", name, "--states", f.name).splitlines()
                for line, (t, s) in zip(out, ((0.0, z0), (0.25, z))):
                    want = np.array([float(v) for v in line.split(",")])
                    self.assertTrue(np.array_equal(bits(want), bits(m.rhs(t, s))), name)
                self.assertEqual(len(z1["t"]), 2)

    def test_jacobian_is_sympy_derivative(self):
        try:
            import sympy as sp
        except ImportError:
            self.skipTest("SymPy missing (Debian: python3-sympy)")
        compared = 0
        for name in cmlab.models():
            with self.subTest(model=name):
                m = cmlab.load(name)
                ns = {}
                exec(compile(m.equations("sympy"), name + ".py", "exec"), ns)
                state, params, t = list(ns["state"]), ns["parameters"], ns["time"]
                if list(ns["free_velocities"]):
                    # velocities solved by Newton's method: no exact Jacobian, and it says so
                    with self.assertRaisesRegex(cmlab.Error, "Newton"):
                        m.jacobian(0.0, np.zeros(len(state)))
                    continue
                compared += 1
                self.assertEqual([str(s) for s in state], m.state_names)
                # the shared parts substituted, last first, then the parameters' values
                rhs = list(ns["rhs"])
                for sym, expr in reversed(ns["shared"]):
                    rhs = [e.subs(sym, expr) for e in rhs]
                rhs = [e.subs(params) for e in rhs]
                jac = sp.Matrix(rhs).jacobian(state)
                f = sp.lambdify([t] + state, jac, modules="numpy")
                z0 = m.simulate(0, dt_out=1).meta["initial_state"]
                rng = np.random.default_rng(36)
                for k in range(5):
                    z = z0 + rng.uniform(-0.2, 0.2, len(z0)) * (1 + np.abs(z0))
                    tk = 0.3 * k
                    want = np.array(f(tk, *z), dtype=np.float64)
                    got = m.jacobian(tk, z)
                    self.assertEqual(got.shape, (len(state), len(state)))
                    err = np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want)))
                    self.assertLessEqual(err, 1e-12, "%s: the Jacobian at state %d differs by %g" % (name, k, err))
        self.assertGreaterEqual(compared, 6)

    def test_info(self):
        m = cmlab.load("rolling-ball", Omega=0.4)
        info = m.info()
        self.assertEqual(info["state"], cli("list", "state", "rolling-ball").split())
        self.assertEqual(info["state"], m.state_names)
        self.assertEqual(info["kind"], "nonholonomic")
        self.assertEqual(info["parameters"]["Omega"], 0.4)
        self.assertEqual(info["columns"], ["x", "y", "u", "v", "w1", "w2", "w3", "energy"])
        self.assertIn("energy", info["observables"])
        verdicts = {c["name"]: c["verdict"] for c in info["conserved"]}
        self.assertTrue(verdicts and set(verdicts.values()) <= {"exactly", "to-rounding", "not", "undecided"})
        self.assertTrue(any(c["conserved"] for c in info["conserved"]))
        self.assertIn("t", info["units"])
        # the parameters' units too, as cmlab-cli info prints them in its table of parameters
        table = cli("info", "rolling-ball").split("\nParameters:\n", 1)[1].split("\n\n", 1)[0]
        for line in table.splitlines():
            name, _, value, unit = line.split(None, 4)[:4]
            self.assertEqual(info["units"][name], unit)
        self.assertEqual(cmlab.load("capri-kobayashi").info()["kind"], "singular")
        self.assertEqual(cmlab.load("martinet").info()["kind"], "vakonomic")


class Errors(unittest.TestCase):
    def test_unknown_model(self):
        with self.assertRaisesRegex(cmlab.Error, "no-such-model.*built-in"):
            cmlab.load("no-such-model")

    def test_malformed_model_names_file_and_line(self):
        path = os.path.join(SRCDIR, "malformed", "anchor-missing-colon.cml")
        with self.assertRaises(cmlab.Error) as cm:
            cmlab.load(path)
        self.assertRegex(str(cm.exception), r"^%s:\d+(:\d+)?: " % path)
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.cml")
            with open(bad, "w") as f:
                f.write("[model]\nname = bad\n[algebroid]\nbase = x\nfibre = y\nsections = e\n[lagrangian]\n"
                        "L = y^2 +* x\n")
            with self.assertRaisesRegex(cmlab.Error, r"bad\.cml:\d+"):
                cmlab.load(bad)

    def test_bad_parameters(self):
        with self.assertRaisesRegex(cmlab.Error, r"m = -1 is outside its range"):
            cmlab.load("rolling-ball", m=-1)
        with self.assertRaisesRegex(cmlab.Error, "nosuch"):
            cmlab.load("rolling-ball", nosuch=1)
        with self.assertRaisesRegex(cmlab.Error, "number"):
            cmlab.load("rolling-ball", m="heavy")
        with self.assertRaisesRegex(cmlab.Error, "finite"):
            cmlab.load("rolling-ball", m=float("nan"))

    def test_bad_options(self):
        m = cmlab.load("rolling-ball")
        for kwargs, message in (({"t_end": float("inf")}, "t_end"), ({"t_end": -1}, "t_end"),
                                ({"t_end": 1, "dt_out": 0}, "dt_out"),
                                ({"t_end": 1, "integrator": "euler"}, "unknown integrator"),
                                ({"t_end": 1, "rtol": 2}, "rtol"),
                                ({"t_end": 1, "step": 0.1}, "fixed-step"),
                                ({"t_end": 1, "columns": ["nosuch"]}, "no quantity"),
                                ({"t_end": 1, "init": {"nosuch": 1}}, "nosuch"),
                                ({"t_end": 1e12, "dt_out": 1e-6}, "10\\^8"),
                                ({"t_end": 1e300}, "out of reach"),
                                ({"t_end": 1, "init": [1, 2]}, "init")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(cmlab.Error, message):
                    m.simulate(**kwargs)
        for args, message in ((({"nosuch": (0, 1, 2)}, 1, "x"), "no parameter"),
                              (({"Omega": (0, 1, 0)}, 1, "x"), "count"),
                              (({"Omega": (0.5, 1000, 2)}, 1, "x"), "Omega"),
                              (({"Omega": (0.5, 1, 2)}, 1, "nosuch"), "no quantity"),
                              (({"Omega": (0.5, 1, 2)}, -1, "x"), "t_end")):
            with self.subTest(sweep=args):
                with self.assertRaisesRegex(cmlab.Error, message):
                    m.sweep(*args)
        with self.assertRaisesRegex(cmlab.Error, "at takes increasing"):
            m.sweep({"Omega": (0.5, 1, 2)}, 1, "x", at=[0.5, 2])
        with self.assertRaisesRegex(cmlab.Error, "nosuch"):
            m.poincare("nosuch = 0", 1)
        with self.assertRaisesRegex(cmlab.Error, "direction"):
            m.poincare("y = 0", 1, direction="sideways")
        with self.assertRaisesRegex(cmlab.Error, "12 values"):
            m.rhs(0, [1, 2, 3])
        with self.assertRaisesRegex(cmlab.Error, "latex, sympy or json"):
            m.equations("mathml")
        self.assertTrue(issubclass(cmlab.Error, Exception))


class Threads(unittest.TestCase):
    def test_two_threads_as_one_after_the_other(self):
        jobs = [("rolling-ball", {"Omega": 0.2}), ("rolling-ball", {"Omega": 0.9}), ("plate-ball", {}),
                ("heavy-top", {})]
        models = [cmlab.load(name, **params) for name, params in jobs]
        one_by_one = [m.simulate(20, dt_out=0.01) for m in models]
        shared = cmlab.load("martinet")
        alone = shared.simulate(10)
        results = [None] * (len(models) + 2)

        def run(k):
            results[k] = models[k].simulate(20, dt_out=0.01) if k < len(models) else shared.simulate(10)
        threads = [threading.Thread(target=run, args=(k,)) for k in range(len(results))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for k, (want, got) in enumerate(zip(one_by_one + [alone, alone], results)):
            self.assertEqual(list(want), list(got))
            for name in want:
                self.assertTrue(np.array_equal(bits(want[name]), bits(got[name])), "run %d: %s" % (k, name))


if __name__ == "__main__":
    unittest.main(verbosity=2)
