"""Batch reproduction: run the experiment notebook once per grid point with papermill, resumably (05).

`python -m course_lib reproduce STUDY --profile P --workers N --out DIR` expands a named grid,
executes the template `course_lib/templates/experiment.ipynb` per point (in worker processes), keeps every executed
notebook, skips points already done, records failures, and aggregates one results table plus a
provenance file. Introduced in notebooks/05_hard_examples_win.ipynb.

On a SLURM cluster: `python -m course_lib reproduce STUDY --profile paper --out DIR --emit-slurm` (options
`--slurm-gpus/-time/-mem/-cpus/-partition`, `--cache-dir`) writes DIR/warm.sh (one point per difficulty table),
DIR/array.sh (every point; done ones are skipped), DIR/aggregate.sh and DIR/submit.sh; run `bash DIR/submit.sh`
to submit the three jobs in that order, logs go to DIR/logs. `python -m course_lib aggregate STUDY --profile P
--out DIR` re-collects the saved records at any time without training.
"""

from __future__ import annotations

import csv
import ctypes
import dataclasses
import hashlib
import importlib.util
import io
import itertools
import json
import math
import os
import re
import shlex
import signal
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from ..classroom.notebooks import execute
from ..classroom.runtime import available_cores, progress_bar, use_threads
from ..errors import CourseError, check, warn
from ..models import PACKAGED_MODELS, TINY_NAMES, weights_sha256
from ..paths import EXPERIMENT_TEMPLATE, REPOSITORY, env_folder
from ..problems import absolute_task, data_dir_from_env
from ..provenance import (
    atomic_write_text,
    atomic_write_texts,
    check_writable_folder,
    code_changed_since,
    file_sha256,
    fresh_log,
    git_commit,
    is_lock_file,
    library_versions,
    read_record,
    text_sha256,
)
from .cost import slurm_limits
from .definitions import failed_name, point_name
from .experiment import Point
from .profiles import get_profile
from .studies import COUNTS, RANGES, RECORD_SEAL, SHARES, STUDIES, gain_disagreement, results_table

EXPERIMENT = EXPERIMENT_TEMPLATE


def check_study(study: str) -> None:
    """A study's name must be one of STUDIES (a folder with a study.json); list them when it is not."""
    check(study in STUDIES, f"study={study!r} is unknown; use one of {', '.join(STUDIES)}")


def expand(study: str, profile: str, where: dict | None = None, overrides: dict | None = None) -> list[dict]:
    """The grid points of a study in a profile, in a stable order; `where` keeps a slice (e.g. {"SEED": "0"});
    `overrides` sets parameters of every point (e.g. {"BACKEND": "hf"}, or a local copy of the MODEL)."""
    check_study(study)
    grids = STUDIES[study]["grid"]
    check(profile in grids, f"profile={profile!r} has no grid for {study}; use one of {', '.join(grids)}")
    parts = _as_list(grids[profile]) + _as_list(STUDIES[study].get("also", {}).get(profile))
    points = [point for grid in parts for point in _product(STUDIES[study]["fixed"], grid, profile)]
    twice = [point_name(p) for i, p in enumerate(points) if p in points[:i]]
    check(not twice, f"{study}'s {profile!r} grid gives point {twice[0] if twice else ''} twice (a value listed twice, "
                     f"or a point both its grid and `also` make); list each once in data/results/{study}/study.json")
    keys = sorted({key for grid in parts for key in grid})
    for key, value in (where or {}).items():
        check(key in keys, f"where: {key!r} is not a grid key of {study}; use one of {', '.join(keys)}")
        values = sorted({str(p.get(key)) for p in points}, key=lambda text: (len(text), text))
        points = [p for p in points if str(p.get(key)) == str(value)]
        check(points, f"where={where!r} leaves no point of {study} ({profile}); {key} takes {', '.join(values)}")
    if overrides:
        points = [{**p, **overrides} for p in points]
        points = [p for i, p in enumerate(points) if p not in points[:i]]  # overrides may make two points one
    return points


ASCII_NUMBERS = {"int": r"-?[0-9]+", "float": r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?"}


def _ascii_number(kind: type):
    """int or float of a number written in ASCII digits; Python's own would also take '1_0', '+4', 'nan', 'inf' and
    other scripts' digits, which a typo or a pasted value can carry unnoticed."""
    def parse(text: str):
        if not re.fullmatch(ASCII_NUMBERS[kind.__name__], text.strip()):
            raise ValueError(text)
        return kind(text)
    return parse


POINT_TYPES = {"int": _ascii_number(int), "float": _ascii_number(float),
               "bool": lambda text: {"true": True, "false": False}[text.lower()], "str": str}


def parse_overrides(pairs, backend: str = "auto") -> dict:
    """`--set KEY=VALUE` pairs (and `--backend`) as experiment parameters of the right type; a clear error otherwise."""
    types = {f.name.upper(): f.type for f in dataclasses.fields(Point) if f.name not in ("run_dir", "profile")}
    overrides = {}
    for key, value in parse_where(pairs, option="--set").items():
        check(key in types, f"--set {key}=...: {key} is not an experiment parameter; use one of {', '.join(sorted(types))}")
        check(value.strip() != "", f"--set {key}= has no value; give one, or leave {key} out for the study's own")
        try:
            overrides[key] = POINT_TYPES[types[key]](value)
            if key == "BUDGET" and re.fullmatch(r"[0-9]+", value.strip()):
                overrides[key] = int(value)  # a count of problems, as `select --budget 50`; 0.1 is a fraction
            if key.endswith("TASK"):  # a jsonl: file from the user's folder, not the kernel's
                overrides[key] = absolute_task(value)
            if key == "MODEL" and value in TINY_NAMES and Path(value).is_dir():
                warn(f"MODEL={value} is the course's tiny model, not the folder ./{value} here; give ./{value} for it")
            if key == "MODEL" and value not in (*TINY_NAMES, *PACKAGED_MODELS) and Path(value).expanduser().is_dir():
                overrides[key] = str(Path(value).expanduser().resolve())  # a folder here (`mymodel` too), found by
                # the kernel from OUT/points, where the bare name would be a hub id
        except CourseError:
            raise  # the value's own check (`TASK=jsonl:<(cat f)`: a pipe, not a file) says what is wrong and the fix
        except (KeyError, ValueError):
            kind = {"int": "a whole number", "float": "a number", "bool": "True or False"}.get(types[key], types[key])
            raise CourseError(f"--set {key}={value!r}: {key} takes {kind}") from None
    if backend != "auto":
        check(overrides.get("BACKEND", backend) == backend, "--backend and --set BACKEND=... disagree; give one of them")
        overrides["BACKEND"] = backend
    return overrides


def _as_list(grids) -> list[dict]:
    """A profile's grid as a list of grids: one grid, several (e.g. a seed count per model), or none."""
    return [] if not grids else list(grids) if isinstance(grids, list) else [grids]


def _product(fixed: dict, grid: dict, profile: str) -> list[dict]:
    """Every combination of a grid's lists, each with the profile and the study's fixed parameters."""
    keys = sorted(grid)
    return [{"PROFILE": profile, **fixed, **dict(zip(keys, values))}
            for values in itertools.product(*(grid[k] for k in keys))]


def parse_where(pairs, separator: str = "=", option: str = "where") -> dict:
    """A slice of a grid from KEY=VALUE pairs (the CLI's --where; notebooks use ':' for papermill's sake)."""
    bad = [pair for pair in pairs if separator not in pair]
    check(not bad, f"{option}: {bad[0]!r} must look like KEY{separator}VALUE, e.g. SEED{separator}0" if bad else "")
    keys = [pair.split(separator, 1)[0] for pair in pairs]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    check(not twice, f"{option}: {twice[0] if twice else ''} is given twice (the second would replace the first); "
                     "give each key once (one slice per run)")
    return dict(pair.split(separator, 1) for pair in pairs)


def check_parameters(points: list[dict], notebook: Path = EXPERIMENT) -> None:
    """Every key a point passes must be a parameter the experiment notebook declares."""
    import papermill

    declared = set(papermill.inspect_notebook(str(notebook)))
    unknown = sorted({key for point in points for key in point} - declared)
    check(not unknown, f"grid key(s) {unknown} are not parameters of {notebook.name}; it declares {sorted(declared)}")


DAMAGED_GRID_FIX = ("restore it (git checkout, or a copy); or run the study into "
                    "a new folder with the finished points/*.json copied in (the sweep resumes them)")


def _read_json(path: Path, what: str):
    """A JSON file the sweep wrote; a clear error naming it when it cannot be read."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, IsADirectoryError) as error:
        fix = DAMAGED_GRID_FIX if path.name == "grid.json" else "delete it and run again"  # a grid holds the plan
        raise CourseError(f"{path} ({what}) is damaged ({type(error).__name__}); {fix}") from None


def _check_out_dir(out: Path, study: str, points: list[dict], overrides: dict | None = None) -> None:
    """Refuse an output folder that holds results of a different grid, or of other weights under a model's name;
    otherwise record this grid and the fingerprint of each model it names."""
    grid_file = out / "grid.json"
    grid = {"study": study, "points": points, **({"overrides": overrides} if overrides else {})}
    if grid_file.exists():
        saved = _read_json(grid_file, "the grid of this folder")
        same = isinstance(saved, dict) and {k: v for k, v in saved.items() if k in GRID_KEYS} == grid
        if not same and isinstance(saved, dict) and saved.get("study") == study and isinstance(saved.get("points"), list):
            names = {point_name(p) for p in points}
            part = all(isinstance(p, dict) and point_name(p) in names for p in saved["points"])
            check(not part, f"out={out} holds a slice of this grid ({len(saved['points'])} of its {len(points)} "
                            "points, e.g. from --where): its finished points are this grid's; run the whole grid in a "
                            "new folder holding a copy of OUT/points/*.json in its points/ (a sweep resumes from them)")
        check(same, f"out={out} holds results of another grid ({grid_difference(saved, grid)}): its finished records "
                    "stay there; run this grid in a new folder (a record of a point both grids hold is reused when "
                    "copied into the new folder's points/)")
        check_same_models(out, saved.get("models"))
        check_same_files(out, saved.get("files"))
    else:
        models, files = model_fingerprints(points), file_fingerprints(points)
        atomic_write_text(grid_file, json.dumps({**grid, **({"models": models} if models else {}),
                                                 **({"files": files} if files else {}),
                                                 "versions": library_versions()}, indent=1) + "\n")


GRID_KEYS = ("study", "points", "overrides")  # what makes a grid; grid.json's other keys are fingerprints or notes


def grid_difference(saved, grid: dict) -> str:
    """What sets a folder's saved grid apart from this run's, in words (05)."""
    if not isinstance(saved, dict) or not isinstance(saved.get("points"), list):
        return "its grid.json holds no list of points"
    if saved.get("study") != grid["study"]:
        return f"it is study {saved.get('study')!r}'s"
    if saved.get("overrides", {}) != grid.get("overrides", {}):
        return f"it ran with --set {saved.get('overrides') or {}}, this run with --set {grid.get('overrides') or {}}"
    theirs = [p for p in saved["points"] if isinstance(p, dict)]
    if {point_name(p) for p in grid["points"]} < {point_name(p) for p in theirs}:
        return (f"this run is a slice of it, {len(grid['points'])} of its {len(theirs)} points (--where?): run "
                "without --where to resume it, or give the slice a new folder")
    differ = [key for key in sorted({key for p in theirs + grid["points"] for key in p})
              if {repr(p.get(key)) for p in theirs} != {repr(p.get(key)) for p in grid["points"]}]
    return (f"its points differ in {', '.join(differ[:3]) or 'their order'}: another --where slice, or the study's "
            "definition changed since")


def model_fingerprints(points: list[dict]) -> dict:
    """Each model the points name, with the sha256 of its weights and settings files (config, generation config,
    tokenizer) as this shell resolves the name (None: a hub model not downloaded here)."""

    def fingerprint(name: str):
        try:
            return weights_sha256(name)
        except CourseError:  # a name no folder or cache holds here: each point says so when it runs
            return None

    return {name: fingerprint(name) for name in sorted({str(p["MODEL"]) for p in points if p.get("MODEL")})}


def check_same_models(out: Path, planned: dict | None) -> None:
    """The models a folder's points were planned with are the ones a name resolves to now (COURSE_MODELS_DIR set in
    one shell and not in another gave one results.csv two models under one name; an edited generation_config.json
    changes what the same weights sample). A grid from before settings files were recorded holds the weights' sha256
    alone, and is checked on them."""
    if not isinstance(planned, dict):  # a grid written before models were recorded
        return
    now = model_fingerprints([{"MODEL": name} for name in planned])
    for name, then in planned.items():
        current = now.get(name)
        if not then or not current:
            continue
        then = {"model.safetensors": then} if isinstance(then, str) else then
        changed = [file for file in sorted(then) if isinstance(then, dict) and current.get(file) != then[file]]
        check(not changed, f"out={out} was planned with other weights under the name {name!r} (the sha256 of its "
                           f"{changed[0] if changed else ''} differs: COURSE_MODELS_DIR or the model's folder is not "
                           "what it was); run with the same models, or use a new folder")


def inputs_sha256(point: dict) -> dict:
    """What a point's record says it read, as this shell resolves it: `model_sha256` (its one weight file's sha256,
    or one over its weight files'), `model_settings_sha256` (one over its settings files: stop tokens, tokenizer,
    config) and, for `jsonl:` files, `data_sha256`; unknown ones left out. A record copied in from another folder is
    resumed only when they still hold."""
    def one(mapping: dict) -> str:
        return hashlib.sha256(json.dumps(mapping, sort_keys=True).encode()).hexdigest()

    found = {}
    model = (model_fingerprints([point]).get(str(point["MODEL"])) if point.get("MODEL") else None) or {}
    weights = {name: sha for name, sha in model.items() if name.endswith((".safetensors", ".bin"))}
    if weights:
        found["model_sha256"] = next(iter(weights.values())) if len(weights) == 1 else one(weights)
    settings = {name: sha for name, sha in model.items() if name not in weights}
    if settings:
        found["model_settings_sha256"] = one(settings)
    files = file_fingerprints([point])
    if files:
        found["data_sha256"] = one(files)
    return found


INPUTS = ("model_sha256", "model_settings_sha256", "data_sha256")  # a record's fingerprints of what it read


def data_sha256_before_hub(point: dict) -> str | None:
    """A point's `data_sha256` as records made before datasets read from the hub were fingerprinted wrote it: over
    its other files alone (such a record is resumed; its grid says where its data came from)."""
    files = {key: sha for key, sha in file_fingerprints([point]).items() if sha != "hub"}
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest() if files else None


def file_fingerprints(points: list[dict]) -> dict:
    """Each `jsonl:` file the points read (TASK, TEST_TASK, ...), with its sha256 (None: missing here), and each real
    dataset they read as `gsm8k data`: one sha256 over the files of its local copy (COURSE_DATA_DIR; its ids are
    line numbers, so another copy would give them to other questions), or "hub" where it is read from the hub."""
    keys = {str(v)[len("jsonl:"):] for p in points for v in p.values() if str(v).startswith("jsonl:")}
    keys |= {f"{DATA_FOLDERS[task]} data" for point in points for task in tasks_read(point) if task in DATA_FOLDERS}
    root = data_dir_from_env()
    return {key: fingerprint_of(key, root) for key in sorted(keys)}


def fingerprint_of(key: str, root: Path | None) -> str | None:
    """The sha256 of what a grid's `files` entry names: a `jsonl:` file's path, or `FOLDER data` for a dataset's local
    copy under `root` (COURSE_DATA_DIR; "hub" where none is set); None where it is not here."""
    if key.endswith(" data"):
        return dataset_sha256(root / key[:-len(" data")]) if root is not None else "hub"
    return remembered_file_sha256(Path(key)) if Path(key).is_file() else None


DATA_FOLDERS = {"gsm8k": "gsm8k", "math": "math", "math-numeric": "math", "bbh": "bbh", "aime2025": "aime2025"}


def tasks_read(point: dict) -> set[str]:
    """The tasks a point reads problems of: its TASK, TEST_TASK and OOD_TASK, or its profile's where it leaves them."""
    try:
        profile = get_profile(point["PROFILE"]) if point.get("PROFILE") else None
    except CourseError:  # an unknown profile is refused elsewhere, in one line
        profile = None
    named = {key: str(value) for key, value in point.items() if key.endswith("TASK") and value}
    defaults = {"TASK": profile.task, "OOD_TASK": profile.ood_task} if profile else {}
    return set(named.values()) | {task for key, task in defaults.items() if key not in named and task}


def dataset_sha256(folder: Path) -> str | None:
    """One sha256 over the files of a dataset's folder, by name (None: no such folder here); hidden files and
    editors' backups (`.DS_Store`, `.~lock.test.jsonl#`, `test.jsonl~`) are no data."""
    if not folder.is_dir():
        return None
    files = {path.name: remembered_file_sha256(path) for path in sorted(folder.iterdir())
             if path.is_file() and not path.name.startswith(".") and not path.name.endswith("~")}
    return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()


_HASHED: dict[tuple, str] = {}  # file sha256s this process has read, by path, inode, size and times


def remembered_file_sha256(path: Path) -> str:
    """sha256 of a data file, hashed once per process while its inode, size and times stay the same (a resumed sweep
    checks every record against the same files: a dataset is megabytes)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
    if key not in _HASHED:
        _HASHED[key] = file_sha256(path)
    return _HASHED[key]


def check_same_files(out: Path, planned: dict | None) -> None:
    """The `jsonl:` files a folder's points were planned with are unchanged (an edited file resumed into the same
    table would put two datasets in one results.csv)."""
    if not isinstance(planned, dict):  # a grid written before files were recorded
        return
    root = data_dir_from_env()
    now = {key: fingerprint_of(key, root) for key, sha in planned.items() if sha}
    changed = [key for key, sha in now.items() if sha != planned[key]]
    hub = [key for key in changed if "hub" in (planned[key], now[key])]
    check(not hub, f"out={out} was planned reading {hub[0][:-len(' data')] if hub else ''} from "
                   f"{'the hub' if hub and planned[hub[0]] == 'hub' else 'a local copy'}, and now reads it from "
                   f"{'a local copy (COURSE_DATA_DIR)' if hub and planned[hub[0]] == 'hub' else 'the hub'}: its "
                   "finished points read the other; set or unset COURSE_DATA_DIR as when it was planned, or use a new "
                   "folder")
    check(not changed, f"out={out} was planned with another version of {changed[0] if changed else ''} (its sha256 "
                       "differs, or it is gone: another COURSE_DATA_DIR reads another copy): its finished points read "
                       "the old one; restore it (or point COURSE_DATA_DIR at the copy it was planned with), or use a "
                       "new folder")


def run_point_notebook(point: dict, out: Path, notebook: Path = EXPERIMENT, log: Path | None = None) -> dict:
    """Execute the experiment notebook for one point; returns its record (status ok or failed).

    `log`: a file for the kernel's stderr (a worker process sends it to the worker's log instead).
    """
    name = point_name(point)
    tried = _set_aside_failed_try(out, name, log)
    start = time.time()
    record = {"point": name, **{k.lower(): v for k, v in point.items()}}
    try:
        parameters = {**point, "RUN_DIR": str((out / "runs" / name).resolve())}
        record.update(status="ok", **execute(notebook, out / "points", parameters, name=f"{name}.ipynb",
                                             log=log)["records"])
    except Exception as error:  # a failed point is recorded with its error; the sweep goes on
        record.update(status="failed", error=f"{type(error).__name__}: {str(error).splitlines()[-1] if str(error) else ''}",
                      traceback=traceback.format_exc(limit=3))
    record["seconds"] = round(time.time() - start, 1)
    record["commit"] = git_commit()  # the code this point ran with (a resumed sweep may mix commits)
    record.update(inputs_sha256(point))  # which model and data the names meant here (a record may be copied)
    record = json.loads(json.dumps(record, default=str))  # as it reads back from its file
    record[RECORD_SEAL] = record_seal(record)
    saved = out / "points" / f"{name}.json" if record["status"] == "ok" else out / "points" / failed_name(name)
    atomic_write_text(saved, json.dumps(record, indent=1) + "\n")
    # an earlier failure is kept until a retry has its own record (a killed one has none); then it goes
    for path in (*tried, *([out / "points" / failed_name(name)] if record["status"] == "ok" else [])):
        path.unlink(missing_ok=True)
    return record


def _set_aside_failed_try(out: Path, name: str, log: Path | None) -> list[Path]:
    """Before a failed point is retried, its executed notebook and kernel log move beside its failure record
    (`NAME.failed.ipynb`, `NAME.failed.log`), so a retry that is killed leaves what the failure points to; a retry
    that ends, failed or not, removes them (its own record and notebook describe the point)."""
    if not (out / "points" / failed_name(name)).is_file():
        return []
    kept = []
    for path in filter(None, (out / "points" / f"{name}.ipynb", log)):
        aside = path.with_name(failed_name(name, path.suffix))
        if path.is_file() and not aside.exists():  # one there already: `path` is a killed retry's, not the failure's
            os.replace(path, aside)
        kept.append(aside)
    return kept


def holds_only_point_records(out: Path) -> bool:
    """A folder that holds nothing but points/ of .json records (finished points copied in from another folder, as
    the message about a slice says): a sweep may plan its grid there and resume from them."""
    if not out.is_dir() or (out / "grid.json").exists():
        return False
    entries = [p for p in out.iterdir() if not is_lock_file(p.name)]
    return ([p.name for p in entries] == ["points"] and entries[0].is_dir() and not entries[0].is_symlink()
            and all(p.is_file() and p.suffix == ".json" for p in entries[0].iterdir()))


def done_record(out: Path, point: dict, set_aside: bool = True) -> dict | None:
    """The saved record of a point that already succeeded (so a resumed sweep skips it); a damaged one, or one that
    is not this point's, is set aside as `.damaged` with a warning, and the point runs again (`set_aside=False`:
    `aggregate`, which only reads, leaves it where it is and says so)."""
    return _saved(out / "points" / f"{point_name(point)}.json", point, "ok", set_aside)


def _saved(path: Path, point: dict, status: str, set_aside: bool) -> dict | None:
    """A point record from disk, or None when it is absent or unsound (then renamed `.damaged`, unless `set_aside`
    is False, and warned about)."""

    if not path.exists() and not path.is_symlink():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        why = record_problem(record, point, status)
    except (json.JSONDecodeError, UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        why = "is damaged"
    except OSError as error:
        raise CourseError(f"{path} cannot be read ({error.strerror or error}); make it readable or delete it") from None
    if why is None:
        return record
    if not set_aside:
        warn(f"{path} {why}; left as it is, and not aggregated; `reproduce` on this folder sets it aside and runs "
             "the point again")
        return None
    aside = path.with_name(path.name + ".damaged")
    number = 1
    while aside.exists():  # an earlier damaged copy is kept too: each may be what someone needs to look at
        number += 1
        aside = path.with_name(f"{path.name}.damaged.{number}")
    path.replace(aside)
    warn(f"{path} {why}; set aside as {aside.name}; `reproduce` on this folder runs the point again")
    return None


def record_seal(record: dict) -> str:
    """The sha256 a point record carries over its other keys (records from before it carry none)."""
    return text_sha256(json.dumps({k: v for k, v in record.items() if k != RECORD_SEAL}, sort_keys=True))


def record_problem(record, point: dict, status: str) -> str | None:
    """Why a saved record is not the `status` record of `point` (None when it is): damaged, of another point (its
    name, or a parameter, differs from the point its file name says), or without its status or time."""
    if not isinstance(record, dict) or not {"point", "status"} <= set(record):
        return "is damaged"
    if record["point"] != point_name(point):
        return f"holds the record of point {str(record['point'])[:80]!r}, not of {point_name(point)}"
    if RECORD_SEAL in record and record[RECORD_SEAL] != record_seal(record):
        return f"was edited after its point ran (its {RECORD_SEAL} no longer matches its contents)"
    for key, value in point.items():
        if key.lower() not in record:
            return f"has no {key.lower()} (its point has {key}={value!r})"
        recorded = record[key.lower()]
        if isinstance(recorded, dict) and recorded:  # the notebook records some settings per split (base_k.test)
            recorded = value if all(v == value for v in recorded.values()) else recorded
        if key == "STEPS" and recorded == trained_steps(value, record.get("profile")):
            continue  # a profile that caps training (smoke: 2 steps) records the steps it trained
        if recorded != value or isinstance(recorded, bool) != isinstance(value, bool):  # 1 == True, yet not a seed
            return f"records {key.lower()}={recorded!r}, but its point has {key}={value!r}"
    if record["status"] != status:
        return f"has status {str(record['status'])[:40]!r} in a file for status {status!r}"
    if any(record.get(key) for key in INPUTS):  # records from before these were recorded are trusted on names
        now = inputs_sha256(point)
        changed = [key for key in INPUTS if isinstance(record.get(key), str) and now.get(key) and record[key] != now[key]
                   and not (key == "data_sha256" and record[key] == data_sha256_before_hub(point))]
        if changed:  # named only when one differs (the data file's path is read again for the message alone)
            what = {"model_sha256": f"other weights under the name {point.get('MODEL')!r}",
                    "model_settings_sha256": f"other settings files (stop tokens, tokenizer, config) under the name "
                                             f"{point.get('MODEL')!r}",
                    "data_sha256": f"another version of {', '.join(file_fingerprints([point]))}"}
            return f"was made with {what[changed[0]]} (its {changed[0]} differs)"
    if not is_seconds(record.get("seconds")):
        return f"has no time in seconds (seconds={record.get('seconds')!r})"
    return None


def trained_steps(steps, profile: str | None):
    """The steps a point of STEPS=`steps` trains in `profile`: its cap where the profile has one (smoke), else all."""
    try:
        cap = get_profile(profile).max_train_steps if profile else 0
    except CourseError:  # a record of an unknown profile: nothing to cap by
        cap = 0
    return min(steps, cap) if cap and isinstance(steps, int) and steps > 0 else steps


def is_seconds(value) -> bool:
    """Whether a record's `seconds` is a run time: a finite number >= 0."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")


def run(study: str, profile: str, out, workers: int = 2, command: str = "", progress: bool = True,
        notebook: Path = EXPERIMENT, where: dict | None = None, overrides: dict | None = None,
        mixed_code: bool = False) -> dict:
    """Run every point of a study (skipping finished ones); write results.csv and provenance.json.

    `mixed_code`: resume even where the finished points ran other library code (`check_same_code`)."""
    check(workers >= 1, f"workers={workers} must be >= 1")
    points = expand(study, profile, where, overrides)
    check_parameters(points, notebook)
    out = check_writable_folder(out)
    for name, holds in (("points", "point records"), ("logs", "kernel logs"), ("runs", "training runs")):
        path = out / name
        what = "a link that leads nowhere" if path.is_symlink() and not path.exists() else "a file"
        check(path.is_dir() or not (path.exists() or path.is_symlink()),
              f"{path} is {what}, not the folder of the sweep's {holds}; move it aside")
    (out / "points").mkdir(parents=True, exist_ok=True)
    _check_out_dir(out, study, points, overrides)
    if (out / "results.csv").is_file():  # an edited table is refused now, not after every point has trained
        check_results_unedited(out, results_table(saved_records(out, points)[0]).to_csv(index=False))
    found = [(point, done_record(out, point)) for point in points]
    todo = [point for point, record in found if record is None]
    if todo and not mixed_code:  # a point killed in its first wave resumes its training run too
        check_same_code(out, [record for _, record in found if record])
        check_same_versions(out)
    workers = worker_count(workers, len(todo))
    start = time.time()
    bar = progress_bar(total=len(todo), desc=f"{study} ({len(points) - len(todo)} done before)", disable=not progress)
    with bar:  # closed before a stop's message is printed
        run_points(warm_up_waves(todo), out, notebook, workers, bar)
    return collect(study, profile, out, command,
                   {"workers": workers, "points_run": len(todo), "wall_seconds": round(time.time() - start, 1)})


def check_same_code(out: Path, records: list[dict]) -> None:
    """The points left will run the library code the finished ones ran: a study resumed after its grader or trainer
    changed would hold two versions of the code in one table, paired by seed as if they were one (05)."""
    here = git_commit()
    unnamed = sum(not r.get("commit") for r in records)
    if unnamed:  # a record written outside git, or edited: which code ran it, nothing says
        warn(f"out={out} holds {unnamed} point record(s) that name no commit: whether they ran the code here cannot be "
             "told; resume only where you know they did")
    for commit in sorted({str(r.get("commit")) for r in records if r.get("commit")}):
        check(re.fullmatch(r"[0-9a-f]{7,64}(\+dirty)?", commit),
              f"out={out}: a point record names commit {commit[:60]!r}, which is no commit; restore its record (or "
              "delete it to run the point again)")
        if commit.endswith("+dirty"):  # uncommitted edits: which, no record says
            warn(f"out={out} holds points run from uncommitted changes to commit {commit[:12]}: whether the code here "
                 "is theirs cannot be told; commit before a long sweep, so its records name the code they ran")
        if commit == here:
            continue
        changed = code_changed_since(commit.removesuffix("+dirty"))
        if changed is None:
            warn(f"out={out} holds points run at commit {commit[:12]}, which this clone does not hold: whether the "
                 "library changed since cannot be told; resume from that commit's checkout if it did")
            continue
        named = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
        check(not changed, f"out={out} holds points run at commit {commit[:12]}, and {named} changed since: the points "
                           "left would run other code into the same table; resume from that commit (git worktree add "
                           f"../at-{commit[:7]} {commit[:7]}, then run there), or pass --mixed-code to mix them on "
                           "purpose (and say so beside the results)")


def check_same_versions(out: Path) -> None:
    """The libraries the points left will run with are the ones the folder was planned with (grid.json's
    `versions`): a sweep resumed after upgrading TRL would put two trainers in one table (05)."""
    planned = _read_json(out / "grid.json", "the grid of this folder").get("versions")
    if not isinstance(planned, dict):  # a grid from before versions were recorded
        return
    now = library_versions()
    changed = [name for name in sorted(planned) if now.get(name) != planned[name]]
    name = changed[0] if changed else ""
    check(not changed, f"out={out} was planned with {name} {planned.get(name)}, and this environment has "
                       f"{now.get(name)}: the points left would run other libraries into the same table; install the "
                       "planned versions (grid.json's `versions`), or pass --mixed-code to mix them on purpose (and "
                       "say so beside the results)")


def run_points(waves: list[list[dict]], out: Path, notebook: Path, workers: int, bar) -> None:
    """Run the points wave by wave (`warm_up_waves`), in this process or in `workers` processes."""
    if workers == 1:  # in this process: a forked worker (a copy of a notebook's kernel, torch loaded) would only
        for point in (p for wave in waves for p in wave):  # wait for the point's kernel, and count against 2 GB
            run_point_notebook(point, out, notebook, log=out / "logs" / f"{point_name(point)}.log")
            bar.update()
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                             initargs=(workers, out / "logs", os.getpid())) as pool:
        try:
            for wave in waves:
                for future in as_completed([pool.submit(run_point_notebook, p, out, notebook) for p in wave]):
                    future.result()
                    bar.update()
        except KeyboardInterrupt:  # Ctrl-C, SIGTERM, SIGHUP: stop now, not when the running points end
            stop_workers(pool)
            raise


def saved_records(out: Path, points: list[dict]) -> tuple[list[dict], list[dict]]:
    """The saved record of each point (its success, else its failure) and the points that have neither; a record
    that is not sound is warned about and left where it is (reading never moves a file)."""
    records, missing = [], []
    for point in points:
        failed = out / "points" / failed_name(point_name(point))
        record = done_record(out, point, set_aside=False) or _saved(failed, point, "failed", set_aside=False)
        if record:
            records.append(record)
        else:
            missing.append(point)
    return records, missing


def collect(study: str, profile: str, out, command: str = "", this_run: dict | None = None) -> dict:
    """Aggregate the saved records of the grid in `out` (never trains); the outcome also lists missing points."""
    out = Path(out)
    grid_file = out / "grid.json"
    check(grid_file.exists(), f"out={out} holds no grid.json; give the folder of a `reproduce` run")
    grid = _read_json(grid_file, "the grid of this folder")
    check(isinstance(grid, dict) and {"study", "points"} <= set(grid),
          f"{grid_file} is not a grid `reproduce` wrote; {DAMAGED_GRID_FIX}")
    check(grid["study"] == study, f"out={out} holds a grid of study {grid['study']!r}, not {study!r}; "
                                  "give that study or another folder")
    check_points_of_grid(grid, study, profile, out)
    check_same_models(out, grid.get("models"))  # a shell whose names mean other models or files: refused here,
    check_same_files(out, grid.get("files"))  # before every record would read as another model's
    check(grid["points"], f"{grid_file} lists no points (an empty results table would replace the old one); delete "
                          "it and run `reproduce` again")
    names = [point_name(p) for p in grid["points"]]
    twice = sorted({name for name in names if names.count(name) > 1})
    check(not twice, f"{grid_file} lists point {twice[0] if twice else ''} twice; delete the folder's grid.json and "
                     "run `reproduce` again")
    check(not (out / "points").exists() or (out / "points").is_dir(),
          f"{out / 'points'} is a file, not the folder of point records; restore the folder (results.csv and "
          "provenance.json are left as they are)")
    records, missing = saved_records(out, grid["points"])
    check_nothing_dropped(out, records)
    outcome = aggregate(study, profile, out, records, command, this_run, [point_name(p) for p in missing])
    return {**outcome, "missing": missing}


def check_nothing_dropped(out: Path, records: list[dict]) -> None:
    """A results.csv already in `out` keeps every point it lists: one whose record is gone from points/ (moved,
    deleted) would be dropped from the table, so the folder is left as it is and the missing records are named."""
    table = out / "results.csv"
    if not table.is_file():
        return
    try:
        with table.open(encoding="utf-8-sig", newline="") as handle:  # a spreadsheet's byte-order mark too
            listed = [row.get("point") for row in csv.DictReader(handle)]
    except (UnicodeDecodeError, csv.Error) as error:
        raise CourseError(f"{table} cannot be read ({type(error).__name__}), so the points it lists cannot be kept: "
                          "restore it (git checkout), or delete it to aggregate what is in points/") from None
    kept = {record.get("point") for record in records}
    dropped = [name for name in listed if name and name not in kept]
    check(not dropped, f"{table} lists {len(dropped)} point(s) whose record is no longer in {out / 'points'} (e.g. "
                       f"{dropped[0] if dropped else ''}); aggregating would drop them from the table, so results.csv "
                       "and provenance.json are left as they are: restore those records, or delete results.csv to "
                       "aggregate what is there")


def warm_up_waves(points: list[dict]) -> list[list[dict]]:
    """Two waves: the first point of each (model, task, pool) estimates its difficulty table; the rest reuse it.
    With RESAMPLE_POOL each seed has a pool (and a table) of its own."""
    first, rest, seen = [], [], set()
    for point in points:
        key = (point.get("MODEL"), point.get("TASK"), point.get("POOL_SIZE"),
               point.get("SEED") if point.get("RESAMPLE_POOL") else None)
        (rest if key in seen else first).append(point)
        seen.add(key)
    return [wave for wave in (first, rest) if wave]


def worker_count(workers: int, points_left: int) -> int:
    """`workers`, capped by the points left and the cores (more would only wait or share a core); says so if capped."""
    usable = max(1, min(workers, points_left, available_cores()))
    if usable < workers and points_left:

        warn(f"workers={workers} capped at {usable}: {points_left} point(s) left to run on "
             f"{available_cores()} core(s)")
    return usable


def stop_workers(pool: ProcessPoolExecutor) -> None:  # pragma: no mutate block (OS process plumbing)
    """Kill a sweep's workers and drop the points not started: a stopped sweep does not wait for its running points
    (each writes its record whole when it ends, so a killed point is simply run again on resume); their notebook
    kernels exit with them. Python 3.14's `pool.kill_workers()` does this."""
    for process in list((pool._processes or {}).values()):
        process.kill()
    pool.shutdown(wait=True, cancel_futures=True)


def die_with_parent(parent_pid: int, signal_number: int = signal.SIGTERM) -> None:  # pragma: no mutate block (OS process plumbing)
    """Have Linux send this process `signal_number` when its parent dies (prctl PR_SET_PDEATHSIG); elsewhere a no-op.

    A sweep worker killed this way takes its notebook kernel with it: the kernel (ipykernel) exits when its parent
    process is gone.
    """
    if not sys.platform.startswith("linux"):
        return

    PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal_number), 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the request took effect
        os.kill(os.getpid(), signal_number)


def _start_worker(workers: int, log_dir: Path, parent_pid: int) -> None:  # pragma: no mutate block (OS process plumbing)
    """Set up a worker process: it dies with the sweep, takes its share of the cores, and its kernels' stderr goes
    to a log file, not the terminal."""
    die_with_parent(parent_pid)
    _share_cores(workers)
    log_dir.mkdir(parents=True, exist_ok=True)
    log = fresh_log(log_dir / f"worker-{os.getpid()}.log", append=True)  # open for the worker's life
    os.dup2(log.fileno(), 2)


def _share_cores(workers: int) -> int:
    """Give each worker (and the kernels it starts) an equal share of the idle cores: oversubscribed torch threads
    made parallel points 10x slower on a 2-core machine. The same rule as a single process (runtime.use_threads);
    the user's OMP_NUM_THREADS wins."""
    return use_threads(workers)


def check_measures(record: dict, name: str) -> None:
    """A finished point's accuracies and gains: per split, a finite number in its range (a record edited or damaged
    by hand is refused, not averaged into a study)."""
    for key, (low, high) in ((key, bounds) for key, bounds in RANGES.items() if key in record):
        values = record[key]
        check(isinstance(values, dict) and values and all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and low <= v <= high
            for v in values.values()),
            f"point {name}: {key}={values!r} must give each split a number from {low} to {high}; run the point "
            "again (delete its record)")
    for key in [key for key in SHARES if record.get(key) is not None]:
        value = record[key]
        check(isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1,
              f"point {name}: {key}={value!r} must be a share from 0 to 1; run the point again (delete its record)")
    for key in [key for key in COUNTS if record.get(key) is not None]:
        value = record[key]
        check(isinstance(value, int) and not isinstance(value, bool) and value >= 1,
              f"point {name}: {key}={value!r} must be a whole number >= 1; run the point again (delete its record)")
    intervals = record.get("gain_ci", {})
    for split, interval in (intervals.items() if isinstance(intervals, dict) else [("", intervals)]):
        check(isinstance(interval, list | tuple) and len(interval) == 2 and all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in interval)
            and interval[0] <= interval[1], f"point {name}: gain_ci.{split}={interval!r} must be [low, high], two "
                                            "finite numbers; run the point again (delete its record)")
    check_measures_agree(record, name)


def check_measures_agree(record: dict, name: str) -> None:
    """A finished point's numbers agree with one another, per split (`studies.gain_disagreement`): a record edited by
    hand, or copied from another run, would move a verdict silently."""
    for gain_key, after_key, before_key in (("gain", "accuracy_after", "accuracy_before"),
                                            ("pass_at_k_gain", "pass_at_k_after", "pass_at_k_before")):
        gains = record.get(gain_key, {})
        for split, gain in (gains.items() if isinstance(gains, dict) else []):
            after, before = (record.get(key, {}).get(split) for key in (after_key, before_key))
            interval = None
            if gain_key == "gain":  # a held-out gain is recorded with its interval
                interval = record.get("gain_ci", {}).get(split) if isinstance(record.get("gain_ci"), dict) else None
                check(interval is not None or "gain_ci" not in record, f"point {name}: gain.{split}={gain} has no "
                                                                       f"gain_ci.{split} (an interval removed by hand); "
                                                                       "run the point again (delete its record)")
            why = gain_disagreement(gain, after, before, interval, (after_key, before_key))
            check(why is None, f"point {name}: {gain_key}.{split}={gain} {why} (the record was edited, or mixes two "
                               "runs); run the point again (delete its record)")
    for key in [k for k in record if re.fullmatch(r"accuracy_\w+_by_level", k)]:
        values = record[key].values() if isinstance(record[key], dict) else [record[key]]
        flat = [v for value in values for v in (value.values() if isinstance(value, dict) else [value])]
        check(all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= 1
                  for v in flat if v is not None),
              f"point {name}: {key} holds a value that is not a finite number in [0, 1] (the record was "
              "edited); run the point again (delete its record)")


def _check_counts_match_run(record: dict, name: str, run: Path) -> None:
    """A finished point's steps and selected count are those its run folder records, where the folder is beside it
    (a study's committed records travel without their runs): a record edited, or another point's, is refused."""
    if not (run / "summary.json").is_file() or not (run / "run_config.json").is_file():
        return
    summary = _read_json(run / "summary.json", "the run's summary")
    config = _read_json(run / "run_config.json", "the run's settings")
    ids = config.get("problem_ids") if isinstance(config, dict) else None
    for key, ran in (("steps", summary.get("steps") if isinstance(summary, dict) else None),
                     ("n_selected", len(ids) if isinstance(ids, list) else None)):
        check(ran is None or record.get(key) in (None, ran),
              f"point {name}: {key}={record.get(key)!r}, but its run folder {run} records {ran} (the record was "
              "edited, or is another point's); run the point again (delete its record)")


def aggregate(study: str, profile: str, out: Path, records: list[dict], command: str,
              this_run: dict | None = None, missing: list[str] = ()) -> dict:
    """One results table (flat columns) and a provenance file for the whole sweep (`this_run`: its wall time);
    every record is checked before either file is written. Fields of an earlier provenance.json it does not write
    (added by hand) are kept."""
    seen = set()
    for record in records:
        name = record.get("point") if isinstance(record, dict) else None
        check(isinstance(name, str) and name not in seen, f"point {name!r} is not a record's name, or is recorded "
                                                          "twice; each point's record must be given once")
        seen.add(name)
        check(record.get("status") in ("ok", "failed"),
              f"point {name}: status={record.get('status')!r} must be 'ok' or 'failed'")
        check(is_seconds(record.get("seconds")),
              f"point {name}: seconds={record.get('seconds')!r} must be the point's run time in seconds")
        if record["status"] == "ok":
            check_measures(record, name)
            _check_counts_match_run(record, name, out / "runs" / name)
    text = results_table(records).to_csv(index=False)
    check_results_unedited(out, text)
    failed = [r for r in records if r["status"] != "ok"]
    provenance = {"study": study, "profile": profile, "command": command, "commit": git_commit(),
                  "versions": library_versions(), "points": len(records), "failed": [r["point"] for r in failed],
                  "point_commits": sorted({str(r.get("commit")) for r in records}), "this_run": this_run or {},
                  "missing": list(missing),
                  "seconds_per_point": {r["point"]: r["seconds"] for r in records}, "results_sha256": text_sha256(text)}
    earlier = read_record(out / "provenance.json")  # a field added by hand (the hardware, a note) is kept
    provenance.update({key: value for key, value in (earlier if isinstance(earlier, dict) else {}).items()
                       if key not in provenance})
    atomic_write_texts({out / "results.csv": text,  # both new, or neither after an error
                        out / "provenance.json": json.dumps(provenance, indent=1) + "\n"})
    return {"results": out / "results.csv", "points": len(records), "failed": failed}


def check_results_unedited(out: Path, new_text: str | None = None) -> None:
    """`aggregate` replaces a results.csv only as it wrote it: the sha256 its provenance.json records, or exactly
    `new_text` (what it is about to write: a run cut between the two files' renames). A provenance.json missing or
    damaged beside a table cannot tell, so the table is kept; one written before `results_sha256` existed has no
    such key and is remade only where every row it holds is one the records make now (a table aggregated while points
    were missing gains rows; an edited one would lose its edit)."""
    path, beside = out / "results.csv", out / "provenance.json"
    if not path.is_file() or beside.is_dir() or (new_text is not None and path.read_bytes() == new_text.encode()):
        return  # (a folder where provenance.json goes: the write refuses, replacing nothing)
    fix = "copy the edit elsewhere, then delete results.csv to remake it"
    provenance = read_record(beside)
    check(isinstance(provenance, dict), f"{path} cannot be checked against its provenance.json ({beside} is "
                                        f"{'missing' if not beside.exists() else 'damaged'}), so remaking it could "
                                        f"lose an edit: {fix}")
    if "results_sha256" not in provenance:  # written before aggregate recorded it
        check(new_text is not None and keeps_every_row(path, new_text),
              f"{path} holds rows (or columns) the point records do not make now, and its provenance.json is from "
              f"before `aggregate` recorded the table's sha256, so an edit cannot be told from an older table: "
              f"remaking it could lose an edit; {fix}")
        return
    recorded = provenance["results_sha256"]
    check(isinstance(recorded, str) and file_sha256(path) == recorded,
          f"{path} was changed after `aggregate` wrote it (its sha256 differs from provenance.json's results_sha256) "
          f"and remaking it would lose the edit: {fix}")


def keeps_every_row(path: Path, new_text: str) -> bool:
    """Whether the table `new_text` holds the header and every row of the results.csv at `path` (read as CSV)."""
    try:
        old = list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return False
    new = list(csv.reader(io.StringIO(new_text, newline="")))
    return bool(old) and bool(new) and old[0] == new[0] and {tuple(row) for row in old[1:] if row} <= set(map(tuple, new))


SLURM_TIME = re.compile(r"(\d+-)?\d+(:\d{2}){0,2}")  # minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM:SS
SLURM_MEM = re.compile(r"\d+[KMGT]?")
SLURM_NAME = re.compile(r"[\w.,-]+")


UNCOSTED_LIMITS = {"time": "1-00:00:00", "mem": "64G"}  # when the cost model cannot run here (no data): generous
SLURM_EXPORT = "PATH,HOME,USER,LANG,TMPDIR"  # what a job takes from the submitting shell (--export); the rest is set
# in the script itself, from the values these had when it was emitted:
EMITTED_ENVIRONMENT = ("COURSE_DATA_DIR", "COURSE_MODELS_DIR", "COURSE_MODEL_CACHE", "HF_HOME", "HF_HUB_CACHE", "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE",
                       "COURSE_VLLM_GPU_MEMORY_UTILIZATION", "COURSE_GPU_CHECK")


def check_points_of_grid(grid: dict, study: str, profile: str, out) -> None:
    """Every point a folder's grid.json lists is a point of the study's grid in `profile` (an edited or damaged
    grid.json would train points that no table can take)."""
    expected = {typed(point) for point in expand(study, profile, overrides=grid.get("overrides"))}
    check(isinstance(grid["points"], list) and all(isinstance(p, dict) and typed(p) in expected for p in grid["points"]),
          f"out={out} holds points that are not in {study}'s {profile!r} grid; give its profile or another folder")


def typed(point: dict) -> str:
    """A point as JSON, so values compare with their types: BUDGET 1 (one problem) is not BUDGET 1.0 (the whole
    pool), SEED true is not SEED 1 (Python's `1 == 1.0 == True` would let an edited grid.json through)."""
    return json.dumps(point, sort_keys=True)


def grid_points(out: Path, study: str, profile: str) -> list[dict]:
    """The points of the grid (or slice) `reproduce` wrote into OUT/grid.json, in index order."""
    grid_file = Path(out) / "grid.json"
    check(grid_file.exists(), f"out={out} holds no grid.json; write the jobs with `reproduce {study} --emit-slurm`")
    grid = _read_json(grid_file, "the grid of this folder")
    check(isinstance(grid, dict) and grid.get("study") == study and isinstance(grid.get("points"), list),
          f"{grid_file} is not a grid of study {study!r}; give that study's folder")
    check_same_models(Path(out), grid.get("models"))  # a job whose shell resolves a name to other weights
    check_same_files(Path(out), grid.get("files"))
    check_points_of_grid(grid, study, profile, out)
    return grid["points"]


def emit_slurm(study: str, profile: str, out, gpus: int | None = None, time_limit: str | None = None,
               mem: str | None = None, cpus: int = 2, partition: str | None = None, cache_dir=None,
               where: dict | None = None, overrides: dict | None = None, delete_merged: bool = False) -> Path:  # pragma: no mutate block (cluster job-script text)
    """Write warm.sh, array.sh, aggregate.sh and submit.sh (which chains them) for a SLURM cluster; returns submit.sh.

    Time and memory default to the cost model's estimate per job (`course_lib.research.cost.slurm_limits`, with a margin);
    `where` emits a slice of the grid (its own folder, its own scripts); `delete_merged` removes each point's
    `merged/` model (GBs) once it is evaluated.
    """
    gpus = (1 if profile == "paper" else 0) if gpus is None else gpus
    check(gpus >= 0, f"gpus={gpus} must be >= 0 (--slurm-gpus; 0 runs on CPU)")
    check(cpus >= 1, f"cpus={cpus} must be >= 1 (--slurm-cpus)")
    check(gpus or profile != "paper" or time_limit,
          "gpus=0 (--slurm-gpus 0) on the paper profile: the cost model estimates a GPU's time, which CPU jobs would "
          "overrun and be killed at; give --slurm-time (and --slurm-mem) for CPU jobs")
    check(time_limit is None or SLURM_TIME.fullmatch(time_limit),
          f"time_limit={time_limit!r} must look like HH:MM:SS or D-HH:MM:SS (--slurm-time), e.g. 04:00:00")
    check(mem is None or SLURM_MEM.fullmatch(mem), f"mem={mem!r} must look like 32G or 16000M (--slurm-mem)")
    check(partition is None or SLURM_NAME.fullmatch(partition),
          f"partition={partition!r} must be a partition name like gpu (--slurm-partition)")
    root = REPOSITORY
    check((root / "pyproject.toml").exists(), f"no pyproject.toml in {root}; emit from a clone of the course")
    points = expand(study, profile, where, overrides)
    check_parameters(points)
    out = check_writable_folder(out).resolve()
    check(not re.search(r"\s", str(out)), f"out={out} has a space; #SBATCH lines cannot quote it, use another folder")
    check("%" not in str(out), f"out={out} has a '%', which SLURM reads as a pattern (%j, %A) in log paths; "
                               "use a folder without one")
    cache = Path(cache_dir or env_folder("COURSE_CACHE_DIR") or out / "cache").resolve()  # the shell's cache, if set
    check("%" not in str(cache) and not re.search(r"\s", str(cache)),
          f"cache_dir={cache} has a '%' or a space; use a folder without one (--cache-dir)")
    (out / "points").mkdir(parents=True, exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    _check_out_dir(out, study, points, overrides)
    activate = Path(sys.prefix) / "bin" / "activate"
    environment = ([f"source {shlex.quote(str(activate))}"] if activate.exists() else
                   [f"# no {activate}: the Python that emitted this script is called by its path"])
    environment += [f"export {name}={shlex.quote(os.environ[name])}  # as when the jobs were emitted"
                    for name in EMITTED_ENVIRONMENT if os.environ.get(name)]
    python = "python" if activate.exists() else shlex.quote(sys.executable)
    q_out = shlex.quote(str(out))

    backend = (overrides or {}).get("BACKEND") or get_profile(profile).backend
    backend = backend if backend != "auto" else "vllm" if importlib.util.find_spec("vllm") else "hf"
    warm_points = warm_up_waves(points)[0]

    def limits(job_points, with_tables) -> list[str]:
        default = {}
        if not job_points:
            default = {"time": "00:30:00", "mem": "4G"}  # the aggregate reads JSON files
        elif not (time_limit and mem):
            try:
                default = slurm_limits(job_points, profile, backend, with_tables)
            except CourseError as error:  # the cost model needs the datasets' and the models' sizes

                default = dict(UNCOSTED_LIMITS)
                warn(f"no cost estimate ({error}); the jobs ask for {default['time']} and {default['mem']}: "
                     "give --slurm-time and --slurm-mem, or the data (COURSE_DATA_DIR)")
        chosen = {"time": time_limit or default.get("time"), "mem": mem or default.get("mem"), "partition": partition}
        return [f"#SBATCH --{key}={value}" for key, value in chosen.items() if value is not None]

    def array_job(name: str, indices: str, job_points: list[dict], with_tables: bool, *options: str) -> str:
        return "\n".join([
            "#!/usr/bin/env bash",
            f"#SBATCH --job-name={study}-{name}",
            f"#SBATCH --array={indices}",
            *options,
            f"#SBATCH --gres=gpu:{gpus}" if gpus else "# no GPU requested (--slurm-gpus 0): points train on CPU",
            f"#SBATCH --cpus-per-task={cpus}",
            *limits(job_points, with_tables),
            f"#SBATCH --export={SLURM_EXPORT}",
            f"#SBATCH --output={out}/logs/%x-%A_%a.log",
            f"# {name}: {study} ({profile}) points {indices} of {len(points)}, one per array task"
            + ("; --time and --mem from the cost model (course_lib.research.cost), an estimate with a margin"
               if not (time_limit and mem) else ""),
            "set -euo pipefail",
            f"cd {shlex.quote(str(root))}",
            *environment,
            f'export PYTHONPATH={shlex.quote(str(root))}${{PYTHONPATH:+:$PYTHONPATH}}  # kernels import this clone\'s library',
            f"export COURSE_CACHE_DIR={shlex.quote(str(cache))}  # difficulty tables and base evaluations, shared",
            'export OMP_NUM_THREADS="${SLURM_CPUS_PER_TASK:-1}"',
            f"{python} -m course_lib sweep-point {study} --profile {profile} --out {q_out} "
            '--index "$SLURM_ARRAY_TASK_ID"' + (" --delete-merged" if delete_merged else ""),
            ""])

    warm = ",".join(str(points.index(p)) for p in warm_points)
    scripts = {
        # the warm-up: one point per (model, task, pool) estimates the difficulty table and evaluates the base model
        # once, so the array's tasks find both in the shared cache
        "warm.sh": array_job("warm", warm, warm_points, True),
        # a failed warm-up cancels the array (instead of leaving it pending); the aggregate then reports it
        "array.sh": array_job("array", f"0-{len(points) - 1}", points, False, "#SBATCH --kill-on-invalid-dep=yes"),
        "aggregate.sh": "\n".join([
            "#!/usr/bin/env bash",
            f"#SBATCH --job-name={study}-aggregate",
            "#SBATCH --cpus-per-task=1",
            *limits([], False),
            f"#SBATCH --export={SLURM_EXPORT}",
            f"#SBATCH --output={out}/logs/%x-%j.log",
            "# results.csv + provenance.json from the saved records; exits 1 if a point is missing or failed",
            "set -euo pipefail",
            f"cd {shlex.quote(str(root))}",
            *environment,
            f"{python} -m course_lib aggregate {study} --profile {profile} --out {q_out}",
            ""]),
        "submit.sh": "\n".join([
            "#!/usr/bin/env bash",
            "# Submit the warm-up (one point per difficulty table), then the array once it succeeded, then the",
            "# aggregate once the array ended. Re-running it once they ended is cheap: finished points are skipped.",
            "set -euo pipefail",
            'cd "$(dirname "$0")"',
            "warm=$(sbatch --parsable warm.sh); warm=${warm%%;*}",
            "array=$(sbatch --parsable --dependency=afterok:$warm array.sh); array=${array%%;*}",
            "aggregate=$(sbatch --parsable --dependency=afterany:$array aggregate.sh); aggregate=${aggregate%%;*}",
            'echo "warm $warm, array $array, aggregate $aggregate"',
            ""]),
    }
    check_scripts_unedited(out, scripts)
    for name, text in scripts.items():
        atomic_write_text(out / name, text)
        (out / name).chmod(0o755)
    atomic_write_text(out / SCRIPTS_RECORD, json.dumps({name: text_sha256(text) for name, text in scripts.items()},
                                                       indent=1) + "\n")
    return out / "submit.sh"


SCRIPTS_RECORD = "slurm-scripts.json"  # the sha256 of each job script --emit-slurm wrote, so an edit is kept


def check_scripts_unedited(out: Path, scripts: dict) -> None:
    """--emit-slurm replaces a job script only as it wrote it (its sha256 in slurm-scripts.json), or one that already
    says exactly what it would write: an `#SBATCH --account` line or a `module load` added by hand is kept."""
    recorded = read_record(out / SCRIPTS_RECORD)
    recorded = recorded if isinstance(recorded, dict) else {}
    for name, text in scripts.items():
        path = out / name
        if not path.is_file() or path.read_bytes() == text.encode():
            continue
        check(recorded.get(name) == file_sha256(path),
              f"{path} was changed after --emit-slurm wrote it (or was not written by it), and writing the scripts "
              f"again would lose the edit: move it aside (then carry the edit over to the new one), or emit into "
              f"another --out")
