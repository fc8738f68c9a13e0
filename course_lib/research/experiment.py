"""One grid point of a study: estimate the pool's difficulty, select, train GRPO, evaluate, record.

`run_point(Point(...))` is what `course_lib/templates/experiment.ipynb` runs for every grid point of a sweep; its
record has the columns `RECORD_COLUMNS` declares. The same function serves the tiny world and the
papers' settings (`PROFILE="paper"`: real datasets, chat prompts, each paper's training settings).
Introduced in notebooks/05_hard_examples_win.ipynb.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tempfile
from dataclasses import dataclass

from ..errors import check
from ..problems import PROCEDURAL, SPLITS, problems, source_of
from . import profiles
from .profiles import SHAPED_SETTINGS, TRAIN_SETTINGS, YADAV_2604_06298, get_profile, paper_lora, split_settings

ARM_HELP = ("easy, medium, hard, random, learnability (10% strategies; add +dynamic for DAPO filtering), "
            "levels-A-B (every problem of levels A..B), random-matched (as many as levels 1-3, from all levels)")


def setting(default, help: str):
    """A field of `Point` with its help: the one declaration the experiment template's parameters cell is written
    from (`parameters_cell`)."""
    return dataclasses.field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Point:
    """Every setting of one grid point; 0 or "" means "the profile's (or the paper's) value"."""

    profile: str = setting("smoke", "smoke, tiny or paper")
    model: str = setting("", "tiny name, model folder or hub id (empty: the profile's)")
    task: str = setting("", "training pool: arith, shuffle, tinymath, gsm8k, math, math-numeric, bbh or jsonl:PATH "
                            "(empty: the profile's)")
    test_task: str = setting("", "held-out set (empty: TASK's test split)")
    ood_task: str = setting("", "out-of-distribution set, e.g. aime2025 (empty: the profile's; none: skip)")
    pool_size: int = setting(0, "problems in the training pool (0: the profile's; paper: the whole train split)")
    difficulty_k: int = setting(0, "samples per problem for the base pass rate (0: the profile's K)")
    strategy: str = setting("hard", "easy, medium, hard, random, learnability (+dynamic), levels-1-3, levels-1-5, "
                                    "random-matched")
    budget: float = setting(0.1, "fraction of the pool (float) or count (int) to train on")
    epochs: float = setting(1.3, "passes over the selected subset (arXiv 2508.14094 made ~1.3)")
    steps: int = setting(0, "optimizer steps (0: derived from EPOCHS)")
    group_size: int = setting(0, "G: completions per prompt (0: 8, or the paper's)")
    prompts_per_step: int = setting(0, "prompts per optimizer step (0: the profile's, or the paper's; arXiv 2508.14094"
                                       " used 1)")
    learning_rate: float = setting(0.0, "learning rate (0: 3e-4 for the course's LoRA, or the paper's)")
    max_grad_norm: float = setting(0.0, "gradient clipping threshold (0: the training settings' value)")
    train_settings: str = setting("", "course, shaped (cosine, warmup, decay, clipping), shaped-full (no LoRA), "
                                      "2508.14094 or 2604.06298 (empty: the profile's)")
    model_size: str = setting("", "0.5B, 1.5B or 3B for arXiv 2604.06298's batch sizes (empty: from MODEL's name)")
    answer_format: str = setting("", "hash, boxed, tagged or option (empty: the dataset's own, or the paper's)")
    max_new_tokens: int = setting(0, "completion length limit (0: the profile's)")
    eval_problems: int = setting(0, "held-out problems per split (0: the profile's)")
    eval_k: int = setting(0, "samples per held-out problem for the trained model (0: the profile's)")
    resample_pool: bool = setting(False, "draw the pool and its labels with SEED (each seed its own pool and "
                                         "labelling), not seed 0")
    ood_k: int = setting(8, "samples per out-of-distribution problem; OOD is scored as pass@OOD_K, like AIME")
    base_k: int = setting(0, "samples per held-out problem for the base model, shared by every point (0: as many as "
                             "the trained one's)")
    backend: str = setting("", "hf, vllm (GPU) or auto: vLLM where vLLM and a GPU are present (empty: the profile's)")
    estimate_pool: bool = setting(True, "estimate the pool's pass rates (False for arms that select by level or at "
                                        "random)")
    micro_batch_prompts: int = setting(0, "prompts per forward/backward (0: the whole step; smaller saves memory)")
    gradient_checkpointing: bool = setting(False, "recompute activations in the backward pass (less memory)")
    check_pass_rates: bool = setting(True, "stop early when over 95% of 50+ problems never pass (a prompt or format "
                                           "mismatch)")
    seed: int = setting(0, "seed of selection ties, training and evaluation sampling")
    run_dir: str = setting("", "folder for the training run (empty: a new temporary folder)")

    @classmethod
    def from_parameters(cls, parameters: dict) -> Point:
        """A point from notebook parameters (UPPER_CASE names); unknown names are an error."""
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {name.lower(): value for name, value in parameters.items()}
        unknown = sorted(set(values) - fields)
        check(not unknown, f"unknown experiment parameter(s) {[u.upper() for u in unknown]}; "
                           f"use any of {sorted(f.upper() for f in fields)}")
        return cls(**values)


def parameters_cell() -> str:
    """The experiment template's parameters cell, written from `Point`: `NAME = default  # help` per field."""
    def literal(value) -> str:
        return json.dumps(value) if isinstance(value, str) else repr(value)  # "smoke", as a person writes it

    return "\n".join(f"{field.name.upper()} = {literal(field.default)}  # {field.metadata['help']}"
                     for field in dataclasses.fields(Point))


RECORD_COLUMNS = (  # what every point records (nested dicts are per evaluation split: test, ood)
    "model", "task", "strategy", "budget", "train_settings", "n_selected", "steps", "selected_mean_pass_rate",
    "selected_share_mixed", "predicted_dead_share", "learnable_share_of_steps", "dead_step_share", "clipped_step_share", "accuracy_before", "accuracy_after",
    "gain", "gain_ci", "pass_at_k_before", "pass_at_k_after", "pass_at_k_gain", "eval_k", "base_k", "accuracy_after_by_level",
    "accuracy_before_by_level", "base_variance", "lucky_share", "mean_completion_length", "clipped_ratio",
    "train_seconds", "estimation_completions", "backend", "eval_shape_by_level",
)


# the numbers a point can train with: the lowest allowed (whether it is allowed itself), and the highest
VALUE_RANGES = {"epochs": (0, False, 1_000), "budget": (0, False, math.inf)} | {
    name: (0, True, highest) for name, highest in (("pool_size", 1_000_000), ("eval_problems", 1_000_000),
                                                   ("difficulty_k", 10_000), ("eval_k", 10_000), ("base_k", 10_000),
                                                   ("ood_k", 10_000))}


def check_values(values: dict) -> None:
    """A point's numbers that nothing can train with (EPOCHS=0 or nan, STEPS=-3, LEARNING_RATE=inf, EVAL_K=10**6,
    GROUP_SIZE=1), refused in one line naming the parameter before any work starts; every other number is at
    least 0 (0: the profile's value)."""
    helps = {field.name: field.metadata["help"] for field in dataclasses.fields(Point)}
    for name, value in values.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            low, inclusive, high = VALUE_RANGES.get(name, (0, True, math.inf))
            fine = math.isfinite(value) and (value >= low if inclusive else value > low) and value <= high
            limits = f"{'from' if inclusive else 'above'} {low}" + (f" to {high:,}" if high < math.inf else "")
            check(fine, f"{name.upper()}={value!r} must be a finite number {limits}: {helps.get(name, name)}")
    group = values.get("group_size", 0)
    check(not isinstance(group, int) or group == 0 or group >= 2,
          f"GROUP_SIZE={group!r}: a group needs at least 2 completions ({helps['group_size']})")


def parse_arm(strategy: str) -> dict:
    """'levels-1-3' -> levels (1, 2, 3); 'random+dynamic' -> random with DAPO filtering; a clear error otherwise."""
    from ..selection import STRATEGIES

    dynamic = strategy.endswith("+dynamic")
    name = strategy.removesuffix("+dynamic")
    band = re.fullmatch(r"levels-(\d+)-(\d+)", name)
    if band:
        low, high = int(band.group(1)), int(band.group(2))
        check(low <= high, f"strategy={strategy!r}: the first level must not exceed the last")
        return {"kind": "levels", "levels": tuple(range(low, high + 1)), "dynamic": dynamic}
    if name == "random-matched":
        return {"kind": "random-matched", "levels": (1, 2, 3), "dynamic": dynamic}
    check(name in STRATEGIES and name != "levels", f"strategy={strategy!r} is unknown; use {ARM_HELP}")
    return {"kind": name, "levels": None, "dynamic": dynamic}


def resolve(point: Point) -> Point:
    """The point with every 0/"" setting filled in from its profile and training settings."""
    check_values(dataclasses.asdict(point))
    profile = get_profile(point.profile)
    settings = point.train_settings or profile.train_settings
    check(settings in TRAIN_SETTINGS,
          f"train_settings={settings!r} is unknown; use {', '.join(TRAIN_SETTINGS[:-1])} or {TRAIN_SETTINGS[-1]}")
    from ..sampling import resolve_backend

    paper_format = YADAV_2604_06298["answer_format"] if settings == "2604.06298" else ""
    arm = parse_arm(point.strategy)
    check(point.estimate_pool or not needs_pass_rates(arm),
          f"strategy={point.strategy!r} selects by pass rate; set ESTIMATE_POOL=True")
    whole = isinstance(point.budget, float) and point.budget == 1.0  # BUDGET=1 is a count: one problem
    check(arm["kind"] not in ("levels", "random-matched") or whole,
          f"BUDGET={point.budget!r} would be ignored: strategy={point.strategy!r} trains on a whole level band (or as "
          "many problems as levels 1-3 hold), and the record would show a budget it never used; set BUDGET=1.0")
    return dataclasses.replace(
        point, model=point.model or profile.model, task=point.task or profile.task, train_settings=settings,
        ood_task=point.ood_task or profile.ood_task, pool_size=point.pool_size or profile.experiment_pool,
        difficulty_k=point.difficulty_k or profile.k, max_new_tokens=point.max_new_tokens or profile.max_new_tokens,
        eval_problems=point.eval_problems or profile.eval_problems, answer_format=point.answer_format or paper_format,
        backend=resolve_backend(point.backend or profile.backend))


def needs_pass_rates(arm: dict) -> bool:
    """Whether an arm selects by the base model's pass rates (levels and random arms do not)."""
    return arm["kind"] in ("easy", "medium", "hard", "learnability")


def pool_table(pool):
    """A pool's ids and levels as a table without pass rates (for arms that need no estimation)."""
    import pandas as pd

    return pd.DataFrame({"id": [p.id for p in pool], "level": [p.level for p in pool], "pass_rate": float("nan")})


def select_arm(table, point: Point) -> list[str]:
    """The ids an arm trains on, from the pool's difficulty table."""
    from ..selection import select

    arm = parse_arm(point.strategy)
    if arm["kind"] == "levels":
        return select(table, "levels", 1.0, point.seed, levels=arm["levels"])
    if arm["kind"] == "random-matched":  # as many problems as levels 1-3, drawn from all levels
        return select(table, "random", len(select(table, "levels", 1.0, point.seed, levels=arm["levels"])), point.seed)
    return select(table, arm["kind"], point.budget, point.seed)


def train_config(point: Point, n_selected: int):
    """The GRPO settings of a point (a CourseConfig): the course's or a paper's, then the point's own overrides
    (the point's GROUP_SIZE is num_generations, its STEPS max_steps). Its LoRA: `train_lora`."""
    from ..training import CourseConfig

    profile = profiles.get_profile(point.profile)
    overrides = {"num_generations": point.group_size, "prompts_per_step": point.prompts_per_step,
                 "learning_rate": point.learning_rate, "max_grad_norm": point.max_grad_norm}
    overrides = {key: value for key, value in overrides.items() if value}
    check(not point.model_size or re.fullmatch(r"\d+(\.\d+)?B", point.model_size),  # the batch (2604.06298), the cost
          f"MODEL_SIZE={point.model_size!r} must name a model size like 1.5B (arXiv 2604.06298's batch sizes and the "
          "cost model's throughput are read by it), or be left unset")
    if point.train_settings in ("course", "shaped", "shaped-full"):
        shape = profiles.split_settings(profiles.SHAPED_SETTINGS)[0] if point.train_settings != "course" else {}
        base = CourseConfig(prompts_per_step=overrides.pop("prompts_per_step", profile.prompts_per_step),
                            **{**shape, **overrides})
    else:
        size = point.model_size or (profiles.model_size_of(point.model) if point.train_settings == "2604.06298" else "1.5B")
        dataset = profiles.paper_dataset_of(point.task) if point.train_settings == "2604.06298" else "gsm8k"
        base = profiles.paper_train_config(point.train_settings, dataset=dataset, model_size=size, **overrides)
    if point.train_settings in ("2508.14094", "2604.06298"):  # each paper's own step count (profiles.paper_steps)
        steps = point.steps or profiles.paper_steps(point.train_settings, n_selected, base.prompts_per_step,
                                                     point.epochs)
    else:
        steps = point.steps or max(1, math.ceil(point.epochs * n_selected / base.prompts_per_step))
    if profile.max_train_steps:
        steps = min(steps, profile.max_train_steps)
    return dataclasses.replace(base, max_steps=steps, seed=point.seed, save_steps=max(1, min(steps, 100)),
                               dynamic_sampling=parse_arm(point.strategy)["dynamic"],
                               max_completion_length=point.max_new_tokens, use_vllm=point.backend == "vllm",
                               micro_batch_prompts=point.micro_batch_prompts,
                               activation_checkpointing=point.gradient_checkpointing)


def train_lora(point: Point):
    """The LoRA of a point (a `peft.LoraConfig`): the course's, "shaped" (alpha = r = 16) or the paper's; None for
    "shaped-full" (every weight trained)."""
    from ..training import course_lora

    if point.train_settings == "shaped-full":
        return None
    if point.train_settings in ("course", "shaped"):
        return course_lora(**(split_settings(SHAPED_SETTINGS)[1] if point.train_settings == "shaped" else {}))
    return paper_lora(point.train_settings)


def evaluation_sets(point: Point) -> dict:
    """The held-out problem sets of a point by name ('test', and 'ood' unless it is 'none')."""
    fmt = point.answer_format or None
    test_task = point.test_task or point.task
    procedural = source_of(test_task) in PROCEDURAL
    n_test = point.eval_problems if procedural else min(point.eval_problems, len(problems(test_task, "test")))
    sets = {"test": problems(test_task, "test", n_test, 0, answer_format=fmt)}
    if point.ood_task == "none":
        return sets
    if point.ood_task:
        ood = problems(point.ood_task, "test", None, 0, answer_format=fmt)
        sets["ood"] = ood[: point.eval_problems]
    elif source_of(point.task) in PROCEDURAL and "ood" in SPLITS[source_of(point.task)]:  # tinymath has none
        sets["ood"] = problems(point.task, "ood", point.eval_problems, 0, answer_format=fmt)  # asked as trained
    return sets


def training_pool(point: Point) -> tuple[list, int]:
    """A resolved point's training pool and the seed that draws it and samples its labels (0, or the point's own
    seed with resample_pool)."""
    seed = point.seed if point.resample_pool else 0
    return problems(point.task, "train", point.pool_size or None, seed, answer_format=point.answer_format or None), seed


def run_point(point: Point) -> dict:
    """Run one grid point end to end and return its record (columns: RECORD_COLUMNS)."""
    import pandas as pd

    from ..difficulty import check_pass_rates
    from ..grpo import informative_share
    from ..training import read_jsonl_log, train_grpo
    from ..training.phases import in_phase

    point = resolve(point)
    isolated = point.backend == "vllm"  # each phase in its own process: the next one finds the GPU memory free
    pool, pool_seed = training_pool(point)
    table = in_phase(estimate_pool, point, pool, pool_seed, isolated=isolated) if point.estimate_pool else pool_table(pool)
    if point.estimate_pool and point.check_pass_rates:
        check_pass_rates(table, override="CHECK_PASS_RATES=False")
    ids = select_arm(table, point)
    chosen = [p for p in pool if p.id in set(ids)]
    base_p = table.set_index("id").loc[ids, "pass_rate"]
    config = train_config(point, len(chosen))
    run_dir = point.run_dir or tempfile.mkdtemp(prefix="experiment-run-")
    summary = in_phase(train_grpo, point.model, chosen, config, run_dir, peft_config=train_lora(point), progress=False,
                       isolated=isolated)
    ledger = pd.DataFrame(read_jsonl_log(f"{run_dir}/ledger.jsonl"))
    results = _evaluate_splits(point, run_dir)
    estimated = point.estimate_pool
    return {
        "model": point.model, "task": point.task, "strategy": point.strategy, "budget": point.budget,
        "train_settings": point.train_settings, "n_selected": len(chosen), "steps": config.max_steps,
        "selected_mean_pass_rate": float(base_p.mean()) if estimated else None,
        "selected_share_mixed": float(((base_p > 0) & (base_p < 1)).mean()) if estimated else None,
        "predicted_dead_share": 1 - informative_share(list(base_p), config.num_generations) if estimated else None,
        "learnable_share_of_steps": float((ledger.reward_std > 0).mean()),
        "accuracy_before": {s: r["before"]["overall"]["accuracy"] for s, r in results.items()},
        "accuracy_after": {s: r["after"]["overall"]["accuracy"] for s, r in results.items()},
        "gain": {s: r["gain"]["mean_difference"] for s, r in results.items()},
        "gain_ci": {s: [r["gain"]["ci_low"], r["gain"]["ci_high"]] for s, r in results.items()},
        "pass_at_k_before": {s: r["before"]["overall"][f"pass@{r['k']}"] for s, r in results.items()},
        "pass_at_k_after": {s: r["after"]["overall"][f"pass@{r['k']}"] for s, r in results.items()},
        "pass_at_k_gain": {s: r["gain_pass_k"]["mean_difference"] for s, r in results.items()},
        "eval_k": {s: r["k"] for s, r in results.items()},
        "base_k": {s: r["before"]["k"] for s, r in results.items()},
        "accuracy_after_by_level": {s: _by_level(r["after"]) for s, r in results.items()},
        "accuracy_before_by_level": {s: _by_level(r["before"]) for s, r in results.items()},
        "base_variance": {s: base_variance(r["before"]["per_problem"]) for s, r in results.items()},
        "eval_shape_by_level": {s: {which: _shape_by_level(r[which]) for which in ("before", "after")}
                                for s, r in results.items()},
        **training_mechanism(ledger, pd.DataFrame(read_jsonl_log(f"{run_dir}/metrics.jsonl")), config),
        "train_seconds": summary["seconds"], "backend": point.backend,
        "estimation_completions": table.attrs["cost"]["completions"] if estimated else 0,
    }


def estimate_pool(point: Point, pool, seed: int = 0):
    """The base model's difficulty table of the pool (one phase: its engine, if any, is gone when it returns)."""
    from ..difficulty import estimate
    from ..evaluation import model_for_backend

    model, tokenizer = model_for_backend(point.model, point.backend)
    return estimate(model, tokenizer, pool, k=point.difficulty_k, temperature=1.0, max_new_tokens=point.max_new_tokens,
                    seed=seed, progress=False, backend=point.backend)


def training_mechanism(ledger, metrics, config) -> dict:
    """What happened in training: the share of optimizer steps with no live group (a zero policy gradient) and of
    steps whose gradient was clipped, the share of rewarded completions that were lucky guesses (arith: a right
    answer over a wrong step), and the mean completion length and clipped-completion ratio over the steps."""
    # right answers: counted in the ledger; in an older one (no format reward then) the rewards' sum
    right = float(ledger["right"].sum() if "right" in ledger else (ledger["reward_mean"] * config.num_generations).sum())
    lucky = float(ledger["lucky"].sum()) / right if "lucky" in ledger and right else None
    means = {name: round(float(metrics[column].mean()), 4) if column in metrics else None
             for name, column in (("mean_completion_length", "completions/mean_length"),
                                  ("clipped_ratio", "completions/clipped_ratio"))}
    return {"lucky_share": None if lucky is None else round(lucky, 4), **step_shares(ledger, metrics, config), **means}


def step_shares(ledger, metrics, config) -> dict:
    """Per optimizer step: the share with no live group (every group's rewards equal: zero policy gradient) and the
    share whose gradient norm exceeded `max_grad_norm` (clipped; None without clipping or a logged norm).

    >>> import pandas as pd
    >>> ledger = pd.DataFrame({"step": [1, 1, 2, 2], "reward_std": [0.0, 0.5, 0.0, 0.0]})
    >>> metrics = pd.DataFrame({"step": [1, 2], "grad_norm": [0.7, 0.0]})
    >>> from course_lib.training import CourseConfig
    >>> step_shares(ledger, metrics, CourseConfig(max_grad_norm=0.5))
    {'dead_step_share': 0.5, 'clipped_step_share': 0.5}
    """
    live = ledger.groupby("step")["reward_std"].max() > 0
    clipped = None
    if config.max_grad_norm > 0 and "grad_norm" in metrics:
        clipped = round(float((metrics["grad_norm"] > config.max_grad_norm).mean()), 4)
    return {"dead_step_share": round(float(1 - live.mean()), 4), "clipped_step_share": clipped}


def base_variance(per_problem: list[dict]) -> float:
    """Sampling variance of the base model's mean accuracy over these problems (each p from its K samples).

    Every seed's gain is measured against this one baseline, so seed-to-seed spread cannot see its error;
    `course_lib.research.studies.equivalence_verdict` adds it back.
    """
    terms = [row["pass_rate"] * (1 - row["pass_rate"]) / (row["k"] - 1) for row in per_problem if row["k"] > 1]
    return round(sum(terms) / len(per_problem) ** 2, 8)


def split_summary(record: dict):
    """A point's record as a small table: accuracy before and after, gain and pass@k gain per split."""
    import pandas as pd

    return pd.DataFrame({split: {"before": record["accuracy_before"][split], "after": record["accuracy_after"][split],
                                 "gain": record["gain"][split], "pass@k gain": record["pass_at_k_gain"][split]}
                         for split in record["gain"]})


def _shape_by_level(result: dict) -> dict:
    """Mean completion length and truncated share of one evaluation, overall and per level."""
    blocks = {"overall": result["overall"], **result["by_level"]}
    return {name: {key: block[key] for key in ("mean_length", "truncated_share") if key in block}
            for name, block in blocks.items()}


def _by_level(result: dict) -> dict:
    """Accuracy per level of one evaluation."""
    return {level: block["accuracy"] for level, block in result["by_level"].items()}


def _evaluate_splits(point: Point, run_dir) -> dict:
    """Base and trained model on each held-out set, paired over the same problems; one model loaded at a time.

    The base model is evaluated with seed 0 at every point (one cached baseline shared by all arms and seeds), with
    `base_k` samples per problem when that is more: its error, which no seed-to-seed spread sees, shrinks.
    """
    from ..evaluation import compare
    from ..training.phases import in_phase

    profile = get_profile(point.profile)
    sets = evaluation_sets(point)
    k_of = {split: point.ood_k if split == "ood" else point.eval_k or profile.eval_k for split in sets}
    evaluations = {}
    for which, source, seed in (("before", point.model, 0), ("after", str(run_dir), point.seed)):
        ks = {split: max(k_of[split], point.base_k) if which == "before" else k_of[split] for split in sets}
        found = in_phase(evaluate_model, point, source, seed, sets, ks, k_of, isolated=point.backend == "vllm")
        evaluations.update({(split, which): result for split, result in found.items()})
    results = {}
    for split in sets:
        before, after = evaluations[split, "before"], evaluations[split, "after"]
        results[split] = {"before": before, "after": after, "gain": compare(after, before, seed=point.seed),
                          "gain_pass_k": compare(after, before, seed=point.seed, pass_k=k_of[split]), "k": k_of[split]}
    return results


def evaluate_model(point: Point, source: str, seed: int, sets: dict, ks: dict, pass_ks: dict) -> dict:
    """One model (base, or a run folder) on every held-out set: one phase, one engine."""
    from ..evaluation import evaluate, model_for_backend

    model, tokenizer = model_for_backend(source, point.backend)
    return {split: evaluate(model, tokenizer, held_out, k=ks[split], seed=seed, max_new_tokens=point.max_new_tokens,
                            pass_k=(1, pass_ks[split]), progress=False, backend=point.backend)
            for split, held_out in sets.items()}
