"""A model folder's files: their sha256, checked against the manifest at every load; a whole folder published
from its staging copy. Shared by the course's tiny models, the stand-ins and the packaged models.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from ..errors import check, warn
from ..paths import MODELS_DIR, env_folder
from ..provenance import STAGING_NAME, STAGING_STAMP, atomic_write_text, file_sha256, is_own_staging


def n_parameters(model) -> int:
    """Number of distinct parameters (tied embeddings counted once)."""
    return sum(p.numel() for p in model.parameters())


VERIFIED_FILE = "verified-models.json"  # large files already checked: path -> size, mtime_ns, sha256, sample


CHEAP_TO_HASH = 256 << 20  # bytes: files up to this size (every tiny and stand-in model file) are hashed at each load


def verified_models_file() -> Path:
    """Where verified weight hashes are remembered: $COURSE_CACHE_DIR, else ~/.cache/course_lib."""
    return (env_folder("COURSE_CACHE_DIR") or Path.home() / ".cache" / "course_lib") / VERIFIED_FILE


def _read_verified() -> dict:
    """The remembered verifications ({} when absent or unreadable: then files are simply hashed again)."""
    try:
        data = json.loads(verified_models_file().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def git_restore_command(path: Path) -> str:
    """`git checkout data/models/NAME` for a model folder of the course's own clone; '' for any other folder, a copy
    that COURSE_MODELS_DIR names included (git would leave that copy as it is) (00)."""
    own = Path(path).resolve().parent == MODELS_DIR.resolve() and env_folder("COURSE_MODELS_DIR") is None
    return f"git checkout data/models/{Path(path).name}" if own else ""


def verify_model_folder(path) -> None:
    """Check the files a folder's manifest.json (tiny model), standin.json or packaged.json lists against their sha256.

    Files up to CHEAP_TO_HASH bytes are hashed at every load (milliseconds). A larger file verified before is
    hashed again only when its size, mtime or `sample_sha256` (bytes from every tensor) changed: a copy that kept
    size and mtime but rewrote a tensor (NaN, zeros, another model) is caught without reading gigabytes; a single
    flipped byte between the sampled places is not (delete verified-models.json to hash everything again).
    """
    path = Path(path)
    manifests = [path / name for name in ("manifest.json", "standin.json", "packaged.json") if (path / name).exists()]
    if not manifests:
        return  # a trained run or a hub download: nothing recorded to check against
    manifest_path = manifests[0]
    try:
        manifest = json.loads(manifest_path.read_text())
    except ValueError:
        manifest = None
    hashes = manifest.get("sha256", {}) if isinstance(manifest, dict) else None  # a manifest may list no files
    check(isinstance(hashes, dict), f"{manifest_path} is not a valid manifest (a JSON object, 'sha256' an object); "
                                    "restore it from git or rebuild the model")
    fix = f"rebuild it with `{manifest.get('command', 'the command that built it')}`"
    restore = git_restore_command(path)
    if restore:
        fix += f" or restore it with `{restore}`"
    verified, changed = _read_verified(), False
    for name, expected in hashes.items():
        file = path / name
        check(file.is_file(), f"{file} is missing ({manifest_path.name} lists it); {fix}")
        stat, key = file.stat(), str(file.resolve())
        large = stat.st_size > CHEAP_TO_HASH
        seen = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": expected,
                "sample": sample_sha256(file) if large else None}
        if large and verified.get(key) == seen:
            continue
        actual = file_sha256(file)
        check(actual == expected, f"{file} is corrupt or changed: sha256 {actual[:12]}... but {manifest_path.name} "
                                  f"says {expected[:12]}...; {fix}")
        if large:
            verified[key], changed = seen, True
    if changed:
        try:
            atomic_write_text(verified_models_file(), json.dumps(verified, indent=1) + "\n")
        except OSError as error:  # a read-only cache only costs a re-hash next time
            warn(f"could not remember verified model hashes in {verified_models_file()} ({error})")


def remembered_sha256(file: Path) -> str:
    """sha256 of a file; for a large one, remembered in verified-models.json while it keeps its size, mtime and
    sample (`sample_sha256`), as `verify_model_folder` remembers the files it checked."""
    stat, key = file.stat(), str(file.resolve())
    if stat.st_size <= CHEAP_TO_HASH:
        return file_sha256(file)
    verified = _read_verified()
    seen = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sample": sample_sha256(file)}
    known = verified.get(key)
    if isinstance(known, dict) and {k: known.get(k) for k in seen} == seen and isinstance(known.get("sha256"), str):
        return known["sha256"]
    verified[key] = {**seen, "sha256": file_sha256(file)}
    try:
        atomic_write_text(verified_models_file(), json.dumps(verified, indent=1) + "\n")
    except OSError:
        pass  # a read-only cache only costs a re-hash next time
    return verified[key]["sha256"]


def sample_sha256(path: Path, block: int = 4096) -> str:
    """sha256 of a sample of a weights file that touches every tensor: a .safetensors file's header and the first,
    middle and last `block` bytes of each tensor (other files: 256 equal slices, sampled the same way)."""
    size = path.stat().st_size
    slices = [(size * i // 256, size * (i + 1) // 256) for i in range(256)]
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        if path.suffix == ".safetensors":
            try:
                length = int.from_bytes(handle.read(8), "little")
                header = json.loads(handle.read(min(length, 100 << 20)))  # the format's limit: 100 MB
                slices = [(0, 8 + length)] + [(8 + length + start, 8 + length + end) for start, end in
                                              (info["data_offsets"] for name, info in header.items()
                                               if name != "__metadata__")]
            except (ValueError, KeyError, TypeError, AttributeError):
                pass  # a damaged header: the equal slices differ from the remembered sample all the same
        for start, end in slices:
            for offset in sorted({start, (start + end) // 2, max(start, end - block)}):
                handle.seek(offset)
                digest.update(handle.read(min(block, end - offset)))
    return digest.hexdigest()


def fresh_staging(out: Path) -> Path:
    """An empty OUT/.saving, stamped as course_lib's, for files written before they are moved into `out` (what a
    killed save left there is removed first; the caller's folder check refused a `.saving` that is not ours)."""
    staged = Path(out) / STAGING_NAME
    if is_own_staging(staged):
        shutil.rmtree(staged)
    staged.mkdir(parents=True)
    (staged / STAGING_STAMP).touch()
    return staged


def publish_files(staged: Path, out: Path, last: str) -> None:
    """Move every file of a staging folder into `out` (replacing those of the same name), `last` at the end; then
    remove the staging folder."""
    for path in sorted(staged.iterdir(), key=lambda path: path.name == last):
        if path.name != STAGING_STAMP:
            os.replace(path, out / path.name)
    (staged / STAGING_STAMP).unlink()
    staged.rmdir()
