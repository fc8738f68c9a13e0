"""Altair charts of the course; each returns an `alt.Chart` built from an aggregated table.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import json
import math
import os
import re
import struct
import zlib

import altair as alt
import pandas as pd

from ..errors import check
from ..provenance import atomic_write_bytes
from .runtime import CHARTS_VARIABLE

CHART_KINDS = ("live", "svg")


def live_renderer(spec: dict, **options) -> tuple[dict, dict]:
    """An interactive chart (`alt.JupyterChart` with its JavaScript bundled: no CDN; tooltips and zoom work in
    JupyterLab 4 and Voila) together with a static SVG copy, which viewers without widgets show instead."""
    import vl_convert

    alt.JupyterChart.enable_offline(offline=True)
    widget = alt.JupyterChart(chart=alt.Chart.from_dict(spec), embed_options={"renderer": "svg"})
    data, metadata = widget._repr_mimebundle_()  # (data, metadata), as ipywidgets returns it
    return {**data, "image/svg+xml": vl_convert.vegalite_to_svg(spec)}, metadata


alt.renderers.register("course-live", live_renderer)


# ---------------------------------------------------------------------------
# One colour per thing across the whole course: a model, a strategy (arm) keeps its colour in every chart
# ---------------------------------------------------------------------------

MODEL_COLORS = {  # Okabe-Ito hues (safe for colour-blind readers); a model's variants keep apart
    "tiny-s": "#56B4E9", "tiny-m": "#E69F00", "tiny-m-wordy": "#CC79A7", "tiny-m-short": "#D55E00",
    "tiny-l": "#009E73", "tiny-l-strong": "#0072B2", "tiny-sm": "#999933",  # olive (Paul Tol): a size of its own
    "tiny-l-wordy": "#882255",  # wine (Paul Tol): tiny-l's format-limited variant
    "tiny-sm-math": "#DDCC77", "tiny-m-math": "#332288",  # sand and indigo (Paul Tol): the tinymath sizes
    "tiny-l-math": "#44AA99",  # teal (Paul Tol): the largest tinymath size
}
STRATEGY_COLORS = {  # the arms of the studies and of the budget explorer
    "easy": "#59A14F", "medium": "#EDC948", "hard": "#E15759", "random": "#79706E", "random+dynamic": "#76B7B2",  # teal: apart from random's grey
    "learnability": "#B07AA1", "levels": "#4E79A7", "levels-1-3": "#4E79A7", "levels-1-5": "#A0CBE8",
    "random-matched": "#9C755F", "hard but alive": "#FF9D9A",
}
STAGE_COLORS = {"base": "#BAB0AC", "after GRPO": "#F28E2B"}  # a model before and after training, side by side
OTHER_COLOR = "#7F7F7F"  # anything the palette does not name (e.g. a hub model)


def course_color(name: str) -> str:
    """The colour of a model, a strategy or a training stage in every chart of the course (grey for names it does
    not know)."""
    return MODEL_COLORS.get(name, STRATEGY_COLORS.get(name, STAGE_COLORS.get(name, OTHER_COLOR)))


def color_scale(values) -> alt.Scale:
    """An Altair colour scale that gives each value (model or strategy names) its course-wide colour."""
    domain = [str(v) for v in dict.fromkeys(values)]
    return alt.Scale(domain=domain, range=[course_color(v) for v in domain])


def line_legend(title: str = "", colour: str | None = "gray") -> alt.Legend:
    """A legend drawing each entry as a short line in its dash style; `colour=None` keeps each entry's colour."""
    stroke = {} if colour is None else {"symbolStrokeColor": colour}
    return alt.Legend(title=title, symbolType="stroke", symbolStrokeWidth=2.5, symbolSize=400, **stroke)


def rolling_mean(values, window: int) -> list[float]:
    """The mean of each value and the `window - 1` before it (fewer at the start): a per-step curve, smoothed.

    >>> rolling_mean([0, 1, 0, 1], 2)
    [0.0, 0.5, 0.5, 0.5]
    """
    check(isinstance(window, int) and window >= 1, f"window={window!r} must be a whole number of steps >= 1")
    values = [float(v) for v in values]
    return [sum(values[max(0, i - window + 1) : i + 1]) / (i + 1 - max(0, i - window + 1)) for i in range(len(values))]


def smoothed_curve_chart(table: pd.DataFrame, y: str, window: int, title: str, color: str | None = None,
                         y_title: str | None = None, dash: str | None = None) -> alt.LayerChart:
    """A per-step curve (faint) under its rolling mean over `window` steps (bold) (00).

    `table` has step, `y` and optionally a `color` column (model names: one line each, in the course's palette) and a
    `dash` column (e.g. the run: one line style each, shown in the legend)."""
    keys = [c for c in (color, dash) if c is not None]
    groups = [table] if not keys else [rows for _, rows in table.groupby(keys, sort=False)]
    data = pd.concat([rows.assign(**{"rolling mean": rolling_mean(rows[y], window)})
                      for rows in (g.sort_values("step") for g in groups)], ignore_index=True)
    low, high = float(min(data[y].min(), 0.0)), float(max(data[y].max(), 1e-9))
    scale = alt.Scale(domain=[low, high], nice=False)
    style = {}
    if color is not None:
        style["color"] = alt.Color(f"{color}:N", scale=color_scale(data[color]), title=color)
    if dash is not None:
        style["strokeDash"] = alt.StrokeDash(f"{dash}:N", legend=line_legend(dash))
    faint = {key: channel.copy() for key, channel in style.items()}
    for channel in faint.values():
        channel.legend = None  # the legend comes from the bold lines alone
    raw = alt.Chart(data).mark_line(opacity=0.3).encode(
        x=alt.X("step:Q", title="step", axis=alt.Axis(tickMinStep=1)), y=alt.Y(f"{y}:Q", scale=scale,
                                                                               title=y_title or y), **faint)
    mean = alt.Chart(data).mark_line(strokeWidth=3).encode(
        x=alt.X("step:Q", axis=alt.Axis(tickMinStep=1)), y=alt.Y("rolling mean:Q", scale=scale), **style,
        tooltip=[*keys, "step", alt.Tooltip(f"{y}:Q", format=".3f"), alt.Tooltip("rolling mean:Q", format=".3f")])
    # the bold layer first: the legend takes its line style from it, not from the faint one
    names = "" if color is None else ", ".join(map(str, dict.fromkeys(data[color]))) + "; "  # its legend is the title's
    return (mean + raw).properties(title=alt.Title(title, subtitle=f"{names}faint: each step; bold: mean of the last {window}"),
                                   width=380, height=200)


def use_offline_renderer(kind: str | None = None) -> None:
    """Render charts without a CDN: "live" interactive ones (with an SVG copy), "svg" static SVG only (A2).

    "svg" is for executed notebooks, CI and the README. Without `kind`, `COURSE_CHARTS` decides, else "live"."""
    kind = kind or os.environ.get(CHARTS_VARIABLE, "live")
    check(kind in CHART_KINDS, f"charts={kind!r} is unknown; use live or svg (set {CHARTS_VARIABLE} or pass kind)")
    alt.renderers.enable("course-live" if kind == "live" else "svg")


def count_marks(svg: str) -> int:
    """How many data marks (points, bars, lines, areas, ...) a rendered chart's SVG holds: 0 means a blank chart."""
    roles = re.findall(r'aria-roledescription="([^"]+)"', svg)
    return sum(1 for role in roles if "container" not in role and role not in ("axis", "legend", "title"))


def pass_rate_by_level_chart(table: pd.DataFrame, title: str, note: str | None = None,
                             y_title: str = "mean pass rate") -> alt.LayerChart:
    """Mean pass rate per level, one line per model (00).

    `table` has columns model, level, pass_rate, and optionally source (e.g. live vs committed), drawn as solid vs
    dashed lines on the same axes, each shown in the legend; `y_title` names what the rate is (06: held-out accuracy)."""
    x = alt.X("level:O", title="level", axis=alt.Axis(labelAngle=0))
    y = alt.Y("pass_rate:Q", title=y_title, scale=alt.Scale(domain=[0, 1]))
    colour = alt.Color("model:N", title="model", scale=color_scale(table["model"]), legend=line_legend("model", None))
    overlay = {}
    if "source" in table.columns:  # the first source (e.g. live) solid, the others dashed
        sources = list(dict.fromkeys(table["source"]))
        dashes = alt.Scale(domain=sources, range=[[1, 0]] + [[5, 4], [2, 2], [8, 3]][: len(sources) - 1])
        overlay = {"strokeDash": alt.StrokeDash("source:N", legend=line_legend(), scale=dashes)}
    tooltip = ["model", *(["source"] if overlay else []), "level", alt.Tooltip("pass_rate:Q", format=".2f")]
    lines = alt.Chart(table).mark_line().encode(x=x, y=y, color=colour, tooltip=tooltip, **overlay)
    points = alt.Chart(table).mark_point(filled=True).encode(  # no legend: the lines' entries show the style
        x=x, y=y, color=alt.Color("model:N", scale=color_scale(table["model"]), legend=None), tooltip=tooltip,
        detail="source:N" if overlay else alt.Undefined)
    return (lines + points).properties(title=alt.Title(title, subtitle=note or ""), width=360, height=220)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_MAKER = b"Software\x00course_lib figures"  # a tEXt chunk: which PNGs `figures` made (and may remake)


def save_png(chart: alt.Chart, path, scale: float = 2.0) -> None:
    """Write a chart as a PNG through vl-convert (offline), marked as ours, atomically; for docs/findings.md."""
    import vl_convert as vlc

    atomic_write_bytes(path, with_maker_chunk(vlc.vegalite_to_png(chart.to_json(), scale=scale)))


def with_maker_chunk(png: bytes) -> bytes:
    """The PNG with a tEXt chunk naming course_lib as its maker, right after the header chunk (IHDR)."""
    header_end = len(PNG_SIGNATURE) + 8 + 13 + 4  # signature, IHDR's length+type, its 13 bytes, its CRC
    chunk = struct.pack(">I", len(PNG_MAKER)) + b"tEXt" + PNG_MAKER + struct.pack(">I", zlib.crc32(b"tEXt" + PNG_MAKER))
    return png[:header_end] + chunk + png[header_end:]


def made_by_figures(path) -> bool:
    """Whether PATH is a PNG `figures` wrote (it carries the maker chunk near its start)."""
    with open(path, "rb") as handle:
        start = handle.read(256)
    return start.startswith(PNG_SIGNATURE) and b"tEXt" + PNG_MAKER in start


def dead_group_chart(group_sizes, highlight=None) -> alt.Chart:
    """P(dead group) = p^G + (1-p)^G against p, one line per G; optionally mark one point (02)."""
    from ..grpo import dead_group_probability

    grid = [i / 50 for i in range(51)]
    table = pd.DataFrame([{"p": p, "G": str(g), "dead": float(dead_group_probability(p, g))}
                          for g in group_sizes for p in grid])
    lines = alt.Chart(table).mark_line().encode(
        x=alt.X("p:Q", title="pass rate p"), y=alt.Y("dead:Q", title="P(all G rewards equal)"),
        color=alt.Color("G:N", title="group size G", sort=[str(g) for g in group_sizes]))
    chart = lines
    if highlight is not None:
        point = pd.DataFrame([{"p": highlight[0], "dead": highlight[1]}])
        chart = lines + alt.Chart(point).mark_point(size=120, filled=True, color="black").encode(x="p:Q", y="dead:Q")
    return chart.properties(title="Dead-group probability", width=360, height=220)


def pass_rate_bars(counts: pd.DataFrame, color: str, title: str, subtitle: str = "", scale=None,
                   x_title: str = "pass rate p: right answers out of K", color_title: str | None = None) -> alt.Chart:
    """Stacked bars, one per pass rate K samples can give (`selection.pass_rate_counts`), coloured by `color` (01, 03)."""
    order = list(dict.fromkeys(counts.sort_values("pass_rate")["label"]))
    return alt.Chart(counts).mark_bar(stroke="white", strokeWidth=0.5).encode(
        x=alt.X("label:O", sort=order, title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("problems:Q", title="problems", stack="zero"),
        color=alt.Color(f"{color}:N", title=color if color_title is None else color_title,
                        scale=scale or alt.Scale(scheme="viridis")),
        tooltip=[alt.Tooltip("label:N", title="pass rate"), alt.Tooltip(f"{color}:N"), "problems"],
    ).properties(title=alt.Title(title, subtitle=subtitle), width=380, height=200)


def selection_histogram_chart(histogram: pd.DataFrame, title: str, subtitle: str = "") -> alt.Chart:
    """`pass_rate_bars` of a selection (`selection.pass_rate_histogram`): selected in red, the rest in grey (03)."""
    scale = alt.Scale(domain=["selected", "not selected"], range=["#d62728", "#c7c7c7"])
    return pass_rate_bars(histogram, "set", title, subtitle, scale, "base pass rate p: right answers out of K", "")


def strategy_gain_chart(gains: pd.DataFrame, title: str, strategies=None, note: str | None = None) -> alt.FacetChart:
    """Mean gain per strategy with its 95% interval, one panel per task (05).

    `gains` has columns task, strategy, mean, ci_low, ci_high."""
    order = list(strategies) if strategies else sorted(gains["strategy"].unique())
    base = alt.Chart().encode(y=alt.Y("strategy:N", sort=order, title=None))
    bars = base.mark_bar(opacity=0.7).encode(x=alt.X("mean:Q", title="gain over base"),
                                             color=alt.Color("strategy:N", sort=order, legend=None,
                                                             scale=color_scale(order)))
    whiskers = base.mark_rule().encode(x="ci_low:Q", x2="ci_high:Q")
    return alt.layer(bars, whiskers, data=gains).properties(width=240, height=150).facet(column="task:N").properties(
        title=alt.Title(title, subtitle=note or ""))


def level_change_chart(changes: pd.DataFrame, title: str, models=None, strategies=None,
                       note: str | None = None) -> alt.FacetChart:
    """Accuracy change per level with 95% intervals, one line per strategy, one panel per model (06)."""
    order = list(strategies) if strategies else sorted(changes["strategy"].unique())
    color = alt.Color("strategy:N", sort=order, scale=color_scale(order))
    lines = alt.Chart().mark_line(point=True).encode(x=alt.X("level:O", axis=alt.Axis(labelAngle=0)),
                                                     y=alt.Y("mean:Q", title="accuracy change"), color=color)
    whiskers = alt.Chart().mark_rule().encode(x="level:O", y="ci_low:Q", y2="ci_high:Q", color=color)
    zero = alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(0))
    dodge = alt.XOffset("strategy:N", sort=list(strategies) if strategies else None)  # side by side: no line hides another
    return alt.layer(lines, whiskers, zero, data=changes).encode(xOffset=dodge).properties(width=190, height=170).facet(
        column=alt.Column("model:N", sort=list(models) if models else None)).properties(
        title=alt.Title(title, subtitle=note or ""))


def advantage_table(group_size: int) -> pd.DataFrame:
    """The advantage a right and a wrong completion get, by the number of right ones in a group of G (02).

    The std is TRL's unbiased group std."""
    import torch

    from ..grpo import group_advantages

    rows = []
    for right in range(group_size + 1):
        rewards = torch.tensor([[1.0] * right + [0.0] * (group_size - right)])
        advantages = group_advantages(rewards)[0]
        for outcome, index in (("right", 0), ("wrong", group_size - 1)):
            if (outcome == "right" and right > 0) or (outcome == "wrong" and right < group_size):
                rows.append({"right in group": right, "completion": outcome,
                             "advantage": round(float(advantages[index]), 4)})
    return pd.DataFrame(rows)


def advantage_chart(group_size: int) -> alt.Chart:
    """Bars of `advantage_table`: a lone success stands out, a group all right or all wrong gives 0 (02)."""
    table = advantage_table(group_size)
    return alt.Chart(table).mark_bar().encode(
        x=alt.X("right in group:O", title=f"right completions in a group of G = {group_size}",
                axis=alt.Axis(labelAngle=0)),
        xOffset="completion:N", y=alt.Y("advantage:Q", title="advantage"),
        color=alt.Color("completion:N", scale=alt.Scale(domain=["right", "wrong"], range=["#2a9d8f", "#e76f51"])),
        tooltip=["right in group", "completion", alt.Tooltip("advantage:Q", format=".2f")],
    ).properties(width=380, height=220, title="GRPO's advantage by the group's successes")


def interval_width_table(ks=(2, 4, 8, 16, 32, 64, 128), pass_rates=(0.0, 0.5)) -> pd.DataFrame:
    """Width of the 95% Wald and Wilson intervals for an observed pass rate, by K (01)."""
    from ..difficulty import wilson_interval

    rows = []
    for k in ks:
        for p in pass_rates:
            correct = round(p * k)
            low, high = wilson_interval(correct, k)
            half = 1.96 * math.sqrt(p * (1 - p) / k)
            rows += [{"K": k, "observed p": p, "interval": "Wilson", "width": round(high - low, 4)},
                     {"K": k, "observed p": p, "interval": "Wald", "width": round(min(1.0, 2 * half), 4)}]
    return pd.DataFrame(rows)


def interval_width_chart() -> alt.LayerChart:
    """Lines of `interval_width_table`: Wald's interval collapses to zero width at p = 0; Wilson's does not (01)."""
    table = interval_width_table().assign(observed=lambda t: t["observed p"].map(lambda p: f"{p:g}"))
    x = alt.X("K:Q", scale=alt.Scale(type="log", base=2), title="samples per problem K (log scale)")
    y = alt.Y("width:Q", title="width of the 95% interval")
    dash = alt.StrokeDash("observed:N", scale=alt.Scale(domain=["0", "0.5"], range=[[1, 0], [5, 4]]),
                          legend=line_legend("observed pass rate"))
    tooltip = ["K", "observed p", "interval", alt.Tooltip("width:Q", format=".3f")]
    lines = alt.Chart(table).mark_line().encode(x=x, y=y, color=alt.Color("interval:N", legend=line_legend(
        "interval", None)), strokeDash=dash, tooltip=tooltip)
    points = alt.Chart(table).mark_point(filled=True).encode(x=x, y=y, color=alt.Color("interval:N", legend=None),
                                                             detail="observed:N", tooltip=tooltip)
    return (lines + points).properties(width=380, height=220, title="How sure is a pass rate from K samples?")


def ranking_stability_chart(curve: pd.DataFrame, estimates: pd.DataFrame, reference_k: int) -> alt.LayerChart:
    """Rank agreement ("spearman vs reference") against K: one estimate's first K samples, independent ones (01)."""
    column = "spearman vs reference"
    lowest = min(0.0, float(curve[column].min()), float(estimates[column].min()))
    x = alt.X("K:Q", scale=alt.Scale(type="log", base=2), title="samples per problem K (log scale)")
    y = alt.Y(f"{column}:Q", scale=alt.Scale(domain=[lowest, 1]),
              title=f"rank agreement with K = {reference_k} (Spearman)")
    tooltip = ["K", alt.Tooltip(f"{column}:Q", format=".3f")]
    line = alt.Chart(curve).mark_line(point=True).encode(x=x, y=y, tooltip=tooltip)
    dots = alt.Chart(estimates).mark_point(size=90, filled=True, color="black").encode(x=x, y=y, tooltip=tooltip)
    note = "line: one estimate read at its first K samples; black dots: independent estimates"
    return (line + dots).properties(width=360, height=200, title=alt.Title("Does the ranking settle as K grows?",
                                                                           subtitle=note))


def doubling_text(curve: pd.DataFrame) -> str:
    """'0.68 at K = 2, 0.93 at K = 32; the first doubling of K added +0.10, the last +0.03' from a K curve (01)."""
    k, rho = curve["K"].tolist(), curve["spearman vs reference"].tolist()
    text = f"rank agreement {rho[0]:.2f} at K = {k[0]:g}, {rho[-1]:.2f} at K = {k[-1]:g}"
    if len(k) >= 3:
        text += f"; the first doubling of K added {rho[1] - rho[0]:+.2f}, the last {rho[-1] - rho[-2]:+.2f}"
    return text


def learnability_table(group_size: int, steps: int = 101) -> pd.DataFrame:
    """p(1-p) and the chance a group is alive, 1 - p^G - (1-p)^G, over p: both peak at p = 1/2 (03)."""
    from ..grpo import dead_group_probability

    rows = []
    for i in range(steps):
        p = i / (steps - 1)
        rows += [{"p": p, "measure": "p(1-p), scaled to peak 1", "value": round(4 * p * (1 - p), 4)},
                 {"p": p, "measure": f"1 - P(dead group), G = {group_size}",
                  "value": round(1 - float(dead_group_probability(p, group_size)), 4)}]
    return pd.DataFrame(rows)


def learnability_chart(group_size: int) -> alt.Chart:
    """Both learnability measures against p: they rise and fall together, so they rank problems the same (03)."""
    return alt.Chart(learnability_table(group_size)).mark_line().encode(
        x=alt.X("p:Q", title="pass rate p"),
        y=alt.Y("value:Q", title="learnability score (0 to 1)", scale=alt.Scale(domain=[0, 1])),
        color=alt.Color("measure:N", legend=alt.Legend(orient="bottom")),
        tooltip=[alt.Tooltip("p:Q", format=".2f"), "measure", alt.Tooltip("value:Q", format=".3f")],
    ).properties(width=380, height=220, title="Two ways to score learnability")


def effect_sizes_chart(table: pd.DataFrame, title: str, note: str = "",
                       axis_title: str = "accuracy gain over the base model (1.0 = 100 points)") -> alt.Chart:
    """Gains (or paired differences) of each arm on one axis, the papers' next to ours (05, 06).

    A rule from low to high (a paper's quoted range or a 95% interval) and a point at the mean where there is one.
    `table` has source, row, low, high and mean; an optional `margin` column draws ticks at -margin and +margin on its
    row (an equivalence margin, 06)."""
    rows = alt.Y("row:N", title=None, sort=list(dict.fromkeys(table["row"])), axis=alt.Axis(labelLimit=320))
    base = alt.Chart(table)
    scale = alt.Scale(zero=True, nice=True)
    ranges = base.mark_rule(strokeWidth=3).encode(
        x=alt.X("low:Q", title=axis_title, scale=scale), x2="high:Q",
        y=rows, color=alt.Color("source:N", title=""),
        tooltip=["row", alt.Tooltip("low:Q", format="+.3f"), alt.Tooltip("high:Q", format="+.3f")])
    means = base.transform_filter("isValid(datum.mean)").mark_point(filled=True, size=70).encode(
        x="mean:Q", y=rows, color="source:N", tooltip=["row", alt.Tooltip("mean:Q", format="+.3f")])
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="gray", strokeDash=[4, 3]).encode(x="x:Q")
    layers = zero + ranges + means
    if "margin" in table.columns:  # ticks at -margin and +margin on the rows that have one
        sides = pd.concat([table.assign(edge=sign * table["margin"]) for sign in (-1, 1)]).dropna(subset=["edge"])
        layers += alt.Chart(sides[["row", "edge"]]).mark_tick(color="black", thickness=2).encode(
            x="edge:Q", y=rows, tooltip=["row", alt.Tooltip("edge:Q", title="margin", format="+.3f")])
    return layers.properties(title=alt.Title(title, subtitle=note), width=420, height=alt.Step(22))


def effect_sizes_table(paper_rows: list[dict], ours: dict[str, pd.DataFrame], scale: float = 1.0) -> pd.DataFrame:
    """The rows of `effect_sizes_chart`: the papers' quoted ranges, then our arms' means with 95% intervals (05).

    Ours come per source (e.g. "tiny world, 41 steps"), each table as `course_lib.research.studies.gain_verdicts`
    returns it, with a `label` column naming each row, multiplied by `scale` (100: fractions to points, the unit of the
    papers' rows)."""
    theirs = pd.DataFrame(paper_rows, columns=["source", "row", "low", "high"]).assign(mean=float("nan"))
    mine = [table.assign(source=source, row=table["label"], low=scale * table["ci_low"], high=scale * table["ci_high"],
                         mean=scale * table["mean"])[theirs.columns] for source, table in ours.items()]
    return pd.concat([theirs, *mine], ignore_index=True)


def learnable_vs_gain_chart(table: pd.DataFrame, color: str, shape: str, title: str, color_sort=None,
                            shape_sort=None) -> alt.LayerChart:
    """Each arm's mean gain against its learnable share of groups (groups whose rewards differ) (05, 07).

    The gain's 95% interval across seeds is a vertical bar; `table` has "learnable share of groups" (that share),
    "gain (test)", ci_low and ci_high, and optionally seeds: an arm of fewer than 3 seeds has no interval, so it is
    drawn hollow, without a bar, and leaves the gain axis to the arms that have one."""
    few = table["seeds"] < 3 if "seeds" in table else pd.Series(False, index=table.index)
    tested = table[~few]
    x = alt.X("learnable share of groups:Q", title="learnable share of groups",  # a share of groups (records: learnable_share_of_steps)
              scale=alt.Scale(zero=False, nice=True))  # fitted to the data, not 0-1
    colour = alt.Color(f"{color}:N", sort=color_sort, scale=color_scale(color_sort or sorted(table[color].unique())))
    ends = pd.concat([tested["ci_low"], tested["ci_high"], table["gain (test)"], pd.Series([0.0])])
    gain = alt.Y("ci_low:Q", title="gain (test), 95% interval",
                 scale=alt.Scale(domain=[float(ends.min()), float(ends.max())], nice=True))
    bars = alt.Chart(tested).mark_rule(opacity=0.6, clip=True).encode(x=x, y=gain, y2="ci_high:Q", color=colour)
    tooltip = [c for c in table.columns if c not in ("excludes_zero",)]
    points = [alt.Chart(rows).mark_point(filled=filled, size=90, strokeWidth=2).encode(
        x=x, y="gain (test):Q", color=colour, shape=alt.Shape(f"{shape}:N", sort=shape_sort), tooltip=tooltip)
        for rows, filled in ((tested, True), (table[few], False)) if len(rows)]
    zero = alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(color="gray", strokeDash=[4, 3]).encode(y="y:Q")
    note = "hollow: fewer than 3 seeds, no interval" if few.any() else ""
    return alt.layer(zero, bars, *points).properties(width=380, height=240, title=alt.Title(title, subtitle=note))


def advantage_bars_table(rewards, advantages) -> pd.DataFrame:
    """One row per completion of a step: its prompt, reward and advantage, and whether its group is dead (04).
    `rewards` is (B, G); `advantages` holds the B*G advantages in the same order."""
    import torch

    rewards = torch.as_tensor(rewards, dtype=torch.float32)
    B, G = rewards.shape
    dead = (rewards == rewards[:, :1]).all(dim=1)  # (B,)
    return pd.DataFrame({"completion": range(B * G), "prompt": [f"prompt {i // G + 1}" for i in range(B * G)],
                         "reward": rewards.reshape(-1).tolist(), "advantage": [float(a) for a in advantages],
                         "dead": [bool(dead[i // G]) for i in range(B * G)]})


def advantage_bars_chart(rewards, advantages, title: str) -> alt.LayerChart:
    """Bars of `advantage_bars_table`, one per completion, coloured by prompt (04).

    A dead group (all bars 0) is labelled with the reward all its completions got, instead of leaving a gap."""
    table = advantage_bars_table(rewards, advantages)
    x = alt.X("completion:O", axis=alt.Axis(labels=False, ticks=False), title="completion (G per prompt)")
    bars = alt.Chart(table).mark_bar().encode(
        x=x, y=alt.Y("advantage:Q", title="advantage of the completion (Aᵢ)"), color=alt.Color("prompt:N", title=""),
        tooltip=["prompt", "reward", alt.Tooltip("advantage:Q", format="+.2f")])
    G = len(table) // table["prompt"].nunique()
    dead = table[table["dead"]].groupby("prompt", sort=False).agg(completion=("completion", "min"),
                                                                   reward=("reward", "first")).reset_index()
    dead["completion"] = dead["completion"] + G // 2  # the middle of its group
    dead["label"] = [f"dead: all {'right' if r == 1 else 'wrong'}" for r in dead["reward"]]
    labels = alt.Chart(dead).mark_text(angle=270, fontSize=11, color="#555").encode(x=x, y=alt.datum(0), text="label:N")
    zero = alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(color="gray").encode(y="y:Q")
    return (zero + bars + labels).properties(title=title, width=420, height=180)


def learnable_share_chart(table: pd.DataFrame, title: str) -> alt.LayerChart:
    """Learnable share of groups per difficulty band, each bar labelled with its value and group count (04b).

    `table` has columns difficulty, groups, learnable_share; a band with no learnable group reads 0, not a missing
    bar."""
    x = alt.X("difficulty:N", sort=None, title="base pass rate band", axis=alt.Axis(labelAngle=0))
    y = alt.Y("learnable_share:Q", scale=alt.Scale(domain=[0, 1]), title="learnable share of groups")
    bars = alt.Chart(table).mark_bar(color="#4E79A7").encode(x=x, y=y, tooltip=["difficulty", "groups", "learnable_share"])
    text = alt.Chart(table.assign(label=[f"{s:.2f} of {g}" + (" (all dead)" if s == 0 else "")
                                         for s, g in zip(table["learnable_share"], table["groups"])])).mark_text(
        dy=-8, fontSize=11).encode(x=x, y=y, text="label:N")
    return (bars + text).properties(title=title, width=420, height=200)


def before_after_table(before: dict, after: dict, model: str) -> pd.DataFrame:
    """Accuracy per level with its 95% interval over problems, before and after training, from two `evaluate` results (00)."""
    rows = []
    for when, result in (("before", before), ("after", after)):
        for level, block in result["by_level"].items():
            rows.append({"model": model, "when": when, "level": int(level), "accuracy": block["accuracy"],
                         "ci_low": block["ci_low"], "ci_high": block["ci_high"]})
    return pd.DataFrame(rows)


def before_after_chart(before: dict, after: dict, model: str, title: str) -> alt.LayerChart:
    """Held-out accuracy per level before (dashed) and after (solid) training, in the model's colour (00).

    The 95% intervals over problems are vertical bars."""
    table = before_after_table(before, after, model)
    x = alt.X("level:O", title="level", axis=alt.Axis(labelAngle=0))
    y = alt.Y("accuracy:Q", title="held-out accuracy", scale=alt.Scale(domain=[0, 1]))
    colour = alt.Color("model:N", scale=color_scale([model]), legend=None)
    dash = alt.StrokeDash("when:N", sort=["before", "after"], legend=line_legend(""),
                          scale=alt.Scale(domain=["before", "after"], range=[[5, 4], [1, 0]]))
    lines = alt.Chart(table).mark_line().encode(x=x, y=y, color=colour, strokeDash=dash, tooltip=[
        "when", "level", alt.Tooltip("accuracy:Q", format=".3f"), alt.Tooltip("ci_low:Q", format=".3f"),
        alt.Tooltip("ci_high:Q", format=".3f")])
    bars = alt.Chart(table).mark_rule(opacity=0.5).encode(x=x, y=alt.Y("ci_low:Q", scale=alt.Scale(domain=[0, 1])),
                                                          y2="ci_high:Q", color=colour)
    return (bars + lines).properties(title=alt.Title(title, subtitle=f"{model}; bars: 95% intervals"), width=300,
                                     height=200)


def seed_spread_chart(table: pd.DataFrame, title: str, axis_title: str, note: str = "") -> alt.LayerChart:
    """One dot per seed of a paired difference, one row per source, beside a dashed 0 (05, 06).

    `table` has columns seed, difference, source (e.g. the committed seeds and a live one): it shows where a fresh seed
    falls among the others."""
    sources = list(dict.fromkeys(table["source"]))
    y = alt.Y("source:N", sort=sources, title=None, axis=alt.Axis(labelLimit=200))
    x = alt.X("difference:Q", title=axis_title, scale=alt.Scale(nice=True))
    colour = alt.Color("source:N", sort=sources, legend=None,
                       scale=alt.Scale(domain=sources, range=[OTHER_COLOR, "#D55E00", "#0072B2"][: len(sources)]))
    dots = alt.Chart(table).mark_point(filled=True, size=110, opacity=0.8).encode(
        x=x, y=y, color=colour, tooltip=["source", "seed", alt.Tooltip("difference:Q", format="+.3f")])
    seeds = alt.Chart(table).mark_text(dy=-13, fontSize=10).encode(x=x, y=y, text="seed:N")
    zero = alt.Chart(pd.DataFrame({"x": [0.0]})).mark_rule(color="gray", strokeDash=[4, 3]).encode(x="x:Q")
    return (zero + dots + seeds).properties(width=380, height=alt.Step(45), title=alt.Title(title, subtitle=note))


def dead_share_grid_chart(table: pd.DataFrame, models, strategies, title: str) -> alt.LayerChart:
    """A model x strategy grid of each selection's predicted dead share, each cell labelled with its value (07).

    The share is `table`'s column "predicted dead groups"."""
    cells = alt.Chart(table).encode(x=alt.X("model:N", sort=list(models), title=None, axis=alt.Axis(labelAngle=0)),
                                    y=alt.Y("strategy:N", sort=list(strategies), title=None))
    shade = alt.Color("predicted dead groups:Q", scale=alt.Scale(domain=[0, 1], scheme="reds"))
    dark = alt.condition("datum['predicted dead groups'] > 0.5", alt.value("white"), alt.value("black"))
    rects = cells.mark_rect().encode(color=shade, tooltip=list(table.columns))
    labels = cells.mark_text(fontSize=13).encode(text=alt.Text("predicted dead groups:Q", format=".2f"), color=dark)
    return (rects + labels).properties(width=240, height=190, title=title)


def runs_gain_chart(runs: pd.DataFrame, models, title: str) -> alt.LayerChart:
    """Every run's held-out gain against its learnable share of steps, coloured and shaped by model (07).

    Each gain has its own bootstrap interval (column gain_ci.test)."""
    bounds = runs["gain_ci.test"].map(json.loads)
    table = runs[["model", "task", "strategy", "seed"]].assign(  # plain names: Vega-Lite reads a dot as nesting
        learnable=runs["learnable_share_of_steps"], gain=runs["gain.test"], ci_low=[b[0] for b in bounds],
        ci_high=[b[1] for b in bounds])
    x = alt.X("learnable:Q", title="learnable share of groups (measured)", scale=alt.Scale(zero=False, nice=True))
    y = alt.Y("ci_low:Q", title="gain on held-out test, 95% interval", scale=alt.Scale(nice=True))
    colour = alt.Color("model:N", sort=list(models), scale=color_scale(models))
    bars = alt.Chart(table).mark_rule(strokeOpacity=0.25).encode(x=x, y=y, y2="ci_high:Q", color=colour)
    # a shape as well (two models' hues can look alike on a dot); the same domain merges the two legends into one
    shape = alt.Shape("model:N", sort=list(models), scale=alt.Scale(domain=list(models)))
    dots = alt.Chart(table).mark_point(filled=True, opacity=0.7).encode(
        x=x, y="gain:Q", color=colour, shape=shape, tooltip=list(table.columns))
    return (bars + dots).properties(width=380, height=240, title=alt.Title(title, subtitle="one dot per run"))


def pass_and_format_chart(cells: pd.DataFrame, title: str, subtitle: str = "") -> alt.LayerChart:
    """Pass rate and format share per task cell, side by side, each with its 95% interval (A2).

    `cells` has columns cell, pass_rate, ci_low, ci_high, format_share, format_ci_low, format_ci_high."""
    bars = pd.concat([cells[["cell", *columns]].set_axis(["cell", "value", "low", "high"], axis=1).assign(measure=name)
                      for name, columns in (("pass rate", ["pass_rate", "ci_low", "ci_high"]),
                                            ("format share", ["format_share", "format_ci_low", "format_ci_high"]))])
    x = alt.X("cell:N", sort=list(cells["cell"]), title=None, axis=alt.Axis(labelAngle=-40))
    base = alt.Chart(bars).encode(x=x, xOffset="measure:N", color=alt.Color("measure:N", title=""))
    y = alt.Y("value:Q", title="share of samples", scale=alt.Scale(domain=[0, 1]))
    chart = base.mark_bar().encode(y=y) + base.mark_rule().encode(y="low:Q", y2="high:Q")
    subtitle = "; ".join(filter(None, [subtitle, "whiskers: 95% intervals"]))
    return chart.properties(width=420, height=220, title=alt.Title(title, subtitle=subtitle))


def step_measures_chart(metrics: pd.DataFrame, measures: dict[str, str], title: str, y_title: str,
                        subtitle: str = "") -> alt.Chart:
    """One line per logged measure against the optimizer step (A2).

    `measures` maps a metrics column to the name the legend gives it."""
    curve = metrics.rename(columns=measures).melt("step", list(measures.values()), var_name="measure")
    return alt.Chart(curve).mark_line(point=True, strokeJoin="round").encode(  # round: no spike past a sharp turn
        x=alt.X("step:Q", scale=alt.Scale(nice=False)), y=alt.Y("value:Q", title=y_title),
        color=alt.Color("measure:N", legend=line_legend("per optimizer step", None))).properties(
        width=420, height=200, title=alt.Title(title, subtitle=subtitle))
