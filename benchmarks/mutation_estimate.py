"""How long a full `make mutation` takes on 2 idle cores, estimated from measured CPU seconds (no mutant is run).

Per mutant, mutmut forks a fresh pytest session (`c0`: measured here by forking such sessions from a warm process,
as mutmut's fork server does) and runs the fast tests that reach the mutated function, quickest first, stopping at
the first failure. Each test's CPU seconds come from one plain run of the selected test files (pytest's junit times,
setup included, scaled by that run's CPU/wall ratio, so a loaded machine does not inflate them). Which tests reach
which function comes from mutmut's own stats (mutants/mutmut-stats.json, written by `mutmut run`).

Two figures: `expected`, with 90% of the mutants killed by their quickest test (the report's target is at most 10%
survivors) and the rest running every test; `every mutant survives`, the upper bound. Writes
benchmarks/results/mutation-estimate.json; benchmarks/mutation.py puts it in the report.

Run: python benchmarks/mutation_estimate.py   (from the repository root, after `mutmut run` has written its stats;
     --reuse keeps the last record's per-test CPU seconds and measures only the session overhead again)
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from mutation import MODULES, excluded_functions  # noqa: E402

RECORD = ROOT / "benchmarks" / "results" / "mutation-estimate.json"
KILLED_SHARE = 0.9  # mutants killed by their quickest test in the `expected` figure
SESSIONS = 5  # forked pytest sessions timed for c0
QUICK_TEST = "tests/test_studies.py::test_load_study_names_the_command_when_results_are_missing"  # ~no work


def mutmut_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]


def cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_cpu_seconds(config: dict) -> tuple[dict[str, float], dict]:
    """CPU seconds of each selected test (setup included), from one plain pytest run of the selection."""
    with tempfile.TemporaryDirectory() as folder:
        junit = Path(folder) / "junit.xml"
        before, start = cpu_children(), time.perf_counter()
        subprocess.run([sys.executable, "-m", "pytest", *config["pytest_add_cli_args"], f"--junitxml={junit}",
                        *config["pytest_add_cli_args_test_selection"]], cwd=ROOT, check=True,
                       env={**os.environ, "OMP_NUM_THREADS": "1"}, stdout=subprocess.DEVNULL)
        cpu, wall = cpu_children() - before, time.perf_counter() - start
        cases = ElementTree.parse(junit).getroot().iter("testcase")
        seconds = {f"{c.get('classname').replace('.', '/')}.py::{c.get('name')}": float(c.get("time")) for c in cases}
    return {name: s * cpu / wall for name, s in seconds.items()}, {"cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1)}


def session_overhead(config: dict) -> float:
    """CPU seconds of one forked pytest session running one quick test, from a process that has imported pytest
    and collected the selection once (mutmut's fork server does the same before forking a session per mutant)."""
    code = f"""
import os, resource, sys
import pytest
pytest.main(["-q", "--collect-only", "-p", "no:cacheprovider", *{config["pytest_add_cli_args_test_selection"]!r}])
cpu = []
for _ in range({SESSIONS}):
    pid = os.fork()
    if pid == 0:
        os._exit(int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "{QUICK_TEST}"])))
    _, status, usage = os.wait4(pid, 0)
    cpu.append(usage.ru_utime + usage.ru_stime)
print("C0", sorted(cpu)[len(cpu) // 2])
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": "1"}).stdout
    return float(next(line.split()[1] for line in out.splitlines() if line.startswith("C0 ")))


def mutants_by_function() -> dict[str, int]:
    """Mutants per mangled function name (course_lib.module.x_name), from mutmut's state in mutants/."""
    from mutmut.mutation.data import SourceFileMutationData

    counts = defaultdict(int)
    for module in MODULES:
        data = SourceFileMutationData(path=Path("course_lib") / f"{module}.py")
        data.load()
        for name in data.exit_code_by_key:
            counts[name.rsplit("__mutmut_", 1)[0]] += 1
    return counts


def estimate(reuse: bool = False) -> dict:
    """The estimate; with `reuse`, the per-test CPU seconds of the last record are reused (only c0 is measured)."""
    config = mutmut_config()
    if reuse and RECORD.exists():
        last = json.loads(RECORD.read_text())
        per_test, plain_run = last["per_test_cpu_seconds"], last["plain_run"]
    else:
        per_test, plain_run = test_cpu_seconds(config)
    c0 = session_overhead(config)
    tests_of = json.loads(Path("mutants/mutmut-stats.json").read_text())["tests_by_mangled_function_name"]
    modules = {m: {"mutants": 0, "no tests": 0, "expected": 0.0, "every mutant survives": 0.0} for m in MODULES}
    for function, count in mutants_by_function().items():
        row = modules[function.split(".")[1]]
        row["mutants"] += count
        seconds = sorted(per_test.get(t, 0.0) for t in tests_of.get(function, []))
        if not seconds:
            row["no tests"] += count  # decided at once, no test runs
            continue
        row["expected"] += count * (c0 + KILLED_SHARE * seconds[0] + (1 - KILLED_SHARE) * sum(seconds))
        row["every mutant survives"] += count * (c0 + sum(seconds))
    total = {k: sum(r[k] for r in modules.values()) for k in ("mutants", "no tests", "expected", "every mutant survives")}
    return {"command": "python benchmarks/mutation_estimate.py", "killed_share": KILLED_SHARE,
            "c0_cpu_seconds": round(c0, 3), "plain_run": plain_run,
            "modules": {m: {k: round(v, 1) for k, v in r.items()} for m, r in modules.items()},
            "total": {k: round(v, 1) for k, v in total.items()},
            "minutes_on_2_idle_cores": {"expected": round(total["expected"] / 2 / 60, 1),
                                        "every mutant survives": round(total["every mutant survives"] / 2 / 60, 1)},
            "excluded_mutants": sum(r["mutants"] for r in excluded_functions()),
            "per_test_cpu_seconds": {name: round(s, 4) for name, s in sorted(per_test.items())}}


if __name__ == "__main__":
    if not Path("mutants/mutmut-stats.json").exists():
        sys.exit("run from the repository root after `mutmut run` has collected its stats (mutants/mutmut-stats.json)")
    from course_lib.provenance import atomic_write_text, git_commit, library_versions

    record = {**estimate(reuse="--reuse" in sys.argv), "commit": git_commit(), "versions": library_versions(), "machine": f"{os.cpu_count()} CPUs"}
    atomic_write_text(RECORD, json.dumps(record, indent=1) + "\n")
    print(json.dumps(record["minutes_on_2_idle_cores"]))
