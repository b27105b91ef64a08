#!/usr/bin/env python3
# test-read-numpy-pandas.py — the calls doc/command-line.md gives for reading cmlab-cli's
# output in NumPy and pandas give back the very numbers cmlab wrote, to the last bit.
#
# `cmlab-cli simulate rolling-ball --t-end 5` is written as CSV and as JSON; the exact
# values are the file's text parsed by Python's float(), which rounds correctly (and
# cmlab writes %.17g, enough digits for any double to come back).  Each documented call
# must give the same column names and the same 64-bit patterns:
#   pandas.read_csv(path, comment='#', float_precision='round_trip')
#   numpy.genfromtxt(lines without '#', delimiter=',', names=True)
#   numpy.loadtxt(lines without '#', delimiter=',', skiprows=1)
#   json.load, then numpy.array(doc['rows']) and pandas.DataFrame(doc['rows'], ...)
# The manual's own block of Python (the first ```python block after "To read the numbers
# back exactly") is run as written beside run.csv and run.json, and what it reads (df,
# rec, a, doc, dj) is held to the same bits: the manual cannot drift from what is tested.
# A control: pandas' default float parser (what `comment='#'` alone uses) is reported when
# it changes values of this file; that is pandas' behaviour, not asserted.
# Skips (TAP "1..0 # SKIP") when this Python has no NumPy or pandas (Debian:
# python3-numpy, python3-pandas).  Usage: test-read-numpy-pandas.py CMLAB_CLI MANUAL.md
import json
import os
import subprocess
import sys
import tempfile
import textwrap

try:
    import numpy as np
    import pandas as pd
except ImportError as e:
    print("1..0 # SKIP NumPy or pandas missing for %s (%s)" % (sys.executable, e))
    sys.exit(0)

cli = sys.argv[1]
manual = sys.argv[2]
n = 0
failed = False


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    if not cond:
        failed = True


def simulate(fmt, path):
    subprocess.run([cli, "simulate", "rolling-ball", "--t-end", "5", "--format", fmt,
                    "-o", path], check=True)


def bits(a):
    """The 64-bit patterns of an array of doubles."""
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.uint64)


def same_bits(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.array_equal(bits(a), bits(b)))


def n_changed(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return int((bits(a) != bits(b)).sum()) if a.shape == b.shape else a.size


tmp = tempfile.TemporaryDirectory()
csv = os.path.join(tmp.name, "run.csv")
simulate("csv", csv)

# The exact values: the lines that are not comments, the first the column names
with open(csv) as f:
    lines = [line for line in f if not line.startswith("#")]
names = lines[0].strip().split(",")
exact = np.array([[float(x) for x in line.split(",")] for line in lines[1:]])
ok(exact.shape == (1001, len(names)) and names[0] == "t",
   "the CSV has a header and 1001 rows of %d columns (%s)" % (len(names), ",".join(names)))
ok(sum(1 for x in exact.flat if x != round(x, 12)) > 1000,
   "most values need more than 12 digits (the check has something to catch)")

# pandas, the documented call
df = pd.read_csv(csv, comment="#", float_precision="round_trip")
ok(list(df.columns) == names, "pandas: the column names")
ok(same_bits(df.to_numpy(), exact), "pandas.read_csv(comment='#', float_precision='round_trip'): "
   "every value bit for bit (%d differ)" % n_changed(df.to_numpy(), exact))

# NumPy with names (a structured array)
with open(csv) as f:
    rec = np.genfromtxt((line for line in f if not line.startswith("#")),
                        delimiter=",", names=True)
ok(list(rec.dtype.names) == names, "numpy.genfromtxt(names=True): the column names")
as_columns = np.column_stack([rec[name] for name in names])
ok(same_bits(as_columns, exact), "numpy.genfromtxt: every value bit for bit (%d differ)"
   % n_changed(as_columns, exact))

# NumPy as a plain 2-D array
with open(csv) as f:
    arr = np.loadtxt((line for line in f if not line.startswith("#")),
                     delimiter=",", skiprows=1)
ok(same_bits(arr, exact), "numpy.loadtxt: every value bit for bit (%d differ)"
   % n_changed(arr, exact))

# The control: pandas' default parser rounds some values differently (reported only)
default = pd.read_csv(csv, comment="#").to_numpy()
print("# pandas.read_csv(comment='#') alone changes %d of %d values"
      % (n_changed(default, exact), exact.size))

# JSON: json.load is exact; NumPy and pandas take its rows as they are
js = os.path.join(tmp.name, "run.json")
simulate("json", js)
with open(js) as f:
    doc = json.load(f)
ok(doc["columns"] == names, "JSON: the same columns as the CSV")
ok(same_bits(np.array(doc["rows"]), exact),
   "JSON: numpy.array(doc['rows']) equals the CSV's values bit for bit")
jdf = pd.DataFrame(doc["rows"], columns=doc["columns"])
ok(same_bits(jdf.to_numpy(), exact),
   "JSON: pandas.DataFrame(doc['rows'], columns=doc['columns']) bit for bit")

# The manual's block, as written, in the folder of run.csv and run.json
with open(manual, encoding="utf-8") as f:
    text = f.read()
at = text.find("To read the numbers back exactly")
block = None
if at >= 0:
    start = text.find("```python\n", at)
    end = text.find("```", start + len("```python\n")) if start >= 0 else -1
    if start >= 0 and end >= 0:
        block = textwrap.dedent(text[start + len("```python\n"):end].rstrip(" "))
ok(block is not None, "%s gives a block of Python after \"To read the numbers back exactly\""
   % os.path.basename(manual))
if block is not None:
    here = os.getcwd()
    os.chdir(tmp.name)
    names_of_block = {}
    try:
        exec(compile(block, manual, "exec"), names_of_block)
        ran = None
    except Exception as e:  # the manual's code fails: say how, as a failed check
        ran = "%s: %s" % (type(e).__name__, e)
    finally:
        os.chdir(here)
    ok(ran is None, "the manual's block runs%s" % ("" if ran is None else ": " + ran))
    got = {k: names_of_block.get(k) for k in ("df", "rec", "a", "doc", "dj")}
    ok(got["df"] is not None and list(got["df"].columns) == names
       and same_bits(got["df"].to_numpy(), exact),
       "the manual's pandas call: every value bit for bit")
    ok(got["rec"] is not None and list(got["rec"].dtype.names) == names
       and same_bits(np.column_stack([got["rec"][k] for k in names]), exact),
       "the manual's numpy.genfromtxt call: the names and every value bit for bit")
    ok(got["a"] is not None and same_bits(got["a"], exact),
       "the manual's numpy.loadtxt call: every value bit for bit")
    ok(got["doc"] is not None and got["dj"] is not None and got["doc"]["columns"] == names
       and same_bits(got["dj"].to_numpy(), exact),
       "the manual's JSON calls (json.load, pandas.DataFrame): every value bit for bit")

print("1..%d" % n)
sys.exit(1 if failed else 0)
