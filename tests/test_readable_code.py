"""Code a student reads fits on a screen: no line of a visible code cell is over 100 characters in the notebooks
checked here (cells whose source is collapsed, `source_hidden`, are plumbing, not read)."""

import json

import pytest

from course_lib.notebooks import NOTEBOOKS_DIR

LIMIT = 100
CHECKED = sorted(NOTEBOOKS_DIR.glob("0[0-3]_*.ipynb")) + [NOTEBOOKS_DIR.parent / "apps" / "budget_explorer.ipynb"]


def long_lines(notebook: dict, limit: int = LIMIT) -> list[tuple[int, str]]:
    """(cell index, line) of every line over `limit` characters in a visible code cell."""
    return [(index, line) for index, cell in enumerate(notebook["cells"])
            if cell["cell_type"] == "code" and not cell["metadata"].get("jupyter", {}).get("source_hidden")
            for line in "".join(cell["source"]).split("\n") if len(line) > limit]


def test_long_lines_skips_collapsed_cells_and_markdown():
    line = "x = " + "1" * 100
    cells = [{"cell_type": "code", "metadata": {}, "source": [line]},
             {"cell_type": "code", "metadata": {"jupyter": {"source_hidden": True}}, "source": [line]},
             {"cell_type": "markdown", "metadata": {}, "source": [line]},
             {"cell_type": "code", "metadata": {}, "source": ["y = 1\n", "z = 2"]}]
    assert long_lines({"cells": cells}) == [(0, line)]


def test_the_checked_notebooks_exist():
    assert [p.name[:2] for p in CHECKED] == ["00", "01", "02", "03", "bu"] and all(p.exists() for p in CHECKED)


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.stem)
def test_no_visible_code_line_is_over_100_characters(path):
    found = long_lines(json.loads(path.read_text(encoding="utf-8")))
    assert not found, f"{path.name}: lines over {LIMIT} characters: {found}"
