"""Pretrain and calibrate the format-limited probes (README.md); one row per probe in probes.csv, resumable."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from course_lib.models import read_manifest
from course_lib.problems import problems as problem_source
from course_lib.provenance import atomic_write_rows, git_commit, library_versions
from course_lib.research.calibration import pass_rates
from course_lib.training import load_trained

HERE = Path(__file__).resolve().parent
BUILD = Path("build/format-limited-probes")
SHARES = (0.8, 0.9)
LIMITS = (96, 224)  # new tokens: the tiny profile's limit (the regime), and room for the long way (the skill)
CALIBRATION = {"n": 500, "k": 8, "seed": 0, "temperature": 1.0}
COLUMNS = ["wordy_share", "parameters", "final_loss", "pretrain_seconds", "torch_threads", "sha256",
           *[f"at{limit}_l{level}" for limit in LIMITS for level in range(1, 6)],
           *[f"at{limit}_l35" for limit in LIMITS], "commit", "versions"]


def read_rows() -> list[dict]:
    path = HERE / "probes.csv"
    return list(csv.DictReader(path.open())) if path.exists() else []


def write_rows(rows: list[dict]) -> None:
    atomic_write_rows(HERE / "probes.csv", COLUMNS, rows)


def probe(share: float) -> dict:
    out = BUILD / f"tiny-l-wordy-{share}"
    if not (out / "manifest.json").exists():
        subprocess.run([sys.executable, "-m", "course_lib", "pretrain", "--size", "tiny-l", "--steps", "800",
                        "--batch-size", "64", "--lr", "0.002", "--seed", "0", "--wordy-share", str(share),
                        "--out", str(out), "--quiet"], check=True)
    manifest = read_manifest(str(out))
    model, tokenizer = load_trained(str(out))
    row = {"wordy_share": share, "parameters": manifest["parameters"], "final_loss": manifest["final_loss"],
           "pretrain_seconds": manifest["pretrain_seconds"], "torch_threads": manifest.get("torch_threads"),
           "sha256": manifest["sha256"]["model.safetensors"]}
    problems = problem_source("arith", "train", CALIBRATION["n"], CALIBRATION["seed"])
    for limit in LIMITS:
        rates = pass_rates(model, tokenizer, problems, CALIBRATION["k"], CALIBRATION["temperature"], limit,
                           CALIBRATION["seed"])
        by_level = {level: [r for p, r in zip(problems, rates) if p.level == level] for level in range(1, 6)}
        row.update({f"at{limit}_l{level}": round(sum(v) / len(v), 4) for level, v in by_level.items()})
        upper = [r for level in (3, 4, 5) for r in by_level[level]]
        row[f"at{limit}_l35"] = round(sum(upper) / len(upper), 4)
    row["commit"] = git_commit()
    row["versions"] = " ".join(f"{name}={version}" for name, version in library_versions().items())
    return row


def meets_targets(row: dict) -> bool:
    """The README's targets: format-limited at 96 tokens, strong at 224."""
    return float(row["at96_l35"]) <= 0.15 and float(row["at224_l35"]) >= 0.60


def main() -> None:
    for share in SHARES:
        rows = read_rows()
        row = next((r for r in rows if float(r["wordy_share"]) == share), None)
        if row is None:
            print(f"probe wordy share {share}", flush=True)
            row = probe(share)
            write_rows([*rows, row])
        print(f"share {share}: {'meets the targets' if meets_targets(row) else 'misses the targets'}", flush=True)
        if meets_targets(row):
            return


if __name__ == "__main__":
    main()
