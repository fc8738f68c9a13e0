"""A killed and resumed run equals an uninterrupted one: same prompts, rewards, losses and adapter bytes."""

import shutil
import time

import pytest
from transformers import TrainerCallback

from course_lib import CourseError
from course_lib.tasks import generate
from course_lib.training import CourseConfig, _replay_epochs, read_jsonl_log, run_args, train_grpo

# 6 problems, 2 prompts per step: an epoch is 3 steps, so steps 4-6 are the second epoch, which TRL shuffles anew
FAST = {"num_generations": 4, "prompts_per_step": 2, "max_steps": 6, "max_completion_length": 32}
ADAPTER = "final/adapter_model.safetensors"


class Kill(TrainerCallback):
    """Raises during step `step`: after its generation and backward pass, before its optimizer step."""

    def __init__(self, step: int):
        self.step = step

    def on_pre_optimizer_step(self, args, state, control, **kwargs):
        if state.global_step + 1 == self.step:
            raise KeyboardInterrupt(f"killed during step {self.step}")


@pytest.mark.parametrize("epoch", [0, 1, 3])
def test_set_epoch_gives_the_order_an_uninterrupted_sampler_has_in_that_epoch(epoch):
    from trl.trainer.utils import RepeatSampler

    def sampler():
        return RepeatSampler(range(7), mini_repeat_count=2, batch_size=3, seed=5)

    uninterrupted = sampler()
    orders = [list(uninterrupted) for _ in range(epoch + 1)]  # TRL draws one permutation per pass
    resumed = sampler()  # a fresh sampler, as a resumed run builds it
    _replay_epochs(resumed, epoch)
    assert list(resumed) == orders[epoch]
    assert epoch == 0 or orders[epoch] != orders[0]  # without the replay, the resumed run would see epoch 0's order


@pytest.fixture(scope="module")
def problems():
    return generate("arith", 6, "train", seed=4, levels=[1, 2])


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, problems):
    """An uninterrupted run for each save_steps, trained once."""
    root, runs = tmp_path_factory.mktemp("uninterrupted"), {}

    def run(save_steps: int):
        if save_steps not in runs:
            runs[save_steps] = root / f"save{save_steps}"
            train_grpo("tiny-s", problems, CourseConfig(**FAST, save_steps=save_steps), runs[save_steps], progress=False)
        return runs[save_steps]

    return run


def _metrics(run_dir):
    return [{k: v for k, v in row.items() if k not in ("step_time", "elapsed_seconds")}
            for row in read_jsonl_log(run_dir / "metrics.jsonl")]


def assert_same_run(resumed, reference):
    ledger = read_jsonl_log(resumed / "ledger.jsonl")
    assert [row["step"] for row in ledger] == [step for step in range(1, 7) for _ in range(2)]
    assert ledger == read_jsonl_log(reference / "ledger.jsonl")  # problem ids, reward mean and std, step by step
    assert _metrics(resumed) == _metrics(reference)  # loss, rewards, grad norm, entropy ... of every step
    assert (resumed / ADAPTER).read_bytes() == (reference / ADAPTER).read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("save_steps", "kill", "resumed_from"),
    [
        (3, 4, 3),  # resumes at the end of the first epoch and repeats step 4
        (4, 6, 4),  # resumes one step into the second epoch (the Trainer skips a batch) and repeats steps 5 and 6
    ],
)
def test_killed_and_resumed_run_equals_an_uninterrupted_one(uninterrupted, problems, tmp_path, save_steps, kill,
                                                            resumed_from):
    out, config = tmp_path / "killed", CourseConfig(**FAST, save_steps=save_steps)
    with pytest.raises(KeyboardInterrupt):
        train_grpo("tiny-s", problems, config, out, progress=False, callbacks=[Kill(kill)])
    assert [p.name for p in out.glob("checkpoint-*")] == [f"checkpoint-{resumed_from}"]
    assert max(row["step"] for row in read_jsonl_log(out / "ledger.jsonl")) == kill - 1
    before = {row["step"]: row["elapsed_seconds"] for row in read_jsonl_log(out / "metrics.jsonl")}[resumed_from]
    started = time.time()
    summary = train_grpo("tiny-s", problems, config, out, progress=False)
    assert summary["resumed_from"] == resumed_from and summary["steps"] == 6
    assert_same_run(out, uninterrupted(save_steps))
    # the run's seconds count the first process's steps up to its checkpoint too, not only the last process's
    elapsed = [row["elapsed_seconds"] for row in read_jsonl_log(out / "metrics.jsonl")]
    assert elapsed == sorted(elapsed) and elapsed[resumed_from - 1] == before > 0
    assert before < summary["seconds"] <= before + time.time() - started + 0.1
    assert summary["seconds"] >= elapsed[-1]


@pytest.mark.slow
def test_a_run_resumed_at_its_last_checkpoint_reports_the_seconds_it_trained(uninterrupted, problems, tmp_path):
    out = tmp_path / "last"
    shutil.copytree(uninterrupted(3), out)
    shutil.rmtree(out / "final")  # killed after its last checkpoint was written, before final/
    (out / "summary.json").unlink()
    summary = train_grpo("tiny-s", problems, CourseConfig(**FAST, save_steps=3), out, progress=False)
    assert summary["resumed_from"] == 6
    assert summary["seconds"] == read_jsonl_log(out / "metrics.jsonl")[-1]["elapsed_seconds"] > 0  # not 0.0


@pytest.mark.parametrize(("log", "lose"), [("ledger.jsonl", "all"), ("metrics.jsonl", "all"),
                                         ("ledger.jsonl", "step 1")])
def test_a_resume_whose_logs_miss_steps_before_its_checkpoint_is_refused(uninterrupted, problems, tmp_path, log, lose):
    """A run resumed after its ledger.jsonl was lost finished "trained 6 steps" with a ledger of the later steps only:
    every share read from it counted those alone."""
    out = tmp_path / "lost"
    shutil.copytree(uninterrupted(3), out)
    for name in ("checkpoint-6", "final"):
        shutil.rmtree(out / name)
    (out / "summary.json").unlink()
    if lose == "all":
        (out / log).unlink()
    else:
        kept = [line for line in (out / log).read_text().splitlines() if '"step": 1,' not in line]
        (out / log).write_text("".join(line + "\n" for line in kept))
    with pytest.raises(CourseError, match=f"{log} holds no rows for .* of the 3 steps before checkpoint-3 "
                                          r"\(first: step 1; the log was deleted or edited\)"):
        train_grpo("tiny-s", problems, CourseConfig(**FAST, save_steps=3), out, progress=False)
    assert (out / "checkpoint-3").is_dir() and not (out / "final").exists()


@pytest.mark.slow
def test_rerun_from_a_checkpoint_at_a_boundary_equals_an_uninterrupted_run(uninterrupted, problems, tmp_path):
    out = tmp_path / "boundary"
    shutil.copytree(uninterrupted(3), out)
    for name in ("checkpoint-6", "final"):  # killed right after checkpoint-3 was written, at the end of an epoch
        shutil.rmtree(out / name)
    (out / "summary.json").unlink()
    summary = train_grpo("tiny-s", problems, CourseConfig(**FAST, save_steps=3), out, progress=False)
    assert summary["resumed_from"] == 3
    assert_same_run(out, uninterrupted(3))


@pytest.mark.slow
def test_resumed_dynamic_sampling_run_equals_an_uninterrupted_one(problems, tmp_path):
    config = CourseConfig(**FAST, save_steps=4, dynamic_sampling=True, dynamic_max_rounds=2)
    train_grpo("tiny-s", problems, config, tmp_path / "whole", progress=False)
    with pytest.raises(KeyboardInterrupt):
        train_grpo("tiny-s", problems, config, tmp_path / "killed", progress=False, callbacks=[Kill(6)])
    train_grpo("tiny-s", problems, config, tmp_path / "killed", progress=False)
    # refill rounds add groups to the ledger, so compare it whole rather than two groups per step
    assert read_jsonl_log(tmp_path / "killed" / "ledger.jsonl") == read_jsonl_log(tmp_path / "whole" / "ledger.jsonl")
    assert _metrics(tmp_path / "killed") == _metrics(tmp_path / "whole")
    assert (tmp_path / "killed" / ADAPTER).read_bytes() == (tmp_path / "whole" / ADAPTER).read_bytes()


def test_checkpoints_between_reuses_of_a_generation_batch_are_refused(tmp_path):
    # TRL keeps the batch it reuses for num_iterations steps in memory only; a resume there would generate anew
    with pytest.raises(CourseError, match="save_steps=3 is not a multiple of num_iterations=2: .*; use a multiple of 2"):
        run_args(CourseConfig(save_steps=3, num_iterations=2), tmp_path)
    assert run_args(CourseConfig(save_steps=4, num_iterations=2), tmp_path).num_iterations == 2
