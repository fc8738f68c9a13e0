"""The notebooks as a class opens them: copies in a git-ignored folder, never the tracked notebooks themselves.

`make lab` runs `python -m course_lib.classroom.copies student lab/student` and opens JupyterLab there; `make
lab-instructor` does the same with `instructor lab/instructor`. A student's copy has no cell tagged `solution`
(every exercise's solution and the quiz answers) and each self-checking quiz cell calls `quiz_packed` on the question
packed into one opaque string (so no answer is on screen; the cell also starts collapsed); an instructor's copy is
the notebook as it is. A copy that exists is someone's work: it
is never overwritten, and a newer version of the course's notebook is only announced. Introduced in README.md
(`make lab`).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import textwrap
from pathlib import Path

from ..errors import CourseError, check
from ..paths import NOTEBOOKS_DIR
from ..provenance import atomic_write_text, text_sha256
from .notebooks import appendix_notebooks, numbered_notebooks

KINDS = ("student", "instructor")
SOLUTION_TAG = "solution"  # exercises' solutions and the quiz answers (markdown "### Quiz answers")
COPY_KEY = "course_copy"  # notebook metadata: which course notebook a copy came from, and that notebook's hash


def lessons() -> list[Path]:
    """The notebooks a class opens: the numbered ones, then the appendix (not the sweep's template)."""
    return numbered_notebooks() + appendix_notebooks()


def is_solution_cell(cell) -> bool:
    """Whether a cell is tagged `solution`, however the tag was typed: any case, spaces around it, `solutions`, or
    under metadata.jupyter.tags (a string tag is one tag, not a list of letters)."""
    metadata = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    jupyter = metadata.get("jupyter", {}) if isinstance(metadata.get("jupyter"), dict) else {}
    tags = []
    for found in (metadata.get("tags", []), jupyter.get("tags", [])):
        tags += [found] if isinstance(found, str) else list(found) if isinstance(found, list) else []
    return any(isinstance(tag, str) and tag.strip().lower() in (SOLUTION_TAG, SOLUTION_TAG + "s") for tag in tags)


def is_quiz_cell(cell) -> bool:
    """A code cell that draws a self-checking quiz question (`quiz`, or `quiz_packed` in a student's copy)."""
    source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
    return cell["cell_type"] == "code" and ("quiz(" in source or "quiz_packed(" in source)


def packed_quiz_source(source: str, where: str = "") -> str:
    """A quiz cell as a student's copy holds it: the same question, its options and answers packed out of sight.
    The course's quiz cells call `quiz(question, options)` on literal text (read with `ast.literal_eval`, never run)."""
    from .widgets import pack_quiz

    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)
             and getattr(node.func, "id", None) == "quiz"]
    check(len(calls) == 1 and len(calls[0].args) == 2 and not calls[0].keywords,
          f"{where or 'a notebook'}: a quiz cell must call quiz(question, options) once, on literal text")
    try:
        question, options = (ast.literal_eval(argument) for argument in calls[0].args)
    except ValueError:
        check(False, f"{where or 'a notebook'}: a quiz cell's question and options must be literal text (no names)")
    packed = "\n".join(f'    "{line}"' for line in textwrap.wrap(pack_quiz(question, options), 88))
    return ("# A question that checks itself: pick an option to see why it is right or wrong\n"
            "# (the answers are packed below so that none is on screen)\n"
            f"from course_lib import quiz_packed, show\n\nshow(quiz_packed(\n{packed}\n))")


# what `nbstripout` strips besides outputs and execution counts (its default extra keys)
STRIPPED_METADATA = ("signature", "widgets")
STRIPPED_CELL_METADATA = ("collapsed", "scrolled", "ExecuteTime", "execution", "heading_collapsed", "hidden")


def classroom_copy(text: str, kind: str, source_name: str = "", root_link: str = "..") -> str:
    """The notebook `text` (a .ipynb's JSON) as `kind` opens it, stripped as nbstripout strips it: for a student
    without the cells tagged `solution` and with each quiz cell's source collapsed; for an instructor whole. The
    copy's metadata names the course notebook and its hash, so a later `make lab` can tell when it changed.
    `root_link`: the repository root as a link from the copy's folder; markdown links to `../` (the root, from
    notebooks/) are rewritten to it, so A1's links to the study READMEs open from lab/student/ too. Code's own
    outputs (`"../build/runs/04"`) go to a folder of their kind (`"../build/student/runs/04"`), so a student's and
    an instructor's copies opened side by side never train into one run folder."""
    check(kind in KINDS, f"kind={kind!r} is unknown; use one of {', '.join(KINDS)}")
    notebook = json.loads(text)
    if kind == "student":
        notebook["cells"] = [c for c in notebook["cells"] if not is_solution_cell(c)]
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            cell.update(outputs=[], execution_count=None)
        for key in STRIPPED_CELL_METADATA:
            cell.get("metadata", {}).pop(key, None)
        if "id" in cell:
            cell["id"] = str(index)  # as nbstripout numbers them
        if cell["cell_type"] == "code":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            cell["source"] = source.replace('"../build/', f'"../build/{kind}/')
        if cell["cell_type"] == "markdown" and root_link != "..":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            cell["source"] = source.replace("](../", f"]({root_link}/")
        if kind == "student" and is_quiz_cell(cell):
            cell["source"] = packed_quiz_source(cell["source"] if isinstance(cell["source"], str)
                                                else "".join(cell["source"]), source_name)
            cell.setdefault("metadata", {}).setdefault("jupyter", {})["source_hidden"] = True
    for key in STRIPPED_METADATA:
        notebook["metadata"].pop(key, None)
    notebook["metadata"][COPY_KEY] = {"of": source_name, "sha256": text_sha256(text)}
    return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


def copied_from_sha(path: Path) -> str | None:
    """The hash of the course notebook a copy was made from (None for a copy without one, or not a notebook)."""
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get(COPY_KEY, {}).get("sha256")
    except (ValueError, OSError, AttributeError):
        return None


def is_readable_notebook(path: Path) -> bool:
    """Whether a file is a notebook Jupyter can open (JSON with a list of cells)."""
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8")).get("cells"), list)
    except (ValueError, OSError, AttributeError):
        return False


def holds_solutions(path: Path) -> bool:
    """Whether a notebook holds cells tagged `solution` (an instructor's copy, or the course notebook itself)."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
        return any(is_solution_cell(cell) for cell in cells)
    except (ValueError, OSError, AttributeError):
        return False


def make_copies(folder, kind: str, notebooks: list[Path] | None = None) -> dict[str, list[str]]:
    """Copy each course notebook missing from `folder` as `kind` opens it; keep every copy already there.

    Returns {"new": names copied now, "kept": names kept as they were, "changed": kept names whose course
    notebook changed since the copy was made, "unreadable": kept names that are no notebook Jupyter can open,
    "with_solutions": kept names that hold solutions in a folder of student copies}."""
    check(kind in KINDS, f"kind={kind!r} is unknown; use one of {', '.join(KINDS)}")
    folder = Path(folder)
    inside = [own for own in (NOTEBOOKS_DIR, Path(__file__).resolve().parent.parent)
              if folder.resolve() == own.resolve() or own.resolve() in folder.resolve().parents]
    check(not inside, f"folder={folder} is inside the course's own {inside[0].name if inside else ''}/: copies go to "
                      "a folder of their own (a git-ignored one, e.g. lab/student)")
    file = next((path for path in (folder, *folder.parents) if path.exists() and not path.is_dir()), None)
    where = "is a file" if file == folder else f"is inside {file}, a file"
    check(file is None, f"folder={folder} {where}, not a folder: give the folder the copies go to (a new or a "
                        "git-ignored one, e.g. lab/student)")
    folder.mkdir(parents=True, exist_ok=True)
    done = {"new": [], "kept": [], "changed": [], "unreadable": [], "with_solutions": []}
    for source in lessons() if notebooks is None else notebooks:
        target = folder / source.name
        text = source.read_text(encoding="utf-8")
        if target.exists():
            done["kept"].append(target.name)
            if not is_readable_notebook(target):
                done["unreadable"].append(target.name)
            elif copied_from_sha(target) not in (None, text_sha256(text)):
                done["changed"].append(target.name)
            if kind == "student" and holds_solutions(target):
                done["with_solutions"].append(target.name)
            continue
        root_link = Path(os.path.relpath(source.parent.parent, folder.resolve())).as_posix()  # the repository root
        atomic_write_text(target, classroom_copy(text, kind, f"notebooks/{source.name}", root_link))
        done["new"].append(target.name)
    return done


def report(folder, kind: str, done: dict[str, list[str]]) -> str:
    """What `make lab` says about the copies: how many are new, that existing ones were kept, how to start afresh."""
    what = "without solutions or quiz answers" if kind == "student" else "with solutions and quiz answers"
    if done.get("with_solutions"):
        what = f"without solutions, except {len(done['with_solutions'])} kept below that hold them"
    lines = [f"{folder}/: your copies of the course's notebooks ({what})."]
    if done["new"]:
        lines.append(f"  copied {len(done['new'])}: {', '.join(done['new'])}")
    if done["kept"]:
        lines.append(f"  kept {len(done['kept'])} you already had, as they are (your work is never overwritten).")
    for name in done.get("unreadable", []):
        lines.append(f"  {name} is not a notebook Jupyter can open (damaged?): rename or delete it for a fresh copy.")
    for name in done.get("with_solutions", []):
        lines.append(f"  {name} holds solutions (an instructor's copy): delete or rename it for a student copy.")
    for name in done["changed"]:
        lines.append(f"  notebooks/{name} has changed since your copy was made: rename your copy to get the new one.")
    if done["kept"]:
        lines.append(f"  For a fresh copy of a notebook, rename or delete yours in {folder}/ and run this again.")
    return "\n".join(lines)


NOTICE = "00_course_changed.md"  # beside the copies, first in the file browser: the lab's log scrolls past a print
NOTICE_HEAD = "# Some of your copies need a look\n\n"
NOTICE_TAIL = ("\n\nYour copies are never overwritten. This note goes away once none needs a look (the next "
               "`make lab` checks again).\n")


def _signed(text: str) -> str:
    """The note's text with a hidden mark of exactly what the lab wrote (an HTML comment Markdown does not show)."""
    return f"{text}<!-- written by make lab: {text_sha256(text)[:16]} -->\n"


def is_our_notice(path: Path) -> bool:
    """Whether the file at `path` is a note `write_notice` wrote, unchanged (its hidden mark matches its text): a
    student's own file of that name, or the note with a line of theirs added anywhere, is never removed or written
    over."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    body = text.rpartition("<!-- written by make lab: ")[0]
    return text.startswith(NOTICE_HEAD) and body.endswith(NOTICE_TAIL) and _signed(body) == text


def write_notice(folder, kind: str, done: dict[str, list[str]]) -> Path | None:
    """A note in the copies' folder naming the copies that need a look (the course changed since, damaged, or
    holding solutions) and what to do; removed when none does. A file of that name the lab did not write is left
    as it is. Returns the note's path, or None."""
    notice = Path(folder) / NOTICE
    if notice.exists() and not is_our_notice(notice):
        return None  # someone's own file: `report` still says what needs a look, on the lab's log
    lines = [line for line in report(folder, kind, done).splitlines()[1:]
             if "has changed since" in line or "not a notebook" in line or "holds solutions" in line]
    if not lines:
        notice.unlink(missing_ok=True)
        return None
    atomic_write_text(notice, _signed(NOTICE_HEAD + "\n".join(f"- {line.strip()}" for line in lines) + NOTICE_TAIL))
    return notice


def main(argv=None) -> int:
    """`python -m course_lib.classroom.copies KIND FOLDER`: the copies `make lab` and `make lab-instructor` open."""
    parser = argparse.ArgumentParser(prog="python -m course_lib.classroom.copies", description=main.__doc__)
    parser.add_argument("kind", choices=KINDS, help="student: no solutions or quiz answers; instructor: everything")
    parser.add_argument("folder", type=Path, help="where the copies go (a git-ignored folder, e.g. lab/student)")
    args = parser.parse_args(argv)
    try:
        done = make_copies(args.folder, args.kind)
        print(report(args.folder, args.kind, done))
        if (notice := write_notice(args.folder, args.kind, done)) is not None:
            print(f"  (this is also in {notice}, at the top of the lab's file browser)")
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: cannot write the copies in {args.folder}/ ({error.strerror or error}): make that folder "
              "writable, or delete it and run this again", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
