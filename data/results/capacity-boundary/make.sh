#!/usr/bin/env bash
# The committed tiny results of study capacity-boundary (issue #5): the exact command that produced this folder.
# Run from the project root: bash data/results/capacity-boundary/make.sh   (time: see README, "Reproducing the studies")
# The sweep keeps every executed notebook and training run under build/studies/capacity-boundary (resumable);
# only the table, the per-point records and the provenance are committed here.
set -euo pipefail
OUT=data/results/capacity-boundary
RUN=build/studies/capacity-boundary
PY=${PY:-.venv/bin/python}
$PY -m course_lib reproduce capacity-boundary --profile tiny --workers 2 --out "$RUN"
rm -rf "$OUT/points" && mkdir -p "$OUT/points"
cp "$RUN/results.csv" "$RUN/provenance.json" "$RUN/grid.json" "$OUT/"
cp "$RUN"/points/*.json "$OUT/points/"
