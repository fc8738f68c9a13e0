"""train_grpo for the fake-vLLM tests: records what TRL's colocated vLLM would get, then trains on transformers
(the fake cannot stand in for TRL's in-process engine)."""

import json
import os
from dataclasses import replace
from pathlib import Path


def train_recording_colocation(model_name, problems, config, out, peft_config="course", progress=True, callbacks=()):
    import importlib
    import sys

    # TRL imports vLLM's internals when it finds a package called vllm: hide the fake from this (child) process
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [entry for entry in sys.path if str(Path(entry or ".").resolve()) != here]
    sys.modules.pop("vllm", None)
    importlib.invalidate_caches()
    from course_lib.training import longest_prompt, run_args, train_grpo

    args = run_args(config, Path(out), progress, longest_prompt(problems, model_name))
    with open(os.environ["FAKE_VLLM_LOG"], "a") as log:
        log.write(json.dumps({"pid": os.getpid(), "phase": "train", "use_vllm": args.use_vllm,
                              "vllm_mode": args.vllm_mode, "vllm_max_model_length": args.vllm_max_model_length}) + "\n")
    return train_grpo(model_name, problems, replace(config, use_vllm=False), out, peft_config, progress, callbacks)
