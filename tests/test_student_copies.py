"""Student copies of the notebooks (`make students`: build/students/, solutions dropped) find the repository's
committed results although their relative paths ("../data/results") point elsewhere from there."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.paths import course_path
from course_lib.studies import load_study

ROOT = Path(__file__).resolve().parent.parent


def test_a_notebook_relative_path_is_read_from_the_repository_when_missing_here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert course_path("../data/results") == ROOT / "data" / "results"
    table, _ = load_study("hard-wins", "../data/results")  # what notebooks 05-07 pass, from a foreign folder
    assert len(table) > 0


def test_a_path_that_exists_here_or_is_absolute_is_kept(tmp_path, monkeypatch):
    (tmp_path / "work" / "results").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "work")
    assert course_path("results") == Path("results")  # the student's own folder wins
    assert course_path(tmp_path / "elsewhere") == tmp_path / "elsewhere"
    assert course_path("../nowhere/at/all") == Path("../nowhere/at/all")  # the caller's error names it as given


@pytest.mark.slow
def test_student_copy_of_05_runs_from_build_students(tmp_path):
    """The copy `make students` makes of notebook 05, executed in the smoke profile from build/students/."""
    from course_lib.notebooks import execute

    students = tmp_path / "build" / "students"
    students.mkdir(parents=True)
    copy = students / "05_hard_examples_win.ipynb"
    shutil.copy(ROOT / "notebooks" / copy.name, copy)
    subprocess.run([sys.executable, "-m", "nbstripout", "--drop-tagged-cells", "solution", str(copy)], check=True)
    execute(copy, tmp_path / "executed", {"PROFILE": "smoke"}, log=tmp_path / "kernel.log")
    assert not (tmp_path / "build" / "data").exists()
