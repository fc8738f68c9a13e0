"""Provenance and safe files: versions, commit, atomic writes.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import fcntl
import hashlib
import io
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import warnings
from importlib import metadata
from pathlib import Path

from .errors import CourseError, check, warn
from .paths import REPOSITORY, env_folder  # noqa: F401 (env_folder: also read from here)

TRACKED_LIBRARIES = ("torch", "transformers", "trl", "peft", "datasets", "accelerate", "tokenizers", "math-verify",
                     "latex2sympy2_extended", "sympy", "vllm")  # vllm: None without it (CPU)


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
    root = REPOSITORY
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


RUN_CODE_PATHS = ("course_lib", "pyproject.toml")  # what decides what a grid point computes


def code_changed_since(commit: str) -> list[str] | None:
    """The files of the library (and its pinned versions) that differ between `commit` and the code here, committed
    or not; None where git cannot tell (outside git, or a commit this clone does not hold) (05)."""
    if not re.fullmatch(r"[0-9a-f]{7,64}", commit):  # never an option (`--output=FILE` would write FILE)
        return None
    try:
        changed = subprocess.run(["git", "diff", "--name-only", commit, "--", *RUN_CODE_PATHS], cwd=REPOSITORY,
                                 capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return None
    return changed


def is_model_folder(path) -> bool:
    """Whether a folder holds a model as `save_pretrained` writes it: config.json beside weights."""
    path = Path(path)
    return (path / "config.json").is_file() and any(
        any(path.glob(pattern)) for pattern in ("*.safetensors", "*.bin", "*.gguf"))


def resolved(path, parameter: str = "out") -> Path:
    """`path` with links and `~` resolved; a loop of symbolic links is one line naming the parameter."""
    try:
        return Path(path).expanduser().resolve()
    except (RuntimeError, OSError) as error:  # Python 3.11-3.12: RuntimeError; 3.13: OSError (ELOOP)
        raise CourseError(f"{parameter}={path} cannot be resolved ({getattr(error, 'strerror', None) or error}); "
                          "give a path without a loop of symbolic links") from None


def check_not_an_input(out, inputs: dict, folder: bool = False, parameter: str = "out", data_folders=None) -> None:
    """An output may not replace an input (the same file, also through a link) nor go into a model or data folder.

    `inputs` maps each input's parameter name to its path, `data_folders` each read-only folder's name to its path;
    `folder` says `out` is a folder (else a file): then no folder above it may be a model folder either.
    """
    target = resolved(out, parameter)
    for name, path in inputs.items():
        check(target != resolved(path, name),
              f"{parameter}={out} is an input ({name}={path}) and would be overwritten; write to another path")
    for name, path in (data_folders or {}).items():
        check(resolved(path, name) not in (target, *target.parents),
              f"{parameter}={out} is inside the data folder {name}={path}, which is only read; write outputs elsewhere")
    receivers = [target, *target.parents] if folder else list(target.parents)
    for receiver in receivers:
        check(not is_model_folder(receiver), f"{parameter}={out} is {'' if receiver == target else 'inside '}a model "
                                             f"folder ({receiver} holds config.json and weights); give a new folder "
                                             "for outputs")
    if not folder:
        check_not_in_owned(out, parameter, include_self=False, fix="write outputs elsewhere")


def tracked_files(folder: Path) -> list[str]:
    """The files inside FOLDER that the git repository around it tracks (another clone's committed model too);
    [] when the folder is new, is in no repository, or git is not installed."""
    if not folder.is_dir():
        return []
    try:
        listed = subprocess.run(["git", "-C", str(folder), "ls-files", "-z", "--", "."], capture_output=True,
                                timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return [name for name in listed.stdout.decode(errors="replace").split("\0") if name] if listed.returncode == 0 else []


def is_tracked(path: Path) -> bool:
    """Whether git tracks this file (a committed result, a course model's file); False outside a repository."""
    path = Path(path)
    if not path.is_file():
        return False
    try:
        listed = subprocess.run(["git", "-C", str(path.parent), "ls-files", "--error-unmatch", "--", path.name],
                                capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return listed.returncode == 0


def check_not_in_owned(out, parameter: str = "out", include_self: bool = True,
                       fix: str = "give a folder outside it") -> None:
    """A folder output (a cache, figures, a study) may not be, or be inside, a folder another command owns: a run
    folder, or a study's points/, runs/ or logs/."""
    target = resolved(out, parameter)
    for receiver in ([target] if include_self else []) + list(target.parents):
        owner = owned_folder(receiver)
        check(owner is None, f"{parameter}={out} is {'' if receiver == target else f'inside {receiver}, '}"
                             f"{owner}, which only that command writes into; {fix}")


def check_ignored_in_repository(folder, parameter: str, under: str = "build/cache/") -> None:
    """A cache folder inside the repository must be one git ignores (build/, a .cache): elsewhere its files would
    sit among the course's own as untracked clutter (notebooks/, course_lib/, data/results/STUDY/)."""
    folder = Path(folder).expanduser().resolve()
    if not folder.is_relative_to(REPOSITORY) or not (REPOSITORY / ".git").exists():
        return
    ignored = subprocess.run(["git", "-C", str(REPOSITORY), "check-ignore", "-q", str(folder / "x")],
                             capture_output=True).returncode == 0
    kept = " (git ignores it, and `make clean` keeps it)" if under == "build/cache/" else " (git ignores it)"
    check(ignored, f"{parameter}={folder} is inside the repository, among files git tracks; give a folder outside it "
                   f"or under {under}{kept}")


def check_not_busy(out, parameter: str = "out") -> None:
    """An output may not go into a folder another command is writing right now (it holds that folder's lock)."""
    for folder in resolved(out, parameter).parents:
        lock = folder / LOCK_NAME
        if folder in _held or not lock.is_file():
            continue
        try:
            handle = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CourseError(f"{parameter}={out} is inside {folder}, which another command is writing "
                              f"({_lock_holder(handle)}); wait for it to end, or write elsewhere") from None
        except OSError:
            pass  # a file system without locks: nothing to learn
        finally:
            os.close(handle)


def owned_folder(folder: Path) -> str | None:
    """What owns a folder no other command may add files to ('a run folder of `train`', ...); None for others."""
    if (folder / "run_config.json").is_file():
        return "a run folder of `train`"
    if folder.name in ("points", "runs", "logs") and (folder.parent / "grid.json").is_file():
        return f"the {folder.name}/ of a study folder `reproduce` writes"
    return None


COMMAND = re.compile(r"python -m course_lib ([\w-]+)")  # how every output records the command that wrote it


def read_record(path) -> dict | None:
    """A JSON record course_lib may have written (an object); None for another kind of file (weights, a table,
    source code), a damaged one, or one too large to be a record."""
    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size > 64 << 20:
            return None
        with open(path, "rb") as handle:
            if handle.read(64).lstrip()[:1] != b"{":
                return None
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def written_by(path) -> str | None:
    """The course_lib command a JSON file records in its "command" field ('estimate', 'pretrain', ...); None when
    the file is not such a record."""
    return _command_of(read_record(path))


def _command_of(record: dict | None) -> str | None:
    command = record.get("command") if record else None
    match = COMMAND.match(command) if isinstance(command, str) else None
    return match.group(1) if match else None


SEAL = "content_sha256"  # a JSON output's sha256 of its own other fields, so that an edit by hand shows


def sealed_json(record: dict) -> str:
    """A JSON output's text, with SEAL over its other fields: `evaluate` and `compare`, whose output is its own
    record, then replace it only as they wrote it (`check_replaceable`)."""
    body = {key: value for key, value in record.items() if key != SEAL}
    return json.dumps({**body, SEAL: _fields_sha256(body)}, indent=1) + "\n"


def _fields_sha256(body: dict) -> str:
    return text_sha256(json.dumps(body, indent=1))


def seal_broken(path) -> bool:
    """Whether a JSON output holds SEAL and its other fields no longer match it (an output from before the seal, or
    one unreadable here, is not called edited)."""
    return _seal_broken(read_record(path))


def _seal_broken(record: dict | None) -> bool:
    if not record or not isinstance(record.get(SEAL), str):
        return False
    return record[SEAL] != _fields_sha256({key: value for key, value in record.items() if key != SEAL})


def check_replaceable(path, command: str, record=None, parameter: str = "out") -> None:
    """An existing output file is replaced only when it is recognisably `command`'s own: `record` (the file itself,
    or the provenance file the command writes beside it) names `python -m course_lib COMMAND`.

    So `estimate --out RUN/final/adapter_model.safetensors`, `--out run_config.json` or `--out course_lib/x.py`
    are refused, and a command run again over its own output replaces it.
    """
    path = Path(path).expanduser()
    if path.is_symlink() and not path.exists():
        raise CourseError(f"{parameter}={path} is a link that leads nowhere (to {os.readlink(path)}); give a new "
                          "path, or remove the link first")
    if not path.exists():
        return
    check(path.stat().st_mode & 0o222, f"{parameter}={path} is read-only (mode {path.stat().st_mode & 0o777:o}), kept "
                                       "so on purpose; give a new path, or make it writable (chmod u+w) to replace it")
    record = Path(record).expanduser() if record is not None else path
    fields = read_record(record)
    by = _command_of(fields)
    why = (f"it records `{by}`" if by else f"{record.name} does not record it" if record != path else
           "it is not a record course_lib writes")
    check(by == command, f"{parameter}={path} already exists and is not an output of `{command}` ({why}); give a new "
                         "path, or delete the file first if it is yours to replace")
    check(record != path or not _seal_broken(fields),
          f"{parameter}={path} was changed after `{command}` wrote it (its fields no longer match its {SEAL}): an "
          "edit of yours would be lost; give a new path, or delete the file first if it is yours to replace")
    recorded = fields.get("sha256") if record != path and path.is_file() else None  # a table or ids file
    check(not isinstance(recorded, str) or file_sha256(path) == recorded,
          f"{parameter}={path} was changed after `{command}` wrote it (its sha256 differs from the one in "
          f"{record.name}): an edit of yours would be lost; give a new path, or delete the file first if it is "
          "yours to replace")


LOCK_NAME = ".course-lib.lock"  # a folder's lock file (one writer per folder)
STAGING_NAME, STAGING_STAMP = ".saving", ".course-lib-staging"  # a save's staging folder and the stamp it holds


def is_lock_file(name: str) -> bool:
    """A folder's or a file's lock (.course-lib.lock, .NAME.course-lib.lock): never a folder's content."""
    return name.startswith(".") and name.endswith(LOCK_NAME)


def is_transient(name: str) -> bool:
    """A file the course's own writers hold for a moment (`check_writable_folder`'s probe, `atomic_write_text`'s
    temporary copy): another process of the same launch may see it, and it is no folder's content."""
    return name.startswith(".write-test-") or (name.startswith(".") and name.endswith(".tmp"))


def is_own_staging(path: Path) -> bool:
    """A killed save's staging folder that course_lib made (empty, or holding its stamp): not a folder's content,
    and safe to empty; a `.saving` holding anyone else's files is content."""
    return (path.name == STAGING_NAME and path.is_dir() and not path.is_symlink()
            and (not any(path.iterdir()) or (path / STAGING_STAMP).is_file()))


def check_own_folder(folder, command: str, marker: str, is_own=None, parameter: str = "out") -> None:
    """A folder a command writes into must be new, empty, or already its own: it holds `marker`, recognisably
    written by `command` (`is_own(marker_path)`, default: the marker records `python -m course_lib COMMAND`).

    A folder holding other files is refused: the command would mix its files with theirs or replace them.
    """
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        return
    found = folder / marker
    if found.is_file():
        own = is_own(found) if is_own else written_by(found) == command
        check(own, f"{parameter}={folder} holds a {marker} that `{command}` did not write; give a new or empty folder")
        return
    # a name with a line break stays on the one line
    content = sorted(p.name if p.name.isprintable() else repr(p.name) for p in folder.iterdir()
                     if not is_lock_file(p.name) and not is_transient(p.name) and not is_own_staging(p))
    check(not content, f"{parameter}={folder} already holds files ({', '.join(content[:3])}"
                       f"{', ...' if len(content) > 3 else ''}) and no {marker}: it is not a folder `{command}` wrote; "
                       "give a new or empty folder")


# ---------------------------------------------------------------------------
# One writer per folder
# ---------------------------------------------------------------------------

_held: dict = {}  # resolved folder -> [file descriptor, depth]: a process may lock a folder it holds again


@contextlib.contextmanager
def folder_lock(folder, parameter: str = "out"):
    """Hold FOLDER/.course-lib.lock (`fcntl.flock`) while a command writes into the folder: a second writer is
    refused with one line naming the first; the lock dies with its process (also when killed), so a stale file
    never blocks. The folder is made if needed. Introduced in notebooks/04_grpo_training.ipynb.
    """
    folder = Path(folder).expanduser()
    with _locked(folder, resolved(folder, parameter), LOCK_NAME, parameter):
        yield


@contextlib.contextmanager
def file_lock(path, parameter: str = "out"):
    """Hold PARENT/.NAME.course-lib.lock while a command writes the file PATH: a second command writing the same
    file is refused with one line; other files in the folder stay free. Introduced in docs/command_line.md.
    """
    path = Path(path).expanduser()
    with _locked(path.parent, resolved(path, parameter), f".{path.name}{LOCK_NAME}", parameter, shown=path):
        yield


def missing_folders(folder: Path) -> list[Path]:
    """`folder` and those of its parents that do not exist yet, deepest first (what a `mkdir -p` would make)."""
    return [path for path in [folder, *folder.parents] if not path.exists()]


def remove_empty(folders: list[Path]) -> None:
    """Remove each of `folders` (deepest first) that is still empty; leave any that holds something."""
    for path in folders:
        with contextlib.suppress(OSError):
            path.rmdir()


@contextlib.contextmanager
def _locked(folder: Path, key: Path, lock_name: str, parameter: str, shown: Path | None = None):
    """Hold the lock file FOLDER/LOCK_NAME for the thing KEY names (re-entrant within one process)."""
    if key in _held:  # the same process again (the CLI, then the library function it calls)
        _held[key][1] += 1
        try:
            yield
        finally:
            _held[key][1] -= 1
        return
    made = missing_folders(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = resolved(folder, parameter) / lock_name  # absolute: released in the same place if the process changes folder
    handle = _acquire(path, shown or folder, parameter)
    _held[key] = [handle, 1]
    try:
        yield
    finally:
        del _held[key]
        if handle is not None:
            path.unlink(missing_ok=True)  # removed while still locked: a waiter that opened it starts over
            os.close(handle)
        remove_empty(made)  # a command refused after taking the lock leaves no empty folder behind


def _acquire(path: Path, folder: Path, parameter: str) -> int | None:
    """The locked lock file's descriptor, with this process written into it; None on a file system without locks."""
    while True:
        try:
            handle = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)  # never through a link: rewritten
        except OSError as error:
            if error.errno != errno.ELOOP:
                raise
            raise CourseError(f"{path} is a symbolic link; delete it (it only marks that a command is writing into "
                              f"{folder})") from None
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _lock_holder(handle)
            os.close(handle)
            raise CourseError(f"{parameter}={folder} is in use by another command ({holder}); wait for it to end, "
                              "or give another folder") from None
        except OSError as error:  # a file system without locks (some network mounts): go on, but say so
            os.close(handle)
            warn(f"could not lock {path} ({error.strerror or error}); make sure no other command writes "
                 f"into {folder} at the same time")
            return None
        try:
            current = os.stat(path).st_ino
        except FileNotFoundError:
            current = None
        if current == os.fstat(handle).st_ino:  # not a file its last holder removed while this one waited
            break
        os.close(handle)
    if os.fstat(handle).st_nlink != 1:  # a hard link to some other file: rewriting it would change that file
        os.close(handle)
        raise CourseError(f"{path} is linked to another file; delete it (it only marks that a command is writing "
                          f"into {folder})")
    cli = sys.argv[:1] and sys.argv[0].endswith("__main__.py")  # `python -m course_lib ...`, else a kernel or script
    command = " ".join(["python -m course_lib", *sys.argv[1:]] if cli else sys.argv)
    os.ftruncate(handle, 0)
    os.write(handle, json.dumps({"pid": os.getpid(), "command": command}).encode())
    return handle


def _lock_holder(handle: int) -> str:
    """Who holds a lock, from what it wrote into the lock file: 'pid 123: python -m course_lib train ...'."""
    try:
        holder = json.loads(os.pread(handle, 4096, 0).decode())
        command = " ".join(str(holder.get("command", "")).split())
        shown = command if len(command) <= 160 else f"{command[:70]} ... {command[-85:]}"  # keep its --out in view
        return f"pid {int(holder['pid'])}" + (f": {shown}" if command else "")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return "a process that is starting"


def check_writable_file(path, parameter: str = "out") -> Path:
    """An output file path that can be written, checked before any long work; a clear error otherwise."""
    check(str(path).strip() not in ("", "."), f"{parameter} is empty or '.', the current folder; give a file path, "
                                              "e.g. results.csv")
    path = Path(path).expanduser()
    check(not path.is_dir(), f"{parameter}={path} is a folder; give a file path inside it, e.g. {path / 'out.csv'}")
    check(not path.exists() or path.is_file(), f"{parameter}={path} is not a regular file (a device, pipe or socket), "
                                               "which a command never replaces; give a file path, e.g. results.csv")
    _check_folder_writable(path.parent, parameter, path)
    return path


def check_writable_folder(path, parameter: str = "out") -> Path:
    """An output folder that exists or can be made, and can be written into; a clear error otherwise."""
    check(str(path).strip() not in ("",), f"{parameter}='' is empty; give a folder path, e.g. runs/first")
    path = Path(path).expanduser()
    check(not path.exists() or path.is_dir(), f"{parameter}={path} is a file; give a folder (a new one, or the "
                                               "same folder to resume)")
    _check_folder_writable(path, parameter, path)
    return path


def check_name_lengths(path: Path, parameter: str, note: str = "") -> None:
    """Each name in `path` fits the file system (255 bytes on most), so a long one fails now, named (a file
    system says only 'File name too long', and Path.exists raises it)."""
    longest = 255  # NAME_MAX of ext4, xfs, btrfs, tmpfs; a file system allowing fewer says so below
    for folder in path.parents:
        with contextlib.suppress(OSError, ValueError):
            longest = os.pathconf(folder, "PC_NAME_MAX")  # raises until the first folder that exists
            break
    for name in path.parts:
        if len(os.fsencode(name)) > longest:
            raise CourseError(f"{parameter}={str(path)[:60]}...: the name {name[:20]}... is {len(os.fsencode(name))} "
                              f"bytes{note}, longer than this file system allows ({longest}); give a shorter name")


def _check_folder_writable(folder: Path, parameter: str, shown: Path) -> None:
    """Write a scratch file into `folder` (made for the test, then removed again), so a read-only or odd path
    fails now and a command refused later leaves no empty folder behind."""
    check_name_lengths(shown, parameter)
    blocking = next((path for path in [folder, *folder.parents] if path.exists() and not path.is_dir()), None)
    if blocking is not None:
        raise CourseError(f"{parameter}={shown} cannot be written: {blocking} is a file, not a folder; give a path "
                          "whose folders are folders")
    made = missing_folders(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as error:
        raise CourseError(f"{parameter}={shown} cannot be written ({error.strerror or error}); "
                          "choose a writable folder") from None
    finally:
        if int(os.environ.get("WORLD_SIZE", "1") or 1) <= 1:  # launched processes check the same folder at once:
            remove_empty(made)  # one removing it under another's test file failed that one (No such file)


def fresh_log(path, append: bool = False):
    """A log file opened for writing as a file of its own: a link (symbolic or hard) at its name is removed first,
    never written through, so a log cannot replace what the link points to; `append` keeps a file's earlier lines but
    refuses a symbolic link (05)."""
    path = Path(path)
    if not append and (path.is_symlink() or path.is_file()):
        path.unlink()  # the link only: its target keeps its bytes
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_APPEND if append else os.O_EXCL)
    try:
        return os.fdopen(os.open(path, flags, 0o644), "ab" if append else "wb", buffering=0)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EEXIST):
            raise CourseError(f"{path} is a link or was made by another command just now; a log is written only as a "
                              "file of its own: remove it, or give another --out") from None
        raise


def atomic_write_texts(files: dict) -> None:
    """Write several files so that readers see all of them new or, if a write fails, none replaced (table and
    its provenance): every target is checked replaceable (a file, or absent) before the first is replaced."""
    folders = [str(path) for path in map(Path, files) if path.is_dir()]
    if folders:
        raise IsADirectoryError(errno.EISDIR, "a folder stands where a file is to be written; nothing was replaced",
                                folders[0])
    staged = []
    try:
        for path, text in files.items():
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            staged.append((tmp, path))
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.chmod(tmp, 0o644)
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)


def text_sha256(text: str) -> str:
    """Hex sha256 of a text's UTF-8 bytes."""
    return hashlib.sha256(text.encode()).hexdigest()


def file_sha256(path) -> str:
    """Hex sha256 of a file's bytes, read a megabyte at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def atomic_write_text(path, text: str) -> None:
    """Write text so that readers see the old file or the new one, never half of it."""
    atomic_write_bytes(path, text.encode())


def atomic_write_rows(path, columns: list[str], rows: list[dict]) -> None:
    """A CSV table (header, then one line per dict) written whole or not at all: a study's probes table."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())


def atomic_write_bytes(path, data: bytes) -> None:
    """Write bytes so that readers see the old file or the new one, never half of it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; results and tables are meant to be shared
        os.replace(tmp, path)
    except OSError as error:  # a full disk says no file of its own: the one being written is named
        Path(tmp).unlink(missing_ok=True)
        if error.filename is None:
            raise OSError(error.errno, error.strerror, str(path)) from error
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_csv_strictly(path, **options):
    """`pandas.read_csv` that never takes the first column as an index and refuses a row with more fields than the
    header (pandas would shift or drop them) or a header naming a column twice: a ParserError naming the line or
    the column."""

    import pandas as pd  # here, not at the top: `import course_lib` loads this module and need not load pandas

    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        try:
            header = pd.read_csv(path, index_col=False, header=None, nrows=1, dtype=str, keep_default_na=False,
                                 encoding=options.get("encoding"))
            table = pd.read_csv(path, index_col=False, **options)
        except pd.errors.ParserWarning:
            raise pd.errors.ParserError("a row has more fields than the header") from None
        except pd.errors.ParserError as error:
            where = re.search(r"Expected \d+ fields in line \d+, saw \d+", str(error))
            raise pd.errors.ParserError(where.group(0) if where else "ParserError") from None
    names = [] if header.empty else list(header.iloc[0])
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:  # pandas would rename the second `pass_rate` to `pass_rate.1` and read the first alone
        raise pd.errors.ParserError(f"column {twice[0]!r} appears twice in the header")
    return table
