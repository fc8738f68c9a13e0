"""Bad input on the command line: one line on stderr naming the parameter or file and the fix, exit status 2,
before any long work. The table of what is covered is docs/bad_inputs.md."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli_in_process


def run_cli(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "course_lib", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Broken inputs of every kind, made once."""
    root = tmp_path_factory.mktemp("bad")
    (root / "empty.csv").write_text("")
    (root / "binary.csv").write_bytes(bytes(range(256)) * 4)
    (root / "folder").mkdir()
    (root / "a-file").write_text("not a folder")
    (root / "corrupt.json").write_text('{"per_problem": [')
    (root / "no-rows.json").write_text(json.dumps({"overall": {"accuracy": 0.5}}))
    (root / "ids.txt").write_text("arith-x\n")
    gsm8k = root / "data" / "gsm8k"
    gsm8k.mkdir(parents=True)
    (gsm8k / "test.jsonl").write_bytes(b'{"question": "q", "answer": "#### 1"}\n{"question": "\xff\xfe", "answer": "#### 2"}\n')
    bad_grid = root / "sweep"
    bad_grid.mkdir()
    (bad_grid / "grid.json").write_text("{not json")
    return root


CASES = [  # (arguments, expected message); FILES stands for the fixture's folder
    (["select", "--table", "FILES/empty.csv", "--strategy", "hard", "--budget", "0.1", "--out", "FILES/ids.txt"],
     "table=FILES/empty.csv is not a CSV table (EmptyDataError)"),
    (["select", "--table", "FILES/binary.csv", "--strategy", "hard", "--budget", "0.1", "--out", "FILES/o.txt"],
     "table=FILES/binary.csv is not a CSV table"),
    (["select", "--table", "FILES/folder", "--strategy", "hard", "--budget", "0.1", "--out", "FILES/o.txt"],
     "table=FILES/folder is a folder"),
    (["select", "--table", "FILES/empty.csv", "--strategy", "levels", "--levels", "a", "--budget", "1.0",
      "--out", "FILES/o.txt"], "is not a CSV table"),
    (["generate", "--levels", "x"], "levels='x' must be comma-separated integers"),
    (["estimate", "--model", "tiny-s", "--out", ""], "out is empty or '.', the current folder; give a file path"),
    (["evaluate", "--model", "tiny-s", "--out", "."], "out is empty or '.', the current folder; give a file path"),
    (["estimate", "--model", "tiny-s", "--out", "/dev/null"], "out=/dev/null is not a regular file (a device"),
    (["estimate", "--model", "tiny-s", "--out", "FILES/folder"], "out=FILES/folder is a folder"),
    (["estimate", "--model", "tiny-s", "--out", "/proc/course-table.csv"], "cannot be written"),
    (["estimate", "--model", "tiny-s", "--n", "4", "--k", "2", "--cache-dir", "FILES/a-file", "--out", "FILES/t.csv"],
     "cache_dir=FILES/a-file is a file"),
    (["estimate", "--model", "tiny-s", "--task", "gsm8k", "--split", "test", "--data-dir", "FILES/data",
      "--out", "FILES/t.csv"], "FILES/data/gsm8k/test.jsonl:2: not valid UTF-8"),
    (["train", "--model", "tiny-s", "--task", "arith", "--ids", "FILES/folder", "--out", "FILES/run"],
     "ids=FILES/folder is a folder"),
    (["train", "--model", "tiny-s", "--task", "arith", "--ids", "FILES/ids.txt", "--out", "FILES/a-file"],
     "out=FILES/a-file is a file"),
    (["compare", "--after", "FILES/corrupt.json", "--before", "FILES/no-rows.json", "--out", "FILES/c.json"],
     "after=FILES/corrupt.json is not valid JSON"),
    (["compare", "--after", "FILES/no-rows.json", "--before", "FILES/no-rows.json", "--out", "FILES/c.json"],
     "after=FILES/no-rows.json has no per_problem rows"),
    (["evaluate", "--model", "tiny-s", "--temperature", "0", "--k", "50", "--out", "FILES/e.json"],
     "temperature=0 samples greedily: all k=50 samples of a problem would be the same answer"),
    (["estimate", "--model", "tiny-s", "--temperature", "0", "--k", "8", "--out", "FILES/t.csv"],
     "a pass rate needs samples that can differ: give a temperature above 0"),
    (["train", "--model", "tiny-s", "--save-only-model", "true", "--out", "FILES/run"],
     "save_only_model=True saves checkpoints without the optimizer state a killed run resumes from"),
    (["train", "--model", "tiny-s", "--ignore-data-skip", "true", "--out", "FILES/run"],
     "ignore_data_skip=True would resume a killed run on the prompts it already trained on"),
    (["train", "--model", "tiny-s", "--resume-from-checkpoint", "FILES/run/checkpoint-4", "--out", "FILES/run"],
     "a run resumes from the newest checkpoint in its own folder when the same train command runs again"),
    # round 19 (a maintainer's trial): shown by train --help, then an 89- and a 29-line traceback mid-run
    (["train", "--model", "tiny-s", "--push_to_hub", "true", "--out", "FILES/run"],
     "push_to_hub=True: the course trains offline"),
    (["train", "--model", "tiny-s", "--eval_strategy", "steps", "--out", "FILES/run"],
     "eval_strategy='steps': train_grpo has no evaluation set during training"),
    (["reproduce", "hard-wins", "--profile", "smoke", "--out", "FILES/a-file"], "out=FILES/a-file is a file"),
    (["reproduce", "hard-wins", "--profile", "smoke", "--out", "FILES/sweep"], "FILES/sweep/grid.json"),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=[" ".join(a[:1] + [m[:30]]) for a, m in CASES])
def test_bad_input_is_one_line_naming_it_and_status_2(args, message, files):
    done = run_cli_in_process(*[a.replace("FILES", str(files)) for a in args])
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert message.replace("FILES", str(files)) in lines[0], lines[0]


def test_cache_folder_from_the_environment_naming_a_file(files):
    done = run_cli("estimate", "--model", "tiny-s", "--n", "4", "--k", "2", "--out", str(files / "t.csv"),
                   env={"COURSE_CACHE_DIR": str(files / "a-file")})
    assert done.returncode == 2 and "COURSE_CACHE_DIR=" in done.stderr and "is a file" in done.stderr


def test_a_reader_that_closes_the_pipe_stops_the_command_quietly():
    """`python -m course_lib generate ... | head -1`: no error line or traceback, and the shell's status for SIGPIPE.
    2,500 problems (about 470 kB) are far more than a pipe's buffer holds, so a write after the reader left fails."""
    process = subprocess.Popen([sys.executable, "-m", "course_lib", "generate", "--task", "arith", "--n", "2500"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "OMP_NUM_THREADS": "1"})
    first = json.loads(process.stdout.readline())
    process.stdout.close()  # what `head -1` does once it has its line
    with process.stderr:
        stderr = process.stderr.read().decode()
    assert first["source"] == "arith" and process.wait(timeout=120) == 141 and stderr == ""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="/dev/full (a device that is always full) is Linux's")
@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_standard_output_on_a_full_disk_is_one_line_that_says_the_files_are_whole(tmp_path, unbuffered):
    """`select ... > file` on a full disk: the ids file is written; the line names standard output, not a path."""
    table, out = tmp_path / "t.csv", tmp_path / "ids.txt"
    table.write_text("id,level,pass_rate\na,1,0.5\nb,2,0.25\n")
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "course_lib", "select", "--table", str(table), "--strategy", "hard",
                               "--budget", "1", "--out", str(out)], stdout=full, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONUNBUFFERED": unbuffered}, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip() == ("error: standard output could not be written (No space left on device): what the "
                                   "command printed is incomplete; the files it wrote (--out) are whole")
    assert out.read_text() == "b\n"


def test_ctrl_c_while_the_interpreter_shuts_down_after_a_finished_command_is_ignored():
    """A Ctrl-C landing after the command finished (in an exit handler, as torch's and accelerate's run) prints no
    traceback and the status is the command's own."""
    script = ("import atexit, os, signal, sys, time\n"
              "from course_lib.__main__ import command_line\n"
              "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(0.5)))\n"
              "sys.argv = ['course-lib', 'generate', '--n', '1']\n"
              "command_line()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 0 and "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done
    assert json.loads(done.stdout.splitlines()[0])["id"]


def test_ctrl_c_prints_one_line_and_resuming_is_the_default(tmp_path):
    """Interrupted, `estimate` prints one line saying how to resume (its cached chunks) and writes no table.

    The interrupt is sent once the first chunk is on disk (so the handler is in place), never after a fixed sleep;
    the pool is 63 chunks of tiny-m's completions (tens of seconds of sampling even on an idle machine), so the command
    cannot finish between that moment and the signal."""
    out, cache = tmp_path / "table.csv", tmp_path / "cache"
    args = [sys.executable, "-m", "course_lib", "estimate", "--model", "tiny-m", "--n", "2000", "--k", "4",
            "--max-new-tokens", "64", "--out", str(out), "--cache-dir", str(cache)]
    # SIGINT at its default in the child: a suite started in the background (`cmd &` in a script) ignores SIGINT,
    # the child would inherit that, and Python installs its Ctrl-C handler only where SIGINT is not ignored
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "OMP_NUM_THREADS": "1"},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 300
    while not list(cache.glob("*/chunk-*.json")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, f"estimate ended before its first chunk was interrupted:\n{process.communicate()}"
    assert list(cache.glob("*/chunk-*.json")), "no chunk cached within 300 s"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    assert stderr.strip().splitlines()[-1].startswith("interrupted; run the same command again to resume")
    assert not out.exists()


@pytest.mark.parametrize(("n", "said"), [(4, "wrote 4 rows"), (1, "wrote 1 row to")])  # round 35: "1 rows"
def test_quiet_prints_only_the_result(tmp_path, n, said):
    done = run_cli("estimate", "--model", "tiny-s", "--n", str(n), "--k", "2", "--quiet", "--no-cache",
                   "--out", str(tmp_path / "t.csv"))
    assert done.returncode == 0 and done.stderr.strip() == "", done.stderr
    assert done.stdout.startswith(said)


@pytest.mark.parametrize(("content", "real_entry_point"), [
    ("{}", True),  # once as a user runs it: nothing that importing TRL prints may reach stderr
    ("{not json", False), ('{"config": 3, "model": "tiny-s", "problem_ids": []}', False)])
def test_a_damaged_run_config_is_one_line(content, real_entry_point, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run_config.json").write_text(content)
    cli = run_cli if real_entry_point else run_cli_in_process
    done = cli("train", "--model", "tiny-s", "--task", "arith", "--n", "4", "--steps", "1", "--out", str(run))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "run_config.json is damaged" in done.stderr


def test_a_python_without_the_environment_gets_one_line_saying_make_env():
    """Outside the environment (here: torch made unimportable) the CLI says so in one line, not a traceback."""
    code = ("import sys; sys.modules['torch'] = None; from course_lib.__main__ import main; "
            "sys.exit(main(['generate', '--task', 'arith', '--n', '1']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "no module 'torch'" in done.stderr and "make env" in done.stderr and "source .venv/bin/activate" in done.stderr


def test_a_pool_the_model_never_solves_stops_estimate_naming_allow_zero(standin_model, tmp_path):
    """The stand-in answers nothing: 60 problems all at pass rate 0 stop `estimate` with the CLI's own way on."""
    args = ["estimate", "--model", str(standin_model), "--task", "arith", "--n", "60", "--k", "2",
            "--max-new-tokens", "8", "--no-cache", "--quiet", "--out", str(tmp_path / "t.csv")]
    done = run_cli(*args)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "100% of 60 problems have pass rate 0" in done.stderr and "pass --allow-zero" in done.stderr
    assert "check_pass_rates" not in done.stderr and not (tmp_path / "t.csv").exists()
    assert run_cli_in_process(*args, "--allow-zero").returncode == 0  # the refusal above ran as a user runs it


def test_library_deprecations_are_filtered_but_other_warnings_are_not():
    """course_lib.classroom.quiet ignores the FutureWarnings transformers raises about names TRL and PEFT use, nothing else."""
    code = ("import warnings, course_lib\n"
            "from transformers import TrainingArguments\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    warnings.filterwarnings('default')\n"
            "    course_lib.classroom.quiet.filter_library_deprecations()\n"
            "    TrainingArguments(output_dir='unused', gradient_checkpointing=True, report_to='none')\n"
            "    warnings.warn('`gradient_checkpointing` is deprecated, says the course itself', FutureWarning)\n"
            "print([str(w.message) for w in caught])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['`gradient_checkpointing` is deprecated, says the course itself']", done.stdout


def test_in_process_runs_answer_as_the_real_entry_point_does(files):
    """The bad-input tables run in-process (conftest.run_cli_in_process); one case through both ways agrees."""
    args = ["select", "--table", str(files / "empty.csv"), "--strategy", "hard", "--budget", "0.1",
            "--out", str(files / "ids.txt")]
    real, in_process = run_cli(*args), run_cli_in_process(*args)
    assert (real.returncode, real.stderr, real.stdout) == (in_process.returncode, in_process.stderr, in_process.stdout)


@pytest.mark.parametrize(("content", "said"), [
    (b"\x00\x01\xff", "is not a text file of ids (not UTF-8)"),
    (b"arith-a\narith-b\narith-a\n", "names 'arith-a' more than once"),
    (b"id,level,pass_rate\narith-a,1,0.5\n", "is a table (its first line is a CSV header: id,level,pass_rate...); "
                                            "give the ids file `select` writes from it"),
])
def test_an_ids_file_that_is_binary_repeats_an_id_or_is_a_table_is_refused(tmp_path, content, said):
    ids = tmp_path / "ids.txt"
    ids.write_bytes(content)
    done = run_cli_in_process("train", "--model", "tiny-s", "--n", "8", "--ids", ids, "--steps", "1",
                              "--out", tmp_path / "run")
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("flag", [["--task", "arith"], ["--n", "30"]])
def test_a_table_given_as_ids_is_named_a_table_even_with_its_estimate_provenance_and_a_pool_flag(tmp_path, flag):
    """Hostile round 35: `train --task arith --ids table.csv`, the table `estimate` wrote from a jsonl file, said
    `--task=arith contradicts the pool select recorded in table.csv.provenance.json`: the table's own provenance was
    read as select's, and the advice (leave the flag out) led to the next error. The mix-up is named first."""
    table = tmp_path / "table.csv"
    table.write_text("id,level,source,k,n_correct,pass_rate\nq1,,arith,2,1,0.5\n")
    (tmp_path / "table.csv.provenance.json").write_text(json.dumps(
        {"command": "python -m course_lib estimate --task jsonl:my.jsonl", "pool": {"task": "jsonl:my.jsonl", "n": 20}}))
    done = run_cli_in_process("train", "--model", "tiny-s", *flag, "--ids", table, "--steps", "1",
                              "--out", tmp_path / "run")
    assert done.returncode == 2 and "is a table (its first line is a CSV header" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "run").exists()


def test_a_run_config_without_a_model_name_is_damaged_not_a_traceback(tmp_path):
    run = tmp_path / "run"
    (run / "final").mkdir(parents=True)
    (run / "run_config.json").write_text('{"model": null, "config": {}, "problem_ids": []}')
    done = run_cli_in_process("evaluate", "--model", run, "--n", "2", "--k", "2", "--out", tmp_path / "e.json")
    assert done.returncode == 2 and "run_config.json is damaged or missing" in done.stderr, done.stderr


def test_a_closed_stdout_is_no_traceback(tmp_path):
    """`python -m course_lib generate >&-`: Python starts with sys.stdout None."""
    done = subprocess.run([sys.executable, "-m", "course_lib", "generate", "--n", "3"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize(("rows", "said"), [
    ([{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}] * 2, "lists problem 'a' more than once"),
    ([{"id": "a", "k": 2, "n_correct": 0, "pass_rate": 1.0}], "has pass_rate 1.0 but 0 of 2 correct"),
    ([{"id": "a", "k": 2, "n_correct": 3, "pass_rate": 1.5}], "has pass_rate 1.5 but 3 of 2 correct"),
    ([{"id": "a", "k": 2, "n_correct": True, "pass_rate": 0.5}], "has pass_rate 0.5 but True of 2 correct"),
])
def test_compare_refuses_an_evaluation_that_counts_a_problem_twice_or_disagrees_with_itself(tmp_path, rows, said):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"per_problem": [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}]}))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"per_problem": rows}))
    done = run_cli_in_process("compare", "--after", bad, "--before", good, "--out", tmp_path / "gain.json")
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (tmp_path / "gain.json").exists()


@pytest.mark.parametrize(("setting", "after", "before"), [
    ("k", 4, 2), ("temperature", 0.0, 1.0), ("max_new_tokens", 4, 16), ("task", "arith", "shuffle"),
    ("answer_format", "hash", "boxed"), (None, 0, 0)])
def test_compare_refuses_evaluations_sampled_differently_or_one_file_twice(tmp_path, setting, after, before):
    settings = {"task": "arith", "split": "test", "k": 2, "temperature": 1.0, "max_new_tokens": 16}
    for name, value in (("after", after), ("before", before)):
        file = {**settings, **({setting: value} if setting else {})}
        rows = [{"id": "a", "k": file["k"], "n_correct": 1, "pass_rate": 1 / file["k"]}]  # each row as its file
        (tmp_path / f"{name}.json").write_text(json.dumps({"per_problem": rows, **file}))
    second = tmp_path / ("before.json" if setting else "after.json")
    done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", second,
                              "--out", tmp_path / "gain.json")
    said = (f"evaluated with different {setting} ({after!r} against {before!r}); evaluate both models with the same "
            "settings" if setting else f"after and before are the same file ({tmp_path / 'after.json'})")
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not (tmp_path / "gain.json").exists()


def test_compare_refuses_a_hard_link_to_one_file_and_notes_identical_results(tmp_path):
    """A hard link (or a copy) of one evaluation gave "gain +0.0000 [+0.0000, +0.0000]": training changed nothing."""
    settings = {"task": "arith", "split": "test", "k": 2, "temperature": 1.0, "max_new_tokens": 16}
    rows = [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}, {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0}]
    (tmp_path / "after.json").write_text(json.dumps({"per_problem": rows, **settings}))
    os.link(tmp_path / "after.json", tmp_path / "linked.json")
    done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", tmp_path / "linked.json",
                              "--out", tmp_path / "gain.json")
    assert done.returncode == 2 and "after and before are the same file" in done.stderr, done.stderr
    (tmp_path / "copy.json").write_text((tmp_path / "after.json").read_text())
    done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", tmp_path / "copy.json",
                              "--out", tmp_path / "gain.json")
    assert done.returncode == 0 and "hold the same results for every problem" in done.stderr, done.stderr
    # hostile round 25: two different models that happen to agree are not "one model evaluated twice"
    (tmp_path / "other.json").write_text(json.dumps({"per_problem": rows, **settings, "model": "run1"}))
    (tmp_path / "base.json").write_text(json.dumps({"per_problem": rows, **settings, "model": "tiny-s"}))
    done = run_cli_in_process("compare", "--after", tmp_path / "other.json", "--before", tmp_path / "base.json",
                              "--out", tmp_path / "gain2.json")
    assert done.returncode == 0 and "one model evaluated twice" not in done.stderr, done.stderr
    assert "after's model (run1) and before's (tiny-s) gave the same results on every problem" in done.stderr


def test_compare_notes_when_after_and_before_look_swapped(tmp_path):
    """A trained run given as --before and its base model as --after: the gain came out with its sign flipped, and
    nothing said so."""
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run_config.json").write_text("{}")
    settings = {"task": "arith", "split": "test", "k": 2, "temperature": 1.0, "max_new_tokens": 16}
    for name, model, n in (("base.json", "tiny-s", 0), ("trained.json", str(tmp_path / "run"), 2)):
        rows = [{"id": i, "k": 2, "n_correct": n, "pass_rate": n / 2} for i in "ab"]
        (tmp_path / name).write_text(json.dumps({"per_problem": rows, "model": model, **settings}))
    done = run_cli_in_process("compare", "--after", tmp_path / "base.json", "--before", tmp_path / "trained.json",
                              "--out", tmp_path / "gain.json")
    assert done.returncode == 0 and "the other way round" in done.stderr, done.stderr
    done = run_cli_in_process("compare", "--after", tmp_path / "trained.json", "--before", tmp_path / "base.json",
                              "--out", tmp_path / "gain2.json")
    assert done.returncode == 0 and "the other way round" not in done.stderr, done.stderr


@pytest.mark.parametrize(("setting", "after", "before"), [("max_new_tokens", 96, 12), ("temperature", 1.0, 0.5),
                                                      ("answer_format", "hash", "boxed")])
def test_the_librarys_compare_refuses_what_the_command_line_refuses(setting, after, before):
    """`course_lib.compare` (what notebooks and a student's code call) checks the settings the CLI checks, except K
    (a study's base model is sampled more than each trained one: a pass rate estimates the same p at any K)."""
    from course_lib import CourseError, compare

    rows = [{"id": i, "k": 4, "n_correct": 1, "pass_rate": 0.25, "level": 1} for i in "ab"]
    many = [{**row, "k": 64, "n_correct": 16} for row in rows]  # the same pass rate from 64 samples
    assert compare({"per_problem": rows, "k": 4}, {"per_problem": many, "k": 64})["mean_difference"] == 0
    with pytest.raises(CourseError, match=f"evaluated with different {setting}"):
        compare({"per_problem": rows, setting: after}, {"per_problem": rows, setting: before})
    level_two = [{**row, "level": 2} for row in rows]
    with pytest.raises(CourseError, match="problem 'a' has level 2 in after but 1 in before"):
        compare({"per_problem": level_two}, {"per_problem": rows})


@pytest.mark.parametrize(("before_sha", "same"), [("1" * 64, True), ("2" * 64, False), (None, None)])
def test_compare_notes_when_after_and_before_have_different_base_models(tmp_path, before_sha, same):
    """A run trained from tiny-s compared with tiny-m measures a change of model as well as training: said in one
    note, and recorded (`same_base_model`); unknown bases (an older file) are not guessed."""
    rows = [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}, {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0}]
    for name, sha in (("after", "1" * 64), ("before", before_sha)):
        base = {"model.safetensors": sha, "config.json": "3" * 64} if sha else None
        (tmp_path / f"{name}.json").write_text(json.dumps({"per_problem": rows, "model": name, "base_sha256": base}))
    done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", tmp_path / "before.json",
                              "--out", tmp_path / "gain.json")
    assert done.returncode == 0, done.stderr
    assert ("another base model than before's" in done.stderr) is (same is False), done.stderr
    assert json.loads((tmp_path / "gain.json").read_text())["same_base_model"] is same


def test_evaluate_records_the_base_model_of_a_model_and_of_a_run(tmp_path):
    from course_lib.__main__ import base_fingerprint
    from course_lib.models import weights_sha256

    run = tmp_path / "run"
    run.mkdir()
    (run / "run_config.json").write_text(json.dumps({"model": "tiny-s", "base_sha256": weights_sha256("tiny-s")}))
    assert base_fingerprint(str(run)) == weights_sha256("tiny-s") != weights_sha256("tiny-m") == base_fingerprint("tiny-m")
    (run / "run_config.json").write_text("{damaged")
    assert base_fingerprint(str(run)) is None


def test_compare_refuses_evaluations_of_two_versions_of_one_problem_file(tmp_path):
    rows = [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}, {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0}]
    for name, sha in (("after", "1" * 64), ("before", "2" * 64)):
        pool = {"task": "jsonl:/data/mine.jsonl", "file_sha256": sha}
        (tmp_path / f"{name}.json").write_text(json.dumps({"per_problem": rows, "pool": pool}))
    done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", tmp_path / "before.json",
                              "--out", tmp_path / "gain.json")
    assert done.returncode == 2 and "read different versions of the problem file" in done.stderr, done.stderr
    assert not (tmp_path / "gain.json").exists()


@pytest.mark.parametrize(("before_grader", "refused"), [("b" * 16, True), ("a" * 16, False), (None, False)])
def test_compare_refuses_evaluations_graded_by_different_answer_checking_code(tmp_path, before_grader, refused):
    """Hostile round 28: an evaluation made before course_lib/answers.py changed was paired with one after it, and
    the gain held the grader's change. Each evaluation records its grader; two that differ are refused (one that
    records none, from before, is not checked)."""
    rows = [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}, {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0}]
    for name, grader in (("after", "a" * 16), ("before", before_grader)):
        (tmp_path / f"{name}.json").write_text(json.dumps({"per_problem": rows, "grader": grader}))
    done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", tmp_path / "before.json",
                              "--out", tmp_path / "gain.json")
    assert (done.returncode == 2) is refused, done.stderr
    assert ("graded by different answer-checking code" in done.stderr) is refused, done.stderr
    assert (tmp_path / "gain.json").exists() is not refused


def test_compare_refuses_evaluations_prompted_by_different_prompt_code(tmp_path):
    """Hostile round 29: an edit to course_lib/prompts.py between two evaluations passed compare in silence."""
    rows = [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}, {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0}]
    for name, prompts in (("after", "a" * 16), ("before", "b" * 16)):
        (tmp_path / f"{name}.json").write_text(json.dumps({"per_problem": rows, "prompts": prompts}))
    done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", tmp_path / "before.json",
                              "--out", tmp_path / "gain.json")
    assert done.returncode == 2 and "prompted by different prompt-writing code" in done.stderr, done.stderr


def test_an_evaluation_records_the_grader_that_graded_it():
    from course_lib.answers import grader_fingerprint
    from course_lib.evaluation import evaluate
    from course_lib.models import load_model
    from course_lib.tasks import generate

    model, tokenizer = load_model("tiny-s")
    result = evaluate(model, tokenizer, generate("arith", 2, "test", 0), 2, 1.0, 8, 0, cache_dir=None, progress=False)
    assert result["grader"] == grader_fingerprint()
    from course_lib.prompts import prompts_fingerprint

    assert result["prompts"] == prompts_fingerprint()


@pytest.mark.parametrize(("before_sha", "refused"), [("2" * 64, True), ("1" * 64, False), (None, False)])
def test_compare_refuses_an_id_that_names_another_question_in_the_two_evaluations(tmp_path, before_sha, refused):
    """Two copies of GSM8K give the same ids (line numbers) to other questions or answers: each row's
    problem_sha256 is compared, whatever seed, --n or level order drew the rows (an older file without it is not)."""
    for name, sha, seed in (("after", "1" * 64, 0), ("before", before_sha, 1)):
        rows = [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5, "problem_sha256": sha},
                {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0, "problem_sha256": None}]
        pool = {"task": "gsm8k", "split": "test", "n": None, "seed": seed, "levels": None}
        (tmp_path / f"{name}.json").write_text(json.dumps({"per_problem": rows, "pool": pool}))
    done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", tmp_path / "before.json",
                              "--out", tmp_path / "gain.json")
    said = "problem 'a' is another question (or answer) in after than in before"
    assert (done.returncode, said in done.stderr) == ((2, True) if refused else (0, False)), done.stderr
    assert (tmp_path / "gain.json").exists() is not refused


@pytest.mark.parametrize(("args", "said"), [
    (["--budget", "1", "--out", "{tmp}/newdir/"], "'{tmp}/newdir/' ends with '/', which names a folder"),
    (["--budget", "1e400", "--out", "{tmp}/ids.txt"], "budget='1e400' is not a finite number"),
])
def test_select_refuses_a_folder_like_out_and_an_infinite_budget(tmp_path, args, said):
    table = tmp_path / "t.csv"
    table.write_text("id,level,pass_rate\na,1,0.5\nb,1,0.0\n")
    args = [arg.format(tmp=tmp_path) for arg in args]
    done = run_cli_in_process("select", "--table", table, "--strategy", "hard", *args)
    assert done.returncode == 2 and said.format(tmp=tmp_path) in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_a_lock_holders_long_command_keeps_its_out_in_view(tmp_path):
    from course_lib.provenance import _lock_holder

    command = "python -m course_lib train " + " ".join(f"--flag-{i} value" for i in range(30)) + " --out runs/mine"
    lock = tmp_path / ".course-lib.lock"
    lock.write_text(json.dumps({"pid": 7, "command": command}))
    handle = os.open(lock, os.O_RDONLY)
    try:
        shown = _lock_holder(handle)
    finally:
        os.close(handle)
    assert shown.startswith("pid 7: python -m course_lib train --flag-0") and shown.endswith("--out runs/mine")


def test_a_train_refused_after_its_checks_leaves_no_empty_folder(tmp_path):
    done = run_cli_in_process("train", "--model", "tiny-s", "--n", "8", "--prompts-per-step", "100", "--steps", "1",
                              "--out", tmp_path / "new" / "run")
    assert done.returncode == 2 and "cannot fill one step of prompts_per_step=100" in done.stderr
    assert not (tmp_path / "new").exists()  # neither the run folder nor the parent made for it


@pytest.mark.parametrize(("args", "said"), [
    (["select", "--table", "{tmp}/fifo", "--strategy", "hard", "--budget", "1", "--out", "{tmp}/o.txt"],
     "table={tmp}/fifo is not a regular file (a device, pipe or socket)"),
    (["compare", "--after", "{tmp}/fifo", "--before", "{tmp}/fifo", "--out", "{tmp}/o.json"],
     "after={tmp}/fifo is not a regular file"),
    (["select", "--table", "{tmp}/t.csv", "--strategy", "hard", "--budget", "1", "--out", "{tmp}/t.csv/o.txt"],
     "out={tmp}/t.csv/o.txt cannot be written: {tmp}/t.csv is a file, not a folder"),
    (["figures", "--out", "{tmp}/t.csv"], "out={tmp}/t.csv is a file; give a folder"),
])
def test_a_pipe_for_a_file_and_a_file_for_a_folder_are_named_for_what_they_are(tmp_path, args, said):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "t.csv").write_text("id,level,pass_rate\na,1,0.5\nb,1,0.0\n")
    done = run_cli_in_process(*[arg.format(tmp=tmp_path) for arg in args])
    assert done.returncode == 2 and said.format(tmp=tmp_path) in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_tilde_in_out_is_the_home_folder_everywhere(tmp_path):
    """`--out=~/run` reaches the program as written: every file of the run goes to HOME/run, none to a folder `~`."""
    home = tmp_path / "home"
    home.mkdir()
    done = run_cli("train", "--model", "tiny-s", "--n", "4", "--steps", "1", "--group-size", "2",
                   "--prompts-per-step", "1", "--max-new-tokens", "8", "--quiet", "--out", "~/run",
                   env={"HOME": str(home), "OMP_NUM_THREADS": "1"}, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (home / "run" / "summary.json").is_file() and (home / "run" / "run_config.json").is_file()
    assert not (tmp_path / "~").exists()


def test_a_path_whose_name_is_not_utf8_is_one_line_before_any_work(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("id,level,pass_rate\na,1,0.5\n")
    done = subprocess.run([sys.executable, "-m", "course_lib", "select", "--table", str(table), "--strategy", "hard",
                           "--budget", "1", "--out", os.fsencode(tmp_path) + b"/ids\xff.txt"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().endswith("has bytes that are not UTF-8 in its name; give a name in UTF-8")
    assert list(tmp_path.iterdir()) == [table]


def test_a_link_that_leads_nowhere_is_never_replaced_by_an_output(tmp_path):
    table, out = tmp_path / "t.csv", tmp_path / "ids.txt"
    table.write_text("id,level,pass_rate\na,1,0.5\n")
    out.symlink_to(tmp_path / "nowhere" / "x")
    done = run_cli("select", "--table", str(table), "--strategy", "hard", "--budget", "1", "--out", str(out))
    assert done.returncode == 2 and f"out={out} is a link that leads nowhere" in done.stderr, done.stderr
    assert out.is_symlink() and not (tmp_path / "nowhere").exists()


def test_ctrl_c_while_the_libraries_load_is_one_line(monkeypatch, capsys, tmp_path):
    """Ctrl-C in the first seconds lands in `build_parser` (torch and transformers loading), or in parsing and
    --quiet's silencing (more imports): no traceback, nothing written."""
    import course_lib.__main__ as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["generate", "--n", "1"]) == 130
    assert capsys.readouterr().err == "interrupted before the command started\n"
    monkeypatch.undo()  # later: while --quiet silences the libraries (it imports transformers)
    monkeypatch.setattr(cli, "_silence_libraries", interrupted)
    assert cli.main(["estimate", "--model", "tiny-s", "--quiet", "--out", str(tmp_path / "never.csv")]) == 130
    assert capsys.readouterr().err == "interrupted before the command started\n" and not list(tmp_path.iterdir())


@pytest.mark.parametrize(("flags", "said"), [
    (["--no-lora", "--lora-rank", "4"], "--no-lora trains every weight, so lora_r would be ignored; drop it, or train LoRA"),
    (["--paper-dataset", "math", "--model-size", "0.5B"], "--paper-dataset and --model-size choose among arXiv "
                                                          "2604.06298's settings (--settings course has one set); use "
                                                          "--settings 2604.06298, or drop them"),
    (["--settings", "2508.14094", "--model-size", "3B"], "--model-size chooses among arXiv 2604.06298's settings "
                                                         "(--settings 2508.14094 has one set)"),  # round 22: was ignored
])
def test_train_refuses_flags_it_would_ignore(tmp_path, flags, said):
    done = run_cli_in_process("train", "--model", "tiny-s", *flags, "--out", tmp_path / "run")
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("args", "said"), [
    (["generate", "--n", "1_0"], "argument --n: '1_0' must be an integer from 1"),
    (["generate", "--n", "\u0661\u0662"], "must be an integer from 1"),  # Arabic-Indic digits, which int() takes
    (["generate", "--levels", "+2"], "levels='+2' must be comma-separated integers"),
    (["generate", "--levels", ""], "levels='' is empty; leave --levels out for every level"),
    (["calibrate", "--model", "tiny-s", "--k", "+2"], "argument --k: invalid whole-number value: '+2'"),
    (["estimate", "--model", "tiny-s", "--out", "OUT/a\nb.csv"], "has a control character ('\\n') in its name"),
    (["estimate", "--model", "tiny-s", "--out", "OUT/" + "a" * 300 + ".csv"], "bytes, longer than this file system"),
    (["estimate", "--model", "tiny-s", "--out", "OUT/" + "a" * 245 + ".csv"],
     "bytes with the .provenance.json written beside it, longer than this file system allows"),
    (["train", "--model", "tiny-s", "--task", "tinymath", "--data-dir", "OUT/data", "--out", "OUT/run"],
     "--data-dir is for the real datasets; task='tinymath' is generated from its seed: drop --data-dir"),
])
def test_odd_numbers_and_names_are_refused_in_one_line(tmp_path, args, said):
    """ASCII digits only (int() also takes '+2', '1_0' and other scripts' digits), no control characters or names
    longer than the file system's limit, no data folder for a generated task: each named, nothing written."""
    (tmp_path / "data").mkdir()
    done = run_cli_in_process(*[str(a).replace("OUT", str(tmp_path)) for a in args])
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and said in lines[0], done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


def test_environment_folders_that_cannot_serve_are_named(tmp_path):
    (tmp_path / "a-file").write_text("x")
    done = run_cli("calibrate", "--model", "tiny-s", "--n", "2", "--k", "2",
                   env={"COURSE_MODELS_DIR": str(tmp_path / "a-file")})
    assert done.returncode == 2 and done.stderr.strip() == (
        f"error: COURSE_MODELS_DIR={tmp_path / 'a-file'} is a file; give the folder that holds the tiny models, or "
        "unset it"), done.stderr
    done = run_cli("estimate", "--model", "tiny-s", "--n", "2", "--k", "2", "--out", str(tmp_path / "t.csv"),
                   env={"COURSE_CACHE_DIR": "/proc/self"})
    assert done.returncode == 2 and "COURSE_CACHE_DIR=/proc/self cannot be written" in done.stderr, done.stderr
    assert not (tmp_path / "t.csv").exists()


def test_a_table_whose_recorded_pool_was_edited_is_refused_at_select(tmp_path):
    """The pool spec beside a table is not under the table's sha256: an edited n shows at `select`, named."""
    table = tmp_path / "t.csv"
    assert run_cli_in_process("estimate", "--model", "tiny-s", "--n", "8", "--k", "2", "--no-cache", "--quiet",
                              "--out", table).returncode == 0
    beside = Path(f"{table}.provenance.json")
    record = json.loads(beside.read_text())
    record["pool"]["n"] = 30
    beside.write_text(json.dumps(record))
    done = run_cli_in_process("select", "--table", table, "--strategy", "random", "--budget", "0.5",
                              "--out", tmp_path / "ids.txt")
    assert done.returncode == 2 and f"table={table}: " in done.stderr and "ids are not in the pool recorded in" \
        in done.stderr, done.stderr
    assert not (tmp_path / "ids.txt").exists()


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_scheduler_stopping_a_command_gets_one_line_and_the_signals_status(tmp_path, name):
    """SIGTERM (a SLURM time limit, `kill`) and SIGHUP (a closed terminal) end a command as Ctrl-C does: one line
    saying how to resume, no traceback, no table, status 128 + the signal's number. Sent once a chunk is cached."""
    out, cache = tmp_path / "table.csv", tmp_path / "cache"
    process = subprocess.Popen([sys.executable, "-m", "course_lib", "estimate", "--model", "tiny-m", "--n", "2000",
                                "--k", "4", "--max-new-tokens", "64", "--out", str(out), "--cache-dir", str(cache)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "OMP_NUM_THREADS": "1"})
    deadline = time.monotonic() + 300
    while not list(cache.glob("*/chunk-*.json")) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None, f"estimate ended before its first chunk:\n{process.communicate()}"
    signum = getattr(signal, name)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signum and "Traceback" not in stderr, stderr
    assert stderr.strip().splitlines()[-1].startswith(f"stopped by {name}; run the same command again to resume")
    assert not out.exists()


@pytest.mark.slow
def test_a_stopped_sweep_does_not_wait_for_its_running_points(tmp_path):
    """SIGTERM to `reproduce --workers 2` waited for every running point to end (minutes on a tiny-profile point)
    before it stopped: the workers are killed at once, the running point leaves no record (it runs again on
    resume), and no notebook kernel outlives the sweep."""
    out = tmp_path / "sweep"
    process = subprocess.Popen([sys.executable, "-m", "course_lib", "reproduce", "hard-wins", "--profile", "smoke",
                                "--out", str(out), "--workers", "2"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    deadline = time.monotonic() + 300
    while len(list(out.glob("points/*.ipynb"))) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the second point's notebook has started (the first finished: it warms the cache)
    assert process.poll() is None, f"the sweep ended before its second point started:\n{process.communicate()}"
    while len(family := descendants(process.pid)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)  # the two workers and the running point's kernel
    assert process.poll() is None and len(family) >= 3, family
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM and "Traceback" not in stderr, stderr
    assert stderr.strip().splitlines()[-1].startswith("stopped by SIGTERM; run the same command again to resume")
    assert len(list(out.glob("points/*.json"))) == 1  # the running point was stopped, not waited for
    time.sleep(3)  # a kernel notices its worker is gone within a second (ipykernel's parent poller)
    left = [pid for pid in family if Path(f"/proc/{pid}").exists()]
    assert not left, f"processes of the stopped sweep still run: {left}"


def descendants(pid: int) -> list[int]:
    """The processes below `pid` (Linux /proc)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        try:
            parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (ValueError, OSError, IndexError):
            continue
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def test_questions_a_tiny_tokenizer_cannot_read_are_warned_about(tmp_path):
    """A tiny model reads only its tasks' symbols: an English question reaches it as another question ('What is
    3 + 3?' without its lower-case letters), and `<eos>` in a question would end it. Both are said, once, before the estimate."""
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"question": "What is 3 + 3?", "answer": "6"}\n{"question": "2+2 <eos> 1", "answer": "4"}\n')
    done = run_cli("estimate", "--model", "tiny-s", "--task", f"jsonl:{mine}", "--k", "2", "--no-cache",
                   "--quiet", "--allow-zero", "--out", str(tmp_path / "t.csv"))
    warned = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert done.returncode == 0 and len(warned) == 2, done.stderr
    assert warned[0].startswith("warning: 2 of 2 questions hold characters this model's tokenizer reads as <unk> "
                                "('<', '>', 'a', 'e', 'h', 'i', 'o', 's' ...)")
    assert "special token(s) ['<eos>']" in warned[1]
    arith = run_cli("estimate", "--model", "tiny-s", "--n", "4", "--k", "2", "--no-cache", "--quiet",
                    "--out", str(tmp_path / "a.csv"))
    assert arith.returncode == 0 and "warning" not in arith.stderr  # its own task: nothing to say


@pytest.mark.parametrize("value", ["\u00b2", "100000", "0", "-1", "abc"])
def test_an_odd_thread_count_is_one_line_before_torch_loads(value):
    """OMP_NUM_THREADS=² was a ValueError traceback, 100000 crashed pandas' import, 0 and abc made OpenMP print its
    own complaint: each is one line naming the variable, status 2."""
    done = run_cli("generate", "--n", "1", env={"OMP_NUM_THREADS": value})
    assert done.returncode == 2 and done.stderr == (
        f"error: OMP_NUM_THREADS={value!r} must be a whole number of threads from 1 to 1,024 (or unset, and the "
        "course uses the idle cores)\n"), done.stderr


def test_an_empty_thread_count_is_unset_without_a_complaint():
    done = run_cli("generate", "--n", "5", env={"OMP_NUM_THREADS": ""})  # a problem of each level: no warning
    assert done.returncode == 0 and done.stderr == "" and json.loads(done.stdout.splitlines()[0])["source"] == "arith"


def test_the_option_format_is_refused_for_answers_that_are_not_letters(tmp_path):
    """--answer-format option on arith graded every completion 0 (accuracy 0.000 against 0.300): refused, named."""
    done = run_cli_in_process("evaluate", "--model", "tiny-m", "--task", "arith", "--split", "test", "--n", "4",
                              "--k", "2", "--answer-format", "option", "--out", tmp_path / "e.json")
    assert done.returncode == 2 and "answer_format='option' asks for an option's letter, (A); arith's answers are " \
        "not letters" in done.stderr, done.stderr
    assert not (tmp_path / "e.json").exists()


@pytest.mark.parametrize(("setting", "said"), [
    ("MODEL=tiny-q", "model='tiny-q' is unknown; did you mean tiny-s?"),
    ("TASK=jsonl:OUT/nope.jsonl", "data file OUT/nope.jsonl does not exist"),
    ("EPOCHS=0", "EPOCHS=0.0 must be a finite number above 0 to 1,000: passes over the selected subset"),  # trained 1 step
    ("EPOCHS=nan", "--set EPOCHS='nan': EPOCHS takes a number"),  # a traceback after the pool was estimated
    ("BUDGET=inf", "--set BUDGET='inf': BUDGET takes a number"),
    ("STEPS=-3", "STEPS=-3 must be a finite number from 0: optimizer steps (0: derived from EPOCHS)"),
    ("GROUP_SIZE=1", "GROUP_SIZE=1: a group needs at least 2 completions"),
    ("MAX_GRAD_NORM=-1", "MAX_GRAD_NORM=-1.0 must be a finite number from 0"),
])
def test_reproduce_checks_models_and_files_when_the_sweep_is_planned(tmp_path, setting, said):
    """A misspelled model or a missing file failed every point, each after its kernel started: now one line."""
    done = run_cli_in_process("reproduce", "hard-wins", "--profile", "smoke", "--set",
                              setting.replace("OUT", str(tmp_path)), "--emit-slurm", "--out", tmp_path / "sweep")
    assert done.returncode == 2 and said.replace("OUT", str(tmp_path)) in done.stderr, done.stderr
    assert not (tmp_path / "sweep").exists()


def test_a_relative_jsonl_path_is_recorded_absolute_so_train_finds_it_from_another_folder(tmp_path, monkeypatch):
    """estimate and select in the file's folder, train from another: the table's provenance names the file by its
    absolute path; the same file given again by another spelling agrees with it; `--set TASK=jsonl:...` too."""
    from course_lib.research.sweep import parse_overrides

    here, other = tmp_path / "here", tmp_path / "other"
    here.mkdir()
    other.mkdir()
    (here / "mine.jsonl").write_text("".join(f'{{"question": "{a}+{b}", "answer": "{a + b}"}}\n'
                                             for a, b in [(3, 3), (2, 2), (5, 1)]))
    monkeypatch.chdir(here)
    assert run_cli_in_process("estimate", "--model", "tiny-s", "--task", "jsonl:mine.jsonl", "--split", "all", "--k",
                              "2", "--no-cache", "--allow-zero", "--quiet", "--out", "t.csv").returncode == 0
    assert json.loads(Path("t.csv.provenance.json").read_text())["pool"]["task"] == f"jsonl:{here / 'mine.jsonl'}"
    assert run_cli_in_process("select", "--table", "t.csv", "--strategy", "random", "--budget", "2",
                              "--out", "ids.txt").returncode == 0
    assert parse_overrides(["TASK=jsonl:mine.jsonl"])["TASK"] == f"jsonl:{here / 'mine.jsonl'}"
    monkeypatch.chdir(other)
    done = run_cli_in_process("train", "--model", "tiny-s", "--task", "jsonl:../here/mine.jsonl", "--ids",
                              "../here/ids.txt", "--max-steps", "1", "--num-generations", "2", "--prompts-per-step",
                              "2", "--quiet", "--out", "run")
    assert done.returncode == 0 and (other / "run" / "summary.json").exists(), done.stderr


def test_compare_reads_a_byte_order_mark_and_names_problems_the_other_file_lacks(tmp_path):
    after, before = tmp_path / "after.json", tmp_path / "before.json"
    rows = [{"id": i, "k": 2, "n_correct": 1, "pass_rate": 0.5} for i in ("a", "b")]
    after.write_bytes(b"\xef\xbb\xbf" + json.dumps({"per_problem": rows}).encode())  # as some editors save JSON
    before.write_text(json.dumps({"per_problem": [{**rows[0]}, {**rows[1], "id": "c"}]}))
    done = run_cli_in_process("compare", "--after", after, "--before", before, "--out", tmp_path / "gain.json")
    assert done.returncode == 2 and done.stderr.strip() == (
        "error: the two evaluations are not on the same problems (1 only in after, e.g. ['b']; 1 only in before, "
        "e.g. ['c']); evaluate both on one set"), done.stderr


@pytest.mark.parametrize(("args", "said"), [
    (["aggregate", "hard-wins", "--out", "OUT/a-file"], "out=OUT/a-file is a file; give the folder of a `reproduce` run"),
    (["reproduce", "hard-wins", "--profile", "smoke", "--where", "SEED=0", "--where", "SEED=1", "--out", "OUT/s"],
     "where: SEED is given twice (the second would replace the first)"),
])
def test_a_file_for_a_study_folder_and_a_slice_key_given_twice_are_named(tmp_path, args, said):
    (tmp_path / "a-file").write_text("")
    done = run_cli_in_process(*[a.replace("OUT", str(tmp_path)) for a in args])
    assert done.returncode == 2 and said.replace("OUT", str(tmp_path)) in done.stderr, done.stderr
    assert not (tmp_path / "s").exists()


def test_a_models_folder_that_does_not_exist_is_named_not_a_missing_checkpoint(tmp_path):
    done = run_cli("calibrate", "--model", "tiny-s", "--n", "2", "--k", "2",
                   env={"COURSE_MODELS_DIR": str(tmp_path / "nowhere")})
    assert done.returncode == 2 and f"COURSE_MODELS_DIR={tmp_path / 'nowhere'} does not exist" in done.stderr


def test_figures_writes_the_checkouts_docs_figures_from_any_folder(tmp_path, monkeypatch):
    from course_lib.__main__ import build_parser
    from course_lib.paths import REPOSITORY

    monkeypatch.chdir(tmp_path)
    assert build_parser().parse_args(["figures"]).out == REPOSITORY / "docs" / "figures"


@pytest.mark.parametrize(("row", "said"), [
    ("b,2,2,1,nan", "problem 'b' has pass_rate"),
    ("b,2,2,1,1.7", "problem 'b' has pass_rate"),
    ("b,2,2,0,0.9", "problem 'b' has pass_rate 0.9 but 0 of 2 right; the table was changed after `estimate`"),
    ("b,abc,2,1,0.5", "problem 'b' has level 'abc', not a whole number"),
])
@pytest.mark.parametrize("strategy", ["hard", "random", "levels"])
def test_an_edited_table_row_is_refused_by_every_strategy_naming_it(tmp_path, row, said, strategy):
    """A NaN, out-of-range or inconsistent pass rate, or a level that is no number, was refused by some strategies
    and read by others: now every strategy names the table and the row, before selecting."""
    table = tmp_path / "t.csv"
    table.write_text(f"id,level,k,n_correct,pass_rate\na,1,2,1,0.5\n{row}\nc,3,2,2,1.0\n")
    levels = ["--levels", "1,2"] if strategy == "levels" else []
    done = run_cli_in_process("select", "--table", table, "--strategy", strategy, *levels, "--budget", "1.0",
                              "--out", tmp_path / "ids.txt")
    assert done.returncode == 2 and f"table={table}: " in done.stderr and said in done.stderr, done.stderr


@pytest.mark.parametrize(("edit", "said"), [
    ({"k": 4}, "problem 'a' was sampled 2 times but the file says k=4"),
    ({"level": 3}, "problem 'a' has level 3 in after but 1 in before: one of the files was edited, or the two read different copies"),
])
def test_compare_refuses_a_row_edited_against_its_file_or_the_other(tmp_path, edit, said):
    rows = [{"id": i, "level": 1, "k": 2, "n_correct": 1, "pass_rate": 0.5} for i in ("a", "b")]
    after, before = tmp_path / "after.json", tmp_path / "before.json"
    before.write_text(json.dumps({"k": 2, "per_problem": rows}))
    edited = [{**rows[0], **({"level": edit["level"]} if "level" in edit else {})}, rows[1]]
    after.write_text(json.dumps({"k": edit.get("k", 2), "per_problem": edited}))
    done = run_cli_in_process("compare", "--after", after, "--before", before, "--out", tmp_path / "gain.json")
    assert done.returncode == 2 and said in done.stderr, done.stderr


def test_library_calls_with_a_wrong_argument_name_it():
    import pandas as pd

    from course_lib import CourseError
    from course_lib.selection import pass_rate_counts
    from course_lib.training import load_trained

    with pytest.raises(CourseError, match="by='bogus' is not a column of the table"):
        pass_rate_counts(pd.DataFrame({"k": [2], "pass_rate": [0.5], "level": [1]}), "bogus")
    for wrong in (None, 5, ""):
        with pytest.raises(CourseError, match="must name a run folder, a tiny model"):
            load_trained(wrong)


def test_a_command_never_replaces_a_file_git_tracks(tmp_path):
    """estimate, evaluate and compare replaced a committed result of their own kind (the study's 2,500-row pool
    table became 8 rows): a tracked file is refused, named, unchanged; deleted first, it is remade on purpose."""
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    committed = repo / "eval.json"
    run_cli_in_process("evaluate", "--model", "tiny-s", "--split", "test", "--n", "4", "--k", "2", "--quiet",
                       "--out", committed)
    subprocess.run(["git", "-C", str(repo), "add", "eval.json"], check=True)
    before = committed.read_bytes()
    done = run_cli_in_process("evaluate", "--model", "tiny-s", "--split", "test", "--n", "6", "--k", "2", "--quiet",
                              "--out", committed)
    assert done.returncode == 2 and f"out={committed} is a file the git repository tracks" in done.stderr
    assert committed.read_bytes() == before
    committed.unlink()
    assert run_cli_in_process("evaluate", "--model", "tiny-s", "--split", "test", "--n", "6", "--k", "2", "--quiet",
                              "--out", committed).returncode == 0


def test_evaluations_asked_in_two_answer_formats_are_not_compared(tmp_path):
    """The same problems asked for `#### n` and for `\\boxed{n}` are two tests, not one: evaluate records the format
    it asked for (the task's own when --answer-format is left out) and compare refuses a pair that differ."""
    common = ("--model", "tiny-s", "--task", "arith", "--split", "test", "--n", "4", "--k", "2", "--quiet")
    assert run_cli_in_process("evaluate", *common, "--out", tmp_path / "own.json").returncode == 0
    assert run_cli_in_process("evaluate", *common, "--answer-format", "boxed",
                              "--out", tmp_path / "boxed.json").returncode == 0
    assert json.loads((tmp_path / "own.json").read_text())["answer_format"] == "hash"
    done = run_cli_in_process("compare", "--after", tmp_path / "boxed.json", "--before", tmp_path / "own.json",
                              "--out", tmp_path / "gain.json")
    assert done.returncode == 2 and "different answer_format ('boxed' against 'hash')" in done.stderr, done.stderr


@pytest.mark.parametrize("command", [["aggregate", "hard-wins", "--profile", "tiny"],
                                     ["reproduce", "hard-wins", "--profile", "tiny"]])
def test_a_committed_study_folder_is_not_rewritten_by_aggregate_or_reproduce(command):
    """`aggregate --out data/results/hard-wins` remade the same table but replaced its provenance (the command,
    commit and versions that made it) with today's: refused before anything is read or run."""
    folder = Path(__file__).resolve().parent.parent / "data" / "results" / "hard-wins"
    before = {name: (folder / name).read_bytes() for name in ("results.csv", "provenance.json")}
    done = run_cli_in_process(*command, "--out", folder)
    assert done.returncode == 2 and "holds a committed results.csv (the git repository tracks it)" in done.stderr
    assert {name: (folder / name).read_bytes() for name in before} == before


def test_evaluating_a_run_on_its_own_training_problems_or_in_another_format_is_said(finished_run, problems, tmp_path):
    """`train --split all` on a user's file, then `evaluate --split test`: some held-out problems were trained on;
    a run trained to answer in <answer> tags evaluated in the task's own format. One warning line each."""
    import dataclasses
    import re
    import warnings

    from course_lib.__main__ import warn_if_not_held_out
    from course_lib.tasks import generate

    run, _ = finished_run
    assert json.loads((run / "run_config.json").read_text())["answer_format"] == "hash"
    with pytest.warns(UserWarning, match=rf"3 of the 5 problems evaluated were trained on by {re.escape(str(run))}"):
        warn_if_not_held_out(str(run), problems[:3] + generate("arith", 2, "test", seed=0))
    tagged = [dataclasses.replace(p, answer_format="tagged") for p in generate("arith", 2, "test", seed=0)]
    with pytest.warns(UserWarning, match=r"trained to answer in the 'hash' format, and these problems ask for 'tagged'"):
        warn_if_not_held_out(str(run), tagged)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_not_held_out(str(run), generate("arith", 2, "test", seed=0))  # held out, in its format: silent


@pytest.mark.parametrize("command", [["figures", "--out", "course_lib"], ["figures", "--out", "data/results/hard-wins"],
                                     ["notebooks", "--out", "docs", "--only", "99"], ["notebooks", "--out", "notebooks"]])
def test_figures_and_notebooks_do_not_write_among_the_courses_own_files(command):
    """PNGs or executed copies in course_lib/, docs/ or a study's folder were untracked clutter beside the course's."""
    root = Path(__file__).resolve().parent.parent
    done = run_cli_in_process(*command[:2], root / command[2], *command[3:])
    assert done.returncode == 2 and "is inside the repository, among files git tracks" in done.stderr, done.stderr
    assert not any((root / command[2] / name).exists() for name in ("hard_wins.png", "summary.json", ".lock"))


def test_a_bad_study_definition_read_while_the_parser_is_built_is_one_line(monkeypatch, capsys):
    """`--help` lists the studies, so a study.json being written broke every command with a traceback."""
    import course_lib.__main__ as cli
    from course_lib import CourseError

    def broken():
        raise CourseError("data/results/x/study.json is not valid JSON (...); fix it")

    monkeypatch.setattr(cli, "build_parser", broken)
    assert cli.main(["--help"]) == 2
    assert capsys.readouterr().err == "error: data/results/x/study.json is not valid JSON (...); fix it\n"


@pytest.mark.parametrize("args", [["train", "--model", "tiny-s"], ["estimate", "--model", "tiny-s"],
                                  ["select", "--table", "t.csv", "--strategy", "hard", "--budget", "0.1"]])
def test_an_option_a_command_does_not_take_points_at_that_commands_help(args, tmp_path):
    """An unknown option named the top-level help, which lists commands, not the options this one takes."""
    done = run_cli_in_process(*args, "--out", str(tmp_path / "x"), "--no-such-option")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: unrecognized arguments: --no-such-option (see `python -m course_lib {args[0]} --help`)"]


@pytest.mark.parametrize("weights", [["0", "1"], ["1", "1"]])
def test_train_with_a_weight_per_reward_function_it_lacks_is_one_line_before_the_model_loads(tmp_path, weights):
    """Hostile round 22: `train --reward_weights 0 1` passed the range check, loaded the model, then TRL raised
    (2 weights, 1 reward function) in a 24-line traceback."""
    done = run_cli_in_process("train", "--model", "tiny-s", "--task", "arith", "--n", "4", "--steps", "1",
                              "--reward_weights", *weights, "--out", str(tmp_path / "run"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "reward_weights=[" in done.stderr and "gives 2 weights, but train_grpo has one reward function" in done.stderr
    assert not (tmp_path / "run" / "run_config.json").exists()


def test_reproduce_refuses_a_hub_dataset_out_of_reach_before_any_point_runs(tmp_path, monkeypatch):
    """Hostile round 22: `reproduce hard-wins --profile paper` on a machine without the papers' data started a kernel
    per point, each failing on the hub dataset (24 FAILED lines); `--emit-slurm` still writes its jobs (a cluster's
    nodes may hold data the login node lacks)."""
    import datasets

    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    monkeypatch.delenv("COURSE_DATA_DIR", raising=False)
    for data_dir, said in ((None, "could not load openai/gsm8k"), (tmp_path / "no-data", "has no gsm8k/ folder")):
        if data_dir:
            data_dir.mkdir()
            monkeypatch.setenv("COURSE_DATA_DIR", str(data_dir))
        done = run_cli_in_process("reproduce", "hard-wins", "--profile", "paper", "--out", tmp_path / "run",
                                  "--set", "MODEL=tiny-s")
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert said in done.stderr and "(point " in done.stderr, done.stderr
        assert not (tmp_path / "run" / "points").exists()


def test_round_23_compare_refuses_an_evaluation_edited_after_it_was_sealed(tmp_path):
    """Hostile round 23: `compare` read an `evaluate` output edited by hand (its seal broken) and wrote a new, sealed
    gain from the edited numbers; now it refuses the input, naming it; the same file unedited is read."""
    from course_lib.provenance import SEAL, sealed_json

    rows = [{"id": i, "level": 1, "k": 2, "n_correct": 1, "pass_rate": 0.5} for i in ("a", "b")]
    after, before = tmp_path / "after.json", tmp_path / "before.json"
    for path in (after, before):
        path.write_text(sealed_json({"k": 2, "per_problem": rows}))
    done = run_cli_in_process("compare", "--after", after, "--before", before, "--out", tmp_path / "gain.json")
    assert done.returncode == 0, done.stderr
    edited = json.loads(after.read_text())
    edited["per_problem"][0].update(n_correct=2, pass_rate=1.0)
    after.write_text(json.dumps(edited))
    done = run_cli_in_process("compare", "--after", after, "--before", before, "--out", tmp_path / "gain2.json")
    assert done.returncode == 2 and f"after={after} was changed after the command that wrote it" in done.stderr
    assert f"delete its {SEAL} line" in done.stderr and not (tmp_path / "gain2.json").exists()


def test_round_23_reproduce_checks_the_split_each_point_trains_on(tmp_path, monkeypatch):
    """Hostile round 23: the check before any point loaded a hub dataset's test split only, so a data folder without
    the train split passed and every point then failed in its kernel; now the train split is checked too."""
    import datasets

    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: (_ for _ in ()).throw(ConnectionError("offline")))
    data_dir = tmp_path / "data"
    (data_dir / "gsm8k").mkdir(parents=True)
    shared = Path(__file__).resolve().parents[1] / "shared" / "data" / "gsm8k" / "test.jsonl"
    rows = shared.read_text().splitlines()[:20] if shared.exists() else [
        json.dumps({"question": f"What is {i} + 1?", "answer": f"{i} + 1 = {i + 1}\n#### {i + 1}"}) for i in range(20)]
    (data_dir / "gsm8k" / "test.jsonl").write_text("\n".join(rows) + "\n")
    monkeypatch.setenv("COURSE_DATA_DIR", str(data_dir))
    done = run_cli_in_process("reproduce", "hard-wins", "--profile", "paper", "--out", tmp_path / "run",
                              "--set", "MODEL=tiny-s")
    assert done.returncode == 2 and "train.jsonl" in done.stderr and "(point " in done.stderr, done.stderr
    assert not (tmp_path / "run" / "points").exists()


@pytest.mark.parametrize("size", ["banana", "3"])
def test_round_23_reproduce_refuses_a_model_size_that_names_no_size(tmp_path, size):
    """Hostile round 23: `reproduce --set MODEL_SIZE=banana` was planned, run and written into every record (the
    cost model and arXiv 2604.06298's batch sizes read MODEL_SIZE; a size like 3B is one they can read)."""
    done = run_cli_in_process("reproduce", "hard-wins", "--profile", "smoke", "--out", tmp_path / "run",
                              "--set", f"MODEL_SIZE={size}")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"MODEL_SIZE='{size}' must name a model size like 1.5B" in done.stderr
    assert not (tmp_path / "run" / "points").exists()


@pytest.mark.parametrize("backend", ["HF", "banana"])
def test_round_24_reproduce_refuses_an_unknown_backend_before_any_point_runs(tmp_path, backend):
    """Hostile round 24: `reproduce --set BACKEND=HF` passed the check before any point ran (it checked every point
    as `hf`), then every point failed in its kernel."""
    done = run_cli_in_process("reproduce", "hard-wins", "--profile", "smoke", "--out", tmp_path / "run",
                              "--set", f"BACKEND={backend}")
    assert done.returncode == 2 and f"BACKEND='{backend}' is unknown; use hf, vllm or auto" in done.stderr, done.stderr
    assert not (tmp_path / "run" / "points").exists()


def test_round_28_compare_accepts_one_problem_file_read_at_two_paths(tmp_path):
    """Hostile round 28: evaluations of a problem file and of its byte-identical copy elsewhere were refused as
    "different task"; the file's sha256 decides (another file at another path is still refused)."""
    rows = [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}, {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0}]
    for before_sha, refused in (("1" * 64, False), ("2" * 64, True)):
        for name, path, sha in (("after", "/data/mine.jsonl", "1" * 64), ("before", "/copy/mine.jsonl", before_sha)):
            task = f"jsonl:{path}"
            (tmp_path / f"{name}.json").write_text(json.dumps(
                {"per_problem": rows, "task": task, "pool": {"task": task, "file_sha256": sha}}))
        done = run_cli_in_process("compare", "--after", tmp_path / "after.json", "--before", tmp_path / "before.json",
                                  "--out", tmp_path / f"gain-{refused}.json")
        assert (done.returncode == 2) is refused, done.stderr
        assert ("different task" in done.stderr) is refused, done.stderr


@pytest.mark.parametrize("inside", ["", "sub"])
def test_notebooks_out_a_file_is_one_line_naming_out(tmp_path, inside):
    """Hostile round 35: `notebooks --out eval.json` (a file) said `eval.json: File exists; check the path, its
    permissions and free disk space`, naming no parameter; `figures`, `pretrain` and `standin` say `out=… is a file`."""
    file = tmp_path / "eval.json"
    file.write_text("{}")
    done = run_cli_in_process("notebooks", "--profile", "smoke", "--out", file / inside if inside else file)
    assert done.returncode == 2 and f"out={file}" in done.stderr and "is a file" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and file.read_text() == "{}"
