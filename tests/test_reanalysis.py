"""The committed re-analysis is what its script makes from the committed results, and says what it should."""

import runpy
from pathlib import Path

import pandas as pd

FOLDER = Path(__file__).resolve().parent.parent / "data" / "results" / "reanalysis"


def test_reanalysis_is_remade_byte_for_byte_and_keeps_its_key_verdicts(tmp_path):
    runpy.run_path(str(FOLDER / "reanalyze.py"))["main"](tmp_path)
    for name in ("paired_verdicts.csv", "gains_with_base_error.csv", "reanalysis.md", "scorecard.md"):
        assert (tmp_path / name).read_text() == (FOLDER / name).read_text(), name
    paired = pd.read_csv(tmp_path / "paired_verdicts.csv")
    primary = paired[(paired.study == "regimes-hard-wins") & (paired.family == "primary") & (paired.model == "tiny-m")]
    # seeds 0-2 repeat the pilot's runs: on all seeds tiny-m's hard - random is "worse"; on the fresh seeds it is
    # inside the margin, which random's gain (+0.035 on those seeds, under 3 x 0.03) cannot vouch for
    assert primary.set_index("seeds used")["verdict"].to_dict() == {"all": "worse", "fresh only": "could not tell"}
    assert primary.set_index("seeds used").loc["fresh only", "seed list"] == "3 4 5 6 7"
    long = paired[(paired.study == "regimes-hard-wins-long") & (paired.model == "tiny-m") & (paired["seeds used"] == "all")]
    # 90% [-0.023, -0.010] inside the margin, but random gained +0.045 (< 3 x 0.03): a real difference, not negligible
    assert long["verdict"].item() == "worse"
    gains = pd.read_csv(tmp_path / "gains_with_base_error.csv")
    headroom = gains[(gains.study == "headroom-pilot-seeds") & (gains.learning_rate == 1e-4)].iloc[0]
    assert headroom["gain without base error"] == "+0.039 [+0.003, +0.076]"
    assert headroom["gain with base error"] == "+0.039 [-0.027, +0.105]"  # the base's error makes it inconclusive


def test_the_readme_ends_with_the_committed_scorecard():
    readme = (FOLDER.parent.parent.parent / "README.md").read_text()
    block = readme.split("<!-- scorecard: generated, see data/results/reanalysis/scorecard.md -->\n")[1].split("<!-- /scorecard -->")[0]
    table = [line for line in (FOLDER / "scorecard.md").read_text().splitlines() if line.startswith("|")]
    assert block.strip().splitlines() == table


def test_the_readme_block_is_replaced_and_nothing_around_it(tmp_path):
    write = runpy.run_path(str(FOLDER / "reanalyze.py"))["write_readme_block"]
    start = "<!-- scorecard: generated, see data/results/reanalysis/scorecard.md -->\n"
    readme, card = tmp_path / "README.md", tmp_path / "scorecard.md"
    readme.write_text(f"# Title\n\nbefore\n{start}| old |\n|---|\n<!-- /scorecard -->\n\nafter\n")
    card.write_text("# Claims scorecard\n\nintro\n\n| claim |\n|---|\n| new |\n")
    write(readme, card)
    assert readme.read_text() == f"# Title\n\nbefore\n{start}| claim |\n|---|\n| new |\n<!-- /scorecard -->\n\nafter\n"
