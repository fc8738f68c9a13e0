"""One source of problems for every path: procedural tasks, real datasets, or your own JSON Lines file.

`problems(task, split, n, seed, levels)` is what the CLI, the notebooks, the experiment and the sweeps
call. Real datasets come from a local folder laid out like `../shared/data` (`gsm8k/train.jsonl`,
`math/test.jsonl`, `bbh/tracking_shuffled_objects_*.jsonl`, `aime2025/test.jsonl`), named by
`data_dir=` or the environment variable `COURSE_DATA_DIR`, or else from their hub ids.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

from .data import HUB_IDS, load_aime2025, load_bbh, load_gsm8k, load_jsonl_problems, load_math
from .errors import check
from .paths import what_it_is
from .prompts import check_answer_format
from .provenance import env_folder, file_sha256, text_sha256
from .tasks import TASK_NAMES, TASK_SPLITS, TEST_SHARE, Problem, generate, hash_split  # noqa: F401 (read from here)

PROCEDURAL = TASK_NAMES  # generated from a seed: any number of problems
REAL_TASKS = ("gsm8k", "math", "math-numeric", "bbh", "aime2025")
LETTER_ANSWERS = ("bbh", "shuffle", "jsonl")  # sources whose answers can be an option's letter (a user's file may)
TASK_HELP = ("arith, shuffle, tinymath, tinymath-numeric (its numeric-answer subset) (procedural); gsm8k, math, "
             "math-numeric (MATH's numeric-answer subset), bbh (tracking_shuffled_objects 3/5/7), aime2025 "
             "(evaluation only); or jsonl:PATH, your own file")
SPLITS = {  # which splits each source has
    **TASK_SPLITS, "gsm8k": ("train", "test"), "math": ("train", "test"),
    "math-numeric": ("train", "test"), "bbh": ("train", "test"), "aime2025": ("test",), "jsonl": ("train", "test", "all"),
}


def data_dir_from_env() -> Path | None:
    """The local data folder named by $COURSE_DATA_DIR, or None (then the hub is used)."""
    return env_folder("COURSE_DATA_DIR")


def source_of(task: str) -> str:
    """The source family of a task name ('jsonl' for `jsonl:PATH`), with an error listing the valid names."""
    family = "jsonl" if str(task).startswith("jsonl:") else task
    check(family in SPLITS, f"task={task!r} is unknown; use one of: {TASK_HELP}")
    check(family != "jsonl" or str(task)[len("jsonl:"):].strip(), f"task={task!r} names no file; give jsonl:PATH")
    return family


def problems(task: str, split: str = "train", n: int | None = None, seed: int = 0, levels=None,
             data_dir=None, answer_format: str | None = None) -> list[Problem]:
    """`n` problems of `task` from `split` (all of them when n is None), chosen by `seed`, in a stable order (00).

    `levels` keeps only those levels (arith/shuffle/GSM8K steps, tinymath and MATH levels, BBH objects);
    `answer_format` overrides the source's default final-answer format (see `course_lib.prompts`).
    """
    family = source_of(task)
    check(split in SPLITS[family], f"split={split!r} is not a split of {task}; use one of {', '.join(SPLITS[family])}"
          + ("; AIME 2025 is for evaluation only" if family == "aime2025" else ""))
    check(n is None or (isinstance(n, int) and not isinstance(n, bool) and n >= 1), f"n={n!r} must be a positive integer")
    if family in PROCEDURAL:
        check(n is not None, f"n is required for the procedural task {task}: it can generate any number of problems")
        chosen = generate(task, n, split, seed, levels)
    else:
        rows = _real_rows(task, family, split, _data_root(data_dir))
        check(rows, f"split={split!r} of {task} holds no problem: a hash of each prompt puts about "
                    f"{TEST_SHARE}% of a file in test; use split all, or add questions")
        if levels is not None:
            shown = ",".join(str(level) for level in levels)  # as --levels takes them
            check(any(p.level is not None for p in rows),
                  f"levels={shown}: {task} gives its problems no level; leave levels out, or add a 'level' to rows")
            wanted = {int(level) for level in levels}
            rows = [p for p in rows if p.level in wanted]
        check(rows, f"levels={','.join(str(level) for level in levels or ())} leaves no {task} {split} problem; the "
                    "levels present are "
                    f"{sorted({p.level for p in _real_rows(task, family, split, _data_root(data_dir))}, key=str)}")
        chosen = _sample(rows, n, seed, task, split)
    for problem in chosen:
        check_id(problem.id)
    if answer_format is not None:
        check_answer_format(answer_format)
        check(answer_format != "option" or family in LETTER_ANSWERS,
              f"answer_format='option' asks for an option's letter, (A); {task}'s answers are not letters, so every "
              f"completion would score 0: leave answer_format out (its own), or use one of hash, boxed, tagged")
        chosen = [dataclasses.replace(p, answer_format=answer_format) for p in chosen]
    return chosen


def check_id(uid: str) -> None:
    """An id survives tables and ids files (one per line) only if it is text, not empty, one line, unpadded."""
    check(isinstance(uid, str) and uid != "" and uid == uid.strip() and len(uid.splitlines()) == 1,
          f"problem id {uid!r} cannot be written to a table or an ids file: an id must be non-empty text without "
          "line breaks or spaces at its ends; fix that id in the data")
    check(not uid.startswith(("=", "+", "@")),
          f"problem id {uid!r} starts with {uid[:1]!r}, which a spreadsheet opening the difficulty table would run as a "
          "formula; give ids that start with a letter or digit")


def _data_root(data_dir) -> Path | None:
    """The local data folder to use: the argument, else $COURSE_DATA_DIR, else None (the hub)."""
    root = Path(data_dir).expanduser() if data_dir else data_dir_from_env()
    if root is not None:
        check(root.is_dir(), f"data_dir={str(root)!r} is not a folder; give a folder laid out like ../shared/data "
                             "(gsm8k/, math/, bbh/, aime2025/) or unset COURSE_DATA_DIR to use the hub")
    return root


def _local_or_hub(root: Path | None, folder: str, hub_key: str) -> str:
    """The path of a dataset's folder under the data root, or its hub id when there is no root."""
    if root is None:
        return HUB_IDS[hub_key]
    path = root / folder
    check(path.is_dir(), f"data_dir={str(root)!r} has no {folder}/ folder; lay it out like ../shared/data")
    return str(path)


def _real_rows(task: str, family: str, split: str, root: Path | None) -> list[Problem]:
    """Every problem of a real dataset's split, in the file's order."""
    if family == "gsm8k":
        return load_gsm8k(_local_or_hub(root, "gsm8k", "gsm8k"), split)
    if family in ("math", "math-numeric"):
        rows = load_math(_local_or_hub(root, "math", "math"), split, numeric_only=family == "math-numeric")
        return [p for p in rows if p.answer.strip()]  # two MATH train rows have an empty \boxed{}
    if family == "bbh":
        every = load_bbh(_local_or_hub(root, "bbh", "bbh"))
        return [p for p in every if hash_split(p.prompt) == split]
    if family == "aime2025":
        return load_aime2025(_local_or_hub(root, "aime2025", "aime2025"))
    rows = load_jsonl_problems(task.split(":", 1)[1])
    return rows if split == "all" else [p for p in rows if hash_split(p.prompt) == split]


def _sample(rows: list[Problem], n: int | None, seed: int, task: str, split: str = "train") -> list[Problem]:
    """`n` of `rows` drawn by `seed`, kept in the file's order; all of them when n is None."""
    if n is None:
        return rows
    check(n <= len(rows), f"n={n} is more than the {len(rows)} problems of {task}'s {split} split (after any "
                          f"levels); ask for at most {len(rows)}")
    name = "jsonl" if task.startswith("jsonl:") else task  # a file draws the same wherever it sits
    picked = sorted(random.Random(f"{name}/{seed}").sample(range(len(rows)), n))
    return [rows[i] for i in picked]


def pool_spec(task: str, split: str, n: int | None, seed: int, levels=None, data_dir=None,
              answer_format: str | None = None) -> dict:
    """Where a pool of problems comes from, as JSON: `problems(**spec)` rebuilds it exactly."""
    spec = {"task": task, "split": split, "n": n, "seed": seed, "levels": list(levels) if levels else None,
            "data_dir": str(data_dir) if data_dir else None, "answer_format": answer_format}
    file = _user_file(task)
    return spec | {"file_sha256": file_sha256(file)} if file and file.is_file() else spec


def absolute_task(task: str) -> str:
    """A `jsonl:PATH` task with its file by absolute path (any other task as it is): a table's provenance then names
    the file from any folder a later command runs in."""
    file = _user_file(task)
    if file is None or str(file) in ("", "."):
        return task
    check(not file.exists() or file.is_file() or file.is_dir(),
          f"task={task!r}: {file} is {what_it_is(file)}; a jsonl file is read more than once (its "
          "fingerprint, then its rows); save it to a file first and give jsonl:PATH")
    return f"jsonl:{file.resolve()}"


def _user_file(task: str) -> Path | None:
    """The file of a `jsonl:PATH` task (None for any other task)."""
    return Path(str(task)[len("jsonl:"):].strip()).expanduser() if str(task).startswith("jsonl:") else None


def problems_fingerprint(problems) -> str:
    """sha256 over the problems' ids, prompts, answers, answer formats, sources (whose rules grade them) and levels,
    in order."""
    text = json.dumps([[p.id, p.prompt, p.answer, p.answer_format, p.source, p.level] for p in problems])
    return text_sha256(text)


def legacy_problems_fingerprint(problems) -> str:
    """`problems_fingerprint` as course_lib wrote it before it held sources and levels: what older run folders and
    tables recorded (read only, so that they still resume)."""
    text = json.dumps([[p.id, p.prompt, p.answer, p.answer_format] for p in problems])
    return text_sha256(text)


def problem_fingerprint(problem) -> str:
    """sha256 over one problem's prompt, answer, answer format and source: `compare` checks that an id names the same
    question in both evaluations (GSM8K and BBH ids are line numbers: another copy of the data gives them others)."""
    return text_sha256(json.dumps([problem.prompt, problem.answer, problem.answer_format, problem.source]))


def fingerprinted(spec: dict, pool: list[Problem]) -> dict:
    """A pool spec with the sha256 of the problems it gave: a later command that rebuilds the pool from another copy
    of a dataset (GSM8K and BBH ids are line numbers) or another generator finds other questions, and says so."""
    return {**spec, "problems_sha256": problems_fingerprint(pool)}


def from_spec(spec: dict) -> list[Problem]:
    """The problems a `pool_spec` names (what `train` and `evaluate` read from a table's provenance); a user's file
    changed since (its sha256 recorded), or a pool whose problems differ from those recorded, is refused: ids would
    name other questions."""
    allowed = {"task", "split", "n", "seed", "levels", "data_dir", "answer_format", "file_sha256", "problems_sha256"}
    unknown = set(spec) - allowed
    check(not unknown and "task" in spec, f"pool spec {spec!r} is not one `pool_spec` wrote (unknown {sorted(unknown)})")
    spec = dict(spec)
    recorded, file = spec.pop("file_sha256", None), _user_file(spec["task"])
    if recorded and file and file.is_file():
        check(file_sha256(file) == recorded,
              f"{file} changed after its difficulty table was estimated (its sha256 differs): ids would name other "
              "questions; estimate and select on it again")
    fingerprint = spec.pop("problems_sha256", None)
    pool = problems(**spec)
    check(fingerprint in (None, problems_fingerprint(pool), legacy_problems_fingerprint(pool)),
          f"the pool of task={spec['task']!r} ({spec.get('split')}) now holds other questions than when its table was "
          "estimated (another copy of the dataset under --data-dir or COURSE_DATA_DIR, or another course_lib "
          "version): ids would name other questions; use the same data, or estimate and select again")
    return pool
