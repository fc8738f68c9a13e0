"""The sweep: grids, the parameter contract, resume, failed points, SLURM emission, and one real smoke point."""

import errno
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pandas as pd
import pytest

import course_lib
from course_lib import CourseError
from course_lib.__main__ import main
from course_lib.provenance import file_sha256, git_commit, library_versions
from course_lib.research.studies import results_table
from course_lib.research.sweep import (
    DAMAGED_GRID_FIX,
    STUDIES,
    _share_cores,
    aggregate,
    check_parameters,
    collect,
    done_record,
    emit_slurm,
    expand,
    grid_points,
    parse_overrides,
    parse_where,
    point_name,
    run,
    run_point_notebook,
    warm_up_waves,
    worker_count,
)

ROOT = Path(__file__).resolve().parent.parent


def fake_experiment(path):
    """A fast stand-in for the experiment notebook: fails for STRATEGY == 'random', records otherwise."""
    notebook = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('PROFILE = "smoke"\nMODEL = "m"\nTASK = "arith"\nSTRATEGY = "hard"\n'
                                       'BUDGET = 0.1\nSEED = 0\nRUN_DIR = ""')
    params.metadata["tags"] = ["parameters"]
    body = nbformat.v4.new_code_cell(
        'from course_lib.classroom.runtime import record\n'
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


def test_size_boundary_pilot_is_the_size_family_with_fresh_seeds():
    from course_lib.models import TINY_SIZES

    points = expand("size-boundary-pilot", "tiny")
    assert len(points) == 4 * 4 * 3 and {p["MODEL"] for p in points} == set(TINY_SIZES)  # sizes only, no variant
    arms = {(p["STRATEGY"], p.get("STEPS")) for p in points}
    assert arms == {("levels-1-3", None), ("levels-1-5", None), ("random-matched", None), ("levels-1-5", 49)}
    assert all(p["EVAL_K"] == 16 and p["BASE_K"] == 64 and p["RESAMPLE_POOL"] and p["BUDGET"] == 1.0 for p in points)
    seeds = {p["SEED"] for p in points}
    assert seeds == {300, 301, 302}
    for study in set(STUDIES) - {"size-boundary-pilot"}:  # a pilot's seeds are never another study's
        for profile in set(STUDIES[study]["grid"]) - {"paper"}:
            assert not seeds & {p["SEED"] for p in expand(study, profile)}, study
    smoke = expand("size-boundary-pilot", "smoke")
    assert {p["MODEL"] for p in smoke} == {"tiny-sm"} and {p["STRATEGY"] for p in smoke} == {"levels-1-3", "levels-1-5"}


def test_one_group_hard_wins_matches_its_readme():
    """Five arms on the same 8 fresh seeds; both step structures train on the same number of completions."""
    points = expand("one-group-hard-wins", "tiny")
    arms = {(p["STRATEGY"], p["PROMPTS_PER_STEP"], p["STEPS"]) for p in points}
    assert arms == {("hard", 1, 1000), ("random", 1, 1000), ("hard", 8, 125), ("random", 8, 125), ("easy", 1, 1000)}
    assert {p["PROMPTS_PER_STEP"] * p["STEPS"] for p in points} == {1000}  # x 8 completions per prompt
    assert {p["SEED"] for p in points} == set(range(500, 508)) and len(points) == 40
    assert all(p["EVAL_K"] == 64 and p["LEARNING_RATE"] == 3e-4 and p["MAX_GRAD_NORM"] == 0.5 for p in points)
    pilot = {p["SEED"] for p in expand("one-group-pilot", "tiny")}
    for study in set(STUDIES) - {"one-group-pilot"}:  # the pilot's seeds are never another study's
        for profile in set(STUDIES[study]["grid"]) - {"paper"}:
            assert not pilot & {p["SEED"] for p in expand(study, profile)}, study
    assert {(p["STRATEGY"], p["PROMPTS_PER_STEP"]) for p in points[:16]} == {("hard", 1), ("random", 1)}  # test 1 first


def test_size_boundary_runs_each_size_with_its_own_fresh_seeds_tiny_m_first():
    points = expand("size-boundary", "tiny")
    seeds = {model: sorted({p["SEED"] for p in points if p["MODEL"] == model}) for model in ("tiny-s", "tiny-sm",
                                                                                            "tiny-m", "tiny-l")}
    assert seeds == {"tiny-m": list(range(310, 319)), "tiny-s": list(range(310, 315)),
                     "tiny-sm": list(range(310, 315)), "tiny-l": list(range(310, 315))}
    assert len(points) == 4 * (9 + 5 + 5 + 5) and len({point_name(p) for p in points}) == len(points)
    for model, model_seeds in seeds.items():  # every seed of a size has all four arms
        arms = {(p["STRATEGY"], p.get("STEPS"), p["SEED"]) for p in points if p["MODEL"] == model}
        assert len(arms) == 4 * len(model_seeds)
    assert {p["MODEL"] for p in points[:27]} == {"tiny-m"} and points[-1].get("STEPS") == 49
    pilot_seeds = {p["SEED"] for p in expand("size-boundary-pilot", "tiny")}
    assert not pilot_seeds & {p["SEED"] for p in points}


def test_a_grid_can_be_a_list_of_grids(monkeypatch):
    monkeypatch.setitem(STUDIES, "two-grids", {"fixed": {"TASK": "arith"}, "grid": {"tiny": [
        {"MODEL": ["tiny-s"], "SEED": [0, 1]}, {"MODEL": ["tiny-m"], "SEED": [0]}]}})
    assert [(p["MODEL"], p["SEED"]) for p in expand("two-grids", "tiny")] == [("tiny-s", 0), ("tiny-s", 1),
                                                                             ("tiny-m", 0)]


@pytest.mark.parametrize(("study", "profile"), [(s, p) for s in STUDIES for p in STUDIES[s]["grid"]])
def test_experiment_notebook_declares_every_grid_key(study, profile):
    check_parameters(expand(study, profile) + [{"RUN_DIR": "x"}])


def test_where_keeps_a_slice_of_the_grid():
    points = expand("hard-wins", "tiny", where={"SEED": "0", "TASK": "arith"})
    assert len(points) == 6 and {p["SEED"] for p in points} == {0}
    with pytest.raises(CourseError, match="'LAYERS' is not a grid key of hard-wins"):
        expand("hard-wins", "tiny", where={"LAYERS": "2"})
    with pytest.raises(CourseError, match="leaves no point of hard-wins \\(tiny\\); SEED takes 0, 1, 2, 3, 4$"):
        expand("hard-wins", "tiny", where={"SEED": "99"})
    with pytest.raises(CourseError, match="; STRATEGY takes easy, hard, random$"):
        expand("strong-regime-hard-wins", "tiny", where={"SEED": "200", "STRATEGY": "medium"})


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
    import course_lib.research.sweep as sweep

    pools, real_pool = [], sweep.ProcessPoolExecutor
    monkeypatch.setattr(sweep, "ProcessPoolExecutor", lambda **kw: pools.append(kw["max_workers"]) or real_pool(**kw))
    monkeypatch.setattr(sweep, "available_cores", lambda: 2)
    outcome = run("demo", "smoke", out, workers=2, progress=False, notebook=notebook)
    assert pools == [2]  # at most two points at once, whatever the machine's core count
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


def test_a_folder_whose_finished_points_ran_other_library_code_is_not_resumed_unless_mixing_is_asked(
        tmp_path, monkeypatch):
    """A pre-registered study resumed in a checkout whose grader had changed since its first points ran put two
    graders in one table, paired by seed as one: refused, naming the commit and the files; `mixed_code` resumes."""
    import course_lib.research.sweep as sweep

    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"},
                                          "grid": {"smoke": {"STRATEGY": ["hard", "random"], "SEED": [0]}}})
    out = tmp_path / "out"
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)  # random fails: one point left
    finished = next(p for p in (out / "points").glob("*.json") if not p.name.endswith(".failed.json"))
    record = json.loads(finished.read_text())
    finished.write_text(json.dumps(resealed({**record, "commit": "e" * 40})))  # as if run at that commit
    asked = []
    monkeypatch.setattr(sweep, "code_changed_since", lambda commit: asked.append(commit) or
                        ["course_lib/answers.py", "course_lib/grpo.py", "course_lib/rewards.py", "pyproject.toml"])
    with pytest.raises(CourseError, match=f"^out={re.escape(str(out))} holds points run at commit eeeeeeeeeeee, and "
                                          r"course_lib/answers.py, course_lib/grpo.py, course_lib/rewards.py and 1 "
                                          r"more changed since: .* \(git worktree add \.\./at-eeeeeee eeeeeee, .*"
                                          r"--mixed-code"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    assert asked == ["e" * 40]
    monkeypatch.setattr(sweep, "code_changed_since", lambda commit: None)  # a commit this clone lacks: told, not refused
    with pytest.warns(UserWarning, match="which this clone does not hold"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    monkeypatch.setattr(sweep, "code_changed_since", lambda commit: ["course_lib/answers.py"])
    outcome = run("demo", "smoke", out, workers=1, progress=False, notebook=notebook, mixed_code=True)
    assert outcome["points"] == 2
    finished.write_text(json.dumps(resealed({**record, "commit": git_commit()})))  # this checkout's own: no question
    monkeypatch.setattr(sweep, "code_changed_since", lambda commit: pytest.fail("asked about the same commit"))
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    # round 27: a resume after upgrading a library mixed two trainers; grid.json records the versions it was planned with
    grid = json.loads((out / "grid.json").read_text())
    assert grid["versions"] == library_versions()
    (out / "grid.json").write_text(json.dumps({**grid, "versions": {**grid["versions"], "trl": "0.9.0"}}))
    with pytest.raises(CourseError, match=f"^out={re.escape(str(out))} was planned with trl 0.9.0, and this "
                                          f"environment has {re.escape(library_versions()['trl'])}: the points left "
                                          "would run other libraries .* --mixed-code"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook, mixed_code=True)


def test_code_changed_since_names_the_library_files_git_sees_changed(tmp_path, monkeypatch):
    import course_lib.provenance as provenance

    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()

    git("init", "-q")
    (tmp_path / "course_lib").mkdir()
    (tmp_path / "course_lib" / "answers.py").write_text("A = 1\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "results.csv").write_text("a\n")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    first = git("rev-parse", "HEAD")
    monkeypatch.setattr(provenance, "REPOSITORY", tmp_path)
    assert provenance.code_changed_since(first) == []
    (tmp_path / "data" / "results.csv").write_text("b\n")  # results are no code
    assert provenance.code_changed_since(first) == []
    (tmp_path / "course_lib" / "answers.py").write_text("A = 2\n")  # uncommitted counts
    assert provenance.code_changed_since(first) == ["course_lib/answers.py"]
    assert provenance.code_changed_since("f" * 40) is None  # not in this clone
    victim = tmp_path / "victim.txt"
    victim.write_text("kept")  # round 27: a record's commit reached git as an option, and --output emptied a file
    assert provenance.code_changed_since(f"--output={victim}") is None and victim.read_text() == "kept"


def test_round_28_versions_are_checked_with_no_point_finished_and_by_each_slurm_array_task(tmp_path, monkeypatch,
                                                                                           capsys):
    """Hostile round 28: a sweep killed in its first wave resumed under a new TRL (no finished point: no check), and
    `sweep-point` (each SLURM array task) ran after `reproduce` had refused the same folder."""
    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"}, "grid": {"smoke": {"STRATEGY": ["random"], "SEED": [0]}}})
    out = tmp_path / "out"
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)  # its one point fails: none finished
    grid = json.loads((out / "grid.json").read_text())
    (out / "grid.json").write_text(json.dumps({**grid, "versions": {**grid["versions"], "trl": "0.9.0"}}))
    with pytest.raises(CourseError, match="was planned with trl 0.9.0"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    jobs = tmp_path / "jobs"
    emit_slurm("hard-wins", "smoke", jobs, time_limit="00:40:00")
    grid = json.loads((jobs / "grid.json").read_text())
    (jobs / "grid.json").write_text(json.dumps({**grid, "versions": {**grid["versions"], "trl": "0.9.0"}}))
    assert main(["sweep-point", "hard-wins", "--profile", "smoke", "--out", str(jobs), "--index", "0"]) == 2
    assert "was planned with trl 0.9.0" in capsys.readouterr().err
    assert not list((jobs / "points").glob("*.json"))  # nothing ran


def test_round_27_a_record_naming_no_commit_is_refused_and_uncommitted_code_is_told(tmp_path, monkeypatch):
    import course_lib.research.sweep as sweep

    victim = tmp_path / "victim.txt"
    victim.write_text("kept")
    with pytest.raises(CourseError, match=r"a point record names commit '--output=.*', which is no commit; restore"):
        sweep.check_same_code(tmp_path, [{"commit": f"--output={victim}"}])
    assert victim.read_text() == "kept"
    here = "a" * 40 + "+dirty"
    monkeypatch.setattr(sweep, "git_commit", lambda: here)
    monkeypatch.setattr(sweep, "code_changed_since", lambda commit: [])  # edits reverted since: git sees none
    with pytest.warns(UserWarning, match="points run from uncommitted changes to commit aaaaaaaaaaaa: whether the code "
                                         "here is theirs cannot be told"):
        sweep.check_same_code(tmp_path, [{"commit": here}])
    monkeypatch.setattr(sweep, "git_commit", lambda: "a" * 40)  # round 28: a record with no commit was silent
    with pytest.warns(UserWarning, match=r"holds 2 point record\(s\) that name no commit: whether they ran the code"):
        sweep.check_same_code(tmp_path, [{"status": "ok"}, {"commit": None}, {"commit": "a" * 40}])


def test_one_worker_runs_each_kernel_from_this_process_with_its_stderr_in_a_log(tmp_path, monkeypatch):
    """workers=1 forks no worker (a copy of a notebook's kernel would count against Binder's 2 GB): the point's
    kernel is this process's child, and what the kernel writes to its stderr lands in logs/<point>.log."""
    notebook = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell('PROFILE = "smoke"\nMODEL = "m"\nSTRATEGY = "hard"\nSEED = 0\nRUN_DIR = ""')
    params.metadata["tags"] = ["parameters"]
    body = nbformat.v4.new_code_cell('import os\nfrom course_lib.classroom.runtime import record\n'
                                     'os.write(2, b"a line on the kernel\'s stderr\\n")\nrecord(parent=os.getppid())')
    notebook.cells = [params, body]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(tmp_path / "parent.ipynb"))
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0]}}})
    out = tmp_path / "out"
    run("demo", "smoke", out, workers=1, progress=False, notebook=tmp_path / "parent.ipynb")
    results = pd.read_csv(out / "results.csv")
    assert results.status.tolist() == ["ok"] and results.parent.tolist() == [os.getpid()]
    name = point_name(expand("demo", "smoke")[0])
    assert "a line on the kernel's stderr" in (out / "logs" / f"{name}.log").read_text()
    assert not list((out / "logs").glob("worker-*.log"))


def test_out_folder_of_a_different_grid_is_refused(tmp_path, monkeypatch):
    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0]}}})
    run("demo", "smoke", tmp_path / "out", workers=1, progress=False, notebook=notebook)
    out = tmp_path / "out"
    grid = out / "grid.json"
    grid.write_text(json.dumps({**json.loads(grid.read_text()), "note": "node 7"}))  # a note is no other grid
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["easy"], "SEED": [0]}}})
    # hostile round 26: "use a new folder or delete it" advised deleting finished records, and said not what differs
    with pytest.raises(CourseError, match=f"^out={re.escape(str(out))} holds results of another grid \\(its points "
                                          "differ in STRATEGY: another --where slice, or the study's definition changed "
                                          "since\\): its "
                                          "finished records stay there; run this grid in a new folder"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0]}}})
    with pytest.raises(CourseError, match=r"holds results of another grid \(it ran with --set \{\}, this run with "
                                          r"--set \{'TASK': 'arith'\}\)"):  # its own value, in every point's name
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook, overrides={"TASK": "arith"})


@pytest.mark.parametrize(("name", "holds"), [("points", "point records"), ("logs", "kernel logs"),
                                            ("runs", "training runs")])
def test_round_26_a_sweep_folder_whose_logs_or_runs_is_a_file_is_refused_before_any_point(tmp_path, monkeypatch, name,
                                                                                         holds):
    """Hostile round 26: `logs` replaced by a file failed the point with a raw FileExistsError whose FAILED line
    pointed to an older, successful notebook; now one line before any point runs."""
    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0]}}})
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_text("x")
    with pytest.raises(CourseError, match=f"^{re.escape(str(out / name))} is a file, not the folder of the sweep's "
                                          f"{holds}; move it aside$"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    assert sorted(p.name for p in out.iterdir()) == [name]  # nothing ran, nothing written
    (out / name).unlink()
    (out / name).symlink_to(tmp_path / "gone")  # round 27: a link that leads nowhere failed as the file did
    with pytest.raises(CourseError, match=f"^{re.escape(str(out / name))} is a link that leads nowhere, not the "
                                          "folder of the sweep's"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    (out / name).unlink()
    (out / name).symlink_to(notebook)  # a link to a file is a file
    with pytest.raises(CourseError, match=f"^{re.escape(str(out / name))} is a file, not the folder"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)


def test_a_folder_of_a_slice_says_how_to_run_the_whole_grid_without_losing_its_points(tmp_path, monkeypatch):
    """After `--where SEED=0` into OUT, the whole grid into OUT was refused as "a different grid": its points are
    the grid's own; the message says so, and a new folder seeded with them runs only the rest."""
    import shutil

    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0, 1]}}})
    run("demo", "smoke", tmp_path / "out", workers=1, progress=False, notebook=notebook, where={"SEED": "0"})
    with pytest.raises(CourseError, match=r"holds a slice of this grid \(1 of its 2 points, e\.g\. from --where\)"):
        run("demo", "smoke", tmp_path / "out", workers=1, progress=False, notebook=notebook)
    (tmp_path / "whole" / "points").mkdir(parents=True)
    for record in (tmp_path / "out" / "points").glob("*.json"):
        shutil.copy(record, tmp_path / "whole" / "points")
    assert main(["reproduce", "demo", "--profile", "smoke", "--out", str(tmp_path / "whole"), "--emit-slurm"]) == 0
    (tmp_path / "whole" / "grid.json").unlink()  # the command line takes a folder of copied records, as the message says
    for script in ("warm.sh", "array.sh", "aggregate.sh", "submit.sh"):
        (tmp_path / "whole" / script).unlink()
    summary = run("demo", "smoke", tmp_path / "whole", workers=1, progress=False, notebook=notebook)
    assert summary["points"] == 2 and not summary["failed"]
    # round 27: a slice of a finished folder, or another slice, was told "the study's definition changed since?"
    with pytest.raises(CourseError, match=r"\(this run is a slice of it, 1 of its 2 points \(--where\?\): run "
                                          "without --where to resume it, or give the slice a new folder\\)"):
        run("demo", "smoke", tmp_path / "whole", workers=1, progress=False, notebook=notebook, where={"SEED": "1"})
    with pytest.raises(CourseError, match=r"\(its points differ in SEED: another --where slice, or the study's "):
        run("demo", "smoke", tmp_path / "out", workers=1, progress=False, notebook=notebook, where={"SEED": "1"})


def test_grid_difference_says_which_study_which_set_or_which_parameters_set_a_saved_grid_apart():
    from course_lib.research.sweep import grid_difference

    points = [{"PROFILE": "smoke", "SEED": seed, "STRATEGY": "hard"} for seed in (0, 1)]
    grid = {"study": "demo", "points": points}
    for damaged in ([], {"study": "demo"}, {"study": "demo", "points": "all"}):
        assert grid_difference(damaged, grid) == "its grid.json holds no list of points"
    assert grid_difference({"study": "other", "points": points}, grid) == "it is study 'other''s"
    arith = {"overrides": {"TASK": "arith"}}
    assert grid_difference({**grid, **arith}, grid) == "it ran with --set {'TASK': 'arith'}, this run with --set {}"
    assert grid_difference(grid, {**grid, **arith}) == "it ran with --set {}, this run with --set {'TASK': 'arith'}"
    assert grid_difference({**grid, "points": points[::-1], **arith}, {**grid, **arith}) == (
        "its points differ in their order: another --where slice, or the study's definition changed since")
    other = [{"A": 1, "B": 1, "C": 1, "D": 1, "SEED": seed} for seed in (0, 1)]
    assert grid_difference({**grid, "points": other}, grid).startswith("its points differ in A, B, C: another")


def test_a_records_model_fingerprint_covers_every_weight_file_listed_in_any_order(monkeypatch):
    """A sharded (or .bin) model's record holds one sha256 over all its weight files, another over its settings
    files: a changed shard is other weights, the same files listed in another order are not."""
    from course_lib.research.sweep import inputs_sha256

    def recorded(files):
        monkeypatch.setattr("course_lib.research.sweep.model_fingerprints", lambda points: {"big": files})
        return inputs_sha256({"MODEL": "big", "SEED": 0})

    shards = {"model-1.safetensors": "a" * 64, "model-2.safetensors": "b" * 64, "config.json": "c" * 64,
              "tokenizer.json": "d" * 64}
    found = recorded(shards)
    assert found.keys() == {"model_sha256", "model_settings_sha256"}
    assert found["model_sha256"] not in ("a" * 64, "b" * 64)  # one sha256 over both shards
    assert recorded(dict(reversed(shards.items()))) == found
    assert recorded({**shards, "model-2.safetensors": "e" * 64})["model_sha256"] != found["model_sha256"]
    settings_changed = recorded({**shards, "config.json": "e" * 64})
    assert settings_changed["model_sha256"] == found["model_sha256"]
    assert settings_changed["model_settings_sha256"] != found["model_settings_sha256"]
    assert recorded({"pytorch_model.bin": "a" * 64, "config.json": "c" * 64})["model_sha256"] == "a" * 64


def test_a_record_made_with_other_weights_under_a_models_name_is_not_resumed(tmp_path):
    """Records copied from a folder whose shell resolved tiny-m to other weights (COURSE_MODELS_DIR) were resumed as
    tiny-m's: each record now carries its weights' sha256, and one that differs is set aside and run again."""
    from course_lib.research.sweep import inputs_sha256

    point = {"PROFILE": "smoke", "MODEL": "tiny-m", "SEED": 0}
    name = point_name(point)
    (tmp_path / "points").mkdir()
    sound = {"point": name, "profile": "smoke", "model": "tiny-m", "seed": 0, "status": "ok", "seconds": 1.0,
             **inputs_sha256(point)}
    assert sound["model_sha256"] == json.loads((ROOT / "data/models/tiny-m/manifest.json").read_text())["sha256"][
        "model.safetensors"]
    (tmp_path / "points" / f"{name}.json").write_text(json.dumps(sound))
    assert done_record(tmp_path, point) == sound
    (tmp_path / "points" / f"{name}.json").write_text(json.dumps({**sound, "model_sha256": "0" * 64}))
    with pytest.warns(UserWarning, match="was made with other weights under the name 'tiny-m'"):
        assert done_record(tmp_path, point) is None
    (tmp_path / "points" / f"{name}.json").write_text(json.dumps({k: v for k, v in sound.items() if k != "model_sha256"}))
    assert done_record(tmp_path, point)  # a record from before weights were recorded: trusted on its name


def test_emit_slurm_writes_warm_array_aggregate_and_submit(tmp_path):
    submit = emit_slurm("capacity-boundary", "paper", tmp_path / "out", time_limit="04:00:00", mem="32G", cpus=4,
                        partition="gpu", cache_dir=tmp_path / "shared-cache")
    out, root = (tmp_path / "out").resolve(), Path(course_lib.__file__).resolve().parent.parent
    assert submit == out / "submit.sh"
    warm, array, agg = ((out / name).read_text() for name in ("warm.sh", "array.sh", "aggregate.sh"))
    points = expand("capacity-boundary", "paper")
    first = warm_up_waves(points)[0]
    indices = ",".join(str(points.index(p)) for p in first)
    assert f"#SBATCH --array={indices}\n" in warm and len(first) == 6  # one point per (model, dataset) table
    assert f"#SBATCH --array=0-{len(expand('capacity-boundary', 'paper')) - 1}\n" in array
    for script in (warm, array):
        for line in ("#SBATCH --gres=gpu:1", "#SBATCH --time=04:00:00", "#SBATCH --mem=32G",
                     "#SBATCH --cpus-per-task=4", "#SBATCH --partition=gpu",
                     f"#SBATCH --output={out}/logs/%x-%A_%a.log", f"cd {root}",
                     f"source {sys.prefix}/bin/activate", f"export PYTHONPATH={root}${{PYTHONPATH:+:$PYTHONPATH}}",
                     f"export COURSE_CACHE_DIR={(tmp_path / 'shared-cache').resolve()}",
                     f'sweep-point capacity-boundary --profile paper --out {out} --index "$SLURM_ARRAY_TASK_ID"'):
            assert line in script, line
    assert "--kill-on-invalid-dep=yes" in array  # a failed warm-up cancels the array rather than leaving it pending
    assert "--gres" not in agg and f"course_lib aggregate capacity-boundary --profile paper --out {out}" in agg
    assert (out / "logs").is_dir() and (out / "grid.json").exists()


def test_round_26_relative_folders_in_the_environment_are_made_absolute_for_kernels_and_jobs(tmp_path, monkeypatch):
    """Hostile round 26: COURSE_CACHE_DIR=relcache wrote the cache into course_lib/templates/ (the kernels' folder),
    a relative COURSE_MODELS_DIR passed planning and failed in every point, and --emit-slurm exported it relative
    after `cd` into the repository. The command now gives them absolute to everything it starts."""
    from course_lib.paths import FOLDER_VARIABLES, absolute_env_folders

    monkeypatch.chdir(tmp_path)
    for name in FOLDER_VARIABLES:
        monkeypatch.setenv(name, f"rel/{name.lower()}")
    monkeypatch.setenv("COURSE_CACHE_DIR", "~/cache")  # round 27: a job script quotes it, so `~` is written out
    absolute_env_folders()
    assert {name: os.environ[name] for name in FOLDER_VARIABLES} == {
        **{name: str(tmp_path / "rel" / name.lower()) for name in FOLDER_VARIABLES},
        "COURSE_CACHE_DIR": str(Path.home() / "cache")}
    (tmp_path / "models").mkdir()
    monkeypatch.setenv("COURSE_MODELS_DIR", "models")
    monkeypatch.delenv("COURSE_DATA_DIR")
    monkeypatch.setenv("COURSE_CACHE_DIR", "relcache")
    assert main(["reproduce", "hard-wins", "--profile", "smoke", "--out", "out", "--emit-slurm"]) == 0
    array = (tmp_path / "out" / "array.sh").read_text()
    assert f"export COURSE_MODELS_DIR={tmp_path / 'models'}" in array and "export COURSE_MODELS_DIR=models" not in array
    assert f"export COURSE_CACHE_DIR={tmp_path / 'relcache'}" in array  # round 27: the shell's cache, not OUT/cache


def test_emit_slurm_defaults_to_cpu_for_small_profiles_and_out_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_CACHE_DIR", raising=False)  # set: that cache (the test below)
    emit_slurm("hard-wins", "smoke", tmp_path)
    array = (tmp_path / "array.sh").read_text()
    assert "--gres" not in array and "no GPU requested" in array
    assert f"export COURSE_CACHE_DIR={tmp_path.resolve() / 'cache'}" in array
    assert "--partition" not in array
    # a time and memory limit every job states (clusters reject or kill jobs without), here the CPU profiles' own
    assert "#SBATCH --time=00:20:00" in array and "#SBATCH --mem=8G" in array


def test_submit_chains_warm_then_array_then_aggregate(tmp_path):
    submit = emit_slurm("hard-wins", "smoke", tmp_path / "out")
    fake = tmp_path / "bin" / "sbatch"  # records its arguments; answers job ids the way --parsable does
    fake.parent.mkdir()
    fake.write_text('#!/usr/bin/env bash\necho "$@" >> "$SBATCH_LOG"\necho "$((100 + $(wc -l < "$SBATCH_LOG")));c1"\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}", "SBATCH_LOG": str(tmp_path / "calls")}
    result = subprocess.run(["bash", str(submit)], env=env, capture_output=True, text=True, check=True)
    assert (tmp_path / "calls").read_text().splitlines() == [
        "--parsable warm.sh", "--parsable --dependency=afterok:101 array.sh",
        "--parsable --dependency=afterany:102 aggregate.sh"]
    assert result.stdout.strip() == "warm 101, array 102, aggregate 103"


def resealed(record: dict) -> dict:
    """A real point record changed by a test as if its point had run so: its seal made again over the change."""
    from course_lib.research.sweep import record_seal

    return {**record, "record_sha256": record_seal(record)}


def saved(out, point, status="ok"):
    """Write a point's record as run_point_notebook would (ok -> NAME.json, failed -> NAME.failed.json)."""
    name = point_name(point)
    suffix = "json" if status == "ok" else "failed.json"
    path = out / "points" / f"{name}.{suffix}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"point": name, **{key.lower(): value for key, value in point.items()},
                                "status": status, "seconds": 1.0, "error": "boom"}))  # a record holds its settings
    return path


def test_sweep_point_skips_a_point_already_done(tmp_path, capsys):
    point = expand("hard-wins", "smoke")[1]
    (tmp_path / "grid.json").write_text(json.dumps({"study": "hard-wins", "points": expand("hard-wins", "smoke")}))
    record = saved(tmp_path, point)
    before = record.stat().st_mtime_ns
    assert main(["sweep-point", "hard-wins", "--profile", "smoke", "--index", "1", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == f"{point_name(point)}: already done"
    assert record.stat().st_mtime_ns == before and not list((tmp_path / "points").glob("*.ipynb"))


def test_aggregate_command_reports_missing_and_failed_points(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"},
                                          "grid": {"smoke": {"STRATEGY": ["hard", "random", "easy"], "SEED": [0]}}})
    hard, random_, easy = points = expand("demo", "smoke")
    (tmp_path / "grid.json").write_text(json.dumps({"study": "demo", "points": points}))
    saved(tmp_path, hard)
    saved(tmp_path, random_, status="failed")
    command = ["aggregate", "demo", "--profile", "smoke", "--out", str(tmp_path)]
    assert main(command) == 1  # one failed, one missing
    output = capsys.readouterr()
    assert "2 points saved, 1 failed, 1 missing" in output.out
    assert f"MISSING {point_name(easy)}" in output.err and f"FAILED {point_name(random_)}" in output.err
    assert f"(see {tmp_path / 'points' / point_name(random_)}.ipynb)" in output.err
    (tmp_path / "points" / f"{point_name(random_)}.failed.ipynb").write_text("{}")  # a retry of it was cut short
    assert main(command) == 1
    assert f"(see {tmp_path / 'points' / point_name(random_)}.failed.ipynb)" in capsys.readouterr().err
    assert len(pd.read_csv(tmp_path / "results.csv")) == 2
    assert json.loads((tmp_path / "provenance.json").read_text())["missing"] == [point_name(easy)]
    saved(tmp_path, random_)  # retried and succeeded: the stale failure record no longer counts
    saved(tmp_path, easy)
    assert main(command) == 0
    assert set(pd.read_csv(tmp_path / "results.csv")["status"]) == {"ok"}


def test_aggregate_writes_one_flat_table_sorted_by_point_and_the_provenance(tmp_path):
    records = [{"point": "b", "status": "failed", "seconds": 2.0, "commit": "abc", "traceback": "Traceback ..."},
               {"point": "a", "status": "ok", "seconds": 1.5, "commit": "def", "gain": {"test": 0.25}}]
    outcome = aggregate("demo", "smoke", tmp_path, records, "reproduce demo", {"workers": 1}, missing=["c"])
    assert outcome == {"results": tmp_path / "results.csv", "points": 2, "failed": [records[0]]}
    assert (tmp_path / "results.csv").read_text() == ("point,status,seconds,commit,gain.test\n"
                                                      "a,ok,1.5,def,0.25\nb,failed,2.0,abc,\n")  # no traceback
    text = (tmp_path / "provenance.json").read_text()
    provenance = json.loads(text)
    assert text == json.dumps(provenance, indent=1) + "\n"  # one key per line: a committed result diffs well
    assert provenance == {"study": "demo", "profile": "smoke", "command": "reproduce demo", "commit": git_commit(),
                          "versions": library_versions(), "points": 2, "failed": ["b"], "point_commits": ["abc", "def"],
                          "this_run": {"workers": 1}, "missing": ["c"], "seconds_per_point": {"b": 2.0, "a": 1.5},
                          "results_sha256": file_sha256(tmp_path / "results.csv")}
    aggregate("demo", "smoke", tmp_path, [], "")  # nothing saved yet: an empty table with its key column
    assert (tmp_path / "results.csv").read_text() == "point\n"


def test_round_23_aggregate_refuses_to_replace_a_results_table_edited_since_it_wrote_it(tmp_path):
    """Hostile round 23: `aggregate` (and `reproduce`'s last step) replaced a results.csv edited by hand (a column of
    notes) in silence, where estimate, select, evaluate and compare refuse. Round 25: a folder from before
    results_sha256 (every committed study's) was remade as before, edit and all: it is remade only where the records
    make every row it holds (a table aggregated while points were missing)."""
    records = [{"point": "a", "status": "ok", "seconds": 1.5, "commit": "def", "gain": {"test": 0.25}}]
    aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    aggregate("demo", "smoke", tmp_path, records, "reproduce demo")  # unedited: replaced
    table = tmp_path / "results.csv"
    edited = table.read_text().replace("gain.test\n", "gain.test,notes\n").replace("0.25\n", "0.25,rerun on GPU\n")
    table.write_text(edited)
    with pytest.raises(CourseError, match="was changed after `aggregate` wrote it"):
        aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    assert table.read_text() == edited
    provenance = json.loads((tmp_path / "provenance.json").read_text())
    del provenance["results_sha256"]  # an older folder: no sha256 to compare with, so its rows are compared
    (tmp_path / "provenance.json").write_text(json.dumps(provenance))
    with pytest.raises(CourseError, match="holds rows .or columns. the point records do not make now"):
        aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    assert table.read_text() == edited
    table.write_text(edited.replace("0.25,rerun", "0.5,rerun").replace(",notes", "").replace(",rerun on GPU", ""))
    with pytest.raises(CourseError, match="holds rows"):  # a number edited: the same refusal
        aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    later = [*records, {"point": "b", "status": "ok", "seconds": 2.0, "commit": "def", "gain": {"test": 0.5}}]
    table.write_text(results_table(records).to_csv(index=False))  # aggregated while point b was missing
    aggregate("demo", "smoke", tmp_path, later, "reproduce demo")  # every row kept: remade with b's row
    assert table.read_text() == results_table(later).to_csv(index=False)
    assert json.loads((tmp_path / "provenance.json").read_text())["this_run"] == {}


def test_aggregate_replaces_the_table_and_its_provenance_together_or_neither(tmp_path, monkeypatch):
    records = [{"point": "a", "status": "ok", "seconds": 1.5, "commit": "def", "gain": {"test": 0.25}}]
    old = {"results.csv": "point,status,seconds,commit,gain.test\n",  # from before results_sha256: no rows yet
           "provenance.json": '{"study": "demo"}\n'}
    for name, text in old.items():
        (tmp_path / name).write_text(text)
    real_chmod, calls = os.chmod, []

    def disk_full_at_the_second_file(path, mode):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_chmod(path, mode)

    monkeypatch.setattr(os, "chmod", disk_full_at_the_second_file)
    with pytest.raises(OSError, match="No space"):
        aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    assert {name: (tmp_path / name).read_text() for name in old} == old
    assert sorted(path.name for path in tmp_path.iterdir()) == ["provenance.json", "results.csv"]  # nothing staged


def test_aggregate_replaces_neither_file_when_a_folder_stands_where_the_second_goes(tmp_path):
    """Hostile round 22: with provenance.json a folder, results.csv was replaced before the second rename failed."""
    records = [{"point": "a", "status": "ok", "seconds": 1.5, "commit": "def", "gain": {"test": 0.25}}]
    (tmp_path / "results.csv").write_text("old\n")
    (tmp_path / "provenance.json").mkdir()
    with pytest.raises(IsADirectoryError, match="nothing was replaced"):
        aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    assert (tmp_path / "results.csv").read_text() == "old\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["provenance.json", "results.csv"]


def test_grid_points_reads_the_grid_a_job_array_was_written_with(tmp_path, monkeypatch):
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"SEED": [0, 1]}}})
    points = expand("demo", "smoke")
    grid = tmp_path / "grid.json"
    with pytest.raises(CourseError) as missing:
        grid_points(tmp_path, "demo", "smoke")
    assert str(missing.value) == (f"out={tmp_path} holds no grid.json; write the jobs with `reproduce demo "
                                  "--emit-slurm`")
    grid.write_text("{")
    with pytest.raises(CourseError) as damaged:
        grid_points(tmp_path, "demo", "smoke")
    assert str(damaged.value) == f"{grid} (the grid of this folder) is damaged (JSONDecodeError); {DAMAGED_GRID_FIX}"
    for wrong in ([points], {"study": "other", "points": points}, {"study": "demo", "points": 3}):
        grid.write_text(json.dumps(wrong))
        with pytest.raises(CourseError) as refused:
            grid_points(tmp_path, "demo", "smoke")
        assert str(refused.value) == f"{grid} is not a grid of study 'demo'; give that study's folder"
    grid.write_text(json.dumps({"study": "demo", "points": points}))
    assert grid_points(tmp_path, "demo", "smoke") == points
    grid.write_text(json.dumps({"study": "demo", "points": [dict(reversed(point.items())) for point in points]}))
    assert grid_points(tmp_path, "demo", "smoke") == points  # JSON's keys in another order: the same points
    for edited in ([{}], [1, 2], [{**points[0], "SEED": 7}]):  # a job would train a point no table can take
        grid.write_text(json.dumps({"study": "demo", "points": edited}))
        with pytest.raises(CourseError, match=f"^out={re.escape(str(tmp_path))} holds points that are not in demo's "
                                              "'smoke' grid"):
            grid_points(tmp_path, "demo", "smoke")


@pytest.mark.parametrize(("argv", "message"), [
    (["aggregate", "hard-wins", "--profile", "smoke", "--out", "{tmp}"], "holds no grid.json"),
    (["aggregate", "capacity-boundary", "--profile", "smoke", "--out", "{tmp}/grid"], "holds a grid of study 'hard-wins'"),
    (["reproduce", "hard-wins", "--profile", "smoke", "--out", "{tmp}/o", "--emit-slurm", "--slurm-gpus", "-1"],
     "gpus=-1 must be >= 0"),
    (["reproduce", "hard-wins", "--profile", "smoke", "--out", "{tmp}/o", "--emit-slurm", "--slurm-time", "4h"],
     "time_limit='4h' must look like HH:MM:SS"),
    (["reproduce", "nope", "--profile", "smoke", "--out", "{tmp}/o", "--emit-slurm"], "study='nope' is unknown"),
    (["reproduce", "hard-wins", "--profile", "smoke", "--out", "{tmp}/o", "--slurm-gpus", "1"], "need --emit-slurm"),
])
def test_bad_slurm_and_aggregate_input_exits_two_with_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "grid").mkdir()
    (tmp_path / "grid" / "grid.json").write_text(json.dumps({"study": "hard-wins", "points": []}))
    assert main([arg.format(tmp=tmp_path) for arg in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_reproduce_cli_exits_nonzero_on_failures_and_two_on_bad_input(tmp_path):
    result = subprocess.run([sys.executable, "-m", "course_lib", "reproduce", "hard-wins", "--profile", "nope",
                             "--out", str(tmp_path)], capture_output=True, text=True)
    assert result.returncode == 2 and "profile='nope' has no grid" in result.stderr


@pytest.mark.slow
def test_one_real_smoke_point_of_the_experiment_notebook(tmp_path):
    point = expand("hard-wins", "smoke")[0]
    record = run_point_notebook(point, tmp_path)
    assert record["status"] == "ok", record.get("error")
    assert record["n_selected"] == 2 and record["steps"] <= 2  # 10% of the 20-problem smoke pool
    assert set(record["gain"]) == {"test", "ood"}
    # pinned: the seeded smoke point (the same on every run here; notebook 05's live smoke point is this one):
    # its 2 hard problems are labelled p = 0 (all dead, predicted), yet every group of the 2 steps held a right answer
    assert (record["selected_mean_pass_rate"], record["predicted_dead_share"], record["learnable_share_of_steps"]) \
        == (0.0, 1.0, 1.0)
    assert record["gain"] == pytest.approx({"test": 0.0938, "ood": 0.0156}, abs=0.02)


def test_warm_up_wave_runs_one_point_per_difficulty_table_first():
    points = expand("capacity-boundary", "tiny")
    first, rest = warm_up_waves(points)
    assert sorted(p["MODEL"] for p in first) == ["tiny-l", "tiny-m", "tiny-s"]  # one per (model, task, pool)
    assert len(first) + len(rest) == len(points) and not any(p in first for p in rest)
    assert warm_up_waves(points[:1]) == [points[:1]]  # no empty wave
    own_pools = expand("strong-regime-pilot", "tiny")  # RESAMPLE_POOL: each seed labels a pool of its own
    first, rest = warm_up_waves(own_pools)
    assert sorted(p["SEED"] for p in first) == [100, 101, 102] and len(rest) == 6


def test_each_worker_gets_a_share_of_the_idle_cores(monkeypatch):
    import os

    import torch

    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "COURSE_AUTO_THREADS"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(torch, "set_num_threads", lambda n: None)  # leave this process's threads alone
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(8)))
    monkeypatch.setattr("os.getloadavg", lambda: (0.0, 0.0, 0.0))
    assert _share_cores(workers=2) == 4
    assert os.environ["OMP_NUM_THREADS"] == "4" and os.environ["MKL_NUM_THREADS"] == "4"
    monkeypatch.setattr("os.getloadavg", lambda: (4.3, 0.0, 0.0))  # four cores busy elsewhere: 4 idle, 2 each
    assert _share_cores(workers=2) == 2 and os.environ["OMP_NUM_THREADS"] == "2"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # a user's own setting wins
    assert _share_cores(workers=8) == 3 and os.environ["OMP_NUM_THREADS"] == "3"


def test_parse_where_reads_pairs_and_names_a_malformed_one():
    assert parse_where(["SEED=0", "TASK=arith"]) == {"SEED": "0", "TASK": "arith"}
    assert parse_where("MODEL:tiny-s,SEED:0".split(","), ":") == {"MODEL": "tiny-s", "SEED": "0"}
    with pytest.raises(CourseError, match="^where: 'SEED0' must look like KEY=VALUE, e.g. SEED=0$"):  # the option named
        parse_where(["SEED0"])


def test_parse_where_refuses_a_key_given_twice_and_takes_equal_values():
    assert parse_where(["SEED=0", "BUDGET=0"]) == {"SEED": "0", "BUDGET": "0"}
    with pytest.raises(CourseError, match=r"^where: SEED is given twice \(the second would replace the first\); give "
                                          r"each key once \(one slice per run\)$"):
        parse_where(["SEED=0", "TASK=arith", "SEED=1"])
    with pytest.raises(CourseError, match="^--set: SEED is given twice"):  # the same value twice too
        parse_overrides(["SEED=0", "SEED=0"])


def test_parse_where_splits_at_the_first_separator_only():
    assert parse_where(["OUT=a=b", "NOTE="]) == {"OUT": "a=b", "NOTE": ""}
    assert parse_where(["TASK:gsm8k:main"], ":") == {"TASK": "gsm8k:main"}
    assert parse_where([]) == {}


def test_a_damaged_point_record_is_set_aside_and_the_point_runs_again(tmp_path, monkeypatch):
    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0, 1]}}})
    run("demo", "smoke", tmp_path / "out", workers=1, progress=False, notebook=notebook)
    record = tmp_path / "out" / "points" / f"{point_name(expand('demo', 'smoke')[0])}.json"
    record.write_text(record.read_text()[:20])  # truncated, as by a full disk
    with pytest.warns(UserWarning, match="is damaged; set aside"):
        outcome = run("demo", "smoke", tmp_path / "out", workers=1, progress=False, notebook=notebook)
    assert outcome["points"] == 2 and not outcome["failed"] and json.loads(record.read_text())["status"] == "ok"
    assert record.with_name(record.name + ".damaged").exists()


def test_a_damaged_grid_file_is_a_clear_error(tmp_path):
    (tmp_path / "grid.json").write_text("{")
    with pytest.raises(CourseError, match="grid.json .the grid of this folder. is damaged"):
        run("hard-wins", "smoke", tmp_path, workers=1, progress=False)


def test_workers_are_capped_by_the_points_left_and_the_cores(monkeypatch):
    import warnings

    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(4)))
    with pytest.warns(UserWarning, match=r"^workers=40 capped at 1: 1 point\(s\) left to run on 4 core\(s\)$"):
        assert worker_count(40, points_left=1) == 1
    with pytest.warns(UserWarning, match=r"^workers=40 capped at 4: 100 point\(s\) left"):
        assert worker_count(40, points_left=100) == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not capped: nothing to say
        assert worker_count(3, points_left=100) == 3
        assert worker_count(2, points_left=0) == 1  # a finished sweep: nothing runs, nothing to say


def _alive(pid: int) -> bool:
    """A process that runs (a zombie, dead but not yet reaped by its new parent, counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _gone_within(pids, seconds: float) -> bool:
    import time

    deadline = time.time() + seconds
    while time.time() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.2)
    return not any(_alive(pid) for pid in pids)


PARENT_OF_A_WORKER = """
import multiprocessing, os, time
from course_lib.research.sweep import die_with_parent

def worker(parent):
    die_with_parent(parent)
    time.sleep(120)

if __name__ == "__main__":
    child = multiprocessing.get_context("fork").Process(target=worker, args=(os.getpid(),))
    child.start()
    print(child.pid, flush=True)
    time.sleep(120)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_worker_dies_with_its_parent_even_when_the_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(PARENT_OF_A_WORKER)
    env = {**os.environ, "PYTHONPATH": str(Path(course_lib.__file__).parent.parent)}
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env)
    worker = int(parent.stdout.readline())
    parent.kill()  # kill -9: no cleanup code of the parent runs
    parent.wait()
    assert _gone_within([worker], 10)


SLEEPY_SWEEP = """
import sys
from pathlib import Path

import nbformat

from course_lib.research import sweep

root = Path(sys.argv[1])
notebook = nbformat.v4.new_notebook()
params = nbformat.v4.new_code_cell('PROFILE = "smoke"\\nMODEL = "m"\\nSTRATEGY = "hard"\\nSEED = 0\\nRUN_DIR = ""')
params.metadata["tags"] = ["parameters"]
body = nbformat.v4.new_code_cell(  # the kernel writes its pid and its parent's (the worker), then works on
    "import os, time\\n"
    f"open(os.path.join({str(root)!r}, 'kernel-' + str(os.getpid())), 'w').write(str(os.getppid()))\\n"
    "time.sleep(300)")
notebook.cells = [params, body]
notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbformat.write(notebook, str(root / "sleepy.ipynb"))
sweep.STUDIES["sleepy"] = {"fixed": {"MODEL": "m"}, "grid": {"smoke": {"STRATEGY": ["hard", "easy"], "SEED": [0]}}}
sweep.run("sleepy", "smoke", root / "out", workers=2, progress=False, notebook=root / "sleepy.ipynb")
"""


@pytest.mark.slow  # a real kernel starts (seconds to a minute on a busy machine)
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_kill_9_of_a_sweep_ends_its_workers_and_their_kernels(tmp_path):
    import time

    script = tmp_path / "sweep.py"
    script.write_text(SLEEPY_SWEEP)
    env = {**os.environ, "PYTHONPATH": str(Path(course_lib.__file__).parent.parent)}
    sweep = subprocess.Popen([sys.executable, str(script), str(tmp_path)], env=env)
    deadline = time.time() + 240
    while time.time() < deadline and not list(tmp_path.glob("kernel-*")) and sweep.poll() is None:
        time.sleep(0.5)
    kernels = list(tmp_path.glob("kernel-*"))
    assert kernels, "no kernel started"
    workers = {int(path.read_text()) for path in kernels}
    workers |= {int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _alive(int(p.name)) and
                int((p / "stat").read_text().rsplit(")", 1)[1].split()[1]) == sweep.pid}
    sweep.kill()  # kill -9 of `python -m course_lib reproduce`
    sweep.wait()
    pids = workers | {int(path.name.split("-")[1]) for path in kernels}
    assert _gone_within(pids, 30), [pid for pid in pids if _alive(pid)]


def test_a_warning_on_the_command_line_is_one_line(tmp_path):
    points = expand("hard-wins", "smoke")
    (tmp_path / "points").mkdir()
    (tmp_path / "grid.json").write_text(json.dumps({"study": "hard-wins", "points": points}))
    damaged = tmp_path / "points" / f"{point_name(points[0])}.json"
    damaged.write_text('{"point": ')  # a record cut short: set aside with a warning
    env = {**os.environ, "PYTHONPATH": str(Path(course_lib.__file__).parent.parent)}
    done = subprocess.run([sys.executable, "-m", "course_lib", "aggregate", "hard-wins", "--profile", "smoke",
                           "--out", str(tmp_path)], capture_output=True, text=True, env=env)
    lines = [line for line in done.stderr.splitlines() if "damaged" in line]
    assert lines == [f"warning: {damaged} is damaged; left as it is, and not aggregated; `reproduce` on this "
                     "folder sets it aside and runs the point again"]
    assert "warnings.warn(" not in done.stderr  # not the file, line and source of the call
def test_emit_slurm_refuses_a_percent_in_paths(tmp_path):
    with pytest.raises(CourseError, match=r"has a '%', which SLURM reads as a pattern"):
        emit_slurm("hard-wins", "smoke", tmp_path / "run-%j")
    with pytest.raises(CourseError, match=r"cache_dir=.* has a '%'"):
        emit_slurm("hard-wins", "smoke", tmp_path / "out", cache_dir=tmp_path / "c%A")


def test_a_where_slice_is_emitted_as_its_own_scripts_and_sweep_point_indexes_it(tmp_path, monkeypatch, capsys):
    import course_lib.research.sweep as sweep

    emit_slurm("hard-wins", "smoke", tmp_path, where={"STRATEGY": "random"})
    grid = json.loads((tmp_path / "grid.json").read_text())
    assert grid["points"] == expand("hard-wins", "smoke", {"STRATEGY": "random"}) and len(grid["points"]) == 1
    assert "#SBATCH --array=0-0\n" in (tmp_path / "array.sh").read_text()
    ran, logs = [], []
    monkeypatch.setattr(sweep, "run_point_notebook", lambda point, out, log: ran.append(point) or logs.append(log) or {
        "point": point_name(point), "status": "ok"})
    assert main(["sweep-point", "hard-wins", "--profile", "smoke", "--index", "0", "--out", str(tmp_path)]) == 0
    assert ran == grid["points"]  # index 0 of the slice, the random point (index 1 of the whole grid)
    assert logs == [tmp_path / "logs" / f"{point_name(ran[0])}.kernel.log"]  # the kernel's warnings, not the terminal


def test_a_failed_sweep_point_says_its_error_and_where_the_kernels_log_is(tmp_path, monkeypatch, capsys):
    import course_lib.research.sweep as sweep

    emit_slurm("hard-wins", "smoke", tmp_path)
    point = expand("hard-wins", "smoke")[0]
    monkeypatch.setattr(sweep, "run_point_notebook", lambda point, out, log: {"point": point_name(point), "status": "failed",
                                                                     "error": "ValueError: no"})
    assert main(["sweep-point", "hard-wins", "--profile", "smoke", "--index", "0", "--out", str(tmp_path)]) == 1
    log = tmp_path / "logs" / f"{point_name(point)}.kernel.log"
    assert capsys.readouterr().out.strip() == f"{point_name(point)}: failed (ValueError: no; the kernel's own log: {log})"


def test_delete_merged_removes_the_merged_model_once_the_point_is_done(tmp_path, monkeypatch):
    import course_lib.research.sweep as sweep

    emit_slurm("hard-wins", "smoke", tmp_path, delete_merged=True)
    assert "--delete-merged" in (tmp_path / "array.sh").read_text()
    point = expand("hard-wins", "smoke")[0]
    merged = tmp_path / "runs" / point_name(point) / "merged"
    merged.mkdir(parents=True)
    (merged / "model.safetensors").write_text("GBs")
    monkeypatch.setattr(sweep, "run_point_notebook", lambda point, out, log: {"point": point_name(point), "status": "ok"})
    assert main(["sweep-point", "hard-wins", "--profile", "smoke", "--index", "0", "--out", str(tmp_path),
                 "--delete-merged"]) == 0
    assert not merged.exists() and merged.parent.exists()


def test_a_notebook_point_with_a_number_nothing_trains_with_is_refused_before_any_work():
    from course_lib.research.experiment import Point, resolve

    for values, said in (({"epochs": 0.0}, "EPOCHS=0.0 must be a finite number above 0"),
                         ({"epochs": math.nan}, "EPOCHS=nan must be"), ({"group_size": 1}, "GROUP_SIZE=1: a group")):
        with pytest.raises(CourseError, match=f"^{re.escape(said)}"):
            resolve(Point(profile="smoke", **values))
    assert resolve(Point(profile="smoke", epochs=0.5, steps=0, group_size=2)).epochs == 0.5


def test_set_names_a_users_task_file_and_model_folder_by_absolute_path(tmp_path, monkeypatch):
    """The kernel runs each point from another folder: a jsonl: task and a model folder given relative are made
    absolute; a name that is no path (a hub id, a tiny model) stays as it is."""
    from course_lib.research.sweep import parse_overrides

    monkeypatch.chdir(tmp_path)
    (tmp_path / "models" / "m").mkdir(parents=True)
    (tmp_path / "tiny-s").mkdir()
    overrides = parse_overrides(["TASK=jsonl:mine.jsonl", "OOD_TASK=jsonl:ood.jsonl", "MODEL=models/m"])
    assert overrides == {"TASK": f"jsonl:{tmp_path / 'mine.jsonl'}", "OOD_TASK": f"jsonl:{tmp_path / 'ood.jsonl'}",
                         "MODEL": str(tmp_path / "models" / "m")}
    assert parse_overrides(["MODEL=tiny-s", "TASK=arith"]) == {"MODEL": "tiny-s", "TASK": "arith"}


def test_set_task_to_a_pipe_names_the_pipe_not_the_parameters_type(tmp_path):
    """`reproduce --set TASK=jsonl:<(cat f)` said `TASK takes str` (the value is a str): the task's own refusal of a
    pipe, which names the fix, now reaches the user, as `--task jsonl:<(cat f)` does."""
    from course_lib.research.sweep import parse_overrides

    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(CourseError, match=r"is not a regular file \(a device, pipe or socket\); a jsonl file is read"):
        parse_overrides([f"TASK=jsonl:{tmp_path / 'fifo'}"])


def test_set_and_backend_apply_to_every_point_with_their_types(tmp_path):
    from course_lib.research.sweep import parse_overrides

    overrides = parse_overrides(["POOL_SIZE=24", "BUDGET=0.2", "ESTIMATE_POOL=false", "MODEL=/m"], backend="hf")
    assert overrides == {"POOL_SIZE": 24, "BUDGET": 0.2, "ESTIMATE_POOL": False, "MODEL": "/m", "BACKEND": "hf"}
    budgets = [parse_overrides([f"BUDGET={text}"])["BUDGET"] for text in ("5", "1", "1.0", "0.5")]
    assert budgets == [5, 1, 1.0, 0.5] and [type(b) for b in budgets] == [int, int, float, float]  # as select reads
    points = expand("capacity-boundary", "paper", overrides={"MODEL": "/m"})
    assert len(points) == 12 and {p["MODEL"] for p in points} == {"/m"}  # 36 points of three sizes: 12 of one
    with pytest.raises(CourseError, match="--set POOL=.*: POOL is not an experiment parameter"):
        parse_overrides(["POOL=3"])
    with pytest.raises(CourseError, match="--set STEPS='many': STEPS takes a whole number"):
        parse_overrides(["STEPS=many"])
    with pytest.raises(CourseError, match=r"^--set BUDGET='lots': BUDGET takes a number$"):
        parse_overrides(["BUDGET=lots"])
    with pytest.raises(CourseError, match=r"^--set ESTIMATE_POOL='maybe': ESTIMATE_POOL takes True or False$"):
        parse_overrides(["ESTIMATE_POOL=maybe"])
    with pytest.raises(CourseError, match="--backend and --set BACKEND=... disagree"):
        parse_overrides(["BACKEND=hf"], backend="vllm")
    assert parse_overrides(["BACKEND=vllm"]) == {"BACKEND": "vllm"}  # no --backend given: --set's own choice stands
    for reserved in ("RUN_DIR", "PROFILE"):  # the sweep sets these per point: not a parameter to override
        with pytest.raises(CourseError, match=f"^--set {reserved}=...: {reserved} is not an experiment parameter"):
            parse_overrides([f"{reserved}=x"])


def test_paper_jobs_ask_for_time_and_memory_from_the_cost_model(shared_data, tmp_path, monkeypatch):
    from course_lib.research.cost import load_pools, point_hours, slurm_limits

    monkeypatch.setenv("COURSE_DATA_DIR", str(shared_data))
    emit_slurm("hard-wins", "paper", tmp_path, overrides={"BACKEND": "vllm"})
    warm, array = ((tmp_path / name).read_text() for name in ("warm.sh", "array.sh"))
    points = expand("hard-wins", "paper")
    pools = load_pools(points)
    slowest = max((point_hours(p, pools, "vllm") for p in points), key=lambda row: row["train_h"] + row["eval_h"])
    assert slowest["steps"] == 1000  # every hard-wins point: the paper's 1000 steps
    limits = slurm_limits(points, "paper", "vllm", with_tables=False)
    assert f"#SBATCH --time={limits['time']}\n" in array and "#SBATCH --mem=48G\n" in array  # Qwen3-4B
    assert hours(limits["time"]) == pytest.approx(
        (slowest["train_h"] + slowest["eval_h"]) * 2 + 0.5, abs=1 / 60)  # twice the estimate, plus start-up
    hf = slurm_limits(points, "paper", "hf", with_tables=False)
    assert hours(hf["time"]) > 4 > hours(limits["time"])  # the old README's 04:00:00 fits vLLM only
    assert "#SBATCH --time=" in warm and warm != array
    more = point_hours({**points[0], "EVAL_K": 64}, pools, "vllm")  # the point's own K, not the profile's 4
    assert more["eval_h"] > 10 * point_hours(points[0], pools, "vllm")["eval_h"]  # 16x the test samples, OOD as was


def hours(slurm_time: str) -> float:
    """'1-02:30:00' -> 26.5"""
    days, _, clock = slurm_time.rpartition("-")
    h, m, sec = map(int, clock.split(":"))
    return int(days or 0) * 24 + h + m / 60 + sec / 3600


def test_without_data_the_paper_jobs_ask_for_generous_limits_and_say_so(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path / "no-data"))
    with pytest.warns(UserWarning, match="no cost estimate .*; the jobs ask for 1-00:00:00 and 64G: give --slurm-time"):
        emit_slurm("hard-wins", "paper", tmp_path / "out")
    array = (tmp_path / "out" / "array.sh").read_text()
    assert "#SBATCH --time=1-00:00:00\n" in array and "#SBATCH --mem=64G\n" in array


def fake_clock(monkeypatch, *times):
    """The sweep module's clock reads these times in turn (start, then end)."""
    import types

    from course_lib.research import sweep

    monkeypatch.setattr(sweep, "time", types.SimpleNamespace(time=iter(times).__next__))


def test_run_point_gives_the_notebook_its_run_folder_and_saves_its_record(tmp_path, monkeypatch):
    from course_lib.research import sweep

    calls = []

    def fake_execute(notebook, out, parameters, name=None, log=None):
        calls.append({"notebook": notebook, "out": out, "parameters": parameters, "name": name, "log": log})
        return {"records": {"gain": {"test": 0.25}, "steps": 3}, "seconds": 9.0}

    monkeypatch.setattr("course_lib.research.sweep.execute", fake_execute)
    monkeypatch.setattr(sweep, "git_commit", lambda: "abc1234")
    fake_clock(monkeypatch, 100.0, 112.34)
    point = {"PROFILE": "smoke", "STRATEGY": "hard", "SEED": 2}
    name = point_name(point)
    earlier_failure = tmp_path / "points" / f"{name}.failed.json"
    earlier_failure.parent.mkdir()
    earlier_failure.write_text("{}")
    record = run_point_notebook(point, tmp_path, tmp_path / "exp.ipynb", log=tmp_path / "kernel.log")
    assert calls == [{"notebook": tmp_path / "exp.ipynb", "out": tmp_path / "points",
                      "parameters": {**point, "RUN_DIR": str((tmp_path / "runs" / name).resolve())},
                      "name": f"{name}.ipynb", "log": tmp_path / "kernel.log"}]
    body = {"point": name, "profile": "smoke", "strategy": "hard", "seed": 2, "status": "ok",
            "gain": {"test": 0.25}, "steps": 3, "seconds": 12.3, "commit": "abc1234"}
    # sealed: the sha256 of its other keys, as they read back from the file (sorted), so an edit by hand is seen
    seal = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    assert record == {**body, "record_sha256": seal}
    assert json.loads((tmp_path / "points" / f"{name}.json").read_text()) == record
    assert not earlier_failure.exists()  # the retried point succeeded: its old failure is gone
    assert done_record(tmp_path, point) == record  # the seal holds as written


def test_round_30_a_record_edited_consistently_is_not_aggregated(tmp_path, demo_grid, capsys, monkeypatch):
    """A point record whose numbers were edited by hand so that they still agree (gain = after - before, its
    interval moved with it) passes every range and agreement check; its seal does not (hostile round 30)."""
    from course_lib.research import sweep

    ten, nine, _ = demo_grid
    (tmp_path / "grid.json").write_text(json.dumps({"study": "demo", "points": demo_grid}))
    measured = {"accuracy_before": {"test": 0.25}, "accuracy_after": {"test": 0.5}, "gain": {"test": 0.25},
                "gain_ci": {"test": [0.1, 0.4]}}
    monkeypatch.setattr(sweep, "execute", lambda *args, **kwargs: {"records": measured})
    for point in (ten, nine):
        run_point_notebook(point, tmp_path, tmp_path / "exp.ipynb")
    assert done_record(tmp_path, ten) is not None  # as written, trusted
    path = tmp_path / "points" / f"{point_name(ten)}.json"
    edited = json.loads(path.read_text())
    edited.update(accuracy_after={"test": 0.75}, gain={"test": 0.5}, gain_ci={"test": [0.35, 0.65]})
    path.write_text(json.dumps(edited, indent=1) + "\n")
    with pytest.warns(UserWarning) as warned:
        assert main(["aggregate", "demo", "--profile", "smoke", "--out", str(tmp_path)]) == 1
    assert [str(w.message) for w in warned] == [
        f"{path} was edited after its point ran (its record_sha256 no longer matches its contents); left as it "
        "is, and not aggregated; `reproduce` on this folder sets it aside and runs the point again"]
    assert "1 points saved, 0 failed, 2 missing" in capsys.readouterr().out
    assert pd.read_csv(tmp_path / "results.csv")["point"].tolist() == [point_name(nine)]
    assert "record_sha256" not in pd.read_csv(tmp_path / "results.csv").columns  # the table holds no seal


@pytest.mark.parametrize(("error", "message"), [
    (RuntimeError("papermill's long message\nits last line: the cause"), "RuntimeError: its last line: the cause"),
    (KeyError(), "KeyError: "),  # an error without a message
])
def test_run_point_records_a_failure_with_its_last_line_and_goes_on(tmp_path, monkeypatch, error, message):

    def failing_execute(notebook, out, parameters, name=None, log=None):
        raise error

    monkeypatch.setattr("course_lib.research.sweep.execute", failing_execute)
    fake_clock(monkeypatch, 5.0, 5.5)
    point = {"PROFILE": "smoke", "STRATEGY": "random", "SEED": 0}
    record = run_point_notebook(point, tmp_path)
    assert (record["status"], record["error"], record["seconds"]) == ("failed", message, 0.5)
    assert type(error).__name__ in record["traceback"] and "failing_execute" in record["traceback"]
    saved = tmp_path / "points" / f"{point_name(point)}.failed.json"
    assert json.loads(saved.read_text()) == record and not saved.with_name(f"{point_name(point)}.json").exists()


def test_a_retried_points_earlier_failure_is_kept_until_the_retry_has_a_record_of_its_own(tmp_path, monkeypatch):
    """Hostile round 21: the earlier failure's record (its error and traceback) was deleted as the retry started, so a
    retry killed by a time limit left no record of either try."""

    point = {"PROFILE": "smoke", "STRATEGY": "random", "SEED": 0}
    name = point_name(point)
    earlier = tmp_path / "points" / f"{name}.failed.json"
    notebook, log = tmp_path / "points" / f"{name}.ipynb", tmp_path / "logs" / f"{name}.log"
    for path, text in ((earlier, '{"error": "the first try"}'), (notebook, "first try's cells"),
                       (log, "first try's kernel")):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    seen_during_the_retry = []

    def killed_while_running(notebook, out, parameters, name=None, log=None):
        seen_during_the_retry.append(earlier.read_text())
        (out / name).write_text("second try's cells, cut short")  # papermill writes the executed copy as it goes
        raise KeyboardInterrupt  # what a kill looks like from inside: nothing after it runs

    monkeypatch.setattr("course_lib.research.sweep.execute", killed_while_running)
    with pytest.raises(KeyboardInterrupt):
        run_point_notebook(point, tmp_path, log=log)
    assert seen_during_the_retry == ['{"error": "the first try"}'] and earlier.read_text() == seen_during_the_retry[0]
    assert (tmp_path / "points" / f"{name}.failed.ipynb").read_text() == "first try's cells"  # round 22: kept too
    assert (tmp_path / "logs" / f"{name}.failed.log").read_text() == "first try's kernel"

    def failing_again(notebook, out, parameters, name=None, log=None):
        seen_during_the_retry.append((out / f"{name.removesuffix('.ipynb')}.failed.ipynb").read_text())
        raise RuntimeError("the second try")

    monkeypatch.setattr("course_lib.research.sweep.execute", failing_again)
    run_point_notebook(point, tmp_path, log=log)
    assert json.loads(earlier.read_text())["error"] == "RuntimeError: the second try"  # replaced by the retry's own
    assert seen_during_the_retry[-1] == "first try's cells"  # not the killed retry's partial copy
    assert not (tmp_path / "points" / f"{name}.failed.ipynb").exists()  # the new record describes NAME.ipynb


def test_a_sweep_runs_only_its_slice_with_the_overrides_and_records_what_it_ran(tmp_path, monkeypatch):
    """`where` keeps a slice of the grid, `overrides` (--set) reach every point's notebook, and provenance.json
    says how this run went: the command, its workers and the points it ran (none when run again)."""
    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"STRATEGY": ["hard", "easy"], "SEED": [0]}}})
    out = tmp_path / "sweeps" / "demo"
    run("demo", "smoke", out, workers=1, command="reproduce demo", progress=False, notebook=notebook,
        where={"STRATEGY": "hard"}, overrides={"BUDGET": 0.2})
    results = pd.read_csv(out / "results.csv")
    assert (results.strategy.tolist(), results.budget.tolist(), results.status.tolist()) == (["hard"], [0.2], ["ok"])
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["command"] == "reproduce demo"
    assert {k: provenance["this_run"][k] for k in ("workers", "points_run")} == {"workers": 1, "points_run": 1}
    assert 0 <= provenance["this_run"]["wall_seconds"] < 600
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook, where={"STRATEGY": "hard"},
        overrides={"BUDGET": 0.2})
    again = json.loads((out / "provenance.json").read_text())
    assert (again["command"], again["this_run"]["points_run"]) == ("", 0)
    assert again["this_run"]["wall_seconds"] < 1  # nothing ran, so (almost) no time passed
    assert sorted(path.name for path in out.iterdir()) == ["grid.json", "logs", "points", "provenance.json",
                                                           "results.csv"]
    with pytest.raises(CourseError, match=r"^grid key\(s\) \['LAYERS'\] are not parameters of fake.ipynb"):
        run("demo", "smoke", tmp_path / "other", workers=1, progress=False, notebook=notebook, overrides={"LAYERS": 2})
    with pytest.raises(CourseError, match="^workers=0 must be >= 1$"):
        run("demo", "smoke", out, workers=0, progress=False, notebook=notebook)


def test_a_point_file_name_is_readable_and_names_every_committed_record():
    """Saved records are found again by this name (a resumed sweep, `aggregate`, the committed studies): the values
    in key order without the profile, '/' made '-', then 6 hex digits of the whole point's sorted JSON."""
    point = {"PROFILE": "smoke", "STRATEGY": "hard", "SEED": 0, "MODEL": "Qwen/Qwen3-0.6B"}  # keys not in order
    name, other_profile = point_name(point), point_name({**point, "PROFILE": "tiny"})
    assert name[:-6] == other_profile[:-6] == "Qwen-Qwen3-0.6B_0_hard_" and name != other_profile
    assert point_name(dict(sorted(point.items()))) == name and len(name.rsplit("_", 1)[1]) == 6
    folders = sorted(grid.parent for grid in (Path(course_lib.__file__).parent.parent / "data" / "results").glob(
        "*/grid.json"))
    assert len(folders) >= 10
    for folder in folders:
        names = {point_name(p) for p in json.loads((folder / "grid.json").read_text())["points"]}
        records = {path.name.removesuffix(".json") for path in (folder / "points").glob("*.json")
                   if not path.name.endswith(".failed.json")}
        assert records and records <= names, folder


def test_the_grid_file_is_written_one_key_per_line_with_overrides_only_when_given(tmp_path):
    from course_lib.research.sweep import _check_out_dir

    versions = json.dumps({"versions": library_versions()}, indent=1)[3:-2]  # grid.json's last key, as it is nested
    _check_out_dir(tmp_path / "a", "demo", [{"SEED": 0}])
    assert (tmp_path / "a" / "grid.json").read_text() == \
        '{\n "study": "demo",\n "points": [\n  {\n   "SEED": 0\n  }\n ],\n ' + versions + '\n}\n'
    _check_out_dir(tmp_path / "b", "demo", [], overrides={"BACKEND": "hf"})
    assert (tmp_path / "b" / "grid.json").read_text() == \
        '{\n "study": "demo",\n "points": [],\n "overrides": {\n  "BACKEND": "hf"\n },\n ' + versions + '\n}\n'


def test_a_point_record_that_cannot_be_read_is_one_line_naming_it(tmp_path):
    point = {"SEED": 0}
    record = tmp_path / "points" / f"{point_name(point)}.json"
    record.parent.mkdir()
    record.symlink_to(record.name)  # a link to itself: no read ever reaches a file
    with pytest.raises(CourseError, match=f"^{re.escape(str(record))} cannot be read \\(Too many levels of symbolic "
                                          r"links\); make it readable or delete it$"):
        done_record(tmp_path, point)


def test_each_jsonl_file_the_points_read_is_fingerprinted_and_a_missing_one_is_none(tmp_path):
    from course_lib.research.sweep import file_fingerprints

    data, gone = tmp_path / "train.jsonl", tmp_path / "gone.jsonl"
    data.write_text('{"question": "1+1=?", "answer": "2"}\n')
    points = [{"TASK": f"jsonl:{data}", "SEED": 0}, {"TASK": f"jsonl:{data}", "TEST_TASK": f"jsonl:{gone}"}]
    assert file_fingerprints(points) == {str(data): file_sha256(data), str(gone): None}


def test_a_data_file_is_hashed_once_per_process_and_again_after_an_edit_that_keeps_its_size_and_mtime(
        tmp_path, monkeypatch):
    import course_lib.research.sweep as sweep

    data = tmp_path / "train.jsonl"
    data.write_text('{"question": "1+1=?", "answer": "2"}\n')
    hashed = []
    monkeypatch.setattr(sweep, "file_sha256", lambda path: hashed.append(path) or file_sha256(path))
    points = [{"TASK": f"jsonl:{data}"}]
    first = sweep.file_fingerprints(points)
    assert sweep.file_fingerprints(points) == first and len(hashed) == 1  # a resume checks each record: one read
    then = data.stat()
    time.sleep(0.05)  # past the kernel's timestamp tick
    data.write_text('{"question": "1+1=?", "answer": "3"}\n')  # same size
    os.utime(data, ns=(then.st_atime_ns, then.st_mtime_ns))  # and the old mtime: its ctime still moved
    assert sweep.file_fingerprints(points) == {str(data): file_sha256(data)} != first and len(hashed) == 2


@pytest.mark.parametrize("text", ['{"point": ', "[]", '["point", "status"]', '{"status": "ok"}', '{"point": "p"}', "\"x\""])
def test_a_point_record_without_point_and_status_is_set_aside(tmp_path, text):
    point = {"SEED": 0}
    record = tmp_path / "points" / f"{point_name(point)}.json"
    record.parent.mkdir()
    record.write_text(text)
    with pytest.warns(UserWarning) as warned:
        assert done_record(tmp_path, point) is None
    assert [str(w.message) for w in warned] == [
        f"{record} is damaged; set aside as {record.name}.damaged; "
        "`reproduce` on this folder runs the point again"]
    assert not record.exists() and record.with_name(record.name + ".damaged").read_text() == text
    sound = {"point": point_name(point), "seed": 0, "status": "ok", "seconds": 1.5}
    record.write_text(json.dumps(sound))
    assert done_record(tmp_path, point) == sound


@pytest.fixture
def demo_grid(monkeypatch):
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"SEED": [10, 9, 2]}}})
    return expand("demo", "smoke")


def test_collect_aggregates_with_the_study_profile_and_command_it_was_given(tmp_path, demo_grid):
    (tmp_path / "grid.json").write_text(json.dumps({"study": "demo", "points": demo_grid}))
    saved(tmp_path, demo_grid[0])
    outcome = collect("demo", "smoke", tmp_path)
    assert outcome["points"] == 1 and outcome["missing"] == demo_grid[1:]
    provenance = json.loads((tmp_path / "provenance.json").read_text())
    assert (provenance["study"], provenance["profile"], provenance["command"], provenance["this_run"]) == \
        ("demo", "smoke", "", {})


def test_a_damaged_file_other_than_the_grid_is_named_with_its_own_fix(tmp_path):
    """A run's summary.json cut short is the run's to remake ("delete it and run again"); only a damaged grid.json
    points to the grid's own fix (it holds the plan)."""
    from course_lib.research.sweep import _read_json

    (tmp_path / "summary.json").write_text("{")
    with pytest.raises(CourseError) as damaged:
        _read_json(tmp_path / "summary.json", "the run's summary")
    assert str(damaged.value) == (f"{tmp_path / 'summary.json'} (the run's summary) is damaged (JSONDecodeError); "
                                  "delete it and run again")


@pytest.mark.parametrize(("grid", "message"), [
    ("{", "{grid} (the grid of this folder) is damaged (JSONDecodeError); " + DAMAGED_GRID_FIX),
    ("[]", "{grid} is not a grid `reproduce` wrote; " + DAMAGED_GRID_FIX),
    ('{"study": "demo"}', "{grid} is not a grid `reproduce` wrote; " + DAMAGED_GRID_FIX),
    ('{"study": "demo", "points": [{"SEED": 3}]}',
     "out={out} holds points that are not in demo's 'smoke' grid; give its profile or another folder"),
    ('{"study": "demo", "points": [{"PROFILE": "smoke", "SEED": 10.0}]}',  # round 16: 1.0 == 1 let an edited grid by
     "out={out} holds points that are not in demo's 'smoke' grid; give its profile or another folder"),
])
def test_collect_refuses_a_grid_reproduce_did_not_write_in_one_whole_message(tmp_path, demo_grid, grid, message):
    (tmp_path / "grid.json").write_text(grid)
    with pytest.raises(CourseError) as refused:
        collect("demo", "smoke", tmp_path)
    assert str(refused.value) == message.format(grid=tmp_path / "grid.json", out=tmp_path)


def test_a_slice_or_profile_that_is_not_there_names_what_is(demo_grid):
    with pytest.raises(CourseError) as profile:
        expand("demo", "paper")
    assert str(profile.value) == "profile='paper' has no grid for demo; use one of smoke"
    with pytest.raises(CourseError) as seed:
        expand("demo", "smoke", where={"SEED": "11"})
    assert str(seed.value) == "where={'SEED': '11'} leaves no point of demo (smoke); SEED takes 2, 9, 10"  # as numbers


def test_each_pool_size_is_its_own_difficulty_table_in_the_first_wave():
    small, large, again = ({"MODEL": "m", "TASK": "t", "POOL_SIZE": size, "SEED": seed}
                           for size, seed in ((100, 0), (200, 0), (100, 1)))
    assert warm_up_waves([small, large, again]) == [[small, large], [again]]


@pytest.mark.parametrize(("record", "why"), [
    ({"point": "{other}", "seed": 9, "status": "ok", "seconds": 1.0}, "holds the record of point '{other}', not of {name}"),
    ({"point": "{name}", "seed": 9, "status": "ok", "seconds": 1.0}, "records seed=9, but its point has SEED=10"),
    ({"point": "{name}", "seed": True, "status": "ok", "seconds": 1.0}, "records seed=True, but its point has SEED=10"),
    ({"point": "{name}", "status": "ok"}, "has no time in seconds (seconds=None)"),
    ({"point": "{name}", "status": "ok", "seconds": "1.0"}, "has no time in seconds (seconds='1.0')"),
    ({"point": "{name}", "status": "done", "seconds": 1.0}, "has status 'done' in a file for status 'ok'"),
    ({"point": "{name}", "status": "failed", "seconds": 1.0}, "has status 'failed' in a file for status 'ok'"),
    ({"point": "{name}", "seed": None, "status": "ok", "seconds": 1.0}, "has no seed (its point has SEED=10)"),
])
def test_a_record_that_is_not_its_points_is_left_out_by_aggregate_and_set_aside_by_reproduce(tmp_path, demo_grid,
                                                                                            capsys, record, why):
    """A record copied over another point's file, edited, or without its status or time is not trusted: one warning
    line naming the file, the point counts as missing, and results.csv holds each point once. `aggregate` only
    reads (hostile round 20: it had renamed every record of a study); a resumed sweep sets it aside and runs it."""
    ten, nine, _ = demo_grid
    (tmp_path / "grid.json").write_text(json.dumps({"study": "demo", "points": demo_grid}))
    saved(tmp_path, nine)
    path = tmp_path / "points" / f"{point_name(ten)}.json"
    fill = {"name": point_name(ten), "other": point_name(nine)}
    settings = {key.lower(): value for key, value in ten.items()}  # a real record holds its point's settings
    written = {**settings, **{k: v.format(**fill) if isinstance(v, str) else v for k, v in record.items()}}
    path.write_text(json.dumps({k: v for k, v in written.items() if v is not None}))  # None: a key left out
    before = path.read_bytes()
    with pytest.warns(UserWarning) as warned:  # on the command line: one line `warning: ...` (see below)
        assert main(["aggregate", "demo", "--profile", "smoke", "--out", str(tmp_path)]) == 1
    assert [str(w.message) for w in warned] == [
        f"{path} {why.format(**fill)}; left as it is, and not aggregated; `reproduce` on this folder sets it aside "
        "and runs the point again"]
    assert "1 points saved, 0 failed, 2 missing" in capsys.readouterr().out
    assert pd.read_csv(tmp_path / "results.csv")["point"].tolist() == [point_name(nine)]
    assert path.read_bytes() == before and not path.with_name(path.name + ".damaged").exists()
    with pytest.warns(UserWarning, match=f"set aside as {re.escape(path.name)}.damaged"):
        assert done_record(tmp_path, ten) is None
    assert not path.exists() and path.with_name(path.name + ".damaged").read_bytes() == before


def test_aggregate_checks_every_record_before_writing_either_file(tmp_path):
    good = {"point": "a", "status": "ok", "seconds": 1.0}
    for records, message in [
        ([good, {"point": "b", "status": "ok"}], "point b: seconds=None must be the point's run time in seconds"),
        ([good, {"point": "b", "status": "maybe", "seconds": 1.0}], "point b: status='maybe' must be 'ok' or 'failed'"),
        ([good, good], "point 'a' is not a record's name, or is recorded twice; each point's record must be given once"),
    ]:
        with pytest.raises(CourseError) as refused:
            aggregate("demo", "smoke", tmp_path, records, "")
        assert str(refused.value) == message
        assert not (tmp_path / "results.csv").exists() and not (tmp_path / "provenance.json").exists()


def test_a_grid_that_lists_a_point_twice_is_refused(tmp_path, demo_grid):
    (tmp_path / "grid.json").write_text(json.dumps({"study": "demo", "points": [demo_grid[0], *demo_grid]}))
    saved(tmp_path, demo_grid[0])
    with pytest.raises(CourseError) as refused:
        collect("demo", "smoke", tmp_path)
    assert str(refused.value) == (f"{tmp_path / 'grid.json'} lists point {point_name(demo_grid[0])} twice; delete "
                                  "the folder's grid.json and run `reproduce` again")
    assert not (tmp_path / "results.csv").exists()


def test_a_failed_record_under_a_success_file_name_is_run_again(tmp_path, demo_grid):
    """A resumed sweep skips only points whose success file holds a success: a failure there runs again."""
    point = demo_grid[0]
    path = saved(tmp_path, point)
    path.write_text(json.dumps({**json.loads(path.read_text()), "status": "failed"}))
    with pytest.warns(UserWarning, match="has status 'failed' in a file for status 'ok'"):
        assert done_record(tmp_path, point) is None


def test_an_unreadable_record_is_one_line(tmp_path, demo_grid):
    point = demo_grid[0]
    path = saved(tmp_path, point)
    path.unlink()
    path.mkdir()  # a folder where the record should be
    with pytest.warns(UserWarning, match="is damaged; set aside"):
        assert done_record(tmp_path, point) is None
    assert path.with_name(path.name + ".damaged").is_dir()


@pytest.mark.parametrize(("measure", "value"), [("accuracy_after", {"test": 2.5}), ("accuracy_after", {"test": None}),
                                                ("accuracy_after", {"test": "high"}), ("accuracy_after", {}),
                                                ("gain", {"test": float("nan")}), ("accuracy_before", {"test": -0.1})])
def test_aggregate_refuses_a_finished_record_with_an_impossible_measure(tmp_path, measure, value):
    good = {"point": "a", "status": "ok", "seconds": 1.0, "accuracy_before": {"test": 0.5},
            "accuracy_after": {"test": 0.6}, "gain": {"test": 0.1}}
    aggregate("demo", "smoke", tmp_path, [good], "")  # a sound record: the table is written
    before = (tmp_path / "results.csv").read_text()
    with pytest.raises(CourseError, match=f"point b: {measure}=.* must give each split a number from"):
        aggregate("demo", "smoke", tmp_path, [good, {**good, "point": "b", measure: value}], "")
    assert (tmp_path / "results.csv").read_text() == before  # checked before anything is written


@pytest.mark.parametrize(("edit", "said"), [
    ({"accuracy_after": {"test": 0.9}}, r"gain.test=0.1 is not accuracy_after - accuracy_before = 0.4000"),
    ({"gain": {"test": 0.5}, "accuracy_after": {"test": 1.0}}, r"gain.test=0.5 lies outside its own interval"),
])
def test_aggregate_refuses_a_record_whose_numbers_disagree_with_one_another(tmp_path, edit, said):
    """A record edited by hand (or a stale one copied in under the same name) with numbers each in range but
    contradicting each other: refused, not averaged into a verdict."""
    good = {"point": "a", "status": "ok", "seconds": 1.0, "accuracy_before": {"test": 0.5},
            "accuracy_after": {"test": 0.6}, "gain": {"test": 0.1}, "gain_ci": {"test": [0.02, 0.18]}}
    aggregate("demo", "smoke", tmp_path, [good], "")
    with pytest.raises(CourseError, match=f"point b: {said}"):
        aggregate("demo", "smoke", tmp_path, [good, {**good, "point": "b", **edit}], "")


def test_a_grid_that_lists_no_points_does_not_empty_the_results(tmp_path):
    from course_lib.research.sweep import collect

    (tmp_path / "grid.json").write_text(json.dumps({"study": "hard-wins", "points": []}))
    (tmp_path / "results.csv").write_text("point\nkept\n")
    with pytest.raises(CourseError, match="grid.json lists no points"):
        collect("hard-wins", "smoke", tmp_path)
    assert (tmp_path / "results.csv").read_text() == "point\nkept\n"


def test_every_study_is_defined_in_its_own_folder_and_a_damaged_definition_is_one_line(tmp_path):
    from course_lib.research.studies import RESULTS_DIR, read_studies

    with_grid = {path.parent.name for path in RESULTS_DIR.glob("*/grid.json")}  # every swept study
    assert with_grid <= set(STUDIES) and set(STUDIES) <= {p.name for p in RESULTS_DIR.iterdir()}
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "study.json").write_text('{"fixed": {}, "grid": {"smoke": {"SEED": [0]}}, "about": "x", '
                                               '"kind": "pilot"}')
    assert read_studies(tmp_path) == {"a": {"kind": "pilot", "fixed": {}, "grid": {"smoke": {"SEED": [0]}}}}
    for damaged, message in [("{", "is not valid JSON (Expecting"), ('{"fixed": {}}', "must hold an object"),
                             ("[]", "must hold an object"),
                             ('{"fixed": {}, "grid": {"smoke": {}}, "kind": "guess"}', "and a `kind` (study, probe, pilot)")]:
        (tmp_path / "a" / "study.json").write_text(damaged)
        with pytest.raises(CourseError, match=re.escape(f"{tmp_path / 'a' / 'study.json'} ") + ".*" + re.escape(message)):
            read_studies(tmp_path)


def test_set_without_a_value_is_refused():
    with pytest.raises(CourseError, match=r"^--set MODEL= has no value; give one, or leave MODEL out for the study's own$"):
        parse_overrides(["MODEL="])


def test_set_without_an_equals_sign_and_an_unknown_study_name_say_what_they_are(tmp_path, capsys):
    with pytest.raises(CourseError, match=r"^--set: 'SEED' must look like KEY=VALUE, e.g. SEED=0$"):
        parse_overrides(["SEED"])
    from course_lib.__main__ import main

    assert main(["aggregate", "bogus-study", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error: study='bogus-study' is unknown; use one of capacity-boundary")


@pytest.mark.parametrize("damage", ["moved", "a file"])
def test_aggregate_never_drops_points_a_results_table_lists(tmp_path, damage):
    """points/ moved away (or replaced by a file): the committed table and provenance stay as they are, named."""
    import shutil

    from conftest import run_cli_in_process

    committed = Path(__file__).resolve().parent.parent / "data" / "results" / "one-group-pilot"
    copy = tmp_path / "one-group-pilot"
    shutil.copytree(committed, copy)
    shutil.move(copy / "points", tmp_path / "elsewhere")
    if damage == "a file":
        (copy / "points").write_text("")
    done = run_cli_in_process("aggregate", "one-group-pilot", "--out", copy)
    said = "is a file, not the folder of point records" if damage == "a file" else \
        "lists 24 point(s) whose record is no longer in"
    assert done.returncode == 2 and said in done.stderr, done.stderr
    for name in ("results.csv", "provenance.json"):
        assert (copy / name).read_bytes() == (committed / name).read_bytes()


def test_a_second_damaged_record_keeps_the_first_damaged_copy(tmp_path):
    point = {"SEED": 0}
    record = tmp_path / "points" / f"{point_name(point)}.json"
    record.parent.mkdir()
    for text in ('{"point": ', "[]"):
        record.write_text(text)
        with pytest.warns(UserWarning):
            assert done_record(tmp_path, point) is None
    assert record.with_name(record.name + ".damaged").read_text() == '{"point": '
    assert record.with_name(record.name + ".damaged.2").read_text() == "[]"


def test_a_folder_planned_with_one_models_weights_refuses_another_under_the_same_name(tmp_path, monkeypatch):
    """COURSE_MODELS_DIR set when a sweep started and not when it resumed (or in its SLURM jobs): the name tiny-m
    meant other weights, and one results.csv held two models. The grid records each model's sha256; a resume, a
    job, or a plan under other weights is refused."""
    import shutil

    from course_lib.research.sweep import _check_out_dir, grid_points

    points = [{"MODEL": "tiny-m", "SEED": 0}]
    _check_out_dir(tmp_path / "out", "demo", points)
    grid = json.loads((tmp_path / "out" / "grid.json").read_text())
    assert len(grid["models"]["tiny-m"]["model.safetensors"]) == 64 and "generation_config.json" in grid["models"]["tiny-m"]
    _check_out_dir(tmp_path / "out", "demo", points)  # the same weights: resumes
    mine = tmp_path / "mymodels"
    shutil.copytree(ROOT / "data" / "models" / "tiny-s", mine / "tiny-m")  # another model under the name tiny-m
    monkeypatch.setenv("COURSE_MODELS_DIR", str(mine))
    monkeypatch.setattr("course_lib.models.MODELS_DIR", mine)
    for call in (lambda: _check_out_dir(tmp_path / "out", "demo", points), lambda: grid_points(tmp_path / "out", "demo", "smoke")):
        with pytest.raises(CourseError, match=re.escape(f"out={tmp_path / 'out'} was planned with other weights under "
                                                        "the name 'tiny-m'")):
            call()


def test_a_record_copied_in_is_not_resumed_after_its_stop_tokens_or_its_jsonl_file_changed(tmp_path):
    """A record carries a sha256 of its model's settings files and of the jsonl files it read: copied into a new
    folder (as the slice message says) after either changed, it is set aside and run again, not mixed in."""
    import shutil

    from course_lib.research.sweep import inputs_sha256

    model, data = tmp_path / "mmm", tmp_path / "mine.jsonl"
    shutil.copytree(ROOT / "data" / "models" / "tiny-m", model)
    data.write_text('{"question": "1+1=?", "answer": "2"}\n')
    point = {"PROFILE": "smoke", "MODEL": str(model), "TASK": f"jsonl:{data}", "SEED": 0}
    name = point_name(point)
    (tmp_path / "points").mkdir()
    record = {"point": name, **{k.lower(): v for k, v in point.items()}, "status": "ok", "seconds": 1.0,
              **inputs_sha256(point)}
    assert set(record) >= {"model_sha256", "model_settings_sha256", "data_sha256"}
    path = tmp_path / "points" / f"{name}.json"
    path.write_text(json.dumps(record))
    assert done_record(tmp_path, point) == record
    settings = model / "generation_config.json"
    settings.write_text(settings.read_text().replace('"eos_token_id": 1,', '"eos_token_id": [1, 16],'))
    with pytest.warns(UserWarning, match="was made with other settings files .* \\(its model_settings_sha256 differs"):
        assert done_record(tmp_path, point) is None
    shutil.copytree(ROOT / "data" / "models" / "tiny-m", model, dirs_exist_ok=True)  # the stop tokens restored
    path.write_text(json.dumps(record))
    assert done_record(tmp_path, point) == record
    data.write_text('{"question": "1+1=?", "answer": "3"}\n')
    with pytest.warns(UserWarning, match=f"was made with another version of {data}"):
        assert done_record(tmp_path, point) is None


def test_a_record_from_before_hub_datasets_were_fingerprinted_still_resumes(tmp_path, monkeypatch):
    """Records made before a dataset read from the hub was written into the fingerprints ("hub") hold a data_sha256
    over their jsonl files alone: resumed, not set aside and trained again; another jsonl file is still refused."""
    import hashlib

    from course_lib.research.sweep import file_fingerprints, inputs_sha256

    monkeypatch.delenv("COURSE_DATA_DIR", raising=False)
    data = tmp_path / "mine.jsonl"
    data.write_text('{"question": "1+1=?", "answer": "2"}\n')
    point = {"PROFILE": "paper", "MODEL": "tiny-s", "TASK": f"jsonl:{data}", "SEED": 0}  # OOD_TASK: AIME, the hub's
    assert file_fingerprints([point]) == {str(data): file_sha256(data), "aime2025 data": "hub"}
    old = hashlib.sha256(json.dumps({str(data): file_sha256(data)}, sort_keys=True).encode()).hexdigest()
    assert inputs_sha256(point)["data_sha256"] != old
    name = point_name(point)
    (tmp_path / "points").mkdir()
    record = {"point": name, **{k.lower(): v for k, v in point.items()}, "status": "ok", "seconds": 1.0,
              **inputs_sha256(point), "data_sha256": old}
    (tmp_path / "points" / f"{name}.json").write_text(json.dumps(record))
    assert done_record(tmp_path, point) == record
    data.write_text('{"question": "1+1=?", "answer": "3"}\n')
    with pytest.warns(UserWarning, match=f"was made with another version of {data}"):
        assert done_record(tmp_path, point) is None


def test_a_folder_planned_with_a_models_stop_tokens_refuses_them_edited(tmp_path):
    """The same weights with another generation_config.json (a new stop token) sample other completions: a sweep
    resumed after the edit put two models in one table. A grid written before settings files were recorded (the
    weights' sha256 alone) is still checked on the weights."""
    import shutil

    from course_lib.research.sweep import _check_out_dir

    model = tmp_path / "mmm"
    shutil.copytree(ROOT / "data" / "models" / "tiny-m", model)
    points = [{"MODEL": str(model), "SEED": 0}]
    _check_out_dir(tmp_path / "out", "demo", points)
    settings = model / "generation_config.json"
    settings.write_text(settings.read_text().replace('"eos_token_id": 1,', '"eos_token_id": [1, 16],'))
    with pytest.raises(CourseError, match="the sha256 of its generation_config.json differs"):
        _check_out_dir(tmp_path / "out", "demo", points)
    grid_file = tmp_path / "out" / "grid.json"
    grid = json.loads(grid_file.read_text())
    grid["models"][str(model)] = grid["models"][str(model)]["model.safetensors"]  # the older format
    grid_file.write_text(json.dumps(grid))
    _check_out_dir(tmp_path / "out", "demo", points)  # the weights are the same
    shutil.rmtree(model)
    shutil.copytree(ROOT / "data" / "models" / "tiny-s", model)  # other weights in the folder
    with pytest.raises(CourseError, match="the sha256 of its model.safetensors differs"):
        _check_out_dir(tmp_path / "out", "demo", points)


def test_aggregate_in_a_shell_where_a_model_name_means_other_weights_refuses_and_moves_nothing(tmp_path,
                                                                                                monkeypatch):
    """Hostile round 20: with COURSE_MODELS_DIR naming a rebuilt model, `aggregate` set every record aside as
    `.damaged` (each read as another model's), then asked the user to restore them. It now refuses in one line,
    as `reproduce` does, before reading a record."""
    import shutil

    from course_lib.research.sweep import _check_out_dir

    model = tmp_path / "mmm"
    shutil.copytree(ROOT / "data" / "models" / "tiny-m", model)
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": str(model)}, "grid": {"smoke": {"SEED": [10, 9]}}})
    points = expand("demo", "smoke")
    out = tmp_path / "out"
    _check_out_dir(out, "demo", points)  # the grid records the model's fingerprint, as `reproduce` writes it
    records = [saved(out, point) for point in points]
    settings = model / "generation_config.json"
    settings.write_text(settings.read_text().replace('"eos_token_id": 1,', '"eos_token_id": [1, 16],'))
    with pytest.raises(CourseError, match="was planned with other weights under the name"):
        collect("demo", "smoke", out)
    assert all(path.exists() for path in records) and not list((out / "points").glob("*.damaged*"))


def test_a_folder_planned_on_a_jsonl_file_refuses_it_edited(tmp_path, monkeypatch):
    """`--set TASK=jsonl:FILE` resumed after FILE changed put two datasets in one results.csv: the grid records the
    sha256 of each file its points read; a resume or a SLURM job on another version is refused."""
    from course_lib.research.sweep import _check_out_dir, grid_points

    data = tmp_path / "mine.jsonl"
    data.write_text('{"question": "1+1=?", "answer": "2"}\n')
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"TASK": [f"jsonl:{data}"], "SEED": [0]}}})
    points = expand("demo", "smoke")
    _check_out_dir(tmp_path / "out", "demo", points)
    assert json.loads((tmp_path / "out" / "grid.json").read_text())["files"] == {str(data): file_sha256(data)}
    _check_out_dir(tmp_path / "out", "demo", points)  # unchanged: resumes
    data.write_text('{"question": "1+1=?", "answer": "3"}\n')
    for call in (lambda: _check_out_dir(tmp_path / "out", "demo", points),
                 lambda: grid_points(tmp_path / "out", "demo", "smoke")):
        with pytest.raises(CourseError, match=f"^out={re.escape(str(tmp_path / 'out'))} was planned with another "
                                              f"version of {re.escape(str(data))}"):
            call()


def test_reproduce_set_model_to_a_relative_folder_is_made_absolute(tmp_path, monkeypatch):
    import warnings

    from course_lib.research.sweep import parse_overrides

    (tmp_path / "mine").mkdir()
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # only a tiny name that is also a folder here is warned about
        assert parse_overrides(["MODEL=./mine"])["MODEL"] == str(tmp_path / "mine")
        assert parse_overrides(["MODEL=tiny-m"])["MODEL"] == "tiny-m"
        assert parse_overrides(["MODEL=Qwen/Qwen2.5-0.5B"])["MODEL"] == "Qwen/Qwen2.5-0.5B"  # a hub id: no such folder
        (tmp_path / "mymodel").mkdir()  # hostile round 26: a bare name that is a folder here was hashed as this folder
        assert parse_overrides(["MODEL=mymodel"])["MODEL"] == str(tmp_path / "mymodel")  # but read as a hub id by points
    (tmp_path / "tiny-m").mkdir()  # a tiny name stays the course's model, whatever folder shares its name
    with pytest.warns(UserWarning, match=r"MODEL=tiny-m is the course's tiny model, not the folder \./tiny-m here; "
                                         r"give \./tiny-m for it"):
        assert parse_overrides(["MODEL=tiny-m"])["MODEL"] == "tiny-m"


def test_a_smoke_record_of_capped_steps_is_its_points_not_damaged():
    """The smoke profile trains at most 2 steps, so a grid point of STEPS=4 records steps=2: that record is the
    point's (it was set aside as damaged and every smoke sweep of such a study lost all its points); in the tiny
    profile, which caps nothing, steps=2 for STEPS=4 is another point's record."""
    from course_lib.research.sweep import record_problem

    point = {"STRATEGY": "hard", "STEPS": 4, "SEED": 410}
    record = {"point": point_name(point), "status": "ok", "seconds": 3.0, "strategy": "hard", "seed": 410, "steps": 2}
    assert record_problem({**record, "profile": "smoke"}, point, "ok") is None
    assert "records steps=2, but its point has STEPS=4" in record_problem({**record, "profile": "tiny"}, point, "ok")
    assert "records steps=3" in record_problem({**record, "profile": "smoke", "steps": 3}, point, "ok")


def test_a_point_of_a_long_model_path_gets_a_file_name_the_disk_can_hold():
    """`--set MODEL=/a/240-character/path` made a record name over 255 bytes (`File name too long` after the kernel
    started): the readable part is cut, the digest of the whole point keeps names apart."""
    long_path = "/tmp/" + "x" * 300
    first, second = ({"MODEL": long_path + end, "SEED": 0} for end in ("a", "b"))
    names = [point_name(first), point_name(second)]
    assert names[0] != names[1] and all(len((name + ".failed.json").encode()) <= 255 for name in names)
    assert point_name({"MODEL": "tiny-m", "SEED": 0}).startswith("tiny-m_0_")  # short names as before
    assert len(point_name({"MODEL": "é" * 150}).encode()) <= 210  # bytes, not characters


@pytest.mark.parametrize(("edit", "said"), [
    (lambda r: r.update({"pass_at_k_gain": {"test": 0.9}}), "pass_at_k_gain.test=0.9 is not pass_at_k_after"),
    (lambda r: r.update({"base_variance": {"test": -1}}), "base_variance={'test': -1} must give each split a number"),
    (lambda r: r.update({"accuracy_after_by_level": {"test": {"1": 5.0}}}), "accuracy_after_by_level holds a value"),
    (lambda r: r.update({"base_variance": {"test": float("inf")}}), "base_variance={'test': inf} must give each split"),
    (lambda r: r.update({"base_variance": {"test": 5.0}}), "must give each split a number from 0 to 0.25"),  # round 16
    (lambda r: r.update({"pass_at_k_after": {"test": 1.4}, "pass_at_k_gain": {"test": 0.9}}),
     "pass_at_k_after={'test': 1.4} must give each split a number from 0 to 1"),  # moved a published verdict
    (lambda r: r.update({"pass_at_k_before": {"test": -0.2}}), "pass_at_k_before={'test': -0.2} must give each split"),
    (lambda r: r.update({"dead_step_share": 7}), "dead_step_share=7 must be a share from 0 to 1"),
    (lambda r: r.update({"learnable_share_of_steps": -1}), "learnable_share_of_steps=-1 must be a share from 0 to 1"),
    (lambda r: r.update({"gain_ci": {"test": [0.05, 0.1, 0.15]}}), "gain_ci.test=[0.05, 0.1, 0.15] must be [low, high]"),
    (lambda r: r.update({"gain_ci": {"test": [0.15, 0.05]}}), "gain_ci.test=[0.15, 0.05] must be [low, high]"),
    (lambda r: r.update({"dead_step_share": None}), None),  # not measured (a run without a ledger)
    (lambda r: r.pop("gain_ci"), None),  # no interval recorded at all: an old record, read on its gain alone
    (lambda r: r["gain_ci"].pop("test"), "has no gain_ci.test"),
    (lambda r: r.update({"eval_k": {"test": 100_000}}), "eval_k={'test': 100000} must give each split a number from 1 "
                                                        "to 10000"),  # round 18: it shrank the base error in silence
    (lambda r: r.update({"n_selected": -5}), "n_selected=-5 must be a whole number >= 1"),
    (lambda r: r.update({"steps": 2.5}), "steps=2.5 must be a whole number >= 1"),
])
def test_measures_a_record_cannot_hold_are_refused(edit, said):
    """Round 13: aggregate wrote these records into results.csv with exit 0."""
    from course_lib.research.sweep import check_measures

    record = {"accuracy_before": {"test": 0.4}, "accuracy_after": {"test": 0.5}, "gain": {"test": 0.1},
              "gain_ci": {"test": [0.05, 0.15]}, "pass_at_k_before": {"test": 0.5}, "pass_at_k_after": {"test": 0.6},
              "pass_at_k_gain": {"test": 0.1}, "base_variance": {"test": 1e-5},
              "accuracy_after_by_level": {"test": {"1": 0.5}}}
    edit(record)
    if said is None:
        check_measures(record, "p")
        return
    with pytest.raises(CourseError, match=re.escape(said)):
        check_measures(record, "p")


def test_aggregate_names_a_failed_point_that_recorded_no_error(tmp_path, monkeypatch, capsys):
    """Round 13 (B10): a failed record without its `error` key ended `aggregate` in a KeyError traceback."""
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0]}}})
    (point,) = expand("demo", "smoke")
    (tmp_path / "grid.json").write_text(json.dumps({"study": "demo", "points": [point]}))
    path = saved(tmp_path, point, status="failed")
    path.write_text(json.dumps({k: v for k, v in json.loads(path.read_text()).items() if k != "error"}))
    assert main(["aggregate", "demo", "--profile", "smoke", "--out", str(tmp_path)]) == 1
    assert f"FAILED {point_name(point)}: no error recorded" in capsys.readouterr().err


# Mutation survivors (group 4)
def test_aggregate_refuses_a_record_that_is_not_an_object_in_one_line(tmp_path):
    with pytest.raises(CourseError, match="point None is not a record's name, or is recorded twice"):
        aggregate("demo", "smoke", tmp_path, [["point", "a"]], "")


def test_a_point_that_never_answers_right_has_a_zero_gain_in_a_zero_width_interval():
    from course_lib.research.sweep import check_measures

    check_measures({"accuracy_before": {"test": 0.0}, "accuracy_after": {"test": 0.0}, "gain": {"test": 0.0},
                    "gain_ci": {"test": [0.0, 0.0]}, "dead_step_share": 1.0}, "p")


def test_a_point_that_selected_one_problem_for_one_step_is_a_sound_record():
    from course_lib.research.sweep import check_measures

    check_measures({"accuracy_before": {"test": 0.4}, "accuracy_after": {"test": 0.5}, "gain": {"test": 0.1},
                    "gain_ci": {"test": [0.05, 0.15]}, "n_selected": 1, "steps": 1}, "p")


@pytest.mark.parametrize(("edit", "said"), [
    ({"dead_step_share": 1.5}, "dead_step_share=1.5 must be a share from 0 to 1"),
    ({"gain_ci": [0.15, 0.05]}, "gain_ci.=[0.15, 0.05] must be [low, high]"),  # one interval, not one per split
    ({"gain_ci": [0.05, 0.15]}, "gain.test=0.1 has no gain_ci.test"),
    ({"gain_ci": {"test": [False, True]}}, "gain_ci.test=[False, True] must be [low, high]"),
    ({"gain_ci": {"test": [0.05, float("inf")]}}, "gain_ci.test=[0.05, inf] must be [low, high]"),
    ({"accuracy_after_by_level": 1.5}, "accuracy_after_by_level holds a value that is not a finite number in [0, 1]"),
    ({"accuracy_after_by_level": {"1": 1.5}}, "accuracy_after_by_level holds a value that is not a finite number"),
])
def test_a_record_with_a_share_interval_or_level_accuracy_out_of_its_range_is_refused(edit, said):
    from course_lib.research.sweep import check_measures

    record = {"accuracy_before": {"test": 0.4}, "accuracy_after": {"test": 0.5}, "gain": {"test": 0.1},
              "gain_ci": {"test": [0.05, 0.15]}, **edit}
    with pytest.raises(CourseError, match=re.escape(said)):
        check_measures(record, "p")


def test_collect_in_a_folder_without_a_grid_says_what_to_give(tmp_path):
    with pytest.raises(CourseError, match=r"holds no grid.json; give the folder of a `reproduce` run"):
        collect("hard-wins", "smoke", tmp_path)


def test_a_point_that_took_no_time_has_a_run_time_and_an_endless_one_has_none():
    from course_lib.research.sweep import is_seconds

    assert is_seconds(0) and is_seconds(0.0) and is_seconds(12.5)
    assert not is_seconds(float("inf")) and not is_seconds(-1) and not is_seconds(True) and not is_seconds("3")


def test_a_planned_model_not_found_here_is_skipped_and_the_next_one_still_checked(tmp_path):
    from course_lib.research.sweep import check_same_models

    check_same_models(tmp_path, {"no-such-model-here": {"model.safetensors": "0" * 64}})
    planned = {"no-such-model-here": {"model.safetensors": "0" * 64}, "tiny-m": {"model.safetensors": "0" * 64}}
    with pytest.raises(CourseError, match="was planned with other weights under the name 'tiny-m'"):
        check_same_models(tmp_path, planned)


def test_grid_points_names_the_folder_whose_grid_it_refuses(tmp_path, monkeypatch):
    data = tmp_path / "mine.jsonl"
    data.write_text('{"question": "1+1=?", "answer": "2"}\n')
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"TASK": [f"jsonl:{data}"], "SEED": [0]}}})
    points = expand("demo", "smoke")
    grid_file = tmp_path / "grid.json"
    for grid, said in [({"models": {"tiny-m": {"model.safetensors": "0" * 64}}}, "was planned with other weights"),
                       ({"files": {str(data): "0" * 64}}, "was planned with another version of"),
                       ({"points": [{"SEED": 3}]}, "holds points that are not in demo's 'smoke' grid")]:
        grid_file.write_text(json.dumps({"study": "demo", "points": points, **grid}))
        with pytest.raises(CourseError, match=re.escape(f"out={tmp_path} {said}")):
            grid_points(tmp_path, "demo", "smoke")


def test_only_a_folder_of_nothing_but_point_records_may_take_a_new_grid(tmp_path):
    from course_lib.research.sweep import holds_only_point_records

    out = tmp_path / "out"
    assert not holds_only_point_records(out)  # not there
    out.mkdir()
    assert not holds_only_point_records(out)  # empty
    (out / "points").mkdir()
    (out / "points" / "a.json").write_text("{}")
    assert holds_only_point_records(out)
    (out / "points" / "notes.txt").write_text("")
    assert not holds_only_point_records(out)
    (out / "points" / "notes.txt").unlink()
    (out / "grid.json").write_text("{}")
    assert not holds_only_point_records(out)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "points").mkdir(parents=True)
    (elsewhere / "points" / "a.json").write_text("{}")
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked" / "points").symlink_to(elsewhere / "points")
    assert not holds_only_point_records(tmp_path / "linked")


def test_set_task_to_a_relative_jsonl_file_is_made_absolute_and_model_to_a_nested_folder(tmp_path, monkeypatch):
    (tmp_path / "models" / "mine").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert parse_overrides(["TASK=jsonl:mine.jsonl"])["TASK"] == f"jsonl:{tmp_path / 'mine.jsonl'}"
    assert parse_overrides(["MODEL=models/mine"])["MODEL"] == str(tmp_path / "models" / "mine")
    monkeypatch.chdir(tmp_path / "models" / "mine")
    assert parse_overrides(["MODEL=."])["MODEL"] == str(tmp_path / "models" / "mine")  # the folder one is in


def test_a_key_given_twice_is_refused_whatever_its_values():
    for pairs in (["SEED=0", "SEED=1"], ["TASK=jsonl:a=b.jsonl", "TASK=arith"]):
        key = pairs[0].split("=")[0]
        with pytest.raises(CourseError, match=f"^where: {key} is given twice .*give each key once"):
            parse_where(pairs)


def test_a_record_is_its_points_only_when_every_setting_and_every_split_agrees():
    from course_lib.research.sweep import record_problem

    assert record_problem({"point": point_name({"SEED": 0}), "status": "ok"}, {"SEED": 0}, "ok") == \
        "has no seed (its point has SEED=0)"
    point = {"STEPS": 4, "BASE_K": 8, "SEED": 410}
    record = {"point": point_name(point), "status": "ok", "seconds": 3.0, "profile": "smoke", "steps": 2, "base_k": 8,
              "seed": 410}
    assert record_problem(record, point, "ok") is None
    assert record_problem({**record, "seed": 411}, point, "ok") == "records seed=411, but its point has SEED=410"
    assert record_problem({**record, "base_k": {"test": 8, "train": 4}}, point, "ok") == \
        "records base_k={'test': 8, 'train': 4}, but its point has BASE_K=8"
    assert record_problem(dict(reversed(resealed(record).items())), point, "ok") is None  # keys reordered (jq -S)
    assert record_problem({**record, "status": "s" * 60}, point, "ok") == \
        f"has status {'s' * 40!r} in a file for status 'ok'"


def test_a_record_of_two_data_files_names_both_when_one_changed(tmp_path):
    from course_lib.research.sweep import inputs_sha256, record_problem

    train, test = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (train, test):
        path.write_text('{"question": "1+1=?", "answer": "2"}\n')
    point = {"TASK": f"jsonl:{train}", "TEST_TASK": f"jsonl:{test}", "SEED": 0}
    record = {"point": point_name(point), "status": "ok", "seconds": 1.0, **{k.lower(): v for k, v in point.items()},
              **inputs_sha256(point)}
    test.write_text('{"question": "1+1=?", "answer": "3"}\n')
    assert record_problem(record, point, "ok") == \
        f"was made with another version of {train}, {test} (its data_sha256 differs)"


def test_only_a_profile_that_caps_training_caps_a_points_steps():
    from course_lib.research.sweep import trained_steps

    assert trained_steps(4, "smoke") == 2
    assert [trained_steps(4, profile) for profile in ("tiny", None, "no-such-profile")] == [4, 4, 4]


def test_a_grid_file_with_its_points_keys_in_another_order_is_still_this_grid(tmp_path, monkeypatch):
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"}, "grid": {"smoke": {"SEED": [0, 1]}}})
    points = expand("demo", "smoke")
    (tmp_path / "grid.json").write_text(json.dumps({"study": "demo", "points": points}, sort_keys=True))  # e.g. jq -S
    assert grid_points(tmp_path, "demo", "smoke") == points


def test_a_models_fingerprint_covers_every_weight_file_and_its_settings_by_name(tmp_path):
    import hashlib

    from course_lib.research.sweep import inputs_sha256

    model = tmp_path / "mine"
    model.mkdir()
    for name, text in (("config.json", "{}"), ("vocab.json", '{"a": 0}'), ("merges.txt", "#"),
                       ("pytorch_model.bin", "weights")):
        (model / name).write_text(text)
    found = inputs_sha256({"MODEL": str(model)})
    settings = {name: file_sha256(model / name) for name in ("config.json", "merges.txt", "vocab.json")}
    assert found == {"model_sha256": file_sha256(model / "pytorch_model.bin"),  # the records' format: names in order
                     "model_settings_sha256": hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()}
    (model / "pytorch_model.bin").unlink()
    for shard in ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"):
        (model / shard).write_text("shard")
    before = inputs_sha256({"MODEL": str(model)})["model_sha256"]
    (model / "model-00002-of-00002.safetensors").write_text("another shard")
    assert inputs_sha256({"MODEL": str(model)})["model_sha256"] != before


class _Bar:
    """A stand-in progress bar: counts its updates."""

    n = 0

    def update(self, n=1):
        self.n += n


def _point_in_a_worker(point, out, notebook, log=None):
    """A stand-in for run_point_notebook, picklable to a forked worker: sleeps SLEEP seconds, writes a line to its stderr and
    notes its point, notebook, process and times in out/ran/<point>.json."""
    import time

    start = time.time()
    time.sleep(point.get("SLEEP", 0))
    os.write(2, f"point {point_name(point)} ran\n".encode())
    (out / "ran").mkdir(exist_ok=True)
    (out / "ran" / f"{point_name(point)}.json").write_text(json.dumps(
        {"point": point, "notebook": str(notebook), "log": log, "pid": os.getpid(), "start": start, "end": time.time()}))
    return {"status": "ok"}


def test_one_worker_runs_the_waves_in_order_in_this_process_each_with_its_log(tmp_path, monkeypatch):
    """workers=1 runs each point here, wave after wave, its kernel's stderr going to logs/<point>.log, and moves the
    progress bar once per point as it ends."""
    import course_lib.research.sweep as sweep

    bar, calls = _Bar(), []
    monkeypatch.setattr(sweep, "run_point_notebook", lambda *args, **kwargs: calls.append((args, kwargs, bar.n)))
    waves = [[{"SEED": 0}], [{"SEED": 1}, {"SEED": 2}]]
    sweep.run_points(waves, tmp_path, tmp_path / "experiment.ipynb", 1, bar)
    assert calls == [((point, tmp_path, tmp_path / "experiment.ipynb"),
                      {"log": tmp_path / "logs" / f"{point_name(point)}.log"}, done)
                     for done, point in enumerate([{"SEED": 0}, {"SEED": 1}, {"SEED": 2}])]
    assert bar.n == 3


def test_two_workers_run_a_wave_before_the_next_with_their_stderr_in_worker_logs(tmp_path, monkeypatch):
    """workers=2 runs the points in two processes (not one per core), each wave's points ending before the next
    wave's start, the progress bar moving once per point; what a worker writes to stderr lands in logs/worker-*.log."""
    import course_lib.research.sweep as sweep

    monkeypatch.setattr(sweep, "run_point_notebook", _point_in_a_worker)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    waves = [[{"SEED": 0, "SLEEP": 0.5}, {"SEED": 1}], [{"SEED": 2}, {"SEED": 3}, {"SEED": 4}]]
    bar = _Bar()
    sweep.run_points(waves, tmp_path, tmp_path / "experiment.ipynb", 2, bar)
    ran = [[json.loads((tmp_path / "ran" / f"{point_name(p)}.json").read_text()) for p in wave] for wave in waves]
    assert [[r["point"] for r in wave] for wave in ran] == waves and bar.n == 5
    assert all(r["notebook"] == str(tmp_path / "experiment.ipynb") and r["log"] is None for r in ran[0] + ran[1])
    assert max(r["end"] for r in ran[0]) <= min(r["start"] for r in ran[1])
    assert os.getpid() not in {r["pid"] for r in ran[0] + ran[1]}
    logs = list((tmp_path / "logs").glob("worker-*.log"))
    assert 1 <= len(logs) <= 2
    stderr = "".join(log.read_text() for log in logs)
    assert all(f"point {point_name(p)} ran" in stderr for wave in waves for p in wave)


def test_ctrl_c_stops_a_sweep_without_waiting_for_its_running_points(tmp_path, monkeypatch):
    """Ctrl-C (KeyboardInterrupt) while two workers run kills them: the sweep stops at once, not when the running
    point ends (a killed point simply runs again on resume)."""
    import time

    import course_lib.research.sweep as sweep

    class Interrupted(_Bar):
        def update(self, n=1):
            raise KeyboardInterrupt  # Ctrl-C as the first point ends

    monkeypatch.setattr(sweep, "run_point_notebook", _point_in_a_worker)
    start = time.time()
    with pytest.raises(KeyboardInterrupt):
        sweep.run_points([[{"SEED": 0}, {"SEED": 1, "SLEEP": 10}]], tmp_path, tmp_path / "experiment.ipynb", 2,
                         Interrupted())
    assert time.time() - start < 7
    assert not (tmp_path / "ran" / f"{point_name({'SEED': 1, 'SLEEP': 10})}.json").exists()


def test_a_study_json_being_written_is_one_line_naming_it(tmp_path):
    """Round 19 (a maintainer's trial): a grid value given as a string ran a point per letter ('h', 'a', ...); a
    file with a syntax error made every command, --help included, end in a traceback."""
    from course_lib.research.definitions import read_studies

    folder = tmp_path / "my-study"
    folder.mkdir()
    (folder / "study.json").write_text('{"kind": "study", "fixed": {}, "grid": {"tiny": {"STRATEGY": "hard"}}}')
    with pytest.raises(CourseError, match=r"my-study/study.json: the tiny grid must map each parameter to a list"):
        read_studies(tmp_path)
    (folder / "study.json").write_text('{"kind": "study", "fixed": {}')
    with pytest.raises(CourseError, match=r"my-study/study.json is not valid JSON \(Expecting .*\); fix it"):
        read_studies(tmp_path)
    (folder / "study.json").write_text('{"kind": "study", "fixed": {}, "grid": {"tiny": {"STRATEGY": ["hard"]}}}')
    assert read_studies(tmp_path)["my-study"]["grid"] == {"tiny": {"STRATEGY": ["hard"]}}


@pytest.mark.parametrize(("key", "value", "ran"), [("steps", 3, 2), ("n_selected", 3, 2)])
def test_aggregate_refuses_a_record_whose_counts_differ_from_its_run_folder(tmp_path, key, value, ran):
    """Hostile round 19: a record's steps or n_selected edited (or another point's) was written into results.csv
    although `runs/NAME` beside it said otherwise. Committed records, whose runs stay behind, are taken as they are."""
    good = {"point": "a", "status": "ok", "seconds": 1.0, "steps": 2, "n_selected": 2}
    run = tmp_path / "runs" / "a"
    run.mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps({"steps": 2}))
    (run / "run_config.json").write_text(json.dumps({"problem_ids": ["p1", "p2"]}))
    aggregate("demo", "smoke", tmp_path, [good], "")  # counts that agree
    with pytest.raises(CourseError) as refused:
        aggregate("demo", "smoke", tmp_path, [{**good, key: value}], "")
    assert str(refused.value) == (f"point a: {key}={value}, but its run folder {run} records {ran} (the record was "
                                  "edited, or is another point's); run the point again (delete its record)")
    aggregate("demo", "smoke", tmp_path / "elsewhere", [{**good, key: value}], "")  # no run folder beside it


@pytest.mark.parametrize("grids", [{"grid": {"smoke": {"SEED": [0, 0]}}},
                                   {"grid": {"smoke": {"SEED": [0, 1]}}, "also": {"smoke": {"SEED": [1]}}}])
def test_a_grid_that_gives_a_point_twice_is_refused_before_anything_is_planned(tmp_path, monkeypatch, grids):
    """Hostile round 20: `"SEED": [0, 0]` was run (two kernels training into one run folder) and refused only by
    `aggregate` at the end, with a fix that planned the same grid again."""
    monkeypatch.setitem(STUDIES, "twice", {"fixed": {}, **grids})
    with pytest.raises(CourseError) as refused:
        expand("twice", "smoke")
    assert str(refused.value).startswith("twice's 'smoke' grid gives point ")
    assert str(refused.value).endswith(" twice (a value listed twice, or a point both its grid and `also` make); "
                                       "list each once in data/results/twice/study.json")
    assert main(["reproduce", "twice", "--profile", "smoke", "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out" / "grid.json").exists()


def test_aggregate_in_a_shell_where_a_jsonl_file_changed_refuses_and_moves_nothing(tmp_path, monkeypatch):
    """Hostile round 20, the `jsonl:` half: records of points that read another version of the file were set aside
    one by one; `aggregate` refuses in one line, naming the file, as `reproduce` does."""
    from course_lib.research.sweep import _check_out_dir

    data = tmp_path / "mine.jsonl"
    data.write_text('{"question": "1+1=?", "answer": "2"}\n')
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {}, "grid": {"smoke": {"TASK": [f"jsonl:{data}"], "SEED": [0]}}})
    points = expand("demo", "smoke")
    out = tmp_path / "out"
    _check_out_dir(out, "demo", points)
    records = [saved(out, point) for point in points]
    data.write_text('{"question": "1+1=?", "answer": "3"}\n')
    with pytest.raises(CourseError, match=f"^out={re.escape(str(out))} was planned with another version of "
                                          f"{re.escape(str(data))}"):
        collect("demo", "smoke", out)
    assert all(path.exists() for path in records) and not list((out / "points").glob("*.damaged*"))


@pytest.mark.parametrize("files", [{"run_config.json": '{"problem_ids": ["a"]}'},  # started, never finished
                                   {"summary.json": '{"steps": 9}'},
                                   {"summary.json": "[]", "run_config.json": "[]"},  # damaged: not objects
                                   {"summary.json": '{"steps": 2}', "run_config.json": '{"problem_ids": "a"}'}])
def test_a_run_folder_that_records_no_counts_leaves_its_point_record_as_it_is(tmp_path, files):
    """The counts are compared only where the run folder records them; a run folder that says nothing of a count
    neither stops the table nor fails with a traceback."""
    good = {"point": "a", "status": "ok", "seconds": 1.0, "steps": 2, "n_selected": 2}
    run = tmp_path / "runs" / "a"
    run.mkdir(parents=True)
    for name, text in files.items():
        (run / name).write_text(text)
    aggregate("demo", "smoke", tmp_path, [good], "")
    assert pd.read_csv(tmp_path / "results.csv")["steps"].tolist() == [2]


def test_aggregate_leaves_a_failure_record_it_cannot_use_where_it_is(tmp_path, demo_grid):
    """`aggregate` only reads: a failure record of another point (copied over) is warned about and left in place."""
    ten, nine, _ = demo_grid
    (tmp_path / "grid.json").write_text(json.dumps({"study": "demo", "points": demo_grid}))
    saved(tmp_path, nine)
    path = tmp_path / "points" / f"{point_name(ten)}.failed.json"
    path.write_text(json.dumps({"point": point_name(nine), "status": "failed", "seconds": 1.0}))
    with pytest.warns(UserWarning, match="left as it is, and not aggregated"):
        collect("demo", "smoke", tmp_path)
    assert path.exists() and not path.with_name(path.name + ".damaged").exists()


@pytest.mark.parametrize("damage", ["deleted", "typo", "null"])
def test_round_24_an_edited_table_is_kept_when_its_provenance_cannot_tell(tmp_path, damage):
    """Hostile round 24: with provenance.json deleted, damaged, or its results_sha256 null, `aggregate` took the
    folder for an older one and replaced a results.csv edited by hand."""
    records = [{"point": "a", "status": "ok", "seconds": 1.5, "commit": "def", "gain": {"test": 0.25}}]
    aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    table, provenance = tmp_path / "results.csv", tmp_path / "provenance.json"
    edited = table.read_text().replace("gain.test\n", "gain.test,notes\n").replace("0.25\n", "0.25,mine\n")
    table.write_text(edited)
    if damage == "deleted":
        provenance.unlink()
    elif damage == "typo":
        provenance.write_text(provenance.read_text().replace('"study":', '"study"'))
    else:
        provenance.write_text(json.dumps({**json.loads(provenance.read_text()), "results_sha256": None}))
    with pytest.raises(CourseError, match="results.csv (cannot be checked|was changed)"):
        aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    assert table.read_text() == edited


def test_round_24_a_table_cut_off_from_its_provenance_by_a_kill_is_remade(tmp_path):
    """Hostile round 24: a kill between aggregate's two renames (results.csv new, provenance.json old) was then
    called an edit (an edited table is still refused)."""
    from course_lib.research.sweep import check_results_unedited

    records = [{"point": "a", "status": "ok", "seconds": 1.5, "commit": "def", "gain": {"test": 0.25}}]
    aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    old_provenance = (tmp_path / "provenance.json").read_text()
    records.append({"point": "b", "status": "ok", "seconds": 2.0, "commit": "def", "gain": {"test": 0.5}})
    aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    (tmp_path / "provenance.json").write_text(old_provenance)  # as if killed between the renames
    aggregate("demo", "smoke", tmp_path, records, "reproduce demo")  # the same table again: nothing lost
    (tmp_path / "results.csv").write_text("point,status\na,ok\n")
    with pytest.raises(CourseError, match="was changed after `aggregate` wrote it"):
        check_results_unedited(tmp_path, "point\n")


@pytest.mark.parametrize("damage", ["bom", "latin-1"])
def test_round_24_a_table_saved_by_a_spreadsheet_keeps_the_points_it_lists(tmp_path, damage):
    """Hostile round 24: a results.csv saved back with a byte-order mark (or a non-UTF-8 byte) in a folder from
    before results_sha256 lost its rows whose records were gone: the names it lists were not read."""
    from course_lib.research.sweep import check_nothing_dropped

    table = tmp_path / "results.csv"
    if damage == "bom":
        table.write_bytes("\ufeffpoint,status\ngone,ok\n".encode())
        with pytest.raises(CourseError, match="lists 1 point"):
            check_nothing_dropped(tmp_path, [])
    else:
        table.write_bytes(b"point,status\ngone,ok \xe9\n")
        with pytest.raises(CourseError, match="cannot be read"):
            check_nothing_dropped(tmp_path, [])


def test_round_24_reproduce_refuses_an_edited_table_before_any_point_runs(tmp_path, monkeypatch):
    """Hostile round 24: `reproduce` over a folder whose results.csv was edited trained every remaining point, then
    refused at the end."""
    import course_lib.research.sweep as sweep

    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"},
                                          "grid": {"smoke": {"STRATEGY": ["hard", "easy"], "SEED": [0]}}})
    out = tmp_path / "out"
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    next(path for path in (out / "points").glob("*.json")).unlink()  # one point left to run
    (out / "results.csv").write_text((out / "results.csv").read_text() + "# my note\n")
    monkeypatch.setattr(sweep, "run_points", lambda *args: pytest.fail("a point ran"))
    with pytest.raises(CourseError, match="was changed after `aggregate` wrote it"):
        run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)


def test_round_25_emit_slurm_keeps_a_script_edited_by_hand_and_cpu_jobs_need_their_own_time(tmp_path):
    """Hostile round 25: emitting the scripts again (say with another --slurm-time) replaced warm.sh, array.sh,
    aggregate.sh and submit.sh in silence, losing an `#SBATCH --account` line added by hand; `--slurm-gpus 0` on the
    paper profile gave CPU jobs the GPU's time limit, labelled as the cost model's estimate."""
    out = tmp_path / "jobs"
    emit_slurm("hard-wins", "smoke", out)
    emit_slurm("hard-wins", "smoke", out, time_limit="00:40:00")  # unedited: replaced
    array = out / "array.sh"
    assert "#SBATCH --time=00:40:00" in array.read_text()
    edited = array.read_text().replace("#SBATCH --export", "#SBATCH --account=myproject\n#SBATCH --export")
    array.write_text(edited)
    with pytest.raises(CourseError, match=r"array.sh was changed after --emit-slurm wrote it .* move it aside"):
        emit_slurm("hard-wins", "smoke", out, time_limit="00:50:00")
    assert array.read_text() == edited and "00:40:00" in (out / "warm.sh").read_text()  # none rewritten
    (out / "slurm-scripts.json").unlink()  # a folder from before the record: scripts that differ are kept too
    with pytest.raises(CourseError, match="(warm|array).sh was changed after --emit-slurm wrote it"):
        emit_slurm("hard-wins", "smoke", out, time_limit="00:50:00")
    array.rename(out / "array.sh.mine")
    emit_slurm("hard-wins", "smoke", out, time_limit="00:40:00")  # the others say exactly what it writes
    with pytest.raises(CourseError, match=r"gpus=0 \(--slurm-gpus 0\) on the paper profile: .* give --slurm-time"):
        emit_slurm("capacity-boundary", "paper", tmp_path / "cpu", gpus=0)
    emit_slurm("capacity-boundary", "paper", tmp_path / "cpu", gpus=0, time_limit="3-00:00:00", mem="64G")
    assert "#SBATCH --time=3-00:00:00" in (tmp_path / "cpu" / "array.sh").read_text()


def test_round_25_a_sweep_resumed_on_another_copy_of_a_real_dataset_is_refused(tmp_path, monkeypatch, shared_data):
    """Hostile round 25: a folder planned with COURSE_DATA_DIR on one copy of GSM8K resumed on another (its ids are
    line numbers, so each names another question), mixing two datasets in one results.csv; a finished record copied
    in was trusted too. The grid now records each local dataset's sha256, and each record its data_sha256."""
    from course_lib.research.sweep import inputs_sha256

    shared = shared_data
    copies = {}
    for name in ("a", "b"):
        for folder in ("gsm8k", "bbh", "aime2025"):
            (tmp_path / name / folder).mkdir(parents=True)
            for path in (shared / folder).glob("*.jsonl"):
                (tmp_path / name / folder / path.name).write_bytes(path.read_bytes())
        copies[name] = tmp_path / name
    lines = (copies["b"] / "gsm8k" / "test.jsonl").read_text().splitlines(keepends=True)
    (copies["b"] / "gsm8k" / "test.jsonl").write_text("".join(lines[1:] + lines[:1]))  # every id another question
    point = expand("hard-wins", "paper")[0]
    monkeypatch.setenv("COURSE_DATA_DIR", str(copies["a"]))
    out = tmp_path / "jobs"
    emit_slurm("hard-wins", "paper", out, time_limit="01:00:00", mem="8G")
    planned = json.loads((out / "grid.json").read_text())["files"]
    assert set(planned) == {"gsm8k data", "bbh data", "aime2025 data"}  # TASKs, and OOD_TASK (the profile's)
    on_a = inputs_sha256(point)["data_sha256"]
    emit_slurm("hard-wins", "paper", out, time_limit="01:00:00", mem="8G")  # the same copy: resumes
    monkeypatch.setenv("COURSE_DATA_DIR", str(copies["b"]))
    with pytest.raises(CourseError, match="was planned with another version of gsm8k data .* another COURSE_DATA_DIR"):
        emit_slurm("hard-wins", "paper", out, time_limit="01:00:00", mem="8G")
    assert inputs_sha256(point)["data_sha256"] != on_a  # a record copied in from copy A is not this copy's
    monkeypatch.setenv("COURSE_DATA_DIR", str(copies["a"]))  # round 26: a Finder's or an editor's file is no data
    for name in (".DS_Store", ".~lock.test.jsonl#", "test.jsonl~"):
        (copies["a"] / "gsm8k" / name).write_text("x")
    emit_slurm("hard-wins", "paper", out, time_limit="01:00:00", mem="8G")
    assert inputs_sha256(point)["data_sha256"] == on_a


def test_round_26_a_sweep_planned_on_hub_data_is_not_resumed_on_a_local_copy_nor_the_reverse(
        tmp_path, monkeypatch, shared_data):
    """Hostile round 26: a grid planned without COURSE_DATA_DIR (the hub's GSM8K) resumed on any local copy, even a
    20-line one, mixing two datasets in one table; the grid now says `hub` for each dataset read from the hub."""
    local = tmp_path / "local"
    for folder in ("gsm8k", "bbh", "aime2025"):
        (local / folder).mkdir(parents=True)
        for path in (shared_data / folder).glob("*.jsonl"):
            (local / folder / path.name).write_bytes(path.read_bytes())
    monkeypatch.delenv("COURSE_DATA_DIR", raising=False)
    out = tmp_path / "jobs"
    emit_slurm("hard-wins", "paper", out, time_limit="01:00:00", mem="8G")
    assert json.loads((out / "grid.json").read_text())["files"] == {
        "gsm8k data": "hub", "bbh data": "hub", "aime2025 data": "hub"}
    emit_slurm("hard-wins", "paper", out, time_limit="01:00:00", mem="8G")  # the hub again: resumes
    monkeypatch.setenv("COURSE_DATA_DIR", str(local))
    with pytest.raises(CourseError, match=f"^out={re.escape(str(out))} was planned reading (aime2025|bbh|gsm8k) from "
                                          r"the hub, and now reads it from a local copy \(COURSE_DATA_DIR\): .* set or "
                                          "unset COURSE_DATA_DIR as when it was planned, or use a new folder$"):
        emit_slurm("hard-wins", "paper", out, time_limit="01:00:00", mem="8G")
    there = tmp_path / "there"
    emit_slurm("hard-wins", "paper", there, time_limit="01:00:00", mem="8G")  # planned on the local copy
    monkeypatch.delenv("COURSE_DATA_DIR")
    with pytest.raises(CourseError, match=r"was planned reading (aime2025|bbh|gsm8k) from a local copy, and now reads "
                                          "it from the hub"):
        emit_slurm("hard-wins", "paper", there, time_limit="01:00:00", mem="8G")


def test_round_25_aggregate_keeps_a_field_added_to_provenance_by_hand(tmp_path):
    """Hostile round 25: a note added to provenance.json (the hardware) was dropped by the next `aggregate`."""
    records = [{"point": "a", "status": "ok", "seconds": 1.5, "commit": "def", "gain": {"test": 0.25}}]
    aggregate("demo", "smoke", tmp_path, records, "reproduce demo")
    path = tmp_path / "provenance.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "hardware": "node c07", "points": 99}))
    aggregate("demo", "smoke", tmp_path, records, "reproduce demo", this_run={"workers": 1})
    again = json.loads(path.read_text())
    assert again["hardware"] == "node c07"  # kept
    assert again["points"] == 1 and again["this_run"] == {"workers": 1}  # what aggregate writes is its own


def test_a_local_datasets_fingerprint_is_over_its_own_folder_whatever_the_length_of_its_name(tmp_path):
    from course_lib.research.sweep import dataset_sha256, fingerprint_of

    for folder in ("bbh", "math", "gsm8k", "aime2025"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "test.jsonl").write_text(f'{{"question": "{folder}?", "answer": "1"}}\n')
    fingerprints = [fingerprint_of(f"{folder} data", tmp_path) for folder in ("bbh", "math", "gsm8k", "aime2025")]
    assert fingerprints == [dataset_sha256(tmp_path / folder) for folder in ("bbh", "math", "gsm8k", "aime2025")]
    assert None not in fingerprints and len(set(fingerprints)) == 4
    assert fingerprint_of("gsm8k data", None) == "hub"


def test_the_tasks_a_point_reads_are_its_own_and_its_profiles_where_it_names_none():
    from course_lib.research.sweep import tasks_read

    assert tasks_read({"PROFILE": "paper"}) == {"gsm8k", "aime2025"}  # the profile's TASK and OOD_TASK
    assert tasks_read({"PROFILE": "paper", "TASK": "math"}) == {"math", "aime2025"}
    assert tasks_read({"PROFILE": "paper", "OOD_TASK": "bbh"}) == {"gsm8k", "bbh"}  # its own OOD_TASK, not the profile's
    assert tasks_read({"TASK": "gsm8k"}) == {"gsm8k"}  # no profile
    assert tasks_read({"PROFILE": "no-such", "TASK": "gsm8k"}) == {"gsm8k"}  # an unknown profile is refused elsewhere


def test_resumed_points_code_is_checked_at_every_commit_their_records_name(tmp_path, monkeypatch):
    """A +dirty commit's code is compared from its commit; a commit this clone lacks is warned about and the next
    is still checked; a commit whose code is unchanged passes; the changed files are named, three and a count."""
    import course_lib.research.sweep as sweep

    changed = {"a" * 40: [], "b" * 40: ["x.py", "y.py"], "c" * 40: ["p.py", "q.py", "r.py"],
               "d" * 40: ["1.py", "2.py", "3.py", "4.py", "5.py"], "f" * 40: ["z.py"]}
    monkeypatch.setattr(sweep, "git_commit", lambda: "e" * 40)
    monkeypatch.setattr(sweep, "code_changed_since", changed.get)  # None: a commit this clone does not hold
    sweep.check_same_code(tmp_path, [{"commit": "a" * 40}])  # other commit, same code
    with pytest.warns(UserWarning, match="uncommitted changes"), \
            pytest.raises(CourseError, match="at commit bbbbbbbbbbbb, and x.py, y.py changed since: the points"):
        sweep.check_same_code(tmp_path, [{"commit": "b" * 40 + "+dirty"}])
    with pytest.warns(UserWarning, match="at commit 000000000000, which this clone does not hold"), \
            pytest.raises(CourseError, match="at commit bbbbbbbbbbbb, and x.py, y.py changed since"):
        sweep.check_same_code(tmp_path, [{"commit": "0" * 40}, {"commit": "b" * 40}])
    with pytest.raises(CourseError, match="and p.py, q.py, r.py changed since"):
        sweep.check_same_code(tmp_path, [{"commit": "c" * 40}])
    with pytest.raises(CourseError, match=r"and 1.py, 2.py, 3.py and 2 more changed since"):
        sweep.check_same_code(tmp_path, [{"commit": "d" * 40}])
    with pytest.raises(CourseError, match="at commit ffffffffffff, and z.py changed since"):  # after the one here
        sweep.check_same_code(tmp_path, [{"commit": "e" * 40}, {"commit": "f" * 40}])


def test_a_job_script_edited_by_hand_is_kept_whatever_scripts_come_before_it(tmp_path):
    from course_lib.research.sweep import check_scripts_unedited

    (tmp_path / "warm.sh").write_text("as written")
    (tmp_path / "array.sh").write_text("edited by hand")
    with pytest.raises(CourseError, match="array.sh was changed after --emit-slurm wrote it"):
        check_scripts_unedited(tmp_path, {"warm.sh": "as written", "array.sh": "new"})


def test_keeps_every_row_reads_both_tables_as_csv(tmp_path):
    """Rows are compared as CSV reads them: an old table saved with a Mac spreadsheet's CR line ends holds the same
    rows, a quoted cell's CR-LF line break is kept as written in both tables, and an old table that is not UTF-8
    cannot be read, so it is not said to be kept."""
    from course_lib.research.sweep import keeps_every_row

    old = tmp_path / "results.csv"
    old.write_bytes(b"point,note\ra,ok\r")
    assert keeps_every_row(old, "point,note\na,ok\nb,ok\n")
    old.write_bytes(b'point,note\na,"two\r\nlines"\n')
    assert keeps_every_row(old, 'point,note\na,"two\r\nlines"\nb,ok\n')
    assert not keeps_every_row(old, 'point,note\na,"two\nlines"\nb,ok\n')
    old.write_bytes(b"point,note\na,x\ry\n")  # pandas writes a cell's bare CR unquoted: both tables split it alike
    assert keeps_every_row(old, "point,note\na,x\ry\nb,ok\n")
    old.write_bytes(b"point,note\na,caf\xe9\n")
    assert not keeps_every_row(old, "point,note\na,caf\xe9\n")


def test_a_finished_sweep_whose_provenance_predates_the_tables_sha256_is_resumed(tmp_path, monkeypatch):
    """run compares a results.csv already there with the table its records make now: one beside a provenance.json
    from before `results_sha256` is kept while it holds every row they make (only an edit is refused)."""
    import course_lib.research.sweep as sweep

    notebook = fake_experiment(tmp_path / "fake.ipynb")
    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"MODEL": "m"}, "grid": {"smoke": {"STRATEGY": ["hard"], "SEED": [0]}}})
    out = tmp_path / "out"
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)
    provenance = json.loads((out / "provenance.json").read_text())
    del provenance["results_sha256"]
    (out / "provenance.json").write_text(json.dumps(provenance))
    monkeypatch.setattr(sweep, "run_points", lambda waves, *args: not any(waves) or pytest.fail("a point ran"))
    run("demo", "smoke", out, workers=1, progress=False, notebook=notebook)  # nothing to run, nothing refused
    assert pd.read_csv(out / "results.csv")["point"].tolist() == [path.stem for path in (out / "points").glob("*.json")]
