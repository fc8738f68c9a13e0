"""The SLURM path on a real one-node SLURM cluster (tests/slurm_cluster.sh): warm-up, array, aggregate, resubmit."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest

from course_lib.research.sweep import done_record, expand, point_name

CLUSTER = Path(__file__).resolve().parent / "slurm_cluster.sh"
DAEMONS = ("sbatch", "squeue", "slurmctld", "slurmd", "munged")

pytestmark = [pytest.mark.slurm, pytest.mark.slow]


@pytest.fixture(scope="module")
def slurm(tmp_path_factory):
    """A running one-node cluster; yields the environment that points sbatch and squeue at it."""
    absent = [name for name in DAEMONS if shutil.which(name) is None]
    if absent:
        pytest.skip(f"SLURM is not installed (no {', '.join(absent)}); CI installs it: apt-get install slurm-wlm munge")
    directory = tmp_path_factory.mktemp("slurm")
    env = {**os.environ, "SLURM_CONF": str(directory / "slurm.conf")}
    subprocess.run(["bash", str(CLUSTER), "start", str(directory)], check=True, timeout=120)
    yield {"env": env, "dir": directory}
    subprocess.run(["bash", str(CLUSTER), "stop", str(directory)], check=False, timeout=60)


def submit(out: Path, env: dict) -> list[str]:
    """Run the emitted submit.sh; wait (bounded) until its three jobs have left the queue; returns the job ids."""
    printed = subprocess.run(["bash", str(out / "submit.sh")], env=env, capture_output=True, text=True, check=True)
    ids = re.fullmatch(r"warm (\d+), array (\d+), aggregate (\d+)", printed.stdout.strip()).groups()
    deadline = time.monotonic() + 600
    while subprocess.run(["squeue", "--noheader", "--jobs", ",".join(ids)], env=env, capture_output=True,
                         text=True).stdout.strip():
        assert time.monotonic() < deadline, f"jobs {ids} still queued after 10 min; see {out}/logs"
        time.sleep(2)
    return list(ids)


def finished_jobs(directory: Path) -> list[dict]:
    """The jobs the cluster completed, from its jobcomp/filetxt log (name, state, start and end times)."""
    jobs = []
    for line in (directory / "jobcomp.txt").read_text().splitlines():
        fields = dict(re.findall(r"(\w+)=(\S*)", line))
        jobs.append({"name": fields["Name"], "state": fields["JobState"], "id": fields["JobId"],
                     "start": datetime.fromisoformat(fields["StartTime"]),
                     "end": datetime.fromisoformat(fields["EndTime"])})
    return jobs


def test_hard_wins_smoke_grid_runs_as_warm_up_array_and_aggregate_on_slurm(slurm, tmp_path):
    out = tmp_path / "study"
    shell = {key: value for key, value in os.environ.items() if key != "COURSE_CACHE_DIR"}  # set: the jobs share it
    subprocess.run([sys.executable, "-m", "course_lib", "reproduce", "hard-wins", "--profile", "smoke", "--out",
                    str(out), "--emit-slurm", "--slurm-gpus", "0", "--slurm-time", "00:20:00"], check=True, env=shell)
    warm_id, array_id, aggregate_id = submit(out, slurm["env"])

    points = expand("hard-wins", "smoke")
    records = [done_record(out, point) for point in points]
    assert all(r and r["status"] == "ok" for r in records), [r and r.get("error") for r in records]
    results = pd.read_csv(out / "results.csv")
    assert sorted(results["point"]) == sorted(point_name(p) for p in points)
    assert json.loads((out / "provenance.json").read_text())["missing"] == []
    assert any((out / "cache").iterdir())  # the tasks shared the difficulty cache under OUT/cache

    jobs = finished_jobs(slurm["dir"])
    assert {j["state"] for j in jobs if j["name"].startswith("hard-wins-")} == {"COMPLETED"}
    warm = [j for j in jobs if j["name"] == "hard-wins-warm"]
    array = [j for j in jobs if j["name"] == "hard-wins-array"]
    assert len(warm) == 1 and len(array) == len(points)  # one difficulty table; every point an array task
    assert min(j["start"] for j in array) >= max(j["end"] for j in warm)  # the array waited for the warm-up

    logs = {path.name: path.read_text() for path in (out / "logs").glob("*.log")}
    assert f"{point_name(points[0])}: ok" in logs[f"hard-wins-warm-{warm_id}_0.log"]
    assert "already done" in logs[f"hard-wins-array-{array_id}_0.log"]  # the warm-up did it
    assert f"{point_name(points[1])}: ok" in logs[f"hard-wins-array-{array_id}_1.log"]
    assert "2 points saved, 0 failed, 0 missing" in logs[f"hard-wins-aggregate-{aggregate_id}.log"]

    # submitting again trains nothing: every task finds its point done
    stamps = {name: (out / "points" / f"{name}.json").stat().st_mtime_ns for name in map(point_name, points)}
    warm_id, array_id, _ = submit(out, slurm["env"])
    assert {name: (out / "points" / f"{name}.json").stat().st_mtime_ns for name in stamps} == stamps
    for log in [f"hard-wins-warm-{warm_id}_0.log", f"hard-wins-array-{array_id}_0.log",
                f"hard-wins-array-{array_id}_1.log"]:
        assert "already done" in (out / "logs" / log).read_text()


def test_a_failed_warm_up_cancels_the_array_and_the_aggregate_reports_it(slurm, tmp_path):
    out = tmp_path / "study"
    subprocess.run([sys.executable, "-m", "course_lib", "reproduce", "capacity-boundary", "--profile", "smoke",
                    "--out", str(out), "--emit-slurm", "--slurm-gpus", "0"], check=True)
    first, second = map(point_name, expand("capacity-boundary", "smoke"))
    (out / "runs").mkdir()
    (out / "runs" / first).write_text("a file where the warm-up point's run folder must go")  # it fails at once
    _, _, aggregate_id = submit(out, slurm["env"])

    states = {j["name"]: j["state"] for j in finished_jobs(slurm["dir"]) if j["name"].startswith("capacity-boundary-")}
    assert states == {"capacity-boundary-warm": "FAILED", "capacity-boundary-array": "CANCELLED",
                      "capacity-boundary-aggregate": "FAILED"}  # the aggregate ran, and exited 1
    assert (out / "points" / f"{first}.failed.json").exists() and not (out / "points" / f"{second}.json").exists()
    report = (out / "logs" / f"capacity-boundary-aggregate-{aggregate_id}.log").read_text()
    assert "1 points saved, 1 failed, 1 missing" in report and f"MISSING {second}" in report


def test_paper_scripts_with_their_gpu_line_run_a_slice_on_the_cluster_with_the_standin(slurm, standin_model,
                                                                                         shared_data, tmp_path,
                                                                                         monkeypatch):
    """The paper profile's scripts as emitted (--gres=gpu:1, --time and --mem from the cost model, explicit
    --export) are accepted by a cluster with a GPU resource and run a --where slice with the stand-in."""
    monkeypatch.setenv("COURSE_DATA_DIR", str(shared_data))  # the records are read here as the jobs made them
    out = tmp_path / "paper"
    shrunk = {"MODEL": str(standin_model), "POOL_SIZE": 24, "DIFFICULTY_K": 2, "MAX_NEW_TOKENS": 12,
              "EVAL_PROBLEMS": 3, "OOD_K": 2, "STEPS": 1, "PROMPTS_PER_STEP": 2, "MODEL_SIZE": "0.5B"}
    sets = [arg for key, value in shrunk.items() for arg in ("--set", f"{key}={value}")]
    env = {**{k: v for k, v in slurm["env"].items() if k != "COURSE_CACHE_DIR"}, "COURSE_DATA_DIR": str(shared_data)}
    subprocess.run([sys.executable, "-m", "course_lib", "reproduce", "hard-wins", "--profile", "paper", "--out",
                    str(out), "--emit-slurm", "--where", "TASK=gsm8k", "--where", "SEED=0", *sets, "--slurm-cpus", "1",
                    "--delete-merged"], check=True, env=env)
    array = (out / "array.sh").read_text()
    for line in ("#SBATCH --gres=gpu:1", "#SBATCH --mem=20G", "#SBATCH --export=PATH,HOME,USER,LANG,TMPDIR",
                 f"export COURSE_DATA_DIR={shared_data}", "--delete-merged"):
        assert line in array, line
    assert re.search(r"#SBATCH --time=00:3\d:00", array)  # 1 step: the start-up allowance dominates
    checked = subprocess.run(["sbatch", "--test-only", str(out / "array.sh")], env=slurm["env"], capture_output=True,
                             text=True)
    assert checked.returncode == 0, checked.stderr  # the GPU line is accepted, not "Invalid generic resource"

    _, _, aggregate_id = submit(out, slurm["env"])
    points = json.loads((out / "grid.json").read_text())["points"]
    assert len(points) == 4 and {p["STRATEGY"] for p in points} == {"easy", "medium", "hard", "random"}
    records = [done_record(out, point) for point in points]
    assert all(r and r["status"] == "ok" for r in records), [r and r.get("error") for r in records]
    assert all(r["backend"] == "hf" and r["model"] == str(standin_model) for r in records)  # no vLLM on this node
    report = (out / "logs" / f"hard-wins-aggregate-{aggregate_id}.log").read_text()
    assert "4 points saved, 0 failed, 0 missing" in report
    # the cache holds one difficulty table and the base model's evaluation on each held-out set (test, AIME), all
    # written by the warm-up job: the array's tasks computed neither again
    cached = [path for path in (out / "cache").glob("*/*") if path.is_file()]  # (beside verified-models.json)
    assert len({path.relative_to(out / "cache").parts[0] for path in cached}) == 1 + 2
    warm_end = max(j["end"] for j in finished_jobs(slurm["dir"]) if j["name"] == "hard-wins-warm")
    assert all(datetime.fromtimestamp(path.stat().st_mtime) <= warm_end + timedelta(seconds=1) for path in cached)
