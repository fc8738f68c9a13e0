"""Mutation testing of the core modules: the report of what `mutmut run` found (`make mutation` runs both).

mutmut changes one thing at a time in course_lib's core modules (an operator, a constant, a dropped argument ...)
and runs the fast tests that reach the changed function; a mutant the tests do not notice "survived". Each
survivor is either explained in TRIAGE below (equivalent: no test could notice; accepted: a test could, but the
change is harmless or only reachable on a GPU) or counted against the suite.

Run: python benchmarks/mutation.py   (after `mutmut run`; reads mutants/, writes benchmarks/results/mutation.md
and mutation.json). Resumable: `mutmut run` keeps every verdict in mutants/ and tests only the rest.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results"
MODULES = ("grpo", "answers", "rewards", "selection", "difficulty", "studies", "training", "sweep", "prompts")
COMMAND = "make mutation  (OMP_NUM_THREADS=1 nice -n 10 mutmut run --max-children 2; python benchmarks/mutation.py)"

# Survivors that are no bug the suite misses: mutant name -> ("equivalent" | "accepted", why). Names change when
# their function changes; a stale entry is reported as such.
TRIAGE: dict[str, tuple[str, str]] = {}


def _load_results() -> dict[str, dict[str, str]]:
    """module -> {mutant name: status} from mutmut's state under mutants/ (run from the repository root)."""
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.stats import status_by_exit_code

    results = {}
    for module in MODULES:
        data = SourceFileMutationData(path=Path("course_lib") / f"{module}.py")
        data.load()
        results[module] = {name: status_by_exit_code[code] for name, code in sorted(data.exit_code_by_key.items())}
    return results


def _diff(name: str) -> str:
    """The mutant's change as a unified diff (mutmut's own)."""
    from mutmut.__main__ import find_mutant, get_diff_for_mutant

    try:
        return get_diff_for_mutant(name, path=find_mutant(name).path).strip()
    except Exception as error:  # a mutant of a function that has changed since the run
        return f"(no diff: {type(error).__name__})"


def summarise(results: dict[str, dict[str, str]]) -> dict:
    """Counts per module, and the score: surviving (untriaged, not equivalent) over all non-equivalent tested."""
    modules = {}
    for module, statuses in results.items():
        counts = Counter(statuses.values())
        survivors = [n for n, s in statuses.items() if s == "survived"]
        equivalent = [n for n in survivors if TRIAGE.get(n, ("",))[0] == "equivalent"]
        accepted = [n for n in survivors if TRIAGE.get(n, ("",))[0] == "accepted"]
        tested = counts["killed"] + counts["survived"] + counts["timeout"] + counts["segfault"] + counts["suspicious"]
        modules[module] = {**dict(sorted(counts.items())), "mutants": len(statuses), "tested": tested,
                           "equivalent": len(equivalent), "accepted": len(accepted),
                           "unexplained": len(survivors) - len(equivalent) - len(accepted)}
    total = Counter()
    for counts in modules.values():
        total.update({k: v for k, v in counts.items() if isinstance(v, int)})
    non_equivalent = total["tested"] - total["equivalent"]
    surviving = total["survived"] - total["equivalent"]
    return {"modules": modules, "total": dict(sorted(total.items())),
            "survivors_share_of_non_equivalent": round(surviving / non_equivalent, 4) if non_equivalent else None,
            "complete": total["not checked"] == 0 and all(total[m] == 0 for m in ("check was interrupted by user",))}


def write_report(results: dict[str, dict[str, str]]) -> None:
    from importlib import metadata

    from course_lib.provenance import atomic_write_text, git_commit, library_versions

    summary = summarise(results)
    record = {"command": COMMAND, "commit": git_commit(), "versions": {**library_versions(),
              "mutmut": metadata.version("mutmut")}, "machine": f"{os.cpu_count()} CPUs", **summary,
              "survivors": {n: TRIAGE.get(n, ("unexplained", ""))[0]
                            for statuses in results.values() for n, s in statuses.items() if s == "survived"},
              "stale_triage": sorted(n for n in TRIAGE if not any(n in s for s in results.values()))}
    atomic_write_text(OUT / "mutation.json", json.dumps(record, indent=1) + "\n")

    total = summary["total"]
    lines = ["# Mutation testing of the core modules", "",
             f"Made by `{COMMAND}` at commit {record['commit']} with mutmut {record['versions']['mutmut']}, "
             f"torch {record['versions'].get('torch')}, on {record['machine']}.",
             "mutmut mutates only lines the selected fast tests execute (`mutate_only_covered_lines`), and runs for "
             "each mutant only the tests that reach its function; the test files are listed in pyproject.toml "
             "under `[tool.mutmut]`.", ""]
    if not summary["complete"]:
        lines += [f"**Partial**: {total.get('not checked', 0)} mutants are not checked yet. Resume with "
                  "`make mutation` (finished verdicts are kept in mutants/).", ""]
    lines += ["| module | mutants | killed | survived | of which equivalent | accepted | unexplained | timeout | "
              "no tests | not checked |", "| --- | " + "--- | " * 9]
    for module, c in summary["modules"].items():
        lines.append(f"| {module} | {c['mutants']} | {c.get('killed', 0)} | {c.get('survived', 0)} | "
                     f"{c['equivalent']} | {c['accepted']} | {c['unexplained']} | {c.get('timeout', 0)} | "
                     f"{c.get('no tests', 0)} | {c.get('not checked', 0)} |")
    share = summary["survivors_share_of_non_equivalent"]
    lines += ["", f"Survivors that are not equivalent: **{share:.1%}** of the non-equivalent mutants tested "
                  "(target: at most 10%)." if share is not None else "", "", "## Survivors", ""]
    for statuses in results.values():
        for name in (n for n, s in statuses.items() if s == "survived"):
            kind, why = TRIAGE.get(name, ("unexplained", "not triaged yet"))
            lines += [f"### `{name}`: {kind}", "", why, "", "```diff", _diff(name), "```", ""]
    atomic_write_text(OUT / "mutation.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    if not (Path("mutants").is_dir() and Path("pyproject.toml").exists()):
        sys.exit("run from the repository root after `mutmut run` (make mutation)")
    write_report(_load_results())
    print(f"wrote {OUT / 'mutation.md'} and {OUT / 'mutation.json'}")
