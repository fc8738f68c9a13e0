"""Repository hygiene: stripped notebooks, one parameters cell, environment files, parameter contract."""

import json
import re
import tomllib
from pathlib import Path

import nbformat
import papermill
import pytest
import yaml

from course_lib.notebooks import appendix_notebooks, course_notebooks, numbered_notebooks

ROOT = Path(__file__).resolve().parent.parent
ALL_NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "apps").glob("*.ipynb"))
# every parameter that the tests, the sweep and the README pass to a notebook
PASSED_PARAMETERS = {"PROFILE"}


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stripped_and_has_one_parameters_cell(path):
    notebook = nbformat.read(str(path), as_version=4)
    assert "widgets" not in notebook.metadata, "widget state must be stripped (nbstripout)"
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, "outputs must be stripped (nbstripout)"
    tagged = [c for c in notebook.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged `parameters`"
    for line in tagged[0].source.splitlines():
        assert re.fullmatch(r"[A-Z][A-Z0-9_]* = .+  # .+", line), f"parameter line needs UPPER_SNAKE = literal  # help: {line!r}"
    declared = papermill.inspect_notebook(str(path))  # papermill must parse every line (an "=" inside a string breaks it)
    assert len(declared) == len(tagged[0].source.splitlines()), f"papermill parsed only {sorted(declared)}"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: p.name)
def test_parameter_contract(path):
    declared = set(papermill.inspect_notebook(str(path)))
    assert PASSED_PARAMETERS <= declared, f"{path.name} does not declare {PASSED_PARAMETERS - declared}"


def test_nbstripout_agrees_the_notebooks_are_clean():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "nbstripout", "--verify", *map(str, ALL_NOTEBOOKS)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_numbered_notebooks_are_contiguous():
    numbers = [int(p.name[:2]) for p in numbered_notebooks()]
    assert numbers == list(range(len(numbers)))


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
    import shutil
    import subprocess
    import sys

    for path in numbered_notebooks():
        shutil.copy(path, tmp_path / path.name)
    copies = sorted(tmp_path.glob("*.ipynb"))
    subprocess.run([sys.executable, "-m", "nbstripout", "--drop-tagged-cells", "solution", *map(str, copies)], check=True)
    for copy in copies:
        notebook = nbformat.read(str(copy), as_version=4)
        assert not any("solution" in c.metadata.get("tags", []) for c in notebook.cells)
        assert any("parameters" in c.metadata.get("tags", []) for c in notebook.cells)
    assert "--drop-tagged-cells solution" in (ROOT / "Makefile").read_text()


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
    measured, in one format (course_lib.notebooks.format_runtime), and the class slot the header states."""
    from benchmarks.notebook_times import class_slot
    from course_lib.notebooks import format_runtime

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
