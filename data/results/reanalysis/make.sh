#!/usr/bin/env bash
# The command that made this folder (run from the project root): reads only committed results.csv files.
set -euo pipefail
PY=${PY:-.venv/bin/python}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # this checkout's course_lib and results, whichever is installed
$PY data/results/reanalysis/reanalyze.py
