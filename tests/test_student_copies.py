"""Student copies of the notebooks (`make lab`: lab/student/; `make students`: build/students/; solutions dropped)
find the repository's committed results although their relative paths ("../data/results") point elsewhere from
there."""

from pathlib import Path

import pytest

from course_lib.paths import course_path
from course_lib.research.studies import load_study

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
def test_student_copy_of_05_runs_from_the_lab_folder(tmp_path):
    """The copy `make lab` opens of notebook 05, executed in the smoke profile from lab/student/."""
    from course_lib.classroom.copies import make_copies
    from course_lib.classroom.notebooks import execute

    students = tmp_path / "lab" / "student"
    make_copies(students, "student", [ROOT / "notebooks" / "05_hard_examples_win.ipynb"])
    copy = students / "05_hard_examples_win.ipynb"
    execute(copy, tmp_path / "executed", {"PROFILE": "smoke"}, log=tmp_path / "kernel.log")
    assert not (tmp_path / "lab" / "data").exists()
