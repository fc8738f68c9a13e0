#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/tinymath-cross-pilot);
# then the outcome tables the README reads (../cross_outcome.py, from results.csv)
set -euo pipefail
bash data/results/reproduce.sh tinymath-cross-pilot
"${PY:-.venv/bin/python}" data/results/cross_outcome.py tinymath-cross-pilot > data/results/tinymath-cross-pilot/outcome.md.tmp
mv data/results/tinymath-cross-pilot/outcome.md.tmp data/results/tinymath-cross-pilot/outcome.md
