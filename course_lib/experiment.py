"""One grid point of a study: estimate the pool's difficulty, select, train GRPO, evaluate, record.

`run_point(Point(...))` is what `notebooks/experiment.ipynb` runs for every grid point of a sweep; its
record has the columns `RECORD_COLUMNS` declares. The same function serves the tiny world and the
papers' settings (`PROFILE="paper"`: real datasets, chat prompts, each paper's training settings).
Introduced in notebooks/05_hard_examples_win.ipynb.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tempfile
from dataclasses import dataclass

from .errors import check

ARM_HELP = ("easy, medium, hard, random, learnability (10% strategies; add +dynamic for DAPO filtering), "
            "levels-A-B (every problem of levels A..B), random-matched (as many as levels 1-3, from all levels)")


@dataclass(frozen=True)
class Point:
    """Every setting of one grid point; 0 or "" means "the profile's (or the paper's) value"."""

    profile: str = "smoke"  # smoke, tiny or paper
    model: str = ""  # tiny name, model folder or hub id ("": the profile's model)
    task: str = ""  # the training pool's task ("": the profile's), any name `course_lib.problems` knows
    test_task: str = ""  # held-out set ("": the task's test split)
    ood_task: str = ""  # out-of-distribution set ("": the profile's; none: skip)
    pool_size: int = 0  # problems in the training pool (0: the profile's experiment_pool)
    difficulty_k: int = 0  # samples per problem for the base pass rate (0: the profile's K)
    strategy: str = "hard"  # the arm: see ARM_HELP
    budget: float = 0.1  # fraction of the pool (float) or count (int) to train on
    epochs: float = 1.3  # passes over the selected subset (arXiv 2508.14094 made ~1.3)
    steps: int = 0  # optimizer steps (0: derived from epochs)
    group_size: int = 0  # G: completions per prompt (0: 8, or the paper's)
    prompts_per_step: int = 0  # prompts per optimizer step (0: the profile's, or the paper's)
    learning_rate: float = 0.0  # (0: 3e-4 for the course's LoRA and "shaped", or the paper's)
    train_settings: str = ""  # "course", "shaped" (cosine, warmup, decay, clipping), "2508.14094" or "2604.06298"
    model_size: str = ""  # for arXiv 2604.06298's batch sizes ("": read from the model's name)
    answer_format: str = ""  # final-answer format ("": the dataset's own, or the paper's)
    max_new_tokens: int = 0  # completion length limit (0: the profile's)
    eval_problems: int = 0  # held-out problems per split (0: the profile's)
    ood_k: int = 8  # samples per out-of-distribution problem; OOD is scored as pass@ood_k, like AIME
    base_k: int = 0  # samples per held-out problem for the base model, shared by every point (0: as the trained one's)
    use_vllm: bool = False  # vLLM for estimation, training (colocated) and evaluation (GPU only)
    micro_batch_prompts: int = 0  # prompts per forward/backward (0: the whole step; smaller saves memory)
    gradient_checkpointing: bool = False  # recompute activations in the backward pass (less memory)
    check_pass_rates: bool = True  # stop when almost every pass rate is 0 (a prompt/format mismatch)
    seed: int = 0  # seed of selection ties, training and evaluation sampling
    run_dir: str = ""  # folder for the training run ("": a new temporary folder)

    @classmethod
    def from_parameters(cls, parameters: dict) -> Point:
        """A point from notebook parameters (UPPER_CASE names); unknown names are an error."""
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {name.lower(): value for name, value in parameters.items()}
        unknown = sorted(set(values) - fields)
        check(not unknown, f"unknown experiment parameter(s) {[u.upper() for u in unknown]}; "
                           f"use any of {sorted(f.upper() for f in fields)}")
        return cls(**values)


RECORD_COLUMNS = (  # what every point records (nested dicts are per evaluation split: test, ood)
    "model", "task", "strategy", "budget", "train_settings", "n_selected", "steps", "selected_mean_pass_rate",
    "selected_share_mixed", "predicted_dead_share", "learnable_share_of_steps", "accuracy_before", "accuracy_after",
    "gain", "gain_ci", "pass_at_k_before", "pass_at_k_after", "pass_at_k_gain", "eval_k", "base_k", "accuracy_after_by_level",
    "accuracy_before_by_level", "base_variance", "lucky_share", "mean_completion_length", "clipped_ratio",
    "train_seconds", "estimation_completions",
)


def parse_arm(strategy: str) -> dict:
    """'levels-1-3' -> levels (1, 2, 3); 'random+dynamic' -> random with DAPO filtering; a clear error otherwise."""
    from .selection import STRATEGIES

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
    from .profiles import TRAIN_SETTINGS, YADAV_2604_06298, get_profile

    profile = get_profile(point.profile)
    settings = point.train_settings or profile.train_settings
    check(settings in TRAIN_SETTINGS,
          f"train_settings={settings!r} is unknown; use {', '.join(TRAIN_SETTINGS[:-1])} or {TRAIN_SETTINGS[-1]}")
    paper_format = YADAV_2604_06298["answer_format"] if settings == "2604.06298" else ""
    parse_arm(point.strategy)
    return dataclasses.replace(
        point, model=point.model or profile.model, task=point.task or profile.task, train_settings=settings,
        ood_task=point.ood_task or profile.ood_task, pool_size=point.pool_size or profile.experiment_pool,
        difficulty_k=point.difficulty_k or profile.k, max_new_tokens=point.max_new_tokens or profile.max_new_tokens,
        eval_problems=point.eval_problems or profile.eval_problems, answer_format=point.answer_format or paper_format)


def select_arm(table, point: Point) -> list[str]:
    """The ids an arm trains on, from the pool's difficulty table."""
    from .selection import select

    arm = parse_arm(point.strategy)
    if arm["kind"] == "levels":
        return select(table, "levels", 1.0, point.seed, levels=arm["levels"])
    if arm["kind"] == "random-matched":  # as many problems as levels 1-3, drawn from all levels
        return select(table, "random", len(select(table, "levels", 1.0, point.seed, levels=arm["levels"])), point.seed)
    return select(table, arm["kind"], point.budget, point.seed)


def train_config(point: Point, n_selected: int):
    """The GRPO settings of a point: the course's or a paper's, then the point's own overrides."""
    from .profiles import SHAPED_SETTINGS, get_profile, model_size_of, paper_train_config
    from .training import TrainConfig

    profile = get_profile(point.profile)
    overrides = {"group_size": point.group_size, "prompts_per_step": point.prompts_per_step,
                 "learning_rate": point.learning_rate}
    overrides = {key: value for key, value in overrides.items() if value}
    if point.train_settings in ("course", "shaped"):
        shape = SHAPED_SETTINGS if point.train_settings == "shaped" else {}
        base = TrainConfig(prompts_per_step=overrides.pop("prompts_per_step", profile.prompts_per_step),
                           **{**shape, **overrides})
    else:
        size = point.model_size or (model_size_of(point.model) if point.train_settings == "2604.06298" else "1.5B")
        dataset = "math" if point.task.startswith("math") else "gsm8k"
        base = paper_train_config(point.train_settings, dataset=dataset, model_size=size, **overrides)
    steps = point.steps or max(1, math.ceil(point.epochs * n_selected / base.prompts_per_step))
    if profile.max_train_steps:
        steps = min(steps, profile.max_train_steps)
    return dataclasses.replace(base, steps=steps, seed=point.seed, save_steps=max(1, min(steps, 100)),
                               dynamic_sampling=parse_arm(point.strategy)["dynamic"],
                               max_completion_length=point.max_new_tokens, use_vllm=point.use_vllm,
                               micro_batch_prompts=point.micro_batch_prompts,
                               gradient_checkpointing=point.gradient_checkpointing)


def evaluation_sets(point: Point) -> dict:
    """The held-out problem sets of a point by name ('test', and 'ood' unless it is 'none')."""
    from .problems import PROCEDURAL, problems, source_of

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
    elif source_of(point.task) in PROCEDURAL:
        sets["ood"] = problems(point.task, "ood", point.eval_problems, 0)
    return sets


def run_point(point: Point) -> dict:
    """Run one grid point end to end and return its record (columns: RECORD_COLUMNS)."""
    import pandas as pd

    from .difficulty import check_pass_rates, estimate
    from .evaluation import model_for_backend
    from .grpo import informative_share
    from .problems import problems
    from .sampling import release_engines, vllm_available
    from .training import read_jsonl_log, train_grpo

    point = resolve(point)
    check(not point.use_vllm or vllm_available(), "use_vllm=True needs vLLM and a CUDA GPU; set USE_VLLM=False")
    backend = "vllm" if point.use_vllm else "hf"
    pool = problems(point.task, "train", point.pool_size or None, 0, answer_format=point.answer_format or None)
    model, tokenizer = model_for_backend(point.model, backend)
    table = estimate(model, tokenizer, pool, k=point.difficulty_k, temperature=1.0, max_new_tokens=point.max_new_tokens,
                     seed=0, progress=False, backend=backend)
    if point.check_pass_rates:
        check_pass_rates(table, override="CHECK_PASS_RATES=False")
    ids = select_arm(table, point)
    chosen = [p for p in pool if p.id in set(ids)]
    base_p = table.set_index("id").loc[ids, "pass_rate"]
    config = train_config(point, len(chosen))
    del model  # training loads its own copy: never two copies of the weights on the GPU
    release_engines()
    run_dir = point.run_dir or tempfile.mkdtemp(prefix="experiment-run-")
    summary = train_grpo(point.model, chosen, config, run_dir, progress=False)
    ledger = pd.DataFrame(read_jsonl_log(f"{run_dir}/ledger.jsonl"))
    results = _evaluate_splits(point, backend, run_dir)
    return {
        "model": point.model, "task": point.task, "strategy": point.strategy, "budget": point.budget,
        "train_settings": point.train_settings, "n_selected": len(chosen), "steps": config.steps,
        "selected_mean_pass_rate": float(base_p.mean()), "selected_share_mixed": float(((base_p > 0) & (base_p < 1)).mean()),
        "predicted_dead_share": 1 - informative_share(list(base_p), config.group_size),
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
        **training_mechanism(ledger, pd.DataFrame(read_jsonl_log(f"{run_dir}/metrics.jsonl")), config.group_size),
        "train_seconds": summary["seconds"], "estimation_completions": table.attrs["cost"]["completions"],
    }


def training_mechanism(ledger, metrics, group_size: int) -> dict:
    """What happened in training: the share of rewarded completions that were lucky guesses (arith: a right answer
    over a wrong step), and the mean completion length and clipped ratio over the steps."""
    rewarded = float((ledger["reward_mean"] * group_size).sum())
    lucky = float(ledger["lucky"].sum()) / rewarded if "lucky" in ledger and rewarded else None
    means = {name: round(float(metrics[column].mean()), 4) if column in metrics else None
             for name, column in (("mean_completion_length", "completions/mean_length"),
                                  ("clipped_ratio", "completions/clipped_ratio"))}
    return {"lucky_share": None if lucky is None else round(lucky, 4), **means}


def base_variance(per_problem: list[dict]) -> float:
    """Sampling variance of the base model's mean accuracy over these problems (each p from its K samples).

    Every seed's gain is measured against this one baseline, so seed-to-seed spread cannot see its error;
    `course_lib.studies.equivalence_verdict` adds it back.
    """
    terms = [row["pass_rate"] * (1 - row["pass_rate"]) / (row["k"] - 1) for row in per_problem if row["k"] > 1]
    return round(sum(terms) / len(per_problem) ** 2, 8)


def split_summary(record: dict):
    """A point's record as a small table: accuracy before and after, gain and pass@k gain per split."""
    import pandas as pd

    return pd.DataFrame({split: {"before": record["accuracy_before"][split], "after": record["accuracy_after"][split],
                                 "gain": record["gain"][split], "pass@k gain": record["pass_at_k_gain"][split]}
                         for split in record["gain"]})


def _by_level(result: dict) -> dict:
    """Accuracy per level of one evaluation."""
    return {level: block["accuracy"] for level, block in result["by_level"].items()}


def _evaluate_splits(point: Point, backend: str, run_dir) -> dict:
    """Base and trained model on each held-out set, paired over the same problems; one model loaded at a time.

    The base model is evaluated with seed 0 at every point (one cached baseline shared by all arms and seeds), with
    `base_k` samples per problem when that is more: its error, which no seed-to-seed spread sees, shrinks.
    """
    from .evaluation import compare, evaluate, model_for_backend
    from .profiles import get_profile
    from .sampling import release_engines

    profile = get_profile(point.profile)
    sets = evaluation_sets(point)
    k_of = {split: point.ood_k if split == "ood" else profile.eval_k for split in sets}
    evaluations = {}
    for which, source, seed in (("before", point.model, 0), ("after", str(run_dir), point.seed)):
        model, tokenizer = model_for_backend(source, backend)
        for split, held_out in sets.items():
            k = max(k_of[split], point.base_k) if which == "before" else k_of[split]
            evaluations[split, which] = evaluate(model, tokenizer, held_out, k=k, seed=seed,
                                                 max_new_tokens=point.max_new_tokens, pass_k=(1, k_of[split]),
                                                 progress=False, backend=backend)
        del model
        release_engines()
    results = {}
    for split in sets:
        before, after = evaluations[split, "before"], evaluations[split, "after"]
        results[split] = {"before": before, "after": after, "gain": compare(after, before, seed=point.seed),
                          "gain_pass_k": compare(after, before, seed=point.seed, pass_k=k_of[split]), "k": k_of[split]}
    return results
