"""The claims scorecard: each paper's claim, what the paper reports, and the tiny world's verdict from the
committed studies (supported, contradicted, equivalent, could not tell, inconclusive, running or not testable here).

Introduced in notebooks/06_capacity_boundary.ipynb (one claim's row); the whole card in
notebooks/07_when_hard_helps.ipynb.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import pandas as pd

from ..errors import check
from .studies import (
    COULD_NOT_TELL,
    MARGIN,
    RESULTS_DIR,
    SMALLER_THAN_MARGIN,
    _study_provenance,
    assay_sensitivity,
    equivalence_verdict,
    holm_verdicts,
    interval_text,
    load_study,
    study_folder,
)


@dataclass(frozen=True)
class Claim:
    """One claim, and where the tiny world tests it (study None: not testable here)."""

    claim: str  # what a paper says, in one line
    paper: str  # what it reports, with its own uncertainty (seeds, problems)
    study: str | None = None  # the committed study that tests it
    model: str | tuple = ""  # the regime (model) the row reads; several: one test each, Holm-corrected together
    first: str = ""  # arm whose gain is compared: a strategy, or "TASK STRATEGY" where arms differ in task ...
    second: str = ""  # ... with this arm's ("": the first arm's gain over the base model)
    column: str = "gain.test"  # what is compared
    expected: str = "better"  # the paper's direction: better (first > second), equivalent, or worse
    steps: tuple = ()  # the lengths (optimizer steps) of the first and second arm's points (empty: all)
    fresh_from: int = 0  # first seed not shared with a pilot (seeds below it are left out)
    note: str = ""  # why it is not testable, or what differs from the paper
    regime: str = ""  # the model's regime, for the decision table ("": not a row of it)
    prompts_per_step: int = 8  # the step structure of the study's training runs
    margin: float | tuple = MARGIN  # the equivalence margin the study fixed before it ran (several models: one each)
    against_steps: tuple = ()  # set: the first - second difference at `steps` minus the same at these lengths


SIZES = ("tiny-s", "tiny-sm", "tiny-m", "tiny-l")
SKILL_LIMITED = "skill-limited (solves about 2 in 5)"
FORMAT_LIMITED = "format-limited (long answers cut off)"
STRONG = "strong, unsaturated (solves about 4 in 5)"
REGIMES = (SKILL_LIMITED, FORMAT_LIMITED, STRONG)
STRUCTURES = {8: "8 prompts per step", 1: "1 prompt per step (the paper's)"}
FOUND = {  # the status of "hard beats random" -> what its test found, in words (07)
    "supported": "hard beat random",
    "contradicted": "hard did worse than random",
    "equivalent": "no difference, within the margin",
    COULD_NOT_TELL: "could not tell (random learned too little to vouch for the margin)",
    "inconclusive": "inconclusive",
}
ADVICE = {  # the status of "hard beats random" -> what to annotate under a budget
    "supported": "the hardest: hard beat random",
    "contradicted": "a random sample: hard did worse",
    "equivalent": "either: equivalent within the margin (random needs no difficulty estimate)",
    COULD_NOT_TELL: "no rule yet: the test could not tell (random learned too little)",
    "inconclusive": "no rule yet: the test was inconclusive",
}
PAPER_STRATEGIES = "arXiv 2508.14094, 4 strategies (easy, medium, hard, random) on 3 models x 2 tasks:"
HARD_WINS = f"{PAPER_STRATEGIES} hard gained most, +34 to +47 points (no interval; its abstract gives no figure for random)"
EASY_LAST = f"{PAPER_STRATEGIES} easy gained least, +3 to +15 points (no interval; its abstract gives no figure for random)"
CLAIMS = (
    Claim("Hard beats random under a 10% budget (skill-limited model)", HARD_WINS, "regimes-hard-wins-long", "tiny-m",
          "hard", "random", steps=(100, 100), fresh_from=3, regime=SKILL_LIMITED,
          note="Holm-corrected with the format-limited row, as the study's family of two (the re-analysis): could not "
          "tell"),
    Claim("Hard beats random under a 10% budget (format-limited model)", HARD_WINS, "regimes-hard-wins-long",
          "tiny-m-wordy", "hard", "random", steps=(100, 100), fresh_from=3, regime=FORMAT_LIMITED),
    Claim("Hard beats random under a 10% budget (strong but unsaturated model)", HARD_WINS, "strong-regime-hard-wins",
          "tiny-l-strong", "hard", "random", steps=(100, 100), fresh_from=200,
          note="the regime the papers' mechanism points to: a random 10% about half all-correct groups, the hardest "
          "10% about 90% mixed", regime=STRONG),
    Claim("Hard beats random under a 10% budget (strong model, one group per step)", HARD_WINS, "one-group-hard-wins",
          "tiny-l-strong", "hard", "random", steps=(1000, 1000), fresh_from=500, regime=STRONG, prompts_per_step=1,
          margin=0.019, note="the paper's step structure: one prompt's group of 8 per optimizer step, 1,000 steps; "
          "margin a third of random's gain in the pilot"),
    Claim("Hard beats random by more with one group per step than with 8 prompts per step (strong model)",
          "the course's reading of the mechanism arXiv 2508.14094 names: a group whose rewards are all equal gives no "
          "gradient, a whole lost step when a step is one group", "one-group-hard-wins", "tiny-l-strong", "hard", "random",
          steps=(1000, 1000), against_steps=(125, 125), fresh_from=500, prompts_per_step=1, margin=0.019,
          note="(hard - random at 1 prompt per step, 1,000 steps) - (the same at 8 prompts per step, 125 steps), on the "
          "same completions; the number of updates differs with the structure"),
    Claim("Hard beats random under a 10% budget (format-limited model, one group per step)", HARD_WINS,
          "format-limited-hard-wins", "tiny-l-wordy", "hard", "random", steps=(1000, 1000), fresh_from=520,
          regime=FORMAT_LIMITED, prompts_per_step=1, margin=0.0636,
          note="the paper's step structure and regime: a strong model cut off by its length limit (96 tokens), one "
          "prompt's group of 8 per optimizer step, 1,000 steps; margin a third of random's gain in the pilot"),
    Claim("Easy gains less than random (skill-limited model)", EASY_LAST, "regimes-hard-wins", "tiny-m", "easy",
          "random", expected="worse", steps=(41, 41), fresh_from=3),
    Claim("Easy gains less than random (format-limited model)", EASY_LAST, "regimes-hard-wins", "tiny-m-wordy",
          "easy", "random", expected="worse", steps=(41, 41), fresh_from=3),
    Claim("Easy gains less than random (strong model, one group per step)", EASY_LAST, "one-group-hard-wins",
          "tiny-l-strong", "easy", "random", expected="worse", steps=(1000, 1000), fresh_from=500, prompts_per_step=1,
          margin=0.019),
    Claim("Easy gains less than random (format-limited model, one group per step)", EASY_LAST,
          "format-limited-hard-wins", "tiny-l-wordy", "easy", "random", expected="worse", steps=(1000, 1000),
          fresh_from=520, prompts_per_step=1, margin=0.0636),
    Claim("Only hard improves out of distribution", "AIME 2025-I pass@8, Qwen3-4B: hard 6/15, base, easy and random "
          "5/15 (one problem; authors' repository)", "regimes-hard-wins", "tiny-m-wordy", "hard", "random",
          column="pass_at_k_gain.ood", steps=(41, 41), fresh_from=3),
    Claim("Levels 1-3 match levels 1-5 (a boundary inside the levels)", "arXiv 2604.06298: Qwen2.5 0.5B-3B, MATH, "
          "levels 1-3 match 1-5 with ~45% of the steps", "capacity-boundary-short", "tiny-m-short", "levels-1-3",
          "levels-1-5", expected="equivalent", steps=(49, 82),
          note="the tiny boundary comes from pretraining data (levels 4-5 never seen), the paper's from model size"),
    Claim("Levels 1-3 match levels 1-5 (a boundary made by model size)", "arXiv 2604.06298: Qwen2.5 0.5B, 1.5B and 3B "
          "on the same data (MATH), levels 1-3 match 1-5 with ~45% of the steps", "size-boundary", SIZES,
          "levels-1-3", "levels-1-5", expected="equivalent", steps=(49, 82), fresh_from=310,
          note="four tiny sizes on the same data; verdicts Holm-corrected across them (intervals unadjusted). None has "
          "a boundary between levels 3 and 4: tiny-s and tiny-sm near the floor on every level (tiny-sm at most 0.13), "
          "tiny-m solving levels 4-5 a quarter of the time, tiny-l near the ceiling. This name was fixed "
          "before the run; after it the row was renamed 'across model sizes (same data)' (the study's README)"),
    Claim("Levels 1-3 match levels 1-5 (a boundary made by model size, tinymath)", "arXiv 2604.06298: Qwen2.5 "
          "0.5B, 1.5B and 3B on the same data (MATH), levels 1-3 match 1-5 with ~45% of the steps",
          "tinymath-size-boundary", ("tiny-m-math", "tiny-sm-math"), "levels-1-3", "levels-1-5", expected="equivalent",
          steps=(150, 250), fresh_from=700, margin=(0.009, 0.008),
          note="tinymath, the tiny world's MATH: two sizes pretrained on the same data; in this study's base "
          "evaluation tiny-sm-math solves levels 4-5 0.05 of the time (the floor), tiny-m-math 0.12; levels 1-3 take "
          "60% of the steps (the paper's about 45%); verdicts Holm-corrected across the two sizes"),
    Claim("Levels 1-3 match levels 1-5 (tinymath, a size that solves levels 4-5 sometimes)", "arXiv 2604.06298: "
          "Qwen2.5 0.5B, 1.5B and 3B on the same data (MATH), levels 1-3 match 1-5 with ~45% of the steps",
          "tinymath-l-boundary", "tiny-l-math", "levels-1-3", "levels-1-5", expected="equivalent", steps=(150, 250),
          fresh_from=730, margin=0.007),
    Claim("GSM8K-trained beats MATH-trained on MATH's numeric subset", "arXiv 2604.06298: Qwen2.5 0.5B-3B trained on "
          "GSM8K score higher on MATH's numeric-answer subset than the same models trained on MATH (about +5 points at "
          "1.5B, +3 at 3B)", "tinymath-cross", ("tiny-m-math", "tiny-sm-math"), "arith levels-1-5",
          "tinymath levels-1-5", fresh_from=680, margin=(0.013, 0.006),
          note="arith plays GSM8K and tinymath MATH, tested on tinymath's numeric subset; both models had already "
          "mastered arith (pools' pass rate 0.96-1.00), where the paper's base models had not solved GSM8K; verdicts "
          "Holm-corrected across the two sizes; margins a third of tinymath's gain in the pilot"),
)


def claim_verdict(claim: Claim, root=RESULTS_DIR) -> dict:
    """The tiny world's verdict on one claim: the paired difference (or gain) over fresh seeds, TOST at MARGIN, an
    equivalence counted only where the reference arm shows its own effect (`studies.assay_sensitivity`); several
    models: each one's test, Holm-corrected across them, and one status for the family. `was`: the status the same
    data had before the reference arm's effect was required."""
    if claim.study is None:
        return {"tiny world": "not run", "status": "not testable here", "was": "not testable here", "inside margin": ""}
    running = running_note(claim.study, root)
    if running:
        return {"tiny world": f"{running}; its verdict is read once every point is in",
                "status": "running", "was": "running", "inside margin": ""}
    table, _ = load_study(claim.study, root)
    table = table[table["seed"] >= claim.fresh_from]
    models = claim_models(claim)
    each = [replace(claim, margin=margin) for margin in claim_margins(claim)]
    check_claim_reads(table, claim, models)
    checks = [reference_check(table[table["model"] == model], one) for model, one in zip(models, each)]
    tests = [equivalence_verdict(claim_values(table[table["model"] == model], one), one.margin,
                                 base_variance=claim_base_variance(table[table["model"] == model], one),
                                 sensitive=c["sensitive"]) for model, one, c in zip(models, each, checks)]
    family = holm_verdicts(pd.DataFrame(tests))  # one model: as it is
    before = holm_verdicts(pd.DataFrame(tests).assign(sensitive=True))
    parts = [f"{interval_text(row)} ({row.verdict_holm}, {row.seeds} seeds{why_changed(row.verdict_holm, old, c)})"
             for row, old, c in zip(family.itertuples(), before["verdict_holm"], checks)]
    if len(models) > 1:
        parts = [f"{model} {part}" for model, part in zip(models, parts)]
    found = family_status([status(row.verdict_holm, claim.expected) for row in family.itertuples()])
    return {"tiny world": "; ".join(parts), "status": found,
            "was": family_status([status(row.verdict_holm, claim.expected) for row in before.itertuples()]),
            "inside margin": inside_margin(family["verdict_holm"]) if found == "equivalent" else ""}


def study_claim(study: str) -> Claim:
    """The one scorecard claim `study` tests (06)."""
    found = [c for c in CLAIMS if c.study == study]
    check(len(found) == 1, f"study={study!r} tests {len(found)} of the scorecard's claims; give a study that tests "
                           f"one: {', '.join(sorted({c.study for c in CLAIMS if c.study}))}")
    return found[0]


def claim_row(study: str, root=RESULTS_DIR) -> dict:
    """The scorecard's row for the claim `study` tests: its verdict in words, status and margin (06, as 07 shows it)."""
    claim = study_claim(study)
    return {"claim": claim.claim, **claim_verdict(claim, root), "margin": margin_text(claim)}


def study_margins(study: str) -> dict:
    """{model: margin} that `study` fixed before it ran, as its scorecard claim holds them (06)."""
    claim = study_claim(study)
    return dict(zip(claim_models(claim), claim_margins(claim)))


def check_claim_reads(table: pd.DataFrame, claim: Claim, models) -> None:
    """One line naming what a claim reads and its study lacks: a column, a model, an arm (after `fresh_from`)."""
    where = f"{claim.study}: '{claim.claim}'"
    wanted = [claim.column, "steps"] if claim.steps else [claim.column]
    missing = [column for column in wanted if column not in table]
    check(not missing, f"{where} reads the column {missing[0] if missing else ''!r}, which its results lack")
    for model in models:
        rows = table[table["model"] == model]
        check(len(rows) > 0, f"{where}: no point of model {model!r} from seed {claim.fresh_from} on (models there: "
                             f"{', '.join(sorted(map(str, table['model'].unique()))) or 'none'})")
        for arm in filter(None, (claim.first, claim.second)):
            check(len(arm_rows(rows, arm)) > 0, f"{where}: model {model!r} has no point of the arm {arm!r}")


def is_running(study: str, root=RESULTS_DIR) -> bool:
    """Whether a study has started and not finished (`running_note`)."""
    return bool(running_note(study, root))


def running_note(study: str, root=RESULTS_DIR) -> str:
    """'' for a study not started or finished; for one started (its grid and some records committed) with no results
    table yet, or a table aggregated while points were missing or had failed (its provenance.json lists them):
    'STUDY is running', with those counts. A failed point's seed would otherwise leave a verdict in silence."""
    folder = study_folder(study, root)
    if not (folder / "results.csv").exists():
        return f"{study} is running" if (folder / "grid.json").exists() and (folder / "points").is_dir() else ""
    provenance = _study_provenance(folder / "provenance.json", "restore it (git checkout) or make the study's "
                                   "table again")
    missing, failed = (len(provenance.get(key) or []) for key in ("missing", "failed"))
    counts = [f"{missing} point{'s' * (missing > 1)} missing"] * bool(missing) + [
        f"{failed} point{'s' * (failed > 1)} failed: `reproduce` runs {'them' if failed > 1 else 'it'} again"] * bool(failed)
    return f"{study} is running ({'; '.join(counts)})" if counts else ""


def claim_models(claim: Claim) -> tuple:
    """The models a claim reads, as a tuple (`claim.model` names one, or several)."""
    return (claim.model,) if isinstance(claim.model, str) else tuple(claim.model)


def claim_margins(claim: Claim) -> tuple:
    """A claim's margin for each model it reads, in the order of `claim.model` (one margin: the same for all)."""
    models = claim_models(claim)
    margins = tuple(claim.margin) if isinstance(claim.margin, (tuple, list)) else (claim.margin,) * len(models)
    check(len(set(models)) == len(models) and len(models) > 0,
          f"'{claim.claim}': model={claim.model!r} must name each model once, at least one")
    check(len(margins) == len(models), f"'{claim.claim}': {len(margins)} margins for {len(models)} models; give one "
                                       "margin, or one per model in the order of `model`")
    check(all(isinstance(m, (int, float)) and not isinstance(m, bool) and 0 < m < 1 for m in margins),
          f"'{claim.claim}': margin={claim.margin!r} must be a number between 0 and 1 (held-out accuracy), or one "
          "per model")
    return margins


def margin_text(claim: Claim) -> str:
    """The margin(s) a claim's study fixed before it ran, as the scorecard shows them: `0.03`, or `0.013 (tiny-m-math),
    0.006 (tiny-sm-math)` where each model has its own (07, README)."""
    margins = claim_margins(claim)
    if len(set(margins)) == 1:
        return f"{margins[0]:g}"
    return ", ".join(f"{margin:g} ({model})" for margin, model in zip(margins, claim.model))


def inside_margin(verdicts) -> str:
    """Which way a real difference smaller than the margin went ("better" or "worse"), where every model's verdict
    that found one agrees; "" where none did or they disagree."""
    directions = {v.split()[1] for v in verdicts if isinstance(v, str) and re.match(r"slightly (better|worse)\b", v)}
    return directions.pop() if len(directions) == 1 else ""


def claim_base_variance(table: pd.DataFrame, claim: Claim) -> float:
    """The base evaluation's variance a claim's verdict carries: one arm's, for its held-out gain over the base model;
    none for two arms, which must share one base evaluation (it cancels in their difference) (07)."""
    if claim.second:
        first, second = base_variance(table, claim.first, claim), base_variance(table, claim.second, claim)
        check(first == second, f"{claim.study}: '{claim.claim}' compares {claim.first} and {claim.second}, whose base "
                               f"evaluations differ (variances {first:g} and {second:g}); a paired difference needs "
                               "one shared base evaluation")
        return 0.0
    return base_variance(table, claim.first, claim)


def base_variance(table: pd.DataFrame, arm: str, claim: Claim) -> float:
    """The variance of the base evaluation one arm's held-out gains are measured from (0 for other measures)."""
    shared = f"base_variance.{claim.column.rsplit('.', 1)[-1]}"
    if not claim.column.startswith("gain.") or shared not in table:
        return 0.0
    values = arm_rows(table, arm)[shared].unique()
    check(len(values) == 1, f"{claim.study}: the arm {arm!r} of '{claim.claim}' has {len(values)} base evaluations "
                            f"({', '.join(f'{v:g}' for v in values)}); its gains must share one")
    return float(values[0])


def why_changed(verdict: str, verdict_before: str, check: dict) -> str:
    """Why requiring the reference arm's own effect changed a verdict ("" where it did not)."""
    if verdict == verdict_before:
        return ""
    if verdict == COULD_NOT_TELL:
        return f": {check['why']}"
    return f"; a real difference the margin cannot call negligible: {check['why']}"


def reference_check(table: pd.DataFrame, claim: Claim) -> dict:
    """Whether one model's rows can vouch for MARGIN: the reference (second) arm's own gain, the shared base
    evaluation's error included for held-out gains (`studies.assay_sensitivity`). A claim about one arm's gain
    over the base model has no reference arm."""
    if not claim.second:
        return {"sensitive": True, "why": ""}
    reference = arm_values(table, claim.second, claim.column, claim.steps[1:]).dropna()
    reference = reference.loc[reference.index.isin(claim_values(table, claim).index)]  # the seeds the test reads
    return assay_sensitivity(reference, claim.margin, base_variance(table, claim.second, claim), arm=claim.second)


def claim_values(table: pd.DataFrame, claim: Claim) -> pd.Series:
    """One model's per-seed values of a claim: the first arm's, minus the second's when it names one; with
    `against_steps`, that difference minus the same difference at the other lengths (paired by seed)."""
    values = arm_values(table, claim.first, claim.column, claim.steps[:1])
    if claim.second:
        values = values - paired_seeds(values, arm_values(table, claim.second, claim.column, claim.steps[1:]), claim)
    if claim.against_steps:
        values = values - paired_seeds(values, claim_values(table, replace(claim, steps=claim.against_steps,
                                                                            against_steps=())), claim)
    return values.dropna()


def paired_seeds(first: pd.Series, second: pd.Series, claim: Claim) -> pd.Series:
    """`second`, once every seed of either side has a value in both: a failed or missing point would drop its seed
    from the difference in silence (and could flip a status), as `studies.paired_by_seed` refuses."""
    lonely = sorted(set(first.dropna().index) ^ set(second.dropna().index))
    check(not lonely, f"{claim.study}: seed(s) {lonely} have a {claim.column} for only one side of "
                      f"'{claim.claim}' (a failed or missing point?); run the missing points, or set the claim's "
                      "fresh_from to leave those seeds out knowingly")
    return second


def arm_rows(table: pd.DataFrame, arm: str) -> pd.DataFrame:
    """An arm's rows: its strategy's, and of one task where the arm is named "TASK STRATEGY" ("arith levels-1-5")."""
    task, _, strategy = arm.rpartition(" ")
    rows = table[table["strategy"] == strategy]
    if task:
        check("task" in table, f"arm {arm!r} is named \"TASK STRATEGY\", but the study's results have no `task` "
                               "column; name the arm by its strategy alone")
        rows = rows[rows["task"].astype(str) == task]
    return rows


def arm_values(table: pd.DataFrame, arm: str, column: str, steps: tuple) -> pd.Series:
    """One arm's values by seed (`arm`: a strategy, or "TASK STRATEGY"), at one length when `steps` names it (an arm
    run at two lengths is never averaged)."""
    rows = arm_rows(table, arm)
    if steps:
        rows = rows[rows["steps"] == steps[0]]
    check(not rows["seed"].duplicated().any(), f"{arm}: several points per seed; name their length in Claim.steps, "
                                                   "or their task (\"TASK STRATEGY\")")
    return rows.set_index("seed")[column]


def status(verdict: str, expected: str) -> str:
    """supported / contradicted / equivalent / could not tell / inconclusive, from a verdict and the direction the
    paper claims (a difference smaller than the margin counts as none)."""
    known = ("better", "worse", "equivalent", "inconclusive", COULD_NOT_TELL)
    slightly = {f"slightly {side}{tail}" for side in ("better", "worse") for tail in ("", f" {SMALLER_THAN_MARGIN}")}
    check(isinstance(verdict, str) and (verdict in known or verdict in slightly),
          f"verdict={verdict!r} is not a verdict of studies.equivalence_verdict ({', '.join(known)})")
    check(expected in ("better", "worse", "equivalent"), f"expected={expected!r} must be better, worse or equivalent")
    if verdict in ("inconclusive", COULD_NOT_TELL):
        return verdict
    found = "equivalent" if verdict.startswith(("equivalent", "slightly")) else verdict
    if found == expected:
        return "supported"
    return "equivalent" if found == "equivalent" else "contradicted"


def family_status(statuses) -> str:
    """One status for a claim tested in several models: contradicted if any contradicts it, supported if all
    support it, equivalent if each is supported or equivalent, could not tell if the rest could not tell,
    otherwise inconclusive."""
    check(not isinstance(statuses, (str, dict)), f"statuses={statuses!r} must be a list of statuses")
    statuses = list(statuses)
    known = ("supported", "contradicted", "equivalent", COULD_NOT_TELL, "inconclusive")
    odd = [s for s in statuses if not isinstance(s, str) or s not in known]
    check(not odd, f"statuses hold {odd[0]!r}, not a status of `status()` ({', '.join(known)})" if odd else "")
    statuses = set(statuses)
    check(bool(statuses), "statuses is empty: a family needs at least one test")
    if "contradicted" in statuses:
        return "contradicted"
    if statuses == {"supported"}:
        return "supported"
    if statuses <= {"supported", "equivalent"}:
        return "equivalent"
    return COULD_NOT_TELL if statuses <= {"supported", "equivalent", COULD_NOT_TELL} else "inconclusive"


def what_it_found(status: str, inside: str = "") -> str:
    """What a "hard beats random" row's test found, in words, from its status and its `inside margin` field (07).

    An equivalence that is a real difference smaller than the margin says which way it went."""
    check(isinstance(status, str) and status in FOUND,
          f"status={status!r} is not a scorecard status ({', '.join(FOUND)}); read it from scorecard()")
    inside = "" if pd.isna(inside) else inside
    check(inside in ("", "better", "worse"), f"inside={inside!r} must be '', 'better' or 'worse' (the scorecard's "
                                             "'inside margin' column)")
    if status == "equivalent" and inside:
        return f"hard did slightly {inside}, by less than the margin"
    return FOUND[status]


IN_REACH = (SKILL_LIMITED, STRONG)  # regimes whose hardest 10% the model still solves sometimes (p above 0)


def findings_by_reach(card: pd.DataFrame) -> list[str]:
    """What the "hard beats random" rows found, in two sentences: where the hardest 10% are in reach, and not (07).

    In reach: the strong model's hardest problems are mixed; the skill-limited model's, labelled 0 of 8, are solved
    about 1 time in 8. Not: the length limit cuts the format-limited models' answers off. Rows still running are left
    out."""
    status_of = dict(zip(card["claim"], card["status"]))
    inside_of = dict(zip(card["claim"], card["inside margin"])) if "inside margin" in card else {}
    rows = [c for c in CLAIMS if c.regime and status_of.get(c.claim, "running") != "running"]
    check(len(rows) > 0, "card holds none of the scorecard's finished \"hard beats random\" rows: pass the table "
                         "scorecard() returns")

    def found(claim: Claim) -> str:
        setting = claim.claim[claim.claim.index("(") + 1:-1]  # the model's regime, named in the claim
        narrowly = " (narrowly: section 7)" if claim.regime == SKILL_LIMITED else ""  # Holm-corrected: could not tell
        return f"{setting}: {what_it_found(status_of[claim.claim], inside_of.get(claim.claim, ''))}{narrowly}"

    running = "its studies are still running"
    in_reach = "; ".join(found(c) for c in rows if c.regime in IN_REACH) or running
    cut_off = "; ".join(found(c) for c in rows if c.regime not in IN_REACH) or running
    return [f"In reach (p small but above 0), predicted: hard wins; found: {in_reach}.",
            f"Cut off by the length limit (outside the hypothesis as stated), found: {cut_off}; if the paper's model "
            "was cut off too (05), hard won there: the hypothesis does not explain that."]


def advice(status: str, inside: str = "") -> str:
    """What to annotate under a budget, from a "hard beats random" row's status and `inside margin` field (07)."""
    said = what_it_found(status, inside)
    if said == FOUND[status]:
        return ADVICE[status]
    if said.endswith("worse, by less than the margin"):  # a real difference against hard: no reason to pay for hard
        return f"a random sample: {said} (random needs no difficulty estimate)"
    return f"{ADVICE[status]}; {said}"


def cell_advice(status: str, inside: str = "") -> str:
    """A decision-table cell's advice: `advice`, or where the row has no verdict yet, that it has none."""
    if status in ("running", "not testable here"):
        return f"no rule yet: {'its study is running' if status == 'running' else 'not testable here'}"
    return advice(status, inside)


def decision_table(card: pd.DataFrame | None = None) -> pd.DataFrame:
    """What to annotate under a 10% budget, by the model's regime and the step structure (07).

    Each cell is read from a "hard beats random" row of the scorecard and names its model and that row's status (a row's
    cells may differ in model and recipe, not only in step structure); "not tested" where none ran."""
    card = scorecard() if card is None else card
    missing = [c for c in ("claim", "status") if c not in getattr(card, "columns", ())]
    check(not missing, f"card lacks column(s) {missing}: pass the table scorecard() returns")
    check(len(card) > 0, "card has no rows: pass the table scorecard() returns")
    twice = card["claim"][card["claim"].duplicated()].tolist()
    check(not twice, f"card lists claim {twice[0]!r} twice: pass the table scorecard() returns" if twice else "")
    status_of = dict(zip(card["claim"], card["status"]))
    inside_of = dict(zip(card["claim"], card["inside margin"])) if "inside margin" in card else {}
    rows = [c for c in CLAIMS if c.regime and c.claim in status_of]
    check(len(rows) > 0, "card holds none of the scorecard's \"hard beats random\" rows: pass the table scorecard() "
                         "returns")
    cells = {(c.regime, c.prompts_per_step): f"{cell_advice(status_of[c.claim], inside_of.get(c.claim, ''))} "
                                             f"({c.model}, {status_of[c.claim]})" for c in rows}
    return pd.DataFrame([{"model's regime": regime, **{name: cells.get((regime, n), "not tested")
                                                        for n, name in STRUCTURES.items()}} for regime in REGIMES])


def scorecard(root=RESULTS_DIR) -> pd.DataFrame:
    """Every claim with the paper's report, the tiny world's verdict and its status (07, README).

    Also the status before the reference arm's effect was required, and the margin its study fixed before it ran."""
    rows = [{"claim": c.claim, "paper reports": c.paper, **claim_verdict(c, root), "note": c.note,
             "margin": margin_text(c) if c.study else ""} for c in CLAIMS]
    return pd.DataFrame(rows)
