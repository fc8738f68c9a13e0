"""Difficulty as the base model's pass rate over K samples, cached on disk and resumable.

Introduced in notebooks/01_difficulty_estimation.ipynb.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from numbers import Integral
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from .answers import MISSING_MARKS, grader_fingerprint, in_format, is_correct
from .classroom.runtime import progress_bar
from .errors import CourseError, check, warn, whole
from .models import SETTINGS_FILES, load_model
from .models.folders import sample_sha256
from .paths import what_it_is
from .problems import problems, problems_fingerprint
from .prompts import DEFAULT_NEW_TOKENS, answer_format_of
from .provenance import atomic_write_text, env_folder, read_csv_strictly
from .sampling import (
    _sample_vllm,
    check_greedy_k,
    check_sampling_args,
    checked_prompt_ids,
    chunk_seed,
    sample_chunk,
    stop_token_ids,
)
from .tasks import check_problem_list

TABLE_COLUMNS = ["id", "level", "source", "k", "n_correct", "pass_rate", "ci_low", "ci_high", "mean_length", "clipped",
                 "outcomes", "format_share"]  # clipped: completions that hit the length limit
DEFAULT_CACHE = "default"  # resolved at call time: $COURSE_CACHE_DIR, else ~/.cache/course_lib/difficulty


def cache_folder(cache_dir) -> Path | None:
    """Where estimates are cached: None (no cache), a folder, or the default folder; a file is a clear error."""
    if cache_dir != DEFAULT_CACHE:
        folder, name = (Path(cache_dir) if cache_dir else None), "cache_dir"
    else:
        folder, name = env_folder("COURSE_CACHE_DIR") or Path.home() / ".cache" / "course_lib" / "difficulty", \
            "COURSE_CACHE_DIR"
    check(folder is None or not folder.exists() or folder.is_dir(),
          f"{name}={folder} is a file; give a folder for the cache" + (" or unset it" if name.isupper() else ""))
    return folder


def wilson_interval(n_correct: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion, 95% by default (01).

    >>> [round(x, 3) for x in wilson_interval(4, 8)]
    [0.215, 0.785]
    """
    whole = all(isinstance(x, int | float | np.number) and not isinstance(x, bool)
                and (isinstance(x, Integral) or math.isfinite(x) and float(x).is_integer()) for x in (n_correct, n))
    check(whole, f"n_correct={n_correct!r} and n={n!r} must be whole numbers (counts of samples)")
    check(1 <= n <= 10**15, f"n={n} must be from 1 to 10**15 samples")
    check(0 <= n_correct <= n, f"n_correct={n_correct} must be from 0 to n={n} (right answers among n samples)")
    check(isinstance(z, int | float | np.number) and not isinstance(z, bool) and 0 < z < math.inf,
          f"z={z!r} must be a positive, finite number (1.96 for a 95% interval)")
    return wilson_bounds(n_correct / n, n, z)


def wilson_bounds(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson interval's bounds for an observed share of n units (`wilson_interval` checks the counts first)."""
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def check_k(k) -> int:
    """K samples per problem, a whole number of at least 2 (a pass rate from one sample cannot show variance), as a
    Python int (numpy's integers too: a K read from an array)."""
    check(isinstance(k, Integral) and not isinstance(k, bool), f"k={k!r} must be a whole number of samples, e.g. 8")
    check(k >= 2, f"k={k!r} must be >= 2: a pass rate from one sample cannot show variance")
    return int(k)


FULL_HASH_LIMIT = 16_000_000  # models with fewer parameters have every weight hashed; larger ones are sampled


def model_fingerprint(model) -> str:
    """The weights part of the cache key: every weight of a small model; names, shapes, exact sums and a strided
    sample of a large one (no gigabytes hashed per call); file names, sizes and headers for a model folder. The
    weights' dtype counts too: the same numbers sampled in bfloat16 and in float32 give different completions."""
    if isinstance(model, str | Path):
        return _files_fingerprint(model)
    state = model.state_dict()
    small = sum(t.numel() for t in state.values()) < FULL_HASH_LIMIT
    digest = hashlib.sha256(_settings_text(model).encode())  # an edited config or stop token changes the samples
    for name, tensor in sorted(state.items()):
        digest.update(f"{name}{tensor.dtype}".encode())
        flat = tensor.detach().reshape(-1)
        if not small:
            digest.update(f"{tuple(tensor.shape)}{float(flat.sum(dtype=torch.float64))!r}".encode())
            flat = flat[:: max(1, flat.numel() // 4096)]
        digest.update(flat.to("cpu", torch.float32).numpy().tobytes())
    return digest.hexdigest()


VOLATILE_SETTINGS = ("_name_or_path", "transformers_version", "_commit_hash")  # where and by which version, not what


def _settings_text(model) -> str:
    """A loaded model's config and generation config as JSON (its architecture and its stop tokens)."""
    settings = []
    for config in (getattr(model, "config", None), getattr(model, "generation_config", None)):
        values = config.to_dict() if config is not None else {}
        settings.append({key: value for key, value in values.items() if key not in VOLATILE_SETTINGS})
    return json.dumps(settings, sort_keys=True, default=str)


def _files_fingerprint(model) -> str:
    """A model folder's weight files (names, sizes, modification times, and a sample of each tensor's bytes:
    `sample_sha256`) and its settings files (config, generation config, tokenizer, chat template: bytes), or a hub
    id's name."""
    folder = Path(model)
    if not folder.is_dir():
        return hashlib.sha256(f"hub:{model}".encode()).hexdigest()
    digest = hashlib.sha256()
    for name in SETTINGS_FILES:
        digest.update((folder / name).read_bytes() if (folder / name).is_file() else b"-")
    for path in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin")):
        stat = path.stat()
        digest.update(f"{path.name}/{stat.st_size}/{stat.st_mtime_ns}/{sample_sha256(path)}".encode())
    return digest.hexdigest()


def cache_key(model, problems, settings: dict) -> str:
    """One key for (weights, problems, sampling settings, grader): change any and the cache misses."""
    parts = [model_fingerprint(model), problems_fingerprint(problems), json.dumps(settings, sort_keys=True),
             grader_fingerprint()]
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:24]


def _generate(model, tokenizer, id_lists, k, temperature, max_new_tokens, seed, backend) -> list[list[str]]:
    """k completions per prompt (token id lists) with the chosen backend."""
    if backend == "vllm":
        return _sample_vllm(model, id_lists, k, temperature, max_new_tokens, seed, stop_token_ids(model, tokenizer))
    return sample_chunk(model, tokenizer, id_lists, k, temperature, max_new_tokens, seed)


def _score_chunk(model, tokenizer, problems, id_lists, k, temperature, max_new_tokens, seed, backend="hf") -> list[dict]:
    """Sample one chunk (its prompts as token ids) and grade it: a row per problem (without the interval)."""
    groups = _generate(model, tokenizer, id_lists, k, temperature, max_new_tokens, seed, backend)
    rows = []
    for problem, group in zip(problems, groups):
        outcomes = "".join("1" if is_correct(c, problem.answer, problem.source, problem.answer_format) else "0"
                           for c in group)
        correct = outcomes.count("1")
        formatted = sum(in_format(c, answer_format_of(problem)) for c in group)  # answers the reward can find
        lengths = [len(tokenizer(c, add_special_tokens=False)["input_ids"]) for c in group]
        rows.append({"id": problem.id, "level": problem.level, "source": problem.source, "k": k,
                     "n_correct": correct, "pass_rate": correct / k, "mean_length": sum(lengths) / k,
                     "tokens": sum(lengths), "clipped": sum(n >= max_new_tokens for n in lengths),
                     "outcomes": outcomes, "formatted": formatted})
    return rows


def estimate(model, tokenizer, problems, k: int = 8, temperature: float = 1.0, max_new_tokens: int = DEFAULT_NEW_TOKENS,
             seed: int = 0, chunk_size: int = 32, cache_dir=DEFAULT_CACHE, progress: bool = True,
             backend: str = "hf", description: str | None = None) -> pd.DataFrame:
    """Pass rate of every problem over k samples; cached by content, resumable chunk by chunk (01).

    The returned table's `attrs["cost"]` holds generated tokens, completions, clipped completions and wall seconds.
    A cached chunk that fails `read_chunk`'s checks (JSON, rows, ids, k, outcomes, checksum) is sampled again.
    With backend="vllm", `model` is a model folder or hub id (vLLM loads it; see `course_lib.sampling`).
    """
    k = check_k(k)
    check_sampling_args(k, temperature, max_new_tokens, backend)
    check_greedy_k(k, temperature)
    check_problem_list(problems)
    id_lists = checked_prompt_ids(model, tokenizer, problems, max_new_tokens)  # once: for the cache key and sampling
    settings = {"k": k, "temperature": temperature, "max_new_tokens": max_new_tokens, "seed": seed,
                "chunk_size": chunk_size, "backend": backend,
                "prompts": hashlib.sha256(json.dumps(id_lists).encode()).hexdigest()}
    root = cache_folder(cache_dir)
    folder = root / cache_key(model, problems, settings) if root else None
    start, rows, sampling_seconds = time.time(), [], 0.0
    chunks = range(0, len(problems), chunk_size)
    for index, first in enumerate(progress_bar(chunks, desc=description or f"estimating pass rates (K={k})", disable=not progress)):
        part = folder / f"chunk-{index:05d}.json" if folder else None
        chunk_problems = problems[first : first + chunk_size]
        cached = read_chunk(part, chunk_problems, k) if part is not None and part.exists() else None
        if cached is not None:
            rows += cached[0]
            sampling_seconds += cached[1]
            continue
        chunk_start = time.time()
        chunk_rows = _score_chunk(model, tokenizer, chunk_problems, id_lists[first : first + chunk_size], k,
                                  temperature, max_new_tokens, chunk_seed(seed, index), backend)
        seconds = time.time() - chunk_start
        sampling_seconds += seconds
        if part is not None:
            atomic_write_text(part, json.dumps({"rows": chunk_rows, "seconds": seconds, "key": folder.name,
                                                "sha256": rows_checksum(chunk_rows)}))
        rows += chunk_rows
    return _to_table(rows, k, sampling_seconds if folder else None, time.time() - start)


ROW_TYPES = {"id": str, "level": (int, type(None)), "source": str, "k": int, "n_correct": int,
             "pass_rate": (int, float), "mean_length": (int, float), "tokens": int, "clipped": int, "outcomes": str,
             "formatted": int}  # a chunk cached before format share was recorded lacks `formatted`: sampled again


def rows_checksum(rows: list[dict]) -> str:
    """sha256 of a chunk's rows as canonical JSON (sorted keys, no spaces), stored beside them."""
    return hashlib.sha256(json.dumps(rows, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


NO_KEY = "it records no cache key (written by an older course_lib)"  # sampled again without a warning: not a fault


def chunk_problem(data, problems, k, key: str | None = None) -> str | None:
    """What is wrong with a cached chunk's parsed JSON for these problems at k samples (and, given its folder's
    cache `key`, whether it was made under that key: a chunk moved in from another model's folder is not this one's);
    None when it is sound."""
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        return "not an object with a 'rows' list"
    rows = data["rows"]
    if not _finite_at_least_0(data.get("seconds")):
        return "no number 'seconds'"
    if key is not None and "key" not in data:
        return NO_KEY
    if key is not None and data["key"] != key:
        return f"it was made under another cache key ({data['key']!r}: another model, settings or seed), not {key!r}"
    if data.get("sha256") != rows_checksum(rows):
        return "its checksum does not match its rows (edited, or written by an older course_lib)"
    ids = [row.get("id") if isinstance(row, dict) else None for row in rows]
    if ids != [p.id for p in problems]:
        return f"its ids {ids[:3]}... are not this chunk's problems {[p.id for p in problems][:3]}..."
    for row, problem in zip(rows, problems):
        for key, kinds in ROW_TYPES.items():
            if key not in row or not isinstance(row[key], kinds) or isinstance(row[key], bool):
                return f"row {problem.id!r}: {key!r} is missing or not {kinds}"
        outcomes = row["outcomes"]
        if row["k"] != k or len(outcomes) != k or set(outcomes) - {"0", "1"}:
            return f"row {problem.id!r}: k={row['k']} and outcomes {outcomes!r} are not {k} samples of 0/1"
        if row["n_correct"] != outcomes.count("1") or row["pass_rate"] != row["n_correct"] / k:
            return f"row {problem.id!r}: n_correct and pass_rate disagree with outcomes {outcomes!r}"
        for count in ("formatted", "clipped"):
            if not 0 <= row[count] <= k:
                return f"row {problem.id!r}: {count}={row[count]!r} is not a count of 0..{k} completions"
        if row["tokens"] < 0 or not _finite_at_least_0(row["mean_length"]) or row["mean_length"] != row["tokens"] / k:
            return f"row {problem.id!r}: tokens={row['tokens']!r} and mean_length={row['mean_length']!r} disagree"
        if (row["level"], row["source"]) != (problem.level, problem.source):
            return f"row {problem.id!r}: level or source differs from the problem's"
    return None


def _finite_at_least_0(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def read_chunk(path: Path, problems, k) -> tuple[list[dict], float] | None:
    """A cached chunk's (rows, seconds) when it is sound for these problems and was made under its folder's cache key;
    else None, with a warning naming it."""
    try:
        data = json.loads(Path(path).read_text())
        fault = chunk_problem(data, problems, k, key=Path(path).parent.name)
    except (OSError, UnicodeDecodeError, ValueError) as error:
        fault = f"unreadable ({type(error).__name__}: {error})"
    if fault is None:
        return data["rows"], float(data["seconds"])
    if fault == NO_KEY:  # a cache from before chunks recorded their key: sampled again once, nothing is wrong
        return None
    warn(f"cached chunk {path} is not valid ({fault}); sampling it again")
    return None


def check_pass_rates(table: pd.DataFrame, min_problems: int = 50, max_zero_share: float = 0.95,
                     override: str = "check_pass_rates=False") -> None:
    """Stop before training when almost every pass rate is 0: that is nearly always a prompt or format mismatch.
    `override` names the caller's own way to go on anyway (the CLI's `--allow-zero`)."""
    zero_share = float((table["pass_rate"] == 0).mean())
    check(len(table) < min_problems or zero_share <= max_zero_share,
          f"{zero_share:.0%} of {len(table)} problems have pass rate 0: the model almost never writes an answer the "
          "reward accepts; check the prompt and answer format (course_lib.prompts.prompt_text shows the prompt) "
          f"and max_new_tokens before training, or pass {override} if the task is truly that hard")


def _to_table(rows, k, chunk_seconds, seconds) -> pd.DataFrame:
    """Rows -> the difficulty table, with Wilson intervals and the cost in `attrs` (chunk_seconds: cached ones too)."""
    table = pd.DataFrame(rows)
    intervals = [wilson_interval(n, k) for n in table["n_correct"]]
    table["ci_low"] = [round(low, 4) for low, _ in intervals]
    table["ci_high"] = [round(high, 4) for _, high in intervals]
    table["mean_length"] = table["mean_length"].round(2)
    table["format_share"] = (table["formatted"] / table["k"]).round(4)  # share of completions with an answer in format
    chunk_seconds = seconds if chunk_seconds is None else chunk_seconds
    table.attrs["cost"] = {"completions": int(len(table) * k), "generated_tokens": int(table["tokens"].sum()),
                           "clipped_completions": int(table["clipped"].sum()) if "clipped" in table else None,
                           "sampling_seconds": round(chunk_seconds, 2), "wall_seconds": round(seconds, 2)}
    return table[TABLE_COLUMNS]


def difficulty_tables(profile, seed: int = 0, device=None, progress: bool = True) -> dict:
    """model name -> difficulty table of the profile's pool, for each of the profile's models (03, the explorer app)."""
    pool = problems(profile.task, "train", profile.n_problems, seed)
    tables = {}
    for name in profile.models:
        model, tokenizer = load_model(name, device=device)
        tables[name] = estimate(model, tokenizer, pool, k=profile.k, temperature=profile.temperature,
                                max_new_tokens=profile.max_new_tokens, seed=seed, progress=progress)
        del model
    return tables


ALL_SAMPLES_COLUMNS = ("mean_length", "clipped", "format_share")  # over every sample: no first-k value in the table


def pass_rates_at(table: pd.DataFrame, k: int) -> pd.DataFrame:
    """The table as if only the first k samples had been drawn, from its `outcomes` column (01, 03).

    The columns measured over all K samples (lengths, truncations, format) are left out, since the table cannot give
    their first-k values."""
    check(isinstance(table, pd.DataFrame), f"table must be a pandas DataFrame, not {type(table).__name__}: give the "
          "table `estimate` returns, or read its CSV with `read_table`")
    check("outcomes" in table.columns, "table has no 'outcomes' column; re-estimate it with `estimate`")
    check("k" in table.columns and len(table) > 0, "table needs rows and a 'k' column; give the table `estimate` returns")
    check(whole(k), f"k={k!r} must be a whole number of samples, e.g. 4")
    check(2 <= k <= int(table["k"].min()), f"k={k} must be between 2 and the table's K={int(table['k'].min())}")
    written = table["outcomes"].astype(str)
    check(bool(written.str.fullmatch(r"[01]+").all() and (written.str.len() == table["k"]).all()),
          "table's outcomes must be strings of K 0s and 1s (`0110`); a CSV read without `read_table` drops their "
          "leading zeros (0001 -> 1): read it with course_lib's read_table")
    fewer = table.drop(columns=[c for c in ALL_SAMPLES_COLUMNS if c in table.columns])
    fewer["outcomes"] = fewer["outcomes"].str[:k]
    fewer["k"] = k
    fewer["n_correct"] = fewer["outcomes"].str.count("1")
    fewer["pass_rate"] = fewer["n_correct"] / k
    intervals = [wilson_interval(n, k) for n in fewer["n_correct"]]
    fewer["ci_low"] = [round(low, 4) for low, _ in intervals]
    fewer["ci_high"] = [round(high, 4) for _, high in intervals]
    return fewer


def read_table(path) -> pd.DataFrame:
    """A difficulty table from CSV, with a clear error when a required column is missing."""
    path = Path(path)
    fix = f"make one with `python -m course_lib estimate ... --out {path}`"
    check(path.exists(), f"table={path} does not exist; {fix}")
    check(path.is_file(), f"table={path} is {what_it_is(path)}; give the CSV file `estimate` wrote")
    try:
        columns = read_csv_strictly(path, nrows=0, encoding="utf-8").columns
        missing_marks = {column: list(MISSING_MARKS) for column in columns if column != "id"}  # an id is always text
        table = read_csv_strictly(path, dtype={"id": str, "outcomes": str}, encoding="utf-8", keep_default_na=False,
                                  na_values=missing_marks)
    except pd.errors.ParserError as error:
        raise CourseError(f"table={path} is not a CSV table `estimate` wrote ({error}); {fix}") from None
    except (pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise CourseError(f"table={path} is not a CSV table ({type(error).__name__}); {fix}") from None
    missing = [c for c in ("id", "level", "pass_rate") if c not in table.columns]
    check(not missing, f"table={path} is missing column(s) {', '.join(missing)}; it must come from `estimate`")
    check(len(table) > 0, f"table={path} has no rows; {fix}")
    _check_rows(table, path, fix)
    return table


def _check_samples(table: pd.DataFrame, k: pd.Series, right: pd.Series, path: Path, fix: str) -> None:
    """Each row's per-sample columns agree with its K and n_correct: `outcomes` holds K grades of which n_correct are
    1, at most K samples were cut off, and the format share is a share (what `pass_rates_at` and 01's charts read)."""
    checks = []
    if "outcomes" in table.columns:
        written = table["outcomes"].astype(str)
        checks.append(("outcomes", (written.str.len() == k) & (written.str.count("1") == right),
                       "K grades of which n_correct are 1"))
    if "clipped" in table.columns:
        clipped = pd.to_numeric(table["clipped"], errors="coerce")
        checks.append(("clipped", (clipped >= 0) & (clipped <= k), "a count of samples from 0 to K"))
    if "format_share" in table.columns:
        share = pd.to_numeric(table["format_share"], errors="coerce")
        checks.append(("format_share", (share >= 0) & (share <= 1), "a share from 0 to 1"))
    for column, agrees, wanted in checks:
        for row in table[~agrees].head(1).itertuples():
            raise CourseError(f"table={path}: problem {row.id!r} has {column} {getattr(row, column)!r} with "
                              f"{row.n_correct} of {row.k} right, not {wanted}; the table was changed after "
                              f"`estimate` wrote it; {fix}")


def _check_rows(table: pd.DataFrame, path: Path, fix: str) -> None:
    """Every row's pass rate a number in [0, 1] (and n_correct / k where the table has them) and its level a whole
    number or blank, whichever strategy reads it: an edited row is named, not read differently by each."""
    rates = pd.to_numeric(table["pass_rate"], errors="coerce")
    for row in table[rates.isna() | (rates < 0) | (rates > 1)].head(1).itertuples():
        shown = "missing" if pd.isna(row.pass_rate) else row.pass_rate
        raise CourseError(f"table={path}: problem {row.id!r} has pass_rate {shown}, not a number from 0 to 1; {fix}")
    if {"k", "n_correct"} <= set(table.columns):
        k, right = pd.to_numeric(table["k"], errors="coerce"), pd.to_numeric(table["n_correct"], errors="coerce")
        consistent = (k >= 1) & (right >= 0) & (right <= k) & ((right / k - rates).abs() < 1e-6)
        for row in table[~consistent].head(1).itertuples():
            raise CourseError(f"table={path}: problem {row.id!r} has pass_rate {rates[row.Index]} but {row.n_correct} "
                              f"of {row.k} right; the table was changed after `estimate` wrote it; {fix}")
        _check_samples(table, k, right, path, fix)
    levels = pd.to_numeric(table["level"], errors="coerce")
    for row in table[table["level"].notna() & (levels.isna() | (levels != levels.round()))].head(1).itertuples():
        raise CourseError(f"table={path}: problem {row.id!r} has level {row.level!r}, not a whole number; {fix}")
