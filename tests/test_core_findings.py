"""Behaviour a finding rests on: each test here fails on a one-line bug that would silently change a result
(the cache serving the base model for the trained one, a trained model that is the base, a TOST verdict from one
bound, a levels arm that is not a random sample, dynamic sampling that never refills, a parser that takes the wrong
number, a resume from an older checkpoint)."""

import collections
import copy
import dataclasses
import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import nan_fill, rehash_final

from course_lib import CourseError
from course_lib.answers import extract_hash_answer, extract_integer, is_correct
from course_lib.difficulty import cache_key, estimate
from course_lib.models import load_model
from course_lib.research.studies import equivalence_verdict
from course_lib.selection import select
from course_lib.tasks import generate
from course_lib.training import CourseConfig, _dynamic_trainer_class, course_lora, load_trained, train_grpo

# ---------------------------------------------------------------------------
# The difficulty cache key: weights, temperature and answers all count
# ---------------------------------------------------------------------------

SETTINGS = {"k": 2, "temperature": 1.0, "max_new_tokens": 8, "seed": 3, "chunk_size": 4, "progress": False}


@pytest.fixture(scope="module")
def tiny_s():
    return load_model("tiny-s", device="cpu")


@pytest.fixture(scope="module")
def nudged(tiny_s):
    """tiny-s with one weight moved by 1e-3: a stand-in for a trained model (same class, same shapes)."""
    model = copy.deepcopy(tiny_s[0])
    with torch.no_grad():
        next(model.parameters()).view(-1)[0] += 1e-3
    return model


@pytest.fixture(scope="module")
def pool():
    return generate("arith", 4, "train", seed=9)


def _key_settings(**override):
    return {"k": 2, "temperature": 1.0, "max_new_tokens": 8, "seed": 3, **override}


def test_cache_key_changes_with_the_weights_temperature_and_answers(tiny_s, nudged, pool):
    model = tiny_s[0]
    key = cache_key(model, pool, _key_settings())
    assert key == cache_key(copy.deepcopy(model), pool, _key_settings())  # equal weights: the same entry
    assert key == cache_key(model, pool, dict(reversed(_key_settings().items())))  # settings in any order
    assert cache_key(nudged, pool, _key_settings()) != key  # a trained model never reads the base model's entry
    assert cache_key(model, pool, _key_settings(temperature=0.7)) != key
    other_answer = [dataclasses.replace(pool[0], answer=str(int(pool[0].answer) + 1)), *pool[1:]]
    assert cache_key(model, other_answer, _key_settings()) != key


def test_cache_key_changes_with_the_grader(tiny_s, pool, monkeypatch):
    """A grade cached by another grader (course_lib/answers.py edited, another math-verify) is not served."""
    import importlib.metadata

    import course_lib.answers as answers

    key = cache_key(tiny_s[0], pool, _key_settings())
    real_version = importlib.metadata.version
    monkeypatch.setattr(answers, "_GRADER", None)
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "0.0.1" if name == "math-verify" else real_version(name))
    assert cache_key(tiny_s[0], pool, _key_settings()) != key
    monkeypatch.setattr(importlib.metadata, "version", real_version)
    monkeypatch.setattr(answers, "_GRADER", None)
    assert cache_key(tiny_s[0], pool, _key_settings()) == key  # the same grader: the same entry


def test_estimate_of_other_weights_misses_the_cache(tiny_s, nudged, pool, tmp_path, monkeypatch):
    """The base model's cached estimate is never served for a trained model (its gain would read 0)."""
    import course_lib.difficulty as difficulty

    model, tokenizer = tiny_s
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    sampled = []
    real = difficulty._score_chunk
    monkeypatch.setattr(difficulty, "_score_chunk", lambda *args, **kwargs: sampled.append(1) or real(*args, **kwargs))
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    assert sampled == []  # the same weights: read from the cache
    estimate(nudged, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    assert sampled == [1]  # other weights: sampled anew
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **{**SETTINGS, "temperature": 0.5})
    assert sampled == [1, 1]  # another temperature: sampled anew
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 3


# ---------------------------------------------------------------------------
# A trained model is not the base model
# ---------------------------------------------------------------------------


def _logits(model, tokenizer, text="Q: 3+4=?\nA: "):
    ids = torch.tensor([tokenizer(text)["input_ids"]])
    with torch.no_grad():
        return model(ids.to(model.device)).logits[0].float().cpu()


def test_load_trained_merges_the_adapter_into_the_base(finished_run):
    """load_trained's weights are the base's plus (alpha / r) B A of the saved adapter, so its logits differ."""
    from safetensors.torch import load_file

    out, _ = finished_run
    base, tokenizer = load_model("tiny-s", device="cpu")
    trained, _ = load_trained(str(out), device="cpu")
    adapter = load_file(str(out / "final" / "adapter_model.safetensors"))
    scale = course_lora().lora_alpha / course_lora().r
    base_state, trained_state = base.state_dict(), trained.state_dict()
    checked = 0
    for name, lora_a in adapter.items():
        if ".lora_A." not in name:
            continue
        lora_b = adapter[name.replace(".lora_A.", ".lora_B.")]
        weight = name.split("base_model.model.", 1)[1].replace(".lora_A.weight", ".weight")
        expected = base_state[weight] + scale * lora_b @ lora_a
        assert torch.allclose(trained_state[weight], expected, atol=1e-6), weight
        checked += int(lora_b.abs().max() > 0)
    assert checked > 0  # the adapter learnt something, so the merge is visible
    difference = (_logits(trained, tokenizer) - _logits(base, tokenizer)).abs().max().item()
    assert difference > 1e-4


def test_load_trained_of_a_full_fine_tuning_run_has_its_new_weights(problems, tmp_path):
    from safetensors.torch import load_file

    out = tmp_path / "full"
    # G=8: the first step has a live group on these problems (with G=4 both are dead and no weight moves)
    config = CourseConfig(num_generations=8, prompts_per_step=2, max_steps=1, save_steps=1, max_completion_length=32,
                          learning_rate=1e-3)
    train_grpo("tiny-s", problems, config, out, peft_config=None, progress=False)
    base, tokenizer = load_model("tiny-s", device="cpu")
    trained, _ = load_trained(str(out), device="cpu")
    saved = load_file(str(out / "final" / "model.safetensors"))
    trained_state = trained.state_dict()
    for name, tensor in saved.items():
        assert torch.equal(trained_state[name].cpu(), tensor), name
    assert any(not torch.equal(tensor, base.state_dict()[name]) for name, tensor in saved.items())
    assert (_logits(trained, tokenizer) - _logits(base, tokenizer)).abs().max().item() > 1e-4
    # a diverged run (its own recorded bytes, weights not finite) is one line naming its final/
    nan_fill(out / "final" / "model.safetensors")
    rehash_final(out)
    with pytest.raises(CourseError, match=f"^{re.escape(str(out / 'final'))} holds weights that are not finite"):
        load_trained(str(out))


# ---------------------------------------------------------------------------
# TOST against hand-computed bounds
# ---------------------------------------------------------------------------

# [-0.01, .02, .05, 0, .04]: mean 0.02, sd 0.0254951, se 0.0114018; t(0.95, 4) = 2.1318468, t(0.975, 4) = 2.7764451
ONE_BOUND_INSIDE = [-0.01, 0.02, 0.05, 0.0, 0.04]


def test_tost_bounds_by_hand():
    result = equivalence_verdict(ONE_BOUND_INSIDE, margin=0.03)
    assert result["mean"] == 0.02
    assert (result["tost_low"], result["tost_high"]) == pytest.approx((0.02 - 0.0243069, 0.02 + 0.0243069), abs=1e-4)
    assert (result["ci_low"], result["ci_high"]) == pytest.approx((0.02 - 0.0316566, 0.02 + 0.0316566), abs=1e-4)
    assert result["seeds"] == 5 and result["margin"] == 0.03


@pytest.mark.parametrize("sign", [1, -1])
def test_tost_needs_both_bounds_inside_the_margin(sign):
    """Only the lower (or, mirrored, the upper) 90% bound is inside +-0.03: not equivalent."""
    values = [sign * v for v in ONE_BOUND_INSIDE]
    result = equivalence_verdict(values, margin=0.03)
    assert abs(result["tost_low"]) < 0.03 < abs(result["tost_high"]) or abs(result["tost_high"]) < 0.03 < abs(
        result["tost_low"])
    assert result["verdict"] == "inconclusive"
    assert equivalence_verdict(values, margin=0.045)["verdict"] == "equivalent"  # both inside a wider margin


# [-0.005, .02, .045, .005, .035]: mean 0.02, sd 0.0206155, se 0.0092195: 90% [0.00035, 0.03965], 95% [-0.00560, 0.04560]
NINETY_NOT_NINETY_FIVE = [-0.005, 0.02, 0.045, 0.005, 0.035]


def test_tost_uses_the_90_interval_and_better_the_95_interval():
    result = equivalence_verdict(NINETY_NOT_NINETY_FIVE, margin=0.045)
    assert (result["tost_low"], result["tost_high"]) == pytest.approx((0.00035, 0.03965), abs=1e-4)
    assert (result["ci_low"], result["ci_high"]) == pytest.approx((-0.0056, 0.0456), abs=1e-4)
    # the 90% interval excludes 0 but the 95% one does not: not "better"; the 95% upper bound is past the margin
    # but the 90% one is inside: "equivalent"
    assert result["verdict"] == "equivalent"
    assert equivalence_verdict(NINETY_NOT_NINETY_FIVE, margin=0.035)["verdict"] == "inconclusive"


def test_tost_adds_the_shared_base_variance_to_the_standard_error():
    # se = sqrt(0.0114018^2 + 0.0003) = 0.0207364: the 95% half-width is 2.7764451 * se = 0.0575734
    result = equivalence_verdict(ONE_BOUND_INSIDE, margin=0.03, base_variance=0.0003)
    assert result["ci_high"] == pytest.approx(0.02 + 0.0575734, abs=1e-4)
    assert result["tost_low"] == pytest.approx(0.02 - 2.1318468 * 0.0207364, abs=1e-4)


@pytest.mark.parametrize(("values", "verdict"), [
    # the 95% interval excludes 0 but the 90% one lies inside the margin: a real difference the margin calls negligible
    ([0.01, 0.012, 0.011, 0.013, 0.009], "slightly better (a real difference, smaller than the margin)"),
    ([-0.01, -0.012, -0.011, -0.013, -0.009], "slightly worse (a real difference, smaller than the margin)"),
    ([0.03, 0.032, 0.031, 0.033, 0.029], "better"),  # beyond the margin: better, however tight
    ([-0.03, -0.032, -0.031, -0.033, -0.029], "worse"),
])
def test_a_clear_difference_is_called_better_or_worse_only_beyond_the_margin(values, verdict):
    assert equivalence_verdict(values, margin=0.03)["verdict"] == verdict


# ---------------------------------------------------------------------------
# The levels arm is a seeded random sample of its band
# ---------------------------------------------------------------------------


def _banded_table(size=200):
    """Levels 1-5 in turn; pass rates spread evenly over [0, 1] within every level."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({"id": [f"q{i}" for i in range(size)], "level": [1 + i % 5 for i in range(size)],
                         "pass_rate": rng.permutation(np.linspace(0, 1, size))})


def test_levels_arm_is_a_random_sample_of_the_band():
    table = _banded_table()
    band = table[table.level <= 3]
    rates = table.set_index("id")["pass_rate"]
    picks = [select(table, "levels", 0.2, seed=seed, levels=(1, 2, 3)) for seed in range(40)]
    assert all(len(ids) == 24 and set(ids) <= set(band.id) for ids in picks)  # 20% of the 120 in the band
    assert len({frozenset(ids) for ids in picks}) == 40  # every seed its own sample
    means = np.array([rates.loc[ids].mean() for ids in picks])
    # a sample of 24 from 120 without replacement: its mean's sd is sd(band) * sqrt((120 - 24) / (119 * 24))
    sd_of_mean = band.pass_rate.std() * np.sqrt((120 - 24) / (119 * 24))
    assert abs(means.mean() - band.pass_rate.mean()) < 4 * sd_of_mean / np.sqrt(40)  # unbiased: not the hardest
    assert 0.5 * sd_of_mean < means.std() < 2 * sd_of_mean  # and as spread as random samples are
    hardest = band.nsmallest(24, "pass_rate").id
    assert max(len(set(ids) & set(hardest)) for ids in picks) < 24


def test_levels_arm_ignores_the_tables_row_order():
    table = _banded_table(50)
    shuffled = table.sample(frac=1, random_state=3)
    assert select(shuffled, "levels", 10, seed=2, levels=(1, 2)) == select(table, "levels", 10, seed=2, levels=(1, 2))


# ---------------------------------------------------------------------------
# Dynamic sampling: dead groups are dropped and refilled
# ---------------------------------------------------------------------------


class _ScriptedGRPO:
    """A stand-in for GRPOTrainer whose generation rounds return scripted advantages, G = 2: group g of a round is
    alive when its mask entry is 1."""

    def __init__(self, rounds, max_rounds):
        self.rounds, self.calls = list(rounds), []
        self.num_generations, self.course_max_rounds = 2, max_rounds
        self.model = type("Model", (), {"training": True})()
        self.args = type("Args", (), {"seed": 0})()
        self.state = type("State", (), {"global_step": 0})()
        self.train_dataset = [{"prompt": f"p{i}"} for i in range(10)]
        self.processing_class = type("Tokenizer", (), {"pad_token_id": 0})()
        self._metrics = {"train": collections.defaultdict(list)}  # as TRL keeps them

    def _generate_and_score_completions(self, inputs):
        self.calls.append(len(inputs))
        alive = self.rounds.pop(0)
        round_number = len(self.calls)
        advantages = torch.tensor([[1.0, -1.0] if a else [0.0, 0.0] for a in alive]).reshape(-1)
        marks = torch.tensor([[round_number * 10 + g] * 2 for g in range(len(alive))]).reshape(-1, 1)
        return {"prompt_ids": marks, "prompt_mask": torch.ones_like(marks), "completion_ids": marks,
                "completion_mask": torch.ones_like(marks), "advantages": advantages}


def _dynamic(rounds, max_rounds=4):
    trainer = _dynamic_trainer_class(_ScriptedGRPO)(rounds, max_rounds)
    output = trainer._generate_and_score_completions([{"prompt": "p"}] * 8)  # 4 prompts x G=2
    return trainer, output


def test_dynamic_sampling_refills_dead_groups_until_the_batch_is_alive():
    # round 1: groups 1 and 3 alive; round 2: groups 0 and 2 alive: the batch is then whole and alive
    trainer, output = _dynamic([[0, 1, 0, 1], [1, 0, 1, 0], [1, 1, 1, 1]])
    assert trainer.calls == [8, 8]  # one refill round, then it stopped
    assert output["prompt_ids"][::2, 0].tolist() == [11, 13, 20, 22]  # round 1's alive groups, then round 2's
    assert (output["advantages"].view(-1, 2).abs().sum(dim=1) > 0).all()
    metrics = trainer._metrics["train"]
    assert metrics["dynamic/frac_dead_after_filter"] == [0.0] and metrics["dynamic/alive_groups_found"] == [4.0]
    assert metrics["dynamic/rounds"] == [2.0]
    assert output["num_items_in_batch"].item() == 8


def test_dynamic_sampling_fills_with_dead_groups_only_when_the_rounds_run_out():
    trainer, output = _dynamic([[0, 0, 0, 1], [0, 0, 0, 0], [0, 1, 0, 0]], max_rounds=3)
    assert trainer.calls == [8, 8, 8]
    assert output["prompt_ids"][::2, 0].tolist() == [13, 31, 10, 11]  # alive first, then dead ones in order
    metrics = trainer._metrics["train"]
    assert metrics["dynamic/frac_dead_after_filter"] == [0.5] and metrics["dynamic/alive_groups_found"] == [2.0]
    assert metrics["dynamic/rounds"] == [3.0]


def test_dynamic_sampling_leaves_a_live_batch_and_evaluation_alone():
    trainer, output = _dynamic([[1, 1, 1, 1]])
    assert trainer.calls == [8] and trainer._metrics["train"]["dynamic/frac_dead_after_filter"] == [0.0]
    assert trainer._metrics["train"]["dynamic/rounds"] == [1.0]
    evaluating = _dynamic_trainer_class(_ScriptedGRPO)([[0, 0, 0, 0]], 4)
    evaluating.model.training = False
    output = evaluating._generate_and_score_completions([{"prompt": "p"}] * 8)
    assert evaluating.calls == [8] and output["advantages"].abs().sum() == 0  # no filtering outside training


class _RaggedGRPO(_ScriptedGRPO):
    """The scripted trainer with what real rounds have: prompts and completions of a different width each round
    (so groups from two rounds must be padded to one width), per-token log-probabilities, a pad token that is not 0,
    and advantages as small as GRPO's (an alive group's sum of |advantage| can be under 1)."""

    def __init__(self, rounds, max_rounds, seed=0, step=0):
        super().__init__(rounds, max_rounds)
        self.processing_class.pad_token_id = 9
        self.args.seed, self.state.global_step, self.inputs = seed, step, []

    def _generate_and_score_completions(self, inputs):
        self.calls.append(len(inputs))
        self.inputs.append([row["prompt"] for row in inputs])
        alive, width = self.rounds.pop(0), len(self.calls)  # round r: prompts r tokens wide, completions r + 1
        n = 2 * len(alive)
        advantages = torch.tensor([[0.25, -0.25] if a else [0.0, 0.0] for a in alive]).reshape(-1)
        return {"prompt_ids": torch.full((n, width), width), "prompt_mask": torch.ones(n, width, dtype=torch.long),
                "completion_ids": torch.full((n, width + 1), width), "completion_mask": torch.ones(n, width + 1),
                "old_per_token_logps": torch.full((n, width + 1), -1.0),
                "ref_per_token_logps": torch.full((n, width + 1), -2.0), "advantages": advantages}


def test_dynamic_sampling_pads_prompts_left_and_completions_right_when_rounds_differ_in_width():
    trainer = _dynamic_trainer_class(_RaggedGRPO)([[1, 0, 0, 0], [0, 1, 1, 1]], 4)
    out = trainer._generate_and_score_completions([{"prompt": "p"}] * 8)
    assert trainer.calls == [8, 8]
    # group 0 of round 1 (1-token prompt, 2-token completion), then groups 1-3 of round 2 (2 and 3 tokens)
    assert out["prompt_ids"][:2].tolist() == [[9, 1]] * 2 and out["prompt_ids"][2:].tolist() == [[2, 2]] * 6
    assert out["prompt_mask"][:2].tolist() == [[0, 1]] * 2 and out["prompt_mask"][2:].tolist() == [[1, 1]] * 6
    assert out["completion_ids"][:2].tolist() == [[1, 1, 9]] * 2 and out["completion_ids"][2:].tolist() == [[2, 2, 2]] * 6
    assert out["completion_mask"][:2].tolist() == [[1, 1, 0]] * 2 and out["completion_mask"][2:].sum().item() == 18
    assert out["old_per_token_logps"][:2].tolist() == [[-1.0, -1.0, 0.0]] * 2
    assert out["ref_per_token_logps"][:2].tolist() == [[-2.0, -2.0, 0.0]] * 2
    assert out["ref_per_token_logps"][2:].eq(-2.0).all() and out["num_items_in_batch"].item() == 2 * 2 + 6 * 3
    assert out["advantages"].abs().view(-1, 2).sum(dim=1).tolist() == [0.5] * 4  # every group alive, small advantages


def test_dynamic_sampling_refills_from_the_training_set_the_same_way_for_a_seed_and_step():
    def refill(seed, step):
        trainer = _dynamic_trainer_class(_RaggedGRPO)([[0, 0, 0, 0], [1, 1, 1, 1]], 4, seed=seed, step=step)
        trainer._generate_and_score_completions([{"prompt": "p"}] * 8)
        drawn = trainer.inputs[1]
        assert len(drawn) == 8 and drawn[::2] == drawn[1::2]  # 4 prompts of the training set, each G = 2 times
        assert set(drawn) <= {row["prompt"] for row in trainer.train_dataset}
        return drawn[::2]

    assert refill(3, 5) == refill(3, 5)  # reproducible: a resumed run draws what the first run drew
    # pinned: a committed run re-run or resumed by a later course_lib draws the refills its first run drew
    assert (refill(3, 5), refill(0, 7)) == (["p4", "p5", "p1", "p6"], ["p5", "p2", "p6", "p9"])
    assert len({tuple(refill(3, step)) for step in range(6)}) > 1  # each step draws afresh
    assert len({tuple(refill(seed, 5)) for seed in range(6)}) > 1  # each run's seed draws its own refills
    assert len(set(refill(3, 5))) == 4  # without replacement


# ---------------------------------------------------------------------------
# Answer parsers on texts with several numbers, decimals, negatives and non-integers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("3 apples and 4 pears make 7", "7"),  # the last number of several
    ("she had 12, gave 5, kept 7 in the end.", "7"),
    ("the change is -12", "-12"),  # a negative
    ("x = 2.5 so the answer is 10", "10"),  # a decimal before the answer
    ("half of 5 is 2.5", "2.5"),  # a non-integer last: returned as written, so an integer answer does not match it
    (r"we get \boxed{2.5}, not 3", None),  # a value rejected after the mark offers a second one: a hedge
    (r"the answer is 12. \boxed{12.5}", "12.5"),  # not 12: the marked answer, not an earlier integer
    (r"\boxed{-4} after 9 steps", "-4"),  # a boxed integer wins over later numbers
])
def test_extract_integer_with_several_numbers(text, expected):
    assert extract_integer(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("2+3=5\n5*4=20\n#### 20", "20"),  # the worked lines' numbers are not the answer
    ("#### -3", "-3"),
    ("#### 2.5", "2.5"),
    ("#### 0.75", "0.75"),
    ("#### 1,234.5", "1234.5"),
    ("3-8=-5\n#### -5", "-5"),
])
def test_extract_hash_answer_with_several_numbers(text, expected):
    assert extract_hash_answer(text) == expected


@pytest.mark.parametrize(("completion", "answer", "source", "correct"), [
    ("7-9=-2\n#### -2", "-2", "arith", True),
    ("7-9=-2\n#### 2", "-2", "arith", False),  # the sign counts
    ("#### 2.5", "2.5", "gsm8k", True),
    ("#### 2.5", "25", "gsm8k", False),  # the decimal point counts
    ("#### 25", "2.5", "gsm8k", False),
    ("#### 3.0", "3", "gsm8k", True),
    ("1+2=3\n#### 4", "3", "arith", False),  # a right number in the working is not the answer
    ("the answer is 15, i.e. 3 times 5", "5", "aime2025", False),  # AIME's last integer, inside `3 times 5`: none
    ("the answer is 15, i.e. 3 times 5", "15", "aime2025", False),
])
def test_is_correct_reads_the_final_answer_only(completion, answer, source, correct):
    assert is_correct(completion, answer, source) is correct


# ---------------------------------------------------------------------------
# Resume from the newest checkpoint, also past 9
# ---------------------------------------------------------------------------


def test_resume_picks_checkpoint_12_over_checkpoint_9(problems, tmp_path):
    """Checkpoints every 3 steps, the last two kept: checkpoint-9 and checkpoint-12 (which sorts first as text)."""
    config = CourseConfig(num_generations=2, prompts_per_step=1, max_steps=12, save_steps=3, max_completion_length=8)
    out = tmp_path / "run"
    train_grpo("tiny-s", problems, config, out, progress=False)
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-12", "checkpoint-9"]
    adapter = (out / "final" / "adapter_model.safetensors").read_bytes()
    shutil.rmtree(out / "final")  # killed after its last checkpoint, before the end
    (out / "summary.json").unlink()
    summary = train_grpo("tiny-s", problems, config, out, progress=False)
    trained = json.loads((out / "metrics.jsonl").read_text().splitlines()[-1])["elapsed_seconds"]
    assert {key: value for key, value in summary.items() if key != "final_sha256"} == {  # seconds: its 12 steps'
        "model": "tiny-s", "steps": 12, "seconds": trained, "lora": True, "resumed_from": 12, "processes": 1}
    assert json.loads((out / "summary.json").read_text()) == summary  # nothing trained: final/ from checkpoint-12
    assert (out / "final" / "adapter_model.safetensors").read_bytes() == adapter


def test_cache_key_changes_with_the_models_config_and_stop_tokens_not_its_path(tiny_s, pool, tmp_path):
    """An eos id added to generation_config (samples stop earlier) or an edited rope setting changes what the model
    samples: a cached table of the model as it was is not served. Where the model was loaded from does not count."""
    model = copy.deepcopy(tiny_s[0])
    key = cache_key(model, pool, _key_settings())
    model.config._name_or_path = "/elsewhere/tiny-s"
    assert cache_key(model, pool, _key_settings()) == key
    model.generation_config.eos_token_id = [model.generation_config.eos_token_id, 23]
    stops = cache_key(model, pool, _key_settings())
    assert stops != key
    model.config.rms_norm_eps = model.config.rms_norm_eps * 10
    assert cache_key(model, pool, _key_settings()) not in (key, stops)
    folder = tmp_path / "model"  # a folder vLLM loads: its config files count, as its weights' headers do
    tiny_s[0].save_pretrained(folder)
    by_folder = cache_key(str(folder), pool, _key_settings())
    text = (folder / "generation_config.json").read_text()
    (folder / "generation_config.json").write_text(text.replace('"eos_token_id": 1', '"eos_token_id": [1, 23]'))
    assert '"eos_token_id": [1, 23]' in (folder / "generation_config.json").read_text()
    assert cache_key(str(folder), pool, _key_settings()) != by_folder


def test_cache_key_of_a_model_folder_changes_with_its_config_json(pool, tmp_path):
    """vLLM reads a folder's config.json (its architecture, its rope and norm settings): an edited one samples
    differently, so a table cached for the folder as it was is not served."""
    (tmp_path / "config.json").write_text('{"rms_norm_eps": 1e-06}')
    key = cache_key(str(tmp_path), pool, _key_settings())
    assert cache_key(str(tmp_path), pool, _key_settings()) == key
    (tmp_path / "config.json").write_text('{"rms_norm_eps": 1e-05}')
    assert cache_key(str(tmp_path), pool, _key_settings()) != key
