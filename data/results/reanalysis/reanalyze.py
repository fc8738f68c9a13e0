"""Re-analysis of the committed tiny-world studies (run by make.sh from the project root): which confirmatory
points repeat a pilot's runs, the paired verdicts on all seeds and on fresh seeds only, Holm-corrected within
each study's primary and secondary families, and every arm's gain with the shared base evaluation's error.

Every input is checked before anything is computed (`check_inputs`), and the outputs (and the README's scorecard)
are written together once all are computed, or none: a damaged input is one line and exit status 1."""

import contextlib
import json
import sys
from pathlib import Path

import pandas as pd

from course_lib.errors import CourseError, check
from course_lib.provenance import atomic_write_texts, check_writable_folder, git_commit, library_versions
from course_lib.research.scorecard import CLAIMS, claim_verdict, is_running, scorecard
from course_lib.research.studies import (
    RESULTS_DIR,
    base_variance_bound,
    equivalence_verdict,
    holm_verdicts,
    interval_text,
    load_study,
    paired_verdicts,
    study_folder,
)

MARGIN = 0.03  # held-out accuracy: the difference every study called negligible
EVAL_PROBLEMS = 300  # the tiny profile's held-out problems per split
# study -> (earlier studies whose runs it may repeat, its paired families)
PAIRED = {
    "regimes-hard-wins": (["regimes-pilot"], {"primary": [("hard", "random")],
                                              "secondary": [("easy", "random"), ("medium", "random"), ("hard", "easy")]}),
    "regimes-hard-wins-long": (["regimes-hard-wins", "headroom-pilot", "headroom-pilot-seeds"],
                               {"primary": [("hard", "random")]}),
    "strong-regime-hard-wins": (["strong-regime-pilot"], {"primary": [("hard", "random")],
                                                          "secondary": [("easy", "random"), ("hard", "easy")]}),
    "size-boundary": (["size-boundary-pilot"], {"primary": [("levels-1-3", "levels-1-5")],
                                                "secondary": [("levels-1-3", "random-matched"),
                                                              ("levels-1-3", "levels-1-5 (49 steps)")]}),
}
GAINS = ["hard-wins", "strategies-by-size", "capacity-boundary", "capacity-boundary-short", "regimes-hard-wins",
         "regimes-hard-wins-long", "headroom-pilot-seeds", "strong-regime-pilot", "strong-regime-hard-wins",
         "size-boundary-pilot", "size-boundary"]
RUN_KEYS = ["model", "strategy", "seed", "steps", "learning_rate", "accuracy_after.test"]
INPUTS = sorted(set(PAIRED) | set(GAINS) | {s for earlier, _ in PAIRED.values() for s in earlier}
                | {c.study for c in CLAIMS if c.study and not is_running(c.study)})  # every finished study a row reads
README = RESULTS_DIR.parent.parent / "README.md"
SCORECARD_MARKERS = ("<!-- scorecard: generated, see data/results/reanalysis/scorecard.md -->\n", "<!-- /scorecard -->")
# column -> (lowest, highest, whole numbers only): what every input must hold (`check_inputs`)
NUMBERS = {"seed": (0, 2**32 - 1, True), "steps": (1, 10**7, True), "accuracy_before.test": (0, 1, False),
           "gain.test": (-1, 1, False), "eval_k.test": (1, 10**4, True)}
TEXT = ("point", "model", "strategy", "task")
# read where present: a learning rate, the base evaluation's K and variance, the out-of-distribution gain
OPTIONAL = {"learning_rate": (0, 1, False), "base_k.test": (1, 10**4, True), "base_variance.test": (0, 1, False),
            "pass_at_k_gain.ood": (-1, 1, False), "accuracy_after.test": (0, 1, False)}


def check_inputs() -> dict:
    """Every input study's table (`load_study`: readable, each point and run once), with the columns the
    re-analysis and the scorecard read, numbers in range; the loaded tables by study."""
    tables = {}
    run_key_studies = set(PAIRED) | {s for earlier, _ in PAIRED.values() for s in earlier}
    for study in INPUTS:
        table, _ = load_study(study, RESULTS_DIR)
        path = study_folder(study, RESULTS_DIR) / "results.csv"
        wanted = [*TEXT, *NUMBERS] + (["learning_rate"] if study in run_key_studies else []) + \
            [c.column for c in CLAIMS if c.study == study]
        missing = [column for column in wanted if column not in table.columns]
        check(not missing, f"{path} has no column {missing[0] if missing else ''!r}, which the re-analysis reads; "
                           "restore it (git checkout)")
        check(len(table), f"{path} holds no point that succeeded; restore it (git checkout)")
        for column, (low, high, whole) in {**NUMBERS, **{c: OPTIONAL[c] for c in OPTIONAL if c in table}}.items():
            values = pd.to_numeric(table[column], errors="coerce")
            sound = values.between(low, high) & ((values % 1 == 0) if whole else True)
            bad = table.index[table[column].notna() & ~sound]
            blank = table.index[table[column].isna()] if column in NUMBERS else []
            if len(bad) or len(blank):
                row = (list(bad) + list(blank))[0]
                value = table[column].astype(object)[row]  # a Python value: 7.0, not np.float64(7.0)
                raise CourseError(f"{path}: {column}={value!r} in the point {table['point'][row]} is not "
                                  f"{'a whole number' if whole else 'a number'} from {low} to {high}; restore it "
                                  "(git checkout)")
        for column in TEXT:
            blank = table.index[table[column].isna()]
            check(not len(blank), f"{path}: the point {table['point'][blank[0]] if len(blank) else ''} has no "
                                  f"{column}; restore it (git checkout)")
        arms = {arm.removesuffix(" (49 steps)") for pairs in PAIRED.get(study, ((), {}))[1].values()
                for pair in pairs for arm in pair} | {arm for c in CLAIMS if c.study == study for arm in (c.first, c.second)
                                                      if arm}
        arms_run = set(table["strategy"]) | set(table["task"] + " " + table["strategy"])  # "TASK STRATEGY" names one
        absent = sorted(arms - arms_run)
        check(not absent, f"{path} holds no point of the arm {absent[0] if absent else ''!r}, which the re-analysis "
                          "compares; restore it (git checkout)")
        tables[study] = table
    for claim in CLAIMS:  # the scorecard's verdicts, claim by claim, so a failure names its study
        if claim.study:
            with about(claim.study):
                claim_verdict(claim, RESULTS_DIR)
    return tables


@contextlib.contextmanager
def about(study: str):
    """Within the block, an input that cannot be re-analysed (too few seeds, an arm missing for a model) is one
    line naming the study's results.csv."""
    try:
        yield
    except (CourseError, KeyError, ValueError, IndexError) as error:
        why = str(error) if isinstance(error, CourseError) else f"{type(error).__name__}: {error}"
        raise CourseError(f"{study_folder(study, RESULTS_DIR) / 'results.csv'} cannot be re-analysed ({why}); "
                          "restore it (git checkout)") from None


def confirmatory(study: str) -> pd.DataFrame:
    """A confirmatory study's points (exploratory extra lengths set aside), with a column marking repeated runs."""
    table, _ = load_study(study, RESULTS_DIR)
    if study == "regimes-hard-wins":
        table = table[table["steps"] == 41]
    if study == "size-boundary":  # levels-1-5 ran at two lengths: the 49-step arm is an arm of its own
        table = table.assign(strategy=[f"{arm} (49 steps)" if arm == "levels-1-5" and steps == 49 else arm
                                       for arm, steps in zip(table["strategy"], table["steps"])])
    table = with_base_variance(table)
    earlier = pd.concat([load_study(name, RESULTS_DIR)[0] for name in PAIRED[study][0]])
    keys = [k for k in RUN_KEYS if k in earlier.columns and k in table.columns]
    seen = set(map(tuple, earlier[keys].round(6).values.tolist()))
    table = table.copy()
    table["repeats_earlier_run"] = [tuple(row) in seen for row in table[keys].round(6).values.tolist()]
    return table


def paired_rows(table: pd.DataFrame, pairs, seeds_used: str) -> list[dict]:
    """Each pair's paired difference per model (`studies.paired_verdicts`: an equivalence counts only where the
    second arm's own gain, with the shared base evaluation's error, is at least three times the margin)."""
    verdicts = paired_verdicts(table, pairs, MARGIN)
    rows = []
    for row in verdicts.to_dict("records"):
        first, second = row["difference"].split(" - ")
        wide = table[table["model"] == row["model"]].pivot_table(index="seed", columns="strategy", values="gain.test")
        seeds = wide[[first, second]].dropna().index
        rows.append({"model": row.pop("model"), "difference": row.pop("difference"), "seeds used": seeds_used,
                     "seed list": " ".join(str(int(s)) for s in seeds), **row})
    return rows


def paired_table() -> pd.DataFrame:
    out = []
    for study, (_, families) in PAIRED.items():
        with about(study):
            table = confirmatory(study)
            repeated = set(table.loc[table["repeats_earlier_run"], "seed"])
            fresh = table[~table["seed"].isin(repeated)]
            for family, pairs in families.items():
                for name, part in (("all", table), ("fresh only", fresh)):
                    rows = holm_verdicts(pd.DataFrame(paired_rows(part, pairs, name)))
                    out.append(rows.assign(study=study, family=family))
    return pd.concat(out, ignore_index=True)


def with_base_variance(table: pd.DataFrame) -> pd.DataFrame:
    """`base_variance.test` as recorded, else its upper bound from the base accuracy and K (older studies)."""
    table = table.copy()
    k = table["base_k.test"] if "base_k.test" in table else table["eval_k.test"]
    bound = [base_variance_bound(a, int(kk), EVAL_PROBLEMS) for a, kk in zip(table["accuracy_before.test"], k)]
    recorded = table["base_variance.test"] if "base_variance.test" in table else pd.Series([float("nan")] * len(table))
    table["base error"] = ["recorded" if pd.notna(v) else "upper bound" for v in recorded]
    table["base_variance.test"] = [v if pd.notna(v) else b for v, b in zip(recorded, bound)]
    return table


def gains_table() -> pd.DataFrame:
    rows = []
    for study in GAINS:
        with about(study):
            table = with_base_variance(load_study(study, RESULTS_DIR)[0])
            by = [c for c in ("model", "task", "strategy", "steps", "learning_rate") if c in table.columns]
            for key, group in table.groupby(by, sort=True):
                if len(group) < 3:
                    continue
                without = equivalence_verdict(group["gain.test"], MARGIN)
                with_base = equivalence_verdict(group["gain.test"], MARGIN, float(group["base_variance.test"].iloc[0]))
                rows.append({"study": study, **dict(zip(by, key)), "seeds": len(group),
                             "gain without base error": interval_text(without),
                             "gain with base error": interval_text(with_base),
                             "base error": group["base error"].iloc[0], "verdict without": without["verdict"],
                             "verdict with": with_base["verdict"]})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    cells = [[str(v) for v in row] for row in table.values.tolist()]
    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])


def with_scorecard(text: str, card: str, readme="README.md") -> str:
    """A README's text with the scorecard table of `card` between its two markers (each there once, in order)."""
    start, end = SCORECARD_MARKERS
    check(text.count(start) == 1 and text.count(end) == 1 and text.index(start) < text.index(end),
          f"{readme} must hold the scorecard's markers once each, in order ({start.strip()} then {end}); restore them "
          "(git checkout README.md)")
    table = "\n".join(line for line in card.splitlines() if line.startswith("|"))
    head, rest = text.split(start)
    return head + start + table + "\n" + end + rest.split(end, 1)[1]


def write_readme_block(readme=README, card=RESULTS_DIR / "reanalysis" / "scorecard.md"):
    """The README's scorecard, between its two markers, replaced by the committed table (never edited by hand)."""
    atomic_write_texts({readme: with_scorecard(Path(readme).read_text(), Path(card).read_text(), readme)})


def outputs(out) -> dict:
    """Every file the re-analysis writes into `out`, by path, computed from the checked inputs."""
    out = check_writable_folder(out)
    check_inputs()
    paired, gains = paired_table(), gains_table()
    repeats = {study: sorted(" ".join(map(str, run)) for run in confirmatory(study).query("repeats_earlier_run")[
        ["model", "strategy", "seed"]].itertuples(index=False)) for study in PAIRED}
    paired["interval (95%)"] = [interval_text(r) for r in paired.to_dict("records")]
    shown = paired[["study", "family", "model", "difference", "seeds used", "seed list", "interval (95%)", "tost_low",
                    "tost_high", "reference_gain", "verdict", "verdict_holm", "why"]].rename(
        columns={"reference_gain": "reference gain", "why": "why not equivalence"})
    text = ["# Re-analysis of the committed studies (generated by make.sh; do not edit)", "",
            f"Margin {MARGIN}; verdicts by `course_lib.research.studies.equivalence_verdict`; Holm within each study's family. "
            "An equivalence counts only where the reference (second) arm's own gain, base error included, is above 0 "
            "and at least three times the margin (`course_lib.research.studies.assay_sensitivity`); otherwise it reads "
            "\"could not tell\", and a real difference inside the margin reads plain better or worse.", "",
            "## Confirmatory points that repeat an earlier run (same model, arm, seed, length and trained accuracy)", ""]
    text += [f"- {study}: {', '.join(runs) if runs else 'none'}" for study, runs in repeats.items()]
    text += ["", "## Paired differences: all seeds and fresh seeds only", "", markdown(shown), "",
             "## Each arm's gain with and without the base evaluation's error", "", markdown(gains), ""]
    card = scorecard(RESULTS_DIR)
    provenance = {"command": " ".join(["python", *sys.argv]), "commit": git_commit(), "versions": library_versions(),
                  "seed": None, "inputs": INPUTS}
    return {out / "paired_verdicts.csv": shown.to_csv(index=False),
            out / "gains_with_base_error.csv": gains.to_csv(index=False),
            out / "reanalysis.md": "\n".join(text),
            out / "scorecard.md": "\n".join([
                "# Claims scorecard (generated by make.sh from the committed studies; do not edit)", "",
                "Each claim of the two papers, what the paper reports, and the tiny world's verdict on the seeds no "
                "pilot used (`course_lib.research.scorecard`; notebook 07 section 7 shows the same table).", "",
                "A status is read by the rules of `course_lib.research.scorecard` (an equivalence counts only where the "
                "reference arm learned, by at least three times the margin); `was` is the status the same data had "
                "before that rule.", "",
                markdown(card[["claim", "paper reports", "tiny world", "margin", "status", "was", "note"]]), ""]),
            out / "provenance.json": json.dumps(provenance, indent=1) + "\n"}


def main(out=RESULTS_DIR / "reanalysis", readme=None) -> None:
    """Write the re-analysis into `out` (and the README's scorecard when `readme` names it): all files or none."""
    if readme is not None:  # a README without its markers is refused before the minutes of re-analysis
        with_scorecard(Path(readme).read_text(), "", readme)
    files = outputs(out)
    if readme is not None:
        files[Path(readme)] = with_scorecard(Path(readme).read_text(), files[Path(out) / "scorecard.md"], readme)
    atomic_write_texts(files)


if __name__ == "__main__":
    try:
        main(readme=README)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
