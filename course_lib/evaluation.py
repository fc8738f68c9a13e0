"""Evaluation: accuracy per level with intervals over problems, pass@k, and paired bootstrap comparisons.

Introduced in notebooks/00_tiny_world_tour.ipynb (`evaluate`, `compare`); used again in 04 and 04b.
"""

from __future__ import annotations

import collections
import json
from math import comb
from numbers import Integral
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import t as student_t

from .answers import grader_fingerprint
from .difficulty import DEFAULT_CACHE, estimate, wilson_bounds, wilson_interval
from .errors import CourseError, check, warn
from .models import load_tokenizer, resolve_model_path
from .paths import what_it_is
from .problems import problem_fingerprint
from .prompts import DEFAULT_NEW_TOKENS, pool_answer_format, prompts_fingerprint
from .provenance import SEAL, seal_broken


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples with c correct (Chen et al. 2021): 1 - C(n-c, k) / C(n, k).

    >>> pass_at_k(8, 0, 1), pass_at_k(8, 8, 4), round(pass_at_k(8, 2, 4), 4)
    (0.0, 1.0, 0.7857)
    """
    whole = [f"{name}={value!r}" for name, value in (("n", n), ("c", c), ("k", k))
             if isinstance(value, bool) or not isinstance(value, Integral)]
    check(not whole, f"{', '.join(whole)} must be whole numbers (counts of samples)")
    check(1 <= k <= n, f"k={k} must be between 1 and the number of samples n={n}")
    check(0 <= c <= n, f"c={c} must be a count of right samples from 0 to n={n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def interval_over_problems(hits, samples) -> tuple[float, float]:
    """A 95% interval for sum(hits) / sum(samples) with the problem as the unit (04): a t-interval of the ratio, whose
    error counts how much problems differ as well as the luck of their samples, widened to the Wilson interval over
    samples where that is wider. With one problem, or every problem scoring alike, the spread between problems is
    unseen: the interval is then Wilson's over the problems (n = their number), not over their samples.

    >>> interval_over_problems([8, 0, 8, 0], [8, 8, 8, 8])  # two solved, two never: 32 samples say little
    (0.0, 1.0)
    >>> [round(b, 3) for b in interval_over_problems([4, 4, 4, 4], [8, 8, 8, 8])]  # alike: Wilson over 4 problems
    [0.15, 0.85]
    """
    hits, samples = np.asarray(hits, dtype=float), np.asarray(samples, dtype=float)
    problems, share = len(samples), hits.sum() / samples.sum()
    rates = hits / samples
    if problems < 2 or np.ptp(rates) == 0:
        return wilson_bounds(float(share), problems)
    low, high = wilson_interval(int(round(hits.sum())), int(samples.sum()))
    error = np.sqrt(problems / (problems - 1) * ((hits - share * samples) ** 2).sum()) / samples.sum()
    half = float(student_t.ppf(0.975, problems - 1)) * error
    return max(0.0, float(min(low, share - half))), min(1.0, float(max(high, share + half)))


def summarize_accuracy(table: pd.DataFrame, pass_k: tuple = (1,)) -> dict:
    """Overall and per-level accuracy (mean pass rate) with 95% intervals over problems, and pass@k (A2)."""
    missing = {"level", "k", "n_correct"} - set(getattr(table, "columns", ()))
    check(isinstance(table, pd.DataFrame) and not missing and len(table) > 0,
          f"table must be a non-empty DataFrame of per-problem rows (level, k, n_correct), as `estimate` returns"
          f"{f'; it lacks {sorted(missing)}' if isinstance(table, pd.DataFrame) and missing else ''}")

    def block(rows: pd.DataFrame) -> dict:
        n, correct = int(rows["k"].sum()), int(rows["n_correct"].sum())
        low, high = interval_over_problems(rows["n_correct"], rows["k"])
        out = {"accuracy": round(correct / n, 4), "ci_low": round(low, 4), "ci_high": round(high, 4),
               "problems": len(rows), **completion_shape(rows)}
        if "format_share" in rows and rows["format_share"].notna().all():  # share of samples answering in format
            formatted = (rows["format_share"] * rows["k"]).round()
            low, high = interval_over_problems(formatted, rows["k"])
            out.update(format_share=round(float(formatted.sum()) / n, 4), format_ci_low=round(low, 4),
                       format_ci_high=round(high, 4))
        for k in pass_k:
            if k <= int(rows["k"].min()):
                out[f"pass@{k}"] = round(float(np.mean([pass_at_k(int(r.k), int(r.n_correct), k)
                                                        for r in rows.itertuples()])), 4)
        return out

    levelled = table["level"].notna()
    by_level = {str(int(level)): block(rows) for level, rows in table[levelled].groupby("level")}
    if levelled.any() and not levelled.all():  # MATH's `Level ?` rows, a jsonl file with some levels
        warn(f"{int((~levelled).sum())} of {len(table)} problems have no level: the per-level accuracies "
             "leave them out, the overall one counts them")
    return {"overall": block(table), "by_level": by_level}


def completion_shape(rows: pd.DataFrame) -> dict:
    """Mean completion length (tokens) and the share of completions cut off at the length limit, over all samples."""
    if "mean_length" not in rows or "clipped" not in rows:
        return {}
    samples = rows["k"].sum()
    return {"mean_length": round(float((rows["mean_length"] * rows["k"]).sum() / samples), 2),
            "truncated_share": round(float(rows["clipped"].sum() / samples), 4)}


def evaluate(model, tokenizer, problems, k: int = 4, temperature: float = 1.0, max_new_tokens: int = DEFAULT_NEW_TOKENS,
             seed: int = 0, pass_k: tuple = (1,), progress: bool = True, cache_dir=DEFAULT_CACHE,
             backend: str = "hf") -> dict:
    """Sample k completions per problem and report accuracy per level, pass@k and the per-problem table (00)."""
    table = estimate(model, tokenizer, problems, k, temperature, max_new_tokens, seed, cache_dir=cache_dir,
                     progress=progress, backend=backend, description=f"evaluating (K={k})")
    rows = table[["id", "level", "k", "n_correct", "pass_rate", "mean_length", "clipped", "format_share"]]
    fingerprints = {p.id: problem_fingerprint(p) for p in problems}
    return {**summarize_accuracy(table, pass_k), "k": k, "temperature": temperature, "seed": seed,
            "max_new_tokens": max_new_tokens, "answer_format": pool_answer_format(problems), "grader": grader_fingerprint(),
            "prompts": prompts_fingerprint(),
            "per_problem": [{**row, "problem_sha256": fingerprints[row["id"]]} for row in rows.to_dict("records")]}


def model_for_backend(run_or_model: str, backend: str = "hf"):
    """(model, tokenizer) to sample from: loaded weights for "hf"; for "vllm" a folder vLLM loads itself (a run's
    LoRA adapter merged into its base and saved once, as `merged/`), so no second copy sits on the GPU."""
    from .training import load_trained, merged_folder

    if backend == "hf":
        return load_trained(run_or_model)
    if (Path(run_or_model) / "final").exists():
        folder = merged_folder(run_or_model)
    else:  # a course model's name is its folder here (vLLM would look for it on the hub); a hub id stays one
        folder = resolve_model_path(run_or_model) or run_or_model
    return str(folder), load_tokenizer(str(folder))


MAX_BOOT = 100_000  # bootstrap resamples at most: more changes no interval's printed digits and fills memory
MIN_BOOT = 1_000  # at least: with a few dozen, a 2.5% tail is one or two resamples (an interval that can exclude 0,
# and even the measured gain, by chance)


def paired_bootstrap(after, before, n_boot: int = 5000, seed: int = 0, confidence: float = 0.95) -> dict:
    """Mean paired difference (after - before) over the same problems, with a percentile bootstrap interval (A2)."""
    check(isinstance(n_boot, int | np.integer) and not isinstance(n_boot, bool) and MIN_BOOT <= n_boot <= MAX_BOOT,
          f"n_boot={n_boot!r} must be an integer from {MIN_BOOT:,} to {MAX_BOOT:,} (5000 resamples are usual; fewer "
          "leave an interval's tails to a handful of resamples)")
    check(isinstance(confidence, float) and 0 < confidence < 1,
          f"confidence={confidence!r} must be a share in (0, 1), e.g. 0.95 for a 95% interval")
    if isinstance(after, pd.Series) and isinstance(before, pd.Series):  # paired by label, not by position
        check(set(after.index) == set(before.index) and after.index.is_unique and before.index.is_unique,
              "after and before are Series over different problems; give both over the same index (problem ids)")
        before = before.reindex(after.index)
    after, before = np.asarray(after, dtype=float), np.asarray(before, dtype=float)
    check(after.shape == before.shape and after.ndim == 1 and len(after) >= 2,
          f"after and before must be equal-length lists of per-problem scores (got {after.shape} and {before.shape})")
    check(np.isfinite(after).all() and np.isfinite(before).all(), "after and before must be finite scores (no NaN)")
    diffs = after - before
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), size=(n_boot, len(diffs)))].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return {"mean_difference": round(float(diffs.mean()), 4), "ci_low": round(float(low), 4),
            "ci_high": round(float(high), 4), "problems": len(diffs), "excludes_zero": bool(low > 0 or high < 0)}


def check_same_questions(after: dict, before: dict) -> None:
    """Each id names the same question in both evaluations (each row's `problem_sha256`, where both recorded it):
    two copies of a dataset give ids (line numbers) to other questions, or the same question another answer."""
    before_sha = {row["id"]: row.get("problem_sha256") for row in before["per_problem"]}
    for row in after["per_problem"]:
        mine, theirs = row.get("problem_sha256"), before_sha.get(row["id"])
        check(mine is None or theirs is None or mine == theirs,
              f"problem {row['id']!r} is another question (or answer) in after than in before: the two evaluations "
              "read different copies of the data (--data-dir, COURSE_DATA_DIR) or versions of the file; evaluate "
              "both on one copy")


def check_same_levels(after: dict, before: dict) -> None:
    """A problem has one level in both evaluations (a level edited in one would move it in the per-level table)."""
    before_levels = {row["id"]: row.get("level") for row in before["per_problem"]}
    for row in after["per_problem"]:
        level, was = row.get("level"), before_levels.get(row["id"], row.get("level"))
        check(level == was, f"problem {row['id']!r} has level {level!r} in after but {was!r} in before: one of the "
                            "files was edited, or the two read different copies of the data (--data-dir, "
                            "COURSE_DATA_DIR); evaluate both on one copy")


COMPARED_SETTINGS = ("task", "split", "k", "temperature", "max_new_tokens", "answer_format")  # two evaluations share


def check_same_settings(after: dict, before: dict, settings: tuple = COMPARED_SETTINGS) -> None:
    """Two evaluations compare only when sampled alike: the same task, split, K, temperature, length limit, answer
    format and problem file's bytes (a setting an older file does not record is not checked). `compare` lets K
    differ (a pass rate estimates the same p at any K; a study samples its shared base model more); the command
    line's compare does not."""
    files = [result.get("pool", {}).get("file_sha256") if isinstance(result.get("pool"), dict) else None
             for result in (after, before)]
    for setting in settings:
        if setting == "task" and None not in files and files[0] == files[1]:
            continue  # one problem file's bytes, read at two paths (a copy): the same problems
        if setting in after and setting in before:
            check(after[setting] == before[setting],
                  f"after and before were evaluated with different {setting} ({after[setting]!r} against "
                  f"{before[setting]!r}); evaluate both models with the same settings")
    check(None in files or files[0] == files[1],
          "after and before read different versions of the problem file (its sha256 changed between the two "
          "evaluations: a problem's text or answer may differ under the same id); evaluate both on one version")
    for key, what in (("grader", "graded by different answer-checking code (course_lib/answers.py or math-verify"),
                      ("prompts", "prompted by different prompt-writing code (course_lib/prompts.py")):
        values = [result.get(key) for result in (after, before)]  # older files record none: not checked
        check(None in values or values[0] == values[1],
              f"after and before were {what} changed between the two evaluations: {key} {values[0]} against "
              f"{values[1]}), so their difference would include that change; evaluate both with one version of the "
              "course")


def read_evaluation(path, name: str = "evaluation") -> dict:
    """An `evaluate` JSON file, checked: it exists, parses, has sound per-problem rows (`rows_fault`) and was not
    edited after it was written (04)."""
    path = Path(path)
    fix = f"write it with `python -m course_lib evaluate ... --out {path}`"
    if not path.is_file():
        raise CourseError(f"{name}={path} {f'is {what_it_is(path)}' if path.exists() else 'does not exist'}; {fix}")
    try:
        result = json.loads(path.read_text(encoding="utf-8-sig"))  # a byte-order mark (an editor's) is no JSON
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CourseError(f"{name}={path} is not valid JSON ({type(error).__name__}); {fix}") from None
    fault = rows_fault(result)
    if fault:
        raise CourseError(f"{name}={path}{fault}; {fix}")
    check(not seal_broken(path), f"{name}={path} was changed after the command that wrote it (its {SEAL} no longer "
          f"matches); {fix} again, or delete its {SEAL} line if the edit is yours on purpose")
    return result


def read_gain(path, name: str = "gain") -> dict:
    """A `compare` JSON file, checked: a finite gain inside its own interval, not edited after it was written (04)."""
    path = Path(path)
    fix = f"write it with `python -m course_lib compare ... --out {path}`"
    try:
        result = json.loads(path.read_text(encoding="utf-8-sig"))  # a byte-order mark (an editor's) is no JSON
    except (OSError, ValueError) as error:
        raise CourseError(f"{name}={path} cannot be read as JSON ({type(error).__name__}); {fix}") from None
    values = [result.get(key) if isinstance(result, dict) else None for key in ("ci_low", "mean_difference", "ci_high")]
    check(all(isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) for v in values)
          and values == sorted(values),
          f"{name}={path} holds no gain inside its interval (ci_low <= mean_difference <= ci_high); {fix}")
    check(not seal_broken(path), f"{name}={path} was changed after the command that wrote it (its {SEAL} no longer "
          f"matches); {fix} again")
    return result


def rows_fault(result: dict) -> str | None:
    """What makes an `evaluate` result's per-problem rows unsound (a problem listed twice, counts that disagree with
    the pass rate or the file's K), worded to follow its name; None when they are sound (04)."""
    rows = result.get("per_problem") if isinstance(result, dict) else None
    if not isinstance(rows, list) or not rows or not all(
            isinstance(r, dict) and {"id", "k", "n_correct", "pass_rate"} <= set(r) for r in rows):
        return " has no per_problem rows (id, k, n_correct, pass_rate)"
    ids = [str(row["id"]) for row in rows]
    twice = sorted(i for i, times in collections.Counter(ids).items() if times > 1)
    if twice:
        return f" lists problem {twice[0]!r} more than once (it would count twice)"
    changed = "the file was changed after `evaluate` wrote it"
    for row in rows:
        k, n_correct = row["k"], row["n_correct"]
        consistent = (isinstance(k, int) and isinstance(n_correct, int) and not isinstance(k, bool)
                      and not isinstance(n_correct, bool) and 0 <= n_correct <= k and k >= 1
                      and isinstance(row["pass_rate"], int | float) and abs(row["pass_rate"] - n_correct / k) < 1e-9)
        if not consistent:
            return (f": problem {row['id']!r} has pass_rate {row['pass_rate']!r} but {n_correct!r} of {k!r} correct; "
                    f"{changed}")
        if "k" in result and k != result["k"]:
            return f": problem {row['id']!r} was sampled {k!r} times but the file says k={result['k']!r}; {changed}"
    return None


def compare(after: dict, before: dict, n_boot: int = 5000, seed: int = 0, pass_k: int | None = None) -> dict:
    """Paired bootstrap of two `evaluate` results (matched by id); pass@1, or pass@`pass_k` (00)."""
    check(pass_k is None or (isinstance(pass_k, int | np.integer) and not isinstance(pass_k, bool) and pass_k >= 1),
          f"pass_k={pass_k!r} must be a whole number of samples >= 1 (or None: pass@1)")

    def score(row) -> float:
        rate = row["pass_rate"]
        check(isinstance(rate, int | float) and not isinstance(rate, bool) and 0 <= rate <= 1,
              f"problem {row['id']!r} has pass_rate={rate!r}, not a number in [0, 1]; evaluate that model again")
        if pass_k is None:
            return rate
        check(pass_k <= int(row["k"]), f"pass_k={pass_k} needs at least {pass_k} samples per problem; problem "
                                       f"{row['id']!r} has {row['k']}: evaluate with more, or ask for a smaller pass_k")
        return pass_at_k(int(row["k"]), int(row["n_correct"]), pass_k)

    for name, result in (("after", after), ("before", before)):
        check(isinstance(result, dict) and isinstance(result.get("per_problem"), list),
              f"{name} must be what `evaluate` returns (a dict with per_problem rows), not {type(result).__name__}; "
              "read a saved one with json.load (the command line's compare takes the files' paths)")
        fault = rows_fault(result)
        check(fault is None, f"{name}{fault}; evaluate that model again")
    before_by_id = {row["id"]: score(row) for row in before["per_problem"]}
    ids = [row["id"] for row in after["per_problem"]]
    only_after, only_before = sorted(set(ids) - set(before_by_id)), sorted(set(before_by_id) - set(ids))
    check(not only_after and not only_before,
          f"the two evaluations are not on the same problems ({len(only_after)} only in after, e.g. "
          f"{only_after[:1]}; {len(only_before)} only in before, e.g. {only_before[:1]}); evaluate both on one set")
    check_same_settings(after, before, tuple(s for s in COMPARED_SETTINGS if s != "k"))  # first: another answer
    # format also makes each question another one
    check_same_questions(after, before)
    check_same_levels(after, before)
    after_by_id = {row["id"]: score(row) for row in after["per_problem"]}
    return paired_bootstrap([after_by_id[i] for i in ids], [before_by_id[i] for i in ids], n_boot, seed)
