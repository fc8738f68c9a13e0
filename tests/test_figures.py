"""The findings' charts render offline from committed files, and docs/findings.md shows each with its command."""

from pathlib import Path

import pytest

from course_lib.research.figures import write_figures

ROOT = Path(__file__).resolve().parent.parent


def test_figures_render_offline_as_png(tmp_path):
    for path in write_figures(tmp_path):
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, path.name
    first = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    assert sorted(first) == sorted(p.name for p in write_figures(tmp_path))  # its own PNGs are remade in place
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == first  # byte for byte
    stale = [name for name, data in first.items() if (ROOT / "docs" / "figures" / name).read_bytes() != data]
    assert not stale, f"docs/figures {stale} differ from what `python -m course_lib figures` makes now; run it"


def test_committed_figures_carry_the_maker_chunk_and_are_valid_pngs():
    import struct
    import zlib

    from course_lib.classroom.plots import made_by_figures
    from course_lib.research.figures import FIGURES

    for name in FIGURES:
        data = (ROOT / "docs" / "figures" / name).read_bytes()
        assert made_by_figures(ROOT / "docs" / "figures" / name), name
        at, kinds = 8, []
        while at < len(data):  # every chunk's CRC holds, so image viewers accept the marked file
            size, kind = struct.unpack(">I4s", data[at:at + 8])
            assert struct.unpack(">I", data[at + 8 + size:at + 12 + size])[0] == zlib.crc32(data[at + 4:at + 8 + size])
            kinds.append(kind)
            at += 12 + size
        assert kinds[:2] == [b"IHDR", b"tEXt"] and kinds[-1] == b"IEND", name


def test_findings_page_embeds_the_committed_figures_and_says_how_they_were_made():
    findings = (ROOT / "docs" / "findings.md").read_text()
    assert "python -m course_lib figures" in findings
    for name in ("calibration.png", "dead_groups.png", "grpo_tiny_m.png"):
        assert f"](figures/{name})" in findings and (ROOT / "docs" / "figures" / name).exists()


def test_count_marks_tells_a_blank_chart_from_a_drawn_one():
    import altair as alt
    import pandas as pd
    import vl_convert

    from course_lib.classroom.plots import count_marks

    table = pd.DataFrame({"gain.test": [0.1, 0.2], "share": [0.3, 0.4]})
    blank = alt.Chart(table).mark_point().encode(x="share:Q", y="gain.test:Q")  # the dot makes it a nested field
    drawn = alt.Chart(table.rename(columns={"gain.test": "gain_test"})).mark_point().encode(x="share:Q", y="gain_test:Q")
    assert count_marks(vl_convert.vegalite_to_svg(blank.to_dict())) == 0
    assert count_marks(vl_convert.vegalite_to_svg(drawn.to_dict())) == 2


def test_advantage_of_a_lone_success_among_eight():
    from course_lib.classroom.plots import advantage_table

    table = advantage_table(8).set_index(["right in group", "completion"]).advantage
    assert table[(1, "right")] == pytest.approx(2.474, abs=1e-3) and table[(1, "wrong")] == pytest.approx(-0.3536, abs=1e-3)
    assert table[(4, "right")] == -table[(4, "wrong")]  # half right: symmetric
    assert (0, "right") not in table.index and (8, "wrong") not in table.index  # no such completions


def test_wald_collapses_at_zero_and_wilson_does_not():
    from course_lib.classroom.plots import interval_width_table

    widths = interval_width_table().set_index(["K", "observed p", "interval"]).width
    assert widths[(8, 0.0, "Wald")] == 0.0 and widths[(8, 0.0, "Wilson")] == pytest.approx(0.3244, abs=1e-4)
    assert widths[(64, 0.5, "Wilson")] < widths[(8, 0.5, "Wilson")]


def test_both_learnability_scores_rank_pass_rates_the_same():
    from course_lib.classroom.plots import learnability_table

    curves = learnability_table(8).pivot(index="p", columns="measure", values="value")
    assert (curves.rank().iloc[:, 0] == curves.rank().iloc[:, 1]).all()
    assert curves.idxmax().tolist() == [0.5, 0.5]


def test_charts_are_live_widgets_with_an_svg_copy_unless_static_is_asked(monkeypatch):
    """The default renderer draws an interactive alt.JupyterChart (its JavaScript bundled, no CDN) and keeps an SVG
    copy; COURSE_CHARTS=svg (what `notebooks.execute` sets for its kernels) draws static SVG only."""
    import altair as alt
    import pandas as pd

    from course_lib import CourseError
    from course_lib.classroom.plots import count_marks, live_renderer, use_offline_renderer

    chart = alt.Chart(pd.DataFrame({"x": [1, 2], "y": [3, 4]})).mark_point().encode(x="x:Q", y="y:Q", tooltip=["x"])
    data, _ = live_renderer(chart.to_dict())
    assert "application/vnd.jupyter.widget-view+json" in data and count_marks(data["image/svg+xml"]) == 2
    assert alt.JupyterChart._esm and "cdn" not in alt.JupyterChart._esm[:2000].lower()  # offline: vega is inlined
    monkeypatch.delenv("COURSE_CHARTS", raising=False)
    use_offline_renderer()
    assert alt.renderers.active == "course-live"
    monkeypatch.setenv("COURSE_CHARTS", "svg")
    use_offline_renderer()
    assert alt.renderers.active == "svg"
    with pytest.raises(CourseError, match="charts='png' is unknown; use live or svg"):
        use_offline_renderer("png")


def test_executed_notebooks_get_static_charts_and_the_environment_is_restored(tmp_path, monkeypatch):
    import nbformat

    from course_lib.classroom.notebooks import execute

    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell('PROFILE = "smoke"', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell("import altair as alt, pandas as pd\nfrom course_lib.classroom.plots import use_offline_renderer\n"
                                  "use_offline_renderer()\nalt.Chart(pd.DataFrame({'x': [1]})).mark_point().encode(x='x:Q')")],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    path = tmp_path / "charts.ipynb"
    nbformat.write(notebook, path)
    monkeypatch.setenv("COURSE_CHARTS", "live")
    execute(path, tmp_path / "out", {"PROFILE": "smoke"})
    outputs = nbformat.read(tmp_path / "out" / "charts.ipynb", 4).cells[-1].outputs
    assert [set(o["data"]) for o in outputs] == [{"image/svg+xml", "text/plain"}]
    import os

    assert os.environ["COURSE_CHARTS"] == "live"


def test_effect_sizes_table_keeps_the_papers_ranges_and_each_source_of_ours():
    import pandas as pd
    import vl_convert

    from course_lib.classroom.plots import count_marks, effect_sizes_chart, effect_sizes_table

    paper = [{"source": "paper", "row": "paper: hard", "low": 0.34, "high": 0.47}]
    short = pd.DataFrame({"label": ["random"], "mean": [0.07], "ci_low": [0.06], "ci_high": [0.09]})
    long = pd.DataFrame({"label": ["random "], "mean": [0.14], "ci_low": [0.11], "ci_high": [0.18]})
    table = effect_sizes_table(paper, {"41 steps": short, "100 steps": long})
    assert table["source"].tolist() == ["paper", "41 steps", "100 steps"]
    assert table["mean"].isna().tolist() == [True, False, False]  # a quoted range has no mean to draw
    assert table.loc[2, ["low", "high"]].tolist() == [0.11, 0.18]
    svg = vl_convert.vegalite_to_svg(effect_sizes_chart(table, "t").to_dict())
    assert count_marks(svg) >= 5  # the zero line, three ranges, two means
    # a margin column draws a tick at -margin and +margin on the rows that have one (06's equivalence chart)
    with_margin = table.assign(margin=[None, 0.02, None])
    spec = effect_sizes_chart(with_margin, "t").to_dict()
    ticks = [layer for layer in spec["layer"] if layer["mark"]["type"] == "tick"]
    assert len(ticks) == 1 and sorted(row["edge"] for row in spec["datasets"][ticks[0]["data"]["name"]]) == [-0.02, 0.02]
    assert count_marks(vl_convert.vegalite_to_svg(spec)) == count_marks(svg) + 2


def test_round_28_each_line_of_the_grpo_figure_has_a_colour_of_its_own():
    """Hostile round 28: "base" and "after GRPO" were both the palette's fallback grey, two identical legend lines."""
    from course_lib.research.figures import grpo_result_chart

    scales = []

    def find(node):
        if isinstance(node, dict):
            if "domain" in node and "range" in node:
                scales.append(dict(zip(node["domain"], node["range"])))
            for value in node.values():
                find(value)
        elif isinstance(node, list):
            for value in node:
                find(value)

    find(grpo_result_chart().to_dict())
    assert scales and all(len(set(scale.values())) == len(scale) == 2 for scale in scales)


@pytest.mark.parametrize(("name", "damage", "said"), [
    ("eval_base.json", lambda text: text[: len(text) // 2], "is not valid JSON"),
    ("eval_trained.json", lambda text: text.replace('"n_correct": ', '"n_correct": 9', 1), "but 9"),
    ("gain.json", lambda text: text.replace('"ci_low": 0.0253', '"ci_low": 0.09'), "holds no gain inside its interval"),
    ("gain.json", lambda text: "[]", "holds no gain inside its interval")])
def test_round_28_the_grpo_figure_reads_its_evaluations_checked(tmp_path, name, damage, said):
    """Hostile round 28: `figures` read grpo-tiny-m's evaluations and gain unchecked, drawing a damaged file."""
    import shutil

    from course_lib.errors import CourseError
    from course_lib.research.definitions import RESULTS_DIR
    from course_lib.research.figures import grpo_result_chart

    folder = tmp_path / "grpo-tiny-m"
    folder.mkdir()
    for file in ("eval_base.json", "eval_trained.json", "gain.json"):
        shutil.copy(RESULTS_DIR / "grpo-tiny-m" / file, folder)
    (folder / name).write_text(damage((folder / name).read_text()))
    with pytest.raises(CourseError, match=rf"{name.removesuffix('.json')}=.*{said}"):
        grpo_result_chart(folder)


@pytest.mark.parametrize("rate", [1.7, -0.1, "0.5", None])
def test_round_29_the_calibration_figure_refuses_a_rate_outside_0_to_1(monkeypatch, rate):
    """Hostile round 29: a manifest's calibration edited to 1.7 was drawn (its axis stretched to 1.7)."""
    from course_lib.errors import CourseError
    from course_lib.research import figures

    real = figures.read_manifest

    def edited(name):
        manifest = real(name)
        if name == "tiny-m":
            manifest["calibration"]["arith"]["pass_rate_by_level"]["1"] = rate
        return manifest

    monkeypatch.setattr(figures, "read_manifest", edited)
    with pytest.raises(CourseError, match=r"tiny-m/manifest.json: the arith calibration's pass rate at level 1 is"):
        figures.calibration_chart()


@pytest.mark.parametrize(("edit", "said"), [
    (lambda manifest: manifest["calibration"].pop("arith"), "holds no arith calibration"),
    (lambda manifest: manifest.pop("calibration"), "holds no arith calibration"),
    (lambda manifest: manifest["calibration"].update(arith=[0.5]), "holds no arith calibration"),
    (lambda manifest: manifest["calibration"]["arith"]["pass_rate_by_level"].update(hard=0.5),
     "the arith calibration names level 'hard', not a whole number"),
])
def test_round_30_the_calibration_figure_names_a_missing_calibration_or_a_level_that_is_no_number(monkeypatch, edit,
                                                                                                   said):
    """Hostile round 30: a manifest without its arith calibration, or with a level named `hard`, ended in a
    KeyError or ValueError traceback; one line names the file and the fix."""
    from course_lib.errors import CourseError
    from course_lib.research import figures

    real = figures.read_manifest

    def edited(name):
        manifest = real(name)
        if name == "tiny-m":
            edit(manifest)
        return manifest

    monkeypatch.setattr(figures, "read_manifest", edited)
    with pytest.raises(CourseError, match=rf"^data/models/tiny-m/manifest.json:? .*{said}.*`calibrate --write`$"):
        figures.calibration_chart()
