"""Torch's thread count: a share of the idle cores, the user's OMP_NUM_THREADS first (course_lib.classroom.runtime)."""

import os
import subprocess
import sys

import pytest
import torch

from course_lib.classroom.runtime import AUTO_THREADS, thread_count, use_threads, user_threads


@pytest.mark.parametrize(("cores", "load", "user", "workers", "expected"), [
    (2, 0.0, None, 1, 2),    # an idle 2-core machine: both cores
    (2, 0.9, None, 1, 2),    # a core not fully busy still counts as idle
    (2, 1.2, None, 1, 1),    # one core busy elsewhere: one thread, not two fighting over it
    (2, 4.5, None, 1, 1),    # overloaded: never fewer than one
    (2, 0.0, None, 2, 1),    # two sweep workers share two cores
    (2, 3.0, None, 2, 1),
    (64, 0.0, None, 1, 64),  # a large idle machine: every core
    (64, 16.2, None, 4, 12), # 48 idle cores shared by 4 workers
    (2, 0.0, 4, 1, 4),       # the user's setting wins, even above the cores
    (64, 60.0, 8, 4, 8),
])
def test_thread_count_is_a_share_of_the_idle_cores(cores, load, user, workers, expected):
    assert thread_count(cores, load, user, workers) == expected


def test_only_the_users_own_setting_counts_as_theirs():
    assert user_threads({}) is None
    assert user_threads({"OMP_NUM_THREADS": "3"}) == 3
    assert user_threads({"OMP_NUM_THREADS": "0"}) is None and user_threads({"OMP_NUM_THREADS": "many"}) is None
    assert user_threads({"OMP_NUM_THREADS": "\u00b2"}) is None  # a digit to str.isdigit, not to int()
    assert user_threads({"OMP_NUM_THREADS": "2", AUTO_THREADS: "2"}) is None  # course_lib's own choice


@pytest.fixture
def machine(monkeypatch):
    """A fake machine: set its cores and load; records what torch was told."""
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", AUTO_THREADS):
        monkeypatch.delenv(variable, raising=False)
    told = []
    monkeypatch.setattr(torch, "set_num_threads", told.append)

    def set_machine(cores, load):
        monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(cores)))
        monkeypatch.setattr("os.getloadavg", lambda: (load, load, load))
        return told
    return set_machine


def test_use_threads_sets_torch_and_the_children_environment(machine):
    told = machine(cores=4, load=1.5)
    assert use_threads() == 3 and told == [3]
    assert os.environ["OMP_NUM_THREADS"] == os.environ["MKL_NUM_THREADS"] == "3"


def test_a_kernel_keeps_its_parents_share_and_the_user_wins(machine, monkeypatch):
    told = machine(cores=8, load=0.0)
    assert use_threads(workers=4) == 2             # a sweep worker's share ...
    machine(cores=8, load=6.0)
    assert use_threads(inherit=True) == 2          # ... kept by the kernel it starts, whatever the load now
    assert use_threads() == 2                      # a fresh top-level choice: 8 - 6 busy = 2 idle
    monkeypatch.setenv("OMP_NUM_THREADS", "5")
    assert use_threads(inherit=True) == 5 and use_threads(workers=4) == 5
    assert told[-1] == 5 and os.environ["OMP_NUM_THREADS"] == "5"


def test_the_users_count_reaches_a_torch_imported_later(tmp_path):
    """The CLI no longer loads torch before choosing threads: a parent's MKL_NUM_THREADS=2 beside the user's
    OMP_NUM_THREADS=1 gave torch 2 threads (a pretrain's bytes depend on the count it records)."""
    code = ("import sys; from course_lib.classroom.runtime import use_threads; assert 'torch' not in sys.modules; "
            "use_threads(); import torch; print(torch.get_num_threads())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "2"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"
