#!/usr/bin/env bash
# The committed GRPO result on tiny-m (issue #4): the exact commands that produced this folder.
# Run from the project root: bash data/results/grpo-tiny-m/make.sh   (about 10 CPU minutes)
set -euo pipefail
OUT=data/results/grpo-tiny-m
RUN=build/runs/grpo-tiny-m
STEPS=${STEPS:-150}
PY=${PY:-.venv/bin/python}
$PY -m course_lib train --model tiny-m --task arith --split train --n 2000 --pool-seed 0 \
    --steps "$STEPS" --group-size 8 --prompts-per-step 8 --lr 3e-4 --lora --seed 0 --out "$RUN" --quiet
rm -f "$OUT/eval_base.json" "$OUT/eval_trained.json" "$OUT/gain.json"  # remade: a command never replaces a committed file
$PY -m course_lib evaluate --model tiny-m --task arith --split test --n 500 --k 8 --seed 1 --out "$OUT/eval_base.json" --quiet
$PY -m course_lib evaluate --model "$RUN" --task arith --split test --n 500 --k 8 --seed 1 --out "$OUT/eval_trained.json" --quiet
$PY -m course_lib compare --after "$OUT/eval_trained.json" --before "$OUT/eval_base.json" --seed 0 --out "$OUT/gain.json"
rm -rf "$OUT/run" && mkdir -p "$OUT/run"
cp "$RUN/run_config.json" "$RUN/metrics.jsonl" "$RUN/ledger.jsonl" "$RUN/summary.json" "$OUT/run/"
cp -r "$RUN/final" "$OUT/run/final"
