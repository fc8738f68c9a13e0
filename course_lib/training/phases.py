"""Each phase of a grid point (estimation, training, evaluation) in its own process when it starts a vLLM engine.

vLLM refuses to start when less than its share of the GPU is free, and an engine deleted inside a process does
not reliably give its memory back. A process that has exited has given all of it back: so on the vLLM backend
every phase runs in a fresh child process and returns its (picklable) result. The hf backend runs in place
(no start-up cost, the tiny profile's speed unchanged). Introduced in notebooks/05_hard_examples_win.ipynb.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


def in_phase(function, *args, isolated: bool = False, **kwargs):
    """`function(*args, **kwargs)`, in a fresh child process when `isolated` (its GPU memory is free afterwards)."""
    if not isolated:
        return function(*args, **kwargs)
    # spawn, not fork: a forked child would share the parent's CUDA state, which CUDA does not allow
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as child:
        return child.submit(function, *args, **kwargs).result()  # the child's exception is raised here
