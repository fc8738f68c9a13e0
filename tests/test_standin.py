"""The offline Qwen3 stand-in: deterministic build, Qwen3's interface through the Auto classes, CLI, one GRPO step."""

import json
import subprocess
import sys

import pytest
import torch
from conftest import run_cli_in_process

from course_lib.errors import CourseError
from course_lib.models import file_sha256
from course_lib.models.standin import CHAT_TEMPLATE, build_standin, corpus_lines


def run_cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "course_lib", *args], capture_output=True, text=True, **kwargs)


def test_rebuild_with_the_same_seed_and_corpus_is_byte_identical(standin_model, shared_data, tmp_path):
    again = build_standin(tmp_path / "again", corpus_path=shared_data / "gsm8k" / "train.jsonl", seed=0)
    for name in ("model.safetensors", "tokenizer.json", "config.json", "generation_config.json"):
        assert (tmp_path / "again" / name).read_bytes() == (standin_model / name).read_bytes(), name
    assert again["sha256"]["model.safetensors"] == file_sha256(standin_model / "model.safetensors")


def test_manifest_says_what_it_is(standin_model):
    manifest = json.loads((standin_model / "standin.json").read_text())
    assert manifest["standin"] is True and manifest["architecture"] == "Qwen3ForCausalLM"
    assert manifest["seed"] == 0 and manifest["corpus"].endswith("gsm8k/train.jsonl")
    assert manifest["sha256"]["model.safetensors"] == file_sha256(standin_model / "model.safetensors")
    assert manifest["command"].startswith("python -m course_lib standin --out ")
    assert manifest["versions"]["transformers"] and manifest["versions"]["tokenizers"]
    assert 50_000 < manifest["parameters"] < 300_000  # a few hundred thousand at most
    assert not (standin_model / "manifest.json").exists()  # that name would mark a char-level tiny model


def test_loads_through_the_auto_classes_and_generates_from_a_chat_prompt(standin_model):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(standin_model)
    model = AutoModelForCausalLM.from_pretrained(standin_model)
    assert type(model).__name__ == "Qwen3ForCausalLM" and model.dtype == torch.bfloat16
    assert model.config.tie_word_embeddings and model.config.vocab_size == len(tokenizer)
    assert 1000 <= len(tokenizer) <= 2000  # GSM8K text fills the requested 1024 entries
    assert tokenizer.padding_side == "left"
    assert (tokenizer.eos_token, tokenizer.pad_token) == ("<|im_end|>", "<|endoftext|>")
    prompts = [tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False,
                                             add_generation_prompt=True, enable_thinking=False)
               for text in ("hi", "Natalia sold 48 clips in April. How many in May?")]
    batch = tokenizer(prompts, return_tensors="pt", padding=True)
    assert batch["attention_mask"][0, 0] == 0 and batch["attention_mask"][0, -1] == 1  # padded on the left
    torch.manual_seed(0)
    out = model.generate(**batch, max_new_tokens=8, do_sample=True)  # (B, T + new)
    assert out.shape[0] == 2 and batch["input_ids"].shape[1] < out.shape[1] <= batch["input_ids"].shape[1] + 8


def test_chat_template_matches_qwen3_and_survives_save_and_load(standin_model):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(standin_model)
    assert tokenizer.chat_template == CHAT_TEMPLATE
    user = [{"role": "user", "content": "hi"}]
    no_thinking = tokenizer.apply_chat_template(user, tokenize=False, add_generation_prompt=True,
                                                enable_thinking=False)
    assert no_thinking == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
    thinking = tokenizer.apply_chat_template(user, tokenize=False, add_generation_prompt=True)
    assert thinking == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    turns = [{"role": "system", "content": "Be brief."}, *user, {"role": "assistant", "content": "4"}]
    assert tokenizer.apply_chat_template(turns, tokenize=False) == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n4<|im_end|>\n")


def test_special_tokens_are_single_ids_and_text_round_trips(standin_model):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(standin_model)
    ids = {token: tokenizer(token, add_special_tokens=False)["input_ids"]
           for token in ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>")}
    assert ids == {"<|endoftext|>": [0], "<|im_start|>": [1], "<|im_end|>": [2], "<think>": [3], "</think>": [4]}
    text = "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 72 é"  # byte-level: any text survives
    encoded = tokenizer(text)["input_ids"]
    assert len(encoded) < len(text.encode()) and tokenizer.decode(encoded) == text


def test_qwen2_tokenizer_class_encodes_the_same_ids(standin_model, shared_data):
    """transformers maps some Qwen model types to Qwen2Tokenizer whatever tokenizer_config.json says; both agree."""
    from transformers import AutoTokenizer, Qwen2Tokenizer

    auto, qwen = AutoTokenizer.from_pretrained(standin_model), Qwen2Tokenizer.from_pretrained(standin_model)
    rows = [json.loads(line) for line in (shared_data / "gsm8k" / "test.jsonl").read_text().splitlines()[:50]]
    texts = [row["question"] + "\n" + row["answer"] for row in rows]
    texts.append(auto.apply_chat_template([{"role": "user", "content": "hi  there\n\n 123"}], tokenize=False,
                                          add_generation_prompt=True, enable_thinking=False))
    assert [auto(t)["input_ids"] for t in texts] == [qwen(t)["input_ids"] for t in texts]
    assert auto.convert_ids_to_tokens(auto(" 2025")["input_ids"]) == ["Ġ", "2", "0", "2", "5"]  # Qwen: one per digit


def test_generation_config_stops_at_both_qwen_eos_ids(standin_model):
    from transformers import AutoTokenizer, GenerationConfig

    tokenizer = AutoTokenizer.from_pretrained(standin_model)
    config = GenerationConfig.from_pretrained(standin_model)
    assert config.eos_token_id == [tokenizer.convert_tokens_to_ids("<|im_end|>"),
                                   tokenizer.convert_tokens_to_ids("<|endoftext|>")] == [2, 0]
    assert config.pad_token_id == tokenizer.pad_token_id == 0


def test_course_load_model_loads_it_with_its_chat_template(standin_model):
    from course_lib.models import load_model

    model, tokenizer = load_model(str(standin_model), device="cpu")
    assert type(model).__name__ == "Qwen3ForCausalLM" and not model.training
    assert tokenizer.chat_template == CHAT_TEMPLATE and tokenizer.padding_side == "left"
    assert tokenizer.pad_token == "<|endoftext|>"  # not replaced by eos: the stand-in has its own pad


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"corpus_path": "/no/such/train.jsonl"}, "corpus_path='/no/such/train.jsonl' is not a file"),
        ({"seed": -1}, "seed=-1 must be an integer from 0 to 4,294,967,295"),
        ({"seed": 2**64}, "seed=18446744073709551616 must be an integer from 0 to 4,294,967,295"),
        ({"vocab_size": 100}, "vocab_size=100 must be at least 300"),
        ({"hidden": 40}, "hidden=40 must be a positive multiple of 16"),
        ({"layers": 0}, "layers=0 must be at least 1"),
    ],
)
def test_bad_input_is_refused_before_anything_is_written(tmp_path, kwargs, message):
    with pytest.raises(CourseError, match=message):
        build_standin(tmp_path / "out", **kwargs)
    assert not (tmp_path / "out").exists()


def test_corpus_is_gsm8k_from_the_data_dir_else_built_in(shared_data, tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_DATA_DIR", raising=False)
    built_in = corpus_lines()
    assert built_in[0].startswith("Q:") and any(line.startswith("S:") for line in built_in)
    monkeypatch.setenv("COURSE_DATA_DIR", str(shared_data))
    gsm8k = corpus_lines()
    first = json.loads((shared_data / "gsm8k" / "train.jsonl").open().readline())
    answer = first["answer"].splitlines()
    assert gsm8k[0] == first["question"] and gsm8k[1 : 1 + len(answer)] == answer
    assert len(gsm8k) == 3000  # capped: the BPE trains in about a second
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": "q", "answer": "a"}\n\nnot json\n')  # blank lines are skipped
    with pytest.raises(CourseError, match="line 3 is not a JSON object"):
        corpus_lines(broken)


def test_cli_builds_a_stand_in_and_the_seed_changes_only_the_weights(standin_model, shared_data, tmp_path):
    out = tmp_path / "cli"
    result = run_cli("standin", "--out", str(out), "--corpus", str(shared_data / "gsm8k" / "train.jsonl"),
                     "--seed", "1")
    assert result.returncode == 0, result.stderr
    assert "Qwen3 stand-in" in result.stdout and str(out) in result.stdout
    assert json.loads((out / "standin.json").read_text())["seed"] == 1
    assert (out / "tokenizer.json").read_bytes() == (standin_model / "tokenizer.json").read_bytes()
    assert file_sha256(out / "model.safetensors") != file_sha256(standin_model / "model.safetensors")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--corpus", "/no/such/train.jsonl"], "is not a file"),
        (["--seed", "-1"], "argument --seed: '-1' must be an integer from 0 to 4,294,967,295"),
        (["--seed", "x"], "argument --seed: 'x' must be an integer"),
        (["--corpus", "BINARY"], "line 1 is not a JSON object with string fields question and answer (in UTF-8)"),
    ],
)
def test_cli_bad_input_is_one_line_and_status_2(tmp_path, args, message):
    (tmp_path / "binary.jsonl").write_bytes(bytes(range(256)) * 4)
    args = [a.replace("BINARY", str(tmp_path / "binary.jsonl")) for a in args]
    result = run_cli_in_process("standin", "--out", str(tmp_path / "out"), *args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


@pytest.mark.slow
def test_one_grpo_step_with_lora_on_cpu(standin_model, tmp_path):
    from course_lib.tasks import generate
    from course_lib.training import CourseConfig, read_jsonl_log, train_grpo

    problems = generate("arith", 4, "train", seed=0, levels=[1])
    config = CourseConfig(num_generations=2, prompts_per_step=2, max_steps=1, save_steps=1, max_completion_length=16)
    summary = train_grpo(str(standin_model), problems, config, tmp_path / "run", progress=False)
    assert summary["steps"] == 1 and summary["lora"]
    assert (tmp_path / "run" / "final" / "adapter_config.json").exists()
    assert [row["step"] for row in read_jsonl_log(tmp_path / "run" / "metrics.jsonl")] == [1]
    ledger = read_jsonl_log(tmp_path / "run" / "ledger.jsonl")
    assert len(ledger) == 2 and {row["problem_id"] for row in ledger} <= {p.id for p in problems}


def test_trl_reads_both_eos_ids_and_gets_a_finite_gradient_from_chat_prompts(standin_model, tmp_path):
    """train_grpo's correctness reward is always 0 for random weights (no gradient); here rewards differ."""
    from datasets import Dataset
    from peft import LoraConfig
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    def text_reward(completions, **kwargs):
        return [float(sum(map(ord, c[0]["content"])) % 97) for c in completions]  # differs within a group

    prompts = Dataset.from_list([{"prompt": [{"role": "user", "content": f"What is {i}+1?"}]} for i in range(4)])
    args = GRPOConfig(output_dir=str(tmp_path), num_generations=2, per_device_train_batch_size=4, max_steps=1,
                      max_completion_length=16, report_to="none", use_cpu=True, logging_steps=1, save_strategy="no",
                      seed=0, chat_template_kwargs={"enable_thinking": False}, disable_tqdm=True)
    trainer = GRPOTrainer(model=AutoModelForCausalLM.from_pretrained(standin_model), reward_funcs=[text_reward],
                          args=args, train_dataset=prompts,
                          processing_class=AutoTokenizer.from_pretrained(standin_model),
                          peft_config=LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                                                 task_type="CAUSAL_LM"))
    assert trainer.eos_token_ids == [2, 0]  # from generation_config.json: both stop generation
    trainer.train()
    log = trainer.state.log_history[0]
    assert log["reward_std"] > 0 and 0 < log["grad_norm"] < float("inf")


def test_damaged_stand_in_is_refused_naming_standin_json_and_its_command(standin_model, tmp_path):
    import shutil

    from course_lib.models import load_model

    folder = tmp_path / "standin"
    shutil.copytree(standin_model, folder)
    expected = json.loads((folder / "standin.json").read_text())["sha256"]["tokenizer.json"]
    (folder / "tokenizer.json").write_text((folder / "tokenizer.json").read_text().replace('"<think>"', '"<thonk>"'))
    with pytest.raises(CourseError, match=rf"tokenizer.json is corrupt or changed: sha256 \w{{12}}\.\.\. but "
                                          rf"standin.json says {expected[:12]}\.\.\.; rebuild it with "
                                          rf"`python -m course_lib standin --out "):
        load_model(str(folder), device="cpu")
