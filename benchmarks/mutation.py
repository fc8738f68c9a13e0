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
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results"
MODULES = ("grpo", "answers", "rewards", "selection", "difficulty", "studies", "training", "sweep", "prompts")
COMMAND = "make mutation  (OMP_NUM_THREADS=1 nice -n 10 mutmut run --max-children 2; python benchmarks/mutation.py)"

# Survivors that are no bug the suite misses: mutant name -> ("equivalent" | "accepted", why[, text its added line
# holds]). Names change when their function changes: an entry whose text is not in the mutant's change is not used
# (the survivor reads "unexplained"), and an entry naming no mutant is reported as stale.
TRIAGE: dict[str, tuple[str, ...]] = {
    "course_lib.selection.x_charge_estimation__mutmut_23": (
        "equivalent", "tokens per completion (1 or 2) does not enter the count of completions that is read"),
    "course_lib.sweep.x_parse_where__mutmut_12": (
        "equivalent", "the message used when no pair is malformed is never shown (the check passes)"),
    "course_lib.selection.x__select_levels__mutmut_7": (
        "equivalent", "`is_count` only matters for a budget larger than the band, which a fraction (at most 1) never "
                      "is for a band that is not empty (an empty band is refused before)"),
    **{f"course_lib.selection.x__seeded_order__mutmut_{n}": (
        "equivalent", "ids are unique (checked before), so how a sort by id treats ties cannot matter")
       for n in (14, 17, 22, 23)},
    **{f"course_lib.selection.x__seeded_order__mutmut_{n}": (
        "accepted", "reset_index keeps the old index as a column: the ids and their order are unchanged (it would "
                    "only fail on a table that already has an `index` column)") for n in (11, 24, 25, 29)},
    "course_lib.selection.x__ranked__mutmut_11": (
        "equivalent", "numpy reads the sort kind case-insensitively: 'STABLE' is 'stable'"),
    "course_lib.selection.x_select__mutmut_41": (
        "equivalent", "pass rates are validated as numbers in [0, 1]; sorting them as their own dtype gives the same "
                      "order"),
    "course_lib.selection.x_charge_estimation__mutmut_44": (
        "accepted", "rounding to 10 rather than 9 decimals before the floor: both absorb floating-point error "
                    "(about 1e-15 here), and no budget or cost has a real 10th decimal"),
    **{f"course_lib.difficulty.x_read_table__mutmut_{n}": (
        "accepted", "without encoding='utf-8' pandas reads with the locale's encoding, which is UTF-8 on this "
                    "machine and CI; the explicit encoding matters only on a machine with another locale")
       for n in (15, 18)},
    "course_lib.difficulty.x_read_table__mutmut_24": ("equivalent", "'UTF-8' and 'utf-8' name the same codec"),
    **{f"course_lib.grpo.x_{name}__mutmut_{n}": (
        "accepted", "numbers in, the same numbers out without dtype=float; only a list of numeric strings would "
                    "differ, which no caller passes") for name, n in (("dead_group_probability", 4),
                                                                       ("dead_group_probability", 6),
                                                                       ("informative_share", 3),
                                                                       ("informative_share", 5))},
    **{f"course_lib.studies.x_detectable_difference__mutmut_{n}": (
        "equivalent", "a wider upper end of the root-finding bracket (21 instead of 20 noncentralities, or a factor "
                      "seeds larger) still holds the one root, so brentq returns the same difference")
       for n in (13, 15)},
    **{name: ("equivalent", "groupby sorts by default: dropping `sort=True` leaves the groups sorted")
       for name in ("course_lib.studies.x_mechanism_table__mutmut_29", "course_lib.studies.x_paired_difference__mutmut_15",
                    "course_lib.studies.x_per_level_change__mutmut_12", "course_lib.studies.x_paired_verdicts__mutmut_9",
                    "course_lib.studies.x_gain_verdicts__mutmut_7")},
    **{f"course_lib.studies.x_holm_adjusted__mutmut_{n}": (
        "equivalent", "p-values are numbers, and list() of them makes a float array without dtype=float (only "
                      "0/1 integers would not, and their Holm adjustments are 0/1 too)") for n in (3, 5)},
    **{f"course_lib.studies.x_holm_adjusted__mutmut_{n}": (
        "equivalent", "how ties are ordered cannot matter: tied p-values get the same adjusted value through the "
                      "running maximum, whichever comes first (and numpy reads 'STABLE' as 'stable')")
       for n in (9, 11, 13)},
    "course_lib.studies.x_gain_verdicts__mutmut_16": (
        "equivalent", "base_variance.test is one base evaluation's, the same in every row of a group, and a group has "
                      "at least 3 rows (equivalence_verdict refuses fewer): row 1 holds the value row 0 does"),
    "course_lib.selection.x_degenerate_medium__mutmut_9": (
        "equivalent", "pass rates are validated as numbers; sorting them as their own dtype gives the same order"),
}

# Functions left out of the run by `# pragma: no mutate block (reason)` on their `def` line: plumbing that computes
# no finding (a progress bar, OS and helper-process plumbing, SLURM script text) or runs only on a GPU. Counted here.
PRAGMA = re.compile(r"#\s*pragma: no mutate block \(([^)]*)\)")
DEF = re.compile(r"^\s*def (\w+)\(")


def excluded_functions() -> list[dict]:
    """Each function a pragma leaves out: module, function, reason, and how many mutants mutmut would make of it."""
    from mutmut.mutation.file_mutation import create_mutations

    rows = []
    for module in MODULES:
        path = ROOT / "course_lib" / f"{module}.py"
        source = path.read_text(encoding="utf-8")
        reasons, current = {}, None
        for line in source.splitlines():
            current = DEF.match(line).group(1) if DEF.match(line) else current
            if PRAGMA.search(line):
                reasons[current] = PRAGMA.search(line).group(1)
        if not reasons:
            continue
        _, mutations, *_ = create_mutations(str(path), PRAGMA.sub("", source))  # as if no pragma were there
        counts = Counter(getattr(getattr(m.contained_by_top_level_function, "name", None), "value", None)
                         for m in mutations)
        rows += [{"module": module, "function": name, "reason": why, "mutants": counts[name]}
                 for name, why in reasons.items()]
    return rows


MESSAGE_CALLS = ("check(", "CourseError(", "ValueError(", "warnings.warn(", "raise ")
STRING = re.compile(r'(?:[rRfF]{0,2})"(?:[^"\\]|\\.)*"|(?:[rRfF]{0,2})\'(?:[^\'\\]|\\.)*\'')
ONLY_STRINGS = re.compile(r'^\s*(?:(?:[rRfF]{0,2})"(?:[^"\\]|\\.)*"\s*)+[),]*\s*$')


def changed_lines(diff: str) -> tuple[list[str], list[str]]:
    """The removed and the added lines of a unified diff."""
    lines = diff.splitlines()
    removed = [line[1:] for line in lines if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in lines if line.startswith("+") and not line.startswith("+++")]
    return removed, added


def is_message_wording(diff: str) -> bool:
    """Whether a mutant only changes the text of an error or warning message (a string inside check(...),
    CourseError(...), warnings.warn(...), or a line that is nothing but the string continuing such a message)."""
    removed, added = changed_lines(diff)
    if len(removed) != 1 or len(added) != 1:
        return False
    if STRING.sub('""', removed[0]) != STRING.sub('""', added[0]):
        return False  # something outside the strings changed
    return any(call in removed[0] for call in MESSAGE_CALLS) or bool(ONLY_STRINGS.match(removed[0]))


# Survivors of a run that began before the test that kills them was written: each mutant was applied by hand to a
# copy of course_lib and fails that test. They still count as survivors until `mutmut run NAMES...` confirms it.
KILLED_BY_A_NEWER_TEST: dict[str, str] = {
    **{name: "test_verdict_tables_sort_their_groups_and_skip_a_group_without_pairs" for name in (
        "course_lib.studies.x_paired_difference__mutmut_30", "course_lib.studies.x_paired_difference__mutmut_37",
        "course_lib.studies.x_paired_difference__mutmut_38", "course_lib.studies.x_paired_verdicts__mutmut_7",
        "course_lib.studies.x_paired_verdicts__mutmut_11", "course_lib.studies.x_gain_verdicts__mutmut_5",
        "course_lib.studies.x_gain_verdicts__mutmut_9", "course_lib.studies.x_gain_verdicts__mutmut_12",
        "course_lib.studies.x_gain_verdicts__mutmut_20")},
    **{f"course_lib.studies.x_sd_upper_bound__mutmut_{n}": "test_sd_upper_bound_from_two_seeds_and_its_bounds"
       for n in (3, 6, 7, 8, 9)},
}


def kind_of(name: str, diff: str) -> tuple[str, str]:
    """(kind, why) of a survivor: the TRIAGE entry, else a newer test, else message wording, else unexplained."""
    if name in TRIAGE:
        kind, why, *change = TRIAGE[name]
        if change and change[0] not in "\n".join(changed_lines(diff)[1]):
            return "unexplained", f"its triage entry was written for another change ({change[0]!r}): triage it again"
        return kind, why
    if name in KILLED_BY_A_NEWER_TEST:
        return "newer test", (f"killed by tests/test_studies.py::{KILLED_BY_A_NEWER_TEST[name]}, written after this "
                              "run began (the mutant applied by hand fails it); still counted as a survivor until "
                              f"`mutmut run {name}` confirms")
    if is_message_wording(diff):
        return "message", ("only the wording of an error message changes; tests match messages by their key phrase "
                           "(`pytest.raises(..., match=...)`), which mutmut's `XX...XX` wrapping or a case change of "
                           "another part leaves intact")
    return "unexplained", "not triaged yet"


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
    from mutmut.mutation.diff_apply import find_mutant, get_diff_for_mutant

    try:
        return get_diff_for_mutant(name, path=find_mutant(name).path).strip()
    except Exception as error:  # a mutant of a function that has changed since the run
        return f"(no diff: {type(error).__name__})"


def summarise(results: dict[str, dict[str, str]], kinds: dict[str, str]) -> dict:
    """Counts per module, and the scores: surviving mutants over the non-equivalent ones tested, counting every
    survivor, and leaving out those that change only a message's wording."""
    modules = {}
    for module, statuses in results.items():
        counts = Counter(statuses.values())
        survivors = Counter(kinds[n] for n, s in statuses.items() if s == "survived")
        tested = sum(counts[s] for s in ("killed", "survived", "timeout", "segfault", "suspicious"))
        modules[module] = {**dict(sorted(counts.items())), "mutants": len(statuses), "tested": tested,
                           **{f"survived: {kind}": n for kind, n in sorted(survivors.items())}}
    total = Counter()
    for counts in modules.values():
        total.update(counts)
    non_equivalent = total["tested"] - total["survived: equivalent"]
    surviving = total["survived"] - total["survived: equivalent"]
    wording = total["survived: message"]

    def share(part, whole):
        return round(part / whole, 4) if whole else None

    return {"modules": modules, "total": dict(sorted(total.items())),
            "survivors_share_of_non_equivalent": share(surviving, non_equivalent),
            "survivors_share_without_message_wording": share(surviving - wording, non_equivalent - wording),
            # a mutant no fast test reaches is not killed either: the strict share counts it as a survivor
            "survivors_share_counting_no_tests": share(surviving + total["no tests"], non_equivalent + total["no tests"]),
            "complete": total["not checked"] == 0}


def timing(results: dict[str, dict[str, str]]) -> dict:
    """CPU seconds of the `mutmut run`s logged in mutants/time.log (user, sys, wall per run, startup included)
    over the mutants they tested (killed, survived or timed out)."""
    log = Path("mutants") / "time.log"
    runs = [line.split() for line in log.read_text().splitlines() if line.strip()] if log.exists() else []
    runs = [run for run in runs if len(run) == 3 and all(part.replace(".", "", 1).isdigit() for part in run)]
    cpu = sum(float(user) + float(system) for user, system, _ in runs)
    tested = sum(1 for statuses in results.values() for status in statuses.values()
                 if status in ("killed", "survived", "timeout", "segfault", "suspicious"))
    return {"logged_runs": len(runs), "cpu_seconds": round(cpu), "tested": tested,
            "cpu_seconds_per_tested_mutant": round(cpu / tested, 2) if runs and tested else None}


def write_report(results: dict[str, dict[str, str]]) -> None:
    from importlib import metadata

    from course_lib.provenance import atomic_write_text, git_commit, library_versions

    survivors = [n for statuses in results.values() for n, s in statuses.items() if s == "survived"]
    diffs = {name: _diff(name) for name in survivors}
    triage = {name: kind_of(name, diffs[name]) for name in survivors}
    summary = summarise(results, {name: kind for name, (kind, _) in triage.items()})
    excluded = excluded_functions()
    times = timing(results)
    started = Path("mutants") / "run-commit"  # the commit whose code and tests mutmut copied when it started
    retested = Path("mutants") / "rerun-commit"  # where the survivors were tested again with newer tests, if they were
    record = {"command": COMMAND, "commit": git_commit(),
              "run_commit": started.read_text().strip() if started.exists() else None,
              "survivors_retested_at": retested.read_text().strip() if retested.exists() else None,
              "versions": {**library_versions(), "mutmut": metadata.version("mutmut")},
              "machine": f"{os.cpu_count()} CPUs", **summary, "excluded": excluded, "timing": times,
              "survivors": {name: kind for name, (kind, _) in triage.items()},
              "stale_triage": sorted(n for n in TRIAGE if not any(n in s for s in results.values()))}
    atomic_write_text(OUT / "mutation.json", json.dumps(record, indent=1) + "\n")

    total = summary["total"]
    lines = ["# Mutation testing of the core modules", "",
             f"Made by `{COMMAND}` (mutants and tests of commit {record['run_commit']}, report written at "
             f"{record['commit']}) with mutmut {record['versions']['mutmut']} and "
             f"torch {record['versions'].get('torch')}, on {record['machine']}. For each mutant mutmut runs only "
             "the fast tests that reach its function, from the test files listed under `[tool.mutmut]` in "
             "pyproject.toml; a mutant of a function no such test calls counts as `no tests`."
             + (f" Later verdicts (that run's survivors tested again, then further mutants, by `mutmut run NAMES...`) "
                f"used the tests of commit {record['survivors_retested_at']}." if record["survivors_retested_at"] else ""),
             ""]
    if not summary["complete"]:
        done = [m for m, c in summary["modules"].items() if c.get("not checked", 0) == 0]
        lines += [f"**Partial**: {total.get('not checked', 0)} of {total['mutants']} mutants are not checked yet; "
                  f"complete modules: {', '.join(done) or 'none'}. Resume with `make mutation` (verdicts already "
                  "reached are kept in mutants/). The shares below are over the mutants checked so far: they say "
                  "nothing yet about the modules with few or no checked mutants.", ""]
    kinds = ("equivalent", "accepted", "message", "newer test", "unexplained")
    lines += ["| module | mutants | killed | survived | " + " | ".join(f"of which {k}" for k in kinds)
              + " | timeout | no tests | not checked |", "| --- " * 12 + "|"]
    for module, c in summary["modules"].items():
        lines.append(f"| {module} | {c['mutants']} | {c.get('killed', 0)} | {c.get('survived', 0)} | "
                     + " | ".join(str(c.get(f"survived: {k}", 0)) for k in kinds)
                     + f" | {c.get('timeout', 0)} | {c.get('no tests', 0)} | {c.get('not checked', 0)} |")
    every, without = summary["survivors_share_of_non_equivalent"], summary["survivors_share_without_message_wording"]
    if every is not None:
        lines += ["", f"Survivors that are not equivalent: **{every:.1%}** of the non-equivalent mutants tested; "
                      f"**{without:.1%}** leaving out those that change only a message's wording (target: at most 10%)."]
    strict = summary["survivors_share_counting_no_tests"]
    if strict is not None:
        lines += ["", f"Counting the mutants no fast test reaches (`no tests`) as survivors too: **{strict:.1%}**."]
    lines += ["", "## Left out of the run", "",
              f"{sum(r['mutants'] for r in excluded)} mutants of these functions are not made at all "
              "(`# pragma: no mutate block (reason)` on the `def` line); they compute no finding:", "",
              "| module | function | reason | mutants |", "| --- | --- | --- | --- |"]
    lines += [f"| {r['module']} | `{r['function']}` | {r['reason']} | {r['mutants']} |" for r in excluded]
    lines += ["", "## Time"]
    estimate_file = OUT / "mutation-estimate.json"
    if estimate_file.exists():
        est = json.loads(estimate_file.read_text())
        minutes = est["minutes_on_2_idle_cores"]
        lines += ["", f"Estimated full run (`{est['command']}`, commit {est['commit']}; no mutant run, measured CPU "
                      f"seconds): a forked pytest session costs {est['c0_cpu_seconds']} CPU s, the selected tests "
                      f"{est['plain_run']['cpu_seconds']} CPU s in all; with {est['killed_share']:.0%} of the "
                      f"{est['total']['mutants'] - est['total']['no tests']:.0f} mutants with tests killed by their "
                      f"quickest test, **{minutes['expected']} minutes on 2 idle cores**; "
                      f"{minutes['every mutant survives']} minutes if every mutant survived (the upper bound). Add "
                      "mutmut's startup (making the mutants, one traced and one clean run of the selected tests).", "",
                  "| module | mutants | no tests | expected CPU s | CPU s if all survive |", "| --- | --- | --- | --- | --- |"]
        lines += [f"| {m} | {r['mutants']:.0f} | {r['no tests']:.0f} | {r['expected']:.0f} | "
                  f"{r['every mutant survives']:.0f} |" for m, r in est["modules"].items()]
    if times["cpu_seconds_per_tested_mutant"] is not None:
        lines += ["", f"Measured: the {times['logged_runs']} logged `mutmut run`s (mutants/time.log, startup "
                      f"included) spent {times['cpu_seconds']} CPU seconds on {times['tested']} tested mutants, "
                      f"**{times['cpu_seconds_per_tested_mutant']} CPU seconds per tested mutant** (the mutants "
                      "with the quickest tests, which mutmut runs first)."]
    lines += ["", "## Survivors", "",
              "Kinds: *equivalent* (no test could tell), *accepted* (harmless, or reachable only on a GPU), "
              "*message* (only an error message's wording changes), *newer test* (a test written after the run began kills "
              "it; not re-run yet), *unexplained* (a gap in the tests).", ""]
    for name in sorted(survivors, key=lambda n: (kinds.index(triage[n][0]) * -1, n)):
        kind, why = triage[name]
        lines += [f"### `{name}`: {kind}", "", why, "", "```diff", diffs[name], "```", ""]
    atomic_write_text(OUT / "mutation.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    if not (Path("mutants").is_dir() and Path("pyproject.toml").exists()):
        sys.exit("run from the repository root after `mutmut run` (make mutation)")
    loaded = _load_results()
    if not any(loaded.values()):
        sys.exit("mutants/ holds no mutants yet (mutmut stopped before making them?); run `make mutation`")
    write_report(loaded)
    print(f"wrote {OUT / 'mutation.md'} and {OUT / 'mutation.json'}")
