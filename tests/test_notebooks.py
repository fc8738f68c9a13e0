"""Every numbered notebook executes under papermill in the `smoke` profile; its recorded numbers are checked."""

import pytest

from course_lib.notebooks import execute, numbered_notebooks
from course_lib.runtime import read_records

NOTEBOOKS = numbered_notebooks()


def check_00(numbers):
    assert numbers["profile"] == "smoke" and numbers["k"] >= 2
    rates = numbers["live_mean_pass_rate"]
    assert set(rates) == {"tiny-s", "tiny-m", "tiny-l"}
    assert all(0.0 <= r <= 1.0 for r in rates.values())
    assert rates["tiny-l"] >= rates["tiny-s"]  # bigger model, more competent, even on a handful of problems
    assert 0.0 <= numbers["sample_group_reward_mean"] <= 1.0


CHECKS = {"00": check_00}


def test_every_notebook_has_a_check():
    assert {nb.name[:2] for nb in NOTEBOOKS} <= set(CHECKS), "add a check of its recorded numbers"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_in_smoke_profile(notebook, tmp_path):
    result = execute(notebook, tmp_path, {"PROFILE": "smoke"})
    numbers = read_records(tmp_path / notebook.name)
    assert numbers == result["records"] and numbers, "the notebook must record its key numbers"
    CHECKS[notebook.name[:2]](numbers)
