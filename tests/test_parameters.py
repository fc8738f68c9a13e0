"""Notebook parameters: papermill runs undeclared names and wrong types; the course refuses both at once."""

import nbformat
import papermill
import pytest

from course_lib import CourseError
from course_lib.classroom.notebooks import NOTEBOOKS_DIR, check_notebook_parameters, course_notebooks
from course_lib.classroom.runtime import literal_assignments, parameter_errors

DECLARED = {"SEED": 0, "BUDGET": 0.1, "MODEL": "", "LORA": True}


@pytest.mark.parametrize(("given", "errors"), [
    ({"SEED": 3, "BUDGET": 10, "MODEL": "tiny-s", "LORA": False}, []),  # an int where a float goes is a count
    ({"SEED": "abc"}, ["parameter SEED='abc' must be an integer like its default 0"]),
    ({"BUDGET": "ten"}, ["parameter BUDGET='ten' must be a number like its default 0.1"]),
    ({"SEED": True}, ["parameter SEED=True must be an integer like its default 0"]),
    ({"NOT_A_PARAM": 1}, ["parameter NOT_A_PARAM is not declared by this notebook; its parameters are SEED, BUDGET, "
                          "MODEL, LORA"]),
])
def test_parameter_errors(given, errors):
    assert parameter_errors(DECLARED, given) == errors


def test_literal_assignments_read_a_parameters_cell():
    assert literal_assignments('SEED = 0  # seed\nNAME = "x"\nBAD = 1 + x\n') == {"SEED": 0, "NAME": "x", "BAD": None}


def test_every_notebook_checks_its_parameters_before_any_work():
    """setup() checks them (start() calls it), in the first cell after the parameters cell."""
    for path in course_notebooks():
        code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        first = next(i for i, c in enumerate(code) if "parameters" in c.metadata.get("tags", []))
        assert "setup(" in code[first + 1].source or "start(" in code[first + 1].source, path.name


def test_the_course_runner_and_sweeps_refuse_before_a_kernel_starts():
    notebook = NOTEBOOKS_DIR / "03_budget_explorer.ipynb"
    with pytest.raises(CourseError, match="03_budget_explorer.ipynb: parameter NOT_A_PARAM is not declared"):
        check_notebook_parameters(notebook, {"PROFILE": "smoke", "NOT_A_PARAM": 1})
    with pytest.raises(CourseError, match="parameter BUDGET='ten' must be a number"):
        check_notebook_parameters(notebook, {"BUDGET": "ten"})


@pytest.fixture
def small_notebook(tmp_path):
    notebook = nbformat.v4.new_notebook()
    parameters = nbformat.v4.new_code_cell('SEED = 0  # seed\nBUDGET = 0.1  # budget')
    parameters.metadata["tags"] = ["parameters"]
    notebook.cells = [parameters, nbformat.v4.new_code_cell("from course_lib.classroom.runtime import setup\nsetup(seed=SEED)"),
                      nbformat.v4.new_code_cell("print('reached', SEED, BUDGET)")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(tmp_path / "small.ipynb"))
    return tmp_path / "small.ipynb"


@pytest.mark.slow
@pytest.mark.parametrize(("parameters", "message"), [
    ({"NOT_A_PARAM": 1}, "parameter NOT_A_PARAM is not declared by this notebook"),
    ({"SEED": "abc"}, "parameter SEED='abc' must be an integer"),
])
def test_papermill_run_directly_fails_in_the_first_cell(small_notebook, tmp_path, parameters, message):
    with pytest.raises(papermill.PapermillExecutionError, match="CourseError") as raised:
        papermill.execute_notebook(str(small_notebook), str(tmp_path / "out.ipynb"), parameters=parameters,
                                   progress_bar=False, log_output=False)
    assert message in str(raised.value)
    executed = nbformat.read(str(tmp_path / "out.ipynb"), as_version=4)
    assert not any("reached" in str(o) for c in executed.cells for o in c.get("outputs", []))


@pytest.mark.slow
def test_papermill_run_with_good_parameters_reaches_the_end(small_notebook, tmp_path):
    papermill.execute_notebook(str(small_notebook), str(tmp_path / "out.ipynb"), parameters={"SEED": 4, "BUDGET": 20},
                               progress_bar=False)
    executed = nbformat.read(str(tmp_path / "out.ipynb"), as_version=4)
    assert "reached 4 20" in executed.cells[-1].outputs[0]["text"]


def test_start_returns_the_device_and_the_profile_and_fresh_folder_empties_a_live_runs_folder(tmp_path):
    from course_lib import fresh_folder, start

    device, profile = start("smoke", seed=3)
    assert device in ("cpu", "cuda") and profile.name == "smoke"
    with pytest.raises(CourseError, match="profile"):
        start("no-such-profile")
    folder = fresh_folder(tmp_path / "live", "smoke")  # the first run: nothing there yet
    (folder / "old").mkdir(parents=True)
    assert fresh_folder(tmp_path / "live", "smoke") == folder and not folder.exists() and (tmp_path / "live").is_dir()


def test_fresh_folder_removes_only_what_a_notebook_made(tmp_path):
    """`fresh_folder(RUN_DIR, "tiny")` removed whatever RUN_DIR/tiny held (a finished sweep, in the report); and an
    empty name removed RUN_DIR itself."""
    from course_lib import fresh_folder

    sweep = tmp_path / "mine" / "tiny"
    (sweep / "points").mkdir(parents=True)
    (sweep / "grid.json").write_text("{}")
    with pytest.raises(CourseError, match=r"tiny holds files this notebook did not make \(no .tiny.fresh beside it\)"):
        fresh_folder(tmp_path / "mine", "tiny")
    assert (sweep / "grid.json").exists()
    for name in ("", "..", "a/b"):
        with pytest.raises(CourseError, match="must name one folder inside"):
            fresh_folder(tmp_path / "mine", name)
    (tmp_path / "empty" / "tiny").mkdir(parents=True)
    assert not fresh_folder(tmp_path / "empty", "tiny").exists()  # an empty folder is nobody's work


def test_fresh_folder_in_build_keeps_an_executed_course_or_copies(tmp_path):
    """Hostile round 22: a notebook run with RUN_DIR="../build" in the tiny profile deleted build/tiny, the executed
    course `make course` wrote (any folder in build/ but a study's sweep was taken for a run folder)."""
    import shutil
    import uuid

    from course_lib import fresh_folder
    from course_lib.paths import REPOSITORY

    parent = REPOSITORY / "build" / f"test-fresh-{uuid.uuid4().hex[:8]}"
    try:
        for made in ({"summary.json": '{"profile": "tiny", "notebooks": []}'}, {"00_tour.ipynb": "{}"}):
            course = parent / "tiny"
            course.mkdir(parents=True)
            for name, text in made.items():
                (course / name).write_text(text)
            with pytest.raises(CourseError, match="holds files this notebook did not make"):
                fresh_folder(parent, "tiny")
            assert [path.name for path in course.iterdir()] == list(made)
            shutil.rmtree(course)
        (parent / "tiny" / "checkpoint-1").mkdir(parents=True)  # a run folder an older notebook made: removed
        assert not fresh_folder(parent, "tiny").exists()
    finally:
        shutil.rmtree(parent, ignore_errors=True)
