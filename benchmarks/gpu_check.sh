#!/usr/bin/env bash
# CUDA check for a machine with a GPU and no network: installs nothing that downloads weights.
# Usage: bash benchmarks/gpu_check.sh   (uses .venv if present, else the current python; GPU_CHECK_ALLOW_CPU=1 on CPU)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1
timeout 540 "$PY" benchmarks/gpu_check.py
