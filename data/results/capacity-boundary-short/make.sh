#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/capacity-boundary-short)
# Then the pool's difficulty table (K=8, the sweep's own estimate, read from the cache).
set -euo pipefail
bash data/results/reproduce.sh capacity-boundary-short
PY=${PY:-.venv/bin/python}
mkdir -p data/results/capacity-boundary-short/pools
rm -f data/results/capacity-boundary-short/pools/*.csv data/results/capacity-boundary-short/pools/*.provenance.json  # remade: never replaced
$PY -m course_lib estimate --model tiny-m-short --task arith --n 500 --k 8 --max-new-tokens 96 --seed 0 --quiet \
  --out data/results/capacity-boundary-short/pools/tiny-m-short-k8.csv
