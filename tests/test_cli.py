"""The command line: help, one-line errors with exit status 2, and a deterministic rebuild of tiny-s."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli_in_process

from course_lib.models import file_sha256, read_manifest


def run_cli(*args, **kwargs):
    """`python -m course_lib ARGS` in a new Python: the real entry point (most tests here use run_cli_in_process)."""
    return subprocess.run([sys.executable, "-m", "course_lib", *args], capture_output=True, text=True, **kwargs)


def test_pretrain_help():
    result = run_cli_in_process("pretrain", "--help")
    assert result.returncode == 0 and "--size" in result.stdout and "--seed" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["pretrain", "--size", "tiny-xl", "--out", "x"], "size='tiny-xl' is unknown"),
        (["pretrain", "--steps", "0", "--out", "x"], "steps=0 must be an integer from 1 to 1,000,000"),
        (["pretrain"], "the following arguments are required: --out"),
        (["pretrain", "--wordy-share", "1.5", "--out", "x"], "wordy_share=1.5 must be between 0 and 1"),
        (["pretrain", "--levels", "6", "--out", "x"], "levels: 6 is not a training level"),
        (["calibrate", "--model", "/no/such/model"], "does not exist"),
        (["calibrate", "--model", "tiny-s", "--k", "1"], "k=1 must be >= 2"),
        (["generate", "--task", "algebra"], "task='algebra' is unknown"),
        (["generate", "--levels", "9"], "level 9 is outside"),
        (["no-such-command"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_2(args, message):
    result = run_cli_in_process(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_generate_prints_json_lines():
    result = run_cli_in_process("generate", "--task", "shuffle", "--n", "3", "--levels", "2")
    assert result.returncode == 0
    assert len(result.stdout.strip().splitlines()) == 3 and '"level": 2' in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("name", "steps"), [("tiny-s", "30"), ("tiny-m-short", "4"), ("tiny-m-wordy", "4"),
                                                ("tiny-l-strong", "2")])
def test_rebuilding_a_committed_model_is_deterministic(tmp_path, name, steps):
    """Run a model's manifest command (shortened) twice: the weights must be byte-identical, and the manifest's
    command and config must be those of the committed model (the variants' --levels and --wordy-share included)."""
    command = shlex.split(read_manifest(name)["command"])
    assert command[:4] == ["python", "-m", "course_lib", "pretrain"]
    args = command[3:]  # "pretrain --size tiny-s ..."
    args[args.index("--steps") + 1] = steps
    hashes = []
    for run in ("a", "b"):
        out_at = args.index("--out") + 1
        args[out_at] = str(tmp_path / run)
        # one thread for both runs: the CLI otherwise takes threads from the idle cores, and float sums in a tiny-m
        # sized matmul differ with the thread count (the manifest command is exact only at a fixed count)
        result = run_cli(*args, "--quiet", env={**os.environ, "OMP_NUM_THREADS": "1"})
        assert result.returncode == 0, result.stderr
        hashes.append(file_sha256(tmp_path / run / "model.safetensors"))
    assert hashes[0] == hashes[1]
    rebuilt, committed = read_manifest(str(tmp_path / "a")), read_manifest(name)
    assert rebuilt["torch_threads"] == 1  # recorded, since the bytes are exact only at one thread count
    assert rebuilt["config"] | {"steps": None} == {"wordy_share": 0.0} | committed["config"] | {"steps": None}
    assert rebuilt["command"].replace(f"--steps {steps}", "--steps X").split(" --out ")[0] == \
        committed["command"].replace(f"--steps {committed['config']['steps']}", "--steps X").split(" --out ")[0]


def test_estimate_and_select_are_byte_identical_when_repeated(tmp_path):
    outputs = []
    for run, cli in (("a", run_cli), ("b", run_cli_in_process)):  # in a new Python, then in this one
        table, ids = tmp_path / f"{run}.csv", tmp_path / f"{run}.txt"
        result = cli("estimate", "--model", "tiny-s", "--task", "arith", "--split", "train", "--n", "12",
                     "--k", "4", "--max-new-tokens", "48", "--seed", "3", "--out", str(table), "--quiet")
        assert result.returncode == 0, result.stderr
        result = cli("select", "--table", str(table), "--strategy", "hard", "--budget", "0.25", "--seed", "3",
                     "--out", str(ids))
        assert result.returncode == 0, result.stderr
        outputs.append((table.read_bytes(), ids.read_bytes()))
    assert outputs[0] == outputs[1]
    assert len(outputs[0][1].decode().split()) == 3  # 25% of 12
    # pinned: the seeded run (CPU, torch 2.13; the same on every run here): tiny-s solves 2 of 48 samples, both on
    # one level-1 problem, so `hard` draws 3 of the 11 problems at p = 0 by the seed
    assert outputs[0][0].decode().count(",arith,4,0,") == 11 and ",arith,4,2,0.5," in outputs[0][0].decode()
    assert outputs[0][1].decode().split() == ["arith-fbdfe9a0be", "arith-a1e2201244", "arith-416186f000"]
    assert "command" in (tmp_path / "a.csv.provenance.json").read_text()


def test_a_table_or_ids_file_changed_after_it_was_written_is_refused(tmp_path):
    """The provenance beside a table or an ids file records its sha256: an edited file no longer matches it."""
    table, ids = tmp_path / "t.csv", tmp_path / "ids.txt"
    result = run_cli_in_process("estimate", "--model", "tiny-s", "--n", "6", "--k", "2", "--max-new-tokens", "24",
                                "--allow-zero", "--out", table, "--quiet")
    assert result.returncode == 0, result.stderr
    assert run_cli_in_process("select", "--table", table, "--strategy", "hard", "--budget", "2",
                              "--out", ids).returncode == 0
    ids_before = ids.read_bytes()
    header, first, *rest = table.read_text().splitlines(keepends=True)  # one problem's count edited by hand
    fields = dict(zip(header.strip().split(","), first.rstrip("\n").split(",")))
    fields.update(n_correct=fields["k"], pass_rate="1.0", outcomes="1" * int(fields["k"]))
    table.write_text(header + ",".join(fields.values()) + "\n" + "".join(rest))
    result = run_cli_in_process("select", "--table", table, "--strategy", "hard", "--budget", "2", "--out", ids)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert f"table={table} was changed after the command in t.csv.provenance.json wrote it" in result.stderr
    assert ids.read_bytes() == ids_before
    ids.write_text(ids.read_text() + "arith-0000000000\n")
    result = run_cli_in_process("train", "--model", "tiny-s", "--task", "arith", "--n", "6", "--ids", ids,
                                "--steps", "1", "--out", tmp_path / "run")
    assert result.returncode == 2 and f"ids={ids} was changed after" in result.stderr, result.stderr
    assert not (tmp_path / "run").exists()
    (tmp_path / "t.csv.provenance.json").unlink()  # the edit is the user's on purpose: the table is theirs now
    assert run_cli_in_process("select", "--table", table, "--strategy", "hard", "--budget", "2",
                              "--out", tmp_path / "mine.txt").returncode == 0


def test_a_run_records_a_base_given_by_a_relative_path_as_an_absolute_one(tmp_path, monkeypatch):
    """`train --model ./mm` recorded "./mm": evaluating the run from another folder read another ./mm, or none."""
    import shutil

    from course_lib.__main__ import model_as_recorded

    shutil.copytree(Path(__file__).resolve().parent.parent / "data" / "models" / "tiny-s", tmp_path / "mm")
    monkeypatch.chdir(tmp_path)
    assert model_as_recorded("./mm") == str(tmp_path / "mm") and model_as_recorded("mm") == str(tmp_path / "mm")
    assert [model_as_recorded(name) for name in ("tiny-s", "Qwen/Qwen3-0.6B")] == ["tiny-s", "Qwen/Qwen3-0.6B"]


def test_an_output_edited_by_hand_is_not_replaced_by_running_the_command_again(tmp_path):
    """`select --out ids.txt` again replaces its own ids file, but not one the user curated since (its sha256 no
    longer matches its provenance): the edit would be lost. The same for a difficulty table and `estimate`."""
    table, ids = tmp_path / "t.csv", tmp_path / "ids.txt"
    estimate = ("estimate", "--model", "tiny-s", "--n", "6", "--k", "2", "--max-new-tokens", "24", "--allow-zero",
                "--out", table, "--quiet")
    assert run_cli_in_process(*estimate).returncode == 0
    select = ("select", "--table", table, "--strategy", "hard", "--budget", "2", "--out", ids)
    assert run_cli_in_process(*select).returncode == 0
    assert run_cli_in_process(*select).returncode == 0  # its own output, unchanged: replaced
    for path, command in ((ids, select), (table, estimate)):
        path.write_text(path.read_text() + "# my notes\n")
        edited = path.read_bytes()
        done = run_cli_in_process(*command)
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert f"out={path} was changed after `{command[0]}` wrote it" in done.stderr, done.stderr
        assert path.read_bytes() == edited


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--strategy", "hardest", "--budget", "0.1"], "strategy='hardest' is unknown"),
        (["--strategy", "hard", "--budget", "0"], "budget=0 must be positive"),
        (["--strategy", "hard", "--budget", "1.5"], "budget=1.5 as a fraction must be in (0, 1]"),
        (["--strategy", "hard", "--budget", "500"], "budget=500 is larger than the pool (3 problems)"),
        (["--strategy", "hard", "--budget", "lots"], "budget='lots' is not a number"),
    ],
)
def test_select_bad_input(tmp_path, args, message):
    table = tmp_path / "t.csv"
    table.write_text("id,level,pass_rate\na,1,0.5\nb,2,0.25\nc,3,0.0\n")
    result = run_cli_in_process("select", "--table", str(table), *args, "--out", str(tmp_path / "ids.txt"))
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_estimate_rejects_k_below_two_before_loading_anything():
    result = run_cli_in_process("estimate", "--model", "/no/such/model", "--k", "1", "--out", "x.csv")
    assert result.returncode == 2 and "k=1 must be >= 2" in result.stderr


def test_provenance_commit_ignores_outputs_but_not_code(tmp_path):
    """In a fresh clone: rewriting data/ keeps the commit clean, editing course_lib/ marks it dirty."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(root), str(clone)], check=True)  # local: hard links, fast

    def commit() -> str:
        code = "from course_lib.provenance import git_commit; print(git_commit())"
        return subprocess.run([sys.executable, "-c", code], cwd=clone, capture_output=True, text=True,
                              env={"PYTHONPATH": str(clone), "PATH": "/usr/bin:/bin"}).stdout.strip()

    (clone / "data" / "README.md").write_text("rewritten output\n")
    assert not commit().endswith("+dirty") and len(commit()) == 40
    with open(clone / "course_lib" / "tasks.py", "a") as handle:
        handle.write("# an edit to the code\n")
    assert commit().endswith("+dirty")


def test_train_help_shows_every_setting_with_its_default_and_help_from_the_dataclasses():
    """`train --help` lists every CourseConfig field (TRL's GRPOConfig, save those train sets itself) and TRL's
    ModelConfig LoRA fields, each with a help text and its default from the field's metadata."""
    import dataclasses
    import re

    from course_lib.__main__ import NOT_FLAGS
    from course_lib.training import BATCH_FIELDS, LORA_FLAGS, CourseConfig, CourseModelConfig

    result = run_cli_in_process("train", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "--num_generations NUM_GENERATIONS, --num-generations NUM_GENERATIONS, --group-size NUM_GENERATIONS " \
           "G: completions per prompt (default: 8)" in text
    assert "--learning_rate LEARNING_RATE, --learning-rate LEARNING_RATE, --lr LEARNING_RATE 3e-4 suits LoRA" in text
    assert "--max_grad_norm MAX_GRAD_NORM, --max-grad-norm MAX_GRAD_NORM gradient clipping (0: none) (default: 1.0)" \
        in text
    assert "--lora_r LORA_R, --lora-r LORA_R, --lora-rank LORA_R LoRA rank r (default: 16)" in text
    assert "--lr_scheduler_type" in text and "(default: 'constant')" in text
    fields = [f for f in dataclasses.fields(CourseConfig) if f.init and f.name not in (*NOT_FLAGS, *BATCH_FIELDS)]
    fields += [f for f in dataclasses.fields(CourseModelConfig) if f.name in LORA_FLAGS]
    assert len(fields) > 150  # GRPOConfig's own settings, not only the course's
    settings = result.stdout.split("training settings: a CourseConfig", 1)[1]
    options = [" ".join(entry.split()) for entry in re.split(r"\n  (?=-)", settings)]  # one entry per option
    for field in fields:
        entry = next((o for o in options if o.startswith(f"--{field.name} ") or o.startswith(f"--{field.name},")),
                     None)
        assert entry is not None, field.name
        assert re.search(r"\S \(default: .+\)", entry), entry[:200]  # a help text, then the default
    for name in (*NOT_FLAGS, *BATCH_FIELDS):  # set by train itself: --out, --quiet, the batch from --prompts-per-step
        assert f"--{name} " not in text


@pytest.mark.parametrize(("flags", "given", "lora"), [
    (["--group-size", "4", "--steps", "3", "--lr", "1e-4", "--max-new-tokens", "16", "--warmup-ratio", "0.1"],
     {"num_generations": 4, "max_steps": 3, "learning_rate": 1e-4, "max_completion_length": 16, "warmup_steps": 0.1},
     {}),
    (["--prompts-per-step", "2", "--micro-batch-prompts", "1", "--format-weight", "0.5", "--dynamic-sampling",
      "--dynamic-max-rounds", "3", "--save-steps", "5", "--seed", "7"],
     {"prompts_per_step": 2, "micro_batch_prompts": 1, "format_weight": 0.5, "dynamic_sampling": True,
      "dynamic_max_rounds": 3, "save_steps": 5, "seed": 7}, {}),
    (["--no-dynamic-sampling", "--no-use-vllm", "--activation-checkpointing"],
     {"dynamic_sampling": False, "use_vllm": False, "activation_checkpointing": True}, {}),
    (["--lora", "--lora-rank", "8", "--lora-alpha", "16"], {}, {"use_peft": True, "lora_r": 8, "lora_alpha": 16}),
    (["--no-lora"], {}, {"use_peft": False}),
    (["--num_iterations", "2", "--top_k", "5"], {"num_iterations": 2, "top_k": 5}, {}),  # any GRPOConfig setting
])
def test_the_courses_flag_spellings_still_work_and_only_given_flags_are_set(flags, given, lora):
    from course_lib.__main__ import build_parser

    args = build_parser().parse_args(["train", "--model", "tiny-s", "--out", "run", *flags])
    assert {name: getattr(args, name) for name in args.config_flags if getattr(args, name) is not None} == given
    assert {name: getattr(args, name) for name in args.lora_flags if getattr(args, name) is not None} == lora


def test_paper_settings_give_way_to_the_flags_given(tmp_path, monkeypatch):
    """--settings 2508.14094 with --lr and --lora-rank: the paper's other values, the flags' where given."""
    import course_lib.training

    seen = {}

    def stop(model, problems, config, out, peft_config, progress=True):
        seen.update(config=config, lora=peft_config)
        raise KeyboardInterrupt

    monkeypatch.setattr(course_lib.training, "train_grpo", stop)
    done = run_cli_in_process("train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--settings", "2508.14094",
                              "--lr", "1e-4", "--lora-rank", "8", "--steps", "2", "--out", str(tmp_path / "run"))
    assert done.returncode == 130, done.stderr
    config, lora = seen["config"], seen["lora"]
    assert (config.learning_rate, config.max_steps, config.adam_beta2, config.num_generations) == (1e-4, 2, 0.99, 8)
    assert (lora.r, lora.lora_alpha) == (8, 32)  # the flag's rank, the paper's alpha


@pytest.mark.slow
def test_train_shows_a_progress_bar_not_the_metrics_dict(tmp_path):
    result = run_cli("train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--steps", "2", "--group-size", "2",
                     "--prompts-per-step", "2", "--max-new-tokens", "16", "--out", str(tmp_path / "run"))
    assert result.returncode == 0, result.stderr
    assert "GRPO steps" in result.stderr and "reward=" in result.stderr
    assert "{'loss'" not in result.stdout + result.stderr and "'frac_reward_zero_std'" not in result.stdout
    assert len((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()) == 2  # the full metrics are kept
    assert result.stdout.startswith("trained 2 steps in ")
    again = run_cli_in_process("train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--steps", "2", "--group-size",
                               "2", "--prompts-per-step", "2", "--max-new-tokens", "16", "--out", str(tmp_path / "run"))
    assert again.returncode == 0 and again.stdout == f"already finished (2 steps), nothing trained; run folder {tmp_path / 'run'}\n"
    (tmp_path / "run" / "summary.json").write_text("{")  # damaged: final/ and the summary come again from step 2
    rebuilt = run_cli_in_process("train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--steps", "2",
                                 "--group-size", "2", "--prompts-per-step", "2", "--max-new-tokens", "16",
                                 "--out", str(tmp_path / "run"))
    assert rebuilt.returncode == 0 and rebuilt.stdout.startswith("finished again from its checkpoint of step 2 ")


@pytest.mark.parametrize("command", ["estimate", "select", "evaluate", "reproduce", "calibrate", "generate"])
def test_help_shows_the_defaults(command):
    result = run_cli_in_process(command, "--help")
    assert result.returncode == 0 and "(default: " in result.stdout
    if command in ("estimate", "generate"):
        assert "--seed SEED" in result.stdout and "(default: 0)" in " ".join(result.stdout.split())


def test_a_sampling_seed_draws_fresh_samples_of_the_same_pool(tmp_path):
    """What a high-K re-estimate needs: the same problems (--seed), samples independent of the labels' (--sampling-seed)."""
    import pandas as pd

    tables = {}
    for name, extra in (("labels", []), ("fresh", ["--sampling-seed", "7"])):
        out = tmp_path / f"{name}.csv"
        result = run_cli_in_process("estimate", "--model", "tiny-m", "--n", "12", "--k", "4", "--max-new-tokens", "48",
                                    "--seed", "3", *extra, "--out", str(out), "--quiet", "--allow-zero")
        assert result.returncode == 0, result.stderr
        tables[name] = pd.read_csv(out, dtype={"outcomes": str})
    assert tables["labels"]["id"].tolist() == tables["fresh"]["id"].tolist()
    assert tables["labels"]["outcomes"].tolist() != tables["fresh"]["outcomes"].tolist()
    assert "--sampling-seed 7" in (tmp_path / "fresh.csv.provenance.json").read_text()


def test_reproduce_help_names_every_study():
    from course_lib.__main__ import study_help
    from course_lib.research.studies import STUDIES

    named = set(re.findall(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+", study_help().split("(")[0]))
    assert named == set(STUDIES)  # every study, each by its whole name (not only as part of a longer one)


def test_reproduce_help_as_printed_names_the_size_boundary_pilot():
    result = run_cli("reproduce", "--help")
    text = re.sub(r"-\n\s+", "-", result.stdout)  # argparse may wrap a name at one of its hyphens
    assert result.returncode == 0 and "size-boundary-pilot" in text and "strong-regime-pilot" in text


def test_select_says_when_hard_picks_among_ties_and_train_says_when_ids_were_chosen_for_another_model(tmp_path):
    """On a pool mostly at p = 0, `hard` picks among the tied problems by the seed, as random does: said. Ids chosen
    from tiny-s's table train tiny-m with a warning (their difficulty is tiny-s's)."""
    tied = tmp_path / "tied.csv"
    tied.write_text("id,level,pass_rate\n" + "".join(f"p{i},1,0.0\n" for i in range(6)) + "q,1,0.5\n")
    with pytest.warns(UserWarning, match="'hard' picked 2 of 6 problems tied at pass rate 0.00"):
        assert run_cli_in_process("select", "--table", tied, "--strategy", "hard", "--budget", "2",
                                  "--out", tmp_path / "tied.txt").returncode == 0
    table, ids = tmp_path / "t.csv", tmp_path / "ids.txt"
    assert run_cli_in_process("estimate", "--model", "tiny-s", "--n", "8", "--k", "2", "--max-new-tokens", "8",
                              "--allow-zero", "--out", table, "--quiet").returncode == 0
    assert run_cli_in_process("select", "--table", table, "--strategy", "random", "--budget", "2",
                              "--out", ids).returncode == 0
    with pytest.warns(UserWarning, match=f"ids={ids} were selected from a difficulty table of tiny-s, and this run "
                                         "trains tiny-m"):
        done = run_cli_in_process("train", "--model", "tiny-m", "--n", "8", "--ids", ids, "--steps", "1",
                                  "--group-size", "2", "--prompts-per-step", "2", "--max-completion-length", "8",
                                  "--out", tmp_path / "run", "--quiet")
    assert done.returncode == 0, done.stderr


def test_round_25_an_output_edited_while_the_command_runs_is_kept_and_the_new_one_goes_beside_it(tmp_path, monkeypatch):
    """Hostile round 25: `estimate` and `evaluate` checked --out only before sampling, so an edit made while they ran
    (minutes to hours) was replaced at the end, exit 0. Now the file is left as it is, this run's output is written
    as OUT.new (its provenance beside it), and the command says so (exit 2)."""
    import course_lib.selection

    table, ids = tmp_path / "t.csv", tmp_path / "ids.txt"
    table.write_text("id,level,pass_rate\n" + "".join(f"p{i},1,0.{i}\n" for i in range(6)))
    assert run_cli_in_process("select", "--table", table, "--strategy", "hard", "--budget", "2",
                              "--out", ids).returncode == 0
    first = ids.read_text()
    real_select = course_lib.selection.select

    def select_while_the_user_edits(*args, **kwargs):
        with ids.open("a") as handle:
            handle.write("my own note\n")
        return real_select(*args, **kwargs)

    monkeypatch.setattr(course_lib.selection, "select", select_while_the_user_edits)
    result = run_cli_in_process("select", "--table", table, "--strategy", "hard", "--budget", "3", "--out", ids)
    assert result.returncode == 2
    assert f"out={ids} was changed while `select` ran" in result.stderr and "ids.txt.new" in result.stderr
    assert ids.read_text() == first + "my own note\n"  # the edit is kept
    new = tmp_path / "ids.txt.new"
    assert len(new.read_text().split()) == 3 and "select" in (tmp_path / "ids.txt.new.provenance.json").read_text()
    ids.write_text(first)  # undone, then edited again while select runs: the new output goes beside, once more
    result = run_cli_in_process("select", "--table", table, "--strategy", "hard", "--budget", "4", "--out", ids)
    assert result.returncode == 2 and "ids.txt.new2" in result.stderr  # ids.txt.new is not replaced either
    assert len(new.read_text().split()) == 3 and len((tmp_path / "ids.txt.new2").read_text().split()) == 4
    monkeypatch.setattr(course_lib.selection, "select", real_select)
    ids.write_text(first)  # the edit undone by hand: the file is again what select wrote, so it is replaced
    assert run_cli_in_process("select", "--table", table, "--strategy", "hard", "--budget", "3",
                              "--out", ids).returncode == 0
    assert ids.read_text() == new.read_text()
