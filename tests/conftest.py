"""Shared fixtures: the real data in ../shared/data and the committed tiny models."""

import atexit
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

# hermetic tests: difficulty caches (also those of notebook kernels, which inherit this) go to a fresh folder
os.environ["COURSE_CACHE_DIR"] = tempfile.mkdtemp(prefix="course-cache-")
atexit.register(shutil.rmtree, os.environ["COURSE_CACHE_DIR"], ignore_errors=True)  # one per pytest run (mutmut: thousands)

if os.environ.get("PYTEST_XDIST_WORKER"):
    # `make test` runs two workers on the cores: one torch thread each, for them and for the Python processes and
    # kernels they start (a thread waiting for a core the other worker holds spins: course_lib.classroom.runtime.thread_count)
    os.environ["OMP_NUM_THREADS"] = os.environ.get("OMP_NUM_THREADS") or "1"
    import torch

    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))

ROOT = Path(__file__).resolve().parent.parent
# the CPU fake of vLLM (tests/test_gpu_path.py puts it on sys.path per test): never imported by collection, where
# `--doctest-modules` would import it for the whole session and make every TRL trainer believe vLLM is installed
collect_ignore = ["fake_vllm"]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real GSM8K/MATH/BBH/AIME copies beside the project (never committed into it)."""
    assert SHARED_DATA.is_dir(), f"expected the shared real data at {SHARED_DATA}"
    return SHARED_DATA


@pytest.fixture(scope="session")
def standin_model(shared_data, tmp_path_factory) -> Path:
    """The offline Qwen3 stand-in, built once from the shared GSM8K training questions (a few seconds)."""
    from course_lib.models.standin import build_standin

    out = tmp_path_factory.mktemp("standin") / "qwen3-standin"
    build_standin(out, corpus_path=shared_data / "gsm8k" / "train.jsonl", seed=0)
    return out


# Damaging a file the way a killed save, a bad disk or a careless copy does (test_damaged_files, test_training)
ADAPTER = "adapter_model.safetensors"


def nan_fill(path):
    """Overwrite every tensor of a .safetensors file with NaN, keeping its size and its mtime (as `cp -a` would)."""
    stat, data = path.stat(), bytearray(path.read_bytes())
    start = 8 + int.from_bytes(data[:8], "little")
    data[start:] = (b"\x00\x00\xc0\x7f" * len(data))[: len(data) - start]  # float32 NaN (bf16: 0 and NaN)
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def rehash_final(out):
    """Record final/'s current bytes in summary.json (a run that itself wrote these weights)."""
    from course_lib.training.checkpoints import folder_sha256

    summary = json.loads((out / "summary.json").read_text())
    summary["final_sha256"] = folder_sha256(out / "final")
    (out / "summary.json").write_text(json.dumps(summary))


def flip_byte(path, offset=-100):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def truncate(path):
    path.write_bytes(path.read_bytes()[:500])


FAST_TRAINING = {"num_generations": 4, "prompts_per_step": 2, "max_steps": 2, "save_steps": 1, "max_completion_length": 48}


@pytest.fixture(scope="session")
def problems():
    """Twelve easy `arith` training problems (levels 1-2) for the training tests."""
    from course_lib.tasks import generate

    return generate("arith", 12, "train", seed=4, levels=[1, 2])


def _shared_except_in_mutation_stats(fixture_name, config) -> str:
    """Session scope, except while `make mutation` maps tests to the functions they call: a shared fixture's calls are
    mapped to the first test that used it, so the tests reading the run would not be run for training.py's mutants."""
    return "function" if os.environ.get("MUTANT_UNDER_TEST") == "stats" else "session"


@pytest.fixture(scope=_shared_except_in_mutation_stats)
def finished_run(tmp_path_factory, problems):
    """One finished two-step LoRA run of tiny-s (FAST_TRAINING), shared by the training tests: (folder, summary)."""
    from course_lib.training import CourseConfig, train_grpo

    out = tmp_path_factory.mktemp("run") / "lora"
    return out, train_grpo("tiny-s", problems, CourseConfig(**FAST_TRAINING), out, progress=False)


SETUP_SECONDS = pytest.StashKey[float]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """While `make mutation` measures each test (its stats run), a test's duration includes its fixtures' setup, which
    mutmut leaves out: a test that reads the trained run then sorts after the quick ones, so a mutant a quick test
    kills is not first put through a training run (each mutant's session trains it again)."""
    if os.environ.get("MUTANT_UNDER_TEST") == "stats":
        if call.when == "setup":
            item.stash[SETUP_SECONDS] = call.duration
        elif call.when == "call":
            call.duration += item.stash.get(SETUP_SECONDS, 0.0)
    return (yield)


# What the tests import only when they run: torch.testing.assert_close imports torch.distributed.tensor (about half
# a second), a trainer imports TRL's GRPOTrainer (two seconds or more), a grader math-verify, a sweep papermill.
IMPORTED_WHILE_TESTING = ("torch.distributed.tensor", "trl.trainer.grpo_trainer", "math_verify", "papermill")


def pytest_collection_finish(session):
    """Under `make mutation`, mutmut forks every mutant's pytest session from one process that has collected the tests
    (its fork server): import there, once, what the tests would otherwise import again in each of ~6,000 forks."""
    import sys

    if "mutmut" in sys.modules:  # a warning skips mutmut's wrapper of each library function to reach its caller
        from course_lib import errors

        errors.PASSED_THROUGH = (errors.LIBRARY, str(Path(sys.modules["mutmut"].__file__).resolve().parent))
    if "mutmut" in sys.modules and session.config.option.collectonly:
        import importlib

        for name in IMPORTED_WHILE_TESTING:
            importlib.import_module(name)


def pytest_collection_modifyitems(items):
    """pytest resets warning filters for each test: apply course_lib's filter of the libraries' own deprecations
    (course_lib.classroom.quiet) to every test, so the summary shows only warnings worth reading."""
    from course_lib.classroom.quiet import LIBRARY_DEPRECATIONS

    for item in items:
        for message in LIBRARY_DEPRECATIONS:
            item.add_marker(pytest.mark.filterwarnings(f"ignore:{message}:FutureWarning"))
    if "__mutmut_" in os.environ.get("MUTANT_UNDER_TEST", ""):
        _quickest_first(items)
    else:
        _longest_files_first(items)


def _longest_files_first(items) -> None:
    """Files whose tests take longest first (a rough weight: a SLURM test mostly waits for its jobs, a slow test
    trains or runs a notebook), each file's tests in their own order. `make test` runs the suite on two workers, a
    file at a time (pytest-xdist's loadfile): a long file started last would leave one worker idle at the end."""
    def weight(item) -> int:
        return 100 if item.get_closest_marker("slurm") else 20 if item.get_closest_marker("slow") else 1

    files: dict[str, int] = {}
    for item in items:
        files[item.location[0]] = files.get(item.location[0], 0) + weight(item)
    order = {name: rank for rank, name in enumerate(sorted(files, key=lambda name: -files[name]))}
    items.sort(key=lambda item: order[item.location[0]])  # stable: a file's own order is kept


def _quickest_first(items) -> None:
    """Under `make mutation`: run a mutant's tests quickest first (by the durations mutmut measured), so a mutant a
    quick test kills is not first run through the slow ones. pytest stops at the first failure (-x), so the verdict
    is the same; only the time to reach it shrinks."""
    import json

    stats = Path("mutmut-stats.json")  # mutmut runs the tests from inside mutants/, where it keeps this file
    if not stats.exists():
        return
    duration = json.loads(stats.read_text()).get("duration_by_test", {})
    items.sort(key=lambda item: duration.get(item.nodeid, float("inf")))


def run_cli_in_process(*args, env=None, cwd=None) -> subprocess.CompletedProcess:
    """`python -m course_lib ARGS` run inside this process (`course_lib.__main__.main`), stdout and stderr captured:
    what the bad-input tests check (exit status, one line on stderr) without starting Python and torch again for
    each case. Each test file keeps one case through the real entry point (a subprocess), which also catches output
    that bypasses sys.stderr. Environment, working folder, warning filters and torch threads are restored."""
    import contextlib
    import io
    import warnings

    import torch

    from course_lib.__main__ import main

    stdout, stderr = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_threads = dict(os.environ), os.getcwd(), torch.get_num_threads()
    os.environ.update(env or {})
    try:
        if cwd is not None:
            os.chdir(cwd)
        with warnings.catch_warnings(), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exit_:  # argparse: usage errors (2) and --help (0)
                code = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        torch.set_num_threads(saved_threads)
    return subprocess.CompletedProcess(["course_lib", *args], code, stdout.getvalue(), stderr.getvalue())
