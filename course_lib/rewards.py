"""Reward functions in TRL's signature `f(completions, **kwargs) -> list[float]`.

The same functions go to `GRPOTrainer(reward_funcs=...)` and to the course's own
estimation and evaluation. They never raise and never hang, whatever string they get; a column of the
wrong length (a bug in the caller, not in the completion) is a CourseError.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .answers import ANSWERS, DEFAULT_FORMAT, EXTRACTORS, MAX_SCAN, extract_tagged, in_format, is_correct, is_missing
from .errors import check


def completion_text(completion) -> str:
    """The text of a completion, plain or conversational (a list of message dicts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content", "")
        return content if isinstance(content, str) else ""
    return ""


def _column(values, n: int, name: str, default=None) -> list:
    """A per-completion list from a dataset column TRL passes as a keyword (or a default); other lengths refused."""
    if isinstance(values, str) or not isinstance(values, Iterable):  # one value for every completion (`answer=7`)
        return [default if is_missing(values) else str(values)] * n
    values = list(values)
    check(len(values) == n, f"{name} has {len(values)} values for {n} completions; give one per completion "
                            "(TRL repeats each prompt's column values once per generation)")
    return values


def correctness_reward(completions, answer=None, source=None, answer_format=None, **kwargs) -> list[float]:
    """1.0 when the final answer (in `answer_format`) matches `answer` by its `source`'s rules, else 0.0 (00).

    >>> correctness_reward(["3+4=7\\n#### 7", "3+4=8\\n#### 8", "no answer"], answer=["7"] * 3, source=["arith"] * 3)
    [1.0, 0.0, 0.0]
    >>> correctness_reward([[{"role": "assistant", "content": "so \\\\boxed{1/2}"}]], answer=["\\\\frac{1}{2}"], source=["math"])
    [1.0]
    """
    n = len(completions)
    rewards = []
    check(answer is not None, f"correctness_reward got no `answer` column (it got {', '.join(sorted(kwargs)) or 'none'}"
                              f"{' and source' if source is not None else ''}): every completion would score 0; "
                              "name the dataset's reference column `answer`")
    columns = _column(answer, n, "answer"), _column(source, n, "source", "arith"), _column(answer_format, n, "answer_format")
    if source is None:  # arith's rules by default: only a whole number can be graded by them
        odd = [ref for ref in columns[0] if ref is not None and not re.fullmatch(r"-?\d+", str(ref).strip())]
        check(not odd, f"correctness_reward got no `source` column, so answers are graded as arith's (`#### N`), "
                       f"and answer {odd[0] if odd else ''!r} is no whole number: every such completion would score "
                       "0; give the dataset a `source` column (math, gsm8k, bbh, ...)")
    unknown = sorted({str(kind) for kind in columns[1] if kind not in DEFAULT_FORMAT}
                     | {str(form) for form in columns[2] if form and form not in EXTRACTORS})
    check(not unknown, f"source/answer_format {unknown[0] if unknown else ''!r} has no answer checker (sources: "
                       f"{', '.join(DEFAULT_FORMAT)}; formats: {', '.join(EXTRACTORS)}): every completion would score 0")
    for completion, reference, kind, form in zip(completions, *columns):
        try:
            ok = reference is not None and is_correct(completion_text(completion), reference, kind, form or None)
        except Exception:  # an odd completion or a missing answer scores 0 rather than stopping training
            ok = False
        rewards.append(1.0 if ok else 0.0)
    return rewards


_FORMATS = {
    "arith": re.compile(r"(?:\d+[+\-*]\d+=\d+\n)*#### -?\d+"),
    "shuffle": re.compile(r"(?:[A-G]{3,7}\n)*#### [A-G]"),
    "tinymath": re.compile(r"(?:(?!.*\\boxed)[0-9a-z+\-*=(){}\\]{1,60}\n){0,4}\\boxed\{(?!.*\\boxed)[0-9a-z+\-*/.=(){}\\]{1,40}\}"),
}  # tinymath: worked lines with no box of their own (several boxes are a hedge), then one boxed answer


def _asked_otherwise(source, answer_format) -> bool:
    """Whether a problem asks for another answer format than its source's own (`boxed` for arith)."""
    return bool(answer_format) and answer_format != DEFAULT_FORMAT.get(source)


def format_reward(completions, source=None, answer_format=None, **kwargs) -> list[float]:
    """1.0 when the whole completion has its task's shape (worked lines, then `#### answer`), else 0.0 (00).

    A problem asked in another format than its source's own (`answer_format`, e.g. `boxed` for arith) scores 1.0
    when the completion writes an answer in that format (`answers.in_format`).

    >>> format_reward(["3+4=7\\n#### 7", "7", "#### 7 and more"], source=["arith"] * 3)
    [1.0, 0.0, 0.0]
    >>> format_reward(["3+4=7\\n\\\\boxed{7}"], source=["arith"], answer_format=["boxed"])
    [1.0]
    """
    n = len(completions)
    kinds, forms = _column(source, n, "source", "arith"), _column(answer_format, n, "answer_format")
    unknown = sorted({str(form) for form in forms if form and form not in ANSWERS} or
                     {str(kind) for kind, form in zip(kinds, forms) if kind != "tagged" and kind not in _FORMATS
                      and not _asked_otherwise(kind, form)})
    check(not unknown, f"source/answer_format {unknown[0] if unknown else ''!r} has no format shape (format_reward "
                       f"knows the sources {', '.join([*_FORMATS, 'tagged'])} and the formats {', '.join(ANSWERS)}): "
                       "every completion would score 0")
    rewards = []
    for completion, kind, form in zip(completions, kinds, forms):
        text = completion_text(completion).strip()
        if _asked_otherwise(kind, form):
            ok = in_format(text, form)
        elif kind == "tagged":
            ok = text.endswith("</answer>") and extract_tagged(text) is not None  # one tag, as correctness wants
        else:
            pattern = _FORMATS.get(kind)
            ok = pattern is not None and len(text) <= MAX_SCAN and pattern.fullmatch(text) is not None
        rewards.append(1.0 if ok else 0.0)
    return rewards
