"""Real-data loaders on every file in ../shared/data, the hub path on stand-ins, and malformed rows."""

import json

import pytest

from course_lib import CourseError
from course_lib.answers import is_correct
from course_lib.data import (
    is_numeric_answer,
    load_aime2025,
    load_bbh,
    load_gsm8k,
    load_jsonl_problems,
    load_math,
    read_jsonl,
)


def test_gsm8k_files(shared_data):
    train = load_gsm8k(shared_data / "gsm8k", "train")
    test = load_gsm8k(shared_data / "gsm8k" / "test.jsonl", "test")
    assert (len(train), len(test)) == (7473, 1319)
    first = train[0]
    assert first.answer == "72" and first.source == "gsm8k" and first.level >= 1
    assert is_correct(first.solution, first.answer, "gsm8k")  # the worked solution grades itself correct
    assert len({p.id for p in train}) == len(train)


def test_math_files_levels_subjects_and_numeric_subset(shared_data):
    train = load_math(shared_data / "math", "train")
    test = load_math(shared_data / "math", "test")
    assert (len(train), len(test)) == (7500, 500)
    assert [sum(p.level == lv for p in test) for lv in range(1, 6)] == [43, 90, 105, 128, 134]
    assert [sum(p.level == lv for p in train) for lv in range(1, 6)] == [564, 1348, 1592, 1690, 2304]
    assert sum(p.level is None for p in train) == 2  # the two "Level ?" problems
    assert sum(p.subject == "Algebra" for p in test) == 124
    numeric = load_math(shared_data / "math", "test", numeric_only=True)
    assert 0 < len(numeric) < 500 and all(is_numeric_answer(p.answer) for p in numeric)
    low = load_math(shared_data / "math", "test", levels=(1, 2, 3))
    assert len(low) == 43 + 90 + 105


def test_bbh_files(shared_data):
    problems = load_bbh(shared_data / "bbh")
    assert len(problems) == 750
    assert {p.level for p in problems} == {3, 5, 7}
    seven = [p for p in problems if p.level == 7]
    assert sum(p.answer == "(G)" for p in seven) == 39
    assert is_correct("So the answer is (B).", problems[0].answer, "bbh") == (problems[0].answer == "(B)")


def test_aime_file(shared_data):
    problems = load_aime2025(shared_data / "aime2025")
    assert len(problems) == 30
    assert [p.answer for p in problems[:3]] == ["70", "588", "16"]
    assert problems[15].id == "2025-II-1" and problems[15].answer == "468"


def test_hub_path_normalises_hub_field_names(monkeypatch, shared_data):
    """The hub branch (offline here): load_dataset is replaced by rows in the hub's own field names."""
    import datasets

    math_rows = [json.loads(line) for line in open(shared_data / "math" / "test.jsonl")][:3]
    hub_rows = [{"problem": r["problem"], "solution": r["solution"], "type": r["subject"],
                 "level": f"Level {r['level']}"} for r in math_rows]  # hendrycks_math's shape: no answer field
    calls = []

    def fake_load_dataset(hub_id, config=None, split=None):
        calls.append((hub_id, config, split))
        return datasets.Dataset.from_list(hub_rows)

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    problems = load_math("DigitalLearningGmbH/MATH-lighteval", "test")
    assert calls == [("DigitalLearningGmbH/MATH-lighteval", None, "test")]
    assert [p.answer for p in problems] == [r["answer"] for r in math_rows]
    assert [p.level for p in problems] == [r["level"] for r in math_rows]


def test_hub_failure_is_a_clear_error(monkeypatch):
    import datasets

    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(CourseError, match="could not load openai/gsm8k .*pass a local JSON Lines path"):
        load_gsm8k("openai/gsm8k")


@pytest.mark.parametrize(
    ("lines", "loader", "message"),
    [
        (['{"question": "q", "answer": "#### 1"}', "{not json"], load_gsm8k,
         r"bad.jsonl:2: not JSON Lines \(Expecting property name enclosed in double quotes at column 2\)"),
        (['{"question": "q\x01", "answer": "#### 1"}'], load_gsm8k,
         r"bad.jsonl:1: not JSON Lines \(Invalid control character at column 16\)"),
        (['{"question": "q \\ud800", "answer": "#### 1"}'], load_gsm8k,
         r"bad.jsonl:1: field 'question' holds an escaped lone surrogate \(such as \\ud800\), which is no character"),
        (['{"question": "q", "answer": "1", "id": "\\udfff"}'], load_jsonl_problems, r"bad.jsonl:1: field 'id' holds an"),
        (['{"question": "q", "answer": "1", "level": -3}'], load_jsonl_problems,
         r"bad.jsonl:1: field 'level' should be a whole number >= 0 \(1 = easiest\), got -3"),
        (['{"question": "q", "answer": "1", "level": 2.0}'], load_jsonl_problems,
         r"bad.jsonl:1: field 'level' should be a whole number >= 0 \(1 = easiest\), got '2.0'"),
        (['{"question": "q"}'], load_gsm8k, r"bad.jsonl:1: missing field 'answer'"),
        (['{"question": "q", "answer": "no final line"}'], load_gsm8k, r"bad.jsonl:1: .*no '#### N'"),
        (['{"question": 3, "answer": "#### 1"}'], load_gsm8k, r"bad.jsonl:1: field 'question' should be str"),
        (['[1, 2]'], load_gsm8k, r"bad.jsonl:1: expected a JSON object"),
        (['{"problem": "p", "answer": "1", "level": "Level 9", "subject": "Algebra"}'], load_math,
         r"bad.jsonl:1: field 'level' 'Level 9'"),
        (['{"input": "i", "target": "B"}'], lambda p: load_bbh(p, n_objects=(3,)), r"bad.jsonl:1: field 'target' 'B'"),
        (['{"problem": "p", "answer": 1000}'], load_aime2025, r"bad.jsonl:1: field 'answer' '1000'"),
    ],
)
def test_malformed_row_names_file_line_and_problem(tmp_path, lines, loader, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CourseError, match=message):
        loader(path)


def test_missing_file_and_empty_file(tmp_path):
    with pytest.raises(CourseError, match="does not exist"):
        read_jsonl(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(CourseError, match="holds no rows"):
        read_jsonl(tmp_path / "empty.jsonl")


def test_a_numeric_answer_is_kept_as_the_file_writes_it(tmp_path):
    """A float would turn 1e16 into '1e+16' and drop digits of 12345678901234567890.0; the answer is the text, with
    an exponent written out in digits (what a model writes and a grader compares)."""
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(json.dumps({"question": f"q{n}", "answer": "X"}).replace('"X"', number)
                              for n, number in enumerate(("1e16", "12345678901234567890.0", "0.50",
                                                          "12345678901234567890", "2.5E-1", "-1.50e1"))))
    assert [p.answer for p in load_jsonl_problems(path)] == ["10000000000000000", "12345678901234567890.0", "0.50",
                                                            "12345678901234567890", "0.25", "-15.0"]


@pytest.mark.parametrize("source, completion", [("gsm8k", "#### 1000"), ("gsm8k", "#### 1,000"),
                                                ("math", "\\boxed{1000}"), ("arith", "#### 1000")])
def test_an_answer_written_with_an_exponent_grades_the_number_a_model_writes(tmp_path, source, completion):
    from course_lib.answers import is_correct

    path = tmp_path / "mine.jsonl"
    path.write_text(f'{{"question": "a thousand?", "answer": 1e3, "source": "{source}"}}\n')
    problem = load_jsonl_problems(path)[0]
    assert is_correct(completion, problem.answer, problem.source)
    assert not is_correct(completion.replace("1000", "100").replace("1,000", "100"), problem.answer, problem.source)


def test_an_answer_with_a_huge_exponent_is_refused_with_the_fix(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"question": "q", "answer": 1e400}\n')
    with pytest.raises(CourseError, match=r"mine.jsonl:1: field 'answer' 1e400 has over 100 digits.*put it in quotes"):
        load_jsonl_problems(path)


@pytest.mark.parametrize(("source", "answer", "rule"), [("bbh", "(H)", "an option"), ("bbh", "yes", "an option"),
                                                      ("bbh", "4", "an option"), ("aime2025", "1/2", "an integer 0-999"),
                                                      ("gsm8k", "72 clips", "one number"), ("gsm8k", "7 or 8", "one number"),
                                                      ("arith", "about 70", "one number")])
def test_an_answer_its_sources_grader_can_never_match_is_refused(tmp_path, source, answer, rule):
    """Every completion would score 0 on such a row, and `hard` would pick it first."""
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps({"question": "q", "answer": answer, "source": source}) + "\n")
    with pytest.raises(CourseError, match=rf"mine.jsonl:1: field 'answer' .* can never be graded right under source "
                                          rf"'{source}' \({rule}"):
        load_jsonl_problems(path)
    path.write_text(json.dumps({"question": "q", "answer": "(C)" if source == "bbh" else 70, "source": source}) + "\n")
    assert load_jsonl_problems(path)[0].answer in ("(C)", "70")


def test_gsm8ks_own_answer_field_in_a_file_is_read_as_the_number_after_its_mark(tmp_path):
    """Hostile round 19: `"answer": "... #### 72"` under source gsm8k was kept whole, so no completion could score:
    every such row had pass rate 0 and `hard` picked exactly those rows."""
    from course_lib.answers import is_correct

    path = tmp_path / "mine.jsonl"
    rows = [{"question": "q1", "answer": "Natalia sold 48 in April.\n48 + 24 = 72\n#### 72", "source": "gsm8k"},
            {"question": "q2", "answer": "#### 1,200", "source": "arith"},
            {"question": "q3", "answer": "#### 3\n#### 4", "source": "gsm8k"}]
    path.write_text("\n".join(json.dumps(row) for row in rows[:2]) + "\n")
    first, second = load_jsonl_problems(path)
    assert (first.answer, second.answer) == ("72", "1200") and is_correct("#### 72", first.answer, "gsm8k")
    assert first.solution.endswith("#### 72") and second.solution is None  # nothing worked out before the mark
    path.write_text(json.dumps(rows[2]) + "\n")
    with pytest.raises(CourseError, match=r"mine.jsonl:1: field 'answer' .* marks no one number after '####'"):
        load_jsonl_problems(path)



@pytest.mark.parametrize("source", [None, "math", "aime2025", "bbh"])
def test_gsm8ks_worked_answer_under_a_source_that_boxes_is_refused(tmp_path, source):
    """Hostile round 20: GSM8K's own rows saved without `source` (MATH's rules, the default) kept the worked answer
    whole as the reference: no completion could match it, and `hard` picked those rows."""
    path = tmp_path / "mine.jsonl"
    row = {"question": "q1", "answer": "48 + 24 = 72\n#### 72", **({"source": source} if source else {})}
    path.write_text(json.dumps(row) + "\n")
    with pytest.raises(CourseError) as refused:
        load_jsonl_problems(path)
    assert str(refused.value) == (f"{path}:1: field 'answer' '48 + 24 = 72\\n#### 72' is GSM8K's worked answer "
                                  f"(`... #### N`), which source {source or 'math'!r} never grades right; give the "
                                  "row \"source\": \"gsm8k\"")


def test_maths_worked_solution_as_the_answer_is_read_as_its_box_and_a_long_answer_refused(tmp_path):
    """Hostile round 21: MATH's own `solution` field saved as the answer (no `source`: MATH's rules) was kept whole:
    graded right only while under 300 characters, never once longer, so `hard` picked those rows."""
    worked = "First, " + "we expand the product carefully. " * 12 + r"So the answer is $\boxed{\frac{5}{2}}$."
    path = tmp_path / "mine.jsonl"
    rows = [{"question": "q1", "answer": worked}, {"question": "q2", "answer": r"\boxed{7}", "solution": "7 it is"}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    first, second = load_jsonl_problems(path)
    assert len(worked) > 300 and (first.answer, first.solution) == (r"\frac{5}{2}", worked)
    assert is_correct(r"\boxed{2.5}", first.answer, "math") and (second.answer, second.solution) == ("7", "7 it is")
    for answer, said in ((r"\boxed{1} then \boxed{2}", r"holds no one \\boxed\{\} answer"),
                         (r"\boxed{1", r"holds no one \\boxed\{\} answer"),
                         ("x" * 301, "is 301 characters, longer than the 300 math-verify is ever given")):
        path.write_text(json.dumps({"question": "q", "answer": answer}) + "\n")
        with pytest.raises(CourseError, match=f"mine.jsonl:1: field 'answer' .*{said}"):
            load_jsonl_problems(path)


def test_a_question_given_twice_in_a_file_is_refused_unless_its_rows_have_ids(tmp_path):
    """Round 19: a row pasted twice (no ids) became two problems, counted twice by estimate and evaluate; the same
    question with two answers loaded too (one of them can never be right)."""
    path = tmp_path / "mine.jsonl"
    row = {"question": "What is 2+3?", "answer": "5", "source": "gsm8k"}
    other = {"question": "What is 2+4?", "answer": "6", "source": "gsm8k"}
    path.write_text("\n".join(json.dumps(r) for r in (row, other, row)) + "\n")
    with pytest.raises(CourseError, match=r"mine.jsonl:3: the question of line 1 again \(a row pasted twice"):
        load_jsonl_problems(path)
    path.write_text("\n".join(json.dumps(r) for r in (row, {**row, "answer": "6"})) + "\n")
    with pytest.raises(CourseError, match=r"mine.jsonl:2: the question of line 1 again, with answer '6' where line 1 "
                                          r"has '5'"):
        load_jsonl_problems(path)
    path.write_text("\n".join(json.dumps({**row, "id": n}) for n in ("a", "b")) + "\n")
    assert [p.id for p in load_jsonl_problems(path)] == ["a", "b"]  # two problems that share a question, on purpose


@pytest.mark.parametrize("uid", ["q1 ", " q1", "", "q\n1", 0])
def test_round_24_an_id_with_spaces_around_it_or_empty_is_refused(tmp_path, uid):
    """Hostile round 24: an id `q1 ` (or an empty one) passed through estimate's table and select, then `train
    --ids` read the ids file stripped and trained on `q1`, another problem, or on one problem fewer."""
    path = tmp_path / "mine.jsonl"
    rows = [{"id": uid, "question": "1+1?", "answer": "2"}, {"id": "q1", "question": "2+2?", "answer": "4"}]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    if uid == 0:  # a whole number is a fine id
        assert [p.id for p in load_jsonl_problems(path)] == ["0", "q1"]
        return
    with pytest.raises(CourseError, match="is empty or has spaces around it or a line break"):
        load_jsonl_problems(path)
