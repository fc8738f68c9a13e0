"""An offline stand-in for the paper's Qwen3 models: a tiny random `Qwen3ForCausalLM` with a byte-level BPE.

It has the real models' interface (chat template, `<think>` tokens, two eos ids, left padding, bf16
safetensors) but a few hundred thousand random weights, so every code path that loads a hub Qwen model
can be exercised on a laptop with no network. It knows nothing: its completions are noise.
Introduced in notebooks/04_grpo_training.ipynb.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from pathlib import Path

import torch

from ..classroom.quiet import no_weight_bars
from ..errors import check, check_seed
from ..provenance import atomic_write_text, env_folder, library_versions
from ..tasks import generate
from .folders import file_sha256, fresh_staging, n_parameters, publish_files

ENDOFTEXT, IM_START, IM_END = "<|endoftext|>", "<|im_start|>", "<|im_end|>"  # Qwen's special tokens
THINK, END_THINK = "<think>", "</think>"  # added, not special: Qwen3 keeps them when decoding
MAX_POSITIONS = 2048  # context length of model and tokenizer (rotary: costs no parameters)
MAX_CORPUS_LINES = 3000  # enough text for ~1-2k merges in about a second
# Qwen2/3's pre-tokenizer split (transformers.models.qwen2.tokenization_qwen2.PRETOKENIZE_REGEX)
QWEN_SPLIT_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
MANIFEST = "standin.json"  # not manifest.json: that name marks a char-level tiny model (see models.load_tokenizer)

# Qwen3's template, reduced to what the course uses: plain turns, a generation prompt, enable_thinking=False
CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}"
    "{{- '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and enable_thinking is false %}"
    "{{- '<think>\\n\\n</think>\\n\\n' }}"
    "{%- endif %}"
    "{%- endif %}"
)


def corpus_source(corpus_path=None) -> Path | None:
    """The GSM8K file the BPE trains on: `corpus_path`, else $COURSE_DATA_DIR/gsm8k/train.jsonl, else None."""
    if corpus_path is not None:
        return Path(corpus_path)
    data_dir = env_folder("COURSE_DATA_DIR")
    return data_dir / "gsm8k" / "train.jsonl" if data_dir else None


def corpus_lines(corpus_path=None, max_lines: int = MAX_CORPUS_LINES) -> list[str]:
    """Training text for the BPE: GSM8K questions and answers, or built-in procedural problems offline."""
    corpus_path = corpus_source(corpus_path)
    if corpus_path is None:
        problems = generate("arith", 500, "train", seed=0) + generate("shuffle", 500, "train", seed=0)
        return [line for p in problems for line in (p.prompt + p.solution).splitlines()][:max_lines]
    path = Path(corpus_path)
    check(path.is_file(), f"corpus_path={str(path)!r} is not a file; give a GSM8K train.jsonl (fields question, "
                          "answer), or None and no $COURSE_DATA_DIR for the built-in corpus")
    lines = []
    with open(path, encoding="utf-8", errors="replace") as handle:  # invalid UTF-8: a bad row, named below
        for number, row in enumerate(handle, 1):
            if len(lines) >= max_lines:
                break
            if not row.strip():
                continue
            try:
                record = json.loads(row) if "\ufffd" not in row else None  # None: not UTF-8, refused below
                lines += [record["question"], *record["answer"].splitlines()]
            except (ValueError, KeyError, TypeError, AttributeError):
                check(False, f"corpus_path={str(path)!r} line {number} is not a JSON object with string "
                             "fields question and answer (in UTF-8); give a GSM8K train.jsonl")
    check(lines, f"corpus_path={str(path)!r} is empty; give a GSM8K train.jsonl")
    return lines[:max_lines]


def check_shape(vocab_size: int = 1024, hidden: int = 64, layers: int = 2) -> None:
    """Validate a stand-in's sizes before anything is built."""
    check(vocab_size >= 300, f"vocab_size={vocab_size} must be at least 300 (256 bytes + special tokens + merges)")
    check(hidden >= 16 and hidden % 16 == 0, f"hidden={hidden} must be a positive multiple of 16 (4 heads of >= 4)")
    check(layers >= 1, f"layers={layers} must be at least 1")


def build_standin_tokenizer(lines: list[str], vocab_size: int = 1024):
    """A byte-level BPE trained on `lines`, with Qwen's special tokens and chat template, left padding."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import PreTrainedTokenizerFast

    check_shape(vocab_size=vocab_size)
    core = Tokenizer(models.BPE())
    # Qwen2/3's pipeline exactly (one token per digit), so Qwen2Tokenizer, which some transformers versions
    # pick for Qwen checkpoints whatever tokenizer_config.json says, encodes the same ids
    core.normalizer = normalizers.NFC()
    core.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN_SPLIT_REGEX), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    core.decoder = decoders.ByteLevel()
    core.post_processor = processors.ByteLevel(trim_offsets=False)
    specials = [ENDOFTEXT, IM_START, IM_END, THINK, END_THINK]  # ids 0-4, fixed whatever the corpus
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    core.train_from_iterator(lines, trainer=trainer)
    core.add_special_tokens([ENDOFTEXT, IM_START, IM_END])
    core.add_tokens([AddedToken(THINK, normalized=False, special=False),
                     AddedToken(END_THINK, normalized=False, special=False)])
    # padding_side must go to the constructor: only then is it saved with the tokenizer (as in models.py)
    return PreTrainedTokenizerFast(tokenizer_object=core, eos_token=IM_END, pad_token=ENDOFTEXT,
                                   padding_side="left", chat_template=CHAT_TEMPLATE, model_max_length=MAX_POSITIONS)


def build_standin_model(tokenizer, seed: int = 0, hidden: int = 64, layers: int = 2):
    """A freshly initialised tiny `Qwen3ForCausalLM` for `tokenizer`, deterministic from `seed`."""
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    check_shape(hidden=hidden, layers=layers)
    eos = [tokenizer.convert_tokens_to_ids(IM_END), tokenizer.convert_tokens_to_ids(ENDOFTEXT)]
    config = Qwen3Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,  # grouped-query attention, as in Qwen3
        head_dim=hidden // 4,
        max_position_embeddings=MAX_POSITIONS,
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=eos[0],
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(config)
    # as in Qwen3's checkpoints: generation stops at <|im_end|> or <|endoftext|>
    model.generation_config = GenerationConfig(eos_token_id=eos, pad_token_id=tokenizer.pad_token_id,
                                               bos_token_id=None)
    return model


def standin_command(out, corpus_path=None, seed: int = 0) -> str:
    """The shell command that rebuilds a stand-in."""
    corpus = f" --corpus {shlex.quote(str(corpus_path))}" if corpus_path is not None else ""
    return f"python -m course_lib standin --out {shlex.quote(str(out))}{corpus} --seed {seed}"


def build_standin(out, corpus_path=None, seed: int = 0, vocab_size: int = 1024, hidden: int = 64, layers: int = 2,
                  dtype=torch.bfloat16) -> dict:
    """Write a tiny random Qwen3 stand-in (weights, tokenizer, standin.json) into `out`; returns the manifest."""
    check_seed(seed)
    check_shape(vocab_size, hidden, layers)
    start = time.time()
    corpus_path = corpus_source(corpus_path)
    lines = corpus_lines(corpus_path)
    tokenizer = build_standin_tokenizer(lines, vocab_size)
    model = build_standin_model(tokenizer, seed, hidden, layers).to(dtype)
    out = Path(out)
    staged = fresh_staging(out)  # everything staged, standin.json moved in last: a killed build claims nothing
    with no_weight_bars():
        model.save_pretrained(staged, safe_serialization=True)
    tokenizer.save_pretrained(staged)
    os.chmod(staged / "model.safetensors", 0o644)  # save_pretrained leaves it private (0600); the others are 0644
    manifest = {
        "name": out.name,
        "standin": True,
        "what": "random-weight Qwen3ForCausalLM with a byte-level BPE; interface of the paper's Qwen3 models, "
                "no knowledge",
        "architecture": type(model).__name__,
        "parameters": n_parameters(model),
        "vocab_size": len(tokenizer),
        "hidden": hidden,
        "layers": layers,
        "dtype": str(dtype).removeprefix("torch."),
        "seed": seed,
        "corpus": str(corpus_path) if corpus_path is not None else None,
        "corpus_lines": len(lines),
        "sha256": {name: file_sha256(staged / name) for name in ("model.safetensors", "tokenizer.json")},
        "command": standin_command(out, corpus_path, seed),
        "build_seconds": round(time.time() - start, 2),
        "versions": library_versions(),
    }
    atomic_write_text(staged / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    publish_files(staged, out, last=MANIFEST)
    return manifest
