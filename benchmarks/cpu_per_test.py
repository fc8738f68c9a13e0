"""A pytest plugin that writes each test's CPU seconds (this process and the children it waited for) and wall seconds.

Used by suite_times.py --per-test: `pytest -p cpu_per_test` with this folder on PYTHONPATH and CPU_PER_TEST_OUT naming
the file (one line per test: CPU seconds, wall seconds, test id, tab-separated). CPU seconds rank the tests the same
on a busy machine as on an idle one; a session fixture's cost lands on the first test that uses it.
"""

import os
import resource
import time

import pytest


def cpu_seconds() -> float:
    """User + system seconds of this process and of the children it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = cpu_seconds(), time.perf_counter()
    yield
    with open(os.environ["CPU_PER_TEST_OUT"], "a") as out:
        out.write(f"{cpu_seconds() - cpu:.2f}\t{time.perf_counter() - wall:.2f}\t{item.nodeid}\n")
