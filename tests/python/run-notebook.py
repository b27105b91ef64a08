# run-notebook.py — runs the notebook example doc/examples/notebook.py (the path given) as
# a script, with Python's temporary directory one of this run's own, removed after: the
# figures it writes where a person would look at them leave nothing behind in the tests'
# temporary directory.
#
# SPDX-License-Identifier: GPL-3.0-or-later
import runpy
import sys
import tempfile

with tempfile.TemporaryDirectory(prefix="cmlab-notebook-run-") as tmp:
    tempfile.tempdir = tmp
    try:
        runpy.run_path(sys.argv[1], run_name="__main__")
    finally:
        tempfile.tempdir = None
