"""One colour per model and per strategy across the course, and the chart helpers notebooks 00-04 use (rolling
means, dead groups labelled, before/after with intervals), checked on hand-made tables."""

import re

import pandas as pd
import pytest
import torch
import vl_convert

from course_lib.classroom.plots import (
    MODEL_COLORS,
    OTHER_COLOR,
    STRATEGY_COLORS,
    advantage_bars_chart,
    advantage_bars_table,
    before_after_chart,
    before_after_table,
    color_scale,
    count_marks,
    course_color,
    learnable_share_chart,
    pass_rate_by_level_chart,
    rolling_mean,
    smoothed_curve_chart,
)


def svg(chart) -> str:
    return vl_convert.vegalite_to_svg(chart.to_dict())


def test_every_model_and_strategy_has_its_own_colour():
    models = ["tiny-s", "tiny-sm", "tiny-m", "tiny-m-wordy", "tiny-m-short", "tiny-l", "tiny-l-strong", "tiny-l-wordy",
              "tiny-sm-math", "tiny-m-math", "tiny-l-math"]
    assert set(models) <= set(MODEL_COLORS) and len(set(MODEL_COLORS.values())) == len(MODEL_COLORS)
    arms = ["easy", "medium", "hard", "random", "learnability", "levels"]
    assert set(arms) <= set(STRATEGY_COLORS) and len({STRATEGY_COLORS[a] for a in arms}) == len(arms)
    assert course_color("Qwen/Qwen3-4B") == OTHER_COLOR


def test_a_model_keeps_its_colour_whatever_else_is_on_the_chart():
    alone = color_scale(["tiny-l"]).to_dict()
    with_others = color_scale(["tiny-s", "tiny-m", "tiny-l"]).to_dict()
    assert alone["range"][0] == with_others["range"][2] == MODEL_COLORS["tiny-l"]
    table = pd.DataFrame({"model": ["tiny-l", "tiny-s"], "level": [1, 1], "pass_rate": [0.9, 0.1]})
    drawn = svg(pass_rate_by_level_chart(table, "t"))
    assert MODEL_COLORS["tiny-l"].lower() in drawn.lower() and MODEL_COLORS["tiny-s"].lower() in drawn.lower()


def test_the_level_chart_names_its_rate_as_asked():
    table = pd.DataFrame({"model": ["tiny-m"], "level": [1], "pass_rate": [0.5]})
    assert "mean pass rate" in svg(pass_rate_by_level_chart(table, "t"))
    named = svg(pass_rate_by_level_chart(table, "t", y_title="held-out accuracy (pass@1)"))
    assert "held-out accuracy (pass@1)" in named and "mean pass rate" not in named


@pytest.mark.parametrize(("values", "window", "expected"), [
    ([0, 1, 0, 1], 2, [0.0, 0.5, 0.5, 0.5]),
    ([1, 2, 3], 1, [1.0, 2.0, 3.0]),  # a window of one step is the curve itself
    ([3, 0, 0, 0], 3, [3.0, 1.5, 1.0, 0.0]),  # fewer steps at the start: the mean of what there is
])
def test_rolling_mean(values, window, expected):
    assert rolling_mean(values, window) == pytest.approx(expected)


def test_rolling_mean_rejects_a_bad_window():
    from course_lib import CourseError

    with pytest.raises(CourseError, match="window=0 must be a whole number of steps >= 1"):
        rolling_mean([1, 2], 0)


def test_smoothed_curve_draws_raw_and_mean_per_run_in_the_model_colour():
    table = pd.DataFrame({"step": [1, 2, 3] * 2, "reward": [0.1, 0.5, 0.3, 0.2, 0.2, 0.8],
                          "run": ["lora"] * 3 + ["full"] * 3, "model": "tiny-m"})
    drawn = svg(smoothed_curve_chart(table, "reward", 2, "t", color="model", dash="run"))
    assert count_marks(drawn) > 0 and MODEL_COLORS["tiny-m"].lower() in drawn.lower() and "NaN" not in drawn
    assert "mean of the last 2" in drawn


def test_advantage_bars_flag_and_label_a_dead_group():
    rewards = torch.tensor([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])  # a live group, then a dead one (all right)
    advantages = torch.tensor([0.866, -0.866, -0.866, 0.866, 0.0, 0.0, 0.0, 0.0])
    table = advantage_bars_table(rewards, advantages)
    assert table.dead.tolist() == [False] * 4 + [True] * 4 and table.prompt.nunique() == 2
    assert "dead: all right" in svg(advantage_bars_chart(rewards, advantages, "t"))


def test_learnable_share_chart_labels_a_band_with_no_learnable_group():
    table = pd.DataFrame({"difficulty": ["p = 0", "hard (0-.25]"], "groups": [6, 4], "learnable_share": [0.0, 0.5]})
    drawn = svg(learnable_share_chart(table, "t"))
    assert "0.00 of 6 (all dead)" in drawn and "0.50 of 4" in drawn


def test_before_after_keeps_levels_and_intervals():
    block = {"accuracy": 0.5, "ci_low": 0.3, "ci_high": 0.7, "problems": 4}
    before = {"by_level": {"1": block, "2": {**block, "accuracy": 0.2, "ci_low": 0.05, "ci_high": 0.5}}}
    after = {"by_level": {"1": {**block, "accuracy": 0.6}, "2": block}}
    table = before_after_table(before, after, "tiny-m")
    assert table[["when", "level", "accuracy"]].values.tolist() == [["before", 1, 0.5], ["before", 2, 0.2],
                                                                     ["after", 1, 0.6], ["after", 2, 0.5]]
    drawn = svg(before_after_chart(before, after, "tiny-m", "t"))
    assert count_marks(drawn) > 0 and MODEL_COLORS["tiny-m"].lower() in drawn.lower()


LEGEND_SYMBOL = re.compile(r'role-legend-symbol"[^>]*><path ([^>]*?)/?>.*?role-legend-label"[^>]*><text[^>]*>([^<]*)<', re.S)


def legend_symbols(chart) -> dict[str, str]:
    """{label: the attributes of its legend symbol} of a rendered chart."""
    return {label.strip(): attributes for attributes, label in LEGEND_SYMBOL.findall(svg(chart))}


def is_line(attributes: str, dash: str | None = None) -> bool:
    """A legend symbol drawn as a short stroked line (in `dash` style, if given), not a dot or a blank."""
    drawn = 'd="M-10,0L10,0"' in attributes and re.search(r'stroke="(?!none|transparent)[^"]+"', attributes)
    return bool(drawn) and (dash is None or f'stroke-dasharray="{dash}"' in attributes)


def test_interval_width_legend_shows_which_line_is_dashed():
    from course_lib.classroom.plots import interval_width_chart

    symbols = legend_symbols(interval_width_chart())
    assert is_line(symbols["0"], "1,0") and is_line(symbols["0.5"], "5,4")  # observed p = 0 solid, 1/2 dashed
    assert is_line(symbols["Wald"]) and is_line(symbols["Wilson"])  # the colours as lines too


def test_pass_rate_by_level_legend_shows_the_line_style_of_each_source():
    table = pd.DataFrame({"model": ["tiny-m"] * 4, "level": [1, 2, 1, 2], "pass_rate": [0.6, 0.5, 0.62, 0.48],
                          "source": ["measured now"] * 2 + ["when it was built"] * 2})
    symbols = legend_symbols(pass_rate_by_level_chart(table, "t"))
    assert is_line(symbols["measured now"], "1,0") and is_line(symbols["when it was built"], "5,4")
    assert MODEL_COLORS["tiny-m"] in symbols["tiny-m"] and is_line(symbols["tiny-m"])


def test_pass_rate_bars_draw_one_bar_per_possible_value_in_order():
    from course_lib.classroom.plots import pass_rate_bars
    from course_lib.selection import pass_rate_counts

    table = pd.DataFrame({"level": [2, 1, 1], "k": 4, "pass_rate": [1.0, 0.0, 0.25]})
    drawn = svg(pass_rate_bars(pass_rate_counts(table, "level"), "level", "t"))
    labels = re.findall(r'role-axis-label"[^>]*>(.*?)</g>', drawn, re.S)[0]
    assert re.findall(r">(\d/4)<", labels) == ["0/4", "1/4", "2/4", "3/4", "4/4"]  # every value, 2/4 and 3/4 empty


@pytest.mark.parametrize(("rho", "says"), [
    ([0.5, 0.7, 0.8, 0.85], "rank agreement 0.50 at K = 2, 0.85 at K = 16; the first doubling of K added +0.20, "
                            "the last +0.05"),
    ([0.5, 0.7], "rank agreement 0.50 at K = 2, 0.70 at K = 4"),  # two points: one doubling, said once
])
def test_doubling_text_reads_the_curve(rho, says):
    from course_lib.classroom.plots import doubling_text

    curve = pd.DataFrame({"K": [2, 4, 8, 16][: len(rho)], "spearman vs reference": rho})
    assert doubling_text(curve) == says


def test_pass_and_format_chart_draws_both_shares_of_every_cell_with_their_intervals():
    from course_lib.classroom.plots import pass_and_format_chart

    cells = pd.DataFrame({"cell": ["words 1", "bbh 3"], "pass_rate": [0.0, 0.25], "ci_low": [0.0, 0.1],
                          "ci_high": [0.06, 0.45], "format_share": [0.5, 0.75], "format_ci_low": [0.3, 0.55],
                          "format_ci_high": [0.7, 0.9]})
    chart = pass_and_format_chart(cells, "t", "s")
    values = chart.data if isinstance(chart.data, pd.DataFrame) else chart.layer[0].data
    assert values.sort_values(["measure", "cell"])[["measure", "cell", "value", "low", "high"]].values.tolist() == [
        ["format share", "bbh 3", 0.75, 0.55, 0.9], ["format share", "words 1", 0.5, 0.3, 0.7],
        ["pass rate", "bbh 3", 0.25, 0.1, 0.45], ["pass rate", "words 1", 0.0, 0.0, 0.06]]
    drawn = svg(chart)
    assert "pass rate" in drawn and "format share" in drawn and count_marks(drawn) > 0


def test_step_measures_chart_draws_one_line_per_named_measure_as_a_line_in_the_legend():
    from course_lib.classroom.plots import step_measures_chart

    metrics = pd.DataFrame({"step": [1, 2, 3], "reward": [0.1, 0.2, 0.2], "frac_reward_zero_std": [0.5, 0.9, 1.0],
                            "grad_norm": [1.0, 0.5, 0.0]})
    chart = step_measures_chart(metrics, {"reward": "mean reward", "frac_reward_zero_std": "dead share"}, "t", "y")
    assert sorted(set(chart.data["measure"])) == ["dead share", "mean reward"]  # grad_norm not drawn
    symbols = legend_symbols(chart)
    assert is_line(symbols["mean reward"]) and is_line(symbols["dead share"])
