"""Committed results are consistent with themselves, load, and are remade from what they were made of."""

import json
import os
import re
from pathlib import Path

import pytest

from course_lib.evaluation import compare
from course_lib.training import load_trained

ROOT = Path(__file__).resolve().parent.parent
RESULT = ROOT / "data" / "results" / "grpo-tiny-m"


def test_committed_gain_recomputes_from_the_committed_evaluations():
    after = json.loads((RESULT / "eval_trained.json").read_text())
    before = json.loads((RESULT / "eval_base.json").read_text())
    gain = json.loads((RESULT / "gain.json").read_text())
    again = compare(after, before, seed=0)
    assert again["mean_difference"] == gain["mean_difference"]
    assert (again["ci_low"], again["ci_high"]) == pytest.approx((gain["ci_low"], gain["ci_high"]), abs=1e-4)
    assert gain["ci_low"] > 0  # the interval excludes zero
    for result in (after, before):
        assert result["commit"] and not result["commit"].endswith("+dirty") and result["versions"]["trl"]
        assert result["command"].startswith("python -m course_lib evaluate")


def test_compare_on_pass_at_k_scores_each_problem_as_solved_within_k():
    before = {"per_problem": [{"id": "a", "k": 8, "n_correct": 0, "pass_rate": 0.0},
                              {"id": "b", "k": 8, "n_correct": 1, "pass_rate": 0.125}]}
    after = {"per_problem": [{"id": "a", "k": 8, "n_correct": 1, "pass_rate": 0.125},
                             {"id": "b", "k": 8, "n_correct": 1, "pass_rate": 0.125}]}
    assert compare(after, before, pass_k=8)["mean_difference"] == 0.5  # a: 0 -> 1 within 8 samples; b: 1 -> 1
    assert compare(after, before)["mean_difference"] == 0.0625  # pass@1: (0.125 + 0) / 2


def test_committed_adapter_loads_onto_tiny_m():
    import torch

    from course_lib.models import load_model

    run = json.loads((RESULT / "run" / "run_config.json").read_text())
    assert run["model"] == "tiny-m" and run["config"]["lora"] and run["config"]["steps"] == 150
    model, tokenizer = load_trained(str(RESULT / "run"), device="cpu")
    assert type(model).__name__ == "Qwen2ForCausalLM"
    base, _ = load_model("tiny-m", device="cpu")
    ids = torch.tensor([tokenizer("Q: 12+7-3=?\nA: ")["input_ids"]])
    with torch.no_grad():
        change = (model(ids).logits - base(ids).logits).abs().max().item()
    assert change > 1e-3  # the adapter is merged: this is the trained model, not tiny-m itself


# Two committed points whose gains differ by more than their noise bands: a pipeline that reports one constant gain
# (e.g. the base model evaluated twice: 0) cannot reproduce both
RERUN_POINTS = [
    ("capacity-boundary", {"MODEL": "tiny-s", "STRATEGY": "levels-1-3", "SEED": 0}),  # gain -0.001 [-0.012, +0.010]
    ("hard-wins", {"TASK": "arith", "STRATEGY": "hard", "SEED": 0}),  # gain +0.042 [+0.014, +0.070]
]


@pytest.mark.slow
@pytest.mark.parametrize(("study", "where"), RERUN_POINTS, ids=[study for study, _ in RERUN_POINTS])
def test_a_committed_study_point_reruns_within_noise(tmp_path, study, where):
    """Re-run one small committed grid point from scratch (empty cache) and compare: the selection, the base
    accuracy and the gain itself, which must also keep the committed interval's side of 0."""
    from course_lib.research.studies import load_study
    from course_lib.research.sweep import expand, point_name, run_point_notebook

    table, provenance = load_study(study)
    assert provenance["profile"] == "tiny" and not provenance["failed"]
    point = next(p for p in expand(study, "tiny") if all(p[key] == value for key, value in where.items()))
    committed = table.set_index("point").loc[point_name(point)]
    rerun = run_point_notebook(point, tmp_path)
    assert rerun["status"] == "ok", rerun.get("error")
    assert (rerun["n_selected"], rerun["steps"]) == (committed["n_selected"], committed["steps"])  # same selection
    assert rerun["selected_mean_pass_rate"] == pytest.approx(committed["selected_mean_pass_rate"], abs=0.02)
    assert rerun["accuracy_before"]["test"] == pytest.approx(committed["accuracy_before.test"], abs=0.02)
    low, high = json.loads(committed["gain_ci.test"])  # the committed point's own 95% paired-bootstrap interval
    assert abs(rerun["gain"]["test"] - committed["gain.test"]) <= (high - low) / 2
    rerun_low, rerun_high = rerun["gain_ci"]["test"]
    if low > 0:  # a committed gain that excludes 0 is reproduced as one
        assert rerun_low > 0
    if high < 0:
        assert rerun_high < 0


STUDIES_WITH_POINTS = sorted(p.parent.name for p in (ROOT / "data" / "results").glob("*/points")
                             if (p.parent / "results.csv").exists())
STUDIES_IN_PROGRESS = sorted(p.parent.name for p in (ROOT / "data" / "results").glob("*/points")
                             if not (p.parent / "results.csv").exists())


@pytest.mark.parametrize("study", STUDIES_WITH_POINTS)
def test_every_committed_study_table_is_remade_by_aggregate_byte_for_byte(tmp_path, study):
    """The studies' collect step: `aggregate` over a study's committed point records writes its committed
    results.csv again, byte for byte (the library's layout changed around them; the tables did not)."""
    import shutil

    from conftest import run_cli_in_process

    folder = ROOT / "data" / "results" / study
    copy = tmp_path / study
    shutil.copytree(folder, copy)
    done = run_cli_in_process("aggregate", study, "--out", copy)
    assert done.returncode == 0, done.stderr
    assert (copy / "results.csv").read_bytes() == (folder / "results.csv").read_bytes()


@pytest.mark.parametrize("study", STUDIES_IN_PROGRESS or ["(none in progress)"])
def test_a_study_in_progress_commits_only_finished_records_of_its_own_grid(tmp_path, study):
    """A study that spans sessions commits its finished point records before its table (reproduce.sh's
    COLLECT_ONLY): each is a successful record of a point in its committed grid, which that grid's next run resumes
    from instead of training again."""
    import shutil

    from course_lib.research.sweep import done_record, expand, point_name

    if study == "(none in progress)":
        return
    folder = tmp_path / study  # a copy: a record found unsound would be renamed `.damaged` where it lies
    shutil.copytree(ROOT / "data" / "results" / study, folder)
    grid = json.loads((folder / "grid.json").read_text())
    expected = expand(study, "tiny", overrides=grid.get("overrides"))
    assert grid["study"] == study and grid["points"] and all(point in expected for point in grid["points"])
    by_name = {point_name(point): point for point in grid["points"]}
    files = sorted(path.stem for path in (folder / "points").iterdir())
    assert files and set(files) <= set(by_name), "a committed record names no point of the committed grid"
    for name in files:
        record = done_record(folder, by_name[name])
        assert record and record["status"] == "ok", name


def test_compare_and_the_bootstrap_refuse_what_they_cannot_read_in_one_line():
    """The library's compare takes evaluate's dicts (the command line takes paths); a 95 for 0.95 is named."""
    from course_lib import CourseError
    from course_lib.evaluation import paired_bootstrap

    for after, before in [("a.json", "b.json"), ([], [])]:
        with pytest.raises(CourseError, match="after must be what `evaluate` returns"):
            compare(after, before)
    with pytest.raises(CourseError, match=r"confidence=95 must be a share in \(0, 1\)"):
        paired_bootstrap([1.0, 0.0], [0.0, 1.0], confidence=95)
    assert paired_bootstrap([1.0, 0.0, 1.0], [0.0, 0.0, 1.0], confidence=0.9)["mean_difference"] == pytest.approx(1 / 3, abs=1e-4)


def test_the_bootstrap_pairs_two_series_by_their_labels_and_correlation_refuses_nan():
    """Two per-problem columns sorted differently were paired by position (an interval of [-1, 1] for two identical
    evaluations); a NaN gave a rank correlation of nan with an interval of [1, 1]."""
    import pandas as pd

    from course_lib import CourseError
    from course_lib.evaluation import paired_bootstrap
    from course_lib.research.studies import rank_correlation

    after = pd.Series([1.0, 0.0, 0.5], index=["a", "b", "c"])
    result = paired_bootstrap(after, after.iloc[::-1])
    assert (result["mean_difference"], result["ci_low"], result["ci_high"]) == (0.0, 0.0, 0.0)
    with pytest.raises(CourseError, match="Series over different problems"):
        paired_bootstrap(after, pd.Series([1.0, 0.0, 0.5], index=["a", "b", "d"]))
    with pytest.raises(CourseError, match="must be finite numbers"):
        rank_correlation([1, float("nan"), 3, 4], [1, 2, 3, 4])


def test_the_statistics_helpers_refuse_what_is_not_a_count_a_share_or_a_probability():
    from course_lib import CourseError
    from course_lib.difficulty import wilson_interval
    from course_lib.research.studies import base_variance_bound, holm_adjusted

    assert wilson_interval(3.0, 8) == wilson_interval(3, 8)  # a whole number read as a float is a count
    for bad in ((2.5, 5), (True, 5), (float("nan"), 5)):
        with pytest.raises(CourseError, match="must be whole numbers"):
            wilson_interval(*bad)
    with pytest.raises(CourseError, match="must be a share from 0 to 1"):
        base_variance_bound(2.0, 4, 100)  # its variance came out negative
    for bad in ([0.01, 1.5], [0.01, float("nan")]):
        with pytest.raises(CourseError, match="must be probabilities from 0 to 1"):
            holm_adjusted(bad)


def test_accuracy_intervals_are_over_problems_not_samples():
    """300 problems of 16 samples each: problems that differ widen the interval (samples of one problem are not
    independent), problems that score alike keep Wilson's over all samples, and the interval holds the accuracy."""
    import numpy as np
    import pandas as pd

    from course_lib.difficulty import wilson_interval
    from course_lib.evaluation import interval_over_problems, summarize_accuracy

    rates = np.random.default_rng(0).uniform(0, 1, 300)
    hits = np.random.default_rng(1).binomial(16, rates)
    low, high = interval_over_problems(hits, [16] * 300)
    wilson_low, wilson_high = wilson_interval(int(hits.sum()), 4800)
    assert low <= hits.sum() / 4800 <= high and high - low > 2 * (wilson_high - wilson_low)
    alike = interval_over_problems([8] * 300, [16] * 300)  # the spread between problems unseen: Wilson over 300
    assert alike == pytest.approx(wilson_interval(150, 300))
    table = pd.DataFrame({"level": [1] * 300, "k": 16, "n_correct": hits})
    overall = summarize_accuracy(table)["overall"]
    assert (overall["ci_low"], overall["ci_high"]) == (round(low, 4), round(high, 4))
    one = interval_over_problems([18], [200])  # one problem of 200 samples says little of other problems
    assert one == pytest.approx(wilson_interval(0, 1), abs=0.12) and one[1] - one[0] > 0.7
    assert interval_over_problems([0] * 5, [16] * 5) == pytest.approx(wilson_interval(0, 5))  # not [0, 0.05]


def outcome_command(study: str) -> list[str] | None:
    """The outcome script (and its arguments) a study's make.sh runs to write outcome.md, None if it runs none."""
    import re

    found = re.search(r"data/results/(\w+_outcome\.py)( [\w-]+)? > data/results/[\w-]+/outcome\.md",
                      (ROOT / "data" / "results" / study / "make.sh").read_text())
    return [found.group(1), *found.group(2).split()] if found and found.group(2) else [found.group(1)] if found else None


STUDIES_WITH_OUTCOME_TABLES = sorted(p.parent.name for p in (ROOT / "data" / "results").glob("*/outcome.md")
                                     if outcome_command(p.parent.name))  # the probes' report.py: tested elsewhere


@pytest.mark.parametrize("study", STUDIES_WITH_OUTCOME_TABLES)
def test_a_studys_outcome_tables_are_remade_from_its_results_byte_for_byte(study):
    """A study's outcome.md is what the outcome script its make.sh names (data/results/*_outcome.py) prints from its
    committed results.csv, never edited by hand."""
    import subprocess
    import sys

    folder = ROOT / "data" / "results" / study
    command = outcome_command(study)
    done = subprocess.run([sys.executable, str(ROOT / "data" / "results" / command[0]), *command[1:]],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (folder / "outcome.md").read_text()


@pytest.mark.parametrize("probes", sorted(p.parent.name for p in (ROOT / "data" / "results").glob("*/report.py")))
def test_a_probe_sets_outcome_is_remade_by_its_report_byte_for_byte(probes, tmp_path):
    """A probe set's outcome.md is what its report.py writes from its committed probes.csv (run on a copy, so a
    difference never touches the committed file)."""
    import shutil
    import subprocess
    import sys

    results = tmp_path / "data" / "results"
    shutil.copytree(ROOT / "data" / "results" / probes, results / probes)
    shutil.copy(ROOT / "data" / "results" / "tinymath_probes.py", results)
    (results / probes / "outcome.md").unlink()
    done = subprocess.run([sys.executable, str(results / probes / "report.py")], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert (results / probes / "outcome.md").read_text() == (ROOT / "data" / "results" / probes / "outcome.md").read_text()


@pytest.mark.parametrize("study", sorted(p.parent.name for p in (ROOT / "data" / "results").glob("*/analyze.py")
                                         if (p.parent / "analysis.md").exists()))
def test_a_studys_analysis_is_remade_from_its_results_byte_for_byte(study):
    """analysis.md is what the study's analyze.py (run by its make.sh) writes from the committed results.csv, never
    edited by hand; a wording change in the library's verdicts shows here until the file is made again."""
    import runpy

    report = runpy.run_path(str(ROOT / "data" / "results" / study / "analyze.py"))["report"]
    assert report() == (ROOT / "data" / "results" / study / "analysis.md").read_text()


@pytest.mark.parametrize("edit", ["swap", "raise"])
def test_round_23_a_results_row_that_differs_from_its_point_record_is_refused(tmp_path, edit):
    """Hostile round 23: a committed results.csv whose measures traded rows (a spreadsheet sort of some columns), or
    one row's gain raised with its accuracy, turned a scorecard verdict in silence; the point records committed
    beside it hold each point's own numbers, and load_study now compares them."""
    import shutil

    import pandas as pd

    from course_lib import CourseError
    from course_lib.research.studies import load_study

    study = "regimes-hard-wins"
    shutil.copytree(ROOT / "data" / "results" / study, tmp_path / study)
    path = tmp_path / study / "results.csv"
    load_study(study, tmp_path)  # as committed: read
    table = pd.read_csv(path)
    measures = [c for c in table.columns if c.startswith(("gain.", "accuracy_after."))]
    if edit == "swap":
        table.loc[[3, 4], measures] = table.loc[[4, 3], measures].to_numpy()
    else:
        table.loc[3, "gain.test"] += 0.01
        table.loc[3, "accuracy_after.test"] += 0.01
    table.to_csv(path, index=False)
    with pytest.raises(CourseError, match=r"results.csv line 5 \((gain|accuracy_after)\.\w+\) differs from its point's "
                                          r"record in .*: one of them was edited, or rows were moved"):
        load_study(study, tmp_path)


@pytest.mark.parametrize(("damage", "said"), [("truncated", "is damaged (JSONDecodeError)"),
                                              ("a list", "holds no point record"),
                                              ("a key added", "column 'note' is in the point records in")])
def test_round_24_a_damaged_or_edited_point_record_is_named_in_one_line(tmp_path, damage, said):
    """Hostile round 24: a damaged point record beside a study's table was a raw JSONDecodeError traceback from
    load_study, and a key added by hand to one record blamed results.csv."""
    import shutil

    from course_lib import CourseError
    from course_lib.research.studies import load_study

    study = "hard-wins-paper-steps"
    shutil.copytree(ROOT / "data" / "results" / study, tmp_path / study)
    record = sorted((tmp_path / study / "points").glob("*.json"))[0]
    text = record.read_text()
    record.write_text({"truncated": text[: len(text) // 2], "a list": "[1, 2]",
                       "a key added": json.dumps({**json.loads(text), "note": "mine"})}[damage])
    with pytest.raises(CourseError, match=re.escape(said)):
        load_study(study, tmp_path)


def test_a_results_row_with_a_blank_beside_a_number_or_without_its_record_is_refused(tmp_path):
    """Each row is compared with its point's record cell by cell: a blank in results.csv where the record holds a
    number, a number where the record holds none, and a row whose record is gone are each refused in one line naming
    the line, with how to restore it."""
    import shutil

    import pandas as pd

    from course_lib import CourseError
    from course_lib.research.studies import load_study

    study = "hard-wins-paper-steps"
    shutil.copytree(ROOT / "data" / "results" / study, tmp_path / study)
    path, points = tmp_path / study / "results.csv", tmp_path / study / "points"
    table = pd.read_csv(path)
    name = table["point"][3]
    fix = rf"; restore it \(git checkout\).* `python -m course_lib aggregate {study} --out DIR`"  # how to mend it
    table.assign(train_seconds=table["train_seconds"].where(table.index != 3)).to_csv(path, index=False)
    with pytest.raises(CourseError, match=rf"results.csv line 5 \(train_seconds\) differs from its point's record in "
                                          rf".*{fix}$"):
        load_study(study, tmp_path)
    table.to_csv(path, index=False)
    record = json.loads((points / f"{name}.json").read_text())
    (points / f"{name}.json").write_text(json.dumps({key: value for key, value in record.items() if key != "train_seconds"}))
    with pytest.raises(CourseError, match=r"results.csv line 5 \(train_seconds\) differs from its point's record"):
        load_study(study, tmp_path)
    (points / f"{name}.json").unlink()
    with pytest.raises(CourseError, match=rf"results.csv line 5: point {re.escape(name)} has no record in .*points{fix}$"):
        load_study(study, tmp_path)


def test_a_failed_points_row_is_compared_with_its_failure_record(tmp_path):
    """A point that failed has its record as NAME.failed.json: its row (status failed, its error) is read against it,
    and an edit to that row is refused as to any other."""
    import pandas as pd

    from course_lib import CourseError
    from course_lib.research.studies import load_study, results_table

    folder = tmp_path / "demo"
    (folder / "points").mkdir(parents=True)
    records = [{"point": "a", "status": "ok", "seconds": 1.5, "gain": {"test": 0.1}},
               {"point": "b", "status": "failed", "seconds": 2.0, "error": "ValueError: no model",
                "traceback": "Traceback (most recent call last):\nValueError: no model"}]
    (folder / "points" / "a.json").write_text(json.dumps(records[0]))
    (folder / "points" / "b.failed.json").write_text(json.dumps(records[1]))
    results_table(records).to_csv(folder / "results.csv", index=False)
    assert load_study("demo", tmp_path)[0]["point"].tolist() == ["a"]
    table = pd.read_csv(folder / "results.csv")
    table.assign(error=["", "ValueError: edited"]).to_csv(folder / "results.csv", index=False)
    with pytest.raises(CourseError, match=r"results.csv line 3 \(error\) differs from its point's record"):
        load_study("demo", tmp_path)


def one_size_pilot(gains_15: list, gains_13: list):
    """A one-size pilot's table, as tinymath_outcome reads it: levels-1-5 and levels-1-3 gains per seed."""
    import pandas as pd

    rows = [{"model": "tiny-l-math", "seed": seed, "strategy": arm, "gain.test": gain}
            for arm, gains in (("levels-1-5", gains_15), ("levels-1-3", gains_13)) for seed, gain in enumerate(gains)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("gains_15", "gains_13", "expected"), [
    # gain +0.030 -> margin 0.010; sd of the differences 0.002, planned 0.0062: 6 seeds
    ([0.03, 0.03, 0.03], [0.020, 0.022, 0.024], "| +0.030 | 0.010 | yes | 0.0020 (3) | 0.0062 | 6 |"),
    # gain +0.012, under the least: no study, whatever the spread
    ([0.012, 0.012, 0.012], [0.01, 0.02, 0.0], "| +0.012 | 0.004 | no (gain under +0.015) | 0.0100 (3) | 0.0308 | - |"),
    # a spread too large for 20 seeds: the most, and the power they give
    ([0.03, 0.03, 0.03], [0.0, 0.03, 0.06], "| +0.030 | 0.010 | yes | 0.0300 (3) | 0.0924 | 20 (power 0.07) |"),
])
def test_a_one_size_pilot_decides_margin_and_seeds_by_its_readmes_rules(gains_15, gains_13, expected):
    import importlib.util

    spec = importlib.util.spec_from_file_location("tinymath_outcome", ROOT / "data" / "results" / "tinymath_outcome.py")
    outcome = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(outcome)
    row = outcome.one_size_decision(one_size_pilot(gains_15, gains_13))[2]
    assert row == "| tiny-l-math " + expected
