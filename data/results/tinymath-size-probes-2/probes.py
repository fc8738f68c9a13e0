"""Pretrain and calibrate the second tinymath size probes (README.md); one row per probe in probes.csv, resumable."""

from __future__ import annotations

import csv
import os
import resource
import subprocess
import sys
from pathlib import Path

from course_lib.models import read_manifest
from course_lib.problems import problems as problem_source
from course_lib.provenance import atomic_write_rows, git_commit, library_versions
from course_lib.research.calibration import pass_rates
from course_lib.training import load_trained

HERE = Path(__file__).resolve().parent
BUILD = Path("build/tinymath-size-probes-2")
LADDER = (2400,)
SIZES = ("tiny-s", "tiny-sm", "tiny-m", "tiny-l")  # by size, for the choice rule
ORDER = ("tiny-sm", "tiny-m", "tiny-s", "tiny-l")  # the order the probes run in (README)
LR = {"tiny-s": 0.003, "tiny-sm": 0.003, "tiny-m": 0.003, "tiny-l": 0.002}
CALIBRATION = {"n": 500, "k": 8, "seed": 0, "temperature": 1.0, "max_new_tokens": 96}
SUBJECTS = ("arithmetic", "fractions", "expressions", "equations")
COLUMNS = ["size", "steps", "lr", "parameters", "final_loss", "pretrain_seconds", "torch_threads", "sha256",
           *[f"tinymath_l{level}" for level in range(1, 6)], "tinymath_l13", "tinymath_l45",
           *[f"{subject}_l{level}" for subject in SUBJECTS for level in range(1, 6)],
           *[f"arith_l{level}" for level in range(1, 6)], "calibration_cpu_seconds", "commit", "versions"]


def read_rows() -> list[dict]:
    path = HERE / "probes.csv"
    return list(csv.DictReader(path.open())) if path.exists() else []


def write_rows(rows: list[dict]) -> None:
    atomic_write_rows(HERE / "probes.csv", COLUMNS, rows)


def mean(values) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4)


def rates_by(problems, rates, key) -> dict:
    groups: dict = {}
    for problem, rate in zip(problems, rates):
        groups.setdefault(key(problem), []).append(rate)
    return {name: mean(group) for name, group in groups.items()}


def probe(size: str, steps: int) -> dict:
    out = BUILD / f"{size}-{steps}"
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


def pair(rows: list[dict], steps: int):
    """The README's choice rule: (boundary size, larger size) at this rung, or None."""
    rung = {row["size"]: row for row in rows if int(row["steps"]) == steps}
    boundary = [size for size in SIZES if size in rung and float(rung[size]["tinymath_l13"]) >= 0.30
                and max(float(rung[size]["tinymath_l4"]), float(rung[size]["tinymath_l5"])) <= 0.08]
    if not boundary:
        return None
    chosen = max(boundary, key=lambda size: float(rung[size]["tinymath_l13"]))
    larger = [size for size in SIZES[SIZES.index(chosen) + 1:] if size in rung
              and float(rung[size]["tinymath_l45"]) >= 0.15]
    return (chosen, larger[0]) if larger else None


def main() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    for steps in LADDER:
        for size in ORDER:
            rows = read_rows()
            if any(row["size"] == size and int(row["steps"]) == steps for row in rows):
                continue
            print(f"probe {size} at {steps} steps", flush=True)
            write_rows([*rows, probe(size, steps)])
        found = pair(read_rows(), steps)
        print(f"rung {steps}: {'pair ' + ' and '.join(found) if found else 'no pair meets the targets'}", flush=True)
        if found:
            return


if __name__ == "__main__":
    main()
