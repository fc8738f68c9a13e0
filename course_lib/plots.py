"""Altair charts of the course; each returns an `alt.Chart` built from an aggregated table.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import altair as alt
import pandas as pd


def use_offline_renderer(kind: str = "svg") -> None:
    """Render charts as static SVG through vl-convert: no CDN, works in JupyterLab, Voila and GitHub."""
    alt.renderers.enable(kind)


def count_marks(svg: str) -> int:
    """How many data marks (points, bars, lines, areas, ...) a rendered chart's SVG holds: 0 means a blank chart."""
    import re

    roles = re.findall(r'aria-roledescription="([^"]+)"', svg)
    return sum(1 for role in roles if "container" not in role and role not in ("axis", "legend", "title"))


def pass_rate_by_level_chart(table: pd.DataFrame, title: str, note: str | None = None) -> alt.Chart:
    """Mean pass rate per level, one line per model; `table` has columns model, level, pass_rate."""
    chart = (
        alt.Chart(table)
        .mark_line(point=True)
        .encode(
            x=alt.X("level:O", title="level (number of steps)", axis=alt.Axis(labelAngle=0)),
            y=alt.Y("pass_rate:Q", title="mean pass rate", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("model:N", title="model"),
            tooltip=["model", "level", alt.Tooltip("pass_rate:Q", format=".2f")],
        )
    )
    return chart.properties(title=alt.Title(title, subtitle=note or ""), width=360, height=220)


def save_png(chart: alt.Chart, path, scale: float = 2.0) -> None:
    """Write a chart as a PNG through vl-convert (offline), for the README."""
    import vl_convert as vlc

    png = vlc.vegalite_to_png(chart.to_json(), scale=scale)
    with open(path, "wb") as handle:
        handle.write(png)


def dead_group_chart(group_sizes, highlight=None) -> alt.Chart:
    """P(dead group) = p^G + (1-p)^G against p, one line per G; optionally mark one point."""
    from .grpo import dead_group_probability

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


def selection_histogram_chart(histogram: pd.DataFrame, title: str) -> alt.Chart:
    """Stacked bars of pool pass rates, coloured by whether the strategy selected them."""
    return (
        alt.Chart(histogram)
        .mark_bar()
        .encode(
            x=alt.X("pass_rate:O", title="base pass rate p", axis=alt.Axis(format=".2f")),
            y=alt.Y("count:Q", title="problems"),
            color=alt.Color("set:N", title="", scale=alt.Scale(domain=["selected", "not selected"],
                                                                range=["#d62728", "#c7c7c7"])),
        )
        .properties(title=title, width=380, height=200)
    )


def strategy_gain_chart(gains: pd.DataFrame, title: str, strategies=None, note: str | None = None) -> alt.FacetChart:
    """Mean gain per strategy with its 95% interval, one panel per task (columns task, strategy, mean, ci_low, ci_high)."""
    order = list(strategies) if strategies else sorted(gains["strategy"].unique())
    base = alt.Chart().encode(y=alt.Y("strategy:N", sort=order, title=None))
    bars = base.mark_bar(opacity=0.7).encode(x=alt.X("mean:Q", title="gain over base"),
                                             color=alt.Color("strategy:N", sort=order, legend=None))
    whiskers = base.mark_rule().encode(x="ci_low:Q", x2="ci_high:Q")
    return alt.layer(bars, whiskers, data=gains).properties(width=240, height=150).facet(column="task:N").properties(
        title=alt.Title(title, subtitle=note or ""))


def level_change_chart(changes: pd.DataFrame, title: str, models=None, strategies=None,
                       note: str | None = None) -> alt.FacetChart:
    """Accuracy change per level with 95% intervals, one line per strategy, one panel per model."""
    color = alt.Color("strategy:N", sort=list(strategies) if strategies else None)
    lines = alt.Chart().mark_line(point=True).encode(x=alt.X("level:O", axis=alt.Axis(labelAngle=0)),
                                                     y=alt.Y("mean:Q", title="accuracy change"), color=color)
    whiskers = alt.Chart().mark_rule().encode(x="level:O", y="ci_low:Q", y2="ci_high:Q", color=color)
    zero = alt.Chart().mark_rule(strokeDash=[4, 4], color="gray").encode(y=alt.datum(0))
    return alt.layer(lines, whiskers, zero, data=changes).properties(width=190, height=170).facet(
        column=alt.Column("model:N", sort=list(models) if models else None)).properties(
        title=alt.Title(title, subtitle=note or ""))
