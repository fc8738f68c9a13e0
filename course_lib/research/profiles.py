"""Profiles: one code path, three sizes (`smoke` for CI, `tiny` by default, `paper` on a GPU).

Every notebook's `PROFILE` parameter picks one; everything else derives from it.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..errors import check


@dataclass(frozen=True)
class Profile:
    """The sizes of one profile; notebooks read every setting they need from here."""

    name: str  # "smoke", "tiny" or "paper"
    models: tuple  # model names, smallest first (tiny names or hub ids)
    model: str  # the default model of single-model notebooks
    task: str  # default task ("arith" in the tiny world, "gsm8k" in the paper's)
    n_problems: int  # problems per pool in the tour and in estimation
    k: int  # samples per problem when estimating pass rates
    temperature: float  # sampling temperature for estimation
    max_new_tokens: int  # completion length limit
    sample_batch_size: int  # prompts per batched generate call
    train_problems: int  # problems in a training subset (notebooks 04 and 04b)
    train_steps: int  # GRPO optimizer steps of each of notebook 04b's runs (and the most 04 runs)
    prompts_per_step: int  # prompts per GRPO step (each with G completions)
    eval_problems: int  # held-out problems per evaluation
    eval_k: int  # samples per held-out problem
    experiment_pool: int  # problems in a study's training pool (0: every problem of the dataset's train split)
    max_train_steps: int  # cap on a study point's steps (0: none; smoke keeps CI fast)
    train_settings: str  # "course" (CourseConfig's defaults) or a paper's: "2508.14094", "2604.06298"
    ood_task: str  # out-of-distribution set ("": the task's own `ood` split, longer than any training level)
    stability_problems: int  # problems in notebook 01's ranking-stability check
    reference_k: int  # samples per problem of notebook 01's reference ranking (0: its REFERENCE_K parameter)
    backend: str = "hf"  # sampling backend of a grid point: hf, vllm, or auto (vLLM where vLLM and a GPU are present)
    notes: dict = field(default_factory=dict)  # where each setting comes from


PROFILES = {
    "smoke": Profile(
        name="smoke", models=("tiny-s", "tiny-m", "tiny-l"), model="tiny-m", task="arith",
        n_problems=20, k=4, temperature=1.0, max_new_tokens=96, sample_batch_size=32,
        train_problems=16, train_steps=2, prompts_per_step=2, eval_problems=16, eval_k=2,
        experiment_pool=20, max_train_steps=2, train_settings="course", ood_task="", stability_problems=12,
        reference_k=16, notes={"purpose": "CI: every notebook runs top to bottom in seconds"},
    ),
    "tiny": Profile(
        name="tiny", models=("tiny-s", "tiny-m", "tiny-l"), model="tiny-m", task="arith",
        n_problems=500, k=8, temperature=1.0, max_new_tokens=96, sample_batch_size=64,
        train_problems=200, train_steps=30, prompts_per_step=8, eval_problems=300, eval_k=4,
        experiment_pool=1000, max_train_steps=0, train_settings="course", ood_task="", stability_problems=100,
        reference_k=0, notes={"purpose": "the whole course offline on a 2-core CPU in minutes"},
    ),
    "paper": Profile(
        name="paper", models=("Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-1.5B-Instruct", "Qwen/Qwen2.5-3B-Instruct"),
        model="Qwen/Qwen3-4B", task="gsm8k", n_problems=7473, k=10, temperature=1.0, max_new_tokens=250,
        sample_batch_size=64, train_problems=747, train_steps=1000, prompts_per_step=1, eval_problems=1319, eval_k=4,
        experiment_pool=0, max_train_steps=0, train_settings="2508.14094", ood_task="aime2025",
        stability_problems=100, reference_k=0, backend="auto",
        notes={"k": "arXiv 2508.14094: K=10 samples at temperature 1.0, 250 new tokens",
               "models": "arXiv 2604.06298: Qwen2.5 0.5B/1.5B/3B; arXiv 2508.14094: Qwen3-4B",
               "ood_task": "arXiv 2508.14094: AIME 2025 scored as pass@8",
               "experiment_pool": "arXiv 2508.14094: 10% of GSM8K's 7,473 training problems = 747"},
    ),
}


def get_profile(name: str) -> Profile:
    """The profile called `name`, with an error listing the valid names (05)."""
    check(name in PROFILES, f"PROFILE={name!r} is unknown; use one of {', '.join(PROFILES)}")
    return PROFILES[name]


# The papers' own training settings (paper profile), under CourseConfig's (GRPOConfig's) and CourseModelConfig's
# (ModelConfig's LoRA) field names. Each value names its source.
PIKUS_2508_14094 = {  # "Hard Examples Are All You Need", Qwen3-4B etc. on GSM8K / BBH, 10% budget
    "use_peft": True, "lora_r": 32, "lora_alpha": 32,
    "lora_target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
    "learning_rate": 5e-6, "adam_beta2": 0.99, "weight_decay": 0.1, "warmup_steps": 0.1,  # 0.1: a share of steps
    "lr_scheduler_type": "cosine", "max_grad_norm": 0.1, "num_generations": 8, "max_completion_length": 250,
    # 1000 steps of one prompt x 8 completions (~1.3 passes over GSM8K's 747); the paper reports step 1000 on BBH as
    # well, so BBH's ~60-problem subset (10% of its train split) is seen ~16 times: the course follows the paper
    "max_steps": 1000, "prompts_per_step": 1,
    "difficulty_k": 10, "difficulty_temperature": 1.0,  # pass rate from K=10 samples at temperature 1.0
}
YADAV_2604_06298 = {  # capacity boundary: Qwen2.5 0.5B/1.5B/3B with LoRA on MATH levels 1-3 vs 1-5
    "use_peft": True, "num_generations": 4,  # K=4 generations per prompt
    "answer_format": "tagged",  # the final answer inside <answer></answer> tags
    # effective batch (prompts per optimizer step) by training set and model size
    "effective_batch": {"math": {"0.5B": 20, "1.5B": 16, "3B": 12}, "gsm8k": {"0.5B": 48, "1.5B": 40, "3B": 32}},
}


PAPER_SETTINGS = ("2508.14094", "2604.06298")

# "shaped": arXiv 2508.14094's optimizer shape at the course's LoRA scale (train_settings="shaped"); the point's
# LEARNING_RATE sets the rate, otherwise the course's 3e-4, the best of the sweep 1e-4..3e-3 on tiny-m/arith
# (data/results/headroom-pilot*: 1e-4 as good, 1e-3 worse, 3e-3 collapses).
SHAPED_SETTINGS = {
    "lr_scheduler_type": "cosine", "warmup_steps": 0.1, "weight_decay": 0.1, "adam_beta2": 0.99,  # as 2508.14094
    "lora_r": 16, "lora_alpha": 16,  # alpha = r as 2508.14094 (the course's default has alpha = 2r)
    # clips: tiny-m's grad norms with alpha = r were 0.057-0.145, median 0.086, over 12 unclipped steps of 8 prompts
    # at lr 3e-4 (data/results/headroom-pilot/README.md); 0.05 clips (almost) every step, as 0.1 does in 2508.14094
    "max_grad_norm": 0.05,
}
# "shaped-full": the same optimizer shape with every weight trained (no LoRA), for a tiny model whose LoRA learns
# too little to test a claim (data/results/tinymath-size-pilot-2); set its LEARNING_RATE for full fine-tuning
TRAIN_SETTINGS = ("course", "shaped", "shaped-full", *PAPER_SETTINGS)


def model_size_of(model: str, flag: str = "MODEL_SIZE") -> str:
    """'Qwen/Qwen2.5-1.5B-Instruct' -> '1.5B': the size arXiv 2604.06298's batch sizes are keyed by, read from the
    model's own name (the last part of a path: `runs/3B-vs-0.5B/Qwen2.5-0.5B` is 0.5B)."""
    name = str(model).rstrip("/").rsplit("/", 1)[-1]
    sizes = set(re.findall(r"(\d+(?:\.\d+)?)B", name))
    check(len(sizes) == 1, f"model={model!r} names {'no size like 1.5B' if not sizes else 'several sizes'} in "
                           f"{name!r}; set {flag} (0.5B, 1.5B or 3B)")
    return f"{sizes.pop()}B"


def paper_dataset_of(task: str, flag: str = "TASK") -> str:
    """The training set arXiv 2604.06298's batch sizes are keyed by: 'math' (math, math-numeric) or 'gsm8k'."""
    dataset = "math" if task.startswith("math") else task
    check(dataset in YADAV_2604_06298["effective_batch"],
          f"task={task!r} has no batch size in arXiv 2604.06298 (it trained on MATH or GSM8K); set {flag} math or gsm8k")
    return dataset


def paper_steps(paper: str, n_selected: int, prompts_per_step: int, epochs: float = 1.3) -> int:
    """Optimizer steps of a paper's run: 2508.14094 reports step 1000 on GSM8K and BBH alike; 2604.06298 trains
    `epochs` passes over its training set (the course's 1.3, as 2508.14094's GSM8K run)."""
    if paper == "2508.14094":
        return PIKUS_2508_14094["max_steps"]
    return max(1, math.ceil(epochs * n_selected / prompts_per_step))


def split_settings(settings: dict) -> tuple[dict, dict]:
    """(CourseConfig's settings, CourseModelConfig's LoRA settings) of one dict of both (difficulty_* dropped)."""
    from ..training import LORA_FLAGS

    return ({k: v for k, v in settings.items() if k not in LORA_FLAGS and not k.startswith("difficulty_")},
            {k: v for k, v in settings.items() if k in LORA_FLAGS})


def paper_lora(paper: str, **overrides):
    """The `peft.LoraConfig` of one paper's settings ("2508.14094" or "2604.06298"); overrides (CourseModelConfig's
    LoRA fields: lora_r, lora_alpha, use_peft, ...) win."""
    from ..training import course_lora

    check(paper in ("2508.14094", "2604.06298"), f"paper={paper!r} is unknown; use '2508.14094' or '2604.06298'")
    settings = PIKUS_2508_14094 if paper == "2508.14094" else YADAV_2604_06298
    return course_lora(**{**split_settings(settings)[1], **overrides})


def paper_train_config(paper: str, dataset: str = "gsm8k", model_size: str = "1.5B", **overrides):
    """A `CourseConfig` with one paper's settings ("2508.14094" or "2604.06298"); overrides win. Its LoRA:
    `paper_lora`."""
    from ..training import CourseConfig

    check(paper in ("2508.14094", "2604.06298"), f"paper={paper!r} is unknown; use '2508.14094' or '2604.06298'")
    if paper == "2508.14094":
        settings = split_settings(PIKUS_2508_14094)[0]
    else:
        batches = YADAV_2604_06298["effective_batch"]
        check(dataset in batches, f"dataset={dataset!r} has no batch size in arXiv 2604.06298; use math or gsm8k")
        check(model_size in batches[dataset], f"model_size={model_size!r} is not one of {', '.join(batches[dataset])}")
        settings = {"num_generations": YADAV_2604_06298["num_generations"],
                    "prompts_per_step": batches[dataset][model_size]}
    # completion limit: the paper profile's (the grid's), which is 2508.14094's 250 tokens; the rest (lr, rank,
    # schedule) are CourseConfig's defaults in the grid and here alike
    settings.setdefault("max_completion_length", PROFILES["paper"].max_new_tokens)
    return CourseConfig(**{**settings, **overrides})
