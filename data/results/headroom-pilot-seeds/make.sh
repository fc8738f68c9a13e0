#!/usr/bin/env bash
# The command that made this folder (run from the project root):
#   PY=.venv/bin/python bash data/results/headroom-pilot-seeds/make.sh
# As ../reproduce.sh; the sweep resumes, so a cut run is finished by running this again. Only the table, the
# per-point records, the grid and the provenance are copied here; the runs (metrics.jsonl, ledger.jsonl) stay
# under build/studies/headroom-pilot-seeds.
set -euo pipefail
STUDY=headroom-pilot-seeds
OUT=data/results/$STUDY
RUN=build/studies/$STUDY
PY=${PY:-.venv/bin/python}
$PY -m course_lib reproduce "$STUDY" --profile tiny --workers 2 --out "$RUN"
rm -rf "$OUT/points" && mkdir -p "$OUT/points"
cp "$RUN/results.csv" "$RUN/provenance.json" "$RUN/grid.json" "$OUT/"
cp "$RUN"/points/*.json "$OUT/points/"
