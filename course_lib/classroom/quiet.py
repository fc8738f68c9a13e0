"""Quiet libraries, at the source: transformers' deprecation warnings about names that TRL and PEFT still use, and
its "Loading weights" / "Writing model shards" bars for a model read from or written to a local folder.

Nothing else is silenced: other warnings, and the bars of hub downloads, still show.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

import warnings
from contextlib import contextmanager

# FutureWarnings transformers 5 raises when TRL 1.16 and PEFT 0.21 use its old names (not the course's own calls)
LIBRARY_DEPRECATIONS = (
    r"`gradient_checkpointing(_kwargs)?` is deprecated",  # TrainingArguments, set by TRL's GRPOConfig
    r"`gradient_checkpointing_(enable|disable)` is deprecated",  # PreTrainedModel, called by TRL's trainer
    r"`is_gradient_checkpointing` is deprecated",  # PreTrainedModel, read by TRL and PEFT
)


def filter_library_deprecations() -> None:
    """Ignore the FutureWarnings in LIBRARY_DEPRECATIONS when transformers raises them (idempotent)."""
    for message in LIBRARY_DEPRECATIONS:
        warnings.filterwarnings("ignore", message=message, category=FutureWarning, module=r"transformers\.")


@contextmanager
def no_weight_bars():
    """Within the block, transformers shows no progress bar (a local model loads or saves in a blink)."""
    from transformers.utils import logging as transformers_logging

    was_enabled = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            transformers_logging.enable_progress_bar()
