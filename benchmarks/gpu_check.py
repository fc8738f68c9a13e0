"""Device check of the paper path: measures what course_lib/research/cost.py assumes, on one GPU, in under 6 minutes.

Run: bash benchmarks/gpu_check.sh [--data-dir DIR]    (no download: random weights, the offline stand-in tokenizer)
1. Generation tokens/s (transformers generate, and vLLM when installed) of random-weight models with Qwen3-4B's
   and Qwen2.5-3B's shapes (vocabulary included), at the papers' settings: K=10 samples, 250 new tokens.
2. One GRPO step's seconds at each paper's settings: 2508.14094 (Qwen3-4B shape, LoRA r32, 1 prompt x 8) and
   2604.06298 (Qwen2.5-3B shape, LoRA r16, 12 prompts x 4, MATH's 3B batch), on transformers and, with vLLM,
   TRL's colocated engine (4B shape).
3. The out-of-memory split on real CUDA: a step that does not fit a capped share of the GPU is split and finishes.
4. Determinism: the same sampling call twice gives the same completions.
vLLM's measurements and the capped one run in their own process (their GPU memory is free for the next); one that
fails is recorded with its error and the rest go on; past the time budget the rest are skipped. The JSON (default
benchmarks/results/gpu_check.json) is what cost.py reads. `--smoke` runs tiny shapes on the CPU in about a minute
(how a test keeps this script working where no GPU is).
"""

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from course_lib.provenance import atomic_write_text, git_commit, library_versions  # noqa: E402
from course_lib.sampling import vllm_available  # noqa: E402
from course_lib.training.phases import in_phase  # noqa: E402

SHAPES = {  # the models' config.json values (no weights downloaded)
    "4B": {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 2560, "num_hidden_layers": 36,
           "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 9728,
           "vocab_size": 151936, "max_position_embeddings": 40960, "tie_word_embeddings": True, "rms_norm_eps": 1e-6},
    "3B": {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 2048, "num_hidden_layers": 36,
           "num_attention_heads": 16, "num_key_value_heads": 2, "intermediate_size": 11008, "vocab_size": 151936,
           "max_position_embeddings": 32768, "tie_word_embeddings": True, "rms_norm_eps": 1e-6},
}
SMOKE_SHAPE = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
               "head_dim": 16, "intermediate_size": 128, "vocab_size": 1024, "max_position_embeddings": 2048}
PAPER = {  # per shape: the paper whose settings it is measured at
    "4B": {"paper": "2508.14094", "lora_rank": 32, "lora_alpha": 32, "group_size": 8, "prompts_per_step": 1},
    "3B": {"paper": "2604.06298", "lora_rank": 16, "lora_alpha": 32, "group_size": 4, "prompts_per_step": 12},
}
BUDGET_S = 330  # start no measurement after this many seconds (the whole check stays under 6 minutes)


def settings(smoke: bool) -> dict:
    """Sizes of the measurements: the papers' on a GPU, a few tokens on the CPU (smoke)."""
    if smoke:
        return {"prompts": 4, "k": 2, "max_new_tokens": 8, "steps": 2}
    return {"prompts": 64, "k": 10, "max_new_tokens": 250, "steps": 2}


def random_model(folder: Path, shape: dict, tokenizer_folder: Path) -> Path:
    """A model folder with random bf16 weights of `shape` and the stand-in's tokenizer (ids it lacks decode to '')."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    config = AutoConfig.for_model(shape["model_type"], **{k: v for k, v in shape.items() if k != "model_type"},
                                  pad_token_id=0, eos_token_id=2, bos_token_id=None)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
    model.save_pretrained(folder)
    AutoTokenizer.from_pretrained(tokenizer_folder).save_pretrained(folder)
    del model
    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    return folder


def prompts(tokenizer_folder: Path, n: int) -> list[list[int]]:
    """n GSM8K test prompts as the course builds them (chat template, instruction), as token ids."""
    from course_lib.models import load_tokenizer
    from course_lib.problems import problems
    from course_lib.prompts import prompt_ids

    tokenizer = load_tokenizer(str(tokenizer_folder))
    return [prompt_ids(p, tokenizer) for p in problems("gsm8k", "test", n, 0)]


def hf_generation(folder: str, ids: list, k: int, max_new_tokens: int) -> dict:
    """transformers generate: output tokens/s of k samples per prompt (every completion runs to the limit)."""
    from course_lib.models import load_model
    from course_lib.sampling import left_pad

    model, tokenizer = load_model(folder)
    batch = left_pad(ids, tokenizer.pad_token_id, model.device)
    torch.manual_seed(0)
    start = time.perf_counter()
    output = model.generate(**batch, do_sample=True, temperature=1.0, top_k=0, top_p=1.0, num_return_sequences=k,
                            max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens, pad_token_id=0)
    seconds = time.perf_counter() - start
    tokens = (output.shape[1] - batch["input_ids"].shape[1]) * output.shape[0]
    return {"hf_tokens_per_s": round(tokens / seconds, 1), "hf_generation_s": round(seconds, 2)}


def vllm_generation(folder: str, ids: list, k: int, max_new_tokens: int) -> dict:
    """vLLM: output tokens/s of k samples per prompt, engine start-up apart; and the same call twice is the same."""
    from vllm import LLM, SamplingParams

    start = time.perf_counter()
    longest = max(len(i) for i in ids) + max_new_tokens
    engine = LLM(model=folder, seed=0, gpu_memory_utilization=0.85, max_model_len=longest, skip_tokenizer_init=True)
    startup = time.perf_counter() - start
    params = SamplingParams(n=k, temperature=1.0, max_tokens=max_new_tokens, seed=0, ignore_eos=True, detokenize=False)
    inputs = [{"prompt_token_ids": i} for i in ids]
    start = time.perf_counter()
    first = engine.generate(inputs, params, use_tqdm=False)
    seconds = time.perf_counter() - start
    tokens = sum(len(c.token_ids) for o in first for c in o.outputs)
    again = engine.generate(inputs, params, use_tqdm=False)
    same = [[c.token_ids for c in o.outputs] for o in first] == [[c.token_ids for c in o.outputs] for o in again]
    return {"vllm_tokens_per_s": round(tokens / seconds, 1), "vllm_engine_start_s": round(startup, 1),
            "vllm_same_seed_same_completions": same}


def training_step(folder: str, shape: str, use_vllm: bool, sizes: dict, memory_share: float = 0.0) -> dict:
    """Seconds of one GRPO step (the last of `steps`; the first warms up) at the paper's settings for this shape;
    with `memory_share`, the process may use only that share of the GPU (the out-of-memory split's test)."""
    import warnings

    from transformers import TrainerCallback

    from course_lib.problems import problems
    from course_lib.training import CourseConfig, course_lora, train_grpo

    paper = PAPER[shape]
    if memory_share and torch.cuda.is_available():
        torch.cuda.set_per_process_memory_fraction(memory_share)
    steps, times = [], []

    class StepTimer(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            times.append(time.perf_counter())

        def on_step_end(self, args, state, control, **kwargs):
            steps.append(time.perf_counter() - times[-1])

    prompts_per_step = paper["prompts_per_step"] if not memory_share else 8
    config = CourseConfig(num_generations=paper["group_size"], prompts_per_step=prompts_per_step,
                          max_steps=sizes["steps"], learning_rate=5e-6, max_completion_length=sizes["max_new_tokens"],
                          save_steps=sizes["steps"], use_vllm=use_vllm)
    lora = course_lora(lora_r=paper["lora_rank"], lora_alpha=paper["lora_alpha"])
    pool = problems("gsm8k", "train", max(16, prompts_per_step * sizes["steps"]), 0)
    with tempfile.TemporaryDirectory() as run, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.reset_peak_memory_stats() if torch.cuda.is_available() else None
        summary = train_grpo(folder, pool, config, run, peft_config=lora, progress=False, callbacks=[StepTimer()])
    splits = [str(w.message) for w in caught if "out of memory" in str(w.message)]
    out = {"step_s": round(steps[-1], 2), "steps": summary["steps"], "paper": paper["paper"],
           "completions_per_step": prompts_per_step * paper["group_size"]}
    if torch.cuda.is_available():
        out["peak_gpu_memory_gb"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    if memory_share:
        out.update(memory_share=memory_share, splits=splits)
    return out


def step_per_token(step: dict, sizes: dict) -> float:
    """Seconds per completion token of a step, beyond cost.py's fixed overhead (cost.py's step model)."""
    from course_lib.research.cost import TRAIN_OVERHEAD_S

    return round(max(step["step_s"] - TRAIN_OVERHEAD_S, 0.01) / sizes["max_new_tokens"], 5)


def hf_determinism(folder: str, ids: list) -> dict:
    """The course's sampler twice with one seed: the same completions."""
    from course_lib.models import load_model
    from course_lib.sampling import sample

    model, tokenizer = load_model(folder)
    first = sample(model, tokenizer, ids, k=4, max_new_tokens=32, seed=0, batch_size=len(ids))
    return {"hf_same_seed_same_completions": first == sample(model, tokenizer, ids, k=4, max_new_tokens=32, seed=0,
                                                             batch_size=len(ids))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("COURSE_DATA_DIR"),
                        help="local data laid out like ../shared/data (default: $COURSE_DATA_DIR, else ../shared/data)")
    parser.add_argument("--smoke", action="store_true", help="tiny shapes on the CPU: checks the script, measures nothing")
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON file (default: benchmarks/results/gpu_check.json; with --smoke, $TMPDIR)")
    args = parser.parse_args(argv)
    data_dir = Path(args.data_dir) if args.data_dir else ROOT.parent / "shared" / "data"
    if not (data_dir / "gsm8k" / "train.jsonl").exists():
        print(f"error: data_dir={data_dir} has no gsm8k/train.jsonl; pass --data-dir or set COURSE_DATA_DIR",
              file=sys.stderr)
        return 2
    if not (torch.cuda.is_available() or args.smoke):
        print("error: no CUDA device; this check is for a GPU machine (--smoke runs it on the CPU)", file=sys.stderr)
        return 2
    os.environ["COURSE_DATA_DIR"] = str(data_dir)
    out = args.out or (Path(tempfile.gettempdir()) / "gpu_check_smoke.json" if args.smoke
                       else ROOT / "benchmarks" / "results" / "gpu_check.json")
    sizes = settings(args.smoke)
    began = time.perf_counter()
    numbers = {"device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu", "smoke": args.smoke,
               "commit": git_commit(), "versions": library_versions(), "vllm": vllm_available(), "settings": sizes,
               "by_size": {}, "errors": {}, "skipped": []}

    def measure(name: str, into: dict, function, *arguments, isolated: bool = False) -> None:
        """One measurement; vLLM's and the capped-memory one in their own process (on a GPU), the rest in this one."""
        if time.perf_counter() - began > BUDGET_S:
            numbers["skipped"].append(name)
            return
        try:
            into.update(in_phase(function, *arguments, isolated=isolated and not args.smoke))
        except Exception as error:  # recorded; the other measurements go on
            numbers["errors"][name] = f"{type(error).__name__}: {error}"[:500]
            traceback.print_exc()
        finally:
            if torch.cuda.is_available():
                torch.cuda.empty_cache()  # what this process cached goes back before the next engine starts

    with tempfile.TemporaryDirectory() as tmp:
        from course_lib.models.standin import build_standin

        standin = Path(tmp) / "standin"
        build_standin(standin, corpus_path=data_dir / "gsm8k" / "train.jsonl")
        ids = prompts(standin, sizes["prompts"])
        folders = {}
        for shape in ("4B", "3B"):
            spec = {**SHAPES[shape], **(SMOKE_SHAPE if args.smoke else {})}
            folders[shape] = str(random_model(Path(tmp) / shape, spec, standin))
            numbers["by_size"][shape] = {"shape": spec}
        # cheapest and most needed first; vLLM's engines (a minute or more to start each) last, within the budget
        for shape, folder in folders.items():
            found = numbers["by_size"][shape]
            measure(f"{shape} hf generation", found, hf_generation, folder, ids, sizes["k"], sizes["max_new_tokens"])
            step = {}
            measure(f"{shape} hf training step", step, training_step, folder, shape, False, sizes)
            if step:
                found["hf_step"] = step
                found["hf_step_s_per_token"] = step_per_token(step, sizes)
        numbers["determinism"] = {}
        measure("determinism", numbers["determinism"], hf_determinism, folders["4B"], ids[:4])
        if torch.cuda.is_available():  # a 4B LoRA step of 8 prompts x 8 in 15% of the GPU: it must split
            numbers["oom_split"] = {}
            measure("oom split", numbers["oom_split"], training_step, folders["4B"], "4B", False, sizes, 0.15,
                    isolated=True)
        if vllm_available():
            for shape, folder in folders.items():
                measure(f"{shape} vllm generation", numbers["by_size"][shape], vllm_generation, folder, ids,
                        sizes["k"], sizes["max_new_tokens"], isolated=True)
            step = {}
            measure("4B vllm colocated training step", step, training_step, folders["4B"], "4B", True, sizes,
                    isolated=True)
            if step:
                numbers["by_size"]["4B"].update(vllm_step=step, vllm_step_s_per_token=step_per_token(step, sizes))
    numbers["seconds"] = round(time.perf_counter() - began, 1)
    atomic_write_text(out, json.dumps(numbers, indent=1) + "\n")
    print(json.dumps(numbers, indent=1))
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
