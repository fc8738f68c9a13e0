"""One row per cell (source and level) from the cells' tables: pass rate and format share with Wilson intervals,
completion length and cost per problem. Usage: python data/results/smollm2-difficulty/summarize.py FOLDER"""

import json
import sys
from pathlib import Path

import pandas as pd

from course_lib.difficulty import read_table
from course_lib.evaluation import summarize_accuracy
from course_lib.provenance import atomic_write_text

ORDER = ["words-1", "words-2", "gsm8k", "bbh-3", "bbh-5", "bbh-7", "math-1", "math-2", "math-3", "math-4", "math-5"]


def the_level(table) -> int | None:
    """The cell's one level, or None where its problems differ (GSM8K's levels are its solutions' step counts)."""
    levels = set(table["level"].dropna().astype(int))
    return levels.pop() if len(levels) == 1 else None


def cell_row(path: Path) -> dict:
    """The summary of one cell's table and its provenance."""
    table = read_table(path)
    provenance = json.loads(Path(f"{path}.provenance.json").read_text())
    overall = summarize_accuracy(table)["overall"]
    cost, samples = provenance["cost"], int(table["k"].sum())
    return {"cell": path.stem, "task": provenance["pool"]["task"].split("/")[-1], "level": the_level(table),
            "problems": len(table), "k": int(table["k"].iloc[0]), "pass_rate": overall["accuracy"],
            "ci_low": overall["ci_low"], "ci_high": overall["ci_high"], "format_share": overall["format_share"],
            "format_ci_low": overall["format_ci_low"], "format_ci_high": overall["format_ci_high"],
            "mean_length": round(float(table["mean_length"].mean()), 1),
            "clipped_share": round(cost["clipped_completions"] / samples, 3),
            "max_new_tokens": provenance["max_new_tokens"],
            "seconds_per_problem": round(cost["sampling_seconds"] / len(table), 1),
            "tokens_per_second": round(cost["generated_tokens"] / cost["sampling_seconds"], 1)}


def main() -> None:
    folder = Path(sys.argv[1])
    paths = sorted((folder / "cells").glob("*.csv"), key=lambda p: ORDER.index(p.stem) if p.stem in ORDER else 99)
    rows = pd.DataFrame([cell_row(path) for path in paths]).astype({"level": "Int64"})  # empty where levels differ
    first = json.loads(Path(f"{paths[0]}.provenance.json").read_text())
    commits = sorted({json.loads(Path(f"{p}.provenance.json").read_text())["commit"] for p in paths})
    atomic_write_text(folder / "summary.csv", rows.to_csv(index=False))
    atomic_write_text(folder / "provenance.json", json.dumps(
        {"command": "bash data/results/smollm2-difficulty/make.sh", "commits": commits, "versions": first["versions"],
         "seed": int(first["pool"]["seed"]), "cells": len(rows)}, indent=2) + "\n")
    print(rows.to_string(index=False))


if __name__ == "__main__":
    main()
