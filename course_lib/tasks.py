"""Procedural tasks of the tiny world: `arith` (GSM8K-like) and `shuffle` (BBH-like).

Every problem is a `Problem`; the same record type holds GSM8K, MATH, BBH and AIME
rows (see `course_lib.data`). Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import asdict, dataclass

from .errors import CourseError, check

TASKS = ("arith", "shuffle")
SPLITS = ("train", "test", "ood")
TRAIN_LEVELS = (1, 2, 3, 4, 5)  # levels of the train and test splits
OOD_LEVELS = (6, 7)  # longer than any training level: the AIME stand-in
TEST_SHARE = 20  # percent of all possible prompts that belong to the test split

# shuffle: level -> (number of objects, number of swaps)
SHUFFLE_LEVELS = {1: (3, 1), 2: (3, 3), 3: (5, 3), 4: (5, 5), 5: (7, 5), 6: (7, 8), 7: (7, 10)}


@dataclass(frozen=True)
class Problem:
    """One problem of any source: the model sees `prompt`, is graded against `answer`."""

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


def _bucket(prompt: str) -> int:
    """A stable number in 0..99 from the prompt text, used to assign splits."""
    return int(hashlib.sha256(prompt.encode()).hexdigest()[:8], 16) % 100


def split_of(prompt: str, level: int) -> str:
    """Which split a prompt belongs to: a pure function of the prompt, so splits never overlap."""
    if level in OOD_LEVELS:
        return "ood"
    return "test" if _bucket(prompt) < TEST_SHARE else "train"


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


MAKERS = {"arith": make_arith, "shuffle": make_shuffle}

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
    """The accuracy of guessing: `shuffle` asks which of n objects sits at a position (1/n); `arith` has no small
    answer set (0). Notebook 05 reports shuffle's gains beyond it.

    >>> guess_rate("shuffle", 5), guess_rate("arith", 5)
    (0.14285714285714285, 0.0)
    """
    return 1 / SHUFFLE_LEVELS[level][0] if task == "shuffle" else 0.0


def check_task_and_levels(task: str, split: str, levels) -> tuple[int, ...]:
    """Validate task, split and levels early; return the levels to generate."""
    check(task in TASKS, f"task={task!r} is unknown; use one of {', '.join(TASKS)}")
    check(split in SPLITS, f"split={split!r} is unknown; use one of {', '.join(SPLITS)}")
    allowed = OOD_LEVELS if split == "ood" else TRAIN_LEVELS
    if levels is None:
        return allowed
    levels = tuple(int(level) for level in levels)
    check(len(levels) > 0, "levels is empty; give at least one level")
    for level in levels:
        check(
            level in allowed,
            f"level {level} is outside the {split} split's levels {allowed[0]}-{allowed[-1]}"
            + ("" if split == "ood" else "; use split='ood' for longer problems"),
        )
    return levels


def generate(task: str, n: int, split: str = "train", seed: int = 0, levels=None) -> list[Problem]:
    """`n` distinct problems of `task` from `split`, spread evenly over `levels`, deterministic from `seed`."""
    levels = check_task_and_levels(task, split, levels)
    check(isinstance(n, int) and n >= 1, f"n={n!r} must be a positive integer")
    rng = random.Random(f"{task}/{split}/{seed}")
    per_level = [n // len(levels) + (i < n % len(levels)) for i in range(len(levels))]
    problems = []
    for level, wanted in zip(levels, per_level):
        problems += _generate_level(task, split, level, wanted, rng)
    return problems


def _generate_level(task, split, level, wanted, rng) -> list[Problem]:
    """`wanted` distinct problems of one level; a clear error if the level has too few."""
    seen, out, misses_in_a_row = set(), [], 0
    while len(out) < wanted:
        prompt, completion, answer = MAKERS[task](rng, level)
        if prompt in seen or split_of(prompt, level) != split:
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
        out.append(Problem(f"{task}-{digest}", prompt, answer, level, task, solution=completion))
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
    rng = random.Random(f"stream/{task}/{split}/{seed}")
    style = random.Random(f"wordy/{task}/{split}/{seed}")  # its own generator: the problems stay those of share 0
    while True:
        level = rng.choice(levels)
        prompt, completion, _ = MAKERS[task](rng, level)
        if split_of(prompt, level) == split:
            if task == "arith" and wordy_share and style.random() < wordy_share:
                completion = wordy(completion)
            yield prompt, completion
