#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/format-limited-pilot);
# then the outcome tables the README reads (../format_limited_outcome.py, from results.csv)
set -euo pipefail
bash data/results/reproduce.sh format-limited-pilot
"${PY:-.venv/bin/python}" data/results/format_limited_outcome.py > data/results/format-limited-pilot/outcome.md.tmp
mv data/results/format-limited-pilot/outcome.md.tmp data/results/format-limited-pilot/outcome.md
