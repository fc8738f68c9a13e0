"""Reading study results: t-intervals across seeds, paired differences, per-level change (notebooks 05-07)."""

import numpy as np
import pandas as pd
import pytest

from course_lib import CourseError
from course_lib.research.studies import (
    equivalence_verdict,
    gain_by_strategy,
    gain_verdicts,
    interval_text,
    load_study,
    mechanism_table,
    paired_difference,
    paired_verdicts,
    per_level_change,
    per_level_verdicts,
    rank_correlation,
    sd_upper_bound,
    seed_plan,
    seeds_needed,
    selected_pass_rates,
    t_interval,
    with_gain_beyond_chance,
)
from course_lib.selection import select


def synthetic_table():
    """Three seeds x two strategies; hard = random + 0.05 within every seed (to +-0.002: seeds that agree exactly
    measure no noise), while seeds differ a lot."""
    rows = []
    for seed, shift, wobble in zip((0, 1, 2), (0.0, 0.2, -0.1), (0.0, 0.002, -0.002)):
        for strategy, extra in (("random", 0.0), ("hard", 0.05 + wobble)):
            rows.append({"task": "arith", "model": "tiny-m", "strategy": strategy, "seed": seed, "status": "ok",
                         "gain.test": shift + extra, "steps": 17, "learnable_share_of_steps": 0.5 + extra,
                         "selected_share_mixed": 0.8, "predicted_dead_share": 0.2,
                         "accuracy_before_by_level.test.1": 0.5, "accuracy_after_by_level.test.1": 0.5 + shift + extra})
    return pd.DataFrame(rows)


def test_t_interval_matches_the_textbook_formula_and_handles_one_seed():
    interval = t_interval([1.0, 2.0, 3.0, 4.0, 5.0])  # mean 3, sd 1.5811, t(4) = 2.7764
    assert interval["mean"] == 3.0
    assert interval["ci_high"] == pytest.approx(3 + 2.7764451 * 1.5811388 / 5 ** 0.5, abs=1e-4)
    assert t_interval([0.2])["seeds"] == 1 and pd.isna(t_interval([0.2])["ci_low"])


def _values_with_low_bound(low: float, spread: float = 0.1) -> list[float]:
    """Two seeds whose 95% t-interval starts exactly at `low`: mean - t(1) sd / sqrt(2) = low, with sd = spread / sqrt(2)."""
    from scipy.stats import t as student_t

    half = float(student_t.ppf(0.975, 1)) * spread / 2
    return [low + half - spread / 2, low + half + spread / 2]


@pytest.mark.parametrize(("values", "excludes_zero"), [
    (_values_with_low_bound(0.0), False),  # the interval touches 0: not above it
    ([-v for v in _values_with_low_bound(0.0)], False),  # touches 0 from below
    (_values_with_low_bound(0.5), True),  # above 0, below 1
    ([-v for v in _values_with_low_bound(0.5)], True),  # below 0
    ([-0.1, 0.1, 0.05], False),  # straddles 0
], ids=["low at 0", "high at 0", "above 0", "below 0", "straddles 0"])
def test_t_interval_excludes_zero_only_strictly(values, excludes_zero):
    interval = t_interval(values)
    assert set(interval) == {"mean", "ci_low", "ci_high", "seeds", "excludes_zero"}
    assert interval["excludes_zero"] is excludes_zero and interval["seeds"] == len(values)


def test_an_arm_with_one_seed_gets_no_verdict_but_one_line():
    """gain_verdicts and per_level_verdicts on an arm that ran one seed: the verdict's own refusal, not an IndexError."""
    one = pd.DataFrame({"model": ["m"], "strategy": ["hard"], "seed": [0], "gain.test": [0.02], "base_variance.test": [1e-4],
                        "eval_k.test": [4], "accuracy_before_by_level.test.1": [0.5],
                        "accuracy_after_by_level.test.1": [0.52]})
    for verdicts in (lambda: gain_verdicts(one, 0.03), lambda: per_level_verdicts(one, 0.03, problems_per_level=60)):
        with pytest.raises(CourseError, match="^1 seed\\(s\\): an interval from fewer than 3 seeds says nothing"):
            verdicts()


def test_rank_correlation_is_spearman_with_a_seeded_percentile_bootstrap_over_pairs():
    """rho is Spearman's on all pairs; the interval is the 2.5th and 97.5th percentile of Spearman's rho over
    resamples of the pairs drawn with numpy's generator from `seed` (ties-only resamples skipped), to 4 places."""
    from scipy.stats import spearmanr

    def by_hand(x, y, resamples, seed):
        rng = np.random.default_rng(seed)
        draws = []
        for _ in range(resamples):
            picked = rng.integers(0, len(x), len(x))
            if len(set(picked)) > 1:
                draws.append(spearmanr([x[i] for i in picked], [y[i] for i in picked]).statistic)
        low, high = np.nanpercentile(draws, [2.5, 97.5])
        return {"rho": round(float(spearmanr(x, y).statistic), 4), "ci_low": round(float(low), 4),
                "ci_high": round(float(high), 4), "n": len(x)}

    x, y = [1, 2, 3, 4, 5, 6, 7], [2, 1, 4, 3, 7, 5, 6]
    assert rank_correlation(x, y, resamples=200, seed=3) == by_hand(x, y, 200, 3)
    assert rank_correlation(x, y, resamples=200, seed=3)["rho"] == 0.8214  # 1 - 6 * 10 / (7 * 48), by hand
    # a looser relation, so that neither bound sits at 1 and both have a fifth decimal to round away
    x = list(range(12))
    y = [0.503, 0.472, 4.562, 3.42, 1.857, 6.446, 11.216, 10.788, 5.185, 3.938, 7.507, 11.165]
    assert rank_correlation(x, y, resamples=200, seed=3) == by_hand(x, y, 200, 3)
    assert rank_correlation(x, y, resamples=200, seed=3) == {"rho": 0.7133, "ci_low": 0.2127, "ci_high": 0.9349,
                                                             "n": 12}
    assert rank_correlation(x[:4], y[:4], resamples=50)["n"] == 4  # four pairs are enough
    # 05, 07 and A1 call it with the defaults: 2,000 resamples drawn from seed 0
    assert rank_correlation(x, y) == by_hand(x, y, 2000, 0)


def test_t_interval_rounds_to_four_places_and_one_seed_has_no_interval():
    from scipy.stats import t as student_t

    values = [0.123456, 0.234567, 0.345678]
    half = float(student_t.ppf(0.975, 2)) * float(np.std(values, ddof=1)) / 3 ** 0.5
    mean = sum(values) / 3
    assert t_interval(values) == {"mean": round(mean, 4), "ci_low": round(mean - half, 4), "ci_high": round(mean + half, 4),
                                  "seeds": 3, "excludes_zero": False}
    one = t_interval([0.123456])
    assert set(one) == {"mean", "ci_low", "ci_high", "seeds", "excludes_zero"}
    assert one["mean"] == 0.1235 and one["seeds"] == 1 and one["excludes_zero"] is False
    assert np.isnan(one["ci_low"]) and np.isnan(one["ci_high"])
    with pytest.raises(CourseError, match="^t_interval needs at least one value$"):
        t_interval([])


def test_pairing_by_seed_removes_the_shared_seed_noise():
    table = synthetic_table()
    unpaired = gain_by_strategy(table).set_index("strategy")
    assert unpaired.loc["hard", "ci_low"] < 0 < unpaired.loc["hard", "ci_high"]  # the seed spread hides the effect
    paired = paired_difference(table, "hard", "random").iloc[0]
    assert paired["mean"] == pytest.approx(0.05) and 0.04 < paired["ci_low"] < 0.05  # near-identical in every seed
    with pytest.raises(CourseError, match="strategy 'easy' is not in the results table"):
        paired_difference(table, "hard", "easy")


def test_per_level_change_and_mechanism_table():
    table = synthetic_table()
    change = per_level_change(table).set_index("strategy")
    assert change.loc["hard", "mean"] == pytest.approx(0.05 + (0.0 + 0.2 - 0.1) / 3, abs=1e-4)  # rounded to 4 places
    assert change.loc["hard", "before"] == 0.5 and change.loc["hard", "level"] == 1
    mechanism = mechanism_table(table).set_index("strategy")
    assert mechanism.loc["hard", "learnable share of groups"] == pytest.approx(0.55)
    with pytest.raises(CourseError, match="column: 'gain.nope' is not a column of the results table"):
        gain_by_strategy(table, "gain.nope")


def test_load_study_names_the_command_when_results_are_missing(tmp_path):
    with pytest.raises(CourseError, match="python -m course_lib reproduce hard-wins"):
        load_study("hard-wins", tmp_path)


def test_paired_power_matches_the_textbook_value():
    from course_lib.research.studies import paired_power

    # a one-sample t-test with effect size d = 1 and n = 10 has power 0.803 at alpha 0.05 (two-sided)
    assert paired_power(1.0, 1.0, 10) == pytest.approx(0.8032, abs=5e-4)


def test_seeds_needed_and_detectable_difference_agree():
    from course_lib.research.studies import detectable_difference, paired_power, seeds_needed

    seeds = seeds_needed(0.04, 0.03)
    assert paired_power(0.03, 0.04, seeds) >= 0.8 > paired_power(0.03, 0.04, seeds - 1)
    assert detectable_difference(0.04, seeds) <= 0.03 < detectable_difference(0.04, seeds - 1)


def test_a_gain_agrees_with_its_accuracies_to_0_001_and_with_its_interval_bounds_included():
    """The rule point records and results tables are checked by: a gain off by exactly 0.001 (rounding) agrees, a
    gain on its interval's bound lies inside it (a zero-width interval when every seed gained the same)."""
    from course_lib.research.studies import gain_disagreement

    assert gain_disagreement(0.001, 0.5, 0.5, None) is None
    assert gain_disagreement(0.0011, 0.5, 0.5, None) == "is not accuracy_after - accuracy_before = 0.0000"
    assert gain_disagreement(0.2, 0.5, 0.3, [0.2, 0.2]) is None
    assert gain_disagreement(0.15, None, None, [0.2, 0.3]) == "lies outside its own interval [0.2, 0.3]"


def test_seeds_that_agree_over_a_shared_baseline_are_still_tested_with_its_variance():
    """Every seed gained 0.02, but the baseline they share has variance 1e-4: the t-tests read it (t = 2, 2 df)."""
    from course_lib.research.studies import equivalence_verdict

    shared = equivalence_verdict([0.02, 0.02, 0.02], 0.03, base_variance=1e-4)
    assert shared["verdict"] == "inconclusive"
    assert (shared["p_difference"], shared["p_equivalence"]) == (pytest.approx(0.1835, abs=1e-4),
                                                               pytest.approx(0.2113, abs=1e-4))


def test_equivalence_verdict_when_every_seed_agrees_and_its_rounding():
    from course_lib.research.studies import equivalence_verdict

    # no spread at all (seeds that did not vary the run, or a row copied): neither test can reject, as t_interval's
    # zero-width interval excludes nothing and assay_sensitivity finds nothing to vouch with
    for value in (0.0, 0.05, -0.05, 0.03, 7 / 60 - 6 / 60):
        agree = equivalence_verdict([value] * 3 if value != 7 / 60 - 6 / 60 else [value, 31 / 60 - 30 / 60, value],
                                    0.03)
        assert (agree["verdict"], agree["p_difference"], agree["p_equivalence"]) == ("inconclusive", 1.0, 1.0)
        assert not t_interval([value] * 3)["excludes_zero"]
    apart = equivalence_verdict([0.049, 0.05, 0.051], 0.03)  # the smallest spread is a spread
    assert apart["verdict"] == "better" and apart["p_equivalence"] > 0.99 and apart["p_difference"] < 1e-3
    shared = equivalence_verdict([0.0, 0.0, 0.0], 0.03, base_variance=1e-6)  # a shared baseline's error is a spread
    assert shared["verdict"] == "equivalent"
    assert equivalence_verdict([0.01, 0.02, 0.03004], 0.03)["mean"] == 0.02  # 0.020013, to 4 decimals
    for margin in (0, -0.03, float("inf"), float("nan")):  # an infinite margin made every difference "slightly" one
        with pytest.raises(CourseError, match=f"margin={margin} must be a positive, finite number"):
            equivalence_verdict([0.01, 0.02, 0.03], margin)


def test_holm_reads_its_verdicts_from_unrounded_p_values():
    """Hostile round 15: a p-value of 0.0499999 rounded to 0.05 and turned "slightly better" into "equivalent"."""
    from scipy import stats

    from course_lib.research.studies import holm_verdicts

    base = np.array([0.01, -0.01, 0.005, -0.005, 0.0])
    edge = base + stats.t.isf((0.05 - 1e-7) / 2, 4) * base.std(ddof=1) / 5 ** 0.5  # p_difference just under 0.05
    verdict = equivalence_verdict(list(edge), margin=0.5)
    assert verdict["verdict"].startswith("slightly better")
    assert holm_verdicts(pd.DataFrame([verdict]))["verdict_holm"][0] == verdict["verdict"]  # a family of one keeps it


def test_a_pair_refuses_a_seed_run_twice_or_a_blank_seed():
    from course_lib.research.studies import paired_by_seed

    table = pd.DataFrame({"strategy": ["a", "a", "b"], "seed": [0, 0, 0], "gain": [0.1, 0.5, 0.2]})
    with pytest.raises(CourseError, match=r"seed\(s\) \[0\] have several points of one arm"):
        paired_by_seed(table, "a", "b", "gain")
    with pytest.raises(CourseError, match="has no seed"):
        paired_by_seed(table.assign(seed=[0, np.nan, 1]), "a", "b", "gain")


def test_seeds_needed_at_its_edges():
    from course_lib.research.studies import paired_power, seeds_needed

    assert paired_power(0.0, 0.02, 5) == pytest.approx(0.05)  # no difference: the test's own 5% false alarms
    assert seeds_needed(0.001, 0.03) == 3  # a difference far above the noise: the fewest equivalence_verdict reads
    with pytest.raises(CourseError, match="most=2 must be a whole number of seeds >= 3"):
        seeds_needed(0.001, 0.03, most=2)
    exactly = seeds_needed(0.04, 0.03)  # 16 at 5%; a stricter alpha needs more
    assert seeds_needed(0.04, 0.03, most=exactly) == exactly < seeds_needed(0.04, 0.03, alpha=0.0125)
    with pytest.raises(CourseError, match=f"more than {exactly - 1} seeds would be needed"):
        seeds_needed(0.04, 0.03, most=exactly - 1)
    with pytest.raises(CourseError, match="more than 1000 seeds would be needed"):  # the default limit
        seeds_needed(1.0, 0.05)
    for sd, difference, named in ((0.0, 0.03, "sd=0.0"), (0.04, 0.0, "difference=0.0"), (-0.01, 0.03, "sd=-0.01")):
        with pytest.raises(CourseError, match=f"{named} must be a positive, finite number"):
            seeds_needed(sd, difference)


def test_tables_of_groups_come_out_sorted_whatever_the_row_order():
    from course_lib.research.studies import gain_by_strategy, per_level_verdicts

    rows = [{"task": "arith", "strategy": strategy, "seed": seed, "gain.test": gain,
             "accuracy_before_by_level.ood.1": 0.123456, "accuracy_after_by_level.ood.1": 0.2 + gain,
             "base_k.ood": 4}
            for strategy, gains in (("random", (0.01, 0.02, 0.03)), ("hard", (0.04, 0.05, 0.06)))
            for seed, gain in enumerate(gains)]
    table = pd.DataFrame(rows)  # "random" first: grouping without sorting would keep it first
    assert gain_by_strategy(table)["strategy"].tolist() == ["hard", "random"]
    levels = per_level_verdicts(table, 0.03, problems_per_level=60, split="ood", by=("strategy",))
    assert levels["strategy"].tolist() == ["hard", "random"] and levels["before"].tolist() == [0.1235, 0.1235]
    assert levels["mean"].tolist() == pytest.approx([0.2 + 0.05 - 0.123456, 0.2 + 0.02 - 0.123456], abs=1e-4)


WORSE_WITHIN = "slightly worse (a real difference, smaller than the margin)"


@pytest.mark.parametrize(("values", "margin", "base_variance", "verdict"), [
    ([0.05, 0.06, 0.04, 0.05, 0.055], 0.02, 0.0, "better"),
    ([-0.05, -0.06, -0.04, -0.05, -0.055], 0.02, 0.0, "worse"),
    ([0.002, -0.003, 0.001, 0.0, -0.001], 0.02, 0.0, "equivalent"),
    ([0.002, -0.003, 0.001, 0.0, -0.001], 0.02, 0.0004, "inconclusive"),  # a shared baseline's error widens it
    ([0.05, -0.04, 0.03, -0.02, 0.0], 0.02, 0.0, "inconclusive"),
    # a real difference whose 90% interval lies inside the margin is not "worse": the margin says it is negligible
    ([-0.02, -0.015, -0.018, -0.017, -0.016, -0.019, -0.02, -0.014], 0.03, 0.0, WORSE_WITHIN),
    ([-0.05, -0.03, -0.04, -0.045, -0.035], 0.03, 0.0, "worse"),  # 90% interval [-0.05, -0.03]: beyond the margin
])
def test_equivalence_verdict(values, margin, base_variance, verdict):
    from course_lib.research.studies import equivalence_verdict

    assert equivalence_verdict(values, margin, base_variance)["verdict"] == verdict


@pytest.mark.parametrize(("values", "verdict_sensitive", "verdict_not"), [
    ([0.002, -0.003, 0.001, 0.0, -0.001], "equivalent", "could not tell"),  # an equivalence needs a sensitive margin
    ([-0.02, -0.015, -0.018, -0.017, -0.016, -0.019, -0.02, -0.014], WORSE_WITHIN, "worse"),  # real, not negligible
    ([0.05, 0.06, 0.04, 0.05, 0.055], "better", "better"),  # a difference beyond the margin needs no reference
    ([0.05, -0.04, 0.03, -0.02, 0.0], "inconclusive", "inconclusive"),
])
def test_a_margin_the_study_cannot_vouch_for_calls_no_equivalence(values, verdict_sensitive, verdict_not):
    from course_lib.research.studies import equivalence_verdict

    assert equivalence_verdict(values, 0.03)["verdict"] == verdict_sensitive
    assert equivalence_verdict(values, 0.03, sensitive=False)["verdict"] == verdict_not


@pytest.mark.parametrize(("gains", "base_variance", "sensitive", "why"), [
    # flat reference arm: mean 0, sd 0.01, se 0.01/sqrt(3) = 0.005774, t(0.975, 2) = 4.302653: low -0.0248
    ([0.01, -0.01, 0.0], 0.0, False, "random did not clearly learn: its gain +0.000 has a 95% interval reaching -0.025"),
    # a clear gain, but the 0.03 margin is more than a third of it (0.06 / 3 = 0.02)
    ([0.05, 0.06, 0.07], 0.0, False, "the margin 0.03 exceeds a third of random's gain, +0.060 / 3 = +0.020"),
    # mean 0.10, low 0.10 - 4.302653 * 0.005774 = 0.0752 > 0, and 0.03 <= 0.10 / 3: the margin can be used
    ([0.09, 0.10, 0.11], 0.0, True, ""),
    # the shared base evaluation's variance: se = sqrt(0.01^2 / 3 + 0.0003) = 0.018257, low = 0.0214 > 0
    ([0.09, 0.10, 0.11], 0.0003, True, ""),
    # ... and with 0.001: se = sqrt(0.01^2 / 3 + 0.001) = 0.032146, low = 0.1 - 0.1383 = -0.0383
    ([0.09, 0.10, 0.11], 0.001, False, "random did not clearly learn: its gain +0.100 has a 95% interval reaching -0.038"),
])
def test_assay_sensitivity_by_hand(gains, base_variance, sensitive, why):
    from course_lib.research.studies import assay_sensitivity

    result = assay_sensitivity(gains, 0.03, base_variance, arm="random")
    assert (result["sensitive"], result["why"]) == (sensitive, why)
    assert result["reference_gain"] == pytest.approx(sum(gains) / 3, abs=1e-4)


def test_assay_sensitivity_at_its_edges():
    from scipy import stats

    from course_lib.research.studies import assay_sensitivity

    # two seeds are enough: mean 0.12346, se 0.00001, t(0.975, 1) = 12.706: low 0.123333; both kept to 4 places
    assert assay_sensitivity([0.12345, 0.12347], 0.03) == {"reference_gain": 0.1235, "reference_low": 0.1233,
                                                           "sensitive": True, "why": ""}
    # no base variance given: none added; a low end that rounds to 0 is no clear gain; the arm named by default
    flat = [0.1, 0.1, 0.1]
    assert assay_sensitivity(flat, 0.01)["reference_low"] == 0.1
    at_zero = assay_sensitivity(flat, 0.01, (0.1 / stats.t.ppf(0.975, 2)) ** 2)
    assert (at_zero["reference_low"], at_zero["sensitive"]) == (0, False)
    assert at_zero["why"] == "the reference arm did not clearly learn: its gain +0.100 has a 95% interval reaching +0.000"
    # a margin of exactly a third of the gain can be used ("at most a third")
    assert assay_sensitivity([0.5, 0.75, 1.0], 0.25)["sensitive"] is True


def test_assay_sensitivity_needs_two_seeds():
    from course_lib.research.studies import assay_sensitivity

    with pytest.raises(CourseError, match=r"1 seed\(s\) of the reference arm"):
        assay_sensitivity([0.1], 0.03)


def test_no_verdict_from_two_seeds():
    from course_lib.research.studies import equivalence_verdict

    with pytest.raises(CourseError, match="fewer than 3 seeds"):
        equivalence_verdict([0.1, 0.2], margin=0.02)


@pytest.mark.parametrize("row, text", [
    ({"mean": 0.0195, "ci_low": 0.0025, "ci_high": 0.0365}, "+0.020 [+0.002, +0.036]"),  # rounded as pandas' .round(3)
    ({"mean_difference": 0.0432, "ci_low": 0.0253, "ci_high": 0.0615}, "+0.043 [+0.025, +0.062]"),  # a bootstrap result
    # a value that rounds to zero keeps its sign: a mean just below 0 reads -0.000, a bound just below 0 too
    ({"mean": -0.0004, "ci_low": -0.0102, "ci_high": 0.0001}, "-0.000 [-0.010, +0.000]"),
    ({"mean": 0.0, "ci_low": -0.0102, "ci_high": -0.0001}, "+0.000 [-0.010, -0.000]"),  # only an exact 0 is +0.000
    ({"mean": -0.0, "ci_low": -0.0102, "ci_high": 0.0}, "+0.000 [-0.010, +0.000]"),
    ({"mean": 0.2, "ci_low": float("nan"), "ci_high": float("nan")}, "+0.200"),  # one seed: no interval
])
def test_interval_text_matches_the_rounded_table(row, text):
    assert interval_text(row) == text
    assert interval_text(pd.Series(row)) == text
    assert interval_text(next(pd.DataFrame([row]).itertuples())) == text


def test_interval_text_rounds_to_the_digits_asked():
    assert interval_text({"mean": 0.0234, "ci_low": 0.0091, "ci_high": 0.0372}, digits=2) == "+0.02 [+0.01, +0.04]"
    assert interval_text({"mean": 0.0234, "ci_low": float("nan"), "ci_high": float("nan")}, digits=1) == "+0.0"


def test_gain_beyond_chance_divides_each_level_by_what_guessing_leaves():
    """A shuffle gain at level 5 (7 objects: guess 1/7) counts 7/6 of itself; arith's gain is unchanged."""
    rows = [{"task": task, "accuracy_before_by_level.test.1": 0.4, "accuracy_after_by_level.test.1": 0.4,
             "accuracy_before_by_level.test.5": 0.2, "accuracy_after_by_level.test.5": 0.26} for task in ("shuffle", "arith")]
    table = with_gain_beyond_chance(pd.DataFrame(rows))
    assert table["gain_beyond_chance.test"].tolist() == pytest.approx([0.06 * 7 / 6 / 2, 0.06 / 2])
    with pytest.raises(CourseError, match="split='ood' has no per-level columns"):
        with_gain_beyond_chance(pd.DataFrame(rows), "ood")


def test_paired_and_gain_verdicts():
    """hard = random + 0.05 in every seed: 'better', though each arm's own gain swings with the seed; a huge shared
    base variance turns a clear gain into 'inconclusive'."""
    table = pd.concat([synthetic_table(), synthetic_table().assign(seed=lambda t: t.seed + 3)], ignore_index=True)
    pairs = paired_verdicts(table, [("hard", "random")], margin=0.03)
    assert pairs[["model", "difference", "verdict", "seeds"]].values.tolist() == [["tiny-m", "hard - random", "better", 6]]
    with pytest.raises(CourseError, match="arm 'missing' is not in the results table"):  # a misspelt arm was dropped
        paired_verdicts(table, [("hard", "random"), ("hard", "missing")], margin=0.03)  # from the family in silence
    with pytest.raises(CourseError, match="1 row\\(s\\) have no seed: grouped by it they would vanish"):
        paired_verdicts(table.assign(seed=[None] + table.seed.tolist()[1:]), [("hard", "random")], margin=0.03)
    assert pairs["mean"].iloc[0] == pytest.approx(0.05)
    steady = table.assign(**{"gain.test": 0.1 + 0.001 * table.seed, "base_variance.test": 0.0})
    assert set(gain_verdicts(steady, margin=0.03).verdict) == {"better"}
    noisy_base = steady.assign(**{"base_variance.test": 0.01})
    assert set(gain_verdicts(noisy_base, margin=0.03).verdict) == {"inconclusive"}


def test_paired_verdicts_vouch_for_the_margin_only_where_the_reference_arm_learned():
    """hard - random is (+0.005, 0, -0.005): inside 0.03. random's gain (0.09, 0.10, 0.11) counts as an effect on its
    own (low 0.0752), but not once a shared base variance of 0.001 is added (low -0.038, test_assay_sensitivity_by_hand):
    then the equivalence could not be told. Whatever column is compared, the reference arm is judged by its own gain
    (gain.test, with the base's variance): comparing accuracy_after would otherwise let an arm that never learned
    vouch for the margin with its accuracy level. A model with one arm only is named, not skipped."""
    rows = [{"model": "tiny-m", "strategy": strategy, "seed": seed, "gain.test": gain, "other.test": gain}
            for seed, random_gain, hard_gain in ((0, 0.09, 0.095), (1, 0.10, 0.10), (2, 0.11, 0.105))
            for strategy, gain in (("random", random_gain), ("hard", hard_gain))]
    table = pd.DataFrame(rows)
    lonely = pd.concat([table, pd.DataFrame([{"model": "tiny-s", "strategy": "hard", "seed": 0, "gain.test": 0.1}])])
    with pytest.raises(CourseError, match=r"\{'model': 'tiny-s'\} has hard but no random"):
        paired_verdicts(lonely, [("hard", "random")], margin=0.03)
    keys = ["model", "difference", "verdict", "reference_gain", "why"]
    learned = [["tiny-m", "hard - random", "equivalent", 0.1, ""]]
    assert paired_verdicts(table, [("hard", "random")], margin=0.03)[keys].values.tolist() == learned
    shared = table.assign(**{"base_variance.test": 0.001})
    assert paired_verdicts(shared, [("hard", "random")], margin=0.03)[keys].values.tolist() == [
        ["tiny-m", "hard - random", "could not tell", 0.1,
         "random did not clearly learn: its gain +0.100 has a 95% interval reaching -0.038"]]
    assert paired_verdicts(shared, [("hard", "random")], margin=0.03, column="other.test")[keys].values.tolist() == [
        ["tiny-m", "hard - random", "could not tell", 0.1,
         "random did not clearly learn: its gain +0.100 has a 95% interval reaching -0.038"]]
    with pytest.raises(CourseError, match="the reference arm's gain, 'gain.ood', is not in the table"):
        paired_verdicts(shared.rename(columns={"other.test": "other.ood"}), [("hard", "random")], 0.03,
                        column="other.ood")


def test_a_blank_or_negative_base_variance_is_refused_not_read_as_a_real_difference():
    """A NaN base variance gave NaN intervals ("inconclusive") but p-values of 0, which Holm's correction read as
    "slightly better (a real difference, smaller than the margin)"."""
    for bad in (float("nan"), -1e-4, float("inf")):
        with pytest.raises(CourseError, match=f"base_variance={bad!r} must be a finite variance >= 0"):
            equivalence_verdict([0.0, 0.01, -0.005], 0.03, base_variance=bad)


def test_gains_from_different_base_evaluations_are_refused_whatever_the_row_order():
    """The base variance was read from a group's first row: two arms measured from different base evaluations were
    paired in silence, and reversing the rows turned "equivalent" into "could not tell"; a blank value on a later row
    was never seen."""
    rows = [{"model": "tiny-m", "strategy": arm, "seed": seed, "gain.test": 0.1 + 0.005 * seed, "base_variance.test": bv}
            for arm, bv in (("hard", 1e-5), ("random", 2e-3)) for seed in range(5)]
    table = pd.DataFrame(rows)
    for ordered in (table, table.iloc[::-1]):
        with pytest.raises(CourseError, match=r"hard - random \(tiny-m\): its gains are measured from 2 base "
                                              r"evaluations .*must share one"):
            paired_verdicts(ordered, [("hard", "random")], 0.03)
    one_arm = table[table.strategy == "hard"].copy()
    one_arm.loc[one_arm.seed == 3, "base_variance.test"] = 4e-4
    with pytest.raises(CourseError, match=r"tiny-m, hard: its gains are measured from 2 base evaluations"):
        gain_verdicts(one_arm, 0.03)
    one_arm.loc[one_arm.seed == 3, "base_variance.test"] = float("nan")
    with pytest.raises(CourseError, match=r"must share one, a number >= 0"):
        gain_verdicts(one_arm.iloc[::-1], 0.03)
    shared = table.assign(**{"base_variance.test": 1e-5})  # one base evaluation: read, in either order
    assert paired_verdicts(shared, [("hard", "random")], 0.03).equals(
        paired_verdicts(shared.iloc[::-1], [("hard", "random")], 0.03))


def test_per_level_verdicts_refuse_runs_that_disagree_on_their_shared_base_evaluation():
    """K and each level's base accuracy were read from a group's first row: a row edited to K = 100,000 or another
    base accuracy on a later row went unseen (and on the first row moved 22 of 30 verdicts)."""
    from course_lib.research.studies import per_level_verdicts

    table = level_verdict_table(**{"eval_k.test": 4})
    table.loc[2, "eval_k.test"] = 100_000
    with pytest.raises(CourseError, match=r"eval_k.test holds 4, 100000 in the rows of \('tiny-m', 'hard'\)"):
        per_level_verdicts(table, 0.03, problems_per_level=60)
    table = level_verdict_table(**{"eval_k.test": 4})
    table.loc[1, "accuracy_before_by_level.test.1"] = float("nan")
    with pytest.raises(CourseError, match=r"accuracy_before_by_level.test.1 holds 0.5, nan in the rows of "
                                          r"\('tiny-m', 'hard'\): runs that share a base"):
        per_level_verdicts(table.iloc[::-1], 0.03, problems_per_level=60)


def test_per_level_verdicts_name_a_k_or_base_accuracy_written_as_text():
    """Text in every row of K or a level's base accuracy passes check_results (no numbers beside it): it is named in
    one line, as a blank is, not a ValueError."""
    from course_lib.research.studies import per_level_verdicts

    with pytest.raises(CourseError, match=r"eval_k.test holds nan in the rows of \('tiny-m', 'hard'\): runs that"):
        per_level_verdicts(level_verdict_table(**{"eval_k.test": "four"}), 0.03, problems_per_level=60)
    with pytest.raises(CourseError, match=r"accuracy_before_by_level.test.1 holds nan in the rows of"):
        per_level_verdicts(level_verdict_table(**{"eval_k.test": 4, "accuracy_before_by_level.test.1": "half"}), 0.03,
                           problems_per_level=60)


def test_mechanism_table_refuses_a_seed_left_blank_beside_the_others():
    """A blank gain.test on one seed was averaged away: the arm's mean came from the other seeds, in silence."""
    rows = [{"model": "m", "strategy": arm, "seed": seed, "steps": 10, "gain.test": gain + 0.01 * seed}
            for arm, gain in (("hard", 0.05), ("random", 0.10)) for seed in range(3)]
    table = pd.DataFrame(rows)
    assert mechanism_table(table).set_index("strategy")["gain (test)"].to_dict() == {"hard": 0.06, "random": 0.11}
    table.loc[2, "gain.test"] = float("nan")
    with pytest.raises(CourseError, match=r"gain.test is blank for 1 seed\(s\) of \('m', 'hard'\) and not for the "
                                          "others"):
        mechanism_table(table)
    assert mechanism_table(table.assign(**{"gain.test": float("nan")}))["gain (test)"].isna().all()  # none: no mean


def test_selected_pass_rates_read_the_fresh_table_for_the_labels_choice():
    """hard picks by the labels (the two at 0 of 8); the fresh samples say those two sit at 0.25 and 0.5."""
    ids = [f"p{i}" for i in range(20)]
    labels = pd.DataFrame({"id": ids, "level": 1, "k": 8, "pass_rate": [0.0, 0.0] + [0.5 + i / 100 for i in range(18)]})
    fresh = labels.assign(pass_rate=[0.25, 0.5] + [0.5] * 18)
    rows = selected_pass_rates(labels, fresh, ["hard"], 0.1, [0])
    assert rows[["label p", "fresh p", "fresh share 0<p<1"]].values.tolist() == [[0.0, 0.375, 1.0]]
    with pytest.raises(CourseError, match="same problems"):
        selected_pass_rates(labels, fresh.iloc[1:], ["hard"], 0.1, [0])
    with pytest.raises(CourseError, match=r"fresh lists problem\(s\) \['p0'\] more than once"):  # round 19: averaged twice
        selected_pass_rates(labels, pd.concat([fresh, fresh.iloc[:1].assign(pass_rate=0.6)]), ["hard"], 0.1, [0])


def test_seed_plan_plans_with_the_upper_bound_and_the_issues_rule():
    """hard - random differs by seed (0.04, 0.05, 0.06: sd 0.01); random gains 0.3 on average, so the issue's rule
    asks to detect 0.1 (a third of it), or 0.03 when the target is fixed."""
    table = synthetic_table()
    table.loc[(table.strategy == "hard") & (table.seed == 1), "gain.test"] -= 0.012  # synthetic_table's +0.002
    table.loc[(table.strategy == "hard") & (table.seed == 2), "gain.test"] += 0.012  # and -0.002 undone
    table["gain.test"] += 0.3
    plan = seed_plan(table)
    assert plan["sd of hard - random"] == pytest.approx(0.01) and plan["pilot seeds"] == 3
    assert plan["smallest difference to detect"] == pytest.approx(max(0.03, plan["reference gain"] / 3))
    assert plan["seeds needed"] == seeds_needed(sd_upper_bound(0.01, 3), plan["smallest difference to detect"])
    strict = seed_plan(table, target=0.03)
    assert strict["smallest difference to detect"] == 0.03 and strict["seeds needed"] >= plan["seeds needed"]
    # by hand: random's mean gain (0 + 0.2 - 0.1) / 3 + 0.3 = 1/3, a third of it 1/9; the sd's 90% upper bound from
    # 3 seeds is 0.01 * sqrt(2 / chi2.ppf(0.1, 2)) = 0.01 * sqrt(2 / 0.2107210) = 0.0308078
    assert plan["reference gain"] == pytest.approx(1 / 3) and plan["sd planned with"] == pytest.approx(0.0308078, abs=1e-6)
    assert (plan["seeds needed"], strict["seeds needed"]) == (3, 11)
    with pytest.raises(CourseError, match="several rows per seed and arm"):  # two models mixed would be averaged
        seed_plan(pd.concat([table, table.assign(model="tiny-s")]))


@pytest.mark.parametrize(("row", "said"), [
    ({"mean": -0.023, "ci_low": -0.023, "ci_high": -0.023, "seeds": 2}, "is not tested against"),  # 2 seeds, zero spread
    ({"mean": -0.02, "ci_low": -0.04, "ci_high": -0.01, "seeds": 2}, "is not tested against"),  # 2 seeds
    ({"mean": -0.004, "ci_low": -0.004, "ci_high": -0.004, "seeds": 3}, "is not tested against"),  # 3 seeds that agree
    ({"mean": -0.02, "ci_low": -0.03, "ci_high": -0.01, "seeds": 5}, "loses to"),
    ({"mean": 0.02, "ci_low": 0.01, "ci_high": 0.03}, "beats"),  # no seed count: read the interval
    ({"mean": 0.0, "ci_low": 0.0, "ci_high": 0.0}, "is indistinguishable from"),  # a bootstrap that saw no change (04)
    ({"mean": 0.0, "ci_low": -0.01, "ci_high": 0.01, "seeds": 3}, "is indistinguishable from"),
])
def test_verdict_needs_three_seeds(row, said):
    from course_lib.research.studies import beats_or_loses

    assert beats_or_loses(row) == said


def test_rank_correlation_has_an_interval():
    perfect = rank_correlation(range(10), range(10))
    assert perfect["rho"] == 1.0 and perfect["ci_low"] == 1.0 and perfect["n"] == 10
    noisy = rank_correlation([1, 2, 3, 4, 5, 6, 7, 8], [2, 1, 4, 3, 6, 5, 8, 7])
    assert noisy["ci_low"] < noisy["rho"] <= noisy["ci_high"] <= 1.0
    with pytest.raises(CourseError, match="needs >= 4 pairs"):
        rank_correlation([1, 2, 3], [1, 2, 3])


def test_p_values_agree_with_the_intervals_and_hand_computed_bounds():
    from scipy.stats import t as student_t

    from course_lib.research.studies import equivalence_verdict

    values = [-0.01, 0.02, 0.05, 0.0, 0.04]  # mean 0.02, sd 0.0255, se 0.0114 over 5 seeds
    row = equivalence_verdict(values, margin=0.03)
    se = np.std(values, ddof=1) / np.sqrt(5)
    assert row["tost_high"] == pytest.approx(0.02 + student_t.ppf(0.95, 4) * se, abs=1e-4) == pytest.approx(0.0443, abs=1e-4)
    assert row["verdict"] == "inconclusive"  # one 90% bound (-0.004) inside the margin, the other (0.044) outside
    assert row["p_equivalence"] == pytest.approx(student_t.sf((0.03 - 0.02) / se, 4))  # the worse of the two tests
    assert row["p_equivalence"] > 0.05 and row["p_difference"] > 0.05
    assert row["p_difference"] == pytest.approx(2 * student_t.sf(0.02 / se, 4))


def test_holm_turns_a_lone_difference_inconclusive_in_a_family_of_three():
    from course_lib.research.studies import equivalence_verdict, holm_adjusted, holm_verdicts

    assert holm_adjusted([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]
    assert holm_adjusted([0.5]) == [0.5]
    assert holm_adjusted([0.6, 0.7]) == [1.0, 1.0]  # 2 x 0.6 = 1.2 is capped: a p-value is at most 1
    family = pd.DataFrame([equivalence_verdict(v, margin=0.01) for v in (
        [0.03, 0.01, 0.05, 0.0, 0.04],     # p_difference ~0.04: "better" alone ...
        [0.2, -0.3, 0.1, -0.1, 0.3],       # nothing
        [0.25, -0.2, 0.1, -0.1, 0.35])])   # nothing
    assert family["verdict"].tolist() == ["better", "inconclusive", "inconclusive"]
    assert holm_verdicts(family)["verdict_holm"].tolist() == ["inconclusive"] * 3  # ... not in a family of three


def test_holm_verdicts_read_the_unrounded_p_values():
    """An equivalence p-value of 0.04999996 is below alpha, though it shows as 0.05 rounded to six places."""
    from course_lib.research.studies import holm_verdicts

    row = holm_verdicts(pd.DataFrame({"mean": [0.0], "p_difference": [0.9], "p_equivalence": [0.04999996]}))
    assert row["p_equivalence_holm"][0] == 0.05 and row["verdict_holm"][0] == "equivalent"


def test_per_seed_values_are_floats():
    from course_lib.research.studies import finite_values

    values = finite_values([1, 2, 3])
    assert values.dtype == np.float64 and values.tolist() == [1.0, 2.0, 3.0]


def test_holm_keeps_clear_verdicts_and_rounds_to_six_places():
    """Tests far past alpha keep their verdicts after the adjustment (x3 at most); adjusted p-values have 6 places."""
    from course_lib.research.studies import equivalence_verdict, holm_adjusted, holm_verdicts, verdict_in_words

    assert holm_adjusted([0.0123456789, 0.5]) == [0.024691, 0.5]  # 2 x 0.0123456789 = 0.0246913578
    family = pd.DataFrame([equivalence_verdict(v, margin=0.01) for v in (
        [0.10, 0.11, 0.12, 0.10, 0.11],              # p_difference ~1e-6
        [0.001, -0.001, 0.0, 0.0005, -0.0005],       # p_equivalence ~1e-6
        [-0.10, -0.11, -0.12, -0.10, -0.11])])
    assert holm_verdicts(family)["verdict_holm"].tolist() == ["better", "equivalent", "worse"]
    # an adjusted p-value of exactly alpha (2 x 0.025) is not below it: neither test passes
    boundary = pd.DataFrame({"mean": [0.02, 0.0], "p_difference": [0.025, 0.9], "p_equivalence": [0.9, 0.025]})
    assert holm_verdicts(boundary)["verdict_holm"].tolist() == ["inconclusive", "inconclusive"]
    # a row whose margin the study cannot vouch for (`assay_sensitivity`) stays "could not tell" after the adjustment
    unvouched = equivalence_verdict([0.001, -0.001, 0.0, 0.0005, -0.0005], margin=0.01, sensitive=False)
    assert holm_verdicts(pd.DataFrame([unvouched]))["verdict_holm"].tolist() == ["could not tell"]
    # a family without the column is vouched for; verdict_in_words too, unless told
    plain = pd.DataFrame({"mean": [0.0], "p_difference": [0.9], "p_equivalence": [0.001]})
    assert holm_verdicts(plain)["verdict_holm"].tolist() == ["equivalent"]
    assert verdict_in_words(0.0, False, True) == "equivalent"
    assert verdict_in_words(0.0, False, True, sensitive=False) == "could not tell"


def test_load_study_keeps_the_points_that_succeeded_and_reads_the_provenance(tmp_path):
    folder = tmp_path / "demo"
    folder.mkdir()
    pd.DataFrame({"point": ["a", "b", "c"], "status": ["ok", "failed", "ok"], "gain.test": [0.1, None, 0.2]}) \
        .to_csv(folder / "results.csv", index=False)
    table, provenance = load_study("demo", tmp_path)
    assert table["point"].tolist() == ["a", "c"] and table.index.tolist() == [0, 1]
    assert list(table.columns) == ["point", "status", "gain.test"] and table["gain.test"].tolist() == [0.1, 0.2]
    assert provenance == {}  # none written
    (folder / "provenance.json").write_text('{"profile": "tiny", "failed": ["b"]}')
    assert load_study("demo", tmp_path)[1] == {"profile": "tiny", "failed": ["b"]}


def test_round_26_a_committed_table_edited_without_its_records_is_refused_by_its_sha256(tmp_path):
    """Hostile round 26: tinymath-cross copied without points/ and its arith rows raised by 0.05 turned the
    scorecard's 'worse' into 'better' in silence; load_study now reads results_sha256 beside the table."""
    import json
    import re
    import shutil
    import warnings

    from course_lib.paths import REPOSITORY

    shutil.copytree(REPOSITORY / "data/results/tinymath-cross", tmp_path / "tinymath-cross",
                    ignore=shutil.ignore_patterns("points"))
    table, _ = load_study("tinymath-cross", tmp_path)  # unedited: read
    path = tmp_path / "tinymath-cross" / "results.csv"
    after = pd.read_csv(path).assign(**{"accuracy_after.test": lambda t: t["accuracy_after.test"] + 0.05,
                                        "gain.test": lambda t: t["gain.test"] + 0.05})
    after["gain_ci.test"] = [json.dumps([round(low + 0.05, 4), round(high + 0.05, 4)])  # the interval moves with it
                             for low, high in map(json.loads, after["gain_ci.test"])]
    path.write_text(after.to_csv(index=False))
    with pytest.raises(CourseError, match=f"^{re.escape(str(path))} was changed after `aggregate` wrote it \\(its "
                                          "sha256 differs from provenance.json's results_sha256\\); restore it"):
        load_study("tinymath-cross", tmp_path)
    assert len(table) == 96
    shutil.copytree(REPOSITORY / "data/results/regimes-hard-wins-long", tmp_path / "regimes-hard-wins-long",
                    ignore=shutil.ignore_patterns("points"))  # round 27: a study from before results_sha256
    with pytest.warns(UserWarning, match="results.csv cannot be checked: no points/ beside it, and no "
                                         "provenance.json recording the table's sha256"):
        load_study("regimes-hard-wins-long", tmp_path)
    (tmp_path / "regimes-hard-wins-long" / "provenance.json").unlink()  # round 28: without it, the same
    with pytest.warns(UserWarning, match="results.csv cannot be checked"):
        load_study("regimes-hard-wins-long", tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # with its points/ (the repository's): checked row by row, no warning
        load_study("regimes-hard-wins-long")


def test_grid_keys_are_every_parameter_a_study_sets_in_any_profile(monkeypatch):
    from course_lib.research.studies import STUDIES, grid_keys

    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"BUDGET": 1.0}, "grid": {"tiny": {"SEED": [0, 1]},
                                          "paper": [{"MODEL": ["a"]}, {"STEPS": [5]}]}, "also": {"tiny": {"TASK": ["b"]}}})
    assert grid_keys("demo") == {"BUDGET", "SEED", "MODEL", "STEPS", "TASK"}
    assert grid_keys("no-such-study") == set()


CSV = "point,status,seed,strategy,profile,gain.test\n"
DAMAGED_STUDY = {  # results.csv (or provenance.json) -> the error after "{path}", before "; {fix}"
    "empty": ("", " is not a results table (EmptyDataError)"),
    "a row longer than the header": (CSV + "a,ok,0,hard,tiny,0.1,extra\n",
                                     " is not a results table (a row has more fields than the header)"),
    "no rows": (CSV, " holds no point's result (no rows, or no status column)"),
    "rows but no status": ("point,seed\na,0\n", " holds no point's result (no rows, or no status column)"),
    "a point twice": (CSV + "z,ok,0,hard,tiny,0.1\na,ok,1,hard,tiny,0.1\na,ok,2,hard,tiny,0.1\n",
                      " holds point a twice (lines 3 and 4)"),
    "a run twice": (CSV + "z,ok,0,hard,tiny,0.1\na,ok,1,hard,tiny,0.1\nb,ok,1,hard,tiny,0.2\n",
                    " holds the same run twice (lines 3 and 4: seed=1, strategy=hard)"),
    "text among numbers": (CSV + "a,ok,0,hard,tiny,0.1\nb,ok,1,hard,tiny,oops\n",
                           ": column 'gain.test' holds 'oops' (line 3) among numbers"),
    "infinite": (CSV + "a,ok,0,hard,tiny,0.1\nb,ok,1,hard,tiny,inf\n",
                 ": column 'gain.test' holds inf (line 3), not a finite number"),
    "provenance not JSON": ("{", " is not valid JSON (JSONDecodeError)"),
    "provenance not an object": ("[]", " does not hold a JSON object"),
}


@pytest.mark.parametrize("damage", DAMAGED_STUDY)
def test_load_study_names_a_damaged_file_and_how_to_restore_it(tmp_path, monkeypatch, damage):
    from course_lib.research.studies import STUDIES

    monkeypatch.setitem(STUDIES, "demo", {"fixed": {"BUDGET": 1.0}, "grid": {"tiny": {"SEED": [0, 1], "STRATEGY": ["hard"]}}})
    text, error = DAMAGED_STUDY[damage]
    folder = tmp_path / "demo"
    folder.mkdir()
    results = folder / "results.csv"
    damaged = folder / "provenance.json" if damage.startswith("provenance") else results
    if damaged != results:
        results.write_text(CSV + "a,ok,0,hard,tiny,0.1\n")
    damaged.write_text(text)
    fix = ("restore it (git checkout), or move it aside (an edit is kept there) and remake it with "
           "`python -m course_lib aggregate demo --out DIR`")
    with pytest.raises(CourseError) as raised:
        load_study("demo", tmp_path)
    assert str(raised.value) == f"{damaged}{error}; {fix}"


def test_runs_are_the_same_only_in_the_same_profile_and_grid_settings(tmp_path, monkeypatch):
    """One seed and arm in two profiles are two runs; without a grid setting beside the profile nothing is compared."""
    from course_lib.research.studies import STUDIES

    monkeypatch.setitem(STUDIES, "demo", {"grid": {"tiny": {"SEED": [0, 1], "STRATEGY": ["hard"]}}})
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "results.csv").write_text(CSV + "a,ok,1,hard,tiny,0.1\nb,ok,1,hard,smoke,0.2\n")
    assert load_study("demo", tmp_path)[0]["point"].tolist() == ["a", "b"]
    (tmp_path / "demo" / "results.csv").write_text("point,status,profile\na,ok,tiny\nb,ok,tiny\n")
    assert load_study("demo", tmp_path)[0]["point"].tolist() == ["a", "b"]
    (tmp_path / "demo" / "results.csv").write_text("status,seed\nok,0\nok,1\n")  # no point names: not compared
    assert load_study("demo", tmp_path)[0]["seed"].tolist() == [0, 1]
    (tmp_path / "demo" / "results.csv").write_text("point,status,profile,seed\na,ok,tiny,1\nb,ok,tiny,1\n")
    with pytest.raises(CourseError, match=r"holds the same run twice \(lines 2 and 3: seed=1\)"):  # one grid setting
        load_study("demo", tmp_path)


def test_load_study_says_how_to_make_missing_results(tmp_path):
    with pytest.raises(CourseError) as raised:
        load_study("demo", tmp_path)
    assert str(raised.value) == (f"study='demo': no results.csv in {tmp_path / 'demo'}; run `python -m course_lib "
                                 "reproduce demo --out DIR`")


def test_chance_corrected_by_hand():
    from course_lib.research.studies import chance_corrected

    assert chance_corrected(0.2, 0.2) == 0.0 and chance_corrected(1.0, 0.25) == 1.0
    assert chance_corrected(0.6, 0.2) == pytest.approx(0.5) and chance_corrected(0.5, 0.0) == 0.5
    with pytest.raises(CourseError, match=r"guess=1.0 must be in \[0, 1\)"):
        chance_corrected(0.5, 1.0)


def test_detectable_difference_pinned_and_its_bounds():
    from course_lib.research.studies import detectable_difference

    # the power calculation scales with the sd: 0.0622 for sd 0.037 and 5 seeds is 8.41 for sd 5
    assert detectable_difference(0.037, 5) == pytest.approx(0.06223, abs=1e-4)
    assert detectable_difference(5.0, 5) == pytest.approx(8.40998, abs=1e-3)
    assert detectable_difference(1.0, 2) == pytest.approx(11.5499, abs=1e-3)  # two seeds are allowed
    for seeds, sd, said in ((1, 0.04, "seeds=1 must be a whole number from 2 to 1,000,000"),
                            (10**20, 0.04, "seeds=100000000000000000000 must be a whole number from 2"),
                            (5, 0.0, "sd=0.0 must be a positive")):
        with pytest.raises(CourseError, match=said):
            detectable_difference(sd, seeds)


def test_selected_pass_rates_rows_by_arm_and_seed():
    """random draws another set per seed; the fresh share counts only 0 < p < 1 (p = 0 and p = 1 are excluded)."""
    ids = [f"p{i}" for i in range(10)]
    labels = pd.DataFrame({"id": ids, "level": 1, "k": 8, "pass_rate": [i / 10 for i in range(10)]})
    fresh = labels.assign(pass_rate=[0.0, 1.0, 0.5, 0.0, 1.0, 0.5, 0.0, 1.0, 0.5, 0.25])
    rows = selected_pass_rates(labels, fresh, ["random"], 0.5, [0, 1])
    assert rows[["strategy", "seed"]].values.tolist() == [["random", 0], ["random", 1]]
    for row in rows.itertuples():
        chosen = select(labels, "random", 0.5, row.seed)
        rates = fresh.set_index("id").loc[chosen, "pass_rate"]
        assert row._5 == pytest.approx(((rates > 0) & (rates < 1)).mean())  # "fresh share 0<p<1"
    assert rows.iloc[0, 2] != rows.iloc[1, 2]  # the seed reaches `select`: other seeds, other sets


def test_mechanism_table_whole_and_level_columns():
    """Every column the table names (07 reads them by these names), averaged per arm and rounded to 4 places."""
    from course_lib.research.studies import level_columns

    table = synthetic_table().assign(**{"gain.test": lambda t: t["gain.test"] + 0.00001})
    assert mechanism_table(table).to_dict("list") == {
        "model": ["tiny-m", "tiny-m"], "strategy": ["hard", "random"], "selected share 0<p<1": [0.8, 0.8],
        "predicted dead groups": [0.2, 0.2], "learnable share of groups": [0.55, 0.5], "steps": [17.0, 17.0],
        "gain (test)": [0.0833, 0.0333]}
    assert level_columns(table) == ("accuracy_after_by_level.test.", "accuracy_before_by_level.test.", [1])


def level_table():
    """Two arms of one model in file order random, hard (not sorted), two seeds; the base model's accuracy is
    0.123456 at level 1 (test split) in every seed. A third arm, easy, ran only seed 0."""
    rows = []
    for strategy, afters in (("random", (0.654321, 0.654321)), ("hard", (0.75, 0.85))):
        for seed, after in zip((0, 1), afters):
            rows.append({"model": "tiny-m", "strategy": strategy, "seed": seed, "gain.test": after - 0.123456,
                         "accuracy_before_by_level.test.1": 0.123456, "accuracy_after_by_level.test.1": after,
                         "accuracy_before_by_level.train.1": 0.3, "accuracy_after_by_level.train.1": 0.4})
    rows.append({**rows[-1], "strategy": "easy", "seed": 0, "gain.test": 0.0})
    return pd.DataFrame(rows)


def test_per_level_change_hand_computed_sorted_and_by_split():
    """before/after are arm means rounded to 4 places; arms come out sorted (hard before random) whatever the file
    order; the split picks its own columns."""
    change = per_level_change(level_table()[lambda t: t["strategy"] != "easy"])
    assert change[["strategy", "level", "before", "after", "mean", "seeds"]].to_dict("list") == {
        "strategy": ["hard", "random"], "level": [1, 1], "before": [0.1235, 0.1235],
        "after": [0.8, 0.6543],  # (0.75 + 0.85) / 2; 0.654321 to 4 places
        "mean": [0.6765, 0.5309],  # 0.8 - 0.123456 = 0.676544; 0.654321 - 0.123456 = 0.530865
        "seeds": [2, 2]}
    train = per_level_change(level_table()[lambda t: t["strategy"] != "easy"], "train")
    assert train[["before", "after", "mean"]].to_dict("list") == {
        "before": [0.3, 0.3], "after": [0.4, 0.4], "mean": [0.1, 0.1]}


def test_paired_difference_sorted_groups_and_only_the_two_arms_pair_seeds():
    """Groups come out sorted by key; a third arm missing a seed does not drop that seed from first - second."""
    table = pd.concat([level_table().assign(task="shuffle"), level_table().assign(task="arith")], ignore_index=True)
    paired = paired_difference(table, "hard", "random")
    assert paired["task"].tolist() == ["arith", "shuffle"]
    # hard - random per seed: 0.75 - 0.654321 = 0.095679 and 0.85 - 0.654321 = 0.195679; both seeds count
    assert paired[["mean", "seeds"]].to_dict("list") == {"mean": [0.1457, 0.1457], "seeds": [2, 2]}


def test_detectable_difference_uses_its_alpha():
    """At alpha 0.10 the critical value is lower (t(4) 2.132 instead of 2.776), so a smaller difference reaches 80%
    power: 0.0503 for sd 0.037 and 5 seeds (0.0622 at alpha 0.05). Checked by bisection on the noncentral t, and by
    simulation: 200,000 sets of 5 draws from N(0.0503, 0.037) reject at alpha 0.10 in 80.0% of sets."""
    from course_lib.research.studies import detectable_difference, paired_power

    smallest = detectable_difference(0.037, 5, alpha=0.10)
    assert smallest == pytest.approx(0.05030, abs=1e-4)
    assert paired_power(smallest, 0.037, 5, alpha=0.10) == pytest.approx(0.8, abs=1e-6)


def test_verdict_reads_itertuples_rows_like_dicts():
    """Notebooks loop over `table.itertuples()`: a namedtuple row gets the same verdict as the dict of its values."""
    from course_lib.research.studies import beats_or_loses

    table = pd.DataFrame({"mean": [0.03, -0.03, 0.0, 0.03], "ci_low": [0.01, -0.05, -0.01, 0.01],
                          "ci_high": [0.05, -0.01, 0.01, 0.05], "seeds": [5, 5, 5, 2]})
    said = ["beats", "loses to", "is indistinguishable from", "is not tested against"]
    assert [beats_or_loses(row) for row in table.itertuples()] == said
    assert [beats_or_loses(row) for row in table.to_dict("records")] == said
    without_seeds = table.drop(columns="seeds")  # e.g. a bootstrap over problems: read by its interval alone
    assert [beats_or_loses(row) for row in without_seeds.itertuples()] == said[:3] + ["beats"]


def level_verdict_table(**extra):
    """One arm, three seeds; level 1: the base model's 0.5 (K=4 samples of 60 problems), after 0.60, 0.62, 0.64."""
    return pd.DataFrame([{"model": "tiny-m", "strategy": "hard", "seed": seed, "accuracy_before_by_level.test.1": 0.5,
                          "accuracy_after_by_level.test.1": after, **extra} for seed, after in enumerate((0.60, 0.62, 0.64))])


def test_per_level_verdicts_add_the_base_evaluations_variance():
    """Changes 0.10, 0.12, 0.14: mean 0.12, seed variance of the mean 0.02^2 / 3 = 0.000133. The shared base
    evaluation adds at most 0.5 x 0.5 / ((4 - 1) x 60) = 0.001389, so se = sqrt(0.001522) = 0.03902 and the 95%
    interval 0.12 -+ 4.3027 x 0.03902 = [-0.0479, 0.2879] holds 0: inconclusive (from the seeds alone: better)."""
    from course_lib.research.studies import base_variance_bound, per_level_verdicts

    assert base_variance_bound(0.5, 4, 60) == pytest.approx(0.25 / 180)
    assert base_variance_bound(0.2, 2, 1) == pytest.approx(0.16)  # the least K that shows variance, one problem
    rows = per_level_verdicts(level_verdict_table(**{"base_k.test": 4, "eval_k.test": 100}), 0.03, problems_per_level=60)
    expected = {"model": ["tiny-m"], "strategy": ["hard"], "level": [1], "before": [0.5], "mean": [0.12],
                "ci_low": [-0.0479], "ci_high": [0.2879], "tost_low": [0.0061], "tost_high": [0.2339],
                "verdict": ["inconclusive"]}  # tost: 0.12 -+ 2.92 x 0.03902
    assert rows[list(expected)].to_dict("list") == expected
    # base_k (the base model's own K) wins over eval_k; without it eval_k is used (here 100: a small bound, better)
    assert per_level_verdicts(level_verdict_table(**{"eval_k.test": 4}), 0.03, 60)["ci_low"].tolist() == [-0.0479]
    assert per_level_verdicts(level_verdict_table(**{"eval_k.test": 100}), 0.03, 60)["verdict"].tolist() == ["better"]
    with pytest.raises(CourseError, match="k=1 must be a whole number >= 2 and problems=60 one >= 1"):
        base_variance_bound(0.5, 1, 60)


def test_verdict_tables_sort_their_groups_and_name_a_group_without_pairs():
    """Models in file order tiny-s, tiny-m come out sorted; a group with one arm only is named (it was skipped in
    silence); a table without `base_variance.test` adds no shared variance."""
    table = pd.concat([synthetic_table().assign(model="tiny-s", task="shuffle"), synthetic_table()], ignore_index=True)
    table = pd.concat([table.assign(seed=table.seed + 3), table], ignore_index=True)
    pairs = paired_verdicts(table, [("hard", "random")], margin=0.03)
    assert pairs[["model", "difference", "verdict"]].values.tolist() == [
        ["tiny-m", "hard - random", "better"], ["tiny-s", "hard - random", "better"]]
    steady = table.assign(**{"gain.test": 0.1 + 0.001 * table.seed})  # no base_variance.test column
    gains = gain_verdicts(steady, margin=0.03)
    assert gains[["model", "strategy", "verdict"]].values.tolist() == [
        ["tiny-m", "hard", "better"], ["tiny-m", "random", "better"], ["tiny-s", "hard", "better"],
        ["tiny-s", "random", "better"]]
    one_arm = table[(table.task == "arith") | (table.strategy == "hard")]  # "aaa" < "arith": a first group, one arm
    with pytest.raises(CourseError, match=r"\{'task': 'aaa'\} has hard but no random"):
        paired_difference(one_arm.assign(task=one_arm.task.replace({"shuffle": "aaa"})), "hard", "random")


def test_sd_upper_bound_from_two_seeds_and_its_bounds():
    """Two seeds are enough (chi-square with 1 df: 10% quantile 0.01579, so 0.01 x sqrt(1 / 0.01579) = 0.0796); a
    zero sd stays zero; fewer seeds or a negative sd are refused."""
    assert sd_upper_bound(0.01, 2) == pytest.approx(0.07958, abs=1e-4)
    assert sd_upper_bound(0.0, 3) == 0.0
    assert sd_upper_bound(0.01, 1_000_000) == pytest.approx(0.01, rel=1e-3)  # many seeds: the bound meets the sd
    with pytest.raises(CourseError, match="seeds=1000001 must be a whole number from 2 to 1,000,000"):
        sd_upper_bound(0.01, 1_000_001)
    for seeds, sd, said in ((1, 0.01, "seeds=1 must be a whole number from 2 to 1,000,000"),
                            (10**20, 0.01, "seeds=100000000000000000000 must be a whole number from 2 to 1,000,000"),
                            (3, -0.01, "sd=-0.01 must be a finite number >= 0")):
        with pytest.raises(CourseError, match=said):
            sd_upper_bound(sd, seeds)


def test_a_grid_point_deleted_from_a_committed_table_is_refused_unless_aggregate_named_it_missing(tmp_path):
    """A seed's row cut from hard-wins/results.csv by hand would move its verdict in silence: refused, named; a
    point `aggregate` recorded as missing (a study still running) is read."""
    import json
    import re
    import shutil

    from course_lib.research.definitions import RESULTS_DIR

    folder = tmp_path / "hard-wins"
    shutil.copytree(RESULTS_DIR / "hard-wins", folder, ignore=shutil.ignore_patterns("points"))
    lines = (folder / "results.csv").read_text().splitlines(keepends=True)
    dropped = lines[7].split(",")[0]
    (folder / "results.csv").write_text("".join(lines[:7] + lines[8:]))
    with pytest.raises(CourseError, match=rf"lacks 1 of its grid's 60 points \(e\.g\. {re.escape(dropped)}\) and its "
                                          "provenance.json names none of them missing"):
        load_study("hard-wins", tmp_path)
    provenance = json.loads((folder / "provenance.json").read_text())
    (folder / "provenance.json").write_text(json.dumps({**provenance, "missing": [dropped]}))
    assert len(load_study("hard-wins", tmp_path)[0]) == 59


def test_a_missing_seed_value_is_refused_not_read_as_agreement(tmp_path):
    """A NaN among per-seed differences made equivalence_verdict's p-values 0.0 and Holm called it "slightly worse";
    a blank gain in a row that succeeded made the notebooks drop that seed and move a verdict."""
    import shutil

    from course_lib.research.definitions import RESULTS_DIR
    from course_lib.research.studies import equivalence_verdict, t_interval

    for call in (lambda: equivalence_verdict([0.02, float("nan"), 0.01, 0.0], 0.03), lambda: t_interval([1, None])):
        with pytest.raises(CourseError, match="hold 1 missing or infinite value"):
            call()
    folder = tmp_path / "hard-wins"
    shutil.copytree(RESULTS_DIR / "hard-wins", folder, ignore=shutil.ignore_patterns("points"))
    table = pd.read_csv(folder / "results.csv")
    table.loc[3, "gain.test"] = None
    table.to_csv(folder / "results.csv", index=False)
    with pytest.raises(CourseError, match=rf"point {table['point'][3]} succeeded but its gain.test is blank \(line 5\)"):
        load_study("hard-wins", tmp_path)


def test_the_verdicts_refuse_a_table_of_several_settings_grouped_without_them():
    """one-group-pilot crosses learning rate x steps x seeds: grouped by (model, strategy), each setting counted as a
    seed (12 'seeds' for 2) or, paired, was averaged in silence; with the settings in `by` each is read on its own."""
    from course_lib import CourseError
    from course_lib.research.studies import (
        gain_by_strategy,
        gain_verdicts,
        load_study,
        paired_difference,
        paired_verdicts,
    )

    table, _ = load_study("one-group-pilot")
    for call in (lambda: gain_verdicts(table, 0.03), lambda: gain_by_strategy(table, by=("model", "strategy")),
                 lambda: paired_difference(table, "hard", "random", by=("model",)),
                 lambda: paired_verdicts(table, [("hard", "random")], 0.03)):
        with pytest.raises(CourseError, match="several runs of one seed and arm within by="):
            call()
    settings = ("model", "learning_rate", "steps")
    assert set(gain_by_strategy(table, by=(*settings, "strategy"))["seeds"]) == {2}  # each setting its 2 seeds
    assert len(paired_difference(table, "hard", "random", by=settings)) == 6


def test_per_level_verdicts_refuse_two_settings_counted_as_seeds_and_ood_gains_carry_their_own_base_error():
    """per_level_verdicts counted a 2-seed pilot of 6 settings as 12 seeds; gain_verdicts added the test split's
    base variance to an ood gain."""
    rows = [{"model": "m", "strategy": "hard", "seed": seed, "steps": steps, "gain.ood": 0.01 * seed,
             "base_variance.test": 0.0, "base_variance.ood": 0.01, "base_k.test": 8,
             "accuracy_before_by_level.test.1": 0.5, "accuracy_after_by_level.test.1": 0.5 + 0.01 * seed}
            for seed in range(3) for steps in (100, 300)]
    table = pd.DataFrame(rows)
    for call in (lambda: per_level_verdicts(table, 0.03, 60), lambda: per_level_change(table)):
        with pytest.raises(CourseError, match="several runs of one seed and arm"):
            call()
    one = table[table.steps == 100]
    assert len(per_level_verdicts(one, 0.03, 60)) == 1
    ood = gain_verdicts(one, 0.03, column="gain.ood").iloc[0]
    alone = equivalence_verdict(one["gain.ood"], 0.03, base_variance=0.01)
    assert (ood["ci_low"], ood["ci_high"]) == (alone["ci_low"], alone["ci_high"])


def test_a_results_row_its_grid_does_not_list_is_refused_not_counted_as_a_seed(tmp_path):
    """A row pasted in from another run (another seed's point) was read as one more seed of the study."""
    import shutil

    from course_lib.research.studies import RESULTS_DIR, load_study

    shutil.copytree(RESULTS_DIR / "hard-wins", tmp_path / "hard-wins")
    path = tmp_path / "hard-wins" / "results.csv"
    table = pd.read_csv(path)
    pd.concat([table, table.iloc[[0]].assign(point="made_up", seed=99)]).to_csv(path, index=False)
    with pytest.raises(CourseError, match="holds point made_up, which its grid.json does not list"):
        load_study("hard-wins", tmp_path)


def test_seed_plan_refuses_arms_of_two_models():
    """hard from one model and random from another passed the one-row-per-seed-and-arm check and were paired."""
    pilot = pd.DataFrame({"model": ["m1"] * 3 + ["m2"] * 3, "strategy": ["hard"] * 3 + ["random"] * 3,
                          "seed": [0, 1, 2] * 2, "gain.test": [0.1, 0.2, 0.15, 0.0, 0.05, 0.02]})
    with pytest.raises(CourseError, match="the pilot holds several models"):
        seed_plan(pilot)


def test_seeds_that_all_agree_measure_no_noise():
    """Two seeds with the same gain give a zero-width interval: it excludes nothing, and it cannot vouch for a margin."""
    from course_lib.research.studies import assay_sensitivity, t_interval

    assert t_interval([0.1, 0.1])["excludes_zero"] is False
    assert t_interval([0.1, 0.12, 0.11])["excludes_zero"] is True
    check = assay_sensitivity([0.1, 0.1], margin=0.01)
    assert not check["sensitive"] and "no spread" in check["why"]
    assert assay_sensitivity([0.1, 0.1], margin=0.01, base_variance=1e-5)["sensitive"]  # the base's error is a spread


def test_round_23_seeds_that_agree_up_to_float_rounding_measure_no_noise():
    """Hostile round 23: per-seed differences equal up to the last bits of a subtraction (7/60 - 6/60,
    31/60 - 30/60, ...) gave "above 0" from a zero-width interval; written exactly they were "not tested"."""
    from course_lib.research.studies import all_agree, t_interval

    rounded = [7 / 60 - 6 / 60, 31 / 60 - 30 / 60, 55 / 60 - 54 / 60]
    assert len(set(rounded)) == 3 and all_agree(rounded)
    assert t_interval(rounded)["excludes_zero"] is False
    assert not all_agree([1 / 60, 1 / 60 + 1e-9, 1 / 60])  # a real (if tiny) spread is still a spread


def test_round_23_paired_verdicts_refuses_a_pair_listed_twice_or_an_arm_paired_with_itself():
    """Hostile round 23: a pair listed twice gave its rows twice, so a Holm family of them doubled (each p-value
    corrected for 4 tests, not 2); ("hard", "hard") was read as "has hard but no hard"."""
    from course_lib.research.studies import paired_verdicts

    table = pd.DataFrame({"model": "m", "strategy": ["hard", "random"] * 3, "seed": [0, 0, 1, 1, 2, 2],
                          "gain.test": [0.1, 0.2, 0.1, 0.3, 0.2, 0.2]})
    for pairs in ([("hard", "random"), ("hard", "random")], [("hard", "random"), ("random", "hard")]):
        with pytest.raises(CourseError, match=r"^pairs=.* lists a pair twice \(in either order\), .*; list each pair once$"):
            paired_verdicts(table, pairs, 0.03)
    with pytest.raises(CourseError, match=r"^pairs=\[\('hard', 'hard'\)\] pairs 'hard' with itself; pair two different"):
        paired_verdicts(table, [("hard", "hard")], 0.03)
    with pytest.raises(CourseError, match=r"^pairs=\['hard'\] must hold \(first, second\) arms"):
        paired_verdicts(table, ["hard"], 0.03)
    assert len(paired_verdicts(table, [["hard", "random"]], 0.03)) == 1  # a pair as a list, once


def test_a_paired_difference_refuses_a_missing_or_unpaired_seed():
    """A blank cell or a seed run for one arm only dropped out of the pair in silence (4 seeds reported for 5)."""
    from course_lib.research.studies import paired_difference, paired_verdicts, seed_plan

    rows = [dict(task="arith", model="m", strategy=arm, seed=seed, **{"gain.test": 0.05 + 0.01 * seed + shift})
            for seed in range(5) for arm, shift in (("hard", 0.0), ("random", -0.01))]
    table = pd.DataFrame(rows)
    assert paired_difference(table, "hard", "random")["seeds"].tolist() == [5]
    blank = table.assign(**{"gain.test": table["gain.test"].where(table.index != 1)})
    for call in (lambda t: paired_difference(t, "hard", "random"), lambda t: paired_verdicts(t, [("hard", "random")], 0.03),
                 seed_plan):
        with pytest.raises(CourseError, match="1 missing or infinite value"):
            call(blank)
    lonely = table.drop(index=9)  # random's seed 4 never ran
    with pytest.raises(CourseError, match=r"seed\(s\) \[4\] have a gain.test for only one of hard and random"):
        paired_difference(lonely, "hard", "random")


@pytest.mark.parametrize(("column", "swap"), [("strategy", {"hard": "random", "random": "hard"}), ("seed", {3: 4, 4: 3})])
def test_a_results_row_whose_cells_disagree_with_its_point_is_refused(tmp_path, column, swap):
    """Arm labels (or seeds) swapped between rows passed every check and flipped a scorecard row from contradicted to
    supported: each row's arm-defining cells must be those of the point it names."""
    import shutil

    from course_lib.research.studies import RESULTS_DIR, load_study

    shutil.copytree(RESULTS_DIR / "regimes-hard-wins-long", tmp_path / "regimes-hard-wins-long")
    path = tmp_path / "regimes-hard-wins-long" / "results.csv"
    table = pd.read_csv(path)
    table[column] = table[column].map(swap).fillna(table[column]).astype(table[column].dtype)
    table.to_csv(path, index=False)
    with pytest.raises(CourseError, match=rf"results.csv line \d+ says {column}=.*but its point .* has another"):
        load_study("regimes-hard-wins-long", tmp_path)


def test_gain_beyond_chance_corrects_bbh_and_refuses_a_file_of_unknown_tasks():
    """BBH's shuffled objects are guessable (1/3, 1/5, 1/7 by object count) and got no correction; a jsonl file's
    rows may be any task."""
    from course_lib.research.studies import with_gain_beyond_chance

    row = {"accuracy_after_by_level.test.3": 0.6, "accuracy_before_by_level.test.3": 0.4,
           "accuracy_after_by_level.test.5": 0.5, "accuracy_before_by_level.test.5": 0.3}
    table = pd.DataFrame([{"task": task, **row} for task in ("shuffle", "bbh", "arith")])
    beyond = with_gain_beyond_chance(table)["gain_beyond_chance.test"].tolist()
    assert beyond[1] == pytest.approx(np.mean([0.2 / (1 - 1 / 3), 0.2 / (1 - 1 / 5)])) and beyond[2] == pytest.approx(0.2)
    with pytest.raises(CourseError, match="a file's rows may be any task, so its guess rate is unknown"):
        with_gain_beyond_chance(pd.DataFrame([{"task": "jsonl:/x.jsonl", **row}]))


MISTYPED_CALLS = {
    "gain_by_strategy by": (lambda t: gain_by_strategy(t, by=("foo", "strategy")), r"by=\('foo', 'strategy'\): 'foo'"),
    "gain_verdicts column": (lambda t: gain_verdicts(t, 0.03, column="gain.tset"), "column: 'gain.tset'"),
    "paired_difference column": (lambda t: paired_difference(t, "hard", "random", column="gain.tset"),
                                 "column: 'gain.tset'"),
    "paired_verdicts by": (lambda t: paired_verdicts(t, [("hard", "random")], 0.03, by=("modle",)), "'modle'"),
    "mechanism_table by": (lambda t: mechanism_table(t, by=("mdl",)), "'mdl'"),
}


@pytest.mark.parametrize("name", MISTYPED_CALLS)
def test_a_mistyped_column_or_group_is_named_in_one_line(name):
    """A mistyped `by` or `column` gave a bare KeyError traceback; it now names the parameter and the columns."""
    call, match = MISTYPED_CALLS[name]
    table = pd.DataFrame({"task": "arith", "model": "m", "strategy": ["hard", "random"] * 3, "seed": [1, 1, 2, 2, 3, 3],
                          "gain.test": [0.1, 0.2, 0.1, 0.3, 0.2, 0.2]})
    with pytest.raises(CourseError, match=match + r".* is not a column of the results table; use one of \['task'"):
        call(table)


def test_seed_plan_names_a_pilot_without_spread_or_without_two_paired_seeds():
    """A pilot of identical differences, or of one paired seed, was reported as 'sd=0.0 and difference must be positive'
    or 'seeds=1 must be >= 2': neither named the pilot's problem."""
    same = pd.DataFrame({"strategy": ["hard", "random"] * 3, "seed": [1, 1, 2, 2, 3, 3], "gain.test": [0.1, 0.2] * 3})
    with pytest.raises(CourseError, match=r"every paired difference hard - random in the pilot is the same \(-0.1000\)"):
        seed_plan(same)
    with pytest.raises(CourseError, match="the pilot has 1 seed run for both hard and random"):
        seed_plan(same[same["seed"] == 1])


def test_beats_or_loses_reads_the_unrounded_interval():
    """A lower bound of +0.00004 rounds to 0.0: the row read 'is indistinguishable from' though 0 is outside."""
    from course_lib.research.studies import beats_or_loses

    row = t_interval([0.00005, 0.0001, 0.00015, 0.0001])
    assert row["ci_low"] == 0.0 and row["excludes_zero"]
    assert beats_or_loses(row) == "beats"
    assert beats_or_loses(t_interval([-0.00005, -0.0001, -0.00015, -0.0001])) == "loses to"
    assert beats_or_loses(t_interval([-0.1, 0.1, 0.05])) == "is indistinguishable from"
    assert beats_or_loses({"ci_low": 0.01, "ci_high": 0.02}) == "beats"  # a row without `excludes_zero`
    # seeds 1e-5 apart: the rounded bounds collapse to one value, yet the seeds differ: not "all seeds agree"
    close = t_interval([0.10000, 0.10001, 0.10002])
    assert close["ci_low"] == close["ci_high"] and beats_or_loses(close) == "beats"
    assert beats_or_loses(t_interval([0.1, 0.1, 0.1])) == "is not tested against"  # they do agree: no spread
    # a mean kept to more digits than its bounds, which both round to 0.0: the mean's side decides, not the bounds'
    assert beats_or_loses({"mean": 4e-5, "ci_low": 0.0, "ci_high": 0.0, "excludes_zero": True}) == "beats"


def test_a_study_whose_grid_json_was_deleted_is_refused(tmp_path):
    """Without grid.json the row-versus-point check was skipped in silence; `aggregate` writes it with the
    provenance, so one missing beside a provenance is a gap, named."""
    import shutil

    from course_lib.research.studies import RESULTS_DIR

    shutil.copytree(RESULTS_DIR / "regimes-hard-wins-long", tmp_path / "regimes-hard-wins-long")
    (tmp_path / "regimes-hard-wins-long" / "grid.json").unlink()
    with pytest.raises(CourseError, match="has the results.csv and provenance.json `aggregate` wrote but no grid.json"):
        load_study("regimes-hard-wins-long", tmp_path)


def test_a_group_with_one_arm_of_a_pair_is_named_not_dropped_from_the_family():
    """Model B without its hard rows left the Holm family in silence, and model A's verdict moved from equivalent to
    slightly better; a group that ran neither arm is no part of the pair."""
    rows = [dict(model=model, strategy=arm, seed=seed, **{"gain.test": 0.2 + 0.01 * seed + shift})
            for model in ("A", "B") for seed in range(5) for arm, shift in (("hard", 0.003), ("random", 0.0))]
    table = pd.DataFrame(rows)
    assert len(paired_verdicts(table, [("hard", "random")], 0.03)) == 2
    without = table[~((table["model"] == "B") & (table["strategy"] == "hard"))]
    for call in (lambda t: paired_verdicts(t, [("hard", "random")], 0.03),
                 lambda t: paired_difference(t, "hard", "random", by=("model",))):
        with pytest.raises(CourseError, match=r"\{'model': 'B'\} has random but no hard"):
            call(without)
    neither = table[~((table["model"] == "B") & table["strategy"].isin(["hard", "random"]))]
    assert paired_difference(neither, "hard", "random", by=("model",))["model"].tolist() == ["A"]


@pytest.mark.parametrize("value", [0.1, 0.12, 0.2, 0.45])
def test_seeds_that_agree_are_read_on_the_values_not_on_a_float_variance(value):
    """[0.1]*3 has a variance of 1e-17 and [0.12]*3 of 0: one vouched for a margin and the other did not."""
    from course_lib.research.studies import assay_sensitivity

    assert not assay_sensitivity([value] * 3, 0.03)["sensitive"]
    assert t_interval([value] * 3)["excludes_zero"] is False


def test_holm_keeps_the_side_of_a_mean_rounded_to_zero():
    from course_lib.research.studies import holm_verdicts

    row = equivalence_verdict([0.00003, 0.00004, 0.00005], 0.03)
    assert row["mean"] == 0.0 and row["verdict"].startswith("slightly better")
    assert holm_verdicts(pd.DataFrame([row]))["verdict_holm"][0] == row["verdict"]  # it read "slightly worse"


def test_a_table_without_seeds_or_of_two_lengths_is_refused_not_pooled():
    """Without a seed column two models' rows were pooled as 8 seeds; mechanism_table averaged runs of 41 and 100
    steps into 'steps 57.09'; by="model" read as five one-letter columns."""
    rows = [dict(model=model, strategy="hard", seed=seed, steps=41, **{"gain.test": gain + 0.01 * seed})
            for model, gain in (("a", 0.1), ("b", 0.6)) for seed in range(4)]
    table = pd.DataFrame(rows)
    with pytest.raises(CourseError, match="the seed column .*'seed' is not a column"):
        gain_by_strategy(table.drop(columns=["seed", "model"]), by=("strategy",))
    with pytest.raises(CourseError, match=r"by='model' must be a tuple of column names, e.g. \('model',\)"):
        gain_by_strategy(table, by="model")
    longer = pd.concat([table, table.assign(steps=100)])
    with pytest.raises(CourseError, match="several runs of one seed and arm"):
        mechanism_table(longer)
    assert mechanism_table(longer, by=("model", "strategy", "steps"))["steps"].tolist() == [41, 100, 41, 100]


def test_an_edited_budget_cell_is_refused(tmp_path):
    """A budget cell set to 0.2 on a 0.1 point passed load_study, and the explorer then dropped that seed."""
    import shutil

    from course_lib.research.studies import RESULTS_DIR

    shutil.copytree(RESULTS_DIR / "hard-wins", tmp_path / "hard-wins")
    path = tmp_path / "hard-wins" / "results.csv"
    table = pd.read_csv(path)
    table.loc[0, "budget"] = 0.2
    table.to_csv(path, index=False)
    with pytest.raises(CourseError, match=r"results.csv line 2 says budget=0.2, but its point"):
        load_study("hard-wins", tmp_path)


def test_ids_that_differ_only_in_type_are_one_id():
    table = pd.DataFrame({"id": [1, "1", "2"], "pass_rate": [0.0, 1.0, 0.5], "level": 1})
    with pytest.raises(CourseError, match="duplicate ids"):
        select(table, "hard", 1)


@pytest.mark.parametrize("call", [
    lambda: equivalence_verdict([0.1, 0.2, 0.3], "0.03"),
    lambda: paired_verdicts(pd.DataFrame({"strategy": ["hard", "random"] * 3, "seed": [0, 0, 1, 1, 2, 2],
                                          "model": "m", "gain.test": [0.1, 0.2, 0.1, 0.25, 0.1, 0.3]}),
                            [("hard", "random")], "0.03"),
    lambda: rank_correlation([1, 2, 3, 4], [1, 2, 3, 4], resamples=0),
    lambda: per_level_verdicts(pd.DataFrame({"model": "m", "strategy": "hard", "seed": [0, 1, 2],
                                             "accuracy_before_by_level.test.1": 0.5,
                                             "accuracy_after_by_level.test.1": 0.6}), 0.03, 60),
])
def test_a_margin_as_text_no_resamples_or_no_k_is_one_line(call):
    with pytest.raises(CourseError, match=r"margin='0.03'|resamples=0|base_k or eval_k"):
        call()


from course_lib.research import studies  # noqa: E402  (the module, for the calls below)


@pytest.mark.parametrize(("call", "named"), [
    (lambda: studies.sd_upper_bound(0.01, 3, confidence=90), "confidence=90"),
    (lambda: studies.sd_upper_bound(0.01, 3, confidence=0), "confidence=0"),
    (lambda: studies.sd_upper_bound(0.01, float("inf")), "seeds=inf"),
    (lambda: studies.seeds_needed(0.037, 0.03, power=0), "power=0"),
    (lambda: studies.seeds_needed(0.037, 0.03, alpha=1), "alpha=1"),
    (lambda: studies.seeds_needed(float("inf"), 0.03), "sd=inf"),
    (lambda: studies.detectable_difference(0.037, 5, power=1.5), "power=1.5"),
    (lambda: studies.holm_verdicts(pd.DataFrame([studies.equivalence_verdict([0.01, 0.02, 0.015], 0.03)]), alpha=5),
     "alpha=5"),
    (lambda: studies.equivalence_verdict([0.01, 0.0, -0.01], 0.03, sensitive="no"), "sensitive='no'"),
])
def test_probabilities_and_flags_are_checked_before_any_test(call, named):
    """Round 12: a confidence of 90 gave NaN, alpha=5 made every verdict 'slightly better', power=0 planned 2 seeds."""
    import re

    with pytest.raises(CourseError, match=re.escape(named)):
        call()


@pytest.mark.parametrize(("call", "named"), [
    (lambda: studies.t_interval("0.1"), "values='0.1' must be a list"),
    (lambda: studies.t_interval(5), "values=5 must be a list"),
    (lambda: studies.t_interval([[0.1, 0.2], [0.3, 0.4]]), "values hold [0.1, 0.2]"),
    (lambda: studies.t_interval([0.1, "0.2", 0.3]), "values hold '0.2'"),
    (lambda: studies.equivalence_verdict(pd.Series([0.1, pd.NA, 0.2, 0.1], dtype="Float64"), 0.03), "1 missing"),
    (lambda: studies.holm_verdicts(pd.DataFrame({"x": [1]})), "rows lack column(s)"),
    (lambda: studies.holm_verdicts([0.1, 0.2]), "rows lack column(s)"),
    (lambda: studies.holm_adjusted([0.01, None]), "p_values=[0.01, None] must be probabilities from 0 to 1"),
    (lambda: studies.sd_upper_bound("0.1", 3), "sd='0.1'"),
    (lambda: studies.seeds_needed("0.037", 0.03), "sd='0.037'"),
    (lambda: studies.seeds_needed(0.037, "0.03"), "difference='0.03'"),
    (lambda: studies.detectable_difference("0.037", 5), "sd='0.037'"),
])
def test_text_nested_or_blank_statistics_inputs_are_one_line_naming_them(call, named):
    """Round 12: these were TypeError, ValueError or KeyError tracebacks."""
    import re

    with pytest.raises(CourseError, match=re.escape(named)):
        call()


def test_numpy_scalars_are_numbers_to_the_statistics():
    """Round 12: a numpy float32 margin (read from an array) was refused as not a number."""
    plain = studies.equivalence_verdict([0.01, 0.0, -0.01, 0.005], 0.03)
    for margin in (np.float32(0.03), np.float64(0.03)):
        assert studies.equivalence_verdict([0.01, 0.0, -0.01, 0.005], margin)["verdict"] == plain["verdict"]
    assert studies.equivalence_verdict([0.01, 0.0, -0.01], np.int64(1))["verdict"] == "equivalent"
    with_base = studies.equivalence_verdict([0.01, 0.0, -0.01, 0.005], 0.03, base_variance=np.float32(1e-5))
    assert with_base["ci_high"] > plain["ci_high"]
    assert studies.seeds_needed(np.float64(0.037), np.float32(0.03)) == studies.seeds_needed(0.037, 0.03)


# Hostile round 13: damaged study files that moved a verdict in silence


def _study_copy(tmp_path, study="regimes-hard-wins-long"):
    import shutil

    from course_lib.research.definitions import RESULTS_DIR

    shutil.copytree(RESULTS_DIR / study, tmp_path / study, ignore=shutil.ignore_patterns("points"))
    return tmp_path / study


@pytest.mark.parametrize(("edit", "said"), [
    (lambda t: t.assign(model=t.model.where(t.index != 3)), "line 5 has a blank model"),
    (lambda t: t.assign(seed=t.seed.where(t.index != 3)), "line 5 has a blank seed"),
    (lambda t: t.drop(columns="point"), "has no point column but a grid.json beside it"),
    (lambda t: t.assign(status=t.status.where(t.index != 3, "failed")), "line 5 is marked failed but holds its results"),
    (lambda t: t.assign(**{"gain_ci.test": t["gain_ci.test"].where(t.index != 3)}), "no readable gain_ci.test"),
    (lambda t: t.assign(**{"pass_at_k_gain.ood": t["pass_at_k_gain.ood"].where(t.index != 3, 0.2)}),
     "is not pass_at_k_after - pass_at_k_before"),
    (lambda t: t.assign(**{"pass_at_k_gain.ood": 0.2, "pass_at_k_after.ood": None}), "but a blank pass_at_k_after.ood"),
    (lambda t: t.drop(columns="gain_ci.test"), "has gain.test but no gain_ci column beside it"),
    (lambda t: t.assign(**{"pass_at_k_after.ood": t["pass_at_k_after.ood"].where(t.index != 3, 1.4)}),
     "column 'pass_at_k_after.ood' holds 1.4 (line 5), outside [0, 1]"),  # round 16: it moved a published verdict
    (lambda t: t.assign(**{"base_variance.test": 5.0}), "column 'base_variance.test' holds 5.0 (line 2), outside [0, 0.25]"),
    (lambda t: t.assign(lucky_share=t.lucky_share.where(t.index != 0, -1)), "'lucky_share' holds -1.0"),
    # round 18: an impossible per-level accuracy, a K edited up (it shrinks the base error), a negative selection
    (lambda t: t.assign(**{"accuracy_after_by_level.test.3": 1.7}),
     "column 'accuracy_after_by_level.test.3' holds 1.7 (line 2), outside [0, 1]"),
    (lambda t: t.assign(**{"eval_k.test": 100_000}), "column 'eval_k.test' holds 100000 (line 2), outside [1, 10000]"),
    (lambda t: t.assign(n_selected=t.n_selected.where(t.index != 1, -5)), "column 'n_selected' holds -5 (line 3)"),
    # a measure written as text in every row (no number beside it to show the column numeric) was read as blank
    (lambda t: t.assign(lucky_share="abc"), "column 'lucky_share' holds 'abc' (line 2), not a number"),
    (lambda t: t.assign(**{"eval_k.test": "many"}), "column 'eval_k.test' holds 'many' (line 2), not a number"),
    (lambda t: t.assign(**{"gain.test": "abc"}), "column 'gain.test' holds 'abc' (line 2), not a number"),
    (lambda t: t.assign(steps="many"), "column 'steps' holds 'many' (line 2), not a number"),  # text in every row, none beside
])
def test_a_results_table_edited_by_hand_is_refused_in_one_line(tmp_path, edit, said):
    """Round 13: each edit passed `load_study` and flipped the skill-limited claim (contradicted -> could not tell,
    or could not tell -> supported for pass@k)."""
    import re

    folder = _study_copy(tmp_path)
    table = pd.read_csv(folder / "results.csv")
    edit(table).to_csv(folder / "results.csv", index=False)
    with pytest.raises(CourseError, match=re.escape(said)):
        studies.load_study(folder.name, tmp_path)


def test_a_run_that_selected_one_problem_or_trained_one_step_is_in_range_and_none_is_not():
    studies.check_ranges(pd.DataFrame({"n_selected": [1, 250], "steps": [1, 100]}), "r.csv", "fix")
    for column in ("n_selected", "steps"):
        with pytest.raises(CourseError, match=rf"r.csv: column '{column}' holds 0 \(line 3\), outside \[1, inf\]; fix"):
            studies.check_ranges(pd.DataFrame({column: [1, 0]}), "r.csv", "fix")


def test_a_table_aggregate_wrote_needs_its_grid(tmp_path):
    """A table `aggregate` wrote (its provenance records a commit) is read only beside its grid.json; a hand-made
    table without provenance is read as given (docs/bad_inputs.md)."""
    folder = _study_copy(tmp_path)
    (folder / "grid.json").unlink()
    with pytest.raises(CourseError, match="no grid.json beside them"):
        studies.load_study(folder.name, tmp_path)


def test_side_reads_the_recorded_sign_else_the_mean_else_the_intervals_midpoint():
    from types import SimpleNamespace as Row

    assert studies.side(Row(direction=-1.0, mean=0.0, ci_low=-0.01, ci_high=0.03)) == -1.0  # the unrounded sign
    for unrecorded in (float("nan"), 0, 0.0):  # no sign recorded: the rounded mean
        assert studies.side(Row(direction=unrecorded, mean=0.02, ci_low=-0.01, ci_high=0.05)) == 0.02
    assert studies.side(Row(mean=0.02, ci_low=-0.01, ci_high=0.05)) == 0.02  # a row from before `direction`
    assert studies.side(Row(mean=0.0, ci_low=-0.01, ci_high=0.03)) == pytest.approx(0.02)  # a mean rounded to 0
    assert studies.side(Row(mean=0.0)) == 0  # nothing else recorded


def test_holm_keeps_the_side_of_a_difference_that_rounds_to_zero():
    """Round 13: every seed at +4e-5 rounded to a mean of 0, and the Holm verdict read it as 'slightly worse'."""
    for values, word in (([3e-5, 4e-5, 5e-5], "better"), ([-3e-5, -4e-5, -5e-5], "worse")):
        row = studies.equivalence_verdict(values, 0.03)
        assert row["mean"] == 0 and row["verdict"].startswith(f"slightly {word}")
        assert studies.holm_verdicts(pd.DataFrame([row]))["verdict_holm"][0].startswith(f"slightly {word}")


@pytest.mark.parametrize(("call", "named"), [
    (lambda: studies.assay_sensitivity(pd.array([0.1, None, 0.11], dtype="Float64"), 0.01), "1 missing"),
    (lambda: studies.assay_sensitivity(0.1, 0.01), "values=0.1 must be a list"),
    (lambda: studies.assay_sensitivity(["0.1", "0.12", "0.11"], 0.01), "values hold '0.1'"),
    (lambda: studies.assay_sensitivity([[0.1, 0.2], [0.1, 0.3]], 0.01), "values hold [0.1, 0.2]"),
    (lambda: studies.equivalence_verdict({0.1: "a", 0.2: "b", 0.3: "c"}, 0.03), "not one value, a dict or a set"),
    (lambda: studies.holm_verdicts(pd.DataFrame({"mean": ["-0.1"], "p_difference": [0.01], "p_equivalence": [0.5]})),
     "rows' mean holds '-0.1'"),
    (lambda: studies.holm_verdicts(pd.DataFrame({"mean": [float("nan")], "p_difference": [0.01],
                                                 "p_equivalence": [0.5]})), "rows' mean holds nan"),
    (lambda: studies.holm_verdicts(pd.DataFrame({"mean": [0.1], "p_difference": [0.01], "p_equivalence": [0.5],
                                                 "sensitive": ["False"]})), "sensitive column must hold True or False"),
    (lambda: studies.seeds_needed(0.037, 0.03, most=2.5), "most=2.5"),
    (lambda: studies.base_variance_bound("0.4", 4, 300), "accuracy='0.4'"),
    (lambda: studies.base_variance_bound(0.4, float("inf"), 300), "k=inf"),
])
def test_round_13_statistics_inputs_are_one_line(call, named):
    """Round 13, sections B and C: tracebacks, or a NaN or a text read as a verdict."""
    import re

    with pytest.raises(CourseError, match=re.escape(named)):
        call()


def test_a_fraction_is_a_margin():
    from fractions import Fraction

    assert studies.equivalence_verdict([0.01, 0.02, 0.0], Fraction(3, 100))["verdict"] == \
        studies.equivalence_verdict([0.01, 0.02, 0.0], 0.03)["verdict"]


def test_a_failed_row_the_provenance_does_not_name_is_refused(tmp_path):
    """Round 14: marking a point failed (its measures blanked) and deleting provenance.json's `failed` list passed."""
    import json

    folder = _study_copy(tmp_path)
    table = pd.read_csv(folder / "results.csv")
    table.loc[3, "status"] = "failed"
    table.loc[3, [c for c in table.columns if c.startswith(("accuracy_", "gain", "pass_at_k"))]] = None
    table.to_csv(folder / "results.csv", index=False)
    provenance = json.loads((folder / "provenance.json").read_text())
    provenance.pop("failed", None)
    (folder / "provenance.json").write_text(json.dumps(provenance))
    with pytest.raises(CourseError, match="does not name it among the failed points"):
        studies.load_study(folder.name, tmp_path)


# Mutation survivors (group 3)


def test_base_variance_bound_of_a_level_at_no_or_full_accuracy_is_zero():
    """A level the base model never (or always) solves has no variance to add: 0 and 1 are shares, not refused."""
    assert studies.base_variance_bound(0.0, 4, 300) == 0.0
    assert studies.base_variance_bound(1.0, 4, 300) == 0.0


def test_beats_or_loses_reads_a_mean_difference_a_blank_excludes_zero_and_a_mean_rounded_to_minus_zero():
    row = {"mean_difference": 0.02, "ci_low": 0.0, "ci_high": 0.04, "excludes_zero": True}  # a paired row, rounded
    assert studies.beats_or_loses(row) == "beats"
    # t-interval rows beside bootstrap rows in one table: a bootstrap row's excludes_zero is blank, its interval read
    mixed = {"mean": 0.02, "ci_low": -0.01, "ci_high": 0.05, "excludes_zero": float("nan")}
    assert studies.beats_or_loses(mixed) == "is indistinguishable from"
    below = t_interval([-0.00003, -0.00004, -0.00005])  # every seed below 0; the mean rounds to -0.0
    assert below["mean"] == 0 and below["excludes_zero"] and studies.beats_or_loses(below) == "loses to"
    above = t_interval([0.00003, 0.00004, 0.00005])  # every seed above 0: it read "loses to" off the rounded mean
    assert above["mean"] == 0 and above["excludes_zero"] and studies.beats_or_loses(above) == "beats"


def test_a_damaged_grid_json_is_named_with_how_to_restore_it(tmp_path):
    folder = _study_copy(tmp_path)
    (folder / "grid.json").write_text("{}")
    with pytest.raises(CourseError, match=r"grid.json is not the grid `reproduce` wrote \(KeyError\); restore it "
                                          r"\(git checkout\)"):
        studies.load_study(folder.name, tmp_path)


def test_a_failed_row_the_provenance_names_is_read_and_left_out(tmp_path):
    import json

    folder = _study_copy(tmp_path)
    table = pd.read_csv(folder / "results.csv")
    failed = table.loc[3, "point"]
    table.loc[3, "status"] = "failed"
    table.loc[3, [c for c in table.columns if c.startswith(("accuracy_", "gain", "pass_at_k"))]] = None
    table.to_csv(folder / "results.csv", index=False)
    provenance = json.loads((folder / "provenance.json").read_text())
    assert "commit" in provenance  # written by `aggregate`: a failed point it did not name would be refused
    provenance["failed"] = [*provenance.get("failed", []), failed]
    (folder / "provenance.json").write_text(json.dumps(provenance))
    read, _ = studies.load_study(folder.name, tmp_path)
    assert len(read) == len(table) - 1 and failed not in set(read["point"])


def test_power_helpers_refuse_an_infinite_spread_or_effect_and_name_a_bad_alpha():
    with pytest.raises(CourseError, match="sd=inf must be a positive, finite number"):
        studies.detectable_difference(float("inf"), 5)
    with pytest.raises(CourseError, match="alpha=1.5 must be a number strictly between 0 and 1"):
        studies.detectable_difference(0.04, 5, alpha=1.5)
    with pytest.raises(CourseError, match="sd=inf must be a finite number >= 0"):
        studies.sd_upper_bound(float("inf"), 3)
    with pytest.raises(CourseError, match="difference=inf must be a positive, finite number"):
        studies.seeds_needed(0.04, float("inf"))


def test_seeds_needed_may_cap_at_three_seeds():
    assert studies.seeds_needed(0.001, 0.03, most=3) == 3  # 3 is the fewest it reads, so a cap of 3 is allowed


def test_seed_plan_reads_a_pilot_of_two_paired_seeds_and_names_a_missing_arm():
    pilot = pd.DataFrame({"strategy": ["hard", "random"] * 2, "seed": [1, 1, 2, 2], "gain.test": [0.1, 0.2, 0.15, 0.2]})
    plan = seed_plan(pilot)
    sd = float(np.std([-0.1, -0.05], ddof=1))
    assert plan["pilot seeds"] == 2 and plan["sd planned with"] == pytest.approx(sd_upper_bound(sd, 2))
    with pytest.raises(CourseError, match="the pilot has no run of hard or of easy; pass a pilot that ran both"):
        seed_plan(pilot, second="easy")


def test_paired_difference_goes_on_past_a_group_that_ran_neither_arm():
    """Groups are read in sorted order: `aaa` (only `easy` ran) comes first, and `arith` must still be compared."""
    table = synthetic_table()
    neither = pd.DataFrame({"task": "aaa", "model": "tiny-m", "strategy": "easy", "seed": [0, 1, 2], "status": "ok",
                            "gain.test": [0.1, 0.2, 0.3]})
    rows = paired_difference(pd.concat([neither, table], ignore_index=True), "hard", "random")
    assert rows[["task", "difference"]].values.tolist() == [["arith", "hard - random"]]
    assert rows["mean"].tolist() == [pytest.approx(0.05)]


def test_paired_by_seed_of_an_absent_arm_is_an_empty_pair_with_both_columns():
    wide = studies.paired_by_seed(synthetic_table(), "hard", "easy", "gain.test")
    assert wide.empty and list(wide.columns) == ["hard", "easy"]
    assert (wide["hard"] - wide["easy"]).empty  # a difference of nothing, not a KeyError


def test_gain_verdicts_reads_a_column_without_a_split():
    """A gain column of one's own (no `.test`): no base evaluation's variance is added, as for any other column."""
    plain = gain_verdicts(synthetic_table().rename(columns={"gain.test": "gain"}), 0.03, column="gain")
    assert plain.equals(gain_verdicts(synthetic_table(), 0.03))


def test_rank_correlation_of_few_pairs_skips_resamples_of_ties():
    """With 4 pairs some resamples draw one pair 4 times (no rank correlation, NaN): skipped, not an error."""
    assert rank_correlation([1, 2, 3, 4], [1, 3, 2, 4]) == {"rho": 0.8, "ci_low": -1.0, "ci_high": 1.0, "n": 4}
    assert rank_correlation([1, 2, 3, 4], [1, 3, 2, 4], resamples=10)["n"] == 4  # 10 resamples, the fewest allowed


def test_per_level_verdicts_names_a_table_without_the_base_evaluations_samples_per_problem():
    with pytest.raises(CourseError, match=r"^the samples per problem of the base evaluation \(base_k or eval_k\): "
                                          r"'eval_k.test' is not a column of the results table"):
        per_level_verdicts(synthetic_table(), 0.03, 60)


# Mutation survivors (group 2)


def test_a_smoke_rows_capped_steps_and_a_seed_read_as_a_float_are_its_points():
    """A smoke point of 100 steps runs 2 (the profile's cap): its row is that point's, in smoke only; a seed column
    with a blank reads 3 as 3.0, the same seed; a text cell where a number belongs is named, not a traceback."""
    point = {"STRATEGY": "hard", "SEED": 3, "STEPS": 100, "PROFILE": "smoke"}
    row = pd.Series({"strategy": "hard", "seed": 3.0, "steps": 2})
    assert studies.row_disagreement(row, point) is None
    assert studies.row_disagreement(row, {**point, "PROFILE": "tiny"}) == "steps=2"
    assert studies.row_disagreement(pd.Series({"seed": 4.0}), point) == "seed=4.0"
    assert studies.row_disagreement(pd.Series({"budget": "lots"}), {"BUDGET": 0.1}) == "budget=lots"


def test_paired_verdicts_judge_the_reference_by_the_compared_gain_in_any_arm_column():
    """A pass@k comparison is vouched for by the reference arm's pass@k gain, not by its accuracy gain (flat here);
    the arms may sit in another column than strategy (arm=), the gain in a column without a split, and a model that
    ran neither arm of the pair (one extra run) is left out."""
    rows = [{"model": "m", "variant": arm, "seed": seed, "gain.test": gain - 0.1, "pass_at_k_gain.test": gain,
             "base_variance.test": 0.0}
            for seed, random_gain, hard_gain in ((0, 0.09, 0.095), (1, 0.10, 0.10), (2, 0.11, 0.105))
            for arm, gain in (("random", random_gain), ("hard", hard_gain))]
    table = pd.DataFrame([*rows, {**rows[0], "model": "m2", "variant": "easy"}])
    keys = ["model", "difference", "verdict", "reference_gain", "why"]
    learned = [["m", "hard - random", "equivalent", 0.1, ""]]
    pairs = [("hard", "random")]
    assert paired_verdicts(table, pairs, 0.03, column="pass_at_k_gain.test", arm="variant")[keys].values.tolist() == \
        learned
    no_split = table.drop(columns="gain.test").rename(columns={"pass_at_k_gain.test": "gain"})
    assert paired_verdicts(no_split, pairs, 0.03, column="gain", arm="variant")[keys].values.tolist() == learned
    flat = paired_verdicts(table, pairs, 0.03, arm="variant")
    assert flat[["model", "verdict"]].values.tolist() == [["m", "could not tell"]]
    assert flat["why"][0].startswith("random did not clearly learn")


def test_a_mistyped_column_or_arm_and_a_table_without_seeds_are_named_by_their_parameter():
    table = pd.DataFrame({"model": "m", "strategy": ["hard", "random"] * 3, "seed": [0, 0, 1, 1, 2, 2],
                          "gain.test": [0.1, 0.2, 0.1, 0.25, 0.1, 0.3]})
    with pytest.raises(CourseError, match="column: 'gain.tset' is not a column of the results table"):
        paired_verdicts(table, [("hard", "random")], 0.03, column="gain.tset")
    with pytest.raises(CourseError, match="arm: 'variant' is not a column of the results table"):
        paired_verdicts(table, [("hard", "random")], 0.03, arm="variant")
    with pytest.raises(CourseError, match="rows of several settings would count as seeds\\): 'seed' is not a column"):
        paired_verdicts(table.drop(columns="seed"), [("hard", "random")], 0.03)


def test_one_run_per_seed_is_checked_on_a_table_of_its_keys_only():
    with pytest.raises(CourseError, match="several runs of one seed and arm within by=\\('model',\\)"):
        studies.check_one_run_per_seed(pd.DataFrame({"model": "m", "strategy": "hard", "seed": [0, 0]}), ("model",))


def test_a_gain_is_checked_against_its_interval_and_only_against_accuracies_it_has():
    """A gain outside its own interval is refused even with no accuracy columns; a gain beside only one of its
    accuracies, or a blank ood gain beside a blank ood accuracy, has nothing to disagree with."""
    with pytest.raises(CourseError, match=r"r.csv: gain.test on line 2 lies outside its own interval \[0.01, 0.04\]"):
        studies.check_gains_agree(pd.DataFrame({"gain.test": [0.05], "gain_ci.test": ["[0.01, 0.04]"]}), "r.csv", "fix")
    studies.check_gains_agree(pd.DataFrame({"gain.test": [0.05], "accuracy_after.test": [0.6]}), "r.csv", "fix")
    studies.check_gains_agree(pd.DataFrame({"gain.ood": [np.nan], "accuracy_after.ood": [np.nan],
                                            "accuracy_before.ood": [0.5]}), "r.csv", "fix")


@pytest.mark.parametrize(("edit", "said"), [
    (lambda t: t.assign(status=t.status.where(t.index != 1, "done")),
     ": status 'done' (line 3) is neither 'ok' nor 'failed'"),
    (lambda t: t.assign(lucky_share=t.lucky_share.where(t.index != 0, 1.5)),
     ": column 'lucky_share' holds 1.5 (line 2), outside [0, 1]"),
    (lambda t: t.assign(**{"gain.test": t["gain.test"].where(t.index != 3, t["gain.test"] + 0.01)}),
     ": gain.test on line 5 is not accuracy_after - accuracy_before = "),
])
def test_an_edited_status_share_or_gain_is_one_line_naming_the_file_and_the_fix(tmp_path, edit, said):
    folder = _study_copy(tmp_path)
    table = pd.read_csv(folder / "results.csv")
    edit(table).to_csv(folder / "results.csv", index=False)
    fix = (f"restore it (git checkout), or move it aside (an edit is kept there) and remake it with "
           f"`python -m course_lib aggregate {folder.name} --out DIR`")
    with pytest.raises(CourseError) as raised:
        studies.load_study(folder.name, tmp_path)
    message = str(raised.value)
    assert message.startswith(f"{folder / 'results.csv'}{said}") and message.endswith(f"; {fix}")


def test_paired_verdicts_refuses_a_pair_whose_reference_arm_is_blank_in_one_group():
    """A model whose random arm had no value in the column lost its row (pivot_table drops an all-blank arm): the Holm
    family shrank and nothing said so. Both arms blank (nothing measured there) still leaves the group out."""
    rows = [{"model": model, "strategy": strategy, "seed": seed,
             "gain.test": float("nan") if (model, strategy) == ("b", "random") else 0.01 * seed}
            for model in "ab" for strategy in ("hard", "random") for seed in range(3)]
    with pytest.raises(CourseError, match="missing or infinite value"):
        studies.paired_verdicts(pd.DataFrame(rows), [("hard", "random")], 0.03)
    neither = pd.DataFrame([{**row, "gain.test": float("nan") if row["model"] == "b" else row["gain.test"]}
                            for row in rows])
    assert list(studies.paired_verdicts(neither, [("hard", "random")], 0.03).model) == ["a"]


# Mutation survivors (group n2)
def test_a_base_variance_written_as_text_is_refused_in_one_line():
    """A results table edited by hand with a word where a base variance was: the group's one-line refusal, naming the
    column, not pandas' 'Unable to parse string'."""
    rows = pd.DataFrame([{"model": "tiny-m", "strategy": "hard", "seed": seed, "gain.test": 0.1 + 0.005 * seed,
                          "base_variance.test": "unknown" if seed == 2 else 1e-5} for seed in range(4)])
    with pytest.raises(CourseError, match=r"tiny-m, hard: its gains are measured from 2 base evaluations \(the "
                                          r"base_variance.test column holds 1e-05, nan\)"):
        gain_verdicts(rows, 0.03)


def test_shared_base_variance_reads_the_one_value_of_a_gain_columns_split():
    """The split after the last dot names the base evaluation (gain.test -> base_variance.test); a measure that is
    not a gain, or a table without that column, has none (0.0); a variance of exactly 0 (a base evaluated without
    error) is a value, not a refusal."""
    rows = pd.DataFrame({"gain.test": [0.1, 0.2], "base_variance.test": [4e-5, 4e-5], "base_variance.ood": [0.0, 0.0],
                         "lucky_share": [0.1, 0.2]})
    assert studies.shared_base_variance(rows, "gain.test", "arm") == 4e-5
    assert studies.shared_base_variance(rows, "gain.ood", "arm") == 0.0  # recorded as exactly 0
    assert studies.shared_base_variance(rows, "lucky_share", "arm") == 0.0  # not a gain: no base evaluation
    assert studies.shared_base_variance(rows.drop(columns="base_variance.test"), "gain.test", "arm") == 0.0
    assert studies.shared_base_variance(rows.rename(columns={"base_variance.test": "base_variance.x"}),
                                        "accuracy_after.x", "arm") == 0.0  # a column named like one, not a gain


def test_detectable_difference_takes_up_to_a_million_seeds():
    from course_lib.research.studies import detectable_difference

    assert detectable_difference(0.01, 1_000_000) == pytest.approx(0.01 * 2.8 / 1000, rel=0.01)  # the top of the range
    with pytest.raises(CourseError, match="seeds=1000001 must be a whole number from 2 to 1,000,000"):
        detectable_difference(0.01, 1_000_001)


def test_rank_correlation_refuses_a_constant_variable_and_warns_when_ties_thin_the_bootstrap():
    """Round 19: five of six pairs sharing their x left 659 of 2,000 resamples without a correlation, silently, and
    the interval's lower end was the estimate itself; a constant x gave `nan [nan, nan]` and numpy's warning."""
    for x, y in (([1, 1, 1, 1], [1, 2, 3, 4]), ([1, 2, 3, 4], [5, 5, 5, 5])):
        with pytest.raises(CourseError, match="one of the two variables holds a single value"):
            rank_correlation(x, y)
    assert rank_correlation([1, 2, 3, 4, 5, 6, 7, 8], [0, 0, 0, 0, 1, 1, 1, 1])["rho"] > 0.8  # two values are ranks
    with pytest.warns(UserWarning, match=r"rank_correlation: \d+ of 2000 resamples held a single value of x or y \(no "
                                         r"correlation\) and are left out of the interval; with so many ties") as said:
        rank_correlation([0, 0, 0, 0, 0, 1], [1, 2, 3, 4, 5, 6])
    assert "course_lib" not in said[0].filename.split("/")  # the caller's line


@pytest.mark.parametrize("seeds", [1, 0, 1_000_001, 2.0, True, "5"])
def test_a_spread_needs_a_whole_number_of_seeds_from_two(seeds):
    """One check for every function that plans with a spread across seeds (sd_upper_bound, detectable_difference)."""
    from course_lib.research.studies import _check_seed_count

    with pytest.raises(CourseError) as refused:
        _check_seed_count(seeds)
    assert str(refused.value) == f"seeds={seeds!r} must be a whole number from 2 to 1,000,000"
    _check_seed_count(2), _check_seed_count(1_000_000)


@pytest.mark.parametrize("seeds", [["0", "1", 0, 1], [0.5, 1, 0.5, 1], [True, False, 1, 0],
                                   [float("inf"), 1, float("inf"), 1]])
def test_seeds_that_are_not_whole_numbers_are_refused_in_one_line(seeds):
    """Hostile round 21: seeds as text in one arm and integers in the other ended in a TypeError traceback."""
    from course_lib.research.studies import paired_difference

    table = pd.DataFrame({"strategy": ["hard", "hard", "random", "random"], "seed": seeds, "model": "m",
                          "gain.test": [0.1, 0.2, 0.1, 0.1]})
    with pytest.raises(CourseError, match=r"^seed .* is not a whole number: seeds pair arms"):
        paired_difference(table, "hard", "random", "gain.test", by=("model",))
    table["seed"] = [0, 1, 0, 1.0]  # a float that is a whole number pairs as that number
    assert paired_difference(table, "hard", "random", "gain.test", by=("model",))["mean"].round(6).tolist() == [0.05]


def test_values_equal_up_to_float_rounding_agree_at_any_scale():
    """all_agree reads values equal up to float rounding as agreeing whatever their size (seeds' mean completion
    lengths near 300 tokens, summed in another order), and values a real step apart as not."""
    assert studies.all_agree([100.1 + 200.2, 300.3, 300.3])
    assert not studies.all_agree([300.3, 300.4]) and not studies.all_agree([0.1, 0.1 + 1e-9])


@pytest.mark.parametrize("pair", [("hard", "random", "easy"), ("hard",), "hr"])
def test_a_pair_of_arms_is_two_arms(pair):
    """paired_verdicts' pairs are (first, second) arms: three arms, one, or a two-letter string is refused in one line
    naming the pairs (not unpacked into a traceback, nor read as the arms 'h' and 'r')."""
    with pytest.raises(CourseError, match=r"^pairs=.* must hold \(first, second\) arms"):
        paired_verdicts(synthetic_table(), [pair], margin=0.03)


def test_a_table_that_lacks_grid_points_and_has_no_provenance_says_aggregate_was_cut(tmp_path):
    """A results.csv beside its grid.json without provenance.json is read while it lists every point (a table made by
    hand has no provenance); one that lacks points is an `aggregate` cut before its provenance was written (or the
    file deleted), named with what remakes it."""
    folder = _study_copy(tmp_path)
    (folder / "provenance.json").unlink()
    table = pd.read_csv(folder / "results.csv")
    assert len(studies.load_study(folder.name, tmp_path)[0]) == len(table)
    table.drop(index=3).to_csv(folder / "results.csv", index=False)
    with pytest.raises(CourseError, match=rf"results.csv lacks 1 of its grid's {len(table)} points and has no "
                                          r"provenance.json beside it \(`aggregate` was interrupted, or the file "
                                          r"deleted\): run `aggregate` again"):
        studies.load_study(folder.name, tmp_path)


def test_holm_adjusted_takes_a_p_value_of_zero():
    """A t-test far past any doubt underflows to a p-value of exactly 0: a probability, adjusted like any other."""
    assert studies.holm_adjusted([0.0, 0.2]) == [0.0, 0.2]


def test_holm_verdicts_show_both_adjusted_p_values_to_six_places():
    rows = pd.DataFrame({"mean": [0.0, 0.0], "p_difference": [0.01234567, 0.9], "p_equivalence": [0.9, 0.01234567]})
    out = studies.holm_verdicts(rows)  # 2 x 0.01234567 = 0.02469134
    assert out["p_difference_holm"].tolist() == [0.024691, 0.9]
    assert out["p_equivalence_holm"].tolist() == [0.9, 0.024691]


def test_a_difference_whose_mean_rounds_to_zero_keeps_its_side_after_holm():
    """equivalence_verdict records the unrounded sign (`direction`): a real difference of +0.000025 shows as a mean
    and an interval of 0.0, and holm_verdicts would otherwise read it as 'worse'."""
    verdict = equivalence_verdict([0.00002, 0.000025, 0.00003], margin=0.03)
    assert (verdict["mean"], verdict["ci_low"], verdict["ci_high"], verdict["direction"]) == (0.0, 0.0, 0.0, 1.0)
    assert studies.holm_verdicts(pd.DataFrame([verdict]))["verdict_holm"].tolist() == [
        "slightly better (a real difference, smaller than the margin)"]


def test_a_95_percent_interval_that_reaches_exactly_zero_does_not_exclude_it():
    """Seeds that agree on t x 0.01 over a shared baseline of standard error 0.01 have a 95% interval from exactly 0
    (or to exactly 0): 0 is in it, so no difference is shown, as its p-value of 0.05 (not below) says."""
    from scipy import stats

    edge = float(stats.t.ppf(0.975, 2)) * 0.01
    for values, bound in (([edge] * 3, "ci_low"), ([-edge] * 3, "ci_high")):
        verdict = equivalence_verdict(values, margin=0.03, base_variance=0.0001)
        assert verdict[bound] == 0.0 and verdict["p_difference"] == pytest.approx(0.05)
        assert verdict["verdict"] == "inconclusive"


def test_a_column_only_results_csv_or_only_its_point_records_hold_is_named_on_its_side(tmp_path):
    """The refusal says which of the two holds the extra column, so the reader knows which one to look at."""
    import json

    record = {"point": "a", "status": "ok", "seconds": 1.5, "commit": "def", "gain": {"test": 0.25}}
    (tmp_path / "points").mkdir()
    (tmp_path / "points" / "a.json").write_text(json.dumps(record))
    table = studies.results_table([record])
    studies.check_rows_match_records(table, tmp_path, "fix it")  # as made: nothing to say
    with pytest.raises(CourseError, match=r"column 'note' is in results.csv but not in its point records: one of"):
        studies.check_rows_match_records(table.assign(note="mine"), tmp_path, "fix it")
    with pytest.raises(CourseError, match=r"column 'commit' is in the point records in .*points but not in "
                                          r"results.csv: one of"):
        studies.check_rows_match_records(table.drop(columns="commit"), tmp_path, "fix it")


def test_a_failed_points_error_with_a_carriage_return_stays_one_row_of_the_results_table(tmp_path):
    """Found by mutation triage: a progress bar's bare carriage return in a failed point's error was written unquoted
    by to_csv, and the table read back with a phantom row ("progress 50%")."""
    import io

    from course_lib.research import studies

    records = [{"point": "a", "status": "failed", "error": "progress 10%\rprogress 50%\r\nValueError: bad"},
               {"point": "b", "status": "ok", "error": None}]
    text = studies.results_table(records).to_csv(index=False)
    back = pd.read_csv(io.StringIO(text))
    assert back["point"].tolist() == ["a", "b"]
    assert back.loc[0, "error"] == "progress 10%\nprogress 50%\nValueError: bad"
