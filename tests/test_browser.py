"""The budget explorer app (apps/budget_explorer.ipynb, what `make explorer` serves to a class) in Voila,
driven in headless Chromium through Playwright.

The browser is Debian's /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it), else Playwright's own
build where one was downloaded (`.venv/bin/playwright install chromium`). `make test` checks for one first.

The test starts Voila on localhost, moves the budget slider and changes the strategy, and checks
that the numbers and the chart change to what the pure function `explorer_view` computes, that the
chart is live (drawn offline by Vega in the page; hovering a bar shows its tooltip), that the
page shows the explorer alone (no notebook prose, prints or recorded numbers), and that it asks nothing of
any other machine (no CDN: the course template leaves out the lab template's FontAwesome stylesheets).

The kernel talks to Voila over Unix sockets (no TCP ports that can collide with the other worker's kernels). If
the first page still never draws its widgets, and neither Voila's log nor the browser shows an error of the app's
own, the test warns with what the page, the browser and Voila said and loads the page once more (a new kernel);
an app error, or a second failure, fails the test with the same account.
"""

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import NamedTuple

import pytest

from course_lib.classroom.widgets import explorer_view
from course_lib.difficulty import difficulty_tables
from course_lib.research.profiles import get_profile

pytestmark = pytest.mark.slow  # starts Voila and a browser (and `make test-fast` needs no Chromium)

CHROMIUM = Path("/usr/bin/chromium")
HOW_TO_GET_CHROMIUM = ("the browser test needs Chromium: `apt-get install chromium` (Debian's; .ci/run does this), "
                       "or where downloads are possible `.venv/bin/playwright install chromium`")
ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "apps" / "budget_explorer.ipynb"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


class Voila(NamedTuple):
    url: str  # where it serves the app
    log: Path  # what it (and its kernel) wrote


def tail(path: Path, size: int = 3000) -> str:
    return path.read_bytes()[-size:].decode(errors="replace") if path.exists() else f"({path} is missing)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def voila(tmp_path_factory) -> Voila:
    """Voila serving a smoke-profile copy of the explorer app (papermill injects the parameters, nothing runs)."""
    import papermill

    if not CHROMIUM.exists():
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            assert Path(playwright.chromium.executable_path).exists(), HOW_TO_GET_CHROMIUM
    folder = tmp_path_factory.mktemp("voila")
    papermill.execute_notebook(str(NOTEBOOK), str(folder / "explorer.ipynb"), parameters={"PROFILE": "smoke"},
                               prepare_only=True)
    port = free_port()
    log = folder / "voila.log"  # a file, not a pipe nobody reads (a full pipe would stop Voila)
    with open(log, "wb") as output:  # Voila keeps its own copy of the file
        server = subprocess.Popen(
            [sys.executable, "-m", "voila", "explorer.ipynb", "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1",
             "--VoilaConfiguration.http_keep_alive_timeout=600", "--template=course",  # as `make explorer` serves it
             # the kernel's channels on Unix sockets (beside its connection file): TCP ports picked while the other
             # test worker starts kernels of its own can collide, and a kernel that cannot bind its port dies
             "--KernelManager.transport=ipc"],
            cwd=folder, stdout=output, stderr=subprocess.STDOUT,
            env={**os.environ, "JUPYTER_PATH": str(ROOT / "apps")})
    deadline = time.time() + 60
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.5)
    else:
        server.kill()
        server.wait()
        pytest.fail("voila did not start: " + tail(log))
    yield Voila(f"http://127.0.0.1:{port}/", log)
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


@pytest.fixture(scope="module")
def tables():
    """The same difficulty tables the app builds (read from the shared cache the kernel filled)."""
    return difficulty_tables(get_profile("smoke"), 0, "cpu", progress=False)


def shown(page, key: str) -> str:
    return page.inner_text(f".explorer-{key}").strip()


def last_chart(page) -> str:
    """The page's last chart: a live chart (alt.JupyterChart, drawn by Vega as SVG inside `.vega-embed`)."""
    return page.eval_on_selector_all(".vega-embed svg.marks", "charts => charts.length ? charts.pop().outerHTML : ''")


def hover_tooltip(page, timeout: float = 30.0) -> str:
    """Hover a drawn bar of the last chart and return the tooltip Vega shows (only a live chart has one)."""
    centre = page.evaluate("""() => {
        const bars = [...document.querySelectorAll('.vega-embed svg.marks .mark-rect path')]
            .map(bar => bar.getBoundingClientRect()).filter(box => box.height > 2);  // a bar of count 0 is flat
        const box = bars.pop();
        return box ? {x: box.x + box.width / 2, y: box.y + box.height / 2} : null;
    }""")
    assert centre, "the live chart drew no bar to hover"
    page.mouse.move(centre["x"], centre["y"])
    tooltip = page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible", timeout=timeout * 1000)
    return tooltip.inner_text()


def wait_for_chart(page, text: str, timeout: float = 30.0) -> str:
    deadline = time.time() + timeout
    while time.time() < deadline:
        chart = last_chart(page)
        if text in chart:
            return chart
        time.sleep(0.2)
    raise AssertionError(f"the explorer's chart never showed {text!r}")


def wait_for_change(page, key: str, old: str, timeout: float = 30.0) -> str:
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = shown(page, key)
        if value != old:
            return value
        time.sleep(0.2)
    raise AssertionError(f"{key} stayed at {old!r}")


class PageNeverDrawn(AssertionError):
    """The explorer's page did not draw its widgets in time; the message says what the page, browser and Voila said."""


def open_explorer(page, voila: Voila, happened: list[str], timeout: float = 300.0) -> None:
    """Load the app and wait for its widgets and the page's load event; else raise PageNeverDrawn with the page's
    text, the browser's console messages, page errors and failed requests, and Voila's log.

    Voila runs the app's notebook (a kernel, the difficulty tables) while it streams the page: wait for the first
    byte only, then for the widgets, with one generous budget (minutes when the other test worker is busy)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.goto(voila.url, timeout=120_000, wait_until="commit")
        page.wait_for_selector(".explorer-n_selected", timeout=timeout * 1000)
        page.wait_for_load_state("load", timeout=60_000)
    except PlaywrightTimeout as error:
        try:
            text = page.inner_text("body", timeout=5000)
        except Exception as unreadable:  # a page stuck or navigating away
            text = f"(unreadable: {unreadable})"
        raise PageNeverDrawn(f"{error.message.splitlines()[0]}\n--- the page's text:\n{text[-2000:]}\n"
                             "--- the browser:\n" + "\n".join(happened[-40:]) +
                             f"\n--- Voila's log:\n{tail(voila.log)}") from None


def app_failed(voila: Voila, happened: list[str]) -> bool:
    """Whether a page that never drew shows the app's own failure (a Python traceback, a script error): no reload."""
    return "Traceback" in tail(voila.log, size=10**7) or any(line.startswith("page error:") for line in happened)


def test_explorer_in_a_real_browser(voila, tables):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        debian = {"executable_path": str(CHROMIUM)} if CHROMIUM.exists() else {}  # else Playwright's own build
        browser = playwright.chromium.launch(headless=True, args=CHROMIUM_ARGS, **debian)
        page = browser.new_page()
        requested, happened = [], []
        page.on("request", lambda request: requested.append(request.url))
        page.on("requestfailed", lambda request: happened.append(f"request failed: {request.url} {request.failure}"))
        page.on("pageerror", lambda error: happened.append(f"page error: {error}"))
        page.on("console", lambda message: happened.append(f"console {message.type}: {message.text}"))
        try:
            open_explorer(page, voila, happened)
        except PageNeverDrawn as first:  # a page stuck without an error of the app's own: load it once more
            if app_failed(voila, happened):
                raise
            warnings.warn(f"the explorer's first page never drew its widgets; loading it again. {first}", stacklevel=1)
            happened.append("--- the second load")
            open_explorer(page, voila, happened)  # a new page: Voila starts a new kernel
        served = page.content()
        model = next(iter(tables))
        k = int(tables[model]["k"].min())

        expected, _ = explorer_view(tables, model, k, "hard", 0.1)
        assert shown(page, "n_selected") == str(expected["n_selected"])
        text = page.inner_text("body")
        assert "Budget explorer" in text and "key numbers recorded" not in text and "import " not in text
        assert "mean pass rate:" not in text  # the explorer alone: none of notebook 03's prints
        assert shown(page, "predicted_dead_share") == f"{expected['predicted_dead_share']:.3f}"
        chart_before = wait_for_chart(page, "hard at budget 10% of the pool")

        # move the budget slider five steps right (0.10 -> 0.20) with the keyboard, as a user can
        page.click(".widget-slider .noUi-handle, .widget-hslider .noUi-handle")
        for _ in range(5):
            page.keyboard.press("ArrowRight")
        n_after = wait_for_change(page, "n_selected", str(expected["n_selected"]))
        expected, _ = explorer_view(tables, model, k, "hard", 0.2)
        assert n_after == str(expected["n_selected"])
        assert shown(page, "mean_pass_rate") == f"{expected['mean_pass_rate']:.3f}"

        # change the strategy
        old_dead = shown(page, "predicted_dead_share")
        page.select_option(".widget-dropdown select >> nth=1", "learnability")
        expected, _ = explorer_view(tables, model, k, "learnability", 0.2)
        target = f"{expected['predicted_dead_share']:.3f}"
        if target != old_dead:
            wait_for_change(page, "predicted_dead_share", old_dead)
        chart_after = wait_for_chart(page, "learnability at budget 20% of the pool")
        assert shown(page, "predicted_dead_share") == target
        assert shown(page, "mean_pass_rate") == f"{expected['mean_pass_rate']:.3f}"
        assert chart_after != chart_before
        assert "<img" not in page.inner_html(".vega-embed")  # drawn live by Vega, not the static SVG copy
        tip = hover_tooltip(page)
        assert "pass rate" in tip and "problems" in tip, tip
        page.screenshot(path=str(Path(tempfile.gettempdir()) / "explorer.png"), full_page=True)
        browser.close()
    # nothing leaves the machine: no link to another host in the page, no request to one (e.g. a CDN's fonts)
    assert re.findall(r'(?:href|src)="(https?://[^"]+)"', served) == []
    elsewhere = [url for url in requested if not url.startswith((voila.url.rstrip("/"), "ws://127.0.0.1", "data:", "blob:"))]
    assert requested and elsewhere == []
