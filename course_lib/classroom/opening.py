"""A notebook's opening cell: `start` (parameters, seeds, charts, profile) and `fresh_folder` for a live run.

Introduced in notebooks/00_tiny_world_tour.ipynb; every notebook opens with `device, profile = start(PROFILE)`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..errors import check
from ..paths import REPOSITORY
from ..research.profiles import get_profile
from .plots import use_offline_renderer
from .runtime import setup


def start(profile_name: str, seed: int = 0):
    """A notebook's first call: checks its parameters, seeds everything, returns (device, the profile's settings) (00).

    It seeds through `setup` and draws charts without a CDN."""
    device = setup(seed=seed)
    use_offline_renderer()
    return device, get_profile(profile_name)


def fresh_folder(parent, name: str) -> Path:
    """PARENT/NAME emptied of what an earlier run left there: a notebook's live run starts afresh (04).

    Only a folder this function handed out before (a mark `PARENT/.NAME.fresh` beside it), an empty one, or one in
    the course's own build/ (not a study's sweep, nor a folder of executed notebooks or copies) is removed: anything
    else is refused in one line."""
    check(isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\\" not in name,
          f"name={name!r} must name one folder inside {parent} (a profile's name)")
    folder, mark = Path(parent) / name, Path(parent) / f".{name}.fresh"
    build = (REPOSITORY / "build").resolve()
    inside_build = folder.resolve().is_relative_to(build) and not folder.resolve().is_relative_to(build / "studies")
    if inside_build and folder.is_dir() and not mark.is_file():  # an executed course or copies: not a run folder
        inside_build = not (any(folder.glob("*.ipynb")) or (folder / "summary.json").exists())
    if folder.exists():
        check(folder.is_dir() and (mark.is_file() or inside_build or not any(folder.iterdir())),
              f"{folder} holds files this notebook did not make (no {mark.name} beside it): a fresh run would delete "
              "them; give RUN_DIR / LIVE_DIR a folder of its own, or empty it yourself")
        shutil.rmtree(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    mark.write_text("a notebook's live run: fresh_folder removes and remakes the folder beside this file\n")
    return folder
