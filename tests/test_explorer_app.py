"""`make explorer` serves the budget explorer with the `course` Voila template: Voila's own page without the two
FontAwesome stylesheets its lab template fetches from a CDN, so the app makes no request off the machine (what the
browser drives in tests/test_browser.py, which also checks that no request leaves the machine)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_make_explorer_uses_the_course_template():
    makefile = (ROOT / "Makefile").read_text()
    assert "JUPYTER_PATH=$(CURDIR)/apps $(VENV)/bin/voila apps/budget_explorer.ipynb --no-browser --template=course" \
        in makefile
    assert (ROOT / "apps" / "voila" / "templates" / "course" / "index.html.j2").exists()
