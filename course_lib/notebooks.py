"""Execute the course's numbered notebooks with papermill (the course's main command).

Introduced in README.md (`make course`).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from .errors import check
from .profiles import PROFILES
from .provenance import atomic_write_text, git_commit, library_versions
from .runtime import read_records

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"


def numbered_notebooks(folder: Path = NOTEBOOKS_DIR) -> list[Path]:
    """The course's notebooks `NN_name.ipynb`, in order."""
    return sorted(p for p in Path(folder).glob("*.ipynb") if re.match(r"\d\d_", p.name))


def course_notebooks(folder: Path = NOTEBOOKS_DIR) -> list[Path]:
    """Every notebook the main command runs: the numbered ones, then the experiment template."""
    return numbered_notebooks(folder) + sorted(p for p in Path(folder).glob("*.ipynb") if not re.match(r"\d\d_", p.name))


def execute(notebook: Path, out: Path, parameters: dict, progress: bool = False, name: str | None = None) -> dict:
    """Run one notebook with papermill into `out` (as `name`); returns its recorded numbers and wall time."""
    import papermill

    check_notebook_parameters(notebook, parameters)
    out.mkdir(parents=True, exist_ok=True)
    executed = out / (name or notebook.name)
    start = time.time()
    papermill.execute_notebook(str(notebook), str(executed), parameters=parameters,
                               progress_bar=progress, cwd=str(notebook.parent), kernel_name="python3")
    return {"notebook": executed.name, "seconds": round(time.time() - start, 1), "records": read_records(executed)}


def check_notebook_parameters(notebook: Path, parameters: dict) -> None:
    """Before a kernel starts: every parameter must be one the notebook declares, of its default's type."""
    import papermill

    from .runtime import literal_assignments, parameter_errors

    declared = {name: literal_assignments(f"x = {info['default']}").get("x")
                for name, info in papermill.inspect_notebook(str(notebook)).items()}
    errors = parameter_errors(declared, parameters)
    check(not errors, f"{Path(notebook).name}: " + "; ".join(errors))


def run_course(profile: str, out, only=None, progress: bool = True) -> dict:
    """Execute every notebook in `profile` into `out` (numbered ones first); write and return a summary."""
    from tqdm.auto import tqdm

    check(profile in PROFILES, f"profile={profile!r} is unknown; use one of {', '.join(PROFILES)}")
    out = Path(out)
    notebooks = [nb for nb in course_notebooks() if only is None or nb.name.startswith(tuple(only))]
    check(notebooks, f"no notebooks match {only!r} in {NOTEBOOKS_DIR}")
    results = [execute(nb, out, {"PROFILE": profile}) for nb in tqdm(notebooks, desc="notebooks", disable=not progress)]
    summary = {"profile": profile, "notebooks": results, "commit": git_commit(), "versions": library_versions()}
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    return summary
