#!/usr/bin/env bash
# The command that made this folder (run from the project root): reads only committed results.csv files.
set -euo pipefail
PY=${PY:-.venv/bin/python}
$PY data/results/reanalysis/reanalyze.py
