"""`make lab` and `make lab-instructor` open copies of the notebooks in git-ignored folders (course_lib.classroom.copies):
a student's copy shows no solution and no quiz answer, a copy already there is never overwritten, and notebooks/
itself is never what JupyterLab opens."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course_lib.classroom.copies import (
    COPY_KEY,
    classroom_copy,
    is_quiz_cell,
    lessons,
    main,
    make_copies,
    report,
)
from course_lib.classroom.widgets import quiz_packed
from course_lib.errors import CourseError

ROOT = Path(__file__).resolve().parent.parent
SOLUTION_TEXT = ("### Quiz answers", "Solution to exercise", "# Solution")  # how the answer keys begin


def cells(path: Path):
    return nbformat.read(str(path), as_version=4).cells


def quiz_arguments(source: str, name: str = "quiz") -> list:
    """The literal arguments of the one call to `name` in a quiz cell (read, never run)."""
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
             and getattr(node.func, "id", None) == name]
    assert len(calls) == 1, source
    return [ast.literal_eval(argument) for argument in calls[0].args]


@pytest.fixture(scope="module")
def student_copies(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab") / "student"
    done = make_copies(folder, "student")
    return folder, done


def test_the_lessons_are_the_numbered_and_appendix_notebooks_not_the_sweeps_template():
    names = [p.name for p in lessons()]
    assert names[0] == "00_tiny_world_tour.ipynb" and "A1_behind_the_findings.ipynb" in names
    assert "experiment.ipynb" not in names
    assert all(p.parent == ROOT / "notebooks" for p in lessons())


def test_a_student_copy_has_no_solution_and_no_quiz_answer(student_copies):
    folder, done = student_copies
    assert sorted(done["new"]) == sorted(p.name for p in lessons()) and not done["kept"]
    for source in lessons():
        copy = cells(folder / source.name)
        assert not [c for c in copy if "solution" in c.metadata.get("tags", [])], source.name
        for cell in copy:
            assert not cell.source.lstrip().startswith(SOLUTION_TEXT), f"{source.name}: {cell.source[:60]!r}"
        original = cells(source)
        answers = [c for c in original if "solution" in c.metadata.get("tags", [])]
        assert len(copy) == len(original) - len(answers), source.name  # nothing else dropped
        quizzes = [c for c in copy if is_quiz_cell(c)]
        asked = [c for c in original if is_quiz_cell(c)]
        assert len(quizzes) == len(asked), source.name  # the quiz still works...
        assert all(c.metadata["jupyter"]["source_hidden"] for c in quizzes), source.name  # ...folded away
        for packed, plain in zip(quizzes, asked):
            question, options = quiz_arguments(plain.source)
            shown = quiz_packed(quiz_arguments(packed.source, name="quiz_packed")[0])
            assert shown.picture.data.startswith(f"**{question}**"), source.name  # the same question...
            assert all(f"- ( ) {option}" in shown.picture.data for option in options), source.name
            for option, (right, explanation) in options.items():  # ...the same answers, none of them on screen
                shown.children[1].value = option
                assert shown.children[2].value.count("Right. " if right else "Not quite. ") == 1, source.name
                assert explanation[:40] not in packed.source and "True" not in packed.source, source.name


def test_every_numbered_notebook_has_answers_to_drop_and_its_quiz_answers_among_them():
    for source in lessons():
        if not source.name[:2].isdigit():
            continue
        original = cells(source)
        answers = [c for c in original if "solution" in c.metadata.get("tags", [])]
        assert answers, source.name
        if any("## Quiz" in c.source for c in original if c.cell_type == "markdown"):
            assert any(c.source.startswith("### Quiz answers") for c in answers), f"{source.name}: untagged quiz answers"
        untagged = [c for c in original if "solution" not in c.metadata.get("tags", [])]
        assert not any(c.source.lstrip().startswith(SOLUTION_TEXT) for c in untagged), f"{source.name}: untagged answer"


def names(source: str, context) -> set[str]:
    """The names a cell's code assigns (context ast.Store, with defs and imports) or reads (ast.Load)."""
    tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    found = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, context)}
    if context is ast.Store:
        found |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        found |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                  for a in n.names}
    return found


def test_a_student_copy_runs_top_to_bottom_without_the_solutions():
    """No cell left in a student's copy reads a name that only a solution cell defines (a NameError there)."""
    for source in lessons():
        code = [c for c in cells(source) if c.cell_type == "code"]
        kept = [c for c in code if "solution" not in c.metadata.get("tags", [])]
        defined = set().union(*(names(c.source, ast.Store) for c in kept))
        only_in_solutions = set().union(*(names(c.source, ast.Store) for c in code if c not in kept)) - defined
        read = set().union(*(names(c.source, ast.Load) for c in kept))
        assert not read & only_in_solutions, f"{source.name} needs {read & only_in_solutions} from a solution"


def test_copies_are_stripped_and_say_which_notebook_they_came_from(student_copies):
    folder, _ = student_copies
    for source in lessons():
        notebook = nbformat.read(str(folder / source.name), as_version=4)
        assert "widgets" not in notebook.metadata
        assert all(not c.outputs and c.execution_count is None for c in notebook.cells if c.cell_type == "code")
        assert notebook.metadata[COPY_KEY]["of"] == f"notebooks/{source.name}"
    done = subprocess.run([sys.executable, "-m", "nbstripout", "--verify", *map(str, sorted(folder.glob("*.ipynb")))],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_instructor_copy_is_the_whole_notebook(tmp_path):
    """Every cell as the course has it, its links to the repository's files (`../data/...` from notebooks/) pointing
    there from the copy's folder."""
    import os

    done = make_copies(tmp_path / "instructor", "instructor")
    assert len(done["new"]) == len(lessons())
    root_link = Path(os.path.relpath(ROOT, tmp_path / "instructor")).as_posix()
    for source in lessons():
        copy, original = cells(tmp_path / "instructor" / source.name), cells(source)
        assert [c.source for c in copy] == [c.source.replace("](../", f"]({root_link}/") if c.cell_type == "markdown"
                                            else c.source.replace('"../build/', '"../build/instructor/')
                                            for c in original], source.name
        assert [c.metadata for c in copy] == [c.metadata for c in original], source.name


def test_a_copys_links_to_the_study_readmes_open_from_its_folder(tmp_path):
    """A1 links `../data/results/STUDY/README.md` (from notebooks/): from lab/student/ that led nowhere."""
    import re

    folder = tmp_path / "lab" / "student"
    make_copies(folder, "student", [ROOT / "notebooks" / "A1_behind_the_findings.ipynb"])
    text = "".join(c.source for c in cells(folder / "A1_behind_the_findings.ipynb") if c.cell_type == "markdown")
    links = re.findall(r"\]\(([^)#\s]+README\.md)", text)
    assert len(links) >= 10 and all((folder / link).resolve().is_file() for link in links), links[:3]


def test_student_and_instructor_copies_train_into_folders_of_their_own(tmp_path):
    """Both kinds open from lab/ (lab/student, lab/instructor): `../build/runs/04` was one folder for both."""
    import re

    made = {}
    for kind in ("student", "instructor"):
        make_copies(tmp_path / kind, kind, [ROOT / "notebooks" / "04_grpo_training.ipynb"])
        code = "".join(c.source for c in cells(tmp_path / kind / "04_grpo_training.ipynb") if c.cell_type == "code")
        made[kind] = set(re.findall(r'"(\.\./build/[^"]*)"', code))
    assert made["student"] == {"../build/student/runs/04"} and made["instructor"] == {"../build/instructor/runs/04"}


def test_outputs_in_the_course_notebook_never_reach_a_copy():
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("1 + 1", execution_count=3, outputs=[nbformat.v4.new_output(
            "execute_result", {"text/plain": "2"}, execution_count=3)], metadata={"scrolled": True, "execution": {}}),
        nbformat.v4.new_code_cell("answer = 2", metadata={"tags": ["solution"]}),
        nbformat.v4.new_markdown_cell("### Quiz answers\n\n1. b", metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell('show(quiz("Which?", {"a": (False, "no"), "b": (True, "yes")}))'),
    ])
    notebook.metadata["widgets"] = {"state": {}}
    text = nbformat.writes(notebook)
    copy = nbformat.reads(classroom_copy(text, "student", "notebooks/x.ipynb"), as_version=4)
    assert copy.cells[0].source == "1 + 1" and len(copy.cells) == 2
    assert not copy.cells[0].outputs and copy.cells[0].execution_count is None and "widgets" not in copy.metadata
    assert copy.cells[0].metadata == {} and [c.id for c in copy.cells] == ["0", "1"]  # as nbstripout leaves them
    assert copy.cells[1].metadata == {"jupyter": {"source_hidden": True}}
    assert "quiz_packed(" in copy.cells[1].source and '"yes"' not in copy.cells[1].source
    whole = nbformat.reads(classroom_copy(text, "instructor", "notebooks/x.ipynb"), as_version=4)
    assert len(whole.cells) == 4 and not whole.cells[0].outputs and whole.cells[3].metadata == {}
    with pytest.raises(CourseError, match="kind='teacher' is unknown; use one of student, instructor"):
        classroom_copy(text, "teacher")


def test_a_quiz_the_copy_cannot_pack_or_a_damaged_packed_quiz_is_one_line():
    from course_lib.classroom.copies import packed_quiz_source
    from course_lib.classroom.widgets import pack_quiz

    named = 'question = "Which?"\nshow(quiz(question, {"a": (False, "no"), "b": (True, "yes")}))'
    with pytest.raises(CourseError, match="x.ipynb: a quiz cell's question and options must be literal text"):
        packed_quiz_source(named, "x.ipynb")
    with pytest.raises(CourseError, match="a quiz cell must call quiz\\(question, options\\) once"):
        packed_quiz_source('show(quiz("Which?"))', "x.ipynb")
    packed = pack_quiz("Which?", {"a": (False, "no"), "b": (True, "yes")})
    assert quiz_packed(packed[:20] + "\n  " + packed[20:]).picture.data.startswith("**Which?**")  # wrapped lines
    def pack(spec) -> str:  # valid JSON of the wrong shape: a number for an explanation or the question
        import base64
        import zlib

        return base64.b64encode(zlib.compress(json.dumps(spec).encode())).decode()

    wrong_types = [pack({"question": "Q?", "options": {"a": [True, 5], "b": [False, "no"]}}),
                   pack({"question": 7, "options": {"a": [True, "y"], "b": [False, "n"]}}), pack([[[[1]]]])]
    for damaged in (packed[:-4], "not base64 at all!", pack_quiz("Q", {"a": (True, "y")})[::-1], "", *wrong_types):
        with pytest.raises(CourseError, match="this quiz's packed text is damaged; get a fresh copy"):
            quiz_packed(damaged)


def test_a_second_make_lab_keeps_the_students_work_and_says_how_to_get_a_fresh_copy(tmp_path):
    folder, first = tmp_path / "student", lessons()[:2]
    make_copies(folder, "student", first)
    mine = folder / first[0].name
    mine.write_text(mine.read_text().replace("# ", "# my note: ", 1))  # the student's work
    before = mine.read_bytes()
    (folder / first[1].name).unlink()  # a copy the student deleted to start afresh
    done = make_copies(folder, "student", lessons()[:3])
    assert mine.read_bytes() == before
    assert done == {"new": [first[1].name, lessons()[2].name], "kept": [first[0].name], "changed": [],
                    "unreadable": [], "with_solutions": []}
    said = report(folder, "student", done)
    assert "kept 1 you already had" in said and "rename or delete yours" in said and first[1].name in said


def test_a_copy_of_a_notebook_the_course_has_changed_since_is_kept_and_named(tmp_path):
    course = tmp_path / "notebooks"
    course.mkdir()
    lesson = course / "00_lesson.ipynb"
    lesson.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("v1")])))
    make_copies(tmp_path / "student", "student", [lesson])
    assert make_copies(tmp_path / "student", "student", [lesson])["changed"] == []
    lesson.write_text(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("v2")])))
    done = make_copies(tmp_path / "student", "student", [lesson])
    assert done["changed"] == ["00_lesson.ipynb"] and cells(tmp_path / "student" / "00_lesson.ipynb")[0].source == "v1"
    assert "notebooks/00_lesson.ipynb has changed since your copy was made" in report("x", "student", done)


def test_the_lab_leaves_a_note_beside_copies_that_need_a_look_and_removes_it_when_none_does(tmp_path, capsys):
    """`make lab` prints that a copy is out of date, then JupyterLab's log scrolls it away: a note stays in the
    folder, first in the file browser, until nothing needs a look."""
    import json

    from course_lib.classroom.copies import NOTICE, main

    folder = tmp_path / "student"
    assert main(["student", str(folder)]) == 0 and not (folder / NOTICE).exists()
    copy = folder / lessons()[0].name
    data = json.loads(copy.read_text())
    data["metadata"][COPY_KEY]["sha256"] = "0" * 64  # as if made from an older course notebook
    copy.write_text(json.dumps(data))
    assert main(["student", str(folder)]) == 0
    note = (folder / NOTICE).read_text()
    assert f"notebooks/{copy.name} has changed since your copy was made" in note and NOTICE in capsys.readouterr().out
    assert sorted(p.name for p in folder.iterdir())[0] == NOTICE  # above every notebook
    copy.unlink()  # a fresh copy of the new notebook: nothing to say any more
    assert main(["student", str(folder)]) == 0 and not (folder / NOTICE).exists()


def test_a_students_own_file_named_like_the_note_is_never_removed_or_written_over(tmp_path):
    """Hostile round 19: a student's notes kept in 00_course_changed.md were deleted by the next `make lab`."""
    import json

    from course_lib.classroom.copies import NOTICE, main

    folder = tmp_path / "student"
    folder.mkdir()
    (folder / NOTICE).write_text("my notes on notebook 02\n")
    assert main(["student", str(folder)]) == 0  # nothing needs a look: the note would have been removed
    assert (folder / NOTICE).read_text() == "my notes on notebook 02\n"
    copy = folder / lessons()[0].name
    data = json.loads(copy.read_text())
    data["metadata"][COPY_KEY]["sha256"] = "0" * 64
    copy.write_text(json.dumps(data))
    assert main(["student", str(folder)]) == 0  # a copy needs a look: the note would have been written over
    assert (folder / NOTICE).read_text() == "my notes on notebook 02\n"
    (folder / NOTICE).unlink()  # without the student's file, the lab writes its note
    assert main(["student", str(folder)]) == 0 and "has changed since" in (folder / NOTICE).read_text()
    edited = (folder / NOTICE).read_text() + "and a line of my own\n"
    (folder / NOTICE).write_text(edited)  # the lab's note, written in by the student: theirs now
    copy.unlink()
    assert main(["student", str(folder)]) == 0 and (folder / NOTICE).read_text() == edited


@pytest.mark.parametrize("where", ["bullet", "first line", "heading"])
def test_the_labs_note_with_a_students_line_anywhere_is_theirs(tmp_path, where):
    """Hostile round 20: a line added to the lab's note as a Markdown bullet (`- my own note`) was deleted by the
    next `make lab`; only the note exactly as the lab wrote it is the lab's to remove or rewrite."""
    import json

    from course_lib.classroom.copies import NOTICE, main

    folder = tmp_path / "student"
    folder.mkdir()
    copy = folder / lessons()[0].name
    assert main(["student", str(folder)]) == 0
    data = json.loads(copy.read_text())
    data["metadata"][COPY_KEY]["sha256"] = "0" * 64
    copy.write_text(json.dumps(data))
    assert main(["student", str(folder)]) == 0
    note = (folder / NOTICE).read_text()
    assert main(["student", str(folder)]) == 0 and (folder / NOTICE).read_text() == note  # its own: rewritten as is
    lines = note.splitlines(keepends=True)
    at = {"bullet": 3, "first line": 0, "heading": 1}[where]
    edited = "".join(lines[:at] + ["- my own note: ask about p^G in class\n"] + lines[at:])
    (folder / NOTICE).write_text(edited)
    assert main(["student", str(folder)]) == 0 and (folder / NOTICE).read_text() == edited  # still needs a look
    copy.unlink()
    assert main(["student", str(folder)]) == 0 and (folder / NOTICE).read_text() == edited  # none does


def test_a_damaged_copy_is_kept_and_named_with_how_to_get_a_fresh_one(tmp_path):
    folder, first = tmp_path / "student", lessons()[:1]
    make_copies(folder, "student", first)
    (folder / first[0].name).write_text("{ not json")  # a copy the student's editor left half-written
    done = make_copies(folder, "student", first)
    assert done["unreadable"] == [first[0].name] and (folder / first[0].name).read_text() == "{ not json"
    assert f"{first[0].name} is not a notebook Jupyter can open (damaged?): rename or delete it" in report(
        folder, "student", done)


def test_a_folder_it_cannot_write_is_one_line_with_the_fix(tmp_path, capsys, monkeypatch):
    import course_lib.classroom.copies as classroom

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(classroom, "atomic_write_text", read_only)
    assert main(["student", str(tmp_path / "s")]) == 2
    said = capsys.readouterr().err.strip()
    assert said == (f"error: cannot write the copies in {tmp_path / 's'}/ (Read-only file system): make that folder "
                    "writable, or delete it and run this again")


def test_the_command_line_makes_the_copies_and_refuses_an_unknown_kind(tmp_path, capsys):
    assert main(["instructor", str(tmp_path / "i")]) == 0
    assert f"{tmp_path / 'i'}/: your copies" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["teacher", str(tmp_path / "t")])
    assert exit_.value.code == 2


def test_the_lab_folders_are_ignored_by_git_and_the_tracked_notebooks_never_opened():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    for path in ("lab/student/00_tiny_world_tour.ipynb", "lab/instructor/00_tiny_world_tour.ipynb",
                 "build/students/00_tiny_world_tour.ipynb"):
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, path
    makefile = (ROOT / "Makefile").read_text()
    assert "root_dir=notebooks" not in makefile


def test_copies_are_written_as_json_jupyter_reads():
    text = (ROOT / "notebooks" / "02_zero_variance_groups.ipynb").read_text()
    copy = json.loads(classroom_copy(text, "student", "notebooks/02_zero_variance_groups.ipynb"))
    assert copy["nbformat"] == 4 and copy["metadata"]["kernelspec"]["name"] == "python3"


def test_a_student_folder_that_holds_an_instructor_copy_says_so(tmp_path):
    """An instructor's copy kept in a folder of student copies (a TA's first try) was reported as solution-free."""
    from course_lib.classroom.copies import lessons, make_copies, report

    two = lessons()[:2]
    make_copies(tmp_path, "instructor", two[:1])
    done = make_copies(tmp_path, "student", two)
    assert done["with_solutions"] == [two[0].name] and done["new"] == [two[1].name]
    said = report(tmp_path, "student", done)
    assert "without solutions or quiz answers" not in said
    assert f"{two[0].name} holds solutions (an instructor's copy): delete or rename it" in said
    fresh = make_copies(tmp_path / "clean", "student", two)
    assert fresh["with_solutions"] == [] and "without solutions or quiz answers" in report(tmp_path, "student", fresh)


@pytest.mark.parametrize("metadata", [{"tags": ["Solution"]}, {"tags": ["solution "]}, {"tags": ["solutions"]},
                                      {"tags": "solution"}, {"jupyter": {"tags": ["solution"]}}])
def test_a_solution_cell_tagged_with_a_near_miss_spelling_stays_out_of_a_student_copy(tmp_path, metadata):
    """A tag `Solution`, `solution `, `solutions` or one under metadata.jupyter.tags kept the answer in the student's
    copy, and `holds_solutions` missed it too."""
    from course_lib.classroom.copies import classroom_copy, holds_solutions

    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": [], "execution_count": None},
                          {"cell_type": "code", "metadata": metadata, "source": "answer = 42", "outputs": [],
                           "execution_count": None}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
    assert holds_solutions(tmp_path / "n.ipynb")
    student = json.loads(classroom_copy(json.dumps(notebook), "student", "n.ipynb"))
    assert [cell["source"] for cell in student["cells"]] == ["x = 1"]
    not_a_tag = {**notebook, "cells": [{**notebook["cells"][1], "metadata": {"tags": "resolutions"}}]}
    assert len(json.loads(classroom_copy(json.dumps(not_a_tag), "student", "n.ipynb"))["cells"]) == 1


@pytest.mark.parametrize("inside", ["notebooks", "notebooks/sub", "course_lib/templates"])
def test_round_27_copies_into_the_course_own_folders_are_refused(tmp_path, inside):
    """Hostile round 27: copies made into notebooks/ wrote a note there advising to delete the course's own
    notebooks (they hold solutions); into course_lib/templates they went into the package."""
    import course_lib.classroom.copies as copies

    target = ROOT / inside
    existed = target.exists()
    link = tmp_path / "link"
    link.symlink_to(target, target_is_directory=True)  # through a link too
    for folder in (target, link):
        with pytest.raises(CourseError, match=f"^folder={folder} is inside the course's own "
                                              f"{inside.split('/')[0]}/: copies go to a folder of their own"):
            make_copies(folder, "student")
    assert target.exists() == existed
    assert copies.main(["student", str(target)]) == 2


def test_the_course_cli_makes_the_class_copies_as_make_lab_does(tmp_path, capsys):
    """A newcomer reading `python -m course_lib --help` finds how to make the students' copies (no solutions)."""
    from course_lib.__main__ import main as course
    from course_lib.classroom.copies import holds_solutions

    assert course(["copies", "student", str(tmp_path / "student")]) == 0
    copied = sorted((tmp_path / "student").glob("*.ipynb"))
    assert [p.name for p in copied] == [p.name for p in lessons()]
    assert not any(holds_solutions(p) for p in copied)
    assert course(["copies", "instructor", str(tmp_path / "instructor")]) == 0
    assert any(holds_solutions(p) for p in (tmp_path / "instructor").glob("*.ipynb"))
    with pytest.raises(SystemExit) as refused:
        course(["copies", "teacher", str(tmp_path / "x")])
    assert refused.value.code == 2 and "invalid choice: 'teacher'" in capsys.readouterr().err


@pytest.mark.parametrize("inside", ["", "sub"])
def test_copies_into_a_file_say_it_is_a_file_and_keep_it(tmp_path, capsys, inside):
    """Hostile round 35: `copies student eval.json` (a file, given as the folder) said `cannot write the copies in
    eval.json/ (File exists): make that folder writable, or delete it and run this again`, advice to delete the
    user's file. It names the file, and the file is kept."""
    from course_lib.classroom.copies import main

    file = tmp_path / "eval.json"
    file.write_text('{"mine": 1}')
    assert main(["student", str(file / inside if inside else file)]) == 2
    said = capsys.readouterr().err
    assert ("is a file, not a folder" if not inside else f"is inside {file}, a file") in said, said
    assert "delete" not in said and len(said.strip().splitlines()) == 1 and file.read_text() == '{"mine": 1}'
