"""Every numeric option of every command, given nan, inf, -1, 0, 2**64 and an empty string: refused with exit
status 2 and one line naming the option, before any file is written; or, where the value is valid (0 as a seed or
"no KL penalty"), accepted up to the point where the work would start. Argument checks only: nothing trains.
Rows of docs/bad_inputs.md ("every numeric option ...").
"""

import json

import pytest
from conftest import run_cli_in_process

import course_lib.evaluation
import course_lib.models
import course_lib.models.standin
import course_lib.research.calibration
import course_lib.research.sweep
import course_lib.training

VALUES = ("nan", "inf", "-1", "0", str(2**64), "")
TABLE = "id,level,source,k,n_correct,pass_rate\na,1,arith,2,1,0.5\nb,1,arith,2,0,0.0\nc,1,arith,2,2,1.0\n"
EVALUATION = {"per_problem": [{"id": i, "k": 2, "n_correct": c, "pass_rate": c / 2} for i, c in (("a", 1), ("b", 0))]}

# command -> (its other arguments; FILES is a folder of inputs, OUT a path no file is at), then each numeric
# option with the values among VALUES it accepts (every other one must be refused)
SAMPLING = {"--n": (), "--k": (), "--temperature": (), "--max-new-tokens": (), "--seed": ("0",)}  # 0: greedy, with --k 1 only
COMMANDS = {
    "pretrain": (["--size", "tiny-s", "--out", "OUT"],
                 {"--steps": (), "--batch-size": (), "--lr": (), "--seed": ("0",), "--wordy-share": ("0",)}),
    "standin": (["--out", "OUT"], {"--seed": ("0",)}),
    "calibrate": (["--model", "tiny-s"], SAMPLING),
    "generate": (["--task", "arith"], {"--n": (), "--seed": ("0",)}),
    "estimate": (["--model", "tiny-s", "--out", "OUT"], {**SAMPLING, "--sampling-seed": ("0",)}),
    "evaluate": (["--model", "tiny-s", "--out", "OUT"], SAMPLING),
    "select": (["--table", "FILES/table.csv", "--strategy", "hard", "--budget", "1", "--out", "OUT"],
               {"--budget": (), "--seed": ("0",)}),
    "train": (["--model", "tiny-s", "--task", "arith", "--n", "20", "--out", "OUT"], {
        "--n": (), "--pool-seed": ("0",), "--group-size": (), "--prompts-per-step": (), "--steps": (), "--lr": (),
        "--beta": ("0",), "--epsilon": (), "--max-completion-length": (), "--temperature": (), "--lora-rank": (),
        "--lora-alpha": (), "--lora-dropout": ("0",), "--weight-decay": ("0",), "--adam-beta2": ("0",), "--warmup-ratio": ("0",),
        "--max-grad-norm": ("0", str(2**64)),  # 0: no clipping; a threshold of 2**64: none either
        "--save-steps": (), "--micro-batch-prompts": ("0",), "--seed": ("0",), "--format-weight": ("0",),
        "--dynamic-max-rounds": (), "--vllm-gpu-memory-utilization": ()}),
    "compare": (["--after", "FILES/a.json", "--before", "FILES/b.json", "--out", "OUT"],
                {"--n-boot": (), "--seed": ("0",)}),
    "reproduce": (["hard-wins", "--profile", "smoke", "--out", "OUT"],
                  {"--workers": (str(2**64),)}),  # more workers than points or cores: capped, with a warning
    "reproduce --emit-slurm": (["hard-wins", "--profile", "smoke", "--emit-slurm", "--out", "OUT"], {
        "--slurm-gpus": ("0",), "--slurm-cpus": (), "--slurm-time": (),
        "--slurm-mem": ("0",)}),  # SLURM reads --mem=0 as the whole node's memory
    "sweep-point": (["hard-wins", "--profile", "smoke", "--out", "FILES/sweep"], {"--index": ("0",)}),
}
FIELDS = {("train", "--lr"): "learning_rate", ("pretrain", "--lr"): "lr", ("reproduce", "--slurm-time"): "time_limit",
          # train's older spellings of GRPOConfig's and ModelConfig's fields: the error names the field
          ("train", "--group-size"): "num_generations", ("train", "--steps"): "max_steps",
          ("train", "--warmup-ratio"): "warmup_steps", ("train", "--lora-rank"): "lora_r"}
CASES = [(command, option, value, value in valid) for command, (_, options) in COMMANDS.items()
         for option, valid in options.items() for value in VALUES]


class WorkStarted(Exception):
    """Raised where a command's work would begin: its arguments passed every check."""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("inputs")
    (root / "table.csv").write_text(TABLE)
    for name in ("a.json", "b.json"):
        (root / name).write_text(json.dumps(EVALUATION))
    (root / "sweep").mkdir()
    points = course_lib.research.sweep.expand("hard-wins", "smoke")
    (root / "sweep" / "grid.json").write_text(json.dumps({"study": "hard-wins", "points": points}))
    return root


@pytest.fixture
def no_work(monkeypatch):
    """Each command's first step of real work raises WorkStarted (cheap commands run for real)."""
    def started(*args, **kwargs):
        raise WorkStarted

    for module, name in [(course_lib.models, "run_pretrain"), (course_lib.models.standin, "build_standin"),
                         (course_lib.research.calibration, "load_trained"), (course_lib.evaluation, "model_for_backend"),
                         (course_lib.training, "train_grpo"), (course_lib.research.sweep, "run"),
                         (course_lib.research.sweep, "emit_slurm"), (course_lib.research.sweep, "run_point_notebook")]:
        monkeypatch.setattr(module, name, started)


@pytest.mark.parametrize(("command", "option", "value", "valid"), CASES,
                         ids=[f"{c} {o} {v!r}" for c, o, v, _ in CASES])
def test_every_numeric_option_refuses_a_bad_value_before_any_work(files, no_work, tmp_path, command, option, value,
                                                                   valid):
    base, _ = COMMANDS[command]
    out = tmp_path / "out"
    args = [*command.split()[:1], *[a.replace("FILES", str(files)).replace("OUT", str(out)) for a in base],
            option, value]
    try:
        done = run_cli_in_process(*args)
    except WorkStarted:
        assert valid, f"{option} {value!r} was accepted"
        return
    lines = done.stderr.strip().splitlines()
    if valid:
        assert done.returncode == 0, done.stderr
        return
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    field = FIELDS.get((command.split()[0], option), option[2:].replace("-", "_").removeprefix("slurm_"))
    assert option in lines[0] or f"{field}=" in lines[0] or f"{field.upper()}" in lines[0], lines[0]
    assert not out.exists()  # refused before anything was written


def test_every_number_among_the_training_settings_refuses_nan_and_inf():
    """Hostile round 20: about 20 of GRPOConfig's own float settings (top_entropy_quantile, entropy_coef, ...) took
    NaN, recorded it and trained on; read from the dataclass, so a setting a new TRL adds is covered too."""
    from dataclasses import fields

    from course_lib import CourseError
    from course_lib.training.config import CourseConfig

    numbers = [f.name for f in fields(CourseConfig) if f.init and isinstance(getattr(CourseConfig, f.name, None), float)]
    assert len(numbers) > 20 and "top_entropy_quantile" in numbers
    for name in numbers:
        for value in (float("nan"), float("inf")):
            with pytest.raises(CourseError, match=f"^{name}=(nan|inf) "):  # named first, whichever check
                CourseConfig(output_dir="unused", **{name: value})

