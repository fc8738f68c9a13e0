"""Paths the notebooks write relative to notebooks/ (e.g. "../data/results"), found from any working folder.

Introduced in notebooks/A1_behind_the_findings.ipynb.
"""

import os
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent  # the checkout course_lib belongs to
NOTEBOOKS_DIR = REPOSITORY / "notebooks"  # the course's lessons (numbered, then the appendix)
# one grid point of a study (estimate, select, train, evaluate), run by papermill for every point of a sweep
EXPERIMENT_TEMPLATE = Path(__file__).resolve().parent / "templates" / "experiment.ipynb"


def env_folder(name: str) -> Path | None:
    """The folder an environment variable names; None when it is unset or empty (`COURSE_CACHE_DIR=` is unset)."""
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser() if value else None


FOLDER_VARIABLES = ("COURSE_DATA_DIR", "COURSE_MODELS_DIR", "COURSE_CACHE_DIR", "COURSE_MODEL_CACHE", "COURSE_GPU_CHECK",
                    "HF_HOME", "HF_HUB_CACHE", "HF_DATASETS_CACHE", "XDG_CACHE_HOME", "TORCH_HOME", "TRITON_CACHE_DIR")
# environment variables that name a folder or file


def absolute_env_folders() -> None:
    """Give each folder the environment names by a relative or `~` path (`COURSE_CACHE_DIR=cache`) as an absolute
    one, in this process: the notebook kernels and SLURM jobs it starts inherit it, run from other folders, and a
    job script's quoted `~` is not expanded (05)."""
    for name in FOLDER_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value and not Path(value).is_absolute():
            os.environ[name] = os.path.abspath(Path(value).expanduser())


MODELS_DIR = env_folder("COURSE_MODELS_DIR") or REPOSITORY / "data" / "models"  # the course's models (00)


def course_path(path) -> Path:
    """`path` itself when it exists from the working folder or is absolute; else, for a relative path that does
    not, the same path read from notebooks/ when that exists, so a copy of a notebook run from another folder
    (`make lab` opens them in lab/student/, `make students` writes them to build/students/) reads the
    repository's data.

    Introduced in notebooks/A1_behind_the_findings.ipynb."""
    path = Path(path)
    if path.is_absolute() or path.exists():
        return path
    from_notebooks = (NOTEBOOKS_DIR / path).resolve()
    return from_notebooks if from_notebooks.exists() else path


def what_it_is(path) -> str:
    """What a path that is not a regular file is, for an error message: 'a folder', or a device, pipe or socket."""
    return "a folder" if Path(path).is_dir() else "not a regular file (a device, pipe or socket)"
