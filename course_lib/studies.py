"""Reading the two studies' results: gains per strategy across seeds, paired differences, per-level tables.

Pure functions over the results table that `python -m course_lib reproduce` writes (one row per grid
point). Introduced in notebooks/05_hard_examples_win.ipynb; used again in 06 and 07.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import check

RESULTS_DIR = Path(__file__).resolve().parent.parent / "data" / "results"

# Two-sided 95% quantiles of Student's t by degrees of freedom (for intervals across a handful of seeds).
T_975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def load_study(study: str, root=RESULTS_DIR) -> tuple[pd.DataFrame, dict]:
    """The committed results table of a study (points that succeeded) and its provenance."""
    folder = Path(root) / study
    check((folder / "results.csv").exists(),
          f"study={study!r}: no results.csv in {folder}; run `python -m course_lib reproduce {study} --out DIR`")
    table = pd.read_csv(folder / "results.csv")
    provenance = json.loads((folder / "provenance.json").read_text()) if (folder / "provenance.json").exists() else {}
    return table[table["status"] == "ok"].reset_index(drop=True), provenance


def t_interval(values) -> dict:
    """Mean of per-seed values with a 95% Student-t interval (seeds are the unit of replication).

    >>> t_interval([0.1, 0.2, 0.3])["ci_low"]
    -0.0484
    """
    values = np.asarray(list(values), dtype=float)
    check(len(values) >= 1, "t_interval needs at least one value")
    mean = float(values.mean())
    if len(values) == 1:
        return {"mean": round(mean, 4), "ci_low": float("nan"), "ci_high": float("nan"), "seeds": 1, "excludes_zero": False}
    df = len(values) - 1
    t = T_975[max(d for d in T_975 if d <= df)]
    half = t * float(values.std(ddof=1)) / float(np.sqrt(len(values)))
    low, high = round(mean - half, 4), round(mean + half, 4)
    return {"mean": round(mean, 4), "ci_low": low, "ci_high": high, "seeds": len(values),
            "excludes_zero": bool(low > 0 or high < 0)}


def gain_by_strategy(table: pd.DataFrame, column: str = "gain.test", by=("task", "strategy")) -> pd.DataFrame:
    """Mean of `column` per group across seeds, with 95% t-intervals (05 and 06)."""
    check(column in table.columns, f"column={column!r} is not in the results table; use one of {list(table.columns)}")
    rows = [{**dict(zip(by, key)), **t_interval(group[column])}
            for key, group in table.groupby(list(by), sort=True)]
    return pd.DataFrame(rows)


def paired_difference(table: pd.DataFrame, first: str, second: str, column: str = "gain.test",
                      by=("task",)) -> pd.DataFrame:
    """`first` minus `second` strategy, paired by seed within each group, with 95% t-intervals across seeds."""
    for strategy in (first, second):
        check(strategy in set(table["strategy"]), f"strategy {strategy!r} is not in the results table")
    rows = []
    for key, group in table.groupby(list(by), sort=True):
        wide = group.pivot_table(index="seed", columns="strategy", values=column).reindex(columns=[first, second]).dropna()
        if wide.empty:  # this group has no seed with both strategies
            continue
        rows.append({**dict(zip(by, key)), "difference": f"{first} - {second}",
                     **t_interval(wide[first] - wide[second])})
    return pd.DataFrame(rows)


def verdict(row) -> str:
    """'beats', 'loses to' or 'is indistinguishable from', from a row with a 95% interval (05, 07)."""
    return "beats" if row.ci_low > 0 else "loses to" if row.ci_high < 0 else "is indistinguishable from"


def live_slice(study: str, profile: str, where: str, out, workers: int = 1, command: str = "") -> pd.DataFrame:
    """Re-run a slice of a study's grid ("KEY:VALUE,KEY:VALUE") fresh into `out`; the points that succeeded (05, 06)."""
    import shutil

    from .sweep import parse_where, run

    shutil.rmtree(out, ignore_errors=True)  # a fresh slice each time a notebook executes
    outcome = run(study, profile, out, workers=workers, where=parse_where(where.split(","), ":"), command=command)
    table = pd.read_csv(outcome["results"])
    return table[table["status"] == "ok"].reset_index(drop=True)


def per_level_change(table: pd.DataFrame, split: str = "test", by=("model", "strategy")) -> pd.DataFrame:
    """Accuracy after training minus before, per level (long format), averaged across seeds (06)."""
    prefix_after, prefix_before = f"accuracy_after_by_level.{split}.", f"accuracy_before_by_level.{split}."
    levels = sorted(c[len(prefix_after):] for c in table.columns if c.startswith(prefix_after))
    check(levels, f"split={split!r} has no per-level columns in the results table")
    rows = []
    for key, group in table.groupby(list(by), sort=True):
        for level in levels:
            change = group[prefix_after + level] - group[prefix_before + level]
            rows.append({**dict(zip(by, key)), "level": int(level), "before": round(float(group[prefix_before + level].mean()), 4),
                         "after": round(float(group[prefix_after + level].mean()), 4), **t_interval(change)})
    return pd.DataFrame(rows)


def mechanism_table(table: pd.DataFrame, by=("model", "strategy")) -> pd.DataFrame:
    """Per group: share of selected examples with 0 < p < 1, learnable share of steps, steps, and gain (07)."""
    columns = {"selected_share_mixed": "selected share 0<p<1", "predicted_dead_share": "predicted dead groups",
               "learnable_share_of_steps": "learnable share of steps", "steps": "steps", "gain.test": "gain (test)"}
    present = {c: name for c, name in columns.items() if c in table.columns}
    return table.groupby(list(by), sort=True)[list(present)].mean().round(4).rename(columns=present).reset_index()
