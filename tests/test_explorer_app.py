"""`make explorer` serves the budget explorer with the `course` Voila template: Voila's own page without the two
FontAwesome stylesheets its lab template fetches from a CDN, so the app makes no request off the machine."""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_explorer_uses_the_course_template():
    makefile = (ROOT / "Makefile").read_text()
    assert "JUPYTER_PATH=$(CURDIR)/apps $(VENV)/bin/voila apps/budget_explorer.ipynb --no-browser --template=course" \
        in makefile
    assert (ROOT / "apps" / "voila" / "templates" / "course" / "index.html.j2").exists()


@pytest.mark.slow
def test_the_served_page_links_nothing_outside_the_machine(tmp_path):
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "voila", str(ROOT / "apps" / "budget_explorer.ipynb"), "--no-browser", f"--port={port}",
         "--Voila.ip=127.0.0.1", "--template=course"],
        env={**os.environ, "JUPYTER_PATH": str(ROOT / "apps")}, cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=600) as response:
            page = response.read().decode(errors="replace")
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert "budget" in page.lower() and "jp-" in page  # Voila's lab page, rendered
    assert re.findall(r'(?:href|src)="(https?://[^"]+)"', page) == []
