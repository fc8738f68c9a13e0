"""The course's training settings as TRL's own objects: `CourseConfig` is a `trl.GRPOConfig` with the course's
defaults and the few settings TRL lacks; LoRA is a `peft.LoraConfig`, built from TRL's `ModelConfig` fields.

A student who leaves the course writes the same calls: `GRPOTrainer(args=CourseConfig(...), peft_config=...)`.
The fields TRL lacks act only through `train_grpo`: `format_weight` is paid by the course's reward, and
`dynamic_sampling`/`dynamic_max_rounds` by its trainer; a plain `GRPOTrainer` ignores them (give it a format reward
of your own among `reward_funcs`, with TRL's `reward_weights`).
Every course setting is checked once, when the config is made, with an error naming the field and the fix.
The command line's `train` flags are these fields (`course_lib.__main__.add_train_settings`, HfArgumentParser).
(No `from __future__ import annotations` here: `transformers.HfArgumentParser` reads the field types.)
Introduced in notebooks/00_tiny_world_tour.ipynb; notebook 04 builds a GRPOConfig by hand first.
"""

import math
from dataclasses import dataclass, field, fields
from decimal import Decimal

import torch
from accelerate.utils import get_int_from_env
from peft import LoraConfig
from transformers.trainer_utils import SchedulerType
from trl import GRPOConfig, ModelConfig, get_peft_config

from ..errors import MAX_SEED, CourseError, check
from ..grpo import LOSS_TYPES, SCALES  # TRL's; every one gives the whole step's gradient over micro-batches but bnpo
from ..prompts import CHAT_TEMPLATE_KWARGS
from ..sampling import MAX_NEW_TOKENS, TEMPERATURES

LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")  # every linear layer
MAX_STEPS = 1_000_000  # optimizer steps at most: the papers' runs take about 1,000; a million is days on a GPU
MAX_GROUP_SIZE = 1024  # completions per prompt at most (GRPO papers use 4-64)
MAX_PROMPTS_PER_STEP = 65_536  # prompts per optimizer step at most
MAX_COMPLETIONS_PER_STEP = 2**20  # prompts_per_step x num_generations at most (the papers': 8 to a few thousand)
RANGES = {  # field -> (the test its value must pass, the rest of the error message): checked after the types
    "learning_rate": (lambda v: 0 < v <= 1, "must be in (0, 1] (LoRA on the tiny models: 3e-4; full fine-tuning: "
                                            "~3e-5); larger steps make the weights NaN"),
    "beta": (lambda v: 0 <= v <= 100, "must be in [0, 100] (0: no KL penalty; 0.04 is usual)"),
    "epsilon": (lambda v: 0 < v <= 10, "must be in (0, 10] (the clipping range; 0.2 is usual)"),
    "temperature": (lambda v: TEMPERATURES[0] <= v <= TEMPERATURES[1],
                    f"must be from {TEMPERATURES[0]:g} to {TEMPERATURES[1]:g}: GRPO samples its groups (1.0 is usual)"),
    "weight_decay": (lambda v: 0 <= v <= 10, "must be in [0, 10] (0.1 is usual)"),
    "adam_beta2": (lambda v: 0 <= v < 1, "must be in [0, 1) (0.999 or 0.99)"),
    "warmup_steps": (lambda v: 0 <= v < 1 or (v == int(v) and 1 <= v <= MAX_STEPS),
                     "must be a share of max_steps in [0, 1) or a whole number of steps"),
    "max_grad_norm": (lambda v: v >= 0, "must be >= 0 (0: no clipping)"),
    "seed": (lambda v: 0 <= v <= MAX_SEED, f"must be from 0 to {MAX_SEED:,} (numpy's seed range)"),
    "num_generations": (lambda v: 2 <= v <= MAX_GROUP_SIZE, f"must be from 2 to {MAX_GROUP_SIZE:,}: GRPO compares "
                                                            "completions within a group (8 is usual)"),
    "prompts_per_step": (lambda v: 1 <= v <= MAX_PROMPTS_PER_STEP, f"must be from 1 to {MAX_PROMPTS_PER_STEP:,}"),
    "max_steps": (lambda v: 1 <= v <= MAX_STEPS, f"must be from 1 to {MAX_STEPS:,}"),
    "max_completion_length": (lambda v: 1 <= v <= MAX_NEW_TOKENS, f"must be from 1 to {MAX_NEW_TOKENS:,} tokens"),
    "save_steps": (lambda v: 1 <= v <= MAX_STEPS and v == int(v), f"must be from 1 to {MAX_STEPS:,}"),
    "dynamic_max_rounds": (lambda v: 1 <= v <= 1000, "must be from 1 to 1,000 (4 is usual)"),
    "format_weight": (lambda v: 0 <= v <= 100, "must be in [0, 100] (0: correctness alone)"),
    "micro_batch_prompts": (lambda v: v >= 0, "must be >= 0 (0: the whole step at once)"),
    "vllm_gpu_memory_utilization": (lambda v: 0 < v <= 1, "must be in (0, 1]"),
    # sampling that leaves one token per step is greedy: a group's completions are all alike, every group is dead
    "top_p": (lambda v: 0 < v <= 1, "must be in (0, 1] (1.0: off); near 0 sampling is greedy, so every group's "
                                     "completions are alike and give no gradient"),
    "top_k": (lambda v: v == 0 or v >= 2, "must be 0 (off) or at least 2: top_k=1 samples greedily, so every group's "
                                          "completions are alike and give no gradient"),
    "repetition_penalty": (lambda v: 0 < v <= 10, "must be in (0, 10] (1.0: off)"),
    "num_iterations": (lambda v: 1 <= v <= 100, "must be from 1 to 100 (updates per generated batch; 1 is usual)"),
    "adam_beta1": (lambda v: 0 <= v < 1, "must be in [0, 1) (0.9 is usual)"),
    "adam_epsilon": (lambda v: 0 < v <= 1, "must be in (0, 1] (1e-8 is usual)"),
    "top_entropy_quantile": (lambda v: 0 <= v <= 1, "must be in [0, 1] (the share of highest-entropy tokens trained "
                                                    "on; 1.0: all)"),
    "logging_steps": (lambda v: v > 0, "must be above 0 (a number of steps, or a share of max_steps below 1)"),
}
OPTIONAL_RANGES = {  # fields that may be None (off): checked only when set
    "min_p": (lambda config, v: 0 <= v < 1, "must be in [0, 1), or unset: at 1 sampling is greedy, so every group's "
                                            "completions are alike and give no gradient"),
    "epsilon_high": (lambda config, v: 0 < v <= 10, "must be in (0, 10] (the upper clipping range; 0.28 in DAPO), "
                                                    "or unset to use epsilon"),
    "vllm_importance_sampling_cap": (lambda config, v: v > 0, "must be above 0, or unset"),
    "delta": (lambda config, v: v > 1 + config.epsilon, "must be above 1 + epsilon (two-sided clipping's upper bound "
                                                        "on the ratio; 2-4 are usual), or unset"),
}
LORA_RANGES = {  # ModelConfig's LoRA fields (LoraConfig's r and lora_alpha)
    "lora_r": (lambda v: 1 <= v <= 4096, "must be from 1 to 4,096 (16 is usual)"),
    "lora_alpha": (lambda v: 1 <= v <= 65_536, "must be from 1 to 65,536 (twice lora_r is usual)"),
    "lora_dropout": (lambda v: 0 <= v < 1, "must be in [0, 1) (0.0: off; 1 would zero the adapter's input, so it "
                                           "never trains)"),
}
INTEGERS = ("num_generations", "prompts_per_step", "max_steps", "max_completion_length", "dynamic_max_rounds",
            "micro_batch_prompts", "seed", "lora_r", "lora_alpha", "top_k", "num_iterations")
# GRPOConfig's batch fields, which CourseConfig.__post_init__ sets from prompts_per_step, micro_batch_prompts and
# the process count (values given for them are replaced)
BATCH_FIELDS = ("per_device_train_batch_size", "gradient_accumulation_steps", "generation_batch_size",
                "steps_per_generation")


def _help(text: str, *aliases: str) -> dict:
    """Field metadata: the help text `train --help` shows, and the course's older flag spellings."""
    return {"help": text, "aliases": list(aliases)} if aliases else {"help": text}


def check_settings(config, ranges: dict, booleans=()) -> None:
    """Types first (a string, bool or NaN where a number belongs is named before ranges), then each range."""
    for name in booleans:
        value = getattr(config, name)
        check(isinstance(value, bool), f"{name}={value!r} must be True or False")
    for name in ranges:
        value = getattr(config, name)
        check(is_setting_number(value, name in INTEGERS),
              f"{name}={value!r} must be a finite {'int' if name in INTEGERS else 'float'}")
    for name, (allowed, fix) in ranges.items():
        check(allowed(getattr(config, name)), f"{name}={getattr(config, name)!r} {fix}")


def is_setting_number(value, integer: bool) -> bool:
    """An int (integer=True), or any finite int or float; never a bool, a string or NaN."""
    return isinstance(value, int if integer else int | float) and not isinstance(value, bool) and math.isfinite(value)


def scheduler_names() -> list[str]:
    """The learning-rate schedules transformers knows (`lr_scheduler_type`)."""
    return [kind.value for kind in SchedulerType]


def nearest_splits(prompts_per_step: int, num_processes: int) -> str:
    """The valid choices nearest a batch that does not split: prompts per step around it, or process counts.

    >>> nearest_splits(20, 8)
    'use 16 or 24 prompts per step, or 1, 2, 4, 5, 10 or 20 processes'
    """
    below = prompts_per_step // num_processes * num_processes
    prompts = [n for n in (below, below + num_processes) if n > 0]
    counts = [str(d) for d in range(1, prompts_per_step + 1) if prompts_per_step % d == 0]
    counts_text = counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + f" or {counts[-1]}"
    return (f"use {' or '.join(map(str, prompts))} prompts per step, or {counts_text} "
            f"process{'es' if len(counts) > 1 else ''}")


def micro_batches(config, num_processes: int = 1) -> tuple[int, int]:
    """(per_device_train_batch_size, gradient_accumulation_steps) so one optimizer step sees prompts_per_step prompts."""
    check(config.prompts_per_step % num_processes == 0,
          f"prompts_per_step={config.prompts_per_step} does not split over {num_processes} processes; "
          f"{nearest_splits(config.prompts_per_step, num_processes)}")
    per_process = config.prompts_per_step // num_processes  # prompts each process generates and trains on
    micro = config.micro_batch_prompts or per_process
    check(per_process % micro == 0,
          f"prompts_per_step={config.prompts_per_step} over {num_processes} processes gives {per_process} prompts "
          f"each, which micro_batch_prompts={micro} does not divide; use a divisor of {per_process}")
    # TRL 1.16 generates once per optimizer step (steps_per_generation = gradient_accumulation_steps):
    # per_device * processes * accumulation = prompts_per_step * G completions, split into micro-batches.
    # The gradient is the whole step's for loss_type dapo, grpo and dr_grpo; bnpo averages per micro-batch.
    return micro * config.num_generations, per_process // micro


def launched_processes() -> int:
    """The process count the launcher (accelerate launch, torchrun, MPI) gives, as accelerate reads it."""
    return get_int_from_env(["WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE"], 1)


@dataclass
class CourseConfig(GRPOConfig):
    """TRL's `GRPOConfig` with the course's defaults, plus a few fields TRL lacks (00).

    Those fields: prompts per step (which set the batch), micro-batches, a format reward weight and DAPO's dynamic
    sampling. Checked when made, naming the field.

    The batch fields (per_device_train_batch_size, gradient_accumulation_steps, steps_per_generation,
    generation_batch_size) follow from prompts_per_step, micro_batch_prompts and the launcher's process count (a
    value given for one is replaced, so that `replace(config, num_generations=4)` stays one batch; set those three);
    `train_grpo` sets output_dir to its `out`. Without a GPU: use_cpu, and no bf16.
    """

    # GRPOConfig's own settings, with the course's defaults
    num_generations: int | None = field(default=8, metadata=_help("G: completions per prompt", "--group-size"))
    max_steps: int = field(default=100, metadata=_help("optimizer steps", "--steps"))
    learning_rate: float = field(default=3e-4, metadata=_help(
        "3e-4 suits LoRA on the tiny models; full fine-tuning wants ~3e-5", "--lr"))
    beta: float = field(default=0.0, metadata=_help("KL penalty to the base model (0: no reference model)"))
    loss_type: str = field(default="dapo", metadata=_help(
        f"aggregation of the token losses: {', '.join(LOSS_TYPES)} (TRL 1.16's default: dapo)"))
    scale_rewards: str = field(default="group", metadata=_help(
        "divide advantages by the group std (group), the batch std (batch), or not (none)"))
    epsilon: float = field(default=0.2, metadata=_help("PPO-style clipping range of the probability ratio"))
    max_completion_length: int | None = field(default=96, metadata=_help(
        "tokens a completion may have", "--max-new-tokens"))
    temperature: float = field(default=1.0, metadata=_help("sampling temperature during training"))
    top_k: int = field(default=0, metadata=_help("top-k filtering when sampling (0: none; GRPO samples the whole "
                                                 "distribution)"))
    top_p: float = field(default=1.0, metadata=_help("nucleus sampling (1.0: none)"))
    weight_decay: float = field(default=0.0, metadata=_help("AdamW weight decay"))
    adam_beta2: float = field(default=0.999, metadata=_help("AdamW beta2 (arXiv 2508.14094 uses 0.99)"))
    warmup_steps: float = field(default=0.0, metadata=_help(
        "linear warmup: a share of max_steps below 1 (transformers 5), else a number of steps", "--warmup-ratio"))
    lr_scheduler_type: SchedulerType | str = field(default="constant", metadata=_help(
        "learning-rate schedule: constant, linear, cosine, ..."))
    max_grad_norm: float = field(default=1.0, metadata=_help("gradient clipping (0: none)"))
    save_steps: float = field(default=25, metadata=_help(
        "checkpoint every this many steps (a killed run loses at most these)"))
    save_total_limit: int | None = field(default=2, metadata=_help("checkpoints kept (the newest)"))
    logging_steps: float = field(default=1, metadata=_help("log every this many steps (metrics.jsonl)"))
    report_to: None | str | list[str] = field(default="none", metadata=_help(
        "integrations to report to (none: metrics.jsonl alone)"))
    seed: int = field(default=0, metadata=_help("data order, sampling, LoRA init"))
    activation_checkpointing: bool | None = field(default=None, metadata=_help(
        "recompute activations in the backward pass: less memory, more time (unset: off)"))
    gradient_checkpointing: bool | None = field(default=None, metadata=_help(
        "transformers 5's deprecated name of activation_checkpointing (TRL's default: on; unset here: off)"))
    bf16: bool | None = field(default=None, metadata=_help("bf16 mixed precision (unset: on a GPU that has it)"))
    use_vllm: bool = field(default=False, metadata=_help("generate with vLLM (GPU only; paper profile)"))
    vllm_mode: str = field(default="colocate", metadata=_help("vLLM in the training process (colocate) or a server"))
    vllm_gpu_memory_utilization: float = field(default=0.3, metadata=_help(
        "share of GPU memory the colocated vLLM may take (TRL's default)"))
    chat_template_kwargs: dict | str | None = field(default_factory=lambda: dict(CHAT_TEMPLATE_KWARGS), metadata=_help(
        "chat template arguments (Qwen3: no thinking block, as in estimation)"))
    # What GRPOConfig lacks
    prompts_per_step: int = field(default=8, metadata=_help(
        "prompts per optimizer step, all processes together (prompts_per_step x G completions); sets "
        "per_device_train_batch_size, gradient_accumulation_steps and the generation batch"))
    micro_batch_prompts: int = field(default=0, metadata=_help(
        "prompts per forward/backward on each process; 0 = the whole step at once"))
    format_weight: float = field(default=0.0, metadata=_help(
        "reward += this x (an answer written in the asked-for format); 0: correctness alone"))
    dynamic_sampling: bool = field(default=False, metadata=_help(
        "DAPO online filtering: drop dead groups and refill the batch"))
    dynamic_max_rounds: int = field(default=4, metadata=_help("generation rounds per step at most when refilling"))
    num_train_epochs: float = field(default=3.0, metadata=_help(
        "not used: max_steps sets a run's length (give max_steps; for E passes over N problems at P prompts per "
        "step, ceil(E x N / P))"))

    def __post_init__(self):
        if isinstance(self.save_steps, float) and self.save_steps.is_integer():
            self.save_steps = int(self.save_steps)  # the command line reads GRPOConfig's float
        check_settings(self, RANGES, booleans=("dynamic_sampling", "use_vllm"))
        for name, (allowed, fix) in OPTIONAL_RANGES.items():
            value = getattr(self, name)
            if value is not None:
                check(is_setting_number(value, integer=False) and allowed(self, value), f"{name}={value!r} {fix}")
        for name in ("activation_checkpointing", "gradient_checkpointing"):
            value = getattr(self, name)
            check(value is None or isinstance(value, bool), f"{name}={value!r} must be True, False or None")
        schedule = getattr(self.lr_scheduler_type, "value", self.lr_scheduler_type)
        check(schedule in scheduler_names(),
              f"lr_scheduler_type={schedule!r} is unknown; use one of {', '.join(scheduler_names())}")
        check(self.completions_per_step <= MAX_COMPLETIONS_PER_STEP,
              f"prompts_per_step={self.prompts_per_step} x num_generations={self.num_generations} is "
              f"{self.completions_per_step:,} completions per step, more than {MAX_COMPLETIONS_PER_STEP:,}; use "
              "fewer prompts per step or a smaller group")
        check(self.loss_type in LOSS_TYPES, f"loss_type={self.loss_type!r} is unknown; use one of {', '.join(LOSS_TYPES)}")
        check(self.scale_rewards in SCALES, f"scale_rewards={self.scale_rewards!r} is unknown; use one of {', '.join(SCALES)}")
        check(self.micro_batch_prompts == 0 or self.prompts_per_step % self.micro_batch_prompts == 0,
              f"prompts_per_step={self.prompts_per_step} does not split into micro-batches of "
              f"micro_batch_prompts={self.micro_batch_prompts}; use a divisor of prompts_per_step")
        epochs_default = type(self).__dataclass_fields__["num_train_epochs"].default
        check(self.num_train_epochs == epochs_default or self.max_steps <= 0,
              f"num_train_epochs={self.num_train_epochs:g} would be ignored: max_steps={self.max_steps} sets the run's "
              "length (transformers uses max_steps whenever it is above 0); give max_steps instead, for E passes "
              "over N problems at P prompts per step ceil(E x N / P)")
        check_settings_finite(self)
        check_reward_weights(self.reward_weights)
        check_supported(self)
        check_exact_resume(self)
        self.per_device_train_batch_size, self.gradient_accumulation_steps = micro_batches(self, launched_processes())
        self.steps_per_generation, self.generation_batch_size = self.gradient_accumulation_steps, None
        on_gpu = torch.cuda.is_available()
        self.use_cpu = self.use_cpu or not on_gpu  # CPU-safe settings when there is no GPU
        if self.bf16 is None:
            self.bf16 = on_gpu and torch.cuda.is_bf16_supported()
        try:
            super().__post_init__()  # TRL's and transformers' own checks of the other fields
        except CourseError:
            raise
        except ValueError as error:  # one line, as the course's own checks
            raise CourseError(f"{' '.join(str(error).split())} (trl.GRPOConfig)") from None

    @property
    def completions_per_step(self) -> int:
        """Completions per optimizer step, over all processes and micro-batches."""
        return self.prompts_per_step * self.num_generations


def check_settings_finite(config) -> None:
    """Every number among the settings, TRL's own included, is finite, also inside a list or a dict of keyword
    arguments: NaN passes TRL's own comparisons and is written into the run's records; inf fails deep inside
    training (04)."""
    for item in fields(config):
        value = getattr(config, item.name, None)
        single = not isinstance(value, list | tuple | dict)
        check(all(_finite(v) for v in _floats(value)),
              f"{item.name}={value!r} must be {'a finite number' if single else 'finite numbers'}")


def _floats(value) -> list:
    """The non-whole numbers in a setting, looking inside lists, tuples, dicts and numpy arrays (`generation_kwargs`,
    `reward_weights`): a float, a numpy float or a Decimal."""
    if hasattr(value, "tolist"):  # a numpy array or scalar, as plain Python numbers
        value = value.tolist()
    if isinstance(value, float | Decimal):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [number for inner in value for number in _floats(inner)] if isinstance(value, list | tuple) else []


def _finite(number) -> bool:
    try:
        return math.isfinite(number)
    except ValueError:  # Decimal('sNaN')
        return False


def check_reward_weights(weights) -> None:
    """TRL's reward_weights: unset, or numbers with at least one above 0 (04). All 0 gives every completion the same
    reward, so no group has a gradient and the run ends as the base model; all at or below 0 trains away from every
    reward. (A negative weight beside a positive one is a penalty, which a reward of your own may be.)"""
    check(weights is None or not isinstance(weights, list | tuple) or all(_finite(w) for w in _floats(weights)),
          f"reward_weights={weights!r} must be finite numbers")
    check(weights is None or (isinstance(weights, list | tuple) and all(is_setting_number(w, integer=False) for w in weights)
                              and any(w > 0 for w in weights)),
          f"reward_weights={weights!r} must be numbers with at least one above 0 (all 0: every completion earns the "
          "same reward, so no step has a gradient; all below 0: training moves away from the rewards), or unset for "
          "equal weights")


def check_supported(config) -> None:
    """TrainingArguments the course's runs cannot honour, refused in one line (they would fail mid-run) (04)."""
    check(not config.push_to_hub, "push_to_hub=True: the course trains offline and keeps a run in its own folder; "
                                  "leave it out (upload the finished run yourself)")
    strategy = getattr(config.eval_strategy, "value", config.eval_strategy)
    check(strategy == "no", f"eval_strategy={strategy!r}: train_grpo has no evaluation set during training; leave it "
                            "out and evaluate the finished run (`evaluate`, or `course_lib.evaluate`)")


def check_exact_resume(config) -> None:
    """A killed run resumes as if never stopped (notebook 04): the settings that would break that are refused."""
    check(not config.save_only_model, "save_only_model=True saves checkpoints without the optimizer state a killed "
                                      "run resumes from; leave it out (fewer checkpoints: raise save_steps or set "
                                      "save_total_limit)")
    check(not config.ignore_data_skip, "ignore_data_skip=True would resume a killed run on the prompts it already "
                                       "trained on, not on those an uninterrupted run sees next; leave it out")
    check(config.resume_from_checkpoint is None,
          f"resume_from_checkpoint={config.resume_from_checkpoint!r}: a run resumes from the newest checkpoint in its "
          "own folder when the same train command runs again; leave it out")


@dataclass
class CourseModelConfig(ModelConfig):
    """TRL's `ModelConfig` with the course's LoRA defaults (r 16, alpha 32, no dropout, every linear layer);
    `trl.get_peft_config` turns it into the `peft.LoraConfig` train_grpo takes. The command line uses its LoRA
    fields alone (the model comes from --model)."""

    use_peft: bool = field(default=True, metadata=_help("train a LoRA adapter instead of all weights", "--lora"))
    lora_r: int = field(default=16, metadata=_help("LoRA rank r", "--lora-rank"))
    lora_alpha: int = field(default=32, metadata=_help("LoRA scaling alpha"))
    lora_dropout: float = field(default=0.0, metadata=_help("dropout on the LoRA path"))
    lora_target_modules: list[str] | None = field(default_factory=lambda: list(LORA_TARGETS), metadata=_help(
        "the modules LoRA adapts (each must be a linear layer of the model)"))

    def __post_init__(self):
        check_settings(self, LORA_RANGES, booleans=("use_peft",))
        super().__post_init__()


LORA_FLAGS = ("use_peft", "lora_r", "lora_alpha", "lora_dropout", "lora_target_modules", "use_rslora", "use_dora")


def course_lora(**settings):
    """The `peft.LoraConfig` of CourseModelConfig(**settings), or None when use_peft=False (full fine-tuning) (04b).

    The course's LoRA unless `settings` say otherwise."""
    return get_peft_config(CourseModelConfig(**settings))


def check_peft_config(peft_config) -> None:
    """train_grpo's peft_config: a LoraConfig whose rank and alpha are in range, or None (full fine-tuning)."""
    check(peft_config is None or isinstance(peft_config, LoraConfig),
          f"peft_config={type(peft_config).__name__} must be a peft.LoraConfig, or None to train every weight")
    if peft_config is not None:
        for name, key in (("lora_r", "r"), ("lora_alpha", "lora_alpha"), ("lora_dropout", "lora_dropout")):
            allowed, fix = LORA_RANGES[name]
            value = getattr(peft_config, key)
            check(is_setting_number(value, name in INTEGERS) and allowed(value), f"peft_config.{key}={value!r} {fix}")


def field_names(config_class) -> list[str]:
    """The dataclass's init fields, in order."""
    return [f.name for f in fields(config_class) if f.init]
