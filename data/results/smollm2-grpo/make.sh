#!/usr/bin/env bash
# A first GRPO run on a real model on a CPU: SmolLM2-135M-Instruct, LoRA, three dozen steps (2 prompts x 4 completions each) on one-step word
# problems (the easiest cell of ../smollm2-difficulty), rewarded for the right answer and (half as much) for writing it as `#### N`.
# Accuracy and format share before and after on held-out word problems, with intervals.
# Run from the project root: bash data/results/smollm2-grpo/make.sh   (about 30 minutes on 2 shared cores; resumable)
set -euo pipefail
OUT=data/results/smollm2-grpo
RUN=${RUN:-build/runs/smollm2-grpo}
PY=${PY:-.venv/bin/python}
STEPS=${STEPS:-36}
SEED=${SEED:-0}
WORDS=data/results/smollm2-difficulty/words.py
mkdir -p "$OUT" build/smollm2
$PY "$WORDS" build/smollm2/words-train.jsonl 100 "$SEED" train  # arith's train split, in words
$PY "$WORDS" build/smollm2/words-test.jsonl 100 "$SEED" test    # arith's test split: held out
TRAIN=(--task jsonl:build/smollm2/words-train.jsonl --split all --pool-levels 1)
TEST=(--task jsonl:build/smollm2/words-test.jsonl --split all --levels 1 --n 48)
EVAL=(--k 4 --temperature 1.0 --max-new-tokens 40 --seed 1 --quiet)
[ -f "$OUT/eval_base.json" ] || $PY -m course_lib evaluate --model smollm2-135m "${TEST[@]}" "${EVAL[@]}" --out "$OUT/eval_base.json"
$PY -m course_lib train --model smollm2-135m "${TRAIN[@]}" --n 64 --pool-seed "$SEED" --steps "$STEPS" --group-size 4 \
    --prompts-per-step 2 --max-new-tokens 40 --lr 5e-4 --lora --format-weight 0.5 --save-steps 6 --seed "$SEED" \
    --out "$RUN" --quiet
[ -f "$OUT/eval_trained.json" ] || $PY -m course_lib evaluate --model "$RUN" "${TEST[@]}" "${EVAL[@]}" --out "$OUT/eval_trained.json"
$PY -m course_lib compare --after "$OUT/eval_trained.json" --before "$OUT/eval_base.json" --seed 0 --out "$OUT/gain.json"
rm -rf "$OUT/run" && mkdir -p "$OUT/run"
cp "$RUN/run_config.json" "$RUN/metrics.jsonl" "$RUN/ledger.jsonl" "$RUN/summary.json" "$OUT/run/"
# the LoRA adapter (final/, ~20 MB) stays in $RUN: rebuilt by this script, too large to commit
