"""The cross-dataset pilot's outcome tables (markdown) from its results.csv, as its README's "What the pilot decides"
reads them: GRPO on `arith` or on `tinymath`, evaluated on tinymath's numeric-answer subset (`tinymath-numeric`).

Run from the project root: python data/results/cross_outcome.py STUDY > data/results/STUDY/outcome.md (its make.sh
does). Descriptive only: a pilot decides the confirmatory study's margin and seeds, nothing else.
"""

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tinymath_outcome import LEVELS, base_table, gain_with_base_error, signed, with_interval  # noqa: E402

from course_lib.research.definitions import read_studies  # noqa: E402
from course_lib.research.studies import (  # noqa: E402 (the project root first, for a run from a clean clone)
    load_study,
    paired_difference,
    per_level_change,
    sd_upper_bound,
    seeds_needed,
)

FIRST, REFERENCE = "arith levels-1-5", "tinymath levels-1-5"  # the claim's two arms: its arm and its reference arm
ARMS = (FIRST, "arith levels-1-3", REFERENCE, "tinymath levels-1-3")
PAIRS = ((FIRST, REFERENCE), (FIRST, "tinymath levels-1-3"))  # the primary pair first
MOST_SEEDS = 12  # the confirmatory study's time budget: more seeds than this are not run (its README says the power)


def with_arms(table: pd.DataFrame) -> pd.DataFrame:
    """The table with each point's arm (training task and level band) as its `strategy`, for the paired helpers."""
    return table.assign(strategy=table["task"] + " " + table["strategy"])


def gains_table(table: pd.DataFrame) -> list[str]:
    lines = ["| model | arm | steps | gain on tinymath-numeric |", "|---|---|---|---|"]
    for (model, arm), group in table.groupby(["model", "strategy"], sort=False):
        lines.append(f"| {model} | {arm} | {int(group['steps'].iloc[0])} | "
                     f"{with_interval(gain_with_base_error(group))} |")
    return lines


def differences_table(table: pd.DataFrame) -> list[str]:
    lines = ["| model | difference (paired by seed) | mean [95% t-interval] | its sd |", "|---|---|---|---|"]
    for model, group in table.groupby("model", sort=False):
        for first, second in PAIRS:
            difference = paired_difference(group, first, second, by=("model",)).iloc[0]
            lines.append(f"| {model} | {first} - {second} | {with_interval(difference)} | {sd_of(group, first, second):.4f} |")
    return lines


def sd_of(group: pd.DataFrame, first: str, second: str) -> float:
    wide = group.pivot_table(index="seed", columns="strategy", values="gain.test")
    return float((wide[first] - wide[second]).std(ddof=1))


def level_table(table: pd.DataFrame) -> list[str]:
    change = per_level_change(table, by=("model", "strategy"))
    wide = change.pivot_table(index=["model", "strategy"], columns="level", values="mean", sort=False)
    lines = ["| model | arm | " + " | ".join(f"level {level}" for level in LEVELS) + " |",
             "|---|---|" + "---|" * len(LEVELS)]
    for (model, arm), row in wide.iterrows():
        lines.append(f"| {model} | {arm} | " + " | ".join(signed(row[level]) for level in LEVELS) + " |")
    return lines


def mechanism_table(table: pd.DataFrame) -> list[str]:
    lines = ["| model | arm | learnable share of steps | selected mean p |", "|---|---|---|---|"]
    means = table.groupby(["model", "strategy"], sort=False)[["learnable_share_of_steps",
                                                               "selected_mean_pass_rate"]].mean()
    for (model, arm), row in means.iterrows():
        lines.append(f"| {model} | {arm} | {row['learnable_share_of_steps']:.2f} | "
                     f"{row['selected_mean_pass_rate']:.2f} |")
    return lines


def decision(table: pd.DataFrame) -> list[str]:
    """The README's rules, per size: the margin (a third of the reference arm's gain, at least 0.005), the seeds (80%
    power at the margin, planned with the 90% upper bound of the primary difference's sd; at least 5, at most
    MOST_SEEDS), and whether any arm learned enough on the numeric subset (+0.01) for a test to mean anything."""
    lines = ["| model | arith levels-1-5 gain | tinymath levels-1-5 gain | margin | sd of the primary difference, its "
             "90% bound | seeds for 80% power | seeds to run | an arm gained +0.01 or more |", "|---|---|---|---|---|---|---|---|"]
    for model, group in table.groupby("model", sort=False):
        gains = {arm: float(group[group.strategy == arm]["gain.test"].mean()) for arm in (FIRST, REFERENCE)}
        margin = max(round(gains[REFERENCE] / 3, 3), 0.005)
        sd = sd_of(group, FIRST, REFERENCE)
        bound = sd_upper_bound(sd, int(group[group.strategy == FIRST]["seed"].nunique()))
        needed = seeds_needed(bound, margin, most=1000) if bound > 0 else 5
        learned = "yes" if max(gains.values()) >= 0.01 else "no: no confirmatory test for this size"
        lines.append(f"| {model} | {signed(gains[FIRST])} | {signed(gains[REFERENCE])} | {margin:.3f} | {sd:.4f}, "
                     f"{bound:.4f} | {needed} | {min(max(needed, 5), MOST_SEEDS)} | {learned} |")
    return lines


def main(study: str) -> None:
    table, _ = load_study(study)
    table = with_arms(table[table.status == "ok"])
    print(f"# {study}: outcome tables (made by ../cross_outcome.py from results.csv; {len(table)} points)\n")
    print("## Base accuracy per level (tinymath-numeric test problems)\n")
    print("\n".join(base_table(table)) + "\n")
    print("## Gains over the base model on tinymath-numeric (means over seeds, 95% t-interval with the base "
          "evaluation's error added)\n")
    print("\n".join(gains_table(table)) + "\n")
    print("## Paired differences\n")
    print("\n".join(differences_table(table)) + "\n")
    print("## Change per level of tinymath-numeric (means over seeds)\n")
    print("\n".join(level_table(table)) + "\n")
    print("## Mechanism (means over seeds)\n")
    print("\n".join(mechanism_table(table)) + "\n")
    if read_studies()[study]["kind"] == "pilot":  # a confirmatory study's tests are its README's, read by its analysis
        print("## What the pilot decides (the README's rules)\n")
        print("\n".join(decision(table)))


if __name__ == "__main__":
    main(sys.argv[1])
