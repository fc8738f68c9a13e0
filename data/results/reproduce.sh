#!/usr/bin/env bash
# Remake the committed tiny results of one study: bash data/results/reproduce.sh STUDY
# Run from the project root. The sweep keeps every executed notebook and training run under
# build/studies/STUDY (resumable); only the table, the per-point records, the grid and the
# provenance are copied into data/results/STUDY/. Wall times: docs/findings.md.
# A study longer than one sitting spans several: its finished point records, committed in data/results/STUDY/points,
# seed the next run, which does only the points still missing. Run it from the commit the first points ran (their
# records name it; `git worktree add ../at-C C`): the sweep refuses to add points run by other library code. COLLECT_ONLY=1 copies the points finished so far
# (while the sweep goes on elsewhere) without running anything.
set -euo pipefail
STUDY=${1:?usage: bash data/results/reproduce.sh STUDY}
OUT=data/results/$STUDY
RUN=build/studies/$STUDY
PY=${PY:-.venv/bin/python}
mkdir -p "$OUT/points"
if [ "${COLLECT_ONLY:-0}" = 1 ]; then
  find "$RUN/points" -maxdepth 1 -name '*.json' ! -name '*.failed.json' -exec cp {} "$OUT/points/" \;
  cp "$RUN/grid.json" "$OUT/"  # the grid the records belong to: a later run in a fresh clone resumes from both
  echo "$(ls "$OUT/points" | wc -l) finished point records in $OUT/points"
  exit 0
fi
if [ -f "$OUT/grid.json" ] && [ -n "$(ls "$OUT/points")" ]; then  # resume from the committed records
  mkdir -p "$RUN/points"
  [ -f "$RUN/grid.json" ] || cp "$OUT/grid.json" "$RUN/"  # a folder `reproduce` wrote: its grid, then its points
  find "$OUT/points" -maxdepth 1 -name '*.json' ! -name '*.failed.json' -exec cp -n {} "$RUN/points/" \;
fi
$PY -m course_lib reproduce "$STUDY" --profile tiny --workers 2 --out "$RUN"
rm -rf "$OUT/points" && mkdir -p "$OUT/points"
cp "$RUN/results.csv" "$RUN/provenance.json" "$RUN/grid.json" "$OUT/"
cp "$RUN"/points/*.json "$OUT/points/"
