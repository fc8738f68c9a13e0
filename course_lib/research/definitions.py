"""The studies' definitions: each study's data/results/<study>/study.json, read once (`STUDIES`).

Kept apart from `studies` (which reads results with pandas and statsmodels) so that the command line can list the
studies without loading those. Introduced in notebooks/05_hard_examples_win.ipynb.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import CourseError, check
from ..paths import REPOSITORY

RESULTS_DIR = REPOSITORY / "data" / "results"  # one folder per study: its study.json, README and results (04b)

STUDY_FILE = "study.json"  # in each study's folder: what it runs, beside its README, grid.json, make.sh and results
KINDS = ("study", "probe", "pilot")  # a study tests what its README fixed; a probe looks; a pilot sizes a study


def read_studies(root=RESULTS_DIR) -> dict:
    """Every study's definition, from data/results/<study>/study.json: `fixed` parameters, a `grid` per profile (the
    product of its lists is the set of points; a profile's grid may be a list of grids, whose points are all run),
    optionally `also` (a second grid per profile whose points are added: an arm that is no product), its `kind`
    (`KINDS`) and `about`."""
    studies = {}
    for path in sorted(Path(root).glob(f"*/{STUDY_FILE}")):
        try:
            definition = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as error:
            raise CourseError(f"{path} is not valid JSON ({error}); fix it, or restore a committed one with git "
                              "checkout") from None
        check(isinstance(definition, dict) and isinstance(definition.get("fixed"), dict)
              and isinstance(definition.get("grid"), dict) and definition["grid"] and definition.get("kind") in KINDS,
              f"{path} must hold an object with `fixed` parameters, a `grid` per profile and a `kind` ("
              f"{', '.join(KINDS)}); fix it (docs/design.md, 'Adding a study'), or restore a committed one")
        for profile, grids in [*definition["grid"].items(), *definition.get("also", {}).items()]:
            for grid in grids if isinstance(grids, list) else [grids]:
                check(isinstance(grid, dict) and all(isinstance(values, list) and values for values in grid.values()),
                      f"{path}: the {profile} grid must map each parameter to a list of its values (e.g. "
                      f"\"STRATEGY\": [\"hard\"]), not {json.dumps(grid)[:80]}")
        studies[path.parent.name] = {key: definition[key] for key in ("kind", "fixed", "grid", "also")
                                     if key in definition}
    return studies


STUDIES = read_studies()  # study name -> its definition (read once, when the module is imported)


def point_name(point: dict) -> str:
    """A readable, unique file name for a grid point: its values, cut to 200 bytes where they are longer (a long model
    path; a file name holds 255 bytes, and the record adds `.failed.json`), then a digest of the whole point."""
    readable = "_".join(f"{str(v).replace('/', '-')}" for k, v in sorted(point.items()) if k != "PROFILE")
    readable = readable.encode()[:NAME_BYTES].decode(errors="ignore")
    digest = hashlib.sha256(json.dumps(point, sort_keys=True).encode()).hexdigest()[:6]
    return f"{readable}_{digest}"


def failed_name(name: str, suffix: str = ".json") -> str:
    """The file name of point `name`'s failure: its record (`.json`), and while a retry runs the failed try's
    notebook (`.ipynb`) and kernel log (`.log`)."""
    return f"{name}.failed{suffix}"


NAME_BYTES = 200  # of a point's values in its file name
