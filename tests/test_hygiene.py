"""Repository hygiene: stripped notebooks, one parameters cell, environment files, parameter contract.

The notebooks are checked as git holds them (the index, what the next commit takes) in a git checkout: a notebook
someone ran in place and JupyterLab autosaved with its outputs fails here once it is staged, not before (`make lab`
opens copies, so running the course never touches them). Outside git (an unpacked archive) the files themselves."""

import json
import re
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import nbformat
import papermill
import pytest
import yaml

from course_lib.classroom.notebooks import appendix_notebooks, course_notebooks, numbered_notebooks
from course_lib.paths import EXPERIMENT_TEMPLATE

ROOT = Path(__file__).resolve().parent.parent
# every parameter that the tests, the sweep and the README pass to a notebook
PASSED_PARAMETERS = {"PROFILE"}


@cache
def tracked_notebooks() -> tuple[str, ...] | None:
    """Every .ipynb git tracks (paths from the root), or None outside a git checkout."""
    done = subprocess.run(["git", "ls-files", "-z", "--", "*.ipynb"], cwd=ROOT, capture_output=True)
    if done.returncode != 0 or not (ROOT / ".git").exists():
        return None
    return tuple(sorted(name for name in done.stdout.decode().split("\0") if name))


def notebooks_to_check() -> list[str]:
    """The course's notebooks, the app and the sweep's template, and whatever other notebook git tracks."""
    known = [*numbered_notebooks(), *appendix_notebooks(), *sorted((ROOT / "apps").glob("*.ipynb")), EXPERIMENT_TEMPLATE]
    return sorted({str(p.relative_to(ROOT)) for p in known} | set(tracked_notebooks() or ()))


@cache
def committed_text(name: str) -> str:
    """A notebook as git's index holds it when git tracks it, else the file in the working tree."""
    if name in (tracked_notebooks() or ()):
        return subprocess.run(["git", "show", f":{name}"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    return (ROOT / name).read_text(encoding="utf-8")


def committed_file(name: str, folder: Path) -> Path:
    """The committed notebook written to `folder` under its own relative path (for tools that read a file)."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(committed_text(name), encoding="utf-8")
    return path


ALL_NOTEBOOKS = notebooks_to_check()


def test_the_checked_notebooks_include_every_tracked_one_and_read_what_git_holds(tmp_path):
    assert "notebooks/00_tiny_world_tour.ipynb" in ALL_NOTEBOOKS and "apps/budget_explorer.ipynb" in ALL_NOTEBOOKS
    assert "course_lib/templates/experiment.ipynb" in ALL_NOTEBOOKS
    if tracked_notebooks() is None:
        pytest.skip("not a git checkout")
    assert set(tracked_notebooks()) <= set(ALL_NOTEBOOKS)
    # a repository whose notebook was executed in place after it was staged: the index is what counts
    repo = tmp_path / "repo"
    repo.mkdir()
    clean = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    (repo / "n.ipynb").write_text(nbformat.writes(clean))
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    subprocess.run(["git", "add", "n.ipynb"], cwd=repo, check=True)
    clean.cells[0].outputs = [nbformat.v4.new_output("stream", text="2\n")]
    (repo / "n.ipynb").write_text(nbformat.writes(clean))
    staged = subprocess.run(["git", "show", ":n.ipynb"], cwd=repo, capture_output=True, text=True, check=True).stdout
    assert not nbformat.reads(staged, as_version=4).cells[0].outputs


@pytest.mark.parametrize("name", ALL_NOTEBOOKS)
def test_notebook_is_stripped_and_has_one_parameters_cell(name, tmp_path):
    notebook = nbformat.reads(committed_text(name), as_version=4)
    assert "widgets" not in notebook.metadata, "widget state must be stripped (nbstripout)"
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, "outputs must be stripped (nbstripout)"
    tagged = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged `parameters`"
    for line in tagged[0].source.splitlines():
        assert re.fullmatch(r"[A-Z][A-Z0-9_]* = .+  # .+", line), f"parameter line needs UPPER_SNAKE = literal  # help: {line!r}"
    # papermill must parse every line (an "=" inside a string breaks it)
    declared = papermill.inspect_notebook(str(committed_file(name, tmp_path)))
    assert len(declared) == len(tagged[0].source.splitlines()), f"papermill parsed only {sorted(declared)}"


@pytest.mark.parametrize("name", ALL_NOTEBOOKS)
def test_parameter_contract(name, tmp_path):
    declared = set(papermill.inspect_notebook(str(committed_file(name, tmp_path))))
    assert PASSED_PARAMETERS <= declared, f"{name} does not declare {PASSED_PARAMETERS - declared}"


def test_nbstripout_agrees_the_notebooks_are_clean(tmp_path):
    files = [str(committed_file(name, tmp_path)) for name in ALL_NOTEBOOKS]
    result = subprocess.run([sys.executable, "-m", "nbstripout", "--verify", *files], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_notebooks_keep_the_courses_json_layout():
    """As the course writes them (json.dumps(notebook, indent=1, ensure_ascii=False) and a newline), so an edit made
    by a script shows in git as the lines it changed."""
    for name in ALL_NOTEBOOKS:
        text = committed_text(name)
        assert text == json.dumps(json.loads(text), indent=1, ensure_ascii=False) + "\n", name


def test_each_notebook_ends_with_its_record_folded_and_said_to_be_plumbing():
    """The last cell stores the notebook's key numbers (`record`, read back by the tests and the sweep): folded in
    JupyterLab, with a first line that says what it is, so no student wonders what to do with it."""
    for name in [n for n in ALL_NOTEBOOKS if not n.startswith("apps/")]:
        last = nbformat.reads(committed_text(name), as_version=4).cells[-1]
        assert last.cell_type == "code" and "\nrecord(" in last.source, f"{name}: the last cell is not its record"
        assert last.source.startswith("# Plumbing: stores this"), f"{name}: say what the record cell is for"
        assert last.metadata.get("jupyter", {}).get("source_hidden") is True, f"{name}: fold the record cell"


def test_numbered_notebooks_are_contiguous():
    """00, 01, 02, ... with no gap; a second slot on one topic (04b) comes right after the first (04)."""
    from course_lib.classroom.notebooks import notebook_id

    ids = [notebook_id(p) for p in numbered_notebooks()]
    numbers = [int(i) for i in ids if i.isdigit()]
    assert numbers == list(range(len(numbers)))
    for i in (i for i in ids if not i.isdigit()):  # 04b needs 04, 04c needs 04b
        before = i[:2] if i[2] == "b" else i[:2] + chr(ord(i[2]) - 1)
        assert ids.index(before) == ids.index(i) - 1, f"{i} does not follow {before}"


def test_binder_environment_is_identical():
    assert (ROOT / "environment.yml").read_bytes() == (ROOT / "binder" / "environment.yml").read_bytes()


def test_environment_lists_pyproject_dependencies():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = [d for d in env["dependencies"] if isinstance(d, dict)][0]["pip"]
    assert sorted(x for x in pip if not x.startswith("-")) == sorted(pyproject["project"]["dependencies"])


def test_no_shared_data_copied_into_the_project():
    for path in (ROOT / "data").rglob("*.jsonl"):
        text = path.read_text(errors="ignore")[:2000]
        assert "Natalia sold clips" not in text and "canary GUID" not in text, f"{path} looks like a shared data copy"


def test_binder_postbuild_downloads_no_weights():
    script = (ROOT / "binder" / "postBuild").read_text()
    assert "pip install --no-deps -e ." in script
    assert not re.search(r"from_pretrained|huggingface-cli|hf download|wget|curl", script)


def test_manifests_are_valid_json():
    for path in (ROOT / "data" / "models").glob("*/manifest.json"):
        manifest = json.loads(path.read_text())
        assert {"sha256", "command", "versions", "config", "calibration"} <= set(manifest)


def test_every_numbered_notebook_teaches_with_summary_exercises_reading_and_a_solution():
    for path in numbered_notebooks():
        notebook = nbformat.read(str(path), as_version=4)
        text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        for heading in ("## Summary", "## Exercises", "## Further reading", "arXiv:"):
            assert heading in text, f"{path.name} lacks {heading!r}"
        assert any("solution" in c.metadata.get("tags", []) for c in notebook.cells), f"{path.name} has no solution cell"


def test_student_build_drops_solution_cells(tmp_path):
    from course_lib.classroom.copies import make_copies

    make_copies(tmp_path, "student", numbered_notebooks())
    for copy in sorted(tmp_path.glob("*.ipynb")):
        notebook = nbformat.read(str(copy), as_version=4)
        assert not any("solution" in c.metadata.get("tags", []) for c in notebook.cells)
        assert any("parameters" in c.metadata.get("tags", []) for c in notebook.cells)
    assert "course_lib.classroom.copies student build/students" in (ROOT / "Makefile").read_text()


def test_accelerate_configs_parse():
    single = yaml.safe_load((ROOT / "configs" / "accelerate_single_gpu.yaml").read_text())
    zero3 = yaml.safe_load((ROOT / "configs" / "accelerate_deepspeed_zero3.yaml").read_text())
    assert single["num_processes"] == 1 and single["mixed_precision"] == "bf16"
    assert zero3["distributed_type"] == "DEEPSPEED" and zero3["deepspeed_config"]["zero_stage"] == 3


def test_readme_course_map_lists_every_notebook_with_measured_numbers():
    readme = (ROOT / "README.md").read_text()
    for path in numbered_notebooks() + appendix_notebooks():
        assert f"notebooks/{path.name}" in readme, f"{path.name} missing from the course map"
    assert "TIME_" not in readme, "fill the course map from benchmarks/results/notebook_times_tiny.json"
    times = json.loads((ROOT / "benchmarks" / "results" / "notebook_times_tiny.json").read_text())["notebooks"]
    assert set(times) == {p.name for p in course_notebooks()}  # what `make course` runs


def test_runtimes_in_the_course_map_and_notebook_headers_are_the_measured_ones():
    """The course map's row and the notebook's own header state the `tiny` runtime benchmarks/notebook_times.py
    measured, in one format (course_lib.classroom.notebooks.format_runtime), and the class slot the header states."""
    from benchmarks.notebook_times import class_slot
    from course_lib.classroom.notebooks import format_runtime

    readme = (ROOT / "README.md").read_text()
    times = json.loads((ROOT / "benchmarks" / "results" / "notebook_times_tiny.json").read_text())["notebooks"]
    for path in numbered_notebooks() + appendix_notebooks():
        measured = times[path.name]
        row = next(line for line in readme.splitlines() if f"(notebooks/{path.name})" in line)
        assert f"{format_runtime(measured['seconds'])}, {measured['peak_memory_mib']:,} MiB |" in row, path.name
        assert measured.get("slot_minutes") == class_slot(path), f"{path.name}: run notebook_times.py --slots-only"
        if class_slot(path):
            assert f"| {class_slot(path)}-min slot; {format_runtime(measured['seconds'])}," in row, path.name
        if path not in numbered_notebooks():  # an appendix states no runtime in its header
            continue
        header = nbformat.read(str(path), as_version=4).cells[0].source + nbformat.read(str(path), as_version=4).cells[1].source
        assert f"`tiny` {format_runtime(measured['seconds'])} on a 2-core CPU" in header, path.name
        if "peak memory" in header:  # stated as the record's peak, in GiB to one decimal
            assert f"(peak memory {measured['peak_memory_mib'] / 1024:.1f} GB)" in header, path.name


def test_make_clean_keeps_a_studys_sweep(tmp_path):
    """`make clean` removed all of build/, a sweep's hours of training with it; it keeps build/studies/ now and
    `make clean-all` removes everything. Hostile round 25: it also removed build/cache/, where a message tells the user
    to keep a difficulty cache (hours of sampling on the paper profile); that is kept too."""
    import shutil

    shutil.copy(Path(__file__).resolve().parent.parent / "Makefile", tmp_path / "Makefile")
    for folder in ("build/studies/hard-wins/points", "build/tiny", "build/students", "build/runs/04", "build/cache"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "build/studies/hard-wins/points/a.json").write_text("{}")
    done = subprocess.run(["make", "-s", "clean"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "build").iterdir()) == ["cache", "studies"]
    assert "kept build/studies" in done.stdout and "kept build/cache" in done.stdout
    assert (tmp_path / "build/studies/hard-wins/points/a.json").exists()
    subprocess.run(["make", "-s", "clean-all"], cwd=tmp_path, check=True)
    assert not (tmp_path / "build").exists()
