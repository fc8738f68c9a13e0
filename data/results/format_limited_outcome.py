"""format-limited-pilot's outcome tables (markdown) from its results.csv, as its README's "What it decides" reads
them.

Run from the project root: python data/results/format_limited_outcome.py > data/results/format-limited-pilot/outcome.md
(its make.sh does). Descriptive only: the pilot decides study (b)'s learning rate, step count, margin and seeds.
The rules (written in the pilot's README before it ran): the setting at which random's mean gain is largest, the
shorter run when the longer gains less than 0.01 more; the margin a third of random's gain there; the seeds from the
larger of the sd of hard - random at that setting and the 90% upper bound of that sd pooled over the four settings,
for 80% power to detect a difference of the margin, at least 5 and at most 8.
"""

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from course_lib.errors import CourseError  # noqa: E402 (the project root first, for a run from a clean clone)
from course_lib.research.studies import load_study, paired_power, sd_upper_bound, seeds_needed  # noqa: E402

STUDY = "format-limited-pilot"
SETTING = ["learning_rate", "steps"]
LONG_LEVELS = (3, 4, 5)  # the levels whose solutions run past 96 tokens when written the long way
FEWEST_SEEDS, MOST_SEEDS = 5, 8


def setting_of(rate: float, steps: int) -> str:
    return f"lr {rate:g}, {int(steps):,} steps"


def per_seed(group: pd.DataFrame) -> pd.DataFrame:
    """One row per seed, a column per arm's gain, and hard - random."""
    wide = group.pivot_table(index="seed", columns="strategy", values="gain.test")
    return wide.assign(difference=wide["hard"] - wide["random"])


def gains_table(table: pd.DataFrame) -> list[str]:
    lines = ["| setting | random, per seed | random, mean | hard, per seed | hard, mean | hard - random, per seed | "
             "its sd |", "|---|---|---|---|---|---|---|"]
    for (rate, steps), group in table.groupby(SETTING):
        wide = per_seed(group)
        cells = [", ".join(f"{value:+.3f}" for value in wide[column]) for column in ("random", "hard", "difference")]
        lines.append(f"| {setting_of(rate, steps)} | {cells[0]} | {wide['random'].mean():+.3f} | {cells[1]} | "
                     f"{wide['hard'].mean():+.3f} | {cells[2]} | {wide['difference'].std(ddof=1):.4f} |")
    return lines


def long_levels(group: pd.DataFrame, column: str) -> float:
    """A measure's mean over levels 3-5 and over seeds; `column` has a {level} slot."""
    return float(sum(group[column.format(level=level)] for level in LONG_LEVELS).mean() / len(LONG_LEVELS))


def mechanism_table(table: pd.DataFrame) -> list[str]:
    """Per setting and arm, means over seeds: dead and clipped steps, and at levels 3-5 the share of evaluation
    samples cut off at the limit and the accuracy, before and after."""
    lines = ["| setting | arm | steps with no live group | steps clipped | levels 3-5 cut off: base -> trained | "
             "levels 3-5 accuracy: base -> trained |", "|---|---|---|---|---|---|"]
    for (rate, steps, arm), group in table.groupby([*SETTING, "strategy"]):
        cut = [long_levels(group, f"eval_shape_by_level.test.{when}.{{level}}.truncated_share")
               for when in ("before", "after")]
        accuracy = [long_levels(group, f"accuracy_{when}_by_level.test.{{level}}") for when in ("before", "after")]
        lines.append(f"| {setting_of(rate, steps)} | {arm} | {group['dead_step_share'].mean():.3f} | "
                     f"{group['clipped_step_share'].mean():.3f} | {cut[0]:.3f} -> {cut[1]:.3f} | "
                     f"{accuracy[0]:.3f} -> {accuracy[1]:.3f} |")
    return lines


def chosen_setting(table: pd.DataFrame) -> tuple:
    """Where random's mean gain is largest; the shorter run at that learning rate when the longer gains less than
    0.01 more."""
    random_gain = table[table.strategy == "random"].groupby(SETTING)["gain.test"].mean()
    rate, steps = random_gain.idxmax()
    shorter = random_gain[rate][random_gain[rate].index < steps]
    if len(shorter) and random_gain[(rate, steps)] - shorter.iloc[-1] < 0.01:
        steps = shorter.index[-1]
    return (rate, steps), random_gain


def pooled_sd(table: pd.DataFrame) -> tuple[float, int]:
    """The sd of hard - random (paired by seed) pooled over the settings, and its degrees of freedom."""
    squares, df = 0.0, 0
    for _, group in table.groupby(SETTING):
        differences = per_seed(group)["difference"].dropna()
        squares += float(((differences - differences.mean()) ** 2).sum())
        df += len(differences) - 1
    return (squares / df) ** 0.5, df


def decision(table: pd.DataFrame) -> list[str]:
    (rate, steps), random_gain = chosen_setting(table)
    gain = float(random_gain[(rate, steps)])
    margin = gain / 3
    sd_here = float(per_seed(table[(table.learning_rate == rate) & (table.steps == steps)])["difference"].std(ddof=1))
    pooled, df = pooled_sd(table)
    bound = sd_upper_bound(pooled, df + 1)
    planned = max(sd_here, bound)
    try:
        needed = seeds_needed(planned, margin)
    except CourseError:  # more than seeds_needed's ceiling
        needed = None
    seeds = min(MOST_SEEDS, max(FEWEST_SEEDS, needed or MOST_SEEDS))
    power = paired_power(margin, planned, seeds)
    lines = ["Random's mean gain: " + ", ".join(f"{value:+.3f} at {setting_of(*key)}" for key, value in
                                                random_gain.items()) + f"; **chosen: {setting_of(rate, steps)}**.", "",
             "| | value |", "|---|---|",
             f"| random's mean gain at the chosen setting | {gain:+.4f} |",
             f"| margin (a third of it) | {margin:.4f} |",
             f"| sd of hard - random at the chosen setting (2 seeds) | {sd_here:.4f} |",
             f"| sd of hard - random pooled over the 4 settings ({df} df), its 90% upper bound | {pooled:.4f}, "
             f"{bound:.4f} |",
             f"| sd planned with (the larger) | {planned:.4f} |",
             f"| seeds for 80% power to detect the margin | {needed if needed is not None else 'over 1,000'} |",
             f"| **seeds (at least {FEWEST_SEEDS}, at most {MOST_SEEDS})** | **{seeds}** |",
             f"| power of {seeds} seeds at the planned sd | {power:.2f} |"]
    return lines


def main() -> None:
    table, _ = load_study(STUDY)
    table = table[table.status == "ok"]
    print(f"# {STUDY}: outcome tables (made by ../format_limited_outcome.py from results.csv; {len(table)} points)\n")
    print(f"Base accuracy on the test problems (K={int(table['base_k.test'].iloc[0])}): "
          f"{table['accuracy_before.test'].iloc[0]:.3f}.\n")
    print("## Gains over the base model\n")
    print("\n".join(gains_table(table)) + "\n")
    print("## Mechanism (means over seeds; described, not tested)\n")
    print("\n".join(mechanism_table(table)) + "\n")
    print("## What the pilot decides (the README's rules)\n")
    print("\n".join(decision(table)))


if __name__ == "__main__":
    main()
