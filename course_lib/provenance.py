"""Provenance and safe files: versions, commit, atomic writes.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import os
import platform
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path

TRACKED_LIBRARIES = ("torch", "transformers", "trl", "peft", "datasets", "accelerate", "tokenizers", "math-verify")


def library_versions() -> dict:
    """Python and the course's key libraries, by installed version (None when absent)."""
    versions = {"python": platform.python_version()}
    for name in TRACKED_LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


CODE_PATHS = ("course_lib", "notebooks", "benchmarks", "pyproject.toml")  # what decides a run's behaviour


def git_commit() -> str | None:
    """The project's current commit, '+dirty' when its code has uncommitted changes; None outside git.

    Only code paths count: a run that rewrites its own outputs under data/ is still a clean run.
    """
    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", *CODE_PATHS], cwd=root, capture_output=True,
            text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty else "")


def atomic_write_text(path, text: str) -> None:
    """Write text so that readers see the old file or the new one, never half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; results and tables are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
