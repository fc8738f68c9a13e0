"""CUDA path check on a machine with an accelerator: sample, train (GRPO + LoRA) and evaluate tiny-m on the GPU.

Run: bash benchmarks/gpu_check.sh   (needs no network and no vLLM; about a minute on one GPU)
Prints its numbers and writes them to $OUT/gpu_check.json when OUT is set, else benchmarks/results/.
"""

import json
import os
import tempfile
import time
from pathlib import Path

import torch

from course_lib.evaluation import evaluate
from course_lib.models import load_model
from course_lib.provenance import atomic_write_text, git_commit, library_versions
from course_lib.sampling import sample
from course_lib.tasks import generate
from course_lib.training import TrainConfig, load_trained, read_jsonl_log, train_grpo


def main():
    assert torch.cuda.is_available(), "no CUDA device: this check is for a machine with a GPU"
    numbers = {"device": torch.cuda.get_device_name(0), "commit": git_commit(), "versions": library_versions()}
    model, tokenizer = load_model("tiny-m")
    assert model.device.type == "cuda"
    prompts = [p.prompt for p in generate("arith", 256, "test", 0)]
    start = time.perf_counter()
    groups = sample(model, tokenizer, prompts, k=8, temperature=1.0, max_new_tokens=96, seed=0, batch_size=256)
    numbers["sampling_completions_per_s"] = round(len(prompts) * 8 / (time.perf_counter() - start), 1)
    numbers["same_seed_same_completions"] = groups[:4] == sample(model, tokenizer, prompts[:4], k=8, seed=0,
                                                                 max_new_tokens=96, batch_size=256)[:4]
    problems = generate("arith", 200, "train", 0)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        train_grpo("tiny-m", problems, TrainConfig(steps=20, save_steps=10), Path(tmp) / "run", progress=False)
        numbers["train_seconds_20_steps"] = round(time.perf_counter() - start, 1)
        metrics = read_jsonl_log(Path(tmp) / "run" / "metrics.jsonl")
        numbers["reward_first_last"] = [metrics[0]["reward"], metrics[-1]["reward"]]
        numbers["frac_reward_zero_std_mean"] = round(sum(m["frac_reward_zero_std"] for m in metrics) / len(metrics), 3)
        trained, tok = load_trained(str(Path(tmp) / "run"), device="cuda")
        test = generate("arith", 200, "test", 1)
        numbers["accuracy_after"] = evaluate(trained, tok, test, k=4, progress=False)["overall"]["accuracy"]
    numbers["accuracy_before"] = evaluate(model, tokenizer, test, k=4, progress=False)["overall"]["accuracy"]
    numbers["peak_gpu_memory_mb"] = round(torch.cuda.max_memory_allocated() / 2**20, 1)
    folder = Path(os.environ["OUT"]) if os.environ.get("OUT") else Path(__file__).parent / "results"
    atomic_write_text(folder / "gpu_check.json", json.dumps(numbers, indent=1) + "\n")
    print(json.dumps(numbers, indent=1))


if __name__ == "__main__":
    main()
