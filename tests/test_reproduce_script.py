"""data/results/reproduce.sh: a study that spans sittings resumes from its committed point records."""

import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "data" / "results" / "reproduce.sh"
# a stand-in for the sweep: it lists the point records it found, then "finishes" the missing point
FAKE_SWEEP = """#!/usr/bin/env bash
out=${@: -1}
before=$(ls -A "$out" 2>/dev/null | tr '\\n' ' ')
mkdir -p "$out/points"
ls "$out/points" > "$out/seen.txt"
echo "$before" > "$out/before.txt"
echo '{"status": "ok"}' > "$out/points/b.json"
for f in results.csv provenance.json grid.json; do echo x > "$out/$f"; done
"""


def project(tmp_path):
    (tmp_path / "data" / "results").mkdir(parents=True)
    shutil.copy(SCRIPT, tmp_path / "data" / "results" / "reproduce.sh")
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE_SWEEP)
    fake.chmod(0o755)
    return fake


def run(tmp_path, fake, **env):
    return subprocess.run(["bash", "data/results/reproduce.sh", "study"], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PY": str(fake), **env}, check=True)


def test_committed_points_seed_the_run_and_collect_only_copies_finished_points(tmp_path):
    fake = project(tmp_path)
    committed, build = tmp_path / "data/results/study/points", tmp_path / "build/studies/study/points"
    committed.mkdir(parents=True)
    (committed.parent / "grid.json").write_text('{"study": "study"}')  # collected with its records
    (committed / "a.json").write_text('{"status": "ok"}')
    (committed / "z.failed.json").write_text('{"status": "failed"}')  # a failure is run again, not seeded
    run(tmp_path, fake)
    assert (tmp_path / "build/studies/study/seen.txt").read_text().split() == ["a.json"]
    assert (tmp_path / "build/studies/study/before.txt").read_text().split() == ["grid.json", "points"]  # grid first
    assert sorted(p.name for p in committed.iterdir()) == ["a.json", "b.json"]  # the finished study's records
    (build / "c.json").write_text('{"status": "ok"}')  # finished while a later sweep runs elsewhere
    (build / "d.failed.json").write_text("{}")
    result = run(tmp_path, fake, COLLECT_ONLY="1")
    assert sorted(p.name for p in committed.iterdir()) == ["a.json", "b.json", "c.json"]
    assert "3 finished point records" in result.stdout


def test_a_first_run_finds_its_folder_empty(tmp_path):
    """Nothing committed yet: the sweep is given no folder of records without a grid (it would refuse it)."""
    fake = project(tmp_path)
    run(tmp_path, fake)
    assert (tmp_path / "build/studies/study/before.txt").read_text().split() == []
    assert sorted(p.name for p in (tmp_path / "data/results/study/points").iterdir()) == ["b.json"]
