#!/usr/bin/env bash
# A follow-up probe of hard-wins, committed: study hard-wins-large-pool (issue #5): the exact command that produced this folder.
# Run from the project root: bash data/results/hard-wins-large-pool/make.sh   (time: see README, "Reproducing the studies")
# The sweep keeps every executed notebook and training run under build/studies/hard-wins-large-pool (resumable);
# only the table, the per-point records and the provenance are committed here.
set -euo pipefail
OUT=data/results/hard-wins-large-pool
RUN=build/studies/hard-wins-large-pool
PY=${PY:-.venv/bin/python}
$PY -m course_lib reproduce hard-wins-large-pool --profile tiny --workers 2 --out "$RUN"
rm -rf "$OUT/points" && mkdir -p "$OUT/points"
cp "$RUN/results.csv" "$RUN/provenance.json" "$RUN/grid.json" "$OUT/"
cp "$RUN"/points/*.json "$OUT/points/"
