"""ipywidgets explorers; every number they show comes from a pure, tested function.

Each widget also carries a static picture of its default state (`.picture`, an Altair chart) and, where it shows
tables, their default state (`.tables`): `show` displays them under the widget in executed copies of a notebook,
where no widget manager draws the widget itself.
Introduced in notebooks/00_tiny_world_tour.ipynb (`quiz`, `show`); the explorers in notebooks 02 and 03.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import os
import re
import zlib

import ipywidgets as w
import pandas as pd
from IPython.display import HTML, Markdown, display

from ..difficulty import pass_rates_at
from ..errors import check, is_number
from ..grpo import dead_group_probability, informative_share
from ..research.experiment import Point
from ..research.profiles import PROFILES
from ..selection import STRATEGIES, budget_count, pass_rate_histogram, selection_summary
from .plots import dead_group_chart, selection_histogram_chart
from .runtime import CHARTS_VARIABLE

REFERENCE_GROUP_SIZE = 8  # the p/G widget always draws G = 8 for comparison (the course's default group size)
EXPLORER_STRATEGIES = tuple(s for s in STRATEGIES if s != "levels")
FEWEST_SEEDS_FOR_AN_INTERVAL = 3  # with fewer, the explorer shows each seed's gain instead of a t-interval


def show(widget) -> None:
    """Display a widget; in a static copy also the picture and tables of its default state (00).

    A static copy (charts rendered as SVG, e.g. an executed notebook) has no widget manager to draw the widget."""
    display(widget)
    if os.environ.get(CHARTS_VARIABLE) == "svg" and getattr(widget, "picture", None) is not None:
        display(widget.picture)
        for table in getattr(widget, "tables", ()):
            display(table)


# ---------------------------------------------------------------------------
# The p/G widget (notebook 02)
# ---------------------------------------------------------------------------


def dead_group_view(p: float, group_size: int) -> dict:
    """The numbers the dead-group widget shows for one (p, G), with G = 8 for reference and the sampling cost."""
    dead = float(dead_group_probability(p, group_size))
    reference = float(dead_group_probability(p, REFERENCE_GROUP_SIZE))
    return {"p": p, "G": group_size, "dead_probability": round(dead, 4), "all_wrong": round((1 - p) ** group_size, 4),
            "all_right": round(p**group_size, 4), "dead_probability_at_8": round(reference, 4),
            "completions_per_prompt": group_size,  # what one prompt costs to sample, in completions
            "cost_vs_8": round(group_size / REFERENCE_GROUP_SIZE, 4),
            # completions sampled per live group: G / P(alive); infinite when a group can never be alive
            "completions_per_live_group": round(group_size / (1 - dead), 2) if dead < 1 else float("inf")}


def dead_group_picture(p: float, group_size: int):
    """The widget's chart: P(dead) against p for G and for G = 8, with the chosen point marked."""
    sizes = sorted({REFERENCE_GROUP_SIZE, group_size})
    view = dead_group_view(p, group_size)
    return dead_group_chart(sizes, highlight=(p, view["dead_probability"]))


def _dead_group_html(view: dict) -> str:
    """The widget's numbers as one short paragraph."""
    live = view["completions_per_live_group"]
    return (f"P(dead) = {view['all_right']:.4f} (all right) + {view['all_wrong']:.4f} (all wrong) = "
            f"<b>{view['dead_probability']:.4f}</b> at G = {view['G']} (G = 8: {view['dead_probability_at_8']:.4f}). "
            f"Sampling cost: {view['G']} completions per prompt, {view['cost_vs_8']:.2g}x G = 8; "
            f"{'no group is ever alive' if live == float('inf') else f'{live:,.1f} completions per live group'}.")


def dead_group_widget():
    """Sliders for p and G; shows P(dead group) = p^G + (1-p)^G, its curve next to G = 8, and what G costs (02).

    The numbers and the chart are HTML widgets updated in place (an Output widget redrawn inside a cell that is
    executing could leave a headless run waiting).
    """
    import vl_convert

    p = w.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.01, description="pass rate p")
    G = w.IntSlider(value=REFERENCE_GROUP_SIZE, min=2, max=64, description="group size G")  # any G: p = 0.05 needs 14
    numbers, chart = w.HTML(), w.HTML()

    def redraw(*_):
        numbers.value = _dead_group_html(dead_group_view(p.value, G.value))
        chart.value = vl_convert.vegalite_to_svg(dead_group_picture(p.value, G.value).to_dict())

    p.observe(redraw, "value")
    G.observe(redraw, "value")
    redraw()
    box = w.VBox([w.HBox([p, G]), numbers, chart])
    box.picture = dead_group_picture(p.value, G.value)
    return box


# ---------------------------------------------------------------------------
# The budget explorer (notebook 03 and apps/budget_explorer.ipynb)
# ---------------------------------------------------------------------------


def measured_gain(gains: pd.DataFrame | None, model: str, strategy: str, budget: float, pool: int) -> dict | None:
    """A committed study's gain for this model and strategy, with each seed's gain and its 95% t-interval over
    seeds, only when the study ran at this budget share (its own pool may be larger: `problems` says how many its
    runs trained on); None otherwise."""
    from ..research.studies import check_one_run_per_seed, require_columns, t_interval

    if gains is None or not len(gains):
        return None
    require_columns(gains, ["model", "strategy", "seed", "gain.test"], "gains")
    check(is_number(budget) and 0 < float(budget) <= 1, f"budget={budget!r} must be a share of the pool, above 0 and "
                                                        "at most 1 (0.1 for 10%)")
    gain = pd.to_numeric(gains["gain.test"], errors="coerce")
    outside = gain[gain.abs() > 1]
    check(outside.empty, f"gains: gain.test holds {outside.iloc[0] if len(outside) else ''} (a change in accuracy lies "
                         "between -1 and 1: percent points? divide by 100)")
    rows = gains[(gains["model"] == model) & (gains["strategy"] == strategy)]
    check_one_run_per_seed(rows, [column for column in ("model", "budget") if column in rows])  # two tasks or a
    # study given twice would be counted as more seeds
    if "budget" in rows.columns:
        n = budget_count(budget, pool)
        selected = rows["n_selected"] if "n_selected" in rows else [None] * len(rows)
        rows = rows[[recorded_count(b, pool, s, p) == n for b, s, p in zip(rows["budget"], selected, study_pools(rows))]]
    if not len(rows):
        return None
    check_one_study_at_this_share(rows, strategy)
    return {**t_interval(rows["gain.test"]), "per_seed": [round(float(g), 4) for g in rows["gain.test"]],
            "budget": float(rows["budget"].iloc[0]) if "budget" in rows else None,
            "problems": int(rows["n_selected"].iloc[0]) if "n_selected" in rows else None}


def check_one_study_at_this_share(rows: pd.DataFrame, strategy: str) -> None:
    """Each seed once among the rows kept at the slider's share, all run with one setting: budgets 0.1 and 100 (of a
    1,000-problem pool) are one study given twice, whose seeds would count twice; two studies of other tasks or
    steps whose seeds do not overlap would be pooled as one study's seeds (03)."""
    twice = rows[rows["seed"].duplicated(keep=False)]
    seed, budgets = (twice["seed"].iloc[0], sorted(set(twice["budget"]))) if len(twice) else (None, [])
    check(twice.empty, f"gains hold seed {seed} of {strategy} twice at this share (budgets {budgets}: one study given "
                       "twice?); pass one study's rows")
    mixed = {column: sorted(set(rows[column].astype(str))) for column in setting_columns(rows)}
    mixed = {column: values for column, values in mixed.items() if len(values) > 1}
    column, values = next(iter(mixed.items()), (None, []))
    check(not mixed, f"gains of {strategy} at this share hold runs of several {column} ({', '.join(values)}): two "
                     f"studies' seeds would be pooled as one's; pass one setting's rows (e.g. gains[gains.{column} == "
                     f"{values[0]!r}])" if mixed else "")


def setting_columns(rows: pd.DataFrame) -> list[str]:
    """The columns of a results table that name how its runs were trained and scored (an experiment's settings but
    its seed, budget, and those that change only speed or memory) (03)."""
    not_settings = {"seed", "budget", "run_dir", "backend", "micro_batch_prompts", "gradient_checkpointing",
                    "check_pass_rates"}
    return [field.name for field in dataclasses.fields(Point) if field.name in rows and field.name not in not_settings]


def recorded_count(budget, pool: int, selected=None, study_pool=None) -> int | None:
    """The problems a recorded budget would select from the explorer's `pool`: a share up to 1.0 as that share; a
    count above it (`--set BUDGET=50`), or 1 where its runs `selected` one problem (a results table writes 1 and 1.0
    alike), as its share of the study's own pool (`study_pool`); None for a count whose study pool is unknown or
    cannot hold it (03)."""
    budget = float(budget)
    if budget > 1 or (budget == 1 and selected == 1):
        known = study_pool is not None and not pd.isna(study_pool) and study_pool >= 1
        if not (known and budget.is_integer() and budget <= study_pool):
            return None
        return budget_count(budget / float(study_pool), pool) if budget < study_pool else pool
    return budget_count(budget, pool)


def study_pools(rows: pd.DataFrame) -> list:
    """Each result row's training pool: its `pool_size` column, else its profile's `experiment_pool` (None when
    neither says, or the pool is a whole dataset) (03)."""
    if "pool_size" in rows:
        return [size if size and not pd.isna(size) else None for size in rows["pool_size"]]
    profiles = rows["profile"] if "profile" in rows else [None] * len(rows)
    return [PROFILES[name].experiment_pool or None if name in PROFILES else None for name in profiles]


def gain_text(gain: dict) -> str:
    """A measured gain as the explorer shows it: its 95% interval from 3 seeds on, else each seed's gain, no mean (03)."""
    from ..research.studies import interval_text

    trained = f"; those runs selected {gain['problems']} problems at this share" if gain.get("problems") else ""
    if gain["seeds"] >= FEWEST_SEEDS_FOR_AN_INTERVAL:
        return f"{interval_text(gain)} (95% interval over {gain['seeds']} seeds{trained})"
    each = ", ".join(f"{g:+.3f}" for g in gain["per_seed"])
    return f"each seed: {each} (too few for a mean{trained})"


def explorer_view(tables: dict, model: str, k: int, strategy: str, budget: float, group_size: int = 8,
                  seed: int = 0, gains: pd.DataFrame | None = None) -> tuple[dict, pd.DataFrame]:
    """The budget explorer's numbers and histogram (a bar per possible pass rate) for one setting of its controls (03).

    The selection ranks by the labels from the first `k` samples; its dead-group prediction is given twice: from
    those labels ("predicted_dead_share") and from all the table's samples of the same problems
    ("predicted_dead_share_full_k"), which are less noisy (notebooks 02 and 04: noisy labels overstate dead groups).
    """
    full = tables[model]
    table = pass_rates_at(full, k)
    summary = selection_summary(table, strategy, budget, group_size, seed)
    k_max = int(full["k"].min())
    pool = len(table)
    full_rates = full.set_index(full["id"].astype(str)).loc[summary["ids"], "pass_rate"].to_numpy(dtype=float)
    summary.update(model=model, k=k, k_max=k_max, pool=pool, budget=budget,
                   budget_share=summary["n_selected"] / pool, estimation_completions=pool * k,
                   estimation_tokens=int(round(full["mean_length"].sum() * k)),
                   predicted_dead_share_full_k=round(1 - informative_share(full_rates, group_size), 4),
                   ranking_from=f"first {k} of {k_max} samples")
    gain = measured_gain(gains, model, strategy, budget, pool)
    if gain is not None:
        summary.update(measured_gain=gain["mean"], measured_gain_seeds=gain["seeds"],
                       measured_gain_per_seed=gain["per_seed"], measured_gain_text=gain_text(gain))
        if gain["seeds"] >= FEWEST_SEEDS_FOR_AN_INTERVAL:
            summary.update(measured_gain_low=gain["ci_low"], measured_gain_high=gain["ci_high"])
    return summary, pass_rate_histogram(table, summary.pop("ids"))


def strategies_side_by_side(tables: dict, model: str, k: int, budget: float, group_size: int = 8, seed: int = 0,
                            gains: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every strategy's explorer numbers at one setting, one row each, to compare them side by side."""
    keys = ("strategy", "mean_pass_rate", "share_mixed", "predicted_dead_share", "predicted_dead_share_full_k",
            "measured_gain", "measured_gain_seeds", "measured_gain_per_seed")
    rows = []
    for strategy in EXPLORER_STRATEGIES:
        summary, _ = explorer_view(tables, model, k, strategy, budget, group_size, seed, gains)
        rows.append({key: summary.get(key) for key in keys})
    return pd.DataFrame(rows)


def explorer_title(summary: dict) -> str:
    """The explorer chart's title: the model, the strategy and the budget as a share and a count of the pool (03)."""
    return (f"{summary['model']}: {summary['strategy']} at budget {summary['budget_share']:.0%} of the pool "
            f"({summary['n_selected']} of {summary['pool']} problems)")


def explorer_picture(tables: dict, model: str, k: int, strategy: str, budget: float, seed: int = 0):
    """The explorer's histogram for one setting (its default state is the static picture of executed copies)."""
    summary, histogram = explorer_view(tables, model, k, strategy, budget, seed=seed)
    return selection_histogram_chart(histogram, explorer_title(summary), subtitle=f"labels from K = {k}")


def budget_explorer(tables: dict, seed: int = 0, gains: pd.DataFrame | None = None):
    """Budget, strategy, K and model controls over real difficulty tables (03).

    The budget slider is a share of the pool, shown with its count; the widget shows the chosen strategy's numbers,
    every strategy side by side, and the selection's histogram."""
    first = next(iter(tables))
    k_max = int(tables[first]["k"].min())
    model = w.Dropdown(options=list(tables), value=first, description="model")
    strategy = w.Dropdown(options=list(EXPLORER_STRATEGIES), value="hard", description="strategy")
    budget = w.FloatSlider(value=0.1, min=0.02, max=1.0, step=0.02, description="budget", readout_format=".0%")
    k = w.IntSlider(value=k_max, min=2, max=k_max, description="K")
    numbers, side_by_side = w.HTML(), w.HTML()
    out = w.Output()

    def redraw(*_):
        summary, histogram = explorer_view(tables, model.value, k.value, strategy.value, budget.value,
                                           seed=seed, gains=gains)
        numbers.value = _summary_html(summary)
        side_by_side.value = _side_by_side_html(
            strategies_side_by_side(tables, model.value, k.value, budget.value, seed=seed, gains=gains), strategy.value)
        out.clear_output(wait=True)
        with out:
            display(selection_histogram_chart(histogram, explorer_title(summary),
                                              subtitle=f"labels from K = {k.value}"))

    def model_changed(*_):  # each model's table has its own K: the slider follows it before anything is drawn
        with k.hold_trait_notifications():
            k.max = int(tables[model.value]["k"].min())
            k.value = min(k.value, k.max)
        redraw()

    model.observe(model_changed, "value")
    for control in (strategy, budget, k):
        control.observe(redraw, "value")
    redraw()
    box = w.VBox([w.HBox([model, strategy]), w.HBox([budget, k]), numbers, out, side_by_side])
    box.picture = explorer_picture(tables, first, k_max, "hard", 0.1, seed)
    box.tables = (HTML(numbers.value + side_by_side.value),)  # the default state's, as redraw() left them
    return box


def _summary_html(summary: dict) -> str:
    """The explorer's numbers as a small HTML table (each value has a class the browser test reads)."""
    rows = [("budget", "budget_text", "{}"), ("selected", "n_selected", "{}"),
            ("mean pass rate", "mean_pass_rate", "{:.3f}"), ("share with 0 &lt; p &lt; 1", "share_mixed", "{:.3f}"),
            (f"predicted dead groups, from the K = {summary['k']} labels that chose them", "predicted_dead_share",
             "{:.3f}"),
            (f"predicted dead groups, the same problems at all K = {summary['k_max']} samples",
             "predicted_dead_share_full_k", "{:.3f}"),
            ("estimation cost (completions)", "estimation_completions", "{:,}")]
    values = {**summary, "budget_text": f"{summary['budget_share']:.0%} of {summary['pool']} = "
                                        f"{summary['n_selected']} problems"}
    if summary.get("measured_gain") is not None:
        rows.append(("measured gain at this budget share (precomputed studies)", "measured_gain_text", "{}"))
    cells = "".join(f"<tr><td>{label}</td><td class='explorer-{key}'>{fmt.format(values[key])}</td></tr>"
                    for label, key, fmt in rows)
    warning = "<p><b>medium</b> falls inside one block of equal pass rates here.</p>" if summary["medium_degenerate"] else ""
    return f"<table>{cells}</table>{warning}"


def _seeds_text(mean, seeds, per_seed=None) -> str:
    """'+0.020 (5 seeds)'; with fewer seeds than an interval needs, each seed's gain; '' where no study ran."""
    if mean is None or mean != mean:
        return ""
    if seeds < FEWEST_SEEDS_FOR_AN_INTERVAL and per_seed:
        return "each seed: " + ", ".join(f"{g:+.3f}" for g in per_seed) + " (too few for a mean)"
    return f"{mean:+.3f} ({int(seeds)} seeds)"


def _side_by_side_html(table: pd.DataFrame, current: str) -> str:
    """Every strategy at the current setting, the chosen one in bold."""
    def fmt(value, spec):
        return "" if value is None or value != value else format(value, spec)

    head = ("<tr><th>strategy</th><th>mean p</th><th>0 &lt; p &lt; 1</th><th>dead (labels)</th><th>dead (all K)</th>"
            "<th>measured gain</th></tr>")
    bold = ' style="font-weight:bold"'
    body = "".join(
        f"<tr{bold if r.strategy == current else ''}><td>{r.strategy}</td>"
        f"<td>{fmt(r.mean_pass_rate, '.3f')}</td><td>{fmt(r.share_mixed, '.3f')}</td>"
        f"<td>{fmt(r.predicted_dead_share, '.3f')}</td><td>{fmt(r.predicted_dead_share_full_k, '.3f')}</td>"
        f"<td>{_seeds_text(r.measured_gain, r.measured_gain_seeds, r.measured_gain_per_seed)}</td></tr>"
        for r in table.itertuples())
    return f"<p>Every strategy at this budget and K:</p><table class='explorer-side-by-side'>{head}{body}</table>"


# ---------------------------------------------------------------------------
# A quiz question that checks itself (every notebook's quiz)
# ---------------------------------------------------------------------------


def quiz_feedback(options: dict, choice: str | None) -> tuple[bool, str]:
    """(right?, what to show) for one choice among `options` {option: (right?, explanation)}."""
    check(sum(bool(right) for right, _ in options.values()) == 1, "a quiz question needs exactly one right option")
    check(all(explanation.strip() for _, explanation in options.values()), "every option needs its explanation")
    if choice is None:
        return False, "Pick an option."
    check(choice in options, f"choice={choice!r} is not one of the options")
    right, explanation = options[choice]
    return bool(right), ("Right. " if right else "Not quite. ") + explanation


def pack_quiz(question: str, options: dict) -> str:
    """A quiz question and its answers as one opaque string, so that a student's copy shows no answer (`make lab`)."""
    quiz_feedback(options, None)
    spec = {"question": question, "options": {option: list(answer) for option, answer in options.items()}}
    return base64.b64encode(zlib.compress(json.dumps(spec, ensure_ascii=False).encode(), 9)).decode()


def quiz_packed(packed: str):
    """The quiz `pack_quiz` packed; the instructor's copy calls `quiz` itself (students' copies of 00-04b)."""
    damaged = "this quiz's packed text is damaged; get a fresh copy of the notebook (`make lab` after renaming yours)"
    try:
        spec = json.loads(zlib.decompress(base64.b64decode("".join(packed.split()), validate=True)))
        question, options = spec["question"], {option: tuple(answer) for option, answer in spec["options"].items()}
    except (binascii.Error, zlib.error, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        check(False, damaged)
    check(isinstance(question, str) and all(
        len(answer) == 2 and isinstance(answer[0], bool) and isinstance(answer[1], str) for answer in options.values()),
        damaged)
    return quiz(question, options)


def quiz(question: str, options: dict):
    """A multiple-choice question: pick an option and read why it is right or wrong, an explanation per option (00).

    Its picture (executed copies) shows the question and options, not the answer."""
    quiz_feedback(options, None)  # validates the options before anything is drawn
    choices = w.RadioButtons(options=list(options), value=None, layout=w.Layout(width="max-content"))
    feedback = w.HTML()

    def react(*_):
        right, text = quiz_feedback(options, choices.value)
        feedback.value = f"<p style='color:{'#1a7f37' if right else '#b35900'}'>{text}</p>"

    choices.observe(react, "value")

    box = w.VBox([w.HTML("<b>" + re.sub(r"`([^`]+)`", r"<code>\1</code>", question) + "</b>"), choices, feedback])
    box.picture = Markdown(f"**{question}**\n\n" + "\n".join(f"- ( ) {option}" for option in options)
                           + "\n\n*(Run the notebook to pick an option and see why it is right or wrong.)*")
    return box
