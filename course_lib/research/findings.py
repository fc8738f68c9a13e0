"""Sentences computed from numbers, each a short line a student reads: a verdict with its interval (`finding`), the
same for every row of a table (`findings`), a gain in points of accuracy (`in_points`), a rank correlation with its
interval (`correlation`), a bold takeaway under a chart (`takeaway`), a list of such lines (`bullets`).

Pure functions returning text or `IPython.display.Markdown`; the notebook displays them. Introduced in
notebooks/00_tiny_world_tour.ipynb (`finding`, `takeaway`); the rest in 05, used again in 06, 07 and A1.
"""

from __future__ import annotations

import math

from IPython.display import Markdown

from .studies import COULD_NOT_TELL, beats_or_loses, interval_text


def finding(name: str, row, margin: float | None = None) -> str:
    """'hard - random +0.010 [-0.004, +0.024]: **equivalent** (margin ±0.03)' from a row with mean and interval (00).

    The row has mean, ci_low, ci_high and, when tested against a margin, a `verdict` (and TOST's 90% interval beside the
    95% one where the row holds it); without one, the 95% interval's verdict against 0. A "could not tell" says why,
    from the row's `why` (`studies.paired_verdicts`).

    >>> finding("hard - random", {"mean": 0.01, "ci_low": -0.004, "ci_high": 0.024, "tost_low": -0.001,
    ...                           "tost_high": 0.021, "verdict": "equivalent"}, 0.03)
    'hard - random +0.010 [-0.004, +0.024], 90% [-0.001, +0.021]: **equivalent** (margin ±0.03)'

    >>> finding("hard - random", {"mean": -0.02, "ci_low": -0.03, "ci_high": -0.01, "verdict": "worse"}, 0.03)
    'hard - random -0.020 [-0.030, -0.010]: **worse** (margin ±0.03)'
    """
    read = row.get if hasattr(row, "get") else (lambda key: getattr(row, key, None))  # a dict, a Series, a namedtuple

    def get(key):  # a table's row holds NaN where a value is missing (a row of another table joined to it)
        value = read(key)
        return None if isinstance(value, float) and math.isnan(value) else value

    said, seeds = get("verdict"), get("seeds")
    if said is None and beats_or_loses(row) == "is not tested against":  # 2 seeds, or seeds that all agree: no interval
        why = f"{int(seeds)} seeds" if seeds is not None and int(seeds) < 3 else "no spread across seeds"
        return f"{name} {get('mean'):+.3f}: **not tested** ({why})"
    if said is None:
        said = {"beats": "above 0", "loses to": "below 0", "is indistinguishable from": "includes 0"}[beats_or_loses(row)]
    tost = (get("tost_low"), get("tost_high"))  # TOST's 90% interval, which an equivalence reads against the margin
    shown = interval_text(row) + (f", 90% [{tost[0]:+.3f}, {tost[1]:+.3f}]" if None not in tost and get("verdict")
                                  else "")
    text = f"{name} {shown}: **{said}**" + (f" (margin ±{margin:g})" if margin is not None else "")
    why = get("why")
    return text + (f": {why}" if said == COULD_NOT_TELL and isinstance(why, str) and why else "")


def findings(table, name: str, margin: float | None = None) -> str:
    """`finding` for every row of `table`, joined by "; ", each named by `name` formatted with the row's columns (05).

    >>> import pandas as pd
    >>> findings(pd.DataFrame([{"task": "arith", "mean": 0.03, "ci_low": 0.01, "ci_high": 0.05}]), "{task}")
    'arith +0.030 [+0.010, +0.050]: **above 0**'
    """
    return "; ".join(finding(name.format(**row), row, margin) for row in table.to_dict("records"))


def in_points(row, digits: int = 1) -> str:
    """A gain (mean and 95% interval, as fractions of problems) in points of accuracy, 100 = every problem (05).

    >>> in_points({"mean": -0.0033, "ci_low": -0.0477, "ci_high": 0.0411})
    '-0.3 [-4.8, +4.1]'
    """
    get = row.get if hasattr(row, "get") else (lambda key: getattr(row, key, None))
    return interval_text({key: 100 * float(get(key)) for key in ("mean", "ci_low", "ci_high")}, digits)


def correlation(result: dict, unit: str = "runs") -> str:
    """'+0.60 [+0.23, +0.81] over 19 runs' from `studies.rank_correlation`'s result (05).

    >>> correlation({"rho": 0.6018, "ci_low": 0.2267, "ci_high": 0.8123, "n": 19})
    '+0.60 [+0.23, +0.81] over 19 runs'
    """
    text = interval_text({"mean": result["rho"], "ci_low": result["ci_low"], "ci_high": result["ci_high"]}, 2)
    return f"{text} over {result['n']} {unit}"


def takeaway(text: str) -> Markdown:
    """The one bold line under a chart that says what to read; bold inside it (a `finding`'s) is dropped (00)."""
    return Markdown(f"**{text.replace('**', '').strip()}**")


def bullets(lines, intro: str = "") -> Markdown:
    """`lines` as a Markdown list, after an optional sentence (05)."""
    return Markdown((intro + "\n\n" if intro else "") + "\n".join(f"- {line}" for line in lines))
