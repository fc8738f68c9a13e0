"""The explorers' pure functions (the widgets only wire them) and the widgets' wiring."""

import pandas as pd
import pytest

from course_lib.classroom.widgets import budget_explorer, dead_group_view, dead_group_widget, explorer_view
from course_lib.difficulty import pass_rates_at


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
    assert histogram.query("set == 'selected'")["problems"].sum() == 3


def test_explorer_view_learnability_prefers_half():
    summary, _ = explorer_view({"m": hand_table()}, "m", 4, "learnability", 0.2, group_size=4)
    assert summary["mean_pass_rate"] == pytest.approx(0.5)  # the two p = .5 problems
    assert summary["predicted_dead_share"] == pytest.approx(2 * 0.5**4)


def test_explorer_view_reports_measured_gain_when_results_exist():
    gains = pd.DataFrame({"model": ["m", "m", "m", "other"], "strategy": ["hard", "hard", "easy", "hard"],
                          "seed": [0, 1, 0, 0], "gain.test": [0.1, 0.3, -0.1, 0.9]})
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
    from course_lib.classroom.widgets import dead_group_view, dead_group_widget

    p, G = dead_group_widget().children[0].children
    G.value, p.value = 14, 0.05
    assert G.value == 14 and p.value == 0.05
    assert dead_group_view(0.05, 14)["dead_probability"] < 0.5 < dead_group_view(0.05, 13)["dead_probability"]


def test_dead_group_widget_redraws_its_numbers_and_chart():
    from course_lib.classroom.plots import count_marks
    from course_lib.classroom.widgets import dead_group_widget

    box = dead_group_widget()
    (p, G), numbers, chart = box.children[0].children, box.children[1], box.children[2]
    p.value, G.value = 0.05, 14
    assert "<b>0.4877</b>" in numbers.value and count_marks(chart.value) > 0


# The explorers' new numbers, on hand-made cases


@pytest.mark.parametrize(
    ("p", "G", "at_8", "per_live"),
    [(0.5, 2, 2 * 0.5**8, 4.0),  # dead half the time: 2 completions / 0.5 per live group
     (0.0, 16, 1.0, float("inf")),  # never alive, at any G
     (0.05, 14, 0.95**8 + 0.05**8, round(14 / (1 - 0.95**14 - 0.05**14), 2))],
)
def test_dead_group_view_keeps_g8_and_counts_the_sampling_cost(p, G, at_8, per_live):
    view = dead_group_view(p, G)
    assert view["dead_probability_at_8"] == pytest.approx(at_8, abs=1e-4)
    assert view["completions_per_prompt"] == G and view["cost_vs_8"] == pytest.approx(G / 8)
    assert view["completions_per_live_group"] == per_live


@pytest.mark.parametrize("k", [2, 4])
def test_the_explorer_draws_one_bar_per_possible_pass_rate(k):
    """Every bar is a pass rate K samples can give (j/K), and every such value has its bar, empty or not: no bin
    without a possible value (as a 0.4-0.5 bin would be at K = 4), none merging two values."""
    _, histogram = explorer_view({"m": hand_table()}, "m", k, "hard", 0.3)
    values = sorted(set(histogram.pass_rate))
    assert values == [j / k for j in range(k + 1)]
    assert histogram.label.drop_duplicates().tolist() == [f"{j}/{k}" for j in range(k + 1)]
    assert histogram.problems.sum() == 10 and histogram.query("set == 'selected'").problems.sum() == 3
    labels = pass_rates_at(hand_table(), k).pass_rate.value_counts()  # what each bar must count
    assert histogram.groupby("pass_rate").problems.sum().to_dict() == {v: int(labels.get(v, 0)) for v in values}


def test_the_explorer_histogram_keeps_empty_values_and_counts_the_selection():
    _, histogram = explorer_view({"m": hand_table()}, "m", 4, "easy", 0.2)
    counts = histogram.groupby("label", sort=False).problems.sum()
    # p = 0, .25, .5, .75, 1: two problems each at K = 4
    assert counts.tolist() == [2, 2, 2, 2, 2]
    selected = histogram[histogram.set == "selected"].set_index("label").problems
    assert selected.to_dict() == {"0/4": 0, "1/4": 0, "2/4": 0, "3/4": 0, "4/4": 2}  # easy takes the two at p = 1


def test_explorer_gives_the_label_prediction_next_to_the_full_k_one():
    summary, _ = explorer_view({"m": hand_table()}, "m", 2, "hard", 0.3, group_size=4)
    # at K = 2 the labels are 0 0 .5 .5 1 0 1 .5 1 1: hard takes q0, q1, q5, all labelled 0 -> "all dead";
    # at all four samples q5 is at .5: (1 + 1 + 2 * .5^4) / 3
    assert summary["predicted_dead_share"] == 1.0
    assert summary["predicted_dead_share_full_k"] == pytest.approx((2 + 2 * 0.5**4) / 3, abs=1e-4)
    assert summary["budget_share"] == pytest.approx(0.3) and summary["pool"] == 10 and summary["k_max"] == 4


def test_measured_gain_only_at_the_budget_studied_and_without_an_interval_from_two_seeds():
    from course_lib.classroom.widgets import _summary_html

    gains = pd.DataFrame({"model": ["m", "m"], "strategy": ["hard", "hard"], "budget": [0.1, 0.1], "seed": [0, 1],
                          "gain.test": [0.1, 0.3]})
    at_10, _ = explorer_view({"m": hand_table()}, "m", 4, "hard", 0.1, gains=gains)
    at_30, _ = explorer_view({"m": hand_table()}, "m", 4, "hard", 0.3, gains=gains)
    assert at_10["measured_gain"] == pytest.approx(0.2) and at_10["measured_gain_seeds"] == 2
    # two seeds: each seed's gain, no t-interval (t(0.975, 1 df) = 12.706 would make it [-1.071, +1.471])
    assert "measured_gain_low" not in at_10 and at_10["measured_gain_per_seed"] == [0.1, 0.3]
    assert at_10["measured_gain_text"] == "each seed: +0.100, +0.300 (too few for a mean)"
    shown = _summary_html(at_10)
    assert "+0.100, +0.300" in shown and "[" not in shown and "95%" not in shown
    assert "measured_gain" not in at_30  # no study ran at 30%: nothing on screen


def test_the_side_by_side_table_shows_each_seed_where_two_cannot_give_a_mean_to_rank_by():
    from course_lib.classroom.widgets import _side_by_side_html, strategies_side_by_side

    gains = pd.DataFrame({"model": "m", "strategy": ["hard", "hard", "random", "random", "random"],
                          "budget": 0.1, "seed": [0, 1, 0, 1, 2], "gain.test": [0.002, -0.013, 0.1, 0.2, 0.3]})
    shown = _side_by_side_html(strategies_side_by_side({"m": hand_table()}, "m", 4, 0.1, gains=gains), "hard")
    rows = {row.split("</td>")[0].rsplit(">", 1)[1]: row for row in shown.split("<tr")[2:]}
    assert "each seed: +0.002, -0.013 (too few for a mean)" in rows["hard"] and "-0.005" not in rows["hard"]
    assert "+0.200 (3 seeds)" in rows["random"] and "seed" not in rows["easy"]  # no study of easy: blank


def test_measured_gain_reads_a_recorded_count_budget_as_a_count():
    """Round 19: a study run with --set BUDGET=50 made the explorer fail on 'budget=50.0 as a fraction'."""
    from course_lib.classroom.widgets import measured_gain

    gains = pd.DataFrame({"model": "m", "strategy": "hard", "budget": [50, 50, 50, 900], "seed": [0, 1, 2, 3],
                          "gain.test": [0.1, 0.2, 0.3, 0.9], "pool_size": 500})
    assert measured_gain(gains, "m", "hard", 0.1, 500)["per_seed"] == [0.1, 0.2, 0.3]  # 10% of 500 is 50 problems
    assert measured_gain(gains, "m", "hard", 0.2, 500) is None  # 100 problems: no run; 900 exceeds the pool


def test_a_count_budget_is_read_as_a_share_of_the_studys_own_pool():
    """Hostile round 22: hard-wins's 100 of its 1,000-problem pool (10%), run as --set BUDGET=100, was shown at the
    explorer's 20% (100 of the explorer's 500)."""
    from course_lib.classroom.widgets import measured_gain

    gains = pd.DataFrame({"model": "m", "strategy": "hard", "budget": 100, "seed": [0, 1, 2],
                          "gain.test": [0.1, 0.2, 0.3], "profile": "tiny"})  # tiny: a study pool of 1,000
    assert measured_gain(gains, "m", "hard", 0.1, 500)["per_seed"] == [0.1, 0.2, 0.3]
    assert measured_gain(gains, "m", "hard", 0.2, 500) is None
    assert measured_gain(gains.drop(columns="profile"), "m", "hard", 0.1, 500) is None  # its pool unknown: not shown


def test_round_23_a_study_given_as_a_share_and_as_a_count_is_refused_not_counted_twice():
    """Hostile round 23: the 10% study (budget 0.1) and the same study run with --set BUDGET=100 of its 1,000
    problems, in one gains table, were both kept at the slider's 10%: ten "seeds" from five, a narrower interval."""
    from course_lib import CourseError
    from course_lib.classroom.widgets import measured_gain

    one = pd.DataFrame({"model": "m", "strategy": "hard", "budget": 0.1, "seed": [0, 1, 2],
                        "gain.test": [0.1, 0.2, 0.3], "pool_size": 1000})
    both = pd.concat([one, one.assign(budget=100)], ignore_index=True)
    with pytest.raises(CourseError, match=r"^gains hold seed 0 of hard twice at this share \(budgets \[0.1, 100.0\]"):
        measured_gain(both, "m", "hard", 0.1, 500)
    assert measured_gain(both, "m", "hard", 0.2, 500) is None  # neither is at 20%
    apart = pd.concat([one, one.assign(budget=200, seed=[3, 4, 5])], ignore_index=True)  # 20%: its own seeds
    assert measured_gain(apart, "m", "hard", 0.1, 500)["per_seed"] == [0.1, 0.2, 0.3]


@pytest.mark.parametrize(("column", "other"), [("task", "tinymath"), ("steps", 34), ("learning_rate", 1e-4),
                                              ("profile", "smoke"), ("pool_size", 500)])
def test_round_24_two_studies_of_other_settings_at_one_share_are_refused_not_pooled(column, other):
    """Hostile round 24 (S5): two studies at the same share whose seeds do not overlap (another task, other steps)
    were pooled as one study's six seeds; one setting's rows are kept, and the sweep-only columns do not count."""
    from course_lib import CourseError
    from course_lib.classroom.widgets import measured_gain

    one = pd.DataFrame({"model": "m", "strategy": "hard", "budget": 0.1, "seed": [0, 1, 2], "gain.test": [0.1, 0.2, 0.3],
                        "task": "arith", "steps": 17, "learning_rate": 3e-4, "profile": "tiny", "pool_size": 1000})
    other_study = one.assign(seed=[3, 4, 5], **{column: other})
    with pytest.raises(CourseError, match=rf"^gains of hard at this share hold runs of several {column} \("):
        measured_gain(pd.concat([one, other_study], ignore_index=True), "m", "hard", 0.1, 1000)
    speed_only = other_study.assign(**{column: one[column]}, backend="vllm", micro_batch_prompts=2)
    pooled = pd.concat([one.assign(backend="hf", micro_batch_prompts=0), speed_only], ignore_index=True)
    assert measured_gain(pooled, "m", "hard", 0.1, 1000)["seeds"] == 6  # one setting, run on two machines


def test_round_27_gains_in_percent_a_missing_gain_column_and_a_budget_in_words_are_refused():
    """Hostile round 27: gains written in percent (2.0 for two points) were shown as a mean gain of 3.0, and a table
    without gain.test or a budget of "10%" ended in a KeyError or ValueError."""
    from course_lib import CourseError
    from course_lib.classroom.widgets import measured_gain

    gains = pd.DataFrame({"model": "m", "strategy": "hard", "budget": 0.1, "seed": [0, 1, 2], "gain.test": [2.0, 3.0, 4.0]})
    with pytest.raises(CourseError, match=r"^gains: gain.test holds 2.0 \(a change in accuracy lies between -1 and 1: "
                                          "percent points\\? divide by 100\\)$"):
        measured_gain(gains, "m", "hard", 0.1, 500)
    with pytest.raises(CourseError, match="^gains: 'gain.test' is not a column of the results table"):
        measured_gain(gains.drop(columns="gain.test"), "m", "hard", 0.1, 500)
    with pytest.raises(CourseError, match=r"^budget='10%' must be a share of the pool, above 0 and at most 1"):
        measured_gain(gains.assign(**{"gain.test": [0.02, 0.03, 0.04]}), "m", "hard", "10%", 500)
    assert measured_gain(gains.assign(**{"gain.test": [0.02, 0.03, 0.04]}), "m", "hard", 0.1, 500)["seeds"] == 3


def test_measured_gain_reads_a_budget_of_one_problem_as_one_problem():
    """Hostile round 20: a study run with --set BUDGET=1 (one problem; a results table writes 1 as 1.0) was shown at
    the slider's 100%, and not at one problem."""
    from course_lib.classroom.widgets import measured_gain

    gains = pd.DataFrame({"model": "m", "strategy": "hard", "budget": 1.0, "n_selected": 1, "seed": [0, 1, 2],
                          "gain.test": [0.1, 0.2, 0.3], "pool_size": 500})
    assert measured_gain(gains, "m", "hard", 1.0, 500) is None
    assert measured_gain(gains, "m", "hard", 1 / 500, 500)["per_seed"] == [0.1, 0.2, 0.3]
    whole = gains.assign(n_selected=500)  # the share 1.0: every problem of its pool
    assert measured_gain(whole, "m", "hard", 1.0, 500)["per_seed"] == [0.1, 0.2, 0.3]


def test_measured_gain_has_its_interval_from_three_seeds_on():
    gains = pd.DataFrame({"model": "m", "strategy": "hard", "budget": 0.1, "seed": [0, 1, 2], "gain.test": [0.1, 0.2, 0.3]})
    summary, _ = explorer_view({"m": hand_table()}, "m", 4, "hard", 0.1, gains=gains)
    # sd 0.1, se 0.0577, t(0.975, 2 df) = 4.303: half-width 0.2484
    assert summary["measured_gain_low"] == pytest.approx(0.2 - 0.2484, abs=1e-3)
    assert summary["measured_gain_high"] == pytest.approx(0.2 + 0.2484, abs=1e-3)
    assert summary["measured_gain_text"] == "+0.200 [-0.048, +0.448] (95% interval over 3 seeds)"


def test_strategies_side_by_side_and_the_title_says_share_and_count():
    from course_lib.classroom.widgets import explorer_title, strategies_side_by_side

    table = strategies_side_by_side({"m": hand_table()}, "m", 4, 0.2, group_size=4)
    assert table.strategy.tolist() == ["easy", "medium", "hard", "random", "learnability"]
    dead = table.set_index("strategy").predicted_dead_share
    assert dead["learnability"] == dead.min() == pytest.approx(2 * 0.5**4)  # the two p = .5 problems (medium ties)
    summary, _ = explorer_view({"m": hand_table()}, "m", 4, "hard", 0.3)
    assert explorer_title(summary) == "m: hard at budget 30% of the pool (3 of 10 problems)"


def test_each_widget_carries_a_static_picture_of_its_default_state():
    import vl_convert

    from course_lib.classroom.plots import count_marks

    for box in (dead_group_widget(), budget_explorer({"m": hand_table()})):
        svg = vl_convert.vegalite_to_svg(box.picture.to_dict())
        assert count_marks(svg) > 0 and "NaN" not in svg


def test_no_progress_bar_in_a_notebook_executed_headlessly(monkeypatch):
    from course_lib.classroom.runtime import CHARTS_VARIABLE, progress_bar

    monkeypatch.setenv(CHARTS_VARIABLE, "svg")  # what course_lib.classroom.notebooks.execute sets for its kernels
    assert progress_bar(range(2), disable=False).disable
    monkeypatch.setenv(CHARTS_VARIABLE, "live")
    assert not progress_bar(range(2), disable=False).disable and progress_bar(range(2), disable=True).disable


def test_show_adds_the_picture_only_in_a_static_copy(monkeypatch):
    from course_lib.classroom.runtime import CHARTS_VARIABLE
    from course_lib.classroom.widgets import show

    shown = []
    monkeypatch.setattr("course_lib.classroom.widgets.display", lambda obj, **kw: shown.append(obj))
    box = dead_group_widget()
    monkeypatch.setenv(CHARTS_VARIABLE, "live")
    show(box)
    assert shown == [box]
    monkeypatch.setenv(CHARTS_VARIABLE, "svg")
    show(box)
    assert shown[1:] == [box, box.picture]


def test_a_static_copy_of_the_explorer_shows_its_tables_at_their_default_state(monkeypatch):
    from course_lib.classroom.runtime import CHARTS_VARIABLE
    from course_lib.classroom.widgets import show

    shown = []
    monkeypatch.setattr("course_lib.classroom.widgets.display", lambda obj, **kw: shown.append(obj))
    monkeypatch.setenv(CHARTS_VARIABLE, "svg")
    box = budget_explorer({"m": hand_table()})
    shown.clear()  # what its first redraw displayed inside the widget
    show(box)
    assert shown[:2] == [box, box.picture] and len(shown) == 3
    numbers, side_by_side = shown[2].data.split("<p>Every strategy")
    assert "hard" in box.picture.to_dict()["title"]["text"]  # the picture, the numbers and the table: one state
    assert "10% of 10 = 1 problems" in numbers and "predicted dead groups" in numbers
    assert side_by_side.count("<tr") == 6 and '<tr style="font-weight:bold"><td>hard</td>' in side_by_side


QUESTION = {"it stops": (False, "the loss value is about 0 by construction."),
            "nothing": (True, "advantages sum to zero per group."),
            "all dead": (False, "live groups also sum to zero.")}


@pytest.mark.parametrize(("choice", "right", "says"), [
    ("nothing", True, "Right. advantages"), ("it stops", False, "Not quite. the loss value"),
    ("all dead", False, "Not quite. live groups"), (None, False, "Pick an option."),
])
def test_quiz_feedback_explains_every_option(choice, right, says):
    from course_lib.classroom.widgets import quiz_feedback

    assert quiz_feedback(QUESTION, choice) == (right, says + quiz_feedback(QUESTION, choice)[1][len(says):])
    assert quiz_feedback(QUESTION, choice)[1].startswith(says)


@pytest.mark.parametrize(("options", "message"), [
    ({"a": (True, "x"), "b": (True, "y")}, "exactly one right option"),
    ({"a": (True, "x"), "b": (False, " ")}, "every option needs its explanation"),
])
def test_quiz_rejects_bad_questions(options, message):
    from course_lib import CourseError
    from course_lib.classroom.widgets import quiz

    with pytest.raises(CourseError, match=message):
        quiz("?", options)


def test_quiz_widget_reacts_and_its_picture_hides_the_answer():
    from course_lib.classroom.widgets import quiz

    box = quiz("What does a loss of 0 tell you?", QUESTION)
    choices, feedback = box.children[1], box.children[2]
    choices.value = "it stops"
    assert "Not quite" in feedback.value
    choices.value = "nothing"
    assert "Right" in feedback.value
    assert "nothing" in box.picture.data and "Right" not in box.picture.data


def test_measured_gain_refuses_two_tasks_or_a_study_given_twice_counted_as_seeds():
    """`budget_explorer(tables, gains=load_study("hard-wins")[0])` pooled arith and shuffle as 10 seeds."""
    from course_lib import CourseError

    gains = pd.DataFrame({"model": "m", "strategy": "hard", "budget": 0.1, "seed": [0, 1, 2] * 2,
                          "task": ["arith"] * 3 + ["shuffle"] * 3, "gain.test": [0.1, 0.2, 0.3] * 2})
    with pytest.raises(CourseError, match="several runs of one seed and arm"):
        explorer_view({"m": hand_table()}, "m", 4, "hard", 0.1, gains=gains)
    one_task, _ = explorer_view({"m": hand_table()}, "m", 4, "hard", 0.1, gains=gains[gains.task == "arith"])
    assert one_task["measured_gain_seeds"] == 3


def test_the_k_slider_follows_the_chosen_models_table():
    """Switching to a model whose table has a smaller K raised inside the callback and left the previous model's
    numbers on screen under the new model's name."""
    two = hand_table().assign(k=2, outcomes=lambda t: t.outcomes.str[:2],
                              n_correct=lambda t: t.outcomes.str[:2].str.count("1"),
                              pass_rate=lambda t: t.outcomes.str[:2].str.count("1") / 2)
    box = budget_explorer({"four": hand_table(), "two": two})
    model, _ = box.children[0].children
    _, k = box.children[1].children
    numbers = box.children[2]
    assert k.max == 4 and k.value == 4
    model.value = "two"
    assert k.max == 2 and k.value == 2 and "explorer-estimation_completions'>20<" in numbers.value  # 10 problems x 2
    model.value = "four"
    assert k.max == 4 and k.value == 2  # the student's K is kept where the table allows it


def test_a_measured_gain_says_how_many_problems_its_runs_trained_on():
    """The explorer matched a study's gain by budget share and showed runs on 100 problems beside '10% of 500 = 50'."""
    from course_lib.classroom.widgets import gain_text, measured_gain

    gains = pd.DataFrame({"model": "m", "strategy": "hard", "budget": 0.1, "seed": [0, 1, 2], "n_selected": 100,
                          "gain.test": [0.1, 0.2, 0.3]})
    gain = measured_gain(gains, "m", "hard", 0.1, 500)
    assert gain["problems"] == 100 and "those runs selected 100 problems at this share" in gain_text(gain)
