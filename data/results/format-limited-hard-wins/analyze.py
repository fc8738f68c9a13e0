"""format-limited-hard-wins: the tests its README fixed before the run, read from results.csv (run by make.sh from
the project root after the sweep; writes analysis.md beside this file).

Primary: hard - random, one group per step, on gain.test; secondary: easy - random. Margin 0.0636 (a third of
random's pilot gain); an equivalence counts only where the reference arm shows its own gain (assay sensitivity).
The same functions read the scorecard's rows (course_lib.research.scorecard)."""

import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # what the studies' analyses share: ../study_tests.py
from study_tests import claim_tests, closing, opening, write  # noqa: E402

from course_lib.research.scorecard import Claim  # noqa: E402
from course_lib.research.studies import RESULTS_DIR, equivalence_verdict, interval_text, load_study  # noqa: E402

STUDY = "format-limited-hard-wins"
MARGIN = 0.0636  # a third of random's pilot gain at the chosen setting (README, fixed before the run)
FRESH_FROM = 520  # seeds 520-527; the pilot's 410-411 are not this study's
STEPS = (1000, 1000)
TEST = Claim("", "", STUDY, "tiny-l-wordy", "hard", "random", steps=STEPS, fresh_from=FRESH_FROM, margin=MARGIN,
             prompts_per_step=1)
PRIMARY = {"hard - random": TEST}
SECONDARY = {"easy - random": replace(TEST, first="easy")}
ARMS = ("hard", "random", "easy")
LONG_LEVELS = (3, 4, 5)  # the levels whose long solutions run past the 96-token limit
DESCRIBED = {"dead_step_share": "steps with no live group", "clipped_step_share": "steps clipped",
             "selected_share_mixed": "selected with 0<p<1"}


def test_lines(results: pd.DataFrame) -> list[str]:
    lines = ["| test | seeds | mean [95%] | 90% interval | p (difference) | p (equivalence) | verdict | reference "
             "arm's gain | can it vouch for the margin |", "|" + "---|" * 9]
    for row in results.itertuples():
        vouch = "yes" if row.sensitive else f"no: {row.why_not}"
        lines.append(f"| {row.test} | {row.seeds} | {interval_text(row)} | [{row.tost_low:+.3f}, {row.tost_high:+.3f}] "
                     f"| {row.p_difference:.3g} | {row.p_equivalence:.3g} | {row.verdict} | {row.reference_gain:+.4f} "
                     f"| {vouch} |")
    return lines


def level_mean(rows: pd.DataFrame, column: str) -> pd.Series:
    """Per seed, the mean over levels 3-5 of a per-level column (`column` has a {level} slot)."""
    return sum(rows[column.format(level=level)] for level in LONG_LEVELS) / len(LONG_LEVELS)


def arm_lines(table: pd.DataFrame) -> list[str]:
    base = float(table["base_variance.test"].iloc[0])
    lines = ["| arm | gain.test per seed | mean [95%, base error added] | levels 3-5 cut off: base -> trained | "
             + " | ".join(DESCRIBED.values()) + " (range over seeds) |", "|" + "---|" * (4 + len(DESCRIBED))]
    for strategy in ARMS:
        rows = table[table["strategy"] == strategy].sort_values("seed")
        gain = equivalence_verdict(rows["gain.test"], MARGIN, base_variance=base)
        cut = [level_mean(rows, f"eval_shape_by_level.test.{when}.{{level}}.truncated_share").mean()
               for when in ("before", "after")]
        ranges = [f"{rows[c].min():.2f}-{rows[c].max():.2f}" for c in DESCRIBED]
        lines.append(f"| {strategy} | {' '.join(f'{g:+.3f}' for g in rows['gain.test'])} | {interval_text(gain)} | "
                     f"{cut[0]:.3f} -> {cut[1]:.3f} | " + " | ".join(ranges) + " |")
    return lines


def per_level_lines(table: pd.DataFrame) -> list[str]:
    levels = sorted(int(c.rsplit(".", 1)[-1]) for c in table if c.startswith("accuracy_after_by_level.test."))
    lines = ["| arm | " + " | ".join(f"level {level}" for level in levels) + " |", "|" + "---|" * (1 + len(levels))]
    for strategy in ARMS:
        rows = table[table["strategy"] == strategy]
        change = [rows[f"accuracy_after_by_level.test.{level}"] - rows[f"accuracy_before_by_level.test.{level}"]
                  for level in levels]
        lines.append(f"| {strategy} | " + " | ".join(f"{c.mean():+.3f}" for c in change) + " |")
    return lines


def report(root=RESULTS_DIR) -> str:
    table, _ = load_study(STUDY, root)
    table = table[table["seed"] >= FRESH_FROM]
    return "\n".join([
        *opening(STUDY, table, MARGIN),
        "## Primary", "", *test_lines(claim_tests(table, PRIMARY, MARGIN)), "",
        "## Secondary (its own test; no correction)", "", *test_lines(claim_tests(table, SECONDARY, MARGIN)), "",
        "## Arms", "", *arm_lines(table), "",
        "## Per level (described): mean accuracy change on the test problems", "", *per_level_lines(table), "",
        *closing(STUDY)])


OUT = Path(__file__).with_name("analysis.md")


def main(out=OUT) -> None:
    write(report(), out)


if __name__ == "__main__":
    sys.exit(main())
