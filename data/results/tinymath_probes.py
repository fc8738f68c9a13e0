"""The tinymath size probes' shared code (each set's probes.py and report.py name only its own ladder and order):
pretrain a size on `arith` + `tinymath`, calibrate it, apply the choice rule, write outcome.md.

Targets and choice rule (the issue's, fixed before the first set): a boundary size solves tinymath's levels 1-3
at least 0.30 of the time and levels 4 and 5 each at most 0.08; a larger size, same steps, solves levels 4-5 at
least 0.15; the pair is the boundary size with the highest levels 1-3 mean and the smallest larger size."""

from __future__ import annotations

import csv
import os
import resource
import subprocess
import sys
from pathlib import Path

from course_lib.models import read_manifest
from course_lib.problems import problems as problem_source
from course_lib.provenance import atomic_write_rows, atomic_write_text, git_commit, library_versions
from course_lib.research.calibration import pass_rates
from course_lib.training import load_trained

SIZES = ("tiny-s", "tiny-sm", "tiny-m", "tiny-l")  # smallest first, for the choice rule
LR = {"tiny-s": 0.003, "tiny-sm": 0.003, "tiny-m": 0.003, "tiny-l": 0.002}
CALIBRATION = {"n": 500, "k": 8, "seed": 0, "temperature": 1.0, "max_new_tokens": 96}
SUBJECTS = ("arithmetic", "fractions", "expressions", "equations")
COLUMNS = ["size", "steps", "lr", "parameters", "final_loss", "pretrain_seconds", "torch_threads", "sha256",
           *[f"tinymath_l{level}" for level in range(1, 6)], "tinymath_l13", "tinymath_l45",
           *[f"{subject}_l{level}" for subject in SUBJECTS for level in range(1, 6)],
           *[f"arith_l{level}" for level in range(1, 6)], "calibration_cpu_seconds", "commit", "versions"]


def read_rows(folder: Path) -> list[dict]:
    path = folder / "probes.csv"
    return list(csv.DictReader(path.open())) if path.exists() else []


def mean(values) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4)


def rates_by(problems, rates, key) -> dict:
    groups: dict = {}
    for problem, rate in zip(problems, rates):
        groups.setdefault(key(problem), []).append(rate)
    return {name: mean(group) for name, group in groups.items()}


def probe(build: Path, size: str, steps: int) -> dict:
    """Pretrain one size (skipped when its model is already built) and calibrate it on tinymath and arith."""
    out = build / f"{size}-{steps}"
    if not (out / "manifest.json").exists():
        subprocess.run([sys.executable, "-m", "course_lib", "pretrain", "--size", size, "--steps", str(steps),
                        "--batch-size", "64", "--lr", str(LR[size]), "--seed", "0", "--tasks", "arith,tinymath",
                        "--out", str(out), "--quiet"], check=True)
    manifest = read_manifest(str(out))
    model, tokenizer = load_trained(str(out))
    start = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    row = {"size": size, "steps": steps, "lr": LR[size], "parameters": manifest["parameters"],
           "final_loss": manifest["final_loss"], "pretrain_seconds": manifest["pretrain_seconds"],
           "torch_threads": manifest.get("torch_threads"), "sha256": manifest["sha256"]["model.safetensors"]}
    settings = {key: CALIBRATION[key] for key in ("k", "temperature", "max_new_tokens", "seed")}
    for task in ("tinymath", "arith"):
        problems = problem_source(task, "train", CALIBRATION["n"], CALIBRATION["seed"])
        rates = pass_rates(model, tokenizer, problems, **settings)
        by_level = rates_by(problems, rates, lambda p: p.level)
        row.update({f"{task}_l{level}": by_level[level] for level in range(1, 6)})
        if task == "tinymath":
            row["tinymath_l13"] = mean(by_level[level] for level in (1, 2, 3))
            row["tinymath_l45"] = mean(by_level[level] for level in (4, 5))
            cells = rates_by(problems, rates, lambda p: (p.subject, p.level))
            row.update({f"{subject}_l{level}": cells[(subject, level)] for subject in SUBJECTS
                        for level in range(1, 6)})
    row["calibration_cpu_seconds"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_utime - start, 1)
    row["commit"] = git_commit()
    row["versions"] = " ".join(f"{name}={version}" for name, version in library_versions().items())
    return row


def boundary_met(row: dict) -> bool:
    """The boundary size's target: levels 1-3 mean >= 0.30, levels 4 and 5 each <= 0.08."""
    return float(row["tinymath_l13"]) >= 0.30 and max(float(row["tinymath_l4"]), float(row["tinymath_l5"])) <= 0.08


def larger_met(row: dict) -> bool:
    """The larger size's target: levels 4-5 mean >= 0.15."""
    return float(row["tinymath_l45"]) >= 0.15


def choice(rows: list[dict], steps: int) -> tuple[str | None, str | None]:
    """The choice rule at one rung: (boundary size or None, the smallest larger size meeting its target or None)."""
    rung = {row["size"]: row for row in rows if int(row["steps"]) == steps}
    boundary = [size for size in SIZES if size in rung and boundary_met(rung[size])]
    if not boundary:
        return None, None
    chosen = max(boundary, key=lambda size: float(rung[size]["tinymath_l13"]))
    larger = [size for size in SIZES[SIZES.index(chosen) + 1:] if size in rung and larger_met(rung[size])]
    return chosen, larger[0] if larger else None


def run_ladder(folder: Path, build: Path, ladder: tuple, order: tuple, stop_at_pair: bool = False) -> None:
    """Probe each size of `order` at each rung of `ladder` (a probe with a row is skipped), stopping at the first
    rung with a pair (`stop_at_pair`: at the first probe that makes one)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    for steps in ladder:
        for size in order:
            rows = read_rows(folder)
            if stop_at_pair and choice(rows, steps)[1]:
                break
            if any(row["size"] == size and int(row["steps"]) == steps for row in rows):
                continue
            print(f"probe {size} at {steps} steps", flush=True)
            atomic_write_rows(folder / "probes.csv", COLUMNS, [*rows, probe(build, size, steps)])
        boundary, larger = choice(read_rows(folder), steps)
        print(f"rung {steps}: {f'pair {boundary} and {larger}' if larger else 'no pair meets the targets'}",
              flush=True)
        if larger:
            return


def rate(value: str) -> str:
    return f"{float(value):.2f}"


def level_table(rows: list[dict]) -> list[str]:
    lines = ["| probe | final loss | levels 1 2 3 4 5 | 1-3 | 4-5 | boundary target | larger target | arith 1-5 |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        levels = " ".join(f"{float(row[f'tinymath_l{level}']):.3f}" for level in range(1, 6))  # as the targets read
        arith = " ".join(rate(row[f"arith_l{level}"]) for level in range(1, 6))
        lines.append(f"| {row['size']} x {row['steps']} | {float(row['final_loss']):.3f} | {levels} | "
                     f"{float(row['tinymath_l13']):.3f} | {float(row['tinymath_l45']):.3f} | "
                     f"{'met' if boundary_met(row) else 'missed'} | {'met' if larger_met(row) else 'missed'} | {arith} |")
    return lines


def subject_table(rows: list[dict]) -> list[str]:
    lines = ["| probe | " + " | ".join(f"{subject} 1-5" for subject in SUBJECTS) + " |",
             "| --- |" + " --- |" * len(SUBJECTS)]
    for row in rows:
        cells = [" ".join(rate(row[f"{subject}_l{level}"]) for level in range(1, 6)) for subject in SUBJECTS]
        lines.append(f"| {row['size']} x {row['steps']} | " + " | ".join(cells) + " |")
    return lines


def rule_lines(rows: list[dict], order: tuple) -> list[str]:
    """The choice rule, rung by rung, naming the sizes of `order` not yet probed."""
    lines = []
    for steps in sorted({int(row["steps"]) for row in rows}):
        boundary, larger = choice(rows, steps)
        missing = [size for size in order if not any(r["size"] == size and int(r["steps"]) == steps for r in rows)]
        said = (f"pair: {boundary} (boundary) and {larger} (larger)" if larger else
                f"no pair: {boundary} meets the boundary target, no larger size meets its own" if boundary else
                "no pair: no size meets the boundary target")
        unprobed = "not probed, as the probes stop at the first pair" if larger else "not yet probed"
        lines.append(f"- {steps} steps: {said}" + (f" ({unprobed}: {', '.join(missing)})" if missing else ""))
    return lines


def write_outcome(folder: Path, title: str, order: tuple) -> None:
    """outcome.md from probes.csv: every probe's pass rates by level and subject, each against the targets."""
    rows = read_rows(folder)
    text = [f"# {title}: outcome", "",
            "Made by `report.py` from `probes.csv` (pass rates over 500 training problems, 100 per level, K=8, 96 new",
            "tokens; per subject 25 problems per level). Targets and choice rule: README.md.", "",
            *level_table(rows), "", "By subject:", "", *subject_table(rows), "", "The choice rule:", "",
            *rule_lines(rows, order), ""]
    atomic_write_text(folder / "outcome.md", "\n".join(text))
