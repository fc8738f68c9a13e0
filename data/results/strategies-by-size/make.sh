#!/usr/bin/env bash
# The committed tiny results of study strategies-by-size (issue #5): the exact command that produced this folder.
# Run from the project root: bash data/results/strategies-by-size/make.sh   (time: see README, "Reproducing the studies")
# The sweep keeps every executed notebook and training run under build/studies/strategies-by-size (resumable);
# only the table, the per-point records and the provenance are committed here.
set -euo pipefail
OUT=data/results/strategies-by-size
RUN=build/studies/strategies-by-size
PY=${PY:-.venv/bin/python}
$PY -m course_lib reproduce strategies-by-size --profile tiny --workers 2 --out "$RUN"
rm -rf "$OUT/points" && mkdir -p "$OUT/points"
cp "$RUN/results.csv" "$RUN/provenance.json" "$RUN/grid.json" "$OUT/"
cp "$RUN"/points/*.json "$OUT/points/"
