"""Which problems to train on under a budget: the selection strategies over a difficulty table.

A difficulty table is a pandas DataFrame with one row per problem and at least the columns
`id` (str), `level` (int or None) and `pass_rate` (the base model's share of correct samples, in [0, 1]).
Introduced in notebooks/01_difficulty_estimation.ipynb (`pass_rate_counts`); the strategies in
notebooks/03_budget_explorer.ipynb.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import pandas as pd

from .errors import check, warn

STRATEGIES = ("easy", "medium", "hard", "random", "learnability", "levels")  # what `select` picks by (03)
REQUIRED_COLUMNS = ("id", "level", "pass_rate")


# ---------------------------------------------------------------------------
# Budgets
# ---------------------------------------------------------------------------


def budget_count(budget: float | int, pool_size: int) -> int:
    """How many problems a budget buys: a float is a fraction of the pool, an int is a count."""
    check(isinstance(pool_size, Integral) and not isinstance(pool_size, bool) and pool_size >= 1,
          f"pool_size={pool_size!r} must be a positive integer (the number of problems to choose from)")
    is_count = isinstance(budget, Integral) and not isinstance(budget, bool)
    is_fraction = isinstance(budget, Real) and not isinstance(budget, Integral)
    check(is_count or is_fraction,
          f"budget={budget!r} must be a fraction of the pool in (0, 1] (a float) or a count of problems (an int)")
    check(math.isfinite(budget) and budget > 0,
          f"budget={budget!r} must be positive: a fraction in (0, 1] or a count of at least 1")
    if is_fraction:
        check(budget <= 1, f"budget={budget!r} as a fraction must be in (0, 1]; give a count as an integer")
        # floor, as Pikus et al.'s code does (int(len(pool) * size)); the epsilon keeps 0.29 * 100 at 29
        count = int(budget * pool_size + 1e-9)
        if count == 0:  # the paper's code would select nothing: one problem, said
            warn(f"budget={budget!r} of {pool_size} problems is less than one problem; selecting 1")
        return max(1, count)
    check(budget <= pool_size, f"budget={budget} is larger than the pool ({pool_size} problems)")
    return int(budget)


# ---------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------


def _check_table(table: pd.DataFrame, rates_read: bool = True) -> None:
    """Validate a difficulty table early: required columns, unique ids, pass rates in [0, 1] (missing ones allowed
    when the strategy does not read them: a pool that was never estimated, for random and level arms)."""
    check(isinstance(table, pd.DataFrame), f"table must be a pandas DataFrame, not {type(table).__name__}")
    missing = [column for column in REQUIRED_COLUMNS if column not in table.columns]
    check(not missing, f"table is missing the column(s) {', '.join(missing)}; "
                       f"a difficulty table needs {', '.join(REQUIRED_COLUMNS)}")
    check(len(table) > 0, "table is empty; select from a pool of at least one problem")
    for row, uid in enumerate(table["id"], start=1):
        text = "" if uid is None or (not isinstance(uid, str) and bool(pd.isna(uid))) else str(uid)  # NaN, pd.NA
        check(text != "" and text == text.strip() and len(text.splitlines()) == 1,
              f"table row {row} has id {uid!r}: an id must be non-empty text on one line without spaces at its ends "
              "(an ids file holds one per line); fix that row")
    duplicated = table["id"][table["id"].astype(str).duplicated()].tolist()  # 1 and "1" are one id once written
    check(not duplicated, f"table has duplicate ids {duplicated[:5]}; each problem needs its own id")
    rates = pd.to_numeric(table["pass_rate"], errors="coerce")
    wrong = ~rates.between(0, 1) if rates_read else rates.notna() & ~rates.between(0, 1)  # NaN fails `between`
    bad = table["id"][wrong].tolist()
    check(not bad, f"pass_rate must be a number in [0, 1]; rows {bad[:5]} are not")


def _seeded_order(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The rows in a random order fixed by `seed` (and not by the table's row order): ties are then broken by it."""
    check(isinstance(seed, Integral) and not isinstance(seed, bool) and seed >= 0,
          f"seed={seed!r} must be a non-negative integer")
    by_id = table.sort_values("id", key=lambda ids: ids.astype(str), kind="stable").reset_index(drop=True)
    return by_id.iloc[np.random.default_rng(int(seed)).permutation(len(by_id))].reset_index(drop=True)


def _ranked(shuffled: pd.DataFrame, key: np.ndarray, descending: bool = False) -> pd.DataFrame:
    """A *stable* sort of the shuffled rows by `key`: equal keys keep their seeded order."""
    order = np.argsort(-key if descending else key, kind="stable")
    return shuffled.iloc[order]


def _levels_band(table: pd.DataFrame, levels) -> tuple[pd.DataFrame, list[int]]:
    """The rows whose level is in `levels` (rows without a level never are), and the levels as a list."""
    check(levels is not None, "strategy='levels' needs levels=..., e.g. levels=(1, 2, 3) as in arXiv 2604.06298")
    levels = [levels] if isinstance(levels, Integral) else list(levels)
    check(len(levels) > 0, "levels is empty; give at least one level, e.g. levels=(1, 2, 3)")
    check(all(isinstance(level, Integral) and not isinstance(level, (bool, np.bool_)) for level in levels),
          f"levels={levels!r} must be integers, e.g. (1, 2, 3)")
    check(len(set(levels)) == len(levels), f"levels={levels!r} names a level twice; give each once, e.g. (1, 2, 3)")
    band = table[table["level"].isin(levels)]
    held = sorted((int(level) if isinstance(level, Real) and float(level).is_integer() else level
                   for level in table["level"].dropna().unique()), key=str)
    check(len(band) > 0, f"no problem in the table has a level in {levels}; the table's levels are {held}")
    absent = [level for level in levels if level not in set(band["level"])]
    if absent:  # a small pool may lack a level by chance: said, not refused
        warn(f"levels={levels!r}: the table has no problem of level(s) {absent} (its levels are {held}); the "
             "selection holds the others only")
    return band, levels


def select(table: pd.DataFrame, strategy: str, budget: float | int, seed: int = 0, levels=None) -> list[str]:
    """The ids of the problems `strategy` picks for `budget`, in the order of selection, e.g. hardest first (03)."""
    check(strategy in STRATEGIES, f"strategy={strategy!r} is unknown; use one of {', '.join(STRATEGIES)}")
    check(strategy == "levels" or levels is None,
          f"levels={levels!r} only applies to strategy='levels'; drop it for strategy={strategy!r}")
    _check_table(table, rates_read=strategy not in ("random", "levels"))
    if strategy == "levels":
        return _select_levels(table, budget, seed, levels)
    n = budget_count(budget, len(table))
    shuffled = _seeded_order(table, seed)
    p = shuffled["pass_rate"].to_numpy(dtype=float)
    if strategy == "random":
        chosen = shuffled.iloc[:n]  # the seeded order is already a random sample
    elif strategy == "hard":
        chosen = _ranked(shuffled, p).iloc[:n]  # the n lowest pass rates
    elif strategy == "easy":
        chosen = _ranked(shuffled, p, descending=True).iloc[:n]  # the n highest pass rates
    elif strategy == "medium":
        start = (len(p) - n) // 2  # an n-wide window centred in the sorted pool, as Pikus et al. do
        chosen = _ranked(shuffled, p).iloc[start : start + n]
    else:  # learnability: the n largest p(1 - p), i.e. the largest expected group reward variance
        chosen = _ranked(shuffled, learnability_key(p), descending=True).iloc[:n]
    return chosen["id"].astype(str).tolist()


def learnability_key(p: np.ndarray) -> np.ndarray:
    """p(1 - p), rounded to 12 places so that p and 1 - p tie as they should (in floating point 0.2 x 0.8 and
    0.8 x 0.2 differ in the last bit, which would always pick the harder half of a K=5 tie) (03)."""
    return np.round(p * (1 - p), 12)


def _select_levels(table: pd.DataFrame, budget: float | int, seed: int, levels) -> list[str]:
    """A seeded random sample of the problems in a level band (a fraction budget is a fraction of the band)."""
    band, levels = _levels_band(table, levels)
    is_count = isinstance(budget, Integral) and not isinstance(budget, bool)
    check(not (is_count and budget > len(band)),
          f"budget={budget} asks for {budget} problems but levels {levels} hold only {len(band)}; "
          "lower the budget or widen the levels")
    n = budget_count(budget, len(band))
    return _seeded_order(band, seed)["id"].astype(str).iloc[:n].tolist()


def tie_at_the_cut(table: pd.DataFrame, strategy: str, budget: float | int) -> list[dict]:
    """Each block of problems with one selection key (the pass rate; p(1 - p) for learnability) that `strategy`'s
    budget cuts through: the key, the block's size and how many of it were picked, by the seed alone, as random
    picks; `medium`'s window may cut two, one at each end; [] when no block is cut (03)."""
    if strategy in ("random", "levels") or len(table) == 0:
        return []
    n = budget_count(budget, len(table))
    p = table["pass_rate"].to_numpy(dtype=float)
    key = learnability_key(p) if strategy == "learnability" else p
    order = np.sort(key)[::-1] if strategy in ("easy", "learnability") else np.sort(key)
    start = (len(key) - n) // 2 if strategy == "medium" else 0
    window = order[start : start + n]
    blocks = [{"key": "p(1 - p) =" if strategy == "learnability" else "pass rate", "value": float(edge),
               "tied": int((order == edge).sum()), "picked": int((window == edge).sum())}
              for edge in dict.fromkeys((window[0], window[-1]))]
    return [block for block in blocks if block["tied"] > block["picked"]]


def degenerate_medium(table: pd.DataFrame, budget: float | int) -> bool:
    """True when the `medium` window lies inside a larger block of equal pass rates (e.g. all p = 1).

    Then `medium` is not "middle difficulty" at all, only a seeded pick among ties; warn the reader.
    """
    _check_table(table)
    n = budget_count(budget, len(table))
    return any(tie["picked"] == n for tie in tie_at_the_cut(table, "medium", budget))  # the whole window in one block


# ---------------------------------------------------------------------------
# What estimating difficulty costs
# ---------------------------------------------------------------------------


def estimation_cost(pool_size: int, k: int, tokens_per_completion: float) -> dict:
    """Completions and generated tokens needed to estimate every pool problem's pass rate from k samples."""
    check(isinstance(pool_size, Integral) and pool_size >= 1, f"pool_size={pool_size!r} must be a positive integer")
    check(isinstance(k, Integral) and k >= 1, f"k={k!r} must be a positive integer (samples per problem)")
    check(isinstance(tokens_per_completion, Real) and tokens_per_completion > 0,
          f"tokens_per_completion={tokens_per_completion!r} must be a positive number")
    completions = int(pool_size) * int(k)
    return {"completions": completions, "tokens": completions * tokens_per_completion}


def charge_estimation(
    budget_in_annotations: int, pool_size: int, k: int, cost_of_one_completion_in_annotations: float
) -> dict:
    """Annotate more, or estimate first? Both options for one budget, counted in annotations (03).

    - "annotate more": spend the whole budget annotating random problems.
    - "estimate first": sample k completions for each of the pool's problems (paid from the same budget),
      then annotate the hardest problems with what is left.
    Assumes pass rates can be measured before annotating (a verifier, or answers that come with the pool).
    """
    check(isinstance(budget_in_annotations, Integral) and 1 <= budget_in_annotations <= pool_size,
          f"budget_in_annotations={budget_in_annotations!r} must be an integer in [1, pool_size={pool_size}]")
    check(isinstance(cost_of_one_completion_in_annotations, Real) and 0 <= cost_of_one_completion_in_annotations < math.inf,
          f"cost_of_one_completion_in_annotations={cost_of_one_completion_in_annotations!r} must be a finite number >= 0")
    completions = estimation_cost(pool_size, k, 1)["completions"]
    cost = completions * cost_of_one_completion_in_annotations  # in annotations
    return {
        "annotate_more": int(budget_in_annotations),  # random problems annotated
        "estimate_first": max(0, math.floor(round(budget_in_annotations - cost, 9))),  # hard problems annotated
        "estimation_cost": cost,  # annotations' worth spent on sampling the pool
    }


# ---------------------------------------------------------------------------
# What a selection looks like (the budget explorer's numbers)
# ---------------------------------------------------------------------------


def selection_summary(table: pd.DataFrame, strategy: str, budget: float | int, group_size: int = 8,
                      seed: int = 0, levels=None) -> dict:
    """The selected subset's size, pass rates, share with 0 < p < 1 and predicted share of dead groups (03)."""
    from .grpo import informative_share

    ids = select(table, strategy, budget, seed, levels=levels)
    rates = table.set_index(table["id"].astype(str)).loc[ids, "pass_rate"].to_numpy(dtype=float)
    return {
        "strategy": strategy,
        "n_selected": len(ids),
        "mean_pass_rate": round(float(rates.mean()), 4),
        "share_mixed": round(float(np.mean((rates > 0) & (rates < 1))), 4),
        "predicted_dead_share": round(1 - informative_share(rates, group_size), 4),
        "medium_degenerate": strategy == "medium" and degenerate_medium(table, budget),
        "ids": ids,
    }


def pass_rate_counts(table: pd.DataFrame, by: str, groups=None) -> pd.DataFrame:
    """Problems per pass rate K samples can give (j/K, j = 0..K, empty ones kept) and per value of `by` (01, 03)."""
    check(by in table.columns, f"by={by!r} is not a column of the table; use one of {', '.join(map(str, table.columns))}")
    ks = table["k"].unique()
    check(len(ks) == 1, f"the table mixes samples per problem (K = {sorted(ks)}); count one K at a time")
    k = ks[0]
    whole = isinstance(k, Real) and not isinstance(k, (bool, np.bool_)) and math.isfinite(k) and float(k).is_integer()
    check(whole and k >= 1, f"k={k} must be a whole number of samples per problem >= 1")
    k = int(k)
    rates = table["pass_rate"].astype(float)
    outside = table.index[~rates.between(0, 1)].tolist()
    check(not outside, f"pass_rate must be from 0 to 1 in every row; rows {outside[:5]} are not (a damaged table: "
                       "estimate it again)")
    check(table[by].notna().all(), f"{by} is missing in rows {table.index[table[by].isna()].tolist()[:5]}; they would "
                                   "drop out of the counts: fill or drop them first")
    right = rates.to_numpy() * k
    check(np.allclose(right, right.round()), f"a pass rate is not a whole number of right answers out of K = {k}")
    counts = table.assign(right=right.round().astype(int)).groupby([by, "right"]).size()
    index = pd.MultiIndex.from_product([_groups_to_count(table, by, groups), range(k + 1)], names=[by, "right"])
    counts = counts.reindex(index, fill_value=0).reset_index(name="problems")
    return counts.assign(pass_rate=counts["right"] / k, label=[f"{j}/{k}" for j in counts["right"]])


def _groups_to_count(table: pd.DataFrame, by: str, groups) -> list:
    """The values of `by` to count, each once: `groups` in its order (every value of the table among them), else the
    table's values, sorted."""
    if groups is None:
        return sorted(table[by].unique())
    groups = list(groups)
    bools = any(isinstance(group, (bool, np.bool_)) for group in groups)
    check(not bools or pd.api.types.is_bool_dtype(table[by]),
          f"groups={groups!r} holds a bool, which would count {by} 1 or 0 under another label; give the values themselves")
    check(len(set(groups)) == len(groups), f"groups={groups!r} names a value twice, whose problems would be counted "
                                           "twice; give each value once")
    left_out = sorted(set(table[by]) - set(groups), key=str)
    check(not left_out, f"groups={groups!r} leaves out {by} {left_out[:5]} of the table, whose problems would drop out "
                        "of the counts; give every value, or filter the table first")
    return groups


def pass_rate_histogram(table: pd.DataFrame, ids: list[str]) -> pd.DataFrame:
    """`pass_rate_counts` of the pool split into the problems selected (`ids`) and not selected (03)."""
    check(not isinstance(ids, (str, bytes)), f"ids={ids!r} must be a list of ids, not one string")
    ids = set(map(str, ids))
    unknown = sorted(ids - set(table["id"].astype(str)))
    check(not unknown, f"ids {unknown[:5]} are not in the table; select them from this table")
    chosen = table["id"].astype(str).isin(ids)
    marked = table.assign(set=np.where(chosen, "selected", "not selected"))
    return pass_rate_counts(marked, "set", ["selected", "not selected"])
