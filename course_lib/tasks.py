"""Procedural tasks of the tiny world: `arith` (GSM8K-like), `shuffle` (BBH-like) and `tinymath` (MATH-like).

Every problem is a `Problem`; the same record type holds GSM8K, MATH, BBH and AIME
rows (see `course_lib.data`). Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import numbers
import random
import re
from dataclasses import asdict, dataclass

from .answers import is_numeric_answer
from .errors import CourseError, check, check_seed

TASKS = ("arith", "shuffle", "tinymath")  # the procedural tasks, each the `source` of its problems
NUMERIC_SUBSETS = {"tinymath-numeric": "tinymath"}  # the problems with a plain-number answer, as MATH's math-numeric
TASK_NAMES = (*TASKS, *NUMERIC_SUBSETS)  # every name `generate` takes
TINY_SPLITS = ("train", "test", "ood")
TASK_SPLITS = {"arith": TINY_SPLITS, "shuffle": TINY_SPLITS, "tinymath": ("train", "test"),  # tinymath: MATH's levels 1-5 only
               "tinymath-numeric": ("train", "test")}
TRAIN_LEVELS = (1, 2, 3, 4, 5)  # levels of the train and test splits
OOD_LEVELS = (6, 7)  # longer than any training level: the AIME stand-in
TEST_SHARE = 20  # percent of all possible prompts that belong to the test split

# shuffle: level -> (number of objects, number of swaps) (05)
SHUFFLE_LEVELS = {1: (3, 1), 2: (3, 3), 3: (5, 3), 4: (5, 5), 5: (7, 5), 6: (7, 8), 7: (7, 10)}


@dataclass(frozen=True)
class Problem:
    """One problem of any source: the model sees `prompt`, is graded against `answer`; `problems` gives them (00)."""

    id: str  # unique within its source, stable across runs
    prompt: str  # exactly what the model is given
    answer: str  # the reference final answer, as a string
    level: int | None  # difficulty level when the source has one
    source: str  # "arith", "shuffle", "gsm8k", "math", "bbh", "aime2025"
    subject: str | None = None  # MATH subject, BBH object count, ...
    solution: str | None = None  # a worked solution when the source has one
    answer_format: str | None = None  # final-answer format asked for and checked (None: the source's default)

    def to_dict(self) -> dict:
        """The record as a plain dict (for JSON Lines and pandas)."""
        return asdict(self)


def check_problem_list(problems, purpose: str = "") -> None:
    """A non-empty list of Problem with unique ids: one line naming what else it is (00)."""
    check(isinstance(problems, list | tuple), f"problems must be a list of Problem (from course_lib.problems or "
                                               f"generate), not {type(problems).__name__}")
    check(len(problems) > 0, f"problems is empty; give at least one problem{purpose}")
    other = next((p for p in problems if not isinstance(p, Problem)), None)
    check(other is None, f"problems holds a {type(other).__name__}, not a Problem" + (
        " (a row as `generate` prints it: make it one with Problem(**row))" if isinstance(other, dict) else ""))
    ids = [p.id for p in problems]
    twice = next((i for i in ids if ids.count(i) > 1), None) if len(set(ids)) < len(ids) else None
    check(twice is None, f"problems: ids must be unique (id {twice!r} appears more than once)")


def hash_split(prompt: str) -> str:
    """'test' for TEST_SHARE percent of prompts, else 'train': a pure function of the text, so splits never overlap
    (the procedural tasks, BBH and your own file alike)."""
    bucket = int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16) % 100
    return "test" if bucket < TEST_SHARE else "train"


def split_of(prompt: str, level: int) -> str:
    """Which split a procedural prompt belongs to: `ood` for the held-out levels, else `hash_split`."""
    return "ood" if level in OOD_LEVELS else hash_split(prompt)


def in_split(prompt: str, level: int, split: str, source: str) -> bool:
    """Whether a generated prompt belongs to `split` (00). A held-out tinymath problem also needs every reordering
    of its operands in that split (`commuted_forms`): `12*6` in train and `6*12` in test would test a seen problem."""
    if split_of(prompt, level) != split:
        return False
    if source != "tinymath" or split == "train":
        return True
    return all(split_of(f"M:{form}\n", level) == split for form in commuted_forms(prompt[2:].rstrip("\n")))


def _top_level(text: str, separators: str) -> list[str]:
    """`text` cut at each separator outside brackets and braces, separators kept: `6*7+5` -> [`6*7`, `+`, `5`]."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char in "({") - (char in ")}")
        if depth == 0 and index > 0 and char in separators:
            parts += [text[start:index], char]
            start = index + 1
    return parts + [text[start:]]


def commuted_forms(question: str) -> set[str]:
    """A tinymath question written every way its operands reorder without changing it: a product's factors, and a
    sum's terms among the positions of one sign. `6*7+5` -> {`6*7+5`, `7*6+5`, `5+6*7`, `5+7*6`}; `9x+8-3x+7` ->
    its six orders of `9x`, `8`, `7` around `-3x` (`9x+7-3x+8` among them); an equation as it is."""
    if "=" in question:
        return {question}
    parts = _top_level(question, "+-")
    terms, signs = parts[0::2], ["+", *parts[1::2]]
    factor_orders = [sorted({"*".join(order) for order in itertools.permutations(_top_level(term, "*")[0::2])})
                     for term in terms]
    slots = {sign: [i for i, s in enumerate(signs) if s == sign] for sign in dict.fromkeys(signs)}
    forms = set()
    for chosen in itertools.product(*factor_orders):
        for arrangement in itertools.product(*(itertools.permutations([chosen[i] for i in where])
                                               for where in slots.values())):
            placed = dict(pair for where, arranged in zip(slots.values(), arrangement) for pair in zip(where, arranged))
            forms.add(placed[0] + "".join(sign + placed[i] for i, sign in enumerate(signs) if i > 0))
    return forms


def _arith_step(rng: random.Random, value: int) -> tuple[str, int]:
    """One operation applied to `value`, keeping every intermediate in 0..99."""
    choices = []
    for op in "+-*":
        if op == "+" and value <= 98:
            choices.append((op, rng.randint(1, min(9, 99 - value))))
        elif op == "-" and value >= 1:
            choices.append((op, rng.randint(1, min(9, value))))
        elif op == "*" and 2 <= value <= 33:
            choices.append((op, rng.randint(2, min(3, 99 // value))))
    op, operand = rng.choice(choices)
    result = {"+": value + operand, "-": value - operand, "*": value * operand}[op]
    return f"{op}{operand}", result


def make_arith(rng: random.Random, level: int) -> tuple[str, str, str]:
    """An `arith` problem with `level` operations applied left to right: (prompt, completion, answer)."""
    value = rng.randint(1, 40)
    expression, lines = str(value), []
    for _ in range(level):
        step, result = _arith_step(rng, value)
        expression += step
        lines.append(f"{value}{step}={result}")
        value = result
    prompt = f"Q:{expression}\n"
    completion = "\n".join(lines) + f"\n#### {value}"
    return prompt, completion, str(value)


def make_shuffle(rng: random.Random, level: int) -> tuple[str, str, str]:
    """A tracking-shuffled-objects problem: objects start in a row, positions swap, ask one position."""
    n_objects, n_swaps = SHUFFLE_LEVELS[level]
    start = "".join(rng.sample("ABCDEFG", n_objects))  # which objects, in which order
    row, swaps, states = list(start), [], []
    for _ in range(n_swaps):
        i, j = sorted(rng.sample(range(n_objects), 2))
        row[i], row[j] = row[j], row[i]
        swaps.append(f"{i + 1}{j + 1}")
        states.append("".join(row))
    asked = rng.randint(1, n_objects)
    prompt = f"S:{start} {' '.join(swaps)} ?{asked}\n"
    answer = row[asked - 1]
    completion = "\n".join(states) + f"\n#### {answer}"
    return prompt, completion, answer


# tinymath, the tiny world's MATH: four subjects at levels 1-5, the answer written as \boxed{...} and graded by
# math-verify as MATH's. Levels 1-3 need only one-digit facts (sums, products, their inverses, small common factors)
# in one to three short steps; levels 4-5 each need a skill no lower level uses: multi-digit multiplication inside one
# line, fractions brought to a common denominator, brackets around a two-digit coefficient multiplied out (a minus
# sign through them), an equation undone in two moves or with x on both sides. Every worked solution fits the tiny profile's 96-token limit.
TINYMATH_SUBJECTS = ("arithmetic", "fractions", "expressions", "equations")
TINYMATH_ANSWERS = {  # subject -> the answer types of its levels 1-5: int, frac (lowest terms), expr (ax+b)
    "arithmetic": ("int", "int", "int", "int", "int"),
    "fractions": ("frac", "frac", "frac int", "frac int", "frac int"),
    "expressions": ("expr", "expr", "expr", "expr", "expr"),
    "equations": ("int", "int", "int frac", "int frac", "int frac"),
}
_TWO_DIGITS = [n for n in range(12, 100) if n % 10]  # factors of levels 4-5: no 10, 20, ... (a zero is no skill)


def _frac(numerator: int | str, denominator: int) -> str:
    r"""A fraction in LaTeX, as MATH writes it: `\frac{3}{4}`."""
    return f"\\frac{{{numerator}}}{{{denominator}}}"


def _lowest(numerator: int, denominator: int) -> str:
    r"""A positive fraction in lowest terms, an integer when it is one: (6, 4) -> `\frac{3}{2}`, (8, 4) -> `2`."""
    common = math.gcd(numerator, denominator)
    numerator, denominator = numerator // common, denominator // common
    return str(numerator) if denominator == 1 else _frac(numerator, denominator)


def _linear(a: int, b: int) -> str:
    """ax+b written the short way: 7x+5, x-3, -x+2, 12x."""
    term = {1: "x", -1: "-x"}.get(a, f"{a}x")
    return term if b == 0 else f"{term}{b:+d}"


def _sign(rng: random.Random, minus_allowed: bool) -> str:
    """'+' or '-' at even odds; '+' when a minus would make the result zero or negative."""
    minus = rng.random() < 0.5
    return "-" if minus and minus_allowed else "+"


def _arithmetic(rng: random.Random, level: int) -> tuple[str, list[str], str]:
    """Integers: a one-digit sum, products with a sum, then (levels 4-5) multi-digit multiplication."""
    if level == 1:  # 34+7
        a, b = rng.randint(10, 99), rng.randint(1, 9)
        op = _sign(rng, True)
        return f"{a}{op}{b}", [], str(a + b if op == "+" else a - b)
    if level in (2, 3):  # 6*7+5, 6*7-3*8
        a, b = rng.randint(2, 9), rng.randint(2, 9)
        lines = [f"{a}*{b}={a * b}"]
        if level == 2:
            term = value = rng.randint(1, 9)
        else:
            c, d = rng.randint(2, 9), rng.randint(2, 9)
            term, value = f"{c}*{d}", c * d
            lines.append(f"{term}={value}")
        op = _sign(rng, a * b > value)
        return f"{a}*{b}{op}{term}", lines, str(a * b + value if op == "+" else a * b - value)
    a = rng.choice(_TWO_DIGITS)
    if level == 4:  # 47*6 (or 6*47) in one line: the carries are the skill
        b = rng.randint(3, 9)
        return (f"{a}*{b}" if rng.random() < 0.5 else f"{b}*{a}"), [], str(a * b)
    b = rng.choice(_TWO_DIGITS)  # 47*36: two partial products (each a level-4 line) and a four-digit sum
    tens, units = b - b % 10, b % 10
    return f"{a}*{b}", [f"{a}*{tens}={a * tens}", f"{a}*{units}={a * units}"], str(a * b)


def _fractions(rng: random.Random, level: int) -> tuple[str, list[str], str]:
    """Fractions: like denominators, a product, reducing, then (levels 4-5) unlike denominators."""
    if level == 2:  # 2/3 * 7/5 (one-digit parts), already in lowest terms
        while True:
            b, d = rng.randint(2, 9), rng.randint(2, 9)
            a, c = rng.randint(1, 9), rng.randint(1, 9)
            if math.gcd(a * c, b * d) == 1 and a % b and c % d:
                return f"{_frac(a, b)}*{_frac(c, d)}", [], _frac(a * c, b * d)
    if level in (1, 3):  # like denominators; level 3's result must be reduced (sometimes to an integer)
        while True:
            d = rng.randint(3 if level == 1 else 4, 15)
            top = d - 1 if level == 1 else 2 * d - 1
            a, b = rng.randint(1, top), rng.randint(1, top)
            op = _sign(rng, a > b)
            result = a + b if op == "+" else a - b
            if (math.gcd(result, d) == 1) == (level == 1):
                question = f"{_frac(a, d)}{op}{_frac(b, d)}"
                return (question, [], _frac(result, d)) if level == 1 else (question, [_frac(result, d)],
                                                                            _lowest(result, d))
    while True:  # unlike denominators: one a multiple of the other (level 4), or their least common multiple
        b, d = rng.randint(2, 12), rng.randint(2, 12)
        common = math.lcm(b, d)
        divides = common in (b, d) and b != d
        if (divides if level == 4 else common not in (b, d) and common <= 36):
            break
    a, c = rng.randint(1, b - 1), rng.randint(1, d - 1)
    op = _sign(rng, a * d > c * b)
    first, second = a * common // b, c * common // d
    result = first + second if op == "+" else first - second
    lines = [f"{_frac(first, common)}{op}{_frac(second, common)}"]
    if math.gcd(result, common) > 1:
        lines.append(_frac(result, common))
    return f"{_frac(a, b)}{op}{_frac(c, d)}", lines, _lowest(result, common)


def _expressions(rng: random.Random, level: int) -> tuple[str, list[str], str]:
    """Linear expressions to simplify: like terms collected, then (levels 4-5) brackets multiplied out, the first
    with a two-digit coefficient (one-digit ones ask only one-digit facts: tiny-sm solved them, tinymath-size-probes)."""
    if level == 1:  # 3x+4x
        a, b = rng.randint(2, 60), rng.randint(2, 9)
        op = _sign(rng, a > b)
        return f"{a}x{op}{b}x", [], _linear(a + b if op == "+" else a - b, 0)
    if level in (2, 3):  # 3x+5+4x, 7x+5-3x+2
        a, c, b = rng.randint(2, 9), rng.randint(2, 9), rng.randint(1, 20)
        op = _sign(rng, a > c)
        x = a + c if op == "+" else a - c
        if level == 2:
            return f"{a}x+{b}{op}{c}x", [], _linear(x, b)
        d = rng.randint(1, 9)
        constant_op = _sign(rng, True)
        constant = b + d if constant_op == "+" else b - d
        return f"{a}x+{b}{op}{c}x{constant_op}{d}", [f"{_linear(x, 0)}+{b}{constant_op}{d}"], _linear(x, constant)
    a, b, c = rng.randint(3, 9), rng.choice(_TWO_DIGITS), rng.randint(1, 9)
    inner = _linear(a * b, a * c)  # 3(47x+5) -> 141x+15: a two-digit product, the skill of arithmetic's level 4
    if level == 4:  # 3(47x+5)+2x, 3(47x+5)-7
        d = rng.randint(1, 9)
        op = _sign(rng, True)
        if rng.random() < 0.5 and (op == "+" or d != a * b):
            x = a * b + d if op == "+" else a * b - d
            return f"{a}({_linear(b, c)}){op}{_linear(d, 0)}", [f"{inner}{op}{_linear(d, 0)}"], _linear(x, a * c)
        constant = a * c + d if op == "+" else a * c - d
        return f"{a}({_linear(b, c)}){op}{d}", [f"{inner}{op}{d}"], _linear(a * b, constant)
    while True:  # 3(47x+5)-2(x+3): two brackets, a minus sign carried through the second
        d, e, f = rng.randint(2, 9), rng.randint(1, 9), rng.randint(1, 9)
        op = _sign(rng, True)
        x = a * b + d * e if op == "+" else a * b - d * e
        if x:
            break
    constant = a * c + d * f if op == "+" else a * c - d * f
    line = f"{inner}{op}{_linear(d * e, 0)}{op}{d * f}"
    return f"{a}({_linear(b, c)}){op}{d}({_linear(e, f)})", [line], _linear(x, constant)


def _equations(rng: random.Random, level: int) -> tuple[str, list[str], str]:
    """Solve for x: one move (levels 1-3), two moves (level 4), x on both sides (level 5); integer or fraction."""
    if level in (1, 2):  # x+7=15; x-27=36 (two-digit numbers)
        x, a = (rng.randint(1, 90), rng.randint(1, 9)) if level == 1 else (rng.randint(10, 89), rng.randint(10, 89))
        op = _sign(rng, x > a)
        b = x + a if op == "+" else x - a
        return f"x{op}{a}={b}", [f"x={b}{'-' if op == '+' else '+'}{a}"], str(x)
    if level == 3:  # 6x=42, x/4=7 (one-digit facts), 4x=6 (a fraction to reduce)
        a = rng.randint(2, 9)
        form = rng.choice(("times", "over", "fraction"))
        if form == "over":
            b = rng.randint(2, 12)
            return f"{_frac('x', a)}={b}", [f"x={b}*{a}"], str(a * b)
        b = a * rng.randint(2, 12) if form == "times" else rng.choice([n for n in range(2, 51) if n % a])
        return f"{a}x={b}", [f"x={_frac(b, a)}"], _lowest(b, a)
    a, b = rng.randint(2, 9), rng.randint(1, 40)
    c = 0 if level == 4 else rng.randint(1, a - 1)  # level 5: cx on the right as well
    coefficient = a - c
    if rng.random() < 0.5:  # an integer x
        right = coefficient * rng.randint(1, 12)
    else:  # usually a fraction
        right = rng.randint(1, 60)
    d = b + right
    question = f"{_linear(a, b)}={d}" if level == 4 else f"{_linear(a, b)}={_linear(c, d)}"  # 7x+13=62, 7x+4=3x+24
    lines = [f"{_linear(coefficient, 0)}={right}"]  # 7x=49, 4x=20
    if coefficient != 1:
        lines.append(f"x={_frac(right, coefficient)}")
    return question, lines, _lowest(right, coefficient)


TINYMATH_MAKERS = {"arithmetic": _arithmetic, "fractions": _fractions, "expressions": _expressions,
                   "equations": _equations}


def make_tinymath(rng: random.Random, level: int, subject: str | None = None) -> tuple[str, str, str]:
    r"""A `tinymath` problem of one subject (drawn by `rng` when None): (prompt, worked solution, answer).

    >>> prompt, solution, answer = make_tinymath(random.Random(1), 5, "arithmetic")
    >>> print(prompt + solution)
    M:31*92
    31*90=2790
    31*2=62
    \boxed{2852}
    >>> print("".join(make_tinymath(random.Random(4), 5, "fractions")[:2]))
    M:\frac{1}{5}+\frac{4}{6}
    \frac{6}{30}+\frac{20}{30}
    \frac{26}{30}
    \boxed{\frac{13}{15}}
    """
    subject = subject or rng.choice(TINYMATH_SUBJECTS)
    question, lines, answer = TINYMATH_MAKERS[subject](rng, level)
    return f"M:{question}\n", "\n".join([*lines, f"\\boxed{{{answer}}}"]), answer


MAKERS = {"arith": make_arith, "shuffle": make_shuffle, "tinymath": make_tinymath}

# The format-limited regime (tiny-m-wordy): an opening line and a restating line after every step make a level-3+
# solution longer than the tiny profile's 96-token limit, while levels 1-2 still fit (tests/test_tasks.py checks).
WORDY_OPENING = "LET ME WORK IT OUT STEP BY STEP"
WORDY_RESTATE = "WE NOW HAVE "


def wordy(completion: str) -> str:
    """An `arith` completion written the long way: the same steps and answer, an opening line, and after each step
    a line restating the value (what tiny-m-wordy learned to write half of the time; notebook 05).

    >>> print(wordy("7+5=12\\n#### 12"))
    LET ME WORK IT OUT STEP BY STEP
    7+5=12
    WE NOW HAVE 12
    #### 12
    """
    *steps, final = completion.split("\n")
    lines = [WORDY_OPENING]
    for step in steps:
        lines += [step, WORDY_RESTATE + step.split("=")[-1]]
    return "\n".join([*lines, final])


def guess_rate(task: str, level: int) -> float:
    """The accuracy of guessing: `shuffle` asks which of n objects sits at a position (1/n), BBH's shuffled objects
    the same with its level the object count (1/level); `arith`, GSM8K and MATH have no small answer set (0). A
    `jsonl:` file's rows may be any of them: refused. Notebook 05 reports shuffle's gains beyond it.

    >>> guess_rate("shuffle", 5), guess_rate("bbh", 5), guess_rate("arith", 5)
    (0.14285714285714285, 0.2, 0.0)
    """
    check(not str(task).startswith("jsonl:"), f"task={task!r}: a file's rows may be any task, so its guess rate is "
                                              "unknown; correct for chance per source, or read the plain gain")
    if task == "shuffle":
        return 1 / SHUFFLE_LEVELS[level][0]
    return 1 / int(level) if task == "bbh" else 0.0


def check_task_and_levels(task: str, split: str, levels) -> tuple[int, ...]:
    """Validate task, split and levels early; return the levels to generate."""
    check(task in TASK_NAMES, f"task={task!r} is unknown; use one of {', '.join(TASK_NAMES)}")
    check(split in TINY_SPLITS, f"split={split!r} is unknown; use one of {', '.join(TINY_SPLITS)}")
    has_ood = "ood" in TASK_SPLITS[task]
    check(split in TASK_SPLITS[task], f"split={split!r} is not a split of {task}: like MATH, it has levels "
                                      f"{TRAIN_LEVELS[0]}-{TRAIN_LEVELS[-1]} only; use train or test")
    allowed = OOD_LEVELS if split == "ood" else TRAIN_LEVELS
    if levels is None:
        return allowed
    whole = not isinstance(levels, str | bytes) and hasattr(levels, "__iter__") and all(
        isinstance(level, numbers.Integral) and not isinstance(level, bool) for level in levels)  # numpy's too
    check(whole, f"levels={levels!r} must be a list of whole level numbers, e.g. [1, 2, 3]")  # not '12', 1.5, True
    levels = tuple(int(level) for level in levels)
    check(len(levels) > 0, "levels is empty; give at least one level")
    repeated = sorted({level for level in levels if levels.count(level) > 1})
    if repeated:
        raise CourseError(f"levels={list(levels)!r} names level {repeated[0]} twice; give each level once")
    for level in levels:
        check(
            level in allowed,
            f"level {level} is outside the {split} split's levels {allowed[0]}-{allowed[-1]}"
            + ("; use split='ood' for longer problems" if split != "ood" and has_ood else ""),
        )
    return levels


def generate(task: str, n: int, split: str = "train", seed: int = 0, levels=None) -> list[Problem]:
    """`n` distinct problems of `task` from `split`, spread evenly over `levels`, deterministic from `seed` (00)."""
    levels = check_task_and_levels(task, split, levels)
    check(isinstance(n, int) and not isinstance(n, bool) and n >= 1, f"n={n!r} must be a positive integer")
    check_seed(seed)  # 1.5, -1 or 'a' would quietly give another pool than the command line's refusal
    rng = random.Random(f"{task}/{split}/{seed}")
    per_level = [n // len(levels) + (i < n % len(levels)) for i in range(len(levels))]
    problems = []
    for level, wanted in zip(levels, per_level):
        problems += _generate_level(task, split, level, wanted, rng)
    return problems


def _generate_level(task, split, level, wanted, rng) -> list[Problem]:
    """`wanted` distinct problems of one level; a clear error if the level has too few.

    tinymath's subjects take turns, so any four problems of a level in a row hold all four. Its numeric subset draws
    each problem's subject and keeps the problem only if its answer is a plain number: tinymath filtered, as
    math-numeric is MATH filtered (so its subjects come in the shares their numeric answers have).
    """
    source = NUMERIC_SUBSETS.get(task, task)
    numeric = task in NUMERIC_SUBSETS
    seen, out, misses_in_a_row = set(), [], 0
    while len(out) < wanted:
        subject = None
        if source == "tinymath":
            subject = rng.choice(TINYMATH_SUBJECTS) if numeric else TINYMATH_SUBJECTS[len(out) % len(TINYMATH_SUBJECTS)]
        prompt, completion, answer = make_tinymath(rng, level, subject) if subject else MAKERS[task](rng, level)
        if prompt in seen or not in_split(prompt, level, split, source) or (numeric and not is_numeric_answer(answer)):
            misses_in_a_row += 1
            if misses_in_a_row > 20_000:  # the level has (almost) no unseen prompts left
                raise CourseError(
                    f"n: only {len(out)} distinct {task} level-{level} {split} problems found; "
                    "ask for fewer problems per level"
                )
            continue
        misses_in_a_row = 0
        seen.add(prompt)
        digest = hashlib.sha256(prompt.encode()).hexdigest()[:10]
        out.append(Problem(f"{source}-{digest}", prompt, answer, level, source, subject, completion))
    return out


_ARITH_LINE = re.compile(r"(\d{1,4})([+\-*])(\d{1,4})=(-?\d{1,5})")


def arith_steps_are_right(completion: str) -> bool:
    """Whether every worked line `a op b = c` of an `arith` completion is arithmetic that holds, in a chain
    (each line starts from the previous result). A right answer over wrong steps is a lucky guess.

    >>> arith_steps_are_right("7+5=12\\n12*2=24\\n#### 24"), arith_steps_are_right("7+5=13\\n13*2=24\\n#### 24")
    (True, False)
    """
    lines = [line.strip() for line in str(completion)[:4000].split("\n")
             if line.strip() and not line.startswith(("####", WORDY_OPENING, WORDY_RESTATE))]  # wordy lines: no steps
    previous = None
    for line in lines:
        match = _ARITH_LINE.fullmatch(line)
        if match is None:
            return False
        a, op, b, c = int(match.group(1)), match.group(2), int(match.group(3)), int(match.group(4))
        if (previous is not None and a != previous) or {"+": a + b, "-": a - b, "*": a * b}[op] != c:
            return False
        previous = c
    return bool(lines)


def stream(task: str, seed: int, levels=TRAIN_LEVELS, split: str = "train", wordy_share: float = 0.0):
    """An endless, seeded stream of (prompt, completion) pairs from one split (for pretraining); with `wordy_share`,
    that share of `arith` completions is written the long way (`wordy`)."""
    levels = check_task_and_levels(task, split, levels)
    check(task in TASKS, f"task={task!r} is a subset for evaluation; pretrain on one of {', '.join(TASKS)}")
    rng = random.Random(f"stream/{task}/{split}/{seed}")
    style = random.Random(f"wordy/{task}/{split}/{seed}")  # its own generator: the problems stay those of share 0
    while True:
        level = rng.choice(levels)
        prompt, completion, _ = MAKERS[task](rng, level)
        if split_of(prompt, level) == split:
            if task == "arith" and wordy_share and style.random() < wordy_share:
                completion = wordy(completion)
            yield prompt, completion
