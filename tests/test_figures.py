"""The README's charts render offline from committed files, and the README shows each with its command."""

from pathlib import Path

from course_lib.figures import write_figures

ROOT = Path(__file__).resolve().parent.parent


def test_figures_render_offline_as_png(tmp_path):
    for path in write_figures(tmp_path):
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, path.name


def test_readme_embeds_the_committed_figures_and_says_how_they_were_made():
    readme = (ROOT / "README.md").read_text()
    assert "python -m course_lib figures" in readme
    for name in ("calibration.png", "dead_groups.png", "grpo_tiny_m.png"):
        assert f"docs/figures/{name}" in readme and (ROOT / "docs" / "figures" / name).exists()


def test_count_marks_tells_a_blank_chart_from_a_drawn_one():
    import altair as alt
    import pandas as pd
    import vl_convert

    from course_lib.plots import count_marks

    table = pd.DataFrame({"gain.test": [0.1, 0.2], "share": [0.3, 0.4]})
    blank = alt.Chart(table).mark_point().encode(x="share:Q", y="gain.test:Q")  # the dot makes it a nested field
    drawn = alt.Chart(table.rename(columns={"gain.test": "gain_test"})).mark_point().encode(x="share:Q", y="gain_test:Q")
    assert count_marks(vl_convert.vegalite_to_svg(blank.to_dict())) == 0
    assert count_marks(vl_convert.vegalite_to_svg(drawn.to_dict())) == 2
