"""The tinymath size studies' outcome tables (markdown) from a study's results.csv: for a pilot, as its README's "What
the pilot decides" reads them; for the confirmatory study, the tables its README describes (its primary test is the
scorecard's claim, computed by `course_lib.research.scorecard`).

Run from the project root: python data/results/tinymath_outcome.py STUDY > data/results/STUDY/outcome.md (its
make.sh does). Descriptive only: a pilot decides the confirmatory study's setting, margin and seeds, nothing else.
The setting is the one at which the smaller of the two sizes' levels-1-5 gain is largest, or the cheapest (fewest
steps, then the lower learning rate) within 0.01 of it.
"""

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from course_lib.errors import CourseError  # noqa: E402 (the project root first, for a clean clone)
from course_lib.research.definitions import STUDIES  # noqa: E402
from course_lib.research.studies import (  # noqa: E402
    SharedBaseline,
    load_study,
    paired_difference,
    paired_power,
    per_level_change,
    sd_upper_bound,
    seed_plan,
    seeds_needed,
)

ARMS = ("levels-1-3", "levels-1-5", "random-matched")  # those a study ran, in this order
LEVELS = (1, 2, 3, 4, 5)


def signed(value: float) -> str:
    return f"{value:+.3f}"


def with_interval(row) -> str:
    return f"{signed(row['mean'])} [{signed(row['ci_low'])}, {signed(row['ci_high'])}]"


def setting_of(row) -> str:
    """A point's training setting as a table cell: learning rate and passes."""
    return f"lr {row['learning_rate']:g}, {row['epochs']:g} passes"


def base_table(table: pd.DataFrame) -> list[str]:
    """Each size's base accuracy per level on the test problems (one shared base evaluation per size)."""
    lines = ["| model | base K | " + " | ".join(f"level {level}" for level in LEVELS) + " | levels 1-3 | levels 4-5 |",
             "|---|---|" + "---|" * (len(LEVELS) + 2)]
    for model, group in table.groupby("model", sort=False):
        first = group.iloc[0]
        rates = [first[f"accuracy_before_by_level.test.{level}"] for level in LEVELS]
        lines.append(f"| {model} | {int(first['base_k.test'])} | " + " | ".join(f"{rate:.3f}" for rate in rates)
                     + f" | {sum(rates[:3]) / 3:.3f} | {sum(rates[3:]) / 2:.3f} |")
    return lines


def gain_with_base_error(group: pd.DataFrame) -> dict:
    """Mean gain over seeds with its 95% interval, the shared base evaluation's variance carried in it (the rule
    every study's gains are read by: `studies.SharedBaseline`)."""
    stats = SharedBaseline(group["gain.test"], float(group["base_variance.test"].iloc[0]))
    low, high = stats.tconfint_mean(0.05)
    return {"mean": float(stats.mean), "ci_low": float(low), "ci_high": float(high)}


def gains_table(table: pd.DataFrame, arms) -> list[str]:
    lines = ["| model | setting | steps (" + " / ".join(arms) + ") | " + " | ".join(arms)
             + " | levels-1-3 - levels-1-5 (paired) | its sd |", "|---|---|---|" + "---|" * (len(arms) + 2)]
    for (model, _, _), group in table.groupby(["model", "learning_rate", "epochs"], sort=False):
        steps = " / ".join(str(int(group[group.strategy == arm]["steps"].iloc[0])) for arm in arms)
        cells = [with_interval(gain_with_base_error(group[group.strategy == arm])) for arm in arms]
        difference = paired_difference(group, "levels-1-3", "levels-1-5", by=("model",)).iloc[0]
        wide = group.pivot_table(index="seed", columns="strategy", values="gain.test")
        sd = float((wide["levels-1-3"] - wide["levels-1-5"]).std(ddof=1))
        lines.append(f"| {model} | {setting_of(group.iloc[0])} | {steps} | " + " | ".join(cells)
                     + f" | {with_interval(difference)} | {sd:.3f} |")
    return lines


def level_table(table: pd.DataFrame) -> list[str]:
    change = per_level_change(table, by=("model", "learning_rate", "epochs", "strategy"))
    wide = change.pivot_table(index=["model", "learning_rate", "epochs", "strategy"], columns="level", values="mean",
                              sort=False)
    lines = ["| model | setting | arm | " + " | ".join(f"level {level}" for level in LEVELS) + " |",
             "|---|---|---|" + "---|" * len(LEVELS)]
    for (model, rate, epochs, arm), row in wide.iterrows():
        setting = setting_of({"learning_rate": rate, "epochs": epochs})
        lines.append(f"| {model} | {setting} | {arm} | " + " | ".join(signed(row[level]) for level in LEVELS) + " |")
    return lines


def mechanism_table(table: pd.DataFrame) -> list[str]:
    lines = ["| model | setting | arm | predicted dead-group share | learnable share of steps | selected mean p |",
             "|---|---|---|---|---|---|"]
    means = table.groupby(["model", "learning_rate", "epochs", "strategy"], sort=False)[
        ["predicted_dead_share", "learnable_share_of_steps", "selected_mean_pass_rate"]].mean()
    for (model, rate, epochs, arm), row in means.iterrows():
        lines.append(f"| {model} | {setting_of({'learning_rate': rate, 'epochs': epochs})} | {arm} | "
                     f"{row['predicted_dead_share']:.2f} | {row['learnable_share_of_steps']:.2f} | "
                     f"{row['selected_mean_pass_rate']:.2f} |")
    return lines


def chosen_setting(table: pd.DataFrame) -> tuple:
    """The (learning rate, passes) at which the smaller size's levels-1-5 gain is largest, or the cheapest within
    0.01 of it (fewest passes, then the lower learning rate)."""
    reference = table[table.strategy == "levels-1-5"].groupby(["learning_rate", "epochs", "model"])["gain.test"].mean()
    smaller = reference.groupby(["learning_rate", "epochs"]).min()
    near = [setting for setting, gain in smaller.items() if gain >= smaller.max() - 0.01]
    return min(near, key=lambda setting: (setting[1], setting[0])), smaller


def decision(table: pd.DataFrame) -> list[str]:
    """The README's rules: the setting, then per size the margin (a third of levels-1-5's gain) and the seeds."""
    chosen, smaller = chosen_setting(table)
    lines = ["Smaller of the two sizes' levels-1-5 gain: " + ", ".join(
        f"{gain:+.3f} at {setting_of({'learning_rate': rate, 'epochs': epochs})}"
        for (rate, epochs), gain in smaller.items())
        + f"; **chosen: {setting_of({'learning_rate': chosen[0], 'epochs': chosen[1]})}**.", ""]
    lines += ["| model | levels-1-5 gain | margin (a third) | kept as a test | sd of 1-3 - 1-5 | sd planned with "
              "(90% bound) | seeds for 80% power | pooled sd over settings, its 90% bound (df) | seeds: larger of "
              "the setting's sd and the pooled bound, at least 5 |", "|---|---|---|---|---|---|---|---|---|"]
    at = table[(table.learning_rate == chosen[0]) & (table.epochs == chosen[1])]
    for model, group in at.groupby("model", sort=False):
        gain = float(group[group.strategy == "levels-1-5"]["gain.test"].mean())
        margin = gain / 3
        wide = group.pivot_table(index="seed", columns="strategy", values="gain.test")
        if float((wide["levels-1-3"] - wide["levels-1-5"]).std(ddof=1)) > 0:
            plan = seed_plan(group, "levels-1-3", "levels-1-5", target=max(margin, 1e-6))
        else:  # the two arms' gains agree at every seed: no spread to plan with at this setting
            plan = {"sd of levels-1-3 - levels-1-5": 0.0, "sd planned with": 0.0, "seeds needed": "- (sd 0)"}
        kept = "yes" if gain >= 0.03 else "no (gain under +0.03): described only"
        pooled, df = pooled_sd(table[table.model == model])
        bound = sd_upper_bound(pooled, df + 1)
        planned = max(plan["sd of levels-1-3 - levels-1-5"], bound)
        seeds = max(5, seeds_needed(planned, max(margin, 1e-6))) if planned > 0 else 5
        lines.append(f"| {model} | {gain:+.3f} | {margin:.3f} | {kept} | {plan['sd of levels-1-3 - levels-1-5']:.4f} | "
                     f"{plan['sd planned with']:.4f} | {plan['seeds needed']} | {pooled:.4f}, {bound:.4f} ({df}) | "
                     f"{seeds} |")
    return lines


ONE_SIZE_PILOTS = ("tinymath-l-pilot",)  # pilots of one size at one setting: their README's rules, `one_size_decision`
LEAST_GAIN, FEWEST_SEEDS, MOST_SEEDS = 0.015, 5, 20  # tinymath-l-pilot's README: no study under +0.015; 5 to 20 seeds


def one_size_decision(table: pd.DataFrame) -> list[str]:
    """tinymath-l-pilot's rules: the margin is a third of levels-1-5's mean gain (three decimals), no study under
    `LEAST_GAIN`; the seeds give 80% power at the margin from the 90% upper bound of the primary difference's sd, at
    least `FEWEST_SEEDS` and at most `MOST_SEEDS` (then the power the most seeds give)."""
    lines = ["| model | levels-1-5 gain | margin (a third) | study run | sd of 1-3 - 1-5 (seeds) | sd planned with "
             "(90% bound) | seeds (80% power, 5 to 20) |", "|---|---|---|---|---|---|---|"]
    for model, group in table.groupby("model", sort=False):
        gain = float(group[group.strategy == "levels-1-5"]["gain.test"].mean())
        margin = round(gain / 3, 3)
        wide = group.pivot_table(index="seed", columns="strategy", values="gain.test")
        differences = (wide["levels-1-3"] - wide["levels-1-5"]).dropna()
        sd = float(differences.std(ddof=1))
        planned = sd_upper_bound(sd, len(differences))
        if gain < LEAST_GAIN or margin <= 0:
            run, seeds = f"no (gain under +{LEAST_GAIN})", "-"
        elif planned == 0:
            run, seeds = "yes", f"{FEWEST_SEEDS} (no spread measured)"
        else:
            run = "yes"
            try:
                seeds = str(max(FEWEST_SEEDS, seeds_needed(planned, margin, most=MOST_SEEDS)))
            except CourseError:  # more than the most: the study runs the most and says its power
                seeds = f"{MOST_SEEDS} (power {paired_power(margin, planned, MOST_SEEDS):.2f})"
        lines.append(f"| {model} | {gain:+.3f} | {margin:.3f} | {run} | {sd:.4f} ({len(differences)}) | {planned:.4f} "
                     f"| {seeds} |")
    return lines


def pooled_sd(table: pd.DataFrame) -> tuple[float, int]:
    """The sd of levels-1-3 - levels-1-5 (paired by seed) pooled over one size's settings, and its degrees of
    freedom."""
    squares, df = 0.0, 0
    for _, group in table.groupby(["learning_rate", "epochs"]):
        wide = group.pivot_table(index="seed", columns="strategy", values="gain.test")
        differences = (wide["levels-1-3"] - wide["levels-1-5"]).dropna()
        squares += float(((differences - differences.mean()) ** 2).sum())
        df += len(differences) - 1
    return (squares / df) ** 0.5, df


def secondary_table(table: pd.DataFrame) -> list[str]:
    """levels-1-3 - random-matched per size, paired by seed over the seeds that ran random-matched (the confirmatory
    study's secondary comparison: the same number of problems, from levels 1-3 or from all levels)."""
    lines = ["| model | seeds | levels-1-3 - random-matched (paired) |", "|---|---|---|"]
    for model, group in table.groupby("model", sort=False):
        seeds = set(group[group.strategy == "random-matched"]["seed"])
        both = group[group["seed"].isin(seeds) & group["strategy"].isin(["levels-1-3", "random-matched"])]
        difference = paired_difference(both, "levels-1-3", "random-matched", by=("model",)).iloc[0]
        lines.append(f"| {model} | {len(seeds)} | {with_interval(difference)} |")
    return lines


def main(study: str) -> None:
    table, _ = load_study(study)
    table = table[table.status == "ok"]
    arms = [arm for arm in ARMS if arm in set(table["strategy"])]
    print(f"# {study}: outcome tables (made by ../tinymath_outcome.py from results.csv; {len(table)} points)\n")
    print("## Base accuracy per level (test problems)\n")
    print("\n".join(base_table(table)) + "\n")
    print("## Gains over the base model (means over seeds, 95% t-interval with the base evaluation's error added)\n")
    print("\n".join(gains_table(table, arms)) + "\n")
    print("## Change per level (means over seeds)\n")
    print("\n".join(level_table(table)) + "\n")
    print("## Mechanism (K=8 labels of each seed's pool; means over seeds)\n")
    print("\n".join(mechanism_table(table)) + "\n")
    if STUDIES[study]["kind"] == "pilot":
        print("## What the pilot decides (the README's rules)\n")
        print("\n".join(one_size_decision(table) if study in ONE_SIZE_PILOTS else decision(table)))
    else:
        print("## Secondary: levels 1-3 against as many problems from all levels (95% t-interval over seeds)\n")
        print("\n".join(secondary_table(table)))


if __name__ == "__main__":
    main(sys.argv[1])
