"""Real-data loaders: GSM8K, MATH, BBH tracking_shuffled_objects and AIME 2025, as `Problem` records.

Each loader takes the hub id people already use, or a local JSON Lines file (or a folder
holding the split files). Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from decimal import Decimal
from pathlib import Path

from .answers import MAX_MATH_CHARS, extract_boxed, extract_hash_answer, is_numeric_answer, normalize_number
from .errors import CourseError, check
from .paths import what_it_is
from .tasks import Problem

HUB_IDS = {
    "gsm8k": "openai/gsm8k",
    "math": "EleutherAI/hendrycks_math",
    "math500": "HuggingFaceH4/MATH-500",
    "bbh": "lukaemon/bbh",
    "aime2025": "opencompass/AIME2025",
}
MATH_SUBJECTS = {  # hub config name -> subject as written in MATH's `type`
    "algebra": "Algebra", "counting_and_probability": "Counting & Probability", "geometry": "Geometry",
    "intermediate_algebra": "Intermediate Algebra", "number_theory": "Number Theory",
    "prealgebra": "Prealgebra", "precalculus": "Precalculus",
}
BBH_FILES = {3: "three", 5: "five", 7: "seven"}


class WrittenNumber(str):
    """A JSON number with a fraction or exponent kept as the file writes it (`1e16`, `0.30`): as a float it would
    read back as '1e+16' or lose digits, and an answer must be compared as written."""


def read_jsonl(path, numbers_as_written: bool = False) -> list[tuple[str, dict]]:
    """Rows of a JSON Lines file as (where, row) pairs; `where` is 'file:line' for error messages.
    `numbers_as_written`: numbers with a fraction or exponent come back as `WrittenNumber` text, not floats."""
    path = Path(path)
    check(path.exists(), f"data file {path} does not exist; give a JSON Lines file or a hub id")
    check(path.is_file(), f"data file {path} is {what_it_is(path)}; give a .jsonl file")
    rows = []
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8")  # a BOM, as some editors write, is dropped
            except UnicodeDecodeError:
                raise CourseError(f"{path}:{number}: not valid UTF-8; save the file as UTF-8 JSON Lines") from None
            if not line.strip():
                continue
            try:
                row = json.loads(line, parse_float=WrittenNumber if numbers_as_written else float,
                                 object_pairs_hook=_each_key_once)
            except json.JSONDecodeError as error:
                why = f"{error.msg.removesuffix(' at')} at column {error.colno}"
                raise CourseError(f"{path}:{number}: not JSON Lines ({why}); each line must be one JSON object") from None
            except KeyGivenTwice as error:  # JSON keeps the last in silence: a correction appended, or a mistake
                raise CourseError(f"{path}:{number}: field {error.args[0]!r} is given twice; keep one") from None
            check(isinstance(row, dict), f"{path}:{number}: expected a JSON object, got {type(row).__name__}")
            broken = [key for key, value in row.items() if not _is_text(key) or not _is_text(json.dumps(value,
                                                                                                       ensure_ascii=False))]
            check(not broken, f"{path}:{number}: field {broken[0] if broken else ''!r} holds an escaped lone surrogate "
                              "(such as \\ud800), which is no character; write the text itself")
            rows.append((f"{path}:{number}", row))
    check(rows, f"data file {path} holds no rows")
    return rows


class KeyGivenTwice(ValueError):
    """A JSON object that names one key twice."""


def _each_key_once(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object's pairs as a dict, refusing a key given twice (json.loads keeps the last)."""
    row = {}
    for key, value in pairs:
        if key in row:
            raise KeyGivenTwice(key)
        row[key] = value
    return row


def _is_text(text: str) -> bool:
    """Whether a string is text UTF-8 can write (JSON's \\ud800 escapes decode to halves of a character that cannot)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _hub_rows(hub_id: str, config: str | None, split: str) -> list[tuple[str, dict]]:
    """Rows of a hub dataset through `datasets.load_dataset`, with a clear error when offline. When the hub cannot
    be reached the local cache is read in offline mode: it fails at once, not after a minute of retries."""
    import datasets
    import huggingface_hub.constants

    from .models import hub_unreachable

    unreachable = hub_unreachable()
    modes = (datasets.config, huggingface_hub.constants)
    offline = [module.HF_HUB_OFFLINE for module in modes]
    try:
        if unreachable:
            for module in modes:
                module.HF_HUB_OFFLINE = True
        dataset = datasets.load_dataset(hub_id, config, split=split)
    except Exception as error:
        why = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CourseError(
            f"could not load {hub_id} ({config or 'default'}, split {split}) "
            + (f"from the local cache, and {unreachable}" if unreachable else f"from the hub: {why}")
            + "; without network access, pass a local JSON Lines path instead (or set COURSE_DATA_DIR)"
        ) from None
    finally:
        for module, mode in zip(modes, offline):
            module.HF_HUB_OFFLINE = mode
    return [(f"{hub_id}[{split}] row {i + 1}", dict(row)) for i, row in enumerate(dataset)]


def _is_local(source) -> bool:
    """Whether `source` names a local path (as opposed to a hub id)."""
    text = str(source)
    return Path(text).exists() or text.endswith(".jsonl") or text.startswith((".", "/", "~"))


def _field(where: str, row: dict, *names, kind=str):
    """The first present field among `names`, of type `kind`; a clear error naming the row if absent."""
    for name in names:
        if name in row and row[name] is not None:
            value = row[name]
            wanted = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            check(isinstance(value, kind), f"{where}: field {name!r} should be {wanted}, got {type(value).__name__}")
            return value
    raise CourseError(f"{where}: missing field {' or '.join(repr(n) for n in names)}")


def load_gsm8k(source: str = HUB_IDS["gsm8k"], split: str = "test") -> list[Problem]:
    """GSM8K; the answer is the number after `####`, the level is the number of solution steps (1-8+)."""
    rows = read_jsonl(Path(source) / f"{split}.jsonl" if Path(source).is_dir() else source) if _is_local(source) \
        else _hub_rows(source, "main", split)
    problems = []
    for index, (where, row) in enumerate(rows):
        question = _field(where, row, "question")
        solution = _field(where, row, "answer")
        answer = extract_hash_answer(solution)
        check(answer is not None, f"{where}: field 'answer' has no '#### N' final line")
        steps = sum(1 for line in solution.split("\n")[:-1] if line.strip())
        problems.append(Problem(f"gsm8k-{split}-{index}", question, answer, max(1, steps), "gsm8k", solution=solution))
    return problems


def _math_level(where: str, row: dict) -> int | None:
    """MATH level as an int from 1, '1' or 'Level 1'; None for 'Level ?' or a missing level."""
    level = row.get("level")
    if level is None:
        return None
    match = re.fullmatch(r"(?:Level )?([1-5]|\?)", str(level).strip())
    check(match is not None, f"{where}: field 'level' {level!r} is not 1-5 or 'Level N'")
    return None if match.group(1) == "?" else int(match.group(1))


def load_math(source: str = HUB_IDS["math"], split: str = "test", levels=None, numeric_only: bool = False) -> list[Problem]:
    """MATH (or MATH-500): levels as ints, subject kept, answer from `answer` or the last `\\boxed{}`."""
    if _is_local(source):
        rows = read_jsonl(Path(source) / f"{split}.jsonl" if Path(source).is_dir() else source)
    elif source == HUB_IDS["math"]:
        rows = [pair for config in MATH_SUBJECTS for pair in _hub_rows(source, config, split)]
    else:
        rows = _hub_rows(source, None, split)
    problems = []
    for index, (where, row) in enumerate(rows):
        problem = _field(where, row, "problem")
        solution = row.get("solution")
        answer = row.get("answer")
        if answer is None:
            check(isinstance(solution, str), f"{where}: missing field 'answer' and no 'solution' to take it from")
            answer = extract_boxed(solution)
            check(answer is not None, f"{where}: field 'solution' has no \\boxed{{}} answer")
        level = _math_level(where, row)
        uid = row.get("unique_id") or f"math-{split}-{index}"
        item = Problem(uid, problem, str(answer), level, "math", _field(where, row, "subject", "type"), solution)
        if (levels is None or level in levels) and (not numeric_only or is_numeric_answer(item.answer)):
            problems.append(item)
    return problems


def load_bbh(source: str = HUB_IDS["bbh"], n_objects=(3, 5, 7)) -> list[Problem]:
    """BBH tracking_shuffled_objects with 3, 5 and/or 7 objects; level = number of objects.

    `source` is the hub id, a folder holding the three files, or one file (read once; its rows'
    `n_objects`, or the number in its name, give the level).
    """
    for count in n_objects:
        check(count in BBH_FILES, f"n_objects={count} is not one of 3, 5, 7")
    if _is_local(source) and not Path(source).is_dir():
        named = [c for c, word in BBH_FILES.items() if f"_{word}_" in Path(source).name]
        rows = read_jsonl(source)
        return [p for p in _bbh_problems(rows, named[0] if named else None) if p.level in n_objects]
    problems = []
    for count in n_objects:
        name = f"tracking_shuffled_objects_{BBH_FILES[count]}_objects"
        rows = read_jsonl(Path(source) / f"{name}.jsonl") if _is_local(source) else _hub_rows(source, name, "test")
        problems += _bbh_problems(rows, count)
    return problems


def _bbh_problems(rows, count: int | None) -> list[Problem]:
    """BBH rows as problems; the level is the row's `n_objects`, else `count`."""
    problems = []
    for index, (where, row) in enumerate(rows):
        target = _field(where, row, "target").strip()
        check(re.fullmatch(r"\([A-G]\)", target) is not None, f"{where}: field 'target' {target!r} is not (A)..(G)")
        level = row.get("n_objects", count)
        check(level in BBH_FILES, f"{where}: no object count (field 'n_objects' 3, 5 or 7, or one in the file name)")
        problems.append(Problem(f"bbh-{level}-{index}", _field(where, row, "input"), target, level, "bbh",
                                subject=f"{level} objects"))
    return problems


GRADED_SOURCES = ("gsm8k", "math", "bbh", "aime2025", "arith", "shuffle", "tinymath")  # whose answer rules a file can use


def _written_out(where: str, number: WrittenNumber) -> str:
    """A JSON number with an exponent written out in digits (`1e3` -> `1000`, `2.5e-1` -> `0.25`): graders compare
    the digits a model writes, and no model writes 1e3 for a thousand; other numbers stay as the file writes them."""
    if "e" not in number.lower():
        return str(number)
    value = Decimal(number)
    check(abs(value.adjusted()) <= 100, f"{where}: field 'answer' {number} has over 100 digits written out; "
                                        f"put it in quotes (\"{number}\") if that text is the answer")
    return format(value, "f")


# the answers a source's grader can match at all (a pattern over the normalised answer, and what it says)
NUMBER = (r"-?\d+(\.\d+)?(/\d+)?", "one number as `####` marks it: no unit, no second number")
UNREACHABLE = {"bbh": (r"\(?[A-G]\)?", "an option (A) to (G)"), "aime2025": (r"\d{1,3}", "an integer 0-999"),
               "gsm8k": NUMBER, "arith": NUMBER, "shuffle": (r"[A-Z]", "one capital letter, as the items are written")}


def _jsonl_answer(where: str, row: dict, source: str) -> tuple[str, str | None]:
    """A `jsonl:` row's answer as its source's grader reads it, and its worked solution (GSM8K's own `... #### N`
    field gives both); an answer the grader could never match is refused, naming FILE:LINE."""
    answer = _field(where, row, "answer", kind=(str, int, float))
    check(not isinstance(answer, bool) and (not isinstance(answer, float) or math.isfinite(answer)),
          f"{where}: field 'answer' {json.dumps(answer)} is not an answer JSON keeps as written; "
          f"put it in quotes (\"{json.dumps(answer)}\") if that is the answer")
    answer = _written_out(where, answer) if isinstance(answer, WrittenNumber) else str(answer).strip()
    check(answer, f"{where}: field 'answer' is empty")
    solution = row.get("solution") if isinstance(row.get("solution"), str) else None
    if source in ("gsm8k", "arith") and "####" in answer:  # GSM8K's own field: the worked solution, #### N
        read = extract_hash_answer(answer)
        check(read is not None, f"{where}: field 'answer' {answer[-40:]!r} marks no one number after '####'")
        worked = str(row["answer"]).rsplit("####", 1)[0].strip()
        answer, solution = read, solution or (str(row["answer"]) if worked else None)
    if source == "math" and ("\\boxed" in answer or "\\fbox" in answer):  # MATH's own field: the worked solution
        read = extract_boxed(answer)
        check(read is not None, f"{where}: field 'answer' {answer[-40:]!r} holds no one \\boxed{{}} answer (none closed, "
                                "or several that differ); give the final answer alone")
        answer, solution = read, solution or answer
    check(source != "math" or len(answer) <= MAX_MATH_CHARS,
          f"{where}: field 'answer' is {len(answer):,} characters, longer than the {MAX_MATH_CHARS} math-verify is ever "
          "given, so no completion could be graded right; give the final answer alone (a worked solution goes in "
          "field 'solution')")
    check("####" not in answer, f"{where}: field 'answer' {answer[-40:]!r} is GSM8K's worked answer (`... #### N`), "
                                f"which source {source!r} never grades right; give the row \"source\": \"gsm8k\"")
    rule = UNREACHABLE.get(source)
    check(rule is None or re.fullmatch(rule[0], normalize_number(answer)) is not None,
          f"{where}: field 'answer' {answer!r} can never be graded right under source {source!r} "
          f"({rule[1] if rule else ''}); fix the answer or give the row another source")
    return answer, solution


JSONL_FIELDS = ("id", "question", "prompt", "problem", "answer", "level", "source", "subject", "solution")


def check_fields_read(where: str, row: dict) -> None:
    """A row's fields are ones the loader reads, or others it may leave: `Level` or `Answer` (a case the loader does
    not read) and a row's own `answer_format` (one format holds for the whole file: --answer-format) are refused."""
    variant = next((key for key in row if key not in JSONL_FIELDS and key.lower() in JSONL_FIELDS), None)
    check(variant is None, f"{where}: field {variant!r} is not read (fields are lower case); rename it "
                           f"{str(variant).lower()!r}")
    check(row.get("answer_format") is None, f"{where}: field 'answer_format' is not read from a row (one format holds "
                                            "for the whole file); give --answer-format, or drop the field")


def load_jsonl_problems(path) -> list[Problem]:
    """Your own questions: a JSON Lines file with `question` (or `prompt`/`problem`) and `answer` per row.

    Optional fields: `id`, `level` (int), `source` (whose answer rules grade it: one of GRADED_SOURCES;
    default `math`, i.e. a `\\boxed{}` answer compared by math-verify) and `solution`.
    """
    path = Path(path).expanduser()
    problems, seen, asked = [], set(), {}  # ids; question -> (its row, its answer)
    for index, (where, row) in enumerate(read_jsonl(path, numbers_as_written=True)):
        source = _field(where, row, "source") if row.get("source") is not None else "math"
        check(source in GRADED_SOURCES, f"{where}: field 'source' {source!r} is not one of {', '.join(GRADED_SOURCES)}")
        level = row.get("level")
        check(level is None or (isinstance(level, int) and not isinstance(level, bool) and level >= 0),
              f"{where}: field 'level' should be a whole number >= 0 (1 = easiest), got {level!r}")
        check_fields_read(where, row)
        uid = row.get("id") if row.get("id") is not None else f"{path.stem}-{index}"
        check(isinstance(uid, str | int) and not isinstance(uid, bool | WrittenNumber),  # 1.0 and 1e0: no whole id
              f"{where}: field 'id' {uid if isinstance(uid, WrittenNumber) else json.dumps(uid)} should be text or "
              "an integer; put it in quotes")
        uid = str(uid)
        check(uid and uid == uid.strip() and "\n" not in uid and "\r" not in uid,
              f"{where}: id {uid!r} is empty or has spaces around it or a line break (an ids file is read a line at a "
              "time, stripped, so it would name another problem); write it without them")
        check(uid not in seen, f"{where}: id {uid!r} appears twice; ids must be unique")
        seen.add(uid)
        answer, solution = _jsonl_answer(where, row, source)
        given = [name for name in ("question", "prompt", "problem") if row.get(name) is not None]
        check(len(given) <= 1, f"{where}: both {given[0]!r} and {given[-1]!r} hold a question (one would be dropped); "
                               "keep one" if len(given) > 1 else "")
        question = _field(where, row, "question", "prompt", "problem")
        check(question.strip(), f"{where}: the question is empty; write the question the model is asked")
        said = " ".join(unicodedata.normalize("NFC", question).split())  # one question, however spaced or encoded
        if said in asked:  # a row pasted twice would count twice; two answers, one never right
            line, first_answer = asked[said]
            check(first_answer == answer, f"{where}: the question of line {line} again, with answer {answer!r} "
                                          f"where line {line} has {first_answer!r}; keep the right one")
            check(row.get("id") is not None, f"{where}: the question of line {line} again (a row pasted twice "
                                              "counts twice); delete one, or give each row its own id")
        asked.setdefault(said, (where.rsplit(":", 1)[-1], answer))
        subject = row.get("subject") if isinstance(row.get("subject"), str) else None
        problems.append(Problem(uid, question, answer, level, source, subject=subject, solution=solution))
    return problems


def load_aime2025(source: str = HUB_IDS["aime2025"]) -> list[Problem]:
    """AIME 2025 I and II (30 problems); the answer is an integer 0-999."""
    if _is_local(source):
        rows = read_jsonl(Path(source) / "test.jsonl" if Path(source).is_dir() else source)
    else:
        rows = [pair for part in ("AIME2025-I", "AIME2025-II") for pair in _hub_rows(source, part, "test")]
    problems = []
    for index, (where, row) in enumerate(rows):
        answer = normalize_number(str(_field(where, row, "answer", kind=(int, str))))
        check(re.fullmatch(r"\d{1,3}", answer) is not None, f"{where}: field 'answer' {answer!r} is not an integer 0-999")
        uid = str(row.get("id") or f"aime2025-{index}")
        problems.append(Problem(uid, _field(where, row, "problem", "question"), answer, None, "aime2025",
                                subject=row.get("part")))
    return problems
