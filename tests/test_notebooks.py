"""Every numbered notebook executes under papermill in the `smoke` profile; its recorded numbers are checked."""

import json

import pytest

from course_lib.notebooks import execute, numbered_notebooks
from course_lib.runtime import read_records
from course_lib.studies import RESULTS_DIR

NOTEBOOKS = numbered_notebooks()


def check_00(numbers):
    assert numbers["profile"] == "smoke" and numbers["k"] >= 2
    rates = numbers["live_mean_pass_rate"]
    assert set(rates) == {"tiny-s", "tiny-m", "tiny-l"}
    assert all(0.0 <= r <= 1.0 for r in rates.values())
    assert rates["tiny-l"] >= rates["tiny-s"]  # bigger model, more competent, even on a handful of problems
    assert 0.0 <= numbers["sample_group_reward_mean"] <= 1.0


def check_01(numbers):
    shares = numbers["share_p0"] + numbers["share_mixed"] + numbers["share_p1"]
    assert shares == pytest.approx(1.0)
    assert numbers["completions"] == numbers["pool"] * numbers["k"]
    assert -1.0 <= numbers["spearman"]["4"] <= 1.0
    assert set(numbers["pass_rate_by_level"]) <= {"1", "2", "3", "4", "5"}


def check_02(numbers):
    assert numbers["dead_gradient_norm"] == 0.0  # exactly zero, not merely small
    assert numbers["mixed_gradient_norm"] > 0.0
    assert numbers["dead_probability_p05"] == pytest.approx(2 * 0.5 ** numbers["group_size"])
    assert 0.0 <= numbers["predicted_dead_share"] <= 1.0


def check_03(numbers):
    for model, per_strategy in numbers["predicted_dead_share"].items():
        # learnability takes the largest p(1-p), which minimises p^G + (1-p)^G: no strategy wastes fewer groups
        assert per_strategy["learnability"] <= min(per_strategy.values()) + 1e-9, model
        assert all(0.0 <= v <= 1.0 for v in per_strategy.values())
    assert numbers["explorer_view"]["n_selected"] == numbers["n_selected"]


def check_04(numbers):
    assert numbers["steps"] == 2
    assert set(numbers["accuracy"]) == {"base", "lora", "full"}
    assert all(0.0 <= v <= 1.0 for v in numbers["dead_share_measured"].values())
    assert all(0.0 <= v <= 1.0 for v in numbers["dead_share_predicted"].values())
    assert numbers["reference_grad_norm"] >= 0.0
    for label, row in numbers["regression_to_mean"].items():  # labels at the ends, re-estimated with fresh samples
        assert label in {"p = 0", "p = 1"} and row["fresh_k"] == 2 * row["k"] and 0.0 <= row["fresh_mean_p"] <= 1.0
    assert numbers["committed_gain"] == json.loads((RESULTS_DIR / "grpo-tiny-m" / "gain.json").read_text())["mean_difference"]


def check_05(numbers):
    assert numbers["committed_profile"] == "tiny" and numbers["committed_points"] == 60  # the full committed study
    assert len(numbers["gain_test"]) == 12  # 2 tasks x 6 strategies
    assert numbers["live_points"] == 2 and len(numbers["live_gain_test"]) == 2  # the smoke grid's arith, seed 0 slice
    assert all(-1.0 <= v <= 1.0 for v in numbers["live_gain_test"].values())


def check_06(numbers):
    assert numbers["committed_profile"] == "tiny" and numbers["committed_points"] == 27
    assert 0.0 < numbers["step_share_levels_1_3"] < 1.0  # levels 1-3 train on fewer problems for the same epochs
    assert numbers["live_points"] == 2 and all(1 <= v <= 2 for v in numbers["live_steps"].values())


def check_07(numbers):
    dead = numbers["predicted_dead"]
    for model in ("tiny-s", "tiny-m", "tiny-l"):
        per_strategy = {k.split("/")[1]: v for k, v in dead.items() if k.startswith(model + "/")}
        assert per_strategy["learnability"] <= min(per_strategy.values()) + 1e-9, model
    assert all(-1.0 <= v <= 1.0 for v in numbers["spearman"].values())
    pairs = {"tiny-m/arith", "tiny-m/shuffle", "tiny-s/arith", "tiny-l/arith"}  # committed: hard-wins + strategies-by-size
    assert set(numbers["learnability_minus_hard"]) == {f"{p}/{m}" for p in pairs for m in ("gain.test", "pass_at_k_gain.ood")}
    assert set(numbers["hard_minus_random"]) == {"tiny-s", "tiny-m", "tiny-l"}
    assert len(numbers["gain_by_model"]) == 15  # 3 sizes x 5 strategies


CHECKS = {"00": check_00, "01": check_01, "02": check_02, "03": check_03, "04": check_04, "05": check_05,
          "06": check_06, "07": check_07}


def test_every_notebook_has_a_check():
    assert {nb.name[:2] for nb in NOTEBOOKS} <= set(CHECKS), "add a check of its recorded numbers"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_in_smoke_profile(notebook, tmp_path):
    result = execute(notebook, tmp_path, {"PROFILE": "smoke"})
    numbers = read_records(tmp_path / notebook.name)
    assert numbers == result["records"] and numbers, "the notebook must record its key numbers"
    CHECKS[notebook.name[:2]](numbers)
