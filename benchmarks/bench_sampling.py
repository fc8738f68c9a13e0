"""Sampler throughput: the batched sampler vs one-prompt-at-a-time `generate`, and vs one batched `generate` call.

Run: python benchmarks/bench_sampling.py [--model tiny-m] [--prompts 64] [--k 8] [--threads 1] [--write]
Prints its numbers; with --write also records them in benchmarks/results/sampling.json. --smoke runs a few
prompts of tiny-s in seconds (what tests/test_benchmarks.py runs; its numbers mean nothing). Measured, never
asserted in tests.

The three ways run in turn, `--repeats` times, in one process under the same load; each is timed in CPU seconds
(user + system of this process, which other jobs on a shared machine change far less than wall time) and in wall
seconds, and the least of the repeats is kept. On a busy machine use --threads 1: a second torch thread that waits
for a core spins, and its spinning counts as CPU time. "One batched generate" is `transformers`' own `generate` on the
same batch, which is what the sampler called before it had its own loop (course_lib.sampling.generate_ids).
"""

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path

import torch

from course_lib.models import load_model
from course_lib.provenance import atomic_write_text, git_commit, library_versions
from course_lib.sampling import left_pad, sample, stop_token_ids
from course_lib.tasks import generate


def one_at_a_time(model, tokenizer, prompts, k, max_new_tokens):
    """The naive baseline: one generate call per prompt (still k samples per call)."""
    for prompt in prompts:
        encoded = tokenizer([prompt], return_tensors="pt", add_special_tokens=False)
        model.generate(**encoded, do_sample=True, temperature=1.0, top_k=0, num_return_sequences=k,
                       max_new_tokens=max_new_tokens, pad_token_id=tokenizer.pad_token_id,
                       eos_token_id=tokenizer.eos_token_id)


def one_batched_generate(model, tokenizer, prompts, k, max_new_tokens):
    """All prompts in one `generate` call, left-padded: the sampler's previous implementation."""
    encoded = left_pad(tokenizer(prompts, add_special_tokens=False)["input_ids"], tokenizer.pad_token_id, model.device)
    torch.manual_seed(0)
    model.generate(**encoded, do_sample=True, temperature=1.0, top_k=0, top_p=1.0, num_return_sequences=k,
                   max_new_tokens=max_new_tokens, pad_token_id=tokenizer.pad_token_id,
                   eos_token_id=stop_token_ids(model, tokenizer))


def timed(work) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one call of `work`."""
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny-m")
    parser.add_argument("--prompts", type=int, default=64)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=3, help="runs of each way; the least time is kept")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--smoke", action="store_true", help="tiny-s, 4 prompts, k=2, 8 tokens: checks it runs")
    parser.add_argument("--write", action="store_true", help="record the result in benchmarks/results/sampling.json")
    args = parser.parse_args()
    if args.smoke:
        args.model, args.prompts, args.k, args.max_new_tokens, args.repeats = "tiny-s", 4, 2, 8, 1
    if args.threads:
        torch.set_num_threads(args.threads)
    model, tokenizer = load_model(args.model)
    prompts = [p.prompt for p in generate("arith", args.prompts, "test", 0)]
    ways = {"batched": lambda: sample(model, tokenizer, prompts, args.k, 1.0, args.max_new_tokens, seed=0,
                                      batch_size=64),
            "one_batched_generate": lambda: one_batched_generate(model, tokenizer, prompts, args.k, args.max_new_tokens),
            "one_prompt_per_call": lambda: one_at_a_time(model, tokenizer, prompts, args.k, args.max_new_tokens)}
    load_before = os.getloadavg()[0]
    times = {name: [] for name in ways}
    with torch.no_grad():
        for _ in range(args.repeats):
            for name, work in ways.items():
                times[name].append(timed(work))
    cpu = {name: min(t[0] for t in runs) for name, runs in times.items()}
    wall = {name: min(t[1] for t in runs) for name, runs in times.items()}
    completions = args.prompts * args.k
    result = {"command": shlex.join(["python", "benchmarks/bench_sampling.py", *sys.argv[1:]]), "model": args.model, "prompts": args.prompts, "k": args.k, "max_new_tokens": args.max_new_tokens,
              "measured_by": f"CPU seconds (user + system), least of {args.repeats} runs each, the three ways in turn",
              **{f"{name}_completions_per_cpu_s": round(completions / cpu[name], 1) for name in ways},
              "speedup": round(cpu["one_prompt_per_call"] / cpu["batched"], 2),
              "speedup_of_one_batched_generate": round(cpu["one_prompt_per_call"] / cpu["one_batched_generate"], 2),
              "cpu_seconds": {name: round(seconds, 3) for name, seconds in cpu.items()},
              "wall_seconds": {name: round(seconds, 3) for name, seconds in wall.items()},
              "wall_speedup": round(wall["one_prompt_per_call"] / wall["batched"], 2),
              "threads": torch.get_num_threads(), "device": str(model.device),
              "load_average_1min_before_after": [round(load_before, 1), round(os.getloadavg()[0], 1)],
              "commit": git_commit(), "versions": library_versions()}
    print(json.dumps(result, indent=1))
    if args.write:
        atomic_write_text(Path(__file__).parent / "results" / "sampling.json", json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
