"""Estimate SmolLM2-135M-Instruct's pass rate and format share on each cell (source and level), loading the model once.

Usage (from the project root): python data/results/smollm2-difficulty/run_cells.py OUT_FOLDER WORDS_JSONL DATA_DIR K SEED [CELL ...]
(CELL names: only those cells, e.g. to run cells in parallel processes; default: all, in order).
Each cell's table goes to OUT_FOLDER/cells/NAME.csv with NAME.csv.provenance.json (command, commit, versions, cost),
as `python -m course_lib estimate` writes them. Resumable: a written cell is skipped, and every problem's samples
are cached as they finish (8 problems per chunk), so a killed run loses at most one batched call's work.
"""

import json
import shlex
import sys
from pathlib import Path

from course_lib.difficulty import estimate
from course_lib.models import load_model
from course_lib.problems import pool_spec, problems
from course_lib.provenance import atomic_write_texts, git_commit, library_versions

MODEL = "smollm2-135m"
# name, task, split, levels, problems, new tokens; cheapest and most telling first
CELLS = [("words-1", "words", "all", (1,), 32, 64), ("words-2", "words", "all", (2,), 32, 64),
         ("gsm8k", "gsm8k", "test", None, 16, 160), ("math-1", "math", "test", (1,), 16, 128),
         ("bbh-3", "bbh", "test", (3,), 16, 128), ("math-2", "math", "test", (2,), 16, 128),
         ("math-3", "math", "test", (3,), 16, 128), ("bbh-5", "bbh", "test", (5,), 16, 128),
         ("math-4", "math", "test", (4,), 16, 128), ("bbh-7", "bbh", "test", (7,), 16, 128),
         ("math-5", "math", "test", (5,), 16, 128)]
PROBLEMS_PER_CALL = 8  # 8 problems x K = 4 samples: one batched `generate` call of 32 (benchmarks/bench_smollm2.py)


def main() -> None:
    out, words, data_dir, k, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    wanted = sys.argv[6:] or [cell[0] for cell in CELLS]
    model, tokenizer = load_model(MODEL)
    for name, task, split, levels, n, max_new_tokens in CELLS:
        table_path = Path(out) / "cells" / f"{name}.csv"
        if table_path.exists() or name not in wanted:
            continue
        task = f"jsonl:{words}" if task == "words" else task
        spec = pool_spec(task, split, n, seed, levels, None if task.startswith("jsonl:") else data_dir)
        table = estimate(model, tokenizer, problems(**spec), k=k, temperature=1.0, max_new_tokens=max_new_tokens,
                         seed=seed, chunk_size=PROBLEMS_PER_CALL, progress=False)
        provenance = {"command": shlex.join(["python", *sys.argv]), "cell": name, "max_new_tokens": max_new_tokens,
                      "commit": git_commit(), "versions": library_versions(), "pool": spec, "model": MODEL,
                      "cost": table.attrs["cost"]}
        atomic_write_texts({table_path: table.to_csv(index=False),
                            Path(f"{table_path}.provenance.json"): json.dumps(provenance, indent=2) + "\n"})
        print(f"{name}: pass rate {table.pass_rate.mean():.3f}, format share {table.format_share.mean():.3f}, "
              f"{table.attrs['cost']['sampling_seconds']} s", flush=True)


if __name__ == "__main__":
    main()
