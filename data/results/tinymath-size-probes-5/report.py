"""outcome.md from probes.csv: each model's base accuracy per level on the study's test evaluation (and, for a new
probe, on training problems as sets 1-4 measured it), against the README's targets and choice rule."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the probes' shared code: data/results/tinymath_probes.py
from probes import PROBES, pair  # noqa: E402
from tinymath_probes import read_rows  # noqa: E402

from course_lib.provenance import atomic_write_text  # noqa: E402


def levels(row: dict, prefix: str) -> str:
    if not row.get(f"{prefix}_l1"):
        return "(set 4)"
    return " ".join(f"{float(row[f'{prefix}_l{level}']):.3f}" for level in range(1, 6))


def main() -> None:
    rows = read_rows(HERE)
    lines = ["# tinymath size probes, fifth set: outcome", "",
             "Made by `report.py` from `probes.csv`. Test: the size-boundary study's base evaluation (300 test problems,",
             "60 per level, K=64, seed 0). Train: sets 1-4's calibration (500 training problems, K=8, 96 new tokens).",
             "Targets and choice rule: README.md.", "",
             "| model | size x steps | test levels 1 2 3 4 5 | test 1-3 | test 4-5 | train levels 1 2 3 4 5 | sha256 |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        lines.append(f"| {row['name']} | {row['size']} x {row['steps']} | {levels(row, 'test')} | "
                     f"{float(row['test_l13']):.3f} | {float(row['test_l45']):.3f} | {levels(row, 'tinymath')} | "
                     f"{row['sha256'][:12]} |")
    found = pair(rows)
    unprobed = [f"{size}-{steps}" for size, steps in PROBES if not any(r["name"] == f"{size}-{steps}" for r in rows)]
    said = f"pair {found[0]} (boundary) and {found[1]} (larger)" if found else "no pair"
    if unprobed:
        said += f" ({'not probed, as the probes stop at the first pair' if found else 'not yet probed'}: " + \
                ", ".join(unprobed) + ")"
    lines += ["", f"The choice rule: {said}.", ""]
    atomic_write_text(HERE / "outcome.md", "\n".join(lines))


if __name__ == "__main__":
    main()
