"""Sentences computed from numbers, each a short line a student reads: a verdict with its interval (`finding`), a
bold takeaway under a chart (`takeaway`), a list of such lines (`bullets`).

Pure functions returning text or `IPython.display.Markdown`; the notebook displays them. Introduced in
notebooks/05_hard_examples_win.ipynb; used again in 06, 07 and the appendix A1.
"""

from __future__ import annotations

from IPython.display import Markdown

from .studies import interval_text, verdict


def finding(name: str, row, margin: float | None = None) -> str:
    """'hard - random +0.010 [-0.004, +0.024]: **equivalent** (margin ±0.03)' from a row with mean, ci_low, ci_high
    and, when tested against a margin, a `verdict`; without one, the 95% interval's verdict against 0.

    >>> finding("hard - random", {"mean": -0.02, "ci_low": -0.03, "ci_high": -0.01, "verdict": "worse"}, 0.03)
    'hard - random -0.020 [-0.030, -0.010]: **worse** (margin ±0.03)'
    """
    get = row.get if hasattr(row, "get") else (lambda key: getattr(row, key, None))  # a dict, a Series, a namedtuple
    said, seeds = get("verdict"), get("seeds")
    if said is None and verdict(row) == "is not tested against":  # 2 seeds, or seeds that all agree: no interval
        why = f"{int(seeds)} seeds" if seeds is not None and int(seeds) < 3 else "no spread across seeds"
        return f"{name} {get('mean'):+.3f}: **not tested** ({why})"
    if said is None:
        said = {"beats": "above 0", "loses to": "below 0", "is indistinguishable from": "includes 0"}[verdict(row)]
    return f"{name} {interval_text(row)}: **{said}**" + (f" (margin ±{margin:g})" if margin is not None else "")


def takeaway(text: str) -> Markdown:
    """The one bold line under a chart that says what to read from it (bold inside it, e.g. a `finding`, is dropped)."""
    return Markdown(f"**{text.replace('**', '').strip()}**")


def bullets(lines, intro: str = "") -> Markdown:
    """`lines` as a Markdown list, after an optional sentence."""
    return Markdown((intro + "\n\n" if intro else "") + "\n".join(f"- {line}" for line in lines))
