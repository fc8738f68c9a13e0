"""`select` writes one id per line: a difficulty table whose id could not survive that is refused, naming its row."""

import pandas as pd
import pytest
from conftest import run_cli_in_process

from course_lib import CourseError
from course_lib.selection import select

HEADER = "id,level,source,k,n_correct,pass_rate\n"
ROWS = "".join(f"p{i},1,arith,2,{i % 3},{(i % 3) / 2}\n" for i in range(39))  # 39 good rows (0, 0.5 or 1.0)


@pytest.mark.parametrize(("bad_row", "shown"), [
    ('"",1,arith,2,1,0.5\n', "''"),  # an empty id
    ('"a\nb",1,arith,2,1,0.5\n', "'a\\nb'"),  # an id holding a line break: two ids in the written file
    ('"a\r\nb",1,arith,2,1,0.5\n', "'a\\r\\nb'"),
    ('"a\u2028b",1,arith,2,1,0.5\n', "'a\\u2028b'"),  # a Unicode line separator (str.splitlines splits there)
    ('" a",1,arith,2,1,0.5\n', "' a'"),  # read back without its space: a different id
    ('"a ",1,arith,2,1,0.5\n', "'a '"),
])
def test_a_table_with_an_id_an_ids_file_cannot_hold_is_refused_naming_the_row(tmp_path, bad_row, shown):
    table, out = tmp_path / "table.csv", tmp_path / "ids.txt"
    table.write_text(HEADER + ROWS + bad_row, encoding="utf-8")
    result = run_cli_in_process("select", "--table", table, "--strategy", "random", "--budget", "40", "--out", out)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"error: table row 40 has id {shown}: an id must be non-empty text on one line without spaces at its ends "
        "(an ids file holds one per line); fix that row"]
    assert not out.exists() and not (tmp_path / "ids.txt.provenance.json").exists()


@pytest.mark.parametrize("uid", ["", None, float("nan"), "x\ny", " x"])
def test_select_refuses_a_table_with_such_an_id(uid):
    table = pd.DataFrame({"id": ["a", uid], "level": 1, "pass_rate": [0.5, 0.5]})
    with pytest.raises(CourseError, match=r"^table row 2 has id .*: an id must be non-empty text on one line"):
        select(table, "random", 2)


def test_numbers_and_awkward_but_sound_ids_are_selected_as_written(tmp_path):
    table = pd.DataFrame({"id": [7, "NA", "a,b", "ü-1", "x y"], "level": 1, "pass_rate": 0.5})
    assert sorted(select(table, "random", 5)) == sorted(["7", "NA", "a,b", "ü-1", "x y"])
