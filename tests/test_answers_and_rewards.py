"""Answer extraction and reward functions: hand-checked cases, and no crash or hang on any string."""

import re
import time
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib.answers import (
    exact_value,
    extract_boxed,
    extract_hash_answer,
    extract_integer,
    extract_option,
    extract_tagged,
    in_format,
    is_correct,
    math_equal,
    normalize_number,
    option_answers,
)
from course_lib.rewards import completion_text, correctness_reward, format_reward

SOURCES = ["arith", "shuffle", "gsm8k", "math", "bbh", "aime2025", "tagged"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3+4=7\n#### 7", "7"),
        ("#### 1,234", "1234"),  # GSM8K writes thousands with commas
        ("#### $5.00", "5"),
        ("#### 3\n#### 4", None),  # two different answers: a hedge, no answer
        ("#### 4\n#### 4.0", "4"),  # the same answer marked twice is one answer
        ("#### C", "C"),  # shuffle answers are letters
        ("no marker", None),
        ("####", None),
    ],
)
def test_extract_hash_answer(text, expected):
    assert extract_hash_answer(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"so \boxed{42}.", "42"),
        (r"\boxed{\frac{1}{2}} then \boxed{\sqrt{3}}", None),  # two different boxes: a hedge
        (r"\boxed{2} so \boxed{ 2 }", "2"),  # one answer, restated
        (r"\fbox{x^{2}}", "x^{2}"),
        (r"\fbox{1} then \fbox{2}", None),  # \fbox too
        (r"\fbox{1} then \boxed{2}", None), (r"\boxed{1} then \fbox{2}", None),  # either kind of box
        (r"\boxed{\boxed{3}}", r"\boxed{3}"),  # a box inside a box is its content
        (r"\boxed{unclosed", None),
        ("nothing", None),
    ],
)
def test_extract_boxed(text, expected):
    assert extract_boxed(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("So the answer is (B).", "(B)"), ("(A) or (G)", None), ("(H)", None), ("B", None),
     ("So the answer is Bob.", None),  # a name, not option (B)
     ("the answer is: C", "(C)"), ("The answer is (A), not (B)", "(A)"),  # a rejected option: no second answer
     ("the answer is Dave, or (E)", "(E)"),
     ("(C) first, then the answer is B.", "(B)")],
)
def test_extract_option(text, expected):
    assert extract_option(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [(r"\boxed{070}", "70"), ("the answer is 588", "588"), ("<answer> 16 </answer>", "16"), ("none", None),
     ("#### 42\nchecking: 7", "42"), ("<answer>42</answer> (checked: 7)", "42"),  # the marked answer, not the last number
     ("<answer>42</answer> (not 7)", None),  # a rejected value names a second one (hostile round 30, left)
     ("12, then \\boxed{3", None), ("12\n#### ", None), ("12 <answer>3", None),  # a mark that cannot be read: none
     ("The answer is \u221213", "-13"), ("The answer is \u2212 13", "-13"),  # a typeset minus, spaced or not
     ("so we get \u2212 12", "-12")],  # the last number too
)
def test_extract_integer(text, expected):
    assert extract_integer(text) == expected


def test_more_stated_options_than_max_marks_give_none():
    from course_lib.answers import MAX_MARKS, option_answers

    assert option_answers("the answer is (A). " * MAX_MARKS) == ["(A)"] * MAX_MARKS
    assert option_answers("the answer is (A). " * (MAX_MARKS + 1)) == [None]


def test_more_hash_marks_than_max_marks_give_none():
    from course_lib.answers import MAX_MARKS, hash_answers

    assert hash_answers("#### 4\n" * MAX_MARKS) == ["4"] * MAX_MARKS
    assert hash_answers("#### 4\n" * (MAX_MARKS + 1)) == [None]


def test_the_grader_fingerprint_changes_with_the_grading_packages(monkeypatch):
    """A cached grade is kept only while the same grader grades: another version of math-verify, of its LaTeX parser
    or of sympy (which does its comparison), or one of them missing, is another fingerprint."""
    import importlib.metadata
    import re

    import course_lib.answers as answers

    installed = importlib.metadata.version

    def fingerprint(changed=None, missing=None):
        def version(name):
            name = re.sub(r"[-_.]+", "-", name).lower()  # how importlib.metadata finds a distribution
            if name == missing:
                raise importlib.metadata.PackageNotFoundError(name)
            return installed(name) + (".post1" if name == changed else "")

        monkeypatch.setattr(importlib.metadata, "version", version)
        monkeypatch.setattr(answers, "_GRADER", None)
        return answers.grader_fingerprint()

    same = fingerprint()
    assert fingerprint() == same
    others = [fingerprint(changed=name) for name in ("math-verify", "latex2sympy2-extended", "sympy")]
    assert len({same, *others, fingerprint(missing="sympy")}) == 5


def test_extract_tagged_takes_the_one_tag_and_refuses_several():
    assert extract_tagged("so <answer> 2 </answer>") == "2"
    assert extract_tagged("<answer>1</answer> <answer> 2 </answer>") is None  # several guesses score 0
    assert extract_tagged("<answer>open") is None


def test_extract_tagged_reads_from_its_tag_to_the_first_close_within_the_limit():
    from course_lib.answers import MAX_TAGGED

    assert extract_tagged("</answer> then <answer>42</answer>") == "42"  # a stray close before the tag is not its end
    assert extract_tagged("<answer>4</answer>2</answer>") == "4"  # the first close after the tag ends it
    assert extract_tagged("<answer>" + "7" * MAX_TAGGED + "</answer>") == "7" * MAX_TAGGED  # at the limit: read
    assert extract_tagged("<answer>" + "7" * (MAX_TAGGED + 1) + "</answer>") is None  # beyond it: no answer


@pytest.mark.parametrize(
    ("predicted", "reference", "equal"),
    [
        ("1/2", r"\frac{1}{2}", True),
        (r"\frac{2}{4}", r"\frac{1}{2}", True),
        ("0.5", r"\frac12", True),
        ("3", r"\frac{1}{2}", False),
        (None, "3", False),
        ("x" * 1000, "3", False),  # too long to hand to math-verify
        ("3.1415926", "3.1415927", True),  # decimals to 6 places (math-verify's default, kept on purpose)
        ("0.333333", r"\frac{1}{3}", True),
        ("3.14159", "3.1416", False),
        ("1\\,000", "1000", True),  # LaTeX's thousands separators, as MATH solutions write them
        ("1000", "12{,}345", False),
        ("12{,}345", "12345", True),
        ("1\\,00", "100", False),  # not a group of three: not a separator
        ("1\\ 000", "1000", True),
        ("1000", "1 000", True),  # SI style
        ("1 2", "12", False),
        ("7 \\mid 5", "5", False),  # math-verify read the number on the right of a divisibility bar
        ("2 | 3", "3", False),
        ("|-3|", "3", True),  # an absolute value's bars come in pairs
        (r"\{x | x > 0\}", r"\{x | x > 0\}", True),  # a set-builder bar the reference has too
    ],
)
def test_math_equal_uses_math_verify(predicted, reference, equal):
    assert math_equal(predicted, reference) is equal


def test_math_verify_sees_answers_of_up_to_300_characters_on_either_side():
    """An answer longer than MAX_MATH_CHARS (300) is wrong without asking math-verify; one of exactly 300 is asked."""
    from course_lib.answers import MAX_MATH_CHARS

    half = r"\frac{1}{2}"
    at_limit = half + " " * (MAX_MATH_CHARS - len(half))  # math-verify reads it as 1/2
    over = at_limit + " "
    assert math_equal(at_limit, "0.5") and math_equal("0.5", at_limit)
    assert not math_equal(over, "0.5") and not math_equal("0.5", over)


def test_an_empty_hash_mark_after_the_asked_answer_is_no_answer_and_no_hedge():
    """A `####` with nothing after it marks no answer (unlike a box or tag left open, which hides one)."""
    assert is_correct("The answer is \\boxed{7}.\n####", "7", "math")
    assert is_correct("<answer>7</answer>\n####", "7", "arith", "tagged")
    assert not is_correct("The answer is \\boxed{7}.\n<answer>8", "7", "math")


@pytest.mark.parametrize(
    ("completion", "answer", "source", "correct"),
    [
        ("12+3=15\n#### 15", "15", "arith", True),
        ("12+3=16\n#### 16", "15", "arith", False),
        ("Natalia sold...\n#### 72", "72", "gsm8k", True),
        ("ABC\n#### B", "B", "shuffle", True),
        (r"\boxed{\dfrac{1}{2}}", r"\frac{1}{2}", "math", True),
        ("So the answer is (C).", "(C)", "bbh", True),
        (r"\boxed{70}", "70", "aime2025", True),
        ("<answer>9</answer>", "9", "tagged", True),
    ],
)
def test_is_correct_by_source(completion, answer, source, correct):
    assert is_correct(completion, answer, source) is correct


@pytest.mark.parametrize(("text", "expected"), [
    ("007", "7"), ("-3.0", "-3"), ("1,000", "1000"), (" 5. ", "5"), ("1,234,567", "1234567"), ("1,2", "1,2"),
    ("-0.0", "0"), ("-0", "0"), (".5", "0.5"), ("1.50", "1.5"), ("1.050", "1.05"), ("$5.00", "5"), ("-3.10", "-3.1"),
    ("Paris.", "Paris"), ("XIX.", "XIX"), ("x..", "x"),  # a word keeps its letters and loses its full stops
])
def test_normalize_number(text, expected):
    assert normalize_number(text) == expected


@pytest.mark.parametrize("extract", [extract_hash_answer, extract_boxed, extract_option, extract_tagged, extract_integer])
def test_a_completion_that_is_not_a_string_has_no_answer(extract):
    for thing in (None, 42, b"#### 7", ["#### 7"]):
        assert extract(thing) is None


def test_an_explicit_format_is_graded_by_the_source_rules():
    assert is_correct(r"so \boxed{042}", "42", "aime2025", "boxed") and is_correct("<answer>7.0</answer>", "7", "arith",
                                                                                   "tagged")
    assert is_correct("So the answer is (B).", "(B)", "bbh", "option") and not is_correct("(B)", "(C)", "bbh", "option")
    assert is_correct("<answer>(B)</answer>", "(B)", "bbh", "tagged") and not is_correct("<answer>BX</answer>", "(B)",
                                                                                      "bbh", "tagged")


def test_each_math_verify_step_runs_under_a_cpu_time_limit_and_a_wall_clock_backstop(monkeypatch):
    """Each parse and the comparison are bounded (2 s of CPU time): without a limit math-verify can hang on a short
    input. Its own alarm (wall-clock time) is only the backstop."""
    import signal

    import math_verify

    from course_lib import answers

    calls = []

    def seen(what, limits):
        calls.append((what, limits, 0 < signal.getitimer(signal.ITIMER_VIRTUAL)[0] <= answers.MATH_TIMEOUT + 0.1))

    monkeypatch.setattr(answers, "_WARM", True)
    monkeypatch.setattr(math_verify, "parse", lambda text, **limits: seen(text, limits) or [text])
    monkeypatch.setattr(math_verify, "verify", lambda gold, guess, **limits: seen(gold + guess, limits))
    answers._math_verify("1/2", "0.5")
    assert calls == [("$0.5$", {"parsing_timeout": 60}, True), ("$1/2$", {"parsing_timeout": 60}, True),
                     (["$0.5$", "$1/2$"], {"timeout_seconds": 60}, True)]
    assert signal.getitimer(signal.ITIMER_VIRTUAL)[0] == 0  # no timer left running


def test_a_right_math_answer_is_graded_right_however_long_a_busy_machine_keeps_it_waiting(monkeypatch):
    """Hostile round 20: at load 8 on 2 cores, math-verify's 2 s wall-clock alarm graded right answers wrong (and
    the wrong grades were cached). Waiting for a core costs no CPU time, so it no longer counts."""

    import math_verify

    from course_lib.answers import _math_verify

    verify = math_verify.verify

    def slow(gold, guess, **limits):
        time.sleep(2.5)  # wall-clock time a process spends waiting, as it does for a core on a busy machine
        return verify(gold, guess, **limits)

    monkeypatch.setattr(math_verify, "verify", slow)
    assert _math_verify(r"\frac{2}{4}", "0.5") is True


def test_a_source_or_format_without_a_checker_is_one_whole_message():
    with pytest.raises(ValueError) as source:
        is_correct("#### 7", "7", "nope", "hash")
    assert str(source.value) == ("source='nope' has no answer checker; sources: arith, shuffle, tinymath, gsm8k, math, "
                                 "bbh, aime2025, tagged")
    with pytest.raises(ValueError) as answer_format:
        is_correct("#### 7", "7", "arith", "nope")
    assert str(answer_format.value) == "answer_format='nope' has no answer checker; formats: hash, boxed, tagged, option"
    with pytest.raises(ValueError, match="source='GSM8K' has no answer checker"):  # the source named, not the format
        is_correct("#### 7", "7", "GSM8K")
    with pytest.raises(ValueError, match="answer_format='Hash' has no answer checker"):  # was a KeyError
        in_format("#### 7", "Hash")


def test_rewards_take_trl_keyword_columns():
    completions = ["3+4=7\n#### 7", "#### 8", [{"role": "assistant", "content": "#### 7"}]]
    assert correctness_reward(completions, answer=["7", "7", "7"], source=["arith"] * 3) == [1.0, 0.0, 1.0]
    assert format_reward(completions, source=["arith"] * 3) == [1.0, 1.0, 1.0]
    # TRL passes extra dataset columns; unknown ones are ignored
    assert correctness_reward(["#### 7"], answer=["7"], source=["arith"], level=[1], trainer_state=None) == [1.0]


@pytest.mark.parametrize(("completion", "text"), [
    ("3+4=7\n#### 7", "3+4=7\n#### 7"),
    ([{"role": "assistant", "content": "#### 7"}], "#### 7"),
    ([{"role": "user", "content": "12+3?"}, {"role": "assistant", "content": "#### 15"}], "#### 15"),
    ([], ""), ([{"role": "assistant"}], ""), ([{"role": "assistant", "content": None}], ""), (["#### 7"], ""),
    (None, ""), (7, ""),
], ids=["plain", "one message", "last message", "no message", "no content", "content None", "list of text", "None",
        "a number"])
def test_completion_text_reads_the_last_messages_content_and_nothing_else(completion, text):
    assert completion_text(completion) == text


def test_a_column_given_once_applies_to_every_completion_and_the_default_source_is_arith():
    """TRL passes a column per completion; a caller may give one value for all. Without a source, arith is assumed."""
    assert correctness_reward(["#### 7", "#### 8"], answer="7", source="arith") == [1.0, 0.0]
    assert correctness_reward(["#### 7"], answer=["7"]) == [1.0]
    assert format_reward(["3+4=7\n#### 7", "ABC\n#### B"]) == [1.0, 0.0]
    assert format_reward(["ABC\n#### B"], source="shuffle") == [1.0]


def test_format_reward_reads_completions_of_up_to_max_scan_characters():
    from course_lib.answers import MAX_SCAN

    at_limit = "#### " + "1" * (MAX_SCAN - 5)
    assert format_reward([at_limit, at_limit + "1"], source="arith") == [1.0, 0.0]


@pytest.mark.parametrize(("completion", "source", "reward"), [
    ("3+4=7\n7*2=14\n#### 14", "arith", 1.0), ("#### -3", "arith", 1.0), ("#### -", "arith", 0.0),
    ("3+4=7\n#### 7\nmore", "arith", 0.0), ("3+4=\n#### 7", "arith", 0.0),
    ("ABC\nBCA\n#### B", "shuffle", 1.0), ("#### BCA", "shuffle", 0.0), ("AB\n#### A", "shuffle", 0.0),
    ("#### H", "shuffle", 0.0),
    ("work <answer>42</answer>", "tagged", 1.0), ("<answer>42</answer> and more", "tagged", 0.0),
    ("<answer>4</answer><answer>2</answer>", "tagged", 0.0),
], ids=lambda value: value.replace("\n", " / ") if isinstance(value, str) else None)  # no backslash in an id
def test_format_reward_accepts_exactly_each_tasks_shape(completion, source, reward):
    assert format_reward([completion], source=[source]) == [reward]


def test_rewards_score_missing_answers_zero_and_refuse_an_unknown_source():
    from course_lib import CourseError

    assert correctness_reward(["#### 7", "#### 7"], answer=[None, "7"]) == [0.0, 1.0]  # one problem's answer missing
    # hostile round 25: a dataset whose reference column has another name (TRL passes it as `target`), or that has
    # no source column beside MATH or BBH answers, scored every completion 0 in silence: every group dead
    with pytest.raises(CourseError, match="got no `answer` column .it got target and source.: every completion would"):
        correctness_reward(["#### 7"], target=["7"], source=["arith"])
    for reference in (r"\frac{1}{2}", "(B)", "7.5"):
        with pytest.raises(CourseError, match=f"no `source` column, so answers are graded as arith's .* answer "
                                              f"{re.escape(repr(reference))} is no whole number"):
            correctness_reward(["so \\boxed{x}"], answer=[reference])
    with pytest.raises(CourseError, match="'klingon' has no answer checker"):  # a dataset error, before training
        correctness_reward(["#### 7"], answer=["7"], source=["klingon"])
    for source in ("klingon", "Arith", "gsm8k"):  # a typo, or a source with no shape: one line, not zeros
        with pytest.raises(CourseError, match=f"source/answer_format '{source}' has no format shape"):
            format_reward(["#### 7"], source=[source])
    with pytest.raises(CourseError, match="source/answer_format 'weird' has no format shape"):
        format_reward(["#### 7"], source=["arith"], answer_format=["weird"])


def test_format_reward_reads_the_format_a_problem_asks_for():
    """A review found `arith` asked in `boxed` scored 0 for a right, boxed answer (the source's shape was checked)."""
    completions = ["3+4=7\n\\boxed{7}", "3+4=7\n#### 7", "7"]
    assert format_reward(completions, source=["arith"] * 3, answer_format=["boxed"] * 3) == [1.0, 0.0, 0.0]
    assert format_reward(completions, source=["arith"] * 3, answer_format=["hash"] * 3) == [0.0, 1.0, 0.0]
    assert format_reward(completions, source=["gsm8k"] * 3, answer_format=["boxed"] * 3) == [1.0, 0.0, 0.0]


@pytest.mark.parametrize("blank", [pd.NA, pd.NaT, np.float32("nan"), Decimal("NaN"), float("nan"), "", "  "])
def test_a_blank_reference_answer_is_missing_and_scores_0(blank):
    """Hostile round 15: `pd.NA` (a nullable column's blank) matched `#### <NA>`, a scalar NaN became "nan"."""
    with pytest.raises(ValueError, match="the reference answer is missing"):
        is_correct(f"#### {blank}", blank, "gsm8k")
    assert correctness_reward([f"#### {blank}", r"\boxed{}"], answer=[blank, blank], source=["gsm8k", "math"]) == [0.0] * 2
    assert correctness_reward([f"#### {blank}"], answer=blank, source="gsm8k") == [0.0]


def test_numpy_scalars_are_one_answer_for_every_completion():
    assert correctness_reward(["#### 7", "#### 8"], answer=np.int64(7), source="gsm8k") == [1.0, 0.0]
    assert correctness_reward(["#### 7"], answer=np.float32(7), source="gsm8k") == [1.0]


@pytest.mark.parametrize("completion", [
    r"The answer is 2 \times 13.", "2 × 13", r"2 \cdot 13", "2*13", "3 · 13", "100 - 13", "12 + 13", r"12 \pm 13",
    r"answer: 12 \text{ or } 13", r"12 \lor 13", "12 ∨ 13", "12 | 13", "12 & 13", "12 (maybe 13)", "12. Or 13.",
    "12 — or 13", "12 or else 13", "12 to 13", "12 ... 13", "It is 12, but it could be 13."])
def test_round_15_aime_expressions_and_hedges_score_0(completion):
    assert not is_correct(completion, "13", "aime2025")


@pytest.mark.parametrize(("completion", "answer", "source"), [
    (r"The answer is (B) \text{ or } (C)", "(B)", "bbh"), (r"The answer is (B) \lor (C)", "(B)", "bbh"),
    ("The answer is (B) ∨ (C)", "(B)", "bbh"), ("The answer is (B) [or (C)]", "(B)", "bbh"),
    ("The answer is (B); alternatively (C)", "(B)", "bbh"), ("The answer is (B) else (C)", "(B)", "bbh"),
    (r"\boxed{7 \text{ (maybe 8)}}", "7", "math"), (r"\boxed{\frac68}", r"\frac{3}{4}", "tinymath"),
])
def test_round_15_hedges_score_0(completion, answer, source):
    assert not is_correct(completion, answer, source)


@pytest.mark.parametrize(("completion", "answer", "source"), [
    ("5 + 8 = 13", "13", "aime2025"), ("The answer is -13", "-13", "aime2025"), ("So we get 2 and then 13", "13", "aime2025"),
    ("There were 12 apples.\n13", "13", "aime2025"), (r"\boxed{\frac34}", r"\frac{3}{4}", "tinymath"),
    (r"\boxed{\dfrac34}", r"\frac{3}{4}", "tinymath"), (r"\boxed{-\frac34}", r"-\frac{3}{4}", "tinymath"),
])
def test_round_15_rules_keep_plain_right_answers(completion, answer, source):
    assert is_correct(completion, answer, source)


ADVERSARIAL = st.one_of(
    st.text(max_size=2000),
    st.text(alphabet="#{}()\\boxed<>/answer0123456789 \n", max_size=3000),
    st.builds(lambda s, n: s * n, st.sampled_from(["\\boxed{", "{", "####", "(A)", "<answer>", "1,", "9" * 50]),
              st.integers(1, 20_000)),
)


@settings(max_examples=150, deadline=None)
@given(text=ADVERSARIAL, answer=st.text(max_size=50), source=st.sampled_from(SOURCES))
def test_rewards_never_raise_on_any_string(text, answer, source):
    for reward in (correctness_reward, format_reward) if source in ("arith", "shuffle", "tinymath") else (correctness_reward,):
        scores = reward([text, [{"role": "assistant", "content": text}]], answer=[answer] * 2, source=[source] * 2)
        assert len(scores) == 2 and all(score in (0.0, 1.0) for score in scores)


def _in_a_thread(function, *args, **kwargs):
    """function(*args, **kwargs) called from a thread that is not the main one."""
    import threading

    result = {}
    thread = threading.Thread(target=lambda: result.update(value=function(*args, **kwargs)))
    thread.start()
    thread.join(timeout=180)
    assert not thread.is_alive(), "the call hung"
    return result["value"]


def test_math_rewards_work_from_a_thread_that_is_not_the_main_one():
    # 0.5 == \frac{1}{2} only through math-verify, whose own timeout (signal.alarm) works in the main thread only
    assert normalize_number("0.5") != normalize_number(r"\frac{1}{2}")
    completions = [r"so \boxed{0.5}", r"so \boxed{0.25}"]
    assert _in_a_thread(correctness_reward, completions, answer=[r"\frac{1}{2}"] * 2, source=["math"] * 2) == [1.0, 0.0]


def test_math_equal_from_a_thread_stays_bounded_and_its_helper_restarts():
    import course_lib.answers as answers

    # a short tower math-verify's comparison never finishes without its timeout: the helper's timeout answers False
    assert _in_a_thread(math_equal, r"9^{9^{9^{9}}}", "1") is False
    answers._WORKER[0].kill()  # a helper that died is replaced on the next call
    answers._WORKER[0].wait()
    assert _in_a_thread(math_equal, r"\frac{2}{4}", "0.5") is True


@pytest.mark.parametrize("column", ["answer", "source", "answer_format"])
def test_a_column_of_the_wrong_length_is_an_error_naming_it(column):
    from course_lib import CourseError

    columns = {"answer": ["7", "7"], "source": ["arith", "arith"], "answer_format": ["hash", "hash"]}
    columns[column] = columns[column][:1]
    with pytest.raises(CourseError, match=f"^{column} has 1 values for 2 completions; give one per completion"):
        correctness_reward(["#### 7", "#### 7"], **columns)
    if column != "answer":  # format_reward reads no answer
        with pytest.raises(CourseError, match=f"^{column} has 1 values for 2 completions"):
            format_reward(["#### 7", "#### 7"], source=columns["source"], answer_format=columns["answer_format"])


@pytest.mark.parametrize(
    ("completion", "answer", "source", "correct"),
    [
        ("#### ٤٢", "42", "arith", True),  # Arabic-Indic digits are digits
        ("#### ４２", "42", "gsm8k", True),  # so are fullwidth ones
        ("#### 42", "٤٢", "gsm8k", True),  # on the reference's side too
        ("#### ١,٢٠٠", "1200", "gsm8k", True),  # with an ASCII thousands separator
        (r"so \boxed{４２}", "42", "math", True),
        ("I get ٤٢ in the end", "42", "aime2025", True),
        ("#### ٤٣", "42", "arith", False),  # the value still has to match
        ("#### ²", "2", "arith", False),  # a superscript is not a decimal digit
        ("#### ½", "0.5", "gsm8k", False),  # nor is a vulgar fraction
    ],
)
def test_any_scripts_decimal_digits_count_as_their_value(completion, answer, source, correct):
    assert is_correct(completion, answer, source) is correct


def test_normalize_number_maps_decimal_digits_only():
    assert [normalize_number(x) for x in ["٤٢", "٠٠٧", "４２.００", "١٢٫٥", "Ⅻ"]] == ["42", "7", "42", "12٫5", "Ⅻ"]


def test_math_equal_in_the_main_thread_is_bounded_by_its_own_timeouts_and_a_failure_is_wrong(monkeypatch):
    import math_verify

    assert math_equal(r"9^{9^{9^{9}}}", "1") is False  # without math-verify's comparison timeout this never returns

    def broken(*args, **kwargs):
        raise ValueError("odd LaTeX")

    monkeypatch.setattr(math_verify, "parse", broken)
    assert math_equal(r"\frac{2}{4}", "0.5") is False  # math-verify failing is an unparsable answer: wrong


# One marked answer counts: a completion that marks several different answers hedges and scores 0 whichever is
# right; the same answer marked again, and text outside the marked answer, change nothing.
HEDGES = [
    # GSM8K and the procedural tasks: `#### N`
    ("#### 7\n#### 8", "7", "gsm8k"), ("#### 8\n#### 7", "7", "gsm8k"), ("3+4=7\n#### 6\n#### 7", "7", "arith"),
    ("#### 7\n####", "7", "arith"),  # a second mark with no answer
    ("#### 7 or 8", "7", "gsm8k"), ("#### 7, 8", "7", "gsm8k"), ("#### 7 #### 8", "8", "gsm8k"),
    ("".join(f"#### {n}\n" for n in range(20)), "7", "gsm8k"),  # every number up to 19
    ("ABC\n#### A\n#### B", "B", "shuffle"), ("ABC\n#### A B", "A", "shuffle"),
    ("#### 7\n" + " thinking" * 1000 + "\n#### 8", "8", "gsm8k"),  # far apart: marks are counted in the whole text
    ("#### Step 1\n#### 7\n#### 8", "8", "gsm8k"),  # a heading is skipped, the two answers are not
    # MATH: `\boxed{}` (and `\fbox{}`)
    (r"\boxed{1} or \boxed{2}", "2", "math"), (r"\boxed{2} \fbox{1}", "2", "math"),
    (r"\boxed{\frac{1}{2}} \boxed{0.25}", "0.5", "math"), (r"\boxed{1 \lor 2}", "2", "math"),
    (r"\boxed{1 \vee 2}", "1", "math"), (r"\boxed{1 \text{ or } 2}", "2", "math"), (r"\boxed{x=1 \lor x=2}", "2", "math"),
    ("".join(rf"\boxed{{{n}}} " for n in range(30)), "7", "math"),  # more boxes than MAX_MARKS
    (r"\boxed{2} and then \boxed{3", "2", "math"),  # a second box left open
    (r"\boxed{2}" + " thinking" * 1000 + r"\boxed{3}", "3", "math"),
    # MATH asked for `<answer>` tags
    ("<answer>1</answer> <answer>2</answer>", "2", "math"), (r"<answer>1 \lor 2</answer>", "2", "math"),
    ("<answer>7</answer>\n<answer>8</answer>", "8", "tagged"), ("<answer>7 or 8</answer>", "7", "tagged"),
    # BBH: `So the answer is (X).`
    ("(A) (B) (C) (D) (E) (F) (G)", "(G)", "bbh"), ("(A)\n(B)\n(C)\n(D)\n(E)\n(F)\n(G)", "(A)", "bbh"),
    ("So the answer is (A) or (G).", "(G)", "bbh"), ("So the answer is (A) (B) (C) (D) (E) (F) (G).", "(C)", "bbh"),
    ("So the answer is (A), (B), (C).", "(B)", "bbh"), ("So the answer is A or B.", "B", "bbh"),
    ("So the answer is (A)/(B).", "(A)", "bbh"), ("So the answer is (A) and (B).", "(B)", "bbh"),
    ("So the answer is (A). So the answer is (B).", "(B)", "bbh"),
    ("So the answer is (A).\n" + "So the answer is (B).\n", "(A)", "bbh"),
    ("Alice has (C) or maybe (E).", "(E)", "bbh"),  # no stated answer, two options written
    ("the answer is either (A) or (B)", "(A)", "bbh"),
    ("So the answer is (A). Final answer: **B**", "(A)", "bbh"),  # a bold option after a stated one, as a box is
    ("So the answer is **A**. Actually **B**.", "(B)", "bbh"),
    # across formats: a box or a tag left open is an answer no one can read
    ("#### 7\n<answer>8", "7", "gsm8k"), ("#### 7\n\\boxed{8", "7", "gsm8k"), ("\\boxed{7} <answer>8", "7", "math"),
    # AIME: any marked integer, else the last integer written
    (r"\boxed{12} \boxed{13}", "13", "aime2025"), ("#### 12\n#### 13", "12", "aime2025"),
    (r"\boxed{12} so #### 13", "13", "aime2025"), ("<answer>12</answer> \\boxed{13}", "12", "aime2025"),
    (r"\boxed{12} \boxed{x+1}", "12", "aime2025"),
]


@pytest.mark.parametrize(("completion", "answer", "source"), HEDGES,
                         ids=lambda value: value[:40].replace("\n", " / ").replace("\\", "/"))
def test_a_hedge_scores_zero_in_every_answer_family(completion, answer, source):
    assert not is_correct(completion, answer, source)
    assert correctness_reward([completion], answer=[answer], source=[source]) == [0.0]


ONE_ANSWER = [
    ("3+4=7\n#### 7", "7", "arith"), ("#### 7\n#### 7", "7", "gsm8k"), ("#### 1,200\n#### 1200", "1200", "gsm8k"),
    ("#### 7\nso 8 would be wrong", "7", "gsm8k"),  # text after the marked answer is not read
    ("#### Step 1: add\n3+4=7\n#### Final answer\n#### 7", "7", "gsm8k"),  # Markdown headings are no answers
    ("#### 7 apples\n#### 7", "7", "gsm8k"),  # words after an earlier mark: a heading
    ("#### Step 2 (add them)\n#### 7", "7", "gsm8k"),  # a heading with an aside
    (r"\boxed{2} so \boxed{2}", "2", "math"), (r"\boxed{15\frac{39}{40}} = \boxed{\frac{639}{40}}", r"\frac{639}{40}", "math"),
    (r"\boxed{1, 2}", "1,2", "math"), (r"\boxed{1 \text{ or } 2}", "1,2", "math"),  # a list answer is one answer
    (r"\boxed{2}, not counting 3 or 4", "2", "math"),  # (`\boxed{2}, not 3` names a second value: hostile round 30, left)
    ("So the answer is (B).", "(B)", "bbh"), ("So the answer is (B). Note that (C) was first.", "(B)", "bbh"),
    ("The answer is (A), not because of (D)", "(A)", "bbh"), ("So the answer is (B). So the answer is (B).", "(B)", "bbh"),
    ("the answer is (B) because (A) ends elsewhere", "(B)", "bbh"), ("Bob ends with (E).", "(E)", "bbh"),
    (r"\boxed{12} so #### 12", "12", "aime2025"), (r"we get \boxed{3}, not counting 2.5", "3", "aime2025"),
]


def test_a_marked_aime_answer_that_is_no_integer_is_wrong_not_replaced_by_an_earlier_integer():
    """`the answer is 12. \\boxed{12.5}` was graded by the last number written; the docs said by the last integer."""
    assert not is_correct(r"the answer is 12. \boxed{12.5}", "12", "aime2025")
    assert not is_correct(r"we get \boxed{2.5}, not 3", "3", "aime2025")


@pytest.mark.parametrize(("completion", "answer", "source"), ONE_ANSWER,
                         ids=lambda value: value[:40].replace("\n", " / ").replace("\\", "/"))
def test_one_marked_answer_scores_whatever_surrounds_it(completion, answer, source):
    assert is_correct(completion, answer, source)


def test_no_single_hedge_scores_against_two_different_answers():
    """Whatever a completion writes, it can be right about at most one of two different answers."""
    for completion, _, source in HEDGES:
        for first, second in (("7", "8"), ("1", "2"), ("2", "3"), ("12", "13"), ("(A)", "(G)"), ("(B)", "(C)")):
            assert not (is_correct(completion, first, source) and is_correct(completion, second, source)), completion


def test_a_hedged_completion_still_writes_answers_in_the_format():
    """Format share counts completions the reward can read: a hedge is read (and scores 0)."""
    assert in_format("#### 7\n#### 8", "hash") and in_format(r"\boxed{1}\boxed{2}", "boxed")
    assert in_format("(A) (B) (C)", "option") and not in_format("no answer", "option")


@pytest.mark.parametrize(("completion", "answer", "source", "answer_format"), [
    ("\\boxed{8}\n#### 7", "7", "gsm8k", None), ("\\boxed{8}\n#### 7", "7", "arith", None),
    ("#### 7\n<answer>8</answer>", "7", "gsm8k", None), ("\\boxed{7}\n#### 8", "7", "math", None),
    ("So the answer is (A).\n#### (B)", "(A)", "bbh", None), ("So the answer is (A). \\boxed{(B)}", "(A)", "bbh", None),
    ("<answer>7</answer> \\boxed{8}", "7", "math", "tagged"),
])
def test_a_hedge_across_two_answer_formats_scores_zero(completion, answer, source, answer_format):
    assert not is_correct(completion, answer, source, answer_format)
    restated = completion.replace("8", "7").replace("(B)", "(A)")  # the same answer in both formats counts
    assert is_correct(restated, answer, source, answer_format)


@pytest.mark.parametrize(("completion", "answer", "source", "answer_format"), [
    ("#### Final answer\n\\boxed{5}", "5", "math", None),
    ("#### Step 1: Add the numbers\n3+2=5\nSo the answer is \\boxed{5}.", "5", "math", None),
    ("#### Final answer\n\\boxed{12}", "12", "tinymath", None),
    ("#### Final answer\nthe answer is (B)", "(B)", "bbh", None),
    ("#### Final answer\n<answer>5</answer>", "5", "math", "tagged"),
])
def test_a_markdown_heading_is_no_second_answer_in_another_format(completion, answer, source, answer_format):
    """A `#### Final answer` heading above a right `\\boxed{5}` read as a second, different answer (a hedge): 0."""
    assert is_correct(completion, answer, source, answer_format)
    assert correctness_reward([completion], answer=[answer], source=[source],
                              **({"answer_format": [answer_format]} if answer_format else {})) == [1.0]
    assert not is_correct(completion.replace("Final answer", "7").replace("Step 1: Add the numbers", "7"), answer,
                          source, answer_format)  # a `#### 7` beside it is still a hedge


@pytest.mark.parametrize(("predicted", "reference", "right"), [
    ("x", "x", True), ("x+5", "x+5", True), ("5+7x", "7x+5", True), ("x=-2", "-2", True), ("0.75", r"\frac{3}{4}", True),
    (r"-\frac{3}{4}", "-0.75", True), ("0x+12", "12", False), ("x=12x", "12x", False), ("x=7x+5", "7x+5", False),
    ("1x", "x", False), ("1x+5", "x+5", False), ("7x+0", "7x", False), ("0.333333", r"\frac{1}{3}", False),
    ("0.571429", r"\frac{4}{7}", False), (r"-\frac{3}{4}", r"\frac{3}{4}", False)])
def test_tinymath_counts_simplest_forms_and_compares_numbers_exactly(predicted, reference, right):
    """A zero or unit coefficient, or `x=` before an expression, is not simplest form; a rounded decimal is not the
    fraction (math-verify's 6 places would count it)."""
    assert is_correct(f"\\boxed{{{predicted}}}", reference, "tinymath") is right


def test_exact_value_of_a_fraction_over_0_is_none():
    assert exact_value("3/0") is None and exact_value(r"\frac{3}{0}") is None


def test_a_unicode_minus_after_the_mark_is_a_minus():
    """`#### \u22125` (typeset text's minus) is -5 under the `####` rules, as `\\boxed{\u22125}` is under math-verify."""
    assert is_correct("#### \u22125", "-5", "arith") and is_correct("#### \u22125", "-5", "gsm8k")
    assert not is_correct("#### \u22125", "5", "arith")


@pytest.mark.parametrize(("completion", "right"), [
    ("So the answer is \\boxed{B}.", True), ("So the answer is: **B**", True), ("\\boxed{(B)}", True),
    ("the answer is **(B)**", True), ("\\boxed{B} or \\boxed{C}", False), ("So the answer is \\boxed{C}.", False)])
def test_a_boxed_or_bold_bbh_letter_is_that_option(completion, right):
    """Chat models box or bold the letter by habit; it is the option (and in format), and two of them hedge."""
    assert is_correct(completion, "(B)", "bbh") is right
    assert in_format(completion, "option")


def test_shuffle_in_the_option_format_grades_the_letter_it_asks_for():
    """`--task shuffle --answer-format option` asks for `(D)`; the shuffle rule compared `(D)` with `D` and never
    matched, so every completion scored 0."""
    from course_lib.problems import problems
    from course_lib.rewards import correctness_reward

    problem = problems("shuffle", "train", 2, 0, answer_format="option")[0]
    right, wrong = f"So the answer is ({problem.answer}).", "So the answer is (Z)."
    assert correctness_reward([right, wrong], answer=[problem.answer] * 2, source=["shuffle"] * 2,
                              answer_format=["option"] * 2) == [1.0, 0.0]
    assert is_correct(f"#### {problem.answer}", problem.answer, "shuffle")  # its own format, as before


@pytest.mark.parametrize(("completion", "right"), [
    ("#### Answer: 8\n#### 7", False), ("#### 8 apples\n#### 7", False), ("\\boxed{7}\n#### The answer is 8", False),
    ("#### Answer: 7\n#### 7", True), ("#### The answer is 7", True), ("#### Step 1: add\n#### 7", True),
    ("#### Final answer\n#### 7", True), ("#### 7 or 8", False)])
def test_a_mark_that_states_a_number_in_words_is_that_number(completion, right):
    """`#### Answer: 8` before `#### 7` read as a heading, so a hedge scored 1; a heading without a stated number
    (`Step 1: add`, `Final answer`) is still none."""
    assert is_correct(completion, "7", "gsm8k" if "boxed" not in completion else "math") is right


def test_a_heading_only_mark_is_not_an_answer_in_format():
    """`#### Final answer` with no number counted towards the format share, though `is_correct` reads it as a heading."""
    from course_lib.answers import in_format

    assert not in_format("#### Final answer", "hash") and not in_format("so 7\n#### Step two", "hash")
    assert in_format("#### 7 apples", "hash") and in_format("#### 7 or 8", "hash") and in_format("#### 8", "hash")


def test_one_answer_for_every_completion_may_be_a_number():
    """`correctness_reward(["#### 7"], answer=7)` raised "'int' object is not iterable"."""
    assert correctness_reward(["#### 7", "#### 8"], answer=7, source="arith") == [1.0, 0.0]

@pytest.mark.parametrize(("completion", "answer", "source"), [
    ("#### 7 or 8\n#### 7", "7", "arith"),  # an earlier `####` of two numbers in words is a hedge, not a heading
    ("#### 7 or 8\n#### 7", "7", "gsm8k"),
    ("\\boxed{7}\n#### 7 or 8", "7", "math"),  # the same hedge beside a box
    ("\\boxed{7}\n#### between 6 and 8", "7", "tinymath"),
])
def test_a_hedge_written_in_words_after_hashes_is_read_by_one_rule_in_every_format(completion, answer, source):
    """`#### 7 or 8` was dropped as a heading (it has words), so the right answer beside it counted (round 11).
    One rule (`answers._heading`) reads `####` in every format: words with at most one number are a heading."""
    assert not is_correct(completion, answer, source)
    heading = completion.replace("7 or 8", "Final answer").replace("between 6 and 8", "Step 2: check")
    assert is_correct(heading, answer, source)


@pytest.mark.parametrize(("completion", "answer", "source"), [
    ("#### So the answer is 8\n#### 7", "7", "gsm8k"),  # words before the number: an answer, not a heading
    ("#### Total: 8\n#### 7", "7", "gsm8k"),
    ("#### about 8\n#### 7", "7", "gsm8k"),
    ("#### 8km\n#### 7", "7", "gsm8k"),  # a unit stuck to the number
    ("\\boxed{7}\n#### So the answer is 8", "7", "math"),
    ("\\boxed{7}\n#### 8cm", "7", "math"),
    ("#### 7 or eight", "7", "gsm8k"),  # words after the number that change it or add another
    ("#### 7 thousand", "7", "gsm8k"),
    ("#### 7 squared", "7", "gsm8k"),
    ("#### 7 is wrong", "7", "gsm8k"),
    ("#### 7 or more", "7", "arith"),
    ("#### BE\n#### D", "D", "shuffle"),  # capital letters are a letter answer, not a heading
    ("#### Answer: E\n#### D", "D", "shuffle"),
    ("\\boxed{6 \\vert 5}", "5", "math"),  # divisibility in any spelling
    ("\\boxed{6 \u2223 5}", "5", "math"),
    ("\\boxed{5 \\\\ 6}", "6", "math"),  # a line break between two values, outside an environment
    ("\\boxed{5 \\text{ (alternatively } 6)}", "6", "math"),
    ("\\boxed{5} \\boxed {6}", "5", "math"),  # a space before the brace is still a box
    ("\\boxed{5} $\\boxed 6$", "5", "math"),  # a box without braces: unreadable, so no answer
    ("#### 7\n\\boxed 8", "7", "gsm8k"),
    ("The Answer is (A). the answer is (B)", "(B)", "bbh"),  # a stated option in any case
    ("Answer: (A)\nThe answer is (B)", "(B)", "bbh"),
])
def test_hedges_and_changed_numbers_found_in_round_12_score_zero(completion, answer, source):
    """Each scored 1 (round 12): a `####` mark with words before its number, or one word after it that changes it, was
    a heading or that number; capital letters were a heading; `\\vert`, `\\\\`, "alternatively", `\\boxed {6}` and a
    capitalised "Answer" were not read."""
    assert not is_correct(completion, answer, source)
    assert correctness_reward([completion], answer=[answer], source=[source]) == [0.0]


@pytest.mark.parametrize(("completion", "answer", "source"), [
    ("#### 8 apples", "8", "gsm8k"), ("#### The answer is 8", "8", "gsm8k"), ("#### Final answer: 8", "8", "gsm8k"),
    ("#### Step 1: add\n3+4=7\n#### 7", "7", "gsm8k"), ("#### Part 2\n#### 7", "7", "arith"),
    ("#### Answer: D", "D", "shuffle"), ("\\boxed {5}", "5", "math"),
    ("#### Final answer\n\\boxed{12}", "12", "aime2025"),  # a heading above a box, as MATH reads it
    ("Answer: (B)", "(B)", "bbh"),
    ("\\boxed{\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}}", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "math"),
])
def test_what_round_12_tightened_still_reads_a_plain_answer(completion, answer, source):
    assert is_correct(completion, answer, source)


@pytest.mark.parametrize("missing", [None, float("nan")])
def test_a_missing_reference_answer_is_refused_and_never_rewarded(missing):
    """`#### None` against None, `#### nan` against NaN were correct: the reference was compared as text."""
    with pytest.raises(ValueError, match="the reference answer is missing"):
        is_correct("#### None" if missing is None else "#### nan", missing, "gsm8k")
    assert correctness_reward(["#### nan"], answer=[missing], source=["gsm8k"]) == [0.0]


@pytest.mark.parametrize(("columns", "named"), [
    ({"source": ["GSM8K"]}, "'GSM8K'"), ({"source": ["gsm8k"], "answer_format": ["hashed"]}, "'hashed'"),
])
def test_a_misspelled_source_or_format_stops_the_reward_in_one_line(columns, named):
    """Round 12: every completion scored 0.0 with no message, so a dataset with one misspelled source column trained
    on zero reward."""
    from course_lib import CourseError

    with pytest.raises(CourseError, match=f"{named} has no answer checker"):
        correctness_reward(["#### 7"], answer=["7"], **columns)


@pytest.mark.parametrize("written", ["Answer: 12½", "Answer: 12³", "so 12\u00bc"])
def test_aime_reads_no_integer_from_a_number_with_a_fraction_or_power_sign_after_it(written):
    """Round 12: `12½` and `12³` were read as 12 (the unmarked fallback stopped before the sign)."""
    assert not is_correct(written, "12", "aime2025")
    assert is_correct(written.replace("½", "").replace("³", "").replace("\u00bc", ""), "12", "aime2025")


@pytest.mark.parametrize(("completion", "answer", "source"), [
    (r"\boxed{1 1/2}", r"\frac{11}{2}", "tinymath"), (r"\boxed{5 6}", "56", "tinymath"),
    ("\\boxed{5\n6}", "56", "tinymath"), (r"\boxed{5$6}", "56", "tinymath"),
    ("#### 7 thousands", "7", "gsm8k"), ("#### 7 tenths", "7", "gsm8k"), ("#### 7 maybe", "7", "gsm8k"),
    ("#### 7 wrong", "7", "gsm8k"), ("#### 13 hundreds", "13", "aime2025"),
    ("The answer is 12 or 13.", "13", "aime2025"), ("12, 13", "13", "aime2025"),
    ("Answer: 13 (or maybe 12)", "12", "aime2025"), ("The answer is 1/13", "13", "aime2025"),
    (r"$\sqrt{13}$", "13", "aime2025"), ("2^{13}", "13", "aime2025"), ("1 / 13", "13", "aime2025"),
    ("The answer is \u221213", "13", "aime2025"), ("The answer is not 13.", "13", "aime2025"),
    ("#### 7 likely", "7", "gsm8k"), (r"\boxed{6 \iff 5}", "5", "math"), ("So the answer is (B) OR (C)", "(B)", "bbh"),
    ("So the answer is (B) (or (C))", "(B)", "bbh"),
    ("The answer is 13e2", "2", "aime2025"), ("13 is wrong", "13", "aime2025"),
    ("So the answer is (B) or maybe (C)", "(B)", "bbh"), ("So the answer is (B) and/or (C)", "(B)", "bbh"),
    ("So the answer is (B)\nor (C)", "(B)", "bbh"), ("So the answer is (B) \u2014 or (C)", "(B)", "bbh"),
    ("So the answer is (B) vs (C)", "(B)", "bbh"), ("So the answer is (B) + (C)", "(B)", "bbh"),
    (r"\boxed{6 = 5}", "5", "math"), (r"\boxed{6 \to 5}", "5", "math"), (r"\boxed{x \approx 5}", "5", "math"),
    (r"\boxed{6 \implies 5}", "5", "math"), (r"\boxed{\cancel{6} 5}", "5", "math"),
    (r"\boxed{6=5}", "5", "math"), (r"\boxed{6 = 5 = 5}", "5", "math"),
])
def test_hedges_and_changed_numbers_of_round_13_score_0(completion, answer, source):
    """One marked final answer counts; a hedge, a number changed by the word after it, or a relation does not."""
    assert not is_correct(completion, answer, source)


@pytest.mark.parametrize(("completion", "answer", "source"), [
    (r"\boxed{56}", "56", "tinymath"), (r"\boxed{x = 12}", "12", "tinymath"), ("#### 7 apples", "7", "gsm8k"),
    ("#### 5 months", "5", "gsm8k"), ("The answer is 13.", "13", "aime2025"),
    ("so x = 5, y = 7. The answer is 13", "13", "aime2025"), ("So the answer is (B). (C) was first.", "(B)", "bbh"),
    (r"\boxed{x = 5}", "5", "math"), (r"\boxed{x \le 3}", r"x \le 3", "math"), (r"\boxed{y=2x+1}", "y=2x+1", "math"),
    ("#### 12 points", "12", "gsm8k"), ("#### 5 notes", "5", "gsm8k"), ("#### 3 quarters", "3", "gsm8k"),
    ("The two roots are 3 and 4, so the answer is 7.", "7", "aime2025"), (r"$\mathbf{42}$", "42", "aime2025"),
    ("The answer is 42!", "42", "aime2025"), (r"\boxed{x_1 = 5}", "5", "math"), (r"\boxed{f(x) = 2x+1}", "2x+1", "math"),
    (r"\boxed{P(A) = \frac{1}{2}}", r"\frac{1}{2}", "math"), ("So the answer is (B) - A man walked in first.", "(B)", "bbh"),
    (r"\boxed{1 692}", "1692", "tinymath"),
])
def test_the_round_13_rules_keep_plain_right_answers(completion, answer, source):
    assert is_correct(completion, answer, source)


@pytest.mark.parametrize(("completion", "read"), [
    ("#### 7 guess", "7"), ("#### 7 otherwise", "7"), ("#### 7 dollars", "7"),  # a word it does not list: a unit
    ("It is about 13", "13"), ("at least 13", "13"), ("13?", "13"), ("13%", "13"),  # AIME unmarked: the last integer
])
def test_what_the_graders_read_by_design_as_the_common_evaluators_do(completion, read):
    """docs/bad_inputs.md, "Read by design": a word after a `####` number is its unit unless `_NO_UNIT` lists it
    (lm-eval's strict-match reads the number and ignores what follows); an AIME answer with no mark is the last
    integer written, a qualifier before or after it ignored (lm-eval's flexible-extract reads the last number)."""
    extract = extract_hash_answer if completion.startswith("####") else extract_integer
    assert extract(completion) == read


def test_two_candidates_split_by_a_semicolon_are_no_aime_answer():
    assert extract_integer("It is 12; 13") is None and extract_integer("It is 12, 13") is None


def test_a_tinymath_completion_with_several_boxes_is_out_of_format():
    """Round 13: a hedge of boxes on separate lines earned the format reward."""
    assert format_reward(["\\boxed{5}\n\\boxed{6}", "\\boxed{5}\\boxed{6}", "3*4=12\n\\boxed{12}"],
                         source=["tinymath"] * 3) == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("completion", [
    r"$12 \; \text{or} \; 13$", r"12 \quad\text{or}\quad 13", "12~or~13", r"12\ or\ 13", r"12\,\mathrm{or}\,13",
    r"12 \mbox{ or } 13", "12 x 13", "12 times 13", "12 plus 13", "100 mod 13", r"\binom{15}{13}", r"\log_2 13",
    "(12)(13)", "12(13)"])
def test_round_16_typeset_hedges_and_worded_expressions_are_no_aime_answer(completion):
    assert not is_correct(completion, "13", "aime2025")


@pytest.mark.parametrize("source", ["math", "tinymath", "aime2025"])
@pytest.mark.parametrize("completion", [r"\boxed{7} (maybe 8)", r"\boxed{7} or 8", r"\boxed{7}, but it could be 8.",
                                        r"The answer is $\boxed{7}$, or possibly 8"])
def test_round_16_a_second_answer_just_after_a_box_is_a_hedge(completion, source):
    assert not is_correct(completion, "7", source)


@pytest.mark.parametrize(("completion", "answer", "source"), [
    (r"so \boxed{7}.", "7", "math"), (r"\boxed{12}, or 12 in words", "12", "math"), ("5 + 8 = 13", "13", "aime2025"),
    (r"$\text{The answer is } 13$", "13", "aime2025"), (r"So the answer is \text{(B)}", "(B)", "bbh"),
])
def test_round_16_rules_keep_plain_right_answers(completion, answer, source):
    assert is_correct(completion, answer, source)


def test_round_16_bbh_options_joined_by_a_typeset_space_are_a_hedge():
    assert not is_correct("So the answer is (B)~or~(C).", "(B)", "bbh")


def test_a_shuffle_reference_in_parentheses_is_its_letter():
    """A user's file graded by the shuffle rule may write its answers `(B)`: the letter, with or without them."""
    assert is_correct("#### B", "(B)", "shuffle") and is_correct("#### (B)", " (B) ", "shuffle")
    assert not is_correct("#### B", "(C)", "shuffle")


@pytest.mark.parametrize(("text", "answers"), [
    ("\\boxed{1} " * 16, ["1"] * 16), ("\\boxed{1} " * 17, [None]), ("\\fbox{1} " * 17, [None]),
    ("\\boxed{1} " * 9 + "\\fbox{1} " * 8, [None]),
], ids=["16 boxes", "17 boxes", "17 fboxes", "9 boxes and 8 fboxes"])
def test_more_boxes_than_max_marks_give_no_answer(text, answers):
    from course_lib.answers import MAX_MARKS, boxed_answers

    assert MAX_MARKS == 16 and boxed_answers(text) == answers


def test_a_box_holds_at_most_max_tagged_characters_and_an_unbraced_box_is_no_answer():
    from course_lib.answers import MAX_TAGGED, boxed_answers

    assert MAX_TAGGED == 1000
    assert boxed_answers("\\boxed{" + "1" * 1000 + "}") == ["1" * 1000]
    assert boxed_answers("\\boxed{" + "1" * 1001 + "}") == boxed_answers("\\boxed{" + "1" * 1200 + "}") == [None]
    assert boxed_answers("\\boxed 6 and then \\boxed{7}") == [None, "7"]  # the next box is still read


@pytest.mark.parametrize(("completion", "read"), [
    ("#### **24**", "24"), ("#### 24,", "24"), ("#### 24;", "24"), ("#### **1,200**.", "1200"), ("#### **E**", "E"),
    ("#### 24!", "24!"), ("#### **7 or 8**", "7 or 8"), ("#### 1,2,", "1,2")])
def test_round_19_a_bold_mark_and_a_closing_comma_are_read_as_lm_eval_reads_them(completion, read):
    """`#### **24**` and `#### 24,` were graded wrong; `24!` stays unread (a factorial, or an exclamation)."""
    assert extract_hash_answer(completion) == read
    assert is_correct(completion, "24", "gsm8k") == (read == "24")


@pytest.mark.parametrize("completion", ["#### 7X", "#### 7;X", "#### **7**X"])
def test_only_a_comma_or_semicolon_closing_a_mark_is_dropped(completion):
    """A mark's closing comma or semicolon is dropped (lm-eval reads `#### 7,` as 7); any other trailing letters keep
    the mark unread."""
    assert extract_hash_answer(completion) != "7"


@pytest.mark.parametrize(("completion", "answer", "source"), [
    ("#### 24, apples", "24", "gsm8k"), ("#### 1 234,", "1234", "gsm8k"), ("#### E,", "E", "shuffle"),
    ("#### **E**,", "E", "shuffle"), ("##### Step 1: add\n3+4=7\n#### 7", "7", "gsm8k"),
    ("###### 3 apples\n#### 7", "7", "arith")])
def test_round_20_a_closing_comma_before_a_unit_or_after_a_letter_and_deeper_headings_are_read(completion, answer,
                                                                                                  source):
    """Hostile round 20: these right answers were graded wrong (a comma between a number and its unit, after an
    SI-spaced number or a letter; a level-5 or 6 Markdown heading with a number read as a second `####` answer)."""
    assert is_correct(completion, answer, source)


@pytest.mark.parametrize("completion", ["#### 7, or 8", "#### 7; maybe 8", "##### 7\n#### 7 or 8"])
def test_round_20_a_hedge_after_a_comma_is_still_a_hedge(completion):
    assert not is_correct(completion, "7", "gsm8k")


@pytest.mark.parametrize(("completion", "gold"), [
    ("#### 5 ½", "5"), ("#### 2 ¾", "2"), ("#### 3 ²", "3"), ("#### 3 fourths", "3"), ("#### 3 eighths", "3"),
    ("#### 8 millionths", "8"), ("#### 8 k", "8"), ("#### 8 bn", "8"), ("#### 8 twice", "8"), ("#### 8 below", "8"),
    ("#### Solution: 8\n#### 9", "9"), ("#### Method: 8\n#### 9", "9"), ("#### x = 8\n#### 9", "9")])
def test_round_21_a_mark_whose_word_changes_its_number_or_that_states_another_answer_is_not_graded_right(completion,
                                                                                                        gold):
    """Hostile round 21: a vulgar fraction or superscript after the number, a fraction or scale word missing from
    the list, and a second answer stated after a heading word, were read as the bare number (scored 1)."""
    assert not is_correct(completion, gold, "gsm8k")


@pytest.mark.parametrize(("completion", "gold"), [
    ("#### - 8", "-8"), ("#### 8:", "8"), ("#### 8\u00a0000", "8000"), ("#### Solution: 8", "8"),
    ("#### Total: 1,000 apples", "1000"), ("#### x = 8", "8"), ("#### 8 quarters", "8"), ("#### 5 months", "5"),
    ("#### Step 1: add\n3+4=7\n#### 7", "7"), ("#### Part 2\n#### 7", "7")])
def test_round_21_a_sign_set_apart_a_closing_colon_a_no_break_space_and_a_labelled_number_are_read(completion, gold):
    """Hostile round 21: these right answers were graded wrong (`- 8`, `8:`, U+00A0 between thousands, `Solution: 8`);
    a unit word (`quarters`, `months`) and a heading with its counter stay as they were."""
    assert is_correct(completion, gold, "gsm8k")


@pytest.mark.parametrize("completion", [
    r"\boxed{5 \text{ if } n \text{ even}, 6 \text{ otherwise}}", r"The answer is \boxed{5}. Alternatively, 6.",
    r"\boxed{5?}", r"\boxed{5 \dots}", r"\boxed{5 \ldots}", "\\boxed{5 \u2026}", r"\boxed{5 \text{ (approximately)}}"])
def test_round_21_a_math_answer_that_is_not_one_value_is_not_graded_right(completion):
    """Hostile round 21: math-verify read these hedges (a piecewise answer, a second value after the box, a question
    mark, an ellipsis, an approximation) as their first value."""
    assert not is_correct(completion, "5", "math")


@pytest.mark.parametrize(("completion", "gold"), [
    (r"The answer is \boxed{5}. Alternatively, we check: 2+3=5.", "5"), (r"\boxed{1, 2, \dots, 9}", r"1, 2, \dots, 9"),
    (r"\boxed{5}", "5")])
def test_round_21_an_ellipsis_the_reference_holds_and_a_check_after_the_box_stay_right(completion, gold):
    assert is_correct(completion, gold, "math")


@pytest.mark.parametrize(("completion", "right"), [
    ("#### E\nSo the answer is (D).", False), ("So the answer is (D).\n#### E", False),
    ("#### E\nThe answer is (E) or (D).", False), ("#### E\nSo the answer is (E).", True),
    ("(A) is wrong, (C) too.\n#### E", True), ("#### E", True)])
def test_round_21_a_stated_option_beside_a_different_hash_answer_is_a_hedge(completion, right):
    """Hostile round 21: shuffle's `#### E` beside `So the answer is (D).` (the option format's own mark) scored 1;
    options only mentioned in the reasoning are no answer."""
    assert is_correct(completion, "E", "shuffle") is right
    assert is_correct(completion, "(E)", "bbh", answer_format="hash") is right


@pytest.mark.parametrize("completion", [r"\boxed{-\frac{-3}{4}}", r"\boxed{x=-\frac{-3}{4}}"])
def test_round_21_a_double_negative_fraction_is_not_in_simplest_form(completion):
    """Hostile round 21: tinymath counted `-\\frac{-3}{4}` as simplified, while `--3` and `-(-3)` were not."""
    assert not is_correct(completion, r"\frac{3}{4}", "tinymath")
    assert is_correct(r"\boxed{\frac{-3}{4}}", r"-\frac{3}{4}", "tinymath")


@pytest.mark.parametrize("c", [-1, 5])
def test_pass_at_k_refuses_a_count_of_right_samples_outside_0_to_n(c):
    """Hostile round 21: pass_at_k(4, -1, 2) returned -0.67 and pass_at_k(4, 5, 2) 1.0."""
    from course_lib import CourseError
    from course_lib.evaluation import pass_at_k

    with pytest.raises(CourseError, match=rf"^c={c} must be a count of right samples from 0 to n=4$"):
        pass_at_k(4, c, 2)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("#### Approximately: 8", "8", "gsm8k"), ("#### Wrong: 8", "8", "gsm8k"), ("#### Not = 8", "8", "gsm8k"),
    ("#### Maybe: 8", "8", "arith"), ("#### Solution 1: 8\n#### 9", "9", "gsm8k"), ("#### Case 1: 8\n#### 9", "9", "gsm8k"),
    ("#### 8 quadrillion", "8", "gsm8k"), ("#### 8 mln", "8", "gsm8k"), ("#### 8 pct", "8", "gsm8k"),
    ("#### 8 \uff54\uff48\uff4f\uff55\uff53\uff41\uff4e\uff44", "8", "gsm8k"),
    (r"\boxed{5 \text{ (Approximately)}}", "5", "math"), (r"\boxed{5 \text{ (If n is even)}}", "5", "math"),
    (r"\boxed{5 ...}", "5", "math"), (r"\boxed{5 \text{ when } n \text{ is even}}", "5", "math"),
    (r"\boxed{5 \text{ (roughly)}}", "5", "math"), (r"\boxed{5}. Otherwise, 6.", "5", "math"),
    ("#### Option D\n#### E", "E", "shuffle"), ("#### (D) Alice\n#### E", "E", "shuffle")])
def test_round_22_hedges_negations_and_other_spellings_are_not_graded_right(completion, gold, source):
    """Hostile round 22: a label that hedges or negates (`Wrong: 8`: round 21's `Solution: 8` reading took any word),
    a heading with its counter stating a number, more magnitude words (fullwidth too), MATH hedges capitalised or
    spelled otherwise, and a `####` option named in words."""
    assert not is_correct(completion, gold, source)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("#### Solution: 8", "8", "gsm8k"), ("#### Answer: 8", "8", "gsm8k"), ("#### Step 1: add\n#### 9", "9", "gsm8k"),
    ("#### 8 apples", "8", "gsm8k"), ("#### Option E", "E", "shuffle"), (r"\boxed{5}", "5", "math")])
def test_round_22_plain_and_labelled_answers_stay_right(completion, gold, source):
    assert is_correct(completion, gold, source)


@pytest.mark.parametrize("completion", ["#### 8 m²", "#### 8 cm³", "#### 8 m^2", "#### 8 km/h", "#### 8 °C",
                                        "#### 8 €", "#### 8 o'clock", "#### 8 apples."])
def test_round_22_a_unit_with_a_superscript_slash_degree_or_currency_sign_is_a_unit(completion):
    """Hostile round 22: round 21's `5 ½` reading called any unit that was not all letters a changed number."""
    assert is_correct(completion, "8", "gsm8k")
    assert not is_correct(completion + " or 9", "8", "gsm8k") and not is_correct("#### 8 ½", "8", "gsm8k")


@pytest.mark.parametrize("stated", ["The ANSWER IS (D).", "Answer \u2014 (D)", "So the answer is option D"])
def test_round_22_a_stated_option_in_another_spelling_beside_a_hash_answer_is_a_hedge(stated):
    """Hostile round 22: round 21 read `So the answer is (D).` beside `#### E`, not these spellings of it."""
    assert not is_correct(f"#### E\n{stated}", "E", "shuffle")
    assert is_correct(stated, "(D)", "bbh")


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("#### Solution: E\n#### D", "D", False), ("#### Final: (E)\n#### D", "D", False), ("#### Not: E", "E", False),
    ("#### Solution: E", "E", True), ("#### Answer: E", "E", True),
    ("#### THE FINAL ANSWER IS E", "E", True), ("#### ANSWER = 8", "8", True)])  # one label, case-blind, both kinds
def test_round_22_a_labelled_option_letter_is_that_letter(completion, gold, right):
    """Hostile round 22: `#### Solution: E` was dropped as a heading (a hedge beside `#### D` scored 1, and a right
    `#### Solution: E` alone scored 0)."""
    assert is_correct(completion, gold, "shuffle") is right


@pytest.mark.parametrize(("n", "c", "k"), [(4, 2.5, 2), (4.0, 2, 2), (4, True, 2), (4, 2, 2.0)])
def test_pass_at_k_refuses_counts_that_are_not_whole_numbers(n, c, k):
    """Hostile round 22: pass_at_k(4, 2.5, 2) returned 1.0 and a float n a TypeError traceback."""
    from course_lib import CourseError
    from course_lib.evaluation import pass_at_k

    with pytest.raises(CourseError, match="must be whole numbers"):
        pass_at_k(n, c, k)
    assert pass_at_k(np.int64(4), np.int64(2), 2) == pytest.approx(5 / 6)


@pytest.mark.parametrize(("completion", "right"), [
    ("#### 8\nThe answer is 9.", False), ("#### 8\n\nThe answer is 9.", False), ("The answer is 8.\n#### 8", True),
    ("The answer is 18 / 2 = 8.\n#### 8", True), ("the answer is 8 apples.\n#### 8", True),
    ("The final answer is: 8.0\n#### 8", True)])
def test_round_22_a_stated_number_beside_a_different_hash_answer_is_a_hedge(completion, right):
    """Hostile round 22: gsm8k's `#### 8` beside `The answer is 9.` scored 1 (only option letters were read across
    formats); a number inside a calculation or with a unit after it is not read as a stated answer."""
    assert is_correct(completion, "8", "gsm8k") is right


@pytest.mark.parametrize("mentions", [16, 17, 30])
def test_round_23_a_reasoning_that_says_answer_often_keeps_its_final_answer(mentions):
    """Hostile round 23: MAX_MARKS counted the word "answer" anywhere, so a reasoning saying it 16 times scored 0."""
    reasoning = "".join(f"Check whether this answer holds at swap {i}. " for i in range(mentions))
    assert is_correct(reasoning + "So the answer is (B).", "(B)", "bbh")
    assert is_correct(reasoning + "#### B", "B", "shuffle") and is_correct("The answers. " * 20 + "#### B", "B", "shuffle")
    assert not is_correct(reasoning + "So the answer is (A).", "(B)", "bbh")
    assert not is_correct("So the answer is (B). " * 17, "(B)", "bbh")  # more stated answers than MAX_MARKS: none


@pytest.mark.parametrize("stated", ["**Answer:** (B)", "**Final Answer:** (B)", "**Answer**: (B)", "Answer:\n(B)",
                                    "The answer is:\n\n(B)", "**Answer:**\n(B)."])
def test_round_23_a_stated_option_after_a_bold_label_or_a_line_break_is_read(stated):
    """Hostile round 23: after `answer:` only spaces could come before the option, so `**Answer:** (B)` was not read."""
    reasoning = "At first Alice has (C) and Bob has (A). After the swaps Bob holds the ball Alice had.\n"
    assert is_correct(reasoning + stated, "(B)", "bbh") and not is_correct(reasoning + stated, "(C)", "bbh")
    assert not is_correct("#### E\n" + stated, "E", "shuffle")  # beside a different `####` answer: a hedge
    assert is_correct("#### B\n" + stated, "B", "shuffle")


def test_round_23_options_listed_on_the_lines_after_answer_are_not_a_stated_answer():
    """Hostile round 23: the mend reads an option on the line after `answer:` only alone there, not a list's first."""
    listed = "Let us check each answer:\n(A) Alice has it, no.\n(B) Bob has it, yes.\nSo the answer is (B)."
    assert option_answers(listed) == ["(B)"] and is_correct(listed, "(B)", "bbh")


@pytest.mark.parametrize("hedge", ["#### E\nSo the answer is (d).", "#### E\nThe answer is d.", "#### E\nAnswer:\nd",
                                   "#### Answer: d\n#### E", "#### Answer: (d)\n#### E", "#### Option d\n#### E"])
def test_round_23_a_lower_case_option_letter_after_an_answer_label_is_that_option(hedge):
    """Hostile round 23: only a capital option letter was read, so `So the answer is (d).` beside `#### E` scored 1."""
    assert not is_correct(hedge, "E", "shuffle")


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("So the answer is (e).", "(E)", True), ("The answer is e.", "(E)", True), ("So the answer is (E). Answer: d", "(E)", False),
    ("The answer is a bit tricky: Bob had (C), so the answer is (E).", "(E)", True),
    ("The answer is e.g. the ball Bob had. So the answer is (E).", "(E)", True),
    ("So the answer is (E). The answer is a good one.", "(E)", True), ("The answer is (E) AND (E).", "(E)", True),
    ("#### Answer: d", "D", True), ("#### Option d", "D", True), ("#### (a) Setup\n#### E", "E", True)])
def test_round_23_a_lower_case_letter_is_read_only_standing_alone(completion, gold, right):
    """Hostile round 23: BBH's `So the answer is (e).` for `(E)` scored 0; a lower-case word (`a bit`, `e.g.`) is no letter."""
    assert is_correct(completion, gold, "shuffle" if "####" in completion else "bbh") is right


@pytest.mark.parametrize("mark", ["#### €8", "#### £8", "#### ¥8", "#### 8€", "#### 8°C", "#### 8°", "#### Answer: €8.00"])
def test_round_23_a_currency_sign_before_or_stuck_to_the_number_and_a_stuck_degree_sign_are_read(mark):
    """Hostile round 23: `#### €8`, `#### 8€` and `#### 8°C` scored 0 for 8 (only `$8`, `8 €` and `8 °C` were read)."""
    assert is_correct(mark, "8", "gsm8k") and not is_correct(mark, "9", "gsm8k")
    assert not is_correct(mark + " or 9", "8", "gsm8k") and not is_correct(mark + "\n#### 9", "9", "gsm8k")
    assert is_correct("#### -€8", "-8", "gsm8k") and is_correct("#### -8°C", "-8", "gsm8k")


@pytest.mark.parametrize("repeated", [" or", " ,", "  ,", " / "])
def test_round_23_a_stated_option_followed_by_many_separators_is_graded_at_once(repeated):
    """Hostile round 23: `So the answer is (A) or or or ... maybe` took time doubling with each `or` (hours at 30)."""
    assert not is_correct("So the answer is (A)" + repeated * 22 + " maybe", "(B)", "bbh")  # was: 40 s of CPU
    # time doubling with each repetition would never finish this one (its time is measured nowhere: it ends or not)
    assert not is_correct("So the answer is (A)" + repeated * 200 + " maybe", "(B)", "bbh")


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("If the answer is (D), Alice would hold the ball twice, which is impossible.\n#### E", "E", "shuffle"),
    ("Suppose the answer is 9. Then 9 * 2 = 18, too many. Try 8: 8 * 2 = 16.\n#### 8", "8", "gsm8k"),
    ("A common mistake: the answer is 9. It is not: 8 * 2 = 16.\n#### 8", "8", "gsm8k"),
    ("Assume that the answer is 9. Too many. #### 8", "8", "arith"),
    ("Suppose the answer is (D). Then Bob has the ball, but he swapped it. So the answer is (E).", "(E)", "bbh")])
def test_round_23_an_answer_the_reasoning_only_tries_is_no_second_answer(completion, gold, source):
    """Hostile round 23: `Suppose the answer is 9.` (or `If the answer is (D), ...`) in the reasoning made the right
    final answer a hedge; a stated answer right after if, suppose, assume, say, imagine, whether or mistake is a trial."""
    assert is_correct(completion, gold, source)
    assert not is_correct(completion.replace("So the answer is (E)", "So the answer is (D)").replace("#### 8", "#### 9")
                          .replace("#### E", "#### D"), gold, source)  # the tried answer given at the end is wrong
    assert not is_correct("#### 8\nSo the answer is 9.", "8", "gsm8k")  # an answer stated, not tried: a hedge


@pytest.mark.parametrize(("stated", "right"), [
    ("Answer: 9", False), ("Final answer: 9", False), ("The answer is **9**.", False), ("The answer is \u22129.", False),
    ("The answer is 9 apples.", False), ("The answer is $9$.", False), ("Final answer = 9!", False),
    ("Final answer: 8", True), ("The answer is **8**.", True), ("The answer is 9 - 1 = 8.", True),
    ("Answer: we add 9 and 1, then 8.", True)])
def test_round_23_a_stated_number_in_a_marks_spellings_beside_a_hash_answer_is_a_hedge(stated, right):
    """Hostile round 23: beside `#### 8` only `The answer is 9.` was read, not `Final answer: 9`, `Answer: 9`, bold,
    `$9$`, a typeset minus or a unit; a stated number is now the rest of its sentence read as a `####` mark is. Stated
    before the mark, `The answer is 9.` is working (round 33); a final-answer label's 9 hedges there too (reliability
    round 3)."""
    final = stated.startswith(("Answer", "Final"))
    assert is_correct(f"#### 8\n{stated}", "8", "gsm8k") is right
    assert is_correct(f"{stated}\n#### 8", "8", "arith") is (right or not final)


@pytest.mark.parametrize("mark", [
    "8 \u0442\u044b\u0441\u044f\u0447", "8 \u4e07", "8 \u5343", "8 Mio", "8 Mrd", "8 Tsd", "8 sextillion", "8 septillion",
    "8 twelfths", "8 sixteenths", "8 millones", "8 mila", "8 miliardi", "8 pi", "8 \u03c0", "8 M", "8 B", "8 MM",
    "8 ca.", "8 odd", "8 max", "8 false", "8 estimated", "8 bps", "8 e3", "False: 8", "Guess: 8", "Estimate: 8",
    "Est: 8", "Unsure: 8", "Never: 8", "Invalid: 8", "8...", "8 ..."])
def test_round_23_more_words_that_change_or_hedge_a_hash_number_make_it_no_answer(mark):
    """Hostile round 23: `#### 8 тысяч`, `8 万`, `8 Mio`, `8 π`, `8 M`, `Guess: 8`, `8...` and more scored 1 for 8 (any
    word not in the list was read as a unit)."""
    assert not is_correct(f"#### {mark}", "8", "gsm8k")
    assert is_correct("#### 8 m", "8", "gsm8k") and is_correct("#### 8 mm", "8", "gsm8k")  # metres: units in lower case


@pytest.mark.parametrize("earlier", ["eight", "Eight", "answer eight", "Answer: twenty-one", "one hundred and five"])
def test_round_23_a_number_in_words_as_an_earlier_hash_mark_is_an_answer(earlier):
    """Hostile round 23: `#### eight` then `#### 9` scored 1 for 9: a mark in lower-case words with no digit was
    dropped as a Markdown heading, though it states a number."""
    assert not is_correct(f"#### {earlier}\n#### 9", "9", "gsm8k")
    assert is_correct("#### Step one\n#### 9", "9", "gsm8k") and is_correct("#### One more check\n#### 9", "9", "gsm8k")


@pytest.mark.parametrize("completion", [
    r"\boxed{5}. Alternatively, $\frac{1}{2}$.", r"\boxed{5}. Alternatively, $x = 6$.", r"\boxed{5}. Alternatively, \(6\).",
    r"\boxed{5} or six", "\\boxed{5} or \u22126", r"\boxed{5} (or $\sqrt{2}$)", r"\boxed{5}, though it might be 6.",
    r"\boxed{5}. It might be 6.", r"\boxed{5}. However, it could also be 6.", r"\boxed{5} (about)",
    r"\boxed{5 \text{ (nearly)}}", r"\boxed{5 \text{ (around)}}", r"\boxed{5 \text{ (almost)}}", r"\boxed{5 \text{ (Circa)}}",
    r"\boxed{5 \text{ (Except n=0)}}", r"\boxed{5 \text{ (I think)}}", r"\boxed{5 \text{ (guess)}}", r"\boxed{5 \text{ish}}",
    r"\boxed{5 . . .}", r"\boxed{5 \dotsc}", r"\boxed{5 \dotsb}", r"\boxed{5 \mathellipsis}", r"\boxed{5 \textellipsis}"])
def test_round_23_a_second_answer_in_math_or_words_after_a_box_and_more_box_hedges_are_read(completion):
    """Hostile round 23: after a box only a digit was read as a second answer (`\\boxed{5}. Alternatively, \\(6\\).`,
    `or six`, `It might be 6.` scored 1), and `\\dotsc`, `. . .`, `(nearly)`, `(guess)` in a box were no hedge."""
    assert not is_correct(completion, "5", "math")


@pytest.mark.parametrize("completion", [r"\boxed{5}. Alternatively, $x = 5$.", r"\boxed{5}. Alternatively, $\frac{10}{2} = 5$.",
                                        r"\boxed{5}. It may be verified that $5 \cdot 2 = 10$.", r"\boxed{5} or 5"])
def test_round_23_the_boxed_answer_restated_after_a_connector_stays_right(completion):
    assert is_correct(completion, "5", "math")


@pytest.mark.parametrize("repeated", [" or", " or else", " or ,", " it might be"])
def test_round_23_a_box_followed_by_many_connectors_is_graded_at_once(repeated):
    """Hostile round 23 (found mending G2): `\\boxed{5} or or or ...` took time doubling with each `or` (the spaces
    around each connector could be read two ways); its time is measured nowhere: it ends or not."""
    assert not is_correct(r"\boxed{5}" + repeated * 5 + " 6", "5", "math")  # `or ... 6` within 160 characters: read
    assert is_correct(r"\boxed{5}" + repeated * 200, "5", "math")  # was: time doubling with each `or` (hours at 40)


@pytest.mark.parametrize("completion", ["So the total is 12 thousand.", "So the answer is 12 squared.",
                                        "So the answer is 12 million", "So the answer is 12 cubed."])
def test_round_23_a_scale_word_after_aimes_last_number_makes_it_another_number(completion):
    """Hostile round 23: AIME's unmarked answer read `12 thousand`, `12 million`, `12 squared` as 12 (`#### 12 thousand`
    was no answer); a qualifier (`about 12`, `12%`) stays read by design."""
    assert not is_correct(completion, "12", "aime2025")
    assert is_correct("So the answer is 12 dollars.", "12", "aime2025") and is_correct("It is about 12.", "12", "aime2025")


@pytest.mark.parametrize(("completion", "gold", "right"), [
    (r"\boxed{-8/11}", r"-\frac{8}{11}", True), (r"\boxed{-1/2}", r"-\frac{1}{2}", True),
    (r"\boxed{x=-1/2}", r"-\frac{1}{2}", True), (r"\boxed{-\frac{1}{2}}", r"-\frac{1}{2}", True),
    (r"\boxed{-2/4}", r"-\frac{1}{2}", False), (r"\boxed{-\frac{-1}{2}}", r"\frac{1}{2}", False),
    (r"\boxed{-1/2}", r"\frac{1}{2}", False)])
def test_round_25_a_slash_fraction_with_its_sign_in_front_is_in_simplest_form(completion, gold, right):
    """Hostile round 25 (M2): `in_simplest_form("-8/11")` was False (a slash fraction's sign sits in its numerator, so
    the double-negative check for `-\\frac{-3}{4}` fired), so tinymath graded `\\boxed{-1/2}` wrong for -1/2."""
    from course_lib.answers import in_simplest_form

    assert in_simplest_form("-8/11") and not in_simplest_form(r"-\frac{-8}{11}") and not in_simplest_form("-6/8")
    assert is_correct(completion, gold, "tinymath") is right


@pytest.mark.parametrize(("completion", "gold", "right"), [
    (r"\boxed{52_9}", "52_8", False), (r"\boxed{52_{10}}", "52_8", False), (r"\boxed{42_{10}}", "52_8", False),
    (r"\boxed{52}", "52_8", False), (r"\boxed{4210_{6}}", "4210_{5}", False), (r"\boxed{4210}", "4210_{5}", False),
    (r"\boxed{30_8}", "24_{10}", False), (r"\boxed{42_8}", "42", False), (r"\boxed{1010_2}", "10", False),
    (r"\boxed{52_8}", "52_8", True), (r"\boxed{52_{8}}", "52_8", True), (r"\boxed{4210_5}", "4210_{5}", True),
    (r"\boxed{A5_{11}}", r"\text{A5}_{11}", True), (r"\boxed{\text{A5}_{11}}", r"\text{A5}_{11}", True),
    (r"\boxed{-37_8}", "-37_8", True), (r"\boxed{43_5}", "43_5.", True), (r"\boxed{24}", "24_{10}", True),
    (r"\boxed{42_{10}}", "42", True), (r"\boxed{x_1 = 5}", "x_1 = 5", True), (r"\boxed{\log_2 8}", "3", True)])
def test_round_25_a_math_answer_in_a_number_base_must_carry_the_same_base(completion, gold, right):
    """Hostile round 25 (S2): math-verify drops a subscript, so `52_9`, `52_{10}` and a bare `52` equalled `52_8`
    (6 of MATH-500's answers carry a base); a number in a base now equals only the same value in the same base, and a
    plain integer is base 10. A subscript that is no base (`x_1`, `\\log_2`) is read as before."""
    assert is_correct(completion, gold, "math") is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    (r"So the answer is \boxed{\text{(B)}}.", "(B)", "bbh", True), ("So the answer is (B).\n" + r"\boxed{\text{(B)}}", "(B)", "bbh", True),
    (r"The final answer is $\boxed{\textbf{B}}$", "(B)", "bbh", True), ("#### E\n" + r"\boxed{\text{E}}", "E", "shuffle", True),
    (r"So the answer is \boxed{\mathrm{(B)}}.", "(B)", "bbh", True), (r"\fbox{\textbf{(B)}}", "(B)", "bbh", True),
    ("#### B\n" + r"\boxed{ \text { B } }", "B", "shuffle", True),
    (r"So the answer is \boxed{\text{(C)}}.", "(B)", "bbh", False), ("So the answer is (B).\n" + r"\boxed{\text{(C)}}", "(B)", "bbh", False),
    ("#### E\n" + r"\boxed{\text{D}}", "E", "shuffle", False), (r"The final answer is $\boxed{\textbf{C}}$", "(B)", "bbh", False)])
def test_round_25_an_option_in_text_inside_a_box_is_that_option(completion, gold, source, right):
    """Hostile round 25 (S4): `\\boxed{\\text{(B)}}`, `\\boxed{\\textbf{B}}` and `\\boxed{\\mathrm{B}}` were no option,
    so their content counted as a second answer beside the right one (0); a different option boxed so is a hedge."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    (r"\boxed{12 \text{ ways}}", "12", "aime2025", True), (r"\boxed{\text{12}}", "12", "aime2025", True),
    (r"\boxed{+12}", "12", "aime2025", True), ("#### +7", "7", "gsm8k", True), ("#### + 7", "7", "arith", True),
    ("#### +7 apples", "7", "gsm8k", True), (r"\boxed{12\text{ ways}}", "12", "aime2025", True),
    ("#### 12\n" + r"\boxed{12 \text{ ways}}", "12", "gsm8k", True), (r"\boxed{8 \text{ cm}}", "8", "gsm8k", True),
    (r"\boxed{12 \text{ ways}}", "13", "aime2025", False), (r"\boxed{12 \text{ or } 13}", "12", "aime2025", False),
    (r"\boxed{12 \text{ thousand}}", "12", "aime2025", False), (r"\boxed{+12}", "13", "aime2025", False),
    (r"\boxed{\text{12}} or 13", "12", "aime2025", False), ("#### +7", "-7", "gsm8k", False), ("#### 3+4", "7", "gsm8k", False),
    (r"\boxed{2.5}", "2", "aime2025", False)])
def test_round_25_a_unit_or_text_in_an_aime_box_and_a_plus_sign_are_read(completion, gold, source, right):
    """Hostile round 25 (S9): AIME compared a box's raw text, so `\\boxed{12 \\text{ ways}}`, `\\boxed{\\text{12}}` and
    `\\boxed{+12}` were wrong for 12, and `#### +7` was no number; a box is now read as a `####` mark is (its `\\text{}`
    as plain words, a unit allowed, a scale word or a second number not), and a leading `+` is the number's sign."""
    answer_format = "boxed" if source == "gsm8k" and "####" not in completion else None
    assert is_correct(completion, gold, source, answer_format) is right


@pytest.mark.parametrize(("completion", "gold", "source", "answer_format"), [
    ("\\boxed{12}\nThe answer is 13.", "12", "aime2025", None), ("\\boxed{12}\nFinal answer: 13", "12", "aime2025", None),
    ("#### 12\nThe answer is 13.", "12", "aime2025", None), ("\\boxed{5}\nFinal answer: 6", "5", "math", None),
    ("\\boxed{5}\n\n**Final Answer**: 6", "5", "math", None), ("\\boxed{31}\nThe answer is 32.", "31", "tinymath", None),
    ("\\boxed{7}\nThe answer is 8.", "7", "arith", "boxed"), ("<answer>7</answer>\nThe answer is 8.", "7", "gsm8k", "tagged"),
    ("\\boxed{12}\nThe answer is thirteen.", "12", "aime2025", None),
    ("\\boxed{31}\n**Final Answer**: 32", "31", "tinymath", None), ("<answer>7</answer>\n**Final Answer:** 8", "7", "gsm8k", "tagged"),
    ("\\boxed{7}\nFinal Answer:\n8", "7", "math", None), ("\\boxed{7}\nThe answer is $8$.", "7", "gsm8k", "boxed"),
    ("\\boxed{12}\nSo the final answer is 12 or 13.", "12", "aime2025", None)])
def test_round_25_a_stated_answer_beside_a_marked_one_is_a_hedge_in_every_format(completion, gold, source, answer_format):
    """Hostile round 25 (S6): a number stated after `the answer is` / `Final answer:` was read beside a `####` answer for
    gsm8k and arith only; beside a box or a tag, and for AIME, MATH and tinymath, the different stated answer was
    dropped (1). One rule in every format now: a stated answer that differs from the marked one is a hedge."""
    assert not is_correct(completion, gold, source, answer_format)
    agreeing = completion.replace("13", "12").replace("thirteen", "twelve").replace("6", "5").replace("32", "31") \
        .replace("8", "7")
    if "or 12" not in agreeing:  # the same answer stated beside the mark: right
        assert is_correct(agreeing, gold, source, answer_format)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("#### 7\nor 8", "7", "gsm8k"), ("#### 7\n(or maybe 8)", "7", "arith"), ("#### D\nor E", "D", "shuffle"),
    ("#### 7\n\nor 8", "7", "gsm8k"), ("#### 7\nOtherwise, 8.", "7", "gsm8k"), ("#### 7\nor eight", "7", "gsm8k"),
    ("#### D\nor (E)", "D", "shuffle"), ("#### 7\n#### 7\nor 8", "7", "gsm8k"), ("#### 7\nor $\\frac{1}{2}$", "7", "gsm8k")])
def test_round_25_an_alternative_on_the_line_after_a_hash_mark_is_a_hedge(completion, gold, source):
    """Hostile round 25 (S5): `#### 7 or 8` was a hedge but `#### 7\\nor 8` scored 1 (a mark is read to its line's end);
    the text after a mark is now read as after a box (`\\boxed{31}\\nor 32` was already 0), and after a tag."""
    assert not is_correct(completion, gold, source)
    assert not is_correct(completion.replace("#### ", "<answer>", 1).replace("\n", "</answer>\n", 1), gold, "tagged")


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("#### 7\nor 7", "7", "gsm8k"), ("#### 7\nor seven", "7", "gsm8k"), ("#### 7\nOr, equivalently, 7.", "7", "gsm8k"),
    ("#### D\nOr Eve would have it, but she swapped.", "D", "shuffle"), ("#### 7\nOr, to check: 7 - 3 = 4.", "7", "gsm8k"),
    ("\\boxed{21} or twenty-one", "21", "math"), ("<answer>7</answer> or 7", "7", "tagged"),
    ("One answer is 3, the other is -2. So \\boxed{3, -2}", "3, -2", "math"),
    ("The answer is 3 or -2.\n\\boxed{3,-2}", "3,-2", "math"), ("The answer is 0.5, so \\boxed{\\frac{1}{2}}", r"\frac{1}{2}", "math"),
    ("The final answer is $\\boxed{12}$. I hope it is correct.", "12", "aime2025"),
    ("**Final Answer**\n\n\\boxed{5}", "5", "math"), ("If the answer is 13, then 2 * 13 > 25, so \\boxed{12}", "12", "aime2025")])
def test_round_25_the_marked_answer_restated_after_it_stays_right(completion, gold, source):
    """Hostile round 25: right answers the new readings must not refuse: the same answer offered again (in words too),
    a stated number that is one of a MATH reference's several values, a box after its label, a trial."""
    assert is_correct(completion, gold, source)


@pytest.mark.parametrize(("stated", "right"), [
    ("**Final Answer**: 8", False), ("**Final Answer:** 8", False), ("__Final answer__: 8", False), ("**Answer: 8**", False),
    ("The answer is eight.", False), ("The answer is Eight apples.", False), ("Answer: seventy-one", False),
    ("Answer: 7 or 8", False), ("Answer: 7 (or maybe 8)", False), ("The answer is 7, or rather 8.", False),
    ("The answer is seven or eight.", False), ("Final Answer:\n8", False), ("Answer: $7$ or $8$", False),
    ("**Final Answer**: 7", True), ("The answer is seven.", True), ("The answer is one of the two.", True),
    ("Answer: 7 or 7", True), ("Answer:\n1. Add 3 and 4 to get 7.", True), ("The answer is 3/4 of 28, 21 - 14 = 7.", True),
    ("Answer: 7, 8", True), ("**Final Answer**\n\n#### 7", True), ("The answer is seven eight.", True)])
def test_round_25_a_bold_label_a_number_in_words_or_a_list_after_a_label_is_a_stated_answer(stated, right):
    """Hostile round 25 (S5): beside `#### 7`, a bold label (`**Final Answer**: 8`), a number in words (`The answer is
    eight.`) and a list offered after a label (`Answer: 7 or 8`) were not read (1); a label ending its line reads the next
    line when it holds the value alone; a pair (`7, 8`), a fraction and a calculation still state no number. Stated
    before the mark, `The answer is eight.` is working (round 33); a final-answer label's 8 hedges there too
    (reliability round 3)."""
    final = stated.lstrip("*_").startswith(("Answer", "Final"))
    assert is_correct(f"#### 7\n{stated}", "7", "gsm8k") is right
    assert is_correct(f"{stated}\n#### 7", "7", "arith") is (right or not final)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("So the answer is (B) or rather (C).", "(B)", "bbh"), (r"\boxed{5}, or rather 6.", "5", "math"),
    (r"\boxed{12} or rather 13", "12", "aime2025"), ("So the answer is (B), or actually, (C).", "(B)", "bbh"),
    (r"\boxed{5} or I mean 6", "5", "math"), (r"\boxed{5}, or that is, $6$", "5", "math"),
    ("The answer is 12, or I mean 13.", "12", "aime2025"), ("The answer is 12, or I mean 13.", "13", "aime2025"),
    ("#### 7 or rather 8", "7", "gsm8k"), ("#### 7\nor actually 8", "7", "gsm8k"), ("#### D\nor rather E", "D", "shuffle"),
    ("#### 7\nThe answer is 7, or rather 8.", "7", "arith")])
def test_round_25_a_correction_after_an_answer_is_a_second_answer(completion, gold, source):
    """Hostile round 25 (S10): `or` then `rather`, `actually`, `I mean` or `that is` was neither a connector nor a hedge,
    so the corrected answer after it was not read and the first one scored 1; the corrected answer now counts as a
    second answer (0), whichever of the two is right. The same answer corrected to itself stays right."""
    assert not is_correct(completion, gold, source)
    assert is_correct(r"\boxed{5}, or rather 5.", "5", "math") and is_correct("So the answer is (B) or rather (B).", "(B)", "bbh")


@pytest.mark.parametrize("repeated", [" or , actually ,", " or rather", "**Final Answer**: ", " or 8", "Answer:\n", " one two"])
def test_round_25_the_new_readings_grade_a_degenerate_completion_at_once(repeated):
    """Hostile round 25 (found mending S10): a correction that could take the comma after it, as a list's separator can,
    made `So the answer is (A) or , actually , ...` take time doubling with each repetition (0.1 s at 14); its time is
    measured nowhere here (the shared machine's load varies): it ends or not."""
    for completion in ("So the answer is (A)" + repeated * 250 + " maybe", r"\boxed{5}" + repeated * 250 + " 6",
                       "#### 7\nAnswer: 7" + repeated * 250 + " x", "The answer is 12" + repeated * 250 + " 13"):
        for source, gold in (("bbh", "(B)"), ("math", "5"), ("gsm8k", "7"), ("aime2025", "12")):
            is_correct(completion, gold, source)


def test_only_a_number_tasks_hash_answer_is_read_beside_a_stated_number():
    """A stated number (`The answer is 8.`) is a second answer beside gsm8k's and arith's `#### 7`; shuffle's `#### E`
    is a letter, so a count its reasoning states (`How many swaps? The answer is 3.`) is no second answer."""
    assert not is_correct("#### 7\nThe answer is 8.", "7", "arith")
    assert is_correct("How many swaps are there? The answer is 3. After them Alice holds the ball (E).\n#### E", "E",
                      "shuffle")


def test_a_number_tasks_quantities_named_by_capital_letters_are_no_option_answers():
    """Only the letter tasks (shuffle, BBH) read a stated option beside their answer: a gsm8k reasoning that names
    its quantities A and B (`the answer is A + B = 8`) keeps its `#### 8`."""
    completion = "Let A be Alice's apples and B Bob's. The answer is A + B = 3 + 5 = 8.\n#### 8"
    assert is_correct(completion, "8", "gsm8k") and not is_correct(completion, "9", "gsm8k")


@pytest.mark.parametrize("beside", ["\\boxed{D}", "<answer>D</answer>",
                                    "".join(f"So the answer is ({letter}). " for letter in "ABCDEFG" * 3)])
def test_a_letter_tasks_hash_answer_beside_another_answer_or_a_spray_of_options_scores_zero(beside):
    """shuffle's `#### E` beside a box or a tag holding another letter is a hedge, and so is one beside more stated
    options than MAX_MARKS (every letter said in turn): neither reads as the right `#### E`."""
    assert not is_correct(f"#### E\n{beside}", "E", "shuffle")
    assert not is_correct(f"{beside}\n#### E", "E", "shuffle")
    assert is_correct("#### E\n\\boxed{E}", "E", "shuffle")  # the same letter restated: one answer


def test_a_problem_asked_in_its_sources_own_format_is_held_to_that_sources_shape():
    """answer_format naming the source's own format (`hash` for arith) is no other format: the whole shape is checked,
    as without it (any `####` answer would otherwise score), and a source with no shape is refused as without it."""
    completions = ["3+4=7\n#### 7", "I think\n#### 7", "#### 7 and more"]
    assert format_reward(completions, source=["arith"] * 3, answer_format=["hash"] * 3) == [1.0, 0.0, 0.0]
    assert format_reward(completions, source=["arith"] * 3) == [1.0, 0.0, 0.0]
    from course_lib import CourseError

    with pytest.raises(CourseError, match="source/answer_format 'gsm8k' has no format shape"):
        format_reward(["#### 7"], source=["gsm8k"], answer_format=["hash"])


# Mutation survivors of answers.py (the partial run reported at be4ac1d)
@pytest.mark.parametrize(("completion", "gold", "right"), [
    (r"\boxed{52_8}", "$52_8$", True), (r"\boxed{24X}", "24_{10}", False), (r"\boxed{101}", "101_2", False),
    (r"\boxed{10}", "10_{36}", False), (r"\boxed{-37}", "-37_{10}", True), (r"\boxed{-37_8}", "37_8", False)])
def test_a_number_in_a_base_keeps_its_sign_and_its_digits_in_any_base_from_2_to_36(completion, gold, right):
    """A base's number keeps its sign and only its own digits (`24X` is no `24_{10}`), in `$...$` too; bases 2 and 36
    are bases too (a bare `101` is no `101_2`)."""
    assert is_correct(completion, gold, "math") is right


@pytest.mark.parametrize(("completion", "gold", "right"), [
    (r"\boxed{\text{42}_{10}}", "42", True), (r"\boxed{42_{10}}", r"\frac{84}{2}", True),
    (r"\boxed{52_8}", r"\frac{104}{2}", False), (r"\boxed{52_{11}}", r"\frac{104}{2}", False)])
def test_a_base_10_subscript_is_a_plain_number_and_another_base_equals_only_that_base(completion, gold, right):
    """`\\text{42}_{10}` is 42 (math-verify misreads it), `42_{10}` equals any form of 42; `52_8` and `52_{11}` are not
    the 52 that math-verify would read once it drops their subscript."""
    assert is_correct(completion, gold, "math") is right


@pytest.mark.parametrize(("completion", "gold"), [(r"\boxed{6}. Alternatively, $x=6$.", "6"),
                                                (r"\boxed{x+1}. Alternatively, $x + 1$.", "x+1"),
                                                (r"\boxed{5}. Alternatively, $x = \frac{10}{2} = 5$.", "5")])
def test_an_alternative_that_restates_the_boxed_value_after_its_last_equals_sign_is_no_hedge(completion, gold):
    """What follows an alternative's last `=` is compared with the box, spaces aside: each of these restates it."""
    assert is_correct(completion, gold, "math")


@pytest.mark.parametrize(("words", "number"), [
    ("one hundred and five", 105), ("three thousand and five", 3005), ("two thousand five hundred", 2500),
    ("five hundred thousand", 500_000), ("hundred", 100), ("thousand", 1000)])
def test_a_number_in_words_beside_a_hash_answer_is_read_as_its_digits(words, number):
    """`The answer is one hundred and five.` restates `#### 105` and contradicts `#### 106`."""
    assert is_correct(f"#### {number}\nThe answer is {words}.", str(number), "gsm8k")
    assert not is_correct(f"#### {number + 1}\nThe answer is {words}.", str(number + 1), "gsm8k")


@pytest.mark.parametrize(("words", "gold"), [("twenty ten", "2010"), ("twenty thirty", "2030"),
                                             ("one thousand million", "1000000000")])
def test_words_that_make_no_one_number_are_not_read_as_another_number_beside_a_hash_answer(words, gold):
    """A year said in words (`twenty ten`) or a British billion (`one thousand million`) is left as words: not read as
    30, 50 or 1,001,000, which would contradict the right `####` answer."""
    assert is_correct(f"#### {gold}\nThe answer is {words}.", gold, "gsm8k")


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    (r"\boxed{2x} or $2x$", "2x", "math", True),  # the box restated: one answer
    (r"\boxed{2x}. Alternatively, $2x$.", "2x", "math", True),
    (r"\boxed{2\sqrt{3}} or $2\sqrt{3}$", r"2\sqrt{3}", "math", True),
    (r"\boxed{2x} or $3x$", "2x", "math", False),  # a second answer: a hedge
    (r"\boxed{2} or $2^3$", "2", "math", False),
    (r"\boxed{5} or 6x", "5", "math", False),
    (r"\boxed{5} or $6", "5", "math", False),
    (r"\boxed{2x} or $2x$ or $3x$", "2x", "math", False),  # round 30: a restatement, then a second answer
    (r"\boxed{5} or $5$, or maybe $6$", "5", "math", False),
    (r"\boxed{5} or $5$ or $5$", "5", "math", True),
    ("#### 7\nor 7 or 8", "7", "gsm8k", False),
    ("#### 2\nThe answer is a thousand.", "2", "gsm8k", False),  # `a thousand` states 1000
    ("#### 1000\nThe answer is a thousand.", "1000", "gsm8k", True),
])
def test_a_box_restated_in_math_that_starts_with_a_digit_is_one_answer_and_a_thousand_is_a_number(
        completion, gold, source, right):
    """Found by mutation triage: `\\boxed{2x} or $2x$` scored 0 (the number `2` was read out of `$2x$` as a second
    answer), and `a thousand` beside a `####` answer was no number, so a contradicting statement went unseen."""
    assert is_correct(completion, gold, source) is right


# Hostile round 30 (left): one marked answer; any other value offered after it, in any notation the grader reads,
# that differs from it makes the completion a hedge; a restatement of the same value does not
@pytest.mark.parametrize(("completion", "gold", "source"), [
    (r"\boxed{5} or \[6\]", "5", "math"), (r"\boxed{5} or x=6", "5", "math"), (r"\boxed{5} or **6**", "5", "math"),
    (r"\boxed{5}, i.e. $6$", "5", "math"), (r"\boxed{5} vs $6$", "5", "math"), (r"\boxed{5} vs. 6", "5", "math"),
    ("The answer is 8, i.e. 7.", "7", "aime2025"), (r"\boxed{5}, though it could be \[6\]", "5", "math")])
def test_round_30_left_an_alternative_in_display_math_bold_an_equation_or_after_ie_or_vs_is_a_hedge(
        completion, gold, source):
    """Hostile round 30 (left): after a box, `\\[6\\]`, `x=6` and `**6**` were no alternatives the grader read, and
    `i.e.` and `vs` were no connectors (1 for 5); AIME's last number after `i.e.` was read as the answer."""
    assert not is_correct(completion, gold, source)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("#### 7\n\\(8\\)", "7", "gsm8k"), ("#### 7\n$8$", "7", "gsm8k"), ("\\boxed{5}\n**6**", "5", "math"),
    ("\\boxed{5}\n\\[ 6 \\]", "5", "math"), ("$\\boxed{5}$\n$x = 6$", "5", "math"), ("<answer>7</answer>\n\\(8\\)", "7", "gsm8k")])
def test_round_30_left_a_number_shown_alone_in_math_or_bold_right_after_a_mark_is_a_hedge(completion, gold, source):
    """Hostile round 30 (left): a second value set alone on its line in math or bold right after the mark, with no
    connector, scored 1 for the mark."""
    answer_format = "tagged" if "<answer>" in completion else None
    assert not is_correct(completion, gold, source, answer_format)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("\\boxed{1/2}\nThe answer is 1/3.", "1/2", "math"), ("\\boxed{1/2}\nThe answer is 1/3.", r"\frac{1}{2}", "tinymath"),
    ("\\boxed{1/2}\nThe answer is $\\frac{1}{3}$.", "1/2", "math"), ("#### 7\nThe answer is 15/2.", "7", "gsm8k"),
    ("\\boxed{7}\nThe answer is 15/2.", "7", "aime2025")])
def test_round_30_left_a_fraction_stated_after_a_mark_is_a_second_answer(completion, gold, source):
    """Hostile round 30 (left): `The answer is 1/3.` stated no number (only digits and decimals were read), so beside
    `\\boxed{1/2}` it scored 1; a stated fraction is now an answer, one that is whole as its integer."""
    assert not is_correct(completion, gold, source)


@pytest.mark.parametrize("completion", [
    "So the answer is (A) or $(B)$.", "The answer is (A), though it could be (B).", "The answer is (A), i.e. (B).",
    "The answer is (A) vs (B)."])
def test_round_30_left_a_bbh_option_after_a_gloss_a_contrast_or_in_math_is_a_second_answer(completion):
    """Hostile round 30 (left): `$(B)$`, and an option after `though it could be` or `i.e.`, were not read in a
    stated list, so (A) scored 1; now a hedge, whichever of the two is right."""
    assert not is_correct(completion, "(A)", "bbh") and not is_correct(completion, "(B)", "bbh")


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("#### 7, or minus 7", "7", "gsm8k"), (r"\boxed{7} or minus 7", "7", "math"), (r"\boxed{7} or negative 7", "7", "aime2025"),
    ("#### 7\nThe answer is minus seven.", "7", "gsm8k"), ("#### 500, or a few thousand", "500", "gsm8k"),
    (r"\boxed{600} or half a thousand", "600", "math"), (r"\boxed{500} or a few hundred", "500", "math"),
    ("#### 13 or a dozen", "13", "gsm8k"), ("#### 13\nThe answer is a dozen.", "13", "gsm8k"),
    ("#### 7\nor half a dozen", "7", "gsm8k")])
def test_round_30_left_a_sign_word_or_a_quantity_in_words_after_a_mark_is_a_second_answer(completion, gold, source):
    """Hostile round 30 (left): `or minus 7`, `or half a thousand`, `or a few thousand` and `a dozen` were no numbers
    the grader read, so the alternative was dropped (1); `a few thousand` is no one number, so it restates none."""
    assert not is_correct(completion, gold, source)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    (r"\boxed{5}, i.e. $5$", "5", "math"), ("#### 12 or a dozen", "12", "gsm8k"), ("#### 500, or half a thousand", "500", "gsm8k"),
    ("#### 7 or seven", "7", "gsm8k"), ("#### 7, i.e. 7.", "7", "arith"), (r"\boxed{500} or half a thousand", "500", "math"),
    (r"\boxed{6} or half a dozen", "6", "math"), (r"\boxed{12}, i.e. a dozen", "12", "math"),
    (r"\boxed{-7} or minus 7", "-7", "math"), (r"\boxed{5} or $\frac{10}{2}$", "5", "math"), (r"\boxed{5} or x=5", "5", "math"),
    (r"\boxed{5} vs $5$", "5", "math"), ("#### 7\n$7$", "7", "gsm8k"), ("\\boxed{5}\n**5**", "5", "math"),
    ("#### 12\nThe answer is a dozen.", "12", "gsm8k"), ("#### 500\nThe answer is half a thousand.", "500", "gsm8k"),
    ("\\boxed{1/2}\nThe answer is 0.5.", "1/2", "math"), ("\\boxed{\\frac{1}{2}}\nThe answer is 1/2.", r"\frac{1}{2}", "tinymath"),
    ("#### 8\nThe answer is 16/2.", "8", "gsm8k"), ("The answer is (A), i.e. Alice.", "(A)", "bbh"),
    ("So the answer is (B) or $(B)$.", "(B)", "bbh")])
def test_round_30_left_the_marked_value_restated_in_another_notation_stays_one_answer(completion, gold, source):
    """A restatement is no hedge: the same value in words, in math, as a fraction, or as `x = ...`; on a `####` line too
    (`#### 12 or a dozen` was a hedge: the line was read whole)."""
    assert is_correct(completion, gold, source)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("#### 7\n\nI hope this helps with step 2.", "7", "gsm8k"), ("#### 7 apples", "7", "gsm8k"),
    ("Step 2: 3 + 4 = 7, so 7 apples.\n#### 7", "7", "gsm8k"), ("#### 7\n\nNote: 3 apples were eaten.", "7", "gsm8k"),
    ("\\boxed{7}\n\nI hope this helps with step 2.", "7", "math"), (r"\boxed{7}. I used 3 steps.", "7", "math"),
    ("\\boxed{5}\n\\[ 2 + 3 = 5 \\]", "5", "math"), ("\\boxed{5}\n\\[ 2 + 4 = 6 \\]", "5", "math"),
    ("$\\boxed{5}$ and $x = 3$ was used.", "5", "math"), ("\\boxed{5}\n$x = 3$ gives it.", "5", "math"),
    ("\\boxed{5}\n\n**Answer:** 5", "5", "math"), ("**\\boxed{5}** and **3** more", "5", "math"),
    (r"\boxed{12}, i.e. 12 eggs", "12", "math"), (r"\boxed{12} or one of the others", "12", "math")])
def test_round_30_left_numbers_after_a_mark_that_offer_no_alternative_are_no_hedge(completion, gold, source):
    """What is read after a mark is an alternative joined to it by a connector, or a number shown alone on its line;
    text with numbers in it (`step 2`, a unit, a displayed equation, which is working) offers none."""
    assert is_correct(completion, gold, source)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    (r"\boxed{8}, not 7", "8", "math"), (r"\boxed{8} rather than 7", "8", "math"), (r"\boxed{8} instead of $7$", "8", "math"),
    (r"\boxed{8}, not 7", "8", "aime2025"), (r"\boxed{8} rather than 7", "8", "aime2025"), ("#### 8, not 7", "8", "gsm8k"),
    ("#### 8\nnot 7", "8", "gsm8k"), ("\\boxed{8}. Not 7.", "8", "math"), ("<answer>8</answer> (not 7)", "8", "aime2025"),
    ("The answer is 8 rather than 7.", "7", "aime2025"), ("#### A, not B", "A", "shuffle")])
def test_round_30_left_a_value_rejected_after_a_mark_is_a_second_answer(completion, gold, source):
    """Hostile round 30 (left): `\\boxed{8}, not 7`, `\\boxed{8} rather than 7` and `So the answer is (A), not (B).` scored
    1 for the mark (a rejection was read as no answer, and ONE_ANSWER pinned `\\boxed{2}, not 3 or 4` as one answer);
    the completion names two values, so it scores on neither. A rejection without a value right after it
    (`not counting 3`, `not one more`) offers none. (A BBH option rejected, `(A), not (B)`, was decided a negation, no
    second answer, in reliability round 3.)"""
    other = {"8": "7", "(A)": "(B)", "A": "B", "7": "8"}[gold]
    assert not is_correct(completion, gold, source) and not is_correct(completion, other, source)
    assert is_correct(r"\boxed{8}, not counting the 2 spares", "8", "math") and is_correct(r"\boxed{5}, not one more", "5", "math")


# Hostile round 31: a mark followed by many blank lines or spaces; each run of them was split every way by the
# regexes that read an alternative after a mark (cubic time: 15 s of CPU for the AIME one). Read linearly now, these
# grade at once; the right score is asserted (a test that turned slow again would show in the suite's times)
_BLANK_RUNS = [
    (("\\boxed{7}" + "\n" * 155) * 16 + ("#### 7" + "\n" * 155) * 16, "7", "aime2025", True),
    (("\\boxed{7}" + "\n" * 155) * 16 + ("#### 7" + "\n" * 155) * 16, "7", "math", True),
    (("\\boxed{7}" + "\n" * 155) * 16 + ("#### 7" + "\n" * 155) * 16, "7", "tinymath", True),
    (("#### A" + "\n" * 155) * 16, "A", "shuffle", True), (("#### 7" + "\n" * 155) * 16, "7", "gsm8k", True),
    (("#### 7" + " " * 155) * 16, "7", "arith", True), (("\\boxed{7}" + " " * 155) * 16, "7", "math", True),
    (("\\boxed{7}" + " \n" * 70) * 16 + "or 8", "7", "math", False), (("#### 7" + "\n" * 155) * 16 + "or 8", "7", "gsm8k", False),
    (("#### A" + "\n" * 155) * 16 + "or B", "A", "shuffle", False), ("1" + " " * 3000 + "2", "2", "aime2025", True)]


@pytest.mark.parametrize(("completion", "gold", "source", "right"), _BLANK_RUNS)
def test_round_31_a_mark_followed_by_long_runs_of_blank_lines_is_graded_at_once(completion, gold, source, right):
    """Hostile round 31: `\\boxed{7}` and `#### 7` each followed by 155 newlines, 16 times, took 15 s of CPU to grade
    for AIME (6.8 s for shuffle's `#### A`): the whitespace before a connector was split every way, cubic in its
    length. An alternative after the blank lines (`or 8`) is still read."""
    assert is_correct(completion, gold, source) is right
    assert correctness_reward([completion], answer=[gold], source=[source]) == [1.0 if right else 0.0]


_PREFIXED = [(r"\boxed{3} or 3/4", "3"), (r"\boxed{3}, i.e. 3/4", "3"), (r"\boxed{3} vs 3/4", "3"), (r"\boxed{3}, not 3/4", "3"),
             (r"\boxed{3} instead of 3/4", "3"), (r"\boxed{7} or 7 thousand", "7"), (r"\boxed{2} or 2\sqrt{2}", "2"),
             (r"\boxed{5} or 5!", "5"), (r"\boxed{2} or 2^3", "2"), (r"\boxed{2} or 2x", "2"), (r"\boxed{7} or 7+1", "7"),
             (r"\boxed{7} or 7-1", "7"), (r"\boxed{12} or 12%", "12"), (r"\boxed{1} or 1e3", "1"),
             (r"\boxed{7}, i.e. 7 \times 2", "7")]


@pytest.mark.parametrize(("completion", "gold"), _PREFIXED)
@pytest.mark.parametrize("source", ["math", "tinymath", "aime2025", "gsm8k"])
def test_round_31_a_value_offered_after_a_mark_that_only_starts_with_its_digits_is_a_second_answer(completion, gold, source):
    """Hostile round 31: a number offered after a mark was read only as far as its digits went, so `\\boxed{3} or 3/4`,
    `\\boxed{7} or 7 thousand` and `\\boxed{5} or 5!` restated the mark (1); the value offered is read whole, up to
    its sentence's end, a comma or the next connector, and one that is not the same value is a second answer. For
    gsm8k the mark is `#### N` on its own line, the alternative on the next (`#### 3\\nor 3/4`)."""
    if source == "gsm8k":
        completion = completion.replace(rf"\boxed{{{gold}}}", f"#### {gold}\n")
    assert not is_correct(completion, gold, source)
    assert correctness_reward([completion], answer=[gold], source=[source]) == [0.0]


@pytest.mark.parametrize(("completion", "gold", "source"), [
    (r"\boxed{\frac{3}{4}}, i.e. 3/4", r"\frac{3}{4}", "tinymath"), (r"\boxed{1/2}, i.e. 1/2", r"\frac{1}{2}", "math"),
    (r"\boxed{1/2}, i.e. 1/2", r"\frac{1}{2}", "tinymath"), ("#### 0.5\nor 1/2", "0.5", "gsm8k"),
    (r"\boxed{7} (or 7)", "7", "math"), (r"\boxed{7} or 7.", "7", "math"), (r"\boxed{3/4} or 0.75, or maybe 3/4", "3/4", "math")])
def test_round_31_a_fraction_offered_after_a_mark_that_restates_it_is_one_answer(completion, gold, source):
    """Hostile round 31: `\\boxed{1/2}, i.e. 1/2` was a hedge (the 1 of `1/2` was read as the value offered, and it is
    not 1/2); the fraction offered is read whole and compared by value with the mark."""
    assert is_correct(completion, gold, source)


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("#### 25%", "25", True), ("#### 25 %", "25", True), ("#### 25 percent", "25", True), ("#### 25\\%", "25", True),
    ("#### 7 (apples)", "7", True), ("#### 7 apples (3 red, 4 green)", "7", True), ("#### 7 (7)", "7", True),
    ("#### 7 (or 8)", "7", False), ("#### 7 (or 8 apples)", "7", False), ("#### 7 (8)", "7", False), ("#### 7 (about)", "7", False), ("#### 7 (approx)", "7", False),
    ("#### 7 (3 thousand)", "7", False), ("#### 7 (not 8)", "7", False), ("#### 25% of 40", "25", False),
    ("#### 12\nor 12%", "12", False)])
def test_round_31_a_percent_or_a_describing_aside_after_a_hash_number_reads_the_number(completion, gold, right):
    """Hostile round 31: `#### 25%`, `#### 25 %`, `#### 25 percent`, `#### 7 (apples)` and `#### 7 apples (3 red, 4
    green)` gave no answer (0); lm-eval's strict match reads the number, and so does the grader now. An aside that
    offers, qualifies or changes a value (`7 (or 8)`, `7 (8)`, `7 (about)`, `7 (3 thousand)`) still gives none."""
    assert is_correct(completion, gold, "gsm8k") is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("$\\boxed{7}$\n$$8$$", "7", "math", False), ("#### 7\n$$8$$", "7", "gsm8k", False), ("\\boxed{7}\n$$8$$", "7", "aime2025", False),
    ("\\boxed{7}\n$$ x = 8 $$", "7", "math", False), ("$$\\boxed{7}$$\n$$8$$", "7", "math", False),
    ("$\\boxed{7}$\n$$7$$", "7", "math", True), ("#### 7\n$$3 + 4 = 7$$", "7", "gsm8k", True), ("$$\\boxed{7}$$\nDone.", "7", "math", True)])
def test_round_31_a_number_shown_alone_in_display_dollars_after_a_mark_is_a_hedge(completion, gold, source, right):
    """Hostile round 31: `$$8$$` alone on the line after a mark was not read (1), while `\\[8\\]` was a second answer;
    it is one now. The same value (`$$7$$`) restates the mark, and an equation (`$$3 + 4 = 7$$`) is working."""
    assert is_correct(completion, gold, source) is right


_STATED_AFTER_A_MARK = ["\nThe answer is either 7 or 8.", "\nThe answer is 7 to 8.", "\nThe answer is 7-8.",
                        "\nThe answer would be 8.", "\nThe answer should be 8.", "\nThe answer is probably 8.",
                        "\nThe answer is actually 8.", "\nThe answers are 7 and 8.", "\nThe answer is 7 and/or 8."]
_LABELLED_AFTER_A_HASH = ["\nThe result is 8.", "\nFinal: 8", "\nAns: 8", "\nCorrection: 8", "\nAnswer 8"]


@pytest.mark.parametrize("statement", _STATED_AFTER_A_MARK)
@pytest.mark.parametrize(("mark", "source"), [("#### 7", "gsm8k"), ("$\\boxed{7}$", "math"), ("$\\boxed{7}$", "tinymath"),
                                              ("$\\boxed{7}$", "aime2025")])
def test_round_31_left_a_second_value_stated_after_a_mark_is_a_hedge(statement, mark, source):
    """Hostile round 31 (left): after `#### 7` or `$\\boxed{7}$`, `The answer is either 7 or 8.`, `7 to 8`, `7-8`, `The
    answer would be 8.`, `is probably 8`, `The answers are 7 and 8.` scored 1 for 7: a modal or an adverb after the label,
    a plural label and a range or a pair were not read as a statement. Two values named: scored on neither."""
    completion = mark + statement
    assert not is_correct(completion, "7", source) and not is_correct(completion, "8", source)
    assert correctness_reward([completion], answer=["7"], source=[source]) == [0.0]


@pytest.mark.parametrize("statement", _LABELLED_AFTER_A_HASH)
def test_round_31_left_another_label_on_the_line_after_a_hash_mark_is_a_hedge(statement):
    """Hostile round 31 (left): `#### 7` then `The result is 8.`, `Final: 8`, `Ans: 8`, `Correction: 8` or `Answer 8` on
    the next line scored 1 for 7: only `answer is` or `answer:` labels were read. A label on the line right after a mark
    offers a second answer."""
    assert not is_correct("#### 7" + statement, "7", "gsm8k") and not is_correct("#### 7" + statement, "8", "gsm8k")


@pytest.mark.parametrize(("completion", "source"), [
    ("#### 7\nThe answer is 7.", "gsm8k"), ("$\\boxed{7}$\nThe answer is 7.", "math"), ("#### 7\nFinal: 7", "gsm8k"),
    ("#### 7\nThe result is 7 apples.", "gsm8k"), ("#### 7\nStep 2 used 8 apples.", "gsm8k"),
    ("$\\boxed{7}$\nStep 2 used 8 apples.", "aime2025"), ("#### 7\nThe answer would be 7.", "gsm8k")])
def test_round_31_left_a_restatement_or_prose_after_a_mark_is_one_answer(completion, source):
    """Hostile round 31 (left): the mark's value restated after a label is one answer, and prose with a number that is no
    answer statement (`Step 2 used 8 apples.`) is working, not a second answer (read by design: only a label or a
    connector after a mark offers one)."""
    assert is_correct(completion, "7", source)


_OPTION_OFFERED_AFTER = [
    ("So the answer is (A), i.e. option (B).", "bbh"), ("So the answer is (A), that is, (B).", "bbh"),
    ("So the answer is (A)\n(B)", "bbh"), ("So the answer is (A).\nThough (B) is also plausible.", "bbh"),
    ("So the answer is (A). Actually, (B).", "bbh"), ("So the answer is (A).\nCorrection: (B)", "bbh"),
    ("So the answer is (A).\nThe correct option is (B).", "bbh"), ("So the answer is (A).\nThe answer would be (B).", "bbh"),
    ("#### A\n(B)", "shuffle"), ("#### A\nB", "shuffle"), ("#### A.\n**(B)**", "shuffle")]


@pytest.mark.parametrize(("completion", "source"), _OPTION_OFFERED_AFTER)
def test_round_31_left_an_option_offered_after_a_stated_or_marked_one_is_a_hedge(completion, source):
    """Hostile round 31 (left): BBH `So the answer is (A), i.e. option (B).`, `(A), that is, (B)`, `(A)\\n(B)`, `(A).
    Actually, (B).`, `(A).\\nCorrection: (B)`, `The correct option is (B).`, and shuffle `#### A\\n(B)`, `#### A\\nB`
    scored 1 for (A): an option after a gloss, a correction or a later label, or alone on the next line, was not read.
    Two options named: scored on neither."""
    first, second = ("(A)", "(B)") if source == "bbh" else ("A", "B")
    assert not is_correct(completion, first, source) and not is_correct(completion, second, source)
    assert correctness_reward([completion], answer=[first], source=[source]) == [0.0]


@pytest.mark.parametrize(("completion", "source"), [
    ("So the answer is (A), i.e. option (A).", "bbh"), ("So the answer is (A).\n(A)", "bbh"),
    ("So the answer is (A), though it took a while.", "bbh"), ("So the answer is (A).\n\nQ: next question", "bbh"),
    ("So the answer is (A). Actually, that was easy.", "bbh"), ("#### A\nA", "shuffle"), ("#### A\n(B) was second.", "shuffle")])
def test_round_31_left_an_option_restated_or_prose_after_it_is_one_answer(completion, source):
    """Hostile round 31 (left): the same option restated after a gloss or on the next line, and words after a stated
    answer that offer no option (`though it took a while`, `(B) was second.`), leave one answer."""
    assert is_correct(completion, "(A)" if source == "bbh" else "A", source)


_RESTATED_BY_VALUE = [
    ("#### 25, i.e. 25%", "25", "gsm8k"),
    (r"$\boxed{\frac{3}{4}}$, i.e. 75%.", r"\frac{3}{4}", "math"), (r"$\boxed{\frac{3}{4}}$, i.e. 75%.", r"\frac{3}{4}", "tinymath"),
    (r"$\boxed{\frac{1}{2}}$, i.e. 50%.", r"\frac{1}{2}", "math"), (r"$\boxed{0.25}$, i.e. 25%.", "0.25", "math"),
    (r"$\boxed{100}$, i.e. $100\%$", "100", "math"), (r"$\boxed{100}$, i.e. $10000\%$", "100", "math"),
    ("#### 25\ni.e. 25%", "25", "gsm8k"), (r"\boxed{0.12} or 12%", "0.12", "math"),
    (r"$\boxed{10000}$, i.e. $10^4$.", "10000", "math"), (r"$\boxed{36}$, i.e. $6^2$.", "36", "math"),
    (r"$\boxed{36}$, i.e. $6^2$.", "36", "aime2025"), (r"$\boxed{2\sqrt{2}}$, i.e. $\sqrt{8}$.", r"2\sqrt{2}", "math"),
    (r"$\boxed{5\text{ cm}}$, i.e. 5 cm.", "5", "math")]


@pytest.mark.parametrize(("completion", "gold", "source"), _RESTATED_BY_VALUE)
def test_round_31_left_a_value_offered_after_a_mark_that_equals_it_in_value_restates_it(completion, gold, source):
    """Hostile round 31 (left): `\\boxed{\\frac{3}{4}}, i.e. 75%.`, `\\boxed{36}, i.e. $6^2$.`, `\\boxed{2\\sqrt{2}}, i.e.
    $\\sqrt{8}$.` and `\\boxed{5\\text{ cm}}, i.e. 5 cm.` were a hedge (0 for a right answer): a percentage, a power or a
    root was compared as text. A percentage is its value (75% is 3/4); after a gloss (`i.e.`) it may restate the mark's
    own number too (`#### 25\\ni.e. 25%`, as `#### 25%` reads 25); a small numeric expression is compared by value."""
    assert is_correct(completion, gold, source)
    assert correctness_reward([completion], answer=[gold], source=[source]) == [1.0]


_OTHER_BY_VALUE = [
    (r"\boxed{3} or 3/4", "3", "math"), (r"\boxed{7} or 7 thousand", "7", "math"), (r"\boxed{2} or 2^3", "2", "math"),
    (r"\boxed{12} or 12%", "12", "math"), (r"\boxed{100} or 100%", "100", "math"), (r"\boxed{100}, i.e. 1000%", "100", "math"),
    (r"$\boxed{36}$, i.e. $6^3$.", "36", "math"), (r"$\boxed{2\sqrt{2}}$, i.e. $\sqrt{9}$.", r"2\sqrt{2}", "math"),
    (r"\boxed{\frac{3}{4}}, i.e. 70%.", r"\frac{3}{4}", "tinymath"), ("#### 7 apples or 8 apples", "7", "gsm8k"),
    (r"\boxed{7} or 8 apples", "7", "math"), ("#### 120\ni.e. 2 hours, or 3", "120", "gsm8k")]


@pytest.mark.parametrize(("completion", "gold", "source"), _OTHER_BY_VALUE)
def test_round_31_left_a_value_offered_after_a_mark_that_differs_in_value_stays_a_hedge(completion, gold, source):
    """The values compared by value still differ: `or 3/4`, `or 2^3`, `or 12%` (0.12) after 12, `$6^3$` after 36; a
    unit gloss is read past (`i.e. 2 hours, or 3` offers 3)."""
    assert not is_correct(completion, gold, source)


_EXPLAINED = [
    (r"$\boxed{120}$, i.e. 2 hours.", "120", "math"), ("#### 120\ni.e. 2 hours", "120", "gsm8k"),
    ("#### 5\ni.e. 3 more than Mary has", "5", "gsm8k"), (r"$\boxed{5}$, i.e. 3 more than Mary has.", "5", "math"),
    ("The answer is 5 hours, or 300 minutes.\n#### 5", "5", "gsm8k"), ("#### 5 hours, or 300 minutes", "5", "gsm8k"),
    (r"$\boxed{5}$ hours, or 300 minutes.", "5", "math"), (r"\boxed{5 \text{ hours}}, or 300 minutes", "5", "math"),
    (r"\boxed{120}i.e. 2 hours", "120", "math"),  # a gloss written against the box
    (r"\boxed{5 \text{ hours}}, or 5 hours, or 300 minutes", "5", "math")]  # a conversion after a restatement


@pytest.mark.parametrize(("completion", "gold", "source"), _EXPLAINED)
def test_round_31_left_a_gloss_with_a_unit_or_a_comparison_after_a_mark_is_an_explanation(completion, gold, source):
    """Hostile round 31 (left), rule chosen: a number offered after a gloss (`i.e.`, `that is`, `namely`) with a word
    after it (a unit, `2 hours`, or a comparison, `3 more than Mary has`), or after any connector in another unit than
    the mark's own (`5 hours, or 300 minutes`, as `The answer is 5 hours, or 300 minutes.` already scored), explains
    the mark and is no second answer; `#### 120\\ni.e. 2 hours` was 0, `#### 5 hours, or 300 minutes` gave no answer."""
    assert is_correct(completion, gold, source)


_OFFERED_ON_AFTER_A_MARK = [
    ("#### 7\n(8)", "gsm8k"), ("#### 7\n= 8", "gsm8k"), ("#### 7\nand 8", "gsm8k"), ("#### 7\nor even 8", "gsm8k"),
    ("#### 7\nthat is 8", "gsm8k"), ("#### 7\nnamely 8", "gsm8k"), ("#### 7\nWait, 8.", "gsm8k"),
    ("#### 7\nActually, it's 8.", "gsm8k"), ("$\\boxed{7}$ (8?)", "math"), ("$\\boxed{7}$ or even 8", "math"),
    ("$\\boxed{7}$, that is, $8$", "math"), ("\\boxed{7}\n\\framebox{8}", "math"), ("\\boxed{7}\n\\framebox{8}", "aime2025"),
    ("$\\boxed{7}$ (8?)", "aime2025"),
    ("$\\boxed{7}$, or 8 apples, that is my guess.", "math")]  # a gloss word after the value offers it no less


@pytest.mark.parametrize(("completion", "source"), _OFFERED_ON_AFTER_A_MARK)
def test_round_31_left_a_value_after_and_equals_even_that_is_namely_wait_actually_or_in_parentheses_is_a_hedge(
        completion, source):
    """Hostile round 31 (left): after `#### 7` or `\\boxed{7}`, a value on the next line after `and` or `=`, one after
    `or even`, `that is`, `namely`, `Wait,` or `Actually, it's`, a number alone in parentheses (`(8?)`, `\\n(8)`) and a
    second box written `\\framebox{8}` scored 1 for 7: none was read as offered. Two values named: scored on neither."""
    assert not is_correct(completion, "7", source) and not is_correct(completion, "8", source)
    assert correctness_reward([completion], answer=["7"], source=[source]) == [0.0]


@pytest.mark.parametrize(("completion", "gold", "source"), [
    (r"$\boxed{\frac{1}{2}}$. The answer is $x = \frac{1}{3}$.", r"\frac{1}{2}", "math"),
    ("#### 7\nThe answer is x = 16/2.", "7", "gsm8k"), ("#### 7\nThe answer is n = 1/3.", "7", "gsm8k")])
def test_a_fraction_stated_as_a_variables_value_beside_a_different_mark_is_a_hedge(completion, gold, source):
    """`The answer is $x = \\frac{1}{3}$.` after `\\boxed{\\frac{1}{2}}` scored 1: a stated fraction with its variable
    was not read (`x = 8` was), so the second value went unseen. It is one more answer now; the same value restates."""
    assert not is_correct(completion, gold, source)
    assert is_correct(r"$\boxed{\frac{1}{2}}$. The answer is $x = \frac{1}{2}$.", r"\frac{1}{2}", "math")
    assert is_correct("#### 7\nThe answer is x = 14/2.", "7", "gsm8k")


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("#### 1\n(1,000)", "1", "gsm8k"), ("#### 1\n1,000", "1", "gsm8k"), ("$\\boxed{1}$ (1,000)", "1", "math"),
    ("\\boxed{1}\n$$1,000$$", "1", "math"), ("\\boxed{2} (2,3)", "2", "math")])
def test_a_value_with_a_comma_shown_after_the_mark_is_a_second_value_not_what_the_mark_counts(completion, gold, source):
    """Only a gloss (`\\boxed{4} primes, that is, $2, 3, 5, 7$`) may list what the mark counts: `(1,000)` or `1,000`
    alone after `#### 1`, or `(2,3)` after `\\boxed{2}`, is another value, whose count of numbers is no restatement."""
    assert not is_correct(completion, gold, source)


@pytest.mark.parametrize(("completion", "source"), [
    ("#### 7\n\nI hope this helps with step 2.", "gsm8k"), ("#### 7\nStep 2 used 8 apples.", "gsm8k"),
    ("#### 7\n(7)", "gsm8k"), ("#### 7\nand 7", "gsm8k"), ("#### 7\nActually, it's 7.", "gsm8k"),
    ("#### 7\n(1) First we add.", "gsm8k"), ("\\boxed{7}. Actually, that was easy.", "math"),
    ("$\\boxed{7}$ and $x = 3$ was used.", "math"), ("\\boxed{7}\n\\framebox{7}", "math"), ("\\framebox{7}", "math")])
def test_round_31_left_the_same_value_or_prose_after_those_words_is_one_answer(completion, source):
    """The same value after them restates the mark; prose (`step 2`, a numbered list's `(1) First`, `and $x = 3$ was used`)
    offers none; `\\framebox{7}` is a box."""
    assert is_correct(completion, "7", source)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("9 × 2 = 18\n#### 18\n\nWait, 16 - 3 - 4 = 9, and 9 × 2 = 18. Yes, correct.", "18", "gsm8k"),
    ("#### 18\n\nActually, 16 - 3 - 4 = 9 eggs, times $2 is $18. Confirmed.", "18", "gsm8k"),
    ("The remainder is $\\boxed{10}$.\n\nWait, $2^{10} = 1024$, so this checks out.", "10", "math"),
    ("$\\boxed{16}$\n\nWait, $m = 7$ and $n = 9$ are coprime, so this is right.", "16", "aime2025"),
    ("So the answer is (B). However, (A) might look plausible if you miss the last swap.", "(B)", "bbh"),
    ("So the answer is (B). Though (A) is a common mistake.", "(B)", "bbh"),
    ("So the answer is (B). But (A) was Bob's original ball.", "(B)", "bbh"),
])
def test_round_32_a_check_after_the_mark_or_an_option_named_in_passing_is_no_second_answer(completion, gold, source):
    """Hostile round 32: a check line after the mark (`Wait, 16 - 3 - 4 = 9, ...`) read its first number as a second
    answer, and an option named after `However` or `Though` in an explanation was a hedge: right answers scored 0.
    `Wait` and `Actually` offer a value only when it ends its line (`Wait, 8.`); `though`, `but` and `however` an
    option only when it ends its clause or is called right too (`Though (B) is also plausible.`)."""
    assert is_correct(completion, gold, source)
    hedged = (completion.split(". ")[0] + ". Though (C) is also plausible." if source == "bbh" else
              completion.split("\n\n")[0] + "\nActually, 7.")  # the same mark, then a real second answer
    assert not is_correct(hedged, gold, source)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("Step 1: the answer is 9.\nThen 9 + 3 = 12.\n#### 12", "12", "gsm8k"),
    ("Answer: 9 for the first part.\nSo 9 + 3 = 12.\n\\boxed{12}", "12", "math"),
    ("The answer is 9.\n\\boxed{12}", "12", "tinymath"), ("The answer is 13.\n\\boxed{12}", "12", "aime2025"),
    ("The answer is 9.\n#### 8", "8", "gsm8k"),  # (`Final Answer:\n8` before it hedges: reliability round 3)
    ("The answer is 9.\n<answer>12</answer>", "12", "tagged"),
])
def test_round_33_a_stated_answer_before_the_last_mark_is_working(completion, gold, source):
    """Hostile round 33 (2): a stated answer was read from the whole completion, so `The answer is 9.` in a sub-step
    before `\\boxed{12}` was a second answer (0). Only what is stated from the last mark on can hedge it; before it,
    a statement is working. Two marks that differ stay a hedge, and so does the statement after the mark."""
    assert is_correct(completion, gold, source)
    mark = re.search(r"#### \d+|\\boxed\{\d+\}|<answer>\d+</answer>", completion).group()
    assert not is_correct(completion + "\nThe answer is 9.", gold, source)  # stated after the last mark: a hedge
    assert not is_correct(completion.replace(mark, mark.replace(gold, "9") + "\n" + mark), gold, source)  # two marks


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("#### 2 hours (120 minutes)", "2", True), ("#### 120 (2 hours)", "120", True), ("#### 50 (half of 100)", "50", True),
    ("#### 2 hours (or 120 minutes)", "2", True), ("#### 2 hours (i.e. 120 minutes)", "2", True),
    ("#### 2 hours. That is 120 minutes.", "2", True), ("#### 2 hours, i.e. 120 minutes", "2", True),
    ("#### 18 dollars per day", "18", True), ("#### 18 dollars per day, or 126 dollars per week", "18", True),
    ("#### 2 hours (3 hours)", "2", False), ("#### 2 hours (or 3 hours)", "2", False), ("#### 50 (half of 90)", "50", False),
    ("#### 2 hours. That is 3 hours.", "2", False), ("#### 18 dollars per day, or 20 dollars per day", "18", False),
    ("#### 8 thousand per day", "8", False), ("#### 7 (8)", "7", False)])
def test_round_33_a_unit_conversion_or_an_explanation_beside_a_hash_number_is_no_second_answer(completion, gold, right):
    """Hostile round 33 (3): `#### 2 hours (120 minutes)`, `#### 50 (half of 100)` and `#### 18 dollars per day, or 126
    dollars per week` scored 0 while `#### 2 hours, i.e. 120 minutes` scored 1. One rule now, in parentheses, after
    `or` and after `that is` alike: a value in another unit than the mark's converts it, a value equal to it restates
    it (`half of 100` is 50); the same unit with another value, or a bare other value, is a second answer. Units are
    compared by name, not converted (`18 dollars per day, or 20 dollars` reads as a conversion too)."""
    assert is_correct(completion, gold, "gsm8k") is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("$x = \\boxed{2}$\n$y = 3$", "2", "math", True), ("\\boxed{x = 2}\n$y = 3$", "2", "math", True),
    ("$x = \\boxed{2}$\n\\[y = 3\\]", "2", "aime2025", True), ("$x = \\boxed{2}$\n$x = 3$", "2", "math", False),
    ("$\\boxed{2}$\n$y = 3$", "2", "math", False), ("$x = \\boxed{2}$ or $3$", "2", "math", False)])
def test_round_33_another_variables_value_after_the_box_is_no_second_answer(completion, gold, source, right):
    """Hostile round 33 (5): `$x = \\boxed{2}$` then `$y = 3$` on its own line scored 0: the value shown alone after
    a mark was read as a second answer for x. A value that names another variable than the one the mark names (before
    the box or inside it) is no alternative to it; the same variable again, or any value after a box that names none,
    still is."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("$\\boxed{10}$, i.e. $1024 \\equiv 10 \\pmod{13}$.", "10", "math", True),
    ("The side is $\\boxed{4}$, that is, $s^2 = 16$.", "4", "math", True),
    ("$\\boxed{10}$, i.e. $2^{10} = 1024$.", "10", "aime2025", True), ("\\boxed{5}, i.e. $2 + 4 = 6$", "5", "math", True),
    ("$\\boxed{4}$, that is, $s = 5$.", "4", "math", False), ("$\\boxed{4}$, that is, $f(2) = 5$.", "4", "math", False),
    ("$\\boxed{10}$, i.e. $x \\equiv 11 \\pmod{13}$.", "10", "math", False), ("$\\boxed{4}$, that is, $5$.", "4", "math", False),
    # round 34: only a gloss checks (after `or`, `or rather`, `not` a relation offers its value), and a left side
    # without a number names a quantity (`m + n`, `|x|`)
    ("$\\boxed{4}$, or $2 + 3 = 5$.", "4", "math", False), ("$\\boxed{4}$, or rather $10 - 5 = 5$.", "4", "math", False),
    ("$\\boxed{4}$, not $2 + 2 = 5$.", "4", "math", False), ("#### 4\nor 10 - 5 = 5", "4", "gsm8k", False),
    ("$\\boxed{4}$, i.e. $m + n = 5$.", "4", "aime2025", False), ("$\\boxed{4}$, i.e. $|x| = 5$.", "4", "math", False)])
def test_round_33_a_relation_with_a_calculation_on_its_left_after_a_mark_is_a_check(completion, gold, source, right):
    """Hostile round 33 (6): `\\boxed{10}, i.e. $1024 \\equiv 10 \\pmod{13}$` and `\\boxed{4}, that is, $s^2 = 16$` were
    hedges: the relation's right side was read as a value offered. Rule chosen: a relation (`=`, `\\equiv`) offered after
    a mark offers its right side only when its left side names a variable (`s = 5`, `f(2) = 5`); with a calculation or a
    number there (`s^2`, `1024`, `2 + 4`) it is working that checks the mark, as an equation displayed alone after the
    box already was (`\\[2 + 4 = 6\\]`), so `\\boxed{5}, i.e. $2 + 4 = 6$` scores on the box too."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("So $\\boxed{7}$.\n\n$8$", "7", "math"), ("So \\boxed{7}.\n8", "7", "math"), ("#### 7.\n$8$", "7", "gsm8k"),
    ("#### 7\n8", "7", "gsm8k"), ("So $\\boxed{7}$.\n\n$$8$$", "7", "math"), ("<answer>7</answer>.\n8", "7", "tagged"),
    ("\\boxed{12}.\n\n**6**", "12", "tinymath"), ("\\boxed{12}\n\n**6**", "12", "math")])
def test_round_33_a_lone_value_on_its_own_line_after_the_mark_is_a_hedge(completion, gold, source):
    """Hostile round 33 (10): `So $\\boxed{7}$.\\n\\n$8$` scored 1 (the full stop after the mark hid the value shown
    alone after it), and a bare `8` alone on its line after a mark was not read; (9): a bold different number after the
    box (`**6**`) is a hedge. Each names two values: 0 for either; the mark's value alone on its line restates it."""
    assert not is_correct(completion, gold, source)
    assert not is_correct(completion, completion.split("\n")[-1].strip("$*"), source)
    assert is_correct(completion.replace(completion.split("\n")[-1].strip("$*"), gold), gold, source)


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("The answer is 204.\nCheck: 200 + 4 = 204, and 17 * 12 = 204, so 12", "204", True),
    ("The answer is 204.\n\nCheck: 204 = 12 * 17, with 17 prime", "204", True),
    ("The answer is **204**.\nCheck: 12 * 17 = 204 so 12", "204", True),
    ("The answer is 204.\nActually, 205.", "204", False), ("The answer is 204.\nActually, 205.", "205", False),
    ("The answer is 204.\n\n205", "205", False), ("The answer is 8, i.e. 7.", "8", False),
    ("The answer is 12, or I mean 13.", "13", False), ("The answer is 12 (not 13).", "12", False),
    ("So the total is 3 + 4 = 204", "204", True),
    ("The answer is twelve. " + "We check the work carefully once more. " * 6 + "Case 3 or 4 agrees.", "12", True)])
def test_round_33_an_unmarked_aime_answer_stated_beats_the_numbers_of_a_check_after_it(completion, gold, right):
    """Hostile round 33 (7): without a mark, AIME read the last number written, so `The answer is 204.` followed by a
    check line ending in 12 scored 12. The last label that states a number is read as a mark now: its number, unless
    it states several or a value is offered right after it (then none); with no statement, the last number as before.
    Rule chosen: an earlier sub-step statement (`Step 1: the answer is 9.`) with no label after it is that answer."""
    assert is_correct(completion, gold, "aime2025") is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("#### 18\n\\boxed{\\$18}", "18", "gsm8k", True), ("#### 18\n$\\boxed{\\$18}$", "18", "gsm8k", True),
    ("\\boxed{\\$18}", "18", "aime2025", True), ("#### 18\n\\boxed{\\$19}", "18", "gsm8k", False)])
def test_round_33_a_dollar_sign_escaped_in_a_box_restates_the_number(completion, gold, source, right):
    """Hostile round 33 (8): gsm8k's `#### 18` then `\\boxed{\\$18}` was a hedge (0): `normalize_number` dropped `$`
    but not LaTeX's escaped `\\$`, so the box read `\\18`, another answer. A box is read as plain text (`_plain`
    turns `\\$` into `$`); `normalize_number` keeps `\\$` (MATH's numeric subset leaves out `\\$23,000`)."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize(("completion", "right"), [
    ("\\boxed{-8}\nIt would be 8 if we ignored the sign.", True), ("\\boxed{-8}, which would be 8 if we ignored the sign.", True),
    ("\\boxed{-8} (it would be 8 if we ignored the sign)", True),
    ("\\boxed{-8}\nThe answer would be 8 if we ignored the sign.", False), ("\\boxed{-8} or 8 if we ignored the sign", False)])
def test_round_33_a_counterfactual_in_prose_after_the_box_is_working(completion, right):
    """Hostile round 33 (9), rule chosen: tinymath's `\\boxed{-8}` then `It would be 8 if we ignored the sign.` names 8
    in prose, with no label and no connector: working, as any number in prose after a mark is; scored on the box. A
    label or a connector offers the value whatever condition follows it (`The answer would be 8 if ...`, `or 8 if
    ...`): a second answer, 0. The grader never reads conditions."""
    assert is_correct(completion, "-8", "tinymath") is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("\uff03\uff03\uff03\uff03 18", "18", "gsm8k", True), ("\uff03\uff03\uff03\uff03 \uff11\uff18", "18", "gsm8k", True),
    ("\\boxed{18}\n\uff03\uff03\uff03\uff03 19", "18", "math", False), ("\uff03\uff03\uff03\uff03 18\n#### 19", "18", "gsm8k", False),
    ("\uff03\uff03\uff03\uff03\uff03 Step 1\n#### 18", "18", "gsm8k", True)])
def test_round_33_a_fullwidth_hash_mark_is_a_hash_mark(completion, gold, source, right):
    """Hostile round 33: `＃＃＃＃ 18` (fullwidth) was no mark: a right answer scored 0, and one beside a box was no second
    answer. It is `#### 18` now, as fullwidth digits are digits; five fullwidth marks are a heading, as five are."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("\\boxed{7 \\text{ (8)}}", "7", "math", False), ("\\boxed{7 \\text{ (8)}}", "8", "math", False),
    ("\\boxed{7 \\text{ (or 8)}}", "7", "math", False), ("\\boxed{7 \\text{ (8)}}", "7", "aime2025", False),
    ("\\boxed{7 \\text{ (7)}}", "7", "math", True), ("\\boxed{8 \\text{ cm}}", "8", "math", True)])
def test_round_33_a_second_value_in_words_inside_the_box_is_a_hedge(completion, gold, source, right):
    """Hostile round 33: `\\boxed{7 \\text{ (8)}}` scored 1 for 7 in MATH (math-verify read the 7): the words set after
    the box's number are read as the text after a box is, so a different value there is a second answer."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize(("completion", "right"), [
    ("#### 14 years old", True), ("#### 14 years old.", True), ("#### 14 square feet", True), ("#### 14 cups of flour", True),
    ("#### 14 feet tall", True), ("#### $14 per hour", True), ("#### 14 days a week", True), ("#### 14 years ago", True),
    ("#### 14 dollars per thousand", False), ("#### 14 years old or so", False), ("#### 14 days to go", False),
    ("#### 14 years old, or 15 years old", False), ("#### 14\nThe answer is 15 years old.", False)])
def test_round_34_a_unit_of_up_to_three_words_after_a_hash_number_is_read(completion, right):
    """Hostile round 34 (1): `#### 14 years old`, `#### 20 square feet`, `#### 3 cups of flour` were no answer (0): a
    unit was one word, or two joined by `per`. Up to three words are a unit now, as lm-eval's strict-match reads the
    number after `####`, each read against `_NO_UNIT`: a word that changes or hedges the number still gives none."""
    assert is_correct(completion, "14", "gsm8k") is right


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("So the answer is \\boxed{12}.\n\nWait, actually it's 13.", "12", "math"),
    ("So the answer is $\\boxed{12}$. Hmm, wait, actually it's $13$.", "12", "aime2025"),
    ("\\boxed{12}\n\nWait, no. It's 13.", "12", "tinymath"), ("#### 12\n\nOops, it should be 13.", "12", "gsm8k"),
    ("#### 12\n\nWait, I made an error. It should be 13.", "12", "gsm8k"), ("\\boxed{12}\n\nOn second thought, 13.", "12", "math"),
    ("#### 12\nActually, the total is 13.", "12", "gsm8k"), ("The answer is 12.\nHmm, wait. Actually, 13.", "12", "aime2025"),
    ("So the answer is (B).\n\nWait, actually it's (C).", "(B)", "bbh"), ("So the answer is (B).\n\nOops, it should be C.", "(B)", "bbh"),
    ("CDB\n#### D\n\nWait, no. It's E.", "D", "shuffle"), ("#### 12\n\nWait, actually, I missed one, so it's 13.", "12", "gsm8k"),
    ("So the answer is (B).\n\nWait, actually, Claire has it after step 3, so it's (C).", "(B)", "bbh")])
def test_round_34_a_correction_after_the_mark_offers_its_value(completion, gold, source):
    """Hostile round 34 (2): a correction after the mark that was not `Wait, 8.` or `Actually, 8.` exactly (`Hmm, wait,
    actually it's 13.`, `Oops, it should be 13.`, `Wait, I made an error. It should be 13.`) was not read: the first
    answer scored 1. One or more correcting words, then `it's`, `it should be`, `the total is`, then a value ending its
    line, offer it: two answers, 0 for either. A check or an explanation after such words is still working."""
    assert not is_correct(completion, gold, source)
    assert not is_correct(completion, {"(B)": "(C)", "D": "E"}.get(gold, "13"), source)
    kept = re.split(r"\s+(?=(?:Wait|Hmm|Oops|On second|Actually)\b)", completion)[0]  # the mark, without the correction
    assert is_correct(kept + "\n\nWait, let me double-check: it holds.", gold, source)
    assert is_correct(kept + "\n\nWait, 16 - 3 - 4 = 9, so 9 eggs are sold.", gold, source)  # a check, so ... no value
    assert is_correct(kept + "\n\nHmm, " + (gold.strip("()") if source in ("bbh", "shuffle") else gold) + ".", gold, source)


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("The number of divisors is $\\boxed{6}$, i.e. $1, 2, 3, 4, 6, 12$.", "6", "math", True),
    ("The number of divisors is $\\boxed{6}$ (namely $1, 2, 3, 4, 6, 12$).", "6", "math", True),
    ("The primes below 10 number $\\boxed{4}$, that is, $2, 3, 5, 7$.", "4", "aime2025", True),
    ("The primes below 10 number $\\boxed{4}$, that is, $2, 3, 5$.", "4", "math", False),
    ("The primes below 10 number $\\boxed{4}$, or $2, 3, 5, 7$.", "4", "math", False), ("$\\boxed{2}$, i.e. $1,000$", "2", "math", False)])
def test_round_34_a_gloss_listing_what_the_box_counts_is_no_second_answer(completion, gold, source, right):
    """Hostile round 34 (3): `$\\boxed{6}$, i.e. $1, 2, 3, 4, 6, 12$` (the divisors a count counts) was a hedge (0): the
    list was read as a value offered. A gloss (`i.e.`, `that is`, `namely`) listing as many values as the box counts
    names what it counts; a list of another length, or one offered after `or`, is still a second answer."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("The answer is 12 and the remainder is 7.", "12", True), ("**Final answer:** 12 (there are 5 cases)", "12", True),
    ("The final answer is 17, from 5 + 12.", "17", True), ("The answer is $12$, since 3 * 4 = 12 - 0", "12", True),
    ("The answer is 12, 13.", "12", False), ("The answer is 12, 13.", "13", False), ("The answer is 12 (or 13).", "12", False),
    ("The answer is 12, not 13.", "12", False), ("The answer is 12 (13 if we count zero).", "12", False),
    ("The answer is 12 thousand, since we count in thousands.", "12", False)])
def test_round_34_an_unmarked_aime_answer_stated_before_a_clause_is_read(completion, gold, right):
    """Hostile round 34 (4): AIME without a mark, `The answer is 12 and the remainder is 7.` or `**Final answer:** 12
    (there are 5 cases)` read the last number written (7, 5): the label's sentence stated no value as a whole. The
    number it starts with is read when a clause about it follows (`, since`, `and`, `from`, an aside in words); a second
    number right after it (`12, 13`, `12 (13 if ...)`) or a value offered (`12, not 13`) still gives none."""
    assert is_correct(completion, gold, "aime2025") is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("<think>Maybe \\boxed{26}? No, I missed the refund.</think>\n#### 18", "18", "gsm8k", True),
    ("<think>Maybe \\boxed{26}? No.</think>\n#### 18", "26", "gsm8k", False),
    ("<think>draft: \\boxed{3}</think>\n\nSo $\\boxed{4}$.", "4", "math", True),
    ("<think>12? 13?</think>\nThe answer is $\\boxed{12}$ or $\\boxed{13}$.", "12", "math", False),  # hedged after it
    ("<think>\\boxed{204}</think>\nThe answer is 204.", "204", "aime2025", True),
    ("<think>Draft: #### 26</think>\nThe answer: #### 18", "18", "gsm8k", True),  # not a character of it is read
    ("<think>26</think>#### 26\n<think>no, recount: 18</think>\n#### 18", "18", "gsm8k", True),  # after the last
    ("Maybe \\boxed{26}? No.\n#### 18", "18", "gsm8k", False)])  # no thinking block: a second mark, as before
def test_round_34_a_box_drafted_while_thinking_is_no_answer(completion, gold, source, right):
    """Hostile round 34: `<think>... \\boxed{26}? ...</think>\n#### 18` scored 0, the draft read as a second mark.
    What a reasoning model writes after its last `</think>` is its reply; the thinking before it is not read."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize("gold", ["7", "8"])
def test_round_34_a_correction_with_its_reason_after_the_value_offers_the_value(gold):
    """Hostile round 34: `#### 7\n\nHold on, it should be 8 since I missed one.` scored 1 for 7: the correction's value
    was read only where it ended its line. Two answers: 0 for either; a check line (`Wait, 16 - 3 - 4 = 9, so 9 eggs
    are sold.`) still offers none."""
    assert not is_correct("#### 7\n\nHold on, it should be 8 since I missed one.", gold, "gsm8k")
    assert not is_correct("\\boxed{7}\n\nWait, actually it's 8, because the last day counts.", gold, "math")
    assert is_correct("#### 9\n\nWait, 16 - 3 - 4 = 9, so 9 eggs are sold since she bakes 4.", "9", "gsm8k")


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("#### \\boxed{12}", "12", True), ("So the total is 12.\n\n#### $\\boxed{12}$", "12", True),
    ("#### \\(12\\)", "12", True), ("#### $\\boxed{12}$.", "12", True), ("#### \\$64", "64", True),
    ("Total: \\$40 + \\$24 = \\$64\n#### \\$64.00", "64", True), ("#### \\boxed{13}", "12", False),
    ("#### \\boxed{7} or \\boxed{8}", "7", False), ("#### \\(7\\) or \\(8\\)", "7", False),
    ("#### \\$7 or 8", "7", False), ("#### \\boxed{12}\nor 13", "12", False)])
def test_round_35_a_hash_mark_written_in_math_or_a_box_reads_its_number(completion, gold, right):
    """Hostile round 35: `#### \\boxed{12}` (a model that boxes by habit) scored 0 for 12: the mark read `\\boxed{12}`,
    another answer than its own box's 12, a hedge; `#### \\(12\\)` and `#### \\$64` (Markdown's escaped dollar) read
    no number. A mark written whole in math or a box is its content; two values in it are still two."""
    assert is_correct(completion, gold, "gsm8k") is right


@pytest.mark.parametrize("after", [
    "\n\nAlternatively, one could count the complements: $20 - 8 = 12$.", ". Alternatively, one can check by listing.",
    ", or one can see it directly.", ". Or, one might note that $12 = 3 \\cdot 4$."])
def test_round_35_one_as_a_pronoun_after_the_box_offers_no_second_answer(after):
    """Hostile round 35: `\\boxed{12}` then `Alternatively, one could count ...` scored 0: `one` was read as the number
    1 offered after the box. `one` followed by a verb (`could`, `can`, `might`, `checks`) is a pronoun; `or one` alone
    still offers 1."""
    assert is_correct(f"$\\boxed{{12}}${after}", "12", "math")
    assert not is_correct("$\\boxed{12}$, or one.", "12", "math")


@pytest.mark.parametrize(("completion", "source"), [
    ("\\boxed{\\frac{1}{2}}.\n\nWait, actually I double counted; it should be $\\frac{1}{3}$.", "math"),
    ("\\boxed{\\frac{1}{2}}.\n\nHmm, I double counted. It should be $\\frac{1}{3}$.", "math"),
    ("#### 12\nWait, I forgot the two extra; it should be 14.", "gsm8k"),
    ("#### 12\nWait, I forgot the two extra. It's 14.", "gsm8k")])
def test_round_35_a_correction_with_its_reason_before_the_value_offers_the_value(completion, source):
    """Hostile round 35: `\\boxed{\\frac{1}{2}}` then `Wait, actually I double counted; it should be $\\frac{1}{3}$.`
    scored 1 for 1/2: a reason between the correcting word and `it should be` hid the corrected value. A reason
    ending its clause (`;`) or sentence (`.`) before `it should be`, `it's` ... is read as `so` was; two answers: 0
    for either."""
    gold = "\\frac{1}{2}" if source == "math" else "12"
    other = "\\frac{1}{3}" if source == "math" else "14"
    assert not is_correct(completion, gold, source) and not is_correct(completion, other, source)


@pytest.mark.parametrize(("completion", "right"), [
    ("So the answer is (C). Alternatively, (A).", False), ("So the answer is (C).\nAlternatively: (A)", False),
    ("So the answer is (C). Alternatively, one could track Bob: he ends with (A).", True),
    ("So the answer is (C). Alternatively, (C).", True)])
def test_round_35_an_option_offered_after_alternatively_is_a_hedge(completion, right):
    """Hostile round 35: BBH's `So the answer is (C). Alternatively, (A).` scored 1 for (C): `Alternatively` offered a
    second option after a box (`\\boxed{5}. Alternatively, $6$.`) but not after a stated option."""
    assert is_correct(completion, "(C)", "bbh") is right
    assert not is_correct(completion, "(A)", "bbh")


@pytest.mark.parametrize(("completion", "right"), [
    ("#### 5 ✅", True), ("#### 5 👍", True), ("#### 5 ✔️", True), ("10 / 2 = 5\n#### 5 ✓", True), ("#### 5°", True),
    ("#### 5 ✓\nor 6", False), ("#### ✅", False)])
def test_round_35_a_check_mark_or_emoji_after_a_hash_number_is_no_part_of_it(completion, right):
    """Hostile round 35: `#### 5 ✅` (a chat model's flourish) scored 0 for 5: the symbol was read as a word that changes
    the number. A symbol (Unicode `So`) at the mark's end is dropped; the degree sign stays a unit (`5°`)."""
    assert is_correct(completion, "5", "gsm8k") is right


@pytest.mark.parametrize("after", [
    "Actually, I think 14 is right.", "Actually, 14 is correct.", "(Actually 14.)", "Wait, I think it's 14.",
    "Hmm, actually 14 is the correct answer... no: 14 is correct."])
def test_round_35_a_correction_that_calls_another_value_right_offers_it(after):
    """Hostile round 35: `#### 12\\nActually, 14 is correct.` (or `I think 14 is right`, `(Actually 14.)`) scored 1 for
    12: a correction's value was read only where it ended its line. Two answers: 0 for either; the mark's own value
    called correct (`Actually, 12 is correct.`) and a value called wrong (`Hmm, 13 is wrong.`) offer none."""
    assert not is_correct(f"#### 12\n{after}", "12", "gsm8k") and not is_correct(f"#### 12\n{after}", "14", "gsm8k")
    assert is_correct("#### 12\nActually, 12 is correct.", "12", "gsm8k")
    assert is_correct("#### 12\nHmm, 13 is wrong.", "12", "gsm8k")


@pytest.mark.parametrize("completion", [
    "So the answer is (C).\n\nActually, I think (B) is right.", "So the answer is (C). Wait, (B) is correct.",
    "#### C\nActually, I think B is right."])
def test_round_35_a_correction_that_calls_another_option_right_offers_it(completion):
    """Hostile round 35: `So the answer is (C).\\n\\nActually, I think (B) is right.` scored 1 for (C), as the numbers'
    `Actually, 14 is correct.` did: the option a correction calls right is a second option; (C) called correct is none."""
    assert not is_correct(completion, "(C)", "bbh") and not is_correct(completion, "(B)", "bbh")
    assert is_correct("So the answer is (C).\n\nActually, (C) is correct.", "(C)", "bbh")


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("So the remainder is 16 (mod 1000).", "16", True), ("So $N \\equiv 16 \\pmod{1000}$.", "16", True),
    ("So $N \\equiv 16 \\pmod{1000}$.", "1000", False), ("Thus $x \\equiv 3 \\ (\\bmod 7)$.", "3", True),
    ("2016 mod 1000 = 16", "16", True)])
def test_round_35_an_unmarked_aime_congruence_reads_the_residue_not_the_modulus(completion, gold, right):
    """Hostile round 35: AIME without a mark, `So $N \\equiv 16 \\pmod{1000}$.` read 1000, the last number written,
    and scored 0 for 16 (AIME answers are often a remainder mod 1000). A modulus after a congruence is no answer."""
    assert is_correct(completion, gold, "aime2025") is right


@pytest.mark.parametrize(("completion", "right"), [
    ("The answer is \\(\\text{D}\\).", True), ("The answer is \\((D)\\).", True), ("The answer is \\(D\\) or \\(E\\).", False)])
def test_round_35_an_option_in_latex_inline_math_is_that_option(completion, right):
    """Hostile round 35: BBH's `The answer is \\(\\text{D}\\).` scored 0 for (D) while `$(D)$` and `$\\textbf{(D)}$`
    scored 1: LaTeX's `\\(`...`\\)` delimiters hid the letter."""
    assert is_correct(completion, "(D)", "bbh") is right


@pytest.mark.parametrize(("completion", "right"), [
    ("#### ~12", False), ("#### about 12", False), ("#### 12~apples", True), ("\\boxed{12~\\text{cm}}", True)])
def test_round_35_a_tilde_before_a_hash_number_is_approximate_as_about_is(completion, right):
    """Hostile round 35: `#### ~12` scored 1 for 12 while `#### ≈12` and `#### approximately 12` score 0: the tilde,
    LaTeX's tie, was read as a space. A tie joins two things (`12~\\text{cm}`); a leading `~` is `about`."""
    assert is_correct(completion, "12", "math" if "boxed" in completion else "gsm8k") is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("<answer>\\boxed{42}</answer>", "42", "gsm8k", True), ("<answer>$\\boxed{42}$</answer>", "42", "gsm8k", True),
    ("<answer>\\boxed{42}</answer>", "43", "gsm8k", False), ("<answer>$7$ or $8$</answer>", "7", "gsm8k", False),
    ("<answer>\\boxed{\\frac{1}{2}}</answer>", "\\frac{1}{2}", "math", True)])
def test_round_35_a_tag_holding_a_box_reads_the_boxed_answer(completion, gold, source, right):
    """Hostile round 35: `<answer>\\boxed{42}</answer>` (a model that boxes by habit, asked for tags) scored 0 for
    gsm8k's 42: the tag read `\\boxed{42}`, another answer than its own box's 42. A tag's content written whole in math
    or a box is read as a `####` mark's is."""
    assert is_correct(completion, gold, source, "tagged") is right


@pytest.mark.parametrize(("completion", "source"), [
    ("\\boxed{3}. Wait, that's not right. Let me redo it: $x = 4$.", "math"),
    ("\\boxed{3}. Wait, that's not right. Let me redo it: $x = 4$.", "aime2025"),
    ("\\boxed{3}\n\nWait, that's not right.\nLet me redo it: $x = 4$.", "math"),
    ("\\boxed{3}. Hmm, that's incorrect. Let me redo: $4$.", "tinymath"),
    ("#### 3\nWait, that's not right. Let me redo it: 4.", "gsm8k"),
    ("\\boxed{3}. That's wrong. It's 4.", "math"), ("\\boxed{3}. I was wrong: the value is 4.", "math")])
def test_round_36_a_retraction_after_the_mark_then_another_value_is_two_answers(completion, source):
    """Hostile round 35 (left): `\\boxed{3}. Wait, that's not right. Let me redo it: $x = 4$.` scored 1 for 3: the value
    after a retraction (`that's not right`, `that's wrong`, `I was wrong`) and a clause ending in a colon was not read.
    The retracted mark and the value offered in its place are two answers: 0 for either. A retraction whose redo reaches
    the mark's own value, and a check that confirms it, keep 1."""
    assert not is_correct(completion, "3", source) and not is_correct(completion, "4", source)
    kept = completion.replace("$x = 4$", "$x = 3$").replace("$4$", "$3$").replace(" 4.", " 3.")
    assert is_correct(kept, "3", source)
    mark = completion.split("Wait")[0].split("Hmm")[0].split("That")[0].split("I was")[0]
    assert is_correct(mark + "Wait, let me verify: 3 + 0 = 3. Yes.", "3", source)
    assert is_correct(mark + "Wait, let me verify: $1 + 2 = 3$.", "3", source)


# Reliability round 3: the grader's judgment calls left by the hostile rounds, decided
_WITHDRAWN = [
    ("\\boxed{3}. Wait, that's not right.", "math"), ("\\boxed{3}. Wait, that's not right.", "aime2025"),
    ("\\boxed{3}. Wait, that's not right.", "tinymath"), ("#### 3\nHmm, that's wrong.", "gsm8k"),
    ("#### 3\nHmm, that's wrong.", "arith"), ("The answer is 3. I was wrong.", "aime2025"),
    ("#### 3\nThe answer is 3. I was wrong.", "gsm8k"), ("<answer>3</answer> Oops, that was incorrect!", "tagged"),
    ("$\\boxed{3}$\n\nWait, that\u2019s wrong.", "math"), ("\\boxed{3}. That's not correct; let me think again.", "math"),
    ("\\boxed{3} \u2014 that's wrong.", "math"),  # (hostile round: a dash before the retraction)
    ("\\boxed{3}. Hmm, that's not quite right.", "math"), ("#### 3\nThat's not quite correct.", "gsm8k")]


@pytest.mark.parametrize(("completion", "source"), _WITHDRAWN)
def test_reliability_3_a_mark_withdrawn_with_no_replacement_scores_0(completion, source):
    """Reliability round 3 (1): `\\boxed{3}. Wait, that's not right.` scored 1 for 3: the only answer is withdrawn and
    nothing replaces it, so no answer stands. A later mark, or a value offered in its place, is read as before."""
    assert not is_correct(completion, "3", source)
    assert is_correct(completion + "\nSo the answer is 3.", "3", source)  # the redo reaches the mark's own value


@pytest.mark.parametrize(("completion", "source", "right"), [
    ("\\boxed{3}. Wait, let me verify: 3 + 0 = 3. Yes.", "math", True),  # a check retracts nothing
    ("\\boxed{3}. Is that right? Yes.", "math", True), ("#### 3\nI was wrong at first, but it checks out.", "gsm8k", True),
    ("\\boxed{3}. It's wrong to assume x > 0, but here it is.", "math", True),
    ("\\boxed{3}. Wait, that's not right.\n\\boxed{3}", "math", True),  # a later mark restates it
    ("\\boxed{3}. Wait, that's not right. Let me redo it: 1 + 2 = 3.", "math", True),  # a redo reaching its value
    ("\\boxed{3}. Wait, that's not right.\n\\boxed{4}", "math", False)])
def test_reliability_3_a_check_a_passing_wrong_or_a_redo_to_the_same_value_withdraws_nothing(completion, source, right):
    """Reliability round 3 (1), near-misses: `wrong` that ends no retraction of the mark (`I was wrong at first, but`,
    `It's wrong to assume`), a check, and a redo that reaches the mark's value leave the mark standing."""
    assert is_correct(completion, "3", source) is right


@pytest.mark.parametrize(("completion", "gold", "other", "source"), [
    ("\\boxed{3}. Wait, that's not right. Let me redo it: 2 + 2 = 4.", "3", "4", "math"),
    ("#### 3\nWait, that's wrong. Redo: 2 + 2 = 4.", "3", "4", "gsm8k"),
    ("#### A\nWait, that's not right. Let me redo it: (B).", "A", "B", "shuffle"),
    ("So the answer is (A). Wait, that's not right. Let me redo it: (B).", "(A)", "(B)", "bbh"),
    ("So the answer is (A). Hmm, that's wrong.", "(A)", "(B)", "bbh"), ("\\boxed{A}. That's wrong.", "(A)", "(B)", "bbh")])
def test_reliability_3_an_option_or_a_bare_equation_after_a_retraction_is_another_value(completion, gold, other, source):
    """Reliability round 3 (1): after a retraction, an option letter `(B)` or a bare equation `2 + 2 = 4` was not read
    as the value replacing the mark (scored 1 for the mark): it is another answer, so neither value scores."""
    assert not is_correct(completion, gold, source) and not is_correct(completion, other, source)


@pytest.mark.parametrize(("completion", "gold", "right"), [
    ("#### 3 \u00d7 4 = 12", "12", True), ("#### 3 * 4 = 12", "12", True), ("#### 3*4=12", "12", True),
    ("#### 2 + 3 = 5 \u00d7 2 = 10", "10", True), ("#### (3 + 4) \u00d7 2 = 14", "14", True),
    ("#### $3 \\times 4 = 12$", "12", True), ("#### 3 \u00d7 4 = 12 apples", "12", True), ("#### **3 \u00d7 4 = 12**", "12", True),
    ("#### 7, since 3 + 4 = 7", "7", True), ("#### 7 because we add 3 and 4", "7", True), ("#### Twelve", "12", True),
    ("#### twenty-one", "21", True), ("#### Answer: one hundred and five", "105", True),
    ("#### 3 \u00d7 4 = 12", "3", False), ("#### 3 \u00d7 4 = 12 or 13", "12", False),  # the working's operand; a hedge
    ("#### x = 3 \u00d7 4 = 12", "12", False), ("#### 3 = 4", "4", False),  # a name or no calculation on the left
    ("#### 12 = 3 \u00d7 4", "4", False), ("#### 7 because it might be 8", "7", False),  # a reason that hedges
    ("#### 540m", "540", False), ("#### seven eight", "78", False), ("#### twelve apples or so", "12", False),
    ("#### 7, since 3 + 4 = 7. Hmm, that's wrong.", "7", False)])  # (hostile round: the reason swallowed a retraction)
def test_reliability_3_a_hash_mark_that_carries_its_working_or_a_reason_reads_its_result(completion, gold, right):
    """Reliability round 3 (2): `#### 3 \u00d7 4 = 12` scored 0 for 12 (the mark was read whole): a mark whose left side is a
    calculation of numbers reads the value after its last `=`; a reason after the number (`, since 3 + 4 = 7`, `because
    ...`) is no part of it, and a number in words (`Twelve`) is its digits. `540m` (metres or million) stays no answer."""
    assert is_correct(completion, gold, "gsm8k") is right


@pytest.mark.parametrize(("completion", "gold", "other", "source"), [
    ("**Answer:** 6\nSo 2 + 3 = 5.\n#### 5", "5", "6", "gsm8k"), ("Answer: 6\n\n#### 5", "5", "6", "arith"),
    ("#### 42\nSo the answer is $43$.", "42", "43", "gsm8k"), ("The final answer is 6.\n\\boxed{5}", "5", "6", "math"),
    ("**Final Answer**: 6\n\\boxed{5}", "5", "6", "aime2025"), ("## Answer: 6\n\\boxed{5}", "5", "6", "tinymath"),
    ("Final Answer:\n6\n<answer>5</answer>", "5", "6", "tagged"), ("So **Answer:** 6\n#### 5", "5", "6", "gsm8k"),
    ("__Final answer__: 6\n#### 5", "5", "6", "gsm8k")])
def test_reliability_3_two_different_stated_final_answers_are_a_hedge(completion, gold, other, source):
    """Reliability round 3 (3): `**Answer:** 6` then `#### 5` scored 1 for 5: a statement before the last mark was read
    as working. A final-answer statement (a `Final answer` label, or an `Answer:` label opening its line) is an answer
    wherever it is, so two different ones hedge; `the answer is` in a sentence before the mark is still working."""
    assert not is_correct(completion, gold, source) and not is_correct(completion, other, source)


@pytest.mark.parametrize(("completion", "gold", "source"), [
    ("**Answer:** 5\nSo 2 + 3 = 5.\n#### 5", "5", "gsm8k"), ("**Final Answer:** \\boxed{5}", "5", "math"),
    ("Final answer: 5\n\\boxed{5}", "5", "aime2025"), ("Answer: 9 for the first part.\nSo 9 + 3 = 12.\n#### 12", "12", "gsm8k"),
    ("Step 1: the answer is 9.\n#### 12", "12", "gsm8k"), ("The answer is 9 after step 1.\n#### 12", "12", "gsm8k"),
    ("Each answer: 3 or 4 apples.\n#### 12", "12", "gsm8k"), ("The answer to part (a) is 9.\n\\boxed{12}", "12", "math")])
def test_reliability_3_a_working_number_or_the_same_final_answer_before_the_mark_is_no_hedge(completion, gold, source):
    """Reliability round 3 (3), near-misses: the same value stated, a label whose sentence states no number, and
    `the answer is` inside the working before the mark keep the mark's score."""
    assert is_correct(completion, gold, source)


@pytest.mark.parametrize(("completion", "read"), [
    ("(B), not (A)", "(B)"), ("So the answer is (B), not (A).", "(B)"), ("The answer is (B) and not (A).", "(B)"),
    ("So the answer is (B) rather than (A).", "(B)"), ("The answer is B, not A.", "(B)"),
    ("So the answer is (B), but not (A) or (C).", "(B)"), ("So the answer is (B) (not (A)).", "(B)"),
    ("So the answer is (B); not (A).", "(B)"), ("So the answer is ( b ).", "(B)"), ("So the answer is [b].", "(B)"),
    ("( B )", "(B)"), ("So the answer is ( B ).", "(B)"), ("[B]", "(B)"), ("So the answer is [B].", "(B)"),
    ("So the answer is \uff22.", "(B)"), ("\uff08\uff22\uff09", "(B)"), ("So the answer is (\uff22).", "(B)"),
    ("(B) or (A)", None), ("So the answer is (B) or (A).", None), ("So the answer is [B] or [A].", None),
    ("So the answer is (B), i.e. (A).", None), ("(B), not sure, maybe (A)", None), ("Not (A). (B)", None),
    ("( B ) or ( A )", None), ("[A] [B] [C]", None)])
def test_reliability_3_a_rejected_option_is_no_hedge_and_an_option_in_other_brackets_is_read(completion, read):
    """Reliability round 3 (4): `(B), not (A)` scored 0 for (B) (a rejected option was read as a second answer), and
    `( B )`, `[B]` and a fullwidth `\uff22` were not read as (B). An option rejected right after the one given (`not`,
    `rather than`, `instead of`) is no answer; `(B) or (A)` stays a hedge."""
    assert extract_option(completion) == read
    assert is_correct(completion, "(B)", "bbh") is (read == "(B)")


@pytest.mark.parametrize(("completion", "right"), [("#### \uff22", True), ("#### \uff22\nor C", False), ("#### \uff23", False)])
def test_reliability_3_a_fullwidth_letter_after_hashes_is_that_letter(completion, right):
    """Reliability round 3 (4): shuffle's `#### \uff22` scored 0 for B, and so `#### \uff22\nor C` read no letter offered after
    it; ASCII's fullwidth forms in a mark are ASCII, as its fullwidth digits already were."""
    assert is_correct(completion, "B", "shuffle") is right


@pytest.mark.parametrize(("completion", "gold", "source", "right"), [
    ("#### \u20135", "-5", "gsm8k", True), ("#### \u22125", "-5", "gsm8k", True), ("#### \u2013 5", "-5", "gsm8k", True),
    ("\\boxed{\u20135}", "-5", "math", True), ("\\boxed{\u2013 5}", "-5", "math", True), ("\\boxed{\u2013\\frac{1}{2}}", "-\\frac{1}{2}", "tinymath", True),
    ("#### \u20135", "5", "gsm8k", False), ("#### 3\u20135", "-5", "gsm8k", False), ("#### 3\u20135", "3", "gsm8k", False),
    ("#### 5<|eot_id|>", "5", "gsm8k", True), ("\\boxed{5}</s>", "5", "math", True), ("#### 5<|im_end|>", "5", "gsm8k", True),
    ("#### 5</s>", "5", "arith", True), ("#### 5<|endoftext|>", "5", "gsm8k", True), ("#### 5 <eos>", "5", "gsm8k", True),
    ("#### 5<\uff5cend\u2581of\u2581sentence\uff5c>", "5", "gsm8k", True),  # DeepSeek's (hostile round)
    ("<answer>5<|eot_id|></answer>", "5", "tagged", True), ("#### 5<|eot_id|>", "6", "gsm8k", False),
    ("#### 5 or 6<|im_end|>", "5", "gsm8k", False), ("#### 5<|eot_id|>6", "5", "gsm8k", False)])
def test_reliability_3_an_en_dash_or_minus_sign_is_a_minus_and_an_end_token_is_no_part_of_the_answer(
        completion, gold, source, right):
    """Reliability round 3 (5): `#### \u20135` (an en dash for a minus) scored 0 for -5 (U+2212 was already a minus), and
    `#### 5<|eot_id|>` scored 0 for 5: a chat template's end token closing the mark was read as part of it. A dash
    between two numbers (`3\u20135`, a range) stays no number."""
    assert is_correct(completion, gold, source) is right


@pytest.mark.parametrize(("completion", "right"), [
    ("#### 5\u200b", True), ("#### \u200b5", True), ("#### 5\ufeff", True), ("<answer>\u20605</answer>", True),
    ("#### 5\u200b6", False), ("#### 6\u200b", False)])
def test_reliability_3_hostile_a_zero_width_character_at_a_marks_edge_is_no_part_of_it(completion, right):
    """Reliability round 3's hostile round: `#### 5` followed by a zero-width space (or a byte-order mark, a word
    joiner) scored 0 for 5: the invisible character was read as part of the mark. One between two digits keeps them apart."""
    assert is_correct(completion, "5", "gsm8k" if "####" in completion else "tagged") is right
