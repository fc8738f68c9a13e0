"""one-group-hard-wins: the tests its README fixed before the run, read from results.csv (run by make.sh from the
project root after the sweep; writes analysis.md beside this file).

Primary family (Holm over the two): hard - random with one group per step, and (hard - random at 1 group per step)
- (hard - random at 8 prompts per step); secondary: easy - random (1 group) and hard - random (8 prompts), each
its own test. Margin 0.019; an equivalence counts only where the reference arm shows its own gain (assay
sensitivity). The same functions read the scorecard's rows (course_lib.research.scorecard)."""

import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # what the studies' analyses share: ../study_tests.py
from study_tests import claim_tests, closing, opening, write  # noqa: E402

from course_lib.research.scorecard import Claim  # noqa: E402
from course_lib.research.studies import RESULTS_DIR, equivalence_verdict, holm_verdicts, interval_text, load_study  # noqa: E402

STUDY = "one-group-hard-wins"
MARGIN = 0.019  # a third of random's pilot gain (README, fixed before the run)
FRESH_FROM = 500  # seeds 500-507; the pilot's 400-401 are not this study's
ONE, EIGHT = (1000, 1000), (125, 125)  # optimizer steps of the one-group and the 8-prompt arms
TEST = Claim("", "", STUDY, "tiny-l-strong", "hard", "random", steps=ONE, fresh_from=FRESH_FROM, margin=MARGIN,
             prompts_per_step=1)
PRIMARY = {"1. hard - random, 1 group per step": TEST,
           "2. (hard - random, 1 group) - (hard - random, 8 prompts)": replace(TEST, against_steps=EIGHT)}
SECONDARY = {"easy - random, 1 group per step": replace(TEST, first="easy"),
             "hard - random, 8 prompts per step": replace(TEST, steps=EIGHT, prompts_per_step=8)}
ARMS = [("hard", 1, 1000), ("random", 1, 1000), ("easy", 1, 1000), ("hard", 8, 125), ("random", 8, 125)]
DESCRIBED = {"dead_step_share": "steps with no live group", "learnable_share_of_steps": "learnable share of steps",
             "clipped_step_share": "steps clipped", "selected_share_mixed": "selected with 0<p<1"}


def tests(table: pd.DataFrame, claims: dict) -> pd.DataFrame:
    """Each claim's paired test at the margin, with the reference arm's check, as the scorecard reads it."""
    return claim_tests(table, claims, MARGIN)


def family_lines(family: pd.DataFrame) -> list[str]:
    lines = ["| test | seeds | mean [95%] | 90% interval | p (difference) | p (equivalence) | Holm: p diff / p equiv "
             "| verdict | verdict (Holm) | reference arm can vouch for the margin |", "|" + "---|" * 10]
    for row in family.itertuples():
        vouch = "yes" if row.sensitive else f"no: {row.why_not}"
        lines.append(f"| {row.test} | {row.seeds} | {interval_text(row)} | [{row.tost_low:+.3f}, {row.tost_high:+.3f}] "
                     f"| {row.p_difference:.3g} | {row.p_equivalence:.3g} | {row.p_difference_holm:.3g} / "
                     f"{row.p_equivalence_holm:.3g} | {row.verdict} | {row.verdict_holm} | {vouch} |")
    return lines


def arm_lines(table: pd.DataFrame) -> list[str]:
    base = float(table["base_variance.test"].iloc[0])
    lines = ["| arm | prompts per step | steps | gain.test per seed | mean [95%, base error added] | "
             + " | ".join(DESCRIBED.values()) + " (range over seeds) |", "|" + "---|" * (5 + len(DESCRIBED))]
    for strategy, per_step, steps in ARMS:
        rows = table[(table["strategy"] == strategy) & (table["steps"] == steps)].sort_values("seed")
        gain = equivalence_verdict(rows["gain.test"], MARGIN, base_variance=base)
        ranges = [f"{rows[c].min():.2f}-{rows[c].max():.2f}" for c in DESCRIBED]
        lines.append(f"| {strategy} | {per_step} | {steps:,} | {' '.join(f'{g:+.3f}' for g in rows['gain.test'])} | "
                     f"{interval_text(gain)} | " + " | ".join(ranges) + " |")
    return lines


def per_level_lines(table: pd.DataFrame) -> list[str]:
    levels = sorted(int(c.rsplit(".", 1)[-1]) for c in table if c.startswith("accuracy_after_by_level.test."))
    lines = ["| arm | " + " | ".join(f"level {level}" for level in levels) + " |", "|" + "---|" * (1 + len(levels))]
    for strategy, per_step, steps in ARMS:
        rows = table[(table["strategy"] == strategy) & (table["steps"] == steps)]
        change = [(rows[f"accuracy_after_by_level.test.{level}"] - rows[f"accuracy_before_by_level.test.{level}"])
                  for level in levels]
        lines.append(f"| {strategy}, {per_step} per step | " + " | ".join(f"{c.mean():+.3f}" for c in change) + " |")
    return lines


def report(root=RESULTS_DIR) -> str:
    table, provenance = load_study(STUDY, root)
    table = table[table["seed"] >= FRESH_FROM]
    primary, secondary = holm_verdicts(tests(table, PRIMARY)), tests(table, SECONDARY)
    secondary = secondary.assign(p_difference_holm=secondary["p_difference"],
                                 p_equivalence_holm=secondary["p_equivalence"], verdict_holm=secondary["verdict"])
    return "\n".join([
        *opening(STUDY, table, MARGIN),
        "## Primary family (Holm over the two tests)", "", *family_lines(primary), "",
        "## Secondary (each its own test; no correction)", "", *family_lines(secondary), "",
        "## Arms", "", *arm_lines(table), "",
        "## Per level (described): mean accuracy change on the test problems", "", *per_level_lines(table), "",
        *closing(STUDY)])


OUT = Path(__file__).with_name("analysis.md")


def main(out=OUT) -> None:
    write(report(), out)


if __name__ == "__main__":
    sys.exit(main())
