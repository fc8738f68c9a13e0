"""What a grid point costs: generation and training hours on one GPU (an ESTIMATE until measured), and the SLURM
time and memory a job asks for.

The work is counted exactly from the grid (completions and tokens to generate, optimizer steps); time comes from
ASSUMED throughputs below, replaced by `benchmarks/gpu_check.py`'s measurements when its JSON is present
(`benchmarks/results/gpu_check.json`, or $COURSE_GPU_CHECK). `benchmarks/paper_cost.py` prints the totals.
Introduced in docs/gpu_and_clusters.md.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..errors import CourseError, check, is_number
from ..paths import REPOSITORY, env_folder, what_it_is
from ..problems import problems
from .experiment import Point, resolve, select_arm, train_config
from .profiles import get_profile, model_size_of

GPU_CHECK = REPOSITORY / "benchmarks" / "results" / "gpu_check.json"

# ASSUMPTIONS (bf16, one H100-class GPU), output tokens per second of batched generation by model size.
# vLLM: its published offline benchmarks put 7-8B models at roughly 5-12k tokens/s on an H100 under load.
# transformers generate (padded batches, no paged KV cache): assumed ~5x slower at these batch sizes.
TOKENS_PER_S = {"vllm": {"0.5B": 40_000, "1.5B": 25_000, "3B": 15_000, "4B": 12_000},
                "hf": {"0.5B": 8_000, "1.5B": 5_000, "3B": 3_000, "4B": 2_400}}
# One GRPO step is bound by decoding its longest completion at a small batch (ms per generated token):
DECODE_MS_PER_TOKEN = {"vllm": {"0.5B": 8, "1.5B": 10, "3B": 12, "4B": 14},
                       "hf": {"0.5B": 20, "1.5B": 24, "3B": 28, "4B": 30}}
TRAIN_OVERHEAD_S = 1.0  # forward/backward of the LoRA update and logging per step
MEAN_COMPLETION_SHARE = 0.7  # completions use ~70% of max_new_tokens on average (many hit the limit)
PARAMETERS_B = {"0.5B": 0.5, "1.5B": 1.5, "3B": 3.1, "4B": 4.0}  # billions, for host memory

SLURM_MARGIN = 2.0  # a job asks for twice its estimated time, plus start-up (engines, loading, merging)
SLURM_STARTUP_H = 0.5
CPU_PROFILE_LIMITS = {  # measured: the slowest tiny point took 328 s on 2 cores (data/results/*/provenance.json)
    "smoke": {"time": "00:20:00", "mem": "8G"}, "tiny": {"time": "01:00:00", "mem": "8G"}}


def measured(path: Path | None = None) -> dict:
    """gpu_check's measurements ({} when it has not been run): tokens/s and step seconds by backend and size."""
    source = "path" if path is not None else "COURSE_GPU_CHECK" if env_folder("COURSE_GPU_CHECK") else None
    path = Path(path) if path is not None else env_folder("COURSE_GPU_CHECK") or GPU_CHECK  # empty is unset
    if not path.exists():
        return {}
    named = f"{source}={str(path)!r}" if source else str(path)
    check(path.is_file(), f"{named} is {what_it_is(path)}, not gpu_check's JSON; point it at the file "
                          "benchmarks/gpu_check.py wrote (e.g. benchmarks/results/gpu_check.json), or unset it")
    try:
        numbers = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CourseError(f"{named} is not gpu_check's JSON ({error}); run benchmarks/gpu_check.py again") from None
    check(isinstance(numbers, dict), f"{named} holds no measurements (a JSON object); run benchmarks/gpu_check.py again")
    return numbers if numbers.get("device", "cpu") != "cpu" else {}  # a CPU smoke run measures nothing of a GPU


def throughput(backend: str, size: str, numbers: dict | None = None) -> tuple[float, float, str]:
    """(generation tokens/s, seconds per training step per generated token, 'measured'|'assumed') of one model size."""
    numbers = measured() if numbers is None else numbers
    if numbers.get("device", "cpu") == "cpu":  # a CPU smoke run measures nothing of a GPU
        numbers = {}
    size_numbers = numbers.get("by_size", {}).get(size, {})
    tokens = size_numbers.get(f"{backend}_tokens_per_s")
    step = size_numbers.get(f"{backend}_step_s_per_token")
    for key, value in ((f"{backend}_tokens_per_s", tokens), (f"{backend}_step_s_per_token", step)):
        check(value is None or (is_number(value) and 0 < value < math.inf),
              f"gpu_check's by_size.{size}.{key}={value!r} must be a positive number; run benchmarks/gpu_check.py "
              "again (or unset COURSE_GPU_CHECK)")
    if tokens and step:
        return tokens, step, "measured"
    return TOKENS_PER_S[backend][size], DECODE_MS_PER_TOKEN[backend][size] / 1000, "assumed"


def point_hours(point: dict, pools: dict, backend: str = "vllm", numbers: dict | None = None) -> dict:
    """Generation and training hours of one grid point (difficulty tables are shared, so counted apart)."""
    import pandas as pd

    resolved = resolve(Point.from_parameters({**point, "BACKEND": "hf"}))  # the cost model picks the backend
    size = resolved.model_size or model_size_of(resolved.model)
    check(size in TOKENS_PER_S[backend], f"no throughput for a {size} model; use a size of {', '.join(TOKENS_PER_S[backend])}")
    pool = pools[resolved.task]
    table = pd.DataFrame({"id": [p.id for p in pool], "level": [p.level for p in pool], "pass_rate": 0.5})
    config = train_config(resolved, len(select_arm(table, resolved)))
    tokens_per_s, step_per_token, source = throughput(backend, size, numbers)
    tokens = resolved.max_new_tokens * MEAN_COMPLETION_SHARE
    step_s = resolved.max_new_tokens * step_per_token + TRAIN_OVERHEAD_S
    eval_k = resolved.eval_k or get_profile(resolved.profile).eval_k  # the point's EVAL_K, as the notebook samples
    eval_completions = min(resolved.eval_problems, len(pools[(test := resolved.test_task or resolved.task) + ":test"]))
    eval_completions *= eval_k + max(eval_k, resolved.base_k)  # trained model, and the base model once per model
    ood = len(pools[resolved.ood_task + ":test"]) * resolved.ood_k * 2 if resolved.ood_task not in ("", "none") else 0
    table_s = len(pool) * resolved.difficulty_k * tokens / tokens_per_s if resolved.estimate_pool else 0.0
    return {"steps": config.max_steps, "train_h": config.max_steps * step_s / 3600,
            "eval_h": (eval_completions + ood) * tokens / tokens_per_s / 3600, "source": source, "test": test,
            "table": (resolved.model, resolved.task, table_s), "size": size}


def load_pools(points: list[dict]) -> dict:
    """The problem sets the points' cost depends on: each training pool and each held-out set."""
    pools = {}
    for point in points:
        resolved = resolve(Point.from_parameters({**point, "BACKEND": "hf"}))
        if resolved.task not in pools:
            pools[resolved.task] = problems(resolved.task, "train", resolved.pool_size or None, 0)
        for held_out in {resolved.test_task or resolved.task, resolved.ood_task} - {"", "none"}:
            if held_out + ":test" not in pools:
                pools[held_out + ":test"] = problems(held_out, "test")
    return pools


def slurm_limits(points: list[dict], profile: str, backend: str, with_tables: bool) -> dict:
    """Default --time and --mem of one SLURM job running each of these points (the slowest one decides), from the
    cost model with a margin; `with_tables`: the job also estimates the difficulty tables (the warm-up)."""
    if profile != "paper":
        return dict(CPU_PROFILE_LIMITS.get(profile, CPU_PROFILE_LIMITS["tiny"]))
    pools = load_pools(points)
    rows = [point_hours(point, pools, backend) for point in points]
    hours = max(row["train_h"] + row["eval_h"] + (row["table"][2] / 3600 if with_tables else 0) for row in rows)
    hours = hours * SLURM_MARGIN + SLURM_STARTUP_H
    # host memory: the float32 copy that merging a LoRA adapter loads on the CPU, twice over, plus 16 GB of headroom
    mem_gb = max(math.ceil(PARAMETERS_B[row["size"]] * 4 * 2 + 16) for row in rows)
    return {"time": slurm_time(hours), "mem": f"{mem_gb}G"}


def slurm_time(hours: float) -> str:
    """Hours as SLURM's D-HH:MM:SS (or HH:MM:SS), rounded up to whole minutes.

    >>> slurm_time(1.26), slurm_time(30)
    ('01:16:00', '1-06:00:00')
    """
    minutes = math.ceil(hours * 60)
    days, minutes = divmod(minutes, 24 * 60)
    text = f"{minutes // 60:02d}:{minutes % 60:02d}:00"
    return f"{days}-{text}" if days else text
