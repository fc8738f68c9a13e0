"""Shared fixtures: the real data in ../shared/data and the committed tiny models."""

import os
import tempfile
from pathlib import Path

import pytest

# hermetic tests: difficulty caches (also those of notebook kernels, which inherit this) go to a fresh folder
os.environ["COURSE_CACHE_DIR"] = tempfile.mkdtemp(prefix="course-cache-")

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real GSM8K/MATH/BBH/AIME copies beside the project (never committed into it)."""
    assert SHARED_DATA.is_dir(), f"expected the shared real data at {SHARED_DATA}"
    return SHARED_DATA
