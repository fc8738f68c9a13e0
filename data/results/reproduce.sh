#!/usr/bin/env bash
# Remake the committed tiny results of one study: bash data/results/reproduce.sh STUDY
# Run from the project root. The sweep keeps every executed notebook and training run under
# build/studies/STUDY (resumable); only the table, the per-point records, the grid and the
# provenance are copied into data/results/STUDY/. Wall times: docs/findings.md.
# A study longer than one sitting spans several: its finished point records, committed in data/results/STUDY/points,
# seed the next run, which does only the points still missing. COLLECT_ONLY=1 copies the points finished so far
# (while the sweep goes on elsewhere) without running anything.
set -euo pipefail
STUDY=${1:?usage: bash data/results/reproduce.sh STUDY}
OUT=data/results/$STUDY
RUN=build/studies/$STUDY
PY=${PY:-.venv/bin/python}
mkdir -p "$RUN/points" "$OUT/points"
if [ "${COLLECT_ONLY:-0}" = 1 ]; then
  find "$RUN/points" -maxdepth 1 -name '*.json' ! -name '*.failed.json' -exec cp {} "$OUT/points/" \;
  echo "$(ls "$OUT/points" | wc -l) finished point records in $OUT/points"
  exit 0
fi
find "$OUT/points" -maxdepth 1 -name '*.json' ! -name '*.failed.json' -exec cp -n {} "$RUN/points/" \;
$PY -m course_lib reproduce "$STUDY" --profile tiny --workers 2 --out "$RUN"
rm -rf "$OUT/points" && mkdir -p "$OUT/points"
cp "$RUN/results.csv" "$RUN/provenance.json" "$RUN/grid.json" "$OUT/"
cp "$RUN"/points/*.json "$OUT/points/"
