"""Batch reproduction: run the experiment notebook once per grid point with papermill, resumably.

`python -m course_lib reproduce STUDY --profile P --workers N --out DIR` expands a named grid,
executes `notebooks/experiment.ipynb` per point (in worker processes), keeps every executed
notebook, skips points already done, records failures, and aggregates one results table plus a
provenance file. Introduced in notebooks/05_hard_examples_win.ipynb.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shlex
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import pandas as pd

from .errors import check
from .provenance import atomic_write_text, git_commit, library_versions
from .studies import STUDIES

EXPERIMENT = Path(__file__).resolve().parent.parent / "notebooks" / "experiment.ipynb"

def expand(study: str, profile: str, where: dict | None = None) -> list[dict]:
    """The grid points of a study in a profile, in a stable order; `where` keeps a slice (e.g. {"SEED": "0"})."""
    check(study in STUDIES, f"study={study!r} is unknown; use one of {', '.join(STUDIES)}")
    grids = STUDIES[study]["grid"]
    check(profile in grids, f"profile={profile!r} has no grid for {study}; use one of {', '.join(grids)}")
    parts = [grids[profile]] + [also for also in [STUDIES[study].get("also", {}).get(profile)] if also]
    points = [point for grid in parts for point in _product(STUDIES[study]["fixed"], grid, profile)]
    keys = sorted({key for grid in parts for key in grid})
    for key, value in (where or {}).items():
        check(key in keys, f"where: {key!r} is not a grid key of {study}; use one of {', '.join(keys)}")
        points = [p for p in points if str(p.get(key)) == str(value)]
    check(points, f"where={where!r} leaves no point of {study} ({profile})")
    return points


def _product(fixed: dict, grid: dict, profile: str) -> list[dict]:
    """Every combination of a grid's lists, each with the profile and the study's fixed parameters."""
    keys = sorted(grid)
    return [{"PROFILE": profile, **fixed, **dict(zip(keys, values))}
            for values in itertools.product(*(grid[k] for k in keys))]


def parse_where(pairs, separator: str = "=") -> dict:
    """A slice of a grid from KEY=VALUE pairs (the CLI's --where; notebooks use ':' for papermill's sake)."""
    bad = [pair for pair in pairs if separator not in pair]
    check(not bad, f"where: {bad[0]!r} must look like KEY{separator}VALUE, e.g. SEED{separator}0" if bad else "")
    return dict(pair.split(separator, 1) for pair in pairs)


def point_name(point: dict) -> str:
    """A readable, unique file name for a grid point."""
    readable = "_".join(f"{str(v).replace('/', '-')}" for k, v in sorted(point.items()) if k != "PROFILE")
    digest = hashlib.sha256(json.dumps(point, sort_keys=True).encode()).hexdigest()[:6]
    return f"{readable}_{digest}"


def check_parameters(points: list[dict], notebook: Path = EXPERIMENT) -> None:
    """Every key a point passes must be a parameter the experiment notebook declares."""
    import papermill

    declared = set(papermill.inspect_notebook(str(notebook)))
    unknown = sorted({key for point in points for key in point} - declared)
    check(not unknown, f"grid key(s) {unknown} are not parameters of {notebook.name}; it declares {sorted(declared)}")


def _check_out_dir(out: Path, study: str, points: list[dict]) -> None:
    """Refuse an output folder that holds results of a different grid; otherwise record this grid."""
    grid_file = out / "grid.json"
    grid = {"study": study, "points": points}
    if grid_file.exists():
        check(json.loads(grid_file.read_text()) == grid,
              f"out={out} holds results of a different grid; use a new folder or delete it")
    else:
        atomic_write_text(grid_file, json.dumps(grid, indent=1) + "\n")


def run_point(point: dict, out: Path, notebook: Path = EXPERIMENT) -> dict:
    """Execute the experiment notebook for one point; returns its record (status ok or failed)."""
    from .notebooks import execute

    name = point_name(point)
    start = time.time()
    record = {"point": name, **{k.lower(): v for k, v in point.items()}}
    try:
        parameters = {**point, "RUN_DIR": str((out / "runs" / name).resolve())}
        record.update(status="ok", **execute(notebook, out / "points", parameters, name=f"{name}.ipynb")["records"])
    except Exception as error:  # a failed point is recorded with its error; the sweep goes on
        record.update(status="failed", error=f"{type(error).__name__}: {str(error).splitlines()[-1] if str(error) else ''}",
                      traceback=traceback.format_exc(limit=3))
    record["seconds"] = round(time.time() - start, 1)
    record["commit"] = git_commit()  # the code this point ran with (a resumed sweep may mix commits)
    suffix = "json" if record["status"] == "ok" else "failed.json"
    atomic_write_text(out / "points" / f"{name}.{suffix}", json.dumps(record, indent=1, default=str) + "\n")
    return record


def done_record(out: Path, point: dict) -> dict | None:
    """The saved record of a point that already succeeded (so a resumed sweep skips it)."""
    path = out / "points" / f"{point_name(point)}.json"
    return json.loads(path.read_text()) if path.exists() else None


def run(study: str, profile: str, out, workers: int = 2, command: str = "", progress: bool = True,
        notebook: Path = EXPERIMENT, where: dict | None = None) -> dict:
    """Run every point of a study (skipping finished ones); write results.csv and provenance.json."""
    from tqdm.auto import tqdm

    check(workers >= 1, f"workers={workers} must be >= 1")
    points = expand(study, profile, where)
    check_parameters(points, notebook)
    out = Path(out)
    (out / "points").mkdir(parents=True, exist_ok=True)
    _check_out_dir(out, study, points)
    saved = [done_record(out, p) for p in points]
    records = [r for r in saved if r]
    todo = [p for p, r in zip(points, saved) if r is None]
    for stale in todo:  # a previous failure is retried
        (out / "points" / f"{point_name(stale)}.failed.json").unlink(missing_ok=True)
    start = time.time()
    bar = tqdm(total=len(todo), desc=f"{study} ({len(records)} done before)", disable=not progress)
    with ProcessPoolExecutor(max_workers=workers, initializer=_start_worker, initargs=(workers, out / "logs")) as pool:
        for wave in warm_up_waves(todo):  # first one point per difficulty table, so the rest hit the cache
            for future in as_completed([pool.submit(run_point, p, out, notebook) for p in wave]):
                records.append(future.result())
                bar.update()
    bar.close()
    return aggregate(study, profile, out, records, command,
                     {"workers": workers, "points_run": len(todo), "wall_seconds": round(time.time() - start, 1)})


def warm_up_waves(points: list[dict]) -> list[list[dict]]:
    """Two waves: the first point of each (model, task, pool) estimates its difficulty table; the rest reuse it."""
    first, rest, seen = [], [], set()
    for point in points:
        key = (point.get("MODEL"), point.get("TASK"), point.get("POOL_SIZE"))
        (rest if key in seen else first).append(point)
        seen.add(key)
    return [wave for wave in (first, rest) if wave]


def _start_worker(workers: int, log_dir: Path) -> None:
    """Set up a worker process: its share of the cores, and its kernels' stderr in a log file, not the terminal."""
    _share_cores(workers)
    log_dir.mkdir(parents=True, exist_ok=True)
    log = open(log_dir / f"worker-{os.getpid()}.log", "ab", buffering=0)  # noqa: SIM115 (open for the worker's life)
    os.dup2(log.fileno(), 2)


def _share_cores(workers: int) -> None:
    """Give each worker (and the kernels it starts) an equal share of the cores: oversubscribed torch threads
    made parallel points 10x slower on a 2-core machine."""
    threads = str(max(1, (os.cpu_count() or 1) // workers))
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, threads)


def aggregate(study: str, profile: str, out: Path, records: list[dict], command: str,
              this_run: dict | None = None) -> dict:
    """One results table (flat columns) and a provenance file for the whole sweep (`this_run`: its wall time)."""
    table = pd.json_normalize([{k: v for k, v in r.items() if k != "traceback"} for r in records])
    table = table.sort_values("point").reset_index(drop=True)
    atomic_write_text(out / "results.csv", table.to_csv(index=False))
    failed = [r for r in records if r["status"] != "ok"]
    provenance = {"study": study, "profile": profile, "command": command, "commit": git_commit(),
                  "versions": library_versions(), "points": len(records), "failed": [r["point"] for r in failed],
                  "point_commits": sorted({str(r.get("commit")) for r in records}), "this_run": this_run or {},
                  "seconds_per_point": {r["point"]: r["seconds"] for r in records}}
    atomic_write_text(out / "provenance.json", json.dumps(provenance, indent=1) + "\n")
    return {"results": out / "results.csv", "points": len(records), "failed": failed}


def emit_slurm(study: str, profile: str, out) -> Path:
    """Write a SLURM job-array script that runs the same points, one array task per point."""
    points = expand(study, profile)
    check_parameters(points)
    out = Path(out)
    (out / "points").mkdir(parents=True, exist_ok=True)
    _check_out_dir(out, study, points)
    script = out / "slurm_array.sh"
    atomic_write_text(script, "\n".join([
        "#!/usr/bin/env bash",
        f"#SBATCH --job-name={study}",
        f"#SBATCH --array=0-{len(points) - 1}",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --output=%x-%A_%a.log",
        f"# {len(points)} points of {study} ({profile}); afterwards aggregate with:",
        f"#   python -m course_lib reproduce {study} --profile {profile} --out {shlex.quote(str(out))}",
        "set -euo pipefail",
        f"python -m course_lib sweep-point {study} --profile {profile} --out {shlex.quote(str(out))} "
        "--index \"$SLURM_ARRAY_TASK_ID\"",
        ""]))
    script.chmod(0o755)
    return script


def live_slice(study: str, profile: str, where: str, out, workers: int = 1, command: str = "") -> pd.DataFrame:
    """Re-run a slice of a study's grid ("KEY:VALUE,KEY:VALUE") fresh into `out`; the points that succeeded (05, 06)."""
    import shutil

    shutil.rmtree(out, ignore_errors=True)  # a fresh slice each time a notebook executes
    outcome = run(study, profile, out, workers=workers, where=parse_where(where.split(","), ":"), command=command)
    table = pd.read_csv(outcome["results"])
    return table[table["status"] == "ok"].reset_index(drop=True)
