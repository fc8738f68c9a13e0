"""Execute the course's numbered notebooks with papermill (the course's main command).

Introduced in README.md (`make course`).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

from ..errors import check
from ..paths import EXPERIMENT_TEMPLATE, NOTEBOOKS_DIR
from ..provenance import atomic_write_text, fresh_log, git_commit, library_versions
from ..research.profiles import PROFILES
from .runtime import CHARTS_VARIABLE, literal_assignments, parameter_errors, read_records


def numbered_notebooks(folder: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The course's notebooks `NN_name.ipynb`, in order; `NNb_name.ipynb` is a second slot on NN's topic, after it."""
    return sorted(p for p in Path(folder).glob("*.ipynb") if re.match(r"\d\d[a-z]?_", p.name))


def notebook_id(notebook: Path | str) -> str:
    """How the course names a notebook: '04', '04b', 'A2' (its file name up to the first underscore).

    >>> notebook_id("notebooks/04b_dead_groups_in_training.ipynb"), notebook_id("A2_real_pretrained_model.ipynb")
    ('04b', 'A2')
    """
    return Path(notebook).name.split("_", 1)[0]


def appendix_notebooks(folder: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The appendix notebooks `A<digit>_name.ipynb` (the research behind the core), in order."""
    return sorted(p for p in Path(folder).glob("*.ipynb") if re.match(r"A\d_", p.name))


def course_notebooks(folder: Path = NOTEBOOKS_DIR) -> list[Path]:
    """Every notebook the main command runs: the numbered ones, the appendix, then the sweep's grid-point template."""
    return numbered_notebooks(folder) + appendix_notebooks(folder) + [EXPERIMENT_TEMPLATE]


def execute(notebook: Path, out: Path, parameters: dict, progress: bool = False, name: str | None = None,
            log: Path | None = None) -> dict:
    """Run one notebook with papermill into `out` (as `name`); returns its recorded numbers and wall time.

    `log`: a file for the kernel process's own stderr (its start-up warnings, a crash), which otherwise lands
    in the terminal; a cell's error is in the executed notebook and raised here either way.
    """
    import papermill

    check_notebook_parameters(notebook, parameters)
    out.mkdir(parents=True, exist_ok=True)
    executed = out / (name or notebook.name)
    if executed.is_symlink() or (executed.is_file() and executed.stat().st_nlink > 1):
        executed.unlink()  # a link at the copy's name is replaced, never written through (its target keeps its bytes)
    start = time.time()
    options = {}
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log_file = fresh_log(log)  # closed below, after the kernel has exited; never through a link
        options["kernel_manager_class"] = _kernel_manager_logging_to(log_file)

    charts = os.environ.get(CHARTS_VARIABLE)
    os.environ[CHARTS_VARIABLE] = "svg"  # the kernel inherits it: executed notebooks keep static charts, no widgets
    try:
        papermill.execute_notebook(str(notebook), str(executed), parameters=parameters,
                                   progress_bar=progress, cwd=str(notebook.parent), kernel_name="python3", **options)
    except papermill.PapermillExecutionError:
        raise  # a cell failed: papermill's message names the cell and shows its traceback
    except Exception as error:  # the kernel died or never started: the cause is in its log
        if log is None:
            raise
        log_file.flush()
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
        raise RuntimeError(f"{notebook.name}: {type(error).__name__}: {error}\nthe kernel's log {log} ends:\n"
                           f"{tail or '(empty)'}") from error
    finally:
        if charts is None:  # leave the environment as it was
            os.environ.pop(CHARTS_VARIABLE, None)
        else:
            os.environ[CHARTS_VARIABLE] = charts
        if log is not None:
            log_file.close()
    return {"notebook": executed.name, "seconds": round(time.time() - start, 1), "records": read_records(executed)}


def _kernel_manager_logging_to(log_file):
    """A kernel manager whose kernels write their stderr (IPKernelApp's warnings, a crash) to `log_file`."""
    from jupyter_client.manager import AsyncKernelManager

    class LoggedKernelManager(AsyncKernelManager):
        async def start_kernel(self, **kw):
            kw.setdefault("stderr", log_file)
            return await super().start_kernel(**kw)

    return LoggedKernelManager


def check_notebook_parameters(notebook: Path, parameters: dict) -> None:
    """Before a kernel starts: every parameter must be one the notebook declares, of its default's type."""
    import papermill

    declared = {name: literal_assignments(f"x = {info['default']}").get("x")
                for name, info in papermill.inspect_notebook(str(notebook)).items()}
    errors = parameter_errors(declared, parameters)
    check(not errors, f"{Path(notebook).name}: " + "; ".join(errors))


def format_runtime(seconds: float) -> str:
    """'19 s' or '3.8 min': how the course map and each notebook's header state a measured runtime."""
    return f"{round(seconds)} s" if seconds < 60 else f"{seconds / 60:.1f} min"


def run_course(profile: str, out, only=None, progress: bool = True) -> dict:
    """Execute every notebook in `profile` into `out` (numbered ones first); write and return a summary."""
    from tqdm.auto import tqdm

    check(profile in PROFILES, f"profile={profile!r} is unknown; use one of {', '.join(PROFILES)}")
    out = Path(out)
    notebooks = [nb for nb in course_notebooks() if only is None or nb.name.startswith(tuple(only))]
    check(notebooks, f"no notebooks match {only!r} in {NOTEBOOKS_DIR}")
    results, code = [], {"commit": git_commit(), "versions": library_versions()}  # each entry: the code that ran it
    logs = out / "logs"
    check(not logs.exists() and not logs.is_symlink() or logs.is_dir(),
          f"out={out} holds a file named logs where the kernels' logs go; move it, or give another folder")
    for notebook in tqdm(notebooks, desc="notebooks", disable=not progress):
        log = out / "logs" / f"{notebook.stem}.log"  # the kernel's own stderr, not the progress bar
        # its earlier entry leaves summary.json before its kernel starts: a failure, Ctrl-C or a kill -9 leaves a
        # partial executed copy that no entry describes, beside this run's finished ones
        _write_summary(out, profile, results, failed=notebook.name)
        try:
            results.append({**execute(notebook, out, {"PROFILE": profile}, log=log), **code})
        except Exception as error:
            lines = str(error).strip().splitlines() or [type(error).__name__]
            print(f"\n{notebook.name} failed: {lines[-1]}\n  executed notebook: "
                  f"{out / notebook.name}\n  kernel log: {log}", file=sys.stderr)
            raise
    return {**_write_summary(out, profile, results), "notebooks": results}


def _write_summary(out: Path, profile: str, results: list[dict], failed: str | None = None) -> dict:
    """summary.json: this run's entries merged with an earlier run's, less a notebook that failed now; each entry
    names the commit and versions that executed it, the top level this run's."""
    merged = [item for item in _merged(out, profile, results) if item["notebook"] != failed]
    summary = {"profile": profile, "notebooks": merged, "commit": git_commit(), "versions": library_versions()}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    return summary


def _merged(out: Path, profile: str, results: list[dict]) -> list[dict]:
    """This run's entries with those of an earlier run into the same folder and profile (`--only 00` after the
    whole course keeps the others' timings), for every notebook whose executed copy is still there, in course order."""
    try:
        earlier = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        earlier = {}
    rerun = {item["notebook"] for item in results}
    then = {"commit": earlier.get("commit"), "versions": earlier.get("versions")}  # an entry from before its own
    kept = [{**then, **item} for item in earlier.get("notebooks", []) if earlier.get("profile") == profile
            and isinstance(item, dict) and item.get("notebook") not in rerun and (out / str(item.get("notebook"))).exists()]
    order = {path.name: index for index, path in enumerate(course_notebooks())}
    return sorted(kept + results, key=lambda item: order.get(item["notebook"], len(order)))
