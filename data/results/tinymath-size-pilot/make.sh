#!/usr/bin/env bash
# The command that made this folder (run from the project root): see ../reproduce.sh
# (the sweep resumes, so a cut run is finished by running this again; the runs stay under build/studies/tinymath-size-pilot)
exec bash data/results/reproduce.sh tinymath-size-pilot
