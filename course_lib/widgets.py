"""ipywidgets explorers; every number they show comes from a pure, tested function.

Introduced in notebooks/02_zero_variance_groups.ipynb and notebooks/03_budget_explorer.ipynb.
"""

from __future__ import annotations

import pandas as pd

from .difficulty import pass_rates_at
from .grpo import dead_group_probability
from .plots import dead_group_chart, selection_histogram_chart
from .selection import STRATEGIES, pass_rate_histogram, selection_summary


def dead_group_view(p: float, group_size: int) -> dict:
    """The numbers the dead-group widget shows for one (p, G)."""
    dead = float(dead_group_probability(p, group_size))
    return {"p": p, "G": group_size, "dead_probability": round(dead, 4), "all_wrong": round((1 - p) ** group_size, 4),
            "all_right": round(p**group_size, 4)}


def dead_group_widget():
    """Sliders for p and G; shows P(dead group) = p^G + (1-p)^G and its curve.

    The numbers and the chart are HTML widgets updated in place (an Output widget redrawn inside a cell that is
    executing could leave a headless run waiting).
    """
    import ipywidgets as w
    import vl_convert

    p = w.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.01, description="pass rate p")
    G = w.IntSlider(value=8, min=2, max=64, description="group size G")  # any G: p = 0.05 needs G = 14
    numbers, chart = w.HTML(), w.HTML()

    def redraw(*_):
        view = dead_group_view(p.value, G.value)
        numbers.value = (f"P(dead) = {view['all_right']:.4f} (all right) + {view['all_wrong']:.4f} (all wrong) "
                         f"= <b>{view['dead_probability']:.4f}</b>")
        spec = dead_group_chart([G.value], highlight=(p.value, view["dead_probability"])).to_dict()
        chart.value = vl_convert.vegalite_to_svg(spec)

    p.observe(redraw, "value")
    G.observe(redraw, "value")
    redraw()
    return w.VBox([w.HBox([p, G]), numbers, chart])


def explorer_view(tables: dict, model: str, k: int, strategy: str, budget: float, group_size: int = 8,
                  seed: int = 0, gains: pd.DataFrame | None = None) -> tuple[dict, pd.DataFrame]:
    """The budget explorer's numbers and histogram for one setting of its controls."""
    table = pass_rates_at(tables[model], k)
    summary = selection_summary(table, strategy, budget, group_size, seed)
    k_max = int(tables[model]["k"].min())
    pool = len(table)
    summary.update(model=model, k=k, pool=pool, estimation_completions=pool * k,
                   estimation_tokens=int(round(tables[model]["mean_length"].sum() * k)),
                   ranking_from=f"first {k} of {k_max} samples")
    if gains is not None and len(gains):  # rows of a study's results table (columns model, strategy, gain.test)
        match = gains[(gains["strategy"] == strategy) & (gains["model"] == model)]
        summary["measured_gain"] = float(match["gain.test"].mean()) if len(match) else None
    return summary, pass_rate_histogram(table, summary.pop("ids"))


def budget_explorer(tables: dict, seed: int = 0, gains: pd.DataFrame | None = None):
    """Budget slider, strategy, K and model controls over real difficulty tables."""
    import ipywidgets as w
    from IPython.display import display

    first = next(iter(tables))
    k_max = int(tables[first]["k"].min())
    model = w.Dropdown(options=list(tables), value=first, description="model")
    strategy = w.Dropdown(options=[s for s in STRATEGIES if s != "levels"], value="hard", description="strategy")
    budget = w.FloatSlider(value=0.1, min=0.02, max=1.0, step=0.02, description="budget", readout_format=".2f")
    k = w.IntSlider(value=k_max, min=2, max=k_max, description="K")
    numbers = w.HTML()
    out = w.Output()

    def redraw(*_):
        summary, histogram = explorer_view(tables, model.value, k.value, strategy.value, budget.value,
                                           seed=seed, gains=gains)
        numbers.value = _summary_html(summary)
        out.clear_output(wait=True)
        with out:
            display(selection_histogram_chart(histogram, f"{summary['strategy']} at budget {budget.value:.2f}"))

    for control in (model, strategy, budget, k):
        control.observe(redraw, "value")
    redraw()
    return w.VBox([w.HBox([model, strategy]), w.HBox([budget, k]), numbers, out])


def _summary_html(summary: dict) -> str:
    """The explorer's numbers as a small HTML table (each value has a class the browser test reads)."""
    rows = [("selected", "n_selected", "{}"), ("mean pass rate", "mean_pass_rate", "{:.3f}"),
            ("share with 0 < p < 1", "share_mixed", "{:.3f}"),
            ("predicted dead groups", "predicted_dead_share", "{:.3f}"),
            ("estimation cost (completions)", "estimation_completions", "{:,}")]
    if summary.get("measured_gain") is not None:
        rows.append(("measured gain at a 10% budget (committed studies)", "measured_gain", "{:+.3f}"))
    cells = "".join(f"<tr><td>{label}</td><td class='explorer-{key}'>{fmt.format(summary[key])}</td></tr>"
                    for label, key, fmt in rows)
    warning = "<p><b>medium</b> falls inside one block of equal pass rates here.</p>" if summary["medium_degenerate"] else ""
    return f"<table>{cells}</table>{warning}"
