"""course_lib: the thin helper library of the GRPO training-data difficulty course.

A notebook imports what it uses in one statement, `from course_lib import load_model, problems, sample`; each name
below is loaded from its module when first used, so `import course_lib` stays light (docs/design.md: where things are).
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from importlib import import_module

from .classroom.quiet import filter_library_deprecations
from .errors import CourseError
from .problems import problems  # bound here: the function, not its module of the same name
from .tasks import Problem

filter_library_deprecations()

PUBLIC = {  # module -> the names the notebooks use from it (the lesson's modules first, then the plumbing)
    "tasks": ("generate", "SHUFFLE_LEVELS"),
    "prompts": ("model_input", "prompt_ids", "prompt_text"),
    "answers": ("extract_hash_answer",),
    "rewards": ("correctness_reward", "format_reward"),
    "models": ("load_model", "read_manifest"),
    "sampling": ("sample",),
    "difficulty": ("difficulty_tables", "estimate", "pass_rates_at", "wilson_interval"),
    "selection": ("charge_estimation", "pass_rate_counts", "select", "selection_summary", "STRATEGIES"),
    "grpo": ("completion_logprobs", "dead_group_probability", "group_advantages", "grpo_loss", "informative_share"),
    "training": ("CourseConfig", "course_lora", "load_trained", "read_jsonl_log", "train_grpo", "trl_loss_on_fixed_batch"),
    "evaluation": ("compare", "evaluate", "paired_bootstrap", "summarize_accuracy"),
    "classroom.runtime": ("record", "setup"),
    "classroom.opening": ("fresh_folder", "start"),
    "classroom.plots": (
        "advantage_bars_chart", "advantage_chart", "advantage_table", "before_after_chart", "dead_group_chart",
        "dead_share_grid_chart", "doubling_text", "effect_sizes_chart", "effect_sizes_table", "interval_width_chart",
        "interval_width_table", "learnability_chart", "learnability_table", "learnable_share_chart",
        "learnable_vs_gain_chart", "level_change_chart", "pass_and_format_chart", "pass_rate_bars",
        "pass_rate_by_level_chart",
        "ranking_stability_chart", "runs_gain_chart", "seed_spread_chart", "selection_histogram_chart",
        "smoothed_curve_chart", "step_measures_chart", "strategy_gain_chart", "use_offline_renderer"),
    "classroom.widgets": ("budget_explorer", "dead_group_widget", "explorer_title", "explorer_view", "quiz",
                          "quiz_packed", "show"),
    "classroom.exercises": ("check_answer",),
    "research": ("sweep",),  # the module: sweep.run, sweep.parse_overrides
    "research.profiles": ("get_profile",),
    "research.calibration": ("pass_rates", "summarize"),
    "research.studies": (
        "equivalence_verdict", "gain_by_strategy", "gain_verdicts", "holm_verdicts", "interval_text", "load_study",
        "MARGIN", "mechanism_table", "paired_difference", "paired_verdicts", "per_level_change", "per_level_verdicts",
        "rank_correlation", "RESULTS_DIR", "sd_upper_bound", "seed_plan", "seeds_needed", "selected_pass_rates",
        "study_folder",
        "t_interval", "beats_or_loses", "with_gain_beyond_chance"),
    "research.findings": ("bullets", "correlation", "finding", "findings", "in_points", "takeaway"),
    "research.scorecard": ("claim_row", "decision_table", "findings_by_reach", "scorecard", "study_margins"),
}
HOME = {name: module for module, names in PUBLIC.items() for name in names}  # name -> its module

__all__ = ["CourseError", "Problem", "problems", *HOME]
__version__ = "0.1.0"


def __getattr__(name: str):
    """A public name, loaded from its module on first use (a submodule, such as `sweep`, is itself the name)."""
    if name not in HOME:
        raise AttributeError(f"module 'course_lib' has no attribute {name!r}")
    home = import_module(f".{HOME[name]}", __name__)
    value = getattr(home, name) if hasattr(home, name) else import_module(f".{HOME[name]}.{name}", __name__)
    globals()[name] = value  # found once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(HOME))
