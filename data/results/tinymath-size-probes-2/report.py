"""outcome.md from probes.csv: every probe's pass rates by level and subject, each against the README's targets."""

from __future__ import annotations

import csv
from pathlib import Path

from course_lib.provenance import atomic_write_text

HERE = Path(__file__).resolve().parent
SUBJECTS = ("arithmetic", "fractions", "expressions", "equations")
SIZES = ("tiny-s", "tiny-sm", "tiny-m", "tiny-l")


def boundary_met(row: dict) -> bool:
    """The boundary size's target: levels 1-3 mean >= 0.30, levels 4 and 5 each <= 0.08."""
    return float(row["tinymath_l13"]) >= 0.30 and max(float(row["tinymath_l4"]), float(row["tinymath_l5"])) <= 0.08


def larger_met(row: dict) -> bool:
    """The larger size's target: levels 4-5 mean >= 0.15."""
    return float(row["tinymath_l45"]) >= 0.15


def rate(value: str) -> str:
    return f"{float(value):.2f}"


def table(rows: list[dict]) -> list[str]:
    lines = ["| probe | final loss | levels 1 2 3 4 5 | 1-3 | 4-5 | boundary target | larger target | arith 1-5 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        levels = " ".join(f"{float(row[f'tinymath_l{level}']):.3f}" for level in range(1, 6))  # as the targets read
        arith = " ".join(rate(row[f"arith_l{level}"]) for level in range(1, 6))
        lines.append(f"| {row['size']} x {row['steps']} | {float(row['final_loss']):.3f} | {levels} | "
                     f"{float(row['tinymath_l13']):.3f} | {float(row['tinymath_l45']):.3f} | "
                     f"{'met' if boundary_met(row) else 'missed'} | {'met' if larger_met(row) else 'missed'} | {arith} |")
    return lines


def subjects(rows: list[dict]) -> list[str]:
    lines = ["| probe | " + " | ".join(f"{subject} 1-5" for subject in SUBJECTS) + " |",
             "| --- |" + " --- |" * len(SUBJECTS)]
    for row in rows:
        cells = [" ".join(rate(row[f"{subject}_l{level}"]) for level in range(1, 6)) for subject in SUBJECTS]
        lines.append(f"| {row['size']} x {row['steps']} | " + " | ".join(cells) + " |")
    return lines


def pairs(rows: list[dict]) -> list[str]:
    """The README's choice rule, rung by rung."""
    lines = []
    for steps in sorted({int(row["steps"]) for row in rows}):
        rung = {row["size"]: row for row in rows if int(row["steps"]) == steps}
        boundary = [size for size in SIZES if size in rung and boundary_met(rung[size])]
        chosen = max(boundary, key=lambda size: float(rung[size]["tinymath_l13"])) if boundary else None
        larger = [size for size in SIZES[SIZES.index(chosen) + 1:] if size in rung and larger_met(rung[size])] \
            if chosen else []
        missing = [size for size in SIZES if size not in rung]
        said = (f"pair: {chosen} (boundary) and {larger[0]} (larger)" if larger else
                f"no pair: {chosen} meets the boundary target, no larger size meets its own" if chosen else
                "no pair: no size meets the boundary target")
        lines.append(f"- {steps} steps: {said}" + (f" (not yet probed: {', '.join(missing)})" if missing else ""))
    return lines


def main() -> None:
    rows = list(csv.DictReader((HERE / "probes.csv").open()))
    text = ["# tinymath size probes, second set: outcome", "",
            "Made by `report.py` from `probes.csv` (pass rates over 500 training problems, 100 per level, K=8, 96 new",
            "tokens; per subject 25 problems per level). Targets and choice rule: README.md.", "",
            *table(rows), "", "By subject:", "", *subjects(rows), "", "The choice rule:", "", *pairs(rows), ""]
    atomic_write_text(HERE / "outcome.md", "\n".join(text))


if __name__ == "__main__":
    main()
