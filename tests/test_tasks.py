"""Procedural tasks: determinism, splits, levels, answers, bad input."""

import re

import pytest

from course_lib import CourseError
from course_lib.answers import is_correct
from course_lib.tasks import OOD_LEVELS, SHUFFLE_LEVELS, TASKS, generate, make_arith, make_shuffle, split_of, stream


@pytest.mark.parametrize("task", TASKS)
def test_same_seed_same_problems(task):
    assert generate(task, 50, "train", seed=3) == generate(task, 50, "train", seed=3)
    assert generate(task, 50, "train", seed=3) != generate(task, 50, "train", seed=4)


@pytest.mark.parametrize("task", TASKS)
def test_no_prompt_in_two_splits(task):
    train = {p.prompt for p in generate(task, 400, "train", seed=0)}
    test = {p.prompt for p in generate(task, 400, "test", seed=0)}
    ood = {p.prompt for p in generate(task, 100, "ood", seed=0)}
    assert len(train) == 400 and len(test) == 400  # no duplicates inside a split either
    assert not train & test and not train & ood and not test & ood


@pytest.mark.parametrize("task", TASKS)
def test_levels_spread_evenly_and_ood_is_longer(task):
    problems = generate(task, 50, "train", seed=1)
    assert [sum(p.level == level for p in problems) for level in range(1, 6)] == [10] * 5
    ood = generate(task, 10, "ood", seed=1)
    assert {p.level for p in ood} == set(OOD_LEVELS)
    longest_train = max(len(p.solution) for p in problems)
    assert min(len(p.solution) for p in ood) > longest_train * 0.8


@pytest.mark.parametrize("task", TASKS)
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
        ({"task": "arith", "n": 5, "split": "ood", "levels": [3]}, "level 3 is outside the ood split"),
        ({"task": "arith", "n": 5, "split": "dev"}, "split='dev' is unknown"),
        ({"task": "arith", "n": 0}, "n=0 must be a positive integer"),
        ({"task": "shuffle", "n": 100_000, "levels": [1]}, "distinct shuffle level-1 train problems"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, message):
    with pytest.raises(CourseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        generate(**kwargs)
