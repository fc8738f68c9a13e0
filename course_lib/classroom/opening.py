"""A notebook's opening cell: `start` (parameters, seeds, charts, profile) and `fresh_folder` for a live run.

Introduced in notebooks/00_tiny_world_tour.ipynb; every notebook opens with `device, profile = start(PROFILE)`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..research.profiles import get_profile
from .plots import use_offline_renderer
from .runtime import setup


def start(profile_name: str, seed: int = 0):
    """A notebook's first call: check its parameters, seed everything (`setup`), draw charts without a CDN; return
    (device, the profile's settings)."""
    device = setup(seed=seed)
    use_offline_renderer()
    return device, get_profile(profile_name)


def fresh_folder(parent, name: str) -> Path:
    """PARENT/NAME with nothing in it (what an earlier run left there is removed): a notebook's live run starts afresh."""
    folder = Path(parent) / name
    shutil.rmtree(folder, ignore_errors=True)
    return folder
