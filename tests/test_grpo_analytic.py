"""GRPO's analytic part: group advantages (checked against TRL), dead groups, and their probability."""

import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from course_lib import CourseError
from course_lib.grpo import dead_group_probability, group_advantages, informative_share, is_dead_group

# Hand case, one group of G = 4: rewards [1, 0, 0, 0]
#   mean .25; r - mean = [.75, -.25, -.25, -.25]
#   unbiased std: sqrt((.75^2 + 3 * .25^2) / (4 - 1)) = sqrt(.75 / 3) = .5
#   advantage = (r - mean) / (.5 + 1e-4)
ONE_RIGHT = torch.tensor([[1.0, 0.0, 0.0, 0.0]])

# Two groups for scale="batch": [1, 0, 0, 0] and [1, 1, 0, 0]
#   batch mean 3/8; squared deviations 3 * (5/8)^2 + 5 * (3/8)^2 = 1.875; unbiased std sqrt(1.875 / 7) = .517549
#   the group means (.25 and .5) are still what is subtracted
TWO_GROUPS = torch.tensor([[1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
BATCH_STD = (1.875 / 7) ** 0.5


@pytest.mark.parametrize(
    "rewards, scale, expected",
    [
        (ONE_RIGHT, "group", [[0.75 / 0.5001, -0.25 / 0.5001, -0.25 / 0.5001, -0.25 / 0.5001]]),
        (ONE_RIGHT, True, [[0.75 / 0.5001, -0.25 / 0.5001, -0.25 / 0.5001, -0.25 / 0.5001]]),  # TRL's old spelling
        (ONE_RIGHT, "none", [[0.75, -0.25, -0.25, -0.25]]),
        (ONE_RIGHT, False, [[0.75, -0.25, -0.25, -0.25]]),
        (ONE_RIGHT, "batch", [[0.75 / 0.5001, -0.25 / 0.5001, -0.25 / 0.5001, -0.25 / 0.5001]]),  # B = 1: same std
        (TWO_GROUPS, "batch", [[0.75, -0.25, -0.25, -0.25], [0.5, 0.5, -0.5, -0.5]]),  # divided below
        # group 2: std sqrt(4 * .25 / 3) = .57735
        (TWO_GROUPS, "group", [[0.75 / 0.5001, -0.25 / 0.5001, -0.25 / 0.5001, -0.25 / 0.5001],
                               [0.5 / 0.57745, 0.5 / 0.57745, -0.5 / 0.57745, -0.5 / 0.57745]]),
    ],
)
def test_group_advantages_hand_cases(rewards, scale, expected):
    expected = torch.tensor(expected)
    if rewards is TWO_GROUPS and scale == "batch":
        expected = expected / (BATCH_STD + 1e-4)
    torch.testing.assert_close(group_advantages(rewards, scale=scale), expected, atol=1e-4, rtol=1e-4)


def test_group_advantages_sum_to_zero_and_accept_integer_rewards():
    advantages = group_advantages(torch.tensor([[1, 0, 0, 0], [1, 1, 0, 1]]))  # ints become floats
    assert advantages.shape == (2, 4) and advantages.dtype == torch.float32
    torch.testing.assert_close(advantages.sum(dim=1), torch.zeros(2), atol=1e-6, rtol=0)


@pytest.mark.parametrize("scale", ["group", "batch", "none"])
@pytest.mark.parametrize("value", [0.0, 1.0])
def test_dead_group_has_all_zero_advantages(scale, value):
    rewards = torch.tensor([[value] * 8, [1.0, 0, 1, 0, 1, 0, 1, 0]])
    advantages = group_advantages(rewards, scale=scale)
    assert torch.equal(advantages[0], torch.zeros(8))
    assert advantages[1].abs().min() > 0


def trl_advantages(rewards: torch.Tensor, scale: str) -> torch.Tensor:
    """TRL 1.16's own computation on flat rewards, copied from
    trl/trainer/grpo_trainer.py lines 2765-2787 (GRPOTrainer._generate_and_score_completions,
    multi_objective_aggregation="sum_then_normalize"), with TRL's own `nanstd` (trl/trainer/utils.py line 1021).
    TRL does not expose this block as a function, so it is copied here line for line.
    """
    from trl.trainer.utils import nanstd

    num_generations = rewards.shape[1]
    rewards = rewards.reshape(-1)  # TRL keeps rewards flat: (B * G,)
    mean_grouped_rewards = torch.nanmean(rewards.view(-1, num_generations), dim=1)
    mean_grouped_rewards = mean_grouped_rewards.repeat_interleave(num_generations, dim=0)
    if scale in ["group", "none"]:
        std_rewards = nanstd(rewards.view(-1, num_generations), dim=1)
        std_rewards = std_rewards.repeat_interleave(num_generations, dim=0)
    else:  # "batch"
        std_rewards = nanstd(rewards).expand_as(rewards)
    advantages = rewards - mean_grouped_rewards
    if scale != "none":
        advantages = advantages / (std_rewards + 1e-4)
    return advantages.view(-1, num_generations)


@pytest.mark.parametrize("scale", ["group", "batch", "none"])
def test_group_advantages_match_trl(scale):
    generator = torch.Generator().manual_seed(0)
    binary = torch.randint(0, 2, (6, 8), generator=generator).float()  # (B, G), 0/1 rewards as in the course
    binary[0] = 1.0  # one dead group
    graded = torch.rand(5, 4, generator=generator)  # rewards in [0, 1]
    for rewards in (binary, graded):
        torch.testing.assert_close(group_advantages(rewards, scale=scale), trl_advantages(rewards, scale))


def test_installed_trl_still_computes_advantages_this_way():
    # Read the source without importing TRL's trainer (slow): fail loudly if an upgrade changes the formula.
    trainer = Path(importlib.util.find_spec("trl").origin).parent / "trainer"
    source = (trainer / "grpo_trainer.py").read_text()
    assert "std_rewards = nanstd(rewards.view(-1, num_generations), dim=1)" in source
    assert "std_rewards = nanstd(rewards).expand_as(rewards)" in source
    assert "advantages = advantages / (std_rewards + 1e-4)" in source
    assert 'self.scale_rewards = {True: "group", False: "none"}' in (trainer / "grpo_config.py").read_text()
    assert "variance *= correction  # Bessel's correction" in (trainer / "utils.py").read_text()


@pytest.mark.parametrize(
    "rewards, kwargs, message",
    [
        (torch.ones(3, 1), {}, "group size G=1: GRPO needs at least 2 completions per prompt to compare"),
        (torch.ones(4), {}, "rewards has shape (4,); give (B, G): B groups of G completions"),
        (torch.ones(2, 4), {"scale": "mean"}, "scale='mean' is unknown; use one of group, batch, none"),
        (torch.tensor([[1.0, float("nan")]]), {}, "rewards contain NaN"),
        ([[1.0, 0.0]], {}, "rewards must be a torch tensor of shape (B, G), not list"),
        (torch.ones(2, 4), {"eps": -1.0}, "eps=-1.0 must be a finite number >= 0"),
        (torch.ones(2, 4), {"eps": float("inf")}, "eps=inf must be a finite number >= 0"),  # every advantage 0
        (torch.tensor([[1.0, float("inf")], [0.0, 1.0]]), {}, "rewards contain an infinite value"),  # NaN advantages
        (torch.ones(0, 4), {}, "rewards has no groups (B=0); give at least one group"),
    ],
)
def test_group_advantages_rejects(rewards, kwargs, message):
    with pytest.raises(CourseError, match=re.escape(message)):
        group_advantages(rewards, **kwargs)


def test_eps_zero_is_allowed_and_float64_rewards_stay_float64():
    """eps=0 divides by the bare std; rewards already in floating point keep their precision."""
    advantages = group_advantages(torch.tensor([[1.0, 0.0]], dtype=torch.float64), eps=0)
    assert advantages.dtype == torch.float64
    assert advantages.tolist() == [[0.5 / math.sqrt(0.5), -0.5 / math.sqrt(0.5)]]  # the unbiased std of (1, 0)


def test_is_dead_group():
    rewards = torch.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.5, 0.5, 0.5]])
    assert is_dead_group(rewards).tolist() == [True, False, True, True]
    with pytest.raises(CourseError, match=re.escape("group size G=1")):
        is_dead_group(torch.ones(2, 1))


@pytest.mark.parametrize(
    "p, G, expected",
    [
        (0.5, 2, 0.5),  # .25 + .25
        (0.0, 8, 1.0),  # always all wrong
        (1.0, 8, 1.0),  # always all right
        (0.9, 8, 0.9**8 + 0.1**8),  # .4305
        (0.5, 8, 2 * 0.5**8),  # .0078
    ],
)
def test_dead_group_probability(p, G, expected):
    assert dead_group_probability(p, G) == pytest.approx(expected)
    assert isinstance(dead_group_probability(p, G), float)


def test_dead_group_probability_on_arrays():
    np.testing.assert_allclose(dead_group_probability(np.array([0.0, 0.5, 1.0]), 2), [1.0, 0.5, 1.0])


@pytest.mark.parametrize(
    "p, G, message",
    [
        (0.5, 1, "group size G=1: GRPO needs at least 2 completions per prompt to compare"),
        (0.5, 2.0, "G=2.0 must be an integer"),
        (1.2, 8, "p must be a pass rate in [0, 1]; got 1.2"),
        (-0.1, 8, "p must be a pass rate in [0, 1]; got -0.1"),
        (float("nan"), 8, "p must be a pass rate in [0, 1]"),
    ],
)
def test_dead_group_probability_rejects(p, G, message):
    with pytest.raises(CourseError, match=re.escape(message)):
        dead_group_probability(p, G)


@pytest.mark.parametrize(
    "pass_rates, G, expected",
    [
        ([0.0, 1.0, 0.5], 2, 1 / 6),  # alive with chance 0, 0 and .5: mean .5 / 3
        ([0.5], 2, 0.5),
        ([0.5, 0.5], 8, 1 - 2 * 0.5**8),
        ([1.0] * 5, 8, 0.0),  # an all-solved subset never gives a gradient
    ],
)
def test_informative_share(pass_rates, G, expected):
    assert informative_share(pass_rates, G) == pytest.approx(expected)


def test_informative_share_rejects_empty():
    with pytest.raises(CourseError, match=re.escape("pass_rates is empty")):
        informative_share([], 8)


def test_measured_dead_share_approaches_the_prediction():
    # 4000 groups of G = 4 at p = .7: predicted dead share .7^4 + .3^4 = .2482
    generator = torch.Generator().manual_seed(1)
    rewards = (torch.rand(4000, 4, generator=generator) < 0.7).float()
    assert is_dead_group(rewards).float().mean().item() == pytest.approx(dead_group_probability(0.7, 4), abs=0.02)


def test_dead_group_probability_of_one_pass_rate_is_a_float():
    from course_lib.grpo import dead_group_probability

    value = dead_group_probability(0.5, 4)
    assert type(value) is float and value == 0.125  # 2 * 0.5 ** 4
    assert dead_group_probability([0, 1], 3).tolist() == [1.0, 1.0]
