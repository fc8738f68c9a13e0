"""Procedural tasks: determinism, splits, levels, answers, bad input."""

import re

import pytest

from course_lib import CourseError
from course_lib.answers import is_correct
from course_lib.tasks import (
    OOD_LEVELS,
    SHUFFLE_LEVELS,
    TASK_SPLITS,
    TASKS,
    WORDY_OPENING,
    arith_steps_are_right,
    generate,
    make_arith,
    make_shuffle,
    split_of,
    stream,
    wordy,
)

CHAIN_TASKS = [task for task in TASKS if "ood" in TASK_SPLITS[task]]  # arith, shuffle; tinymath: test_tinymath.py


@pytest.mark.parametrize("task", TASKS)
def test_same_seed_same_problems(task):
    assert generate(task, 50, "train", seed=3) == generate(task, 50, "train", seed=3)
    assert generate(task, 50, "train", seed=3) != generate(task, 50, "train", seed=4)


@pytest.mark.parametrize("task", CHAIN_TASKS)
def test_no_prompt_in_two_splits(task):
    train = {p.prompt for p in generate(task, 400, "train", seed=0)}
    test = {p.prompt for p in generate(task, 400, "test", seed=0)}
    ood = {p.prompt for p in generate(task, 100, "ood", seed=0)}
    assert len(train) == 400 and len(test) == 400  # no duplicates inside a split either
    assert not train & test and not train & ood and not test & ood


@pytest.mark.parametrize("task", CHAIN_TASKS)
def test_levels_spread_evenly_and_ood_is_longer(task):
    problems = generate(task, 50, "train", seed=1)
    assert [sum(p.level == level for p in problems) for level in range(1, 6)] == [10] * 5
    ood = generate(task, 10, "ood", seed=1)
    assert {p.level for p in ood} == set(OOD_LEVELS)
    longest_train = max(len(p.solution) for p in problems)
    assert min(len(p.solution) for p in ood) > longest_train * 0.8


@pytest.mark.parametrize("task", CHAIN_TASKS)
def test_reference_solution_is_graded_correct(task):
    for problem in generate(task, 100, "train", seed=2) + generate(task, 20, "ood", seed=2):
        assert is_correct(problem.solution, problem.answer, problem.source)
        assert problem.solution.endswith(f"#### {problem.answer}")
        assert problem.id.startswith(task)


def test_arith_steps_are_left_to_right_and_bounded():
    import random

    prompt, completion, answer = make_arith(random.Random(7), 4)
    lines = completion.split("\n")
    assert len(lines) == 5 and lines[-1] == f"#### {answer}"
    for line in lines[:-1]:
        a, op, b, result = re.fullmatch(r"(\d+)([+\-*])(\d+)=(\d+)", line).groups()
        expected = {"+": int(a) + int(b), "-": int(a) - int(b), "*": int(a) * int(b)}[op]
        assert int(result) == expected and 0 <= expected <= 99


def test_shuffle_answer_follows_the_swaps():
    import random

    prompt, completion, answer = make_shuffle(random.Random(5), 4)
    start, *swaps, question = prompt[2:].split()
    row = list(start)
    for swap in swaps:
        i, j = int(swap[0]) - 1, int(swap[1]) - 1
        row[i], row[j] = row[j], row[i]
    assert row[int(question[1:]) - 1] == answer
    assert len(start) == SHUFFLE_LEVELS[4][0] and len(swaps) == SHUFFLE_LEVELS[4][1]


def test_split_is_a_function_of_the_prompt():
    assert split_of("Q:1+2\n", 1) == split_of("Q:1+2\n", 1)
    assert split_of("Q:1+2+3+4+5+6\n", 6) == "ood"


def test_stream_only_yields_training_prompts():
    pairs = stream("arith", seed=0)
    for _ in range(200):
        prompt, completion = next(pairs)
        level = completion.count("\n")
        assert split_of(prompt, level) == "train"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"task": "algebra", "n": 5}, "task='algebra' is unknown"),
        ({"task": "arith", "n": 5, "levels": [6]}, "level 6 is outside the train split's levels 1-5"),
        ({"task": "arith", "n": 5, "levels": [0]}, "level 0 is outside"),
        ({"task": "arith", "n": 400, "levels": [1, 1]}, "names level 1 twice; give each level once"),
        ({"task": "arith", "n": 5, "split": "ood", "levels": [3]}, "level 3 is outside the ood split"),
        ({"task": "arith", "n": 5, "split": "dev"}, "split='dev' is unknown"),
        ({"task": "arith", "n": 0}, "n=0 must be a positive integer"),
        ({"task": "shuffle", "n": 100_000, "levels": [1]}, "distinct shuffle level-1 train problems"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, message):
    with pytest.raises(CourseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        generate(**kwargs)


def test_wordy_solutions_fit_the_limit_at_levels_1_2_and_not_above():
    """The format-limited regime (tiny-m-wordy): under the tiny profile's limit, a long solution fits at levels 1-2
    and is cut off before its answer at levels 3-5, while the concise one always fits."""
    from course_lib.models import build_tokenizer
    from course_lib.research.profiles import get_profile

    tokenizer, limit = build_tokenizer(), get_profile("tiny").max_new_tokens
    for level in range(1, 6):
        solutions = [p.solution for p in generate("arith", 300, "train", 0, [level])]
        lengths = [len(tokenizer(wordy(s))["input_ids"]) + 1 for s in solutions]  # + 1: the eos token
        assert (max(lengths) <= limit) if level <= 2 else (min(lengths) > limit), level
        assert max(len(tokenizer(s)["input_ids"]) + 1 for s in solutions) <= limit
        assert all(arith_steps_are_right(wordy(s)) and wordy(s).endswith(s.split("\n")[-1]) for s in solutions)
    assert not arith_steps_are_right(wordy("7+5=13\n13*2=26\n#### 26"))


def test_a_wordy_share_changes_the_style_not_the_problems():
    plain, mixed = stream("arith", seed=3), stream("arith", seed=3, wordy_share=0.5)
    pairs = [(next(plain), next(mixed)) for _ in range(400)]
    assert all(a[0] == b[0] for a, b in pairs)
    long = sum(b[1].startswith(WORDY_OPENING) for _, b in pairs)
    assert 150 < long < 250 and all(b[1] in (a[1], wordy(a[1])) for a, b in pairs)
    shuffles = stream("shuffle", seed=3, wordy_share=1.0)
    assert not any(next(shuffles)[1].startswith(WORDY_OPENING) for _ in range(50))
