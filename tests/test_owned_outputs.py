"""No command writes over what it does not own, two writers cannot share a folder, a run knows its base model, and
bad settings are refused before any work (issue #41). Rows of docs/bad_inputs.md.

CLI cases run `main([...])` in-process with the first step of real work replaced by an exception, so a refusal is
shown to come before it; the few cases that need a second process or a trained run say so.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FAST_TRAINING, run_cli_in_process

import course_lib.evaluation
import course_lib.models
import course_lib.models.standin
import course_lib.research.sweep
import course_lib.training
from course_lib import CourseError
from course_lib.models import MODELS_DIR, file_sha256, weights_sha256
from course_lib.provenance import LOCK_NAME, folder_lock
from course_lib.tasks import generate
from course_lib.training import CourseConfig, _check_run_dir, read_jsonl_log, train_grpo
from course_lib.training.checkpoints import MARKER

ROOT = Path(__file__).resolve().parent.parent


class WorkStarted(Exception):
    """Raised where a command's work would begin."""


@pytest.fixture
def no_work(monkeypatch):
    """Every command's first step of real work raises WorkStarted: a refusal that comes later would show."""
    def started(*args, **kwargs):
        raise WorkStarted

    for module, name in [(course_lib.models, "run_pretrain"), (course_lib.models.standin, "build_standin"),
                         (course_lib.evaluation, "model_for_backend"), (course_lib.training, "train_grpo"),
                         (course_lib.research.sweep, "run"), (course_lib.research.sweep, "emit_slurm")]:
        monkeypatch.setattr(module, name, started)


def refused(*args) -> str:
    """The one stderr line of a command that must exit with status 2 before any work."""
    done = run_cli_in_process(*args)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def file_command_args(command: str, folder: Path) -> list:
    """Arguments that take `command` (a file-writing one) past its input checks, with inputs written into `folder`."""
    table, evaluation, other = folder / "table.csv", folder / "e.json", folder / "e0.json"
    table.write_text("id,level,pass_rate\na,1,0.5\nb,1,0.0\n")
    evaluation.write_text(json.dumps({"per_problem": [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5}]}))
    other.write_text(json.dumps({"per_problem": [{"id": "a", "k": 2, "n_correct": 0, "pass_rate": 0.0}]}))
    return {"estimate": ["--model", "tiny-s", "--n", "2", "--k", "2"],
            "evaluate": ["--model", "tiny-s", "--n", "2", "--k", "2"],
            "select": ["--table", table, "--strategy", "hard", "--budget", "1"],
            "compare": ["--after", evaluation, "--before", other]}[command]


def snapshot(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------
# 1. pretrain and standin: never over the course's models, never into a data folder
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["pretrain", "--size", "tiny-s", "--steps", "2"], ["standin"]])
@pytest.mark.parametrize("model", ["tiny-m", "tiny-l"])
def test_pretrain_and_standin_refuse_to_replace_a_committed_model(no_work, command, model):
    before = snapshot(MODELS_DIR / model)
    line = refused(*command, "--out", MODELS_DIR / model)
    assert f"holds the course's model {model}" in line and f"git checkout data/models/{model}" in line
    assert snapshot(MODELS_DIR / model) == before


@pytest.mark.parametrize("command", [["pretrain", "--size", "tiny-s", "--steps", "2"], ["standin"]])
def test_pretrain_and_standin_refuse_a_folder_inside_a_model_or_a_data_folder(no_work, tmp_path, monkeypatch,
                                                                               command):
    data = tmp_path / "data"
    (data / "gsm8k").mkdir(parents=True)
    (data / "gsm8k" / "train.jsonl").write_text('{"question": "q", "answer": "#### 1"}\n')
    monkeypatch.setenv("COURSE_DATA_DIR", str(data))
    assert "is inside the data folder COURSE_DATA_DIR=" in refused(*command, "--out", data / "gsm8k")
    assert "is inside the data folder ../shared/data=" in refused(*command, "--out", ROOT.parent / "shared" / "data" / "x")
    assert "is inside a model folder" in refused(*command, "--out", MODELS_DIR / "tiny-s" / "sub")
    assert sorted(p.name for p in (data / "gsm8k").iterdir()) == ["train.jsonl"]


def test_pretrain_replaces_only_its_own_model_folder(no_work, tmp_path):
    mine = tmp_path / "mine"
    shutil.copytree(MODELS_DIR / "tiny-s", mine)  # a manifest that pretrain wrote: its own kind
    with pytest.raises(WorkStarted):
        run_cli_in_process("pretrain", "--size", "tiny-s", "--steps", "2", "--out", mine)
    line = refused("standin", "--out", mine)
    assert "already holds files" in line and "no standin.json" in line
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("mine")
    line = refused("pretrain", "--size", "tiny-s", "--steps", "2", "--out", notes)
    assert "already holds files (todo.txt) and no manifest.json" in line and (notes / "todo.txt").read_text() == "mine"
    with pytest.raises(WorkStarted):  # a new folder, or an empty one
        run_cli_in_process("pretrain", "--size", "tiny-s", "--steps", "2", "--out", tmp_path / "new")


@pytest.mark.parametrize("command", [["pretrain", "--size", "tiny-s", "--steps", "2"], ["standin"]])
def test_pretrain_and_standin_refuse_a_model_another_clone_commits(no_work, tmp_path, command):
    """Another checkout's data/models/tiny-s (not this one's, whose own check names the course's model)."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    shutil.copytree(MODELS_DIR / "tiny-s", clone / "models" / "tiny-s")
    subprocess.run(["git", "-C", str(clone), "add", "models"], check=True)
    before = snapshot(clone / "models" / "tiny-s")
    line = refused(*command, "--out", clone / "models" / "tiny-s")
    assert "holds files a git repository tracks (config.json); give a new folder" in line
    assert snapshot(clone / "models" / "tiny-s") == before
    subprocess.run(["git", "-C", str(clone), "rm", "-rq", "--cached", "models"], check=True)  # untracked: its own
    with pytest.raises(WorkStarted):
        run_cli_in_process(*(["pretrain", "--size", "tiny-s", "--steps", "2"]), "--out", clone / "models" / "tiny-s")


@pytest.mark.parametrize("command", ["estimate", "evaluate", "select", "compare"])
@pytest.mark.parametrize("inside", ["run", "points", "runs"])
def test_no_file_output_goes_into_a_run_folder_or_a_studys_points(no_work, tmp_path, command, inside):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run_config.json").write_text("{}")
    (tmp_path / "grid.json").write_text("{}")
    (tmp_path / "points").mkdir()
    (tmp_path / "runs").mkdir()
    args = file_command_args(command, tmp_path)
    out = tmp_path / inside / "sub" / "out.txt"
    line = refused(command, *args, "--out", out)
    owner = "a run folder of `train`" if inside == "run" else f"the {inside}/ of a study folder `reproduce` writes"
    assert f"is inside {tmp_path / inside}, {owner}, which only that command writes into" in line
    assert not (tmp_path / inside / "sub").exists()


def test_a_killed_pretrain_leaves_no_model_that_claims_to_be_whole(tmp_path, monkeypatch):
    """Everything is staged in OUT/.saving and moved in with manifest.json last: a rerun may use the folder."""
    def killed(staged, out, last):
        raise KeyboardInterrupt

    monkeypatch.setattr(course_lib.models, "publish_files", killed)
    done = run_cli_in_process("pretrain", "--size", "tiny-s", "--steps", "1", "--batch-size", "2", "--out",
                              tmp_path / "m", "--quiet")
    assert done.returncode == 130 and not (tmp_path / "m" / "manifest.json").exists()
    monkeypatch.undo()
    done = run_cli_in_process("pretrain", "--size", "tiny-s", "--steps", "1", "--batch-size", "2", "--out",
                              tmp_path / "m", "--quiet")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == sorted(
        p.name for p in (MODELS_DIR / "tiny-s").iterdir())


@pytest.mark.parametrize("left", ["file", "link", "folder"])
def test_a_staging_name_that_is_not_a_killed_saves_is_refused_and_kept(tmp_path, left):
    """A `.saving` course_lib did not stamp (a file, a link, or a folder holding someone's file) is content."""
    precious, out = tmp_path / "precious.txt", tmp_path / "m"
    precious.write_text("keep me")
    out.mkdir()
    if left == "file":
        (out / ".saving").write_text("keep me too")
    elif left == "link":
        (out / ".saving").symlink_to(precious)
    else:
        (out / ".saving").mkdir()
        (out / ".saving" / "notes.txt").write_text("keep me too")
    done = run_cli_in_process("pretrain", "--size", "tiny-s", "--steps", "1", "--batch-size", "2", "--out", out,
                              "--quiet")
    assert done.returncode == 2 and "already holds files (.saving)" in done.stderr, done.stderr
    assert precious.read_text() == "keep me" and not (out / "manifest.json").exists()
    kept = out / ".saving" / "notes.txt" if left == "folder" else out / ".saving"
    assert kept.read_text() == ("keep me" if left == "link" else "keep me too")


def test_an_empty_staging_folder_is_used(tmp_path):
    out = tmp_path / "m"
    (out / ".saving").mkdir(parents=True)
    done = run_cli_in_process("pretrain", "--size", "tiny-s", "--steps", "1", "--batch-size", "2", "--out", out,
                              "--quiet")
    assert done.returncode == 0 and not (out / ".saving").exists(), done.stderr


def test_a_run_folders_staging_link_is_removed_not_followed(tmp_path):
    from course_lib.training import STAGING, _prepare_run_dir, run_record

    elsewhere, run = tmp_path / "elsewhere", tmp_path / "run"
    (elsewhere / "checkpoint-1").mkdir(parents=True)
    (elsewhere / "checkpoint-1" / "keep.txt").write_text("keep me")
    run.mkdir()
    (run / STAGING).symlink_to(elsewhere)
    _prepare_run_dir(run, None, [], "tiny-s", run_record(CourseConfig(), None), ["p1"])
    assert not (run / STAGING).exists() and (elsewhere / "checkpoint-1" / "keep.txt").read_text() == "keep me"


# ---------------------------------------------------------------------------
# 2. --out replaces only a file the command itself wrote
# ---------------------------------------------------------------------------


@pytest.fixture
def finished_looking_run(tmp_path):
    """A run folder and a sweep folder as train and reproduce leave them (the files' content does not matter)."""
    run = tmp_path / "run"
    (run / "final").mkdir(parents=True)
    (run / "final" / "adapter_model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      weights")
    (run / "run_config.json").write_text(json.dumps({"model": "tiny-s", "config": {}, "problem_ids": []}))
    (run / "summary.json").write_text(json.dumps({"steps": 2, "final_sha256": {}}))
    (run / "ledger.jsonl").write_text('{"step": 1, "problem_id": "a"}\n')
    sweep = tmp_path / "sweep"
    (sweep / "points").mkdir(parents=True)
    (sweep / "grid.json").write_text(json.dumps({"study": "hard-wins", "points": []}))
    (sweep / "points" / "p_abc123.json").write_text(json.dumps({"point": "p_abc123", "status": "ok"}))
    return tmp_path


VICTIMS = ["run/final/adapter_model.safetensors", "run/run_config.json", "run/summary.json", "run/ledger.jsonl",
           "sweep/grid.json", "sweep/points/p_abc123.json", "SOURCE"]


@pytest.mark.parametrize("victim", VICTIMS)
@pytest.mark.parametrize("command", ["estimate", "evaluate", "select", "compare"])
def test_no_out_replaces_a_file_the_command_did_not_write(no_work, finished_looking_run, command, victim):
    target = ROOT / "course_lib" / "errors.py" if victim == "SOURCE" else finished_looking_run / victim
    before = target.read_bytes()
    table, evaluation = finished_looking_run / "table.csv", finished_looking_run / "e.json"
    table.write_text("id,level,pass_rate\na,1,0.5\nb,1,0.0\n")
    evaluation.write_text(json.dumps({"per_problem": [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5},
                                                      {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0.0}]}))
    other = finished_looking_run / "e0.json"
    other.write_text(evaluation.read_text())
    args = {"estimate": ["--model", "tiny-s", "--n", "2", "--k", "2"],
            "evaluate": ["--model", "tiny-s", "--n", "2", "--k", "2"],
            "select": ["--table", table, "--strategy", "hard", "--budget", "1"],
            "compare": ["--after", evaluation, "--before", other]}[command]
    line = refused(command, *args, "--out", target)
    if victim.startswith(("run/", "sweep/points/")):  # refused sooner: no command adds files to such a folder
        assert f"out={target} is inside " in line and "which only that command writes into" in line
    else:
        assert f"out={target} already exists and is not an output of `{command}`" in line
        assert "give a new path, or delete the file first" in line
    assert target.read_bytes() == before


def test_a_command_replaces_its_own_output_but_not_another_commands(tmp_path):
    table = tmp_path / "table.csv"
    table.write_text("id,level,source,k,n_correct,pass_rate\na,1,arith,2,1,0.5\nb,1,arith,2,0,0.0\n")
    ids = tmp_path / "ids.txt"
    for budget in ("1", "2"):  # select over its own ids file: replaced
        done = run_cli_in_process("select", "--table", table, "--strategy", "hard", "--budget", budget, "--out", ids)
        assert done.returncode == 0, done.stderr
    assert ids.read_text().split() == ["b", "a"]
    line = refused("estimate", "--model", "tiny-s", "--n", "2", "--k", "2", "--out", ids)  # select's, not estimate's
    assert "it records `select`" in line
    ids.with_name("ids.txt.provenance.json").unlink()  # an ids file whose provenance is gone: not recognisably its own
    line = refused("select", "--table", table, "--strategy", "hard", "--budget", "1", "--out", ids)
    assert "ids.txt.provenance.json does not record it" in line


@pytest.mark.parametrize("content", [None, "notes"])
def test_train_and_reproduce_refuse_a_folder_holding_other_files(no_work, tmp_path, content):
    folder = tmp_path / "folder"
    folder.mkdir()
    if content:
        (folder / "notes.txt").write_text(content)
        assert "already holds files (notes.txt) and no run_config.json" in refused(
            "train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--out", folder)
        assert "already holds files (notes.txt) and no grid.json" in refused(
            "reproduce", "hard-wins", "--profile", "smoke", "--out", folder)
        assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    else:  # an empty folder is new
        with pytest.raises(WorkStarted):
            run_cli_in_process("train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--out", folder)


def test_notebooks_and_figures_never_write_over_a_lesson_or_another_file(tmp_path):
    line = refused("notebooks", "--profile", "smoke", "--out", ROOT / "notebooks", "--quiet")
    assert "is inside the repository, among files git tracks" in line
    lessons = tmp_path / "lessons"  # a copy of the lessons elsewhere: never written over either
    lessons.mkdir()
    lesson = sorted((ROOT / "notebooks").glob("0*.ipynb"))[0]
    (lessons / lesson.name).write_bytes(lesson.read_bytes())
    line = refused("notebooks", "--profile", "smoke", "--out", lessons, "--quiet")
    assert "which is not a copy papermill executed" in line
    assert (lessons / lesson.name).read_bytes() == lesson.read_bytes()
    (tmp_path / "calibration.png").write_text("not a png")
    assert "holds a calibration.png that `figures` did not write" in refused("figures", "--out", tmp_path)


def test_figures_replaces_only_pngs_it_made(tmp_path):
    """A PNG someone else made (a real PNG, without our maker chunk) is refused; our own is remade in place."""
    from course_lib.classroom.plots import PNG_MAKER, made_by_figures, with_maker_chunk

    committed = ROOT / "docs" / "figures" / "dead_groups.png"
    ours = committed.read_bytes()
    assert made_by_figures(committed)
    foreign = ours.replace(b"tEXt" + PNG_MAKER, b"tEXt" + b"Software\x00another tool".ljust(len(PNG_MAKER), b" "))
    (tmp_path / "dead_groups.png").write_bytes(foreign)
    assert "holds a dead_groups.png that `figures` did not write" in refused("figures", "--out", tmp_path)
    assert (tmp_path / "dead_groups.png").read_bytes() == foreign and len(list(tmp_path.iterdir())) == 1
    plain = ours.replace(b"tEXt" + PNG_MAKER, b"")  # not even a chunk: a header followed by garbage is no PNG of ours
    assert not made_by_figures_bytes(plain, tmp_path)
    assert with_maker_chunk(b"\x89PNG\r\n\x1a\n" + bytes(25)).count(PNG_MAKER) == 1


def made_by_figures_bytes(data: bytes, folder) -> bool:
    from course_lib.classroom.plots import made_by_figures

    path = folder / "probe.png"
    path.write_bytes(data)
    return made_by_figures(path)


def test_calibrate_write_needs_a_manifest_pretrain_wrote(standin_model):
    line = refused("calibrate", "--model", standin_model, "--n", "4", "--k", "2", "--write")
    assert "--write stores the report in the manifest.json `pretrain` wrote" in line


@pytest.mark.parametrize("command", ["select", "train"])
def test_an_out_through_a_loop_of_links_is_one_line(tmp_path, command):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    (tmp_path / "t.csv").write_text("id,level,pass_rate\na,1,0.5\n")
    args = {"select": ["--table", tmp_path / "t.csv", "--strategy", "hard", "--budget", "1"],
            "train": ["--model", "tiny-s", "--task", "arith", "--n", "8"]}[command]
    line = refused(command, *args, "--out", tmp_path / "a" / "out")
    assert f"out={tmp_path / 'a' / 'out'} cannot be" in line


# ---------------------------------------------------------------------------
# 3. One writer per folder
# ---------------------------------------------------------------------------


@pytest.fixture
def held(tmp_path):
    """A folder whose lock another process holds (until the test ends, or kills it)."""
    folder = tmp_path / "busy"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from course_lib.provenance import folder_lock\n"
         f"with folder_lock({str(folder)!r}):\n    print('held', flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert holder.stdout.readline().strip() == "held"
    yield folder, holder
    holder.kill()
    holder.wait()


@pytest.mark.parametrize("command", [
    ["train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--steps", "1"],
    ["pretrain", "--size", "tiny-s", "--steps", "2"], ["standin"],
    ["reproduce", "hard-wins", "--profile", "smoke"], ["reproduce", "hard-wins", "--profile", "smoke", "--emit-slurm"],
    ["notebooks", "--profile", "smoke"], ["figures"],
])
def test_a_second_writer_into_a_folder_is_refused_while_the_first_runs(held, monkeypatch, command):
    monkeypatch.setattr(course_lib.research.sweep, "run", lambda *a, **k: pytest.fail("the sweep ran"))
    monkeypatch.setattr(course_lib.research.sweep, "emit_slurm", lambda *a, **k: pytest.fail("jobs were written"))
    folder, holder = held
    line = refused(*command, "--out", folder)
    assert f"out={folder} is in use by another command (pid {holder.pid}" in line and "wait for it to end" in line
    assert sorted(p.name for p in folder.iterdir()) == [LOCK_NAME]


@pytest.mark.parametrize("command", ["estimate", "evaluate", "select", "compare"])
def test_a_second_command_writing_the_same_file_is_refused_while_the_first_runs(no_work, tmp_path, command):
    out = tmp_path / "out.txt"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; from course_lib.provenance import file_lock\n"
         f"with file_lock({str(out)!r}):\n    print('held', flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert holder.stdout.readline().strip() == "held"
        line = refused(command, *file_command_args(command, tmp_path), "--out", out)
        assert f"out={out} is in use by another command (pid {holder.pid}" in line
        assert not out.exists()
        other = run_cli_in_process("select", "--table", tmp_path / "table.csv", "--strategy", "hard", "--budget", "1",
                                   "--out", tmp_path / "other.txt")  # another file in the same folder stays free
        assert other.returncode == 0, other.stderr
    finally:
        holder.kill()
        holder.wait()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(LOCK_NAME)) == [f".out.txt{LOCK_NAME}"]


def test_a_lock_left_by_a_killed_process_does_not_block(held):
    folder, holder = held
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    assert (folder / LOCK_NAME).exists()  # the file stays; the lock died with its process
    with folder_lock(folder):
        assert json.loads((folder / LOCK_NAME).read_text())["pid"] == os.getpid()
    assert not (folder / LOCK_NAME).exists()


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_lock_file_that_is_a_link_is_refused_and_its_target_kept(tmp_path, link):
    precious, run = tmp_path / "precious.txt", tmp_path / "run"
    precious.write_text("keep me")
    run.mkdir()
    (run / LOCK_NAME).symlink_to(precious) if link == "symbolic" else (run / LOCK_NAME).hardlink_to(precious)
    line = refused("train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--steps", "1", "--out", run)
    assert f"{LOCK_NAME} is {'a symbolic link' if link == 'symbolic' else 'linked to another file'}; delete it" in line
    assert precious.read_text() == "keep me"


def test_the_library_refuses_a_second_train_into_a_locked_folder(held, problems):
    folder, _ = held
    with pytest.raises(CourseError, match="is in use by another command"):
        train_grpo("tiny-s", problems, CourseConfig(**FAST_TRAINING), folder, progress=False)


@pytest.mark.slow
def test_two_trains_started_at_once_do_not_both_proceed(tmp_path):
    args = [sys.executable, "-m", "course_lib", "train", "--model", "tiny-s", "--task", "arith", "--n", "16",
            "--steps", "1000", "--prompts-per-step", "2", "--group-size", "2", "--quiet", "--out", str(tmp_path / "run")]
    one_thread = {**os.environ, "OMP_NUM_THREADS": "1"}  # two processes beside the other test worker: no oversubscription
    # a pytest-xdist worker ignores SIGINT, and an ignored signal stays ignored across exec: give the command the
    # terminal's default, or the Ctrl-C below would never reach it (it trained all 1000 steps instead)
    first = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=one_thread,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while not (tmp_path / "run" / LOCK_NAME).exists() and first.poll() is None:
        time.sleep(0.05)
    second = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300, env=one_thread)
    assert first.poll() is None  # still training: the second met it at work
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=300)
    assert second.returncode == 2 and len(second.stderr.strip().splitlines()) == 1, second.stderr
    assert f"is in use by another command (pid {first.pid}" in second.stderr
    ledger = tmp_path / "run" / "ledger.jsonl"  # none where the first was stopped before its first step (a busy CPU)
    steps = [row["step"] for row in read_jsonl_log(ledger)] if ledger.exists() else []
    assert steps == [step for step in range(1, max(steps, default=0) + 1) for _ in range(2)]  # one writer's rows, not two


# ---------------------------------------------------------------------------
# 4. A run records its base model's fingerprint and checks it
# ---------------------------------------------------------------------------


def test_a_course_models_fingerprint_is_its_manifests_sha256_and_a_folders_its_files(tmp_path):
    manifest = json.loads((MODELS_DIR / "tiny-s" / "manifest.json").read_text())
    settings = {name: file_sha256(MODELS_DIR / "tiny-s" / name) for name in
                ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json")}
    assert weights_sha256("tiny-s") == manifest["sha256"] | settings  # its config and tokenizer too
    folder = tmp_path / "plain"
    shutil.copytree(MODELS_DIR / "tiny-s", folder)
    (folder / "manifest.json").unlink()
    assert weights_sha256(folder) == {"model.safetensors": file_sha256(folder / "model.safetensors")} | settings
    assert weights_sha256("someone/not-in-the-cache") is None


@pytest.mark.slow
def test_a_run_whose_base_changed_is_refused_at_evaluation_and_at_resume(tmp_path, problems):
    base = tmp_path / "base"
    shutil.copytree(MODELS_DIR / "tiny-s", base)
    run = tmp_path / "run"
    train_grpo(str(base), problems, CourseConfig(**FAST_TRAINING), run, progress=False)
    assert json.loads((run / "run_config.json").read_text())["base_sha256"] == weights_sha256("tiny-s")
    shutil.copy(MODELS_DIR / "tiny-sm" / "manifest.json", base / "manifest.json")  # rebuilt: another model
    shutil.copy(MODELS_DIR / "tiny-sm" / "model.safetensors", base / "model.safetensors")
    shutil.copy(MODELS_DIR / "tiny-sm" / "config.json", base / "config.json")
    line = refused("evaluate", "--model", run, "--n", "2", "--k", "2", "--out", tmp_path / "e.json")
    assert f"the base model {base} that {run} was trained on has changed since: its model.safetensors has sha256" in line
    (run / "summary.json").unlink()
    shutil.rmtree(run / "final")  # killed before it finished: a rerun would resume on the new base
    with pytest.raises(CourseError, match="was trained on has changed since"):
        train_grpo(str(base), problems, CourseConfig(**FAST_TRAINING), run, progress=False)


# ---------------------------------------------------------------------------
# 7-9. Values refused before any work; a failed start is not a run to protect
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["train", "--lr", "1e30"], "learning_rate=1e+30 must be in (0, 1]"),
    (["train", "--seed", "99999999999999999999"], "seed=99999999999999999999 must be from 0 to 4,294,967,295"),
    (["train", "--steps", "10000000000000"], "max_steps=10000000000000 must be from 1 to 1,000,000"),
    (["train", "--group-size", "100000"], "num_generations=100000 must be from 2 to 1,024"),
    (["train", "--lora-rank", "0"], "lora_r=0 must be from 1 to 4,096"),
    (["pretrain", "--lr", "inf"], "lr=inf must be a number in (0, 1]"),
    (["pretrain", "--seed", "99999999999999999999"], "--seed: '99999999999999999999' must be an integer from 0 to"),
    (["pretrain", "--steps", "100000000000000"], "steps=100000000000000 must be an integer from 1 to 1,000,000"),
    (["train", "--temperature", "1e-40"], "temperature=1e-40 must be from 0.001 to 100"),  # logits / 1e-40: inf
    (["estimate", "--temperature", "1e-40"], "temperature=1e-40 must be a finite number >= 0: 0 (greedy) or from 0.001"),
    (["estimate", "--max-new-tokens", "1000000"], "max_new_tokens=1000000 must be an integer from 1 to 131,072"),
    (["estimate", "--cache-dir", str(MODELS_DIR / "tiny-m")], "cache_dir=" f"{MODELS_DIR / 'tiny-m'} is a model folder"),
])
def test_absurd_settings_are_refused_before_anything_is_written(no_work, tmp_path, args, message):
    common = {"train": ["--model", "tiny-s", "--task", "arith", "--n", "8"], "pretrain": ["--size", "tiny-s"],
              "estimate": ["--model", "tiny-s", "--n", "8"]}[args[0]]
    assert message in refused(*args, *common, "--out", tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("setting", "message"), [
    ("LEARNING_RATE=inf", "--set LEARNING_RATE='inf': LEARNING_RATE takes a number"),  # read as ASCII digits only
    ("STEPS=-5", "STEPS=-5 must be a finite number from 0: optimizer steps"),
    ("LEARNING_RATE=1e30", "learning_rate=1e+30 must be in (0, 1]"),
    ("SEED=18446744073709551616", "SEED=18446744073709551616 must be an integer from 0 to 4,294,967,295"),
    ("EVAL_K=100000", "EVAL_K=100000 must be a finite number from 0 to 10,000"),
    ("GROUP_SIZE=100000", "num_generations=100000 must be from 2 to 1,024"),
    ("BUDGET=50.0", "BUDGET=50.0 must be a fraction in (0, 1] (a float) or a count of problems (an integer)"),
    ("DIFFICULTY_K=1", "DIFFICULTY_K=1 must be at least 2 samples per problem (0: the profile's value)"),
])
@pytest.mark.parametrize("emit", [[], ["--emit-slurm"]])
def test_reproduce_refuses_a_bad_setting_when_the_sweep_is_planned(no_work, tmp_path, setting, message, emit):
    line = refused("reproduce", "hard-wins", "--profile", "smoke", "--set", setting, *emit, "--out", tmp_path / "s")
    assert message in line
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("limit", ["0", "00:00:00", "0-0", "367-00:00:00"])
def test_a_slurm_time_of_nothing_or_over_a_year_is_refused_when_planned(no_work, tmp_path, limit):
    line = refused("reproduce", "hard-wins", "--profile", "smoke", "--emit-slurm", "--slurm-time", limit,
                   "--out", tmp_path / "s")
    assert f"--slurm-time {limit} must be above 0 and at most 366 days" in line and not (tmp_path / "s").exists()


def test_pretraining_whose_loss_goes_non_finite_stops_without_a_manifest(tmp_path, monkeypatch):
    build = course_lib.models.build_model

    def diverged(*args, **kwargs):
        model = build(*args, **kwargs)
        for parameter in model.parameters():
            parameter.data.fill_(float("nan"))
        return model

    monkeypatch.setattr(course_lib.models, "build_model", diverged)
    line = refused("pretrain", "--size", "tiny-s", "--steps", "3", "--batch-size", "2", "--out", tmp_path / "m",
                   "--quiet")
    assert line == "error: pretraining diverged at step 1 of 3: the loss is nan (lr=0.002); lower lr (2e-3 is usual)"
    assert not (tmp_path / "m" / "manifest.json").exists()


def _record(config: CourseConfig) -> dict:
    from course_lib.training import course_lora, run_record

    return run_record(config, course_lora())


def _run_config(run: Path, config: CourseConfig, problem_ids) -> None:
    run.mkdir(parents=True, exist_ok=True)
    (run / "run_config.json").write_text(json.dumps({"model": "tiny-s", "config": _record(config),
                                                     "problem_ids": problem_ids}))


def test_a_failed_start_is_not_a_run_to_protect_but_a_saved_checkpoint_is(tmp_path):
    ids = ["a", "b"]
    _run_config(tmp_path / "run", CourseConfig(learning_rate=0.5), ids)  # a start that died before its first save
    assert _check_run_dir(tmp_path / "run", _record(CourseConfig()), "tiny-s", ids) == (None, [])
    checkpoint = tmp_path / "run" / "checkpoint-2"
    checkpoint.mkdir()
    (checkpoint / "trainer_state.json").write_text("{}")
    (checkpoint / MARKER).write_text(json.dumps({"sha256": {"trainer_state.json": file_sha256(
        checkpoint / "trainer_state.json")}}))
    with pytest.raises(CourseError, match=r"holds a run with a different config, model or problems \(learning_rate="
                                          r"0\.0003 \(the run's: 0\.5\)\)"):  # names what differs
        _check_run_dir(tmp_path / "run", _record(CourseConfig()), "tiny-s", ids)
    with pytest.raises(CourseError, match=r"\(model='tiny-m' \(the run's: 'tiny-s'\); learning_rate=.*; 1 problems "
                                          r"\(the run's: 2, not the same ids\)\)"):
        _check_run_dir(tmp_path / "run", _record(CourseConfig()), "tiny-m", ["a"])


@pytest.mark.parametrize(("loss_type", "refused"), [("bnpo", True), ("dapo", False), ("grpo", False)])
def test_a_run_resumes_with_another_micro_batch_only_where_the_loss_does_not_depend_on_it(tmp_path, loss_type,
                                                                                         refused):
    """bnpo averages its loss per micro-batch: a run killed and resumed with another --micro-batch-prompts would
    train another objective from there on (its run_config.json still saying the first). The others resume."""
    ids = ["a", "b"]
    config = CourseConfig(prompts_per_step=2, loss_type=loss_type)
    _run_config(tmp_path / "run", config, ids)
    checkpoint = tmp_path / "run" / "checkpoint-2"
    checkpoint.mkdir()
    (checkpoint / "trainer_state.json").write_text("{}")
    (checkpoint / MARKER).write_text(json.dumps({"sha256": {"trainer_state.json": file_sha256(
        checkpoint / "trainer_state.json")}}))
    for log in ("ledger.jsonl", "metrics.jsonl"):  # the logs of the two steps before the checkpoint
        (tmp_path / "run" / log).write_text("".join(json.dumps({"step": step}) + "\n" for step in (1, 2)))
    other = _record(CourseConfig(prompts_per_step=2, loss_type=loss_type, micro_batch_prompts=1))
    if refused:
        with pytest.raises(CourseError, match=r"micro_batch_prompts=1 \(the run's: 0\)"):
            _check_run_dir(tmp_path / "run", other, "tiny-s", ids)
    else:
        assert _check_run_dir(tmp_path / "run", other, "tiny-s", ids)[0] == 2


@pytest.mark.slow
def test_a_run_that_diverges_stops_with_one_line_and_its_corrected_rerun_starts(tmp_path, problems, monkeypatch):
    from trl import GRPOTrainer

    def diverges(self, *args, **kwargs):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")

    monkeypatch.setattr(GRPOTrainer, "train", diverges)
    config = CourseConfig(**{**FAST_TRAINING, "learning_rate": 0.9})
    with pytest.raises(CourseError, match=r"^training diverged at step 1: .* \(learning_rate=0\.9\); lower the "):
        train_grpo("tiny-s", generate("arith", 4, "train", seed=1), config, tmp_path / "run", progress=False)
    monkeypatch.undo()
    assert (tmp_path / "run" / "run_config.json").exists()  # the failed start: no checkpoint, no summary
    summary = train_grpo("tiny-s", generate("arith", 4, "train", seed=1), CourseConfig(**FAST_TRAINING),
                         tmp_path / "run", progress=False)
    assert summary["steps"] == FAST_TRAINING["max_steps"]


@pytest.mark.parametrize("command", [["figures"], ["reproduce", "hard-wins", "--profile", "smoke"]])
@pytest.mark.parametrize("inside", ["run", "run/final", "points", "points/x"])
def test_figures_and_reproduce_never_write_into_a_run_folder_or_a_studys_points(no_work, tmp_path, command, inside):
    (tmp_path / "run" / "final").mkdir(parents=True)
    (tmp_path / "run" / "run_config.json").write_text("{}")
    (tmp_path / "grid.json").write_text("{}")
    (tmp_path / "points").mkdir()
    line = refused(*command, "--out", tmp_path / inside)
    assert "which only that command writes into; give a folder outside it" in line
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["final", "run_config.json"]
    assert not list((tmp_path / "points").iterdir())


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_the_difficulty_cache_never_goes_into_a_run_or_model_folder(no_work, tmp_path, monkeypatch, how):
    run = tmp_path / "run"
    (run / "final").mkdir(parents=True)
    (run / "run_config.json").write_text("{}")
    for target, said in ((run / "final", "a run folder of `train`"), (MODELS_DIR / "tiny-s", "a model folder")):
        flag = ["--cache-dir", target] if how == "flag" else []
        if how == "environment":
            monkeypatch.setenv("COURSE_CACHE_DIR", str(target))
        line = refused("estimate", "--model", "tiny-s", "--n", "2", "--k", "2", *flag, "--out", tmp_path / "t.csv")
        assert line.startswith(f"error: {'cache_dir' if how == 'flag' else 'COURSE_CACHE_DIR'}=") and said in line
    assert sorted(p.name for p in run.rglob("*")) == ["final", "run_config.json"]


def test_no_file_goes_into_a_folder_another_command_is_writing(held, tmp_path):
    folder, holder = held
    table = tmp_path / "t.csv"
    table.write_text("id,level,pass_rate\na,1,0.5\nb,1,0.0\n")
    line = refused("select", "--table", table, "--strategy", "hard", "--budget", "1", "--out", folder / "ids.txt")
    assert f"is inside {folder}, which another command is writing (pid {holder.pid}" in line
    assert sorted(p.name for p in folder.iterdir()) == [LOCK_NAME]


@pytest.mark.parametrize(("inside", "refused"), [("course_lib/cachex", True), ("notebooks/cachex", True),
                                                  ("build/cachex", False)])
def test_a_cache_folder_inside_the_repository_must_be_one_git_ignores(inside, refused):
    """`estimate --cache-dir course_lib/x` left an untracked folder among the library's files."""
    from course_lib.provenance import check_ignored_in_repository

    folder = ROOT / inside
    if refused:
        with pytest.raises(CourseError, match="is inside the repository, among files git tracks; give a folder outside"):
            check_ignored_in_repository(folder, "cache_dir")
    else:
        check_ignored_in_repository(folder, "cache_dir")
    assert not folder.exists()  # checked before anything is made
    check_ignored_in_repository(ROOT.parent / "elsewhere", "cache_dir")  # outside the repository: not its business


def test_another_process_s_passing_probe_or_temporary_file_is_no_folder_content(tmp_path):
    """Two processes of one `accelerate launch` check the run folder: rank 0's write probe (or an atomic write's
    temporary copy) seen by rank 1 made it refuse the folder as "not one train wrote", and the launch failed."""
    from course_lib.provenance import check_own_folder

    run = tmp_path / "run"
    run.mkdir()
    for name in (".write-test-2w30ypnp", ".run_config.json.x1y2z3.tmp"):
        (run / name).write_text("")
    check_own_folder(run, "train", "run_config.json")  # no error
    (run / "notes.txt").write_text("mine")
    with pytest.raises(CourseError, match=r"already holds files \(notes.txt\) and no run_config.json"):
        check_own_folder(run, "train", "run_config.json")


def test_evaluate_and_compare_replace_their_output_only_as_they_wrote_it(tmp_path):
    """Hostile round 20: `compare --out` (and `evaluate --out`) wrote over a result edited by hand, where `estimate`
    and `select` refuse; their JSON output now carries a sha256 of its own fields."""
    from course_lib.provenance import SEAL, seal_broken

    evaluation = {"per_problem": [{"id": "a", "k": 2, "n_correct": 1, "pass_rate": 0.5},
                                  {"id": "b", "k": 2, "n_correct": 0, "pass_rate": 0.0}]}
    after, before, out = tmp_path / "after.json", tmp_path / "before.json", tmp_path / "gain.json"
    after.write_text(json.dumps(evaluation))
    before.write_text(json.dumps({"per_problem": [{**row, "n_correct": 0, "pass_rate": 0.0}
                                                  for row in evaluation["per_problem"]]}))
    for _ in range(2):  # written, then replaced as it was written
        done = run_cli_in_process("compare", "--after", after, "--before", before, "--out", out)
        assert done.returncode == 0, done.stderr
    written = json.loads(out.read_text())
    assert isinstance(written[SEAL], str) and not seal_broken(out)
    out.write_text(json.dumps({**written, "my_note": "checked by hand"}, indent=1))
    assert seal_broken(out)
    line = refused("compare", "--after", after, "--before", before, "--out", out)
    assert f"out={out} was changed after `compare` wrote it (its fields no longer match its {SEAL})" in line
    assert "my_note" in out.read_text()


def test_round_29_a_kernel_log_is_never_written_through_a_link(tmp_path):
    """Hostile round 29: `notebooks` and `reproduce` opened OUT/logs/NAME.log through a symbolic link, replacing the
    file it pointed to. A log replaces only the link, never its target; a worker's appended log refuses a link."""
    from course_lib.provenance import fresh_log

    precious = tmp_path / "precious.txt"
    precious.write_text("kept")
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "a.log").symlink_to(precious)
    os.link(precious, tmp_path / "logs" / "b.log")  # a hard link: one file under two names
    for name in ("a.log", "b.log"):
        with fresh_log(tmp_path / "logs" / name) as log:
            log.write(b"kernel says")
        assert (tmp_path / "logs" / name).read_bytes() == b"kernel says" and not (tmp_path / "logs" / name).is_symlink()
    assert precious.read_text() == "kept"
    (tmp_path / "logs" / "c.log").symlink_to(precious)
    with pytest.raises(CourseError, match=r"c.log is a link .*a log is written only as a file of its own"):
        fresh_log(tmp_path / "logs" / "c.log", append=True)
    assert precious.read_text() == "kept"


def test_round_29_notebooks_refuses_a_run_or_study_folder_and_a_damaged_summary(tmp_path, no_work):
    """Hostile round 29: `notebooks --out` wrote executed copies and summary.json into a killed run's folder (which
    its resume then deleted) or a study folder; a summary.json with `notebooks` not a list ended in a TypeError."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "run_config.json").write_text("{}")
    assert "is a run folder of `train`" in refused("notebooks", "--profile", "smoke", "--only", "02", "--out", run)
    study = tmp_path / "study"
    study.mkdir()
    (study / "grid.json").write_text("{}")
    assert "is a study folder `reproduce` writes" in refused("notebooks", "--profile", "smoke", "--only", "02",
                                                             "--out", study)
    for damaged in ('{"profile": "smoke", "notebooks": 5}', '{"profile": "smoke", "notebooks": [{"notebook": ["x"]}]}'):
        out = tmp_path / f"nb-{len(damaged)}"
        out.mkdir()
        (out / "summary.json").write_text(damaged)
        assert "holds a summary.json that `notebooks` did not write, or one damaged since" in refused(
            "notebooks", "--profile", "smoke", "--only", "02", "--out", out)
    assert sorted(p.name for p in run.iterdir()) == ["run_config.json"]


def test_round_29_every_command_that_caches_refuses_a_cache_inside_a_model_or_run(tmp_path, no_work, monkeypatch):
    """Hostile round 29: only `estimate` checked its cache folder; `evaluate`, `reproduce` (its kernels' cache, or
    --emit-slurm's --cache-dir) and `sweep-point` wrote hash folders into data/models/tiny-m or a run folder."""
    model_cache = str(MODELS_DIR / "tiny-m")
    monkeypatch.setenv("COURSE_CACHE_DIR", model_cache)
    line = refused("evaluate", "--model", "tiny-s", "--n", "4", "--k", "2", "--out", tmp_path / "e.json")
    assert "COURSE_CACHE_DIR=" in line and not (tmp_path / "e.json").exists()
    assert "COURSE_CACHE_DIR=" in refused("reproduce", "hard-wins", "--profile", "smoke", "--out", tmp_path / "sw")
    monkeypatch.delenv("COURSE_CACHE_DIR")
    run = tmp_path / "run"
    run.mkdir()
    (run / "run_config.json").write_text("{}")
    for cache in (model_cache, run):
        assert "cache_dir=" in refused("reproduce", "hard-wins", "--profile", "smoke", "--emit-slurm", "--cache-dir",
                                       cache, "--out", tmp_path / f"jobs-{Path(cache).name}")
    assert not any(p.name.startswith("jobs") for p in tmp_path.iterdir())
    assert not [p for p in (MODELS_DIR / "tiny-m").iterdir() if p.is_dir()]


def test_round_29_train_grpo_refuses_rows_a_problem_twice_and_an_out_that_is_no_path(tmp_path):
    from course_lib.training import train_grpo

    problems = generate("arith", 4, "train", 0)
    config = CourseConfig(**FAST_TRAINING)
    for given, out, said in [(problems + problems[:1], tmp_path / "a", r"ids must be unique \(id '.*' appears more"),
                             ([p.to_dict() for p in problems], tmp_path / "b", r"holds a dict, not a Problem \(a row as "
                                                                              r"`generate` prints it"),
                             (problems, 5, r"out=5 must name a folder for the run")]:
        with pytest.raises(CourseError, match=said):
            train_grpo("tiny-s", given, config, out, progress=False)
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_round_29_set_on_a_grid_axis_says_the_grid_collapses_and_summarize_accuracy_names_bad_input(tmp_path):
    import pandas as pd

    from course_lib.evaluation import summarize_accuracy

    done = run_cli_in_process("reproduce", "hard-wins", "--profile", "smoke", "--emit-slurm", "--set", "STRATEGY=hard",
                              "--out", tmp_path / "jobs")
    assert done.returncode == 0, done.stderr
    assert "note: --set STRATEGY replaces a grid axis with one value: 2 points become 1; to run part of the grid, use " \
           "--where" in done.stderr
    for table in ([], pd.DataFrame({"id": ["a"], "k": [2]}), pd.DataFrame(columns=["level", "k", "n_correct"])):
        with pytest.raises(CourseError, match="table must be a non-empty DataFrame of per-problem rows"):
            summarize_accuracy(table)


def test_round_29_a_read_only_output_is_not_replaced(tmp_path):
    """Hostile round 29: `estimate --out` over its own earlier table made read-only (chmod 444) replaced it all the
    same (os.replace ignores the target's mode), as root or not."""
    from course_lib.provenance import check_replaceable

    table = tmp_path / "t.csv"
    table.write_text("id\n")
    table.chmod(0o444)
    with pytest.raises(CourseError, match=r"t.csv is read-only \(mode 444\), kept so on purpose"):
        check_replaceable(table, "estimate")
