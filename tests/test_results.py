"""The committed GRPO result is consistent with itself and loads (issue #4)."""

import json
from pathlib import Path

import pytest

from course_lib.evaluation import compare
from course_lib.training import load_trained

RESULT = Path(__file__).resolve().parent.parent / "data" / "results" / "grpo-tiny-m"


def test_committed_gain_recomputes_from_the_committed_evaluations():
    after = json.loads((RESULT / "eval_trained.json").read_text())
    before = json.loads((RESULT / "eval_base.json").read_text())
    gain = json.loads((RESULT / "gain.json").read_text())
    again = compare(after, before, seed=0)
    assert again["mean_difference"] == gain["mean_difference"]
    assert (again["ci_low"], again["ci_high"]) == pytest.approx((gain["ci_low"], gain["ci_high"]), abs=1e-4)
    assert gain["ci_low"] > 0  # the interval excludes zero
    for result in (after, before):
        assert result["commit"] and not result["commit"].endswith("+dirty") and result["versions"]["trl"]
        assert result["command"].startswith("python -m course_lib evaluate")


def test_compare_on_pass_at_k_scores_each_problem_as_solved_within_k():
    before = {"per_problem": [{"id": "a", "k": 8, "n_correct": 0, "pass_rate": 0.0},
                              {"id": "b", "k": 8, "n_correct": 1, "pass_rate": 0.125}]}
    after = {"per_problem": [{"id": "a", "k": 8, "n_correct": 1, "pass_rate": 0.125},
                             {"id": "b", "k": 8, "n_correct": 1, "pass_rate": 0.125}]}
    assert compare(after, before, pass_k=8)["mean_difference"] == 0.5  # a: 0 -> 1 within 8 samples; b: 1 -> 1
    assert compare(after, before)["mean_difference"] == 0.0625  # pass@1: (0.125 + 0) / 2


def test_committed_adapter_loads_onto_tiny_m():
    run = json.loads((RESULT / "run" / "run_config.json").read_text())
    assert run["model"] == "tiny-m" and run["config"]["lora"] and run["config"]["steps"] == 150
    model, tokenizer = load_trained(str(RESULT / "run"), device="cpu")
    assert type(model).__name__ == "Qwen2ForCausalLM"
