#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/tinymath-cross);
# then the outcome tables the README reads (../cross_outcome.py, from results.csv)
set -euo pipefail
bash data/results/reproduce.sh tinymath-cross
"${PY:-.venv/bin/python}" data/results/cross_outcome.py tinymath-cross > data/results/tinymath-cross/outcome.md.tmp
mv data/results/tinymath-cross/outcome.md.tmp data/results/tinymath-cross/outcome.md
