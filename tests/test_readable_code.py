"""Code a student reads fits on a screen: no line of a code cell is over 100 characters in the notebooks of the
course and the explorer app (collapsed cells, `source_hidden`, too: a student who opens one reads it)."""

import ast
import json
import re
from pathlib import Path

import pytest

from course_lib.classroom.notebooks import NOTEBOOKS_DIR

LIMIT = 100
CHECKED = sorted(NOTEBOOKS_DIR.glob("*.ipynb")) + [NOTEBOOKS_DIR.parent / "apps" / "budget_explorer.ipynb"]


def long_lines(notebook: dict, limit: int = LIMIT) -> list[tuple[int, str]]:
    """(cell index, line) of every line over `limit` characters in a code cell, collapsed or not."""
    return [(index, line) for index, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "code"
            for line in "".join(cell["source"]).split("\n") if len(line) > limit]


def test_long_lines_reads_collapsed_cells_and_skips_markdown():
    line = "x = " + "1" * 100
    cells = [{"cell_type": "code", "metadata": {}, "source": [line]},
             {"cell_type": "code", "metadata": {"jupyter": {"source_hidden": True}}, "source": [line]},
             {"cell_type": "markdown", "metadata": {}, "source": [line]},
             {"cell_type": "code", "metadata": {}, "source": ["y = 1\n", "z = 2"]}]
    assert long_lines({"cells": cells}) == [(0, line), (1, line)]


def test_the_checked_notebooks_exist():
    names = [p.name[:3] for p in CHECKED]
    assert names == ["00_", "01_", "02_", "03_", "04_", "04b", "05_", "06_", "07_", "A1_", "A2_", "bud"], names
    assert all(p.exists() for p in CHECKED)


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.stem)
def test_no_code_line_is_over_100_characters(path):
    found = long_lines(json.loads(path.read_text(encoding="utf-8")))
    assert not found, f"{path.name}: lines over {LIMIT} characters: {found}"


# ---------------------------------------------------------------------------
# The library's layout (docs/design.md)
# ---------------------------------------------------------------------------

LIBRARY = NOTEBOOKS_DIR.parent / "course_lib"


def module_name(path) -> str:
    parts = path.relative_to(LIBRARY.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict:
    """Every course_lib module -> the course_lib modules it imports anywhere (function-level imports too)."""
    import ast

    modules = {module_name(path): path for path in LIBRARY.rglob("*.py")}
    graph = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for candidate in [target] + [f"{target}.{alias.name}" for alias in node.names]:
                if candidate in modules and candidate != name:
                    graph[name].add(candidate)
    return graph


def cycles(graph: dict) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, found = {}, {}, [], []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_library():
    assert cycles(import_graph()) == []


# The dependencies a function may import where it needs them, so that importing the module (or `--help`) does not
# load them: each takes from a fraction of a second to seconds to import (docs/design.md, "Imports").
DEFERRED = {"IPython", "accelerate", "altair", "datasets", "huggingface_hub", "ipywidgets", "jupyter_client",
            "math_verify", "nbformat", "numpy", "pandas", "papermill", "peft", "safetensors", "scipy", "statsmodels",
            "tokenizers", "torch", "tqdm", "transformers", "trl", "vl_convert", "vllm"}


def imported_modules(path, node) -> list[str]:
    """The modules an import statement in `path` names (a name imported from a package counts as its module when it
    is one)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    if node.level:
        parts = package.split(".")
        base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
    else:
        base = node.module
    modules = {module_name(p) for p in LIBRARY.rglob("*.py")}
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]


def function_level_imports(path) -> list:
    """(line, function, imported modules) of every import inside a function of `path`."""
    tree = ast.parse(path.read_text())
    found = []
    for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
        for node in ast.walk(function):
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append((node.lineno, function.name, imported_modules(path, node)))
    return found


def loads_on_import(module: str, seen=None) -> set[str]:
    """The DEFERRED dependencies importing `module` loads (its top-level imports, its packages', and theirs)."""
    seen = set() if seen is None else seen
    if module in seen:
        return set()
    seen.add(module)
    top = module.split(".")[0]
    if top != "course_lib":
        return {top} & DEFERRED
    parts = module.split(".")
    found = set().union(*(loads_on_import(".".join(parts[:i]), seen) for i in range(1, len(parts))))
    path = LIBRARY.parent / (module.replace(".", "/") + ".py")
    path = path if path.exists() else path.with_suffix("") / "__init__.py"
    if not path.exists():
        return found
    for node in ast.parse(path.read_text()).body:
        statements = [node] + (node.body + [h for handler in node.handlers for h in handler.body]
                               if isinstance(node, ast.Try) else [])
        for statement in statements:
            if isinstance(statement, ast.Import | ast.ImportFrom):
                for name in imported_modules(path, statement):
                    found |= loads_on_import(name, seen)
    return found


def test_loads_on_import_follows_packages_and_top_level_imports():
    assert "torch" in loads_on_import("course_lib.sampling")
    assert loads_on_import("course_lib.tasks") == set()
    assert {"trl", "transformers", "peft"} <= loads_on_import("course_lib.training.config")


def test_a_function_imports_only_what_would_make_its_module_slow_to_import():
    """Imports sit at the top of a module; a function imports a DEFERRED dependency, or a course_lib module that
    loads one its own module does not load."""
    needless = []
    for path in LIBRARY.rglob("*.py"):
        module = module_name(path)
        own = loads_on_import(module) if path.name != "__main__.py" else set()
        for line, function, names in function_level_imports(path):
            if not set().union(*(loads_on_import(name) for name in names)) - own:
                needless.append(f"{path.relative_to(LIBRARY.parent)}:{line} {function} imports {names}")
    assert not needless, "\n".join(needless)


def test_the_top_level_holds_at_most_16_modules_and_every_subpackage_installs():
    import tomllib

    top = sorted(path.name for path in LIBRARY.glob("*.py"))
    assert len(top) <= 16, top
    packages = {module_name(path.parent / "__init__.py") for path in LIBRARY.rglob("__init__.py")}
    setuptools = tomllib.loads((LIBRARY.parent / "pyproject.toml").read_text())["tool"]["setuptools"]
    data_only = set(setuptools["package-data"])  # course_lib.templates: a folder of data files, no module
    assert set(setuptools["packages"]) == packages | data_only  # a non-editable install carries every subpackage


def test_the_design_page_names_every_module_where_it_is():
    text = (LIBRARY.parent / "docs" / "design.md").read_text()
    for path in LIBRARY.glob("*.py"):
        assert f"`{path.name}`" in text, path.name
    for package in (p for p in LIBRARY.iterdir() if (p / "__init__.py").exists()):
        row = next(line for line in text.splitlines() if line.startswith(f"| `{package.name}/`"))
        for path in (p for p in package.glob("*.py") if p.name != "__init__.py" or len(p.read_text().splitlines()) > 1):
            assert f"`{path.stem}`" in row, f"{package.name}/{path.name} is not in docs/design.md"
    # which notebook introduces a module is said once, in its docstring ("Introduced in ..."), not in a column here
    assert not [line for line in text.splitlines() if line.startswith("|") and "introduced in" in line.lower()]
    for path in (p for p in LIBRARY.rglob("*.py") if len(p.read_text().splitlines()) > 1):
        where = re.search(r"Introduced in\s+([\w/.-]+?)[.;,]?(\s|$)", ast.get_docstring(ast.parse(path.read_text())))
        assert where, f"{path.relative_to(LIBRARY.parent)}: its docstring does not say where it is introduced"
        assert (LIBRARY.parent / where.group(1)).exists(), f"{path.name}: Introduced in {where.group(1)}, not a file"


# ---------------------------------------------------------------------------
# Notebooks open short: one namespace, imports in at most 8 lines
# ---------------------------------------------------------------------------

NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb")) + [NOTEBOOKS_DIR.parent / "apps" / "budget_explorer.ipynb"]


def opening_imports(notebook: dict) -> tuple[int, list[str]]:
    """(lines of import statements, course_lib modules imported from) in the first code cell after `parameters`."""
    import ast

    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    first = [i for i, cell in enumerate(code) if "parameters" in cell["metadata"].get("tags", [])][0] + 1
    tree = ast.parse("".join(code[first]["source"]))
    imports = [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)]
    return (sum(node.end_lineno - node.lineno + 1 for node in imports),
            [node.module for node in imports if isinstance(node, ast.ImportFrom) and node.module.startswith("course_lib")])


def test_opening_imports_counts_lines_of_import_statements_only():
    cells = [{"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": ["SEED = 0\n"]},
             {"cell_type": "code", "metadata": {}, "source": ["import math\n", "\n", "from course_lib import (a,\n",
                                                              "    b)\n", "x = 1\n", "from course_lib.tasks import c"]}]
    assert opening_imports({"cells": cells}) == (4, ["course_lib", "course_lib.tasks"])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_opens_with_at_most_8_lines_of_imports_from_one_namespace(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    lines, modules = opening_imports(notebook)
    assert lines <= 8 and set(modules) == {"course_lib"}, (lines, modules)
    later = [line for cell in notebook["cells"] if cell["cell_type"] == "code" for line in cell["source"]
             if line.lstrip().startswith(("from course_lib.", "import course_lib."))]  # indented ones too
    assert not later, f"{path.name} imports from course_lib's modules, not its namespace: {later}"


def test_every_public_name_loads_from_the_module_the_table_names():
    import importlib

    import course_lib

    for name, module in course_lib.HOME.items():
        home = importlib.import_module(f"course_lib.{module}")
        assert getattr(course_lib, name) is getattr(home, name, None) or getattr(course_lib, name).__name__ == \
            f"course_lib.{module}.{name}", name
    assert course_lib.problems.__module__ == "course_lib.problems" and callable(course_lib.problems)
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        course_lib.no_such_name  # noqa: B018


# ---------------------------------------------------------------------------
# Every public name says which notebook introduces it: the end of its docstring's first line
# ---------------------------------------------------------------------------

ORDER = ("00", "01", "02", "03", "04", "04b", "05", "06", "07", "A1", "A2")  # the notebooks, in reading order
ELSEWHERE = ("every notebook", "students' copies")  # where a name no notebook imports is used (CourseError...)
TAG = re.compile(r"\((0[0-7]b?|A[12]|" + "|".join(map(re.escape, ELSEWHERE)) + r")(, [^()]+| of [^(),]+)?\)\.?$")


def first_line(name: str) -> str:
    """A public name's one-line summary: its docstring's first line; a constant's comment (on its line, or above)."""
    import importlib
    import inspect

    import course_lib

    value = getattr(course_lib, name)
    if inspect.ismodule(value) or inspect.isclass(value) or callable(value):
        return inspect.getdoc(value).splitlines()[0]
    home = Path(importlib.import_module(f"course_lib.{course_lib.HOME[name]}").__file__)
    for path in (home, *sorted(home.parent.glob("*.py"))):  # its module, or one beside it that it imports it from
        lines = path.read_text().splitlines()
        at = next((i for i, line in enumerate(lines) if re.match(rf"{name}\s*[:=]", line)), None)
        if at is not None:
            break
    comment = lines[at].partition("  # ")[2] or lines[at - 1].lstrip("# ")
    return comment.strip()


def notebooks_importing(name: str) -> list[str]:
    """The notebooks (as "00", "04b", "A1") whose code imports `name` from course_lib, in reading order."""
    found = []
    for path in sorted(NOTEBOOKS_DIR.glob("*.ipynb")):
        for cell in (c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"):
            code = "\n".join(line for line in "".join(cell["source"]).splitlines()
                             if not line.lstrip().startswith(("%", "!")))
            if any(isinstance(node, ast.ImportFrom) and node.module == "course_lib"
                   and name in (alias.name for alias in node.names) for node in ast.walk(ast.parse(code))):
                found.append(path.name.split("_")[0])
                break
    return sorted(found, key=ORDER.index)


def test_the_tag_is_a_notebook_or_its_named_stand_in_at_the_end_of_the_line():
    for good in ("Draw it (00).", "Draw it (04b, A2).", "Draw it (07, README).", "Draw it (03, the explorer app).",
                 "what `select` picks by (03)", "Fail (every notebook).", "Pack it (students' copies of 00-04b)."):
        assert TAG.search(good), good
    for bad in ("Draw it (notebook 01).", "Draw it (05 and 06).", "Draw it (05): more after it.", "Draw it (08).",
                "Draw it.", "Draw it (somewhere)."):
        assert not TAG.search(bad), bad


def test_every_public_name_says_which_notebook_introduces_it_in_its_first_line():
    import course_lib

    missing = [f"{name}: {first_line(name)}" for name in course_lib.__all__ if not TAG.search(first_line(name))]
    assert not missing, "end the first docstring line with the notebook that introduces it, e.g. (03):\n" + \
        "\n".join(missing)


def test_the_notebook_a_name_names_first_is_the_first_that_imports_it():
    import course_lib

    wrong = []
    for name in course_lib.__all__:
        tag, importing = TAG.search(first_line(name)), notebooks_importing(name)
        if tag and importing and tag.group(1) != importing[0]:  # one no notebook imports: its tag says where
            wrong.append(f"{name}: says ({tag.group(1)}), first imported in {importing[0]}")
    assert not wrong, "\n".join(wrong)


def test_a_module_is_introduced_no_later_than_the_first_of_its_public_names():
    """A module's "Introduced in notebooks/NN..." names the notebook of its earliest public name, or an earlier one."""
    import importlib

    import course_lib

    for module, names in course_lib.PUBLIC.items():
        path = Path(importlib.import_module(f"course_lib.{module}").__file__)
        where = re.search(r"Introduced in\s+notebooks/([0-9A]\w*?)_", ast.get_docstring(ast.parse(path.read_text())))
        if where is None:  # a one-line package (`research`: its public name `sweep` is a module with its own docstring)
            continue
        tags = [TAG.search(first_line(name)).group(1) for name in names]
        first = min((tag for tag in tags if tag in ORDER), key=ORDER.index)
        assert ORDER.index(where.group(1)) <= ORDER.index(first), \
            f"{module}: introduced in {where.group(1)}, but {names[tags.index(first)]} already in {first}"

