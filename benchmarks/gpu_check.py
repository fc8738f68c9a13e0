"""CUDA check of the paper path, for a machine with an accelerator and no network.

Run: bash benchmarks/gpu_check.sh   (a few minutes on one GPU; installs and downloads nothing)
1. The stand-in Qwen3 (built offline) through one shrunk grid point of each paper study on the GPU
   (estimate -> select -> train GRPO + LoRA -> evaluate), with peak GPU memory and wall time.
2. Sampling throughput of the stand-in, and of a real hub model when one is already in the local
   cache (HF_HUB_OFFLINE=1), with HF generate and, when installed, vLLM.
3. Determinism: the same call twice gives the same completions.
Prints its numbers and writes them to $OUT/gpu_check.json when OUT is set, else benchmarks/results/.
GPU_CHECK_ALLOW_CPU=1 runs it on CPU (how the script itself is tested without a GPU).
"""

import json
import os
import tempfile
import time
from pathlib import Path

import torch

from course_lib.experiment import Point, run_point
from course_lib.models import load_model
from course_lib.problems import problems
from course_lib.prompts import prompt_ids
from course_lib.provenance import atomic_write_text, git_commit, library_versions
from course_lib.sampling import release_engines, sample, vllm_available
from course_lib.standin import build_standin
from course_lib.sweep import expand

HUB_MODELS = ("Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen3-4B")  # measured only when already in the local cache
SHRUNK = {"POOL_SIZE": 32, "DIFFICULTY_K": 4, "MAX_NEW_TOKENS": 64, "EVAL_PROBLEMS": 16, "OOD_K": 4, "STEPS": 4,
          "PROMPTS_PER_STEP": 2, "MODEL_SIZE": "0.5B"}


def throughput(model_name: str, prompts, k: int = 8, max_new_tokens: int = 128) -> dict:
    """Completions per second of HF generate (and of vLLM when installed) on these problems."""
    model, tokenizer = load_model(model_name)
    ids = [prompt_ids(p, tokenizer) for p in prompts]
    torch.cuda.reset_peak_memory_stats() if torch.cuda.is_available() else None
    start = time.perf_counter()
    first = sample(model, tokenizer, ids, k=k, max_new_tokens=max_new_tokens, seed=0, batch_size=len(ids))
    seconds = time.perf_counter() - start
    again = sample(model, tokenizer, ids, k=k, max_new_tokens=max_new_tokens, seed=0, batch_size=len(ids))
    out = {"hf_completions_per_s": round(len(ids) * k / seconds, 1), "hf_same_call_same_completions": first == again}
    if torch.cuda.is_available():
        out["hf_peak_gpu_memory_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    del model
    if vllm_available():
        from course_lib.sampling import _sample_vllm

        start = time.perf_counter()
        first = _sample_vllm(model_name, ids, k, 1.0, max_new_tokens, 0)
        out["vllm_completions_per_s"] = round(len(ids) * k / (time.perf_counter() - start), 1)
        out["vllm_same_call_same_completions"] = first == _sample_vllm(model_name, ids, k, 1.0, max_new_tokens, 0)
        release_engines()
    return out


def cached_hub_models() -> list[str]:
    """The hub models of HUB_MODELS whose weights are already in the local Hugging Face cache."""
    from huggingface_hub import try_to_load_from_cache

    found = []
    for name in HUB_MODELS:
        for weights in ("model.safetensors", "model.safetensors.index.json"):
            if isinstance(try_to_load_from_cache(name, weights), str):
                found.append(name)
                break
    return found


def main():
    allow_cpu = os.environ.get("GPU_CHECK_ALLOW_CPU") == "1"
    assert torch.cuda.is_available() or allow_cpu, "no CUDA device: this check is for a machine with a GPU"
    numbers = {"device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu",
               "commit": git_commit(), "versions": library_versions(), "vllm": vllm_available(), "points": {}}
    data = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
    os.environ.setdefault("COURSE_DATA_DIR", str(data))
    with tempfile.TemporaryDirectory() as tmp:
        standin = Path(tmp) / "standin"
        build_standin(standin, corpus_path=Path(os.environ["COURSE_DATA_DIR"]) / "gsm8k" / "train.jsonl")
        for study, task in (("hard-wins", "gsm8k"), ("capacity-boundary", "math")):
            point = next(p for p in expand(study, "paper") if p["TASK"] == task)
            torch.cuda.reset_peak_memory_stats() if torch.cuda.is_available() else None
            start = time.perf_counter()
            record = run_point(Point.from_parameters({**point, **SHRUNK, "MODEL": str(standin),
                                                      "USE_VLLM": vllm_available(), "RUN_DIR": f"{tmp}/{study}"}))
            numbers["points"][study] = {
                "seconds": round(time.perf_counter() - start, 1), "steps": record["steps"],
                "peak_gpu_memory_mb": round(torch.cuda.max_memory_allocated() / 2**20, 1) if torch.cuda.is_available() else None}
        gsm8k = problems("gsm8k", "test", 64, 0)
        numbers["standin_sampling"] = throughput(str(standin), gsm8k, max_new_tokens=64)
    for name in cached_hub_models():
        numbers[f"{name}_sampling"] = throughput(name, gsm8k, max_new_tokens=250)
    folder = Path(os.environ["OUT"]) if os.environ.get("OUT") else Path(__file__).parent / "results"
    atomic_write_text(folder / "gpu_check.json", json.dumps(numbers, indent=1) + "\n")
    print(json.dumps(numbers, indent=1))


if __name__ == "__main__":
    main()
