#!/usr/bin/env bash
# The command that made this folder (run from the project root; resumable: a probe with a row is skipped).
# One torch thread: the weights' bytes depend on the thread count.
set -euo pipefail
export OMP_NUM_THREADS=1
"${PY:-python}" data/results/tinymath-size-probes-4/probes.py
"${PY:-python}" data/results/tinymath-size-probes-4/report.py
