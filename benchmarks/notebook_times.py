"""Wall time and peak memory (RSS of the kernel process) of each numbered notebook in one profile.

Run: python benchmarks/notebook_times.py --profile tiny [--only 00 01] [--write]
Prints each notebook's numbers; with --write also records them in benchmarks/results/notebook_times_<profile>.json,
which the README's course map quotes. --smoke runs notebook 02 in the `smoke` profile (what
tests/test_benchmarks.py runs).
"""

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path

import psutil

from course_lib.notebooks import execute, numbered_notebooks
from course_lib.provenance import atomic_write_text, git_commit, library_versions


def peak_kernel_memory(stop: threading.Event, peak: list) -> None:
    """Poll this process's children (the Jupyter kernel) and keep the largest total RSS seen, in MiB."""
    me = psutil.Process()
    while not stop.is_set():
        total = 0
        for child in me.children(recursive=True):
            try:
                total += child.memory_info().rss
            except psutil.Error:
                pass
        peak[0] = max(peak[0], total / 2**20)
        time.sleep(0.2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--only", nargs="*", default=None, help="notebook number prefixes")
    parser.add_argument("--smoke", action="store_true", help="notebook 02 in the smoke profile: checks it runs")
    parser.add_argument("--write", action="store_true", help="record the results in benchmarks/results/")
    args = parser.parse_args()
    if args.smoke:
        args.profile, args.only = "smoke", ["02"]
    out_file = Path(__file__).parent / "results" / f"notebook_times_{args.profile}.json"
    results = json.loads(out_file.read_text())["notebooks"] if out_file.exists() else {}
    executed = Path("build") / "notebook_times" / args.profile  # executed copies, for a look afterwards
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["COURSE_CACHE_DIR"] = str(Path(tmp) / "cache")  # the kernel starts with an empty cache
        for notebook in numbered_notebooks():
            if args.only and not notebook.name.startswith(tuple(args.only)):
                continue
            stop, peak = threading.Event(), [0.0]
            watcher = threading.Thread(target=peak_kernel_memory, args=(stop, peak), daemon=True)
            watcher.start()
            run = execute(notebook, executed, {"PROFILE": args.profile}, log=executed / "logs" / f"{notebook.stem}.log")
            stop.set()
            watcher.join()
            results[notebook.name] = {"seconds": run["seconds"], "peak_memory_mib": round(peak[0])}
            print(notebook.name, results[notebook.name], flush=True)
    record = {"profile": args.profile, "notebooks": results, "machine": f"{psutil.cpu_count()} CPUs",
              "note": "first run on a fresh cache (difficulty tables are cached afterwards)",
              "load_average_1min_at_end": round(os.getloadavg()[0], 1),
              "commit": git_commit(), "versions": library_versions()}
    if args.write:
        atomic_write_text(out_file, json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
