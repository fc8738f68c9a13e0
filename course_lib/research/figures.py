"""The key charts of docs/findings.md as PNGs, made from committed files only (`python -m course_lib figures`).

Introduced in docs/findings.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import altair as alt
import pandas as pd

from ..classroom.plots import (
    dead_group_chart,
    level_change_chart,
    pass_rate_by_level_chart,
    save_png,
    strategy_gain_chart,
)
from ..errors import check
from ..evaluation import read_evaluation, read_gain
from ..models import TINY_SIZES, read_manifest
from ..paths import REPOSITORY
from .definitions import RESULTS_DIR
from .studies import gain_by_strategy, load_study, per_level_change


def arith_calibration(name: str) -> dict:
    """{level: pass rate} of a tiny model's committed arith calibration (its manifest), levels as whole numbers."""
    where = f"data/models/{name}/manifest.json"
    rates = read_manifest(name)
    for key in ("calibration", "arith", "pass_rate_by_level"):
        rates = rates.get(key) if isinstance(rates, dict) else None
    check(isinstance(rates, dict) and rates, f"{where} holds no arith calibration (calibration.arith."
                                             "pass_rate_by_level); restore it (git checkout), or measure it with "
                                             "`calibrate --write`")
    odd = [level for level in rates if not re.fullmatch(r"[0-9]{1,3}", str(level))]
    check(not odd, f"{where}: the arith calibration names level {odd[0] if odd else ''!r}, not a whole number "
                   "(edited?); restore it (git checkout), or measure it again with `calibrate --write`")
    bad = next(((level, rate) for level, rate in rates.items() if isinstance(rate, bool)
                or not isinstance(rate, int | float) or not 0 <= rate <= 1), None)
    check(bad is None, f"{where}: the arith calibration's pass rate at level {bad and bad[0]} is "
                       f"{bad and bad[1]!r}, not a rate in [0, 1] (edited?); restore it (git checkout), or measure it "
                       "again with `calibrate --write`")
    return {int(level): rate for level, rate in rates.items()}


def calibration_chart() -> alt.Chart:
    """Committed calibration of the three tiny models (pass rate by level, arith)."""
    rows = [{"model": name, "level": level, "pass_rate": rate} for name in TINY_SIZES
            for level, rate in arith_calibration(name).items()]
    return pass_rate_by_level_chart(pd.DataFrame(rows), "Tiny models: arith pass rate by level",
                                    "500 training problems, K=8, temperature 1.0 (data/models/*/manifest.json)")


def grpo_result_chart(folder: Path = RESULTS_DIR / "grpo-tiny-m") -> alt.Chart:
    """Held-out accuracy per level of tiny-m before and after the committed GRPO run."""
    rows = []
    for label, name in (("base", "eval_base.json"), ("after GRPO", "eval_trained.json")):
        result = read_evaluation(folder / name, name.removesuffix(".json"))  # checked: its rows sound, not edited since
        rows += [{"model": label, "level": int(level), "pass_rate": v["accuracy"]} for level, v in result["by_level"].items()]
    gain = read_gain(folder / "gain.json")
    note = (f"500 test problems, K=8; gain {gain['mean_difference']:+.3f} "
            f"[{gain['ci_low']:+.3f}, {gain['ci_high']:+.3f}] (paired bootstrap); bash {folder.relative_to(REPOSITORY)}/make.sh")
    return pass_rate_by_level_chart(pd.DataFrame(rows), "tiny-m: held-out arith accuracy, before and after GRPO", note)


def hard_wins_chart() -> alt.FacetChart:
    """Committed hard-wins study: test gain per strategy with 95% intervals across seeds, per task."""
    table, _ = load_study("hard-wins")
    return strategy_gain_chart(gain_by_strategy(table, "gain.test"), "tiny-m, 10% budget: held-out gain per strategy",
                               ["easy", "medium", "hard", "random", "learnability", "random+dynamic"],
                               f"{table.seed.nunique()} seeds, 95% t-intervals; bash data/results/hard-wins/make.sh")


def capacity_boundary_chart() -> alt.FacetChart:
    """Committed capacity-boundary study: accuracy change per level, per model and training subset."""
    table, _ = load_study("capacity-boundary")
    return level_change_chart(per_level_change(table, "test"), "Accuracy change per level after GRPO",
                              list(TINY_SIZES), ["levels-1-3", "levels-1-5", "random-matched"],
                              f"{table.seed.nunique()} seeds, 95% t-intervals; bash data/results/capacity-boundary/make.sh")


FIGURES = ("calibration.png", "dead_groups.png", "grpo_tiny_m.png", "hard_wins.png", "capacity_boundary.png")


def write_figures(out) -> list[Path]:
    """Render every chart of docs/findings.md into `out` (the files FIGURES names); returns the files written."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    charts = dict(zip(FIGURES, (calibration_chart(), dead_group_chart([2, 4, 8, 16]), grpo_result_chart(),
                                hard_wins_chart(), capacity_boundary_chart())))
    for name, chart in charts.items():
        save_png(chart, out / name)
    return [out / name for name in charts]
