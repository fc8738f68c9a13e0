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


@pytest.mark.slow
def test_a_student_copys_packed_quiz_runs_and_asks_the_same_question(tmp_path):
    """Notebook 00's quiz, packed in the student's copy, draws the instructor's question and options when run."""
    import json

    from course_lib.classroom.copies import make_copies
    from course_lib.classroom.notebooks import execute

    students = tmp_path / "lab" / "student"
    make_copies(students, "student", [ROOT / "notebooks" / "00_tiny_world_tour.ipynb"])
    execute(students / "00_tiny_world_tour.ipynb", tmp_path / "executed", {"PROFILE": "smoke"},
            log=tmp_path / "kernel.log")
    cells = json.loads((tmp_path / "executed" / "00_tiny_world_tour.ipynb").read_text())["cells"]
    quiz = next(c for c in cells if "quiz_packed(" in "".join(c["source"]))
    shown = "".join("".join(o.get("data", {}).get("text/markdown", "")) for o in quiz["outputs"])
    original = json.loads((ROOT / "notebooks" / "00_tiny_world_tour.ipynb").read_text())["cells"]
    asked = "".join(next(c for c in original if "quiz(" in "".join(c["source"]))["source"])
    question = asked.split('quiz("', 1)[1].split('"', 1)[0]
    assert shown.startswith(f"**{question}") and "- ( ) " in shown
