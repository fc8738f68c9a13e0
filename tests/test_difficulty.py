"""Difficulty estimation: table shape, Wilson intervals, cache, resume, and bad input before sampling."""

import json
import re

import pytest

from course_lib import CourseError
from course_lib.difficulty import TABLE_COLUMNS, estimate, read_table, rows_checksum, wilson_interval
from course_lib.models import load_model
from course_lib.tasks import generate

SETTINGS = {"k": 4, "temperature": 1.0, "max_new_tokens": 48, "seed": 5, "chunk_size": 4, "progress": False}


@pytest.fixture(scope="module")
def tiny_s():
    return load_model("tiny-s", device="cpu")


@pytest.fixture(scope="module")
def pool():
    return generate("arith", 10, "train", seed=9)


@pytest.mark.parametrize(
    ("n_correct", "n", "low", "high"),
    [(0, 8, 0.0, 0.3244), (8, 8, 0.6756, 1.0), (4, 8, 0.2152, 0.7848), (1, 10, 0.0179, 0.4042)],
)
def test_wilson_interval_by_hand(n_correct, n, low, high):
    got = wilson_interval(n_correct, n)
    assert got == pytest.approx((low, high), abs=1e-4)


def test_table_has_one_row_per_problem_and_the_cost(tiny_s, pool, tmp_path):
    model, tokenizer = tiny_s
    table = estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    assert list(table.columns) == TABLE_COLUMNS
    assert list(table["id"]) == [p.id for p in pool]
    assert ((table.pass_rate * table.k).round() == table.n_correct).all()
    assert (table.ci_low <= table.pass_rate).all() and (table.pass_rate <= table.ci_high).all()
    cost = table.attrs["cost"]
    assert cost["completions"] == 40 and cost["generated_tokens"] == pytest.approx(table.mean_length.sum() * 4, rel=1e-3)
    # pinned: the seeded run (CPU, torch 2.13; the same on every run here): tiny-s solves one of 40 samples
    assert table["outcomes"].tolist() == ["0000"] * 5 + ["0100"] + ["0000"] * 4
    assert (table.ci_low.iloc[5], table.ci_high.iloc[5]) == (0.0456, 0.6994)  # Wilson's interval for 1 of 4
    assert cost["generated_tokens"] == 1202 and cost["clipped_completions"] == 0


def test_same_seed_same_table_and_the_cache_is_used(tiny_s, pool, tmp_path):
    model, tokenizer = tiny_s
    first = estimate(model, tokenizer, pool, cache_dir=tmp_path / "a", **SETTINGS)
    uncached = estimate(model, tokenizer, pool, cache_dir=None, **SETTINGS)
    assert first.equals(uncached)
    # poison the cache, checksum included: a cached run must read it back instead of sampling again
    chunk = next((tmp_path / "a").rglob("chunk-00000.json"))
    data = json.loads(chunk.read_text())
    data["rows"][0]["mean_length"] = 1234.5
    data["sha256"] = rows_checksum(data["rows"])
    chunk.write_text(json.dumps(data))
    assert estimate(model, tokenizer, pool, cache_dir=tmp_path / "a", **SETTINGS).mean_length.iloc[0] == 1234.5


def _edit_rows(edit):
    """A chunk fault made by editing its rows (the checksum is rewritten, so only the schema check can catch it)."""
    def fault(text, pool):
        data = json.loads(text)
        edit(data["rows"], pool)
        data["sha256"] = rows_checksum(data["rows"])
        return json.dumps(data)
    return fault


def _wrong_checksum(text, pool):
    data = json.loads(text)
    data["sha256"] = "0" * 64
    return json.dumps(data)


def _edited_row_old_checksum(text, pool):
    data = json.loads(text)
    data["rows"][1]["mean_length"] += 1.0
    return json.dumps(data)


CHUNK_FAULTS = {
    "truncated": lambda text, pool: text[: len(text) // 2],
    "empty file": lambda text, pool: "",
    "not an object": lambda text, pool: "[1, 2]",
    "bogus row": _edit_rows(lambda rows, pool: rows.append({"id": "x"})),
    "one bogus row only": _edit_rows(lambda rows, pool: rows.__setitem__(slice(None), [{"id": "x"}])),
    "wrong checksum": _wrong_checksum,
    "edited row, old checksum": _edited_row_old_checksum,
    "no checksum (older course_lib)": lambda text, pool: json.dumps({k: v for k, v in json.loads(text).items()
                                                                    if k != "sha256"}),
    "other problems' ids": _edit_rows(lambda rows, pool: [row.update(id=p.id) for row, p in zip(rows, pool[4:])]),
    "ids out of order": _edit_rows(lambda rows, pool: rows.reverse()),
    "wrong k": _edit_rows(lambda rows, pool: rows[0].update(k=8, outcomes=rows[0]["outcomes"] * 2)),
    "outcomes not 0/1": _edit_rows(lambda rows, pool: rows[0].update(outcomes="01x0")),
    "n_correct disagrees": _edit_rows(lambda rows, pool: rows[0].update(n_correct=rows[0]["n_correct"] + 1)),
    "level is a string": _edit_rows(lambda rows, pool: rows[0].update(level="3")),
    "tokens missing": _edit_rows(lambda rows, pool: rows[0].pop("tokens")),
}


@pytest.mark.parametrize("fault", list(CHUNK_FAULTS))
def test_a_bad_cached_chunk_is_recomputed_with_a_warning(tiny_s, pool, tmp_path, fault):
    model, tokenizer = tiny_s
    clean = estimate(model, tokenizer, pool, cache_dir=tmp_path / "clean", **SETTINGS)
    estimate(model, tokenizer, pool, cache_dir=tmp_path / "bad", **SETTINGS)
    chunk = next((tmp_path / "bad").rglob("chunk-00000.json"))
    chunk.write_text(CHUNK_FAULTS[fault](chunk.read_text(), pool))
    with pytest.warns(UserWarning, match=f"cached chunk {chunk} is not valid"):
        again = estimate(model, tokenizer, pool, cache_dir=tmp_path / "bad", **SETTINGS)
    assert again.equals(clean)
    assert json.loads(chunk.read_text())["sha256"] == rows_checksum(json.loads(chunk.read_text())["rows"])


def test_a_sound_cache_is_read_without_sampling_or_warning(tiny_s, pool, tmp_path, monkeypatch):
    import warnings

    import course_lib.difficulty as difficulty

    model, tokenizer = tiny_s
    first = estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    monkeypatch.setattr(difficulty, "_score_chunk", lambda *args, **kwargs: pytest.fail("sampled again"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    assert again.equals(first)
    assert again.attrs["cost"]["sampling_seconds"] == first.attrs["cost"]["sampling_seconds"]


def test_interrupted_estimate_resumes_with_the_same_result(tiny_s, pool, tmp_path):
    model, tokenizer = tiny_s
    full = estimate(model, tokenizer, pool, cache_dir=tmp_path / "full", **SETTINGS)
    estimate(model, tokenizer, pool, cache_dir=tmp_path / "cut", **SETTINGS)
    chunks = sorted((tmp_path / "cut").rglob("chunk-*.json"))
    assert len(chunks) == 3  # 10 problems in chunks of 4
    for chunk in chunks[1:]:
        chunk.unlink()  # as if the run had been killed after the first chunk
    resumed = estimate(model, tokenizer, pool, cache_dir=tmp_path / "cut", **SETTINGS)
    assert resumed.equals(full)
    assert len(list((tmp_path / "cut").rglob("chunk-*.json"))) == 3


def test_different_settings_miss_the_cache(tiny_s, pool, tmp_path):
    model, tokenizer = tiny_s
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **{**SETTINGS, "seed": 6})
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 2


@pytest.mark.parametrize(
    ("override", "message"),
    [({"k": 1}, "k=1 must be >= 2"), ({"temperature": -0.5}, "temperature=-0.5 must be a finite number >= 0")],
)
def test_bad_settings_fail_before_sampling(tiny_s, pool, override, message):
    model, tokenizer = tiny_s
    with pytest.raises(CourseError, match=message):
        estimate(model, tokenizer, pool, **{**SETTINGS, **override})


def test_table_missing_columns(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,score\na,1\n")
    with pytest.raises(CourseError, match="missing column\\(s\\) level, pass_rate"):
        read_table(path)
    with pytest.raises(CourseError, match="does not exist"):
        read_table(tmp_path / "none.csv")


def test_read_table_round_trip_keeps_ids_and_outcomes_as_text(tmp_path):
    """Ids like '007' and outcomes like '0010' would come back from a CSV as the numbers 7 and 10."""
    table = {"id": ["007", "010"], "level": [1, 2], "source": "arith", "k": 4, "n_correct": [1, 0],
             "pass_rate": [0.25, 0.0], "outcomes": ["0010", "0000"]}
    import pandas as pd

    pd.DataFrame(table).to_csv(tmp_path / "t.csv", index=False)
    read = read_table(tmp_path / "t.csv")
    assert read["id"].tolist() == ["007", "010"] and read["outcomes"].tolist() == ["0010", "0000"]
    assert read["pass_rate"].tolist() == [0.25, 0.0] and len(read_table(_one_row(tmp_path))) == 1


def _one_row(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("id,level,pass_rate\na,1,0.5\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("content", "message"), [
    ("id,level,pass_rate\n", "has no rows; make one with `python -m course_lib estimate ... --out"),
    (b"\xff\xfe\x00id", "is not a CSV table (UnicodeDecodeError); make one with"),
    ("", "is not a CSV table (EmptyDataError)"),
])
def test_read_table_says_what_is_wrong_and_how_to_make_one(tmp_path, content, message):
    path = tmp_path / "t.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(CourseError, match=re.escape(f"table={path} ") + ".*" + re.escape(message)):
        read_table(path)
    with pytest.raises(CourseError, match=re.escape(f"table={tmp_path} is a folder; give the CSV file")):
        read_table(tmp_path)
