#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
exec bash data/results/reproduce.sh hard-wins-paper-steps
