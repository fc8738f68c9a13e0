"""The committed re-analysis is what its script makes from the committed results, and says what it should."""

import runpy
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from course_lib import CourseError
from course_lib.research.scorecard import CLAIMS, is_running

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


# ---------------------------------------------------------------------------
# Damaged inputs: one line and exit status 1, nothing written (the outputs and the README are written together,
# once every one is computed)
# ---------------------------------------------------------------------------

SCRIPT = FOLDER / "reanalyze.py"
OUTPUTS = ("paired_verdicts.csv", "gains_with_base_error.csv", "reanalysis.md", "scorecard.md", "provenance.json")
MARKERS = "<!-- scorecard: generated, see data/results/reanalysis/scorecard.md -->\n", "<!-- /scorecard -->"


@pytest.fixture
def results_copy(tmp_path, monkeypatch):
    """A copy of the re-analysis's inputs (and of its committed outputs) under tmp_path/data/results, which the
    script reads instead (course_lib.research.studies.RESULTS_DIR patched), with a README holding the markers."""
    import shutil

    import course_lib.research.studies

    root = tmp_path / "data" / "results"
    for study in runpy.run_path(str(SCRIPT))["INPUTS"]:
        (root / study).mkdir(parents=True)
        for name in ("results.csv", "provenance.json", "grid.json"):
            shutil.copy(FOLDER.parent / study / name, root / study / name)
    for claim in CLAIMS:  # a study still running: its grid and records (a row reads "running" from them)
        if claim.study and is_running(claim.study):
            shutil.copytree(FOLDER.parent / claim.study, root / claim.study)
    shutil.copytree(FOLDER, root / "reanalysis")
    (tmp_path / "README.md").write_text(f"# Title\n{MARKERS[0]}| old |\n{MARKERS[1]}\nafter\n")
    monkeypatch.setattr(course_lib.research.studies, "RESULTS_DIR", root)
    return root


def snapshot(root) -> dict:
    return {path: path.read_bytes() for path in [*(root / "reanalysis").iterdir(), root.parent.parent / "README.md"]}


def damage_csv(root, study, edit):
    path = root / study / "results.csv"
    table = pd.read_csv(path)
    path.write_text(edit(table).to_csv(index=False) if callable(edit) else "", encoding="utf-8")


def duplicated_row(table):
    return pd.concat([table, table.iloc[[0]]])


def renamed_duplicate(table):
    copy = table.iloc[[0]].assign(point="made_up")
    return pd.concat([table, copy])


DAMAGE = {
    "empty": (lambda root: (root / "regimes-hard-wins" / "results.csv").write_text(""),
              "regimes-hard-wins/results.csv is not a results table (EmptyDataError)"),
    "header only": (lambda root: (root / "regimes-hard-wins" / "results.csv").write_text(
        (root / "regimes-hard-wins" / "results.csv").read_text().splitlines()[0] + "\n"),
        "regimes-hard-wins/results.csv holds no point's result (no rows, or no status column)"),
    "binary": (lambda root: (root / "size-boundary" / "results.csv").write_bytes(bytes(range(256)) * 40),
               "size-boundary/results.csv is not a results table (Expected "),
    "a row longer than the header": (lambda root: (root / "size-boundary" / "results.csv").write_text(
        (root / "size-boundary" / "results.csv").read_text().replace("\n", ",extra\n", 2).replace(",extra", "", 1)),
        "size-boundary/results.csv is not a results table (a row has more fields than the header)"),
    "not UTF-8": (lambda root: (root / "size-boundary" / "results.csv").write_bytes(b"point,status\n\xff\xfe,ok\n"),
                  "size-boundary/results.csv is not a results table (UnicodeDecodeError)"),
    "a column missing": (lambda root: damage_csv(root, "hard-wins", lambda t: t.drop(columns=["gain.test"])),
                         "hard-wins/results.csv has no column 'gain.test', which the re-analysis reads"),
    "no point column": (lambda root: damage_csv(root, "hard-wins", lambda t: t.drop(columns=["point"])),
                        "hard-wins/results.csv has no point column but a grid.json beside it"),
    "text in a number column": (lambda root: damage_csv(root, "hard-wins", lambda t: t.assign(
        **{"gain.test": ["oops"] + t["gain.test"].tolist()[1:]})),
        "hard-wins/results.csv: column 'gain.test' holds 'oops' (line 2) among numbers"),
    "every number text": (lambda root: damage_csv(root, "hard-wins", lambda t: t.assign(**{"gain.test": "oops"})),
                          "hard-wins/results.csv: column 'gain.test' holds 'oops' (line 2), not a number"),
    "a grid setting made the same": (lambda root: damage_csv(root, "hard-wins", lambda t: t.assign(seed=0)),
                                     "hard-wins/results.csv holds the same run twice (lines 2 and "),
    "infinite": (lambda root: damage_csv(root, "strong-regime-pilot", lambda t: t.assign(
        **{"gain.test": [float("inf")] + t["gain.test"].tolist()[1:]})),
        "strong-regime-pilot/results.csv: column 'gain.test' holds inf (line 2), not a finite number"),
    "out of range": (lambda root: damage_csv(root, "hard-wins", lambda t: t.assign(
        **{"accuracy_before.test": [7.0] + t["accuracy_before.test"].tolist()[1:]})),
        "hard-wins/results.csv: column 'accuracy_before.test' holds 7.0 (line 2), outside [0, 1]"),
    "a gain edited by hand": (lambda root: damage_csv(root, "hard-wins", lambda t: t.assign(
        **{"gain.test": [0.2] + t["gain.test"].tolist()[1:], "accuracy_after.test": [
            t["accuracy_before.test"].iloc[0] + 0.2] + t["accuracy_after.test"].tolist()[1:]})),
        "hard-wins/results.csv: gain.test on line 2 lies outside its own interval"),
    "a status not ok or failed": (lambda root: damage_csv(root, "hard-wins", lambda t: t.assign(
        status=["OK"] + t["status"].tolist()[1:])),
        "hard-wins/results.csv: status 'OK' (line 2) is neither 'ok' nor 'failed'"),
    "a row twice": (lambda root: damage_csv(root, "regimes-hard-wins-long", duplicated_row),
                    "regimes-hard-wins-long/results.csv holds point"),
    "a row twice, renamed": (lambda root: damage_csv(root, "regimes-hard-wins-long", renamed_duplicate),
                             "regimes-hard-wins-long/results.csv holds the same run twice (lines 2 and 34: "),
    "an arm renamed": (lambda root: damage_csv(root, "size-boundary", lambda t: t.assign(strategy=t.strategy.str.upper())),
                       "size-boundary/results.csv line 2 says strategy="),  # its point (grid.json) says otherwise
    "one model's arm removed": (lambda root: damage_csv(root, "regimes-hard-wins", lambda t: t[
        ~((t.model == "tiny-m") & (t.strategy == "random"))]), "regimes-hard-wins/results.csv lacks 8 of"),
    "too few fresh seeds": (lambda root: damage_csv(root, "regimes-hard-wins-long", lambda t: t[t.seed < 4]),
                            "regimes-hard-wins-long/results.csv lacks"),  # rows deleted after `aggregate` wrote it
    "provenance not JSON": (lambda root: (root / "hard-wins" / "provenance.json").write_text("{"),
                            "hard-wins/provenance.json is not valid JSON (JSONDecodeError)"),
    "provenance binary": (lambda root: (root / "hard-wins" / "provenance.json").write_bytes(b"\xff\xfe\x00"),
                          "hard-wins/provenance.json is not valid JSON (UnicodeDecodeError)"),
    "provenance a list": (lambda root: (root / "hard-wins" / "provenance.json").write_text("[]"),
                          "hard-wins/provenance.json does not hold a JSON object"),
    "results a folder": (lambda root: ((root / "hard-wins" / "results.csv").unlink(),
                                       (root / "hard-wins" / "results.csv").mkdir()),
                         "hard-wins/results.csv is not a results table (IsADirectoryError)"),
    "README without markers": (lambda root: (root.parent.parent / "README.md").write_text("# Title\nno table\n"),
                               "README.md must hold the scorecard's markers once each, in order"),
    "README markers twice": (lambda root: (root.parent.parent / "README.md").write_text(
        f"{MARKERS[0]}{MARKERS[1]}\n{MARKERS[0]}{MARKERS[1]}\n"), "README.md must hold the scorecard's markers"),
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_damaged_input_is_one_clear_error_and_nothing_is_written(results_copy, damage):
    make, message = DAMAGE[damage]
    make(results_copy)
    before = snapshot(results_copy)
    namespace = runpy.run_path(str(SCRIPT))
    with pytest.raises(CourseError) as refused:
        namespace["main"](readme=results_copy.parent.parent / "README.md")
    assert message in str(refused.value) and len(str(refused.value).splitlines()) == 1
    assert snapshot(results_copy) == before


def test_the_script_exits_1_with_one_line_and_writes_nothing(results_copy):
    """Through its own entry point, as make.sh runs it: one line on stderr, exit status 1, no traceback."""
    damage_csv(results_copy, "regimes-hard-wins-long", duplicated_row)  # a verdict would count a seed twice
    before = snapshot(results_copy)
    code = ("import pathlib, runpy, sys, warnings; import course_lib.research.studies as studies; "
            "warnings.filterwarnings('ignore', message='.*cannot be checked: no points/')  # this copy has none; "
            f"\nstudies.RESULTS_DIR = pathlib.Path({str(results_copy)!r}); "
            f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=FOLDER.parent.parent.parent)
    assert result.returncode == 1 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {results_copy}/regimes-hard-wins-long/results.csv holds "
                                                   "point ")
    assert snapshot(results_copy) == before


def test_sound_inputs_remake_every_output_and_the_readme_block(results_copy):
    before = snapshot(results_copy)
    runpy.run_path(str(SCRIPT))["main"](readme=results_copy.parent.parent / "README.md")
    after = snapshot(results_copy)
    changed = {path.name for path in after if after[path] != before[path]}
    assert changed == {"provenance.json", "README.md"}  # the outputs are remade byte for byte
    table = [line for line in (results_copy / "reanalysis" / "scorecard.md").read_text().splitlines()
             if line.startswith("|")]
    assert (results_copy.parent.parent / "README.md").read_text() == \
        "# Title\n" + MARKERS[0] + "\n".join(table) + "\n" + MARKERS[1] + "\nafter\n"


def test_an_output_folder_that_is_a_file_is_one_line(results_copy):
    import shutil

    shutil.rmtree(results_copy / "reanalysis")
    (results_copy / "reanalysis").write_text("not a folder")
    with pytest.raises(CourseError, match=r"^out=.*/reanalysis is a file; give a folder"):
        runpy.run_path(str(SCRIPT))["main"]()
    assert (results_copy / "reanalysis").read_text() == "not a folder"
