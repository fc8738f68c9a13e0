"""The sentence helpers the notebooks use instead of long f-strings (course_lib.findings)."""

import pytest

from course_lib.findings import bullets, finding, takeaway


@pytest.mark.parametrize(("row", "margin", "text"), [
    ({"mean": -0.02, "ci_low": -0.03, "ci_high": -0.01, "verdict": "worse", "seeds": 8}, 0.03,
     "hard - random -0.020 [-0.030, -0.010]: **worse** (margin ±0.03)"),
    ({"mean": 0.012, "ci_low": -0.004, "ci_high": 0.028, "seeds": 5}, None,
     "hard - random +0.012 [-0.004, +0.028]: **includes 0**"),  # no TOST verdict: the 95% interval against 0
    ({"mean": 0.03, "ci_low": 0.01, "ci_high": 0.05, "seeds": 5}, None, "hard - random +0.030 [+0.010, +0.050]: **above 0**"),
    ({"mean": -0.023, "ci_low": -0.023, "ci_high": -0.023, "seeds": 2}, None,
     "hard - random -0.023: **not tested** (2 seeds)"),  # two seeds that agree: no zero-width interval shown
    ({"mean": -0.004, "ci_low": -0.004, "ci_high": -0.004, "seeds": 3}, None,
     "hard - random -0.004: **not tested** (no spread across seeds)"),
])
def test_finding(row, margin, text):
    assert finding("hard - random", row, margin) == text


def test_takeaway_and_bullets_are_markdown():
    assert takeaway("  Hard lost.  ").data == "**Hard lost.**"
    assert takeaway("hard - random -0.020: **worse**").data == "**hard - random -0.020: worse**"  # no bold inside bold
    assert bullets(["a", "b"], "Two:").data == "Two:\n\n- a\n- b"
    assert bullets(["a"]).data == "- a"


def test_finding_reads_series_and_itertuples_rows():
    import pandas as pd

    table = pd.DataFrame([{"mean": 0.03, "ci_low": 0.01, "ci_high": 0.05, "seeds": 5}])
    expected = "x +0.030 [+0.010, +0.050]: **above 0**"
    assert finding("x", table.iloc[0]) == expected  # a Series: its .mean is a method, not the column
    assert finding("x", next(table.itertuples())) == expected
