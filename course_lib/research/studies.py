"""The studies: their definitions (`STUDIES`, read from data/results/<study>/study.json) and reading their results
(gains across seeds, paired differences, per-level tables).

Pure definitions and functions over the results table that `python -m course_lib reproduce` writes (one row
per grid point); `course_lib.research.sweep` runs the grids. Introduced in notebooks/03_budget_explorer.ipynb
(`load_study`); the verdicts in notebook 05, used again in 06, 07 and A1.
"""

from __future__ import annotations

import io
import json
import math
import numbers
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import ConstantInputWarning, chi2, spearmanr
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower
from statsmodels.stats.weightstats import DescrStatsW

from ..errors import CourseError, check, is_number, warn, whole
from ..paths import course_path
from ..provenance import file_sha256, read_csv_strictly
from ..selection import select
from ..tasks import guess_rate
from .definitions import KINDS, RESULTS_DIR, STUDIES, STUDY_FILE, failed_name, point_name, read_studies  # noqa: F401 (read from here too)
from .experiment import VALUE_RANGES
from .profiles import get_profile


def study_folder(study: str, root=RESULTS_DIR) -> Path:
    """A study's results folder under `root` (A1).

    Read from the repository when `root` is a notebook's relative path and the notebook runs elsewhere (a student copy:
    `course_lib.paths.course_path`)."""
    return course_path(root) / study


def load_study(study: str, root=RESULTS_DIR) -> tuple[pd.DataFrame, dict]:
    """The committed results table of a study (points that succeeded) and its provenance (03).

    A damaged file is one line naming it (`check_results`)."""
    folder = study_folder(study, root)
    path = folder / "results.csv"
    check(path.exists(), f"study={study!r}: no results.csv in {folder}; run `python -m course_lib reproduce {study} "
                         "--out DIR`")
    fix = (f"restore it (git checkout), or move it aside (an edit is kept there) and remake it with "
           f"`python -m course_lib aggregate {study} --out DIR`")
    try:
        table = read_csv_strictly(path)
    except pd.errors.ParserError as error:
        raise CourseError(f"{path} is not a results table ({error}); {fix}") from None
    except (pd.errors.EmptyDataError, UnicodeDecodeError, OSError) as error:
        raise CourseError(f"{path} is not a results table ({type(error).__name__}); {fix}") from None
    check_results(table, path, study, fix)
    provenance = _study_provenance(folder / "provenance.json", fix)
    recorded = provenance.get("results_sha256")
    check(recorded is None or recorded == file_sha256(path),
          f"{path} was changed after `aggregate` wrote it (its sha256 differs from provenance.json's results_sha256); "
          f"{fix}")
    if recorded is None and not (folder / "points").is_dir():  # a copy of the table alone, or from before the sha256
        warn(f"{path} cannot be checked: no points/ beside it, and no provenance.json recording the table's sha256 "
             "(missing, or from before `aggregate` recorded it); its numbers are read as written (copy the study "
             "with its points/)")
    intervals = [c for c in table.columns if c.startswith("gain.") and f"gain_ci.{c[5:]}" not in table.columns]
    check(not intervals or "commit" not in provenance,  # `aggregate` writes each gain's interval beside it
          f"{path} has {intervals[0] if intervals else ''} but no gain_ci column beside it (removed by hand); {fix}")
    check_every_point_listed(table, folder, provenance, fix)
    check_rows_match_records(table, folder, fix)
    return table[table["status"] == "ok"].reset_index(drop=True), provenance


def _line_breaks_as_newlines(value):
    """A text's carriage returns (a progress bar's, in an error) as newlines: to_csv writes a bare one unquoted, and
    the table would read back with a second row."""
    return value.replace("\r\n", "\n").replace("\r", "\n") if isinstance(value, str) else value


RECORD_SEAL = "record_sha256"  # a point record's sha256 over its other keys: an edit by hand breaks it


def results_table(records: list[dict]) -> pd.DataFrame:
    """The results table `aggregate` writes: one row per point record (flat columns, no traceback or seal), by
    point name."""
    table = pd.json_normalize([{key: value for key, value in r.items() if key not in ("traceback", RECORD_SEAL)}
                               for r in records])
    for column in [c for c in table.columns if not pd.api.types.is_numeric_dtype(table[c])]:
        table[column] = table[column].map(_line_breaks_as_newlines)
    return table.sort_values("point").reset_index(drop=True) if records else pd.DataFrame(columns=["point"])


def check_rows_match_records(table: pd.DataFrame, folder: Path, fix: str) -> None:
    """Each row of a study's results table holds what its point's record in `points/` says (a row whose numbers were
    edited, or moved to another row, is refused, naming it); a folder without `points/` is not checked."""
    points = folder / "points"
    if not points.is_dir() or "point" not in table.columns:
        return
    records = []
    for line, name in enumerate(table["point"], start=2):
        found = [path for path in (points / f"{name}.json", points / failed_name(str(name))) if path.is_file()]
        check(found, f"{folder / 'results.csv'} line {line}: point {name} has no record in {points}; {fix}")
        try:
            record = json.loads(found[0].read_text(encoding="utf-8"))
        except (ValueError, OSError) as error:
            raise CourseError(f"{found[0]} is damaged ({type(error).__name__}); restore it (git checkout)") from None
        check(isinstance(record, dict), f"{found[0]} holds no point record (a JSON object); restore it (git checkout)")
        records.append(record)
    made = pd.read_csv(io.StringIO(results_table(records).to_csv(index=False)), index_col=False)
    extra = sorted(set(made.columns) ^ set(table.columns))
    if extra:
        where, other = ((f"the point records in {points}", "results.csv") if extra[0] in made.columns
                        else ("results.csv", "its point records"))
        raise CourseError(f"{folder / 'results.csv'}: column {extra[0]!r} is in {where} but not in {other}: one of "
                          f"them was edited; {fix}")
    made = made.set_index("point").loc[table["point"], list(table.columns.drop("point"))]
    for line, (row, expected) in enumerate(zip(table.drop(columns="point").itertuples(index=False),
                                               made.itertuples(index=False), strict=True), start=2):
        differs = [column for column, a, b in zip(made.columns, row, expected, strict=True)
                   if not (a == b or (pd.isna(a) and pd.isna(b)))]
        check(not differs, f"{folder / 'results.csv'} line {line} ({differs[0] if differs else ''}) differs from "
                           f"its point's record in {points}: one of them was edited, or rows were moved; {fix}")


ROW_KEYS = ("STRATEGY", "SEED", "MODEL", "TASK", "STEPS", "LEARNING_RATE", "PROMPTS_PER_STEP", "BUDGET")  # arms, pairs


def row_disagreement(row: pd.Series, point: dict) -> str | None:
    """The first of a results row's arm-defining cells (ROW_KEYS) that differs from the point it names, as
    'strategy=hard'; None when they agree (a smoke profile's capped steps count as its own)."""
    for key in ROW_KEYS:
        column = key.lower()
        if key not in point or column not in row.index:
            continue
        if pd.isna(row[column]):  # a blank cell drops the row from every claim that filters on it
            return f"{column}=(blank)"
        wanted = point[key]
        if key == "STEPS" and point.get("PROFILE") and get_profile(point["PROFILE"]).max_train_steps:
            wanted = min(wanted, get_profile(point["PROFILE"]).max_train_steps)
        value = row[column]
        if isinstance(wanted, int | float) and not isinstance(wanted, bool):
            number = pd.to_numeric(value, errors="coerce")
            same = not pd.isna(number) and abs(float(number) - float(wanted)) <= 1e-12 * max(1.0, abs(float(wanted)))
        else:
            same = str(value) == str(wanted)
        if not same:
            return f"{column}={value}"
    return None


def check_every_point_listed(table: pd.DataFrame, folder: Path, provenance: dict, fix: str) -> None:
    """Every point of the study's grid.json is a row of results.csv (succeeded or failed) or named missing by the
    provenance `aggregate` wrote: a row deleted by hand (a bad seed dropped) would change a verdict in silence."""
    grid_file = folder / "grid.json"
    check(grid_file.is_file() or "commit" not in provenance,  # `aggregate` writes both: one deleted is a gap
          f"{folder} has the results.csv and provenance.json `aggregate` wrote but no grid.json beside them: without "
          f"it no row can be checked against its point; {fix}")
    check(not grid_file.is_file() or "point" in table.columns,
          f"{folder / 'results.csv'} has no point column but a grid.json beside it: without it no row can be checked "
          f"against its point; {fix}")
    if not grid_file.is_file():
        return
    try:
        points = json.loads(grid_file.read_text(encoding="utf-8"))["points"]
        names = [point_name(point) for point in points]
    except (ValueError, KeyError, TypeError, AttributeError, OSError) as error:
        raise CourseError(f"{grid_file} is not the grid `reproduce` wrote ({type(error).__name__}); {fix}") from None
    extra = sorted(set(table["point"]) - set(names))
    check(not extra, f"{folder / 'results.csv'} holds point {extra[0] if extra else ''}, which its grid.json does not "
                     f"list (a row from another run, counted as one more seed); {fix}")
    by_name = dict(zip(names, points))
    for index, row in table.iterrows():
        moved = row_disagreement(row, by_name[row["point"]])
        check(moved is None, f"{folder / 'results.csv'} line {index + 2} says {moved}, but its point "
                             f"{row['point']} has another (a cell edited or moved between rows); {fix}")
    failed = set(table.loc[table["status"] == "failed", "point"])
    unnamed = sorted(failed - set(provenance.get("failed", [])))
    check(not unnamed or "commit" not in provenance,  # `aggregate` names every failed point it writes
          f"{folder / 'results.csv'} marks point {unnamed[0] if unnamed else ''} failed, but its provenance.json does "
          f"not name it among the failed points (a status edited by hand drops a seed from every claim); {fix}")
    listed = set(table["point"]) | set(provenance.get("missing", []))
    absent = [name for name in names if name not in listed]
    check(not absent or "commit" in provenance,  # written together by `aggregate`: one without the other is a cut
          f"{folder / 'results.csv'} lacks {len(absent)} of its grid's {len(names)} points and has no provenance.json "
          "beside it (`aggregate` was interrupted, or the file deleted): run `aggregate` again, which re-reads the "
          "saved records")
    check(not absent, f"{folder / 'results.csv'} lacks {len(absent)} of its grid's {len(names)} points (e.g. "
                      f"{absent[0] if absent else ''}) and its provenance.json names none of them missing: a row was "
                      f"deleted after `aggregate` wrote the table; {fix}")


def _study_provenance(path: Path, fix: str) -> dict:
    """A study's provenance.json ({} when there is none); one line naming it when it is not a JSON object."""
    if not path.exists():
        return {}
    try:
        provenance = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as error:
        raise CourseError(f"{path} is not valid JSON ({type(error).__name__}); {fix}") from None
    check(isinstance(provenance, dict), f"{path} does not hold a JSON object; {fix}")
    return provenance


MEASURES = ("accuracy_before.test", "accuracy_after.test", "gain.test")  # every run that succeeded has them
RANGES = {"accuracy_before": (0, 1), "accuracy_after": (0, 1), "gain": (-1, 1), "pass_at_k_before": (0, 1),
          "pass_at_k_after": (0, 1), "pass_at_k_gain": (-1, 1),
          "base_variance": (0, 0.25),  # per split, the range a record's number lies in (a mean of shares varies <= 1/4)
          **{name: (1, VALUE_RANGES[name][2]) for name in ("eval_k", "base_k")}}  # samples per problem
BY_LEVEL_RANGES = {"accuracy_before_by_level": (0, 1), "accuracy_after_by_level": (0, 1)}  # a table's per-level columns
COLUMN_RANGES = RANGES | BY_LEVEL_RANGES  # a results table's columns named PREFIX.SPLIT[.LEVEL]
COUNTS = ("n_selected", "steps")  # whole numbers >= 1 in a results table: the problems a run selected, its steps
SHARES = ("dead_step_share", "learnable_share_of_steps", "lucky_share", "selected_share_mixed", "clipped_step_share",
          "clipped_ratio", "predicted_dead_share", "selected_mean_pass_rate")  # one number from 0 to 1 each


def check_results(table: pd.DataFrame, path, study: str, fix: str) -> None:
    """A results table `aggregate` could have written: rows with a status, each point once and each
    setting of the study's grid once (a copied row would count a seed twice), numbers only where numbers are, all
    finite. Lines are counted as in the file (the header is line 1)."""
    check(len(table) and "status" in table.columns, f"{path} holds no point's result (no rows, or no status column); "
                                                     f"{fix}")
    twice = table.index[table["point"].duplicated(keep=False)] if "point" in table.columns else []
    if len(twice):
        raise CourseError(f"{path} holds point {table['point'][twice[0]]} twice (lines {twice[0] + 2} and "
                          f"{twice[1] + 2}); {fix}")
    columns = sorted({"profile", *(key.lower() for key in grid_keys(study))} & set(table.columns))
    same = table.index[table.duplicated(columns, keep=False)] if len(columns) > 1 else []
    if len(same):
        setting = ", ".join(f"{c}={table[c][same[0]]}" for c in columns if c != "profile")
        raise CourseError(f"{path} holds the same run twice (lines {same[0] + 2} and {same[1] + 2}: {setting}); {fix}")
    odd = table.index[~table["status"].isin(["ok", "failed"])]
    if len(odd):
        raise CourseError(f"{path}: status {table['status'][odd[0]]!r} (line {odd[0] + 2}) is neither 'ok' nor "
                          f"'failed'; {fix}")
    ok = table["status"] == "ok"
    measured = [c for c in MEASURES if c in table.columns]
    failed_with_results = table.index[~ok & table[measured].notna().any(axis=1)] if measured else []
    if len(failed_with_results):
        raise CourseError(f"{path}: line {failed_with_results[0] + 2} is marked failed but holds its results "
                          f"(`aggregate` writes none for a failed point: a status edited by hand); {fix}")
    for column in [key.lower() for key in ROW_KEYS if key.lower() in table.columns]:
        blank = table.index[ok & table[column].isna()]
        if len(blank):
            raise CourseError(f"{path}: line {blank[0] + 2} has a blank {column} (a row without it drops out of "
                              f"every claim that reads it); {fix}")
    for column in measured:
        blank = table.index[ok & table[column].isna()]
        if len(blank):
            raise CourseError(f"{path}: point {table['point'][blank[0]] if 'point' in table else blank[0]} succeeded "
                              f"but its {column} is blank (line {blank[0] + 2}); {fix}")
    for column in table.columns:
        numbers = pd.to_numeric(table[column], errors="coerce")
        text = table.index[table[column].notna() & numbers.isna()]
        if numbers.notna().any() and len(text):
            raise CourseError(f"{path}: column {column!r} holds {table[column][text[0]]!r} (line {text[0] + 2}) among "
                              f"numbers; {fix}")
        infinite = table.index[np.isinf(numbers.astype(float))]
        if len(infinite):
            raise CourseError(f"{path}: column {column!r} holds {numbers[infinite[0]]} (line {infinite[0] + 2}), not a "
                              f"finite number; {fix}")
    check_ranges(table, path, fix)
    check_gains_agree(table[ok], path, fix)


def check_ranges(table: pd.DataFrame, path, fix: str) -> None:
    """Every measure of a results table in its range (`RANGES` per split, `SHARES`): a number edited by hand is
    refused, not averaged into a verdict."""
    for column in table.columns:
        bounds = (COLUMN_RANGES.get(column.split(".", 1)[0]) if "." in column else (0, 1) if column in SHARES
                  else (1, math.inf) if column in COUNTS else None)
        if bounds is None:
            continue
        numbers = pd.to_numeric(table[column], errors="coerce")
        text = table.index[table[column].notna() & numbers.isna()]  # a measure written as text in every row
        if len(text):
            raise CourseError(f"{path}: column {column!r} holds {table[column][text[0]]!r} (line {text[0] + 2}), not "
                              f"a number; {fix}")
        out = table.index[numbers.notna() & ~numbers.between(*bounds)]
        if len(out):
            raise CourseError(f"{path}: column {column!r} holds {numbers[out[0]]} (line {out[0] + 2}), outside "
                              f"[{bounds[0]}, {bounds[1]}]; {fix}")


def gain_disagreement(gain, after, before, interval, names=("accuracy_after", "accuracy_before")) -> str | None:
    """Why a gain disagrees with its own accuracies (it is after - before, on the same problems: the paired mean is
    the difference of the means, to 0.001 of rounding) or its own interval; None when they agree or a number is
    missing. The one rule that point records (`sweep.check_measures_agree`) and results tables are checked by."""
    def number(value) -> bool:
        return isinstance(value, int | float) and not isinstance(value, bool) and np.isfinite(value)

    if number(gain) and number(after) and number(before) and abs(gain - (after - before)) > 1e-3:
        return f"is not {names[0]} - {names[1]} = {after - before:.4f}"
    if number(gain) and isinstance(interval, list | tuple) and len(interval) == 2 and all(map(number, interval)) \
            and not interval[0] - 1e-9 <= gain <= interval[1] + 1e-9:
        return f"lies outside its own interval {list(interval)}"
    return None


def check_gains_agree(table: pd.DataFrame, path, fix: str) -> None:
    """Each row's gain agrees with its accuracies and interval (`gain_disagreement`), as `aggregate` checks each
    record: a hand edit of one number would otherwise flip a verdict."""
    for column in [c for c in table.columns if c.startswith(("gain.", "pass_at_k_gain."))]:
        prefix, split = column.split(".", 1)
        after, before = ((f"accuracy_after.{split}", f"accuracy_before.{split}") if prefix == "gain" else
                         (f"pass_at_k_after.{split}", f"pass_at_k_before.{split}"))
        interval_column = f"gain_ci.{split}" if prefix == "gain" else None
        for index, row in table.iterrows():
            values = [pd.to_numeric(row.get(name), errors="coerce") for name in (column, after, before)]
            check(pd.isna(values[0]) or after not in table or before not in table or not
                  (pd.isna(values[1]) or pd.isna(values[2])),
                  f"{path}: line {index + 2} has a {column} but a blank {after if pd.isna(values[1]) else before} "
                  f"(a gain must be its accuracies' difference); {fix}")
            interval = None
            if interval_column in table.columns and not pd.isna(values[0]):
                try:
                    interval = json.loads(row.get(interval_column))
                except (ValueError, TypeError):
                    raise CourseError(f"{path}: line {index + 2} has a {column} but no readable {interval_column} "
                                      f"(an interval removed by hand); {fix}") from None
            why = gain_disagreement(*(float(v) for v in values), interval, (after.split(".")[0], before.split(".")[0]))
            check(why is None, f"{path}: {column} on line {index + 2} {why} (a number was edited); {fix}")


def grid_keys(study: str) -> set[str]:
    """Every parameter a study's grids set, in any profile (none for a study not in STUDIES)."""
    settings = STUDIES.get(study, {})
    grids = [settings.get("fixed", {})]
    for part in ("grid", "also"):
        for profile_grids in settings.get(part, {}).values():
            grids += profile_grids if isinstance(profile_grids, list) else [profile_grids]
    return {key for grid in grids for key in grid}


def finite_values(values) -> np.ndarray:
    """Per-seed values as floats, every one a finite number: a NaN (a blank results cell) would read as agreement."""
    check(not isinstance(values, (str, bytes, numbers.Number, dict, set, frozenset)) and np.iterable(values),
          f"values={values!r} must be a list of per-seed numbers in seed order (not one value, a dict or a set)")
    values = list(values)
    odd = [v for v in values if not (is_number(v) or v is None or v is pd.NA)]
    check(not odd, f"values hold {odd[0]!r}: per-seed values must be numbers (one per seed, not nested, not text)"
          if odd else "")
    values = np.asarray([np.nan if v is None or v is pd.NA else v for v in values], dtype=float)
    check(np.isfinite(values).all(), f"the per-seed values hold {int((~np.isfinite(values)).sum())} missing or "
                                     "infinite value(s): a seed without a result cannot count; drop it knowingly or "
                                     "rerun it")
    return values


def t_interval(values) -> dict:
    """Mean of per-seed values with a 95% Student-t interval; seeds are the unit of replication (05).

    >>> t_interval([0.1, 0.2, 0.3])["ci_low"]
    -0.0484
    """
    values = finite_values(values)
    check(len(values) >= 1, "t_interval needs at least one value")
    mean = float(values.mean())
    if len(values) == 1:
        return {"mean": round(mean, 4), "ci_low": float("nan"), "ci_high": float("nan"), "seeds": 1, "excludes_zero": False}
    low, high = (float(bound) for bound in SharedBaseline(values).tconfint_mean(0.05))  # read unrounded
    return {"mean": round(mean, 4), "ci_low": round(low, 4), "ci_high": round(high, 4), "seeds": len(values),
            "excludes_zero": bool(not all_agree(values) and (low > 0 or high < 0))}  # agreeing seeds measure no noise


def check_margin(margin) -> None:
    """A margin is a positive, finite number (text read from a config, 0 or NaN named in one line) (05)."""
    check(is_number(margin) and margin > 0 and math.isfinite(margin),
          f"margin={margin!r} must be a positive, finite number (the difference you would call negligible)")


def all_agree(values, base_variance: float = 0.0) -> bool:
    """Seeds that all hold the same value, with nothing shared: no spread to test with. Read on the values, not on a
    variance float rounding makes 0 for some values and 1e-17 for others; values equal up to float rounding
    (7/60 - 6/60 and 31/60 - 30/60) agree (05).

    >>> all_agree([0.12, 0.12, 0.12]), all_agree([7/60 - 6/60, 31/60 - 30/60]), all_agree([0.1, 0.1], base_variance=1e-5)
    (True, True, False)
    """
    values = np.asarray(list(values), dtype=float)
    rounding = 1e-12 * max(1.0, float(np.abs(values).max()))  # far above a subtraction's last bits, far below a seed
    return bool(np.ptp(values) <= rounding and base_variance == 0)


MARGIN = 0.03  # held-out accuracy: the difference every planned study calls negligible, fixed before it ran (05)
SMALLER_THAN_MARGIN = "(a real difference, smaller than the margin)"  # follows "slightly better" or "slightly worse"
COULD_NOT_TELL = "could not tell"  # an equivalence whose margin the study cannot vouch for (`assay_sensitivity`)


def equivalence_verdict(values, margin: float, base_variance: float = 0.0, sensitive: bool = True) -> dict:
    """Better, worse, equivalent within +-margin (TOST), could not tell or inconclusive, from per-seed differences (06).

    `base_variance` is the variance of a baseline shared by every seed (e.g. one base-model evaluation), which
    seed-to-seed spread cannot see; it is added to the variance of the mean. A 95% interval that excludes 0 says
    "better"/"worse" outside the margin and "slightly better/worse (a real difference, smaller than the margin)"
    inside it; a 90% interval inside (-margin, +margin) with a 95% interval around 0 says "equivalent" (two one-sided
    tests at 5%). `sensitive=False` (the study cannot vouch for its margin: `assay_sensitivity`) turns an
    equivalence into "could not tell" and a real difference within the margin into plain "better"/"worse". Seeds that
    all agree, with nothing shared, measure no noise: "inconclusive", whatever their value (`all_agree`).

    >>> equivalence_verdict([0.01, -0.01, 0.0, 0.005, -0.005], margin=0.03)["verdict"]
    'equivalent'
    >>> equivalence_verdict([0.01, -0.01, 0.0, 0.005, -0.005], margin=0.03, sensitive=False)["verdict"]
    'could not tell'
    """
    values = finite_values(values)
    check(len(values) >= 3, f"{len(values)} seed(s): an interval from fewer than 3 seeds says nothing; run more seeds")
    check_margin(margin)
    check(isinstance(sensitive, (bool, np.bool_)), f"sensitive={sensitive!r} must be True or False")
    stats = SharedBaseline(values, base_variance)
    mean = float(stats.mean)
    (low95, high95), (low90, high90) = stats.tconfint_mean(0.05), stats.tconfint_mean(0.10)
    inside, different = -margin < low90 and high90 < margin, low95 > 0 or high95 < 0
    if not all_agree(values, base_variance):  # the same two tests as p-values, for corrections (`holm_verdicts`)
        p_difference, p_equivalence = float(stats.ttest_mean(0)[1]), float(stats.ttost_mean(-margin, margin)[0])
    else:  # every seed agrees and nothing is shared: no spread to test with, so neither test can reject (as in
        inside = different = False  # `t_interval`, whose zero-width interval excludes nothing)
        p_difference = p_equivalence = 1.0
    return {"mean": round(mean, 4), "ci_low": round(low95, 4), "ci_high": round(high95, 4), "tost_low": round(low90, 4),
            "tost_high": round(high90, 4), "margin": margin, "seeds": len(values), "sensitive": sensitive,
            "verdict": verdict_in_words(mean, different, inside, sensitive), "p_difference": p_difference,
            "p_equivalence": p_equivalence, "direction": float(np.sign(mean))}  # the sign before rounding


class SharedBaseline(DescrStatsW):
    """statsmodels' `DescrStatsW` whose standard error of the mean also carries the variance of a baseline every
    value shares (one base-model evaluation), which the values' own spread cannot see; its t-tests, TOST and
    intervals then use it (05)."""

    def __init__(self, values, base_variance: float = 0.0):
        check(is_number(base_variance) and math.isfinite(base_variance) and base_variance >= 0,
              f"base_variance={base_variance!r} must be a finite variance >= 0 (the shared base evaluation's; a blank "
              "base_variance column in a results table: aggregate the study again)")
        values = np.asarray(values, dtype=float)
        spread = float(np.ptp(values)) if values.size else 0.0
        check(spread == 0 or spread >= 1e-150, f"the values differ by {spread:.3g}, too little for their variance to "
                                               "be a float (it underflows to 0); give them in a larger unit")
        super().__init__(values)
        self.base_variance = float(base_variance)

    @property
    def std_mean(self) -> float:
        return float(np.sqrt(self.var / (self.nobs - 1) + self.base_variance))  # var is the biased (ddof=0) one


def verdict_in_words(mean: float, different: bool, inside: bool, sensitive: bool = True) -> str:
    """The verdict in words from the two tests (is it different from 0? inside the margin?) and whether the study
    can vouch for its margin (`assay_sensitivity`)."""
    direction = "better" if mean > 0 else "worse"
    if different:
        return f"slightly {direction} {SMALLER_THAN_MARGIN}" if inside and sensitive else direction
    if inside:
        return "equivalent" if sensitive else COULD_NOT_TELL
    return "inconclusive"


def assay_sensitivity(reference_gains, margin: float, base_variance: float = 0.0, arm: str = "the reference arm") -> dict:
    """Can a study call two arms equivalent within `margin`? Only where its reference arm shows its own effect: the
    reference arm's gain has a 95% interval above 0 (the shared base evaluation's error included) and the margin
    is at most a third of that gain. Otherwise an equivalence says nothing (equivalence-trial practice) (07).

    >>> assay_sensitivity([0.09, 0.10, 0.11], margin=0.03)["sensitive"]
    True
    >>> assay_sensitivity([0.035, 0.036, 0.037], margin=0.03)["why"]
    "the margin 0.03 exceeds a third of the reference arm's gain, +0.036 / 3 = +0.012"
    """
    values = finite_values(reference_gains)
    check(len(values) >= 2, f"{len(values)} seed(s) of the reference arm: its gain needs an interval; run more seeds")
    check_margin(margin)
    stats = SharedBaseline(values, base_variance)
    mean, low = float(stats.mean), round(float(stats.tconfint_mean(0.05)[0]), 4)
    if all_agree(values, base_variance):
        why = f"{arm}'s seeds all gained {signed(mean)} and nothing is shared: no spread to read its interval from"
    elif not low > 0:
        why = f"{arm} did not clearly learn: its gain {signed(mean)} has a 95% interval reaching {signed(low)}"
    elif margin > mean / 3:
        why = f"the margin {margin:g} exceeds a third of {arm}'s gain, {signed(mean)} / 3 = {signed(mean / 3)}"
    else:
        why = ""
    return {"reference_gain": round(mean, 4), "reference_low": low, "sensitive": not why, "why": why}


def holm_adjusted(p_values, digits: int | None = 6) -> list[float]:
    """Holm's step-down adjustment of a family's p-values: the k-th smallest is multiplied by (m - k + 1), and the
    adjusted values are kept non-decreasing (a family-wise error rate of alpha when each is compared with alpha);
    rounded to `digits` for display (None: unrounded, as verdicts compare them).

    >>> holm_adjusted([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    values = np.asarray(list(p_values), dtype=float)
    check(((values >= 0) & (values <= 1)).all(), f"p_values={list(p_values)} must be probabilities from 0 to 1")
    adjusted = ([float(value) for value in multipletests(values, method="holm")[1]] if len(values) > 1 else
                [float(value) for value in values])  # one test is its own family (statsmodels' Holm runs gc.collect)
    return adjusted if digits is None else [round(value, digits) for value in adjusted]


def check_probability(name: str, value) -> None:
    """One line unless `value` is a number strictly between 0 and 1 (a confidence, a level, a power)."""
    check(is_number(value) and 0 < value < 1,
          f"{name}={value!r} must be a number strictly between 0 and 1 (e.g. 0.05, not 5)")


def holm_verdicts(rows: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """A family of `equivalence_verdict` rows with each test's p-value Holm-adjusted within the family (A1).

    The verdicts are read again from the adjusted tests (a family with one row keeps its verdicts)."""
    check_probability("alpha", alpha)
    missing = [c for c in ("mean", "p_difference", "p_equivalence") if c not in getattr(rows, "columns", ())]
    check(not missing, f"rows lack column(s) {missing}: pass a table of equivalence_verdict() results")
    for column in ("mean", "p_difference", "p_equivalence"):
        odd = [v for v in rows[column] if not is_number(v) or not math.isfinite(v)]
        check(not odd, f"rows' {column} holds {odd[0]!r}, not a number: pass a table of equivalence_verdict() results"
              if odd else "")
    out = rows.copy()
    p_difference, p_equivalence = (holm_adjusted(rows[column], digits=None) for column in ("p_difference",
                                                                                         "p_equivalence"))
    out["p_difference_holm"] = [round(p, 6) for p in p_difference]  # rounded for display
    out["p_equivalence_holm"] = [round(p, 6) for p in p_equivalence]
    differs = [p < alpha for p in p_difference]  # verdicts read the unrounded
    equivalent = [p < alpha for p in p_equivalence]
    sensitive = out["sensitive"] if "sensitive" in out else [True] * len(out)
    check(all(isinstance(ok, (bool, np.bool_)) for ok in sensitive),
          "rows' sensitive column must hold True or False (read from text, 'False' would count as True)")
    out["verdict_holm"] = [verdict_in_words(side(row), differ, equal, ok)
                           for row, differ, equal, ok in zip(out.itertuples(), differs, equivalent, sensitive)]
    return out


def side(row) -> float:
    """Which side of 0 a verdict row's difference lies on: its unrounded sign (`direction`) where recorded, else its
    rounded mean, else its interval's midpoint (a mean that rounds to 0 keeps its side)."""
    direction = getattr(row, "direction", float("nan"))
    if isinstance(direction, int | float) and not pd.isna(direction) and direction != 0:
        return float(direction)
    return row.mean or getattr(row, "ci_low", 0) + getattr(row, "ci_high", 0)


def base_variance_bound(accuracy: float, k: int, problems: int) -> float:
    """An upper bound on the variance of a base model's mean accuracy when only the mean was recorded: the mean
    of p(1 - p) over problems is at most a(1 - a), so the variance is at most a(1 - a) / ((k - 1) n) (07).

    >>> round(base_variance_bound(0.4, 4, 300), 6)
    0.000267
    """
    check(whole(k) and whole(problems) and k >= 2 and problems >= 1,
          f"k={k!r} must be a whole number >= 2 and problems={problems!r} one >= 1")
    check(is_number(accuracy) and 0 <= accuracy <= 1, f"accuracy={accuracy!r} must be a share from 0 to 1")
    return accuracy * (1 - accuracy) / ((k - 1) * problems)


def _check_seed_count(seeds) -> None:
    """A number of seeds a spread is measured over: a whole number from 2 (one seed has no spread)."""
    check(isinstance(seeds, (int, np.integer)) and not isinstance(seeds, bool) and 2 <= seeds <= 1_000_000,
          f"seeds={seeds!r} must be a whole number from 2 to 1,000,000")


def detectable_difference(sd: float, seeds: int, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest true paired difference a two-sided t-test over `seeds` detects with this power.

    >>> round(detectable_difference(0.037, 5), 3)  # the tiny world's hard - random spread with 5 seeds
    0.062
    """
    _check_seed_count(seeds)
    check(is_number(sd) and 0 < sd < math.inf, f"sd={sd!r} must be a positive, finite number")
    check_probability("power", power), check_probability("alpha", alpha)
    effect = TTestPower().solve_power(nobs=seeds, alpha=alpha, power=power, alternative="two-sided")
    return float(effect) * sd


def seeds_needed(sd: float, difference: float, power: float = 0.8, alpha: float = 0.05, most: int = 1000) -> int:
    """Seeds a paired two-sided t-test needs to detect `difference` with this power, given the seed-to-seed sd (06).

    >>> seeds_needed(0.037, 0.03)
    14
    """
    check(is_number(sd) and 0 < sd < math.inf, f"sd={sd!r} must be a positive, finite number (the seed-to-seed sd; a "
                                               "pilot whose seeds agree measured no spread: run more seeds)")
    check(is_number(difference) and 0 < difference < math.inf,
          f"difference={difference!r} must be a positive, finite number (the effect to detect)")
    check_probability("power", power), check_probability("alpha", alpha)
    check(whole(most) and most >= 3, f"most={most!r} must be a whole number of seeds >= 3")
    for seeds in range(3, most + 1):  # `equivalence_verdict` reads 3 seeds at least
        if paired_power(difference, sd, seeds, alpha) >= power:
            return seeds
    raise CourseError(f"more than {most} seeds would be needed; find a larger effect or a less noisy measure")


def sd_upper_bound(sd: float, seeds: int, confidence: float = 0.9) -> float:
    """The one-sided upper confidence bound (chi-square) of a standard deviation measured on `seeds` values (06).

    What a pilot's power calculation should plan with, since a sd from 3 seeds is itself uncertain.

    >>> round(sd_upper_bound(0.008, 3), 4)
    0.0246
    """
    _check_seed_count(seeds)
    check(is_number(sd) and 0 <= sd < math.inf, f"sd={sd!r} must be a finite number >= 0")
    check_probability("confidence", confidence)
    return float(sd * np.sqrt((seeds - 1) / chi2.ppf(1 - confidence, float(seeds - 1))))


def seed_plan(pilot: pd.DataFrame, first: str = "hard", second: str = "random", target: float | None = None) -> dict:
    """A pilot's power calculation for the paired test first - second (A1).

    Its spread across seeds, planned with the 90% upper bound, and the seeds needed to detect `target` (default: the
    pre-registered rule, the larger of 0.03 and a third of the reference arm `second`'s gain) with 80% power."""
    check(not pilot.duplicated(["seed", "strategy"]).any(),
          "seed_plan: the pilot has several rows per seed and arm (several models or lengths?); pass one of them")
    check("model" not in pilot or pilot["model"].nunique() <= 1,
          "seed_plan: the pilot holds several models (one arm's rows from each would be paired); pass one model's rows")
    wide = paired_by_seed(pilot, first, second, "gain.test")
    check(not wide.empty, f"seed_plan: the pilot has no run of {first} or of {second}; pass a pilot that ran both")
    check(len(wide) >= 2, f"seed_plan: the pilot has {len(wide)} seed run for both {first} and {second}; a spread "
                          "across seeds needs at least 2 seeds run for both arms")
    sd, reference = float((wide[first] - wide[second]).std(ddof=1)), float(wide[second].mean())
    check(sd > 1e-12, f"seed_plan: every paired difference {first} - {second} in the pilot is the same "
                  f"({float((wide[first] - wide[second]).iloc[0]):+.4f}), so it measured no spread across seeds "
                  "(a determinism slip, or too coarse an evaluation?); a power calculation needs a spread")
    target = target if target is not None else max(0.03, reference / 3)
    planned_sd = sd_upper_bound(sd, len(wide))  # a sd from a few seeds is itself uncertain
    return {"reference gain": reference, "pilot seeds": len(wide), f"sd of {first} - {second}": sd,
            "sd planned with": planned_sd, "smallest difference to detect": target,
            "seeds needed": seeds_needed(planned_sd, target)}


def paired_power(difference: float, sd: float, seeds: int, alpha: float = 0.05) -> float:
    """Power of a two-sided one-sample t-test on `seeds` paired differences (statsmodels' `TTestPower`)."""
    return float(TTestPower().power(effect_size=difference / sd, nobs=seeds, alpha=alpha, alternative="two-sided"))


def paired_by_seed(group: pd.DataFrame, first: str, second: str, column: str, arm: str = "strategy") -> pd.DataFrame:
    """The two arms' values side by side, a row per seed: every seed of either arm must hold a finite value in both
    (a blank cell or a seed run for one arm only would drop out of the pair in silence); empty when an arm is absent."""
    rows = group[group[arm].isin([first, second])]
    if set(rows[arm]) != {first, second}:
        return pd.DataFrame(columns=[first, second])
    finite_values(rows[column])  # a missing result cannot count: named, as `gain_verdicts` names it
    check(rows["seed"].notna().all(), f"a point of {first} or {second} has no seed; every run needs its seed")
    twice = sorted(rows.loc[rows.duplicated(["seed", arm]), "seed"].unique().tolist())
    check(not twice, f"seed(s) {twice} have several points of one arm ({first} or {second}), which a pair would "
                     "average in silence; keep one run per seed and arm (`check_one_run_per_seed`)")
    wide = rows.pivot_table(index="seed", columns=arm, values=column, dropna=False)[[first, second]]
    lonely = sorted(wide.index[wide.isna().any(axis=1)].tolist())
    check(not lonely, f"seed(s) {lonely} have a {column} for only one of {first} and {second}: a paired difference "
                      "needs both; run the missing points, or drop those seeds knowingly")
    return wide


def require_columns(table: pd.DataFrame, names, parameter: str) -> None:
    """One line naming a mistyped column (`by=("modle",)`) and the columns there are, not a KeyError (05)."""
    missing = [name for name in names if name not in table.columns]
    check(not missing, f"{parameter}: {missing[0] if missing else ''!r} is not a column of the results table; use "
                       f"one of {list(map(str, table.columns))}")


def check_one_run_per_seed(table: pd.DataFrame, by, arm: str = "strategy") -> None:
    """Each seed of each arm is one run within a group: a table of several settings (learning rates, lengths,
    models) grouped without them would count each setting as a seed, or average them in silence (05)."""
    check(isinstance(by, (tuple, list)), f"by={by!r} must be a tuple of column names, e.g. ({by!r},)")
    require_columns(table, [*by, arm], f"by={tuple(by)}" if arm in table.columns else "arm")
    require_columns(table, ["seed"], "the seed column (each row is one seed's run; without it rows of several "
                                     "settings would count as seeds)")
    keys = list(dict.fromkeys([*by, arm, "seed"]))
    blank = [key for key in keys if key in table.columns and table[key].isna().any()]
    check(not blank, f"{int(table[blank[0]].isna().sum()) if blank else 0} row(s) have no {blank[0] if blank else ''}: "
                     "grouped by it they would vanish from every verdict; fill it in (records of an older course_lib?) "
                     "or drop those rows on purpose")
    odd = [seed for seed in table["seed"] if isinstance(seed, bool) or not isinstance(seed, int | float)
           or not math.isfinite(seed) or seed != int(seed)]
    check(not odd, f"seed {odd[0] if odd else ''!r} is not a whole number: seeds pair arms, so text beside numbers "
                   "(`'3'` and `3`) would never pair; give every seed as an integer")
    if "seed" in table.columns and set(keys) <= set(table.columns):
        twice = table[table.duplicated(keys, keep=False)]
        check(twice.empty, f"the table holds several runs of one seed and arm within by={tuple(by)} (e.g. "
                           f"{dict(twice.iloc[0][keys]) if not twice.empty else ''}): several settings? add the column "
                           "that tells them apart (learning_rate, steps, model) to by, or pass one setting's rows")


def check_both_arms_or_neither(group: pd.DataFrame, first: str, second: str, where: dict, arm: str = "strategy") -> None:
    """A group that ran one arm of a pair but not the other (its points failed?) would leave the pair, and a Holm
    family would shrink in silence: named in one line. A group that ran neither is not part of the pair."""
    present = {first, second} & set(group[arm])
    check(len(present) != 1, f"{where} has {first if first in present else second} but no {second if first in present else first}"
                             f" (its points failed or never ran?): the pair would leave the comparison in silence; run "
                             "them, or pass the rows without that group knowingly")


def gain_by_strategy(table: pd.DataFrame, column: str = "gain.test", by=("task", "strategy")) -> pd.DataFrame:
    """Mean of `column` per group across seeds, with 95% t-intervals (05, 06)."""
    require_columns(table, [column], "column")
    check_one_run_per_seed(table, by)
    rows = [{**dict(zip(by, key)), **t_interval(group[column])}
            for key, group in table.groupby(list(by), sort=True)]
    return pd.DataFrame(rows)


def paired_difference(table: pd.DataFrame, first: str, second: str, column: str = "gain.test",
                      by=("task",)) -> pd.DataFrame:
    """`first` minus `second` strategy, paired by seed within each group, with 95% t-intervals across seeds (05)."""
    require_columns(table, ["strategy", column], "column")
    for strategy in (first, second):
        check(strategy in set(table["strategy"]), f"strategy {strategy!r} is not in the results table")
    check_one_run_per_seed(table, by)
    rows = []
    for key, group in table.groupby(list(by), sort=True):
        check_both_arms_or_neither(group, first, second, dict(zip(by, key)))
        wide = paired_by_seed(group, first, second, column)
        if wide.empty:  # this group ran neither arm
            continue
        rows.append({**dict(zip(by, key)), "difference": f"{first} - {second}",
                     **t_interval(wide[first] - wide[second])})
    return pd.DataFrame(rows)


def paired_verdicts(table: pd.DataFrame, pairs, margin: float, column: str = "gain.test", by=("model",),
                    arm: str = "strategy") -> pd.DataFrame:
    """For each (first, second) arm pair within each group, the paired-by-seed difference's TOST verdict (05, 06).

    The verdict is `equivalence_verdict`'s; an equivalence is counted only where the second (reference) arm's own gain
    shows an effect the margin is at most a third of (`assay_sensitivity`, its base evaluation's error included for
    held-out gains). Arms trained from one base model share its evaluation, so the difference carries none of its
    error."""
    require_columns(table, [column], "column")
    check_one_run_per_seed(table, by, arm)
    pairs = distinct_pairs(pairs)
    named = sorted({name for pair in pairs for name in pair} - set(table[arm]))
    check(not named, f"arm {named[0] if named else ''!r} is not in the results table (its arms: "
                     f"{', '.join(sorted(map(str, set(table[arm]))))}); a pair naming it would be dropped from the family")
    split = column.rsplit(".", 1)[-1]
    # the reference arm learns in its gain in the measure the margin is about (a pass@k gain for a pass@k column, as
    # the scorecard reads it); a level (accuracy_after) is no effect: its gain is read instead
    gain_column = column if column.split(".")[0].endswith("gain") else f"gain.{split}"
    check(gain_column in table.columns, f"column={column!r}: the reference arm's gain, {gain_column!r}, is not in the "
                                        "table; an equivalence needs the reference arm's own effect (`assay_sensitivity`)")
    rows = []
    for key, group in table.groupby(list(by), sort=True):
        wide = group.pivot_table(index="seed", columns=arm, values=column)
        for first, second in pairs:
            check_both_arms_or_neither(group, first, second, dict(zip(by, key)), arm)
            measured = {first, second} & set(wide.columns)  # an arm whose values are all blank has no column
            if {first, second} <= set(group[arm]) and measured:  # one blank arm: paired_by_seed names its seeds
                # the reference arm's gain carries its base evaluation's error; the difference, none: both arms
                # must be measured from that one evaluation, whatever the rows' order
                base = shared_base_variance(group[group[arm].isin([first, second])], gain_column,
                                            f"{first} - {second} ({', '.join(map(str, key))})")
                both = paired_by_seed(group, first, second, column, arm)
                gains = paired_by_seed(group, first, second, gain_column, arm)  # a blank gain is named, not NaN
                reference = assay_sensitivity(gains.loc[both.index, second], margin, base, arm=second)
                rows.append({**dict(zip(by, key)), "difference": f"{first} - {second}",
                             **equivalence_verdict(both[first] - both[second], margin, sensitive=reference["sensitive"]),
                             "reference_gain": reference["reference_gain"], "why": reference["why"]})
    return pd.DataFrame(rows)


def distinct_pairs(pairs) -> list[tuple]:
    """The (first, second) arm pairs, each of two different arms and listed once (in either order): a pair listed
    twice would count its tests twice in a Holm family, and an arm against itself measures nothing (06)."""
    pairs = list(pairs)
    check(all(isinstance(pair, (tuple, list)) and len(pair) == 2 for pair in pairs),
          f"pairs={pairs!r} must hold (first, second) arms, e.g. [('hard', 'random')]")
    pairs = [tuple(pair) for pair in pairs]
    same = [first for first, second in pairs if first == second]
    check(not same, f"pairs={pairs!r} pairs {same[0] if same else ''!r} with itself; pair two different arms")
    twice = len({frozenset(pair) for pair in pairs}) < len(pairs)
    check(not twice, f"pairs={pairs!r} lists a pair twice (in either order), which would count twice in the Holm "
                     "family; list each pair once")
    return pairs


def gain_verdicts(table: pd.DataFrame, margin: float, column: str = "gain.test", by=("model", "strategy")) -> pd.DataFrame:
    """Each arm's gain over the base model with its TOST verdict (05, 07).

    The base evaluation's own variance (shared by every seed, `base_variance.test`) is added, since the seed-to-seed
    spread cannot see it."""
    require_columns(table, [column], "column")
    check_one_run_per_seed(table, by)
    rows = []
    for key, group in table.groupby(list(by), sort=True):
        shared = shared_base_variance(group, column, ", ".join(map(str, key)))  # gain.ood: the ood evaluation's
        rows.append({**dict(zip(by, key)), **equivalence_verdict(group[column], margin, base_variance=shared)})
    return pd.DataFrame(rows)


def shared_base_variance(rows: pd.DataFrame, column: str, what: str) -> float:
    """The variance of the one base evaluation the held-out gains in `column` (gain.test, gain.ood) of `rows` are
    measured from; 0 for another measure. Rows measured from different base evaluations, or from none recorded,
    are refused: the first row's value would have decided the verdict, whatever the others held (05, 06)."""
    shared = f"base_variance.{column.rsplit('.', 1)[-1]}"
    if shared not in rows or not column.startswith("gain."):
        return 0.0
    values = pd.to_numeric(rows[shared], errors="coerce").unique()
    check(len(values) == 1 and np.isfinite(values[0]) and values[0] >= 0,
          f"{what}: its gains are measured from {len(values)} base evaluations (the {shared} column holds "
          f"{', '.join(f'{v:g}' for v in values)}); gains compared or tested together must share one, a number >= 0")
    return float(values[0])


def beats_or_loses(row) -> str:
    """'beats', 'loses to' or 'is indistinguishable from', from a row with a 95% interval (06).

    With fewer than 3 seeds, or seeds that all agree (a zero-width t-interval measures no noise at all): 'is not tested
    against'. A row without `seeds` (e.g. a bootstrap over problems) is read by its interval alone; one with
    `excludes_zero` (`t_interval`'s, read before rounding) by that, so a bound rounded to 0.0 still counts on its
    side."""
    get = row.get if hasattr(row, "get") else (lambda key: getattr(row, key, None))  # a dict, a Series, a namedtuple
    seeds, excludes = get("seeds"), get("excludes_zero")
    spread = excludes is not None and not pd.isna(excludes) and bool(excludes)  # seeds that differ, read unrounded
    if seeds is not None and not pd.isna(seeds) and (int(seeds) < 3 or (get("ci_low") == get("ci_high") and not spread)):
        return "is not tested against"
    middle = get("mean") if get("mean") is not None else get("mean_difference")
    if excludes is not None and not pd.isna(excludes) and middle is not None:
        if middle == 0 and bool(excludes):  # a mean of 4e-5 rounded to 0: the rounded bounds still show its side
            middle = (get("ci_high") > 0) - (get("ci_low") < 0)
        if middle == 0 or not bool(excludes):
            return "is indistinguishable from"
        return "beats" if middle > 0 else "loses to"
    return "beats" if get("ci_low") > 0 else "loses to" if get("ci_high") < 0 else "is indistinguishable from"


def interval_text(row, digits: int = 3) -> str:
    """'+0.023 [+0.009, +0.037]' from a row with mean (or mean_difference), ci_low and ci_high (04b, A2).

    Rounded as pandas tables show.

    >>> interval_text({"mean": 0.0195, "ci_low": 0.0025, "ci_high": 0.0365})
    '+0.020 [+0.002, +0.036]'
    """
    get = (lambda name: getattr(row, name, None)) if hasattr(row, "_fields") else row.get  # itertuples() rows too
    mean = get("mean") if get("mean") is not None else get("mean_difference")
    low, high = (signed(get(bound), digits) for bound in ("ci_low", "ci_high"))
    text = signed(mean, digits)
    return text if low == "+nan" else f"{text} [{low}, {high}]"


def signed(value, digits: int = 3) -> str:
    """A number rounded as pandas shows it, with its sign kept where it rounds to zero (05).

    >>> signed(-0.0004), signed(0.0), signed(0.0195)
    ('-0.000', '+0.000', '+0.020')
    """
    value = float(value)
    return f"{float(np.round(value, digits)) if value else 0.0:+.{digits}f}"


def level_columns(table: pd.DataFrame, split: str = "test") -> tuple[str, str, list[int]]:
    """The per-level accuracy columns of a results table: (after prefix, before prefix, levels), so that
    `after + str(level)` names a column (06)."""
    after, before = f"accuracy_after_by_level.{split}.", f"accuracy_before_by_level.{split}."
    levels = sorted(int(c[len(after):]) for c in table.columns if c.startswith(after))
    check(levels, f"split={split!r} has no per-level columns in the results table")
    return after, before, levels


def per_level_change(table: pd.DataFrame, split: str = "test", by=("model", "strategy")) -> pd.DataFrame:
    """Accuracy after training minus before, per level (long format), averaged across seeds (06)."""
    after, before, levels = level_columns(table, split)
    check_one_run_per_seed(table, by)
    rows = []
    for key, group in table.groupby(list(by), sort=True):
        for level in levels:
            change = group[f"{after}{level}"] - group[f"{before}{level}"]
            rows.append({**dict(zip(by, key)), "level": level, "before": round(float(group[f"{before}{level}"].mean()), 4),
                         "after": round(float(group[f"{after}{level}"].mean()), 4), **t_interval(change)})
    return pd.DataFrame(rows)


def chance_corrected(accuracy, guess: float):
    """(accuracy - guess) / (1 - guess): 0 at chance, 1 at perfect (05: shuffle's answer is one of 3-7 letters).

    >>> round(chance_corrected(0.6, 0.2), 4)
    0.5
    """
    check(0 <= guess < 1, f"guess={guess} must be in [0, 1)")
    return (accuracy - guess) / (1 - guess)


def with_gain_beyond_chance(table: pd.DataFrame, split: str = "test") -> pd.DataFrame:
    """The table with `gain_beyond_chance.<split>`: the mean over levels of gain / (1 - guess rate) (A1).

    Each level's gain is divided by (1 - its guess rate) and levels are averaged, each counted once (the tiny profile's
    held-out sets hold 60 problems per level). For arith it equals the plain gain where the levels hold equally many
    problems (tiny), not in smoke's 16 (4, 3, 3, 3, 3)."""
    after, before, levels = level_columns(table, split)

    def beyond_chance(row) -> float:
        guesses = {level: guess_rate(row["task"], level) for level in levels}
        return float(np.mean([chance_corrected(row[f"{after}{level}"], guesses[level])
                              - chance_corrected(row[f"{before}{level}"], guesses[level]) for level in levels]))

    return table.assign(**{f"gain_beyond_chance.{split}": table.apply(beyond_chance, axis=1)})


def per_level_verdicts(table: pd.DataFrame, margin: float, problems_per_level: int, split: str = "test",
                       by=("model", "strategy")) -> pd.DataFrame:
    """Each level's change (after - before) per group with its TOST verdict (A1).

    The shared base evaluation's variance at a level with accuracy a, from K samples of each of n problems, is at most
    a(1-a)/((K-1)n): that bound is added."""
    after, before, levels = level_columns(table, split)
    check_one_run_per_seed(table, by)
    k_column = f"base_k.{split}" if f"base_k.{split}" in table else f"eval_k.{split}"
    require_columns(table, [k_column], "the samples per problem of the base evaluation (base_k or eval_k)")
    rows = []
    for key, group in table.groupby(list(by), sort=True):
        k = int(one_value(group[k_column], k_column, key))  # a blank K is named, not a ValueError
        for level in levels:
            start = one_value(group[f"{before}{level}"], f"{before}{level}", key)
            bound = base_variance_bound(start, k, problems_per_level)
            rows.append({**dict(zip(by, key)), "level": level, "before": round(start, 4),
                         **equivalence_verdict(group[f"{after}{level}"] - group[f"{before}{level}"], margin, bound)})
    return pd.DataFrame(rows)


def one_value(values: pd.Series, column: str, group) -> float:
    """The one finite value all rows of a group hold (the K or an accuracy of their shared base evaluation): rows that
    disagree are refused, not read from the first row, whose value would decide the verdict (06)."""
    distinct = pd.to_numeric(values, errors="coerce").unique()
    check(len(distinct) == 1 and np.isfinite(distinct[0]),
          f"{column} holds {', '.join(f'{v:g}' for v in distinct)} in the rows of {group}: runs that share a base "
          "evaluation hold one value (a blank or a differing row was edited or comes from another study)")
    return float(distinct[0])


def selected_pass_rates(labels: pd.DataFrame, fresh: pd.DataFrame, strategies, budget: float, seeds) -> pd.DataFrame:
    """For each arm and seed, the selected set's mean pass rate by its labels and by fresh samples (A1).

    `labels`: the pass rates it was chosen by (e.g. K=8); `fresh`: fresh samples of the same problems (e.g. K=64). The
    gap is how far the labels regress to the mean."""
    check(set(labels["id"]) == set(fresh["id"]), "labels and fresh must be difficulty tables of the same problems")
    twice = sorted(set(fresh["id"][fresh["id"].duplicated()].astype(str)))
    check(not twice, f"fresh lists problem(s) {twice[:5]} more than once (two estimates joined?): each would count "
                     "once per row; keep one row per problem")
    true_p = fresh.set_index("id")["pass_rate"]
    label_p = labels.set_index("id")["pass_rate"]
    rows = []
    for strategy in strategies:
        for seed in seeds:
            ids = select(labels, strategy, budget, seed)
            rows.append({"strategy": strategy, "seed": seed, "label p": float(label_p.loc[ids].mean()),
                         "fresh p": float(true_p.loc[ids].mean()),
                         "fresh share 0<p<1": float(((true_p.loc[ids] > 0) & (true_p.loc[ids] < 1)).mean())})
    return pd.DataFrame(rows)


def mechanism_table(table: pd.DataFrame, by=("model", "strategy")) -> pd.DataFrame:
    """Per group: share of selected examples with 0 < p < 1, learnable share of groups, steps, and gain (05, 07)."""
    columns = {"selected_share_mixed": "selected share 0<p<1", "predicted_dead_share": "predicted dead groups",
               "learnable_share_of_steps": "learnable share of groups", "steps": "steps", "gain.test": "gain (test)"}
    check_one_run_per_seed(table, by)  # runs of two lengths or settings would be averaged into one row
    present = {c: name for c, name in columns.items() if c in table.columns and c not in by}
    groups = table.groupby(list(by), sort=True)[list(present)]
    blanks = groups.agg(lambda values: values.isna().sum() * values.notna().any()).stack()  # blanks beside values
    for (*key, column), count in blanks[blanks > 0].head(1).items():
        raise CourseError(f"{column} is blank for {count} seed(s) of {tuple(key)} and not for the others: their mean "
                          "would leave those seeds out in silence; fill them in (or drop those runs)")
    return groups.mean().round(4).rename(columns=present).reset_index()


def rank_correlation(x, y, resamples: int = 2000, seed: int = 0) -> dict:
    """Spearman's rank correlation of paired values with a 95% percentile-bootstrap interval over the pairs (05, 07).

    >>> rank_correlation([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])["rho"]
    1.0
    """
    x, y = np.asarray(list(x), dtype=float), np.asarray(list(y), dtype=float)
    check(len(x) == len(y) and len(x) >= 4, f"rank_correlation needs >= 4 pairs of equal length, got {len(x)} and {len(y)}")
    check(np.isfinite(x).all() and np.isfinite(y).all(), "rank_correlation's values must be finite numbers (a NaN has "
                                                         "no rank); drop the incomplete pairs first")
    check(isinstance(resamples, int) and resamples >= 10, f"resamples={resamples!r} must be a whole number of at "
                                                          "least 10 (2,000 is usual) for a percentile interval")
    check(len(set(x)) > 1 and len(set(y)) > 1, "rank_correlation: one of the two variables holds a single value, "
                                               "which has no ranks to correlate")
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():  # a resample of ties only has no rank correlation (NaN): counted below
        warnings.simplefilter("ignore", ConstantInputWarning)
        draws = [spearmanr(x[i], y[i]).statistic for i in (rng.integers(0, len(x), len(x)) for _ in range(resamples))]
    tied = int(np.isnan(draws).sum())
    if tied > resamples // 20:  # the interval would be read from the resamples that happen to hold distinct values
        warn(f"rank_correlation: {tied} of {resamples} resamples held a single value of x or y (no "
             "correlation) and are left out of the interval; with so many ties it is unreliable")
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    return {"rho": round(float(spearmanr(x, y).statistic), 4), "ci_low": round(float(low), 4),
            "ci_high": round(float(high), 4), "n": len(x)}
