"""Final-answer extraction and checking for every format the course grades.

Formats: the tiny tasks and GSM8K (`#### N`), MATH (`\\boxed{...}`, equivalence through
math-verify), BBH options `(A)`..`(G)`, AIME integers, and `<answer>...</answer>` tags.
Digits: any Unicode decimal digit counts as the ASCII digit of the same value, so `٤٢` (Arabic-Indic) and
`４２` (fullwidth) both equal 42; superscripts, fractions like `½` and number words are not digits, and
separators must be ASCII (`.` and `,`). MATH answers are checked from any thread (a helper process when
not the main one, see `math_equal`). Nothing here ever evaluates model output as code.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path

MAX_SCAN = 4000  # only the tail of a completion is searched: bounded work on any string
MAX_MATH_CHARS = 300  # longer candidate answers are not handed to math-verify
MATH_TIMEOUT = 2  # seconds math-verify may spend on each parse and on the comparison

_HASH = re.compile(r"####[ \t]*([^\n]{0,100})")
_OPTION = re.compile(r"\(([A-G])\)")
_THOUSANDS = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # 1,234,567.5: the only commas removed
_DECIMAL = re.compile(r"(-?)(\d*)(?:\.(\d*))?")
_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3}){1,10}(?:\.\d{1,30})?|-?\d{1,30}(?:\.\d{1,30})?")
MAX_TAGGED = 1000  # characters an <answer> tag may hold


def _tail(text) -> str:
    """The last MAX_SCAN characters of a string (anything else becomes '')."""
    return text[-MAX_SCAN:] if isinstance(text, str) else ""


def normalize_number(text: str) -> str:
    """'1,234' -> '1234', '$5.00' -> '5', '1.50' -> '1.5', '-0' -> '0', '٤٢' -> '42'; other strings are only stripped.

    Commas count as thousands separators only in groups of three (`1,234,567`): `1,2` stays a list of two numbers.

    >>> [normalize_number(s) for s in ("1,234,567", "1,2", " 7. ", "-0.0", "007", ".5")]
    ['1234567', '1,2', '7', '0', '7', '0.5']
    """
    text = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)  # any script's digits
    cleaned = text.strip().replace("$", "").rstrip(".").strip()
    if _THOUSANDS.fullmatch(cleaned):
        cleaned = cleaned.replace(",", "")
    match = _DECIMAL.fullmatch(cleaned)
    if match and (match.group(2) or match.group(3)):
        sign, whole, fraction = match.groups()
        number = (whole.lstrip("0") or "0") + ("." + fraction.rstrip("0") if (fraction or "").rstrip("0") else "")
        cleaned = ("-" if sign and number != "0" else "") + number
    return cleaned


def extract_hash_answer(text) -> str | None:
    """The answer after the last `####` (tiny tasks, GSM8K), normalised; None if absent.

    >>> extract_hash_answer("3+4=7\\n#### 7")
    '7'
    >>> extract_hash_answer("The total is 1,200.\\n#### 1,200")
    '1200'
    """
    matches = _HASH.findall(_tail(text))
    if not matches:
        return None
    answer = normalize_number(matches[-1])
    return answer or None


def extract_boxed(text) -> str | None:
    """Content of the last `\\boxed{...}` or `\\fbox{...}`, braces balanced; None if absent.

    >>> extract_boxed(r"so \\boxed{\\frac{1}{2}}.")
    '\\\\frac{1}{2}'
    """
    text = _tail(text)
    start = max(text.rfind("\\boxed{"), text.rfind("\\fbox{"))
    if start < 0:
        return None
    i = text.index("{", start) + 1
    depth, begin = 1, i
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[begin:i].strip()
        i += 1
    return None


_ANSWER_IS = re.compile(r"answer is:?[ \t]*\(?([A-G])\)?(?![A-Za-z])")


def extract_option(text) -> str | None:
    """The option stated after 'answer is' (`(B)` or bare `B`), else the last `(A)`..`(G)` written (BBH), as '(X)'.

    >>> extract_option("So the answer is (B). Alice had (C) first."), extract_option("Alice has (C)."), extract_option("B")
    ('(B)', '(C)', None)
    """
    tail = _tail(text)
    matches = _ANSWER_IS.findall(tail) or _OPTION.findall(tail)
    return f"({matches[-1]})" if matches else None


def extract_tagged(text) -> str | None:
    """Content of the one `<answer>...</answer>` tag, stripped; None if absent or if there are several anywhere.

    Several tags would let a completion list many guesses and be rewarded if any matches, so they score 0.

    >>> extract_tagged("so <answer> 42 </answer>"), extract_tagged("<answer>1</answer> or <answer>2</answer>")
    ('42', None)
    """
    if not isinstance(text, str) or text.count("<answer>") != 1:  # counted in the whole text, not only its tail
        return None
    start = text.index("<answer>") + len("<answer>")
    end = text.find("</answer>", start, start + MAX_TAGGED + len("</answer>"))
    return text[start:end].strip() if end >= 0 else None


def extract_integer(text) -> str | None:
    """An AIME-style integer answer: boxed, after `####`, in a tag, or the last integer written."""
    for candidate in (extract_boxed(text), extract_hash_answer(text), extract_tagged(text)):
        if candidate is not None:
            number = normalize_number(candidate)
            if re.fullmatch(r"-?\d+", number):
                return number
    numbers = _NUMBER.findall(_tail(text))
    return normalize_number(numbers[-1]) if numbers else None


def math_equal(predicted: str | None, reference: str) -> bool:
    """Whether two MATH answers are equal: exact after normalisation, else math-verify (never eval)."""
    if predicted is None:
        return False
    if normalize_number(predicted) == normalize_number(reference):
        return True
    if len(predicted) > MAX_MATH_CHARS or len(reference) > MAX_MATH_CHARS:
        return False
    if threading.current_thread() is not threading.main_thread():
        return _math_verify_in_worker(predicted, reference)
    return _math_verify(predicted, reference)


def _math_verify(predicted: str, reference: str) -> bool:
    """math-verify's equivalence under its own timeouts (signal.alarm: the main thread only)."""
    try:
        from math_verify import parse, verify

        gold = parse(f"${reference}$", parsing_timeout=MATH_TIMEOUT)
        guess = parse(f"${predicted}$", parsing_timeout=MATH_TIMEOUT)
        return bool(gold and guess and verify(gold, guess, timeout_seconds=MATH_TIMEOUT))
    except Exception:  # math-verify can fail on odd LaTeX; an unparsable answer is wrong
        return False


_WORKER: list = []  # the one helper process that checks MATH answers for threads other than the main one
_WORKER_LOCK = threading.Lock()


def _math_verify_in_worker(predicted: str, reference: str) -> bool:  # pragma: no mutate block (helper-process plumbing)
    """`_math_verify` in a helper process, where signal.alarm works; killed and replaced if it ever hangs.

    Without its timeout math-verify hangs on short inputs such as `9^{9^{9^{9}}}`, so a thread cannot call it directly.
    """
    with _WORKER_LOCK:
        if not _WORKER or _WORKER[0].poll() is not None or _WORKER[1] != os.getpid():  # none, dead, or a parent's
            root = str(Path(__file__).resolve().parent.parent)
            code = f"import sys; sys.path.insert(0, {root!r}); from course_lib.answers import serve; serve()"
            process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True)
            _WORKER[:] = [process, os.getpid()]
            if not _read_line(process, 120):  # "ready" once math-verify (and sympy) are imported
                return _stop_worker()
        process = _WORKER[0]
        try:
            process.stdin.write(json.dumps([predicted, reference]) + "\n")
            process.stdin.flush()
        except OSError:
            return _stop_worker()
        answer = _read_line(process, 4 * MATH_TIMEOUT)  # two parses and a comparison, each bounded in the worker
        return answer == "1" if answer else _stop_worker()


def _read_line(process, seconds: float) -> str | None:  # pragma: no mutate block (helper-process plumbing)
    """The worker's next line, or None when it says nothing within `seconds`."""
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    return process.stdout.readline().strip() or None if ready else None


def _stop_worker() -> bool:  # pragma: no mutate block (helper-process plumbing)
    """Kill a hung or dead worker (a new one starts on the next call); the answer is counted wrong."""
    process = _WORKER[0]
    _WORKER.clear()
    process.kill()
    process.wait()
    return False


def serve() -> None:  # pragma: no mutate block (helper-process plumbing)
    """The worker's loop: a JSON [predicted, reference] per line in, '1' or '0' per line out."""
    import math_verify  # noqa: F401  (imported before "ready", so the first answer is not slowed by it)

    print("ready", flush=True)
    for line in sys.stdin:
        predicted, reference = json.loads(line)
        print("1" if _math_verify(predicted, reference) else "0", flush=True)


EXTRACTORS = {"hash": extract_hash_answer, "boxed": extract_boxed, "tagged": extract_tagged, "option": extract_option}


def in_format(completion, answer_format: str) -> bool:
    """Whether a completion writes a final answer in `answer_format` at all (right or wrong): what format share counts.

    >>> in_format("so 3+4=7\\n#### 8", "hash"), in_format("The answer is 7.", "hash"), in_format("so (B).", "option")
    (True, False, True)
    """
    return EXTRACTORS[answer_format](completion) is not None


def is_correct(completion: str, answer: str, source: str, answer_format: str | None = None) -> bool:
    """Whether a completion's final answer matches `answer`: found by `answer_format`, compared by `source`'s rules.

    `answer_format` None means the source's own format (GSM8K and the tiny tasks `####`, MATH `\\boxed{}`,
    BBH `(X)`, AIME any clear integer).
    """
    answer = str(answer)
    if answer_format is None:
        if source in ("arith", "gsm8k", "shuffle"):
            answer_format = "hash"
        elif source == "math":
            answer_format = "boxed"
        elif source == "bbh":
            answer_format = "option"
        elif source == "aime2025":
            return extract_integer(completion) == normalize_number(answer)
        elif source == "tagged":
            answer_format = "tagged"
    if answer_format not in EXTRACTORS:
        raise ValueError(f"answer_format={answer_format!r} (source {source!r}) has no answer checker")
    predicted = EXTRACTORS[answer_format](completion)
    if predicted is None:
        return False
    if source == "math":
        return math_equal(predicted, answer)
    if source == "bbh":
        return predicted.strip("() ") == answer.strip().strip("()")
    if source == "shuffle":
        return predicted.strip() == answer.strip()
    if source in ("arith", "gsm8k", "aime2025", "tagged"):
        return normalize_number(predicted) == normalize_number(answer)
    raise ValueError(f"source={source!r} has no answer checker")
