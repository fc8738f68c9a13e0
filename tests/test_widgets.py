"""The explorers' pure functions (the widgets only wire them) and the widgets' wiring."""

import pandas as pd
import pytest

from course_lib.difficulty import pass_rates_at
from course_lib.widgets import budget_explorer, dead_group_view, dead_group_widget, explorer_view


def hand_table(k=4):
    # ten problems with outcomes by hand; pass rates at K=4: 0, 0, .25, .25, .5, .5, .75, .75, 1, 1
    outcomes = ["0000", "0000", "1000", "0100", "1100", "0011", "1110", "0111", "1111", "1111"]
    return pd.DataFrame({
        "id": [f"q{i}" for i in range(10)], "level": [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], "source": "arith", "k": k,
        "n_correct": [o.count("1") for o in outcomes], "pass_rate": [o.count("1") / 4 for o in outcomes],
        "ci_low": 0.0, "ci_high": 1.0, "mean_length": 10.0, "outcomes": outcomes,
    })


@pytest.mark.parametrize(
    ("p", "G", "dead"),
    [(0.5, 2, 0.5), (0.0, 8, 1.0), (1.0, 8, 1.0), (0.5, 8, 2 * 0.5**8)],
)
def test_dead_group_view(p, G, dead):
    assert dead_group_view(p, G)["dead_probability"] == pytest.approx(dead, abs=1e-4)


def test_pass_rates_at_uses_the_first_k_outcomes():
    fewer = pass_rates_at(hand_table(), 2)
    # first two outcomes: 00 00 10 01 11 00 11 01 11 11 -> 0 0 .5 .5 1 0 1 .5 1 1
    assert fewer.pass_rate.tolist() == [0, 0, 0.5, 0.5, 1, 0, 1, 0.5, 1, 1]
    assert (fewer.k == 2).all()


def test_explorer_view_hard_at_30_percent():
    summary, histogram = explorer_view({"m": hand_table()}, "m", 4, "hard", 0.3, group_size=4)
    # hard takes the 3 lowest: p = 0, 0, .25 -> mean 1/12; one of three mixed;
    # dead share = mean(1, 1, .25^4 + .75^4) = (2 + 0.3203125) / 3
    assert summary["n_selected"] == 3
    assert summary["mean_pass_rate"] == pytest.approx(1 / 12, abs=1e-4)
    assert summary["share_mixed"] == pytest.approx(1 / 3, abs=1e-4)
    assert summary["predicted_dead_share"] == pytest.approx((2 + 0.3203125) / 3, abs=1e-4)
    assert summary["estimation_completions"] == 40
    assert histogram.query("set == 'selected'")["count"].sum() == 3


def test_explorer_view_learnability_prefers_half():
    summary, _ = explorer_view({"m": hand_table()}, "m", 4, "learnability", 0.2, group_size=4)
    assert summary["mean_pass_rate"] == pytest.approx(0.5)  # the two p = .5 problems
    assert summary["predicted_dead_share"] == pytest.approx(2 * 0.5**4)


def test_explorer_view_reports_measured_gain_when_results_exist():
    gains = pd.DataFrame({"model": ["m", "m", "m", "other"], "strategy": ["hard", "hard", "easy", "hard"],
                          "gain.test": [0.1, 0.3, -0.1, 0.9]})
    summary, _ = explorer_view({"m": hand_table()}, "m", 4, "hard", 0.3, gains=gains)
    assert summary["measured_gain"] == pytest.approx(0.2)


def test_widgets_build_and_react():
    box = budget_explorer({"m": hand_table()})
    model, strategy = box.children[0].children
    budget, k = box.children[1].children
    numbers = box.children[2]
    before = numbers.value
    strategy.value = "easy"
    assert numbers.value != before and "explorer-n_selected" in numbers.value
    budget.value = 0.5
    assert ">5<" in numbers.value  # n_selected for half of ten problems
    assert dead_group_widget().children


def test_dead_group_widget_takes_any_group_size():
    """Notebook 02 asks for the smallest G at which a p = 0.05 problem is alive more often than dead: 14."""
    from course_lib.widgets import dead_group_view, dead_group_widget

    p, G = dead_group_widget().children[0].children
    G.value, p.value = 14, 0.05
    assert G.value == 14 and p.value == 0.05
    assert dead_group_view(0.05, 14)["dead_probability"] < 0.5 < dead_group_view(0.05, 13)["dead_probability"]


def test_dead_group_widget_redraws_its_numbers_and_chart():
    from course_lib.plots import count_marks
    from course_lib.widgets import dead_group_widget

    box = dead_group_widget()
    (p, G), numbers, chart = box.children[0].children, box.children[1], box.children[2]
    p.value, G.value = 0.05, 14
    assert "<b>0.4877</b>" in numbers.value and count_marks(chart.value) > 0
