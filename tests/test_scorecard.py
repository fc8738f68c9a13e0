"""The claims scorecard: statuses from verdicts, and the committed studies' rows pinned."""

import pandas as pd
import pytest

from course_lib import CourseError
from course_lib.scorecard import arm_values, scorecard, status


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
    assert card.loc["Levels 1-3 match levels 1-5 (a boundary made by model size)", "status"] == "not yet tested"


def test_an_arm_run_at_two_lengths_is_never_averaged():
    table = pd.DataFrame({"strategy": ["levels-1-5"] * 2, "seed": [0, 0], "steps": [49, 82], "gain.test": [0.1, 0.2]})
    assert arm_values(table, "levels-1-5", "gain.test", (82,)).tolist() == [0.2]
    with pytest.raises(CourseError, match="several points per seed"):
        arm_values(table, "levels-1-5", "gain.test", ())
