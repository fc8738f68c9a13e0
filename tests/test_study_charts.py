"""The charts of notebooks 05-07: what each draws from its table (course_lib.classroom.plots)."""

import json
import re

import pandas as pd
import pytest
import vl_convert

from course_lib.classroom.plots import (
    count_marks,
    dead_share_grid_chart,
    effect_sizes_table,
    learnable_vs_gain_chart,
    runs_gain_chart,
    seed_spread_chart,
)


def arms(seeds_of_small: int) -> pd.DataFrame:
    """Two arms of a model with 5 seeds (narrow intervals) and two of a model with `seeds_of_small` seeds, whose
    t-interval from 2 seeds is ten times as wide."""
    return pd.DataFrame([
        {"model": "tiny-m", "strategy": "hard", "learnable share of groups": 0.64, "gain (test)": -0.003,
         "ci_low": -0.048, "ci_high": 0.041, "seeds": 5},
        {"model": "tiny-m", "strategy": "random", "learnable share of groups": 0.83, "gain (test)": 0.010,
         "ci_low": -0.001, "ci_high": 0.020, "seeds": 5},
        {"model": "tiny-l", "strategy": "hard", "learnable share of groups": 0.35, "gain (test)": 0.004,
         "ci_low": -0.40, "ci_high": 0.41, "seeds": seeds_of_small},
        {"model": "tiny-l", "strategy": "random", "learnable share of groups": 0.15, "gain (test)": -0.010,
         "ci_low": -0.35, "ci_high": 0.33, "seeds": seeds_of_small},
    ])


def layers(chart) -> list[dict]:
    return chart.to_dict()["layer"]


def test_two_seed_arms_draw_no_interval_and_leave_the_axis_to_the_others():
    chart = learnable_vs_gain_chart(arms(2), "model", "strategy", "t")
    spec = chart.to_dict()
    bars = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "rule" and "y2" in layer["encoding"])
    domain = bars["encoding"]["y"]["scale"]["domain"]
    assert domain == pytest.approx([-0.048, 0.041])  # the 5-seed arms' intervals, not the 2-seed ones' +-0.4
    drawn = json.dumps(spec["datasets"])
    assert "0.41" in drawn  # the 2-seed arms are still in the data (as points)
    points = [layer for layer in spec["layer"] if layer["mark"]["type"] == "point"]
    assert [layer["mark"]["filled"] for layer in points] == [True, False]  # hollow: no interval
    assert spec["title"]["subtitle"] == "hollow: fewer than 3 seeds, no interval"
    assert count_marks(vl_convert.vegalite_to_svg(spec)) > 0


def test_arms_with_enough_seeds_keep_their_intervals():
    spec = learnable_vs_gain_chart(arms(3), "model", "strategy", "t").to_dict()
    bars = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "rule" and "y2" in layer["encoding"])
    assert bars["encoding"]["y"]["scale"]["domain"] == pytest.approx([-0.40, 0.41])
    assert [layer["mark"]["filled"] for layer in spec["layer"] if layer["mark"]["type"] == "point"] == [True]
    assert spec["title"]["subtitle"] == ""
    without = learnable_vs_gain_chart(arms(3).drop(columns="seeds"), "model", "strategy", "t").to_dict()  # 05's table
    assert json.dumps(without["datasets"]).count("0.41") == json.dumps(spec["datasets"]).count("0.41")


def test_seed_spread_chart_puts_each_source_on_its_own_row():
    table = pd.DataFrame({"seed": [0, 1, 2, 5], "difference": [0.027, 0.013, -0.045, 0.03],
                          "source": ["committed seeds"] * 3 + ["live seed (tiny)"]})
    spec = seed_spread_chart(table, "t", "difference").to_dict()
    dots = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "point")
    assert dots["encoding"]["y"]["sort"] == ["committed seeds", "live seed (tiny)"]
    assert dots["encoding"]["color"]["scale"]["range"][:2] == ["#7F7F7F", "#D55E00"]  # the live seed stands out
    svg = vl_convert.vegalite_to_svg(spec)
    assert count_marks(svg) > 0 and "live seed (tiny)" in svg


def test_dead_share_grid_labels_every_cell_with_its_value():
    table = pd.DataFrame([{"model": m, "strategy": s, "predicted dead groups": v}
                          for m, row in {"tiny-s": (1.0, 0.55), "tiny-l": (0.1, 0.1)}.items()
                          for s, v in zip(("hard", "learnability"), row)])
    svg = vl_convert.vegalite_to_svg(dead_share_grid_chart(table, ["tiny-s", "tiny-l"], ["hard", "learnability"],
                                                           "t").to_dict())
    assert all(f">{label}<" in svg for label in ("1.00", "0.55", "0.10"))


def test_runs_gain_chart_reads_each_runs_own_interval():
    runs = pd.DataFrame({"model": ["tiny-m", "tiny-s"], "task": "arith", "strategy": ["hard", "random"],
                         "seed": [0, 1], "learnable_share_of_steps": [0.64, 0.15], "gain.test": [0.02, -0.01],
                         "gain_ci.test": [json.dumps([0.005, 0.035]), json.dumps([-0.03, 0.01])]})
    spec = runs_gain_chart(runs, ["tiny-s", "tiny-m"], "t").to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert [(r["ci_low"], r["gain"], r["ci_high"]) for r in rows] == [(0.005, 0.02, 0.035), (-0.03, -0.01, 0.01)]
    assert count_marks(vl_convert.vegalite_to_svg(spec)) > 0
    dots = spec["layer"][1]["encoding"]  # each model its own shape too: sky blue and bluish green look alike
    assert dots["shape"]["field"] == dots["color"]["field"] == "model"
    svg = vl_convert.vegalite_to_svg(spec)  # one legend of coloured shapes, not two legends both titled "model"
    assert svg.count("role-legend-title") == 1
    assert re.findall(r'role-legend-symbol".*?<path [^>]*fill="(#[0-9A-F]+)"', svg) == ["#56B4E9", "#E69F00"]


def test_effect_sizes_table_puts_our_fractions_in_the_papers_points():
    ours = pd.DataFrame({"label": ["hard"], "mean": [-0.0033], "ci_low": [-0.0477], "ci_high": [0.0411]})
    table = effect_sizes_table([{"source": "paper", "row": "hard", "low": 34, "high": 47}], {"ours": ours}, scale=100)
    assert table.loc[1, ["low", "mean", "high"]].tolist() == pytest.approx([-4.77, -0.33, 4.11])
    assert table.loc[0, ["low", "high"]].tolist() == [34, 47]  # the paper's rows as given
