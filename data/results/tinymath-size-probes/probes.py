"""Pretrain and calibrate the tinymath size probes (README.md); one row per probe in probes.csv, resumable.

Made at commit 4d633cb (self-contained there); tinymath's levels 4-5 changed after it, so a rerun belongs there."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the probes' shared code: data/results/tinymath_probes.py
from tinymath_probes import SIZES, run_ladder  # noqa: E402

LADDER = (800, 2400)
ORDER = SIZES  # smallest first

if __name__ == "__main__":
    run_ladder(HERE, Path("build/tinymath-size-probes"), LADDER, ORDER)
