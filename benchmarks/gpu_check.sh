#!/usr/bin/env bash
# Device check for a machine with a GPU and no network: downloads nothing (random weights, the offline stand-in).
# Usage: bash benchmarks/gpu_check.sh [--data-dir DIR] [--out FILE]   (data: --data-dir, else $COURSE_DATA_DIR,
# else ../shared/data). Writes benchmarks/results/gpu_check.json, which course_lib/research/cost.py then reads.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
timeout 420 "$PY" benchmarks/gpu_check.py "$@"
