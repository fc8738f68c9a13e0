#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/regimes-hard-wins-long)
# The arms' selected sets are those of ../regimes-hard-wins (same pool, K=8 labels, budget and seeds), so the pools'
# difficulty tables are not estimated again: read ../regimes-hard-wins/pools.
set -euo pipefail
bash data/results/reproduce.sh regimes-hard-wins-long
