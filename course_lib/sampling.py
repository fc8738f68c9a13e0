"""Sampling K completions per prompt: batched `transformers` generate, or vLLM on a GPU.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import hashlib

import torch

from .errors import CourseError, check

BACKENDS = ("hf", "vllm")


def check_sampling_args(k: int, temperature: float, max_new_tokens: int, backend: str = "hf") -> None:
    """Validate sampling settings before any model work starts."""
    check(isinstance(k, int) and k >= 1, f"k={k!r} must be an integer >= 1 (completions per prompt)")
    check(temperature >= 0, f"temperature={temperature} must be >= 0 (0 means greedy)")
    check(isinstance(max_new_tokens, int) and max_new_tokens >= 1, f"max_new_tokens={max_new_tokens!r} must be >= 1")
    check(backend in BACKENDS, f"backend={backend!r} is unknown; use one of {', '.join(BACKENDS)}")


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


@torch.no_grad()
def sample_chunk(model, tokenizer, prompts, k, temperature, max_new_tokens, seed) -> list[list[str]]:
    """One batched `generate` call: left padding, KV cache, k samples per prompt."""
    check(tokenizer.padding_side == "left", "tokenizer.padding_side must be 'left' for batched generation")
    encoded = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
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
        eos_token_id=tokenizer.eos_token_id,
        use_cache=True,
    )  # (B * k, T_prompt + T_new)
    texts = tokenizer.batch_decode(output[:, encoded["input_ids"].shape[1] :], skip_special_tokens=True)
    if greedy:
        return [[text] * k for text in texts]
    return [texts[i * k : (i + 1) * k] for i in range(len(prompts))]


_VLLM_ENGINES: dict = {}


def _sample_vllm(model, prompts, k, temperature, max_new_tokens, seed) -> list[list[str]]:
    """vLLM backend: `model` is a model folder, a hub id or a `vllm.LLM`; imported only when used."""
    try:
        from vllm import LLM, SamplingParams
    except ImportError as error:
        raise CourseError(
            "backend='vllm' needs vLLM, which is not installed; on a GPU machine run "
            "`pip install -e '.[gpu]'`, or use backend='hf'"
        ) from error
    if isinstance(model, LLM):
        engine = model
    else:
        check(isinstance(model, str), "with backend='vllm', model must be a model folder, a hub id or a vllm.LLM")
        engine = _VLLM_ENGINES.get(model) or _VLLM_ENGINES.setdefault(model, LLM(model=model, seed=seed))
    params = SamplingParams(n=k, temperature=temperature, max_tokens=max_new_tokens, seed=seed)
    outputs = engine.generate(prompts, params, use_tqdm=False)
    return [[choice.text for choice in output.outputs] for output in outputs]
