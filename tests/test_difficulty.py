"""Difficulty estimation: table shape, Wilson intervals, cache, resume, and bad input before sampling."""

import dataclasses
import hashlib
import json
import re

import pandas as pd
import pytest

from course_lib import CourseError
from course_lib.difficulty import (
    TABLE_COLUMNS,
    cache_folder,
    check_pass_rates,
    chunk_problem,
    difficulty_tables,
    estimate,
    pass_rates_at,
    read_table,
    rows_checksum,
    wilson_interval,
)
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


def test_wilson_interval_takes_any_positive_z_and_refuses_zero():
    """z = 1 (a 68% interval) by hand at 4 of 8: centre 0.5, half-width sqrt(0.25/8 + 1/256) / (1 + 1/8) = 1/6."""
    assert wilson_interval(4, 8, z=1.0) == pytest.approx((1 / 3, 2 / 3))
    with pytest.raises(CourseError, match=r"z=0 must be a positive, finite number \(1.96 for a 95% interval\)"):
        wilson_interval(4, 8, z=0)


def test_wilson_interval_stays_inside_0_1_and_needs_a_sample():
    """At 5 of 5 the formula's upper end is 1.0000000000000002 in floating point, and at 0 of 5 its lower end is
    just below 0: both are clipped. One sample is enough; none is refused."""
    assert (wilson_interval(5, 5)[1], wilson_interval(0, 5)[0]) == (1.0, 0.0)
    assert wilson_interval(1, 1) == pytest.approx((0.2065, 1.0), abs=1e-4)
    with pytest.raises(CourseError) as refused:
        wilson_interval(0, 0)
    assert str(refused.value) == "n=0 must be from 1 to 10**15 samples"
    assert wilson_interval(10**15, 10**15) == pytest.approx((1.0, 1.0))
    with pytest.raises(CourseError, match=r"^n=1000000000000001 must be from 1 to 10\*\*15 samples$"):
        wilson_interval(0, 10**15 + 1)
    for args, said in [((3, 2), "n_correct=3 must be from 0 to n=2"), ((-1, 2), "n_correct=-1 must be from 0 to n=2"),
                       ((10**400, 10**400), "must be from 1 to 10\\*\\*15 samples"),  # was an OverflowError
                       ((3, float("inf")), "n_correct=3 and n=inf must be whole numbers"),
                       ((1, 2, -1), "z=-1 must be a positive"), ((1, 2, "1.96"), "z='1.96' must be a positive"),
                       ((1, 2, float("inf")), "z=inf must be a positive")]:  # a math domain error, or a lower end above the upper
        with pytest.raises(CourseError, match=said):
            wilson_interval(*args)


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


def test_a_completion_cut_at_the_token_limit_counts_as_clipped(tiny_s, pool):
    """At 8 new tokens every arith solution of tiny-s is cut: each completion is exactly at the limit, and clipped."""
    model, tokenizer = tiny_s
    table = estimate(model, tokenizer, pool, **{**SETTINGS, "max_new_tokens": 8}, cache_dir=None)
    assert table["clipped"].tolist() == [4] * 10 and (table["mean_length"] == 8.0).all()
    assert table.attrs["cost"]["clipped_completions"] == 40 and table.attrs["cost"]["generated_tokens"] == 320


def test_same_seed_same_table_and_the_cache_is_used(tiny_s, pool, tmp_path):
    model, tokenizer = tiny_s
    first = estimate(model, tokenizer, pool, cache_dir=tmp_path / "a", **SETTINGS)
    uncached = estimate(model, tokenizer, pool, cache_dir=None, **SETTINGS)
    assert first.equals(uncached)
    # poison the cache, checksum included: a cached run must read it back instead of sampling again
    chunk = next((tmp_path / "a").rglob("chunk-00000.json"))
    data = json.loads(chunk.read_text())
    data["rows"][0].update(mean_length=1234.5, tokens=1234.5 * SETTINGS["k"])
    data["rows"][0]["tokens"] = int(data["rows"][0]["tokens"])  # 4938: a count that agrees with its mean
    data["sha256"] = rows_checksum(data["rows"])
    chunk.write_text(json.dumps(data))
    assert estimate(model, tokenizer, pool, cache_dir=tmp_path / "a", **SETTINGS).mean_length.iloc[0] == 1234.5


def test_the_chunk_checksum_is_sha256_of_canonical_json():
    """Sorted keys and no spaces, as its docstring says: the key order or spacing of a chunk on disk never matters."""
    rows = [{"id": "b", "k": 2}, {"k": 4, "id": "a"}]
    assert rows_checksum(rows) == hashlib.sha256(b'[{"id":"b","k":2},{"id":"a","k":4}]').hexdigest()


def _rows_for(problems, k, **fields):
    return [{"id": p.id, "level": p.level, "source": p.source, "k": k, "n_correct": 1, "pass_rate": 1 / k,
             "mean_length": 10 / 3, "tokens": 10, "clipped": 0, "outcomes": "1" + "0" * (k - 1), "formatted": 1,
             **fields} for p in problems]


def _sound_chunk(problems, k=4):
    rows = _rows_for(problems, k, mean_length=10.0, tokens=10 * k, outcomes="01" + "0" * (k - 2), formatted=3)
    return {"rows": rows, "seconds": 1.5, "sha256": rows_checksum(rows)}


def _rows_edited(edit):
    """A fault made by editing a sound chunk's first row (the checksum is rewritten: only the schema can catch it)."""
    def fault(data):
        edit(data["rows"])
        data["sha256"] = rows_checksum(data["rows"])
        return data
    return fault


ROW_0 = "row 'arith-fdb4aa6ba9': "
CHUNK_PROBLEMS = {  # fault -> (how the sound chunk is broken, what chunk_problem says)
    "a list": (lambda data: [1, 2], "not an object with a 'rows' list"),
    "rows not a list": (lambda data: {**data, "rows": {}}, "not an object with a 'rows' list"),
    "no seconds": (lambda data: {k: v for k, v in data.items() if k != "seconds"}, "no number 'seconds'"),
    "seconds a bool": (lambda data: {**data, "seconds": True}, "no number 'seconds'"),
    "wrong checksum": (lambda data: {**data, "sha256": "0" * 64},
                       "its checksum does not match its rows (edited, or written by an older course_lib)"),
    "a row not an object": (_rows_edited(lambda rows: rows.__setitem__(1, [1])),
                            "its ids ['arith-fdb4aa6ba9', None, 'arith-7ae8688680']... are not this chunk's problems "
                            "['arith-fdb4aa6ba9', 'arith-8ae2740e4b', 'arith-7ae8688680']..."),
    "tokens missing": (_rows_edited(lambda rows: rows[0].pop("tokens")),
                       ROW_0 + "'tokens' is missing or not <class 'int'>"),
    "tokens a float": (_rows_edited(lambda rows: rows[0].update(tokens=40.0)),
                       ROW_0 + "'tokens' is missing or not <class 'int'>"),
    "clipped a bool": (_rows_edited(lambda rows: rows[0].update(clipped=False)),
                       ROW_0 + "'clipped' is missing or not <class 'int'>"),
    "outcomes not 0/1": (_rows_edited(lambda rows: rows[0].update(outcomes="01x0")),
                         ROW_0 + "k=4 and outcomes '01x0' are not 4 samples of 0/1"),
    "too few outcomes": (_rows_edited(lambda rows: rows[0].update(outcomes="010")),
                         ROW_0 + "k=4 and outcomes '010' are not 4 samples of 0/1"),
    "k disagrees": (_rows_edited(lambda rows: rows[0].update(k=5)),
                    ROW_0 + "k=5 and outcomes '0100' are not 4 samples of 0/1"),
    "n_correct disagrees": (_rows_edited(lambda rows: rows[0].update(n_correct=2, pass_rate=0.5)),
                            ROW_0 + "n_correct and pass_rate disagree with outcomes '0100'"),
    "pass_rate disagrees": (_rows_edited(lambda rows: rows[0].update(pass_rate=0.5)),
                            ROW_0 + "n_correct and pass_rate disagree with outcomes '0100'"),
    "formatted above k": (_rows_edited(lambda rows: rows[0].update(formatted=5)),
                          ROW_0 + "formatted=5 is not a count of 0..4 completions"),
    "clipped above k": (_rows_edited(lambda rows: rows[0].update(clipped=9)),
                        ROW_0 + "clipped=9 is not a count of 0..4 completions"),
    "negative tokens": (_rows_edited(lambda rows: rows[0].update(tokens=-40, mean_length=-10.0)),
                        ROW_0 + "tokens=-40 and mean_length=-10.0 disagree"),
    "NaN mean length": (_rows_edited(lambda rows: rows[0].update(mean_length=float("nan"))),
                        ROW_0 + "tokens=40 and mean_length=nan disagree"),
    "mean length not tokens / k": (_rows_edited(lambda rows: rows[0].update(mean_length=3.0)),
                                   ROW_0 + "tokens=40 and mean_length=3.0 disagree"),
    "negative seconds": (lambda data: {**data, "seconds": -3.0}, "no number 'seconds'"),
    "NaN seconds": (lambda data: {**data, "seconds": float("nan")}, "no number 'seconds'"),
    "another source": (_rows_edited(lambda rows: rows[0].update(source="gsm8k")),
                       ROW_0 + "level or source differs from the problem's"),
    "level is a string": (_rows_edited(lambda rows: rows[0].update(level="1")),
                          ROW_0 + "'level' is missing or not (<class 'int'>, <class 'NoneType'>)"),
}


@pytest.mark.parametrize("fault", list(CHUNK_PROBLEMS))
def test_each_fault_of_a_cached_chunk_is_named(pool, fault):
    """chunk_problem checks a cached chunk's parsed JSON before it is trusted, and says what is wrong."""
    break_it, expected = CHUNK_PROBLEMS[fault]
    assert chunk_problem(_sound_chunk(pool[:4]), pool[:4], 4) is None
    assert chunk_problem(break_it(_sound_chunk(pool[:4])), pool[:4], 4) == expected


def test_a_chunk_of_empty_completions_sampled_in_no_time_is_sound(pool):
    """A model that ends every completion at once: 0 tokens, mean length 0, and a chunk timed at 0 seconds."""
    chunk = _rows_edited(lambda rows: rows[0].update(tokens=0, mean_length=0.0))(_sound_chunk(pool[:4]))
    assert chunk_problem({**chunk, "seconds": 0.0}, pool[:4], 4) is None


def test_a_chunk_of_empty_completions_is_sound(pool):
    """A model that ends every completion at once (0 tokens, mean length 0) wrote a sound chunk: read, not resampled."""
    rows = _rows_for(pool[:4], 4, mean_length=0.0, tokens=0, outcomes="0000", n_correct=0, pass_rate=0.0, formatted=0)
    assert chunk_problem({"rows": rows, "seconds": 0.5, "sha256": rows_checksum(rows)}, pool[:4], 4) is None


def _edit_rows(edit):
    """`_rows_edited` on a chunk file's text: `edit` also gets the pool (the checksum is rewritten)."""
    def fault(text, pool):
        return json.dumps(_rows_edited(lambda rows: edit(rows, pool))(json.loads(text)))
    return fault


CHUNK_FAULTS = {  # fault -> (how the file is broken, what the warning says); every fault is named above
    "truncated": (lambda text, pool: text[: len(text) // 2], "unreadable (JSONDecodeError: "),
    "empty file": (lambda text, pool: "", "unreadable (JSONDecodeError: "),
    "not UTF-8": (lambda text, pool: "\udcff", "unreadable (UnicodeDecodeError: "),
    "edited row, old checksum": (lambda text, pool: text.replace('"mean_length": ', '"mean_length": 1', 1),
                                 "its checksum does not match its rows"),
    "ids out of order": (_edit_rows(lambda rows, pool: rows.reverse()), "are not this chunk's problems"),
    "no formatted count (older course_lib)": (_edit_rows(lambda rows, pool: [row.pop("formatted") for row in rows]),
                                              "'formatted' is missing"),
}


@pytest.mark.parametrize("fault", list(CHUNK_FAULTS))
def test_a_bad_cached_chunk_is_recomputed_with_a_warning(tiny_s, pool, tmp_path, fault):
    model, tokenizer = tiny_s
    break_it, says = CHUNK_FAULTS[fault]
    clean = estimate(model, tokenizer, pool, cache_dir=tmp_path / "clean", **SETTINGS)
    estimate(model, tokenizer, pool, cache_dir=tmp_path / "bad", **SETTINGS)
    chunk = next((tmp_path / "bad").rglob("chunk-00000.json"))
    chunk.write_text(break_it(chunk.read_text(), pool), errors="surrogateescape")
    with pytest.warns(UserWarning, match=f"cached chunk {chunk} is not valid") as caught:
        again = estimate(model, tokenizer, pool, cache_dir=tmp_path / "bad", **SETTINGS)
    assert says in str(caught[0].message)
    assert again.equals(clean)
    assert json.loads(chunk.read_text())["sha256"] == rows_checksum(json.loads(chunk.read_text())["rows"])


def test_a_chunk_moved_in_from_another_cache_key_is_sampled_again(tiny_s, pool, tmp_path):
    """Every check of a chunk passed for one made with another seed (or model) and copied into this key's folder: its
    counts were served as this model's. A chunk records the key it was made under."""
    model, tokenizer = tiny_s
    clean = estimate(model, tokenizer, pool, cache_dir=tmp_path / "ours", **SETTINGS)
    estimate(model, tokenizer, pool, cache_dir=tmp_path / "theirs", **{**SETTINGS, "seed": 6})
    ours, theirs = (next((tmp_path / name).rglob("chunk-00000.json")) for name in ("ours", "theirs"))
    ours.write_text(theirs.read_text())
    with pytest.warns(UserWarning, match="it was made under another cache key"):
        again = estimate(model, tokenizer, pool, cache_dir=tmp_path / "ours", **SETTINGS)
    assert again.equals(clean)


def test_a_chunk_from_before_chunks_recorded_their_key_is_sampled_again_without_a_warning(tiny_s, pool, tmp_path):
    """An older course_lib's cache is not at fault: it is sampled again once, quietly (a class upgrading the course
    saw a warning per chunk), and then recorded with its key."""
    import warnings

    model, tokenizer = tiny_s
    clean = estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    chunk = next(tmp_path.rglob("chunk-00000.json"))
    chunk.write_text(json.dumps({k: v for k, v in json.loads(chunk.read_text()).items() if k != "key"}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    assert again.equals(clean) and json.loads(chunk.read_text())["key"] == chunk.parent.name


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


@pytest.mark.parametrize("override", [{"seed": 6}, {"max_new_tokens": 40}, {"temperature": 0.7}, {"k": 2}],
                         ids=lambda override: next(iter(override)))
def test_different_settings_miss_the_cache(tiny_s, pool, tmp_path, override):
    """Every sampling setting is in the cache key: a table at 48 new tokens is never read back for 40."""
    model, tokenizer = tiny_s
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **{**SETTINGS, **override})
    assert len([p for p in tmp_path.iterdir() if p.is_dir()]) == 2


def test_another_prompt_for_the_same_problems_misses_the_cache(tiny_s, pool, tmp_path, monkeypatch):
    """Same weights and problems, other prompt tokens (another chat template or tokenizer): a new entry."""
    import course_lib.difficulty as difficulty

    model, tokenizer = tiny_s
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
    prompt_ids = difficulty.checked_prompt_ids
    monkeypatch.setattr(difficulty, "checked_prompt_ids", lambda *args: [[*ids, ids[-1]] for ids in prompt_ids(*args)])
    estimate(model, tokenizer, pool, cache_dir=tmp_path, **SETTINGS)
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


def test_read_table_reads_an_id_that_looks_missing_as_text_and_empty_numbers_as_missing(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id,level,pass_rate,note\nNA,1,0.5,x\nnull,2,0.75,NA\nNone,NaN,0.25,\n", encoding="utf-8")
    read = read_table(path)
    assert read["id"].tolist() == ["NA", "null", "None"]  # a problem's id is never a missing value
    assert read["pass_rate"].dtype == float and read["level"].isna().tolist() == [False, False, True]
    assert read["note"].isna().tolist() == [False, True, True]
    path.write_text("id,level,pass_rate\nnull,2,\n", encoding="utf-8")  # an empty pass rate is missing: refused
    with pytest.raises(CourseError, match="problem 'null' has pass_rate"):
        read_table(path)


def _one_row(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("id,level,pass_rate\na,1,0.5\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("content", "message"), [
    ("id,level,pass_rate\n", "has no rows; make one with `python -m course_lib estimate ... --out"),
    (b"\xff\xfe\x00id", "is not a CSV table (UnicodeDecodeError); make one with"),
    ("", "is not a CSV table (EmptyDataError)"),
    ("id,level,pass_rate\na,1,0.5,extra\nb,2,0.3\n", "is not a CSV table `estimate` wrote (a row has more fields than the header)"),
    ("id,level,pass_rate\na,1,0.5\nb,2,0.3,extra\n", "(Expected 3 fields in line 3, saw 4); make one with"),
])
def test_read_table_says_what_is_wrong_and_how_to_make_one(tmp_path, content, message):
    path = tmp_path / "t.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(CourseError, match=re.escape(f"table={path} ") + ".*" + re.escape(message)):
        read_table(path)
    with pytest.raises(CourseError, match=re.escape(f"table={tmp_path} is a folder; give the CSV file")):
        read_table(tmp_path)


@pytest.mark.parametrize(("row", "said"), [
    ("b,2,2,1,abc", "pass_rate abc, not a number from 0 to 1"),
    ("b,2,2,1,", "pass_rate missing, not a number from 0 to 1"),
    ("b,2,2,1,1.7", "pass_rate 1.7, not a number from 0 to 1"),
    ("b,2,2,1,-0.5", "pass_rate -0.5, not a number from 0 to 1"),
    ("b,2,2,0,0.9", "pass_rate 0.9 but 0 of 2 right; the table was changed after `estimate` wrote it"),
    ("b,2,-2,-1,0.5", "pass_rate 0.5 but -1 of -2 right; the table was changed after `estimate` wrote it"),
    ("b,2,x,1,0.5", "pass_rate 0.5 but 1 of x right; the table was changed after `estimate` wrote it"),
    ("b,2,2,y,0.5", "pass_rate 0.5 but y of 2 right; the table was changed after `estimate` wrote it"),
    ("b,abc,2,1,0.5", "level 'abc', not a whole number"),
    ("b,1.5,2,1,0.5", "level 1.5, not a whole number"),
])
def test_read_table_refuses_an_edited_row_naming_it_and_how_to_make_one(tmp_path, row, said):
    path = tmp_path / "t.csv"
    path.write_text(f"id,level,k,n_correct,pass_rate\na,1,2,1,0.5\n{row}\nc,,2,2,1.0\n", encoding="utf-8")
    fix = f"make one with `python -m course_lib estimate ... --out {path}`"
    with pytest.raises(CourseError, match=re.escape(f"table={path}: problem 'b' has {said}; {fix}")):
        read_table(path)


def outcomes_table(outcomes):
    """A difficulty table with these outcome strings (K = their length), as `estimate` writes it."""
    k = len(outcomes[0])
    n_correct = [o.count("1") for o in outcomes]
    return pd.DataFrame({"id": [f"q{i}" for i in range(len(outcomes))], "level": 1, "k": k, "n_correct": n_correct,
                         "pass_rate": [n / k for n in n_correct], "ci_low": 0.0, "ci_high": 1.0, "outcomes": outcomes})


FOUR = ["0000", "1000", "0100", "1100", "0111", "1111"]  # pass rates at K = 4: 0 .25 .25 .5 .75 1


@pytest.mark.parametrize(("k", "expected"), [
    # first two outcomes: 00 10 01 11 01 11; Wilson 95% at n = 2: 0 -> (0, .6576), 1 -> (.0945, .9055),
    # 2 -> (.3424, 1); e.g. 1 of 2: centre (.5 + 1.96^2 / 4) / (1 + 1.96^2 / 2) = .5,
    # half 1.96 sqrt(.25 / 2 + 1.96^2 / 16) / 2.9208 = .4055
    (2, {"outcomes": ["00", "10", "01", "11", "01", "11"], "n_correct": [0, 1, 1, 2, 1, 2],
         "pass_rate": [0.0, 0.5, 0.5, 1.0, 0.5, 1.0], "ci_low": [0.0, 0.0945, 0.0945, 0.3424, 0.0945, 0.3424],
         "ci_high": [0.6576, 0.9055, 0.9055, 1.0, 0.9055, 1.0]}),
    # first three: 000 100 010 110 011 111 -> 0 1 1 2 2 3 of 3
    (3, {"outcomes": ["000", "100", "010", "110", "011", "111"], "n_correct": [0, 1, 1, 2, 2, 3],
         "pass_rate": [0.0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1.0], "ci_low": [0.0, 0.0615, 0.0615, 0.2077, 0.2077, 0.4385],
         "ci_high": [0.5615, 0.7923, 0.7923, 0.9385, 0.9385, 1.0]}),
    (4, {"outcomes": FOUR, "n_correct": [0, 1, 1, 2, 3, 4], "pass_rate": [0.0, 0.25, 0.25, 0.5, 0.75, 1.0]}),
])
def test_pass_rates_at_k_recounts_the_first_k_outcomes(k, expected):
    table = outcomes_table(FOUR)
    fewer = pass_rates_at(table, k)
    assert {column: fewer[column].tolist() for column in expected} == expected
    assert fewer["k"].tolist() == [k] * 6 and fewer["id"].tolist() == table["id"].tolist()
    assert table.equals(outcomes_table(FOUR))  # the given table is left as it was
    assert pass_rates_at(outcomes_table(["1011"]), k)["n_correct"].tolist() == ["1011"[:k].count("1")]  # one row too


def test_pass_rates_at_refuses_a_k_outside_2_to_the_smallest_k():
    mixed = pd.concat([outcomes_table(FOUR), outcomes_table(["101"])], ignore_index=True)  # K = 4 and K = 3
    assert pass_rates_at(mixed, 3)["pass_rate"].tolist() == [0.0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1.0, 2 / 3]
    for k in (1, 4):
        with pytest.raises(CourseError, match=f"^k={k} must be between 2 and the table's K=3$"):
            pass_rates_at(mixed, k)
    with pytest.raises(CourseError, match="table has no 'outcomes' column; re-estimate it with `estimate`"):
        pass_rates_at(outcomes_table(FOUR).drop(columns="outcomes"), 2)


@pytest.mark.parametrize(("table", "k", "message"), [
    ([{"outcomes": "0110", "k": 4}], 2, "^table must be a pandas DataFrame, not list: give the table `estimate` returns, "
                                        "or read its CSV with `read_table`$"),
    ({"outcomes": ["0110"], "k": [4]}, 2, "^table must be a pandas DataFrame, not dict"),
    (pd.DataFrame({"outcomes": ["0110"]}), 2, "^table needs rows and a 'k' column"),
    (pd.DataFrame({"outcomes": [], "k": []}), 2, "^table needs rows and a 'k' column"),
    (outcomes_table(FOUR), "2", "^k='2' must be a whole number of samples, e.g. 4$"),
    (outcomes_table(FOUR), 2.0, "^k=2.0 must be a whole number of samples"),
    (outcomes_table(FOUR), True, "^k=True must be a whole number of samples")])
def test_pass_rates_at_names_a_table_that_is_no_data_frame_and_a_k_that_is_no_whole_number(table, k, message):
    """`pass_rates_at([...], 5)` raised AttributeError ('list' object has no attribute 'columns'), a text k a bare
    TypeError and a table without a 'k' column a KeyError: each is one line naming the parameter and the fix."""
    with pytest.raises(CourseError, match=message):
        pass_rates_at(table, k)


def rates(zeros: int, others: int, other_rate: float = 0.5) -> pd.DataFrame:
    return pd.DataFrame({"pass_rate": [0.0] * zeros + [other_rate] * others})


def test_check_pass_rates_stops_when_almost_every_rate_is_zero():
    check_pass_rates(rates(49, 0))  # fewer than 50 problems: too few to judge
    check_pass_rates(rates(95, 5))  # 95% zeros: at the limit, still allowed
    check_pass_rates(rates(0, 100, other_rate=1.0))  # all solved is not a format mismatch
    check_pass_rates(rates(96, 4), max_zero_share=0.97)
    check_pass_rates(rates(60, 0), min_problems=61)
    with pytest.raises(CourseError, match=re.escape(
            "96% of 100 problems have pass rate 0: the model almost never writes an answer the reward accepts; "
            "check the prompt and answer format (course_lib.prompts.prompt_text shows the prompt) and "
            "max_new_tokens before training, or pass check_pass_rates=False if the task is truly that hard")):
        check_pass_rates(rates(96, 4))
    with pytest.raises(CourseError, match=r"^100% of 50 problems have pass rate 0: .* or pass --allow-zero if"):
        check_pass_rates(rates(50, 0), override="--allow-zero")  # 50 problems are enough to judge
    with pytest.raises(CourseError, match="^50% of 10 problems"):
        check_pass_rates(rates(5, 5), min_problems=10, max_zero_share=0.4)


def test_difficulty_tables_estimates_each_model_of_the_profile_on_its_pool():
    from course_lib.problems import problems
    from course_lib.research.profiles import get_profile

    profile = dataclasses.replace(get_profile("smoke"), models=("tiny-s", "tiny-m"), task="arith", n_problems=5, k=3,
                                  temperature=0.7, max_new_tokens=20)
    tables = difficulty_tables(profile, seed=3, device="cpu", progress=False)
    assert list(tables) == ["tiny-s", "tiny-m"]
    pool = problems("arith", "train", 5, 3)
    for name, table in tables.items():
        # the same numbers as estimating the model by hand with the profile's settings (seed 3 for pool and samples)
        expected = estimate(*load_model(name, device="cpu"), pool, k=3, temperature=0.7, max_new_tokens=20, seed=3,
                            progress=False, cache_dir=None)  # sampled afresh, not read back from the entry just written
        pd.testing.assert_frame_equal(table, expected)
        assert table["id"].tolist() == [p.id for p in pool] and (table["k"] == 3).all()
        assert table.attrs["cost"]["completions"] == 15
    one_model = dataclasses.replace(profile, models=("tiny-s",))  # seed 0 unless told: its pool, its samples
    pd.testing.assert_frame_equal(difficulty_tables(one_model, device="cpu", progress=False)["tiny-s"],
                                  estimate(*load_model("tiny-s", device="cpu"), problems("arith", "train", 5, 0), k=3,
                                           temperature=0.7, max_new_tokens=20, seed=0, progress=False))


def test_difficulty_tables_load_each_model_on_the_device_asked_for(monkeypatch):
    from course_lib.research.profiles import get_profile

    asked = []
    monkeypatch.setattr("course_lib.difficulty.load_model",
                        lambda name, device=None: asked.append((name, device)) or (f"{name} model", "tokenizer"))
    monkeypatch.setattr("course_lib.difficulty.estimate", lambda model, tokenizer, pool, **settings: model)
    profile = dataclasses.replace(get_profile("smoke"), models=("tiny-s", "tiny-m"), task="arith", n_problems=5)
    assert difficulty_tables(profile, device="cuda:1", progress=False) == {"tiny-s": "tiny-s model",
                                                                           "tiny-m": "tiny-m model"}
    assert asked == [("tiny-s", "cuda:1"), ("tiny-m", "cuda:1")]  # never the loader's own choice


def test_the_vllm_backend_gets_each_chunk_and_the_settings_and_its_answers_are_graded(tiny_s, pool, monkeypatch):
    """With backend="vllm" (no GPU here: vLLM's sampler is replaced), estimate hands it each chunk's prompt ids, k,
    temperature, token budget, the chunk's seed and the model's stop tokens, and grades what comes back in each
    problem's answer format (here GSM8K asked for a boxed answer, whose own format would be '#### N')."""
    import course_lib.difficulty as difficulty
    from course_lib.sampling import checked_prompt_ids, chunk_seed, stop_token_ids

    model, tokenizer = tiny_s
    problems = [dataclasses.replace(p, source="gsm8k", answer_format="boxed") for p in pool[:3]]
    calls, answers = [], iter([p.answer for p in problems])

    def fake_vllm(*args):
        calls.append(args)
        return [[f"so \\boxed{{{next(answers)}}}", "no answer"] for _ in args[1]]

    monkeypatch.setattr(difficulty, "_sample_vllm", fake_vllm)
    monkeypatch.setattr(model.generation_config, "eos_token_id", [7, 9])  # as Qwen lists two: both must stop vLLM
    table = estimate(model, tokenizer, problems, k=2, temperature=0.7, max_new_tokens=16, seed=5, chunk_size=2,
                     cache_dir=None, progress=False, backend="vllm")
    ids, stop = checked_prompt_ids(model, tokenizer, problems, 16), stop_token_ids(model, tokenizer)
    assert calls == [(model, ids[:2], 2, 0.7, 16, chunk_seed(5, 0), stop), (model, ids[2:], 2, 0.7, 16, chunk_seed(5, 1), stop)]
    assert (table.n_correct.tolist(), table.format_share.tolist()) == ([1, 1, 1], [0.5, 0.5, 0.5])


def test_estimate_defaults_are_8_samples_at_temperature_1_with_128_tokens_in_chunks_of_32(tiny_s, monkeypatch,
                                                                                           capsys):
    import course_lib.difficulty as difficulty
    from course_lib.sampling import chunk_seed

    seen = []

    def fake_score(model, tokenizer, problems, id_lists, k, temperature, max_new_tokens, seed, backend="hf"):
        seen.append((len(problems), k, temperature, max_new_tokens, seed, backend))
        return _rows_for(problems, k)

    monkeypatch.setattr(difficulty, "_score_chunk", fake_score)
    model, tokenizer = tiny_s
    estimate(model, tokenizer, generate("arith", 33, "train", seed=9), cache_dir=None)
    assert seen == [(32, 8, 1.0, 128, chunk_seed(0, 0), "hf"), (1, 8, 1.0, 128, chunk_seed(0, 1), "hf")]
    assert "estimating pass rates (K=8)" in capsys.readouterr().err  # a progress bar by default
    estimate(model, tokenizer, generate("arith", 1, "train", seed=9), cache_dir=None, progress=False)  # one problem
    assert "estimating" not in capsys.readouterr().err and seen[-1][0] == 1


def test_bad_estimate_input_is_one_whole_message_before_sampling(tiny_s, pool, monkeypatch):
    import course_lib.difficulty as difficulty

    monkeypatch.setattr(difficulty, "_score_chunk", lambda *args, **kwargs: pytest.fail("sampled"))
    model, tokenizer = tiny_s
    cases = [({"problems": []}, "problems is empty; give at least one problem"),
             ({"problems": [pool[0], pool[0]]}, f"problems: ids must be unique (id {pool[0].id!r} appears more than once)"),
             ({"backend": "bogus"}, "backend='bogus' is unknown; use one of hf, vllm"),
             ({"max_new_tokens": 1000}, "max_new_tokens=1000 after the longest prompt ('arith-caf48df87c', 15 tokens) "
                                        "goes past the model's context of 256 tokens; use max_new_tokens <= 241")]
    for override, message in cases:
        arguments = {"problems": pool, "k": 2, "cache_dir": None, "progress": False, **override}
        with pytest.raises(CourseError) as refused:
            estimate(model, tokenizer, **arguments)
        assert str(refused.value) == message


def test_the_table_rounds_lengths_and_format_shares_and_its_cost_gives_seconds_to_the_hundredth(tiny_s, pool,
                                                                                                 monkeypatch,
                                                                                                 tmp_path):
    """A clock that ticks 0.123456 s per reading: two chunks of one sample each, five readings in all."""
    import itertools
    import types

    import course_lib.difficulty as difficulty

    clock = itertools.count(100.0, 0.123456)
    monkeypatch.setattr(difficulty, "time", types.SimpleNamespace(time=lambda: next(clock)))
    monkeypatch.setattr(difficulty, "_score_chunk", lambda model, tokenizer, problems, *rest, **kw: _rows_for(problems, 3))
    model, tokenizer = tiny_s
    table = estimate(model, tokenizer, pool[:4], k=3, chunk_size=2, cache_dir=None, progress=False)
    assert table.columns.tolist() == TABLE_COLUMNS
    assert (table.mean_length.tolist(), table.format_share.tolist()) == ([3.33] * 4, [0.3333] * 4)
    assert table.attrs["cost"] == {"completions": 12, "generated_tokens": 40, "clipped_completions": 0,
                                   "sampling_seconds": 0.62, "wall_seconds": 0.62}  # 5 x 0.123456 = 0.617...
    cached = estimate(model, tokenizer, pool[:4], k=3, chunk_size=2, cache_dir=tmp_path, progress=False)
    assert {key: cached.attrs["cost"][key] for key in ("sampling_seconds", "wall_seconds")} == {
        "sampling_seconds": 0.25, "wall_seconds": 0.62}  # with a cache: the two chunks' own seconds, summed


def test_the_cache_folder_is_the_argument_else_the_environment_else_home(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_folder("default") == tmp_path / ".cache" / "course_lib" / "difficulty"
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "env"))
    assert cache_folder("default") == tmp_path / "env"
    assert (cache_folder(tmp_path / "mine"), cache_folder(None)) == (tmp_path / "mine", None)
    file = tmp_path / "file"
    file.write_text("")
    with pytest.raises(CourseError) as refused:
        cache_folder(file)
    assert str(refused.value) == f"cache_dir={file} is a file; give a folder for the cache"
    monkeypatch.setenv("COURSE_CACHE_DIR", str(file))
    with pytest.raises(CourseError) as refused:
        cache_folder("default")
    assert str(refused.value) == f"COURSE_CACHE_DIR={file} is a file; give a folder for the cache or unset it"


def test_pass_rates_at_refuses_outcomes_that_lost_their_leading_zeros(tmp_path):
    """pandas reads `0001` as the integer 1: an AttributeError, or other pass rates once the column was text."""
    import pandas as pd

    from course_lib.difficulty import pass_rates_at

    table = pd.DataFrame({"id": ["a", "b"], "k": 4, "outcomes": ["0001", "1100"], "n_correct": [1, 2],
                          "pass_rate": [0.25, 0.5]})
    assert pass_rates_at(table, 2)["pass_rate"].tolist() == [0.0, 1.0]
    table.to_csv(tmp_path / "t.csv", index=False)
    for read in (pd.read_csv(tmp_path / "t.csv"), pd.read_csv(tmp_path / "t.csv").astype({"outcomes": str})):
        with pytest.raises(CourseError, match="outcomes must be strings of K 0s and 1s"):
            pass_rates_at(read, 2)


def test_pass_rates_at_leaves_out_what_it_cannot_restrict_to_the_first_k_samples():
    """`clipped`, `mean_length` and `format_share` count all K samples: kept beside k = 2 they made a truncated share
    of 2.67 (8 cut off of 2 samples)."""
    from course_lib import summarize_accuracy

    table = pd.DataFrame({"id": ["a", "b"], "level": [1, 2], "source": "arith", "k": 8, "n_correct": [2, 8],
                          "pass_rate": [0.25, 1.0], "ci_low": 0.0, "ci_high": 1.0, "mean_length": [96.0, 20.0],
                          "clipped": [8, 0], "outcomes": ["00000011", "11111111"], "format_share": [0.0, 1.0]})
    few = pass_rates_at(table, 2)
    assert few["n_correct"].tolist() == [0, 2] and few["k"].tolist() == [2, 2]
    assert not {"clipped", "mean_length", "format_share"} & set(few.columns)
    assert "truncated_share" not in summarize_accuracy(few)["overall"]


@pytest.mark.parametrize(("column", "value", "said"), [
    ("outcomes", "1111", "has outcomes '1111' with 0 of 4 right, not K grades of which n_correct are 1"),
    ("clipped", "9", "has clipped 9 with 0 of 4 right, not a count of samples from 0 to K"),
    ("format_share", "7.5", "has format_share 7.5 with 0 of 4 right, not a share from 0 to 1"),
    ("format_share", "1.5", "has format_share 1.5 with 0 of 4 right, not a share from 0 to 1"),
    ("clipped", "x", "has clipped 'x' with 0 of 4 right, not a count of samples from 0 to K"),
    ("format_share", "most", "has format_share 'most' with 0 of 4 right, not a share from 0 to 1"),
])
def test_a_table_whose_per_sample_columns_contradict_its_counts_is_refused(tmp_path, column, value, said):
    """`outcomes` of 1111 beside 0 of 4 right was read in silence: `pass_rates_at(t, 2)` then gave pass rate 1."""
    row = {"id": "a", "level": "1", "source": "arith", "k": "4", "n_correct": "0", "pass_rate": "0.0",
           "ci_low": "0", "ci_high": "0.49", "mean_length": "10", "clipped": "0", "outcomes": "0000",
           "format_share": "1.0", column: value}
    path = tmp_path / "t.csv"
    path.write_text(",".join(row) + "\n" + ",".join(row.values()) + "\n")
    fix = ("the table was changed after `estimate` wrote it; "
           f"make one with `python -m course_lib estimate ... --out {path}`")
    with pytest.raises(CourseError, match=re.escape(f"table={path}: problem 'a' {said}; {fix}")):
        read_table(path)


def test_a_table_with_every_sample_clipped_or_a_format_share_of_0_or_1_is_read(tmp_path):
    """The ends of each range are values `estimate` writes: all K samples cut off, none or all formatted."""
    path = tmp_path / "t.csv"
    path.write_text("id,level,k,n_correct,pass_rate,clipped,outcomes,format_share\n"
                    "a,1,4,0,0.0,4,0000,0.0\nb,1,4,1,0.25,0,0100,1.0\nc,1,4,2,0.5,2,0110,0.5\n")
    assert read_table(path)["clipped"].tolist() == [4, 0, 2]
