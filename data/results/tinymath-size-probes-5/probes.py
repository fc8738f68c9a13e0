"""Pretrain and measure the fifth tinymath size probes (README.md): each model's base accuracy on the size-boundary
study's own test evaluation, beside sets 1-4's calibration on training problems; one row per probe, resumable."""

import csv
import json
import os
import resource
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the probes' shared code: data/results/tinymath_probes.py
from tinymath_probes import COLUMNS, mean, probe, read_rows  # noqa: E402

from course_lib.models import read_manifest  # noqa: E402
from course_lib.provenance import atomic_write_rows, git_commit, library_versions  # noqa: E402
from course_lib.research.experiment import Point, evaluate_model, evaluation_sets, resolve  # noqa: E402

STUDY = HERE.parent / "tinymath-size-boundary"
BUILD = Path("build/tinymath-size-probes-5")
REFERENCES = ("tiny-sm-math", "tiny-m-math")  # committed models, evaluated only
PROBES = (("tiny-l", 2200), ("tiny-sm", 2400), ("tiny-m", 2400))  # pretrained, in this order
TEST = [*[f"test_l{level}" for level in range(1, 6)], "test_l13", "test_l45", "test_cpu_seconds"]
ROW = ["name", *COLUMNS[:COLUMNS.index("calibration_cpu_seconds") + 1], *TEST, "commit", "versions"]
TOLERANCE = 0.0005  # results.csv keeps four decimals


def study_point(model: str) -> Point:
    """The size-boundary study's first point with `model` as its base: its test set, K and length limit."""
    first = json.loads((STUDY / "grid.json").read_text())["points"][0]
    return resolve(Point.from_parameters({**first, "MODEL": model}))


def test_accuracy(source: str) -> dict:
    """Base accuracy per level on the study's test evaluation: the call its every point makes for its base model."""
    point = study_point(source)
    k = max(point.eval_k, point.base_k)
    start = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    found = evaluate_model(point, source, 0, evaluation_sets(point), {"test": k}, {"test": point.eval_k})["test"]
    levels = {int(level): block["accuracy"] for level, block in found["by_level"].items()}
    row = {f"test_l{level}": round(levels[level], 4) for level in range(1, 6)}
    row["test_l13"] = mean(levels[level] for level in (1, 2, 3))
    row["test_l45"] = mean(levels[level] for level in (4, 5))
    row["test_cpu_seconds"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_utime - start, 1)
    return row


def check_reference(name: str, row: dict) -> None:
    """Stop unless a committed model's row reproduces its base accuracy in the study's results.csv."""
    study = next(r for r in csv.DictReader((STUDY / "results.csv").open()) if r["model"] == name)
    for level in range(1, 6):
        theirs, ours = float(study[f"accuracy_before_by_level.test.{level}"]), row[f"test_l{level}"]
        if abs(theirs - ours) > TOLERANCE:
            sys.exit(f"{name} level {level}: {ours} here, {theirs} in the study: this is not the study's measurement")


def reference_row(name: str) -> dict:
    manifest = read_manifest(f"data/models/{name}")
    config = manifest["config"]
    return {"name": name, "size": config["size"], "steps": config["steps"], "lr": config["lr"],
            "parameters": manifest["parameters"], "final_loss": manifest["final_loss"],
            "pretrain_seconds": manifest["pretrain_seconds"], "torch_threads": manifest.get("torch_threads"),
            "sha256": manifest["sha256"]["model.safetensors"], **test_accuracy(f"data/models/{name}")}


def pair(rows: list[dict]) -> tuple[str, str] | None:
    """The README's choice rule on the test evaluation: pair A, else pair B, else None."""
    by_name = {row["name"]: row for row in rows}

    def boundary(name):
        row = by_name.get(name)
        return row is not None and float(row["test_l13"]) >= 0.30 and max(
            float(row["test_l4"]), float(row["test_l5"])) <= 0.08

    def larger(name):
        return name in by_name and float(by_name[name]["test_l45"]) >= 0.15

    for low, high in (("tiny-sm-math", "tiny-l-2200"), ("tiny-sm-2400", "tiny-m-2400")):
        if boundary(low) and larger(high):
            return low, high
    return None


def main() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    stamp = {"commit": git_commit(), "versions": " ".join(f"{n}={v}" for n, v in library_versions().items())}
    for name in REFERENCES:
        rows = read_rows(HERE)
        if not any(row["name"] == name for row in rows):
            print(f"reference {name}: the study's test evaluation", flush=True)
            row = reference_row(name)
            check_reference(name, row)
            atomic_write_rows(HERE / "probes.csv", ROW, [*rows, {**row, **stamp}])
    for size, steps in PROBES:
        rows = read_rows(HERE)
        if pair(rows):
            break
        name = f"{size}-{steps}"
        if any(row["name"] == name for row in rows):
            continue
        print(f"probe {size} at {steps} steps", flush=True)
        row = {"name": name, **probe(BUILD, size, steps), **test_accuracy(str(BUILD / name))}
        atomic_write_rows(HERE / "probes.csv", ROW, [*rows, {**row, **stamp}])
    found = pair(read_rows(HERE))
    print(f"pair: {found[0]} and {found[1]}" if found else "no pair meets the targets", flush=True)


if __name__ == "__main__":
    main()
