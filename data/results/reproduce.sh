#!/usr/bin/env bash
# Remake the committed tiny results of one study (issue #5): bash data/results/reproduce.sh STUDY
# Run from the project root. The sweep keeps every executed notebook and training run under
# build/studies/STUDY (resumable); only the table, the per-point records, the grid and the
# provenance are copied into data/results/STUDY/. Wall times: README, "Reproducing the studies".
set -euo pipefail
STUDY=${1:?usage: bash data/results/reproduce.sh STUDY}
OUT=data/results/$STUDY
RUN=build/studies/$STUDY
PY=${PY:-.venv/bin/python}
$PY -m course_lib reproduce "$STUDY" --profile tiny --workers 2 --out "$RUN"
rm -rf "$OUT/points" && mkdir -p "$OUT/points"
cp "$RUN/results.csv" "$RUN/provenance.json" "$RUN/grid.json" "$OUT/"
cp "$RUN"/points/*.json "$OUT/points/"
