"""Training at scale: micro-batches, gradient checkpointing, `extra`, finished runs, several processes."""

import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FAST_TRAINING as FAST  # the shared fixtures' settings
from transformers import TrainerCallback

from course_lib import CourseError
from course_lib.tasks import generate
from course_lib.training import CourseConfig, micro_batches, read_jsonl_log, run_args, train_grpo

ROOT = Path(__file__).resolve().parent.parent


class Seen(TrainerCallback):
    """Records what the Trainer showed its callbacks."""

    def __init__(self):
        self.began, self.checkpointing, self.trainable_without_grad = False, None, None

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        self.began, self.checkpointing = True, model.is_gradient_checkpointing

    def on_pre_optimizer_step(self, args, state, control, model=None, **kwargs):
        trainable = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
        self.trainable_without_grad = [name for name, p in trainable if p.grad is None] if trainable else None


def test_micro_batches_make_one_generation_per_optimizer_step(tmp_path):
    # per device: 1 prompt x G=4 completions per forward/backward; 2 accumulation steps make the optimizer step
    args = run_args(CourseConfig(**FAST, micro_batch_prompts=1), tmp_path)
    assert (args.per_device_train_batch_size, args.gradient_accumulation_steps) == (4, 2)
    # TRL 1.16 generates the whole step's prompts_per_step x G completions at once, then splits them
    assert (args.generation_batch_size, args.steps_per_generation) == (8, 2)
    whole = run_args(CourseConfig(**FAST), tmp_path)
    assert (whole.per_device_train_batch_size, whole.gradient_accumulation_steps, whole.generation_batch_size) == (8, 1, 8)


@pytest.mark.parametrize(
    ("prompts", "micro", "processes", "expected"),
    [
        (8, 0, 1, (64, 1)),  # the whole step in one forward/backward
        (8, 2, 1, (16, 4)),
        (8, 0, 2, (32, 1)),  # each of 2 processes takes 4 prompts
        (8, 2, 2, (16, 2)),
        (8, 1, 4, (8, 2)),
    ],
)
def test_micro_batches_split_the_step_over_processes(prompts, micro, processes, expected):
    config = CourseConfig(num_generations=8, prompts_per_step=prompts, micro_batch_prompts=micro)
    assert micro_batches(config, processes) == expected


def test_micro_batches_name_the_fields_that_do_not_divide():
    with pytest.raises(CourseError, match=r"prompts_per_step=6 does not split into micro-batches of micro_batch_prompts=4"):
        CourseConfig(prompts_per_step=6, micro_batch_prompts=4)
    with pytest.raises(CourseError, match="prompts_per_step=3 does not split over 2 processes"):
        micro_batches(CourseConfig(prompts_per_step=3), 2)
    with pytest.raises(CourseError, match=r"gives 2 prompts each, which micro_batch_prompts=4 does not divide"):
        micro_batches(CourseConfig(prompts_per_step=4, micro_batch_prompts=4), 2)
    with pytest.raises(CourseError, match="micro_batch_prompts=-1 must be >= 0"):
        CourseConfig(micro_batch_prompts=-1)


@pytest.mark.slow
def test_micro_batched_run_logs_the_same_groups_and_resumes(finished_run, problems, tmp_path):
    out = tmp_path / "micro"
    config = CourseConfig(**{**FAST, "max_steps": 3, "save_steps": 2, "micro_batch_prompts": 1})
    train_grpo("tiny-s", problems, config, out, progress=False)
    ledger = read_jsonl_log(out / "ledger.jsonl")
    assert [row["step"] for row in ledger] == [1, 1, 2, 2, 3, 3]  # prompts_per_step groups per optimizer step
    # same seed, same generation batch: step 1 saw exactly the groups of the run without micro-batches
    assert ledger[:2] == read_jsonl_log(finished_run[0] / "ledger.jsonl")[:2]
    metrics = read_jsonl_log(out / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [1, 2, 3]
    for step in (1, 2, 3):  # the ledger and TRL's own metric agree on each step's dead groups
        dead = [row["reward_std"] == 0 for row in ledger if row["step"] == step]
        assert sum(dead) / len(dead) == pytest.approx(metrics[step - 1]["frac_reward_zero_std"])
    assert {p.name for p in out.glob("checkpoint-*")} == {"checkpoint-2", "checkpoint-3"}  # every save_steps + the end
    shutil.rmtree(out / "checkpoint-3")  # killed after step 3, before its checkpoint, final/ and summary.json
    shutil.rmtree(out / "final")
    (out / "summary.json").unlink()
    summary = train_grpo("tiny-s", problems, config, out, progress=False)
    assert summary["resumed_from"] == 2 and summary["steps"] == 3
    assert [row["step"] for row in read_jsonl_log(out / "ledger.jsonl")] == [1, 1, 2, 2, 3, 3]


@pytest.mark.slow
def test_micro_batches_give_the_whole_steps_gradient(problems, tmp_path, monkeypatch):
    import course_lib.training

    # a reward that differs within groups (the tiny model scores 0 on correctness), so the gradient is not 0
    monkeypatch.setattr(course_lib.training, "correctness_reward", lambda completions, **kw: [len(c) / 50 for c in completions])
    grad_norms = []
    for micro in (0, 1):
        config = CourseConfig(**{**FAST, "max_steps": 1, "micro_batch_prompts": micro})  # loss_type dapo
        train_grpo("tiny-s", problems, config, tmp_path / f"micro{micro}", progress=False)
        grad_norms.append(read_jsonl_log(tmp_path / f"micro{micro}" / "metrics.jsonl")[0]["grad_norm"])
    assert grad_norms[0] > 0 and grad_norms[1] == pytest.approx(grad_norms[0], rel=1e-5)


@pytest.mark.slow
def test_gradient_checkpointing_trains_a_model_placed_by_the_trainer(problems, tmp_path, monkeypatch):
    import course_lib.models

    # were train_grpo to place the model itself, it would land on the meta device and fail to train
    monkeypatch.setattr(course_lib.models, "default_device", lambda: "meta")
    seen = Seen()
    config = CourseConfig(**{**FAST, "max_steps": 1, "activation_checkpointing": True})
    summary = train_grpo("tiny-s", problems, config, tmp_path / "gc", progress=False, callbacks=[seen])
    assert seen.checkpointing is True and summary["steps"] == 1
    assert seen.trainable_without_grad == []  # the backward pass reached every LoRA weight through the recomputation


def test_load_model_places_unless_told_not_to(monkeypatch):
    import course_lib.models
    from course_lib.models import load_model

    monkeypatch.setattr(course_lib.models, "default_device", lambda: "meta")
    assert next(load_model("tiny-s")[0].parameters()).device.type == "meta"
    assert next(load_model("tiny-s", place=False)[0].parameters()).device.type == "cpu"
    with pytest.raises(CourseError, match="device='cpu' with place=False"):
        load_model("tiny-s", device="cpu", place=False)


def test_any_grpo_setting_overrides_the_course_defaults(tmp_path):
    args = run_args(CourseConfig(save_total_limit=5, top_k=3, logging_steps=2, num_iterations=2, save_steps=2), tmp_path)
    assert (args.save_total_limit, args.top_k, args.logging_steps, args.num_iterations) == (5, 3, 2, 2)


def test_the_batch_fields_follow_prompts_per_step(tmp_path):
    """per_device_train_batch_size and its kin are GRPOConfig's, set from prompts_per_step and micro_batch_prompts;
    values given for them are replaced, as in a copy with another micro-batch."""
    config = CourseConfig(num_generations=4, prompts_per_step=4, per_device_train_batch_size=3,
                          gradient_accumulation_steps=7)
    assert (config.per_device_train_batch_size, config.gradient_accumulation_steps, config.generation_batch_size) == \
        (16, 1, 16)
    smaller = dataclasses.replace(config, micro_batch_prompts=1)
    assert (smaller.per_device_train_batch_size, smaller.gradient_accumulation_steps, smaller.steps_per_generation,
            smaller.generation_batch_size) == (4, 4, 4, 16)


def test_rerun_of_a_finished_run_returns_its_summary_without_training(finished_run, problems, tmp_path):
    out = tmp_path / "again"
    shutil.copytree(finished_run[0], out)
    files = ["final/adapter_model.safetensors", "metrics.jsonl", "ledger.jsonl", "summary.json"]
    before = {name: (out / name).read_bytes() for name in files}
    seen = Seen()
    summary = train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False, callbacks=[seen])
    assert summary == finished_run[1] and not seen.began
    assert {name: (out / name).read_bytes() for name in files} == before
    assert not (out / "checkpoint-3").exists()


def test_run_killed_after_its_last_checkpoint_finishes_without_training(finished_run, problems, tmp_path):
    out = tmp_path / "last"
    shutil.copytree(finished_run[0], out)
    shutil.rmtree(out / "final")  # killed after checkpoint-2, while saving final/
    (out / "summary.json").unlink()
    seen = Seen()
    summary = train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False, callbacks=[seen])
    assert not seen.began and summary["steps"] == 2 and summary["resumed_from"] == 2
    for name in ("final/adapter_model.safetensors", "final/adapter_config.json", "metrics.jsonl", "ledger.jsonl"):
        assert (out / name).read_bytes() == (finished_run[0] / name).read_bytes(), name
    assert not (out / "final" / "optimizer.pt").exists() and not (out / "checkpoint-3").exists()


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("accelerate_*.yaml")), ids=lambda p: p.name)
def test_accelerate_configs_load_in_accelerate(path):
    from accelerate.commands.config.config_args import load_config_from_file

    config = load_config_from_file(str(path))  # accelerate launch's own reader: unknown keys or types fail here
    assert config.num_machines == 1 and config.num_processes >= 1
    assert config.use_cpu == path.name.startswith("accelerate_cpu")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _launch_two_cpu_processes(*args: str) -> subprocess.CompletedProcess:
    """`accelerate launch` of `args` on two CPU processes (gloo), the way a 2-GPU run is launched."""
    command = [sys.executable, "-m", "accelerate.commands.launch", "--config_file",
               str(ROOT / "configs" / "accelerate_cpu_2proc.yaml"), "--main_process_port", str(_free_port()), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow
def test_two_cpu_processes_write_one_ledger_with_both_processes_groups(tmp_path):
    out = tmp_path / "ddp"
    done = _launch_two_cpu_processes("-m", "course_lib", "train", "--model", "tiny-s", "--task", "arith", "--n", "16",
                                     "--steps", "2", "--prompts-per-step", "2", "--group-size", "2", "--out", str(out),
                                     "--quiet")
    assert done.stdout.count("trained 2 steps") == 1  # printed by the main process only
    assert json.loads((out / "summary.json").read_text())["processes"] == 2
    ledger = read_jsonl_log(out / "ledger.jsonl")
    # 2 steps x 2 prompts: one group from each process per step, neither lost nor written twice
    assert [row["step"] for row in ledger] == [1, 1, 2, 2]
    for step in (1, 2):
        assert len({row["problem_id"] for row in ledger if row["step"] == step}) == 2
    assert [m["step"] for m in read_jsonl_log(out / "metrics.jsonl")] == [1, 2]
    assert [p.name for p in out.glob("final*")] == ["final"] and (out / "final" / "adapter_config.json").exists()


MICRO_SCRIPT = """
import sys
from course_lib.tasks import generate
from course_lib.training import CourseConfig, train_grpo
config = CourseConfig(num_generations=2, prompts_per_step=4, micro_batch_prompts=1, max_steps=3, save_steps=2,
                      max_completion_length=32)
train_grpo("tiny-s", generate("arith", 8, "train", seed=0), config, sys.argv[1], progress=False)
"""


@pytest.mark.slow
def test_two_processes_with_micro_batches_resume_to_the_same_adapter(tmp_path):
    script, out = tmp_path / "train_micro.py", tmp_path / "micro"
    script.write_text(MICRO_SCRIPT)
    _launch_two_cpu_processes(str(script), str(out))  # each process: 2 prompts per step, 1 per micro-batch
    assert [row["step"] for row in read_jsonl_log(out / "ledger.jsonl")] == [1] * 4 + [2] * 4 + [3] * 4
    adapter, ledger = (out / "final" / "adapter_model.safetensors").read_bytes(), read_jsonl_log(out / "ledger.jsonl")
    shutil.rmtree(out / "checkpoint-3")  # killed after step 3, before its checkpoint, final/ and summary.json
    shutil.rmtree(out / "final")
    (out / "summary.json").unlink()
    _launch_two_cpu_processes(str(script), str(out))  # 8 problems, 4 per step: checkpoint-2 ends the first epoch
    assert json.loads((out / "summary.json").read_text())["resumed_from"] == 2
    assert read_jsonl_log(out / "ledger.jsonl") == ledger  # step 3 saw the same prompts and rewards again
    assert (out / "final" / "adapter_model.safetensors").read_bytes() == adapter  # step 3 redone exactly


@pytest.mark.slow
def test_a_step_that_runs_out_of_memory_is_split_into_micro_batches(tmp_path, monkeypatch):
    """A training forward over more than 2 rows 'runs out of memory' (as a GPU would): the run finishes with
    one prompt per micro-batch and gives the same adapter as a run that used it from the start."""
    import warnings

    import torch
    import transformers


    original = transformers.Qwen2Model.forward  # the decoder: TRL computes log-probs through it

    def small_memory(self, *args, input_ids=None, **kwargs):
        if torch.is_grad_enabled() and input_ids is not None and input_ids.shape[0] > 2:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return original(self, *args, input_ids=input_ids, **kwargs)

    problems = generate("arith", 8, "train", seed=4, levels=[1, 2])
    settings = {"num_generations": 2, "prompts_per_step": 2, "max_steps": 2, "save_steps": 1, "max_completion_length": 24}
    reference = train_grpo("tiny-s", problems, CourseConfig(micro_batch_prompts=1, **settings), tmp_path / "ref",
                           progress=False)
    monkeypatch.setattr(transformers.Qwen2Model, "forward", small_memory)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = train_grpo("tiny-s", problems, CourseConfig(**settings), tmp_path / "oom", progress=False)
    assert summary["steps"] == reference["steps"] == 2
    assert any("out of memory; resuming with micro_batch_prompts=1" in str(w.message) for w in caught), [str(w.message)[:80] for w in caught]
    adapter = "final/adapter_model.safetensors"
    assert (tmp_path / "oom" / adapter).read_bytes() == (tmp_path / "ref" / adapter).read_bytes()


def test_vllm_memory_share_reaches_trl(tmp_path):
    from course_lib.training import run_args

    assert run_args(CourseConfig(vllm_gpu_memory_utilization=0.5), tmp_path).vllm_gpu_memory_utilization == 0.5
    with pytest.raises(CourseError, match=r"vllm_gpu_memory_utilization=1.5 must be in \(0, 1\]"):
        CourseConfig(vllm_gpu_memory_utilization=1.5)
