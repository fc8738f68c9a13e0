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


@pytest.mark.slow
def test_a_committed_study_point_reruns_within_noise(tmp_path):
    """Re-run one small committed grid point of capacity-boundary from scratch (empty cache) and compare."""
    from course_lib.studies import load_study
    from course_lib.sweep import expand, point_name, run_point

    table, provenance = load_study("capacity-boundary")
    assert provenance["profile"] == "tiny" and not provenance["failed"]
    point = next(p for p in expand("capacity-boundary", "tiny")
                 if (p["MODEL"], p["STRATEGY"], p["SEED"]) == ("tiny-s", "levels-1-3", 0))
    committed = table.set_index("point").loc[point_name(point)]
    rerun = run_point(point, tmp_path)
    assert rerun["status"] == "ok", rerun.get("error")
    assert (rerun["n_selected"], rerun["steps"]) == (committed["n_selected"], committed["steps"])  # same selection
    assert rerun["selected_mean_pass_rate"] == pytest.approx(committed["selected_mean_pass_rate"], abs=0.02)
    assert rerun["accuracy_before"]["test"] == pytest.approx(committed["accuracy_before.test"], abs=0.02)
    low, high = json.loads(committed["gain_ci.test"])  # the committed point's own 95% paired-bootstrap interval
    assert abs(rerun["gain"]["test"] - committed["gain.test"]) <= (high - low) / 2
