"""GRPO step time: `train_grpo` (ledger callback, run folder) vs bare TRL `GRPOTrainer` on the same config.

Run: python benchmarks/bench_training.py [--model tiny-m] [--steps 12] [--write]
Prints its numbers; with --write also records them in benchmarks/results/training.json. --smoke runs three tiny
steps of tiny-s (what tests/test_benchmarks.py runs; its numbers mean nothing). The wrapper's overhead should stay
under 5%; measured, not asserted.
"""

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from course_lib.models import load_model
from course_lib.provenance import atomic_write_text, git_commit, library_versions
from course_lib.rewards import correctness_reward
from course_lib.tasks import generate
from course_lib.training import CourseConfig, _dataset, course_lora, run_args, train_grpo


class StepTimer:
    """Records the wall time of each optimizer step."""

    def __init__(self):
        from transformers import TrainerCallback

        timer = self

        class Callback(TrainerCallback):
            def on_step_begin(self, args, state, control, **kwargs):
                timer.start = time.perf_counter()

            def on_step_end(self, args, state, control, **kwargs):
                timer.times.append(time.perf_counter() - timer.start)

        self.times, self.start, self.callback = [], 0.0, Callback()


def bare_trl(model_name, problems, config, out):
    """The same run through TRL alone: no ledger, no run-folder bookkeeping."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback
    from trl import GRPOTrainer

    model, tokenizer = load_model(model_name, place=False)
    tokenizer.padding_side = "left"  # as train_grpo sets it
    timer = StepTimer()
    trainer = GRPOTrainer(model=model, reward_funcs=[correctness_reward], args=run_args(config, Path(out), progress=False),
                          train_dataset=_dataset(problems, tokenizer), processing_class=tokenizer,
                          peft_config=course_lora(),
                          callbacks=[timer.callback])
    trainer.remove_callback(PrinterCallback)  # as train_grpo does: no metrics dict printed at every step
    trainer.remove_callback(ProgressCallback)
    trainer.train()
    return timer.times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny-m")
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--smoke", action="store_true", help="tiny-s, 3 steps of 2 prompts x 4: checks it runs")
    parser.add_argument("--write", action="store_true", help="record the result in benchmarks/results/training.json")
    args = parser.parse_args()
    problems = generate("arith", 200, "train", 0)
    config = CourseConfig(max_steps=args.steps, save_steps=10_000, num_generations=8, prompts_per_step=8)
    if args.smoke:
        args.model, args.steps = "tiny-s", 3
        config = CourseConfig(max_steps=3, save_steps=10_000, num_generations=4, prompts_per_step=2,
                              max_completion_length=16)
    with tempfile.TemporaryDirectory() as tmp:
        bare = bare_trl(args.model, problems, config, Path(tmp) / "bare")
        timer = StepTimer()
        train_grpo(args.model, problems, config, Path(tmp) / "course", progress=False, callbacks=[timer.callback])
        course = timer.times
    skip = min(2, args.steps - 1)  # the first steps include warm-up
    bare_median, course_median = statistics.median(bare[skip:]), statistics.median(course[skip:])
    result = {"model": args.model, "steps": args.steps, "completions_per_step": config.completions_per_step,
              "bare_trl_median_step_s": round(bare_median, 3), "train_grpo_median_step_s": round(course_median, 3),
              "overhead_percent": round(100 * (course_median / bare_median - 1), 1),
              "note": "median wall time per optimizer step, measured by the same callback in both runs",
              "load_average_1min_at_end": round(os.getloadavg()[0], 1),
              "commit": git_commit(), "versions": library_versions()}
    print(json.dumps(result, indent=1))
    if args.write:
        atomic_write_text(Path(__file__).parent / "results" / "training.json", json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
