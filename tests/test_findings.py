"""The sentence helpers the notebooks use instead of long f-strings (course_lib.research.findings)."""

import pytest

from course_lib.research.findings import bullets, correlation, finding, findings, in_points, takeaway


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


def test_a_could_not_tell_says_why_and_other_verdicts_do_not():
    why = "the margin 0.03 exceeds a third of random's gain, +0.036 / 3 = +0.012"
    row = {"mean": -0.0011, "ci_low": -0.0079, "ci_high": 0.0057, "verdict": "could not tell", "why": why, "seeds": 6}
    assert finding("hard - random", row, 0.03) == f"hard - random -0.001 [-0.008, +0.006]: **could not tell** (margin ±0.03): {why}"
    worse = {**row, "mean": -0.016, "ci_low": -0.024, "ci_high": -0.008, "verdict": "worse"}  # why explains no "slightly"
    assert finding("hard - random", worse, 0.03) == "hard - random -0.016 [-0.024, -0.008]: **worse** (margin ±0.03)"
    assert finding("x", {**row, "why": ""}, 0.03).endswith("**could not tell** (margin ±0.03)")  # nothing to add


def test_findings_names_each_row_from_its_columns_and_joins_them():
    import pandas as pd

    table = pd.DataFrame([{"regime": "skill-limited", "steps": 41, "mean": -0.02, "ci_low": -0.033, "ci_high": -0.007,
                           "verdict": "worse"},
                          {"regime": "format-limited", "steps": 100, "mean": -0.005, "ci_low": -0.014, "ci_high": 0.004,
                           "verdict": "equivalent"}])
    assert findings(table, "{regime}, {steps} steps", 0.03) == (
        "skill-limited, 41 steps -0.020 [-0.033, -0.007]: **worse** (margin ±0.03); "
        "format-limited, 100 steps -0.005 [-0.014, +0.004]: **equivalent** (margin ±0.03)")
    assert findings(table.iloc[:0], "{regime}") == ""  # no rows, no text


@pytest.mark.parametrize(("row", "text"), [
    ({"mean": -0.0033, "ci_low": -0.0477, "ci_high": 0.0411}, "-0.3 [-4.8, +4.1]"),  # fractions of problems -> points
    ({"mean": 0.1412, "ci_low": 0.1292, "ci_high": 0.1534}, "+14.1 [+12.9, +15.3]"),
])
def test_in_points_is_the_same_interval_times_a_hundred(row, text):
    assert in_points(row) == text


def test_correlation_reads_a_rank_correlation_with_its_interval_and_count():
    result = {"rho": 0.1406, "ci_low": -0.0921, "ci_high": 0.3812, "n": 69}
    assert correlation(result) == "+0.14 [-0.09, +0.38] over 69 runs"
    assert correlation({**result, "n": 12}, "arms") == "+0.14 [-0.09, +0.38] over 12 arms"


def test_a_row_without_a_verdict_in_a_table_where_others_have_one_reads_as_its_interval():
    """Hostile round 20: a table joining a tested row and an untested one gave the untested `**nan**` and
    `90% [+nan, +nan]` (a DataFrame holds NaN where a value is missing, not None)."""
    import pandas as pd

    from course_lib.research.findings import finding

    table = pd.DataFrame([{"mean": 0.01, "ci_low": -0.004, "ci_high": 0.024, "tost_low": -0.001, "tost_high": 0.021,
                           "verdict": "equivalent"}, {"mean": 0.03, "ci_low": 0.01, "ci_high": 0.05}])
    untested = table.iloc[1]
    assert finding("easy - random", untested, 0.03) == "easy - random +0.030 [+0.010, +0.050]: **above 0** (margin ±0.03)"
    assert finding("easy - random", next(table.iloc[1:].itertuples()), 0.03) == finding("easy - random", untested, 0.03)
