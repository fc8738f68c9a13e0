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


def env_folder(name: str) -> Path | None:
    """The folder an environment variable names; None when it is unset or empty (`COURSE_CACHE_DIR=` is unset)."""
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


def is_model_folder(path) -> bool:
    """Whether a folder holds a model as `save_pretrained` writes it: config.json beside weights."""
    path = Path(path)
    return (path / "config.json").is_file() and any(
        any(path.glob(pattern)) for pattern in ("*.safetensors", "*.bin", "*.gguf"))


def check_not_an_input(out, inputs: dict, folder: bool = False, parameter: str = "out", data_folders=None) -> None:
    """An output may not replace an input (the same file, also through a link) nor go into a model or data folder.

    `inputs` maps each input's parameter name to its path, `data_folders` each read-only folder's name to its path;
    `folder` says `out` is a folder (else a file).
    """
    from .errors import check

    target = Path(out).expanduser().resolve()
    for name, path in inputs.items():
        check(target != Path(path).expanduser().resolve(),
              f"{parameter}={out} is an input ({name}={path}) and would be overwritten; write to another path")
    for name, path in (data_folders or {}).items():
        check(Path(path).expanduser().resolve() not in (target, *target.parents),
              f"{parameter}={out} is inside the data folder {name}={path}, which is only read; write outputs elsewhere")
    receiver = target if folder else target.parent
    check(not is_model_folder(receiver), f"{parameter}={out} is {'' if folder else 'inside '}a model folder "
                                         f"({receiver} holds config.json and weights); give a new folder for outputs")


def check_writable_file(path, parameter: str = "out") -> Path:
    """An output file path that can be written, checked before any long work; a clear error otherwise."""
    from .errors import check

    check(str(path).strip() not in ("", "."), f"{parameter} is empty; give a file path, e.g. results.csv")
    path = Path(path).expanduser()
    check(not path.is_dir(), f"{parameter}={path} is a folder; give a file path inside it, e.g. {path / 'out.csv'}")
    _check_folder_writable(path.parent, parameter, path)
    return path


def check_writable_folder(path, parameter: str = "out") -> Path:
    """An output folder that exists or can be made, and can be written into; a clear error otherwise."""
    from .errors import check

    check(str(path).strip() not in ("",), f"{parameter}='' is empty; give a folder path, e.g. runs/first")
    path = Path(path).expanduser()
    check(not path.exists() or path.is_dir(), f"{parameter}={path} is a file; give a folder (a new one, or the "
                                               "same folder to resume)")
    _check_folder_writable(path, parameter, path)
    return path


def _check_folder_writable(folder: Path, parameter: str, shown: Path) -> None:
    """Make `folder` if needed and write a scratch file into it, so a read-only or odd path fails now."""
    from .errors import CourseError

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as error:
        raise CourseError(f"{parameter}={shown} cannot be written ({error.strerror or error}); "
                          "choose a writable folder") from None


def atomic_write_texts(files: dict) -> None:
    """Write several files so that readers see all of them new or, if a write fails, none replaced (table and
    its provenance)."""
    staged = []
    try:
        for path, text in files.items():
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            staged.append((tmp, path))
            with os.fdopen(handle, "w") as out:
                out.write(text)
            os.chmod(tmp, 0o644)
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


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
