"""The GPU path without a GPU: vLLM's API through a CPU fake (tests/fake_vllm), engines that cannot collide,
greedy sampling, the papers' settings from the CLI, runs that cannot take a step, the out-of-memory split.

What needs a real GPU (throughput, CUDA memory) is measured by benchmarks/gpu_check.py instead.
"""

import json
import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest
import torch

import course_lib.sampling as sampling
from course_lib import CourseError
from course_lib.models import resolve_model_path
from course_lib.research.experiment import RECORD_COLUMNS, Point, resolve, run_point
from course_lib.research.sweep import expand
from course_lib.sampling import check_free_gpu_memory, resolve_backend, sample
from course_lib.training import CourseConfig, run_args, train_grpo
from course_lib.training.phases import in_phase

FAKE_VLLM = Path(__file__).resolve().parent / "fake_vllm"
SHRUNK = {"POOL_SIZE": 24, "DIFFICULTY_K": 2, "MAX_NEW_TOKENS": 12, "EVAL_PROBLEMS": 3, "OOD_K": 2, "STEPS": 1,
          "PROMPTS_PER_STEP": 2, "MODEL_SIZE": "0.5B"}


@pytest.fixture
def fake_vllm(monkeypatch, tmp_path):
    """vLLM 'installed' on a machine with a 'GPU': the fake package on sys.path (spawned children inherit it)."""
    monkeypatch.syspath_prepend(str(FAKE_VLLM))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(FAKE_VLLM), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("FAKE_VLLM_LOG", str(tmp_path / "engines.jsonl"))
    monkeypatch.setattr(sampling, "vllm_available", lambda: True)
    sys.modules.pop("vllm", None)
    yield tmp_path / "engines.jsonl"
    sampling.release_engines()
    sys.modules.pop("vllm", None)


def engine_log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# --- backends ---------------------------------------------------------------------------------------------------


def test_auto_is_hf_without_vllm_and_vllm_is_refused_in_one_line():
    assert resolve_backend("auto") == "hf" and resolve_backend("hf") == "hf"
    with pytest.raises(CourseError, match=r"backend='vllm' cannot run here: vLLM is not installed"):
        resolve_backend("vllm")
    with pytest.raises(CourseError, match="backend='cuda' is unknown; use hf, vllm or auto"):
        resolve_backend("cuda")


def test_auto_is_vllm_where_vllm_and_a_gpu_are(fake_vllm):
    assert resolve_backend("auto") == "vllm"
    paper = resolve(Point.from_parameters(expand("hard-wins", "paper")[0]))
    assert paper.backend == "vllm"  # the paper profile's backend is auto
    assert resolve(Point(profile="tiny")).backend == "hf"  # the tiny world stays on transformers (speed, determinism)
    assert resolve(Point(profile="paper", backend="hf")).backend == "hf"  # a grid or --backend can force either


@pytest.mark.parametrize("command", ["estimate", "evaluate"])
def test_cli_backend_vllm_is_refused_where_it_cannot_run(command, tmp_path):
    done = subprocess.run([sys.executable, "-m", "course_lib", command, "--model", "tiny-s", "--n", "2",
                           "--backend", "vllm", "--out", str(tmp_path / "x.json")], capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "backend='vllm' cannot run here" in done.stderr and not (tmp_path / "x.json").exists()


def test_evaluate_backend_vllm_is_honoured(fake_vllm, tmp_path, capsys):
    from course_lib.__main__ import main

    out = tmp_path / "eval.json"
    assert main(["evaluate", "--model", "tiny-s", "--n", "3", "--k", "2", "--max-new-tokens", "8", "--backend", "vllm",
                 "--quiet", "--no-cache", "--out", str(out)]) == 0
    # the engine generated, not transformers, from the course's own folder (vLLM would look "tiny-s" up on the hub)
    assert [row["model"] for row in engine_log(fake_vllm)] == [str(resolve_model_path("tiny-s"))]
    assert json.loads(out.read_text())["overall"]["problems"] == 3


def test_greedy_asks_vllm_for_one_completion_and_repeats_it(fake_vllm):
    texts = sample("tiny-s", None, [[1, 2, 3], [4, 5]], k=3, temperature=0, max_new_tokens=4, backend="vllm")
    assert len(texts) == 2 and all(len(row) == 3 and len(set(row)) == 1 for row in texts)
    from vllm import SamplingParams  # the fake says what vLLM says to n > 1 when greedy

    with pytest.raises(ValueError, match="n must be 1 when using greedy sampling"):
        SamplingParams(n=3, temperature=0)


def test_an_engine_is_sized_for_prompt_plus_completion_not_the_models_window(fake_vllm):
    sample("tiny-s", None, [[1] * 30], k=2, max_new_tokens=8, backend="vllm")
    sample("tiny-s", None, [[1] * 1500], k=2, max_new_tokens=8, backend="vllm")  # longer: a longer engine
    sample("tiny-s", None, [[1] * 40], k=2, max_new_tokens=8, backend="vllm")  # fits: the same engine
    assert [row["max_model_len"] for row in engine_log(fake_vllm)] == [1024, 2048]


def test_an_engine_does_not_start_without_its_share_of_free_gpu_memory(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda: (30 * 2**30, 141 * 2**30))  # 30 of 141 GiB free
    with pytest.raises(CourseError, match=r"needs 85% of the GPU \(119.8 GiB\) but only 30.0 of 141.0 GiB are free"):
        check_free_gpu_memory(0.85, "a vLLM engine for Qwen/Qwen3-4B")
    check_free_gpu_memory(0.2, "an engine")  # 28 GiB: fits


def test_trl_colocated_vllm_gets_prompt_plus_completion_as_its_context(tmp_path):
    args = run_args(CourseConfig(use_vllm=True, max_completion_length=250), tmp_path, longest_prompt=180)
    assert (args.use_vllm, args.vllm_mode, args.vllm_max_model_length) == (True, "colocate", 430)


def child_pid() -> int:
    return os.getpid()


def test_a_phase_in_its_own_process_returns_its_result_and_raises_its_error():
    assert in_phase(child_pid, isolated=True) != os.getpid() and in_phase(child_pid) == os.getpid()
    with pytest.raises(CourseError, match="out of range"):
        in_phase(resolve_backend, "out of range", isolated=True)  # the child's own error, raised in the parent


@pytest.mark.slow
def test_a_vllm_grid_point_runs_each_phase_in_its_own_process(fake_vllm, standin_model, shared_data, monkeypatch,
                                                                tmp_path):
    """Estimation, training and both evaluations each in a fresh process (their GPU memory is free when the next
    starts); the engines sized by the settings; TRL told to colocate vLLM with a context of prompt + completion."""
    import colocated

    import course_lib.training

    monkeypatch.setenv("COURSE_DATA_DIR", str(shared_data))
    monkeypatch.setattr(course_lib.training, "train_grpo", colocated.train_recording_colocation)
    point = next(p for p in expand("hard-wins", "paper") if p["TASK"] == "gsm8k")
    record = run_point(Point.from_parameters({**point, **SHRUNK, "MODEL": str(standin_model),
                                              "RUN_DIR": str(tmp_path / "run")}))
    assert set(record) == set(RECORD_COLUMNS) and record["backend"] == "vllm"
    log = engine_log(fake_vllm)
    engines = [row for row in log if "model" in row]
    train = [row for row in log if row.get("phase") == "train"]
    assert [Path(row["model"]).name for row in engines] == ["qwen3-standin", "qwen3-standin", "merged"]
    assert train and train[0]["use_vllm"] and train[0]["vllm_mode"] == "colocate"
    assert 12 < train[0]["vllm_max_model_length"] < 1024  # longest prompt + 12 tokens, not the model's window
    pids = [row["pid"] for row in engines + train]
    assert len(set(pids)) == 4 and os.getpid() not in pids  # four phases, four processes, none of them this one


# --- the papers' settings from the CLI, and runs that cannot take a step ------------------------------------------


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "course_lib", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def math_ids(standin_model, shared_data, tmp_path_factory):
    """A MATH pool's table and 24 selected ids (through the CLI, with provenance), for the 2604.06298 tests."""
    folder = tmp_path_factory.mktemp("math")
    table, ids = folder / "table.csv", folder / "ids.txt"
    done = run_cli("estimate", "--model", str(standin_model), "--task", "math", "--data-dir", str(shared_data), "--n",
                   "24", "--k", "2", "--max-new-tokens", "4", "--allow-zero", "--quiet", "--no-cache", "--out", str(table))
    assert done.returncode == 0, done.stderr
    done = run_cli("select", "--table", str(table), "--strategy", "random", "--budget", "24", "--out", str(ids))
    assert done.returncode == 0, done.stderr
    return ids


@pytest.mark.slow
def test_train_settings_2604_06298_applies_the_grids_values_inferring_dataset_and_size(math_ids, standin_model,
                                                                                       tmp_path):
    out = tmp_path / "run"
    done = run_cli("train", "--model", str(standin_model), "--ids", str(math_ids), "--settings", "2604.06298",
                   "--quiet", "--out", str(out))
    assert done.returncode == 2 and "names no size like 1.5B in 'qwen3-standin'; set --model-size" in done.stderr  # the stand-in's name
    done = run_cli("train", "--model", str(standin_model), "--ids", str(math_ids), "--settings", "2604.06298",
                   "--model-size", "0.5B", "--max-new-tokens", "4", "--quiet", "--out", str(out))
    # dataset math (from the pool's provenance), 0.5B: 20 prompts per step, 1.3 passes over 24 problems = 2 steps
    assert done.returncode == 0, done.stderr
    config = json.loads((out / "run_config.json").read_text())["config"]
    grid = resolve(Point(profile="paper", task="math", train_settings="2604.06298", model_size="0.5B"))
    from course_lib.research.experiment import train_config, train_lora
    from course_lib.training import run_record

    expected = run_record(train_config(grid, n_selected=24), train_lora(grid))
    for field in ("prompts_per_step", "num_generations", "learning_rate", "peft_config", "lr_scheduler_type",
                  "max_steps", "warmup_steps", "weight_decay"):
        assert config[field] == expected[field], field  # the CLI and the grid agree on every value
    assert config["prompts_per_step"] == 20 and config["max_steps"] == 2 and expected["max_completion_length"] == 250


def test_a_pool_without_a_2604_06298_batch_size_names_the_flag(tmp_path):
    done = run_cli("train", "--model", "Qwen/Qwen2.5-0.5B-Instruct", "--task", "arith", "--n", "30",
                   "--settings", "2604.06298", "--out", str(tmp_path / "run"))
    assert done.returncode == 2 and "task='arith' has no batch size in arXiv 2604.06298" in done.stderr
    assert "set --paper-dataset math or gsm8k" in done.stderr


def test_a_run_that_cannot_take_one_step_fails_before_training_with_the_sizes_that_work(tmp_path):
    done = run_cli("train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--prompts-per-step", "20",
                   "--group-size", "4", "--out", str(tmp_path / "run"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "8 problems cannot fill one step of prompts_per_step=20" in done.stderr
    assert "use prompts_per_step=8 or fewer" in done.stderr and "at least 20 problems" in done.stderr
    assert not (tmp_path / "run" / "final").exists() and "trained" not in done.stdout


# --- memory -------------------------------------------------------------------------------------------------------


def test_out_of_memory_split_releases_the_failed_trainer_before_retrying(tmp_path, problems, monkeypatch):
    """When the split frees memory (gc, then the CUDA cache), nothing may still hold the failed attempt's model:
    inside the `except` block its traceback would, and the freed cache would not include it."""
    from transformers import TrainerCallback

    import course_lib.training

    class OutOfMemoryOnce(TrainerCallback):
        failed_model = None

        def on_step_begin(self, args, state, control, model=None, **kwargs):
            if self.failed_model is None:
                self.failed_model = weakref.ref(model)
                raise torch.OutOfMemoryError("CUDA out of memory (simulated)")

    callback, alive_when_freed = OutOfMemoryOnce(), []
    original = course_lib.training._smaller_micro_batches

    def split(config):
        smaller = original(config)  # collects garbage and empties the CUDA cache
        alive_when_freed.append(callback.failed_model() is not None)
        return smaller

    monkeypatch.setattr(course_lib.training, "_smaller_micro_batches", split)
    with pytest.warns(UserWarning, match="resuming with micro_batch_prompts=1"):
        summary = train_grpo("tiny-s", problems, CourseConfig(num_generations=2, prompts_per_step=2, max_steps=1,
                                                              max_completion_length=8), tmp_path / "run",
                             progress=False, callbacks=[callback])
    assert summary["steps"] == 1 and alive_when_freed == [False]


@pytest.fixture(scope="module")
def gsm8k_ids(standin_model, shared_data, tmp_path_factory):
    """A GSM8K pool's ids (through the CLI, with provenance), for the multi-GPU examples."""
    folder = tmp_path_factory.mktemp("gsm8k")
    table, ids = folder / "table.csv", folder / "ids.txt"
    done = run_cli("estimate", "--model", str(standin_model), "--task", "gsm8k", "--data-dir", str(shared_data),
                   "--n", "12", "--k", "2", "--max-new-tokens", "4", "--allow-zero", "--quiet", "--no-cache",
                   "--out", str(table))
    assert done.returncode == 0, done.stderr
    done = run_cli("select", "--table", str(table), "--strategy", "hard", "--budget", "8", "--out", str(ids))
    assert done.returncode == 0, done.stderr
    return ids


# what torch.distributed prints when two launches' ports or stores collide on a loaded machine (not our code's bug)
_STARTUP_CLASHES = ("address already in use", "eaddrinuse", "distnetworkerror", "diststoreerror",
                    "connection reset by peer", "connection refused", "socket timeout")


@pytest.mark.slow
def test_the_docs_multi_gpu_examples_run_as_written_on_two_cpu_processes(standin_model, gsm8k_ids, math_ids,
                                                                           tmp_path):
    """docs/gpu_and_clusters.md's `accelerate launch` lines, with the two-CPU-process config for the GPU one, the
    stand-in under the hub models' names, and one step of 8 tokens."""
    import shlex
    import socket

    root = Path(__file__).resolve().parent.parent
    doc = (root / "docs" / "gpu_and_clusters.md").read_text()
    commands = [line for line in doc.splitlines() if line.startswith("accelerate launch")]
    assert len(commands) == 2
    for name in ("Qwen3-4B", "Qwen2.5-3B-Instruct"):  # the stand-in under each hub name (its size is in the name)
        (tmp_path / "Qwen").mkdir(exist_ok=True)
        (tmp_path / "Qwen" / name).symlink_to(standin_model, target_is_directory=True)
    files = {"ids.txt": str(gsm8k_ids), "math-ids.txt": str(math_ids),
             "configs/accelerate_multi_gpu.yaml": str(root / "configs" / "accelerate_cpu_2proc.yaml")}
    for command in commands:
        args = shlex.split(command)[2:]  # after `accelerate launch`
        args = [files.get(a, str(tmp_path / a) if a.startswith(("Qwen/", "runs/")) else a) for a in args]
        for _ in range(3):  # a startup clash (a free port taken before the launch binds it) is retried, not a bug
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port = str(sock.getsockname()[1])
            done = subprocess.run([sys.executable, "-m", "accelerate.commands.launch", "--main_process_port", port,
                                   *args, "--steps", "1", "--max-new-tokens", "8", "--quiet"], cwd=root,
                                  capture_output=True, text=True, timeout=600,
                                  env={**os.environ, "PYTHONPATH": str(root), "OMP_NUM_THREADS": "1"})
            if done.returncode == 0 or not any(sign in done.stderr.lower() for sign in _STARTUP_CLASHES):
                break
            print(f"retried after a startup clash:\n{done.stderr[-4000:]}")  # shown with a failure's report
        if done.returncode != 0:
            pytest.fail(f"{command}\nexit {done.returncode}; its stderr's end:\n{done.stderr[-8000:]}")
        run = Path(args[args.index("--out") + 1])
        assert json.loads((run / "summary.json").read_text())["processes"] == 2
        config = json.loads((run / "run_config.json").read_text())["config"]
        assert config["prompts_per_step"] in (2, 12)  # 2508.14094 at 2 prompts; 2604.06298's MATH 3B batch of 12


def test_train_backend_auto_keeps_tiny_models_on_transformers_and_flags_must_agree(fake_vllm):
    from argparse import Namespace

    from course_lib.__main__ import _train_backend

    assert _train_backend(Namespace(backend="auto", model="tiny-s"), None) == "hf"
    assert _train_backend(Namespace(backend="auto", model="Qwen/Qwen3-4B"), None) == "vllm"
    assert _train_backend(Namespace(backend="auto", model="Qwen/Qwen3-4B"), False) == "hf"  # --no-use-vllm decides
    with pytest.raises(CourseError, match="--no-use-vllm contradicts --backend vllm; give one of them"):
        _train_backend(Namespace(backend="vllm", model="Qwen/Qwen3-4B"), False)


def test_train_backend_vllm_is_refused_in_one_line_where_it_cannot_run(tmp_path):
    done = run_cli("train", "--model", "tiny-s", "--task", "arith", "--n", "8", "--backend", "vllm",
                   "--out", str(tmp_path / "run"))
    assert done.returncode == 2 and "backend='vllm' cannot run here" in done.stderr and not (tmp_path / "run").exists()
