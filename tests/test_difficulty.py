"""Difficulty estimation: table shape, Wilson intervals, cache, resume, and bad input before sampling."""

import json

import pytest

from course_lib import CourseError
from course_lib.difficulty import TABLE_COLUMNS, estimate, read_table, wilson_interval
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


def test_same_seed_same_table_and_the_cache_is_used(tiny_s, pool, tmp_path):
    model, tokenizer = tiny_s
    first = estimate(model, tokenizer, pool, cache_dir=tmp_path / "a", **SETTINGS)
    uncached = estimate(model, tokenizer, pool, cache_dir=None, **SETTINGS)
    assert first.equals(uncached)
    # poison the cache: a cached run must read it back instead of sampling again
    chunk = next((tmp_path / "a").rglob("chunk-00000.json"))
    data = json.loads(chunk.read_text())
    data["rows"][0]["mean_length"] = 1234.5
    chunk.write_text(json.dumps(data))
    assert estimate(model, tokenizer, pool, cache_dir=tmp_path / "a", **SETTINGS).mean_length.iloc[0] == 1234.5


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
