"""outcome.md from probes.csv: every probe's pass rates by level and subject, each against the README's targets."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the probes' shared code: data/results/tinymath_probes.py
from probes import ORDER  # noqa: E402
from tinymath_probes import write_outcome  # noqa: E402

if __name__ == "__main__":
    write_outcome(HERE, "tinymath size probes, fourth set", ORDER)
