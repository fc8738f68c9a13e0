#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/tinymath-l-boundary);
# then the outcome tables the README reads (../tinymath_outcome.py, from results.csv)
set -euo pipefail
bash data/results/reproduce.sh tinymath-l-boundary
"${PY:-.venv/bin/python}" data/results/tinymath_outcome.py tinymath-l-boundary > data/results/tinymath-l-boundary/outcome.md.tmp
mv data/results/tinymath-l-boundary/outcome.md.tmp data/results/tinymath-l-boundary/outcome.md
