"""docs/tiny_world.md's table of models says what each committed manifest says."""

import json
import re

from course_lib.models import MODELS_DIR
from course_lib.paths import REPOSITORY


def table_rows() -> dict:
    text = (REPOSITORY / "docs" / "tiny_world.md").read_text()
    block = text.split("### The models at a glance", 1)[1].split("\n## ", 1)[0]
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in block.splitlines() if line.startswith("| tiny")]
    return {row[0]: row for row in rows}


def test_the_models_table_lists_every_committed_model_as_its_manifest_says():
    rows = table_rows()
    committed = sorted(path.parent.name for path in MODELS_DIR.glob("*/manifest.json"))
    assert sorted(rows) == committed
    for name, (_, plays, parameters, pretrained, *_) in rows.items():
        manifest = json.loads((MODELS_DIR / name / "manifest.json").read_text())
        config = manifest["config"]
        assert plays == manifest["role"], name
        assert int(parameters.replace(",", "")) == manifest["parameters"], name
        tasks, levels, steps = re.match(r"([\w +]+), levels (\d-\d), ([\d,]+) steps", pretrained).groups()
        assert tasks.split(" + ") == config["tasks"], name
        assert levels == f"{min(config['levels'])}-{max(config['levels'])}", name
        assert int(steps.replace(",", "")) == config["steps"], name
