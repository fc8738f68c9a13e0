"""The README's and docs' command-line examples, verbatim: every ```bash line that calls `python -m course_lib` or
`course-lib`; and the README as a landing page whose links, and the docs' links back, all lead somewhere.

Each line is taken from README.md and docs/*.md as written. The cheap ones of the README and of the two walkthrough
pages it links (docs/command_line.md, docs/real_data.md) are run with the environment activated (the venv's bin
first on PATH, as after `source .venv/bin/activate`) in a fresh folder, in page order (later ones read what earlier
ones wrote); the others are only parsed by the CLI's own parser (`build_parser().parse_args`), and their study and
profile names checked, because they take long or need a GPU or the hub.

Run:
- `generate --task arith --n 5 --levels 3`
- `course-lib generate ...` (the entry point the environment puts on PATH)
- `estimate --model tiny-m --task arith --n 500 --k 8 --seed 0 --out scratch/table.csv` (4,000 tiny-m samples)
- `select --table scratch/table.csv --strategy hard --budget 0.1 --seed 0 --out scratch/ids.txt` (reads that table)
- the stand-in pipeline: `standin`, `estimate ... --allow-zero`, `select`, `train --steps 2`, `evaluate` (seconds each)

Parsed only (and why):
- `reproduce ...` and `aggregate ...`: a whole study or slice (minutes to GPU-days)
- `pretrain --size tiny-s --steps 2000`: minutes of pretraining
- `calibrate --model tiny-m --n 500 --k 8`: the same sampling as `estimate`, writes nothing new to check
- `train ... --steps 100` and `evaluate --model scratch/runs/hard`: about two CPU minutes; `evaluate` reads train's run
- `notebooks --profile smoke --out build/smoke`: the whole smoke course (minutes; tests/test_notebooks.py runs it)
- every line with a hub model id (`Qwen/...`) or COURSE_DATA_DIR data: GPU and hub
- the `-m course_lib` part of `accelerate launch ...` and of `# or: python -m ...` comments

Lines that only call `make`, `bash .../make.sh`, `bash DIR/submit.sh` or `source`/`export` are not course_lib
commands; `make` is tested by CI itself (`.ci/run` runs `make test`) and tests/test_makefile.py.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from course_lib.__main__ import build_parser
from course_lib.research.profiles import PROFILES
from course_lib.research.studies import STUDIES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]  # the README and the pages it links, for the parse test
# the README and the walkthroughs moved out of it: their examples are run (RUN) and must write only where git ignores
WALKTHROUGHS = [README, ROOT / "docs" / "command_line.md", ROOT / "docs" / "real_data.md"]
README_LINES = 220  # a landing page: what the course is, requirements, quick start, course map, findings, links

# walkthrough line (exactly) -> the exit status it should end with when run here
RUN = {
    "python -m course_lib generate --task arith --n 5 --levels 3": 0,
    "course-lib generate --task arith --n 3 --levels 1,2": 0,
    "python -m course_lib estimate --model tiny-m --task arith --n 500 --k 8 --seed 0 --out scratch/table.csv": 0,
    "python -m course_lib select --table scratch/table.csv --strategy hard --budget 0.1 --seed 0 --out scratch/ids.txt": 0,
    "python -m course_lib standin --out scratch/standin": 0,
    "python -m course_lib estimate --model scratch/standin --task arith --n 60 --k 2 --max-new-tokens 16 --allow-zero "
    "--out scratch/standin-table.csv": 0,
    "python -m course_lib select --table scratch/standin-table.csv --strategy hard --budget 0.1 "
    "--out scratch/standin-ids.txt": 0,
    "python -m course_lib train --model scratch/standin --ids scratch/standin-ids.txt --settings 2508.14094 --steps 2 "
    "--max-new-tokens 16 --out scratch/runs/standin-hard": 0,
    "python -m course_lib evaluate --model scratch/runs/standin-hard --task arith --split test --n 20 --k 2 "
    "--max-new-tokens 16 --out scratch/standin-eval.json": 0,
}


def bash_lines(pages=(README,)) -> list[str]:
    """Every line of the pages' ```bash blocks, comments after `#` dropped (a `# or: python -m ...` kept apart)."""
    blocks = [block for page in pages
              for block in re.findall(r"^```bash\n(.*?)^```", page.read_text(), flags=re.S | re.M)]
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
    """The course_lib commands of the README and its walkthrough pages, in page order."""
    return [command(line) for line in bash_lines(WALKTHROUGHS)
            if command(line).startswith(("python -m course_lib", "course-lib"))]


def every_course_lib_call() -> list[str]:
    """Commands and comments alike, in the README and docs/: `accelerate launch ... -m course_lib ...`,
    `# or: python -m course_lib ...`."""
    calls = []
    for line in bash_lines(DOCS):
        for part in [command(line), *re.findall(r"#\s*(?:or:)?\s*(python -m course_lib .*)", line)]:
            if part and course_lib_args(part) is not None:
                calls.append(part)
    return calls


def test_the_readme_says_how_to_use_the_environment():
    text = README.read_text()
    assert "source .venv/bin/activate" in text and ".venv/bin/" in text and "course-lib" in text


def test_every_command_the_readme_runs_here_is_one_it_shows():
    shown = readme_commands()
    assert set(RUN) <= set(shown), f"RUN lists lines the walkthroughs no longer have: {set(RUN) - set(shown)}"
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
    scratch = tmp_path / "scratch"
    assert (scratch / "table.csv").exists() and (scratch / "ids.txt").read_text().strip()
    assert (scratch / "runs" / "standin-hard" / "summary.json").exists() and (scratch / "standin-eval.json").exists()


def test_the_readme_starts_a_newcomer_requirements_then_quick_start_with_make_lab():
    headings = re.findall(r"^## (.+)$", README.read_text(), flags=re.M)
    assert headings[:4] == ["Course map", "Requirements", "Quick start", "Exploring, and teaching with it"], headings
    quick = README.read_text().split("## Quick start")[1].split("\n## ")[0]
    for command in ("make env", "make lab", "make lab-instructor", "make course", "make test-fast", "make test"):
        assert command in quick, command
    assert "lab/student/" in quick and "never overwrites" in quick  # where the copies are, and that they are kept


def test_the_readme_is_a_landing_page_that_links_the_rest():
    text = README.read_text()
    assert len(text.splitlines()) <= README_LINES, f"README has {len(text.splitlines())} lines; move detail to docs/"
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name})" in text, f"the README does not link docs/{page.name}"
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert "What the course found: the claims scorecard" in headings and "Going further" in headings


def test_readme_and_docs_name_no_project_issue_and_no_placeholder():
    for page in [*DOCS, ROOT / "data" / "README.md"]:
        text = page.read_text()
        assert not re.search(r"\bissues? ?#\d+|\bthe issue\b", text, flags=re.I), page.name
        assert "OWNER/REPO" not in text, page.name


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a Markdown page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+?)\s*$", re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M), flags=re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_anchors_are_the_ones_github_makes():
    page = ROOT / "docs" / "command_line.md"
    assert {"the-course-from-the-command-line", "on-a-busy-or-a-larger-machine"} <= anchors(page)
    assert "quick-start" in anchors(README) and "exploring-and-teaching-with-it" in anchors(README)


def test_every_local_link_in_the_readme_and_docs_exists():
    for page in [*DOCS, ROOT / "data" / "README.md"]:
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path = (page.parent / target).resolve() if target else page
            assert path.exists(), f"{page.name} links {target}, which does not exist"
            if anchor and path.suffix == ".md":
                assert anchor in anchors(path), f"{page.name} links {target}#{anchor}: {path.name} has no such section"


def test_every_local_link_in_a_notebook_exists():
    """A notebook's Markdown links (to a study's README, the docs, another notebook) lead somewhere, anchors too."""
    import nbformat

    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        text = "".join(c.source for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "markdown")
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", text):
            if not target or target.startswith(("http://", "https://", "mailto:")):
                continue
            path = (notebook.parent / target).resolve()
            assert path.exists(), f"{notebook.name} links {target}, which does not exist"
            if anchor and path.suffix == ".md":
                assert anchor in anchors(path), f"{notebook.name} links {target}#{anchor}: no such section"


def test_a_section_the_docs_name_in_words_exists():
    """'the README's "Quick start"' in a page of docs/ names a heading the README has."""
    headings = set(re.findall(r"^#+ (.+?)\s*$", README.read_text(), flags=re.M))
    for page in DOCS[1:]:
        for name in re.findall(r"README's \"([^\"]+)\"", page.read_text()):
            assert name in headings, f"{page.name} names the README's {name!r}, which it does not have"
        for name in re.findall(r"README's ([A-Z][\w ]+?)(?: section\b|[.,;:)])", page.read_text()):
            assert name in headings, f"{page.name} names the README's {name!r}, which it does not have"


def test_readme_examples_write_only_into_git_ignored_folders():
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "scratch/" in ignored and "build/" in ignored
    for call in readme_commands():
        args = course_lib_args(call)
        for flag, value in zip(args, args[1:]):
            if flag == "--out":
                assert value.startswith(("scratch/", "build/", "DIR")), f"{call}: writes {value} into the checkout"


def test_the_readme_numbers_are_the_recorded_ones():
    """The peak memory in Requirements is the course map's largest; the command-line example's base accuracy is the
    committed evaluation's; its passes over the hard set follow from the example's own flags."""
    import json

    text = README.read_text()
    times = json.loads((ROOT / "benchmarks" / "results" / "notebook_times_tiny.json").read_text())["notebooks"]
    peak = max(n["peak_memory_mib"] for n in times.values()) / 1024
    assert f"the largest notebook peaks at {peak:.1f} GiB" in text
    example = (ROOT / "docs" / "command_line.md").read_text()
    base = json.loads((ROOT / "data" / "results" / "grpo-tiny-m" / "eval_base.json").read_text())["overall"]["accuracy"]
    assert f"base model's ({base} on the test split" in example
    train = next(c for c in readme_commands() if c.startswith("python -m course_lib train --model tiny-m"))
    steps = int(train.split("--steps ")[1].split()[0])
    hard_set = int(500 * 0.1)  # the estimate line's --n 500, select's --budget 0.1
    assert "--n 500" in example and "--budget 0.1" in example
    assert f"100 steps of 8 prompts go\nover the same {hard_set} problems {steps * 8 // hard_set} times" in example
