"""The `paper` path on CPU: real data, chat prompts, the papers' settings, one grid point of each paper study.

The stand-in Qwen3 (`course_lib.models.standin`) answers nothing correctly, so these tests assert that every
stage runs and records what it should, not accuracy.
"""

import json
import math

import pytest
import transformers
from conftest import run_cli_in_process

from course_lib import CourseError
from course_lib.difficulty import check_pass_rates, estimate
from course_lib.evaluation import evaluate
from course_lib.models import load_model
from course_lib.problems import problems
from course_lib.prompts import INSTRUCTIONS, model_input, prompt_ids, prompt_text
from course_lib.research.experiment import (
    RECORD_COLUMNS,
    Point,
    parse_arm,
    resolve,
    run_point,
    train_config,
    train_lora,
)
from course_lib.research.sweep import expand
from course_lib.sampling import stop_token_ids
from course_lib.training import CourseConfig, load_trained, train_grpo

SHRUNK = {"POOL_SIZE": 24, "DIFFICULTY_K": 2, "MAX_NEW_TOKENS": 12, "EVAL_PROBLEMS": 3, "OOD_K": 2, "STEPS": 1,
          "PROMPTS_PER_STEP": 2, "MODEL_SIZE": "0.5B"}


@pytest.fixture
def data_env(shared_data, monkeypatch):
    monkeypatch.setenv("COURSE_DATA_DIR", str(shared_data))
    return shared_data


def captured_prompts(monkeypatch) -> list:
    """Patch both ways a prompt reaches the model, so each is recorded (as its unpadded token ids): the course's
    sampler (`generate_ids`: estimation and evaluation) and transformers' `generate` (TRL's training)."""
    import course_lib.sampling

    seen = []
    original_generate, original_sampler = transformers.GenerationMixin.generate, course_lib.sampling.generate_ids

    def record(input_ids, attention_mask):
        for ids, mask in zip(input_ids.tolist(), attention_mask.tolist()):
            seen.append(tuple(i for i, m in zip(ids, mask) if m))

    def recording_generate(self, *args, input_ids=None, attention_mask=None, **kwargs):
        record(input_ids, attention_mask)
        return original_generate(self, *args, input_ids=input_ids, attention_mask=attention_mask, **kwargs)

    def recording_sampler(model, input_ids, attention_mask, *args, **kwargs):
        record(input_ids, attention_mask)
        return original_sampler(model, input_ids, attention_mask, *args, **kwargs)

    monkeypatch.setattr(transformers.GenerationMixin, "generate", recording_generate)
    monkeypatch.setattr(course_lib.sampling, "generate_ids", recording_sampler)
    return seen


def test_a_chat_prompt_states_the_answer_format_and_turns_thinking_off(standin_model, data_env):
    _, tokenizer = load_model(str(standin_model))
    gsm8k = problems("gsm8k", "test", 2, 0)[0]
    text = prompt_text(gsm8k, tokenizer)
    assert text.startswith("<|im_start|>user\n" + gsm8k.prompt.strip())
    assert INSTRUCTIONS["hash"] in text and text.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    tagged = problems("math", "test", 2, 0, answer_format="tagged")[0]
    assert "<answer></answer>" in prompt_text(tagged, tokenizer)
    bbh = problems("bbh", "test", 1, 0)[0]
    assert "So the answer is (X)" in prompt_text(bbh, tokenizer)


def test_tiny_models_see_procedural_prompts_unchanged():
    _, tokenizer = load_model("tiny-s")
    problem = problems("arith", "train", 3, 0)[0]
    assert model_input(problem, tokenizer) == problem.prompt
    assert prompt_ids(problem, tokenizer) == tokenizer(problem.prompt, add_special_tokens=False)["input_ids"]


def test_stop_tokens_are_the_union_of_tokenizer_and_generation_config(standin_model):
    model, tokenizer = load_model(str(standin_model))
    ids = stop_token_ids(model, tokenizer)
    assert set(ids) == {tokenizer.convert_tokens_to_ids("<|im_end|>"), tokenizer.convert_tokens_to_ids("<|endoftext|>")}
    assert stop_token_ids(str(standin_model), tokenizer) == ids  # the vLLM path reads generation_config.json


@pytest.mark.slow
def test_the_same_token_ids_reach_the_model_in_estimation_training_and_evaluation(standin_model, data_env,
                                                                                   monkeypatch, tmp_path):
    pool = problems("gsm8k", "train", 4, 0)
    model, tokenizer = load_model(str(standin_model))
    expected = {tuple(prompt_ids(p, tokenizer)) for p in pool}
    seen = captured_prompts(monkeypatch)
    estimate(model, tokenizer, pool, k=2, max_new_tokens=4, cache_dir=None, progress=False)
    assert set(seen) == expected
    seen.clear()
    config = CourseConfig(num_generations=2, prompts_per_step=4, max_steps=1, save_steps=1, max_completion_length=4)
    train_grpo(str(standin_model), pool, config, tmp_path / "run", progress=False)
    assert seen and set(seen) <= expected and len(set(seen)) == 4  # TRL generated from the very same ids
    seen.clear()
    trained, trained_tokenizer = load_trained(str(tmp_path / "run"))
    evaluate(trained, trained_tokenizer, pool, k=2, max_new_tokens=4, cache_dir=None, progress=False)
    assert set(seen) == expected


def test_implausibly_all_zero_pass_rates_stop_before_training():
    import pandas as pd

    check_pass_rates(pd.DataFrame({"pass_rate": [0.0] * 49}))  # too few problems to judge
    check_pass_rates(pd.DataFrame({"pass_rate": [0.0] * 90 + [0.5] * 10}))
    with pytest.raises(CourseError, match="97% of 100 problems have pass rate 0.*prompt and answer format"):
        check_pass_rates(pd.DataFrame({"pass_rate": [0.0] * 97 + [0.5] * 3}))


@pytest.mark.parametrize(("strategy", "expected"), [
    ("hard", {"kind": "hard", "levels": None, "dynamic": False}),
    ("random+dynamic", {"kind": "random", "levels": None, "dynamic": True}),
    ("levels-1-3", {"kind": "levels", "levels": (1, 2, 3), "dynamic": False}),
    ("levels-2-5", {"kind": "levels", "levels": (2, 3, 4, 5), "dynamic": False}),
    ("random-matched", {"kind": "random-matched", "levels": (1, 2, 3), "dynamic": False}),
])
def test_arms_parse(strategy, expected):
    assert parse_arm(strategy) == expected


@pytest.mark.parametrize(("strategy", "message"), [("levels-3-1", "must not exceed"), ("hardest", "is unknown"),
                                                   ("levels", "is unknown")])
def test_bad_arms_are_clear_errors(strategy, message):
    with pytest.raises(CourseError, match=message):
        parse_arm(strategy)


def test_unknown_experiment_parameters_are_refused():
    with pytest.raises(CourseError, match=r"unknown experiment parameter\(s\) \['NOT_A_PARAM'\]"):
        Point.from_parameters({"PROFILE": "smoke", "NOT_A_PARAM": 1})


def test_paper_points_train_with_each_papers_settings():
    pikus = resolve(Point.from_parameters(expand("hard-wins", "paper")[0]))
    assert (pikus.model, pikus.ood_task, pikus.difficulty_k, pikus.max_new_tokens) == ("Qwen/Qwen3-4B", "aime2025", 10, 250)
    config, lora = train_config(pikus, n_selected=747), train_lora(pikus)
    assert (config.learning_rate, lora.r, lora.lora_alpha, config.max_grad_norm, config.num_generations,
            config.prompts_per_step, config.lr_scheduler_type, config.weight_decay) == (5e-6, 32, 32, 0.1, 8, 1, "cosine", 0.1)
    assert config.max_steps == 1000  # the paper reports step 1000 on GSM8K and on BBH
    bbh = resolve(Point.from_parameters(expand("hard-wins", "paper", {"TASK": "bbh"})[0]))
    assert train_config(bbh, n_selected=60).max_steps == 1000  # ~16 passes over BBH's 10%, as the paper (not 1.3 epochs)
    for point in expand("capacity-boundary", "paper"):
        yadav = resolve(Point.from_parameters(point))
        config = train_config(yadav, n_selected=100)
        size = yadav.model.split("-")[1]
        dataset = "math" if yadav.task == "math" else "gsm8k"
        assert config.num_generations == 4 and yadav.answer_format == "tagged" and config.max_completion_length == 250
        assert train_lora(yadav).r == 16  # the course's LoRA
        assert not yadav.estimate_pool  # levels and random arms: no K=10 difficulty table
        assert config.max_steps == math.ceil(1.3 * 100 / config.prompts_per_step)
        assert config.prompts_per_step == {"math": {"0.5B": 20, "1.5B": 16, "3B": 12},
                                           "gsm8k": {"0.5B": 48, "1.5B": 40, "3B": 32}}[dataset][size]
    tasks = {(p["TASK"], p["STRATEGY"]) for p in expand("capacity-boundary", "paper")}
    assert ("gsm8k", "random") in tasks and ("math", "levels-1-3") in tasks  # the cross-dataset arm is in the grid


@pytest.mark.slow
@pytest.mark.parametrize(("study", "task"), [("hard-wins", "gsm8k"), ("hard-wins", "bbh"),
                                             ("capacity-boundary", "math"), ("capacity-boundary", "gsm8k")])
def test_one_grid_point_of_each_paper_study_runs_end_to_end(study, task, standin_model, data_env, tmp_path):
    point = next(p for p in expand(study, "paper") if p["TASK"] == task)
    record = run_point(Point.from_parameters({**point, **SHRUNK, "MODEL": str(standin_model),
                                              "RUN_DIR": str(tmp_path / "run")}))
    assert set(record) == set(RECORD_COLUMNS)
    assert record["train_settings"] == point["TRAIN_SETTINGS"] and record["steps"] == 1
    assert set(record["gain"]) == {"test", "ood"}  # AIME 2025 (hard-wins) or MATH's numeric subset (capacity-boundary)
    assert record["eval_k"]["ood"] == SHRUNK["OOD_K"] and 0 < record["n_selected"] <= SHRUNK["POOL_SIZE"]
    assert record["accuracy_before"]["test"] == 0.0  # random weights: a wrong answer, in format or not
    assert json.loads((tmp_path / "run" / "run_config.json").read_text())["config"]["num_generations"] == (
        8 if study == "hard-wins" else 4)


@pytest.mark.slow
def test_a_paper_point_runs_through_the_experiment_notebook(standin_model, data_env, tmp_path):
    from course_lib.research.sweep import run_point_notebook as run_notebook_point

    point = {**expand("hard-wins", "paper", {"TASK": "gsm8k", "STRATEGY": "hard", "SEED": "0"})[0], **SHRUNK,
             "MODEL": str(standin_model)}
    record = run_notebook_point(point, tmp_path)
    assert record["status"] == "ok", record.get("error")
    assert set(RECORD_COLUMNS) <= set(record) and record["train_settings"] == "2508.14094"


def run_cli(*args, **kwargs):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "course_lib", *args], capture_output=True, text=True, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("source", ["gsm8k", "own-file"])
def test_the_practitioners_workflow_on_real_data_from_the_cli(source, standin_model, shared_data, tmp_path):
    """estimate -> select -> train -> evaluate; train and evaluate rebuild the pool from the table's provenance."""
    if source == "own-file":  # a user's own questions, as JSON Lines
        rows = [{"question": f"What is {a} plus {a}?", "answer": str(2 * a), "level": 1 + a % 3} for a in range(30)]
        (tmp_path / "mine.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        task = ["--task", f"jsonl:{tmp_path / 'mine.jsonl'}", "--split", "all"]
    else:
        task = ["--task", "gsm8k", "--data-dir", str(shared_data), "--n", "12"]
    model = ["--model", str(standin_model)]
    table, ids, run, result = (tmp_path / name for name in ("table.csv", "ids.txt", "run", "eval.json"))
    done = run_cli("estimate", *model, *task, "--k", "2", "--max-new-tokens", "8", "--quiet", "--out", str(table))
    assert done.returncode == 0, done.stderr
    pool = json.loads((tmp_path / "table.csv.provenance.json").read_text())["pool"]
    assert pool["task"] == task[1] and "cost" in json.loads((tmp_path / "table.csv.provenance.json").read_text())
    done = run_cli("select", "--table", str(table), "--strategy", "hard", "--budget", "0.25", "--out", str(ids))
    assert done.returncode == 0, done.stderr
    done = run_cli("train", *model, "--ids", str(ids), "--steps", "1", "--group-size", "2", "--prompts-per-step", "2",
                   "--max-new-tokens", "8", "--settings", "2508.14094", "--quiet", "--out", str(run))
    assert done.returncode == 0, done.stderr
    saved = json.loads((run / "run_config.json").read_text())
    assert saved["config"]["learning_rate"] == 5e-6 and saved["config"]["peft_config"]["r"] == 32  # the paper's
    assert saved["problem_ids"] == ids.read_text().split()  # the pool came from provenance, no --n repeated
    held_out = task[:2] + (["--split", "test"] if source == "own-file" else task[2:4] + ["--n", "6"])
    done = run_cli("evaluate", "--model", str(run), *held_out, "--k", "2",
                   "--max-new-tokens", "8", "--quiet", "--out", str(result))
    assert done.returncode == 0, done.stderr
    assert json.loads(result.read_text())["overall"]["problems"] > 0


@pytest.mark.parametrize(("args", "message"), [
    (["estimate", "--model", "tiny-s", "--task", "gsm8k", "--data-dir", "/no/such/dir", "--out", "x.csv"],
     "data_dir='/no/such/dir' is not a folder"),
    (["estimate", "--model", "tiny-s", "--task", "aime2025", "--split", "train", "--out", "x.csv"],
     "AIME 2025 is for evaluation only"),
    (["estimate", "--model", "tiny-s", "--task", "gsm8k", "--levels", "a", "--out", "x.csv"], "levels='a' must be"),
    (["estimate", "--model", "tiny-s", "--task", "trivia", "--out", "x.csv"], "task='trivia' is unknown"),
    (["estimate", "--model", "tiny-s", "--temperature", "inf", "--out", "x.csv"], "must be a finite number"),
])
def test_bad_problem_arguments_are_one_line_and_status_2(args, message, tmp_path):
    done = run_cli_in_process(*args, cwd=tmp_path)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and message in done.stderr, done.stderr


def test_the_experiment_notebook_declares_exactly_the_points_fields():
    import dataclasses

    import papermill

    from course_lib.research.sweep import EXPERIMENT

    declared = set(papermill.inspect_notebook(str(EXPERIMENT)))
    assert declared == {field.name.upper() for field in dataclasses.fields(Point)}


def test_base_variance_is_the_binomial_variance_of_the_mean():
    from course_lib.research.experiment import base_variance

    rows = [{"pass_rate": 0.5, "k": 5}, {"pass_rate": 0.0, "k": 5}]  # 0.25/4 and 0, over 2 problems squared
    assert base_variance(rows) == pytest.approx(0.0625 / 4)
