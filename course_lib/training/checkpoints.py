"""Checkpoints that are whole or absent: written under a temporary name, marked with the sha256 of their files,
then renamed into the run folder; a run resumes from the newest one that still verifies.

Introduced in notebooks/04_grpo_training.ipynb.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from safetensors import SafetensorError

from ..errors import CourseError
from ..models import file_sha256
from ..provenance import STAGING_NAME, atomic_write_text

MARKER = "complete.json"  # written last into a finished checkpoint: the sha256 of every other file in it
STAGING = STAGING_NAME  # checkpoints and final/ are written in this subfolder of the run, then renamed out of it
CHECKPOINT = re.compile(r"checkpoint-(\d+)")  # checkpoint-12; not checkpoint-old, not checkpoint-12.damaged
SAVE_ERRORS = (OSError, RuntimeError, SafetensorError)  # a full disk or a folder without write permission, as
# Python, torch.save ("PytorchStreamWriter failed writing file") and safetensors report it


def folder_sha256(folder: Path) -> dict[str, str]:
    """sha256 of every file under `folder`, by path relative to it (the marker excepted)."""
    return {path.relative_to(folder).as_posix(): file_sha256(path)
            for path in sorted(Path(folder).rglob("*")) if path.is_file() and path.name != MARKER}


def mismatch(folder: Path, expected: dict) -> str | None:
    """What is wrong with `folder` against the sha256 recorded for its files (None when every file matches)."""
    for name, sha256 in expected.items():
        path = Path(folder) / name
        if not path.is_file():
            return f"{path} is missing"
        if file_sha256(path) != sha256:
            return f"{path} is damaged (its sha256 differs from the one recorded when it was saved)"
    return None


def damage(checkpoint: Path) -> str | None:
    """Why a checkpoint is not whole: no marker (its save never finished), or a file missing or changed."""
    try:
        expected = json.loads((checkpoint / MARKER).read_text(encoding="utf-8"))["sha256"]
    except FileNotFoundError:
        return f"{checkpoint} has no {MARKER} (its save did not finish)"
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return f"{checkpoint / MARKER} is damaged"
    if not isinstance(expected, dict) or not expected:
        return f"{checkpoint / MARKER} is damaged"
    return mismatch(checkpoint, expected) or misnumbered(checkpoint)


def misnumbered(checkpoint: Path) -> str | None:
    """Why a checkpoint's name disagrees with the step its trainer_state.json holds (a copy renamed by hand would
    resume at the wrong step and log steps twice); None when they agree or the state names no step."""
    try:
        step = json.loads((checkpoint / "trainer_state.json").read_text(encoding="utf-8")).get("global_step")
    except (OSError, ValueError, AttributeError):
        return None  # no trainer state: the marker's hashes are what vouch for the folder
    named = int(checkpoint.name.split("-")[1])
    if isinstance(step, int) and step != named:
        return f"{checkpoint} holds the state of step {step}, not step {named} (a copy under another name)"
    return None


def numbered_checkpoints(run_dir) -> list[Path]:
    """The run's `checkpoint-N` folders, newest (highest N, in numeric order) first; other names are ignored."""
    found = [(int(match.group(1)), path) for path in Path(run_dir).glob("checkpoint-*")
             if (match := CHECKPOINT.fullmatch(path.name)) and path.is_dir()]
    return [path for _, path in sorted(found, reverse=True)]


def newest_complete(run_dir) -> tuple[Path | None, list[tuple[Path, str]]]:
    """The newest checkpoint that verifies (None if none does), and the newer ones that do not, each with why."""
    broken = []
    for checkpoint in numbered_checkpoints(run_dir):
        why = damage(checkpoint)
        if why is None:
            return checkpoint, broken
        broken.append((checkpoint, why))
    return None, broken


def set_aside(folder: Path) -> Path:
    """Rename a damaged checkpoint to `<name>.damaged` (`.damaged.2`, ... beside an older one): kept, never resumed."""
    target, n = folder.with_name(folder.name + ".damaged"), 1
    while target.exists():  # an earlier damaged copy of the same step: each may be what someone needs to look at
        n += 1
        target = folder.with_name(f"{folder.name}.damaged.{n}")
    folder.rename(target)
    return target


def publish(staged: Path, target: Path, marker: bool = True) -> dict[str, str]:
    """Move a fully written folder to its place (replacing what is there); returns the sha256 of its files.

    With `marker`, they are first written into it as complete.json: a folder without one was never finished.
    """
    hashes = folder_sha256(staged)
    if marker:
        atomic_write_text(staged / MARKER, json.dumps({"sha256": hashes}, indent=1) + "\n")
    shutil.rmtree(target, ignore_errors=True)
    staged.rename(target)
    return hashes


def remove_old(run_dir, keep: int | None) -> None:
    """Delete all but the `keep` newest checkpoints (TRL's save_total_limit; None keeps all); keep >= 2 leaves one
    to fall back on."""
    if keep:
        for checkpoint in numbered_checkpoints(run_dir)[keep:]:
            shutil.rmtree(checkpoint)


def save_failed(error: Exception, what: str, run_dir: Path) -> CourseError:
    """One line for a save that failed (disk full, no permission): the cause, and where a rerun resumes."""
    cause = error.strerror if isinstance(error, OSError) and error.strerror else \
        (str(error).strip().splitlines() or [type(error).__name__])[0]
    last = numbered_checkpoints(run_dir)
    resumes = f"it resumes from {last[0].name}" if last else "it starts again"
    return CourseError(f"could not save {what} in {run_dir} ({cause}); free disk space or make the folder "
                       f"writable, then run the same command again: {resumes}")
