"""How competent is a tiny model? Pass rates per level at K samples, written into its manifest.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import json
import shlex
import time

from ..difficulty import check_k, estimate
from ..models import resolve_model_path
from ..problems import problems as problem_source
from ..prompts import DEFAULT_NEW_TOKENS
from ..provenance import atomic_write_text
from ..sampling import check_sampling_args
from ..training import load_trained

CALIBRATION_CHUNK = 64  # prompts per generate call; the committed calibrations were sampled in chunks of 64


def pass_rates(model, tokenizer, problems, k, temperature, max_new_tokens, seed, progress=False) -> list[float]:
    """Each problem's share of correct completions among k samples (prompts as in every other stage) (00)."""
    table = estimate(model, tokenizer, problems, k, temperature, max_new_tokens, seed, chunk_size=CALIBRATION_CHUNK,
                     cache_dir=None, progress=progress)
    return [float(rate) for rate in table["pass_rate"]]


def summarize(problems, rates, k) -> dict:
    """Mean pass rate per level and the shares of problems with p = 0, 0 < p < 1 and p = 1 (00)."""
    levels = sorted({p.level for p in problems}, key=lambda level: (level is None, level))
    by_level = {
        str(level): round(sum(r for p, r in zip(problems, rates) if p.level == level)
                          / sum(p.level == level for p in problems), 4)
        for level in levels
    }
    n = len(rates)
    return {
        "n_problems": n,
        "k": k,
        "mean_pass_rate": round(sum(rates) / n, 4),
        "pass_rate_by_level": by_level,
        "share_p0": round(sum(r == 0 for r in rates) / n, 4),
        "share_mixed": round(sum(0 < r < 1 for r in rates) / n, 4),
        "share_p1": round(sum(r == 1 for r in rates) / n, 4),
    }


def calibrate_command(name, task, n, k, temperature, max_new_tokens, seed, data_dir) -> str:
    """The command line that measures the same report again (every setting that changes it)."""
    words = ["python", "-m", "course_lib", "calibrate", "--model", str(name), "--task", task, "--n", str(n),
             "--k", str(k), "--seed", str(seed), "--temperature", f"{temperature:g}",
             "--max-new-tokens", str(max_new_tokens)]
    return shlex.join(words + (["--data-dir", str(data_dir)] if data_dir is not None else []))


def calibrate(name: str, task: str = "arith", n: int = 500, k: int = 8, temperature: float = 1.0,
              max_new_tokens: int = DEFAULT_NEW_TOKENS, seed: int = 0, progress: bool = False, data_dir=None) -> dict:
    """Measure a model on `n` training problems of `task` at K samples; returns the report."""
    k = check_k(k)
    check_sampling_args(k, temperature, max_new_tokens)
    problems = problem_source(task, "train", n, seed, data_dir=data_dir)
    model, tokenizer = load_trained(name)  # a run folder (its trained model) or any model name
    start = time.time()
    rates = pass_rates(model, tokenizer, problems, k, temperature, max_new_tokens, seed, progress)
    report = summarize(problems, rates, k)
    report.update(task=task, temperature=temperature, max_new_tokens=max_new_tokens, seed=seed,
                  seconds=round(time.time() - start, 1),
                  command=calibrate_command(name, task, n, k, temperature, max_new_tokens, seed, data_dir))
    return report


def write_calibration(name: str, report: dict, targets: dict) -> dict:
    """Store a calibration report and its checked targets in the model's manifest."""
    path = resolve_model_path(name) / "manifest.json"
    manifest = json.loads(path.read_text())
    calibration = manifest.get("calibration") or {}
    calibration[report["task"]] = {**report, "targets": targets}
    manifest["calibration"] = calibration
    atomic_write_text(path, json.dumps(manifest, indent=2) + "\n")
    return manifest


TARGETED_SIZES = ("tiny-s", "tiny-sm", "tiny-m", "tiny-l")  # the tiny models with calibration targets on arith


def missing_levels(report: dict) -> list[str]:
    """The arith levels (1-5) a report measured no problem of: the targets need every one (02)."""
    return [str(level) for level in range(1, 6) if str(level) not in report["pass_rate_by_level"]]


def check_targets(name: str, report: dict) -> dict:
    """The course's calibration targets for this model, each with its measured value and verdict."""
    levels = report["pass_rate_by_level"]
    top = levels.get("5")
    targets = {}
    size = name if name in TARGETED_SIZES else None
    if report["task"] != "arith" or size is None or missing_levels(report):
        return targets
    if size == "tiny-m":
        rates = [levels[str(level)] for level in range(1, 6)]
        targets["share_mixed >= 0.40"] = {"value": report["share_mixed"], "met": report["share_mixed"] >= 0.40}
        targets["pass rate falls from level 1 to level 5"] = {
            "value": rates, "met": all(a >= b for a, b in zip(rates, rates[1:])) and rates[0] > rates[-1]}
    if size == "tiny-s":
        targets["level 5 pass rate <= 0.05"] = {"value": top, "met": top <= 0.05}
    if size == "tiny-sm":  # a boundary inside the training levels: the shortest chains sometimes, the longest not
        targets["level 1 pass rate >= 0.10"] = {"value": levels["1"], "met": levels["1"] >= 0.10}
        targets["levels 4-5 pass rate <= 0.05"] = {"value": [levels["4"], top], "met": max(levels["4"], top) <= 0.05}
    if size == "tiny-l":
        targets["level 5 pass rate >= 0.15"] = {"value": top, "met": top >= 0.15}
    return targets
