"""Sampling K completions per prompt: batched `transformers` generate, or vLLM on a GPU.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import inspect
import os

import torch

from .classroom.runtime import progress_bar
from .errors import CourseError, check, warn
from .prompts import DEFAULT_NEW_TOKENS, prompt_ids

BACKENDS = ("hf", "vllm")
MAX_K = 10_000  # completions per prompt at most: pass@1000 needs 1000; more only fills memory
MAX_NEW_TOKENS = 131_072  # tokens a completion may have at most: the longest reasoning models' output windows
TEMPERATURES = (1e-3, 100.0)  # above 0, sampling needs at least the first (logits / 1e-40 overflow to inf) and
# gains nothing past the second (the draw is already uniform)


def check_sampling_args(k: int, temperature: float, max_new_tokens: int, backend: str = "hf") -> None:
    """Validate sampling settings before any model work starts."""
    check(isinstance(k, int) and 1 <= k <= MAX_K,
          f"k={k!r} must be an integer from 1 to {MAX_K:,} (completions per prompt; 4-64 are usual)")
    low, high = TEMPERATURES
    check(isinstance(temperature, int | float) and (temperature == 0 or low <= temperature <= high),
          f"temperature={temperature} must be a finite number >= 0: 0 (greedy) or from {low:g} to {high:g} "
          "(1.0 is usual)")
    check(isinstance(max_new_tokens, int) and 1 <= max_new_tokens <= MAX_NEW_TOKENS,
          f"max_new_tokens={max_new_tokens!r} must be an integer from 1 to {MAX_NEW_TOKENS:,}")
    check(backend in BACKENDS, f"backend={backend!r} is unknown; use one of {', '.join(BACKENDS)}")


def check_greedy_k(k: int, temperature: float) -> None:
    """Greedy sampling gives one answer per problem: k copies of it would count as k samples (01)."""
    check(temperature != 0 or k == 1,
          f"temperature=0 samples greedily: all k={k} samples of a problem would be the same answer, counted as k; "
          "a pass rate needs samples that can differ: give a temperature above 0 (1.0 is usual)")


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
    limit = context_length(model)
    if limit is not None and problems:
        widest = max(len(token) for token in tokenizer.get_vocab())  # characters one token can cover at most
        for problem in problems:
            check(len(problem.prompt) <= limit * widest, _too_long(problem.id, f"{len(problem.prompt):,} characters", limit))
    id_lists = [prompt_ids(p, tokenizer) for p in problems]
    warn_unreadable(tokenizer, problems, id_lists)
    if limit is not None and id_lists:
        longest = max(range(len(id_lists)), key=lambda i: len(id_lists[i]))
        tokens = len(id_lists[longest])
        check(tokens < limit, _too_long(problems[longest].id, f"{tokens:,} tokens", limit))
        check(tokens + max_new_tokens <= limit,
              f"max_new_tokens={max_new_tokens} after the longest prompt ({problems[longest].id!r}, {tokens:,} tokens) "
              f"goes past the model's context of {limit:,} tokens; use max_new_tokens <= {limit - tokens:,}")
    return id_lists


def warn_unreadable(tokenizer, problems, id_lists) -> None:
    """Warn, once per call, when questions hold what the tokenizer cannot read as written: characters it knows only
    as <unk> (a tiny model reads its tasks' symbols alone) or the text of one of its special tokens (`<eos>` in a
    question would end it). The model would be asked another question, and silently score 0."""

    unk = tokenizer.unk_token_id
    unknown = sorted({c for p, ids in zip(problems, id_lists) if unk is not None and unk in ids
                      for c in set(p.prompt) if tokenizer.convert_tokens_to_ids(c) == unk})
    specials = sorted({s for p in problems for s in tokenizer.all_special_tokens if s and s in p.prompt})
    if unknown:
        shown = ", ".join(repr(c) for c in unknown[:8]) + (" ..." if len(unknown) > 8 else "")
        warn(f"{sum(unk in ids for ids in id_lists)} of {len(problems)} questions hold characters this "
             f"model's tokenizer reads as <unk> ({shown}): the model sees another question; a tiny model "
             "reads only the tasks it was pretrained on, a real one (e.g. smollm2-135m) reads your own")
    if specials:
        warn(f"questions hold the text of the tokenizer's special token(s) {specials}, which the model reads "
             "as the token itself (an end of text, a padding); reword those questions")


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
    max_new_tokens: int = DEFAULT_NEW_TOKENS,
    seed: int = 0,
    backend: str = "hf",
    batch_size: int = 64,
    progress: bool = False,
) -> list[list[str]]:
    """`k` completions for each prompt (a list of k strings per prompt); same seed, same completions (00)."""
    check_sampling_args(k, temperature, max_new_tokens, backend)
    check(batch_size >= 1, f"batch_size={batch_size} must be >= 1 (prompts per generate call)")
    check_no_empty_prompt(prompts)
    if backend == "vllm":
        return _sample_vllm(model, prompts, k, temperature, max_new_tokens, seed)
    return list(_sample_hf_chunks(model, tokenizer, prompts, k, temperature, max_new_tokens, seed, batch_size, progress))


def check_no_empty_prompt(prompts) -> None:
    """Every prompt (a text or a token id list) must have something in it: a completion follows a prompt."""
    empty = [i for i, prompt in enumerate(prompts) if len(prompt) == 0]
    if empty:
        raise CourseError(f"prompt {empty[0]} (counting from 0) is empty: a completion needs a prompt to follow; "
                          "leave it out")


def _sample_hf_chunks(model, tokenizer, prompts, k, temperature, max_new_tokens, seed, batch_size, progress):
    """Yield each prompt's completions, generating `batch_size` prompts x k at a time."""
    chunks = range(0, len(prompts), batch_size)
    for index, start in enumerate(progress_bar(chunks, desc="sampling", disable=not progress)):
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
    """One batch of prompts, k samples each (left padding, KV cache); see `generate_ids` for the loop.

    `prompts` are texts (tokenized as they are) or token id lists (from `course_lib.prompts.prompt_ids`).
    """
    check(tokenizer.padding_side == "left", "tokenizer.padding_side must be 'left' for batched generation")
    if prompts and isinstance(prompts[0], str):
        prompts = tokenizer(list(prompts), add_special_tokens=False)["input_ids"]
    check_no_empty_prompt(prompts)
    encoded = left_pad(prompts, tokenizer.pad_token_id, model.device)
    torch.manual_seed(seed)
    greedy = temperature == 0
    new_ids = generate_ids(model, encoded["input_ids"], encoded["attention_mask"], 1 if greedy else k, temperature,
                           max_new_tokens, stop_token_ids(model, tokenizer), tokenizer.pad_token_id)  # (B * k, T_new)
    texts = tokenizer.batch_decode(new_ids, skip_special_tokens=True)
    if greedy:
        return [[text] * k for text in texts]
    return [texts[i * k : (i + 1) * k] for i in range(len(prompts))]


@torch.no_grad()
def generate_ids(model, input_ids, attention_mask, copies, temperature, max_new_tokens, stop_ids, pad_id):
    """New token ids, (B * copies, T_new), pad after each stop: the draws of `model.generate`, for less work.

    The same tokens as `model.generate(do_sample=True, top_k=0, top_p=1.0, num_return_sequences=copies)` after the
    same `torch.manual_seed` (tests/test_models_and_sampling.py compares them), and like the vLLM backend it adds
    none of a model's own generation_config extras (repetition penalty, top-k). Two savings: each prompt is read once
    and its cache copied for its completions, and completions that have stopped leave the batch (once an eighth of
    it has: each leaving copies the cache). Every step still draws for every completion, as `generate` does, so each
    gets the random numbers it would have got there.
    """
    from transformers import DynamicCache

    rows = input_ids.shape[0] * copies
    padded = not bool(attention_mask.all())  # `generate` drops a mask of all ones; so do we (same attention path)
    positions = (attention_mask.cumsum(-1) - 1).masked_fill(attention_mask == 0, 0)  # (B, T)
    cache = DynamicCache(config=model.config)
    accepted = _forward_parameters(model)
    forward = {"attention_mask": attention_mask if padded else None, "position_ids": positions, "use_cache": True,
               "cache" if "cache" in accepted else "past_key_values": cache}  # renamed in transformers 5.2x
    if "logits_to_keep" in accepted:
        forward["logits_to_keep"] = 1  # the last position's logits only, as `generate` asks
    logits = model(input_ids=input_ids, **forward).logits[:, -1].float()  # (B, V)
    cache.batch_repeat_interleave(copies)  # each prompt's cache, once per completion: (B * copies, ...)
    logits = logits.repeat_interleave(copies, dim=0)
    mask, positions = attention_mask.repeat_interleave(copies, dim=0), positions[:, -1:].repeat_interleave(copies, 0)
    live = torch.arange(rows, device=input_ids.device)  # batch row -> its completion
    going = torch.ones(rows, dtype=torch.bool, device=input_ids.device)  # batch rows whose completion goes on
    new_ids = torch.full((rows, max_new_tokens), pad_id, dtype=torch.long, device=input_ids.device)
    stops = torch.tensor(stop_ids, device=input_ids.device)
    for step in range(max_new_tokens):
        tokens = next_tokens(logits, live, rows, temperature)  # (batch,)
        new_ids[live[going], step] = tokens[going]
        going &= ~torch.isin(tokens, stops)
        if step == max_new_tokens - 1 or not going.any():
            break
        if (~going).sum() * 8 >= len(live):  # an eighth of the batch has stopped: it leaves, with its cache
            keep = going.nonzero().squeeze(1)
            cache.batch_select_indices(keep)
            live, tokens, mask, positions, going = live[keep], tokens[keep], mask[keep], positions[keep], going[keep]
        mask, positions = torch.cat([mask, mask.new_ones((len(live), 1))], dim=1), positions + 1
        forward.update(attention_mask=mask if padded else None, position_ids=positions)
        logits = model(input_ids=tokens[:, None], **forward).logits[:, -1].float()  # (batch, V)
    return new_ids[:, : step + 1]


def next_tokens(logits, live, rows: int, temperature: float):
    """One token per batch row: argmax when greedy, else a draw from softmax(logits / temperature).

    `live[i]` is the completion (of `rows`) that batch row i carries. The draw is made for all `rows` (completions
    that have left the batch draw a dummy), so the random numbers one gets do not depend on which others have
    stopped: `torch.multinomial` consumes them by shape, not by value.
    """
    if temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.zeros((rows, logits.shape[1]), device=logits.device)
    probs[:, 0] = 1.0  # completions that have left: any valid distribution
    probs[live] = torch.softmax(logits / temperature, dim=-1)
    return torch.multinomial(probs, num_samples=1).squeeze(1)[live]


def _forward_parameters(model) -> set[str]:
    """The argument names a model's forward takes (a PEFT model's: its base model's)."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return set(inspect.signature(base.forward).parameters)


_VLLM_ENGINES: dict = {}  # model -> (vllm.LLM, its max_model_len): one engine per process, reused across calls
GPU_MEMORY_UTILIZATION = 0.85  # share of GPU memory an estimation/evaluation vLLM engine may take by default


def vllm_available() -> bool:
    """Whether vLLM is installed and a CUDA GPU is present (then estimation and evaluation can use it)."""
    return torch.cuda.is_available() and importlib.util.find_spec("vllm") is not None


def resolve_backend(backend: str) -> str:
    """'auto' -> 'vllm' when vLLM and a CUDA GPU are present, else 'hf'; 'vllm' without them is a clear error."""
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
          "phase in its own process (course_lib.training.phases), or lower COURSE_VLLM_GPU_MEMORY_UTILIZATION")


def model_length_bucket(needed: int) -> int:
    """An engine's context length: the next power of two >= needed (at least 1024), so few prompts restart it."""
    return max(1024, 1 << (max(1, needed) - 1).bit_length())


def vllm_engine(model: str, seed: int = 0, gpu_memory_utilization: float | None = None, max_model_len: int = 0):
    """One `vllm.LLM` per model folder or hub id, reused across calls (weights are loaded once).

    Its share of GPU memory: the argument, else $COURSE_VLLM_GPU_MEMORY_UTILIZATION, else GPU_MEMORY_UTILIZATION.
    Its context: `max_model_len` tokens (prompt + completion), not the model's full window (Qwen3: 40,960), so the
    KV cache is sized for what is sampled; an engine too short for a later call is started again, longer.
    """
    if gpu_memory_utilization is None:
        given = os.environ.get("COURSE_VLLM_GPU_MEMORY_UTILIZATION", "").strip()  # empty is unset, as for every COURSE_*
        try:
            gpu_memory_utilization = float(given) if given else GPU_MEMORY_UTILIZATION
        except ValueError:
            raise CourseError(f"COURSE_VLLM_GPU_MEMORY_UTILIZATION={given!r} is no number; give a share of GPU memory "
                              "such as 0.5, or unset it") from None
    check(0 < gpu_memory_utilization <= 1, f"gpu_memory_utilization={gpu_memory_utilization} must be a share of the "
                                           "GPU's memory, above 0 and at most 1 (e.g. 0.5)")
    try:
        from vllm import LLM
    except ImportError as error:
        raise CourseError(
            "backend='vllm' needs vLLM, which is not installed; on a GPU machine run "
            "`pip install -e '.[gpu]'`, or use backend='hf'"
        ) from error
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
