"""ESTIMATE (not a measurement) of the GPU-hours each paper study takes on one H100/H200.

Counts the work exactly from the studies' paper grids and the datasets' sizes (completions and tokens to
generate, optimizer steps), then converts it to time with ASSUMED throughputs taken from vLLM's and TRL's
published numbers (listed below). Replace these with `benchmarks/gpu_check.sh`'s measurements when a GPU
run has made them. Run: python benchmarks/paper_cost.py [--data-dir ../shared/data]
"""

import argparse
import math
import os
from collections import defaultdict

from course_lib.experiment import Point, resolve, select_arm, train_config
from course_lib.problems import problems
from course_lib.profiles import get_profile, model_size_of
from course_lib.sweep import expand

# ASSUMPTIONS (bf16, one H100-class GPU). Batched offline vLLM generation, output tokens per second, by
# model size (vLLM's published benchmarks put 7-8B models at roughly 5-12k tokens/s on an H100 under load):
VLLM_TOKENS_PER_S = {"0.5B": 40_000, "1.5B": 25_000, "3B": 15_000, "4B": 12_000}
# One GRPO step with TRL + colocated vLLM is bound by decoding its longest completion at a small batch:
DECODE_MS_PER_TOKEN = {"0.5B": 8, "1.5B": 10, "3B": 12, "4B": 14}
TRAIN_OVERHEAD_S = 1.0  # forward/backward of the LoRA update and logging per step
MEAN_COMPLETION_SHARE = 0.7  # completions use ~70% of max_new_tokens on average (many hit the limit)


def point_hours(point: dict, pools: dict) -> dict:
    """Generation and training hours of one grid point (difficulty tables are shared, so counted apart)."""
    resolved = resolve(Point.from_parameters(point))
    size = model_size_of(resolved.model)
    pool = pools[resolved.task]
    table = _fake_table(pool)
    n_selected = len(select_arm(table, resolved))
    config = train_config(resolved, n_selected)
    profile = get_profile(resolved.profile)
    tokens = resolved.max_new_tokens * MEAN_COMPLETION_SHARE
    step_s = resolved.max_new_tokens * DECODE_MS_PER_TOKEN[size] / 1000 + TRAIN_OVERHEAD_S
    eval_completions = min(resolved.eval_problems, len(pools[resolved.task + ":test"])) * profile.eval_k * 2
    ood = len(pools[resolved.ood_task + ":test"]) * resolved.ood_k if resolved.ood_task else 0
    eval_s = (eval_completions + ood) * tokens / VLLM_TOKENS_PER_S[size]
    return {"steps": config.steps, "train_h": config.steps * step_s / 3600, "eval_h": eval_s / 3600,
            "table": (resolved.model, resolved.task, len(pool) * resolved.difficulty_k * tokens / VLLM_TOKENS_PER_S[size])}


def _fake_table(pool):
    """A difficulty table with the pool's ids and levels (selection sizes do not depend on pass rates)."""
    import pandas as pd

    return pd.DataFrame({"id": [p.id for p in pool], "level": [p.level for p in pool], "pass_rate": 0.5})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("COURSE_DATA_DIR", "../shared/data"))
    args = parser.parse_args()
    os.environ["COURSE_DATA_DIR"] = args.data_dir
    pools = {}
    for task in ("gsm8k", "bbh", "math"):
        pools[task] = problems(task, "train")
        pools[task + ":test"] = problems(task, "test")
    pools["aime2025:test"] = problems("aime2025", "test")
    pools["math-numeric:test"] = problems("math-numeric", "test")
    print("ESTIMATE from assumed throughputs (see the top of this file), one H100-class GPU:\n")
    print("| study | points | optimizer steps | difficulty tables (h) | training (h) | evaluation (h) | total GPU-hours |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for study in ("hard-wins", "capacity-boundary"):
        rows = [point_hours(p, pools) for p in expand(study, "paper")]
        tables = {row["table"][:2]: row["table"][2] for row in rows}
        hours = defaultdict(float)
        for row in rows:
            hours["train"] += row["train_h"]
            hours["eval"] += row["eval_h"]
        table_h = sum(tables.values()) / 3600
        total = table_h + hours["train"] + hours["eval"]
        print(f"| {study} | {len(rows)} | {sum(r['steps'] for r in rows):,} | {table_h:.1f} | {hours['train']:.1f} | "
              f"{hours['eval']:.1f} | {math.ceil(total)} |")


if __name__ == "__main__":
    main()
