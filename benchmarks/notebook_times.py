"""Wall time and peak memory (total RSS, and PSS, of the kernel and the kernels it starts) of each notebook `make course` runs
(numbered, appendix, and the grid-point template course_lib/templates/experiment.ipynb), in its order and one profile, with the class slot its header states.

Run: python benchmarks/notebook_times.py --profile tiny [--only 00 01] [--write]
Prints each notebook's numbers; with --write also records them in benchmarks/results/notebook_times_<profile>.json,
which the README's course map quotes. --smoke runs notebook 02 in the `smoke` profile (what
tests/test_benchmarks.py runs).
"""

import argparse
import json
import os
import re
import tempfile
import threading
import time
from pathlib import Path

import nbformat
import psutil

from course_lib.classroom.notebooks import course_notebooks, execute
from course_lib.provenance import atomic_write_text, git_commit, library_versions


def peak_kernel_memory(stop: threading.Event, peak: list) -> None:
    """Poll this process's children (the Jupyter kernel and the kernels it starts) and keep the largest total RSS
    seen, in MiB (peak[0]), and the largest total PSS (peak[1]).

    RSS counts a page shared by two processes (a shared library both load) in each: the sum is an upper bound.
    PSS splits it between them: the sum is what the processes hold together, closer to what a container's
    memory limit counts.
    """
    me = psutil.Process()
    while not stop.is_set():
        rss = pss = 0
        for child in me.children(recursive=True):
            try:
                memory = child.memory_full_info()
                rss, pss = rss + memory.rss, pss + memory.pss
            except psutil.Error:
                pass
        peak[0], peak[1] = max(peak[0], rss / 2**20), max(peak[1], pss / 2**20)
        time.sleep(0.2)


def class_slot(notebook: Path) -> int | None:
    """The minutes of the class slot a notebook's header states ("**Class slot:** one 50-minute session"), if any."""
    header = nbformat.read(str(notebook), as_version=4).cells[0].source
    found = re.search(r"\*\*Class slot:\*\*[^.]*?(\d+)-minute", header)
    return int(found.group(1)) if found else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="tiny")
    parser.add_argument("--only", nargs="*", default=None, help="notebook number prefixes")
    parser.add_argument("--slots-only", action="store_true",
                        help="re-read each notebook's class slot from its header, keep the measured times")
    parser.add_argument("--smoke", action="store_true", help="notebook 02 in the smoke profile: checks it runs")
    parser.add_argument("--write", action="store_true", help="record the results in benchmarks/results/")
    args = parser.parse_args()
    if args.smoke:
        args.profile, args.only = "smoke", ["02"]
    out_file = Path(__file__).parent / "results" / f"notebook_times_{args.profile}.json"
    results = json.loads(out_file.read_text())["notebooks"] if out_file.exists() else {}
    if args.slots_only:  # the slot is read, not measured: no need to re-run a notebook whose slot changed
        for notebook in course_notebooks():
            if notebook.name in results:
                results[notebook.name]["slot_minutes"] = class_slot(notebook)
        atomic_write_text(out_file, json.dumps({**json.loads(out_file.read_text()), "notebooks": results}, indent=1) + "\n")
        return
    executed = Path("build") / "notebook_times" / args.profile  # executed copies, for a look afterwards
    measured = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["COURSE_CACHE_DIR"] = str(Path(tmp) / "cache")  # the kernel starts with an empty cache
        for notebook in course_notebooks():
            if args.only and not notebook.name.startswith(tuple(args.only)):
                continue
            load = round(os.getloadavg()[0], 1)  # other work on the machine slows a notebook: say how busy it was
            stop, peak = threading.Event(), [0.0, 0.0]
            watcher = threading.Thread(target=peak_kernel_memory, args=(stop, peak), daemon=True)
            watcher.start()
            run = execute(notebook, executed, {"PROFILE": args.profile}, log=executed / "logs" / f"{notebook.stem}.log")
            stop.set()
            watcher.join()
            results[notebook.name] = {"seconds": run["seconds"], "peak_memory_mib": round(peak[0]),
                                      "peak_proportional_memory_mib": round(peak[1]),
                                      "slot_minutes": class_slot(notebook), "load_average_at_start": load,
                                      "commit": git_commit()}
            measured.append(notebook.name)
            print(notebook.name, results[notebook.name], flush=True)
    previous = json.loads(out_file.read_text()) if out_file.exists() else {}
    if args.only:  # another partial run may have written since this one started: keep its entries
        results = {**previous.get("notebooks", {}), **{name: results[name] for name in measured}}
    record = {"profile": args.profile, "notebooks": results, "machine": f"{psutil.cpu_count()} CPUs",
              "note": "first run on a fresh cache (difficulty tables are cached afterwards); an entry without its own "
                      "commit was measured at the top-level commit",
              "load_average_1min_at_end": round(os.getloadavg()[0], 1),
              # a partial run (--only) keeps the commit and versions the other entries were measured with
              "commit": previous.get("commit", git_commit()) if args.only else git_commit(),
              "versions": previous.get("versions", library_versions()) if args.only else library_versions()}
    if args.write:
        atomic_write_text(out_file, json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
