"""Self-checks for the notebooks' exercises (Spinning Up style): the student's answer against one the library
computes from the notebook's own data, so a check holds in every profile and never shows the expected value.

A notebook calls `check_answer("02.2", my_range, group_size=GROUP_SIZE)`: the id names the notebook and the
exercise, the keyword arguments are the notebook's variables the answer depends on. `verdict` is the pure part.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .errors import check


@dataclass(frozen=True)
class Check:
    """How one exercise is checked: the expected answer from the notebook's inputs, a tolerance and a hint."""

    expected: Callable  # (**inputs) -> the expected answer (a number, a tuple or dict of them, a name, a set of names)
    tolerance: float  # absolute tolerance on every number
    hint: str  # shown when the answer is not (yet) right; never contains the expected value


CHECKS: dict[str, Check] = {}


def exercise(exercise_id: str, tolerance: float = 1e-9, hint: str = ""):
    """Register the function that computes an exercise's expected answer."""
    def register(function):
        CHECKS[exercise_id] = Check(function, tolerance, hint)
        return function
    return register


def _as_number(value):
    """A float for ints, floats and numpy/pandas scalars; None for anything else (bools count as no number)."""
    if isinstance(value, bool) or isinstance(value, str):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def matches(answer, expected, tolerance: float) -> bool:
    """Whether `answer` equals `expected` up to `tolerance` on numbers, element by element in tuples, lists and dicts.

    A frozenset of names as `expected` accepts any one of them (ties). None is never an answer at the top level.
    """
    if isinstance(expected, frozenset):
        try:
            return (tuple(answer) if isinstance(answer, list) else answer) in expected
        except TypeError:  # an unhashable answer (a dict, a set) is none of the names
            return False
    if expected is None:
        return answer is None
    if isinstance(expected, dict):
        return isinstance(answer, dict) and set(map(str, answer)) == set(map(str, expected)) and all(
            matches({str(k): v for k, v in answer.items()}[str(key)], value, tolerance) for key, value in expected.items())
    if isinstance(expected, (tuple, list)):
        return isinstance(answer, (tuple, list)) and len(answer) == len(expected) and all(
            matches(a, e, tolerance) for a, e in zip(answer, expected))
    if isinstance(expected, str):
        return isinstance(answer, str) and answer.strip() == expected
    number, target = _as_number(answer), _as_number(expected)
    if number is None or target is None or math.isnan(number):
        return False
    return abs(number - target) <= tolerance + 1e-12


def verdict(exercise_id: str, answer, **inputs) -> tuple[bool, str]:
    """(correct?, the message to show): "correct", or "not yet: " and the exercise's hint. Pure: prints nothing."""
    check(exercise_id in CHECKS, f"exercise_id={exercise_id!r} has no check; use one of {', '.join(sorted(CHECKS))}")
    spec = CHECKS[exercise_id]
    if answer is None:
        return False, f"not yet: {exercise_id}: write your answer in the cell above (it is still None). Hint: {spec.hint}"
    if callable(answer):  # an exercise whose answer is a function: the check calls it on cases of its own
        try:
            ok = spec.expected(answer=answer, **inputs)
        except Exception as error:  # the student's function failed: say how, as a hint
            return False, f"not yet: {exercise_id}: your function raised {type(error).__name__}: {error}. Hint: {spec.hint}"
        return (True, f"correct ({exercise_id})") if ok else (False, f"not yet: {exercise_id}. Hint: {spec.hint}")
    if matches(answer, spec.expected(**inputs), spec.tolerance):
        return True, f"correct ({exercise_id})"
    return False, f"not yet: {exercise_id}. Hint: {spec.hint}"


def check_answer(exercise_id: str, answer, **inputs) -> None:
    """Print "correct" or "not yet" and a hint for the student's answer; never prints the expected value."""
    print(verdict(exercise_id, answer, **inputs)[1])


# The checks, notebook by notebook. Each recomputes the answer from the notebook's own variables.

def _first_step_reference(completions, answer, solution, **kwargs) -> list[float]:
    """Exercise 00.2's reward: 1 for the right final answer, 0.5 for a right first step only, else 0."""
    from .rewards import correctness_reward

    right = correctness_reward(completions, answer=answer, source=kwargs.get("source", ["arith"] * len(completions)))
    return [r if r == 1.0 else (0.5 if c.split("\n")[0].strip() == s.split("\n")[0].strip() else 0.0)
            for c, s, r in zip(completions, solution, right)]


@exercise("00.2", hint="a correct final answer keeps reward 1; a wrong one earns 0.5 only when the first line equals "
                       "the first line of the reference `solution` (TRL passes it as a keyword argument).")
def _check_first_step(answer, problems) -> bool:
    completions, answers, solutions, sources = [], [], [], []
    for p in problems:
        lines = p.solution.split("\n")
        wrong_final = "\n".join(lines[:-1] + [f"#### {p.answer}1"])
        wrong_first = "\n".join(["?"] + lines[1:-1] + [f"#### {p.answer}1"])
        for c in (p.solution, wrong_final, wrong_first, ""):
            completions.append(c)
            answers.append(p.answer)
            solutions.append(p.solution)
            sources.append(p.source)
    kwargs = {"answer": answers, "solution": solutions, "source": sources}
    return matches(list(answer(completions, **kwargs)), _first_step_reference(completions, **kwargs), 1e-9)


@exercise("01.2", tolerance=0, hint="count the distinct values of the `pass_rate` column of `pass_rates_at(table, 2)`.")
def _distinct_at_2(table) -> int:
    from .difficulty import pass_rates_at

    return int(pass_rates_at(table, 2).pass_rate.nunique())


@exercise("02.1", tolerance=1e-6, hint="add beta * KL per token with the reference's log-probs equal to the policy's "
                                        "(detached): at step 0 the policy is the reference. Give the gradient norm.")
def _dead_gradient_with_kl() -> float:
    # exp(r - l) - (r - l) - 1 has derivative 1 - exp(r - l) in l: zero where r = l, whatever the model or profile
    return 0.0


def _alive_range(group_size: int) -> tuple[float, float]:
    from .grpo import dead_group_probability

    def boundary(low, high):  # dead_group_probability falls from 1 at p = 0 to its minimum at p = 0.5
        for _ in range(60):
            middle = (low + high) / 2
            low, high = (middle, high) if dead_group_probability(middle, group_size) >= 0.5 else (low, middle)
        return (low + high) / 2

    low = boundary(0.0, 0.5)
    return low, 1.0 - low  # symmetric in p <-> 1 - p


@exercise("02.2", tolerance=0.01, hint="give (lowest p, highest p) with dead_group_probability(p, 8) < 0.5; "
                                       "the range is symmetric about p = 0.5; two decimals are enough.")
def _check_alive_range(group_size: int) -> tuple[float, float]:
    return _alive_range(group_size)


@exercise("02.3", tolerance=1e-9, hint="sort `rates`, take the first and last max(1, len // 10), and give "
                                       "(hardest share, easiest share) from informative_share(..., GROUP_SIZE).")
def _hardest_easiest(rates, group_size: int) -> tuple[float, float]:
    from .grpo import informative_share

    ranked = sorted(rates)
    tenth = max(1, len(ranked) // 10)
    return informative_share(ranked[:tenth], group_size), informative_share(ranked[-tenth:], group_size)


@exercise("03.1", tolerance=0, hint="a dict {model: N}: the smallest number of problems N whose `hard` selection "
                                    "holds a problem with p > 0 (None if every problem is at p = 0).")
def _first_alive_budget(tables) -> dict:
    return {name: (int((t.pass_rate == 0).sum()) + 1 if (t.pass_rate > 0).any() else None) for name, t in tables.items()}


def _budget_count(budget, n: int) -> int:
    return max(1, int(budget * n)) if isinstance(budget, float) else int(budget)


@exercise("03.2", tolerance=1e-3, hint='a dict {"hard": ..., "hard but alive": ..., "learnability": ...} of predicted '
                                      "dead shares, 1 - informative_share(selected pass rates, GROUP_SIZE).")
def _dead_shares(table, budget, group_size: int, seed: int) -> dict:
    from .grpo import informative_share
    from .selection import select

    by_id = table.set_index("id").pass_rate
    alive = table[table.pass_rate > 0].sort_values("pass_rate", kind="stable").head(_budget_count(budget, len(table)))
    rates = {"hard": list(by_id.loc[select(table, "hard", budget, seed)]), "hard but alive": list(alive.pass_rate),
             "learnability": list(by_id.loc[select(table, "learnability", budget, seed)])}
    return {name: 1 - informative_share(r, group_size) for name, r in rates.items()}


@exercise("03.3", tolerance=0, hint="select `hard` on pass_rates_at(table, 2) and on `table`, and count the ids "
                                    "of the first selection that are not in the second.")
def _ids_changed_at_2(table, budget, seed: int) -> int:
    from .difficulty import pass_rates_at
    from .selection import select

    return len(set(select(pass_rates_at(table, 2), "hard", budget, seed)) - set(select(table, "hard", budget, seed)))


@exercise("05.1", tolerance=5e-4, hint='a dict {task: mean paired difference}, from paired_difference(committed, '
                                       '"learnability", "hard", "gain.test"); three decimals are enough.')
def _learnability_minus_hard(committed) -> dict:
    from .studies import paired_difference

    table = paired_difference(committed, "learnability", "hard", "gain.test")
    return {row.task: float(row.mean) for row in table.itertuples()}


def _argmax_names(values) -> frozenset:
    """The names with the largest value (ties: all of them)."""
    best = max(values.values())
    return frozenset(name for name, value in values.items() if value >= best - 1e-12)


@exercise("05.2", hint='a dict {task: strategy}: the strategy whose selection has the highest "predicted dead groups" '
                       "in `mechanism` (any one of tied strategies counts).")
def _deadest_selection(mechanism) -> dict:
    return {task: _argmax_names(dict(zip(rows.strategy, rows["predicted dead groups"])))
            for task, rows in mechanism.groupby("task")}


@exercise("06.1", hint="the model whose level-1 change in `changes`, averaged over its strategies, is largest.")
def _level_one_winner(changes) -> frozenset:
    level_one = changes[changes.level == 1].groupby("model")["mean"].mean()
    return _argmax_names(level_one.to_dict())


@exercise("06.2", hint='a tuple (model, strategy): the largest gain per training step in `overall` ("mean" / "steps").')
def _cheapest_gain(overall) -> frozenset:
    per_step = {(r.model, r.strategy): r.mean / r.steps for r in overall.itertuples()}
    return _argmax_names(per_step)


@exercise("07.1", tolerance=1e-9, hint='a dict {model: predicted dead share of `hard` at budget 0.3}, from '
                                       "selection_summary(table, \"hard\", 0.3, GROUP_SIZE).")
def _hard_dead_at_30(tables, group_size: int) -> dict:
    from .selection import selection_summary

    return {name: selection_summary(t, "hard", 0.3, group_size)["predicted_dead_share"] for name, t in tables.items()}
