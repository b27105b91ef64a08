#!/usr/bin/env python3
# test-npy-output.py — `cmlab-cli simulate … -o FILE.npy` writes NumPy's .npy format that
# numpy.load reads with the CSV header's names, holding the very doubles the CSV of the
# same run prints (read back exactly, pandas.read_csv(…, float_precision='round_trip')),
# bit for bit, for a run of 10^5 rows (written by the output's writer thread); the run's
# metadata (program, model hash, parameters, integrator, tolerances, columns, rows) are in
# FILE.npy.json.  --reference columns, --format npy with another name, and what is
# refused: standard output, a device, a name given twice (nothing is left behind).
# Skips (TAP "1..0 # SKIP") when this Python has no NumPy or pandas.
# Usage: test-npy-output.py CMLAB_CLI
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import pandas as pd
except ImportError as e:
    print("1..0 # SKIP NumPy or pandas missing for %s (%s)" % (sys.executable, e))
    sys.exit(0)

cli = sys.argv[1]
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
    return subprocess.run([cli] + list(args), capture_output=True, text=True)


def bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.uint64)


def same_as_csv(npy, csv):
    a = np.load(npy)
    df = pd.read_csv(csv, comment="#", float_precision="round_trip")
    return (a.dtype.names == tuple(df.columns) and a.shape == (len(df),)
            and all(a.dtype[name] == np.dtype("<f8") for name in a.dtype.names)
            and all(np.array_equal(bits(a[c]), bits(df[c].to_numpy())) for c in df.columns))


with tempfile.TemporaryDirectory(prefix="cmlab-npy-") as tmp:
    npy, csv = os.path.join(tmp, "run.npy"), os.path.join(tmp, "run.csv")
    run_args = ["simulate", "rolling-ball", "--t-end", "100", "--dt-out", "0.001",
                "--rtol", "1e-10", "--set", "Omega=1.5"]
    r1 = run(*run_args, "-o", npy)
    r2 = run(*run_args, "-o", csv)
    ok(r1.returncode == 0 and r2.returncode == 0, "the same run written as .npy and as CSV"
       + ("" if r1.returncode == 0 else ": " + r1.stderr))
    a = np.load(npy)
    ok(a.shape == (100001,), "numpy.load reads 10^5 + 1 rows (%s)" % (a.shape,))
    ok(same_as_csv(npy, csv), "every value of the .npy equals the CSV's read exactly, bit for bit")
    with open(npy, "rb") as f:
        head = f.read(10)
    hlen = head[8] | head[9] << 8
    ok(head[:8] == b"\x93NUMPY\x01\x00" and (10 + hlen) % 64 == 0
       and os.path.getsize(npy) == 10 + hlen + 100001 * 8 * len(a.dtype.names),
       "format 1.0, the data at a multiple of 64 bytes, nothing after the rows")
    meta = json.load(open(npy + ".json"))
    comments = [l for l in open(csv) if l.startswith("#")]
    ok(meta["program"].startswith("cmlab ") and meta["model"] == "rolling-ball"
       and any(meta["model_sha256"] in l for l in comments)
       and meta["parameters"]["Omega"] == 1.5 and meta["rtol"] == 1e-10
       and meta["integrator"] and meta["columns"] == list(a.dtype.names)
       and len(meta["units"]) == len(a.dtype.names) and meta["rows"] == 100001,
       "FILE.npy.json holds the run's metadata: program, model hash, parameters, "
       "integrator, tolerances, columns, units, rows")

    # --reference columns and --format npy with a name of any ending
    ref_npy, ref_csv = os.path.join(tmp, "ref.data"), os.path.join(tmp, "ref.csv")
    model = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "data",
                         "oscillator-reference.cml")
    args = ["simulate", model, "--t-end", "3", "--reference"]
    r1 = run(*args, "--format", "npy", "-o", ref_npy)
    r2 = run(*args, "-o", ref_csv)
    ok(r1.returncode == 0 and r2.returncode == 0 and same_as_csv(ref_npy, ref_csv)
       and any(name.endswith("_err") for name in np.load(ref_npy).dtype.names),
       "--format npy: the reference columns NAME_ref, NAME_err too")

    # refused, with nothing left behind
    r = run("simulate", "rolling-ball", "--t-end", "1", "--format", "npy")
    ok(r.returncode == 2 and "standard output" in r.stderr and r.stdout == "",
       "a .npy to standard output is refused")
    r = run("simulate", "rolling-ball", "--t-end", "1", "-o", "/dev/null", "--format", "npy")
    ok(r.returncode == 2 and "regular file" in r.stderr, "a .npy to a device is refused")
    twice = os.path.join(tmp, "twice.npy")
    r = run("simulate", "rolling-ball", "--t-end", "1", "--columns", "x,x", "-o", twice)
    ok(r.returncode == 2 and "twice" in r.stderr and not os.path.exists(twice)
       and not os.path.exists(twice + ".json") and sorted(os.listdir(tmp)) == sorted(
           ["run.npy", "run.npy.json", "run.csv", "ref.data", "ref.data.json", "ref.csv"]),
       "a column named twice is refused, and no file or temporary is left")

print("1..%d" % n)
sys.exit(1 if failed else 0)
