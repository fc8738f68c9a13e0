"""A stand-in for vLLM's offline API (LLM, SamplingParams) on CPU, for tests: generation by transformers.

It keeps what the course relies on from vLLM 0.x: `LLM(model=, seed=, gpu_memory_utilization=, max_model_len=)`,
`SamplingParams(n=, temperature=, max_tokens=, seed=, stop_token_ids=)` refusing n > 1 when greedy, and
`LLM.generate(prompts, params, use_tqdm=)` returning objects whose `.outputs[i].text` are the completions.
Each engine start is appended to $FAKE_VLLM_LOG (process id, model, max_model_len, memory share).
"""

import json
import os
from types import SimpleNamespace


class SamplingParams:
    def __init__(self, n=1, temperature=1.0, max_tokens=16, seed=None, stop_token_ids=None, **_):
        if temperature == 0 and n > 1:  # what vLLM says
            raise ValueError(f"n must be 1 when using greedy sampling, got {n}.")
        self.n, self.temperature, self.max_tokens, self.seed = n, temperature, max_tokens, seed
        self.stop_token_ids = stop_token_ids


class LLM:
    def __init__(self, model, seed=0, gpu_memory_utilization=0.9, max_model_len=None, **_):
        from course_lib.models import load_model

        self.model, self.tokenizer = load_model(model)
        self.tokenizer.padding_side = "left"
        self.max_model_len = max_model_len
        if os.environ.get("FAKE_VLLM_LOG"):
            with open(os.environ["FAKE_VLLM_LOG"], "a") as log:
                log.write(json.dumps({"pid": os.getpid(), "model": model, "max_model_len": max_model_len,
                                      "gpu_memory_utilization": gpu_memory_utilization}) + "\n")

    def generate(self, prompts, params, use_tqdm=True):
        from course_lib.sampling import sample_chunk

        ids = [self.tokenizer(p, add_special_tokens=False)["input_ids"] if isinstance(p, str) else p["prompt_token_ids"]
               for p in prompts]
        longest = max(len(i) for i in ids) + params.max_tokens
        if self.max_model_len and longest > self.max_model_len:  # vLLM refuses a request longer than its context
            raise ValueError(f"prompt + max_tokens = {longest} exceeds max_model_len={self.max_model_len}")
        texts = sample_chunk(self.model, self.tokenizer, ids, params.n, params.temperature, params.max_tokens,
                             params.seed or 0)
        return [SimpleNamespace(outputs=[SimpleNamespace(text=t) for t in row]) for row in texts]
