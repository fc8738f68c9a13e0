"""One grid point's settings: its own pool and labels per seed, the evaluation's K, and completion shape."""

import pandas as pd
import pytest

from course_lib.evaluation import completion_shape
from course_lib.research.experiment import Point, _evaluate_splits, _shape_by_level, resolve, training_pool


def test_resample_pool_draws_each_seed_its_own_pool_and_labelling_seed():
    shared = [training_pool(resolve(Point(profile="smoke", seed=seed))) for seed in (0, 1)]
    own = [training_pool(resolve(Point(profile="smoke", seed=seed, resample_pool=True))) for seed in (0, 1)]
    assert [p.id for p in shared[0][0]] == [p.id for p in shared[1][0]] and shared[0][1] == shared[1][1] == 0
    assert [seed for _, seed in own] == [0, 1]
    assert {p.id for p in own[0][0]} != {p.id for p in own[1][0]}
    assert len(own[1][0]) == len(shared[0][0]) == 20  # the smoke pool's size, whatever the seed


def test_completion_shape_weights_each_problem_by_its_samples():
    rows = pd.DataFrame({"k": [4, 2], "mean_length": [10.0, 40.0], "clipped": [1, 2]})
    # (4 x 10 + 2 x 40) / 6 = 20 tokens; 3 of 6 completions cut off
    assert completion_shape(rows) == {"mean_length": 20.0, "truncated_share": 0.5}
    assert completion_shape(pd.DataFrame({"k": [4]})) == {}  # a table written before lengths were kept


def test_eval_k_sets_the_trained_models_samples_and_shape_is_recorded(tmp_path, monkeypatch):
    seen = []

    def fake_evaluate(model, tokenizer, problems, k, seed, **_):
        seen.append(k)
        rows = [{"id": p.id, "level": p.level, "k": k, "n_correct": 1, "pass_rate": 1 / k, "mean_length": 30.0,
                 "clipped": 1} for p in problems]
        block = {"accuracy": 1 / k, "mean_length": 30.0, "truncated_share": round(1 / k, 4)}
        return {"overall": block, "by_level": {"1": block}, "k": k, "per_problem": rows}

    monkeypatch.setattr("course_lib.evaluation.evaluate", fake_evaluate)
    monkeypatch.setattr("course_lib.evaluation.model_for_backend", lambda source, backend: (None, None))
    point = resolve(Point(profile="smoke", ood_task="none", eval_k=16, base_k=64))
    results = _evaluate_splits(point, tmp_path)
    assert seen == [64, 16]  # the base at BASE_K, the trained model at EVAL_K (the smoke profile's own is 2)
    assert results["test"]["k"] == 16 and results["test"]["after"]["overall"]["truncated_share"] == 0.0625
    assert _shape_by_level(results["test"]["after"]) == {name: {"mean_length": 30.0, "truncated_share": 0.0625}
                                                         for name in ("overall", "1")}


def test_the_templates_parameters_cell_is_written_from_point():
    """Experiment parameters are declared once, in `Point`: the template's cell is its rendering, and papermill
    reads back the same names, defaults and help."""
    import dataclasses
    import json

    import papermill

    from course_lib.paths import EXPERIMENT_TEMPLATE
    from course_lib.research.experiment import parameters_cell

    notebook = json.loads(EXPERIMENT_TEMPLATE.read_text())
    cell = next(c for c in notebook["cells"] if "parameters" in c["metadata"].get("tags", []))
    assert "".join(cell["source"]) == parameters_cell(), (
        "the template's parameters cell differs from experiment.Point: write it again from parameters_cell()")
    declared = papermill.inspect_notebook(str(EXPERIMENT_TEMPLATE))
    fields = dataclasses.fields(Point)
    assert list(declared) == [field.name.upper() for field in fields]
    assert all(declared[f.name.upper()]["help"] == f.metadata["help"] for f in fields)


@pytest.mark.parametrize("answer_format", ["boxed", "tagged"])
def test_the_ood_split_is_asked_in_the_format_the_point_trains(answer_format):
    """ANSWER_FORMAT reached the pool and the test split but not arith's procedural ood split, which was then asked
    for and graded in `####`: the ood gain measured a format the model was not trained on."""
    from course_lib.prompts import pool_answer_format
    from course_lib.research.experiment import evaluation_sets

    point = resolve(Point(profile="smoke", task="arith", answer_format=answer_format, strategy="random",
                          estimate_pool=False))
    sets, (pool, _) = evaluation_sets(point), training_pool(point)
    assert {pool_answer_format(pool), pool_answer_format(sets["test"]), pool_answer_format(sets["ood"])} == {
        answer_format}


def test_a_budget_a_level_arm_would_ignore_is_refused_before_any_work():
    """`--set STRATEGY=levels-1-3 --set BUDGET=0.1` trained on all of levels 1-3 and recorded budget 0.1."""
    from course_lib import CourseError

    for strategy in ("levels-1-3", "random-matched", "levels-2-2"):
        with pytest.raises(CourseError, match=f"BUDGET=0.1 would be ignored: strategy='{strategy}' trains on a whole "
                                              "level band"):
            resolve(Point(profile="smoke", strategy=strategy, budget=0.1))
        assert resolve(Point(profile="smoke", strategy=strategy, budget=1.0)).budget == 1.0
        with pytest.raises(CourseError, match="BUDGET=1 would be ignored"):  # round 19: 1 is a count, one problem
            resolve(Point(profile="smoke", strategy=strategy, budget=1))
    assert resolve(Point(profile="smoke", strategy="random", budget=0.1)).budget == 0.1  # a selection by budget
