#!/usr/bin/env bash
# The command that made this folder (run from the project root; resumable: a probe with a row is skipped).
# One torch thread: the weights' bytes depend on the thread count.
# Made at commit 4d633cb; tinymath's levels 4-5 changed after it, so run this there (git worktree add DIR 4d633cb):
# at a later commit its one missing probe would calibrate on another task.
set -euo pipefail
export OMP_NUM_THREADS=1
"${PY:-python}" data/results/tinymath-size-probes/probes.py
"${PY:-python}" data/results/tinymath-size-probes/report.py
