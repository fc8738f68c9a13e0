"""ESTIMATE (not a measurement, until gpu_check has run on a GPU) of the GPU-hours each paper study takes on one GPU.

Counts the work exactly from the studies' paper grids and the datasets' sizes (completions and tokens to generate,
optimizer steps) and converts it to time with the throughputs in `course_lib/research/cost.py`: ASSUMED ones, or those
`benchmarks/gpu_check.py` measured when benchmarks/results/gpu_check.json (from a GPU) is present. Both backends:
vLLM and transformers generate. Run: python benchmarks/paper_cost.py [--data-dir ../shared/data]
"""

import argparse
import math
import os
from collections import defaultdict

from course_lib.research.cost import load_pools, measured, point_hours
from course_lib.research.sweep import expand


def study_hours(study: str, backend: str, numbers: dict) -> dict:
    """Steps and hours of one study's paper grid on one backend (difficulty tables counted once per model and pool)."""
    points = expand(study, "paper")
    pools = load_pools(points)
    rows = [point_hours(p, pools, backend, numbers) for p in points]
    tables = {row["table"][:2]: row["table"][2] for row in rows}
    hours = defaultdict(float)
    for row in rows:
        hours["train"] += row["train_h"]
        hours["eval"] += row["eval_h"]
    hours["tables"] = sum(tables.values()) / 3600
    return {"points": len(rows), "steps": sum(r["steps"] for r in rows), **hours,
            "total": hours["tables"] + hours["train"] + hours["eval"], "source": sorted({r["source"] for r in rows})}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("COURSE_DATA_DIR", "../shared/data"))
    args = parser.parse_args()
    os.environ["COURSE_DATA_DIR"] = args.data_dir
    numbers = measured()
    where = f"measured on {numbers['device']}" if numbers else "ASSUMED throughputs (course_lib/research/cost.py)"
    print(f"ESTIMATE from {where}, one GPU:\n")
    print("| study | backend | points | optimizer steps | difficulty tables (h) | training (h) | evaluation (h) | "
          "total GPU-hours |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for study in ("hard-wins", "capacity-boundary"):
        for backend in ("vllm", "hf"):
            h = study_hours(study, backend, numbers)
            print(f"| {study} | {backend} | {h['points']} | {h['steps']:,} | {h['tables']:.1f} | {h['train']:.1f} | "
                  f"{h['eval']:.1f} | {math.ceil(h['total'])} |")


if __name__ == "__main__":
    main()
