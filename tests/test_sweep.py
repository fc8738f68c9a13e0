"""The sweep: grids, the parameter contract, resume, failed points, SLURM emission, and one real smoke point."""

import json
import subprocess
import sys

import nbformat
import pytest

from course_lib import CourseError
from course_lib.sweep import (
    STUDIES,
    _share_cores,
    check_parameters,
    emit_slurm,
    expand,
    parse_where,
    point_name,
    run,
    run_point,
    warm_up_waves,
)


def fake_experiment(path):
    """A fast stand-in for the experiment notebook: fails for STRATEGY == 'random', records otherwise."""
    notebook = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('PROFILE = "smoke"\nMODEL = "m"\nTASK = "arith"\nSTRATEGY = "hard"\n'
                                       'BUDGET = 0.1\nSEED = 0\nRUN_DIR = ""')
    params.metadata["tags"] = ["parameters"]
    body = nbformat.v4.new_code_cell(
        'from course_lib.runtime import record\n'
        'if STRATEGY == "random":\n    raise RuntimeError("this point fails on purpose")\n'
        'record(gain={"test": 0.1 if STRATEGY == "hard" else 0.0})')
    notebook.cells = [params, body]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(path))
    return path


def test_grids_have_the_sizes_the_studies_need():
    hard = expand("hard-wins", "tiny")
    assert len({p["SEED"] for p in hard}) >= 5 and {"hard", "random", "learnability", "random+dynamic"} <= {
        p["STRATEGY"] for p in hard}
    capacity = expand("capacity-boundary", "tiny")
    assert {p["MODEL"] for p in capacity} == {"tiny-s", "tiny-m", "tiny-l"} and len({p["SEED"] for p in capacity}) >= 3
    assert len({point_name(p) for p in hard}) == len(hard)  # names are unique


@pytest.mark.parametrize(("study", "profile"), [(s, p) for s in STUDIES for p in STUDIES[s]["grid"]])
def test_experiment_notebook_declares_every_grid_key(study, profile):
    check_parameters(expand(study, profile) + [{"RUN_DIR": "x"}])


def test_where_keeps_a_slice_of_the_grid():
    points = expand("hard-wins", "tiny", where={"SEED": "0", "TASK": "arith"})
    assert len(points) == 6 and {p["SEED"] for p in points} == {0}
    with pytest.raises(CourseError, match="'LAYERS' is not a grid key of hard-wins"):
        expand("hard-wins", "tiny", where={"LAYERS": "2"})
    with pytest.raises(CourseError, match="leaves no point"):
        expand("hard-wins", "tiny", where={"SEED": "99"})


def test_unknown_study_and_undeclared_key_fail_before_running(tmp_path):
    with pytest.raises(CourseError, match="study='nope' is unknown"):
        expand("nope", "tiny")
    with pytest.raises(CourseError, match=r"grid key\(s\) \['LAYERS'\] are not parameters"):
        check_parameters([{"PROFILE": "smoke", "LAYERS": 3}])


def test_failed_point_is_recorded_and_the_sweep_goes_on_then_resumes(tmp_path, monkeypatch):
    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"},
                                          "grid": {"smoke": {"STRATEGY": ["hard", "random", "easy"], "SEED": [0]}}})
    out = tmp_path / "out"
    outcome = run("demo", "smoke", out, workers=2, progress=False, notebook=notebook)
    assert outcome["points"] == 3 and [f["strategy"] for f in outcome["failed"]] == ["random"]
    assert "this point fails on purpose" in outcome["failed"][0]["error"]
    assert len(list((out / "points").glob("*.ipynb"))) == 3  # every executed notebook is kept, failed ones too
    results = (out / "results.csv").read_text()
    assert "gain.test" in results and "failed" in results
    provenance = json.loads((out / "provenance.json").read_text())
    assert len(provenance["failed"]) == 1 and provenance["versions"]["torch"]
    assert provenance["this_run"]["points_run"] == 3 and provenance["this_run"]["wall_seconds"] > 0
    assert provenance["point_commits"]  # the code commit each point ran with
    assert list((out / "logs").glob("worker-*.log"))  # kernels' stderr goes to a log per worker, not the terminal
    # resume: finished points are not run again (their records are untouched), the failed one is retried
    done = sorted(p for p in (out / "points").glob("*.json") if not p.name.endswith(".failed.json"))
    assert len(done) == 2
    stamps = {p: p.stat().st_mtime_ns for p in done}
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    assert {p: p.stat().st_mtime_ns for p in done} == stamps


def test_out_folder_of_a_different_grid_is_refused(tmp_path, monkeypatch):
    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0]}}})
    run("demo", "smoke", tmp_path / "out", workers=1, progress=False, notebook=notebook)
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["easy"], "SEED": [0]}}})
    with pytest.raises(CourseError, match="holds results of a different grid"):
        run("demo", "smoke", tmp_path / "out", workers=1, progress=False, notebook=notebook)


def test_emit_slurm_writes_a_job_array(tmp_path):
    script = emit_slurm("capacity-boundary", "tiny", tmp_path)
    text = script.read_text()
    assert f"#SBATCH --array=0-{len(expand('capacity-boundary', 'tiny')) - 1}" in text
    assert "course_lib sweep-point capacity-boundary --profile tiny" in text


def test_reproduce_cli_exits_nonzero_on_failures_and_two_on_bad_input(tmp_path):
    result = subprocess.run([sys.executable, "-m", "course_lib", "reproduce", "hard-wins", "--profile", "nope",
                             "--out", str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 2 and "profile='nope' has no grid" in result.stderr


def test_one_real_smoke_point_of_the_experiment_notebook(tmp_path):
    point = expand("hard-wins", "smoke")[0]
    record = run_point(point, tmp_path)
    assert record["status"] == "ok", record.get("error")
    assert record["n_selected"] == 2 and record["steps"] <= 2  # 10% of the 20-problem smoke pool
    assert set(record["gain"]) == {"test", "ood"}
    assert 0.0 <= record["learnable_share_of_steps"] <= 1.0
    assert 0.0 <= record["predicted_dead_share"] <= 1.0


def test_warm_up_wave_runs_one_point_per_difficulty_table_first():
    points = expand("capacity-boundary", "tiny")
    first, rest = warm_up_waves(points)
    assert sorted(p["MODEL"] for p in first) == ["tiny-l", "tiny-m", "tiny-s"]  # one per (model, task, pool)
    assert len(first) + len(rest) == len(points) and not any(p in first for p in rest)
    assert warm_up_waves(points[:1]) == [points[:1]]  # no empty wave


def test_each_worker_gets_a_share_of_the_cores(monkeypatch):
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    _share_cores(workers=2)
    import os
    assert os.environ["OMP_NUM_THREADS"] == "4" and os.environ["MKL_NUM_THREADS"] == "4"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # a user's own setting wins
    _share_cores(workers=8)
    assert os.environ["OMP_NUM_THREADS"] == "3"


def test_parse_where_reads_pairs_and_names_a_malformed_one():
    assert parse_where(["SEED=0", "TASK=arith"]) == {"SEED": "0", "TASK": "arith"}
    assert parse_where("MODEL:tiny-s,SEED:0".split(","), ":") == {"MODEL": "tiny-s", "SEED": "0"}
    with pytest.raises(CourseError, match="'SEED0' must look like KEY=VALUE"):
        parse_where(["SEED0"])
