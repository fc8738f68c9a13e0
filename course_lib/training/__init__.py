"""GRPO training over TRL's `GRPOTrainer` (+ PEFT LoRA), with a per-example learnability ledger.

`train_grpo(model, problems, config, out, peft_config)` takes TRL's and PEFT's own objects: `config` a
`CourseConfig` (a `trl.GRPOConfig` with the course's defaults, `course_lib.training.config`), `peft_config` a
`peft.LoraConfig` (`course_lora()`, the default) or None to train every weight.

A run folder holds: `run_config.json`, TRL checkpoints (each whole or absent: `course_lib.training.checkpoints`),
`metrics.jsonl` (one line per step), `ledger.jsonl` (one line per prompt group: step, problem id, group reward
mean and std), `final/` (the trained weights or LoRA adapter) and, written last, `summary.json` (with the sha256
of every file in `final/`, checked whenever the run is loaded).
Introduced in notebooks/00_tiny_world_tour.ipynb (`train_grpo`); taught in notebooks/04_grpo_training.ipynb.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import gc
import json
import os
import random
import re
import shutil
import time
from dataclasses import replace
from pathlib import Path

import torch
from safetensors import SafetensorError

from ..answers import in_format
from ..classroom.quiet import no_weight_bars
from ..classroom.runtime import progress_bar
from ..errors import CourseError, check, warn
from ..models import TINY_NAMES, check_weights_finite, git_restore_command, load_model, load_tokenizer, weights_sha256
from ..paths import MODELS_DIR, what_it_is
from ..problems import legacy_problems_fingerprint, problems_fingerprint
from ..prompts import TINY_TASKS, asked_format, model_input, pool_answer_format, prompt_ids
from ..provenance import atomic_write_text, code_changed_since, folder_lock, git_commit, library_versions
from ..rewards import completion_text, correctness_reward
from ..sampling import checked_prompt_ids
from ..tasks import arith_steps_are_right, check_problem_list
from .checkpoints import (
    SAVE_ERRORS,
    STAGING,
    mismatch,
    newest_complete,
    publish,
    remove_old,
    save_failed,
    set_aside,
)

# The settings are TRL's and PEFT's own objects (course_lib.training.config); imported when first used, since
# importing TRL takes seconds
CONFIG_NAMES = ("CourseConfig", "CourseModelConfig", "course_lora", "check_peft_config", "micro_batches",
                "nearest_splits", "LORA_TARGETS", "LORA_FLAGS", "RANGES", "LORA_RANGES", "BATCH_FIELDS", "MAX_STEPS")


def __getattr__(name: str):
    if name in CONFIG_NAMES:
        from . import config

        return getattr(config, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_enough_problems(n_problems: int, prompts_per_step: int) -> None:
    """A step takes prompts_per_step distinct problems; fewer problems would train 0 steps (TRL drops the short batch)."""
    check(n_problems >= prompts_per_step,
          f"{n_problems} problems cannot fill one step of prompts_per_step={prompts_per_step} (TRL would train 0 "
          f"steps); use prompts_per_step={n_problems} or fewer (--prompts-per-step), or train on at least "
          f"{prompts_per_step} problems")


def check_lora_targets(model, targets) -> None:
    """Every LoRA target module must exist in the model; list the ones it has."""
    linear = sorted({name.rsplit(".", 1)[-1] for name, module in model.named_modules()
                     if isinstance(module, torch.nn.Linear)})
    targets = [targets] if isinstance(targets, str) else sorted(targets)  # PEFT keeps a set; one name stays a str
    missing = [t for t in targets if t not in linear and t != "all-linear"]
    check(not missing, f"lora_target_modules {missing} are not in the model; its linear modules are {linear}")


# ---------------------------------------------------------------------------
# The learnability ledger: rewards per group, flushed per step by a callback
# ---------------------------------------------------------------------------


class LedgerReward:
    """`correctness_reward` (plus `format_weight` x the format) that also remembers each group's reward mean and std
    for the ledger; for `arith` how many completions were right and how many of them reached the answer through a
    wrong step (lucky guesses); for chat prompts the group's share of answers written in the asked-for format."""

    __name__ = "correctness_reward"  # the name TRL logs the reward under

    def __init__(self, group_size: int, format_weight: float = 0.0):
        self.group_size = group_size
        self.format_weight = format_weight
        self.pending: list[dict] = []

    def __call__(self, completions, problem_id=None, **kwargs) -> list[float]:
        correct = correctness_reward(completions, **kwargs)
        ids = problem_id or [None] * len(correct)
        sources = kwargs.get("source") or [None] * len(correct)
        forms = kwargs.get("answer_format") or [None] * len(correct)
        formatted = [in_format(completion_text(c), asked_format(source, form))
                     for c, source, form in zip(completions, sources, forms)]
        rewards = [r + self.format_weight * f for r, f in zip(correct, formatted)]
        for start in range(0, len(rewards) - self.group_size + 1, self.group_size):  # TRL keeps groups contiguous
            group = torch.tensor(rewards[start : start + self.group_size])
            row = {"problem_id": ids[start], "reward_mean": round(group.mean().item(), 4),
                   "reward_std": round(group.std().item(), 4)}
            if sources[start] == "arith":  # right answers only: a format reward alone rewards wrong ones too
                right = [completion_text(c) for c, r in zip(completions[start : start + self.group_size],
                                                            correct[start : start + self.group_size]) if r > 0]
                row["right"], row["lucky"] = len(right), sum(not arith_steps_are_right(text) for text in right)
            elif sources[start] not in TINY_TASKS:
                row["format_share"] = round(sum(formatted[start : start + self.group_size]) / self.group_size, 4)
            self.pending.append(row)
        return rewards


def _trainer_callback(ledger_reward: LedgerReward, run_dir: Path, seconds_before: float = 0.0):
    """A TRL/transformers callback that writes metrics.jsonl and ledger.jsonl as training goes (main process only);
    each metrics row holds `elapsed_seconds`, the run's training seconds so far (with `seconds_before` a resumed
    run's earlier processes spent up to its checkpoint)."""
    from accelerate.utils import gather_object
    from transformers import TrainerCallback

    class LedgerCallback(TrainerCallback):
        started = time.time()

        def on_train_begin(self, args, state, control, **kwargs):
            self.started = time.time()

        def on_step_end(self, args, state, control, **kwargs):
            # a copy: with one process, gather_object returns its argument itself, which clear() would empty
            rows = gather_object(list(ledger_reward.pending))  # every process's groups, process 0's first
            ledger_reward.pending.clear()
            if state.is_world_process_zero:
                _append_lines(run_dir / "ledger.jsonl", [json.dumps({"step": state.global_step, **row}) for row in rows])

        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "loss" in logs and state.is_world_process_zero:  # TRL has already averaged over processes
                elapsed = round(seconds_before + time.time() - self.started, 1)
                _append_lines(run_dir / "metrics.jsonl", [json.dumps({"step": state.global_step, **logs,
                                                                      "elapsed_seconds": elapsed})])

    return LedgerCallback()


def _progress_callback():  # pragma: no mutate block (a progress bar: display only)
    """A progress bar showing the numbers that matter per step (reward, dead-group share, completion length, loss)
    instead of TRL's full metrics dict, which goes to metrics.jsonl."""
    from transformers import TrainerCallback

    class CourseProgress(TrainerCallback):
        bar = None

        def on_train_begin(self, args, state, control, **kwargs):
            if state.is_world_process_zero:
                self.bar = progress_bar(total=state.max_steps, initial=state.global_step, desc="GRPO steps")

        def on_step_end(self, args, state, control, **kwargs):
            if self.bar is not None:
                self.bar.update(state.global_step - self.bar.n)

        def on_log(self, args, state, control, logs=None, **kwargs):
            if self.bar is not None and logs and "reward" in logs:
                self.bar.set_postfix(reward=f"{logs['reward']:.3f}", dead=f"{logs.get('frac_reward_zero_std', 0):.2f}",
                                     length=f"{logs.get('completions/mean_length', 0):.0f}", loss=f"{logs.get('loss', 0):.4f}")

        def on_train_end(self, args, state, control, **kwargs):
            if self.bar is not None:
                self.bar.close()

    return CourseProgress()


def _append_lines(path: Path, lines: list[str]) -> None:
    """Append whole lines to a JSON Lines file."""
    if lines:
        with open(path, "a") as handle:
            handle.write("\n".join(lines) + "\n")


def _seconds_before(run_dir: Path, resume_step: int | None) -> float:
    """The training seconds a resumed run spent up to its checkpoint: metrics.jsonl's `elapsed_seconds` there (a run
    from before that field: the sum of TRL's `step_time`); 0 for a fresh run."""
    if not resume_step or not (run_dir / "metrics.jsonl").is_file():
        return 0.0
    rows = [row for row, _ in _log_rows(run_dir / "metrics.jsonl", torn_end_ok=True) if row["step"] <= resume_step]
    if rows and isinstance(rows[-1].get("elapsed_seconds"), int | float):
        return float(rows[-1]["elapsed_seconds"])
    return round(sum(row.get("step_time", 0.0) for row in rows if isinstance(row.get("step_time"), int | float)), 1)


def _truncate_after(path: Path, step: int) -> None:
    """Keep only the lines of a JSON Lines file logged at or before `step` (used when resuming); a last line cut
    short by a kill is dropped with the rest of the steps after the checkpoint."""
    if path.exists():
        kept = [line for row, line in _log_rows(path, torn_end_ok=True) if row["step"] <= step]
        atomic_write_text(path, "".join(line + "\n" for line in kept))


def _log_rows(path: Path, torn_end_ok: bool = False) -> list[tuple[dict, str]]:
    """(row, line) for each line of a run's JSON Lines log, each row an object with an integer `step`; a damaged
    line is one error naming the file and line. `torn_end_ok`: a last line without its newline that does not parse
    (a kill mid-write: the appends are not atomic) is left out."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = text.splitlines()
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if torn_end_ok and number == len(lines) and not text.endswith("\n"):
                break  # written when the run was killed: after the checkpoint, so dropped on resume anyway
            row = None
        check(isinstance(row, dict) and isinstance(row.get("step"), int) and not isinstance(row["step"], bool),
              f"{path}:{number} is not a log row (a JSON object with an integer step); the run folder was edited or "
              "damaged: restore that file, or train again into a new folder")
        rows.append((row, line))
    return rows


# ---------------------------------------------------------------------------
# The trainer: TRL's, with a data order that resumed runs replay, and optional dynamic sampling (DAPO)
# ---------------------------------------------------------------------------


def _replay_epochs(sampler, epoch: int) -> None:
    """Put a TRL `RepeatSampler`'s generator where `epoch` epochs of shuffling leave it (the Trainer's set_epoch)."""
    if sampler.shuffle and sampler.seed is not None:
        sampler.generator.manual_seed(sampler.seed)
        for _ in range(epoch):  # one permutation per epoch, as RepeatSampler.__iter__ draws it
            torch.randperm(sampler.num_samples, generator=sampler.generator)


def _trainer_class(dynamic_sampling: bool = False):
    """TRL's GRPOTrainer whose resumed runs see the prompts of an uninterrupted one; with DAPO filtering if asked."""
    from trl import GRPOTrainer

    class CourseGRPOTrainer(GRPOTrainer):
        def _get_train_sampler(self, dataset=None):
            # TRL seeds the sampler's generator once and draws a permutation per epoch; a run resumed in epoch e
            # would start again from epoch 0's order. The Trainer calls set_epoch(e) before each epoch, also resumed.
            sampler = super()._get_train_sampler(dataset)
            sampler.set_epoch = functools.partial(_replay_epochs, sampler)
            return sampler

        def _get_output_dir(self, trial):
            return str(Path(self.args.output_dir) / STAGING)  # the Trainer writes each checkpoint here first

        def _save_checkpoint(self, model, trial):
            # whole or absent: written under .saving/, marked with its files' sha256, then renamed into the run
            run_dir, name = Path(self.args.output_dir), f"checkpoint-{self.state.global_step}"
            try:
                super()._save_checkpoint(model, trial)
                self.accelerator.wait_for_everyone()  # every process has written its part (DeepSpeed shards)
                if self.args.should_save:
                    publish(run_dir / STAGING / name, run_dir / name)
                    remove_old(run_dir, self.args.save_total_limit)
            except SAVE_ERRORS as error:  # disk full, no permission: the last checkpoint stays whole
                raise save_failed(error, name, run_dir) from error

    return _dynamic_trainer_class(CourseGRPOTrainer) if dynamic_sampling else CourseGRPOTrainer


def _pad_cat(tensors, value, left=False):
    """Concatenate (N_i, T_i) tensors along N, padding T to the widest (on the left or the right)."""
    width = max(t.shape[1] for t in tensors)
    padded = []
    for t in tensors:
        pad = (width - t.shape[1], 0) if left else (0, width - t.shape[1])
        padded.append(torch.nn.functional.pad(t, pad, value=value))
    return torch.cat(padded)


def _dynamic_trainer_class(base):
    """`base` (a GRPOTrainer) with DAPO-style online filtering, which TRL does not offer: drop dead groups, refill."""

    class DynamicSamplingGRPOTrainer(base):
        def _generate_and_score_completions(self, inputs):
            output = super()._generate_and_score_completions(inputs)
            if not self.model.training:
                return output
            G, wanted = self.num_generations, len(inputs) // self.num_generations
            kept = [self._alive(output)]
            rng = random.Random(self.args.seed * 100_003 + self.state.global_step)
            for _ in range(self.course_max_rounds - 1):
                if sum(int(mask.sum()) for _, mask in kept) >= wanted:
                    break
                fresh = [self.train_dataset[i] for i in rng.sample(range(len(self.train_dataset)), wanted)]
                more = super()._generate_and_score_completions([row for row in fresh for _ in range(G)])
                kept.append(self._alive(more))
            return self._assemble(kept, wanted)

        def _alive(self, output):
            groups = output["advantages"].view(-1, self.num_generations)
            return output, groups.abs().sum(dim=1) > 0  # (B,) a dead group has every advantage exactly 0

        def _assemble(self, kept, wanted):
            """Alive groups first, then dead ones if the rounds ran out; exactly `wanted` groups."""
            G, pad = self.num_generations, self.processing_class.pad_token_id
            groups = [(o, g, bool(alive[g])) for o, alive in kept for g in range(len(alive))]
            chosen = sorted(groups, key=lambda item: not item[2])[:wanted]  # stable: alive first, in order

            def gather(key, value, left=False):
                return _pad_cat([o[key][g * G : (g + 1) * G] for o, g, _ in chosen], value, left)

            out = {"prompt_ids": gather("prompt_ids", pad, left=True), "prompt_mask": gather("prompt_mask", 0, left=True),
                   "completion_ids": gather("completion_ids", pad), "completion_mask": gather("completion_mask", 0),
                   "advantages": torch.cat([o["advantages"][g * G : (g + 1) * G] for o, g, _ in chosen])}
            for key in ("old_per_token_logps", "ref_per_token_logps"):
                if key in kept[0][0]:
                    out[key] = gather(key, 0.0)
            out["num_items_in_batch"] = out["completion_mask"].sum()
            self._metrics["train"]["dynamic/alive_groups_found"].append(float(sum(alive for _, _, alive in groups)))
            self._metrics["train"]["dynamic/frac_dead_after_filter"].append(
                sum(not alive for _, _, alive in chosen) / wanted)
            self._metrics["train"]["dynamic/rounds"].append(float(len(kept)))  # generations this step took
            return out

    return DynamicSamplingGRPOTrainer


# ---------------------------------------------------------------------------
# train_grpo
# ---------------------------------------------------------------------------


def run_args(config, run_dir: Path, progress: bool = True, longest_prompt: int = 0):
    """The CourseConfig for one run of this process: output_dir the run folder, progress bars or not, and the
    colocated vLLM engine's context; checks that the launcher and accelerate agree on the process count.

    `longest_prompt` (tokens) sizes the colocated vLLM engine: longest prompt + max_completion_length, not the
    model's whole context window (Qwen3-4B: 40,960 tokens, whose KV cache would not fit its share of the GPU).
    """
    from .config import launched_processes

    num_processes = launched_processes()
    args = replace(config, output_dir=str(run_dir), disable_tqdm=not progress,  # the batch follows num_processes
                   vllm_max_model_length=longest_prompt + config.max_completion_length if longest_prompt else None)
    check(args.world_size == num_processes,
          f"accelerate runs {args.world_size} processes but the launcher said {num_processes}; "
          "launch with accelerate launch or torchrun")
    # TRL reuses a generation batch for num_iterations steps and keeps it only in memory: resume where it is fresh
    check(config.save_steps % args.num_iterations == 0,
          f"save_steps={config.save_steps} is not a multiple of num_iterations={args.num_iterations}: a run resumed "
          f"there would generate anew a batch it was reusing; use a multiple of {args.num_iterations}")
    return args


def longest_prompt(problems, model_name: str) -> int:
    """Tokens of the longest prompt as every stage shows it (the colocated vLLM engine's context is sized by it)."""
    tokenizer = load_tokenizer(model_name)
    return max(len(prompt_ids(p, tokenizer)) for p in problems)


def _dataset(problems, tokenizer):
    """Problems as a `datasets.Dataset`: the prompt as every stage shows it (`course_lib.prompts.model_input`) and
    the columns the reward reads (answer, source, answer_format, problem_id)."""
    from datasets import Dataset

    return Dataset.from_list([{"prompt": model_input(p, tokenizer), "answer": p.answer, "source": p.source,
                               "answer_format": p.answer_format or "", "problem_id": p.id} for p in problems])


def read_run_config(run_dir: Path) -> dict:
    """A run folder's run_config.json; one line naming it when it is not the JSON train_grpo writes."""
    saved = Path(run_dir) / "run_config.json"
    try:
        previous = json.loads(saved.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        previous = None
    check(isinstance(previous, dict) and isinstance(previous.get("config"), dict)
          and isinstance(previous.get("model"), str) and previous["model"].strip()
          and isinstance(previous.get("problem_ids"), list),
          f"{saved} is damaged or missing (not the JSON train_grpo writes); use a new folder, or delete this one "
          "to start over")
    return previous


# CourseConfig fields run_config.json leaves out: set per run (run_args), by the machine (use_cpu, bf16), or, the
# batch fields (config.BATCH_FIELDS), from prompts_per_step and the process count
PER_RUN_FIELDS = ("output_dir", "disable_tqdm", "vllm_max_model_length", "logging_dir", "use_cpu", "bf16")
PEFT_VOLATILE = ("base_model_name_or_path", "revision", "peft_version", "inference_mode", "runtime_config")


def _plain(value):
    """A JSON value for what json.dumps cannot write (PEFT's set of target modules, an enum)."""
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=str)
    return getattr(value, "value", str(value))


def run_record(config, peft_config) -> dict:
    """A run's settings as plain JSON (run_config.json's `config`, which a resumed run must match): every
    CourseConfig field but those set per run or per process, and `peft_config`, the LoRA settings (None: every
    weight trained)."""
    from .config import BATCH_FIELDS

    data = {key: value for key, value in config.to_dict().items() if key not in (*PER_RUN_FIELDS, *BATCH_FIELDS)}
    data["peft_config"] = None if peft_config is None else {
        key: value for key, value in peft_config.to_dict().items() if key not in PEFT_VOLATILE}
    return json.loads(json.dumps(data, default=_plain))


def _check_run_dir(run_dir: Path, config_json: dict, model_name: str, problem_ids: list[str],
                   problems_sha256: tuple = ()) -> tuple[int | None, list]:
    """The step to resume from (None for a fresh run) and the newer checkpoints that are damaged (with why);
    an error if the folder holds a different run. `problems_sha256`: the problems' fingerprints a run folder may
    have recorded (this course_lib's, then an older one's)."""
    check(not run_dir.exists() or run_dir.is_dir(), f"out={run_dir} is a file; give a folder for the run")
    if not (run_dir / "run_config.json").exists():
        return None, []
    previous = read_run_config(run_dir)
    checkpoint, broken = newest_complete(run_dir)  # the newest whole checkpoint: its marker's sha256 all match
    if checkpoint is None and not (run_dir / "summary.json").exists() and not (run_dir / "final").exists():
        return None, broken  # a start that failed before its first checkpoint: nothing to resume or protect
    from .config import CourseConfig, course_lora, launched_processes

    # the defaults of fields a run_config.json lacks (any prompts_per_step will do: every record holds it)
    defaults = run_record(CourseConfig(prompts_per_step=launched_processes()), course_lora())
    saved = previous["config"]
    previous_config = {**defaults, **saved} if "num_generations" in saved else _from_train_config(saved, defaults)
    memory_only = memory_only_fields(config_json.get("loss_type"))
    for name in memory_only:  # they change memory, not results: a run may resume with other values
        previous_config.pop(name, None)
    config_json = {key: value for key, value in config_json.items() if key not in memory_only}
    differ = [f"{key}={config_json.get(key)!r} (the run's: {previous_config.get(key)!r})"
              for key in sorted(set(previous_config) | set(config_json)) if previous_config.get(key) != config_json.get(key)]
    if previous["model"] != model_name and not same_folder(previous["model"], model_name):
        differ.insert(0, f"model={model_name!r} (the run's: {previous['model']!r})")
    if previous["problem_ids"] != problem_ids:
        differ.append(f"{len(problem_ids)} problems (the run's: {len(previous['problem_ids'])}, not the same ids)"
                      if len(problem_ids) != len(previous["problem_ids"]) else "other problems (ids or order)")
    elif problems_sha256 and previous.get("problems_sha256") not in (None, *problems_sha256):  # older records: none
        differ.append("the same ids with another question, answer, answer format, source or level (the problem file "
                      "or --answer-format changed)")
    check(not differ, f"out={run_dir} holds a run with a different config, model or problems ({'; '.join(differ[:3])}"
                      f"{' ...' if len(differ) > 3 else ''}); its run is kept: train this config into a new "
                      "folder (or give the run's own settings to resume it)")
    step = int(checkpoint.name.split("-")[1]) if checkpoint else 0
    _check_logs_reach(run_dir, step, config_json.get("logging_steps", 1))
    return step, broken


def _warn_other_code(run_dir: Path, previous: dict, step: int) -> None:
    """A run resumed by other library versions or course_lib code than started it: one warning naming what
    changed (its later steps run the code here, its earlier ones the code its run_config.json names)."""
    then = previous.get("versions")
    now = library_versions()
    changed = [f"{name} {then[name]} -> {now[name]}" for name in sorted(then)  # a library no longer tracked: unknown
               if name in now and now[name] != then[name]] if isinstance(then, dict) else []
    commit = previous.get("commit")
    if isinstance(commit, str) and commit != git_commit():
        files = code_changed_since(commit.removesuffix("+dirty"))  # None: not a commit this clone holds
        if files:
            changed.append(f"{', '.join(files[:2])}{' ...' if len(files) > 2 else ''} since commit {commit[:12]}")
        elif files is None:
            changed.append(f"started at commit {commit[:12]}, which this clone does not hold")
        elif commit.endswith("+dirty"):  # edits since reverted, or other edits: which, nothing records
            changed.append(f"started from uncommitted changes to {commit[:12]}, which cannot be compared")
    elif "commit" in previous and (commit is None or commit.endswith("+dirty")):  # which code, nothing records
        changed.append("started outside git" if commit is None else
                       f"started from uncommitted changes to {commit[:12]}, which cannot be compared")
    if step and changed:
        warn(f"out={run_dir} resumes at step {step} a run started with other or unknown code ({'; '.join(changed[:3])}"
             "): its later steps run the code here; train into a new folder for one version of the code throughout")


def _check_logs_reach(run_dir: Path, step: int, logging_steps) -> None:
    """A run resumed from checkpoint-`step` keeps its logs up to that step: they must hold every step before it
    (ledger.jsonl always; metrics.jsonl when it logs every step), or the finished run's shares and time would count
    only the steps after it (04b)."""
    names = ("ledger.jsonl", "metrics.jsonl") if logging_steps == 1 else ("ledger.jsonl",)
    for name in names if step else ():
        path = run_dir / name
        logged = {row["step"] for row, _ in _log_rows(path, torn_end_ok=True)} if path.is_file() else set()
        missing = sorted(set(range(1, step + 1)) - logged)
        check(not missing, f"out={run_dir}: {name} holds no rows for {len(missing)} of the {step} steps before "
                           f"checkpoint-{step} (first: step {missing[0] if missing else ''}; the log was deleted or "
                           "edited), so a resumed run would count only the later steps; restore the log, or use a new "
                           "folder")


TRAIN_CONFIG_NAMES = {"group_size": "num_generations", "steps": "max_steps", "warmup_ratio": "warmup_steps"}


def _from_train_config(saved: dict, defaults: dict) -> dict:
    """The run record of a run_config.json that TrainConfig wrote (course_lib before CourseConfig): its settings
    under GRPOConfig's names, its `extra` merged in, its LoRA as PEFT records it; every other setting the course's
    default, which such a run trained with (TrainConfig set no other)."""
    record = dict(defaults)
    for key, value in saved.items():
        if key == "extra" and isinstance(value, dict):
            record.update(value)
        elif not key.startswith("lora"):
            record[TRAIN_CONFIG_NAMES.get(key, key)] = value
    lora = defaults["peft_config"]
    record["peft_config"] = None if saved.get("lora") is False else {
        **lora, "r": saved.get("lora_rank", lora["r"]), "lora_alpha": saved.get("lora_alpha", lora["lora_alpha"]),
        "target_modules": sorted(saved.get("lora_target_modules", lora["target_modules"]))}
    return record


def check_base(run_dir, run: dict, model_name: str, current: dict | None, refuse: bool = True) -> None:
    """The base model a run was trained on must be the one `run_config.json` fingerprinted (`base_sha256`, the
    sha256 of its weight files): else one line naming the file (an error, or with `refuse=False` a warning).

    Runs from before the fingerprint, and a base whose weights cannot be read here, have nothing to check.
    Introduced in notebooks/04_grpo_training.ipynb.
    """
    recorded = run.get("base_sha256")
    if recorded is None:  # a run from before fingerprints, or a hub base that was not cached when it trained
        return
    check(isinstance(recorded, dict) and recorded and all(
        isinstance(name, str) and isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)
        for name, sha in recorded.items()),
        f"{Path(run_dir) / 'run_config.json'} is damaged (its base_sha256 is not a file -> sha256 map); train the run "
        "again into a new folder")
    changed = [name for name in sorted(recorded, key=lambda name: (name.endswith(".json"), name))  # weights first
               if current is not None and recorded[name] != current.get(name)]
    if not changed:  # the files the run fingerprinted are unchanged (a run from before settings files: weights only)
        return
    name = changed[0]
    now, then = (f"sha256 {str(hashes[name])[:12]}..." if hashes.get(name) else "no such file"
                 for hashes in (current, recorded))
    restore = _restore_advice(model_name)
    message = (f"the base model {model_name} that {run_dir} was trained on has changed since: its {name} has {now} "
               f"but {Path(run_dir) / 'run_config.json'} recorded {then}")
    if refuse:
        raise CourseError(f"{message}; restore that model{restore}, or train the run again into a new folder")
    warn(f"{message}; this full fine-tune takes only the tokenizer from it")


def _restore_advice(model_name: str) -> str:
    """Where a changed tiny base is restored: git for the course's own, the folder COURSE_MODELS_DIR names for a copy
    (`git checkout data/models/tiny-s` leaves that copy as it is); '' for another model."""
    if model_name not in TINY_NAMES:
        return ""
    command = git_restore_command(MODELS_DIR / model_name)
    return f" (`{command}`)" if command else f" in {MODELS_DIR / model_name} (COURSE_MODELS_DIR)"


def _finished_summary(run_dir: Path, steps: int) -> dict | None:
    """The saved summary when the folder holds this run finished: summary.json for `steps`, and final/ whole."""
    path = run_dir / "summary.json"
    if not path.exists():
        return None
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None  # a damaged summary: the run finishes again from its last checkpoint
    if not (isinstance(summary, dict) and summary.get("steps") == steps):
        return None
    problem = final_problem(run_dir, summary)
    if problem:
        warn(f"{problem}; finishing the run again from its last complete checkpoint")
    return None if problem else summary


def final_problem(run_dir: Path, summary: dict) -> str | None:
    """What is wrong with a run's final/ against the sha256 its summary.json recorded (None when it is whole).

    A summary without `final_sha256` was written before course_lib recorded them: nothing to check it against.
    """
    if "final_sha256" not in summary:
        return None
    hashes = summary["final_sha256"]
    if not isinstance(hashes, dict) or not hashes:
        return f"{run_dir / 'summary.json'} is damaged (its final_sha256 is not {{file: sha256}})"
    return mismatch(run_dir / "final", hashes)


def same_folder(recorded: str, given: str) -> bool:
    """Whether a run's recorded base (a relative path, in runs made before bases were recorded absolute) and the
    base given now are one existing folder."""
    first, second = Path(str(recorded)).expanduser(), Path(str(given)).expanduser()
    return first.exists() and second.exists() and first.resolve() == second.resolve()


# same gradients (dapo, grpo, dr_grpo)
MEMORY_ONLY_FIELDS = ("micro_batch_prompts", "activation_checkpointing", "gradient_checkpointing")


def memory_only_fields(loss_type) -> tuple:
    """The settings a run may resume with other values of: memory only. Not the micro-batch under bnpo, which
    averages its loss per micro-batch (another micro-batch size trains another objective)."""
    return tuple(name for name in MEMORY_ONLY_FIELDS if not (loss_type == "bnpo" and name == "micro_batch_prompts"))


def train_grpo(model_name: str, problems, config, out, peft_config="course", progress: bool = True,
               callbacks=()) -> dict:
    """Train with GRPO on `problems` under `config`; writes the run folder `out` and returns its summary (00).

    `config` is a CourseConfig: TRL's GRPOConfig with the course's settings.

    `peft_config`, as GRPOTrainer's: a `peft.LoraConfig`, None to train every weight, or "course" (the default:
    `course_lora()`, rank 16, alpha 32, every linear layer).

    Resumes from the last checkpoint when `out` already holds the same run, and returns the saved summary
    without training when that run has finished. Under `accelerate launch`, every process runs this function;
    the main process alone writes the run folder. On one process, a step that runs out of GPU memory is split
    into smaller micro-batches (the same gradient) and the run resumes from its last checkpoint.
    """
    from .config import CourseConfig, check_peft_config, course_lora

    check(isinstance(config, CourseConfig), f"config={type(config).__name__} must be a course_lib CourseConfig "
                                            "(a trl.GRPOConfig with the course's settings)")
    peft_config = course_lora() if isinstance(peft_config, str) and peft_config == "course" else peft_config
    check_peft_config(peft_config)
    check(config.reward_weights is None or len(config.reward_weights) == 1,
          f"reward_weights={config.reward_weights!r} gives {len(config.reward_weights or [])} weights, but train_grpo "
          "has one reward function (the graded answer, plus format_weight for the format): give one weight, or leave "
          "it unset")
    check(isinstance(out, str | os.PathLike) and str(out).strip(), f"out={out!r} must name a folder for the run")
    check(not Path(out).exists() or Path(out).is_dir(), f"out={out} is a file; give a folder for the run")
    check_problem_list(problems, " to train on")  # dicts (as `generate` prints them), a problem twice: one line
    main = os.environ.get("RANK", "0") == "0"  # under accelerate launch the main process alone writes (and locks)
    with folder_lock(out) if main else contextlib.nullcontext():  # a second writer is refused while this one runs
        while True:
            try:
                return _train_grpo(model_name, problems, config, out, peft_config, progress, callbacks)
            except torch.OutOfMemoryError:
                pass  # leave the except block first: its traceback holds the failed trainer, model and optimizer
            config = _smaller_micro_batches(config)  # frees what the failed attempt held, then halves the micro-batch
            warn(f"out of memory; resuming with micro_batch_prompts={config.micro_batch_prompts}")


def _smaller_micro_batches(config):  # pragma: no mutate block (GPU out-of-memory path)
    """The config with half as many prompts per micro-batch, after freeing what the failed attempt held."""
    from accelerate import PartialState

    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    current = config.micro_batch_prompts or config.prompts_per_step
    check(PartialState().num_processes == 1 and current > 1,
          "out of memory with one prompt per micro-batch (or on several processes); set activation_checkpointing=True, "
          "use LoRA, a shorter max_completion_length, or more GPUs")
    smaller = max(d for d in range(1, current) if current % d == 0 and d <= current // 2)
    return replace(config, micro_batch_prompts=smaller)


def _train_grpo(model_name: str, problems, config, out, peft_config, progress: bool = True, callbacks=()) -> dict:
    """One attempt of `train_grpo` (see there)."""
    from accelerate import PartialState

    run_dir = Path(out)
    problem_ids = [p.id for p in problems]
    problems_sha256 = problems_fingerprint(problems)  # what training shows and grades: the same ids must mean the same
    record = run_record(config, peft_config)
    resume_step, broken = _check_run_dir(run_dir, record, model_name, problem_ids,
                                         (problems_sha256, legacy_problems_fingerprint(problems)))
    if resume_step is not None and (summary := _finished_summary(run_dir, config.max_steps)) is not None:
        return summary
    check_enough_problems(len(problems), config.prompts_per_step)
    base = weights_sha256(model_name)  # the base's fingerprint: recorded now, checked when the run resumes
    if resume_step is not None:
        run = read_run_config(run_dir)
        check_base(run_dir, run, model_name, base)
        _warn_other_code(run_dir, run, resume_step)  # a finished run returned above
    args = run_args(config, run_dir, progress, longest_prompt(problems, model_name) if config.use_vllm else 0)
    check(not (config.dynamic_sampling and args.world_size > 1),
          "dynamic_sampling=True needs a single process: each process would refill its own groups")
    main = args.process_index == 0
    model, tokenizer = load_model(model_name, place=False)  # the Trainer moves it to this process's device
    base = base or weights_sha256(model_name)  # a hub model is in the cache now
    checked_prompt_ids(model, tokenizer, problems, config.max_completion_length)  # every prompt fits the context
    if peft_config is not None:
        check_lora_targets(model, peft_config.target_modules)
    tokenizer.padding_side = "left"
    with args.main_process_first(local=False, desc="preparing the run folder"):
        if main:
            _prepare_run_dir(run_dir, resume_step, broken, model_name, record, problem_ids, base,
                             {"problems_sha256": problems_sha256, "answer_format": pool_answer_format(problems)})
    seconds_before = _seconds_before(run_dir, resume_step)  # a resumed run's earlier processes, to its checkpoint
    if resume_step == config.max_steps:  # killed after the last checkpoint: resuming there would train one step more
        summary = {"model": model_name, "steps": config.max_steps, "seconds": seconds_before, "lora": peft_config is not None,
                   "resumed_from": resume_step, "processes": args.world_size}
        if main:
            _final_from_checkpoint(run_dir / f"checkpoint-{resume_step}", run_dir / STAGING / "final")
            _finish(run_dir, summary)
        PartialState().wait_for_everyone()
        return summary
    ledger = LedgerReward(config.num_generations, config.format_weight)
    trainer_class = _trainer_class(config.dynamic_sampling)
    trainer = trainer_class(model=model, reward_funcs=[ledger], args=args,
                            train_dataset=_dataset(problems, tokenizer), processing_class=tokenizer,
                            peft_config=copy.deepcopy(peft_config),  # PEFT writes into the one it is given
                            callbacks=[_trainer_callback(ledger, run_dir, seconds_before), *callbacks])
    trainer.course_max_rounds = config.dynamic_max_rounds
    from transformers.trainer_callback import PrinterCallback, ProgressCallback
    from transformers.utils.notebook import NotebookProgressCallback

    trainer.remove_callback(PrinterCallback)  # it would print TRL's ~25-key metrics dict at every step
    trainer.remove_callback(ProgressCallback)
    trainer.remove_callback(NotebookProgressCallback)  # in Jupyter: a "Training Loss" table (~0 on-policy, misleading)
    if progress:
        trainer.add_callback(_progress_callback())
    start = time.time()
    with no_weight_bars():  # checkpoints and final/ are written without "Writing model shards" bars
        try:
            trainer.train(resume_from_checkpoint=str(run_dir / f"checkpoint-{resume_step}") if resume_step else None)
        except RuntimeError as error:
            if "probability tensor contains" not in str(error):
                raise
            raise CourseError(f"training diverged at step {trainer.state.global_step + 1}: its policy's probabilities "
                              f"became NaN or inf (learning_rate={config.learning_rate:g}); lower the learning rate "
                              f"and train into a new folder, or delete {run_dir}") from None
        staged = run_dir / STAGING / "final"
        try:
            trainer.save_model(str(staged))  # every process takes part (DeepSpeed gathers); the main one writes
            if main:
                tokenizer.save_pretrained(staged)
                sort_target_modules(staged / "adapter_config.json")
        except SAVE_ERRORS as error:
            raise save_failed(error, "final/", run_dir) from error
    summary = {"model": model_name, "steps": trainer.state.global_step,
               "seconds": round(seconds_before + time.time() - start, 1),
               "lora": peft_config is not None, "resumed_from": resume_step, "processes": args.world_size}
    if main:
        _finish(run_dir, summary)
    PartialState().wait_for_everyone()  # no process returns before the run folder is complete
    return summary


def sort_target_modules(config_file: Path) -> None:
    """PEFT writes `target_modules` from a Python set, in an order that changes from process to process; sorted,
    the same run gives the same adapter_config.json (and summary.json's hashes) every time."""
    if not config_file.is_file():  # a full fine-tune has no adapter
        return
    config = json.loads(config_file.read_text())
    if isinstance(config.get("target_modules"), list):
        config["target_modules"] = sorted(config["target_modules"])
        config_file.write_text(json.dumps(config, indent=2, sort_keys=True))  # as PEFT writes it


def _finish(run_dir: Path, summary: dict) -> None:
    """Move the staged final/ into the run and write summary.json (last) with the sha256 of its files."""
    try:
        summary["final_sha256"] = publish(run_dir / STAGING / "final", run_dir / "final", marker=False)
        atomic_write_text(run_dir / "summary.json", json.dumps(summary, indent=1) + "\n")  # last: marks it finished
        shutil.rmtree(run_dir / STAGING, ignore_errors=True)
    except OSError as error:
        raise save_failed(error, "final/", run_dir) from error


def _final_from_checkpoint(checkpoint: Path, final: Path) -> None:
    """final/ from a checkpoint: its weights, configs and tokenizer, without the optimizer and trainer state."""
    state = ("optimizer", "scheduler", "rng_state", "scaler", "trainer_state", "latest", "zero_to_fp32", "complete")
    shutil.rmtree(final, ignore_errors=True)
    final.mkdir(parents=True)
    for path in checkpoint.iterdir():
        if path.is_file() and not path.name.startswith(state):
            shutil.copy2(path, final / path.name)
    sort_target_modules(final / "adapter_config.json")  # as a final/ saved at the end of training


def _prepare_run_dir(run_dir: Path, resume_step: int | None, broken: list, model_name: str, record: dict,
                     problem_ids: list[str], base: dict | None = None, problems: dict | None = None) -> None:
    """A fresh run starts empty logs and writes run_config.json; a resumed one drops log lines after its checkpoint
    and sets aside the damaged checkpoints newer than it."""
    run_dir.mkdir(parents=True, exist_ok=True)
    if (run_dir / STAGING).is_symlink() or (run_dir / STAGING).is_file():  # never save through a link elsewhere
        (run_dir / STAGING).unlink()
    shutil.rmtree(run_dir / STAGING, ignore_errors=True)  # what a killed save left half-written
    for checkpoint, why in broken:
        kept = set_aside(checkpoint)
        warn(f"{why}; set aside as {kept.name}, resuming from "
             f"{f'checkpoint-{resume_step}' if resume_step else 'the start'}")
    if resume_step is None:
        for name in ("metrics.jsonl", "ledger.jsonl"):
            (run_dir / name).unlink(missing_ok=True)
        atomic_write_text(run_dir / "run_config.json", json.dumps(
            {"model": model_name, "base_sha256": base, "config": record, "problem_ids": problem_ids,
             **(problems or {}), "commit": git_commit(), "versions": library_versions()}, indent=1) + "\n")
    else:
        (run_dir / "summary.json").unlink(missing_ok=True)  # written again when this run finishes
        for name in ("metrics.jsonl", "ledger.jsonl"):
            _truncate_after(run_dir / name, resume_step)


def load_trained(run_or_model: str, device: str | None = None):
    """(model, tokenizer) from a run folder (merging a LoRA adapter into its base) or any model name (00)."""
    check(isinstance(run_or_model, str | os.PathLike) and str(run_or_model).strip(),
          f"run_or_model={run_or_model!r} must name a run folder, a tiny model (e.g. 'tiny-m') or a model folder")
    run_dir = Path(run_or_model)
    final = run_dir / "final"
    if not final.exists():
        check(not (run_dir / "run_config.json").is_file(), f"{run_dir} is not a finished run (no final/); run the "
                                                            "same train command again to finish it")
        return load_model(run_or_model, device=device)

    run = read_run_config(run_dir)
    verify_final(run_dir)
    lora = (final / "adapter_config.json").exists()
    base = weights_sha256(run["model"])
    check_base(run_dir, run, run["model"], base, refuse=lora)  # LoRA: the base is half the model; full: its tokenizer
    model, tokenizer = load_model(run["model"], device=device)
    if base is None:  # a hub model that was not in the cache before loading
        check_base(run_dir, run, run["model"], weights_sha256(run["model"]), refuse=lora)
    if lora:
        from peft import PeftModel

        try:
            model = PeftModel.from_pretrained(model, str(final)).merge_and_unload()
        except SafetensorError as error:  # a run from before summary.json held sha256 of final/ (else caught above)
            raise CourseError(f"{final / 'adapter_model.safetensors'} is corrupt or truncated ({error}); "
                              "train the run again") from error
        check_weights_finite(model, final / "adapter_model.safetensors")  # the base was checked: NaN came from the adapter
    else:  # full fine-tuning: new weights, the base model's tokenizer
        from transformers import AutoModelForCausalLM

        with no_weight_bars():
            model = AutoModelForCausalLM.from_pretrained(str(final)).to(model.device)
        check_weights_finite(model, final)
    model.eval()
    return model, tokenizer


def verify_final(run_dir) -> None:
    """A run's final/ must be whole: every file with the sha256 its summary.json recorded; else one line naming it."""
    run_dir = Path(run_dir)
    path = run_dir / "summary.json"
    again = "run the same train command again to finish it from its last complete checkpoint"
    check(path.is_file(), f"{run_dir} is not a finished run (no summary.json); {again}")
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        summary = None
    check(isinstance(summary, dict), f"{path} is damaged (not JSON); {again}")
    problem = final_problem(run_dir, summary)
    check(problem is None, f"{problem}; {again}")


def merged_folder(run_dir) -> Path:
    """A run's model as one folder (LoRA merged into its base), written once as `merged/` (for vLLM)."""
    run_dir = Path(run_dir)
    merged = run_dir / "merged"
    if not (merged / "config.json").exists():
        model, tokenizer = load_trained(str(run_dir), device="cpu")
        staging = run_dir / ".merged.tmp"
        shutil.rmtree(staging, ignore_errors=True)
        with no_weight_bars():
            model.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        shutil.rmtree(merged, ignore_errors=True)  # a half-written folder from a killed run
        staging.rename(merged)
    return merged


def read_jsonl_log(path) -> list[dict]:
    """The rows of a run's metrics.jsonl or ledger.jsonl (00)."""
    path = Path(path)
    if not path.exists():
        raise CourseError(f"{path} does not exist; is this a run folder written by train_grpo?")
    check(path.is_file(), f"{path} is {what_it_is(path)}; give a run's metrics.jsonl or ledger.jsonl")
    return [row for row, _ in _log_rows(path, torn_end_ok=True)]


def trl_loss_on_fixed_batch(model, tokenizer, prompts, completions, rewards, group_size: int, out, old_logps=None,
                            **grpo_config):
    """TRL's own GRPO loss and gradients for given completions and rewards, without sampling (04).

    Returns (loss, {parameter name: gradient}, the trainer, its inputs). `model` gets the gradients.

    TRL runs its own code from completions to loss: its `rollout_func` hook hands it these completions instead of
    sampling, a reward function hands back these rewards, `_generate_and_score_completions` (which GRPOTrainer
    calls once per generation batch) computes advantages, reference log-probs and the token count, then the public
    `compute_loss`, and `backward`. A TRL reference model (beta > 0) is loaded from `model`'s config name_or_path.
    `old_logps`: as if the completions were sampled a few optimizer steps ago. Notebook 04
    checks its hand-written step against it. Each completion gets an eos token, as `grpo.completion_logprobs` gives
    it (one cut off at the length limit too). `_generate_and_score_completions` and
    `current_gradient_accumulation_steps` are TRL's private names: the trl==1.16 pin in pyproject.toml guards them,
    and `tests/test_grpo_reference.py` fails first on an upgrade that changes them.
    """
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    check(len(prompts) * group_size == len(completions) == len(rewards),
          f"{len(prompts)} prompts x group_size={group_size} must equal the {len(completions)} completions and "
          f"{len(rewards)} rewards: give one prompt per group of G completions")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is marked experimental
    fixed = [float(r) for r in rewards]

    def rollout(batch_prompts, trainer):  # our completions (with eos, as sampled) instead of generated ones
        def ids(text):
            return trainer.processing_class(text, add_special_tokens=False)["input_ids"]

        eos = trainer.processing_class.eos_token_id
        return {"prompt_ids": [ids(q) for q in batch_prompts], "completion_ids": [ids(c) + [eos] for c in completions],
                "logprobs": None, "fixed_reward": fixed}  # extra keys reach the reward functions

    def fixed_reward(completions, fixed_reward, **kwargs):
        return fixed_reward

    settings = {"learning_rate": 1e-3, "max_completion_length": 96, **grpo_config}
    args = GRPOConfig(output_dir=str(out), use_cpu=not torch.cuda.is_available(), bf16=False, report_to="none",
                      per_device_train_batch_size=len(completions), num_generations=group_size, **settings)
    trainer = GRPOTrainer(model=model, reward_funcs=fixed_reward, args=args, processing_class=tokenizer,
                          train_dataset=Dataset.from_dict({"prompt": list(prompts)}), rollout_func=rollout)
    trainer.model.train()
    trainer.current_gradient_accumulation_steps = 1  # set by Trainer's training loop, which this skips
    inputs = trainer._generate_and_score_completions([{"prompt": q} for q in prompts for _ in range(group_size)])
    if old_logps is not None:
        inputs["old_per_token_logps"] = old_logps
    loss = trainer.compute_loss(trainer.model, inputs)
    loss.backward()
    return loss.detach(), {name: q.grad for name, q in trainer.model.named_parameters()}, trainer, inputs
