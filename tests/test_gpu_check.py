"""benchmarks/gpu_check.py stays runnable where no GPU is (--smoke), and cost.py reads what it measures."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.research.cost import TOKENS_PER_S, throughput

ROOT = Path(__file__).resolve().parent.parent


def gpu_check(*args):
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_check.py"), *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_gpu_check_says_where_data_is_missing_in_one_line(tmp_path):
    done = gpu_check("--smoke", "--data-dir", str(tmp_path))
    assert done.returncode == 2 and done.stderr.strip() == (
        f"error: data_dir={tmp_path} has no gsm8k/train.jsonl; pass --data-dir or set COURSE_DATA_DIR")


@pytest.mark.slow
def test_gpu_check_smoke_runs_every_measurement_on_the_cpu(shared_data, tmp_path):
    out = tmp_path / "gpu_check.json"
    done = gpu_check("--smoke", "--data-dir", str(shared_data), "--out", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    numbers = json.loads(out.read_text())
    assert numbers["device"] == "cpu" and numbers["smoke"] and numbers["errors"] == {} and numbers["skipped"] == []
    for shape in ("4B", "3B"):
        found = numbers["by_size"][shape]
        assert found["hf_tokens_per_s"] > 0 and found["hf_step_s_per_token"] > 0
        assert found["hf_step"]["steps"] == 2 and found["hf_step"]["paper"] in ("2508.14094", "2604.06298")
    assert numbers["by_size"]["3B"]["hf_step"]["completions_per_step"] == 48  # 12 prompts x 4: MATH's 3B batch
    assert numbers["determinism"] == {"hf_same_seed_same_completions": True}
    assert throughput("hf", "4B", numbers)[2] == "assumed"  # a CPU run measures nothing of a GPU...


def test_cost_uses_a_gpus_measurements_when_present(tmp_path, monkeypatch):
    from course_lib.research.cost import measured

    numbers = {"device": "NVIDIA H200", "by_size": {"4B": {"vllm_tokens_per_s": 9000.0, "vllm_step_s_per_token": 0.02}}}
    path = tmp_path / "gpu_check.json"
    path.write_text(json.dumps(numbers))
    monkeypatch.setenv("COURSE_GPU_CHECK", str(path))
    assert measured() == numbers
    assert throughput("vllm", "4B") == (9000.0, 0.02, "measured")
    assert throughput("vllm", "3B") == (TOKENS_PER_S["vllm"]["3B"], 0.012, "assumed")  # not measured: assumed
    path.write_text(json.dumps({**numbers, "device": "cpu"}))
    assert measured() == {}  # ...and is not read as one


def test_an_empty_or_wrong_gpu_check_variable_is_unset_or_named(tmp_path, monkeypatch):
    """`COURSE_GPU_CHECK=` (set, empty) was read as the folder `.` (IsADirectoryError); an explicit path lost to the
    variable; a folder or a broken file is named in one line."""
    from course_lib import CourseError
    from course_lib.research.cost import measured

    monkeypatch.delenv("COURSE_GPU_CHECK", raising=False)
    unset = measured()  # the committed benchmarks/results/gpu_check.json, if a GPU measured one
    monkeypatch.setenv("COURSE_GPU_CHECK", " ")
    assert measured() == unset
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"device": "NVIDIA H100", "by_size": {}}))
    monkeypatch.setenv("COURSE_GPU_CHECK", str(tmp_path))
    assert measured(path)["device"] == "NVIDIA H100"  # the argument wins over the environment
    with pytest.raises(CourseError, match=r"COURSE_GPU_CHECK='.*' is a folder, not gpu_check's JSON"):
        measured()
    path.write_text("{not json")
    with pytest.raises(CourseError, match=r"path='.*mine.json' is not gpu_check's JSON"):
        measured(path)


@pytest.mark.parametrize(("value", "match"), [("lots", "COURSE_VLLM_GPU_MEMORY_UTILIZATION='lots' is no number"),
                                              ("1.5", "gpu_memory_utilization=1.5 must be a share of the GPU's memory")])
def test_a_bad_vllm_memory_share_is_named_before_vllm_is_imported(monkeypatch, value, match):
    from course_lib import CourseError
    from course_lib.sampling import vllm_engine

    monkeypatch.setenv("COURSE_VLLM_GPU_MEMORY_UTILIZATION", value)
    with pytest.raises(CourseError, match=match):
        vllm_engine("any-model")


@pytest.mark.parametrize("value", [-1.0, 0, float("nan"), "25000", True])
def test_round_24_a_measurement_that_is_not_a_positive_number_is_named(value):
    """Hostile round 24: a negative, zero, NaN or text throughput in gpu_check's JSON wrote `#SBATCH
    --time=-354-20:12:00` (or a raw ValueError, or 0 silently replaced by the assumed number)."""
    from course_lib import CourseError

    numbers = {"device": "NVIDIA H200", "by_size": {"4B": {"vllm_tokens_per_s": value, "vllm_step_s_per_token": 0.02}}}
    with pytest.raises(CourseError, match=r"by_size.4B.vllm_tokens_per_s=.* must be a positive number"):
        throughput("vllm", "4B", numbers)
