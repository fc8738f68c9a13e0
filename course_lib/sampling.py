"""Sampling K completions per prompt: batched `transformers` generate, or vLLM on a GPU.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import hashlib
import math

import torch

from .errors import CourseError, check

BACKENDS = ("hf", "vllm")
MAX_K = 10_000  # completions per prompt at most: pass@1000 needs 1000; more only fills memory


def check_sampling_args(k: int, temperature: float, max_new_tokens: int, backend: str = "hf") -> None:
    """Validate sampling settings before any model work starts."""
    check(isinstance(k, int) and 1 <= k <= MAX_K,
          f"k={k!r} must be an integer from 1 to {MAX_K:,} (completions per prompt; 4-64 are usual)")
    check(isinstance(temperature, int | float) and math.isfinite(temperature) and temperature >= 0,
          f"temperature={temperature} must be a finite number >= 0 (0 means greedy)")
    check(isinstance(max_new_tokens, int) and max_new_tokens >= 1, f"max_new_tokens={max_new_tokens!r} must be >= 1")
    check(backend in BACKENDS, f"backend={backend!r} is unknown; use one of {', '.join(BACKENDS)}")


def context_length(model) -> int | None:
    """The most tokens (prompt and completion) a model's positions cover; None when its config does not say.

    `model` is a loaded model, or a model folder or hub id (vLLM's case: its config.json is read).
    """
    config = getattr(model, "config", None)
    if isinstance(model, str):
        from transformers import AutoConfig

        try:
            config = AutoConfig.from_pretrained(model)
        except (OSError, ValueError):  # no readable config here: vLLM will say so itself
            return None
    config = getattr(config, "text_config", None) or config
    return getattr(config, "max_position_embeddings", None)


def checked_prompt_ids(model, tokenizer, problems, max_new_tokens: int) -> list[list[int]]:
    """Each problem's prompt token ids, once every prompt and its completion limit are checked to fit the model's context.

    A question longer than the context could hold even in the vocabulary's longest tokens is refused before it is
    tokenized (a 10 MB question would take minutes there).
    """
    from .prompts import prompt_ids

    limit = context_length(model)
    if limit is not None and problems:
        widest = max(len(token) for token in tokenizer.get_vocab())  # characters one token can cover at most
        for problem in problems:
            check(len(problem.prompt) <= limit * widest, _too_long(problem.id, f"{len(problem.prompt):,} characters", limit))
    id_lists = [prompt_ids(p, tokenizer) for p in problems]
    if limit is not None and id_lists:
        longest = max(range(len(id_lists)), key=lambda i: len(id_lists[i]))
        tokens = len(id_lists[longest])
        check(tokens < limit, _too_long(problems[longest].id, f"{tokens:,} tokens", limit))
        check(tokens + max_new_tokens <= limit,
              f"max_new_tokens={max_new_tokens} after the longest prompt ({problems[longest].id!r}, {tokens:,} tokens) "
              f"goes past the model's context of {limit:,} tokens; use max_new_tokens <= {limit - tokens:,}")
    return id_lists


def _too_long(problem_id: str, size: str, limit: int) -> str:
    """The message for a prompt beyond the model's context."""
    return (f"problem {problem_id!r} has a prompt of {size}, beyond the model's context of {limit:,} tokens; "
            "shorten that question, leave it out, or use a model with a longer context")


def chunk_seed(seed: int, chunk_index: int) -> int:
    """The torch seed of one chunk of prompts: a pure function of (seed, chunk)."""
    return int(hashlib.sha256(f"{seed}/{chunk_index}".encode()).hexdigest()[:8], 16)


def sample(
    model,
    tokenizer,
    prompts: list[str],
    k: int,
    temperature: float = 1.0,
    max_new_tokens: int = 128,
    seed: int = 0,
    backend: str = "hf",
    batch_size: int = 64,
    progress: bool = False,
) -> list[list[str]]:
    """`k` completions for each prompt (a list of k strings per prompt); same seed, same completions."""
    check_sampling_args(k, temperature, max_new_tokens, backend)
    check(batch_size >= 1, f"batch_size={batch_size} must be >= 1 (prompts per generate call)")
    if backend == "vllm":
        return _sample_vllm(model, prompts, k, temperature, max_new_tokens, seed)
    return list(_sample_hf_chunks(model, tokenizer, prompts, k, temperature, max_new_tokens, seed, batch_size, progress))


def _sample_hf_chunks(model, tokenizer, prompts, k, temperature, max_new_tokens, seed, batch_size, progress):
    """Yield each prompt's completions, generating `batch_size` prompts x k at a time."""
    from tqdm.auto import tqdm

    chunks = range(0, len(prompts), batch_size)
    for index, start in enumerate(tqdm(chunks, desc="sampling", disable=not progress)):
        chunk = prompts[start : start + batch_size]
        yield from sample_chunk(model, tokenizer, chunk, k, temperature, max_new_tokens, chunk_seed(seed, index))


def stop_token_ids(model, tokenizer) -> list[int]:
    """Every id that ends a completion: the tokenizer's eos and all the model's generation_config lists (as TRL does).

    Qwen's checkpoints list `<|im_end|>` and `<|endoftext|>`; stopping on only one runs on past the other.
    `model` is a loaded model, or a model folder or hub id (vLLM's case: its generation_config.json is read).
    """
    if isinstance(model, str):
        from transformers import GenerationConfig

        try:
            listed = GenerationConfig.from_pretrained(model).eos_token_id
        except OSError:  # no generation_config.json: the tokenizer's eos alone
            listed = None
    else:
        listed = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    ids = [] if listed is None else [listed] if isinstance(listed, int) else list(listed)
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id not in ids:
        ids = [tokenizer.eos_token_id, *ids]
    check(ids, "the tokenizer has no eos token and the model's generation_config lists none; completions cannot end")
    return ids


def left_pad(id_lists: list[list[int]], pad_id: int, device) -> dict:
    """Token id lists as a left-padded batch: input_ids and attention_mask, (B, T) each."""
    width = max(len(ids) for ids in id_lists)
    input_ids = torch.full((len(id_lists), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(id_lists), width), dtype=torch.long)
    for row, ids in enumerate(id_lists):
        if ids:
            input_ids[row, width - len(ids) :] = torch.tensor(ids)
            mask[row, width - len(ids) :] = 1
    return {"input_ids": input_ids.to(device), "attention_mask": mask.to(device)}


@torch.no_grad()
def sample_chunk(model, tokenizer, prompts, k, temperature, max_new_tokens, seed) -> list[list[str]]:
    """One batched `generate` call: left padding, KV cache, k samples per prompt.

    `prompts` are texts (tokenized as they are) or token id lists (from `course_lib.prompts.prompt_ids`).
    """
    check(tokenizer.padding_side == "left", "tokenizer.padding_side must be 'left' for batched generation")
    if prompts and isinstance(prompts[0], str):
        prompts = tokenizer(list(prompts), add_special_tokens=False)["input_ids"]
    encoded = left_pad(prompts, tokenizer.pad_token_id, model.device)
    torch.manual_seed(seed)
    greedy = temperature == 0
    output = model.generate(
        **encoded,
        do_sample=not greedy,
        temperature=None if greedy else temperature,
        top_k=None if greedy else 0,  # plain temperature sampling: no top-k
        top_p=None if greedy else 1.0,
        num_return_sequences=1 if greedy else k,
        max_new_tokens=max_new_tokens,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=stop_token_ids(model, tokenizer),
        use_cache=True,
    )  # (B * k, T_prompt + T_new)
    texts = tokenizer.batch_decode(output[:, encoded["input_ids"].shape[1] :], skip_special_tokens=True)
    if greedy:
        return [[text] * k for text in texts]
    return [texts[i * k : (i + 1) * k] for i in range(len(prompts))]


_VLLM_ENGINES: dict = {}  # model -> (vllm.LLM, its max_model_len): one engine per process, reused across calls
GPU_MEMORY_UTILIZATION = 0.85  # share of GPU memory an estimation/evaluation vLLM engine may take by default


def vllm_available() -> bool:
    """Whether vLLM is installed and a CUDA GPU is present (then estimation and evaluation can use it)."""
    import importlib.util

    return torch.cuda.is_available() and importlib.util.find_spec("vllm") is not None


def resolve_backend(backend: str) -> str:
    """'auto' -> 'vllm' when vLLM and a CUDA GPU are present, else 'hf'; 'vllm' without them is a clear error."""
    import importlib.util

    check(backend in (*BACKENDS, "auto"), f"backend={backend!r} is unknown; use hf, vllm or auto")
    if backend == "auto":
        return "vllm" if vllm_available() else "hf"
    if backend == "vllm" and not vllm_available():
        missing = "vLLM is not installed (pip install -e '.[gpu]')" if importlib.util.find_spec("vllm") is None \
            else "no CUDA GPU is visible"
        raise CourseError(f"backend='vllm' cannot run here: {missing}; use backend 'hf', or 'auto' to pick vLLM "
                          "only where it can run")
    return backend


def check_free_gpu_memory(share: float, what: str) -> None:
    """Before an engine starts: the GPU must have `share` of its memory free (vLLM's own rule), else a clear error."""
    if not torch.cuda.is_available():
        return
    free, total = torch.cuda.mem_get_info()
    gib = 2**30
    check(free >= share * total,
          f"{what} needs {share:.0%} of the GPU ({share * total / gib:.1f} GiB) but only {free / gib:.1f} of "
          f"{total / gib:.1f} GiB are free: an earlier engine, model or another process still holds memory; run each "
          "phase in its own process (course_lib.phases), or lower COURSE_VLLM_GPU_MEMORY_UTILIZATION")


def model_length_bucket(needed: int) -> int:
    """An engine's context length: the next power of two >= needed (at least 1024), so few prompts restart it."""
    return max(1024, 1 << (max(1, needed) - 1).bit_length())


def vllm_engine(model: str, seed: int = 0, gpu_memory_utilization: float | None = None, max_model_len: int = 0):
    """One `vllm.LLM` per model folder or hub id, reused across calls (weights are loaded once).

    Its share of GPU memory: the argument, else $COURSE_VLLM_GPU_MEMORY_UTILIZATION, else GPU_MEMORY_UTILIZATION.
    Its context: `max_model_len` tokens (prompt + completion), not the model's full window (Qwen3: 40,960), so the
    KV cache is sized for what is sampled; an engine too short for a later call is started again, longer.
    """
    import os

    if gpu_memory_utilization is None:
        gpu_memory_utilization = float(os.environ.get("COURSE_VLLM_GPU_MEMORY_UTILIZATION", GPU_MEMORY_UTILIZATION))
    try:
        from vllm import LLM
    except ImportError as error:
        raise CourseError(
            "backend='vllm' needs vLLM, which is not installed; on a GPU machine run "
            "`pip install -e '.[gpu]'`, or use backend='hf'"
        ) from error
    check(0 < gpu_memory_utilization <= 1, f"gpu_memory_utilization={gpu_memory_utilization} must be in (0, 1]")
    engine, length = _VLLM_ENGINES.get(model, (None, 0))
    if engine is None or (max_model_len and length < max_model_len):
        release_engines()  # never two engines' weights on the GPU at once
        check_free_gpu_memory(gpu_memory_utilization, f"a vLLM engine for {model}")
        options = {"max_model_len": max_model_len} if max_model_len else {}
        engine = LLM(model=model, seed=seed, gpu_memory_utilization=gpu_memory_utilization, **options)
        _VLLM_ENGINES[model] = (engine, max_model_len)
    return engine


def release_engines() -> None:
    """Drop every vLLM engine of this process (a phase in its own process gives the memory back for certain)."""
    import gc

    _VLLM_ENGINES.clear()
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def _sample_vllm(model, prompts, k, temperature, max_new_tokens, seed, stop_ids=None) -> list[list[str]]:
    """vLLM backend: `model` is a model folder, a hub id or a `vllm.LLM`; prompts are texts or token id lists.

    Greedy decoding (temperature 0) asks for one completion per prompt (vLLM refuses n > 1 when greedy) and repeats
    it k times, as the hf backend does.
    """
    if isinstance(model, str):
        longest = max((len(p) for p in prompts if not isinstance(p, str)), default=0)
        needed = model_length_bucket(longest + max_new_tokens) if longest else 0
        engine = vllm_engine(model, seed, max_model_len=needed)
    else:
        engine = model
    from vllm import SamplingParams

    greedy = temperature == 0
    params = SamplingParams(n=1 if greedy else k, temperature=temperature, max_tokens=max_new_tokens, seed=seed,
                            stop_token_ids=list(stop_ids or []) or None)
    inputs = [p if isinstance(p, str) else {"prompt_token_ids": list(p)} for p in prompts]
    outputs = engine.generate(inputs, params, use_tqdm=False)
    if greedy:
        return [[output.outputs[0].text] * k for output in outputs]
    return [[choice.text for choice in output.outputs] for output in outputs]
