"""Sampler throughput: the batched sampler vs one-prompt-at-a-time `generate` (completions per second).

Run: python benchmarks/bench_sampling.py [--model tiny-m] [--prompts 64] [--k 8] [--write]
Prints its numbers; with --write also records them in benchmarks/results/sampling.json. --smoke runs a few
prompts of tiny-s in seconds (what tests/test_benchmarks.py runs; its numbers mean nothing). Measured, never
asserted in tests.
"""

import argparse
import json
import os
import time
from pathlib import Path

import torch

from course_lib.models import load_model
from course_lib.provenance import atomic_write_text, git_commit, library_versions
from course_lib.sampling import sample
from course_lib.tasks import generate


def one_at_a_time(model, tokenizer, prompts, k, max_new_tokens):
    """The naive baseline: one generate call per prompt (still k samples per call)."""
    for prompt in prompts:
        encoded = tokenizer([prompt], return_tensors="pt", add_special_tokens=False)
        model.generate(**encoded, do_sample=True, temperature=1.0, top_k=0, num_return_sequences=k,
                       max_new_tokens=max_new_tokens, pad_token_id=tokenizer.pad_token_id,
                       eos_token_id=tokenizer.eos_token_id)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny-m")
    parser.add_argument("--prompts", type=int, default=64)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=96)
    parser.add_argument("--smoke", action="store_true", help="tiny-s, 4 prompts, k=2, 8 tokens: checks it runs")
    parser.add_argument("--write", action="store_true", help="record the result in benchmarks/results/sampling.json")
    args = parser.parse_args()
    if args.smoke:
        args.model, args.prompts, args.k, args.max_new_tokens = "tiny-s", 4, 2, 8
    model, tokenizer = load_model(args.model)
    prompts = [p.prompt for p in generate("arith", args.prompts, "test", 0)]
    torch.manual_seed(0)
    start = time.perf_counter()
    sample(model, tokenizer, prompts, args.k, 1.0, args.max_new_tokens, seed=0, batch_size=64)
    batched = time.perf_counter() - start
    start = time.perf_counter()
    with torch.no_grad():
        one_at_a_time(model, tokenizer, prompts, args.k, args.max_new_tokens)
    naive = time.perf_counter() - start
    completions = args.prompts * args.k
    result = {"model": args.model, "prompts": args.prompts, "k": args.k, "max_new_tokens": args.max_new_tokens,
              "batched_completions_per_s": round(completions / batched, 1),
              "one_prompt_per_call_completions_per_s": round(completions / naive, 1),
              "speedup": round(naive / batched, 2), "threads": torch.get_num_threads(),
              "device": str(model.device), "load_average_1min_at_end": round(os.getloadavg()[0], 1),
              "commit": git_commit(), "versions": library_versions()}
    print(json.dumps(result, indent=1))
    if args.write:
        atomic_write_text(Path(__file__).parent / "results" / "sampling.json", json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
