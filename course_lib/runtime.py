"""Notebook plumbing: seeding, device choice, and recording a notebook's key numbers.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import ast
import json
import random

from .errors import check

RECORD_KEY = "course_record"  # output metadata key that marks a recorded-numbers output


def parameter_errors(declared: dict, given: dict) -> list[str]:
    """What is wrong with `given` parameter values against a notebook's `declared` defaults (names and types)."""
    errors = [f"parameter {name} is not declared by this notebook; its parameters are {', '.join(declared)}"
              for name in given if name not in declared]
    for name, value in given.items():
        default = declared.get(name)
        if name not in declared or default is None or isinstance(value, type(default)) and \
                not (isinstance(value, bool) and not isinstance(default, bool)):
            continue
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            continue  # an int where a float is expected is fine (BUDGET = 10 is a count)
        kind = {"int": "an integer", "float": "a number", "str": "a string", "bool": "True or False"}.get(
            type(default).__name__, f"a {type(default).__name__}")
        errors.append(f"parameter {name}={value!r} must be {kind} like its default {default!r}")
    return errors


def literal_assignments(source: str) -> dict:
    """NAME -> value of every `NAME = literal` line of a cell (a parameters cell, or papermill's injected one)."""
    values = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:  # not a literal: papermill passes only literals
                values[node.targets[0].id] = None
    return values


def check_parameters() -> None:
    """Refuse what papermill lets through: a parameter the notebook does not declare, or a value of the wrong type.

    Reads the kernel's cell history: the parameters cell, then papermill's injected `# Parameters` cell.
    """
    from IPython import get_ipython

    shell = get_ipython()
    history = [cell for cell in (shell.user_ns.get("In", []) if shell else []) if cell.strip()]
    injected = next((i for i, cell in enumerate(history) if cell.startswith("# Parameters\n")), None)
    if not history or injected == 0:
        return
    declared = literal_assignments(history[injected - 1] if injected else history[0])
    given = literal_assignments(history[injected]) if injected else {}
    current = {name: shell.user_ns.get(name) for name in declared}
    errors = parameter_errors(declared, {**current, **given})
    check(not errors, "; ".join(errors))


def setup(seed: int = 0) -> str:
    """Check the notebook's parameters; seed python, numpy and torch; return the device ('cuda' or 'cpu')."""
    import numpy as np
    import torch
    from transformers.utils import logging as transformers_logging

    check_parameters()
    transformers_logging.disable_progress_bar()  # "Loading weights" bars are noise for the tiny models
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return "cuda" if torch.cuda.is_available() else "cpu"


RECORD_MIME = "application/vnd.course-record+json"  # no frontend renders it: students see the one-line note


def record(**numbers) -> None:
    """Record a notebook's key numbers for tests and sweeps (shown to a reader as one short line, not the JSON)."""
    from IPython.display import display

    clean = json.loads(json.dumps(numbers, default=float))
    display({RECORD_MIME: clean, "text/plain": f"({len(clean)} key numbers recorded for the tests and sweeps)"},
            raw=True, metadata={RECORD_KEY: True})


def read_records(notebook_path) -> dict:
    """All numbers an executed notebook recorded with `record`, merged into one dict."""
    import nbformat

    notebook = nbformat.read(str(notebook_path), as_version=4)
    numbers = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get(RECORD_KEY):
                data = output["data"]
                numbers.update(data.get(RECORD_MIME) or data.get("application/json", {}))
    return numbers
