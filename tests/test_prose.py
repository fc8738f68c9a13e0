"""Prose cannot contradict its numbers: a measured number is rendered from the computed values, never typed in.

Markdown cells of the numbered and appendix notebooks may state a decimal number or a percentage only when it is a
constant that no rerun can change (an arXiv id, a setting, a confidence level, a runtime header); every measured
number and verdict is printed by a code cell (`IPython.display.Markdown(f"...")`) from the values it computed.
"""

import re

import nbformat
import pytest

from course_lib.classroom.notebooks import NOTEBOOKS_DIR, appendix_notebooks, numbered_notebooks
from course_lib.grpo import dead_group_probability

# a decimal (0.684, .25, 1.3) or a percentage (11%, 1.4 %)
MEASURED_LOOKING = re.compile(r"\d*\.?\d+\s*%|\d*\.\d+")
ALWAYS_ALLOWED = [
    re.compile(r"arXiv[: ]\d{4}\.\d{4,5}"),  # paper ids
    re.compile(r"\(https?://[^)\s]+\)"),  # link targets (arXiv ids as links)
    re.compile(r"\d+(?:\.\d+)?\s*%\s*(?:Wilson\s*|bootstrap\s*)?(?:t-)?interval"),  # the confidence level of an interval
    re.compile(r"Qwen\d(?:\.\d)?|\b\d+(?:\.\d+)?B\b"),  # model names and sizes (Qwen2.5, 0.5B)
    re.compile(r"peak memory \d+(?:\.\d+)? GB"),  # runtime headers, measured by benchmarks/ and listed in the README
    re.compile(r"`tiny` \d+(?:\.\d+)? (?:s|min) on a 2-core CPU"),  # ditto; test_hygiene checks them against it
]
# per notebook: exact phrases that are constants, each with the reason it cannot go stale
ALLOWED = {
    "00_tiny_world_tour.ipynb": [
        "Temperature 1.0",  # the sampling setting
        "gives 0.5 for a correct",  # an exercise's reward value
        "temperature to 1.5 and to 0.3",  # an exercise's settings
    ],
    "01_difficulty_estimation.ipynb": [
        "p ± 1.96·sqrt(p(1-p)/K)",  # the Wald interval's formula (z of a 95% interval)
    ],
    "02_zero_variance_groups.ipynb": [
        "the true p may be 0.05 (and then 34% of its groups are alive)",  # arithmetic, checked below
        "p = 0.05",  # a value for the sliders
        "P(dead) below 0.5",  # an exercise's threshold
        "the hardest and the easiest 10%",  # an exercise's budget
    ],
    "03_budget_explorer.ipynb": [],
    "04_grpo_training.ipynb": [
        "`learning_rate=2e-3`",  # a setting the exercise asks the reader to try
    ],
    "04b_dead_groups_in_training.ipynb": [
        "the middle 95% of those means",  # how a 95% bootstrap interval is read off, a setting of `compare`
    ],
    "05_hard_examples_win.ipynb": [
        "10%",  # the paper's annotation budget, a setting of the study
        "scores 0.019 on GSM8K under a 250-token limit",  # Qwen3-4B in the authors' own files, not a course measurement
    ],
    "06_capacity_boundary.ipynb": [
        "~45% training steps",  # quoted from the paper's abstract
        "tiny-sm-math has 0.13M parameters, tiny-m-math 1.0M",  # the models' sizes, fixed by their shapes
        "t-test at 5% need to detect 0.03 with 80% power",  # an exercise's target: the studies' test and margin
        "its 90% upper bound",  # the bound the studies plan seeds with
    ],
    "07_when_hard_helps.ipynb": [
        "10%",  # the budget setting of the studies
        "`BUDGET` to 0.3",  # an exercise's setting
        "one 5% false-alarm rate",  # the tests' level (alpha), fixed in every study's README
        "(0.01 = 1 point)",  # the unit conversion: a fraction of problems in points of accuracy
    ],
    "A1_behind_the_findings.ipynb": [
        "10% arm",  # the budget setting of the headroom pilots
        "easy 10%",  # the budget setting of the strong-regime study
        "larger of 0.03",  # the seed plan's smallest difference, a rule fixed before the pilot
        "2.5 times as large",  # a setting of the larger-pool probe (2500 problems against 1000)
        "its 90% upper bound",  # the seed plan's settings: the sd's confidence bound and the power asked for
        "with 80% power",
        "a 5% chance of any false alarm",  # the family's level (alpha), fixed in the study's README
    ],
    "A2_real_pretrained_model.ipynb": [
        "134.5M-parameter",  # the model's size, a fact of the checkpoint (its manifest records it)
        "temperature 1.0",  # the sampling setting of the committed runs
        "0.5 for",  # the format reward's weight, a setting of the committed run
        "format_weight=0.5",
    ],
}


def unrendered_numbers(text: str, allowed) -> list[str]:
    """The measured-looking numbers left in `text` after removing allowed phrases."""
    for pattern in ALWAYS_ALLOWED:
        text = pattern.sub(" ", text)
    for phrase in allowed:
        text = text.replace(phrase, " ")
    return MEASURED_LOOKING.findall(text)


def test_unrendered_numbers_finds_the_old_contradictions():
    assert unrendered_numbers("shares of 0.684 for p = 0 and 0.467 for p = 1", []) == ["0.684", "0.467"]
    assert unrendered_numbers("solves about 1.4% of its samples but 11% within 8", []) == ["1.4%", "11%"]
    assert unrendered_numbers("an interval bound of +0.003", []) == ["0.003"]
    assert unrendered_numbers("Pikus et al. (arXiv 2508.14094), a 95% t-interval, p in (0, 1)", []) == []


def test_every_numbered_and_appendix_notebook_is_scanned():
    assert set(ALLOWED) == {p.name for p in numbered_notebooks() + appendix_notebooks()}


def test_the_allowed_arithmetic_in_02_holds():
    assert round(100 * (1 - dead_group_probability(0.05, 8))) == 34


def is_exercise_text(cell) -> bool:
    """A quiz or an exercise's worked answer: its numbers are a question's inputs or arithmetic, not measurements."""
    return "solution" in cell.metadata.get("tags", []) or cell.source.startswith(("## Quiz", "### Quiz"))


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_markdown_states_no_measured_number(name):
    notebook = nbformat.read(str(NOTEBOOKS_DIR / name), as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown" and not is_exercise_text(cell):
            found = unrendered_numbers(cell.source, ALLOWED[name])
            assert not found, (f"{name} markdown cell {index} states {found}: render measured numbers from the computed "
                               f"values (IPython.display.Markdown(f'...')), or allow-list a constant in tests/test_prose.py")


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_every_allowed_phrase_is_still_used(name):
    text = "\n".join(c.source for c in nbformat.read(str(NOTEBOOKS_DIR / name), as_version=4).cells if c.cell_type == "markdown")
    assert [p for p in ALLOWED[name] if p not in text] == [], "drop allow-list entries the notebook no longer needs"
