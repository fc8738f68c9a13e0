#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/regimes-hard-wins)
# Then the pools' difficulty tables: the K=8 labels the arms were selected by (the sweep's own estimate, read from
# the cache), and K=64 fresh samples of the same problems (another sampling seed): each selected set's true p.
set -euo pipefail
bash data/results/reproduce.sh regimes-hard-wins
PY=${PY:-.venv/bin/python}
mkdir -p data/results/regimes-hard-wins/pools
rm -f data/results/regimes-hard-wins/pools/*.csv data/results/regimes-hard-wins/pools/*.provenance.json  # remade: never replaced
for model in tiny-m tiny-m-wordy; do
  $PY -m course_lib estimate --model $model --task arith --n 2500 --k 8 --max-new-tokens 96 --seed 0 --quiet \
    --out data/results/regimes-hard-wins/pools/$model-k8.csv
  $PY -m course_lib estimate --model $model --task arith --n 2500 --k 64 --max-new-tokens 96 --seed 0 --sampling-seed 1 \
    --quiet --out data/results/regimes-hard-wins/pools/$model-k64.csv
done
