"""SmolLM2-135M-Instruct on the CPU: batched sampling vs one prompt per call, and seconds per GRPO step (LoRA).

Run: python benchmarks/bench_smollm2.py sampling [--prompts 8] [--k 4] [--max-new-tokens 48]
     python benchmarks/bench_smollm2.py training [--steps 3]
Writes benchmarks/results/smollm2_PART.json with the load average: on a shared machine the absolute numbers
say how busy it was as much as how fast the model is; the ratio of the two samplers is the stabler number.
Measured, never asserted in tests.
"""

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import torch

from course_lib.models import load_model
from course_lib.problems import problems
from course_lib.prompts import prompt_ids
from course_lib.provenance import atomic_write_text, git_commit, library_versions
from course_lib.sampling import sample_chunk
from course_lib.tasks import generate
from course_lib.training import CourseConfig, train_grpo

MODEL = "smollm2-135m"


def word_problems(n: int, split: str, tmp: Path) -> list:
    """`n` one-step arith problems asked as questions ("What is 34-7?"), graded by GSM8K's rules."""
    rows = [{"question": f"What is {p.prompt.strip().removeprefix('Q:')}?", "answer": p.answer, "level": 1,
             "source": "gsm8k"} for p in generate("arith", n, split, 0, (1,))]
    path = tmp / f"words-{split}.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return problems(f"jsonl:{path}", "all")


def generated_tokens(tokenizer, groups) -> int:
    """Tokens in the completions (what the model generated)."""
    return sum(len(tokenizer(text, add_special_tokens=False)["input_ids"]) for group in groups for text in group)


def bench_sampling(args, tmp: Path) -> dict:
    """The course's batched sampler (all prompts x K in one generate call) vs one generate call per prompt."""
    model, tokenizer = load_model(MODEL)
    ids = [prompt_ids(p, tokenizer) for p in word_problems(args.prompts, "test", tmp)]
    timings = {}
    for name, batches in (("one_prompt_per_call", [[i] for i in ids]), ("batched", [ids])):
        start, groups = time.perf_counter(), []
        for batch in batches:
            groups += sample_chunk(model, tokenizer, batch, args.k, 1.0, args.max_new_tokens, seed=0)
        seconds = time.perf_counter() - start
        tokens = generated_tokens(tokenizer, groups)
        timings[name] = {"seconds": round(seconds, 1), "tokens": tokens, "tokens_per_s": round(tokens / seconds, 1),
                         "completions_per_s": round(len(ids) * args.k / seconds, 2)}
    return {"prompts": args.prompts, "k": args.k, "max_new_tokens": args.max_new_tokens, **timings,
            "speedup": round(timings["one_prompt_per_call"]["seconds"] / timings["batched"]["seconds"], 2)}


def bench_training(args, tmp: Path) -> dict:
    """Seconds per GRPO step: LoRA, 2 prompts x G=4, 48 tokens (data/results/smollm2-grpo ran 1 prompt, 40 tokens)."""
    config = CourseConfig(num_generations=4, prompts_per_step=2, max_steps=args.steps, max_completion_length=48,
                          learning_rate=5e-4, format_weight=0.5, save_steps=args.steps)
    summary = train_grpo(MODEL, word_problems(16, "train", tmp), config, tmp / "run", progress=False)
    return {"steps": summary["steps"], "seconds": summary["seconds"],
            "seconds_per_step": round(summary["seconds"] / summary["steps"], 1),
            "completions_per_step": config.completions_per_step, "max_completion_length": 48}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("sampling", "training"))
    parser.add_argument("--prompts", type=int, default=8)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        measured = (bench_sampling if args.part == "sampling" else bench_training)(args, Path(tmp))
    result = {"model": MODEL, **measured, "threads": torch.get_num_threads(), "cores": os.cpu_count(),
              "load_average_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
              "commit": git_commit(), "versions": library_versions()}
    out = Path(__file__).parent / "results" / f"smollm2_{args.part}.json"
    atomic_write_text(out, json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
