"""Selection strategies over a difficulty table: hand-computed picks, seeded ties, budgets, bad input."""

import re
from pathlib import Path

import pandas as pd
import pytest

from course_lib import CourseError
from course_lib.selection import (
    STRATEGIES,
    budget_count,
    charge_estimation,
    degenerate_medium,
    estimation_cost,
    pass_rate_counts,
    pass_rate_histogram,
    select,
    selection_summary,
)

# Ten problems with distinct pass rates, and distinct p(1 - p) (no pair p, 1 - p).
#   sorted by pass rate: p2 .02, p6 .10, p9 .25, p4 .40, p7 .50, p1 .65, p10 .70, p8 .85, p3 .95, p5 1.0
#   p(1 - p):            .0196  .09     .1875   .24     .25     .2275   .21      .1275   .0475   0
HAND = pd.DataFrame(
    [
        ("p1", 3, 0.65),
        ("p2", 5, 0.02),
        ("p3", 1, 0.95),
        ("p4", 2, 0.40),
        ("p5", 1, 1.00),
        ("p6", 5, 0.10),
        ("p7", 3, 0.50),
        ("p8", 2, 0.85),
        ("p9", 4, 0.25),
        ("p10", None, 0.70),  # a problem without a level (GSM8K has none)
    ],
    columns=["id", "level", "pass_rate"],
)
BAND_1_TO_3 = {"p1", "p3", "p4", "p5", "p7", "p8"}  # levels 1-3; p10 has no level


def pool(pass_rates):
    """A table with ids q0, q1, ... for the given pass rates, all at level 1."""
    return pd.DataFrame({"id": [f"q{i}" for i in range(len(pass_rates))], "level": 1, "pass_rate": pass_rates})


@pytest.mark.parametrize(
    "strategy, budget, expected",
    [
        ("hard", 3, ["p2", "p6", "p9"]),  # the 3 lowest, hardest first
        ("easy", 3, ["p5", "p3", "p8"]),  # the 3 highest, easiest first
        ("medium", 3, ["p4", "p7", "p1"]),  # start = (10 - 3) // 2 = 3: sorted positions 3, 4, 5
        ("medium", 4, ["p4", "p7", "p1", "p10"]),  # start = (10 - 4) // 2 = 3: positions 3..6
        ("medium", 2, ["p7", "p1"]),  # start = (10 - 2) // 2 = 4: positions 4, 5
        ("learnability", 3, ["p7", "p4", "p1"]),  # p(1 - p) = .25, .24, .2275
        ("hard", 1, ["p2"]),
        ("easy", 10, ["p5", "p3", "p8", "p10", "p1", "p7", "p4", "p9", "p6", "p2"]),
    ],
)
def test_strategy_on_hand_table(strategy, budget, expected):
    for seed in (0, 1, 7):  # distinct pass rates: the seed cannot matter
        assert select(HAND, strategy, budget, seed=seed) == expected


@pytest.mark.parametrize("strategy", ["easy", "medium", "hard", "random", "learnability"])
def test_fraction_and_count_budgets_agree(strategy):
    # 0.3 of a 10-problem pool is 3 problems
    assert select(HAND, strategy, 0.3, seed=2) == select(HAND, strategy, 3, seed=2)
    assert len(select(HAND, strategy, 1.0)) == 10


def test_random_is_a_seeded_sample():
    picks = [select(HAND, "random", 4, seed=seed) for seed in range(10)]
    for ids in picks:
        assert len(ids) == len(set(ids)) == 4 and set(ids) <= set(HAND["id"])
    assert select(HAND, "random", 4, seed=3) == select(HAND, "random", 4, seed=3)
    # pinned: numpy's PCG64 permutation of the id-sorted table is the same on every platform
    assert select(HAND, "random", 4, seed=3) == ["p9", "p6", "p1", "p2"]
    assert select(HAND, "random", 4, seed=0) == ["p4", "p6", "p2", "p7"]
    assert select(HAND, "levels", 3, seed=3, levels=(1, 2, 3)) == ["p4", "p8", "p7"]
    assert len({tuple(sorted(ids)) for ids in picks}) > 1


def test_selection_ignores_the_tables_row_order():
    shuffled = HAND.sample(frac=1.0, random_state=5)
    for strategy in ("hard", "random", "learnability"):
        assert select(shuffled, strategy, 4, seed=1) == select(HAND, strategy, 4, seed=1)


def test_a_table_with_an_index_column_selects_the_same():
    """A table saved after `reset_index()` has an `index` column; selection reads only id, level and pass_rate."""
    indexed = HAND.sample(frac=1.0, random_state=5).reset_index()
    for strategy in ("hard", "random", "learnability"):
        assert select(indexed, strategy, 4, seed=1) == select(HAND, strategy, 4, seed=1)
    assert select(indexed, "levels", 3, seed=3, levels=(1, 2, 3)) == ["p4", "p8", "p7"]


# Six problems tied at p = 0, then .2, .4, .6, .8: `hard` with a budget of 3 must pick 3 of the 6 tied ones.
TIES = pool([0.0, 0.8, 0.0, 0.0, 0.4, 0.0, 0.2, 0.0, 0.6, 0.0])
TIED_AT_ZERO = {"q0", "q2", "q3", "q5", "q7", "q9"}


def test_ties_are_broken_by_the_seed():
    picks = {seed: select(TIES, "hard", 3, seed=seed) for seed in range(10)}
    for ids in picks.values():
        assert set(ids) <= TIED_AT_ZERO
    assert select(TIES, "hard", 3, seed=4) == picks[4] == ["q0", "q7", "q2"]  # same seed, same ids (pinned)
    assert len({frozenset(ids) for ids in picks.values()}) > 1  # another seed picks other tied problems
    assert set(select(TIES, "hard", 6, seed=8)) == TIED_AT_ZERO  # the whole tied block fits: no choice left
    assert select(TIES, "hard", 8, seed=8)[6:] == ["q6", "q4"]  # after the block, by pass rate


def test_learnability_ties_are_seeded_and_prefer_p_near_half():
    table = pool([0.5, 0.5, 0.5, 0.1, 1.0, 0.0])  # p(1 - p): .25, .25, .25, .09, 0, 0
    picks = [select(table, "learnability", 2, seed=seed) for seed in range(10)]
    assert all(set(ids) <= {"q0", "q1", "q2"} for ids in picks)
    assert len({frozenset(ids) for ids in picks}) > 1
    assert select(table, "learnability", 4, seed=0)[3] == "q3"


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("budget, size", [(3, 3), (6, 6), (0.5, 3), (1.0, 6), (0.1, 1)])  # fractions of the band (6)
def test_levels_band(budget, size, seed):
    ids = select(HAND, "levels", budget, seed=seed, levels=(1, 2, 3))
    assert len(ids) == len(set(ids)) == size and set(ids) <= BAND_1_TO_3
    assert ids == select(HAND, "levels", budget, seed=seed, levels=[1, 2, 3])


def test_levels_band_single_level_and_float_levels():
    assert set(select(HAND, "levels", 2, levels=5)) == {"p2", "p6"}
    as_floats = HAND.assign(level=HAND["level"].astype(float))  # None becomes NaN, 1 becomes 1.0
    assert set(select(as_floats, "levels", 6, levels=(1, 2, 3))) == BAND_1_TO_3


@pytest.mark.parametrize(
    "budget, pool_size, expected",
    [
        (0.1, 500, 50),
        (1.0, 10, 10),
        (0.3, 10, 3),
        (0.01, 10, 1),  # 0.1 of a problem floors to 0: at least one
        (0.15, 10, 1),  # 1.5 floors to 1, as Pikus et al.'s int(len * size)
        (0.29, 100, 29),  # 0.29 * 100 is 28.999... in floating point: still 29
        (1, 10, 1),  # an int is a count, even 1
        (10, 10, 10),
    ],
)
def test_budget_count(budget, pool_size, expected):
    assert budget_count(budget, pool_size) == expected


@pytest.mark.parametrize(
    "budget, message",
    [
        (0, "budget=0 must be positive: a fraction in (0, 1] or a count of at least 1"),
        (-0.1, "budget=-0.1 must be positive"),
        (1.5, "budget=1.5 as a fraction must be in (0, 1]; give a count as an integer"),
        (600, "budget=600 is larger than the pool (500 problems)"),
        (True, "budget=True must be a fraction of the pool in (0, 1] (a float) or a count of problems (an int)"),
        ("10", "budget='10' must be a fraction of the pool"),
        (None, "budget=None must be a fraction of the pool"),
    ],
)
def test_budget_count_rejects(budget, message):
    with pytest.raises(CourseError, match=re.escape(message)):
        budget_count(budget, 500)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"strategy": "hardest"}, "strategy='hardest' is unknown; use one of " + ", ".join(STRATEGIES)),
        ({"strategy": "levels"}, "strategy='levels' needs levels=..."),
        ({"strategy": "levels", "levels": (1, 2, 3), "budget": 7},
         "budget=7 asks for 7 problems but levels [1, 2, 3] hold only 6; lower the budget or widen the levels"),
        # a float is a fraction of the band, never a count: 7.5 is refused as a fraction, not as too many problems
        ({"strategy": "levels", "levels": (1, 2, 3), "budget": 7.5}, "budget=7.5 as a fraction must be in (0, 1]"),
        ({"strategy": "levels", "levels": (1, 2, 3), "budget": float("inf")}, "budget=inf must be positive"),
        ({"strategy": "levels", "levels": (6, 7)}, "no problem in the table has a level in [6, 7]"),
        ({"strategy": "levels", "levels": ()}, "levels is empty"),
        ({"strategy": "hard", "levels": (1, 2)}, "levels=(1, 2) only applies to strategy='levels'"),
        ({"strategy": "hard", "budget": 11}, "budget=11 is larger than the pool (10 problems)"),
        ({"strategy": "hard", "seed": -1}, "seed=-1 must be a non-negative integer"),
    ],
)
def test_select_rejects(kwargs, message):
    arguments = {"table": HAND, "strategy": "hard", "budget": 3} | kwargs
    with pytest.raises(CourseError, match=re.escape(message)):
        select(**arguments)


@pytest.mark.parametrize(
    "table, message",
    [
        (HAND.drop(columns=["level", "pass_rate"]), "table is missing the column(s) level, pass_rate"),
        (HAND.iloc[:0], "table is empty"),
        (pool([0.5, 1.2]), "pass_rate must be a number in [0, 1]; rows ['q1'] are not"),
        (pool([0.5, float("nan")]), "pass_rate must be a number in [0, 1]; rows ['q1'] are not"),
        (pd.concat([HAND, HAND.iloc[:1]]), "table has duplicate ids ['p1']"),
    ],
)
def test_select_rejects_bad_tables(table, message):
    with pytest.raises(CourseError, match=re.escape(message)):
        select(table, "hard", 1)


@pytest.mark.parametrize(
    "pass_rates, budget, expected",
    [
        ([1.0] * 8 + [0.2, 0.5], 2, True),  # sorted: .2 .5 1 1 1 1 1 1 1 1; start 4: window of p = 1 only
        ([1.0] * 10, 0.3, True),  # everything solved
        ([0.0, 0.1, 0.2, 0.3, 0.4, 1.0, 1.0, 1.0, 1.0, 1.0], 4, False),  # start 3: window .3 .4 1 1
        ([0.5, 0.5, 0.5, 0.1, 0.9], 3, False),  # the window is exactly the tied block: a real middle
    ],
)
def test_degenerate_medium(pass_rates, budget, expected):
    assert degenerate_medium(pool(pass_rates), budget) is expected


def test_degenerate_medium_false_on_distinct_pass_rates():
    assert not any(degenerate_medium(HAND, budget) for budget in range(1, 11))


def test_estimation_cost():
    # 1000 problems x 8 samples = 8000 completions; x 30 tokens = 240000 tokens
    assert estimation_cost(1000, 8, 30) == {"completions": 8000, "tokens": 240000}


@pytest.mark.parametrize(
    "budget, pool_size, k, cost, expected",
    [
        # 1000 x 8 completions at 1/100 annotation each = 80 annotations; 100 - 80 = 20 left for hard problems
        (100, 1000, 8, 0.01, {"annotate_more": 100, "estimate_first": 20, "estimation_cost": 80.0}),
        # at 1/1000 each: 8 annotations spent, 92 left
        (100, 1000, 8, 0.001, {"annotate_more": 100, "estimate_first": 92, "estimation_cost": 8.0}),
        # estimation costs more than the whole budget: nothing left to annotate
        (50, 1000, 8, 0.01, {"annotate_more": 50, "estimate_first": 0, "estimation_cost": 80.0}),
        # free sampling: estimating first costs nothing
        (10, 100, 4, 0, {"annotate_more": 10, "estimate_first": 10, "estimation_cost": 0}),
    ],
)
def test_charge_estimation(budget, pool_size, k, cost, expected):
    assert charge_estimation(budget, pool_size, k, cost) == pytest.approx(expected)


@pytest.mark.parametrize(
    "args, message",
    [
        ((0, 100, 8, 0.01), "budget_in_annotations=0 must be an integer in [1, pool_size=100]"),
        ((101, 100, 8, 0.01), "budget_in_annotations=101 must be an integer in [1, pool_size=100]"),
        ((10, 100, 0, 0.01), "k=0 must be a positive integer"),
        ((10, 100, 8, -1), "cost_of_one_completion_in_annotations=-1 must be a finite number >= 0"),
        ((10, 100, 8, float("inf")), "cost_of_one_completion_in_annotations=inf must be a finite number >= 0"),
        ((10, 100, 8, float("nan")), "cost_of_one_completion_in_annotations=nan must be a finite number >= 0"),
    ],
)
def test_charge_estimation_rejects(args, message):
    with pytest.raises(CourseError, match=re.escape(message)):
        charge_estimation(*args)


# Boundaries and branches that mutation testing found untested (a `>=` that could be `>`, a message that could be
# lost, a tie order that an unstable sort would scramble)


def test_the_smallest_valid_inputs_are_accepted():
    assert budget_count(1, 1) == 1 and budget_count(1.0, 1) == 1  # a pool of one problem
    assert select(HAND.iloc[:1], "hard", 1) == ["p1"]  # a table of one problem
    assert select(HAND, "levels", 1, levels=4) == ["p9"]  # a band of one problem
    assert estimation_cost(1, 1, 0.5) == {"completions": 1, "tokens": 0.5}  # one problem, one sample
    assert charge_estimation(1, 1, 1, 0.0) == {"annotate_more": 1, "estimate_first": 1, "estimation_cost": 0.0}
    assert charge_estimation(5, 5, 1, 0.2)["estimate_first"] == 4  # a budget as large as the pool


@pytest.mark.parametrize(("call", "message"), [
    (lambda: budget_count(0.5, 1.5), "pool_size=1.5 must be a positive integer"),
    (lambda: budget_count(0.5, 0), "pool_size=0 must be a positive integer"),
    (lambda: estimation_cost(0, 8, 30), "pool_size=0 must be a positive integer"),
    (lambda: estimation_cost(10, 8, 0), "tokens_per_completion=0 must be a positive number"),
    (lambda: estimation_cost(10, 8, "30"), "tokens_per_completion='30' must be a positive number"),
    (lambda: select(HAND.to_dict("records"), "hard", 1), "table must be a pandas DataFrame, not list"),
    (lambda: select(HAND, "levels", 1, levels=("1",)), "levels=['1'] must be integers"),
    (lambda: select(HAND, "hard", 1, seed=1.0), "seed=1.0 must be a non-negative integer"),
    (lambda: select(HAND.assign(pass_rate=["high"] + [0.5] * 9), "hard", 1),
     "pass_rate must be a number in [0, 1]; rows ['p1'] are not"),
])
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(CourseError, match=re.escape(message)):
        call()


@pytest.mark.parametrize(("budget", "pool_size", "k", "cost", "left"), [
    (10, 100, 1, 0.07, 3),  # 10 - 7.000000000000001 is 2.999999999999999 in floating point: still 3 left
    (100, 1000, 8, 0.01005, 19),  # 100 - 80.4 = 19.6: 19 whole annotations, not 20
])
def test_charge_estimation_floors_what_is_left(budget, pool_size, k, cost, left):
    assert charge_estimation(budget, pool_size, k, cost)["estimate_first"] == left


def test_degenerate_medium_looks_at_the_centred_window():
    # sorted: 0 .1 .2 [.5 .5] .5 .5 .9 1: the centred 2-wide window (start (9 - 2) // 2 = 3) lies in the block of .5
    assert degenerate_medium(pool([0.0, 0.1, 0.2, 0.5, 0.5, 0.5, 0.5, 0.9, 1.0]), 2)
    assert not degenerate_medium(pool([0.0, 0.1, 0.2, 0.3, 0.5, 0.5, 0.5, 0.9, 1.0]), 2)  # window .3 .5


def test_ties_keep_the_seeded_order_in_a_large_pool():
    """With many ties, `hard` takes the tied problems in the seeded random order (a stable sort): the first five at
    p = 0 that `random` would list, whatever the sort's size."""
    rates = [0.0 if i % 2 else 0.05 * (i % 7) + 0.1 for i in range(60)]
    table = pool(rates)
    order = select(table, "random", 60, seed=5)
    at_zero = [i for i in order if rates[int(i[1:])] == 0.0]
    assert select(table, "hard", 5, seed=5) == at_zero[:5]


def test_integer_and_string_ids_give_the_same_picks():
    """Ids read back from a CSV can come as numbers: the seeded order is over their text, so the picks agree."""
    numbers = pd.DataFrame({"id": [9, 10, 100, 11, 2, 30], "level": 1, "pass_rate": [0.5] * 6})
    as_text = numbers.assign(id=numbers["id"].astype(str))
    assert select(numbers, "random", 3, seed=1) == select(as_text, "random", 3, seed=1)


def test_random_and_level_arms_select_from_a_pool_that_was_never_estimated():
    unestimated = HAND.assign(pass_rate=float("nan"))  # experiment.pool_table: the papers' level and random arms
    assert len(select(unestimated, "random", 3, seed=0)) == 3
    assert set(select(unestimated, "levels", 1.0, levels=(1,))) == set(HAND[HAND.level == 1].id)
    with pytest.raises(CourseError, match="pass_rate must be a number in"):
        select(unestimated, "hard", 3)  # hard reads the rates: a missing one is an error
    with pytest.raises(CourseError, match="pass_rate must be a number in"):
        select(HAND.assign(pass_rate=[1.5] + [float("nan")] * 9), "random", 3)  # present but impossible


@pytest.mark.parametrize(("args", "expected"), [
    # hard 3 of HAND: p2 .02, p6 .10, p9 .25 -> mean .37 / 3; all mixed; dead share with G = 4 is
    # mean(p^4 + (1 - p)^4) = mean(.92236832, .6562, .3203125) = .63296
    ((HAND, "hard", 3, 4), {"n_selected": 3, "mean_pass_rate": 0.1233, "share_mixed": 1.0,
                            "predicted_dead_share": 0.633, "ids": ["p2", "p6", "p9"]}),
    # easy 3 of HAND: p5 1.0 (not mixed), p3 .95, p8 .85 -> mean 2.8 / 3; dead: mean(1, .8145125, .5225125)
    ((HAND, "easy", 3, 4), {"n_selected": 3, "mean_pass_rate": 0.9333, "share_mixed": 0.6667,
                            "predicted_dead_share": 0.779, "ids": ["p5", "p3", "p8"]}),
    # the whole pool 0, .5, 1: only .5 is mixed (0 and 1 are not); G = 8 by default: mean(1, 2 * .5^8, 1)
    ((pool([0.0, 0.5, 1.0]), "random", 1.0), {"n_selected": 3, "mean_pass_rate": 0.5, "share_mixed": 0.3333,
                                              "predicted_dead_share": 0.6693, "ids": ["q2", "q0", "q1"]}),
    ((pool([0.0, 0.5, 1.0]), "random", 1.0, 2), {"predicted_dead_share": 0.8333}),  # G = 2: mean(1, .5, 1)
])
def test_selection_summary_by_hand(args, expected):
    summary = selection_summary(*args)
    assert summary["strategy"] == args[1] and not summary["medium_degenerate"]
    assert {key: summary[key] for key in expected} == expected


def test_selection_summary_reads_ids_as_text_and_passes_seed_and_levels():
    numbers = pd.DataFrame({"id": [7, 8, 9, 10], "level": 1, "pass_rate": [0.0, 0.5, 0.5, 1.0]})
    # hard 2: ids 7 (p 0) and 8 (p .5): mean .25, half mixed, dead share with G = 4: mean(1, 2 * .5^4) = .5625
    summary = selection_summary(numbers, "hard", 2, 4)
    assert (summary["ids"], summary["mean_pass_rate"], summary["share_mixed"], summary["predicted_dead_share"]) == (
        ["7", "8"], 0.25, 0.5, 0.5625)
    assert selection_summary(HAND, "random", 3, seed=3)["ids"] == select(HAND, "random", 3, seed=3) == ["p9", "p6", "p1"]
    # levels 1-2 of HAND: p3 .95, p4 .40, p5 1.0, p8 .85 -> mean .8, three of four mixed, dead share with G = 8:
    # mean(.66342043, .01745152, 1, .27249078) = .48834
    band = selection_summary(HAND, "levels", 1.0, levels=[1, 2])
    assert sorted(band["ids"]) == ["p3", "p4", "p5", "p8"]
    assert (band["n_selected"], band["mean_pass_rate"], band["share_mixed"], band["predicted_dead_share"]) == (
        4, 0.8, 0.75, 0.4883)


def test_selection_summary_flags_a_degenerate_medium_pick_only():
    all_solved = pool([1.0] * 6)
    assert selection_summary(all_solved, "medium", 2)["medium_degenerate"] is True  # a seeded pick among ties
    assert selection_summary(all_solved, "hard", 2)["medium_degenerate"] is False  # only `medium` claims the middle
    assert selection_summary(HAND, "medium", 3)["medium_degenerate"] is False  # distinct rates: a real middle


def test_pass_rate_histogram_counts_selected_and_not_selected_per_possible_pass_rate():
    numbers = pd.DataFrame({"id": [7, 8, 9, 10], "level": 1, "k": 2, "pass_rate": [0.0, 0.5, 0.5, 1.0]})
    histogram = pass_rate_histogram(numbers, ["8", "10"])  # ids as the selection gives them: text
    assert histogram[["set", "label", "problems"]].to_dict("records") == [
        {"set": "selected", "label": "0/2", "problems": 0}, {"set": "selected", "label": "1/2", "problems": 1},
        {"set": "selected", "label": "2/2", "problems": 1}, {"set": "not selected", "label": "0/2", "problems": 1},
        {"set": "not selected", "label": "1/2", "problems": 1}, {"set": "not selected", "label": "2/2", "problems": 0},
    ]


@pytest.mark.parametrize("k", [2, 3, 8])
def test_pass_rate_counts_has_a_bar_for_every_possible_value_and_no_other(k):
    """One bar per j/K, j = 0..K, even where no problem sits (no bin without a possible value, as a 0.4-0.5 bin at
    K = 8 would be, and no bin holding two values)."""
    rates = [j / k for j in (0, 0, k)]  # only the two ends are taken
    counts = pass_rate_counts(pd.DataFrame({"level": [1, 2, 2], "k": k, "pass_rate": rates}), "level")
    assert len(counts) == 2 * (k + 1)
    for _, bars in counts.groupby("level"):
        assert bars.pass_rate.tolist() == [j / k for j in range(k + 1)] and bars.label.tolist()[-1] == f"{k}/{k}"
    assert counts.set_index(["level", "right"]).problems.to_dict() == {
        (level, j): int((level, j) in {(1, 0), (2, 0), (2, k)}) for level in (1, 2) for j in range(k + 1)}


@pytest.mark.parametrize(("table", "says"), [
    (pd.DataFrame({"level": [1, 1], "k": [4, 8], "pass_rate": [0.25, 0.125]}), "mixes samples per problem"),
    (pd.DataFrame({"level": [1], "k": [8], "pass_rate": [0.3]}), "not a whole number of right answers"),
])
def test_pass_rate_counts_refuses_rates_that_are_not_j_over_k(table, says):
    with pytest.raises(CourseError, match=says):
        pass_rate_counts(table, "level")


def test_pass_rate_counts_refuses_groups_that_leave_problems_out_and_a_k_that_is_not_a_count():
    """groups=[1, 2] on a table with levels 1-4 counted 2 of its 4 problems; K = 2.5 was counted as K = 2."""
    table = pd.DataFrame({"level": [1, 2, 3, 4], "k": 8, "pass_rate": [0.0, 0.5, 1.0, 0.125]})
    assert pass_rate_counts(table, "level", groups=[4, 3, 2, 1])["problems"].sum() == 4
    with pytest.raises(CourseError, match=r"^groups=\[1, 2\] leaves out level \[3, 4\] of the table"):
        pass_rate_counts(table, "level", groups=[1, 2])
    for k in (2.5, 0, float("nan")):
        with pytest.raises(CourseError, match=rf"^k={k} must be a whole number of samples per problem >= 1$"):
            pass_rate_counts(table.assign(k=k, pass_rate=0.0), "level")


def test_round_23_pass_rate_counts_refuses_groups_naming_a_value_twice_or_a_bool():
    """Hostile round 23: groups=[1, 2, 2] counted level 2's problems twice (6 of 3), and groups=[True, 2] counted
    level 1 under the label True."""
    table = pd.DataFrame({"level": [1, 1, 2, 2], "k": 4, "pass_rate": [0.0, 0.25, 0.5, 1.0]})
    for groups in ([1, 2, 2], [1, 1.0, 2]):
        with pytest.raises(CourseError, match=r"^groups=\[.*\] names a value twice, .*; give each value once$"):
            pass_rate_counts(table, "level", groups=groups)
    with pytest.raises(CourseError, match=r"^groups=\[True, 2\] holds a bool, .*; give the values themselves$"):
        pass_rate_counts(table, "level", groups=[True, 2])
    picked = table.assign(picked=[True, False, True, False])
    assert pass_rate_counts(picked, "picked", groups=[True, False])["problems"].sum() == 4  # a column of bools


def test_pass_rate_counts_takes_one_sample_per_problem_text_rates_and_names_mixed_left_out_groups():
    """K = 1 is a count (two bars: 0/1 and 1/1); pass rates read as text count as numbers; groups of mixed types
    that are left out are named, not a TypeError from sorting them."""
    one = pass_rate_counts(pd.DataFrame({"level": [1, 1, 2], "k": 1, "pass_rate": [0.0, 1.0, 1.0]}), "level")
    assert one["label"].tolist() == ["0/1", "1/1"] * 2 and one["problems"].tolist() == [1, 1, 0, 1]
    text = pd.DataFrame({"level": [1, 2], "k": 4, "pass_rate": ["0.25", "1.0"]})
    assert pass_rate_counts(text, "level")["problems"].tolist() == [0, 1, 0, 0, 0] + [0, 0, 0, 0, 1]
    mixed = pd.DataFrame({"level": [1, 2, "a"], "k": 4, "pass_rate": [0.0, 0.5, 1.0]})
    with pytest.raises(CourseError, match=r"^groups=\[1\] leaves out level \[2, 'a'\] of the table"):
        pass_rate_counts(mixed, "level", groups=[1])


def test_pass_rate_counts_refuses_a_grouping_column_the_table_lacks_naming_those_it_has():
    table = pd.DataFrame({"level": [1], "k": [4], "pass_rate": [0.25]})
    with pytest.raises(CourseError, match=r"^by='source' is not a column of the table; use one of level, k, pass_rate$"):
        pass_rate_counts(table, "source")


def test_select_seeds_with_0_by_default_and_reads_pass_rates_given_as_text():
    """The default seed is 0 (what a table's provenance records when none was given); pass rates read as text
    (a CSV read without types) select exactly as the numbers do, for every strategy that reads them."""
    assert select(HAND, "random", 4) == select(HAND, "random", 4, seed=0) != select(HAND, "random", 4, seed=1)
    as_text = HAND.assign(pass_rate=HAND["pass_rate"].astype(str))
    for strategy in ("easy", "medium", "hard", "learnability"):
        assert select(as_text, strategy, 4, seed=2) == select(HAND, strategy, 4, seed=2), strategy


def test_degenerate_medium_refuses_a_table_with_a_missing_pass_rate():
    with pytest.raises(CourseError, match=r"pass_rate must be a number in \[0, 1\]; rows \['q1'\] are not"):
        degenerate_medium(pool([0.5, float("nan"), 0.5]), 1)  # it reads every rate: none may be missing


def test_a_levels_budget_above_1_that_is_not_a_count_names_the_fraction_rule():
    """1.5 is neither a fraction of the band nor a count: the fraction's rule is what is broken, not the band's size."""
    with pytest.raises(CourseError, match=r"^budget=1\.5 as a fraction must be in \(0, 1\]; give a count as an integer$"):
        select(HAND, "levels", 1.5, levels=(1,))


def test_a_budget_that_cuts_through_tied_problems_is_found_for_every_ranking_strategy():
    """60 problems at p = 0, 2 at 0.5, 38 at 1, a budget of 10: every strategy but random picks among ties somewhere
    (medium's window lies inside the p = 0 block; learnability takes the two p = 0.5 and 8 of 98 at p(1 - p) = 0)."""
    from course_lib.selection import tie_at_the_cut

    table = pd.DataFrame({"id": [f"p{i}" for i in range(100)], "level": 1,
                          "pass_rate": [0.0] * 60 + [0.5] * 2 + [1.0] * 38})
    assert tie_at_the_cut(table, "hard", 10) == [{"key": "pass rate", "value": 0.0, "tied": 60, "picked": 10}]
    assert tie_at_the_cut(table, "medium", 10) == [{"key": "pass rate", "value": 0.0, "tied": 60, "picked": 10}]
    assert tie_at_the_cut(table, "easy", 10) == [{"key": "pass rate", "value": 1.0, "tied": 38, "picked": 10}]
    assert tie_at_the_cut(table, "learnability", 10) == [{"key": "p(1 - p) =", "value": 0.0, "tied": 98, "picked": 8}]
    as_text = table.assign(pass_rate=table["pass_rate"].astype(str))  # a CSV read without types
    assert tie_at_the_cut(as_text, "learnability", 10) == [{"key": "p(1 - p) =", "value": 0.0, "tied": 98, "picked": 8}]
    assert tie_at_the_cut(table, "random", 10) == [] and tie_at_the_cut(table, "levels", 10) == []
    assert tie_at_the_cut(table.iloc[:0], "hard", 10) == []  # an empty table: nothing to cut
    assert tie_at_the_cut(table, "hard", 62) == []  # the whole blocks at 0 and 0.5: nothing cut
    inner = table.assign(pass_rate=[0.0] * 2 + [0.125] * 60 + [1.0] * 38)  # a block cut away from the extreme
    assert tie_at_the_cut(inner, "hard", 10) == [{"key": "pass rate", "value": 0.125, "tied": 60, "picked": 8}]


def test_round_23_a_medium_window_that_cuts_two_blocks_of_ties_names_both():
    """Hostile round 23: medium's window [.25, .5, .5, .75] takes 1 of 3 problems at 0.25 and 1 of 3 at 0.75, both
    by the seed alone; only the block at 0.25 was reported, so `select`'s warning named half of the seed's choice."""
    from course_lib.__main__ import warn_if_picked_among_ties
    from course_lib.selection import degenerate_medium, tie_at_the_cut

    table = pd.DataFrame({"id": [f"q{i}" for i in range(10)], "level": 1,
                          "pass_rate": [0, 0.25, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 0.75, 1]})
    assert tie_at_the_cut(table, "medium", 4) == [{"key": "pass rate", "value": 0.25, "tied": 3, "picked": 1},
                                                  {"key": "pass rate", "value": 0.75, "tied": 3, "picked": 1}]
    assert not degenerate_medium(table, 4)  # two cut ends around a whole block: middle difficulty still
    with pytest.warns(UserWarning, match=r"^'medium' picked 1 of 3 problems tied at pass rate 0.25 and 1 of 3 "
                                         r"problems tied at pass rate 0.75: among them the choice is the seed's"):
        warn_if_picked_among_ties(table, select(table, "medium", 4), "medium")


def test_learnability_ties_p_and_one_minus_p_for_any_k():
    """At K=5, 0.2 x 0.8 and 0.8 x 0.2 differ in the last bit: every seed picked the p=0.2 half and no tie was named."""
    from course_lib.selection import tie_at_the_cut

    table = pd.DataFrame({"id": [f"q{i:02d}" for i in range(40)], "pass_rate": [1 / 5] * 20 + [4 / 5] * 20,
                          "level": 1})
    picks = [set(select(table, "learnability", 20, seed)) for seed in range(4)]
    easy_half = {f"q{i:02d}" for i in range(20, 40)}
    assert any(pick & easy_half for pick in picks) and not all(pick <= easy_half for pick in picks)
    assert tie_at_the_cut(table, "learnability", 20) == [{"key": "p(1 - p) =", "value": 0.16, "tied": 40, "picked": 20}]


def _counted_table(row=None, column=None, value=None) -> pd.DataFrame:
    table = pd.DataFrame({"id": [f"p{i}" for i in range(8)], "level": [1, 1, 2, 2, 3, 3, 4, 4], "k": 4,
                          "pass_rate": [0, 0.25, 0.5, 0.75, 1, 0, 0.25, 0.5]})
    if column:
        table.loc[row, column] = value
    return table


def test_counts_and_histograms_refuse_rows_they_cannot_place():
    """Round 12: a NaN level or a pass rate of 1.5 dropped a row from the counts; ids not in the table, or one id as
    a bare string, counted 0 selected."""
    assert pass_rate_counts(_counted_table(), "level")["problems"].sum() == 8
    with pytest.raises(CourseError, match=r"level is missing in rows \[0\]"):
        pass_rate_counts(_counted_table(0, "level", float("nan")), "level")
    with pytest.raises(CourseError, match=r"pass_rate must be from 0 to 1 in every row; rows \[2\]"):
        pass_rate_counts(_counted_table(2, "pass_rate", 1.5), "level")
    assert pass_rate_histogram(_counted_table(), ["p1", "p2"]).groupby("set")["problems"].sum().to_dict() == {
        "not selected": 6, "selected": 2}
    with pytest.raises(CourseError, match=r"ids \['yy', 'zz'\] are not in the table"):
        pass_rate_histogram(_counted_table(), ["zz", "yy"])
    with pytest.raises(CourseError, match="ids='p1' must be a list of ids, not one string"):
        pass_rate_histogram(_counted_table(), "p1")


@pytest.mark.parametrize(("levels", "said"), [(True, "must be integers"), ((1, True), "must be integers"),
                                              ((1, 1), "names a level twice")])
def test_a_level_given_as_a_bool_or_twice_is_refused(levels, said):
    with pytest.raises(CourseError, match=said):
        select(_counted_table(), "levels", 2, levels=levels)


def test_round_16_a_missing_id_or_mixed_level_types_are_one_line():
    import pandas as pd

    from course_lib import CourseError
    from course_lib.selection import select

    blank = pd.DataFrame({"id": pd.array(["a", "b", None], dtype="string"), "pass_rate": [0.1, 0.2, 0.3], "level": 1})
    with pytest.raises(CourseError, match="table row 3 has id <NA>"):
        select(blank, "hard", 2)  # was: a float NaN among the ids returned
    mixed = pd.DataFrame({"id": ["a", "b", "c"], "pass_rate": [0.1, 0.2, 0.3], "level": [1, "2", 3]})
    with pytest.raises(CourseError, match=r"the table's levels are \[1, '2', 3\]"):
        select(mixed, "levels", 2, levels=[5])  # was: a TypeError from sorting the levels for the message
    blank_level = pd.DataFrame({"id": ["a", "b", "c"], "pass_rate": [0.1, 0.2, 0.3], "level": [1, 2, None]})
    with pytest.raises(CourseError, match=r"the table's levels are \[1, 2\]$"):
        select(blank_level, "levels", 2, levels=[0])  # was: [1.0, 2.0], levels the table does not write


def test_round_16_a_level_asked_for_that_the_table_lacks_is_said_not_dropped_in_silence():
    import pandas as pd

    from course_lib.selection import select

    table = pd.DataFrame({"id": list("abcd"), "pass_rate": [0.1, 0.2, 0.3, 0.4], "level": [1, 1, 2, 2]})
    with pytest.warns(UserWarning, match=r"levels=\[1, 9\]: the table has no problem of level\(s\) \[9\]") as said:
        assert sorted(select(table, "levels", 2, levels=[1, 9])) == ["a", "b"]  # was: level 1 alone, in silence
    assert str(said[0].message).endswith("(its levels are [1, 2]); the selection holds the others only")
    assert sorted(select(table, "levels", 4, levels=[1, 2])) == list("abcd")


# Mutation survivors (group n2)
def test_a_budget_below_one_problem_is_said_at_the_line_that_called_select():
    """The warning points at the caller's code, where the budget was written, not at a line inside course_lib."""
    with pytest.warns(UserWarning, match=r"budget=0.01 of 10 problems is less than one problem; selecting 1") as said:
        assert select(HAND, "hard", 0.01) == ["p2"]
    assert "course_lib" not in Path(said[0].filename).parts


def test_the_selections_warnings_point_at_the_callers_line_whatever_the_strategy():
    """With strategy="levels" both warnings came one frame deeper and were shown at a line of selection.py."""
    table = _counted_table()
    for call in (lambda: select(table, "levels", 0.01, levels=[1]), lambda: select(table, "levels", 2, levels=[1, 9]),
                 lambda: select(table, "medium", 0.01)):
        with pytest.warns(UserWarning) as said:
            call()
        assert said and all("course_lib" not in Path(w.filename).parts for w in said), [w.filename for w in said]


def test_a_warning_names_the_callers_own_file_and_line_not_one_above_or_below_it():
    """errors.warn counts the library's frames between it and the caller: one too many names the frame that called
    the caller (pytest's here, outside course_lib too), one too few a line inside the library."""
    import inspect

    with pytest.warns(UserWarning, match="less than one problem") as said:
        line = inspect.currentframe().f_lineno + 1
        select(HAND, "hard", 0.01)
    assert (Path(said[0].filename), said[0].lineno) == (Path(__file__), line)
