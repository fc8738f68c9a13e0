#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/format-limited-hard-wins),
# then the tests its README fixed before the run, from results.csv, into analysis.md (analyze.py)
set -euo pipefail
bash data/results/reproduce.sh format-limited-hard-wins
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" "${PY:-.venv/bin/python}" data/results/format-limited-hard-wins/analyze.py
