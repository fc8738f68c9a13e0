"""Tiny models, tokenizer, loading, and the batched sampler."""

import json
import os
import shutil

import pytest

from course_lib import CourseError
from course_lib.models import (
    MODELS_DIR,
    TINY_NAMES,
    TINY_SIZES,
    TINY_VARIANTS,
    build_model,
    build_tokenizer,
    file_sha256,
    load_model,
    load_tokenizer,
    read_manifest,
)
from course_lib.sampling import generate_ids, left_pad, sample, stop_token_ids
from course_lib.tasks import generate


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


@pytest.mark.parametrize("name", list(TINY_NAMES))
def test_committed_models_load_and_match_their_manifest(name):
    manifest = read_manifest(name)
    path = MODELS_DIR / name
    assert file_sha256(path / "model.safetensors") == manifest["sha256"]["model.safetensors"]
    assert manifest["command"].startswith(f"python -m course_lib pretrain --size {TINY_VARIANTS.get(name, name)}")
    assert manifest["command"].endswith(f"--out data/models/{name}")
    assert manifest["versions"]["torch"] and manifest["versions"]["transformers"]
    model, tokenizer = load_model(name, device="cpu")
    assert type(model).__name__ == "Qwen2ForCausalLM"
    assert sum(p.numel() for p in model.parameters()) == manifest["parameters"]


def test_the_size_family_saw_the_same_data_and_differs_only_in_shape():
    from course_lib.models import PretrainConfig, pretrain_command

    configs = {name: read_manifest(name)["config"] for name in TINY_SIZES}
    for name, config in configs.items():
        assert config["size"] == name and config["tasks"] == ["arith", "shuffle"] and config["levels"] == [1, 2, 3, 4, 5]
        assert (config["steps"], config["batch_size"], config["seed"], config.get("wordy_share", 0)) == (800, 64, 0, 0)
    assert {name for name, config in configs.items() if config["lr"] != 0.003} == {"tiny-l"}  # its one recipe change
    manifest = read_manifest("tiny-sm")  # built by the committed recipe, from clean code, at a recorded thread count
    recipe = PretrainConfig(size="tiny-sm", steps=800, batch_size=64, lr=0.003, seed=0)
    assert manifest["command"] == pretrain_command(recipe, "data/models/tiny-sm")
    assert manifest["torch_threads"] == 1 and not manifest["commit"].endswith("+dirty")
    targets = manifest["calibration"]["arith"]["targets"]  # level 1 sometimes, levels 4-5 (almost) never
    assert set(targets) == {"level 1 pass rate >= 0.10", "levels 4-5 pass rate <= 0.05"}
    assert all(target["met"] for target in targets.values())


def test_sizes_grow():
    tokenizer = build_tokenizer()
    counts = [sum(p.numel() for p in build_model(size, tokenizer, 0).parameters()) for size in TINY_SIZES]
    assert counts == sorted(counts) and counts[-1] > 20 * counts[0]


def test_model_path_that_is_not_a_model(tmp_path, monkeypatch):
    with pytest.raises(CourseError, match="holds no model"):
        load_model(str(tmp_path))
    (tmp_path / "weights.bin").write_text("x")
    with pytest.raises(CourseError, match="is not a folder"):
        load_model(str(tmp_path / "weights.bin"))
    with pytest.raises(CourseError, match=r"model='.*missing' does not exist; give a model folder"):
        load_model(str(tmp_path / "missing"))
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "nowhere").symlink_to(tmp_path / "missing")
    for link in ("loop", "nowhere"):
        with pytest.raises(CourseError, match="is a link that leads nowhere"):
            load_model(str(tmp_path / link))
    with pytest.raises(CourseError, match="'loop' is a link that leads nowhere"):  # a relative name: not a hub id
        monkeypatch.chdir(tmp_path)
        load_model("loop")


def _copy_tiny_s(folder):
    """A private copy of the committed tiny-s, safe to damage."""
    shutil.copytree(MODELS_DIR / "tiny-s", folder)
    return folder


def _flip_byte(path, offset=-100):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


EXPECTED_TINY_S = read_manifest("tiny-s")["sha256"]["model.safetensors"]


@pytest.mark.parametrize("damage", ["flip", "truncate"])
def test_damaged_tiny_weights_are_refused_naming_file_hashes_and_fix(tmp_path, damage):
    folder = _copy_tiny_s(tmp_path / "tiny-s")
    weights = folder / "model.safetensors"
    if damage == "flip":
        _flip_byte(weights)
    else:
        weights.write_bytes(weights.read_bytes()[:1000])
    actual = file_sha256(weights)
    with pytest.raises(CourseError) as error:
        load_model(str(folder), device="cpu")
    message = str(error.value)
    assert message.startswith(f"{weights} is corrupt or changed: sha256 {actual[:12]}... ")
    assert f"manifest.json says {EXPECTED_TINY_S[:12]}..." in message
    assert "rebuild it with `python -m course_lib pretrain --size tiny-s --steps 800" in message
    assert "\n" not in message


def test_damaged_committed_model_says_git_checkout(tmp_path, monkeypatch):
    import course_lib.models as models

    _copy_tiny_s(tmp_path / "tiny-s")
    _flip_byte(tmp_path / "tiny-s" / "model.safetensors")
    monkeypatch.setattr(models, "MODELS_DIR", tmp_path)  # where names resolve
    monkeypatch.setattr(models.folders, "MODELS_DIR", tmp_path)  # and where the fix names git checkout
    with pytest.raises(CourseError, match="or restore it with `git checkout data/models/tiny-s`"):
        load_model("tiny-s", device="cpu")


def test_a_verified_file_is_not_hashed_again_until_it_changes(tmp_path, monkeypatch):
    import course_lib.models as models

    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(models.folders, "CHEAP_TO_HASH", 0)  # as for a large model's weights (small ones: hashed every load)
    folder = _copy_tiny_s(tmp_path / "tiny-s")
    calls = []
    monkeypatch.setattr(models.folders, "file_sha256", lambda path: calls.append(path) or file_sha256(path))
    load_model(str(folder), device="cpu")
    assert len(calls) == 1  # load_tokenizer hashed it; load_model's check used the remembered result
    remembered = json.loads((tmp_path / "cache" / "verified-models.json").read_text())
    assert remembered[str((folder / "model.safetensors").resolve())]["sha256"] == EXPECTED_TINY_S
    load_model(str(folder), device="cpu")
    assert len(calls) == 1
    weights = folder / "model.safetensors"
    stat = weights.stat()
    _flip_byte(weights)
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a new mtime: the remembered hash is stale
    with pytest.raises(CourseError, match="is corrupt or changed"):
        load_model(str(folder), device="cpu")
    assert len(calls) == 2


def test_unreadable_manifest_is_one_clear_line(tmp_path):
    folder = _copy_tiny_s(tmp_path / "tiny-s")
    (folder / "manifest.json").write_text('{"sha256": ')
    with pytest.raises(CourseError, match="manifest.json is not a valid manifest"):
        load_model(str(folder), device="cpu")


def test_truncated_weights_without_a_manifest_are_one_clear_line(tmp_path):
    folder = _copy_tiny_s(tmp_path / "run")
    (folder / "manifest.json").unlink()
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(CourseError, match=r"a \.safetensors file is corrupt or truncated \(.*\); download or save"):
        load_model(str(folder), device="cpu")


@pytest.mark.parametrize(
    ("name", "message"),
    [("tiny-x", "model='tiny-x' is unknown; did you mean tiny-s?"),
     ("tiny-medium", "model='tiny-medium' is unknown; did you mean tiny-m?"),
     ("tiny-m-wordyy", "model='tiny-m-wordyy' is unknown; did you mean tiny-m-wordy?"),
     ("tiny-qqqqqqqqqq", "model='tiny-qqqqqqqqqq' is unknown; use one of tiny-s, tiny-sm, tiny-m, tiny-l, tiny-m-wordy")],
)
def test_misspelled_tiny_name_fails_before_any_hub_access(name, message, monkeypatch):
    import course_lib.models as models

    monkeypatch.setattr(models, "check_hub_reachable", lambda name: pytest.fail("went to the hub"))
    with pytest.raises(CourseError, match=message.replace("?", "\\?")):
        load_model(name)


def test_uncached_hub_id_fails_at_once_when_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CourseError, match="model='course-lib-tests/no-such-model' is not in the local Hugging Face "
                                          "cache and the hub is offline"):
        load_model("course-lib-tests/no-such-model")


def test_uncached_hub_id_fails_at_once_when_the_hub_is_unreachable(monkeypatch):
    import socket

    from huggingface_hub import constants

    import course_lib.models as models

    for name in ("HF_HUB_OFFLINE", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)

    def unreachable(address, timeout):
        raise OSError("no route to host")

    monkeypatch.setattr(socket, "create_connection", unreachable)
    monkeypatch.setattr(models.socket, "create_connection", unreachable)
    with pytest.raises(CourseError, match=r"no-such-model' is not in the local Hugging Face cache and "
                                          r"\S+ cannot be reached \(no route to host\)"):
        load_model("course-lib-tests/no-such-model")


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


@pytest.mark.parametrize(("k", "temperature", "seed"), [(4, 1.0, 0), (3, 0.7, 5), (1, 0, 0)])
def test_the_sampler_draws_the_tokens_transformers_generate_draws(tiny_m, k, temperature, seed):
    # Same seed, same tokens as `model.generate`, although the sampler reads each prompt once and drops stopped
    # completions from the batch; prompts of mixed lengths (left padding), some completions stop early and some run
    # to the length limit, so every path of the loop is taken.
    import torch

    model, tokenizer = tiny_m
    prompts = [p.prompt for task in ("arith", "shuffle") for p in generate(task, 6, "test", seed)]
    encoded = left_pad(tokenizer(prompts, add_special_tokens=False)["input_ids"], tokenizer.pad_token_id, "cpu")
    stops, width = stop_token_ids(model, tokenizer), encoded["input_ids"].shape[1]
    torch.manual_seed(seed)
    ours = generate_ids(model, encoded["input_ids"], encoded["attention_mask"], k, temperature, 40, stops,
                        tokenizer.pad_token_id)
    torch.manual_seed(seed)
    greedy = temperature == 0
    theirs = model.generate(**encoded, do_sample=not greedy, temperature=None if greedy else temperature,
                            top_k=None if greedy else 0, top_p=None if greedy else 1.0, num_return_sequences=k,
                            max_new_tokens=40, pad_token_id=tokenizer.pad_token_id, eos_token_id=stops)[:, width:]

    def completions(ids):  # each row's tokens up to and including its stop
        return [[t for t in row if t != tokenizer.pad_token_id] for row in ids.tolist()]

    assert completions(ours) == completions(theirs)
    lengths = [len(row) for row in completions(ours)]
    assert min(lengths) < 40 and max(lengths) == 40 and len(lengths) == 12 * k


def test_an_empty_prompt_is_refused_naming_it(tiny_m):
    model, tokenizer = tiny_m
    with pytest.raises(CourseError, match=r"prompt 1 \(counting from 0\) is empty"):
        sample(model, tokenizer, ["Q:3\n", ""], k=2, temperature=1.0, max_new_tokens=8)


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


def test_a_missing_course_model_names_how_to_rebuild_or_restore_it(tmp_path, monkeypatch):
    """The message pointed to data/models/README.md, which does not exist; it names the pretrain command (the
    model's base size for a variant) and how to restore the committed folder."""
    import course_lib.models as models

    monkeypatch.setattr(models, "MODELS_DIR", tmp_path)
    with pytest.raises(CourseError) as error:
        models.resolve_model_path("tiny-m-math")
    said = str(error.value)
    assert "pretrain --size tiny-m --out" in said and "git checkout -- data/models/tiny-m-math" in said
    assert "README" not in said


def test_a_hub_dataset_fails_at_once_from_the_cache_when_the_hub_is_unreachable(monkeypatch, tmp_path):
    """Planning a paper sweep without local data retried the hub for ~50 s before a warning; now the local cache is
    read in offline mode when the host does not answer, and the error names both."""
    import datasets
    import huggingface_hub.constants

    import course_lib.models as models
    from course_lib.data import _hub_rows

    monkeypatch.setattr(models, "hub_unreachable", lambda: "huggingface.co cannot be reached (no route to host)")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))  # an empty cache
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path)
    seen, load = [], datasets.load_dataset
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: seen.append(datasets.config.HF_HUB_OFFLINE) or load(*a, **k))
    with pytest.raises(CourseError, match=r"could not load course-lib-tests/no-such-data \(main, split test\) from "
                                          r"the local cache, and huggingface.co cannot be reached"):
        _hub_rows("course-lib-tests/no-such-data", "main", "test")
    assert seen == [True]  # read in offline mode: no minute of retries
    assert datasets.config.HF_HUB_OFFLINE is False and huggingface_hub.constants.HF_HUB_OFFLINE is False  # restored


def test_a_course_lib_installed_without_its_models_says_how_to_install_it(monkeypatch, tmp_path):
    """A `pip install .` (not editable) puts course_lib in site-packages, where no data/models lies beside it: the
    message said to pretrain the model into site-packages."""
    import course_lib.models as models

    monkeypatch.delenv("COURSE_MODELS_DIR", raising=False)
    monkeypatch.setattr(models, "MODELS_DIR", tmp_path / "site-packages" / "data" / "models")
    with pytest.raises(CourseError) as refused:
        models.resolve_model_path("tiny-m")
    assert str(refused.value).startswith("model='tiny-m': this course_lib (")
    assert str(refused.value).endswith("has no data/models beside it (installed without `-e`?); run `pip install -e .` "
                                       "in the course's clone, or set COURSE_MODELS_DIR to its data/models")
