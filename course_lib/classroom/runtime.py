"""Notebook plumbing: seeding, device choice, and recording a notebook's key numbers.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import ast
import json
import os
import random
import sys
import warnings

from ..errors import check

RECORD_KEY = "course_record"  # output metadata key that marks a recorded-numbers output
AUTO_THREADS = "COURSE_AUTO_THREADS"  # the OMP_NUM_THREADS value course_lib chose itself (not the user's)
CHARTS_VARIABLE = "COURSE_CHARTS"  # "live" (the default) or "svg"; `notebooks.execute` sets "svg" for its kernels


def progress_bar(*args, **kwargs):
    """tqdm's progress bar (a widget in a live notebook, text elsewhere); none in a notebook executed headlessly
    (`make course`): nobody watches it there, and its saved widget would read 0% for good."""
    from tqdm.auto import tqdm

    if os.environ.get(CHARTS_VARIABLE) == "svg":
        kwargs["disable"] = True
    return tqdm(*args, **kwargs)


def thread_count(cores: int, load: float, user: int | None = None, workers: int = 1) -> int:
    """Torch threads per process: the user's own setting if any, else an equal share of the idle cores.

    `cores`: the cores this process may run on; `load`: the 1-minute load average (a fully busy core counts 1);
    `workers`: processes sharing them. Oversubscribed threads spin on busy cores: one training step took 43.6 s
    instead of 0.3 s with two threads on two busy cores, so busy cores are left alone, down to one thread.

    >>> thread_count(2, 0.1), thread_count(2, 1.2), thread_count(2, 3.5), thread_count(16, 0.0, workers=4)
    (2, 1, 1, 4)
    >>> thread_count(8, 0.0, user=3)
    3
    """
    if user:
        return user
    idle = max(1, cores - int(load))
    return max(1, idle // max(1, workers))


def user_threads(environ=os.environ) -> int | None:
    """OMP_NUM_THREADS when the user (not course_lib) set it to a positive integer, else None."""
    value = environ.get("OMP_NUM_THREADS", "").strip()
    if not (value.isascii() and value.isdigit()) or int(value) < 1 or value == environ.get(AUTO_THREADS):
        return None
    return int(value)


def available_cores() -> int:
    """The cores this process may run on (its affinity mask, e.g. under taskset or SLURM), else os.cpu_count()."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def use_threads(workers: int = 1, inherit: bool = False) -> int:
    """Set torch's intra-op threads (and OMP/MKL_NUM_THREADS for child processes) from the idle cores.

    The user's OMP_NUM_THREADS always wins. `inherit`: keep a count a parent course_lib process already chose
    (a notebook kernel started by `notebooks` or by a sweep worker keeps its share). Returns the count.
    """
    user = user_threads()
    if user is not None:
        threads = user
        os.environ["MKL_NUM_THREADS"] = str(threads)  # torch imported later reads MKL's count too: the user's wins
    elif inherit and os.environ.get(AUTO_THREADS, "").isdigit() and \
            os.environ.get(AUTO_THREADS) == os.environ.get("OMP_NUM_THREADS"):
        threads = int(os.environ[AUTO_THREADS])
    else:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = 0.0
        threads = thread_count(available_cores(), load, None, workers)
        for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", AUTO_THREADS):
            os.environ[variable] = str(threads)
    if "torch" in sys.modules:  # already imported: OMP_NUM_THREADS is read only at import
        sys.modules["torch"].set_num_threads(threads)
    return threads


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
    """Check the notebook's parameters; pick torch's threads; seed python, numpy and torch; return the device (A1)."""
    import numpy as np
    import torch
    from transformers.utils import logging as transformers_logging

    check_parameters()
    use_threads(inherit=True)  # the idle cores' worth of torch threads (or the user's OMP_NUM_THREADS)
    transformers_logging.disable_progress_bar()  # "Loading weights" bars are noise for the tiny models

    for noisy in (FutureWarning, DeprecationWarning):  # the libraries' deprecation notices are not the lesson
        warnings.filterwarnings("ignore", category=noisy)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return "cuda" if torch.cuda.is_available() else "cpu"


RECORD_MIME = "application/vnd.course-record+json"  # no frontend renders it: students see nothing


def record(**numbers) -> None:
    """Record a notebook's key numbers for tests and sweeps, in the output's data, not shown to a reader (00)."""
    from IPython.display import display

    clean = json.loads(json.dumps(numbers, default=float))
    display({RECORD_MIME: clean, "text/plain": ""},
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
