"""Command line: `python -m course_lib COMMAND ...`, the same operations the notebooks use.

Bad input exits with status 2 and one line on stderr. Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import sys
import threading
import warnings
from dataclasses import MISSING, fields, replace
from pathlib import Path

from .classroom import copies as class_copies
from .classroom.notebooks import course_notebooks, run_course
from .classroom.runtime import use_threads
from .data import load_jsonl_problems
from .errors import MAX_SEED, CourseError, check, check_seed, warn
from .paths import REPOSITORY, absolute_env_folders, what_it_is
from .problems import (
    PROCEDURAL,
    SPLITS,
    TASK_HELP,
    TASK_NAMES,
    absolute_task,
    data_dir_from_env,
    fingerprinted,
    from_spec,
    pool_spec,
    problems,
    source_of,
)
from .prompts import DEFAULT_NEW_TOKENS, INSTRUCTIONS, pool_answer_format
from .provenance import (
    atomic_write_texts,
    check_ignored_in_repository,
    check_name_lengths,
    check_not_an_input,
    check_not_busy,
    check_not_in_owned,
    check_own_folder,
    check_replaceable,
    check_writable_file,
    check_writable_folder,
    env_folder,
    file_lock,
    file_sha256,
    folder_lock,
    git_commit,
    is_model_folder,
    is_tracked,
    library_versions,
    resolved,
    sealed_json,
    text_sha256,
    tracked_files,
    written_by,
)
from .research.definitions import KINDS, STUDIES
from .research.experiment import Point, check_values, resolve, train_config, train_lora
from .research.profiles import model_size_of, paper_dataset_of, paper_lora, paper_steps, paper_train_config
from .tasks import TINYMATH_SUBJECTS, TRAIN_LEVELS, check_task_and_levels, generate


class DefaultsHelp(argparse.HelpFormatter):
    """Help that shows each option's default, unless it has none or its help already says it."""

    def _get_help_string(self, action):
        text = action.help or ""
        if any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS)) or "default" in text \
                or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 2; help shows defaults.
    `more_arguments(parser)`, if set, adds arguments when the parser is first used (`train`'s settings import TRL,
    which takes seconds that the other commands need not spend)."""

    more_arguments = None

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", DefaultsHelp)
        super().__init__(*args, **kwargs)

    def _add_more(self) -> None:
        if self.more_arguments is not None:
            add, self.more_arguments = self.more_arguments, None
            add(self)

    def parse_known_args(self, args=None, namespace=None):
        self._add_more()
        return super().parse_known_args(args, namespace)

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:  # argparse would name the top-level help; the command's own lists the options it takes
            command = getattr(parsed, "command", None)
            self.exit(2, f"error: unrecognized arguments: {' '.join(extras)} "
                         f"(see `python -m {self.prog}{' ' + command if command else ''} --help`)\n")
        return parsed

    def format_help(self):
        self._add_more()
        return super().format_help()

    def format_usage(self):
        self._add_more()
        return super().format_usage()

    def error(self, message):
        option = re.fullmatch(r"argument (--[\w-]+)(?:/-\w)?: expected one argument", message)
        if option:  # argparse reads a value that starts with '-' (e.g. --levels -1,1) as the next option
            message += f"; a value that starts with '-' is written {option[1]}=VALUE"
        self.exit(2, f"error: {message} (see `python -m {self.prog} --help`)\n")


def cmd_pretrain(args) -> None:
    """Pretrain a tiny model and write its checkpoint and manifest."""
    from .models import PRETRAIN_TASKS, PretrainConfig, run_pretrain

    levels = tuple(_levels(args.levels) or TRAIN_LEVELS)
    tasks = PRETRAIN_TASKS if args.tasks is None else tuple(task.strip() for task in args.tasks.split(","))
    check(all(tasks) and len(set(tasks)) == len(tasks),
          f"tasks={args.tasks!r} must name each task once, comma-separated, e.g. arith,shuffle,tinymath")
    config = PretrainConfig(size=args.size, steps=args.steps, batch_size=args.batch_size, lr=args.lr, seed=args.seed,
                            levels=levels, wordy_share=args.wordy_share, tasks=tasks)
    _check_model_out(args, "pretrain", "manifest.json")  # after the settings, before minutes of pretraining
    with folder_lock(args.out):
        manifest = run_pretrain(config, args.out, progress=not args.quiet)
    print(f"saved {manifest['parameters']:,} parameters to {args.out} (sha256 {manifest['sha256']['model.safetensors'][:12]})")


def cmd_standin(args) -> None:
    """Build the offline Qwen3 stand-in: a tiny random model and its byte-level BPE tokenizer."""
    from .models.standin import MANIFEST, build_standin

    check_seed(args.seed)
    _check_model_out(args, "standin", MANIFEST)
    with folder_lock(args.out):
        manifest = build_standin(args.out, corpus_path=args.corpus, seed=args.seed)
    print(f"saved a {manifest['parameters']:,}-parameter Qwen3 stand-in (vocabulary {manifest['vocab_size']}) "
          f"to {args.out} (sha256 {manifest['sha256']['model.safetensors'][:12]})")


def cmd_calibrate(args) -> None:
    """Measure pass rates per level and (with --write) store them in the model's manifest."""
    from .models import resolve_model_path, weights_sha256
    from .research.calibration import TARGETED_SIZES, calibrate, check_targets, missing_levels, write_calibration
    from .sampling import check_greedy_k

    check_greedy_k(args.k, args.temperature)
    _check_data_dir_for(args.task, args.data_dir)
    if args.write:
        check(not (Path(args.model) / "final").is_dir(),
              f"--write stores the report in a model's manifest.json; model={args.model} is a run folder, which has "
              "none: leave out --write")
        folder = resolve_model_path(args.model)
        check(folder is not None and written_by(folder / "manifest.json") == "pretrain",
              f"--write stores the report in the manifest.json `pretrain` wrote; model={args.model} has none: leave "
              "out --write")
        _check_same_calibration(args, folder)
        measured = weights_sha256(folder)  # the weights measured: a model replaced meanwhile gets no report
    report = calibrate(args.model, task=args.task, n=args.n, k=args.k, temperature=args.temperature, seed=args.seed,
                       max_new_tokens=args.max_new_tokens, progress=not args.quiet, data_dir=args.data_dir)
    targets = check_targets(course_model_name(args.model), report)
    if args.write:
        with folder_lock(folder, parameter="model"):  # two --write runs (arith, shuffle) must not lose one report
            check(weights_sha256(folder) == measured,
                  f"model={args.model} was replaced while it was measured (its manifest's weights changed), so the "
                  "report is not written into the new one; calibrate it again")
            write_calibration(args.model, report, targets)
    if args.task == "arith" and course_model_name(args.model) in TARGETED_SIZES and missing_levels(report):
        print(f"note: no problem of level {', '.join(missing_levels(report))} among --n {args.n}, so "
              f"{course_model_name(args.model)}'s calibration targets are not checked; give --n 50 or more",
              file=sys.stderr)
    elif targets and args.n < 50:  # a level's rate from a few problems: a verdict on noise
        print(f"note: --n {args.n} measures each level on about {max(1, args.n // 5)} problem(s), too few for the "
              "targets' verdicts to mean much; give --n 50 or more (the course's calibrations use 500)", file=sys.stderr)
    print(json.dumps({**report, "targets": targets}, indent=2))


CALIBRATION_SETTINGS = ("n", "k", "seed", "temperature", "max_new_tokens")  # what a calibration was measured at


def course_model_name(model: str) -> str:
    """The name a model's manifest records (`tiny-s` for data/models/tiny-s or a copy of it), else as given: the
    calibration targets belong to the model, not to how its name was spelled."""
    from .models import resolve_model_path

    try:
        folder = resolve_model_path(model)
        name = json.loads((folder / "manifest.json").read_text(encoding="utf-8")).get("name") if folder else None
    except (OSError, ValueError, AttributeError, CourseError):
        name = None
    return name if isinstance(name, str) and name else model


def _check_same_calibration(args, folder: Path) -> None:
    """--write replaces a task's calibration only with one measured the same way (a rebuilt model measured again);
    other settings would quietly change what the manifest, 00's table and the figures report."""
    try:
        calibrations = json.loads((folder / "manifest.json").read_text()).get("calibration") or {}
        recorded = calibrations.get(args.task)
    except (OSError, ValueError, AttributeError):
        return
    ours = {"n": args.n, "k": args.k, "seed": args.seed, "temperature": args.temperature,
            "max_new_tokens": args.max_new_tokens}
    if not isinstance(recorded, dict):  # a new task: measured as the manifest's other tasks were (a length limit
        others = [c for c in calibrations.values() if isinstance(c, dict)]  # of its own allowed)
        theirs = {key: others[0].get("n_problems" if key == "n" else key) for key in CALIBRATION_SETTINGS} if others else {}
        differ = [f"{key}={ours[key]} (its others: {theirs[key]})" for key in CALIBRATION_SETTINGS[:4]
                  if others and ours[key] != theirs[key]]
        check(not differ, f"--write would add a {args.task} calibration to {args.model}'s manifest measured unlike "
                          f"its other tasks: {', '.join(differ)}; measure as they were, or leave out --write to see "
                          "the report")
        return
    theirs = {key: recorded.get("n_problems" if key == "n" else key) for key in CALIBRATION_SETTINGS}
    differ = [f"{key}={ours[key]} (recorded: {theirs[key]})" for key in CALIBRATION_SETTINGS if ours[key] != theirs[key]]
    check(not differ, f"--write would replace {args.model}'s {args.task} calibration, measured with other settings: "
                      f"{', '.join(differ)}; measure with the recorded ones, or leave out --write to see the report")


def cmd_generate(args) -> None:
    """Print problems of a procedural task as JSON Lines."""
    levels = check_task_and_levels(args.task, args.split, _levels(args.levels))
    if args.n < len(levels):  # perhaps on purpose (a quick look): said, not refused
        empty = ", ".join(str(level) for level in levels[args.n:])
        print(f"warning: --n {args.n} is fewer than the {len(levels)} levels, so level(s) {empty} get no problem; "
              f"give --n {len(levels)} or more for a problem of every level", file=sys.stderr)
    elif args.task == "tinymath" and args.n < len(levels) * len(TINYMATH_SUBJECTS):  # its subjects take turns
        print(f"warning: --n {args.n} gives some levels fewer than tinymath's {len(TINYMATH_SUBJECTS)} subjects, so "
              f"they hold only the first ones ({', '.join(TINYMATH_SUBJECTS)}); give --n "
              f"{len(levels) * len(TINYMATH_SUBJECTS)} or more for every subject at every level", file=sys.stderr)
    for problem in generate(args.task, args.n, args.split, args.seed, levels):
        print(json.dumps(problem.to_dict()))


def cmd_copies(args) -> None:
    """The notebooks' copies a class opens: students' (no solutions, no quiz answers) or the instructor's (00)."""
    status = class_copies.main([args.kind, str(args.folder)])
    if status:
        raise SystemExit(status)


def cmd_notebooks(args) -> None:
    """Execute every notebook with papermill in one profile."""
    args.out = args.out if args.out is not None else Path("build") / args.profile  # each profile its own folder
    _check_outputs(args, args.out, folder=True)
    check_ignored_in_repository(args.out, "out", f"build/{args.profile}/")  # executed copies among the course's files
    check_not_in_owned(args.out, fix=f"give a folder of its own (build/{args.profile})")  # a run's, a study's parts
    check(not (Path(args.out) / "grid.json").is_file(), f"out={args.out} is a study folder `reproduce` writes; give a "
                                                        f"folder of its own (build/{args.profile})")
    check_writable_folder(args.out)  # a file at --out: named, not an OSError's `File exists`
    for notebook in course_notebooks():  # an executed copy replaces only an executed copy, never a lesson
        _check_executed_copy(Path(args.out) / notebook.name)
    check(args.only is None or (args.only and all(prefix.strip() for prefix in args.only)),
          "--only needs at least one notebook prefix, e.g. --only 00 03; leave it out to run every notebook")
    summary_file = Path(args.out) / "summary.json"
    check(not summary_file.exists() or _is_course_summary(summary_file),
          f"out={args.out} holds a summary.json that `notebooks` did not write, or one damaged since; give another "
          "folder (or delete that summary.json to run the notebooks there again)")
    if summary_file.exists():  # --only: the others' entries stay in the summary; a whole run replaces its own
        earlier = json.loads(summary_file.read_text(encoding="utf-8"))["profile"]
        check(earlier == args.profile, f"out={args.out} holds notebooks executed in profile {earlier!r}; run "
                                       f"{'--only ' if args.only else ''}in that profile, or give another folder "
                                       f"for {args.profile!r} (build/{args.profile})")
    with folder_lock(args.out):
        summary = run_course(args.profile, args.out, only=args.only or None, progress=not args.quiet)
    for item in summary["notebooks"]:
        print(f"{item['notebook']}: {item['seconds']} s")
    print(f"executed notebooks and summary.json are in {args.out}")


def folder_path(text: str) -> Path:
    """An argparse type: a folder's path; an empty one (a script's `--cache-dir "$CACHE"` with CACHE unset) is refused,
    where Path('') would be the working folder."""
    if not text.strip():
        raise ValueError("an empty path (it would be the working folder)")
    return Path(text)


folder_path.__name__ = "folder"  # argparse's message: "invalid folder value: ''"


def whole_number(text: str) -> int:
    """An argparse type: an integer written in ASCII digits ('12', '-3'); int() would also take '+12', '1_0' and
    other scripts' digits, which a typo or a pasted value can carry unnoticed."""
    if not re.fullmatch(r"-?[0-9]+", text.strip()):
        raise ValueError(f"{text!r} is not a whole number")
    return int(text)


whole_number.__name__ = "whole-number"  # argparse's message: "invalid whole-number value: 'x'"


def integer(low: int, high: int, usual: str = ""):
    """An argparse type: an integer from `low` to `high`; anything else is one line naming the flag and the range
    (a seed past numpy's range, or a pool of 10^20 problems, is refused before any work)."""
    def parse(text: str) -> int:
        try:
            value = whole_number(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} must be an integer from {low:,} to {high:,}{usual}")
        return value

    parse.__name__ = "integer"
    return parse


MAX_POOL = 1_000_000  # problems in a pool at most (GSM8K's train split: 7,473; MATH: 7,500)
SEED = integer(0, MAX_SEED, " (numpy's seed range)")
POOL = integer(1, MAX_POOL, " (problems in the pool)")


def _check_executed_copy(path: Path) -> None:
    """An existing notebook at an output path must be an executed copy (papermill's metadata), not a lesson."""
    if not path.exists():
        return
    try:
        metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError, AttributeError):
        metadata = {}
    check(isinstance(metadata, dict) and "papermill" in metadata,
          f"out={path.parent} holds {path.name}, which is not a copy papermill executed (a lesson or your own "
          "notebook); give another folder, e.g. build/tiny")


def _is_course_summary(path: Path) -> bool:
    """Whether a summary.json is the one `notebooks` writes (profile, notebooks, commit)."""
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(summary, dict) and isinstance(summary.get("profile"), str)
            and isinstance(summary.get("notebooks"), list)
            and all(isinstance(item, dict) and isinstance(item.get("notebook"), str) for item in summary["notebooks"]))


PROCEDURAL_POOL = 500  # --n for arith and shuffle when not given (real datasets: every problem of the split)


def _levels(text: str | None):
    """'1,2,3' -> (1, 2, 3); None stays None; anything else is a clear error."""
    if text is None:
        return None
    check(text.strip() != "", "levels='' is empty; leave --levels out for every level, or give some, e.g. 1,2,3")
    try:
        return tuple(whole_number(x) for x in text.split(","))
    except ValueError:
        raise CourseError(f"levels={text!r} must be comma-separated integers, e.g. 1,2,3") from None


def _check_data_dir_for(task: str, data_dir) -> None:
    """--data-dir names a folder of the real datasets: refused for a task generated from its seed."""
    check(not (source_of(str(task)) in PROCEDURAL and data_dir is not None),
          f"--data-dir is for the real datasets; task={task!r} is generated from its seed: drop --data-dir")


def _pool_spec(args, seed: int, levels: str | None) -> dict:
    """Where this command's problems come from (written into provenance so later commands rebuild them)."""
    procedural = source_of(args.task) in PROCEDURAL
    _check_data_dir_for(args.task, args.data_dir)
    n = args.n if args.n is not None else PROCEDURAL_POOL if procedural else None
    return pool_spec(args.task, args.split, n, seed, _levels(levels), args.data_dir, args.answer_format)


def _sampled_problems(args):
    """Validate K and the sampling settings before any model loads; then the problems to sample."""
    from .difficulty import check_k
    from .sampling import check_greedy_k, check_sampling_args

    check_k(args.k)
    check_sampling_args(args.k, args.temperature, args.max_new_tokens, _backend(args))
    check_greedy_k(args.k, args.temperature)
    return from_spec(_pool_spec(args, args.seed, args.levels))


def _backend(args) -> str:
    """'vllm' when asked for (an error where vLLM or a GPU is missing), or for 'auto' when both are present; else 'hf'."""
    from .sampling import resolve_backend

    return resolve_backend(args.backend)


def _inputs(args) -> dict:
    """Every existing file or folder a command reads, by parameter name: no output may replace one."""
    named = {name: getattr(args, name, None) for name in ("table", "ids", "model", "after", "before")}
    named["table provenance"] = named["table"] and Path(str(named["table"]) + ".provenance.json")
    named["ids provenance"] = named["ids"] and Path(str(named["ids"]) + ".provenance.json")
    task = str(getattr(args, "task", None) or "")
    named["task"] = task.startswith("jsonl:") and task.split(":", 1)[1]
    return {name: path for name, path in named.items() if path and Path(path).expanduser().exists()}


SHARED_DATA = REPOSITORY.parent / "shared" / "data"  # where the tests' copies of the datasets live (../shared/data)


def _check_outputs(args, *outs, folder: bool = False, parameter: str = "out") -> None:
    """No output of this command replaces one of its inputs, or goes into a model folder or a data folder
    (--data-dir, $COURSE_DATA_DIR, ../shared/data)."""
    data_folders = {"data_dir": getattr(args, "data_dir", None), "COURSE_DATA_DIR": data_dir_from_env(),
                    "../shared/data": SHARED_DATA if SHARED_DATA.is_dir() else None}
    data_folders = {name: path for name, path in data_folders.items() if path}
    for out in outs:
        check(str(out) != "-", f"{parameter}=- would write a file named '-' (commands write files, not standard "
                               "output); give a path, e.g. build/out.json")
        check_not_an_input(out, _inputs(args), folder=folder, parameter=parameter, data_folders=data_folders)


def _check_model_out(args, command: str, marker: str) -> None:
    """`pretrain` and `standin` write a model folder: new, empty or their own (its `marker` records the command),
    never one of the course's models in data/models, a folder inside a model, or a data folder."""
    from .models import MODELS_DIR, git_restore_command

    _check_outputs(args, args.out)  # as a file would be: no model folder above it, no data folder, no input
    target = resolved(args.out)
    restore = git_restore_command(target)
    check(not (target.parent == resolved(MODELS_DIR) and is_model_folder(target)),
          f"out={args.out} holds the course's model {target.name}, which runs and tables were made with; give a new "
          f"folder (to rebuild it on purpose, delete it first: `{restore}` restores it)" if restore else
          f"out={args.out} holds the course's model {target.name} ($COURSE_MODELS_DIR); give a new folder, or "
          "delete it first to rebuild it on purpose")
    tracked = tracked_files(target)
    if tracked:
        raise CourseError(f"out={args.out} holds files a git repository tracks ({tracked[0]}); give a new folder (to "
                          "rebuild that model on purpose, delete the folder first: `git checkout` restores it)")
    check_own_folder(args.out, command, marker)
    check_writable_folder(args.out)


def _check_file_outputs(args, command: str, provenance: bool = False) -> None:
    """--out (and OUT.provenance.json beside it): writable, not an input, not in a model or data folder, and new or
    recognisably this command's own output: an existing file is replaced only when its record (the file itself, or
    the provenance beside it) says `command` wrote it."""
    check(not str(args.out).endswith(".provenance.json"),
          f"out={args.out} ends in .provenance.json, the name of the record a command writes beside its output (it "
          "would be read as one); give the output's own name, e.g. ids.txt or table.csv")
    beside = Path(str(args.out) + ".provenance.json")
    outs = (args.out, beside) if provenance else (args.out,)
    check_name_lengths(beside, "out", " with the .provenance.json written beside it")
    _check_outputs(args, *outs)  # first: the writability check below makes missing folders
    for path in outs:
        check_writable_file(path)
        check_replaceable(path, command, record=beside if provenance else None)
        check(not is_tracked(Path(path)), f"out={path} is a file the git repository tracks (a committed result); "
                                          "write elsewhere, or delete it first to remake it on purpose (`git "
                                          "checkout` restores it)")
    check_not_busy(args.out)
    args.seen_outputs = {Path(path): _file_state(Path(path)) for path in outs}  # `_write_outputs` checks them again
    if hasattr(args, "locks"):  # held until the command ends: a second command writing the same file is refused

        args.locks.enter_context(file_lock(args.out))


def _file_state(path: Path) -> str | None:
    """A file's sha256 (None where there is none): what `_write_outputs` compares before it replaces the file."""
    return file_sha256(path) if path.is_file() else None


def _write_outputs(args, texts: dict, command: str) -> None:
    """Write a command's output files (all or none), unless one changed while the command ran (an edit made during
    a long sampling): then they are left as they are and this run's output goes beside them, as OUT.new."""
    changed = [path for path, state in getattr(args, "seen_outputs", {}).items() if _file_state(path) != state]
    if not changed:
        atomic_write_texts(texts)
        return
    out = Path(args.out)
    aside, number = out.with_name(out.name + ".new"), 1
    while any(Path(str(aside) + str(path)[len(str(out)):]).exists() for path in texts):  # never over another file
        number += 1
        aside = out.with_name(f"{out.name}.new{number}")
    atomic_write_texts({Path(str(aside) + str(path)[len(str(out)):]): text for path, text in texts.items()})
    raise CourseError(f"out={changed[0]} was changed while `{command}` ran (an edit would be lost), so it is left as "
                      f"it is and this run's output is in {aside}; compare the two and keep the one you want")


def _provenance(args) -> dict:
    """What re-runs a command: the command line, the commit and the library versions."""
    return {"command": "python -m course_lib " + shlex.join(args.argv), "commit": git_commit(),
            "versions": library_versions()}


def _check_cache(args, cache) -> None:
    """The difficulty cache (--cache-dir, else $COURSE_CACHE_DIR; None: no cache) is a folder of its own: not an input,
    not in a model, data, run or study folder, not among the course's files, writable; before the model loads."""
    from .difficulty import cache_folder

    folder = cache_folder(cache)  # a cache path that is a file fails now
    if folder:
        where = "cache_dir" if getattr(args, "cache_dir", None) else "COURSE_CACHE_DIR"
        _check_outputs(args, folder, folder=True, parameter=where)
        check_not_in_owned(folder, where)
        check_ignored_in_repository(folder, where)
        check_writable_folder(folder, where)  # /proc/self, a read-only mount: named now, not after sampling


def cmd_estimate(args) -> None:
    """Estimate pass rates over K samples and write the difficulty table as CSV."""
    from .difficulty import check_pass_rates, estimate
    from .evaluation import model_for_backend

    problems = _sampled_problems(args)
    _check_file_outputs(args, "estimate", provenance=True)
    cache = None if args.no_cache else args.cache_dir or "default"
    _check_cache(args, cache)
    backend = _backend(args)
    model, tokenizer = model_for_backend(args.model, backend)  # vLLM loads the weights itself from a folder
    sampling_seed = args.seed if args.sampling_seed is None else args.sampling_seed
    table = estimate(model, tokenizer, problems, args.k, args.temperature, args.max_new_tokens, sampling_seed,
                     cache_dir=cache, progress=not args.quiet,
                     backend=backend)
    if not args.allow_zero:
        check_pass_rates(table, override="--allow-zero")
    text = table.to_csv(index=False)
    provenance = {**_provenance(args), "pool": fingerprinted(_pool_spec(args, args.seed, args.levels), problems),
                  "model": args.model,
                  "cost": table.attrs["cost"], "sha256": text_sha256(text)}
    _write_outputs(args, {args.out: text,  # both or neither
                          Path(str(args.out) + ".provenance.json"): json.dumps(provenance, indent=2) + "\n"}, "estimate")
    cost = table.attrs["cost"]
    rows = f"{len(table):,} row{'s' if len(table) != 1 else ''}"
    print(f"wrote {rows} to {args.out}: mean pass rate {table.pass_rate.mean():.3f}, "
          f"format share {table.format_share.mean():.3f}, {cost['generated_tokens']:,} tokens in {cost['wall_seconds']} s")


def FILE_OUT(text: str) -> Path:  # noqa: N802 (an argparse type, named like SEED and POOL)
    """A file output's path: one that ends with '/' names a folder, however argparse would read it."""
    if text.endswith("/"):
        raise argparse.ArgumentTypeError(f"{text!r} ends with '/', which names a folder; give a file path, e.g. "
                                         f"{text}out.csv")
    return Path(text)


def parse_budget(text: str) -> float | int:
    """'0.1' -> a fraction, '50' -> a count; anything else is a clear error."""
    try:
        budget = float(text) if any(c in text for c in ".eE") else whole_number(text)
    except ValueError:
        raise CourseError(f"budget={text!r} is not a number; give a fraction like 0.1 or a count like 50") from None
    check(budget == budget and abs(budget) != float("inf"),
          f"budget={text!r} is not a finite number; give a fraction like 0.1 or a count like 50")
    return budget


def cmd_select(args) -> None:
    """Select problem ids from a difficulty table under a budget."""
    from .difficulty import read_table
    from .selection import select

    table_provenance = _read_provenance(args.table, "table")  # first: an edited table is refused before it is read
    table = read_table(args.table)
    _check_table_in_pool(args.table, table, table_provenance.get("pool"))
    budget = parse_budget(args.budget)
    _check_file_outputs(args, "select", provenance=True)
    ids = select(table, args.strategy, budget, args.seed, levels=_levels(args.levels))
    levels = _levels(args.levels)
    warn_if_picked_among_ties(table[table["level"].isin(levels)] if levels else table, ids, args.strategy)
    if args.strategy in ("easy", "medium", "hard", "learnability") and table["pass_rate"].nunique() == 1:

        warn(f"every problem in table={args.table} has pass rate {table['pass_rate'].iloc[0]:.2f}: "
             f"'{args.strategy}' picks among ties, no better than random; estimate a task the model "
             "sometimes solves, or with more samples (--k)")
    text = "\n".join(ids) + "\n"
    _write_outputs(args, {args.out: text, Path(str(args.out) + ".provenance.json"): json.dumps(
        {**_provenance(args), "table": str(args.table), "pool": table_provenance.get("pool"),
         "model": table_provenance.get("model"), "sha256": text_sha256(text)}, indent=2) + "\n"}, "select")
    print(f"wrote {len(ids)} id{'' if len(ids) == 1 else 's'} ({args.strategy}, budget {args.budget}) to {args.out}")


def _check_table_in_pool(path, table, pool) -> None:
    """A generated pool recorded beside a table must hold the table's ids (its provenance's pool spec is not under
    the table's sha256, so an edit there shows here, not at `train`); a real dataset's pool is checked by `train`."""
    if not isinstance(pool, dict) or source_of(str(pool.get("task"))) not in PROCEDURAL:
        return
    try:
        known = {problem.id for problem in from_spec(pool)}
    except (CourseError, TypeError, ValueError):
        known = set()
    missing = [i for i in table["id"] if i not in known]
    check(not missing, f"table={path}: {len(missing)} of its {len(table)} ids are not in the pool recorded in "
                       f"{path}.provenance.json ({pool}); that file was edited or belongs to another table: run "
                       "`estimate` again")


def _read_provenance(path, parameter: str) -> dict:
    """The `PATH.provenance.json` written beside a table or ids file ({} when there is none); a file changed since
    the command wrote it (its sha256 is not the one recorded) is refused: its provenance no longer describes it."""
    beside = Path(str(path) + ".provenance.json")
    if not beside.exists():
        return {}
    try:
        provenance = json.loads(beside.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CourseError(f"{beside} is not valid JSON; delete it and re-run the command that wrote it") from None
    if not isinstance(provenance, dict):
        raise CourseError(f"{beside} does not hold a JSON object; delete it and re-run the command that wrote it")
    recorded = provenance.get("sha256")
    if recorded is not None and Path(path).is_file():
        check(file_sha256(path) == recorded,
              f"{parameter}={path} was changed after the command in {beside.name} wrote it (its sha256 differs); "
              "re-run that command, or delete the .provenance.json if the edit is yours on purpose")
    return provenance


def id_lines(path: Path) -> list:
    """An ids file's non-blank lines, stripped; refused where it is missing, no UTF-8 text or a difficulty table."""
    if not path.exists():
        raise CourseError(f"ids={path} does not exist; write one with `python -m course_lib select ... --out {path}`")
    if not path.is_file():
        raise CourseError(f"ids={path} is {what_it_is(path)}; give the ids file `select --out` wrote")
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (some editors write one) is no part of an id
    except UnicodeDecodeError:
        raise CourseError(f"ids={path} is not a text file of ids (not UTF-8); give the ids file `select --out` "
                          "wrote") from None
    ids = [line.strip() for line in text.splitlines() if line.strip()]
    _check_not_a_table(path, ids[0] if ids else "")
    return ids


def read_ids(path: Path, problems) -> list:
    """The problems named in an ids file, in the file's order; every id must be in the pool."""
    ids = id_lines(path)
    repeated = sorted(i for i, times in collections.Counter(ids).items() if times > 1)
    if repeated:
        raise CourseError(f"ids={path} names {repeated[0]!r} more than once (it would be trained on as often); "
                          "list each id once, as `select` does")
    by_id = {p.id: p for p in problems}
    unknown = [i for i in ids if i not in by_id]
    if unknown or not ids:
        raise CourseError(f"ids={path} names {len(unknown)} problem(s) not in this task's pool (e.g. {unknown[:2]}); "
                          "give train the pool estimate drew from: the same --task, --split and --n, and estimate's "
                          "--seed as --pool-seed" if ids else f"ids={path} is empty; select at least one problem")
    return [by_id[i] for i in ids]


def _check_not_a_table(path, first_line: str) -> None:
    """An ids file whose first line is a CSV header is a difficulty table, not the ids chosen from it: refused."""
    if first_line.split(",")[0] == "id" and "," in first_line:
        raise CourseError(f"ids={path} is a table (its first line is a CSV header: {first_line[:40]}...); give the ids "
                          f"file `select` writes from it: `python -m course_lib select --table {path} --strategy "
                          "hard --budget 0.1 --out ids.txt`")


POOL_FLAGS = {"task": "task", "split": "split", "n": "n", "pool_seed": "seed", "pool_levels": "levels",
              "data_dir": "data_dir", "answer_format": "answer_format"}  # train's flag -> the pool spec's key


def _training_pool(args):
    """The pool the ids come from, and its task: the one `select` recorded beside the ids file, else the flags'
    (default arith).

    Flags given with a recorded pool must agree with it: one that contradicts it is refused, naming both values.
    """
    if args.ids:  # a table's own provenance records estimate's pool: the mix-up is named first, not a flag
        id_lines(args.ids)
    recorded = _read_provenance(args.ids, "ids").get("pool") if args.ids else None
    given = {flag: getattr(args, flag) for flag in POOL_FLAGS if getattr(args, flag) is not None}
    task = recorded.get("task", "arith") if isinstance(recorded, dict) else given.get("task", "arith")
    _check_data_dir_for(task, given.get("data_dir"))
    if not isinstance(recorded, dict):
        task = given.get("task", "arith")
        n = given.get("n", PROCEDURAL_POOL if source_of(task) in PROCEDURAL else None)
        return from_spec(pool_spec(task, given.get("split", "train"), n, given.get("pool_seed", 0),
                                   _levels(given.get("pool_levels")), given.get("data_dir"),
                                   given.get("answer_format"))), task
    for flag, value in given.items():
        wanted = recorded.get(POOL_FLAGS[flag])
        check(_same_pool_value(flag, value, wanted),
              f"--{flag.replace('_', '-')}={value} contradicts the pool `select` recorded in {args.ids}.provenance.json "
              f"({POOL_FLAGS[flag]}={wanted!r}); leave the flag out to train on that pool, or select again")
    return from_spec(recorded), recorded.get("task", "arith")


def _same_pool_value(flag: str, value, recorded) -> bool:
    """Whether a train flag names what the recorded pool spec holds (levels as lists, folders resolved)."""
    if flag == "pool_levels":
        return list(_levels(value) or []) == list(recorded or [])
    if flag == "data_dir":
        recorded = recorded or env_folder("COURSE_DATA_DIR")  # None: the pool was read from $COURSE_DATA_DIR
        return recorded is not None and Path(value).expanduser().resolve() == Path(recorded).expanduser().resolve()
    return value == recorded


def _train_backend(args, use_vllm: bool | None) -> str:
    """`--backend` of `train` (TRL's colocated vLLM or transformers generate); --use-vllm/--no-use-vllm agree with it."""
    from .models import TINY_NAMES
    from .sampling import resolve_backend

    if use_vllm is not None and args.backend == "auto":  # --use-vllm / --no-use-vllm alone decide
        return resolve_backend("vllm" if use_vllm else "hf")
    if args.backend == "auto" and args.model in TINY_NAMES:  # the tiny world stays on transformers, as its profiles
        return "hf"
    backend = resolve_backend(args.backend)
    if use_vllm is not None and use_vllm != (backend == "vllm"):
        raise CourseError(f"--{'' if use_vllm else 'no-'}use-vllm contradicts --backend {args.backend}; give one of them")
    return backend


def _paper_keys(args, task: str) -> dict:
    """arXiv 2604.06298's batch-size keys: --paper-dataset and --model-size, else read from the pool's task and the
    model's name (as the grid does), else an error naming the flag to pass."""
    if args.settings != "2604.06298":
        return {}
    return {"dataset": args.paper_dataset or paper_dataset_of(task, flag="--paper-dataset"),
            "model_size": args.model_size or model_size_of(args.model, flag="--model-size")}


def check_train_flags_agree(args, lora_given: dict) -> None:
    """Flags that would be ignored are refused: LoRA settings for a full fine-tune, and the paper's choices
    (--paper-dataset, --model-size) with the course's own settings."""
    ignored = sorted(set(lora_given) - {"use_peft"})
    check(lora_given.get("use_peft") is not False or not ignored,
          f"--no-lora trains every weight, so {', '.join(ignored)} would be ignored; drop "
          f"{'them' if len(ignored) > 1 else 'it'}, or train LoRA")
    paper_only = [flag for flag, value in (("--paper-dataset", args.paper_dataset), ("--model-size", args.model_size))
                  if value]
    check(args.settings == "2604.06298" or not paper_only,
          f"{' and '.join(paper_only)} {'choose' if len(paper_only) > 1 else 'chooses'} among arXiv 2604.06298's "
          f"settings (--settings {args.settings} has one set); use --settings 2604.06298, or drop "
          f"{'them' if len(paper_only) > 1 else 'it'}")


def model_as_recorded(model: str) -> str:
    """The base model as a run records it: a folder given by a relative path as an absolute one (the run is then
    usable from any folder); a tiny name, a packaged model or a hub id as given."""
    from .models import TINY_NAMES
    from .models.packaged import PACKAGED_MODELS

    path = Path(model).expanduser()
    if model in TINY_NAMES or model in PACKAGED_MODELS or not path.exists():
        return model
    return str(path.absolute())


def warn_if_picked_among_ties(table, ids: list, strategy: str) -> None:
    """A strategy whose budget cuts through a block of problems with one selection key (`hard` on a pool mostly at
    p = 0, `medium` inside a block, `learnability` among p(1 - p) = 0) picks among them by the seed alone, as
    `random` does. Said, with the sizes (`selection.tie_at_the_cut`)."""

    from .selection import tie_at_the_cut

    if table["pass_rate"].nunique() == 1:  # every problem tied: said once by `cmd_select`
        return
    ties = [f"{tie['picked']} of {tie['tied']} problems tied at {tie['key']} {tie['value']:.2f}"
            for tie in tie_at_the_cut(table, strategy, len(ids))]  # medium's window may cut a block at each end
    if ties:
        warn(f"'{strategy}' picked {' and '.join(ties)}: among them the choice is the seed's, as random's is; more "
             "samples (--k) tell them apart")


def warn_if_chosen_for_another_model(ids, model: str) -> None:
    """Ids selected from another model's difficulty table train this one with a warning: "hard" was that model's
    hard (a transfer can be the point, so it is not refused)."""

    from .training import same_folder

    chosen_for = _read_provenance(ids, "ids").get("model")
    if chosen_for and str(chosen_for) != str(model) and not same_folder(chosen_for, model):
        warn(f"ids={ids} were selected from a difficulty table of {chosen_for}, and this run trains {model}: "
             f"their difficulty is {chosen_for}'s; estimate {model}'s own table to select for it")


def cmd_train(args) -> None:
    """GRPO on the selected problems; writes a run folder."""
    from .training import CourseConfig, course_lora, train_grpo

    given = {name: getattr(args, name) for name in args.config_flags if getattr(args, name) is not None}
    lora_given = {name: getattr(args, name) for name in args.lora_flags if getattr(args, name) is not None}
    check_train_flags_agree(args, lora_given)
    given["use_vllm"] = _train_backend(args, given.get("use_vllm")) == "vllm"
    if args.settings == "course":  # validated before any file is written
        config, peft_config = CourseConfig(**given), course_lora(**lora_given)
    else:
        config, peft_config = None, paper_lora(args.settings, **lora_given)
    _check_outputs(args, args.out, folder=True)
    check(not Path(args.out).expanduser().is_file(), f"out={args.out} is a file; give a folder for the run")
    pool, task = _training_pool(args)
    if config is None:  # the paper's values, with any flag given on the command line winning
        config = paper_train_config(args.settings, **_paper_keys(args, task), **given)
    problems = read_ids(args.ids, pool) if args.ids else pool
    if args.ids:
        warn_if_chosen_for_another_model(args.ids, args.model)
    check_own_folder(args.out, "train", "run_config.json", is_own=lambda marker: True)  # train_grpo reads it
    check_writable_folder(args.out)
    if args.settings != "course" and "max_steps" not in given:  # the paper's step count (profiles.paper_steps)
        config = replace(config, max_steps=paper_steps(args.settings, len(problems), config.prompts_per_step))
    saved = Path(args.out) / "summary.json"
    finished_before = saved.read_bytes() if saved.is_file() else None
    summary = train_grpo(model_as_recorded(args.model), problems, config, args.out, peft_config=peft_config,
                         progress=not args.quiet)
    if os.environ.get("RANK", "0") != "0":  # under accelerate launch: one line, not one per process
        return
    if finished_before is not None and saved.read_bytes() == finished_before:  # the same run, finished already
        print(f"already finished ({summary['steps']} steps), nothing trained; run folder {args.out}")
    elif summary.get("resumed_from") == summary["steps"]:  # its summary or final/ was rebuilt from the last checkpoint
        print(f"finished again from its checkpoint of step {summary['steps']} (final/ and summary.json rewritten), "
              f"nothing trained; run folder {args.out}")
    else:
        print(f"trained {summary['steps']} steps in {summary['seconds']} s; run folder {args.out}")


def cmd_evaluate(args) -> None:
    """Accuracy per level of a model or run folder; writes JSON."""
    from .evaluation import evaluate, model_for_backend

    problems = _sampled_problems(args)
    _check_file_outputs(args, "evaluate")
    _check_cache(args, None if args.no_cache else "default")
    warn_if_not_held_out(args.model, problems)
    backend = _backend(args)  # vllm: the run's LoRA merged into merged/, which vLLM loads; hf: loaded weights
    model, tokenizer = model_for_backend(args.model, backend)
    result = evaluate(model, tokenizer, problems, args.k, args.temperature, args.max_new_tokens, args.seed,
                      pass_k=(1, args.k), progress=not args.quiet, cache_dir=None if args.no_cache else "default",
                      backend=backend)
    result.update(model=args.model, base_sha256=base_fingerprint(args.model), task=args.task, split=args.split,
                  max_new_tokens=args.max_new_tokens, answer_format=pool_answer_format(problems),
                  pool=fingerprinted(_pool_spec(args, args.seed, args.levels), problems), **_provenance(args))
    _write_outputs(args, {args.out: sealed_json(result)}, "evaluate")
    problem_count = f"{len(problems):,} problem{'s' if len(problems) != 1 else ''}"
    print(f"accuracy {result['overall']['accuracy']:.3f} [{result['overall']['ci_low']:.3f}, "
          f"{result['overall']['ci_high']:.3f}] (95%, over these {problem_count} x {args.k} samples), "
          f"format share {result['overall'].get('format_share', float('nan')):.3f} on {problem_count}; "
          f"wrote {args.out}")


def warn_if_not_held_out(model: str, problems) -> None:
    """A run evaluated on problems it trained on, or asked in another answer format than it learned: one warning
    each (its held-out accuracy would read too high, or too low)."""

    from .training import read_run_config

    if not (Path(model) / "run_config.json").is_file():
        return
    run = read_run_config(Path(model))
    trained = set(run["problem_ids"])
    seen = [p.id for p in problems if p.id in trained]
    if seen:
        warn(f"{len(seen)} of the {len(problems)} problems evaluated were trained on by {model} (e.g. "
             f"{seen[0]}): its accuracy on them is not held-out; evaluate on problems it did not train on "
             "(another --split, or a file without them)")
    asked = pool_answer_format(problems)
    if run.get("answer_format") and run["answer_format"] != asked:
        warn(f"{model} was trained to answer in the {run['answer_format']!r} format, and these problems "
             f"ask for {asked!r}; give --answer-format {run['answer_format']} to evaluate it as it was "
             "trained")


def cmd_reproduce(args) -> int:
    """Run (or emit SLURM jobs for) every grid point of a study, then aggregate."""
    from .research import sweep

    slurm = {"gpus": args.slurm_gpus, "time_limit": args.slurm_time, "mem": args.slurm_mem, "cpus": args.slurm_cpus,
             "partition": args.slurm_partition, "cache_dir": args.cache_dir}
    given = {key: value for key, value in slurm.items() if value is not None}
    check(args.workers >= 1, f"workers={args.workers} must be >= 1")  # more than the points or cores: capped
    check_slurm_limits(args.slurm_time, args.slurm_mem, args.slurm_gpus, args.slurm_cpus)
    where, overrides = sweep.parse_where(args.where), sweep.parse_overrides(args.set, args.backend)
    planned = sweep.expand(args.study, args.profile, where, overrides)
    check_planned_points(planned, datasets_here=not args.emit_slurm)  # before any point runs (a cluster's nodes may
    # hold data the login node lacks)
    grid = sweep.expand(args.study, args.profile, where)
    axes = sorted(key for key in overrides if len({str(point.get(key)) for point in grid}) > 1)
    if axes:  # `--set SEED=1` on a 5-seed grid: one seed, not the study
        print(f"note: --set {', '.join(axes)} replaces a grid axis with one value: {len(grid)} points become "
              f"{len(planned)}; to run part of the grid, use --where", file=sys.stderr)
    check(args.emit_slurm or (not given and not args.delete_merged),
          "--slurm-*, --cache-dir and --delete-merged options need --emit-slurm")
    _check_outputs(args, args.out, folder=True)
    check_not_in_owned(args.out)  # not into a run folder or another study's points/, runs/, logs/
    check_untracked_study_files(args.out)
    if args.cache_dir or os.environ.get("COURSE_CACHE_DIR"):  # the kernels' or the jobs' cache (unset: OUT/cache)
        _check_cache(args, args.cache_dir or "default")
    if not sweep.holds_only_point_records(Path(args.out)):  # finished records copied in: the sweep resumes them
        check_own_folder(args.out, "reproduce", "grid.json", is_own=lambda marker: True)  # the sweep checks its grid
    if args.emit_slurm:
        with folder_lock(args.out):
            submit = sweep.emit_slurm(args.study, args.profile, args.out, where=where, overrides=overrides,
                                      delete_merged=args.delete_merged, **given)
        print(f"wrote warm.sh, array.sh, aggregate.sh and {submit}; submit them with `bash {submit}`")
        return 0
    if overrides.get("BACKEND") == "vllm":  # run here: refuse now, not once per point
        _backend(argparse.Namespace(backend="vllm"))
    check(not Path(args.out).expanduser().is_file(), f"out={args.out} is a file; give a folder")
    with folder_lock(args.out):  # a second sweep into this folder is refused while this one runs
        outcome = sweep.run(args.study, args.profile, args.out, workers=args.workers,
                            command=_provenance(args)["command"], progress=not args.quiet, where=where,
                            overrides=overrides, mixed_code=args.mixed_code)
    return _report_sweep(outcome, args.out)


MAX_SLURM_DAYS, MAX_SLURM_MEM_GB = 366, 64 * 1024  # a job's time and memory at most (a year, 64 TB)


def check_slurm_limits(time_limit: str | None, mem: str | None, gpus: int | None = None,
                       cpus: int | None = None) -> None:
    """--slurm-* as SLURM reads them, checked when the sweep is planned: a time above 0 and at most a year (SLURM
    reads 0 as no limit, which clusters refuse or cap), memory at most 64 TB (0: the node's), 0-64 GPUs and
    1-1,024 CPUs per task."""
    from .research.sweep import SLURM_MEM, SLURM_TIME

    check(gpus is None or 0 <= gpus <= 64, f"gpus={gpus} must be >= 0 (--slurm-gpus; 0 runs on CPU) and at most 64")
    check(cpus is None or 1 <= cpus <= 1024, f"cpus={cpus} must be >= 1 (--slurm-cpus) and at most 1,024")
    if time_limit is not None:
        check(len(time_limit) < 32 and SLURM_TIME.fullmatch(time_limit),
              f"time_limit={time_limit[:40]!r} must look like HH:MM:SS or D-HH:MM:SS (--slurm-time), e.g. 04:00:00")
        days, _, clock = time_limit.rpartition("-")
        parts = [int(part) for part in clock.split(":")]
        if days:  # D-H, D-H:M, D-H:M:S
            seconds = int(days) * 86400 + sum(v * u for v, u in zip(parts, (3600, 60, 1)))
        else:  # M, M:S, H:M:S
            seconds = sum(v * u for v, u in zip(parts, {1: (60,), 2: (60, 1), 3: (3600, 60, 1)}[len(parts)]))
        check(0 < seconds <= MAX_SLURM_DAYS * 86400,
              f"--slurm-time {time_limit} must be above 0 and at most {MAX_SLURM_DAYS} days (SLURM reads 0 as no "
              "limit, which clusters refuse or cap); give the time per job, e.g. 04:00:00, or leave it out for the "
              "cost model's estimate")
    if mem is not None:
        check(len(mem) < 32 and SLURM_MEM.fullmatch(mem), f"mem={mem[:40]!r} must look like 32G or 16000M (--slurm-mem)")
        gigabytes = int(mem.rstrip("KMGT")) / {"K": 1024**2, "M": 1024, "G": 1, "T": 1 / 1024}.get(mem[-1], 1024)
        check(gigabytes <= MAX_SLURM_MEM_GB, f"--slurm-mem {mem} is more than 64T per job; give the memory a job "
                                             "needs, e.g. 32G, or leave it out for the cost model's estimate")


def check_planned_points(points: list[dict], datasets_here: bool = True) -> None:
    """Every point of a sweep checked as it will run, before any runs: its numbers (`experiment.check_values`), the
    seed in numpy's range, and its training settings valid."""
    from .research.sweep import point_name

    checked = set()  # models and files already checked (a grid repeats them across seeds and arms)
    for values in points:
        backend = values.get("BACKEND", "hf")
        check(backend in ("hf", "vllm", "auto"), f"BACKEND={backend!r} is unknown; use hf, vllm or auto (--set)")
        point = Point.from_parameters({**values, "BACKEND": "hf"})  # vLLM and GPUs: checked where points run
        check_values(dataclasses.asdict(point))
        check_seed(point.seed, "SEED")
        for name in ("difficulty_k", "eval_k", "base_k", "ood_k"):  # K samples: a pass rate needs at least 2
            value = getattr(point, name)
            check(value >= 2 or (value == 0 and name != "ood_k") or (name == "ood_k" and point.ood_task == "none"),
                  f"{name.upper()}={value} must be at least 2 samples per problem"
                  + ("" if name == "ood_k" else " (0: the profile's value)"))
        check(point.budget > 0 and (isinstance(point.budget, int) or point.budget <= 1),
              f"BUDGET={point.budget} must be a fraction in (0, 1] (a float) or a count of problems (an integer)")
        try:
            resolved = resolve(point)
            train_config(resolved, max(1, resolved.pool_size))
            train_lora(resolved)
            _check_point_inputs(resolved, checked, datasets_here)
        except CourseError as error:
            raise CourseError(f"{error} (point {point_name(values)}: check --set)") from None


def _check_point_inputs(point, checked: set, datasets_here: bool = True) -> None:
    """A point's model name, its own data files (jsonl:PATH) and hub datasets, checked once each before any point
    runs: a misspelled model, a missing file or a dataset out of reach would otherwise fail every point, each after
    its kernel started."""
    from .models import resolve_model_path
    from .models.packaged import PACKAGED_MODELS

    if point.model not in checked and point.model not in PACKAGED_MODELS:  # packaged: converted where points run
        resolve_model_path(point.model)  # a folder that holds a model, a tiny name, or a hub id
    checked.add(point.model)
    # the split each role reads (experiment.training_pool, experiment.evaluation_sets)
    for task, split in ((point.task, "train"), (point.test_task or point.task, "test"), (point.ood_task, "test")):
        if isinstance(task, str) and task.startswith("jsonl:") and task not in checked:
            load_jsonl_problems(task.removeprefix("jsonl:"))  # exists, every row sound, ids unique
            checked.add(task)
        elif datasets_here and isinstance(task, str) and task not in ("", "none", *TASK_NAMES) \
                and (task, split) not in checked:
            source = source_of(task)  # a hub dataset (gsm8k, math, bbh, aime2025): in the local cache or reachable
            problems(task, split if split in SPLITS[source] else SPLITS[source][-1], 1, 0)
            checked.add((task, split))


def _report_sweep(outcome: dict, out: Path) -> int:
    """Print a sweep's outcome (failed and missing points on stderr); 1 if any point failed or is missing."""
    from .research.sweep import failed_name, point_name

    print(f"{outcome['points']} points saved, {len(outcome['failed'])} failed, {len(outcome['missing'])} missing; "
          f"results in {outcome['results']}")
    for failed in outcome["failed"]:
        error = failed.get("error", "no error recorded")
        aside = Path(out) / "points" / failed_name(failed["point"], ".ipynb")  # a retry of it was cut short
        shown = aside if aside.is_file() else Path(out) / "points" / f"{failed['point']}.ipynb"
        print(f"FAILED {failed['point']}: {error} (see {shown})", file=sys.stderr)
    for missing in outcome["missing"]:
        print(f"MISSING {point_name(missing)} (not run yet, still running, or its record was set aside; `reproduce` "
              "on this folder runs it)", file=sys.stderr)
    return 1 if outcome["failed"] or outcome["missing"] else 0


def cmd_sweep_point(args) -> int:
    """Run one grid point by index (what each SLURM array task does); a point already done is skipped."""
    from .research import sweep

    points = sweep.grid_points(Path(args.out), args.study, args.profile)  # the grid or slice `reproduce
    # --emit-slurm` wrote
    if not 0 <= args.index < len(points):
        raise CourseError(f"index={args.index} is outside the grid's 0-{len(points) - 1}")
    if sweep.done_record(Path(args.out), points[args.index]):
        print(f"{sweep.point_name(points[args.index])}: already done")
        return 0
    if os.environ.get("COURSE_CACHE_DIR"):  # the job script's cache, for this point's kernel
        _check_cache(args, "default")
    finished = [sweep.done_record(Path(args.out), p, set_aside=False) for p in points]  # other tasks' records: read
    sweep.check_same_code(Path(args.out), [record for record in finished if record])  # only, never moved
    sweep.check_same_versions(Path(args.out))  # an array task on a node whose environment or checkout differs
    log = Path(args.out) / "logs" / f"{sweep.point_name(points[args.index])}.kernel.log"  # its warnings, a crash
    record = sweep.run_point_notebook(points[args.index], Path(args.out), log=log)
    if args.delete_merged and record["status"] == "ok":  # the merged model (GBs) served evaluation only
        shutil.rmtree(Path(args.out) / "runs" / record["point"] / "merged", ignore_errors=True)
    print(f"{record['point']}: {record['status']}" + ("" if record["status"] == "ok" else
                                                       f" ({record['error']}; the kernel's own log: {log})"))
    return 0 if record["status"] == "ok" else 1


def cmd_aggregate(args) -> int:
    """Aggregate the saved records of a study's folder into results.csv and provenance.json (never trains)."""
    from .research import sweep

    sweep.check_study(args.study)
    check(not Path(args.out).exists() or Path(args.out).is_dir(), f"out={args.out} is a file; give the folder of a "
                                                                   "`reproduce` run (it holds grid.json)")
    check((Path(args.out) / "grid.json").is_file(), f"out={args.out} holds no grid.json; give the folder of a "
                                                     "`reproduce` run")
    check_untracked_study_files(args.out)
    with folder_lock(args.out):  # not while a `reproduce` writes into the folder
        outcome = sweep.collect(args.study, args.profile, args.out, command=_provenance(args)["command"])
    return _report_sweep(outcome, args.out)


def check_untracked_study_files(out) -> None:
    """`reproduce` and `aggregate` rewrite a folder's results.csv and provenance.json: never a committed study's (its
    provenance names the command, commit and versions that made it; data/results/reproduce.sh remakes it)."""
    for name in ("results.csv", "provenance.json"):
        check(not is_tracked(Path(out) / name),
              f"out={out} holds a committed {name} (the git repository tracks it), which this would rewrite; give "
              "another folder (a committed study is remade by `bash data/results/reproduce.sh STUDY`)")


def base_fingerprint(model: str) -> dict | None:
    """The sha256 of the weight files of the base model that `model` is (a model) or was trained from (a run
    folder's `run_config.json`); None where it is not known (a hub model not in the cache, an older run)."""
    from .models import weights_sha256

    config = Path(model) / "run_config.json"
    if config.is_file():
        try:
            recorded = json.loads(config.read_text(encoding="utf-8")).get("base_sha256")
        except (OSError, ValueError, AttributeError):
            return None
        return recorded if isinstance(recorded, dict) else None
    return weights_sha256(model)


def same_base_model(after: dict, before: dict) -> bool | None:
    """Whether two evaluations' models share a base model (their weight files' sha256); None where one is unknown."""
    fingerprints = [result.get("base_sha256") for result in (after, before)]
    if not all(isinstance(fingerprint, dict) and fingerprint for fingerprint in fingerprints):
        return None
    weights = [{name: sha for name, sha in fingerprint.items() if name.endswith((".safetensors", ".bin"))}
               for fingerprint in fingerprints]
    return bool(weights[0]) and weights[0] == weights[1]


def cmd_compare(args) -> None:
    """Paired bootstrap of two `evaluate` results on the same problems."""
    from .evaluation import check_same_settings, compare, read_evaluation

    after, before = (read_evaluation(path, name) for name, path in (("after", args.after), ("before", args.before)))
    check(not os.path.samefile(args.after, args.before),  # a link (hard or symbolic) to one file too
          f"after and before are the same file ({args.after}); give the evaluations of two models")
    check_same_settings(after, before)  # K as well: the command line compares evaluations made alike
    _check_file_outputs(args, "compare")
    result = compare(after, before, n_boot=args.n_boot, seed=args.seed)
    trained = [isinstance(r.get("model"), str) and (Path(r["model"]) / "run_config.json").is_file()
               for r in (after, before)]
    if trained == [False, True]:  # before is a run folder (a trained model), after is not
        print(f"note: before's model ({before.get('model')}) is a trained run and after's ({after.get('model')}) is "
              "not: are --after and --before the other way round? The gain's sign would be flipped", file=sys.stderr)
    same_base = same_base_model(after, before)
    if same_base is False:
        print(f"note: after's model ({after.get('model')}) was trained from, or is, another base model than "
              f"before's ({before.get('model')}): the difference includes the change of model, not only training",
              file=sys.stderr)
    if after.get("per_problem") == before.get("per_problem") and after.get("model") == before.get("model"):
        print("note: after and before hold the same results for every problem (one model evaluated twice, or a copy "
              "of one file): their gain is 0 by construction and says nothing of training", file=sys.stderr)
    elif after.get("per_problem") == before.get("per_problem"):
        print(f"note: after's model ({after.get('model')}) and before's ({before.get('model')}) gave the same results "
              "on every problem: training changed nothing these samples can see", file=sys.stderr)
    result.update(after=str(args.after), before=str(args.before), same_base_model=same_base, **_provenance(args))
    _write_outputs(args, {args.out: sealed_json(result)}, "compare")
    print(f"gain {result['mean_difference']:+.4f} [{result['ci_low']:+.4f}, {result['ci_high']:+.4f}] "
          f"over {result['problems']} problems; wrote {args.out}")


def cmd_figures(args) -> None:
    """Render the charts of docs/findings.md as PNGs from committed files."""
    from .classroom.plots import made_by_figures
    from .research.figures import FIGURES, write_figures

    _check_outputs(args, args.out, folder=True)
    check_not_in_owned(args.out)
    if Path(args.out).expanduser().resolve() != REPOSITORY / "docs" / "figures":  # the one course folder they belong in
        check_ignored_in_repository(args.out, "out")
    check_writable_folder(args.out)
    for name in FIGURES:
        path = Path(args.out) / name
        check(not path.exists() or (path.is_file() and made_by_figures(path)),
              f"out={args.out} holds a {name} that `figures` did not write; move it away or give another folder")
    with folder_lock(args.out):
        for path in write_figures(args.out):
            print(f"wrote {path}")


def _add_problem_args(parser, split: str, n_help: str = "problems (default: 500 of arith/shuffle, all of a dataset)"):
    """Which problems: task, split, how many, which levels, where real data lives, the answer format."""
    parser.add_argument("--task", default="arith", help=TASK_HELP)
    parser.add_argument("--split", default=split, help="train, test or ood (procedural); train or test (datasets)")
    parser.add_argument("--n", type=POOL, default=None, help=n_help)
    parser.add_argument("--levels", default=None, help="keep only these levels, e.g. 1,2,3")
    parser.add_argument("--data-dir", default=None,
                        help="local folder laid out like ../shared/data (default: $COURSE_DATA_DIR, else the hub)")
    parser.add_argument("--answer-format", default=None, choices=sorted(INSTRUCTIONS),
                        help="final-answer format asked for and checked (default: the dataset's own)")


def _add_sampling_args(parser, split: str, n: int, k: int) -> None:
    """The arguments `estimate` and `evaluate` share: which model, which problems, how to sample."""
    parser.add_argument("--model", required=True, help="run folder, tiny name, model folder or hub id")
    _add_problem_args(parser, split)
    parser.add_argument("--k", type=whole_number, default=k, help="samples per problem (at least 2)")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature")
    parser.add_argument("--max-new-tokens", type=whole_number, default=DEFAULT_NEW_TOKENS, help="completion length limit")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of problems and sampling")
    parser.add_argument("--backend", default="hf", choices=("hf", "vllm", "auto"),
                        help="hf (transformers generate), vllm (GPU), auto (vllm when installed with a GPU)")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not cache or resume (default: cached in $COURSE_CACHE_DIR or ~/.cache/course_lib)")


# CourseConfig fields `train` sets itself: the run folder is --out, progress bars follow --quiet, vLLM's context the
# longest prompt; and the batch fields (training.config.BATCH_FIELDS) follow --prompts-per-step and
# --micro-batch-prompts
NOT_FLAGS = ("output_dir", "disable_tqdm", "vllm_max_model_length")


def add_train_settings(train) -> None:
    """`train`'s settings: CourseConfig's fields (TRL's GRPOConfig) and TRL's ModelConfig LoRA fields, as flags."""
    from .training.config import BATCH_FIELDS, LORA_FLAGS, CourseConfig, CourseModelConfig, field_names

    train.set_defaults(config_flags=add_dataclass_flags(
        train, CourseConfig, [name for name in field_names(CourseConfig) if name not in (*NOT_FLAGS, *BATCH_FIELDS)],
        "training settings: a CourseConfig, which is TRL's GRPOConfig with the course's defaults (output_dir is --out; "
        "the batch follows --prompts-per-step and --micro-batch-prompts)"),
        lora_flags=add_dataclass_flags(train, CourseModelConfig, LORA_FLAGS,
                                       "LoRA: TRL's ModelConfig fields, given to trl.get_peft_config"))


def add_dataclass_flags(parser, config_class, names, title: str) -> list[str]:
    """One flag per field in `names` of a config dataclass, made by transformers' `HfArgumentParser`: help and older
    spellings (`aliases`) from the field's metadata, its default shown in the help. A flag not given parses as
    None, so a command knows which settings its command line chose. Returns the fields' names."""
    from transformers import HfArgumentParser
    from transformers.hf_argparser import string_to_bool

    made = HfArgumentParser(config_class, add_help=False)
    declared = {f.name: f for f in fields(config_class)}
    group = parser.add_argument_group(title)
    chosen = []
    for action in made._actions:
        if action.dest not in names or action.dest in chosen:  # (HfArgumentParser's own --no_* complements: below)
            continue
        field = declared[action.dest]
        default = field.default if field.default is not MISSING else field.default_factory()
        shown = getattr(default, "value", default)
        action.help = (action.help or field.name).replace("%", "%%") + f" (default: {shown!r})".replace("%", "%%")
        action.default = None
        if action.type is string_to_bool and action.nargs is None:  # bool | None: a bare --flag means True too
            action.nargs, action.const = "?", True
        group._add_action(action)  # the action itself: the type, choices and aliases HfArgumentParser chose
        chosen.append(action.dest)
        if action.type is string_to_bool and (default is True or field.name in vars(config_class)["__annotations__"]):
            spellings = [f"--no_{field.name}", f"--no-{field.name.replace('_', '-')}",
                         *(f"--no-{alias.removeprefix('--')}" for alias in field.metadata.get("aliases", []))]
            group.add_argument(*spellings, dest=field.name, action="store_false", default=None,
                               help=f"{field.name}=False")
    return chosen


def study_help() -> str:
    """The studies `reproduce`, `sweep-point` and `aggregate` know, by kind (data/results/STUDY/study.json)."""
    named = {kind: [name for name, study in STUDIES.items() if study.get("kind", "study") == kind] for kind in KINDS}
    return (f"{', '.join(named['study'])}, the probes {', '.join(named['probe'])}, or the pilots "
            f"{', '.join(named['pilot'])} (each defined by data/results/STUDY/study.json)")


def build_parser() -> argparse.ArgumentParser:
    """The `course_lib` command line."""
    if importlib.util.find_spec("torch") is None:  # first: a Python without the course's environment, in one line
        raise ModuleNotFoundError("No module named 'torch'", name="torch")  # (found, not loaded: --help stays quick)

    parser = OneLineParser(prog="course_lib", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)

    pretrain = commands.add_parser("pretrain", help="pretrain a tiny model from scratch (a few CPU minutes)")
    pretrain.add_argument("--size", default="tiny-m", help="tiny-s, tiny-sm, tiny-m or tiny-l")
    pretrain.add_argument("--steps", type=whole_number, default=2000, help="optimizer steps")
    pretrain.add_argument("--batch-size", type=whole_number, default=64, help="sequences per step")
    pretrain.add_argument("--lr", type=float, default=2e-3, help="peak learning rate")
    pretrain.add_argument("--seed", type=SEED, default=0, help="seed of weights and data")
    pretrain.add_argument("--levels", default=None, help="comma-separated levels to pretrain on (default: 1-5)")
    pretrain.add_argument("--wordy-share", type=float, default=0.0,
                          help="share of arith solutions written the long way (tiny-m-wordy: 0.5)")
    pretrain.add_argument("--tasks", default=None,
                          help="comma-separated tasks mixed evenly into the stream (default: arith,shuffle; with "
                               "tinymath the tokenizer also spells LaTeX)")
    pretrain.add_argument("--out", type=Path, required=True, help="folder for the checkpoint and manifest.json")
    pretrain.add_argument("--quiet", action="store_true", help="no progress bar")
    pretrain.set_defaults(run=cmd_pretrain)

    standin = commands.add_parser("standin", help="build the offline stand-in for the Qwen3 models (seconds)")
    standin.add_argument("--out", type=Path, required=True, help="folder for the model, tokenizer and standin.json")
    standin.add_argument("--corpus", type=Path, default=None,
                         help="GSM8K train.jsonl for the BPE (default: $COURSE_DATA_DIR/gsm8k/train.jsonl, "
                              "else a built-in corpus)")
    standin.add_argument("--seed", type=SEED, default=0, help="seed of the weights")
    standin.set_defaults(run=cmd_standin)

    calibrate = commands.add_parser("calibrate", help="pass rate per level of a tiny model at K samples")
    calibrate.add_argument("--model", required=True, help="tiny name, model folder or hub id")
    calibrate.add_argument("--task", default="arith", help=TASK_HELP)
    calibrate.add_argument("--n", type=POOL, default=500, help="training problems to sample")
    calibrate.add_argument("--max-new-tokens", type=whole_number, default=DEFAULT_NEW_TOKENS, help="completion length limit")
    calibrate.add_argument("--data-dir", default=None, help="local data folder (default: $COURSE_DATA_DIR, else the hub)")
    calibrate.add_argument("--k", type=whole_number, default=8, help="samples per problem")
    calibrate.add_argument("--temperature", type=float, default=1.0, help="sampling temperature")
    calibrate.add_argument("--seed", type=SEED, default=0, help="seed of problems and sampling")
    calibrate.add_argument("--write", action="store_true", help="store the report in the model's manifest.json")
    calibrate.add_argument("--quiet", action="store_true", help="no progress bar")
    calibrate.set_defaults(run=cmd_calibrate)

    gen = commands.add_parser("generate", help="print procedural problems as JSON Lines")
    gen.add_argument("--task", default="arith", help="arith, shuffle, tinymath or tinymath-numeric")
    gen.add_argument("--n", type=POOL, default=10, help="number of problems")
    gen.add_argument("--split", default="train", help="train, test or ood")
    gen.add_argument("--levels", default=None, help="comma-separated levels, e.g. 1,2,3")
    gen.add_argument("--seed", type=SEED, default=0, help="seed")
    gen.set_defaults(run=cmd_generate)

    est = commands.add_parser("estimate", help="pass rate of each problem over K samples -> difficulty table (CSV)")
    _add_sampling_args(est, split="train", n=500, k=8)
    est.add_argument("--cache-dir", type=folder_path, default=None,
                     help="resumable cache folder (default: $COURSE_CACHE_DIR, else ~/.cache/course_lib/difficulty)")
    est.add_argument("--allow-zero", action="store_true",
                     help="keep a table where over 95%% of 50+ problems have p = 0 (usually a prompt/format mismatch)")
    est.add_argument("--sampling-seed", type=SEED, default=None,
                     help="seed of sampling alone, e.g. fresh samples of the same pool (default: --seed)")
    est.add_argument("--out", type=FILE_OUT, required=True, help="the table as CSV (+ OUT.provenance.json)")
    est.add_argument("--quiet", action="store_true", help="no progress bar")
    est.set_defaults(run=cmd_estimate)

    sel = commands.add_parser("select", help="choose problem ids from a difficulty table under a budget")
    sel.add_argument("--table", type=Path, required=True, help="CSV written by `estimate`")
    sel.add_argument("--strategy", required=True, help="easy, medium, hard, random, learnability or levels")
    sel.add_argument("--budget", required=True, help="a fraction like 0.1 (any number written with a point or an "
                     "exponent, so 1.0 and 1e0 are the whole pool), or a count like 50; with --strategy levels, of "
                     "the problems at those levels")
    sel.add_argument("--levels", default=None, help="for --strategy levels: e.g. 1,2,3")
    sel.add_argument("--seed", type=SEED, default=0, help="seed for random choices and ties")
    sel.add_argument("--out", type=FILE_OUT, required=True, help="file of ids, one per line")
    sel.set_defaults(run=cmd_select)

    train = commands.add_parser("train", help="GRPO (TRL, optionally LoRA) on selected problems -> run folder")
    train.add_argument("--model", required=True, help="tiny name, model folder or hub id")
    train.add_argument("--task", default=None,
                       help="the pool's task (default: the pool `select` recorded beside --ids, else arith); "
                            "this and the pool flags below must agree with a recorded pool")
    train.add_argument("--split", default=None, help="split of the pool the ids come from (default: train)")
    train.add_argument("--n", type=POOL, default=None, help="pool size used by `estimate` (default: 500 for arith/shuffle)")
    train.add_argument("--pool-seed", type=SEED, default=None, help="pool seed used by `estimate` (default: 0)")
    train.add_argument("--pool-levels", default=None, help="levels used by `estimate` (default: all)")
    train.add_argument("--data-dir", default=None, help="local data folder (default: $COURSE_DATA_DIR, else the hub)")
    train.add_argument("--answer-format", default=None, help="answer format (default: the dataset's own)")
    train.add_argument("--ids", type=Path, default=None, help="ids file from `select` (default: the whole pool)")
    train.add_argument("--settings", default="course", choices=("course", "2508.14094", "2604.06298"),
                       help="training settings: the course's (the defaults below) or a paper's (profiles.py); "
                            "flags given here win over either")
    train.add_argument("--paper-dataset", default=None, choices=("math", "gsm8k"),
                       help="with --settings 2604.06298: math or gsm8k batch sizes (default: from the pool's task)")
    train.add_argument("--model-size", default=None, choices=("0.5B", "1.5B", "3B"),
                       help="with --settings 2604.06298: 0.5B, 1.5B or 3B (default: from the model's name)")
    train.add_argument("--backend", default="auto", choices=("hf", "vllm", "auto"),
                       help="generation in training: hf (transformers), vllm (TRL's colocated engine, GPU), "
                            "auto (vllm when installed with a GPU, except for the tiny models)")
    train.more_arguments = add_train_settings
    train.add_argument("--out", type=Path, required=True, help="run folder (resumes if it holds the same run)")
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.set_defaults(run=cmd_train)

    ev = commands.add_parser("evaluate", help="accuracy per level of a model or run folder -> JSON")
    _add_sampling_args(ev, split="test", n=500, k=4)
    ev.add_argument("--out", type=FILE_OUT, required=True, help="JSON file")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.set_defaults(run=cmd_evaluate)

    cmp_ = commands.add_parser("compare", help="paired bootstrap of two `evaluate` JSON files")
    cmp_.add_argument("--after", type=Path, required=True, help="evaluate JSON of the trained model")
    cmp_.add_argument("--before", type=Path, required=True, help="evaluate JSON of the base model")
    cmp_.add_argument("--n-boot", type=whole_number, default=5000, help="bootstrap resamples (1,000 to 100,000)")
    cmp_.add_argument("--seed", type=SEED, default=0, help="bootstrap seed")
    cmp_.add_argument("--out", type=FILE_OUT, required=True, help="JSON file")
    cmp_.set_defaults(run=cmd_compare)

    rep = commands.add_parser("reproduce", help="run a study's grid through the experiment notebook (papermill)")
    rep.add_argument("study", help=study_help())
    rep.add_argument("--profile", default="tiny", help="smoke, tiny or paper")
    rep.add_argument("--workers", type=whole_number, default=2,
                     help="points run in parallel (at most one per point left and per core)")
    rep.add_argument("--out", type=Path, required=True, help="folder for executed notebooks and results")
    rep.add_argument("--emit-slurm", action="store_true",
                     help="write SLURM jobs (warm.sh, array.sh, aggregate.sh, submit.sh) into --out instead of running")
    rep.add_argument("--slurm-gpus", type=whole_number, default=None, help="GPUs per array task (default: 1 for paper, else 0)")
    rep.add_argument("--slurm-time", default=None, metavar="HH:MM:SS",
                     help="time limit per job (default: the cost model's estimate per job, with a margin)")
    rep.add_argument("--slurm-mem", default=None, metavar="32G",
                     help="memory per job (default: from the model's size; 8G on the CPU profiles)")
    rep.add_argument("--slurm-cpus", type=whole_number, default=None, help="CPUs per array task (default: 2)")
    rep.add_argument("--slurm-partition", default=None, metavar="NAME", help="partition (default: the cluster's)")
    rep.add_argument("--cache-dir", type=folder_path, default=None,
                     help="difficulty cache shared by the array tasks (default: $COURSE_CACHE_DIR, else OUT/cache)")
    rep.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                     help="run (or emit jobs for) only a slice of the grid, e.g. --where SEED=0 --where TASK=arith")
    rep.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="set an experiment parameter of every point, e.g. --set MODEL=/models/Qwen3-4B")
    rep.add_argument("--backend", default="auto", choices=("hf", "vllm", "auto"),
                     help="sampling and TRL generation: hf, vllm (GPU), or auto: the profile's (paper: vLLM where "
                          "vLLM and a GPU are present; smoke and tiny: hf)")
    rep.add_argument("--delete-merged", action="store_true",
                     help="with --emit-slurm: delete each point's merged/ model (GBs) once it is evaluated")
    rep.add_argument("--mixed-code", action="store_true",
                     help="resume a folder whose finished points ran other library code (a commit since which "
                          "course_lib changed): refused without it, as one table would mix two versions")
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    rep.set_defaults(run=cmd_reproduce)

    point = commands.add_parser("sweep-point", help="run one grid point of a study by index (SLURM array task)")
    point.add_argument("study", help=study_help())
    point.add_argument("--profile", default="tiny", help="smoke, tiny or paper")
    point.add_argument("--index", type=whole_number, required=True, help="point index, 0-based")
    point.add_argument("--out", type=Path, required=True, help="the study's output folder (holds grid.json)")
    point.add_argument("--delete-merged", action="store_true", help="delete the point's merged/ model once evaluated")
    point.set_defaults(run=cmd_sweep_point)

    agg = commands.add_parser("aggregate", help="results.csv + provenance.json from a study folder's saved points")
    agg.add_argument("study", help=study_help())
    agg.add_argument("--profile", default="tiny", help="smoke, tiny or paper")
    agg.add_argument("--out", type=Path, required=True, help="the study's output folder (holds grid.json)")
    agg.set_defaults(run=cmd_aggregate)

    fig = commands.add_parser("figures", help="render the key charts of docs/findings.md as PNGs (offline, vl-convert)")
    fig.add_argument("--out", type=Path, default=REPOSITORY / "docs" / "figures",
                     help="folder for the PNGs (default: the checkout's docs/figures, from any folder)")
    fig.set_defaults(run=cmd_figures)

    copies = commands.add_parser("copies", help="the notebooks' copies for a class: student (no solutions) or "
                                                "instructor (as make lab and make lab-instructor open them)")
    copies.add_argument("kind", choices=("student", "instructor"), help="student: no solutions or quiz answers; "
                                                                        "instructor: everything")
    copies.add_argument("folder", type=Path, help="where the copies go (a git-ignored folder, e.g. lab/student)")
    copies.set_defaults(run=cmd_copies)

    notebooks = commands.add_parser("notebooks", help="execute every notebook (numbered ones, then experiment) with papermill")
    notebooks.add_argument("--profile", default="tiny", help="smoke, tiny or paper")
    notebooks.add_argument("--out", type=Path, default=None,
                           help="folder for executed notebooks (default: build/PROFILE, e.g. build/tiny)")
    notebooks.add_argument("--only", nargs="*", help="notebook number prefixes to run, e.g. 00 03")
    notebooks.add_argument("--quiet", action="store_true", help="no progress bar")
    notebooks.set_defaults(run=cmd_notebooks)
    return parser


MAX_THREADS = 1024  # OMP_NUM_THREADS at most: more threads than any machine's cores (100,000 crashes the import)


class Stopped(KeyboardInterrupt):
    """SIGTERM (a scheduler's time limit, `kill`) or SIGHUP (a closed terminal), raised where the command is, as
    Ctrl-C is: what is being written is cleaned up, what was saved stays, and the command says so in one line."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_stopped(signum, frame):
    raise Stopped(signum)


def _stop_on_signals() -> dict:
    """Route SIGTERM and SIGHUP to `Stopped` (main thread only); returns the handlers to restore."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, _raise_stopped) for signum in (signal.SIGTERM, signal.SIGHUP)}


def main(argv=None) -> int:
    """Entry point: run one command; bad input -> one line on stderr, exit status 2."""
    argv = sys.argv[1:] if argv is None else list(argv)
    threads = os.environ.get("OMP_NUM_THREADS", "").strip()
    if "OMP_NUM_THREADS" in os.environ and not threads:
        del os.environ["OMP_NUM_THREADS"]  # `OMP_NUM_THREADS=` means unset (OpenMP would call it invalid)
    if (threads and not re.fullmatch(r"[0-9]{1,4}(,[0-9]{1,4})*", threads)) or any(
            not 1 <= int(n) <= MAX_THREADS for n in re.findall(r"[0-9]+", threads)):
        # before torch loads: OpenMP prints its own complaint for 0 or 'abc', and 100000 crashes the import
        print(f"error: OMP_NUM_THREADS={threads!r} must be a whole number of threads from 1 to {MAX_THREADS:,} (or "
              "unset, and the course uses the idle cores)", file=sys.stderr)
        return 2
    absolute_env_folders()  # COURSE_CACHE_DIR=cache means ./cache for the kernels a sweep starts too
    try:
        parser = build_parser()  # finds torch: the first thing a missing environment breaks
    except ModuleNotFoundError as error:
        print(f"error: {missing_environment(error)}", file=sys.stderr)
        return 2
    except CourseError as error:  # e.g. a study.json being written that is not valid yet: the study list reads it
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C in the first seconds, while the libraries load: nothing started yet
        print("interrupted before the command started", file=sys.stderr)
        return 130
    for stream in ("stdout", "stderr"):  # a closed stream (`>&-`): what would be printed goes nowhere, not a traceback
        if getattr(sys, stream) is None:
            setattr(sys, stream, open(os.devnull, "w"))  # noqa: SIM115 (open for the rest of the process)
    try:  # parsing imports more (train's settings: TRL), and --quiet imports transformers: still nothing started
        args = parser.parse_args(argv)
        args.argv = argv
        use_threads()  # torch threads from the idle cores, unless OMP_NUM_THREADS is set (docs/command_line.md)
        if getattr(args, "quiet", False):
            _silence_libraries()
    except KeyboardInterrupt:
        print("interrupted before the command started", file=sys.stderr)
        return 130

    shown, warnings.formatwarning = warnings.formatwarning, _warning_line  # restored when the command ends
    args.locks = contextlib.ExitStack()  # the output files' locks a command takes (`_check_file_outputs`)
    sys.stdout = printed = _StandardOutput(sys.stdout)  # restored when the command ends
    handlers = _stop_on_signals()  # restored when the command ends
    try:
        expand_paths(args)
        with args.locks:
            code = args.run(args) or 0
        sys.stdout.flush()  # a reader that closed the pipe (`... | head`) shows here, not at interpreter exit
        return code
    except BrokenPipeError:  # the reader has what it wanted: stop quietly, with a shell's status for SIGPIPE
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's own flush goes nowhere
        return 141
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as error:
        cause = f"stopped by {signal.Signals(error.signum).name}" if isinstance(error, Stopped) else "interrupted"
        again = ("run the same command again (each notebook runs again from its start)" if args.run is cmd_notebooks
                 else "run the same command again to resume (estimates, sweeps and training runs resume from what "
                      "they saved)")
        print(f"{cause}; {again}", file=sys.stderr)
        return 128 + error.signum if isinstance(error, Stopped) else 130
    except StandardOutputError as error:  # a full disk or device behind `> file`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's own flush goes nowhere
        print(f"error: standard output could not be written ({error.strerror or error}): what the command printed "
              "is incomplete; the files it wrote (--out) are whole", file=sys.stderr)
        return 2
    except OSError as error:  # a path that could not be read or written after the early checks
        where = f"{error.filename}: " if error.filename else ""
        print(f"error: {where}{error.strerror or error}; check the path, its permissions and free disk space",
              file=sys.stderr)
        return 2
    finally:
        warnings.formatwarning = shown
        sys.stdout = printed.stream
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


class StandardOutputError(OSError):
    """Standard output could not be written (not a closed pipe: that stays a BrokenPipeError)."""


class _StandardOutput:
    """sys.stdout whose write errors say they are standard output's, so the error line names it, not a path."""

    def __init__(self, stream):
        self.stream = stream

    def _tagged(self, action, *args):
        try:
            return action(*args)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise StandardOutputError(error.errno, error.strerror) from error

    def write(self, text):
        return self._tagged(self.stream.write, text)

    def flush(self):
        return self._tagged(self.stream.flush)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def expand_paths(args) -> None:
    """Every path option with `~` expanded (a shell leaves `--out=~/x` as it is, and a command that expanded it in
    one place but not another would write to two folders) and named in UTF-8 (libraries that write a folder's
    README cannot encode other bytes), each name short enough for the file system."""
    if isinstance(getattr(args, "task", None), str):
        args.task = absolute_task(args.task)
    for name, value in vars(args).items():
        if isinstance(value, Path):
            try:
                str(value).encode("utf-8")
            except UnicodeEncodeError:
                raise CourseError(f"{name}={os.fsencode(value)!r} has bytes that are not UTF-8 in its name; give a "
                                  "name in UTF-8") from None
            control = next((c for c in str(value) if ord(c) < 32 or ord(c) == 127), None)
            if control is not None:
                raise CourseError(f"{name}={str(value)!r} has a control character ({control!r}) in its name, which "
                                  "scripts and file browsers show wrongly; give a name without it")
            check_name_lengths(value.expanduser(), name)
            setattr(args, name, value.expanduser())


def _warning_line(message, category, filename, lineno, line=None) -> str:
    """A warning on the command line is one line, like an error (not the file, line and source of the call)."""
    return f"warning: {message}\n"


def missing_environment(error: ModuleNotFoundError) -> str:
    """One line for a Python without the course's packages: which module is missing and how to get the environment."""
    return (f"this Python ({sys.executable}) has no module {error.name!r}: the course's environment is not active; "
            "run `make env` once, then `source .venv/bin/activate` (or call .venv/bin/python directly)")


def _silence_libraries() -> None:
    """--quiet: no progress bars or deprecation warnings from transformers, datasets or TRL."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("DATASETS_VERBOSITY", "error")
    warnings.simplefilter("ignore", FutureWarning)
    warnings.simplefilter("ignore", DeprecationWarning)
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()


def command_line() -> None:
    """`python -m course_lib` and the `course-lib` script: run `main`, then exit with its status. A Ctrl-C after the
    command has finished (while the interpreter shuts down) is ignored: the work is done and saved."""
    code = main()

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


if __name__ == "__main__":
    command_line()
