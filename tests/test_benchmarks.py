"""Every benchmark script runs as shipped (in its --smoke mode, numbers not asserted) and writes its results only
when asked (--write): a test run leaves the committed benchmarks/results/ untouched."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


def run_benchmark(script: str, *args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """`python benchmarks/<script> ARGS` from `cwd`, with this checkout's course_lib importable."""
    environment = {**os.environ, "OMP_NUM_THREADS": "1", **(env or {}),
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=900)


@pytest.fixture
def committed_results():
    """The committed results' bytes before the test; asserts afterwards that none changed and none was added."""
    before = {path.name: path.read_bytes() for path in RESULTS.iterdir()}
    yield before
    after = {path.name: path.read_bytes() for path in RESULTS.iterdir()}
    assert after == before, "a benchmark run without --write changed benchmarks/results/"


def test_sampling_benchmark_smoke_prints_its_numbers_and_writes_nothing(tmp_path, committed_results):
    done = run_benchmark("bench_sampling.py", "--smoke", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert result["model"] == "tiny-s" and result["batched_completions_per_cpu_s"] > 0 and result["speedup"] > 0
    assert set(result["cpu_seconds"]) == {"batched", "one_batched_generate", "one_prompt_per_call"}


@pytest.mark.slow
def test_training_benchmark_smoke_runs_both_trainers_quietly(tmp_path, committed_results):
    done = run_benchmark("bench_training.py", "--smoke", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)  # stdout is the result alone: no metrics dict per step from bare TRL
    assert result["model"] == "tiny-s" and result["steps"] == 3
    assert result["bare_trl_median_step_s"] > 0 and result["train_grpo_median_step_s"] > 0
    assert "'loss'" not in done.stderr and "Loading weights" not in done.stderr, done.stderr[-3000:]


@pytest.mark.slow
def test_notebook_times_smoke_runs_one_notebook_and_writes_nothing(tmp_path, committed_results):
    done = run_benchmark("notebook_times.py", "--smoke", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("02_zero_variance_groups.ipynb {'seconds':"), done.stdout


@pytest.mark.slow
def test_paper_cost_estimate_runs(tmp_path, committed_results, shared_data):
    done = run_benchmark("paper_cost.py", "--data-dir", str(shared_data), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "| hard-wins |" in done.stdout and "| capacity-boundary |" in done.stdout


def test_suite_times_runs_the_suite_as_the_makefile_does():
    import importlib.util

    spec = importlib.util.spec_from_file_location("suite_times", ROOT / "benchmarks" / "suite_times.py")
    suite_times = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(suite_times)
    assert f"TEST_WORKERS ?= {' '.join(suite_times.WORKERS)}\n" in (ROOT / "Makefile").read_text()


def test_suite_times_smoke_times_one_test_file_and_writes_nothing(tmp_path, committed_results):
    done = run_benchmark("suite_times.py", "--smoke", "--per-test", "3", "--write", cwd=tmp_path)  # no write in smoke
    assert done.returncode == 0, done.stderr[-3000:]
    record = json.loads(done.stdout)
    assert record["target"] == "smoke" and record["passed"] > 0 and "failed" not in record, record
    cpu = [row[0] for row in record["most_cpu_seconds"]]
    assert len(cpu) == 3 and cpu == sorted(cpu, reverse=True) and record["most_cpu_seconds"][0][2].startswith("tests/")
    assert len(record["load_average_1min_before_after"]) == 2


def test_the_benchmarks_page_quotes_the_recorded_results():
    from course_lib.classroom.notebooks import format_runtime

    page = (ROOT / "docs" / "benchmarks.md").read_text()
    sampling = json.loads((RESULTS / "sampling.json").read_text())
    assert (f"{sampling['batched_completions_per_cpu_s']} completions per CPU second on {sampling['model']} against "
            f"{sampling['one_prompt_per_call_completions_per_cpu_s']}") in page
    assert f"a {sampling['speedup']}x speed-up" in page
    assert (f"{sampling['one_batched_generate_completions_per_cpu_s']} completions per CPU second, a "
            f"{sampling['speedup_of_one_batched_generate']}x speed-up") in page
    readme = " ".join((ROOT / "README.md").read_text().split())  # its lines wrap anywhere
    assert f"a {sampling['speedup']}x speed-up over one prompt per `generate` call on {sampling['model']}" in readme
    training = json.loads((RESULTS / "training.json").read_text())
    assert f"{training['train_grpo_median_step_s']} s against {training['bare_trl_median_step_s']} s" in page
    assert f"{training['overhead_percent']}% overhead" in page
    notebooks = json.loads((RESULTS / "notebook_times_tiny.json").read_text())["notebooks"]
    assert f"add up to {format_runtime(sum(n['seconds'] for n in notebooks.values()))}" in page
    suites = json.loads((RESULTS / "suite_times.json").read_text()) if (RESULTS / "suite_times.json").exists() else {}
    for target, record in suites.items():
        load = "-".join(str(x) for x in record["load_average_1min_before_after"])
        assert (f"`make {target}`: {record['passed']} tests passed in {format_runtime(record['seconds'])} "
                f"({format_runtime(record['cpu_seconds'])} of CPU time) at a load average of {load}") in page, target
    if {"test-fast", "test"} <= suites.keys():  # the README's one sentence on the tests' times
        assert (f"`make test-fast` took {format_runtime(suites['test-fast']['seconds'])} and `make test` "
                f"{format_runtime(suites['test']['seconds'])}") in readme


@pytest.fixture(scope="module")
def mutation():
    """benchmarks/mutation.py's functions and tables (a script, not a package: loaded by path)."""
    import runpy

    return runpy.run_path(str(ROOT / "benchmarks" / "mutation.py"), run_name="mutation")


def test_mutation_triage_is_used_only_for_the_change_it_was_written_for(mutation, monkeypatch):
    kind_of, triage = mutation["kind_of"], mutation["TRIAGE"]
    diff = "--- a\n+++ b\n-    x = f(a, 1)\n+    x = f(a, 2)"
    monkeypatch.setitem(triage, "m.x_f__mutmut_1", ("equivalent", "why", "f(a, 2)"))
    assert kind_of("m.x_f__mutmut_1", diff) == ("equivalent", "why")
    monkeypatch.setitem(triage, "m.x_f__mutmut_1", ("equivalent", "why", "f(a, 3)"))  # the mutant is now another
    assert kind_of("m.x_f__mutmut_1", diff)[0] == "unexplained"
    message = '--- a\n+++ b\n-    check(x, "bad x; fix it")\n+    check(x, "XXbad x; fix itXX")'
    assert kind_of("m.x_g__mutmut_1", message)[0] == "message"
    assert kind_of("m.x_g__mutmut_2", diff)[0] == "unexplained"


@pytest.mark.parametrize(("removed", "added", "wording"), [
    ('check(x > 0, "x must be > 0")', 'check(x > 0, "XXx must be > 0XX")', True),
    ('check(kind != "dr_grpo" or n, f"kind={kind!r} is bad")', 'check(kind != "XXdr_grpoXX" or n, f"kind={kind!r} is bad")',
     False),  # a string of the condition: what is checked changes
    ('check(kind in ("a", "b"), "no")', 'check(kind in ("a", "B"), "no")', False),
    ('check(kind in ("a", "b"),', 'check(kind in ("a", "B"),', False),  # the message is on a later line
    ('check(ok)', 'check(ok)  ', False),
    ('raise CourseError(f"{path} is damaged")', 'raise CourseError(f"XX{path} is damagedXX")', True),
    ('          "give that study or another folder")', '          "XXgive that study or another folderXX")', True),
    ('mode = "colocate"', 'mode = "COLOCATE"', False),
])
def test_only_a_message_s_own_text_counts_as_wording(mutation, removed, added, wording):
    assert mutation["is_message_wording"](f"--- a\n+++ b\n-{removed}\n+{added}") is wording


def test_mutation_report_names_every_run_whose_verdicts_it_holds(mutation, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert mutation["mutmut_runs"]() == []
    assert "commit of the verdicts is unknown" in mutation["runs_sentence"]([])
    (tmp_path / "mutants").mkdir()
    (tmp_path / "mutants" / "runs.log").write_text(
        "abc1234 2026-12-01T23:01Z unchecked\n\ndef5678 2026-12-02T08:02Z course_lib.answers.*\n")
    runs = mutation["mutmut_runs"]()
    assert runs == [{"commit": "abc1234", "started": "2026-12-01T23:01Z", "mutants": "unchecked"},
                    {"commit": "def5678", "started": "2026-12-02T08:02Z", "mutants": "course_lib.answers.*"}]
    assert mutation["runs_sentence"](runs) == (
        "The run began at commit abc1234 (2026-12-01T23:01Z); it was resumed at def5678 (2026-12-02T08:02Z: "
        "course_lib.answers.*). Each verdict used the tests of the run that reached it.")
    names = "course_lib.research.sweep.x_a__mutmut_1 course_lib.research.sweep.x_a__mutmut_2 course_lib.answers.x_b__mutmut_3 " \
            "course_lib.research.sweep.x_c__mutmut_4"
    assert mutation["runs_sentence"](runs[:1] + [{"commit": "f", "started": "t", "mutants": names}]).endswith(
        "resumed at f (t: 4 named mutants again (sweep 3, answers 1)). Each verdict used the tests of the run that "
        "reached it.")
    methods = " ".join(f"course_lib.training.config.xǁCourseConfigǁ__post_init____mutmut_{n}" for n in (1, 2, 3)) \
        + " course_lib.training.x_train_grpo__mutmut_4"  # a method's mutants count for its module's row
    assert "(t: 4 named mutants again (config 3, training 1))" in mutation["runs_sentence"](
        runs[:1] + [{"commit": "f", "started": "t", "mutants": methods}])
    patterns = "*answers* *sweep* *prompts* *grpo*"  # globs are shown as given
    assert f"(t: {patterns})" in mutation["runs_sentence"](runs[:1] + [{"commit": "f", "started": "t", "mutants": patterns}])
    (tmp_path / "mutants" / "runs.log").write_bytes(b"abc1234\nde\xff 2026-12-02T08:02Z x\n")  # cut short; not UTF-8
    assert [run["commit"] for run in mutation["mutmut_runs"]()] == ["abc1234", "de\ufffd"]
    assert mutation["runs_sentence"](mutation["mutmut_runs"]()).startswith("The run began at commit abc1234 (?)")


def test_mutation_report_notes_how_many_mutants_each_timed_run_left_tested(mutation, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mutants").mkdir()
    log = tmp_path / "mutants" / "time.log"
    log.write_text("3000.1 900.2 2383.74\nCommand terminated by signal 15\n")  # GNU time's own line is skipped
    killed = {"grpo": {"g.x_f__mutmut_1": "killed", "g.x_f__mutmut_2": "not checked"}}
    assert mutation["timing"](killed) == {"logged_runs": 1, "wall_seconds": [2384], "tested": 1, "tested_after_run": [1]}
    log.write_text(log.read_text() + "129.2 17.0 138.05\n")
    both = {"grpo": {"g.x_f__mutmut_1": "killed", "g.x_f__mutmut_2": "survived"}}
    assert mutation["timing"](both)["tested_after_run"] == [1, 2]
    assert mutation["timing"](killed)["tested_after_run"] == [1, 2]  # a count is noted once, right after its run
    assert (tmp_path / "mutants" / "checked.log").read_text() == "1 1\n2 2\n"


def test_mutation_runs_whose_tests_did_not_run_are_no_verdict(mutation):
    status_of = mutation["status_of"]
    assert [status_of(code) for code in (1, 0, 36, 33, None)] == ["killed", "survived", "timeout", "no tests",
                                                                  "not checked"]
    assert {status_of(code) for code in (255, 4, 2, 34)} == {"not run"}  # pytest raised, usage error, interrupted, skipped
    results = {"answers": {"a.x_f__mutmut_1": "killed", "a.x_f__mutmut_2": "not run"}}
    summary = mutation["summarise"](results, {})
    assert summary["modules"]["answers"]["tested"] == 1 and summary["complete"] is False
    assert mutation["summarise"]({"answers": {"a.x_f__mutmut_1": "killed"}}, {})["complete"] is True


def test_mutation_verdicts_saved_with_a_report_are_restored_into_a_fresh_mutants_folder(mutation, tmp_path,
                                                                                        monkeypatch):
    """mutants/ is not in git, so a run stopped at a session's end was lost with its machine; its verdicts now travel
    in benchmarks/results/mutation-verdicts.json, and mutmut reads them back as its own .meta files."""
    save, restore = mutation["save_verdicts"], mutation["restore_verdicts"]
    monkeypatch.setitem(save.__globals__, "VERDICTS_FILE", tmp_path / "verdicts.json")
    monkeypatch.chdir(tmp_path)
    meta = tmp_path / "mutants" / "course_lib" / "grpo.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {"course_lib.grpo.x_f__mutmut_1": 1, "course_lib.grpo.x_f__mutmut_2": 0},
                                "hash_by_function_name": {"f": "abc"}, "type_check_error_by_key": {},
                                "durations_by_key": {"course_lib.grpo.x_f__mutmut_1": 1.5},
                                "estimated_durations_by_key": {}}))
    (tmp_path / "mutants" / "runs.log").write_text("abc1234 2026-12-01T23:01Z unchecked\n")
    save()
    assert restore() == 0  # a mutants/ that has verdicts of its own keeps them
    shutil.rmtree(tmp_path / "mutants")
    assert restore() == 2
    restored = json.loads(meta.read_text())
    assert restored["exit_code_by_key"] == {"course_lib.grpo.x_f__mutmut_1": 1, "course_lib.grpo.x_f__mutmut_2": 0}
    assert restored["hash_by_function_name"] == {"f": "abc"} and restored["durations_by_key"] == {}
    assert (tmp_path / "mutants" / "runs.log").read_text() == "abc1234 2026-12-01T23:01Z unchecked\n"

    from mutmut.mutation.data import SourceFileMutationData  # mutmut reads it as its own

    data = SourceFileMutationData(path=Path("course_lib") / "grpo.py")
    data.load()
    assert data.exit_code_by_key["course_lib.grpo.x_f__mutmut_2"] == 0
