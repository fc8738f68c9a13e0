"""The tiny world's models: a character tokenizer, four Qwen2 sizes, pretraining, loading.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import random
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from ..classroom.quiet import no_weight_bars
from ..classroom.runtime import progress_bar
from ..errors import CourseError, check, check_seed, warn
from ..paths import MODELS_DIR
from ..provenance import atomic_write_text, git_commit, library_versions
from ..tasks import TASKS, TRAIN_LEVELS, stream
from .folders import (  # noqa: F401 (imported from here by the CLI, tests and notebooks)
    CHEAP_TO_HASH,
    file_sha256,
    fresh_staging,
    git_restore_command,
    n_parameters,
    publish_files,
    remembered_sha256,
    sample_sha256,
    verified_models_file,
    verify_model_folder,
)
from .packaged import PACKAGED_MODELS, converted_folder

PAD, EOS, UNK = "<pad>", "<eos>", "<unk>"
CHARS = "0123456789+-*=:#?() \n" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # every symbol arith and shuffle use
MATH_CHARS = "\\{}/." + "abcdefghijklmnopqrstuvwxyz"  # tinymath's LaTeX and x: ids after CHARS', which keep theirs
TOKENIZERS = {"char": CHARS, "char+math": CHARS + MATH_CHARS}  # a manifest's "tokenizer" -> its symbols, in id order
PRETRAIN_TASKS = ("arith", "shuffle")  # the committed models' mix


@dataclass(frozen=True)
class TinySize:
    """Shape of one tiny model (a real Qwen2 config, only small)."""

    hidden: int  # width of the residual stream
    layers: int  # transformer blocks
    heads: int  # attention heads (key/value heads: half as many)
    mlp: int  # width of the feed-forward layer
    role: str  # which hub model this size stands in for


TINY_SIZES = {
    "tiny-s": TinySize(hidden=48, layers=2, heads=4, mlp=128, role="Qwen2.5-0.5B"),
    # between tiny-s and tiny-m, for a capacity boundary made by size alone (same data, all five levels): it solves
    # level 1 sometimes and the longer chains about as rarely as tiny-s (notebook 06, the size-boundary studies)
    "tiny-sm": TinySize(hidden=64, layers=2, heads=4, mlp=256, role="a size between Qwen2.5-0.5B and 1.5B"),
    "tiny-m": TinySize(hidden=128, layers=4, heads=4, mlp=512, role="Qwen2.5-1.5B"),
    "tiny-l": TinySize(hidden=192, layers=6, heads=6, mlp=768, role="Qwen2.5-3B"),
}
# tiny-m pretrained differently, for the regimes of notebooks 05 and 06: half of its arith solutions
# written the long way, so long chains run past the length limit (format-limited, like Qwen3-4B under 250 tokens
# in arXiv 2508.14094); or never shown levels 4-5, so its boundary lies inside the training levels.
# tiny-l-strong: tiny-l stopped at 650 pretraining steps, strong but unsaturated (mean p ~0.8 on the training
# levels), the regime in which arXiv 2508.14094's mechanism predicts that hard examples win (notebook 07).
# tiny-l-wordy: tiny-l with 90% of its arith solutions written the long way: strong with room (about 0.67 at levels
# 3-5 within 224 tokens) but format-limited under 96 (about 0.03), the regime of Qwen3-4B under 250 tokens.
# tiny-sm-math, tiny-m-math: the two sizes pretrained on arith + tinymath (2,200 steps; `char+math` tokenizer), a
# capacity boundary made by size on the same data: tiny-sm solves tinymath's levels 4-5 almost never, tiny-m
# sometimes (data/results/tinymath-size-probes-4).
# tiny-l-math: tiny-l on the same data, the larger size that solves levels 4-5 at least sometimes on the size-boundary
# study's own test evaluation (0.165; data/results/tinymath-size-probes-5).
TINY_VARIANTS = {"tiny-m-wordy": "tiny-m", "tiny-m-short": "tiny-m", "tiny-l-strong": "tiny-l", "tiny-l-wordy": "tiny-l",
                 "tiny-sm-math": "tiny-sm", "tiny-m-math": "tiny-m", "tiny-l-math": "tiny-l"}
TINY_NAMES = (*TINY_SIZES, *TINY_VARIANTS)


def tokenizer_kind(tasks) -> str:
    """The tokenizer a model pretrained on `tasks` reads: 'char+math' when tinymath is one of them, else 'char'.

    >>> tokenizer_kind(("arith", "shuffle")), tokenizer_kind(("arith", "tinymath"))
    ('char', 'char+math')
    """
    return "char+math" if "tinymath" in tasks else "char"


def build_tokenizer(kind: str = "char"):
    """A character-level `PreTrainedTokenizerFast` with pad, eos and unk tokens, left padding; `kind` names its
    symbols (TOKENIZERS: 'char+math' adds tinymath's after every 'char' id, so both read arith alike)."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    check(kind in TOKENIZERS, f"kind={kind!r} is unknown; use one of {', '.join(TOKENIZERS)}")
    vocab = {token: i for i, token in enumerate([PAD, EOS, UNK, *TOKENIZERS[kind]])}
    core = Tokenizer(models.WordLevel(vocab, unk_token=UNK))
    core.pre_tokenizer = pre_tokenizers.Split(Regex(r"[\s\S]"), behavior="isolated")
    core.decoder = decoders.Fuse()
    # padding_side must go to the constructor: only then is it saved with the tokenizer
    return PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token=PAD, eos_token=EOS, unk_token=UNK, padding_side="left"
    )


def build_model(size: str, tokenizer, seed: int):
    """A freshly initialised `Qwen2ForCausalLM` of one tiny size, deterministic from `seed`."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    check(size in TINY_SIZES, f"size={size!r} is unknown; use one of {', '.join(TINY_SIZES)}")
    shape = TINY_SIZES[size]
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=shape.hidden,
        intermediate_size=shape.mlp,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=max(1, shape.heads // 2),
        max_position_embeddings=256,
        tie_word_embeddings=True,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=None,
    )
    torch.manual_seed(seed)
    return Qwen2ForCausalLM(config)


def resolve_model_path(name_or_path: str) -> Path | None:
    """Local folder for a tiny name, a packaged model's name or a path; None for anything else (a hub id)."""
    if name_or_path in PACKAGED_MODELS:  # a real model shipped in a PyPI package, converted once to a cached folder
        return converted_folder(name_or_path)
    if name_or_path in TINY_NAMES:
        check(not MODELS_DIR.exists() or MODELS_DIR.is_dir(),
              f"COURSE_MODELS_DIR={MODELS_DIR} is a file; give the folder that holds the tiny models, or unset it")
        path = MODELS_DIR / name_or_path
        check(not (MODELS_DIR / "run_config.json").exists(),
              f"model={name_or_path!r}: COURSE_MODELS_DIR={MODELS_DIR} is a training run's folder, not a folder of "
              "models; unset it (the course's own models are in data/models), and give a run as --model RUN")
        check(MODELS_DIR.exists() or "COURSE_MODELS_DIR" not in os.environ,
              f"model={name_or_path!r}: COURSE_MODELS_DIR={MODELS_DIR} does not exist; give the folder that holds "
              "the tiny models, or unset it (the course's own are in data/models)")
        check(MODELS_DIR.exists(), f"model={name_or_path!r}: this course_lib ({Path(__file__).parent.parent}) has "
                                   "no data/models beside it (installed without `-e`?); run `pip install -e .` in "
                                   "the course's clone, or set COURSE_MODELS_DIR to its data/models")
        check(
            (path / "config.json").exists(),
            f"model={name_or_path!r}: no checkpoint in {path}; build it with "
            f"`python -m course_lib pretrain --size {TINY_VARIANTS.get(name_or_path, name_or_path)} --out {path}` "
            f"(or restore the course's own: `git checkout -- data/models/{name_or_path}`; the full command that made "
            "it is in its manifest.json)",
        )
        return path
    path = Path(name_or_path).expanduser()
    fix = "give a model folder, a tiny name or a hub id"
    check(not path.is_symlink() or path.exists(),
          f"model={name_or_path!r} is a link that leads nowhere (a loop, or a path that does not exist); {fix}")
    if path.exists() or name_or_path.startswith((".", "/", "~")):
        check(path.exists(), f"model={name_or_path!r} does not exist; {fix}")
        check(path.is_dir(), f"model={name_or_path!r} is not a folder; {fix}")
        if not (path / "config.json").exists():  # no model here: part of a training run (RUN/final, RUN/checkpoint-N)?
            run = next((folder for folder in (path.parent, path.parent.parent)
                        if (folder / "run_config.json").exists()), None)
            check(run is None, f"model={name_or_path!r} is part of the training run {run} (a LoRA adapter or "
                               f"checkpoint, no model of its own); give the run folder, --model {run}: its base model "
                               "is loaded with the final adapter")
        check(
            (path / "config.json").exists(),
            f"model={name_or_path!r} holds no model (no config.json); "
            f"use a folder written by save_pretrained, or one of {', '.join(TINY_SIZES)}",
        )
        return path
    names = (*TINY_NAMES, *PACKAGED_MODELS)
    looks_like_ours = re.fullmatch(r"(tiny|smollm)[\w-]*", name_or_path, re.IGNORECASE)
    close = [] if "/" in name_or_path else difflib.get_close_matches(  # a course name misspelled, not a hub id
        name_or_path.lower(), names, n=1, cutoff=0.6 if looks_like_ours else 0.8)
    if looks_like_ours or close:
        hint = f"did you mean {close[0]}?" if close else f"use one of {', '.join(names)}"
        check(False, f"model={name_or_path!r} is unknown; {hint}")
    return None


WEIGHT_FILES = ("*.safetensors", "*.bin", "*.gguf")  # what holds a model's weights (not its config or tokenizer)


def weights_sha256(name_or_path) -> dict[str, str] | None:
    """The sha256 of a model's weight files and settings files (config, tokenizer), by file name: the fingerprint a
    training run records of its base.

    A tiny, stand-in or packaged model: the hashes its manifest lists (checked against the files at every load).
    Another folder: its files hashed (a large one once, then remembered while its size, mtime and sampled bytes
    stay the same). A hub model: the cache's blob names, which are the files' sha256. None for a hub model not in
    the cache. Introduced in notebooks/04_grpo_training.ipynb.
    """
    path = resolve_model_path(str(name_or_path))
    if path is None:
        path = _hub_snapshot(str(name_or_path))
        if path is None:
            return None
    weights = sorted({file for pattern in WEIGHT_FILES for file in path.glob(pattern) if file.is_file()})
    for name in ("manifest.json", "standin.json", "packaged.json"):
        try:
            listed = json.loads((path / name).read_text()).get("sha256", {})
        except (OSError, ValueError, AttributeError):
            continue
        recorded = {file.name: listed[file.name] for file in weights if isinstance(listed, dict) and file.name in listed}
        if recorded:
            return recorded | _settings_sha256(path)
    hashed = {file.name: _blob_sha256(file) or remembered_sha256(file) for file in weights}
    return hashed | _settings_sha256(path) if hashed else None


SETTINGS_FILES = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
                  "special_tokens_map.json", "vocab.json", "merges.txt", "tokenizer.model", "chat_template.jinja")


def _settings_sha256(path: Path) -> dict[str, str]:
    """The sha256 of the small files beside the weights that change what a model computes or reads (its shape,
    its tokenizer, its sampling defaults): part of a base model's fingerprint."""
    return {name: _blob_sha256(path / name) or file_sha256(path / name) for name in SETTINGS_FILES
            if (path / name).is_file()}


def _hub_snapshot(name: str) -> Path | None:
    """The local snapshot folder of a hub model in the Hugging Face cache (None when it is not cached)."""
    from huggingface_hub import try_to_load_from_cache

    try:
        config = try_to_load_from_cache(name, "config.json")
    except ValueError:  # not a valid repo id
        return None
    return Path(config).parent if isinstance(config, str) else None


def _blob_sha256(file: Path) -> str | None:
    """A hub cache file's sha256 from its blob's name (git LFS names blobs by it); None for any other file."""
    target = file.resolve().name
    return target if file.is_symlink() and re.fullmatch(r"[0-9a-f]{64}", target) else None


def check_weights_finite(model, source) -> None:
    """Every weight of `model` is a finite number (NaN or inf break sampling later); one line naming `source`."""
    for name, parameter in model.named_parameters():
        if not parameter.is_meta and not torch.isfinite(parameter).all():
            raise CourseError(f"{source} holds weights that are not finite (NaN or inf in {name}): the file is "
                              "damaged, or the run that wrote it diverged (lower its learning rate); restore or "
                              "rebuild it")


def check_hub_reachable(name: str) -> bool:
    """For a hub id: True when it is in the local cache; else fail at once when the hub is offline or unreachable."""
    from huggingface_hub import constants, try_to_load_from_cache

    try:
        cached = isinstance(try_to_load_from_cache(name, "config.json"), str)
    except ValueError:  # not a valid repo id: let from_pretrained say so
        return False
    offline = constants.HF_HUB_OFFLINE or os.environ.get("HF_HUB_OFFLINE", "").upper() in ("1", "ON", "YES", "TRUE")
    fix = (f"give a tiny name ({', '.join(TINY_SIZES)}), a packaged model ({', '.join(PACKAGED_MODELS)}), a model "
           "folder, or download it once with network access")
    check(cached or not offline, f"model={name!r} is not in the local Hugging Face cache and the hub is offline "
                                 f"(HF_HUB_OFFLINE=1); {fix}")
    if not cached and (unreachable := hub_unreachable()):
        raise CourseError(f"model={name!r} is not in the local Hugging Face cache and {unreachable}; {fix}")
    return cached


def hub_unreachable() -> str | None:
    """Why the Hugging Face hub cannot be reached ('huggingface.co cannot be reached (...)'), found in at most
    5 seconds; None when it answers, or behind a proxy (where a direct probe proves nothing: the client tries)."""
    from huggingface_hub import constants

    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return None
    host = re.sub(r"^\w+://", "", constants.ENDPOINT).split("/")[0]
    hostname, _, port = host.partition(":")
    try:
        socket.create_connection((hostname, int(port or 443)), timeout=5).close()
    except OSError as error:
        return f"{host} cannot be reached ({error})"
    return None


def load_tokenizer(name_or_path: str):
    """The tokenizer of a tiny name, model folder or hub id, padding on the left."""
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    path = resolve_model_path(name_or_path)
    if path is not None:
        verify_model_folder(path)
    if path is not None and (path / "manifest.json").exists():
        # AutoTokenizer would pick Qwen2's byte-level tokenizer from config.json
        tokenizer = PreTrainedTokenizerFast.from_pretrained(path)
    else:
        tokenizer = _from_hub(AutoTokenizer, path or name_or_path)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_model(name_or_path: str, device: str | None = None, dtype=None, place: bool = True):
    """(model, tokenizer) for a tiny name, a local folder or a hub id, all through `from_pretrained` (00)."""
    # place=False leaves the model where from_pretrained put it (the CPU) for the Trainer / accelerate to move
    # to each process's own device: placing it here would put every process of a multi-GPU run on cuda:0
    from transformers import AutoModelForCausalLM

    check(place or device is None, f"device={device!r} with place=False: give one or the other")
    tokenizer = load_tokenizer(name_or_path)
    path = resolve_model_path(name_or_path)  # load_tokenizer has verified its files
    from transformers.utils import logging as transformers_logging

    verbosity = transformers_logging.get_verbosity()
    if path is not None:  # a local folder: what its load report lists is checked below, in one line each
        transformers_logging.set_verbosity_error()
    try:
        model, loading = _from_hub(AutoModelForCausalLM, path or name_or_path, dtype=dtype, output_loading_info=True)
    finally:
        transformers_logging.set_verbosity(verbosity)
    missing, unused = sorted(loading["missing_keys"]), sorted(loading["unexpected_keys"])
    check(path is None or not missing, f"{path / 'config.json'} does not match the weights in {path}: "
                                       f"{len(missing)} weights it describes are not there (e.g. {missing[:1]}); "
                                       "save the model again with save_pretrained")
    if path is not None and unused:
        warn(f"{path}: {len(unused)} weights in its files are not in config.json's model and were not "
             f"loaded (e.g. {unused[:1]})")
    check_weights_finite(model, path or name_or_path)
    if place:
        model.to(device or default_device())
    model.eval()
    return model, tokenizer


def _from_hub(auto_class, name_or_path, **kwargs):
    """`auto_class.from_pretrained` with an error that says what to do when nothing loads."""
    from safetensors import SafetensorError

    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    if not isinstance(name_or_path, Path):
        check_hub_reachable(str(name_or_path))
    try:
        if isinstance(name_or_path, Path):  # a local folder: no bar (a hub download keeps its own)
            with no_weight_bars():
                return auto_class.from_pretrained(str(name_or_path), **kwargs)
        return auto_class.from_pretrained(str(name_or_path), **kwargs)
    except RuntimeError as error:
        if "mismatch" not in str(error):
            raise
        where = name_or_path / "config.json" if isinstance(name_or_path, Path) else f"{name_or_path}'s config.json"
        raise CourseError(f"{where} does not match the weights beside it (tensor shapes differ); save the model "
                          "again with save_pretrained") from error
    except SafetensorError as error:
        raise CourseError(
            f"model={str(name_or_path)!r}: a .safetensors file is corrupt or truncated ({error}); "
            "download or save the model again"
        ) from error
    except (OSError, ValueError) as error:
        raise CourseError(
            f"model={str(name_or_path)!r} could not be loaded ({str(error).splitlines()[0]}); "
            f"give a tiny name ({', '.join(TINY_SIZES)}), a model folder, or a hub id with network access"
        ) from error


def default_device() -> str:
    """'cuda' when a GPU is present, else 'cpu' (notebooks never hard-code a device)."""
    return "cuda" if torch.cuda.is_available() else "cpu"


MAX_PRETRAIN_STEPS = 1_000_000  # days on a CPU for tiny-l
MAX_PRETRAIN_BATCH = 4096  # sequences per step: more fills memory


@dataclass(frozen=True)
class PretrainConfig:
    """Settings of one pretraining run; every default is the one the committed models used."""

    size: str = "tiny-m"  # one of TINY_SIZES
    steps: int = 2000  # optimizer steps
    batch_size: int = 64  # sequences per step
    lr: float = 2e-3  # peak learning rate (linear warmup, cosine decay to 10%)
    seed: int = 0  # weights, data order, everything
    tasks: tuple = PRETRAIN_TASKS  # tasks mixed evenly into the stream (with tinymath: the char+math tokenizer)
    levels: tuple = TRAIN_LEVELS  # levels mixed evenly into the stream
    wordy_share: float = 0.0  # share of arith completions written the long way (tiny-m-wordy: 0.5)

    def __post_init__(self):
        check(self.size in TINY_SIZES, f"size={self.size!r} is unknown; use one of {', '.join(TINY_SIZES)}")
        check(isinstance(self.steps, int) and 1 <= self.steps <= MAX_PRETRAIN_STEPS,
              f"steps={self.steps!r} must be an integer from 1 to {MAX_PRETRAIN_STEPS:,} (the course's models took "
              "650-2,000)")
        check(isinstance(self.batch_size, int) and 1 <= self.batch_size <= MAX_PRETRAIN_BATCH,
              f"batch_size={self.batch_size!r} must be an integer from 1 to {MAX_PRETRAIN_BATCH:,} (64 is usual)")
        check(isinstance(self.lr, int | float) and 0 < self.lr <= 1,
              f"lr={self.lr} must be a number in (0, 1] (2e-3 is usual); larger steps make the weights NaN")
        check_seed(self.seed)
        check(0 <= self.wordy_share <= 1, f"wordy_share={self.wordy_share} must be between 0 and 1")
        for level in self.levels:
            check(level in TRAIN_LEVELS, f"levels: {level} is not a training level; use any of {TRAIN_LEVELS}")
        for task in self.tasks:
            check(task in TASKS, f"tasks: {task!r} is unknown; use any of {', '.join(TASKS)}")
        check(not self.wordy_share or "arith" in self.tasks, f"wordy_share={self.wordy_share} writes arith solutions "
              f"the long way, and tasks={list(self.tasks)} has no arith; add arith or leave wordy_share out")


def _batches(config: PretrainConfig, tokenizer):
    """Endless batches of (input_ids, attention_mask, labels); the prompt is not trained on."""
    streams = [stream(task, config.seed, config.levels, wordy_share=config.wordy_share) for task in config.tasks]
    pick = random.Random(config.seed)
    eos = tokenizer.eos_token_id
    while True:
        rows = []
        for _ in range(config.batch_size):
            prompt, completion = next(pick.choice(streams))
            p_ids = tokenizer(prompt)["input_ids"]
            c_ids = tokenizer(completion)["input_ids"] + [eos]
            rows.append((p_ids + c_ids, [-100] * len(p_ids) + c_ids))
        width = max(len(ids) for ids, _ in rows)
        ids = torch.full((len(rows), width), tokenizer.pad_token_id)  # (B, T), right padding
        labels = torch.full((len(rows), width), -100)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for i, (row_ids, row_labels) in enumerate(rows):
            ids[i, : len(row_ids)] = torch.tensor(row_ids)
            labels[i, : len(row_labels)] = torch.tensor(row_labels)
            mask[i, : len(row_ids)] = 1
        yield ids, mask, labels


def _lr_at(step: int, config: PretrainConfig) -> float:
    """Linear warmup over 5% of steps, then cosine decay to 10% of the peak."""
    warmup = max(1, config.steps // 20)
    if step < warmup:
        return config.lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, config.steps - warmup)
    return config.lr * (0.1 + 0.45 * (1 + math.cos(math.pi * progress)))


def pretrain(config: PretrainConfig, progress: bool = True):
    """Train a tiny model from scratch on the task streams; returns (model, tokenizer, losses)."""
    torch.use_deterministic_algorithms(True)
    tokenizer = build_tokenizer(tokenizer_kind(config.tasks))
    model = build_model(config.size, tokenizer, config.seed)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, betas=(0.9, 0.95), weight_decay=0.01)
    batches = _batches(config, tokenizer)
    losses = []
    bar = progress_bar(range(config.steps), desc=f"pretrain {config.size}", disable=not progress)
    for step in bar:
        for group in optimizer.param_groups:
            group["lr"] = _lr_at(step, config)
        ids, mask, labels = next(batches)
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        check(math.isfinite(loss.item()), f"pretraining diverged at step {step + 1} of {config.steps}: the loss is "
                                          f"{loss.item()} (lr={config.lr:g}); lower lr (2e-3 is usual)")
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
        if step % 50 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}")
    model.eval()
    check_weights_finite(model, f"pretraining with lr={config.lr:g}")
    return model, tokenizer, losses


def save_checkpoint(model, tokenizer, out: Path, config: PretrainConfig, losses, seconds: float, command: str,
                    commit: str | None):
    """Write weights, tokenizer and a manifest (sha256, command, seed, versions) into `out`: all staged first, the
    manifest moved in last, so a killed save leaves no model that claims to be whole."""
    out = Path(out)
    staged = fresh_staging(out)
    with no_weight_bars():
        model.save_pretrained(staged, safe_serialization=True)
    tokenizer.save_pretrained(staged)
    manifest = {
        "name": out.name,
        "tokenizer": tokenizer_kind(config.tasks),
        "architecture": type(model).__name__,
        "role": TINY_SIZES[config.size].role,
        "parameters": n_parameters(model),
        "sha256": {"model.safetensors": file_sha256(staged / "model.safetensors")},
        "command": command,
        "config": {**config.__dict__, "tasks": list(config.tasks), "levels": list(config.levels)},
        "pretrain_seconds": round(seconds, 1),
        "torch_threads": torch.get_num_threads(),  # float sums, so the bytes, depend on it: rebuild at this count
        "final_loss": round(sum(losses[-50:]) / len(losses[-50:]), 4),
        "versions": library_versions(),
        "commit": commit,  # the code the run started from
        "calibration": None,
    }
    atomic_write_text(staged / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    publish_files(staged, out, last="manifest.json")
    return manifest


def read_manifest(name_or_path: str) -> dict:
    """The manifest of a tiny model, by name or folder (00)."""
    path = resolve_model_path(name_or_path)
    check(path is not None and (path / "manifest.json").exists(), f"model={name_or_path!r} has no manifest.json")
    return json.loads((path / "manifest.json").read_text())


def pretrain_command(config: PretrainConfig, out) -> str:
    """The shell command that reproduces a pretraining run."""
    variant = (f" --levels {','.join(map(str, config.levels))}" if tuple(config.levels) != TRAIN_LEVELS else "") + (
        f" --wordy-share {config.wordy_share}" if config.wordy_share else "") + (
        f" --tasks {','.join(config.tasks)}" if tuple(config.tasks) != PRETRAIN_TASKS else "")
    return (
        f"python -m course_lib pretrain --size {config.size} --steps {config.steps} "
        f"--batch-size {config.batch_size} --lr {config.lr} --seed {config.seed}{variant} --out {out}"
    )


def run_pretrain(config: PretrainConfig, out, progress: bool = True) -> dict:
    """Pretrain, save and write the manifest; the CLI's `pretrain` command."""
    start, commit = time.time(), git_commit()
    model, tokenizer, losses = pretrain(config, progress=progress)
    command = pretrain_command(config, out)
    return save_checkpoint(model, tokenizer, Path(out), config, losses, time.time() - start, command, commit)
