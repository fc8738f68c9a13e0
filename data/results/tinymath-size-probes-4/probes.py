"""Pretrain and calibrate the fourth tinymath size probes (README.md); one row per probe in probes.csv, resumable."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the probes' shared code: data/results/tinymath_probes.py
from tinymath_probes import run_ladder  # noqa: E402

LADDER = (2200,)
ORDER = ("tiny-sm", "tiny-m")  # the two sizes of this set, in this order (README.md)

if __name__ == "__main__":
    run_ladder(HERE, Path("build/tinymath-size-probes-4"), LADDER, ORDER, stop_at_pair=True)
