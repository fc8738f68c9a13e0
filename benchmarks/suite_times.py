"""Wall time of the test suite as `make test-fast` (or `make test`) runs it, with the machine's load at the time.

Run: python benchmarks/suite_times.py [--target test-fast|test] [--per-test 20] [--write]
Prints the record; with --write also stores it under its target in benchmarks/results/suite_times.json, which
docs/benchmarks.md quotes. --per-test N adds the N tests that took the most CPU seconds (benchmarks/cpu_per_test.py). --smoke times one small test file (what tests/test_benchmarks.py runs). Measured,
never asserted: on a shared machine the load average is part of the result.
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from course_lib.provenance import atomic_write_text, git_commit, library_versions

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results" / "suite_times.json"
WORKERS = ["-n", "2", "--dist", "loadfile", "--no-loadscope-reorder"]  # the Makefile's TEST_WORKERS
SELECTION = {"test-fast": [*WORKERS, "-m", "not slow and not slurm"], "test": WORKERS,
             "smoke": ["-m", "not slow and not slurm", "tests/test_tasks.py"]}


def run_pytest(selection: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, pytest's last line) of one pytest run of `selection` from the repository root.

    CPU seconds (user + system, pytest and every process it started) depend far less on other jobs than wall time
    does: on an idle 2-core machine the wall time is about the CPU time over the cores the suite keeps busy."""
    start, cpu_start = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", *selection], cwd=ROOT,
                          capture_output=True, text=True, env=env)
    seconds, cpu_end = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_end.ru_utime - cpu_start.ru_utime) + (cpu_end.ru_stime - cpu_start.ru_stime)
    lines = done.stdout.strip().splitlines()
    failed = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]  # -rfE lists them
    summary = lines[-1] if lines else f"pytest exited {done.returncode}: {done.stderr[-500:]}"
    return seconds, cpu, "\n".join([*failed, summary])


def counts(summary: str) -> dict:
    """{'passed': 12, 'deselected': 3, ...} from pytest's summary line."""
    last = summary.splitlines()[-1]
    return {word: int(number) for number, word in re.findall(r"(\d+) (passed|failed|skipped|deselected|errors?)", last)}


def slowest_tests(per_test_file: Path, n: int) -> list[list]:
    """[[CPU seconds, wall seconds, test id], ...] of the n tests that took the most CPU seconds."""
    rows = [line.split("\t") for line in per_test_file.read_text().splitlines()] if per_test_file.exists() else []
    rows = sorted(([float(cpu), float(wall), test] for cpu, wall, test in rows), reverse=True)
    return rows[:n]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=["test-fast", "test"], default="test-fast")
    parser.add_argument("--smoke", action="store_true", help="time one small test file: checks the script runs")
    parser.add_argument("--per-test", type=int, default=0, metavar="N", help="also list the N tests that took most CPU")
    parser.add_argument("--write", action="store_true", help="record the result in benchmarks/results/")
    args = parser.parse_args()
    target = "smoke" if args.smoke else args.target
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as scratch:
        per_test_file = Path(scratch) / "cpu_per_test.tsv"
        selection, env = SELECTION[target], None
        if args.per_test:
            selection = ["-p", "cpu_per_test", *selection]
            env = {**os.environ, "CPU_PER_TEST_OUT": str(per_test_file),
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")]))}
        seconds, cpu_seconds, summary = run_pytest(selection, env)
        slowest = slowest_tests(per_test_file, args.per_test) if args.per_test else None
    load_after = os.getloadavg()
    record = {"target": target, "seconds": round(seconds, 1), "cpu_seconds": round(cpu_seconds, 1), "summary": summary,
              **counts(summary),
              "cores": len(os.sched_getaffinity(0)), "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
              "load_average_1min_before_after": [round(load_before[0], 1), round(load_after[0], 1)],
              "load_average_15min_after": round(load_after[2], 1),
              **({"most_cpu_seconds": slowest} if slowest is not None else {}),
              "commit": git_commit(), "versions": library_versions()}
    print(json.dumps(record, indent=1))
    if args.write and not args.smoke:
        results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        atomic_write_text(RESULTS, json.dumps({**results, target: record}, indent=1) + "\n")


if __name__ == "__main__":
    main()
