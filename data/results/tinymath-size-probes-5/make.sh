#!/usr/bin/env bash
# The command that made this folder (run from the project root; resumable: a probe with a row is skipped).
# One torch thread: the weights' bytes depend on the thread count.
set -euo pipefail
export OMP_NUM_THREADS=1
"${PY:-.venv/bin/python}" data/results/tinymath-size-probes-5/probes.py
"${PY:-.venv/bin/python}" data/results/tinymath-size-probes-5/report.py
