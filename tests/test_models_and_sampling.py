"""Tiny models, tokenizer, loading, and the batched sampler."""

import json

import pytest

from course_lib import CourseError
from course_lib.models import (
    MODELS_DIR,
    TINY_SIZES,
    build_model,
    build_tokenizer,
    file_sha256,
    load_model,
    load_tokenizer,
    read_manifest,
)
from course_lib.sampling import sample


@pytest.fixture(scope="module")
def tiny_m():
    return load_model("tiny-m", device="cpu")


def test_char_tokenizer_round_trip_and_left_padding_survives_saving(tmp_path):
    tokenizer = build_tokenizer()
    text = "Q:12+3*2\n12+3=15\n15*2=30\n#### 30"
    ids = tokenizer(text)["input_ids"]
    assert len(ids) == len(text)  # one token per character
    assert tokenizer.decode(ids) == text
    assert tokenizer("Q:é")["input_ids"][-1] == tokenizer.unk_token_id
    tokenizer.save_pretrained(tmp_path)
    (tmp_path / "manifest.json").write_text("{}")
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "qwen2"}))
    reloaded = load_tokenizer(str(tmp_path))
    assert len(reloaded) == len(tokenizer)  # our character vocabulary, not Qwen2's byte-level one
    assert reloaded(text)["input_ids"] == ids
    assert reloaded.padding_side == "left" and reloaded.decode(ids) == text


@pytest.mark.parametrize("name", list(TINY_SIZES))
def test_committed_models_load_and_match_their_manifest(name):
    manifest = read_manifest(name)
    path = MODELS_DIR / name
    assert file_sha256(path / "model.safetensors") == manifest["sha256"]["model.safetensors"]
    assert manifest["command"].startswith(f"python -m course_lib pretrain --size {name}")
    assert manifest["versions"]["torch"] and manifest["versions"]["transformers"]
    model, tokenizer = load_model(name, device="cpu")
    assert type(model).__name__ == "Qwen2ForCausalLM"
    assert sum(p.numel() for p in model.parameters()) == manifest["parameters"]


def test_sizes_grow():
    tokenizer = build_tokenizer()
    counts = [sum(p.numel() for p in build_model(size, tokenizer, 0).parameters()) for size in TINY_SIZES]
    assert counts == sorted(counts) and counts[-1] > 20 * counts[0]


def test_model_path_that_is_not_a_model(tmp_path):
    with pytest.raises(CourseError, match="holds no model"):
        load_model(str(tmp_path))
    (tmp_path / "weights.bin").write_text("x")
    with pytest.raises(CourseError, match="is not a folder"):
        load_model(str(tmp_path / "weights.bin"))
    with pytest.raises(CourseError, match="holds no model|is not a folder"):
        load_model(str(tmp_path / "missing"))


def test_same_seed_same_completions(tiny_m):
    model, tokenizer = tiny_m
    prompts = ["Q:12+3\n", "Q:5*2-1+4\n", "S:ABC 12 ?1\n"]
    first = sample(model, tokenizer, prompts, k=4, temperature=1.0, max_new_tokens=40, seed=11)
    again = sample(model, tokenizer, prompts, k=4, temperature=1.0, max_new_tokens=40, seed=11)
    other = sample(model, tokenizer, prompts, k=4, temperature=1.0, max_new_tokens=40, seed=12)
    assert first == again and first != other
    assert [len(group) for group in first] == [4, 4, 4]


def test_left_padding_gives_the_same_greedy_answer_as_one_prompt_alone(tiny_m):
    model, tokenizer = tiny_m
    prompts = ["Q:7\n", "Q:31+4*2-9+3\n"]  # very different lengths: the short one is padded
    batched = sample(model, tokenizer, prompts, k=1, temperature=0, max_new_tokens=40)
    alone = [sample(model, tokenizer, [p], k=1, temperature=0, max_new_tokens=40)[0] for p in prompts]
    assert batched == alone


def test_greedy_repeats_the_single_completion(tiny_m):
    model, tokenizer = tiny_m
    groups = sample(model, tokenizer, ["Q:3+4\n"], k=3, temperature=0, max_new_tokens=20)
    assert len(set(groups[0])) == 1 and len(groups[0]) == 3


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"k": 0}, "k=0 must be"), ({"temperature": -1.0}, "temperature=-1.0 must be a finite number >= 0"),
     ({"backend": "tgi"}, "backend='tgi' is unknown"), ({"max_new_tokens": 0}, "max_new_tokens=0")],
)
def test_bad_sampling_settings(tiny_m, kwargs, message):
    model, tokenizer = tiny_m
    settings = {"k": 2, "temperature": 1.0, "max_new_tokens": 8, **kwargs}
    with pytest.raises(CourseError, match=message):
        sample(model, tokenizer, ["Q:1\n"], **settings)


def test_vllm_backend_says_how_to_install_when_absent(tiny_m):
    # vLLM is never a test dependency: this checks the message a user without it gets
    try:
        import vllm  # noqa: F401
    except ImportError:
        with pytest.raises(CourseError, match=r"pip install -e '\.\[gpu\]'"):
            sample("tiny-m", None, ["Q:1\n"], k=2, backend="vllm")
    else:
        pytest.fail("vllm is installed in the test environment; it must stay a GPU-only extra")
