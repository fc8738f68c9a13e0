"""The self-checks of notebooks 05 and 06's exercises, on hand-computed cases (course_lib.classroom.exercises)."""

import pandas as pd
import pytest

from course_lib.classroom.exercises import grade


def test_05_3_is_the_t_interval_over_every_seed():
    # [0.1, 0.2, 0.3]: mean 0.2, sd 0.1, se 0.0577350; t(0.975, 2) = 4.3026527: [-0.0484, +0.4484]
    assert grade("05.3", (-0.0484, 0.4484), differences=[0.1, 0.2, 0.3])[0]
    assert not grade("05.3", (0.1, 0.3), differences=[0.1, 0.2, 0.3])[0]  # the range of the seeds, not the interval


def short_study(reference_gains, differences) -> pd.DataFrame:
    """A two-arm study: levels-1-5 gains as given, levels-1-3 = levels-1-5 + the paired difference, per seed."""
    rows = [{"seed": seed, "strategy": "levels-1-5", "gain.test": gain} for seed, gain in enumerate(reference_gains)]
    rows += [{"seed": seed, "strategy": "levels-1-3", "gain.test": gain + difference}
             for seed, (gain, difference) in enumerate(zip(reference_gains, differences))]
    return pd.DataFrame(rows)


def test_06_1_is_a_third_of_the_reference_gain_and_the_tost_verdict_there():
    # levels-1-5 gains 0.024 +- 0.003: a third of the mean is 0.008; differences with mean 0 and sd 0.002 over 4
    # seeds have a 90% interval of +-0.0024 (t(0.95, 3) = 2.3534 x 0.001): inside +-0.008, so equivalent
    short = short_study([0.021, 0.024, 0.024, 0.027], [0.002, -0.002, 0.002, -0.002])
    assert grade("06.1", (0.008, "equivalent"), table=short)[0]
    ok, message = grade("06.1", (0.024, "equivalent"), table=short)
    assert not ok and "a third of it" in message  # the whole gain is named as the mistake
    wide = short_study([0.021, 0.024, 0.024, 0.027], [0.02, -0.02, 0.02, -0.02])  # 90% interval +-0.024: too wide
    assert grade("06.1", (0.008, "inconclusive"), table=wide)[0]


@pytest.mark.parametrize(("p", "alive"), [(0.5, 1 - 2 * 0.5**8), (0.0, 0.0), (0.1, 1 - 0.1**8 - 0.9**8)])
def test_06_2_is_the_chance_a_group_of_eight_is_alive(p, alive):
    assert grade("06.2", {3: alive}, base_by_level={3: p}, group_size=8)[0]
    assert not grade("06.2", {3: 1 - alive + 0.5}, base_by_level={3: p}, group_size=8)[0]


def test_06_3_plans_seeds_from_the_committed_spread_only():
    # sd of [0.0025, 0.0317, 0.0125] is 0.01484: a paired t-test at 80% power detects 0.03 with 5 seeds; its 90%
    # upper bound on 2 degrees of freedom is 0.01484 x sqrt(2 / chi2(0.1, 2)), chi2(0.1, 2) = -2 ln 0.9 = 0.2107:
    # 0.0457, which needs 21 (about ((1.96 + 0.84) x 0.0457 / 0.03)^2 = 18, plus the t-quantile's share)
    committed = [0.0025, 0.0317, 0.0125]
    assert grade("06.3", (5, 21), precomputed_differences=committed)[0]
    assert not grade("06.3", (5, 5), precomputed_differences=committed)[0]
    assert not grade("06.3", (4, 21), precomputed_differences=committed)[0]


def test_05_2_is_the_pass_rate_whose_groups_are_alive_as_often_as_hards_were():
    # at q = 0.1 a group of 8 is alive with chance 1 - 0.1^8 - 0.9^8 = 0.56953; at q = 0.2, 1 - 0.2^8 - 0.8^8 = 0.83220
    mechanism = pd.DataFrame({"task": ["arith", "arith", "shuffle"], "strategy": ["hard", "random", "hard"],
                              "learnable share of groups": [0.56953, 0.99, 0.83220]})
    assert grade("05.2", {"arith": 0.1, "shuffle": 0.2}, mechanism=mechanism)[0]
    assert not grade("05.2", {"arith": 0.1, "shuffle": 0.25}, mechanism=mechanism)[0]
    ok, message = grade("05.2", {"arith": 0.9, "shuffle": 0.8}, mechanism=mechanism)
    assert not ok and "below 0.5" in message  # the mirror root is named as the mistake


def test_05_2_names_the_two_likely_mistakes():
    mechanism = pd.DataFrame({"task": ["arith"], "strategy": ["hard"], "learnable share of groups": [0.56953]})
    ok, message = grade("05.2", {"arith": 0.56953}, mechanism=mechanism)  # the share itself, not a pass rate
    assert not ok and "the learnable share itself" in message
    ok, message = grade("05.2", {"arith": 0.9}, mechanism=mechanism)  # the mirror root
    assert not ok and "below 0.5" in message
