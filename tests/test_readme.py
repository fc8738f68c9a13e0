"""The README's command-line examples, verbatim: every ```bash line that calls `python -m course_lib` or `course-lib`.

Each line is taken from README.md as written. The cheap ones are run with the environment activated (the venv's
bin first on PATH, as after `source .venv/bin/activate`) in a fresh folder, in README order (later ones read what
earlier ones wrote); the others are only parsed by the CLI's own parser (`build_parser().parse_args`), and their
study and profile names checked, because they take long or need a GPU or the hub.

Run:
- `generate --task arith --n 5 --levels 3`
- `course-lib generate ...` (the entry point the environment puts on PATH)
- `estimate --model tiny-m --task arith --n 500 --k 8 --seed 0 --out table.csv` (4,000 tiny-m samples)
- `select --table table.csv --strategy hard --budget 0.1 --seed 0 --out ids.txt` (reads that table)
- `reproduce hard-wins --profile paper --emit-slurm --out DIR` (writes job scripts, trains nothing)
- `aggregate hard-wins --profile paper --out DIR` (right after emit: exit status 1, every point missing)

Parsed only (and why):
- `reproduce ... --profile tiny/paper` without --emit-slurm: a whole study or slice (minutes to GPU-days)
- `pretrain --size tiny-s --steps 2000`: minutes of pretraining
- `calibrate --model tiny-m --n 500 --k 8`: the same sampling as `estimate`, writes nothing new to check
- `train ... --steps 100` and `evaluate --model runs/hard`: about two CPU minutes; `evaluate` reads train's run
- `notebooks --profile smoke --out build/smoke`: the whole smoke course (minutes; tests/test_notebooks.py runs it)
- every line with a hub model id (`Qwen/...`), `--settings 2508.14094` or COURSE_DATA_DIR data: GPU and hub
- the `-m course_lib` part of `accelerate launch ...` and of `# or: python -m ...` comments

Lines that only call `make`, `bash .../make.sh`, `bash DIR/submit.sh` or `source`/`export` are not course_lib
commands; `make` is tested by CI itself (`.ci/run` runs `make test`).
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.__main__ import build_parser
from course_lib.profiles import PROFILES
from course_lib.studies import STUDIES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

# README line (exactly) -> the exit status it should end with when run here
RUN = {
    "python -m course_lib generate --task arith --n 5 --levels 3": 0,
    "course-lib generate --task arith --n 3 --levels 1,2": 0,
    "python -m course_lib estimate --model tiny-m --task arith --n 500 --k 8 --seed 0 --out table.csv": 0,
    "python -m course_lib select --table table.csv --strategy hard --budget 0.1 --seed 0 --out ids.txt": 0,
    "python -m course_lib reproduce hard-wins --profile paper --emit-slurm --out DIR": 0,
    "python -m course_lib aggregate hard-wins --profile paper --out DIR": 1,  # no job has run: all points missing
}


def bash_lines() -> list[str]:
    """Every line of the README's ```bash blocks, comments after `#` dropped (a `# or: python -m ...` kept apart)."""
    blocks = re.findall(r"^```bash\n(.*?)^```", README.read_text(), flags=re.S | re.M)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def command(line: str) -> str:
    """The command of a README line without its trailing comment."""
    return line.split("  #")[0].split(" # ")[0].strip() if not line.startswith("#") else ""


def course_lib_args(text: str) -> list[str] | None:
    """The arguments after `-m course_lib` or `course-lib` in `text`, or None when it calls neither."""
    words = shlex.split(text, comments=False)
    for i, word in enumerate(words):
        if word == "course-lib" and i == 0:
            return words[1:]
        if word == "-m" and i + 1 < len(words) and words[i + 1] == "course_lib":
            return words[i + 2:]
    return None


def readme_commands() -> list[str]:
    return [command(line) for line in bash_lines()
            if command(line).startswith(("python -m course_lib", "course-lib"))]


def every_course_lib_call() -> list[str]:
    """Commands and comments alike: `accelerate launch ... -m course_lib ...`, `# or: python -m course_lib ...`."""
    calls = []
    for line in bash_lines():
        for part in [command(line), *re.findall(r"#\s*(?:or:)?\s*(python -m course_lib .*)", line)]:
            if part and course_lib_args(part) is not None:
                calls.append(part)
    return calls


def test_the_readme_says_how_to_use_the_environment():
    text = README.read_text()
    assert "source .venv/bin/activate" in text and ".venv/bin/" in text and "course-lib" in text


def test_every_command_the_readme_runs_here_is_one_it_shows():
    shown = readme_commands()
    assert set(RUN) <= set(shown), f"RUN lists lines the README no longer has: {set(RUN) - set(shown)}"
    assert len(shown) >= 10


@pytest.mark.parametrize("call", every_course_lib_call())
def test_readme_command_parses(call):
    if "--help" in course_lib_args(call):
        with pytest.raises(SystemExit) as exit_:
            build_parser().parse_args(course_lib_args(call))
        assert exit_.value.code == 0
        return
    args = build_parser().parse_args(course_lib_args(call))
    if args.command in ("reproduce", "aggregate", "sweep-point"):
        assert args.study in STUDIES, f"{call}: no study {args.study!r}"
    if hasattr(args, "profile"):
        assert args.profile in PROFILES, f"{call}: no profile {args.profile!r}"


@pytest.mark.slow
def test_readme_commands_run_verbatim_with_the_environment_activated(tmp_path):
    bin_dir = Path(sys.executable).parent  # the venv's bin, as `source .venv/bin/activate` puts it first
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "VIRTUAL_ENV": str(bin_dir.parent),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    assert (bin_dir / "course-lib").exists(), "the environment lacks the course-lib entry point (pip install -e .)"
    for line in [c for c in readme_commands() if c in RUN]:
        result = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == RUN[line], f"{line}\nexit {result.returncode}\n{result.stderr[-2000:]}"
    assert (tmp_path / "table.csv").exists() and (tmp_path / "ids.txt").read_text().strip()
    assert (tmp_path / "DIR" / "submit.sh").exists()
