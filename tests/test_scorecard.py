"""The claims scorecard: statuses from verdicts, and the committed studies' rows pinned."""

import json
import re
from dataclasses import replace

import pandas as pd
import pytest

from course_lib import CourseError
from course_lib.research.scorecard import (
    CLAIMS,
    Claim,
    arm_values,
    claim_margins,
    claim_verdict,
    decision_table,
    family_status,
    margin_text,
    scorecard,
    status,
)


@pytest.mark.parametrize(("verdict", "expected", "said"), [
    ("better", "better", "supported"),
    ("worse", "better", "contradicted"),
    ("equivalent", "better", "equivalent"),
    ("slightly worse (a real difference, smaller than the margin)", "better", "equivalent"),
    ("slightly better (a real difference, smaller than the margin)", "equivalent", "supported"),
    ("could not tell", "equivalent", "could not tell"),
    ("could not tell", "better", "could not tell"),
    ("equivalent", "equivalent", "supported"),
    ("better", "equivalent", "contradicted"),
    ("worse", "worse", "supported"),
    ("inconclusive", "better", "inconclusive"),
])
def test_status_reads_the_verdict_against_the_papers_direction(verdict, expected, said):
    assert status(verdict, expected) == said


@pytest.fixture(scope="module")
def committed_card():
    """The committed studies' scorecard, computed once for this file's tests (each computation reads every study)."""
    return scorecard()


def test_committed_scorecard_rows(committed_card):
    card = committed_card.set_index("claim")
    skill = card.loc["Hard beats random under a 10% budget (skill-limited model)"]
    # fresh seeds 3-7 of the 100-step study (seeds 0-2 repeat earlier runs); random gained +0.041, so the 0.03 margin
    # cannot call hard's -0.012 negligible: a real difference against the claim
    assert skill["tiny world"] == ("-0.012 [-0.024, -0.001] (worse, 5 seeds; a real difference the margin cannot call "
                                   "negligible: the margin 0.03 exceeds a third of random's gain, +0.041 / 3 = +0.014)")
    assert (skill["status"], skill["was"]) == ("contradicted", "equivalent")
    assert card.loc["Easy gains less than random (format-limited model)", "status"] == "supported"
    short = card.loc["Levels 1-3 match levels 1-5 (a boundary inside the levels)"]
    assert (short["status"], short["was"]) == ("could not tell", "supported")  # levels-1-5 gained +0.024 < 3 x 0.03
    cross = card.loc["GSM8K-trained beats MATH-trained on MATH's numeric subset"]  # tinymath-cross, 12 fresh seeds
    assert cross["tiny world"] == ("tiny-m-math -0.034 [-0.039, -0.029] (worse, 12 seeds); tiny-sm-math -0.018 "
                                   "[-0.023, -0.014] (worse, 12 seeds)")
    assert (cross["status"], cross["margin"]) == ("contradicted", "0.013 (tiny-m-math), 0.006 (tiny-sm-math)")
    tinymath_size = card.loc["Levels 1-3 match levels 1-5 (a boundary made by model size, tinymath)"]  # fresh seeds
    assert tinymath_size["tiny world"] == ("tiny-m-math -0.009 [-0.010, -0.008] (worse, 15 seeds); tiny-sm-math "
                                           "-0.004 [-0.008, -0.001] (worse, 6 seeds; a real difference the margin "
                                           "cannot call negligible: the margin 0.008 exceeds a third of levels-1-5's "
                                           "gain, +0.020 / 3 = +0.007)")
    assert (tinymath_size["status"], tinymath_size["was"]) == ("contradicted", "contradicted")
    assert tinymath_size["margin"] == "0.009 (tiny-m-math), 0.008 (tiny-sm-math)"
    tinymath_l = card.loc["Levels 1-3 match levels 1-5 (tinymath, a size that solves levels 4-5 sometimes)"]  # under way
    assert (tinymath_l["status"], tinymath_l["margin"]) == ("running", "0.007")
    strong = card.loc["Hard beats random under a 10% budget (strong but unsaturated model)"]
    # the confirmatory study's six fresh seeds (200-205), none shared with its pilot (100-102)
    assert strong["tiny world"] == ("-0.001 [-0.008, +0.006] (could not tell, 6 seeds: the margin 0.03 exceeds a "
                                    "third of random's gain, +0.036 / 3 = +0.012)")
    assert (strong["status"], strong["was"]) == ("could not tell", "equivalent")
    size = card.loc["Levels 1-3 match levels 1-5 (a boundary made by model size)"]  # the name fixed before the run
    # four sizes, each with its own fresh seeds (310 on; the pilot's 300-302 left out), Holm-corrected across them
    assert size["tiny world"].startswith("tiny-s +0.002 [-0.001, +0.004] (could not tell, 5 seeds: levels-1-5 did not "
                                         "clearly learn")
    assert "tiny-m -0.007 [-0.012, -0.003] (worse, 9 seeds; a real difference" in size["tiny world"]
    assert (size["status"], size["was"]) == ("contradicted", "supported")
    assert "renamed" in size["note"]
    # the paper's step structure (one group per step), margin 0.019 fixed before the run: random gained +0.051, less
    # than three times the margin, so the narrow intervals around 0 cannot read "equivalent"
    one = card.loc["Hard beats random under a 10% budget (strong model, one group per step)"]
    assert one["tiny world"] == ("-0.003 [-0.010, +0.003] (could not tell, 8 seeds: the margin 0.019 exceeds a third "
                                 "of random's gain, +0.051 / 3 = +0.017)")
    both = card.loc["Hard beats random by more with one group per step than with 8 prompts per step (strong model)"]
    assert both["tiny world"].startswith("-0.005 [-0.014, +0.003] (could not tell, 8 seeds")
    assert card.loc["Easy gains less than random (strong model, one group per step)", "tiny world"] == (
        "-0.020 [-0.026, -0.015] (worse, 8 seeds)")
    assert (one["status"], both["status"]) == ("could not tell", "could not tell")
    assert card.loc["Easy gains less than random (strong model, one group per step)", "status"] == "supported"
    # the format-limited model with the paper's step structure (seeds 520-527, margin 0.0636 fixed before the run):
    # random gained +0.198, so the margin is vouched for; hard's -0.022 is real but inside it: equivalent by the rule
    # fixed before the run (a difference smaller than the margin counts as none)
    wordy = card.loc["Hard beats random under a 10% budget (format-limited model, one group per step)"]
    assert wordy["tiny world"] == ("-0.022 [-0.038, -0.006] (slightly worse (a real difference, smaller than the "
                                   "margin), 8 seeds)")
    assert (wordy["status"], wordy["was"]) == ("equivalent", "equivalent")
    assert card.loc["Easy gains less than random (format-limited model, one group per step)", "tiny world"] == (
        "-0.202 [-0.217, -0.188] (worse, 8 seeds)")
    # no equivalence claim reads "supported" unless its reference arm learned by at least three times the margin
    assert not ((card["status"] == "supported") & card["tiny world"].str.contains("could not tell")).any()


def test_a_claim_whose_reference_arm_did_not_learn_could_not_tell(tmp_path):
    # x - y is within 0.001 of 0 at every seed (equivalent by TOST), but y's own gain is flat: 0.001, -0.001, ...
    rows = []
    for seed, gain, wobble in zip(range(5), (0.001, -0.001, 0.0, 0.002, -0.002), (0.001, -0.001, 0.0005, -0.0005, 0)):
        rows += [{"model": "m", "seed": seed, "strategy": arm, "steps": 10, "status": "ok",
                  "gain.test": gain + wobble * (arm == "x"), "base_variance.test": 1e-6} for arm in ("x", "y")]
    (tmp_path / "flat").mkdir()
    pd.DataFrame(rows).to_csv(tmp_path / "flat" / "results.csv", index=False)
    claim = Claim("x matches y", "paper", "flat", "m", "x", "y", expected="equivalent")
    verdict = claim_verdict(claim, tmp_path)
    assert (verdict["status"], verdict["was"]) == ("could not tell", "supported")
    assert verdict["tiny world"].startswith("+0.000 [-0.001, +0.001] (could not tell, 5 seeds: y did not clearly learn")
    # the same with y gaining +0.10 +- 0.01: now the 0.03 margin is a third of y's gain, and "supported" stands
    rows = [{**row, "gain.test": row["gain.test"] + 0.10} for row in rows]
    pd.DataFrame(rows).to_csv(tmp_path / "flat" / "results.csv", index=False)
    assert claim_verdict(claim, tmp_path)["status"] == "supported"


def test_an_arm_run_at_two_lengths_is_never_averaged():
    table = pd.DataFrame({"strategy": ["levels-1-5"] * 2, "seed": [0, 0], "steps": [49, 82], "gain.test": [0.1, 0.2]})
    assert arm_values(table, "levels-1-5", "gain.test", (82,)).tolist() == [0.2]
    with pytest.raises(CourseError, match="several points per seed"):
        arm_values(table, "levels-1-5", "gain.test", ())


@pytest.mark.parametrize(("statuses", "said"), [
    (["supported", "supported"], "supported"),
    (["supported", "equivalent"], "equivalent"),
    (["supported", "inconclusive"], "inconclusive"),
    (["supported", "inconclusive", "contradicted"], "contradicted"),
    (["supported", "could not tell"], "could not tell"),
    (["equivalent", "could not tell", "inconclusive"], "inconclusive"),
])
def test_a_claim_tested_in_several_models_gets_one_status(statuses, said):
    assert family_status(statuses) == said


def test_a_claim_over_several_models_is_holm_corrected_across_them(tmp_path):
    # two sizes, five seeds: a's difference is near 0, b's is +0.10 (clearly outside the 0.03 margin); the reference
    # arm y gains 0.10 everywhere, so the 0.03 margin is a third of its gain and a's equivalence counts
    rows = []
    for model, shift in (("a", 0.0), ("b", 0.10)):
        for seed, noise in zip(range(10, 15), (0.004, -0.003, 0.001, -0.002, 0.0)):
            rows += [{"model": model, "seed": seed, "strategy": "x", "steps": 49, "status": "ok",
                      "gain.test": 0.10 + shift + noise},
                     {"model": model, "seed": seed, "strategy": "y", "steps": 82, "status": "ok",
                      "gain.test": 0.10 + noise / 2}]
    rows.append({"model": "a", "seed": 3, "strategy": "x", "steps": 49, "status": "ok", "gain.test": 0.9})  # a pilot seed
    (tmp_path / "two-sizes").mkdir()
    pd.DataFrame(rows).to_csv(tmp_path / "two-sizes" / "results.csv", index=False)
    claim = Claim("x matches y", "paper", "two-sizes", ("a", "b"), "x", "y", expected="equivalent", steps=(49, 82),
                  fresh_from=10)
    verdict = claim_verdict(claim, tmp_path)
    assert verdict["status"] == "contradicted"
    a, b = verdict["tiny world"].split("; ")
    assert a.startswith("a +0.000 [") and a.endswith("(equivalent, 5 seeds)")  # the pilot seed 3 is left out
    assert b.startswith("b +0.100 [") and b.endswith("(better, 5 seeds)")
    only_a = Claim("x matches y", "paper", "two-sizes", ("a",), "x", "y", expected="equivalent", steps=(49, 82),
                   fresh_from=10)
    assert claim_verdict(only_a, tmp_path)["status"] == "supported"


def test_a_claim_with_its_own_margin_and_a_difference_of_differences(tmp_path):
    """Hand-computed: at 1000 steps hard - random is +0.02 + noise / 2 at each seed, at 125 steps -noise / 2, so the
    difference of differences is +0.02 + noise (mean +0.02, sd 0.0016); random gains 0.06."""
    rows = []
    for seed, noise in zip(range(500, 505), (0.002, -0.002, 0.001, -0.001, 0.0)):
        rows += [{"model": "m", "seed": seed, "strategy": "hard", "steps": 1000, "gain.test": 0.08 + 1.5 * noise},
                 {"model": "m", "seed": seed, "strategy": "random", "steps": 1000, "gain.test": 0.06 + noise},
                 {"model": "m", "seed": seed, "strategy": "hard", "steps": 125, "gain.test": 0.05 - 1.5 * noise},
                 {"model": "m", "seed": seed, "strategy": "random", "steps": 125, "gain.test": 0.05 - noise}]
    (tmp_path / "one-group").mkdir()
    pd.DataFrame(rows).assign(status="ok", **{"base_variance.test": 1e-6}).to_csv(
        tmp_path / "one-group" / "results.csv", index=False)
    both = Claim("hard beats random by more at 1000 steps", "paper", "one-group", "m", "hard", "random",
                 steps=(1000, 1000), against_steps=(125, 125), margin=0.02)
    verdict = claim_verdict(both, tmp_path)  # +0.02 on average, the margin itself
    assert verdict["tiny world"].startswith("+0.020 [+0.018, +0.022] (better, 5 seeds")
    assert verdict["status"] == "supported"
    # the same data with the course's 0.03 margin: +0.02 is a real difference smaller than the margin, and random's
    # +0.06 is only twice 0.03, so the margin cannot call it negligible: plain "better"
    wide = claim_verdict(replace(both, margin=0.03), tmp_path)["tiny world"]
    assert wide.startswith("+0.020 [+0.018, +0.022] (better, 5 seeds; a real difference the margin cannot call")
    assert "the margin cannot call negligible: the margin 0.03 exceeds a third of random's gain, +0.060 / 3 = +0.020)" in wide
    at_125 = claim_verdict(Claim("hard beats random", "paper", "one-group", "m", "hard", "random", steps=(125, 125),
                                 margin=0.01), tmp_path)
    assert at_125["tiny world"].startswith("+0.000 [-0.001, +0.001] (equivalent, 5 seeds")


def test_arms_named_by_task_and_a_margin_per_model(tmp_path):
    """Hand-computed: in both models `a x` gains 0.15 and `b x` 0.20 (to +-0.002; a x - b x = -0.05 + noise / 2); the
    `a y` arm must not be read. Model m's margin 0.06 holds the -0.05 difference inside it (and b's +0.20 is over three
    margins, so it counts), model n's 0.02 does not."""
    rows = []
    for model in ("m", "n"):
        for seed, noise in zip(range(680, 685), (0.002, -0.002, 0.001, -0.001, 0.0)):
            rows += [{"model": model, "seed": seed, "task": "a", "strategy": "x", "gain.test": 0.15 + noise},
                     {"model": model, "seed": seed, "task": "b", "strategy": "x", "gain.test": 0.20 + noise / 2},
                     {"model": model, "seed": seed, "task": "a", "strategy": "y", "gain.test": 0.9}]
    (tmp_path / "cross").mkdir()
    pd.DataFrame(rows).assign(status="ok", steps=150, **{"base_variance.test": 1e-6}).to_csv(
        tmp_path / "cross" / "results.csv", index=False)
    claim = Claim("a beats b", "paper", "cross", ("m", "n"), "a x", "b x", fresh_from=680, margin=(0.06, 0.02))
    verdict = claim_verdict(claim, tmp_path)
    m, n = verdict["tiny world"].split("; ")
    assert m.startswith("m -0.050 [-0.051, -0.049] (slightly worse") and n.startswith("n -0.050 [-0.051, -0.049] (worse")
    assert verdict["status"] == "contradicted"  # n's difference is outside its margin, against the claim
    assert margin_text(claim) == "0.06 (m), 0.02 (n)" and margin_text(replace(claim, margin=0.03)) == "0.03"
    assert claim_margins(replace(claim, model="m", margin=0.03)) == (0.03,)
    with pytest.raises(CourseError, match="several points per seed; .* or their task"):
        claim_verdict(replace(claim, first="x", second="y"), tmp_path)  # x without its task: two rows per seed
    for margin, said in [((0.06,), "1 margins for 2 models"), ((0.06, "0.02"), "must be a number between 0 and 1"),
                         ((0.06, 0.0), "must be a number between 0 and 1")]:
        with pytest.raises(CourseError, match=re.escape(said)):
            claim_margins(replace(claim, margin=margin))


def write_study(root, name, rows):
    (root / name).mkdir()
    pd.DataFrame(rows).assign(status="ok", steps=150).to_csv(root / name / "results.csv", index=False)


def test_each_arm_reads_its_own_base_evaluation_whatever_the_row_order(tmp_path):
    """Hostile round 15: the base variance came from the table's first row, so the order of rows moved a verdict."""
    rows = [row for seed, noise in zip(range(5), (0.002, -0.002, 0.001, -0.001, 0.0)) for row in (
        {"model": "m", "seed": seed, "task": "a", "strategy": "x", "gain.test": 0.101 + noise, "base_variance.test": 0.0},
        {"model": "m", "seed": seed, "task": "b", "strategy": "x", "gain.test": 0.100 + noise,
         "base_variance.test": 0.004})]
    write_study(tmp_path, "ab", rows)
    write_study(tmp_path, "ba", rows[1::2] + rows[0::2])
    for study in ("ab", "ba"):
        one = claim_verdict(Claim("b x gains", "p", study, "m", "b x"), tmp_path)
        assert one["tiny world"].startswith("+0.100 [-0.0") and one["status"] == "inconclusive"  # b's own base error
        with pytest.raises(CourseError, match="whose base evaluations differ"):
            claim_verdict(Claim("a x matches b x", "p", study, "m", "a x", "b x", expected="equivalent"), tmp_path)


@pytest.mark.parametrize(("edit", "said"), [
    ({"model": "mm"}, "no point of model 'mm' from seed 0 on (models there: m)"),
    ({"fresh_from": 99}, "no point of model 'm' from seed 99 on"),
    ({"column": "gain.ood"}, "reads the column 'gain.ood', which its results lack"),
    ({"first": "xx"}, "model 'm' has no point of the arm 'xx'"),
    ({"first": "c x"}, "model 'm' has no point of the arm 'c x'"),
    ({"model": ("m", "m"), "margin": (0.06, 0.02)}, "must name each model once"),
    ({"model": ()}, "must name each model once, at least one"),
])
def test_what_a_claim_reads_and_its_study_lacks_is_one_line(tmp_path, edit, said):
    rows = [{"model": "m", "seed": seed, "task": task, "strategy": "x", "gain.test": 0.1, "base_variance.test": 0.0}
            for seed in range(5) for task in "ab"]
    write_study(tmp_path, "ab", rows)
    with pytest.raises(CourseError, match=re.escape(said)):
        claim_verdict(replace(Claim("a x beats b x", "p", "ab", "m", "a x", "b x"), **edit), tmp_path)


def test_the_decision_table_says_a_running_row_has_no_rule_yet(committed_card):
    card = committed_card
    regime_row = next(c.claim for c in CLAIMS if c.regime)
    table = decision_table(card.assign(status=card["status"].where(card["claim"] != regime_row, "running")))
    assert table.to_string().count("no rule yet: its study is running") == 1
    with pytest.raises(CourseError, match="holds none of the scorecard's"):
        decision_table(pd.DataFrame([{"claim": "something else", "status": "supported"}]))


def test_a_study_still_running_has_no_verdict_yet(tmp_path):
    (tmp_path / "cross" / "points").mkdir(parents=True)
    (tmp_path / "cross" / "grid.json").write_text("[]")
    claim = Claim("a beats b", "paper", "cross", ("m", "n"), "a x", "b x", margin=(0.06, 0.02))
    assert claim_verdict(claim, tmp_path) == {"tiny world": "cross is running; its verdict is read once every point "
                                                            "is in", "status": "running", "was": "running",
                                              "inside margin": ""}
    (tmp_path / "cross" / "grid.json").unlink()  # no grid: not a study that started, one line naming the file
    with pytest.raises(CourseError, match="no results.csv"):
        claim_verdict(claim, tmp_path)


def test_a_study_aggregated_with_points_missing_is_still_running(tmp_path):
    """Hostile round 20: `aggregate` on a study half done wrote a results table, and the scorecard read a verdict
    from the seeds done so far; a table whose provenance lists missing points is a study still running."""
    import shutil

    from course_lib.research.scorecard import CLAIMS
    from course_lib.research.studies import RESULTS_DIR

    claim = next(c for c in CLAIMS if c.study == "strong-regime-hard-wins")
    folder = tmp_path / claim.study
    shutil.copytree(RESULTS_DIR / claim.study, folder)
    assert claim_verdict(claim, tmp_path)["status"] != "running"  # every point in
    provenance = json.loads((folder / "provenance.json").read_text())
    (folder / "provenance.json").write_text(json.dumps({**provenance, "missing": ["a", "b"]}))
    assert claim_verdict(claim, tmp_path) == {
        "tiny world": f"{claim.study} is running (2 points missing); its verdict is read once every point is in",
        "status": "running", "was": "running", "inside margin": ""}


def test_a_study_whose_points_failed_gives_no_verdict_until_they_are_run_again(tmp_path):
    """Hostile round 21: when both arms of one seed failed (a node lost), `aggregate` listed them failed and the
    scorecard read its verdict from the seeds left, in silence (4 of 5 single seeds changed the status)."""
    import shutil

    from course_lib.research.scorecard import CLAIMS
    from course_lib.research.studies import RESULTS_DIR

    claim = next(c for c in CLAIMS if c.study == "strong-regime-hard-wins")
    folder = tmp_path / claim.study
    shutil.copytree(RESULTS_DIR / claim.study, folder)
    table = pd.read_csv(folder / "results.csv")
    seed = sorted(table["seed"])[-1]
    lost = table["seed"] == seed
    table.loc[lost, "status"] = "failed"
    table.to_csv(folder / "results.csv", index=False)
    provenance = json.loads((folder / "provenance.json").read_text())
    failed = sorted(table.loc[lost, "point"])
    (folder / "provenance.json").write_text(json.dumps({**provenance, "failed": failed}))
    assert claim_verdict(claim, tmp_path) == {
        "tiny world": f"{claim.study} is running ({len(failed)} points failed: `reproduce` runs them again); its "
                      "verdict is read once every point is in",
        "status": "running", "was": "running", "inside margin": ""}
    shutil.rmtree(folder / "points", ignore_errors=True)  # round 22: a copy shared without its bulky records
    assert claim_verdict(claim, tmp_path)["status"] == "running"


def test_a_table_without_the_provenance_aggregate_writes_beside_it_says_aggregate_was_cut(tmp_path):
    """Hostile round 21: a kill between aggregate's two writes left a results.csv alone, and the scorecard blamed a
    row deleted by hand and a provenance.json that did not exist."""
    import shutil

    from course_lib.research.studies import RESULTS_DIR, load_study

    folder = tmp_path / "strong-regime-hard-wins"
    shutil.copytree(RESULTS_DIR / folder.name, folder)
    table = pd.read_csv(folder / "results.csv")
    table.iloc[:-2].to_csv(folder / "results.csv", index=False)  # the table of a sweep not finished
    (folder / "provenance.json").unlink()
    with pytest.raises(CourseError, match=r"lacks 2 of its grid's \d+ points and has no provenance.json beside it "
                                          r"\(`aggregate` was interrupted, or the file deleted\): run `aggregate` "
                                          "again"):
        load_study(folder.name, tmp_path)


def test_the_decision_table_reads_each_cell_from_its_scorecard_row(committed_card):
    from course_lib.research.scorecard import CLAIMS, FORMAT_LIMITED, SKILL_LIMITED, STRONG, decision_table

    table = decision_table(committed_card).set_index("model's regime")
    assert table.loc[SKILL_LIMITED, "8 prompts per step"] == ("a random sample: hard did worse "
                                                             "(tiny-m, contradicted)")
    assert table.loc[STRONG, "8 prompts per step"].endswith("(tiny-l-strong, could not tell)")
    assert table.loc[FORMAT_LIMITED, "8 prompts per step"].startswith("either: equivalent within the margin")
    # a cell follows its row: a supported "hard beats random" becomes "the hardest"; a row that never ran is missing
    card = pd.DataFrame({"claim": [c.claim for c in CLAIMS], "status": "supported"})
    made_up = decision_table(card).set_index("model's regime")
    assert made_up.loc[STRONG, "8 prompts per step"] == ("the hardest: hard beat random "
                                                            "(tiny-l-strong, supported)")
    assert made_up.loc[STRONG, "1 prompt per step (the paper's)"] == ("the hardest: hard beat random "
                                                                      "(tiny-l-strong, supported)")
    assert table.loc[STRONG, "1 prompt per step (the paper's)"] == ("no rule yet: the test could not tell (random learned "
                                                                   "too little) "
                                                                   "(tiny-l-strong, could not tell)")
    assert made_up.loc[SKILL_LIMITED, "1 prompt per step (the paper's)"] == "not tested"
    # the format-limited model with the paper's step structure: within the margin, and the cell says which way
    assert table.loc[FORMAT_LIMITED, "1 prompt per step (the paper's)"] == (
        "a random sample: hard did slightly worse, by less than the margin (random needs no difficulty estimate) "
        "(tiny-l-wordy, equivalent)")


@pytest.mark.parametrize(("inside", "said"), [
    ("worse", "a random sample: hard did slightly worse, by less than the margin (random needs no difficulty "
              "estimate)"),
    ("better", "either: equivalent within the margin (random needs no difficulty estimate); hard did slightly better, "
               "by less than the margin"),
    ("", "either: equivalent within the margin (random needs no difficulty estimate)"),
    (float("nan"), "either: equivalent within the margin (random needs no difficulty estimate)"),  # a CSV's blank
])
def test_the_advice_for_an_equivalence_says_which_way_a_real_difference_went(inside, said):
    """A real difference against hard, inside the margin, is no reason to pay for difficulty labels: random."""
    from course_lib.research.scorecard import ADVICE, advice

    assert advice("equivalent", inside) == said
    assert advice("contradicted", inside) == ADVICE["contradicted"]  # only an equivalence carries the direction


def test_what_a_test_found_names_the_direction_of_a_difference_inside_the_margin():
    from course_lib.research.scorecard import FOUND, what_it_found

    assert what_it_found("equivalent", "worse") == "hard did slightly worse, by less than the margin"
    assert what_it_found("equivalent") == FOUND["equivalent"]
    assert what_it_found("could not tell", "worse") == FOUND["could not tell"]


def test_findings_by_reach_puts_each_hard_beats_random_row_in_its_sentence(committed_card):
    from course_lib.research.scorecard import FOUND, IN_REACH, findings_by_reach

    rows = [c for c in CLAIMS if c.regime]
    card = pd.DataFrame([{"claim": c.claim, "status": s, "inside margin": ""}
                         for c, s in zip(rows, ["supported", "contradicted", "could not tell", "equivalent", "running"])])
    in_reach, cut_off = findings_by_reach(card)
    for claim, found in zip(rows[:4], card["status"]):
        setting = claim.claim[claim.claim.index("(") + 1:-1]
        said = f"{setting}: {FOUND[found]}"
        assert (said in in_reach, said in cut_off) == (claim.regime in IN_REACH, claim.regime not in IN_REACH), said
    assert rows[4].claim[rows[4].claim.index("(") + 1:-1] + ":" not in in_reach + cut_off  # still running: left out
    committed = findings_by_reach(committed_card)
    assert committed[0].startswith("In reach") and committed[1].startswith("Cut off")
    with pytest.raises(CourseError, match="none of the scorecard's finished"):
        findings_by_reach(card.assign(status="running"))
    # hostile round 23: every in-reach row running read "found: ."
    reach = card.assign(status=[s if c.regime not in IN_REACH else "running" for c, s in zip(rows, card["status"])])
    assert findings_by_reach(reach)[0].endswith("found: its studies are still running.")


@pytest.mark.parametrize(("status", "inside", "named"), [
    ("bogus", "", "status='bogus'"), (float("nan"), "", "status=nan"), ("equivalent", "sideways", "inside='sideways'"),
    ("equivalent", "-0.02 (slightly worse, 8 seeds)", "inside="),
])
def test_what_it_found_refuses_a_status_or_direction_it_does_not_know_in_one_line(status, inside, named):
    from course_lib.research.scorecard import advice, what_it_found

    for function in (what_it_found, advice):
        with pytest.raises(ValueError, match=re.escape(named)):
            function(status, inside)


def test_the_scorecard_carries_the_direction_inside_the_margin_as_a_field(committed_card):
    """The direction comes from the verdicts, not from parsing the "tiny world" text."""
    from course_lib.research.scorecard import inside_margin

    assert inside_margin(["slightly worse (a real difference, smaller than the margin)"]) == "worse"
    assert inside_margin(["slightly better", "equivalent"]) == "better"
    assert inside_margin(["slightly better", "slightly worse"]) == ""  # models disagree: no single direction
    assert inside_margin(["equivalent", float("nan")]) == ""
    card = committed_card.set_index("claim")
    assert card.loc["Hard beats random under a 10% budget (format-limited model, one group per step)",
                    "inside margin"] == "worse"
    assert set(card["inside margin"]) <= {"", "better", "worse"}
    assert (card.loc[card["inside margin"] != "", "status"] == "equivalent").all()


@pytest.mark.parametrize("card", [pd.DataFrame({"claim": ["x"]}), pd.DataFrame({"status": ["supported"]}), [1, 2]])
def test_decision_table_refuses_a_card_without_claims_and_statuses(card):
    with pytest.raises(ValueError, match="pass the table scorecard"):
        decision_table(card)


def test_a_claim_about_one_arms_gain_carries_the_base_evaluations_error(tmp_path):
    """A claim with no reference arm (x's own gain over the base model) left out the shared base evaluation's
    error, which no seed-to-seed spread can see: +0.05 from five close seeds read as clearly better."""
    rows = [{"model": "m", "seed": seed, "strategy": "x", "steps": 10, "status": "ok", "gain.test": 0.05 + 0.001 * seed,
             "base_variance.test": 0.001} for seed in range(5)]
    (tmp_path / "one").mkdir()
    pd.DataFrame(rows).to_csv(tmp_path / "one" / "results.csv", index=False)
    claim = Claim("x gains", "paper", "one", "m", "x", "", expected="better")
    assert claim_verdict(claim, tmp_path)["status"] == "inconclusive"  # sd of the mean ~0.032 from the base alone
    pd.DataFrame([{**row, "base_variance.test": 0.0} for row in rows]).to_csv(tmp_path / "one" / "results.csv",
                                                                           index=False)
    assert claim_verdict(claim, tmp_path)["status"] == "supported"


def test_a_failed_point_is_named_not_dropped_from_a_claims_pairs(tmp_path):
    """A failed hard point (seed 5) dropped its seed from the paired difference in silence and turned the row
    'contradicted, 5 seeds' into 'could not tell, 4 seeds'."""
    import shutil

    from course_lib import CourseError
    from course_lib.research.scorecard import CLAIMS, claim_verdict
    from course_lib.research.studies import RESULTS_DIR

    shutil.copytree(RESULTS_DIR / "regimes-hard-wins-long", tmp_path / "regimes-hard-wins-long")
    path = tmp_path / "regimes-hard-wins-long" / "results.csv"
    table = pd.read_csv(path)
    row = (table["model"] == "tiny-m") & (table["strategy"] == "hard") & (table["seed"] == 5) & (table["steps"] == 100)
    assert row.sum() == 1
    table.loc[row, "status"] = "failed"  # as `aggregate` writes a failed point: no results, named in provenance
    table.loc[row, [c for c in table.columns if c.startswith(("accuracy_", "gain", "pass_at_k"))]] = None
    table.to_csv(path, index=False)
    provenance_path = path.with_name("provenance.json")
    provenance = json.loads(provenance_path.read_text())
    provenance["failed"] = [*provenance.get("failed", []), *table.loc[row, "point"]]
    provenance_path.write_text(json.dumps(provenance))
    assert claim_verdict(CLAIMS[0], root=tmp_path)["tiny world"] == (  # round 21: a failed point: no verdict yet
        "regimes-hard-wins-long is running (1 point failed: `reproduce` runs it again); its verdict is read once every "
        "point is in")
    provenance_path.write_text(json.dumps({**provenance, "failed": []}))  # the status edited, the provenance not
    with pytest.raises(CourseError, match="marks point .* failed, but its provenance.json does not name it"):
        claim_verdict(CLAIMS[0], root=tmp_path)


@pytest.mark.parametrize(("call", "named"), [
    (lambda: status("Better", "better"), "verdict='Better'"),
    (lambda: status("", "better"), "verdict=''"),
    (lambda: status("better", "beats"), "expected='beats'"),
    (lambda: family_status([]), "statuses is empty"),
    (lambda: family_status("supported"), "statuses='supported'"),
])
def test_a_mistyped_verdict_direction_or_family_is_one_line(call, named):
    """Round 12: each read as a status (contradicted, equivalent, inconclusive) for someone writing their own Claim."""
    with pytest.raises(CourseError, match=re.escape(named)):
        call()


@pytest.mark.parametrize("statuses", [["supported", "Contradicted"], ["supported", None], ["suported"],
                                      ["equivalent", float("nan")]])
def test_family_status_refuses_a_status_it_does_not_know(statuses):
    """Round 13: a misspelled status read as 'inconclusive'."""
    with pytest.raises(ValueError, match=re.escape("not a status of `status()`")):
        family_status(statuses)


def test_decision_table_refuses_an_empty_card_or_a_claim_listed_twice():
    from course_lib.research.scorecard import CLAIMS

    with pytest.raises(ValueError, match="card has no rows"):
        decision_table(pd.DataFrame({"claim": [], "status": []}))
    twice = pd.DataFrame({"claim": [CLAIMS[0].claim] * 2, "status": ["supported", "contradicted"]})
    with pytest.raises(ValueError, match="lists claim .* twice"):
        decision_table(twice)


def test_only_the_verdicts_equivalence_verdict_writes_are_read():
    """Round 13: any text starting with 'slightly ' passed, and inside_margin(['slightly ']) was an IndexError."""
    from course_lib.research.scorecard import inside_margin

    with pytest.raises(ValueError, match="is not a verdict"):
        status("slightly better but bogus", "worse")
    assert status("slightly worse", "better") == "equivalent"
    assert inside_margin(["slightly "]) == ""
    with pytest.raises(ValueError, match="must be a list of statuses"):
        family_status({"supported": 1})


def test_the_skill_limited_rows_note_says_what_the_reanalysis_found():
    """The scorecard reads the skill-limited row alone (contradicted); its note names the Holm-corrected verdict of
    the study's family of two, which the re-analysis computes: the note must say what that table says."""
    from course_lib.research.scorecard import CLAIMS
    from course_lib.research.studies import RESULTS_DIR

    claim = next(c for c in CLAIMS if c.claim == "Hard beats random under a 10% budget (skill-limited model)")
    table = pd.read_csv(RESULTS_DIR / "reanalysis" / "paired_verdicts.csv")
    row = table[(table.study == claim.study) & (table.model == claim.model) & (table["seeds used"] == "fresh only")
                & (table.difference == "hard - random")]
    assert len(row) == 1 and claim.note.endswith(f": {row['verdict_holm'].iloc[0]}")
