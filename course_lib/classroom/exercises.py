"""Self-checks for the notebooks' exercises (Spinning Up style): the student's answer against one the library
computes from the notebook's own data, so a check holds in every profile and never shows the expected value.

A notebook calls `check_answer("02.2", my_range, group_size=GROUP_SIZE)`: the id names the notebook and the
exercise, the keyword arguments are the notebook's variables the answer depends on. `grade` is the pure part.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from dataclasses import dataclass
from math import comb

from ..errors import CourseError, check
from ..rewards import correctness_reward


@dataclass(frozen=True)
class Check:
    """How one exercise is checked: the expected answer from the notebook's inputs, a tolerance and a hint."""

    expected: Callable  # (**inputs) -> the expected answer (a number, a tuple or dict of them, a name, a set of names)
    tolerance: float  # absolute tolerance on every number
    hint: str  # the recipe, shown once the nudge has not helped (RECIPE_AFTER tries); never the expected value
    diagnose: Callable | None = None  # (answer, **inputs) -> a hint for this particular wrong answer, or None
    nudge: str = ""  # the idea to think with, shown first: it points at the notebook's idea, not at the calls
    relative: float = 0.0  # also at most this share of each expected number (a small target needs a tight check)


CHECKS: dict[str, Check] = {}
RECIPE_AFTER = 3  # the check's third "not yet" for one exercise shows the recipe; the first two, the nudge
TRIES: dict[str, int] = {}  # "not yet"s so far per exercise in this kernel (`check_answer` counts them)


def exercise(exercise_id: str, tolerance: float = 1e-9, hint: str = "", diagnose: Callable | None = None,
             nudge: str = "", relative: float = 0.0):
    """Register the function that computes an exercise's expected answer (and, optionally, one that recognises
    common wrong answers and says what each one missed), with its nudge (the idea) and hint (the recipe)."""
    def register(function):
        CHECKS[exercise_id] = Check(function, tolerance, hint, diagnose, nudge, relative)
        return function
    return register


def _general_hint(spec: Check, tries: int) -> str:
    """The nudge for the first tries, the recipe from the RECIPE_AFTER-th on (or at once, for a check without one)."""
    if spec.nudge and tries < RECIPE_AFTER:
        return f"{spec.nudge} (check again after another try for a more detailed hint)"
    return spec.hint


def _hint_for(spec: Check, answer, inputs: dict, tries: int = RECIPE_AFTER) -> str:
    """The hint for this wrong answer: the diagnosis of a known mistake when there is one, else the general hint."""
    if spec.diagnose is not None:
        try:
            specific = spec.diagnose(answer, **inputs)
        except Exception:  # an answer of an unexpected shape: the general hint will do
            specific = None
        if specific:
            return specific
    return _general_hint(spec, tries)


def _as_number(value):
    """A float for ints, floats and numpy/pandas scalars; None for anything else (bools count as no number)."""
    if isinstance(value, bool) or isinstance(value, str):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def matches(answer, expected, tolerance: float, relative: float = 0.0) -> bool:
    """Whether `answer` equals `expected` up to `tolerance` on numbers (and, with `relative`, up to that share of each
    nonzero expected number, whichever is tighter), element by element in tuples, lists and dicts.

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
            matches({str(k): v for k, v in answer.items()}[str(key)], value, tolerance, relative)
            for key, value in expected.items())
    if isinstance(expected, (tuple, list)):
        return isinstance(answer, (tuple, list)) and len(answer) == len(expected) and all(
            matches(a, e, tolerance, relative) for a, e in zip(answer, expected))
    if isinstance(expected, str):
        return isinstance(answer, str) and answer.strip() == expected
    number, target = _as_number(answer), _as_number(expected)
    if number is None or target is None or math.isnan(number):
        return False
    allowed = min(tolerance, relative * abs(target)) if relative and target else tolerance
    return abs(number - target) <= allowed + 1e-12


def grade(exercise_id: str, answer, tries: int = RECIPE_AFTER, **inputs) -> tuple[bool, str]:
    """(correct?, the message to show): "correct", or "not yet: " and a hint: the nudge while `tries` (this
    "not yet" is the tries-th) is under RECIPE_AFTER, then the recipe. Pure: prints nothing."""
    check(exercise_id in CHECKS, f"exercise_id={exercise_id!r} has no check; use one of {', '.join(sorted(CHECKS))}")
    spec = CHECKS[exercise_id]
    general = _general_hint(spec, tries)
    if answer is None:
        return False, f"not yet: {exercise_id}: write your answer in the cell above (it is still None). Hint: {general}"
    if callable(answer) and not wants_function(spec.expected):
        return False, f"not yet: {exercise_id} wants a value, not a function (call it and give what it returns?)"
    if callable(answer):  # an exercise whose answer is a function: the check calls it on cases of its own
        try:
            ok = spec.expected(answer=answer, **inputs)
        except Exception as error:  # the student's function failed: say how, as a hint
            return False, f"not yet: {exercise_id}: your function raised {type(error).__name__}: {error}. Hint: {general}"
        return (True, f"correct ({exercise_id})") if ok else \
            (False, f"not yet: {exercise_id}. Hint: {_hint_for(spec, answer, inputs, tries)}")
    if wants_function(spec.expected):
        return False, f"not yet: {exercise_id}: give the function itself (not a number it returned). Hint: {general}"
    try:
        expected = spec.expected(**inputs)
    except TypeError as error:  # the check cell's inputs were edited: say which the check takes
        raise CourseError(f"check_answer({exercise_id!r}, ...) needs the inputs its cell passes ({error}); run the "
                          "check cell as it was given") from None
    if matches(plain(answer, expected), expected, spec.tolerance, spec.relative):
        return True, f"correct ({exercise_id})"
    return False, f"not yet: {exercise_id}. Hint: {_hint_for(spec, answer, inputs, tries)}"


def wants_function(check_function) -> bool:
    """Whether an exercise's answer is a function the check calls (its check takes the `answer` itself)."""
    return getattr(check_function, "wants_function", False) or "answer" in inspect.signature(check_function).parameters


def plain(answer, expected):
    """A numpy array or a pandas Series as the plain value the check compares: a dict where a dict is expected (a
    Series by its index), else a list."""
    if hasattr(answer, "tolist") and not isinstance(answer, str) and getattr(answer, "ndim", 0) >= 1:
        if isinstance(expected, dict) and hasattr(answer, "to_dict"):
            return answer.to_dict()
        return answer.tolist()
    return answer


def check_answer(exercise_id: str, answer, **inputs) -> None:
    """Print "correct" or "not yet" and a hint for the student's answer; never prints the expected value (00).

    The hint gives the idea first, the recipe from the RECIPE_AFTER-th "not yet" on."""
    tries = TRIES.get(exercise_id, 0) + 1
    ok, message = grade(exercise_id, answer, tries=tries, **inputs)
    if not ok:
        TRIES[exercise_id] = tries
    print(message)


# The checks, notebook by notebook. Each recomputes the answer from the notebook's own variables.

def _first_step_reference(completions, answer, solution, **kwargs) -> list[float]:
    """Exercise 00.2's reward: 1 for the right final answer, 0.5 for a right first step only, else 0."""
    right = correctness_reward(completions, answer=answer, source=kwargs.get("source", ["arith"] * len(completions)))
    return [r if r == 1.0 else (0.5 if c.split("\n")[0].strip() == s.split("\n")[0].strip() else 0.0)
            for c, s, r in zip(completions, solution, right)]


def _another_answer(answer: str) -> str:
    """An answer of the same kind as `answer` that differs from it: the next number, or another option letter."""
    return str(int(answer) + 1) if answer.lstrip("-").isdigit() else ("A" if answer != "A" else "B")


@exercise("00.2", nudge="which completions keep the full reward, and what must a wrong one share with the"
                        " reference solution to earn half?",
          hint="a correct final answer keeps reward 1; a wrong one earns 0.5 only when the first line equals "
               "the first line of the reference `solution` (TRL passes it as a keyword argument).")
def _check_first_step(answer, problems) -> bool:
    completions, answers, solutions, sources = [], [], [], []
    for p in problems:
        lines = p.solution.split("\n")
        wrong_final = "\n".join(lines[:-1] + [f"#### {p.answer}1"])
        wrong_first = "\n".join(["?"] + lines[1:-1] + [f"#### {p.answer}1"])
        right_after_other_working = "\n".join(["?"] + lines[1:])  # a right answer earns 1, whatever came before
        right_first_other_lines = "\n".join([lines[0], "?", lines[-1], ""])  # not the solution's text, ends in "\n"
        right_spelled_otherwise = "\n".join(lines[:-1] + [f"#### {p.answer}."])  # graded right, not the last line
        cut_first = "\n".join([lines[0][:-1]] + lines[1:-1] + [f"#### {p.answer}1"])  # a prefix is no first step
        longer_first = "\n".join([lines[0] + "?"] + lines[1:-1] + [f"#### {p.answer}1"])
        other = _another_answer(p.answer)  # a real answer of the task's kind (a number, a letter), only not this one
        hedges = ["\n".join(["?"] + lines[1:-1] + marks) for marks in  # two marks, one right: 0 (a hedge), either order
                  ([f"#### {other}", f"#### {p.answer}"], [f"#### {p.answer}", f"#### {other}"])]
        wrong_second = "\n".join([lines[0], "?"] + lines[2:-1] + [f"#### {other}"])  # a right first line only: 0.5
        for c in (p.solution, wrong_final, wrong_first, "", right_after_other_working, right_first_other_lines,
                  right_spelled_otherwise, cut_first, longer_first, *hedges, wrong_second):
            completions.append(c)
            answers.append(p.answer)
            solutions.append(p.solution)
            sources.append(p.source)
    kwargs = {"answer": answers, "solution": solutions, "source": sources}
    return matches(list(answer(completions, **kwargs)), _first_step_reference(completions, **kwargs), 1e-9)


def _samples_for_certainty(z: float = 1.96) -> tuple[int, int]:
    """Exercise 01.2's answer: the smallest K whose Wilson interval for 0 right stays below 1/20, and the smallest
    even K whose interval for K/2 right is narrower than 1/10."""
    from ..difficulty import wilson_interval

    def width(right: int, k: int) -> float:
        low, high = wilson_interval(right, k, z)
        return high - low

    never = next(k for k in range(1, 10_000) if wilson_interval(0, k, z)[1] < 1 / 20)
    half = next(k for k in range(2, 10_000, 2) if width(k // 2, k) < 1 / 10)
    return never, half


def _diagnose_certainty(answer) -> str | None:
    never, half = _samples_for_certainty()
    if not (isinstance(answer, (tuple, list)) and len(answer) == 2):
        return "give a pair (K for a problem never solved, K for a problem solved half the time)."
    first, second = answer
    if first == math.ceil(1.96**2 * 20 + 1e-9):  # z^2 / K < 1/20: Wilson's bound without its + z^2
        return "the first K solves z^2 / K < 1/20; Wilson's bound at 0 right is z^2 / (K + z^2), a little lower."
    if first == never and second in (385, 386):  # 1.96 / sqrt(K) < 1/10 from K = 385 on (386 if K is even)
        return "the second K is the Wald width's, 1.96 / sqrt(K) < 1/10; use the Wilson interval of K/2 right of K."
    return None


@exercise("01.2", nudge="an interval's width depends on K and on the share right: for each of the two "
                        "problems, try larger K until it is narrow enough.",
          tolerance=0, diagnose=_diagnose_certainty,
          hint="loop over K with wilson_interval: the first K with wilson_interval(0, K)[1] < 1/20, and the first "
               "even K whose interval for K // 2 right has high - low < 1/10.")
def _certainty_check() -> tuple[int, int]:
    return _samples_for_certainty()


def _diagnose_wilson_zero(answer, k: int) -> str | None:
    number = _as_number(answer)
    if number == 0:
        return "0 is the Wald interval's upper bound, the one that claims certainty; Wilson's comes from solving "\
               "|p_hat - p| = z sqrt(p (1 - p) / K) for p at p_hat = 0."
    if number is not None and abs(number - 1.96**2 / k) < 1e-3:
        return "close: that is z^2 / K, from p K = z^2; you dropped the (1 - p) factor: keep it and solve for p."
    return None


@exercise("01.4", nudge="at 0 right out of K, Wilson's upper bound is the largest p for which seeing 0 "
                        "right is still unsurprising; write that condition.",
          tolerance=1e-3, relative=0.001, diagnose=_diagnose_wilson_zero,
          hint="at p_hat = 0 the Wilson bound solves p = z sqrt(p (1 - p) / K) with z = 1.96: square both sides and "
               "solve for p; give it for the notebook's K.")
def _wilson_upper_at_zero(k: int) -> float:
    return 1.96**2 / (k + 1.96**2)


def _kl_gradient_norm(model, tokenizer, prompt: str, completions, rewards, beta: float, drift: float) -> float:
    """Exercise 02.1's reference: the gradient norm of one group's GRPO loss plus beta * KL (TRL's k3 estimator), with
    the reference model's log-probs equal to the policy's minus `drift` (drift 0: step 0, the policy is the reference)."""
    import torch

    from ..grpo import completion_logprobs, group_advantages

    model.zero_grad()
    device = next(model.parameters()).device
    advantages = group_advantages(torch.tensor([list(rewards)], dtype=torch.float32))[0].to(device)  # (G,)
    logps, mask = completion_logprobs(model, tokenizer, [prompt] * len(completions), list(completions))  # (G, T)
    reference = logps.detach() - drift
    kl = torch.exp(reference - logps) - (reference - logps) - 1  # (G, T)
    per_token = -advantages[:, None] * logps + beta * kl
    ((per_token * mask).sum(dim=1) / mask.sum(dim=1)).mean().backward()
    norm = torch.sqrt(sum((p.grad**2).sum() for p in model.parameters() if p.grad is not None)).item()
    model.zero_grad()
    return norm


def _diagnose_kl(answer, model, tokenizer, group, prompt) -> str | None:
    problem, completions, rewards = group
    at_start = answer(problem, completions, rewards, beta=0.04, drift=0.0)
    moved = answer(problem, completions, rewards, beta=0.04, drift=0.1)
    if abs(at_start) > 1e-6:
        return ("at step 0 the reference's log-probs equal the policy's (detached), so the KL estimator's derivative "
                "1 - exp(r - l) is 0 there: your gradient at drift=0 should vanish. Is the reference detached?")
    if abs(moved) <= 1e-9:
        return ("with drift=0.1 the policy has left the reference, and the KL term pulls it back even for a dead group: "
                "your function gives no gradient there. Does beta * KL reach the loss, with the reference = logps.detach() - drift?")
    return None


@exercise("02.1", nudge="the KL term compares each token's log-probability with a reference model's; what"
                        " does it add to the gradient when the two agree, and when they drift apart?",
          tolerance=1e-4, diagnose=_diagnose_kl,
          hint="write gradient_norm_with_kl(problem, completions, rewards, beta, drift): the group's GRPO loss plus "
               "beta * KL per token, KL = exp(r - l) - (r - l) - 1 with reference log-probs r = logps.detach() - drift; "
               "backward, then the gradient norm. The check calls it at drift 0 and 0.1.")
def _check_kl_gradient(answer, model, tokenizer, group, prompt) -> bool:
    problem, completions, rewards = group
    for drift in (0.0, 0.1):
        mine = float(answer(problem, completions, rewards, beta=0.04, drift=drift))
        expected = _kl_gradient_norm(model, tokenizer, prompt, completions, rewards, 0.04, drift)
        if not math.isfinite(mine) or abs(mine - expected) > 1e-4 * max(1.0, expected):  # NaN compares as close
            return False
    return True


@exercise("02.4", nudge="p^G + (1-p)^G does not change when p and 1-p swap: where could such a curve be "
                        "lowest?",
          tolerance=5e-5, relative=0.1, hint="set the derivative of p^G + (1-p)^G to zero: G p^(G-1) = G (1-p)^(G-1); give "
                               "(the p where it is smallest, the smallest value) for G = GROUP_SIZE.",
          diagnose=lambda answer, group_size: (
                               "the minimum is where the derivative is zero, not at an end: at p = 0 or 1 the value is 1, the largest."
              if isinstance(answer, (tuple, list)) and len(answer) == 2 and answer[0] in (0, 1) else
                               "the value at the minimum is p^G + (1-p)^G evaluated there: two equal terms, each (1/2)^G."
              if isinstance(answer, (tuple, list)) and len(answer) == 2 and abs(answer[0] - 0.5) < 1e-9 else None))
def _dead_minimum(group_size: int) -> tuple[float, float]:
    return 0.5, 2 * 0.5**group_size


def _alive_range(group_size: int) -> tuple[float, float]:
    from ..grpo import dead_group_probability

    def boundary(low, high):  # dead_group_probability falls from 1 at p = 0 to its minimum at p = 0.5
        for _ in range(60):
            middle = (low + high) / 2
            low, high = (middle, high) if dead_group_probability(middle, group_size) >= 0.5 else (low, middle)
        return (low + high) / 2

    low = boundary(0.0, 0.5)
    return low, 1.0 - low  # symmetric in p <-> 1 - p


def _diagnose_alive_range(answer, group_size: int) -> str | None:
    low, high = _alive_range(group_size)
    if not (isinstance(answer, (tuple, list)) and len(answer) == 2):
        return "give a pair (lowest p, highest p)."
    a, b = float(answer[0]), float(answer[1])
    if a > b:
        return "the pair is reversed: the lowest p first."
    if abs(a - (1 - low)) < 0.01 or abs(b - low) < 0.01:
        return "one end is right but mirrored: the range is symmetric, p <-> 1 - p."
    if a < low - 0.01 and b > high + 0.01:
        return "too wide: at your ends P(dead) is above 0.5. Scan p and keep only where dead_group_probability(p, 8) < 0.5."
    if a > low + 0.01 and b < high - 0.01:
        return "too narrow: P(dead) is still below 0.5 just outside your range. Scan finer, e.g. steps of 0.001."
    return None


@exercise("02.2", nudge="a group gives no gradient when all G rewards agree; find where that chance falls"
                        " below a half, on both sides of p = 0.5.",
          tolerance=0.01, relative=0.2, diagnose=_diagnose_alive_range,
          hint="give (lowest p, highest p) with dead_group_probability(p, 8) < 0.5; "
               "the range is symmetric about p = 0.5; two decimals are enough.")
def _check_alive_range(group_size: int) -> tuple[float, float]:
    return _alive_range(group_size)


def _diagnose_hardest_easiest(answer, rates, group_size: int) -> str | None:
    hardest, easiest = _hardest_easiest(rates, group_size)
    if isinstance(answer, (tuple, list)) and len(answer) == 2:
        if abs(answer[0] - easiest) < 1e-9 and abs(answer[1] - hardest) < 1e-9:
            return "the two are swapped: hardest (lowest pass rates) first."
        if abs(answer[0] - (1 - hardest)) < 1e-9 or abs(answer[1] - (1 - easiest)) < 1e-9:
            return "that is the dead share, 1 - informative share; the exercise asks for the informative (alive) share."
    return None


@exercise("02.3", nudge="the hardest and easiest tenths are the two ends of the sorted pass rates; ask "
                        "what share of each end's groups can teach anything.",
          tolerance=1e-9, diagnose=_diagnose_hardest_easiest,
          hint="sort `rates`, take the first and last max(1, len // 10), and give "
               "(hardest share, easiest share) from informative_share(..., GROUP_SIZE).")
def _hardest_easiest(rates, group_size: int) -> tuple[float, float]:
    from ..grpo import informative_share

    ranked = sorted(rates)
    tenth = max(1, len(ranked) // 10)
    return informative_share(ranked[:tenth], group_size), informative_share(ranked[-tenth:], group_size)


@exercise("03.1", nudge="hard takes the lowest pass rates first; grow the selection until a problem the "
                        "model sometimes solves gets in.",
          tolerance=0, hint="a dict {model: N}: the smallest number of problems N whose `hard` selection "
                            "holds a problem with p > 0 (None if every problem is at p = 0).")
def _first_alive_budget(tables) -> dict:
    return {name: (int((t.pass_rate == 0).sum()) + 1 if (t.pass_rate > 0).any() else None) for name, t in tables.items()}


@exercise("03.2", nudge="a selection's predicted dead share follows from its problems' pass rates and the"
                        " group size.",
          tolerance=1e-3, hint='a dict {"hard": ..., "hard but alive": ..., "learnability": ...} of predicted '
                               "dead shares, 1 - informative_share(selected pass rates, GROUP_SIZE).")
def _dead_shares(table, budget, group_size: int, seed: int) -> dict:
    from ..grpo import informative_share
    from ..selection import budget_count, select

    by_id = table.set_index("id").pass_rate  # the budget counted as `select` counts it (0.29 of 100 is 29)
    alive = table[table.pass_rate > 0].sort_values("pass_rate", kind="stable").head(budget_count(budget, len(table)))
    rates = {"hard": list(by_id.loc[select(table, "hard", budget, seed)]), "hard but alive": list(alive.pass_rate),
             "learnability": list(by_id.loc[select(table, "learnability", budget, seed)])}
    return {name: 1 - informative_share(r, group_size) for name, r in rates.items()}


@exercise("03.3", nudge="labels made from fewer samples tie more problems at 0: compare what hard picks "
                        "from 2 samples with what it picks from all of them.",
          tolerance=0, hint="select `hard` on pass_rates_at(table, 2) and on `table`, and count the ids "
                            "of the first selection that are not in the second.")
def _ids_changed_at_2(table, budget, seed: int) -> int:
    from ..difficulty import pass_rates_at
    from ..selection import select

    return len(set(select(pass_rates_at(table, 2), "hard", budget, seed)) - set(select(table, "hard", budget, seed)))


def _dapo_loss(logps, advantages, mask) -> float:
    """The on-policy loss averaged over the batch's completion tokens (TRL's "dapo"), for 04.1's hint."""
    return float(-(advantages[:, None] * mask).sum() / mask.sum())


def _diagnose_dr_grpo(answer, logps, advantages, mask, max_completion_length) -> str | None:
    if matches(answer, _dapo_loss(logps, advantages, mask), 1e-7):
        return "that divides by the completion tokens there are (dapo); Dr. GRPO divides by N x max_completion_length."
    return None


@exercise("04.1", nudge="the loss adds -ratio x advantage over the tokens; this loss type divides by a "
                        "constant, not by the tokens actually generated.",
          tolerance=1e-7, diagnose=_diagnose_dr_grpo,
          hint="sum -ratio x advantage x mask over every token, then divide by the number of completions times "
               "max_completion_length.")
def _dr_grpo_loss(logps, advantages, mask, max_completion_length: int) -> float:
    from ..grpo import grpo_loss

    loss, _ = grpo_loss(logps, logps.detach(), None, advantages, mask, loss_type="dr_grpo",
                        max_completion_length=max_completion_length)
    return float(loss)


def _diagnose_rank(answer, parameters: int, sizes) -> str | None:
    total = sum(d_in + d_out for d_in, d_out in sizes)
    if matches(answer, parameters // total, 0) and parameters % total:
        return "at that rank the adapters are still a little short of the model: round up."
    square = [d_in for d_in, d_out in sizes if d_in == d_out]
    if square and matches(answer, square[0] // 2, 0):
        return "that is where one square matrix breaks even; count every targeted matrix's real shape."
    return None


@exercise("04.2", nudge="each adapted matrix adds r x (d_in + d_out) parameters; how large must r be "
                        "before the adapters outnumber the model?", diagnose=_diagnose_rank,
          tolerance=0, hint="LoRA trains r x (d_in + d_out) per matrix: divide the model's parameters by "
                            "d_in + d_out summed over the matrices, and round up.")
def _rank_as_large_as_the_model(parameters: int, sizes) -> int:
    total = sum(d_in + d_out for d_in, d_out in sizes)
    check(total > 0, "sizes holds no layer: pass [(m.in_features, m.out_features) for m in linear]")
    return math.ceil(parameters / total)


@exercise("04b.1", nudge="a problem's label from K samples is itself random: average the dead-group "
                         "chance over every label it could get.",
          tolerance=5e-4, hint="sum over j = 0..K of the Binomial(K, p) probability of j right times "
                               "dead_group_probability(j / K, G); math.comb(K, j) gives the binomial coefficient.")
def _plugin_dead_probability(p: float, k: int, group_size: int) -> float:
    from ..grpo import dead_group_probability

    return sum(comb(k, j) * p**j * (1 - p) ** (k - j) * dead_group_probability(j / k, group_size) for j in range(k + 1))


@exercise("04b.2", nudge="predict each trained group's dead chance from a label of only 2 samples, then "
                         "average over the groups the run trained.",
          tolerance=1e-4, hint="label every problem from its first 2 samples (pass_rates_at(base, 2)), then "
                               "average dead_group_probability(label, G) over the run's groups, one per "
                               "row of the ledger.")
def _dead_share_from_two_samples(table, problem_ids, group_size: int) -> float:
    from ..difficulty import pass_rates_at
    from ..grpo import dead_group_probability

    labels = dict(zip(table["id"], pass_rates_at(table, 2)["pass_rate"]))
    return float(sum(dead_group_probability(labels[i], group_size) for i in problem_ids) / len(problem_ids))


@exercise("05.1", nudge="compare the two strategies seed by seed on each task: the paired difference of "
                        "their gains.",
          tolerance=5e-4, hint='a dict {task: mean paired difference}, from paired_difference(precomputed, '
                               '"learnability", "hard", "gain.test"); three decimals are enough.')
def _learnability_minus_hard(precomputed) -> dict:
    from ..research.studies import paired_difference

    table = paired_difference(precomputed, "learnability", "hard", "gain.test")
    return {row.task: float(row.mean) for row in table.itertuples()}


def _diagnose_q(answer, mechanism) -> str | None:
    expected = _pass_rate_for_hard_share(mechanism)
    if not isinstance(answer, dict) or set(answer) != set(expected):
        return None
    if all(matches(1 - answer[task], q, 2e-3) for task, q in expected.items()):
        return "two q give each share (q and 1 - q); take the one below 0.5: hard problems are mostly failed."
    hard = mechanism[mechanism["strategy"] == "hard"]
    if all(matches(answer[task], share, 2e-3) for task, share in zip(hard["task"], hard["learnable share of groups"])):
        return "that is the learnable share itself; find the pass rate q at which a group of 8 is alive that often."
    return None


@exercise("05.2", nudge="a group teaches unless all 8 rewards agree: find the pass rate at which that happens "
                        "as often as hard's groups were learnable.", tolerance=2e-3, diagnose=_diagnose_q,
          hint="a dict {task: q}: solve 1 - dead_group_probability(q, 8) = hard's \"learnable share of groups\" "
               "in `mechanism` for q in [0, 0.5] (bisection: the left side rises with q there).")
def _pass_rate_for_hard_share(mechanism) -> dict:
    from ..grpo import dead_group_probability

    def solve(share: float) -> float:
        low, high = 0.0, 0.5
        for _ in range(60):
            middle = (low + high) / 2
            low, high = (middle, high) if 1 - dead_group_probability(middle, 8) < share else (low, middle)
        return (low + high) / 2

    hard = mechanism[mechanism["strategy"] == "hard"]
    shares = hard["learnable share of groups"].astype(float)
    check(len(hard) > 0 and shares.between(0, 1).all(),
          "mechanism has no hard row with a learnable share of groups from 0 to 1 (a NaN or missing row gives no "
          "target); run the cell that makes `mechanism` again")
    return {task: solve(float(share)) for task, share in zip(hard["task"], shares)}


@exercise("05.3", nudge="an interval over seeds, now with the live seed among them.",
          tolerance=5e-4, hint="a tuple (ci_low, ci_high): t_interval(spread.difference) over every seed, the "
                               "live one included (the precomputed seeds alone are the other interval).")
def _interval_with_live_seed(differences) -> tuple:
    from ..research.studies import t_interval

    result = t_interval(differences)
    return result["ci_low"], result["ci_high"]


def _diagnose_vouched_margin(answer, table) -> str | None:
    margin, _ = _vouched_margin(table)
    if isinstance(answer, (tuple, list)) and len(answer) == 2 and matches(answer[0], 3 * margin, 5e-4):
        return "that is levels-1-5's whole gain; the margin may be at most a third of it."
    return None


@exercise("06.1", nudge="the margin is a fraction of the reference arm's own gain; then read the per-seed"
                        " differences with the course's equivalence test.",
          tolerance=5e-4, diagnose=_diagnose_vouched_margin,
          hint="a tuple (margin, verdict): a third of levels-1-5's mean gain, then "
               "equivalence_verdict(levels-1-3 minus levels-1-5 per seed, margin)['verdict'].")
def _vouched_margin(table) -> tuple:
    from ..research.studies import equivalence_verdict

    wide = table.pivot_table(index="seed", columns="strategy", values="gain.test")
    margin = round(float(wide["levels-1-5"].mean()) / 3, 4)
    return margin, equivalence_verdict(wide["levels-1-3"] - wide["levels-1-5"], margin)["verdict"]


@exercise("06.2", nudge="a level's groups teach unless all G rewards agree; take each level's base "
                        "accuracy as p.",
          tolerance=5e-3, hint="a dict {level: 1 - dead_group_probability(p, G)}, with p the base accuracy of "
                               "that level and G the group size.")
def _alive_by_level(base_by_level: dict, group_size: int) -> dict:
    from ..grpo import dead_group_probability

    return {level: 1 - dead_group_probability(p, group_size) for level, p in base_by_level.items()}


@exercise("06.3", nudge="a power calculation needs the spread of the paired differences; a spread measured "
                        "on a few seeds is itself uncertain.",
          tolerance=0, hint="a tuple (seeds_needed(sd, 0.03), seeds_needed(sd_upper_bound(sd, n), 0.03)), with sd "
                            "the standard deviation (ddof=1) of the n precomputed seeds' differences, not the live one.")
def _seeds_for_margin(precomputed_differences) -> tuple:
    import numpy as np

    from ..research.studies import sd_upper_bound, seeds_needed

    values = list(precomputed_differences)
    sd = float(np.std(values, ddof=1))
    return seeds_needed(sd, 0.03), seeds_needed(sd_upper_bound(sd, len(values)), 0.03)


@exercise("A2.1", nudge="a group is alive unless all G rewards agree: work it out once with p the pass "
                        "rate and once with p the share in format.",
          tolerance=1e-3, hint="a dict {cell: (alive from pass rate, alive from format share)}, each "
                               "1 - p^G - (1-p)^G with G = 8 and p the cell's pass_rate, then its format_share.")
def _alive_from_pass_and_format(table, group_size: int) -> dict:
    from ..grpo import dead_group_probability

    return {row.cell: (1 - dead_group_probability(row.pass_rate, group_size),
                       1 - dead_group_probability(row.format_share, group_size)) for row in table.itertuples()}


@exercise("07.1", nudge="the same predicted dead share the notebook prints for each model, at a budget of"
                        " 0.3.",
          tolerance=1e-9, hint='a dict {model: predicted dead share of `hard` at budget 0.3}, from '
                               "selection_summary(table, \"hard\", 0.3, GROUP_SIZE).")
def _hard_dead_at_30(tables, group_size: int) -> dict:
    from ..selection import selection_summary

    return {name: selection_summary(t, "hard", 0.3, group_size)["predicted_dead_share"] for name, t in tables.items()}
