"""The claims scorecard: statuses from verdicts, and the committed studies' rows pinned."""

import pandas as pd
import pytest

from course_lib import CourseError
from course_lib.scorecard import Claim, arm_values, claim_verdict, family_status, scorecard, status


@pytest.mark.parametrize(("verdict", "expected", "said"), [
    ("better", "better", "supported"),
    ("worse", "better", "contradicted"),
    ("equivalent", "better", "equivalent"),
    ("equivalent (different but within the margin)", "better", "equivalent"),
    ("equivalent", "equivalent", "supported"),
    ("better", "equivalent", "contradicted"),
    ("worse", "worse", "supported"),
    ("inconclusive", "better", "inconclusive"),
])
def test_status_reads_the_verdict_against_the_papers_direction(verdict, expected, said):
    assert status(verdict, expected) == said


def test_committed_scorecard_rows():
    card = scorecard().set_index("claim")
    skill = card.loc["Hard beats random under a 10% budget (skill-limited model)"]
    # fresh seeds 3-7 of the 100-step study (seeds 0-2 repeat earlier runs)
    assert skill["tiny world"].startswith("-0.012 [-0.024, -0.001] (equivalent (different but within the margin), 5 seeds")
    assert skill["status"] == "equivalent"
    assert card.loc["Easy gains less than random (format-limited model)", "status"] == "supported"
    assert card.loc["Levels 1-3 match levels 1-5 (a boundary inside the levels)", "status"] == "supported"
    assert card.loc["GSM8K-trained beats MATH-trained on MATH's numeric subset", "status"] == "not testable here"
    strong = card.loc["Hard beats random under a 10% budget (strong but unsaturated model)"]
    # the confirmatory study's six fresh seeds (200-205), none shared with its pilot (100-102)
    assert strong["tiny world"] == "-0.001 [-0.008, +0.006] (equivalent, 6 seeds)"
    assert strong["status"] == "equivalent"
    size = card.loc["Levels 1-3 match levels 1-5 across model sizes (same data)"]
    # four sizes, each with its own fresh seeds (310 on; the pilot's 300-302 left out), Holm-corrected across them
    assert size["tiny world"].startswith("tiny-s +0.002 [-0.001, +0.004] (equivalent, 5 seeds); tiny-sm ")
    assert "tiny-m -0.007 [-0.012, -0.003] (equivalent (different but within the margin), 9 seeds)" in size["tiny world"]
    assert size["tiny world"].endswith("(equivalent (different but within the margin), 5 seeds)")
    assert size["status"] == "supported"


def test_an_arm_run_at_two_lengths_is_never_averaged():
    table = pd.DataFrame({"strategy": ["levels-1-5"] * 2, "seed": [0, 0], "steps": [49, 82], "gain.test": [0.1, 0.2]})
    assert arm_values(table, "levels-1-5", "gain.test", (82,)).tolist() == [0.2]
    with pytest.raises(CourseError, match="several points per seed"):
        arm_values(table, "levels-1-5", "gain.test", ())


@pytest.mark.parametrize(("statuses", "said"), [
    (["supported", "supported"], "supported"),
    (["supported", "equivalent"], "equivalent"),
    (["supported", "inconclusive"], "inconclusive"),
    (["supported", "inconclusive", "contradicted"], "contradicted"),
])
def test_a_claim_tested_in_several_models_gets_one_status(statuses, said):
    assert family_status(statuses) == said


def test_a_claim_over_several_models_is_holm_corrected_across_them(tmp_path):
    # two sizes, five seeds: a's difference is near 0, b's is +0.10 (clearly outside the 0.03 margin)
    rows = []
    for model, shift in (("a", 0.0), ("b", 0.10)):
        for seed, noise in zip(range(10, 15), (0.004, -0.003, 0.001, -0.002, 0.0)):
            rows += [{"model": model, "seed": seed, "strategy": "x", "steps": 49, "status": "ok",
                      "gain.test": 0.05 + shift + noise},
                     {"model": model, "seed": seed, "strategy": "y", "steps": 82, "status": "ok", "gain.test": 0.05}]
    rows.append({"model": "a", "seed": 3, "strategy": "x", "steps": 49, "status": "ok", "gain.test": 0.9})  # a pilot seed
    (tmp_path / "two-sizes").mkdir()
    pd.DataFrame(rows).to_csv(tmp_path / "two-sizes" / "results.csv", index=False)
    claim = Claim("x matches y", "paper", "two-sizes", ("a", "b"), "x", "y", expected="equivalent", steps=(49, 82),
                  fresh_from=10)
    verdict = claim_verdict(claim, tmp_path)
    assert verdict["status"] == "contradicted"
    a, b = verdict["tiny world"].split("; ")
    assert a.startswith("a +0.000 [") and a.endswith("(equivalent, 5 seeds)")  # the pilot seed 3 is left out
    assert b.startswith("b +0.100 [") and b.endswith("(better, 5 seeds)")
    only_a = Claim("x matches y", "paper", "two-sizes", ("a",), "x", "y", expected="equivalent", steps=(49, 82),
                   fresh_from=10)
    assert claim_verdict(only_a, tmp_path)["status"] == "supported"
