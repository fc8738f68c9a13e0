"""The pilot's outcome tables (markdown) from its results.csv, as its README's "What the pilot decides" reads them.

Run from the project root: python data/results/tinymath-size-pilot/outcome.py > data/results/tinymath-size-pilot/outcome.md
(make.sh does). Descriptive only: a pilot decides the confirmatory study's length, margin and seeds, nothing else.
"""

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from course_lib.research.studies import (  # noqa: E402 (the project root first, for a run from a clean clone)
    load_study,
    paired_difference,
    per_level_change,
    seed_plan,
    t_interval,
)

STUDY = "tinymath-size-pilot"
ARMS = ("levels-1-3", "levels-1-5", "random-matched")
LEVELS = (1, 2, 3, 4, 5)


def signed(value: float) -> str:
    return f"{value:+.3f}"


def with_interval(row) -> str:
    return f"{signed(row['mean'])} [{signed(row['ci_low'])}, {signed(row['ci_high'])}]"


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
    """Mean gain over seeds with its 95% t-interval, widened by the shared base evaluation's variance."""
    interval = t_interval(group["gain.test"])
    base_sd = float(group["base_variance.test"].iloc[0]) ** 0.5
    half = ((interval["ci_high"] - interval["mean"]) ** 2 + (1.96 * base_sd) ** 2) ** 0.5
    return {"mean": interval["mean"], "ci_low": interval["mean"] - half, "ci_high": interval["mean"] + half}


def gains_table(table: pd.DataFrame) -> list[str]:
    lines = ["| model | passes | steps (1-3 / 1-5 / random) | " + " | ".join(ARMS)
             + " | levels-1-3 - levels-1-5 (paired) | its sd |", "|---|---|---|" + "---|" * (len(ARMS) + 2)]
    for (model, epochs), group in table.groupby(["model", "epochs"], sort=False):
        steps = " / ".join(str(int(group[group.strategy == arm]["steps"].iloc[0])) for arm in ARMS)
        cells = [with_interval(gain_with_base_error(group[group.strategy == arm])) for arm in ARMS]
        difference = paired_difference(group, "levels-1-3", "levels-1-5", by=("model",)).iloc[0]
        wide = group.pivot_table(index="seed", columns="strategy", values="gain.test")
        sd = float((wide["levels-1-3"] - wide["levels-1-5"]).std(ddof=1))
        lines.append(f"| {model} | {epochs:g} | {steps} | " + " | ".join(cells)
                     + f" | {with_interval(difference)} | {sd:.3f} |")
    return lines


def level_table(table: pd.DataFrame) -> list[str]:
    change = per_level_change(table, by=("model", "epochs", "strategy"))
    wide = change.pivot_table(index=["model", "epochs", "strategy"], columns="level", values="mean", sort=False)
    lines = ["| model | passes | arm | " + " | ".join(f"level {level}" for level in LEVELS) + " |",
             "|---|---|---|" + "---|" * len(LEVELS)]
    for (model, epochs, arm), row in wide.iterrows():
        lines.append(f"| {model} | {epochs:g} | {arm} | " + " | ".join(signed(row[level]) for level in LEVELS) + " |")
    return lines


def mechanism_table(table: pd.DataFrame) -> list[str]:
    lines = ["| model | passes | arm | predicted dead-group share | learnable share of steps | selected mean p |",
             "|---|---|---|---|---|---|"]
    means = table.groupby(["model", "epochs", "strategy"], sort=False)[
        ["predicted_dead_share", "learnable_share_of_steps", "selected_mean_pass_rate"]].mean()
    for (model, epochs, arm), row in means.iterrows():
        lines.append(f"| {model} | {epochs:g} | {arm} | {row['predicted_dead_share']:.2f} | "
                     f"{row['learnable_share_of_steps']:.2f} | {row['selected_mean_pass_rate']:.2f} |")
    return lines


def decision(table: pd.DataFrame) -> list[str]:
    """The README's rules: the length, then per size the margin (a third of levels-1-5's gain) and the seeds."""
    reference = table[table.strategy == "levels-1-5"].groupby(["epochs", "model"])["gain.test"].mean()
    smaller = reference.groupby("epochs").min()
    lengths = sorted(smaller.index)
    chosen = lengths[-1] if smaller[lengths[-1]] - smaller[lengths[0]] >= 0.01 else lengths[0]
    lines = ["Smaller of the two sizes' levels-1-5 gain: " + ", ".join(
        f"{smaller[e]:+.3f} at {e:g} passes" for e in lengths) + f"; **chosen: {chosen:g} passes**.", ""]
    lines += ["| model | levels-1-5 gain | margin (a third) | kept as a test | sd of 1-3 - 1-5 | sd planned with "
              "(90% bound) | seeds for 80% power |", "|---|---|---|---|---|---|---|"]
    for model, group in table[table.epochs == chosen].groupby("model", sort=False):
        gain = float(group[group.strategy == "levels-1-5"]["gain.test"].mean())
        margin = gain / 3
        plan = seed_plan(group, "levels-1-3", "levels-1-5", target=max(margin, 1e-6))
        kept = "yes" if gain >= 0.03 else "no (gain under +0.03): described only"
        lines.append(f"| {model} | {gain:+.3f} | {margin:.3f} | {kept} | {plan['sd of levels-1-3 - levels-1-5']:.4f} | "
                     f"{plan['sd planned with']:.4f} | {plan['seeds needed']} |")
    return lines


def main() -> None:
    table, provenance = load_study(STUDY)
    table = table[table.status == "ok"]
    print(f"# {STUDY}: outcome tables (made by outcome.py from results.csv; {len(table)} points)\n")
    print("## Base accuracy per level (test problems)\n")
    print("\n".join(base_table(table)) + "\n")
    print("## Gains over the base model (means over seeds, 95% t-interval with the base evaluation's error added)\n")
    print("\n".join(gains_table(table)) + "\n")
    print("## Change per level (means over seeds)\n")
    print("\n".join(level_table(table)) + "\n")
    print("## Mechanism (K=8 labels of each seed's pool; means over seeds)\n")
    print("\n".join(mechanism_table(table)) + "\n")
    print("## What the pilot decides (the README's rules)\n")
    print("\n".join(decision(table)))


if __name__ == "__main__":
    main()
