"""Notebook plumbing: seeding, device choice, and recording a notebook's key numbers.

Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import json
import random

RECORD_KEY = "course_record"  # output metadata key that marks a recorded-numbers output


def setup(seed: int = 0) -> str:
    """Seed python, numpy and torch; return the device to use ('cuda' or 'cpu')."""
    import numpy as np
    import torch
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # "Loading weights" bars are noise for the tiny models
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    return "cuda" if torch.cuda.is_available() else "cpu"


def record(**numbers) -> dict:
    """Show a notebook's key numbers and mark them so tests and sweeps can read them back."""
    from IPython.display import display

    clean = json.loads(json.dumps(numbers, default=float))
    display({"application/json": clean, "text/plain": json.dumps(clean, indent=1)}, raw=True,
            metadata={RECORD_KEY: True})
    return clean


def read_records(notebook_path) -> dict:
    """All numbers an executed notebook recorded with `record`, merged into one dict."""
    import nbformat

    notebook = nbformat.read(str(notebook_path), as_version=4)
    numbers = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get(RECORD_KEY):
                numbers.update(output["data"]["application/json"])
    return numbers
