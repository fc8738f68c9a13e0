"""Final-answer extraction and checking for every format the course grades.

Formats: the tiny tasks and GSM8K (`#### N`), MATH (`\\boxed{...}`, equivalence through
math-verify), BBH options `(A)`..`(G)`, AIME integers, and `<answer>...</answer>` tags.
One marked answer counts: a completion that marks several different answers (`#### 3` and `#### 4`, two boxes,
`the answer is (A) or (B)`, every option listed) hedges, and scores 0 whichever of them is right; the same
answer marked twice is one answer. Beside the marked answers two more are read, in every format: an answer stated
after a label from the last mark on (`The answer is 9.`, `**Final Answer**: nine`, `Answer: 7 or 8`; before the last
mark a statement is working, `Step 1: the answer is 9.`, but a final-answer label's is not) and one offered right after a mark
(`\\boxed{7} or 8`, `#### 7\\nor 8`, `\\boxed{7}, or rather 8`, `\\boxed{7}, i.e. $8$`, `\\boxed{7} vs \\[8\\]`,
`\\boxed{7} or **8**`, `or x = 8`, `or minus 7`, `or half a thousand`, a correction, `Wait, actually it's 8.`,
`Oops, it should be 8.`, and a number shown alone right after it: `#### 7\\n\\(8\\)`, `So \\boxed{7}.\\n8`); either,
when it differs, is another answer (`#### 12 or a dozen` restates 12; a value of another variable than the box's,
`$x = \\boxed{2}$\\n$y = 3$`, is none). A value rejected after a mark (`\\boxed{8}, not 7`, `(A), but (B) ...`) is
offered too, so it hedges; values are compared by value (`\\frac{3}{4}`, i.e. 75% restates it), a relation with a
calculation on its left (`i.e. $s^2 = 16$`, `i.e. $1024 \\equiv 10 \\pmod{13}$`) is working that checks the mark, so
is a gloss listing as many values as the mark counts (`\\boxed{4}, i.e. $2, 3, 5, 7$`), and a gloss with a unit
(`i.e. 2 hours`) or a value in another unit than the mark's (`#### 2 hours (120 minutes)`, `5 hours, or 300 minutes`;
units compared by name) explains the mark rather than offering another answer. A `####` number's unit is up to three
words none of which changes a number (`#### 14 years old`, `#### 3 cups of flour`; `#### 7 dollars per thousand` is
none). A mark or a tag written whole in math or a box (`#### \\boxed{12}`, `#### \\(12\\)`, `<answer>$42$</answer>`) is
its content, and one that carries its working reads the result (`#### 3 × 4 = 12` after its last `=`, `#### 7, since 3 +
4 = 7`, `#### Twelve`). A mark withdrawn right after it, with nothing in its place and no mark after it (`\\boxed{3}.
Wait, that's not right.`, `The answer is 3. I was wrong.`), gives no answer. A final-answer statement (`**Answer:** 6`,
`Final answer: 6`) is an answer wherever it stands, before the last mark too. An option rejected right after the one
given (`(B), not (A)`) is no second answer. A chat template's end token closing a mark (`#### 5<|eot_id|>`) is no part
of it, and an en dash starting a number is a minus (`#### –5`).
Digits: any Unicode decimal digit counts as the ASCII digit of the same value, so `٤٢` (Arabic-Indic) and
`４２` (fullwidth) both equal 42 (and `＃＃＃＃ 42` is `#### 42`); superscripts and fractions like `½` are not
digits (a number in words is read only where an answer is stated, offered or marked whole, `The answer is eight.`), and separators
must be ASCII (`.` and `,`). MATH answers are checked from any thread (a helper process when
not the main one, see `math_equal`). Nothing here ever evaluates model output as code.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import math
import os
import re
import select
import signal
import subprocess
import sys
import threading
import unicodedata
from fractions import Fraction

from .paths import REPOSITORY

# each source's answer format: what its prompt asks for (`prompts`) and what `is_correct` reads, one table for both;
# AIME asks for a box and is graded on any clear integer; "tagged" is the checker's plain-text source
DEFAULT_FORMAT = {"arith": "hash", "shuffle": "hash", "tinymath": "boxed", "gsm8k": "hash", "math": "boxed",
                  "bbh": "option", "aime2025": "boxed", "tagged": "tagged"}
MAX_SCAN = 4000  # the last number written (AIME) and a task's whole shape are read from this many characters
MAX_MARKS = 16  # a completion marking more answers than this (`####`, boxes, "answer is") gives none
MAX_MATH_CHARS = 300  # longer candidate answers are not handed to math-verify
MATH_TIMEOUT = 2  # seconds of CPU time math-verify may spend on each parse and on the comparison (not of wall-clock
# time: on a busy machine a right answer would time out and be graded wrong)
MATH_BACKSTOP = 60  # wall-clock seconds: math-verify's own alarm, for a hang the CPU-time limit cannot stop

# four marks (fullwidth `＃＃＃＃` too, as fullwidth digits are digits): five or six open a Markdown heading
_HASH = re.compile(r"(?<![#\uff03])[#\uff03]{4}(?![#\uff03])[ \t]*([^\n]{0,100})")
_OPTION = re.compile(r"\(([A-G])\)")
_LATEX_SEPARATOR = re.compile(r"\\,|\{,\}|\\ | |\u00a0|\u2009|\u202f")  # `1\,000`, `1{,}000`, `1\ 000`, `1 000`
_THOUSANDS = re.compile(r"[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # 1,234,567.5: the only commas removed
_DECIMAL = re.compile(r"([-+]?)(\d*)(?:\.(\d*))?")  # `+7` is 7
_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3}){1,10}(?:\.\d{1,30})?|-?\d{1,30}(?:\.\d{1,30})?")
MAX_TAGGED = 1000  # characters an <answer> tag may hold


def _tail(text) -> str:
    """The last MAX_SCAN characters of a string (anything else becomes '')."""
    return text[-MAX_SCAN:] if isinstance(text, str) else ""


_LATEX_SPACE = re.compile(r"\\[;:,!> ]|\\q?quad(?![A-Za-z])|(?<=\S)~")  # `12~\text{cm}`; a leading `~12` is approximate
_LATEX_WORD = re.compile(r"\\(?:text|textrm|textit|textbf|textnormal|mathrm|mbox|operatorname)\s*\{([^{}]*)\}")


def _plain(text: str) -> str:
    """Text with LaTeX spacing as spaces, words set in `\\text{...}` as plain words and an escaped `\\$` as `$`, so a
    hedge reads the same however it is typeset (`12 \\; \\text{or} \\; 13` is `12 or 13`, `\\$18` is `$18`)."""
    return _LATEX_WORD.sub(r" \1 ", _LATEX_SPACE.sub(" ", text)).replace("\\$", "$")


def normalize_number(text: str) -> str:
    """'1,234' -> '1234', '$5.00' -> '5', '1.50' -> '1.5', '-0' -> '0', '٤٢' -> '42'; other strings are only stripped.

    Commas count as thousands separators only in groups of three (`1,234,567`): `1,2` stays a list of two numbers.
    LaTeX's separators (`1\\,000`, `1{,}000`, `1\\ 000`) and a space (`1 000`, SI style) count the same way.

    >>> [normalize_number(s) for s in ("1,234,567", "1,2", " 7. ", "-0.0", "007", ".5", r"1\\,000", "1{,}000")]
    ['1234567', '1,2', '7', '0', '7', '0.5', '1000', '1000']
    >>> normalize_number("\u22125"), normalize_number("\u20135"), normalize_number("+5")  # a Unicode minus, an en dash; a plus
    ('-5', '-5', '5')
    """
    text = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)  # any script's digits
    text = _DASH_MINUS.sub("-", text.replace("\u2212", "-"))  # the Unicode minus sign (−5), as typeset text writes it
    cleaned = text.strip().replace("$", "")
    ellipsis = re.search(r"\d\s*\.\.+$", cleaned)  # `7...`, `7 ...`: the number goes on, it is no number
    cleaned = (cleaned if ellipsis else cleaned.rstrip(".")).strip()  # `7.`, `Paris.`
    if _THOUSANDS.fullmatch(commas := _LATEX_SEPARATOR.sub(",", cleaned)):
        cleaned = commas.replace(",", "")
    match = _DECIMAL.fullmatch(cleaned)
    if match and (match.group(2) or match.group(3)):
        sign, whole, fraction = match.groups()
        number = (whole.lstrip("0") or "0") + ("." + fraction.rstrip("0") if (fraction or "").rstrip("0") else "")
        cleaned = ("-" if sign == "-" and number != "0" else "") + number
    return cleaned


# an en dash starting a number, as a minus (`–5`, `– 5`, `–\frac{1}{2}`; a word processor's minus): not one between two
# numbers (`3–5`, a range)
_DASH_MINUS = re.compile(r"(?<![\w.,])\u2013(?=[ \t]?[\d.\\])")
_WORD = re.compile(r"[^\W\d_]{2}")  # two letters in a row, in any script


def hash_answers(text) -> list[str | None]:
    """Every `####` answer in a completion, normalised, in order; [] when there is none. The last mark is the
    answer (None when empty); an earlier one is another answer unless it reads as a Markdown heading (empty, or
    words: `#### Step 1: add`), which a model may write before its `#### N`.

    >>> hash_answers("3+4=7\\n#### 7"), hash_answers("#### 3\\n#### 4"), hash_answers("#### Step 1\\n#### 4")
    (['7'], ['3', '4'], ['4'])

    An answer offered on the line after a mark, after a connector, is another answer, as after a box:

    >>> hash_answers("#### 7\\nor 8"), hash_answers("#### D\\n(or maybe E)"), hash_answers("#### 7\\nor seven")
    (['7', '8'], ['D', 'E'], ['7'])
    """
    if not isinstance(text, str):
        return []
    if text.count("####") + text.count("\uff03" * 4) > MAX_MARKS:
        return [None]
    marks = []
    for match in _HASH.finditer(text):
        mark = _worked_result(_without_reason(normalize_number(_unwrapped(match.group(1)))))
        mark = _mark_value(_without_aside(_PERCENT.sub(r"\1", mark)))
        marks.append(_restated_once(_mark_value(_in_digits(mark)) if _WORDS_NUMBER.fullmatch(mark) else mark))
        if marks[-1] and not _heading(marks[-1]):  # `#### 7\nor 8`: the line after it offers another answer
            after = text[match.end():match.end() + 160]
            alternative = _alternative_after(after, marks[-1])
            withdrawn = not alternative and _withdrawn(text, match.end(), marks[-1])  # `#### 7\nThat's wrong.`
            marks += [alternative] if alternative else [None] if withdrawn else []
    return [mark for mark in marks[:-1] if mark and not _heading(mark)] + [mark or None for mark in marks[-1:]]


# a reason after a `####` mark's value (`7, since 3 + 4 = 7`, `7 because we add them`): no part of the value
_REASON = re.compile(r"(?i)(?<=\S)(?:[ \t]*+[,;]|[ \t])[ \t]*+(?:since|because)\b")
# a calculation of numbers (`3 × 4`, `2 + 3 = 5 × 2`, `(3 + 4) * 2`): digits, operators, brackets and `=` only, with an
# operator between two numbers
_CALCULATION = re.compile(r"[\d.,()\s+\-*/\u00d7\u00b7\u00f7^=]*+")
_OPERATION = re.compile(r"[\d)][ \t]*+[-+*/\u00d7\u00b7\u00f7^][ \t]*+[\d(]")


_MAY_BE = re.compile(r"(?i)\b(?:could|might|may|not\s++sure)\b")  # a reason that doubts: `because it might be 8`


def _without_reason(mark: str) -> str:
    """A `####` mark without the reason given after its value (`7, since 3 + 4 = 7` is `7`); a reason that hedges
    (`7 because it might be 8`, `7 since maybe 8`: `_DISJUNCTION`, `_MAY_BE`), one followed by another sentence (`7,
    since 3 + 4 = 7. Hmm, that's wrong.`) or any other mark is kept whole."""
    reason = _REASON.search(mark)
    end = reason and _SENTENCE_END.search(mark, reason.end())
    hedged = reason and (_DISJUNCTION.search(mark, reason.end()) or _MAY_BE.search(mark, reason.end()) or
                         (end and mark[end.end():].strip()))
    return mark[:reason.start()] if reason and not hedged else mark


def _worked_result(mark: str) -> str:
    """A `####` mark that carries its working (`3 × 4 = 12`, `3 * 4 = 12`, `2 + 3 = 5 × 2 = 10`) as what follows its
    last `=`, when all before it is a calculation of numbers; any other mark as it is (`x = 12`, `3 = 4`, `12 = 3 × 4`).

    >>> [_worked_result(m) for m in ("3 \u00d7 4 = 12", "3 \\\\times 4 = 12 apples", "x = 3 * 4 = 12", "3 = 4", "12 = 3 \u00d7 4")]
    ['12', '12 apples', 'x = 3 * 4 = 12', '3 = 4', '12 = 3 × 4']
    """
    left, equals, right = _BOLD.sub(r"\1", mark).rpartition("=")  # `**3 × 4 = 12**`
    left = re.sub(r"\\(?:times|cdot|div)(?![A-Za-z])", "*", left)
    return right.strip() if equals and _CALCULATION.fullmatch(left) and _OPERATION.search(left) else mark


# a `####` mark written whole in math or a box (`#### \\(12\\)`, `#### $\\boxed{12}$`, `#### \\boxed{12}.`): its content
_WRAPPED_MARK = re.compile(r"(?:\$\$([^$]+)\$\$|\$([^$]+)\$|\\\(((?:(?!\\[()]).)+)\\\)|\\\[((?:(?!\\[\[\]]).)+)\\\]"
                           r"|\\(?:boxed|fbox)\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\})[ \t]*\.?")


_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff \t"  # zero-width spaces and joiners, a byte-order mark: no part of a mark
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}  # `Ｂ`, `（`, `＄`: ASCII's fullwidth forms, as ASCII
# a chat template's end tokens closing a mark (`5<|eot_id|>`, `5<|im_end|>`, `5</s>`, `5 <eos>`, `5<end_of_turn>`,
# DeepSeek's `5<｜end▁of▁sentence｜>`, its bars fullwidth): no part of the answer (one between two values,
# `5<|eot_id|>6`, is kept)
_END_TOKENS = re.compile(r"(?:[ \t]*+(?:<\|[a-z_\u2581]{1,24}\|>|</s>|<eos>|<end_of_turn>))++$")


def _unwrapped(mark: str) -> str:
    """A `####` mark or a tag's content without the math or the box it is written in, an escaped dollar as a dollar,
    and without the end tokens, check marks or emoji after it (`\\(12\\)`, `$\\boxed{12}$`, `\\boxed{12}`, `12<|eot_id|>` and
    `12 ✅` are 12, `\\$64` is `$64`), fullwidth letters as ASCII (`Ｂ` is `B`); any other mark as it is (`$7$ or $8$`
    stays two)."""
    mark = _END_TOKENS.sub("", mark.strip().strip(_INVISIBLE).translate(_FULLWIDTH))
    while mark and (unicodedata.category(mark[-1]) == "So" and mark[-1] != "\u00b0" or mark[-1] in "\ufe0f \t"):
        mark = mark[:-1]  # `✅`, `✓`, `👍` (a symbol; not the degree sign, `8°`), an emoji's variation selector
    while wrapped := _WRAPPED_MARK.fullmatch(mark):
        mark = next(group for group in wrapped.groups() if group is not None).strip()
    return mark.replace("\\$", "$")


_ANSWER_LABEL = r"(?i:the\s+)?(?i:final\s+)?(?i:answer)(?:\s+(?i:is))?\s*[:=]?\s*"  # `Answer:`, `The final answer is`
_WORD_LABEL = r"([^\W\d_]\w*)"  # `Solution:`, `x =`: read against _NO_UNIT (`Maybe: 8` is no answer)
_STATED_NUMBER = re.compile(rf"(?:{_ANSWER_LABEL}|{_WORD_LABEL}(?:\s+\d+)?\s*[:=]\s*)?"
                            r"([-+]?[$\u20ac\u00a3\u00a5]?\d(?:[\d,]*\d)?(?:\.\d+)?)"  # `Answer: 8`, `Solution 1: 8`, `x = 8`, `8`, `€8`
                            r"[,;]?(?:[ \t]+((?:[^\W\d_]|[\u00b0\u20ac\u00a3\u00a5$])[^\s,;?!]*?(?:[ \t]+[^\W\d_]+){0,2})"  # `8 apples`, `8 °C`, `8 years old`, `8 km per hour`
                            r"|\u00b0[CF]?|[\u20ac\u00a3\u00a5])?[ \t]*\.?")  # or a degree or currency sign stuck to it: `8°C`, `8€`
_CURRENCY = str.maketrans("", "", "\u20ac\u00a3\u00a5")  # € £ ¥, dropped from a stated number as normalize_number drops $
_BOLD = re.compile(r"\*\*([^*]*)\*\*")  # Markdown bold around a mark's value
# a number stated in the text beside a `####` answer: a label, `The answer is`, `Answer:`, `Final answer =`, then the
# rest of its sentence read as a mark is (`_mark_value`): `9.`, `**9**.`, `$9$.`, `−9.`, `9 apples.` (not `9 - 1 = 8.`)
_STATED_LABEL = re.compile(r"(?i)\b(?:the\s+)?(?:final\s+)?answers?(?:\*\*|__)?(?:\s+(?:is|are)\b[ \t]*:?|[ \t]*[:=])"
                           r"(?:\*\*|__)?[ \t]*"  # Markdown bold around it: `**Final Answer:** 8`, `**Final Answer**: 8`
                           r"(?:(?:probably|actually|likely|perhaps|maybe|possibly|really|definitely|clearly|instead)\b[ \t]*)?")
# a correction after an answer (`(B) or rather (C)`, `\boxed{5}, or actually 6`): the corrected answer is a second one
_CORRECTION = r"or(?:\s*,\s*|\s+)(?:rather|actually|I\s+mean|that\s+is)\b"  # (a comma after it is the lists' own)
# a correction after a mark (`Wait, 8.`, `Hmm, wait, actually it's 8.`, `Oops, it should be 8.`, `Wait, I made an error.
# The total is 8.`): one or more of its words, then `it's`, `the total is` ..., then the value (`_CORRECTED_AFTER`; an
# option, `_OPTION_CORRECTED`)
_CORRECTING = (r"(?:wait|actually|hmm+|oh|oops|no|sorry|hold\s++on|on\s++second\s++thought"
               r"|I\s++made\s++an?\s++(?:error|mistake))\b[\s,.!:;\u2014\u2013-]*+")
_I_THINK = r"(?:I[ \t]++think[ \t,]++(?:that[ \t]++)?)?"  # `Actually, I think 14 is right.`, `Wait, I think it's 14.`
_CORRECTED_TO = (r"(?:(?:it|this|that)(?:['\u2019]s|\s++is|\s++was|\s++should\s++be)\s++"
                 r"|(?:the\s++)?(?:correct\s++|right\s++)?(?:total|result|value)\s++(?:is|should\s++be)\s++)")
# a reason on the same line first: `Wait, I missed one, so it's 8.`, or one ending its sentence or clause before what the
# value is corrected to: `Wait, I double counted; it should be 7.`, `Hmm, I forgot one. It's 8.`
_SO_THEN = rf"(?:[^\n]{{0,120}}?(?:\bso[ \t,]++|[;.][ \t]++(?=(?i:{_CORRECTED_TO}))))?"
# a retraction of what was just given (`that's not right`, `that's not quite right`, `this is wrong`, `it was incorrect`,
# `I was wrong`; its
# apostrophe typed or typeset, `that’s`), then the value or the option that replaces it (`_RETRACTED_AFTER`,
# `_OPTION_RETRACTED`), or nothing (`_WITHDRAWN`)
_RETRACTION = (r"(?:(?:that|this|it)(?:['\u2019]s|\s++is|\s++was)\s++"
               r"(?:not\s++(?:quite\s++)?(?:right|correct)|wrong|incorrect)|I\s++was\s++wrong)\b")
_RETRACTED = rf"{_RETRACTION}[\s,.!;\u2014\u2013-]*+"
_REDONE = r"(?:[^:\n]{0,80}?(?::|\bso\b,?)[ \t]++)?"  # the redo's words before its value: `Let me redo it: `, `, so `
# a contrast, a rejection or a gloss after an answer (`\boxed{8}, not 7`, `(A) rather than (B)`, `\boxed{8} instead of
# $7$`, `\boxed{5}, i.e. $6$`, `\boxed{5} vs $6$`, `(A), though it could be (B)`): the value after it is a second answer
# (a completion that names two values scores on neither), unless it restates the first (`\boxed{5}, i.e. $5$`)
_CONTRAST = (r"not\b|rather\s+than\b|instead\s+of\b|i\.\s?e\.?|vs\b\.?|versus\b|"
             r"(?:(?:but|though|however),?\s+)?(?:it\s+)?(?:could|might|may)\s+(?:also\s+)?be\b")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")  # `9.` ends a sentence, `9.5` does not
# a stated answer the reasoning only tries (`Suppose the answer is 9.`, `If the answer is (D), ...`, `A common mistake:
# the answer is 9.`): if, suppose, assume, say, imagine, whether or mistake right before its `the answer`
_TRIAL = re.compile(r"(?i)\b(?:if|suppose|supposing|assume|assuming|say|imagine|whether|mistake)\b[\s:,]*(?:that\s+)?"
                    r"(?:the\s+)?(?:final\s+)?$")


def _a_trial(text: str, start: int) -> bool:
    """Whether the answer stated at `text[start:]` is a trial the reasoning tests, not an answer given: the words right
    before it are `Suppose`, `If`, `A common mistake:` (the end of the 40 characters before it is read).

    >>> [_a_trial(t, t.index("the answer")) for t in ("Suppose the answer is 9.", "A common mistake: the answer is 9",
    ...                                               "So the answer is 9.", "If we add, the answer is 9.")]
    [True, True, False, False]
    """
    return bool(_TRIAL.search(text, max(0, start - 40), start))


_NAMED_OPTION = re.compile(r"(?i:option|choice)\s*\(?([A-Ga-g])\)?\.?"  # `Option D`, `Option d`, `(D) Alice`
                           r"|\(([A-G])\)\s+[^\W\d_]+\.?")
_STATED_LETTER = re.compile(rf"(?:{_ANSWER_LABEL}|{_WORD_LABEL}\s*:\s*)\(?([A-Z])\)?\.?"  # `Answer: E`, `Solution: (E)`
                            rf"|{_ANSWER_LABEL}\(?([a-g])\)?\.?")  # `Answer: e`: lower case after an answer label only
_NO_UNIT = frozenset({  # words after a `####` number that change or hedge it (any other word is a unit: `7 apples`)
    "thousand", "thousands", "million", "millions", "billion", "billions", "trillion", "trillions", "hundred",
    "hundreds", "dozen", "dozens", "lakh", "lakhs", "crore", "crores", "grand", "squared", "cubed", "percent",
    "percents", "times", "plus", "minus", "or", "and", "to", "is", "not", "half", "halves", "third", "thirds", "tenth",
    "tenths", "hundredth", "hundredths", "thousandth", "thousandths", "maybe", "perhaps", "probably", "possibly",
    "likely", "nearly", "almost", "approximately", "approx", "about", "roughly", "around", "circa", "ish", "wrong",
    "incorrect", "no", "nor", "vs", "versus", "either", "negative", "factorial", "over", "divided", "point", "ou",
    "oder", "fourth", "fourths", "fifth", "fifths", "sixth", "sixths", "seventh", "sevenths", "eighth", "eighths",
    "ninth", "ninths", "millionth", "millionths", "billionth", "billionths", "twice", "thrice", "below", "above",
    "under", "k", "bn", "mn", "mln", "bln", "mil", "mille", "thou", "pct", "lac", "lacs", "tens", "score", "scores",
    "gross", "fold", "quadrillion", "quadrillions", "quintillion", "quintillions", "millionen", "milliarden",
    "tausend", "milliard", "milliards",
    # round 23: more scales, fractions and languages (`8 sextillion`, `8 twelfths`, `8 Mio`, `8 millones`, `8 тысяч`,
    # `8 万`), pi (`8 π`), approximations and negations (`8 ca.`, `8 odd`, `8 max`, `8 false`, `8 estimated`)
    "sextillion", "sextillions", "septillion", "septillions", "octillion", "octillions", "eleventh", "elevenths",
    "twelfth", "twelfths", "sixteenth", "sixteenths", "twentieth", "twentieths", "mio", "mrd", "tsd", "millones",
    "millón", "millon", "mila", "milioni", "miliardi", "miliardo", "milliers", "тысяч", "тысяча", "тысячи", "тыс",
    "миллион", "миллиона", "миллионов", "млн", "млрд", "万", "千", "百", "亿", "萬", "億", "pi", "π", "ca", "odd",
    "max", "false", "estimated", "bps"})
_HEDGE_LABELS = frozenset({  # labels before a `####` number that hedge or negate it (`Guess: 8`, `Est: 8`, `Never: 8`);
    "false", "never", "invalid", "rejected", "guess", "estimate", "est", "unsure"})  # after it a unit (`7 guess`)
_SCALE_LETTERS = frozenset({"M", "B", "MM"})  # `8 M`, `8 MM` (millions), `8 B`: capitals only (`8 m` is metres)


def _changes_the_number(word: str) -> bool:
    """Whether the words after a `####` number change or hedge it (`7 thousands`, `7 tenths`, `7 maybe`, `7 dollars per
    thousand`), so the mark is no answer; words none of which `_NO_UNIT` lists are its unit (`7 apples`, `12 points`)."""
    folded = re.split(r"[ \t]+", unicodedata.normalize("NFKC", word).lower())  # fullwidth letters are the same word;
    # each word of a unit of several is read (`years old`, `dollars per day`; `dollars per thousand` changes it)
    starts = word[:1].isalpha() or word[:1] in "\u00b0\u20ac\u00a3\u00a5$"  # `5 ½`, `3 ²`: no unit starts so
    exponent = re.fullmatch(r"e[+-]?\d+", folded[0])  # `8 e3`: 8e3
    return bool(word) and (any(part in _NO_UNIT for part in folded) or word in _SCALE_LETTERS or not starts or
                           bool(exponent))


def _mark_value(mark: str) -> str:
    """A `####` mark that states one number (`Answer: 8`, `The answer is 8`, `8 apples`: at most three words after it,
    its unit, `8 years old`, `8 dollars per day`, `8 cups of flour`) as that number, and one that states a letter (`Answer: E`) as that letter; any other mark as it is (a
    heading such as `Step 1: add` keeps its words, so it is no answer; `7 or eight`, `7 thousand` stay a hedge).

    >>> [_mark_value(m) for m in ("8", "Answer: 8", "The answer is 1,000", "8 apples", "Step 1: add", "7 or 8")]
    ['8', '8', '1000', '8', 'Step 1: add', '7 or 8']
    >>> [_mark_value(m) for m in ("7 thousand", "7 or eight", "8km", "Answer: E", "**24**", "24,", "24!")]
    ['7 thousand', '7 or eight', '8km', 'E', '24', '24', '24!']
    >>> [_mark_value(m) for m in ("€8", "-£8", "8€", "8°C", "8 °C", "8€50", "8°C or 9")]
    ['8', '-8', '8', '8', '8', '8€50', '8°C or 9']
    """
    plain = normalize_number(_BOLD.sub(r"\1", mark).strip().rstrip(",;:").rstrip())  # `**24**`, `24,`, `1 234,`
    plain = re.sub(r"^([-+])[ \t]+(?=\d)", r"\1", plain)  # `- 8`, `+ 8`: a sign set apart
    stated = _STATED_NUMBER.fullmatch(plain)  # (as lm-eval's strict-match reads them)
    label = stated and (stated.group(1) or "")
    if stated and not _changes_the_number(stated.group(3) or "") and not _changes_the_number(label) and \
            label.lower() not in _HEDGE_LABELS:
        return normalize_number(stated.group(2).translate(_CURRENCY))  # a label that hedges or negates (`Maybe: 8`, `Not: 8`) is none
    option = _NAMED_OPTION.fullmatch(plain)
    if option:
        return (option.group(1) or option.group(2)).upper()
    letter = _STATED_LETTER.fullmatch(plain)
    if letter and not _changes_the_number(letter.group(1) or "") and (letter.group(1) or "").lower() not in _HEDGE_LABELS:  # `Not: E`, `Guess: E`
        return (letter.group(2) or letter.group(3)).upper()
    return plain


_LEADING_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")
# a `####` number given as a percentage (`#### 25%`, `#### 25 %`, `#### 25 percent`): the number, as lm-eval's strict
# match reads it (after a box, `or 12%` is still another value than 12)
_PERCENT = re.compile(r"(?i)^([-+]?\d[\d,]*(?:\.\d+)?)[ \t]*(?:\\?%|percent\b)(?=[ \t]*$)")
_ASIDE = re.compile(r"[ \t]*\(([^()\n]{1,80})\)$")  # a `####` number's closing aside: `7 (apples)`, `7 apples (3 red, 4 green)`


def _without_aside(mark: str) -> str:
    """A `####` number's mark without an aside in parentheses at its end that only explains it (`_aside_explains`:
    `7 (apples)`, `2 hours (120 minutes)`); a mark whose aside offers another value (`7 (or 8)`, `7 (8)`), qualifies it
    (`7 (about)`) or holds a word that changes a number (`7 (approx)`, `7 (3 thousand)`) is kept whole, as no answer."""
    aside = _ASIDE.search(mark)
    number = _LEADING_NUMBER.match(mark)
    if not aside or not number or aside.start() < number.end():
        return mark
    before = mark[:aside.start()]
    return before if _aside_explains(before, aside.group(), aside.group(1)) else mark


def _aside_explains(number: str, aside: str, content: str) -> bool:
    """Whether an `aside` in parentheses after a `####` number (`number`, its unit too) only explains it: restates its
    value (`(7)`, `(half of 100)`), describes it (`(apples)`, `(3 red, 4 green)`) or gives it in another unit (`2 hours
    (120 minutes)`, `120 (2 hours)`, `2 hours (or 120 minutes)`)."""
    value = exact_value(_offered_value(content))
    if value == exact_value(normalize_number(_LEADING_NUMBER.match(number).group())):
        return True
    unit, own_unit = (_UNIT_AFTER.fullmatch(text.strip()) for text in (content, number))
    own = own_unit.group(1).lower() if own_unit else ""
    offered = _next_offered(aside, own)
    if offered or _QUALIFIED_BOX.match(aside):  # `(or 8)`, `(about)`; after `2 hours`, `(or 120 minutes)` converts it
        return bool(offered) and offered[0] is None and aside[offered[1]:].strip() == ")"
    if any(_changes_the_number(word) for word in _WORD_TOKEN.findall(content)):
        return False  # `(3 thousand)`, `(approx)`
    return value is None or (bool(unit) and unit.group(1).lower() != own)


_WORD_TOKEN = re.compile(r"[^\W\d_]+")


def _restated_once(mark: str) -> str:
    """A `####` mark that gives a number, then only restates it (`12 or a dozen`, `500, or half a thousand`), as that
    number; any other mark as it is (`7 or 8`, `7 or eight`, `12 or a dozen eggs` stay a hedge)."""
    number = _LEADING_NUMBER.match(mark)
    rest = mark[number.end():] if number else mark
    unit = re.match(rf"[ \t]++({_UNIT})(?=[.,;]?[ \t]*+(?i:or|i\.\s?e\.?|that\s++is|namely)\b)", rest) if number else None
    if unit and not _changes_the_number(unit.group(1)):  # `5 hours, or 300 minutes`, `2 hours. That is 120 minutes.`
        rest = rest[unit.end():]
    while number and (offered := _next_offered(rest, unit and unit.group(1))) and \
            (offered[0] is None or not _other_value(offered[0], number.group(), offered[2])):
        rest = rest[offered[1]:]
    return normalize_number(number.group()) if number and rest.strip() in ("", ".") else mark  # (`8...` goes on)


def extract_hash_answer(text) -> str | None:
    """The one answer after `####` (tiny tasks, GSM8K), normalised; None if absent, or if several differ (00).

    >>> extract_hash_answer("3+4=7\\n#### 7")
    '7'
    >>> extract_hash_answer("The total is 1,200.\\n#### 1,200")
    '1200'
    >>> extract_hash_answer("#### 3\\n#### 4") is None  # a hedge: two different answers
    True
    """
    return one_answer(hash_answers(text))


_BOX = re.compile(r"\\(?:boxed|fbox|framebox)(?![A-Za-z])\s*(\{)?")  # `\boxed {6}` is a box; `\boxed 6` one unread
_BRACE = re.compile(r"[{}]")


def boxed_answers(text) -> list[str | None]:
    """The content of every `\\boxed{...}` or `\\fbox{...}`, braces balanced, in order (None for one left open or
    longer than MAX_TAGGED characters); [] when there is none. A box inside a box is part of its content.

    >>> boxed_answers(r"\\boxed{1} or \\fbox{\\frac{1}{2}}"), boxed_answers(r"\\boxed{2")
    (['1', '\\\\frac{1}{2}'], [None])
    """
    if not isinstance(text, str):
        return []
    if text.count("\\boxed") + text.count("\\fbox") + text.count("\\framebox") > MAX_MARKS:
        return [None]
    answers, position = [], 0
    while (box := _BOX.search(text, position)) is not None:
        depth, position = 1, box.end()
        if box.group(1) is None:  # `\boxed 6`: LaTeX boxes the next token; a box no one should guess at
            answers.append(None)
            continue
        for brace in _BRACE.finditer(text, box.end(), box.end() + MAX_TAGGED + 1):
            depth += 1 if brace.group() == "{" else -1
            if depth == 0:
                answers.append(text[box.end():brace.start()].strip())
                position = brace.end()
                after = _plain(text[position:position + 160])
                named = _VARIABLE.match(answers[-1]) or _VARIABLE_BEFORE.search(text[max(0, box.start() - 12):box.start()])
                alternative = _other_alternative(after, answers[-1], named and named.group(1))
                if alternative is not None or _QUALIFIED_BOX.match(after) or _hedged_inside(answers[-1]) or \
                        _withdrawn(text, position, answers[-1]):  # `\boxed{7}. Wait, that's wrong.`: none
                    answers.append(None)  # `\boxed{7} (maybe 8)`, `\boxed{7} or 8`, `\boxed{7} (about)`: a second answer
                break
        else:
            answers.append(None)
    return answers


_NUMBER_AND_WORDS = re.compile(rf"\s*([-+]?\d[\d,]*(?:\.\d+)?)\s*{_LATEX_WORD.pattern}\s*")  # `7 \text{ (8)}`


def _hedged_inside(content: str) -> bool:
    """Whether a box's number is followed, inside the box, by words that offer another value (`7 \\text{ (8)}`, `7
    \\text{ (or 8)}`); `8 \\text{ cm}` and `7 \\text{ (7)}` offer none."""
    inside = _NUMBER_AND_WORDS.fullmatch(content)
    return bool(inside) and _other_alternative(inside.group(2), inside.group(1)) is not None


def extract_boxed(text) -> str | None:
    """Content of the one `\\boxed{...}` or `\\fbox{...}` answer, braces balanced; None if absent, left open, or if
    several boxes differ.

    >>> extract_boxed(r"so \\boxed{\\frac{1}{2}}.")
    '\\\\frac{1}{2}'
    >>> extract_boxed(r"\\boxed{1} or \\boxed{2}") is None
    True
    """
    return one_answer(boxed_answers(text))


_LABEL_BOLD = r"(?:\*\*|__)?"  # Markdown bold around an answer label: `**Answer:** (B)`, `**Answer**: (B)`
_NEXT_LINE = (r"(?:[ \t]*\r?\n){1,2}[ \t]*"  # `Answer:\n(B)`, `The answer is:\n\n(B)`: the option alone on its line
              r"(?=\(?[A-Ga-g]\)?[ \t]*\.?[ \t]*(?:\r?\n|\Z))")  # (not a list of options: `answer:\n(A) Alice has...`)
_LETTER = (r"(?:\(?[A-G]\)?(?![A-Za-z])|\([a-g]\)"  # `B`, `(B)`, `(b)`; a lower-case letter in parentheses or alone:
           r"|[a-g](?=[ \t]*[.!]?[ \t]*(?:\r?\n|\Z)|[.!]\s))")  # `is d.`, not a word (`is a bit`, `is e.g.`)
_STATED = re.compile(  # "answer is (B)", "answer is: C"; a list after it ("(A) or (B)", "A, not $B$") is read whole
    rf"(?i:answer){_LABEL_BOLD}(?:\s+(?i:is):?|:|\s*[\u2013\u2014]){_LABEL_BOLD}(?:{_NEXT_LINE}|[ \t]*)"
    rf"(?i:option\s+)?({_LETTER}"
    r"(?:\$?(?:\s*(?:[-\u2013\u2014(\[]\s*)?(?:,|/|\||&|;|\+|\u2228|\\lor|\\vee|\\text\{\s*or\s*\}|(?i:\b"
    rf"{_CORRECTION}|\bor\b|\band\b|\bvs\b\.?|\b(?:{_CONTRAST})"
    r"|\bversus\b|\bmaybe\b|\bperhaps\b|\bpossibly\b|\bprobably\b|\beven\b|\belse\b|\balternatively\b)))+"
    rf"\s*\$?{_LETTER}|[ \t]*\([A-Ga-g]\)(?![A-Za-z]))*)")
# an option offered after a stated answer (`(A), i.e. option (B)`, `(A), that is, (B)`, `(A)\n(B)`, `(A). Actually, (B).`,
# `(A). Alternatively, (B).`,
# `(A).\nThough (B) is also plausible.`, `(A).\nCorrection: (B)`, `The correct option is (B).`, `The answer would be (B).`)
# an option alone on the next line (`\n(B)`, `\nB`, `\n**(B)**`), not a list of options (`\n(A) Alice has ...`)
_OPTION_ON_NEXT_LINE = r"\.?[ \t]*+\n\s*+(?=(?:\*\*)?\(?[A-G]\)?(?:\*\*)?[ \t]*+\.?[ \t]*+(?:\n|$))"
# a correction offering an option that ends its line: `(A).\nWait, actually it's (B).`, `(A). Oops, it should be B.`
_OPTION_CORRECTED = (rf"[.,;:]?\s*+(?:{_CORRECTING})++{_SO_THEN}{_I_THINK}{_CORRECTED_TO}?(?:option[ \t]++)?"
                     r"(?=\(?[A-G]\)?(?:[ \t]*+[.!]?[ \t]*+(?:\n|$)|[ \t]++is[ \t]++(?:the[ \t]++)?(?:right|correct)\b))")
# a retraction, then the option replacing it that ends its line: `(A). Wait, that's not right. Let me redo it: (B).`
_OPTION_RETRACTED = (rf"[.,;:]?\s*+(?:{_CORRECTING})*+{_RETRACTED}{_REDONE}{_I_THINK}{_CORRECTED_TO}?(?:option[ \t]++)?"
                     r"(?=\(?[A-G]\)?[ \t]*+[.!]?[ \t]*+(?:\n|$))")
_OPTION_AFTER = re.compile(
    r"(?i)[ \t]*+(?:[.,;:]?\s*+(?:i\.\s?e\.?|that\s++is|actually|alternatively|(?:though|but|however)(?=[ \t,]*+\(?[A-G]\)?(?:[ \t]*+"
    r"[.!]?[ \t]*+(?:\n|$)|[ \t]++(?:is|was|would\s++be|could\s++be|might\s++be)\s++also\b|[ \t]++also\b))|correction|"
    r"the\s++(?:correct|right|"
    r"final)\s++(?:option|answer|choice)\s++is|the\s++answer\s++(?:would|should|must|could|might|may|will)\s++be)\b\.?"
    rf"[ \t]*+[,:]?[ \t]*+(?:option[ \t]++)?|{_OPTION_ON_NEXT_LINE}|{_OPTION_CORRECTED}|{_OPTION_RETRACTED})"
    r"(?-i:\(([A-G])\)|([A-G])(?![A-Za-z]))")
_INLINE_MATH = re.compile(r"\\[()]")  # LaTeX's inline math delimiters `\\(` and `\\)`
_STATED_OPTION = re.compile(r"(?<![A-Za-z.])[A-Ga-g](?![A-Za-z])")  # each option in a stated list (`(B) or (d)`; not i.e.'s e)


# an option in spaced parentheses or in square brackets (`( B )`, `[B]`): that option, `(B)`
_BRACKETED_OPTION = re.compile(r"\([ \t]*+([A-Ga-g])[ \t]*+\)|\[[ \t]*+([A-Ga-g])[ \t]*+\]")
# an option rejected right after the one given (`(B), not (A)`, `B; not A`, `(B) (not (A))`, `(B) rather than (A)`, `(B), but not (A) or (C)`):
# a negation, no second answer (`(B) or (A)`, `(B), i.e. (A)` stay two)
_REJECTED_OPTION = re.compile(r"(?:(?<=[(\s][A-G]\))|(?<=\b[A-G]))[ \t]*+[,;(\u2014\u2013]?[ \t]*+(?:(?i:but|and)[ \t]++)?"
                              r"(?i:not|rather[ \t]++than|instead[ \t]++of)[ \t]++(?:(?i:option)[ \t]++)?\(?[A-G]\)?(?![A-Za-z])"
                              r"(?:[ \t]*+(?:,|(?i:or|nor|and))[ \t]*+(?:(?i:option)[ \t]++)?\(?[A-G]\)?(?![A-Za-z]))*+")


_TEXT_COMMAND = r"\\(?:text|textrm|textit|textbf|textnormal|mathrm|mbox|operatorname)\s*"  # as _LATEX_WORD reads them
_DRESSED_OPTION = re.compile(  # \boxed{B}, \boxed{\text{(B)}}, \fbox{\textbf{B}}, **B**: an option
    rf"\\(?:boxed|fbox)\s*\{{\s*(?:\(?([A-G])\)?|{_TEXT_COMMAND}\{{\s*\(?([A-G])\)?\s*\}})\s*\}}|\*\*\(?([A-G])\)?\*\*")


def option_answers(text, stated_only: bool = False) -> list[str]:
    """The BBH options a completion gives as its answer: each one it states after 'answer is' (a list there gives
    each of its options), else every `(A)`..`(G)` it writes; as '(X)', in order. A boxed or bold letter
    (`\\boxed{B}`, `**B**`, as chat models write by habit) is that option, and one written after a stated answer
    is another answer (`the answer is (A). Final answer: **B**` gives both: a hedge). A stated letter in lower case
    is that option when it stands alone (`the answer is (e)`, `answer: e.`; not `the answer is a bit`). `stated_only`:
    only those stated after 'answer is'.

    >>> option_answers("So the answer is (B). (C) was first."), option_answers("the answer is (A) or (B)")
    (['(B)'], ['(A)', '(B)'])
    >>> option_answers("(A) (B) (C) (D) (E) (F) (G)")
    ['(A)', '(B)', '(C)', '(D)', '(E)', '(F)', '(G)']
    >>> option_answers(r"So the answer is \\boxed{B}."), option_answers("So the answer is (A). Final: **B**")
    (['(B)', '(B)'], ['(A)', '(B)'])
    >>> option_answers("So the answer is (e)."), option_answers("The answer is a bit long: (C) then (D).")
    (['(E)'], ['(C)', '(D)'])
    """
    if not isinstance(text, str):
        return []
    text = text.translate(_FULLWIDTH)  # fullwidth letters and brackets (`（Ｂ）`) are the ASCII ones
    dressed = [next(filter(None, match.groups())) for match in _DRESSED_OPTION.finditer(text)]
    text = _plain(_DRESSED_OPTION.sub(lambda match: f"({next(filter(None, match.groups()))})", text))
    text = _INLINE_MATH.sub("", text)  # `The answer is \\(\\text{D}\\).`: the letter, as `$(D)$` reads
    text = _REJECTED_OPTION.sub("", _BRACKETED_OPTION.sub(r"(\1\2)", text))  # `( B )`, `[B]`; `(B), not (A)` gives (B)
    stated = [match for match in _STATED.finditer(text) if not _a_trial(text, match.start())]  # not `If the answer is (D)`
    if len(stated) > MAX_MARKS:  # the answers stated, not every "answer" a reasoning writes ("each answer", "answers")
        return [None]
    stated = [_stated_options(text, match) for match in stated]
    if None in stated:  # one withdrawn (`The answer is (A). Wait, that's wrong.`): no answer stands
        return [None]
    if stated_only and not stated:  # `stated_only`: options only mentioned (`(C) was first`) are no answer
        return []
    letters = [letter.upper() for span in stated for letter in _STATED_OPTION.findall(span)] + dressed if stated else \
        _OPTION.findall(text)
    last = None if stated else _last_match(_OPTION, text)  # `(A). That's wrong.`: the only option withdrawn
    withdrawn = last and _withdrawn(text, last.end(), last.group())
    return [f"({letter})" for letter in letters] + ([None] if withdrawn else [])


def _stated_options(text: str, match: re.Match) -> str | None:
    """The options a `_STATED` answer gives, with those offered right after it (`_options_after`); None when it is
    withdrawn (`The answer is (A). Wait, that's not right.`, `_withdrawn`)."""
    offered = _options_after(text, match.end())
    return None if not offered and _withdrawn(text, match.end(), match.group(1)) else match.group(1) + offered


def _last_match(pattern: re.Pattern, text: str) -> re.Match | None:
    """The last match of `pattern` in `text`, or None."""
    last = None
    for last in pattern.finditer(text):  # noqa: B007 (the loop keeps the last)
        pass
    return last


def _options_after(text: str, position: int) -> str:
    """The options offered right after a stated answer that ends at `position`, each as ` (X)` (`, i.e. option (B)`,
    `.\nCorrection: (B)`, `\n(B)` alone on its line), read on past each; '' for none."""
    offered = ""
    while (option := _OPTION_AFTER.match(text, position)) is not None:
        offered, position = offered + f" ({option.group(1) or option.group(2)})", option.end()
    return offered


def extract_option(text) -> str | None:
    """The one option a completion gives as its answer (BBH), as '(X)': the option stated after 'answer is' (`(B)`
    or bare `B`), else the only `(A)`..`(G)` it writes; None if absent, or if several differ.

    >>> extract_option("So the answer is (B). Alice had (C) first."), extract_option("Alice has (C)."), extract_option("B")
    ('(B)', '(C)', None)
    >>> extract_option("(A) (B) (C) (D) (E) (F) (G)"), extract_option("So the answer is (A) or (G).")
    (None, None)
    """
    return one_answer(option_answers(text))


def tagged_answers(text) -> list[str | None]:
    """The content of a completion's `<answer>` tag as a list ([] without one; several tags are one unreadable
    answer, [None]): the same shape as the other formats' lists."""
    if not isinstance(text, str) or "<answer>" not in text:
        return []
    answer = extract_tagged(text)
    answer = answer and _unwrapped(answer)  # `<answer>\\boxed{42}</answer>`, `<answer>$42$</answer>`: 42
    end = answer and text.index("</answer>", text.index("<answer>")) + len("</answer>")
    alternative = answer and _alternative_after(text[end:end + 160], answer)  # `<answer>7</answer> or 8`: another answer
    withdrawn = answer and not alternative and _withdrawn(text, end, answer)  # `... I was wrong.`: none
    return [answer] + ([alternative] if alternative else [None] if withdrawn else [])


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


def one_answer(answers: list) -> str | None:
    """The answer a completion marks, from all it marks: None when it marks none, one that cannot be read, or
    several that differ (a hedge).

    >>> one_answer(["7", "7"]), one_answer(["3", "4"]), one_answer([]), one_answer([None])
    ('7', None, None, None)
    """
    distinct = set(answers)
    return distinct.pop() if len(distinct) == 1 else None


def extract_integer(text) -> str | None:
    """An AIME-style integer answer: the one marked (boxed, after `####`, in a tag), else the one stated last (`The
    answer is 204.`, then a check line's numbers), else the last number written.

    Marked answers that differ (`\\boxed{1}` and `\\boxed{2}`, a box and a `####` that disagree) give None. A marked
    or last number that is not an integer (`\\boxed{2.5}`) is returned as written: it is the answer given, and it
    equals no AIME answer (an integer), so a later integer in the text is not credited instead.
    """
    marked = _integer_marks(text)
    if marked:
        return one_answer(marked)
    tail = _MODULUS.sub("", _plain(_tail(text)))  # `N \\equiv 16 \\pmod{1000}`: 16, not the modulus
    stated = _stated_answer(tail)
    if stated:
        return stated[0]
    numbers = list(_NUMBER.finditer(tail))
    if not numbers:
        return None
    last = numbers[-1]
    before, after = tail[:last.start()], tail[last.end():]
    if after[:1] and unicodedata.category(after[:1]) == "No":  # `12½`, `12³`: not the integer 12
        return None
    if _INSIDE_AN_EXPRESSION.search(before) or re.search(r"\bnot\s*$", before) or \
            re.match(r"\s*(?:[/^]|[eE]\d)|\s*(?:is\s+|was\s+)?(?:wrong|incorrect|not)\b", after) or \
            _AIME_SCALE.match(after):  # `12 thousand`, `12 squared`: another number
        return None  # part of `1/13`, `2^{13}`, `\sqrt{13}`, `13e2`; `13 is wrong`, `not 13`: not the integer stated
    if len(numbers) > 1 and _HEDGE_BETWEEN.fullmatch(tail[numbers[-2].end():last.start()]):
        return None  # `12 or 13`, `12, 13`, `13 (or maybe 12)`: two candidates
    sign = "-" if before.rstrip().endswith("\u2212") else ""  # a typeset minus sign
    return normalize_number(sign + last.group())


def _stated_answer(text: str) -> list[str | None]:
    """AIME's answer stated by the last label in an unmarked text, read as a mark (`The answer is 204.` beats the numbers
    of a check line after it; `The answer is 12, since ...` states 12): [its number], [None] when it states several or a value is offered right after it (`The
    answer is 8, i.e. 7.`, `The answer is 204.\\nActually, 205.`), [] when no label states a number."""
    labels = [label.start() for label in _STATED_LABEL.finditer(text) if not _a_trial(text, label.start())]
    stated = (_stated_numbers(text[labels[-1]:]) or _stated_before_a_clause(text, labels[-1])) if labels else []
    if not stated:
        return []
    answer, number = one_answer(stated), _NUMBER.search(text, labels[-1], labels[-1] + 200)
    offered = number and answer and _alternative_after(text[number.end():number.end() + 160], answer)
    return [None if offered else answer]


# a number a label's sentence starts with, then a clause about it: `12, since ...`, `12 (there are 5 cases)`, `12 and the
# remainder is 7`, `17, from 5 + 12` (not `12, 13`, `12/13`, `12 thousand`, `12 (13 if ...)`)
_BEFORE_A_CLAUSE = re.compile(r"(?:\*\*|\$)?([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?:\*\*|\$)?(?=,\s+[^\W\d_]"
                              r"|\s+\((?![ \t]*[-+\d])[^()\n]*[^\W\d_]"
                              r"|\s+(?i:and|since|because|from|as|which|where|with)\b)")


def _stated_before_a_clause(text: str, start: int) -> list[str]:
    """The number stated by the label at `text[start:]` when a clause about it follows (`The answer is 12, since ...`,
    `**Final answer:** 12 (there are 5 cases)`): [it]; [] for any other sentence."""
    label = _STATED_LABEL.match(text, start)
    lead = label and _BEFORE_A_CLAUSE.match(text, label.end())
    return [normalize_number(lead.group(1))] if lead else []


def _integer_marks(text) -> list[str | None]:
    """Every answer an AIME completion marks (boxed, after `####`, in a tag), each read as a `####` mark is
    (`\\boxed{12 \\text{ ways}}` and `\\boxed{+12}` are 12); None for one that cannot be read."""
    hashes = [answer for answer in hash_answers(text) if answer is None or not _heading(answer)]
    return [None if answer is None else _mark_value(_plain(answer))
            for answer in boxed_answers(text) + hashes + tagged_answers(text)]


# a modulus written after a congruence (`\\pmod{1000}`, `(mod 1000)`, `(\\bmod 1000)`): no answer of its own
_MODULUS = re.compile(r"[ \t]*(?:\\pmod\s*\{\s*\d+\s*\}|\(\s*(?:\\b?mod|mod|modulo)\s*\{?\s*\d+\s*\}?\s*\))")
_INSIDE_AN_EXPRESSION = re.compile(r"(?:(?:[/^_]\{?|\\sqrt(?:\[[^\]]*\])?\{|\\[dt]?frac\{[^{}]*\}\{)\s*|[A-Za-z]"
                                   r"|[\d)}]\s*(?:[-+*\u00d7\u00b7\u2212|&]|\\times|\\cdot|\\pm|\\mp)\s*"
                                   r"|\d\s+(?:x|times|plus|minus|mod|over|divided\s+by)\s+|\\binom\{[^{}]*\}\{\s*"
                                   r"|\\(?:log|ln|lg|sin|cos|tan)(?:_\{?\w+\}?)?\s*|[\d)]\s*\(\s*)$")  # `2 \times 13`
# a word after AIME's last number that makes it another number (`12 thousand`, `12 million`, `12 squared`); a qualifier
# (`about 12`, `12%`) is read by design (docs/bad_inputs.md)
_AIME_SCALE = re.compile(r"(?i)\s*(?:thousand|million|billion|trillion|hundred|dozen|squared|cubed|lakh|crore)s?\b")
_HEDGE_WORD = r"(?:maybe|perhaps|possibly|probably)"
_CONNECTOR = (rf"(?:{_CORRECTION}|,|;|/|\||&|\u2228|\\lor|\\vee|\\text\{{\s*or\s*\}}|or|else|and|to|"
              rf"alternatively|\.\.\.|\u2026|{_CONTRAST})")  # between AIME's last two numbers: `12 or 13`, `12 rather than 13`
_NUMBER_WORD = (r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
                r"thousand|million|billion|dozen)")
_WORDS = rf"{_NUMBER_WORD}\b(?:[ \t-]+(?:and[ \t]+)?{_NUMBER_WORD}\b){{0,8}}"  # `eight`, `twenty-one`, `one hundred and five`
# a number in words offered as an answer, a vague or a signed one too: `six`, `a dozen`, `half a thousand`, `a few
# thousand` (no one number: it restates none), `minus seven`; not the start of a phrase (`or one of them`)
_QUANTITY = (rf"(?:(?:minus|negative)\s+)?(?:(?:half|a\s+few|a\s+couple\s+of|several|many)\s+)?(?:an?\s+)?{_WORDS}"
             r"(?![ \t]+(?:of|more|less|other|another|can|could|may|might|must|should|would|will|needs?|gets?|finds?"
             r"|sees?|checks?|notes?|obtains?|verif(?:y|ies)|computes?|counts?|uses?)\b)")  # `one could`: a pronoun
# a connector after a box, then a second answer: `\boxed{5} or 6`, `\boxed{5}. Alternatively, $\frac{1}{2}$.`,
# `\boxed{5}. It might be 6.`, `\boxed{5}, though it could also be \(6\)`, `\boxed{5} or six`, `\boxed{5} or −6`,
# `\boxed{8}, not 7`, `\boxed{5} vs \[6\]`, `\boxed{5} or x=6`, `\boxed{5} or **6**`, `\boxed{7} or minus 7`
_AFTER_A_BOX = (rf"(?:{_CORRECTION}|or|else|otherwise|\u2228|\\lor|\\vee|alternatively|{_CONTRAST}|that\s++is\b"
                rf"|namely\b)")  # `, that is, 8`, `namely 8`
# what a connector offers: math first (`$x = 6$`, `\(6\)`, `\[6\]`, `$2x$`), bold (`**6**`), a number (`6`, `$6`, `.5`,
# `x = 6`, `minus 6`), a fraction or a root (`\frac{1}{2}`), a number in words (`six`, `a dozen`)
_OFFERED = (r"(?:\$([^$\n]{1,80})\$|\\\((.{1,80}?)\\\)|\\\[((?s:.){1,80}?)\\\]|\*\*([^*\n]{1,80})\*\*"
            r"|\$*\s*((?:[a-z]\s*=\s*)?(?:(?:minus|negative)\s+)?[-\u2212]?\.?\d[\d,]*(?:\.\d+)?)"
            rf"|(\\[dt]?frac\{{[^{{}}]*\}}\{{[^{{}}]*\}}|\\sqrt\{{[^{{}}]*\}})|\b({_QUANTITY})\b)")
# (each run of spaces is read possessively, `\s*+`: what follows it never starts with a space, so no other split of the
# run could match, and trying every split took cubic time on a mark followed by many blank lines)
_HEDGE_AFTER_A_BOX = re.compile(rf"(?i)\s*+\$*+\s*+[.,;(\[\u2014\u2013-]?\s*+(?:(?:{_AFTER_A_BOX}(?:\s*+,)?\s*+)+"
                                rf"(?:{_HEDGE_WORD}|even\b)?|{_HEDGE_WORD})\s*+{_OFFERED}")  # `or even 8`
# `Wait, 8.`, `Actually, it's 8.`, `Oops, it should be 8.` after a mark: a correction offering a value that ends its
# line (`Wait, 16 - 3 = 13, so ...`, `Actually, let me check: ...` are working)
_CORRECTED_AFTER = re.compile(rf"(?i)\s*+\$*+\s*+[.,;]?\s*+\(?(?:{_CORRECTING})++{_SO_THEN}{_I_THINK}{_CORRECTED_TO}?"
                              rf"{_OFFERED}(?=[ \t]*+[.!]?\)?[ \t]*+(?:\n|$)|,?[ \t]++(?:since|because)\b"  # or its reason after
                              r"|[ \t]++is[ \t]++(?:the[ \t]++)?(?:right|correct)\b)")  # `Actually, 14 is correct.`
# a retraction after a mark, then another value (`Wait, that's not right. Let me redo it: $x = 4$.`, `That's wrong, so
# it's 4.`, a bare calculation reaching it, `Redo: 2 + 2 = 4.`): the retracted mark and the value that replaces it are
# two answers; a check (`Wait, let me verify: 3 + 0 = 3. Yes.`) retracts nothing, and a redo that reaches the mark's
# own value restates it
_WORKING = r"(?:\d[\d,.]*+[ \t]*+(?:[-+*/^\u00d7\u00b7\u00f7]|\\times|\\cdot)[ \t]*+)++\d[\d,.]*+[ \t]*+=[ \t]*+"  # `2 + 2 = `
_RETRACTED_AFTER = re.compile(rf"(?i)\s*+\$*+\s*+[.,;\u2014\u2013]?\s*+\(?(?:{_CORRECTING})*+{_RETRACTED}{_REDONE}{_I_THINK}"
                              rf"{_CORRECTED_TO}?(?:{_WORKING})?{_OFFERED}(?=[ \t]*+[.!]?\)?[ \t]*+(?:\n|$))")
# a retraction right after a mark that ends its clause (`\boxed{3}. Wait, that's not right.`, `#### 3\nHmm, that's
# wrong.`, `\boxed{3} — that's wrong.`, `I was wrong.`): the mark withdrawn (`_withdrawn`); not `I was wrong at first,
# but ...`, `it's wrong to ...`
_WITHDRAWN = re.compile(rf"(?i)\s*+\$*+\s*+[.,;\u2014\u2013]?\s*+\(?(?:{_CORRECTING})*+{_RETRACTION}"
                        r"(?=[ \t]*+(?:[.!;,:)\u2014\u2013]|\n|$))")
# on the line after a mark, `and` or `=` offers a value too (`#### 7\nand 8`, `#### 7\n= 8`); on its line `and` is prose
_LINE_AFTER = re.compile(rf"(?i)\$*+[ \t]*+[.,;]?[ \t]*+\n\s*+(?:and\b|=)\s*+{_OFFERED}")
# a number alone in parentheses after a mark, at its line's end: `\boxed{7} (8?)`, `#### 7\n(8)`
_PAREN_AFTER = re.compile(r"\s*+\$*+\s*+\(\s*+([-\u2212]?\d[\d,]*(?:\.\d+)?(?:/\d+)?)\s*+\??\s*+\)(?=[ \t]*+[.,;!?]?[ \t]*+(?:\n|$))")
# another answer statement on the line after a mark: `#### 7\nThe result is 8.`, `\nFinal: 8`, `\nAns: 8`, `\nCorrection: 8`,
# `\nAnswer 8`, `\nThe answer would be 8.` (`The answer is ...` and `Answer: ...` are read whole by `_stated_numbers`)
_LABEL_AFTER = re.compile(r"(?i)\$*+[ \t]*+[.,;]?[ \t]*+\n\s*+(?:\*\*)?(?:the[ \t]++)?(?:final[ \t]++|corrected[ \t]++)?"
                          r"(?:(?:result|ans|final|correction)\b(?:\*\*)?(?:[ \t]++is\b|[ \t]*+[:=])?|answers?\b(?:[ \t]++(?:would|"
                          r"should|must|will|could|might|may)[ \t]++be\b)?)(?:\*\*)?[ \t]*+(?:(?:probably|actually|likely|perhaps|"
                          rf"maybe|possibly|instead|either)\b[ \t]*+)?(?=\S){_OFFERED}")
# a box qualified right after it: `\boxed{5} (about)`, `\boxed{5} (approx.)`
_QUALIFIED_BOX = re.compile(r"(?i)\s*+\$*+\s*+\(\s*+(?:about|approx\.?|approximately|roughly|nearly|around|almost|circa|ish|"
                            r"maybe|perhaps|probably|possibly|I\s+think|guess|unsure)\s*\)")


def _other_value(alternative: str, box: str, gloss: bool = False) -> bool:
    """Whether an alternative written after a box differs from it in value (`_offered_value`, then math-verify for a small
    expression); a gloss's relation with a calculation on its left (`i.e. $s^2 = 16$`) checks the box, and offers no
    value (`_checks_the_mark`), and so does a gloss that lists as many values as the box counts (`\\boxed{6}, i.e. $1, 2, 3, 4, 6, 12$`)."""
    if gloss and _checks_the_mark(alternative):
        return False
    if gloss and "," in alternative and str(len(_LISTED.findall(_plain(alternative)))) == _offered_value(box):
        return False  # what the box counts: `there are \boxed{4} primes, that is, $2, 3, 5, 7$`
    offered, marked = _offered_value(alternative), _offered_value(box)
    if offered == marked or (gloss and _offered_value(_PERCENT.sub(r"\1", _plain(alternative).strip())) == marked):
        return False  # a gloss's percentage may restate the mark's own number too (`#### 25\ni.e. 25%`, as `#### 25%` reads 25)
    small = all(_NUMERIC_EXPRESSION.fullmatch(text) and len(text) <= _SMALL_EXPRESSION for text in (offered, marked))
    return not (small and None in (exact_value(offered), exact_value(marked)) and math_equal(offered, marked))


def _checks_the_mark(relation: str) -> bool:
    """Whether a relation a gloss offers is a calculation that checks the mark (`i.e. $s^2 = 16$`, `i.e. $1024 \\equiv 10
    \\pmod{13}$`: a number on its left, no name), not a value given to a quantity (`s = 5`, `f(2) = 5`, `m + n = 5`)."""
    left = _RELATION_LEFT.match(_plain(relation))
    return bool(left) and bool(re.search(r"\d", left.group(1))) and not _NAME.fullmatch(left.group(1))


_RELATION_LEFT = re.compile(r"(.*?)(?:=|\\equiv(?![A-Za-z]))", re.S)  # the left side of `s^2 = 16`, `1024 \equiv 10`
_NAME = re.compile(r"\s*(?:[A-Za-z]+|\\[A-Za-z]+)(?:_\{?\w+\}?)?(?:\([^()]*\))?\s*")  # `x`, `x_1`, `\theta`, `area`, `f(2)`
_SMALL_EXPRESSION = 40  # characters: an offered expression this short and numeric is compared by value with math-verify
# a numeric expression (`10^4`, `6^2`, `\sqrt{8}`, `7\times2`): digits, operators, braces and LaTeX commands, no variable
_NUMERIC_EXPRESSION = re.compile(r"(?=[^\d]{0,40}\d)(?:\\[A-Za-z]{1,12}|[\d{}^()+\-*/.!])+")


def _offered_value(text: str) -> str:
    """An answer as it is compared with another: what follows its last `=` (`$x = 6$` is 6), a number in words as its
    digits, its unit dropped (`five apples` is 5), no spaces, and a number or a fraction as its exact value (`0.5`,
    `\frac{2}{4}` and `1/2` are all 1/2)."""
    plain = "".join(_mark_value(_in_digits(_plain(text).rsplit("=", 1)[-1]).strip()).split())
    percent = _PERCENT.fullmatch(plain)  # `75%`, `75\%`: 3/4
    exact = exact_value(percent.group(1)) / 100 if percent and exact_value(percent.group(1)) is not None else exact_value(plain)
    return plain if exact is None else str(exact)


_LETTER_AFTER = re.compile(rf"(?i)\s*+\$*+\s*+[.,;(\[\u2014\u2013-]?\s*+(?:(?:{_AFTER_A_BOX}(?:\s*+,)?\s*+)+{_HEDGE_WORD}?|"
                           rf"{_HEDGE_WORD})\s*+(?-i:\(?([A-G])\)?)(?![A-Za-z])")  # `#### D\nor E`, `\boxed{D} or (E)`


_LETTER_CORRECTED = re.compile(rf"(?i)[ \t]*+{_OPTION_CORRECTED}(?-i:\(?([A-G]))")  # `#### D\nWait, actually it's E.`
_LETTER_RETRACTED = re.compile(rf"(?i)[ \t]*+{_OPTION_RETRACTED}(?-i:\(?([A-G]))")  # `#### D\nThat's wrong. It's E.`
_LETTER_SHOWN = re.compile(rf"[ \t]*+{_OPTION_ON_NEXT_LINE}(?:\*\*)?\(?([A-G])")  # `#### A\n(B)`, `\nB`, `\n**(B)**`


def _other_alternative(after: str, mark: str, variable: str | None = None) -> str | None:
    """The first alternative written after a mark that differs from it, past any that restate it (`\\boxed{5} or $5$
    or $6$` offers 6) and any value of another variable than the one the mark names (`$x = \\boxed{2}$\n$y = 3$`);
    None when every one restates it, or there is none."""
    unit = _UNIT_AFTER.fullmatch(_plain(mark).strip())  # `5 \text{ hours}`: a value after it in another unit converts it
    offered = _next_offered(after, unit and unit.group(1))
    while offered:
        if offered[0] is not None and not _names_another(offered[0], variable) and \
                _other_value(offered[0], mark, offered[2]):
            return offered[0]
        after = after[offered[1]:]
        offered = _next_offered(after, unit and unit.group(1))
    return None


def _names_another(value: str, variable: str | None) -> bool:
    """Whether a value offered after a mark names another variable than the mark's (`y = 3` after `x = \\boxed{2}`)."""
    named = _VARIABLE.match(value)
    return bool(variable and named) and named.group(1) != variable


_VARIABLE = re.compile(r"\s*([A-Za-z])\s*=")  # the variable a value names: `y = 3`
_VARIABLE_BEFORE = re.compile(r"([A-Za-z])\s*=\s*$")  # the one named before a box: `x = \boxed{2}`
_UNIT = r"[^\W\d_]++(?:[ \t]++per[ \t]++[^\W\d_]++)?"  # a unit: `hours`, `dollars per day`
_UNIT_AFTER = re.compile(rf"[-+]?\d[\d,]*(?:\.\d+)?[ \t]++({_UNIT})")  # a number and its unit: `5 hours`


# a number shown right after a mark with no connector, ending its line: in math or bold (`#### 7\n\(8\)`, `$$8$$`,
# `\boxed{5}\n\[x = 6\]`, `**6**`), or alone on a line of its own (`$6$`, `6`); a `$` may close the math around a box
# and a full stop its sentence (`So $\boxed{7}$.\n\n$8$`)
_SHOWN_AFTER = re.compile(r"\$*[ \t]*+[.,;]?(?:\s*+(?:\\\((.{1,80}?)\\\)|\\\[((?s:.){1,80}?)\\\]|\$\$((?s:[^$]){1,80})\$\$"
                          r"|\*\*([^*\n]{1,80})\*\*)|[ \t]*+\n\s*+(?:\$([^$\n]{1,80})\$|([-\u2212]?\d[\d,]*(?:\.\d+)?)))"
                          r"(?=[ \t]*[.,;]?[ \t]*(?:\n|$))")
# where a value offered as a number after a mark ends (what it starts is read whole: `\boxed{3} or 3/4` offers 3/4, not
# 3; `or 7 thousand`, `or 2\sqrt{2}`, `or 12%`, `or 5!`, `or 7 \times 2` are other values): a sentence's end, a comma or a
# semicolon before a space, a bracket or a math delimiter closing, a bracket opened after a space, the end of its line,
# or the next connector (`or 3/4, or maybe 5`); `!` and `?` are read with it (`5!` is a factorial)
_OFFERED_END = re.compile(rf"(?i)\.(?=\s|$)|[,;](?=\s|$)|[)\]$]|\*\*|\\[)\]]|\n|(?<!\s)[ \t]++\(|"
                          rf"(?<!\s)\s++(?:{_AFTER_A_BOX}|{_HEDGE_WORD}|and|is\s++(?:the\s++)?(?:right|correct))(?![A-Za-z])|$")
_SHOWN_VALUE = re.compile(r"(?:[a-z]\s*=\s*)?[-\u2212]?(?:\d[\d,]*(?:\.\d+)?|\\[dt]?frac\{\d+\}\{\d+\}|\d+/\d+)")


# what offers a value after a mark: a connector (`or 8`, `, i.e. 8`), a correction (`Wait, 8.`), another label on the
# next line (`\nThe result is 8.`), `and` or `=` starting the next line; each ends in `_OFFERED`, the value
_OFFERING = (_HEDGE_AFTER_A_BOX, _CORRECTED_AFTER, _RETRACTED_AFTER, _LABEL_AFTER, _LINE_AFTER)


def _next_offered(after: str, unit: str | None = None) -> tuple[str | None, int, bool] | None:
    """The next answer offered at the start of `after`, where it ends and whether a gloss offers it (None: an explanation)."""
    hedge = next(filter(None, (pattern.match(after) for pattern in _OFFERING)), None)
    gloss = bool(hedge) and bool(_GLOSS.search(after, 0, hedge.start(hedge.lastindex or 0)))
    if hedge and hedge.group(5) is not None:  # a number: read on to the end of the value it starts (`or 3/4`, `or 5!`)
        end = _OFFERED_END.search(after, hedge.end()).start()
        rest = after[hedge.end():end]
        attached = re.match(r"\S*", rest).group()  # `3/4`, `5!`, `2x`: written on to the number
        word = re.match(rf"\s+({_UNIT}|\S+)", rest[len(attached):])  # then a word that changes it (`7 thousand`, `7 \times 2`),
        if word and not _changes_the_number(word.group(1)):  # or one that only describes it (`12 in words`, `12 eggs`)
            rest = attached
            if (gloss or unit) and not attached and word.group(1).lower() != (unit or "").lower():
                return None, end, gloss  # `120, i.e. 2 hours`, `5 hours, or 300 minutes`, `i.e. 3 more`: an explanation
        return (hedge.group(5) + rest).strip(), end, gloss
    if hedge:
        return next(group for group in hedge.groups() if group is not None), hedge.end(), gloss
    paren = _PAREN_AFTER.match(after)
    if paren:
        return paren.group(1), paren.end(), False
    shown = _SHOWN_AFTER.match(after)
    value = shown and next(group for group in shown.groups() if group is not None).strip()
    return (value, shown.end(), False) if shown and _SHOWN_VALUE.fullmatch(value) else None


# a connector that restates: `, i.e.`, `that is`, `namely` (not `that is not right`, a retraction)
_GLOSS = re.compile(r"(?i)i\.\s?e\b|\bthat\s++is\b(?!\s++(?:not|wrong|incorrect)\b)|\bnamely\b")


def _alternative_after(after: str, mark: str) -> str | None:
    """A second answer written right after a marked one, in the text `after` it, when it differs from `mark`: a
    connector, then a number, math or a number in words (`\boxed{5} or 6`, `#### 7\nor 8`, `#### 7\n(or maybe 8)`,
    `\boxed{5}, or rather 6`), or for an option letter another letter (`#### D\nor E`); None when there is none."""
    after = _plain(after)
    alternative = _other_alternative(after, mark)
    if alternative is not None:
        return alternative
    letter = re.fullmatch(r"\(?([A-G])\)?", mark.strip()) and (_LETTER_AFTER.match(after) or _LETTER_SHOWN.match(after)
                                                                        or _LETTER_CORRECTED.match(after)
                                                                        or _LETTER_RETRACTED.match(after))
    return letter.group(1) if letter and letter.group(1) != mark.strip().strip("()") else None


def _withdrawn(text: str, end: int, mark: str) -> bool:
    """Whether a mark ending at `text[end]` is withdrawn, so that it gives no answer: a retraction right after it
    (`_WITHDRAWN`: `\\boxed{3}. Wait, that's not right.`) that offers no value in its place (`Let me redo it: 4.`
    offers 4, `... 3.` restates the mark), and no later mark or answer statement (`\\boxed{4}`, `So the answer is 4.`)."""
    plain = _plain(text[end:end + 160])
    letter = re.fullmatch(r"\(?[A-G]\)?", mark.strip())
    return bool(_WITHDRAWN.match(plain)) and _next_offered(plain) is None and \
        not (letter and _LETTER_RETRACTED.match(plain)) and not _marked_after(text, end)


def _marked_after(text: str, start: int) -> bool:
    """Whether `text[start:]` states an answer (`The answer is`) or marks one (a tag, a box, a `####` that is no
    heading); read from `start` on, the text is never copied (a long completion retracts at most MAX_MARKS marks)."""
    return bool(_STATED_LABEL.search(text, start) or text.find("<answer>", start) >= 0 or _BOX.search(text, start)) or \
        any(not _heading(mark.group(1)) for mark in _HASH.finditer(text, start))


_NUMBER_WORDS = {word: value for value, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen".split())} | {word: 10 * value for value, word in enumerate(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
_WORDS_RUN = re.compile(rf"(?i)\b{_WORDS}")


def _words_value(words: str) -> str | None:
    """A number written in English words as its digits (`twenty-one` 21, `one hundred and five` 105, `two thousand
    five hundred` 2500, `two dozen` 24); None for words that make no one number (`seven eight`, `twenty thirty`)."""
    total = current = 0
    previous = ""
    for word in re.findall(r"[a-z]+", words.lower()):
        if word == "and":
            continue
        value = _NUMBER_WORDS.get(word)
        if value is not None:  # a unit, a teen or a ten: after a unit or a teen, or a ten after a ten, no number
            if previous == "unit" or (previous == "ten" and value >= 10):
                return None
            current, previous = current + value, "ten" if value >= 20 else "unit"
        elif word in ("hundred", "dozen"):  # `two dozen` is 24
            if previous not in ("", "unit") or current >= 100:
                return None
            current, previous = (current or 1) * (100 if word == "hundred" else 12), "hundred"
        else:  # thousand, million, billion
            if previous == "scale":
                return None
            total, current, previous = total + (current or 1) * _SCALES[word], 0, "scale"
    return str(total + current)


_A_SCALE = re.compile(r"(?i)\ban?[ \t]+(?=(?:hundred|thousand|million|billion|dozen)\b)")
_HALF = re.compile(r"(?i)\bhalf[ \t]+(?:of[ \t]+)?(\d+)\b")  # `half a thousand`, read `half 1000`: 500; `half of 100`
_SIGN_WORD = re.compile(r"(?i)^(\s*)(?:minus|negative)[ \t]+(?=\d)")  # `minus 7`: -7


def _in_digits(text: str) -> str:
    """A text with each number in words written in digits (`eight apples` is `8 apples`, `a dozen` 12, `half a
    thousand` 500, a leading `minus 7` -7; `seven eight` is kept)."""
    text = _WORDS_RUN.sub(lambda run: _words_value(run.group()) or run.group(), _A_SCALE.sub("one ", text))
    return _SIGN_WORD.sub(r"\1-", _HALF.sub(lambda half: str(Fraction(int(half.group(1)), 2)), text))
_HEDGE_BETWEEN = re.compile(rf"(?i)\s*+[.(\[\u2014\u2013-]?\s*+(?:(?:{_CONNECTOR}\s*+)+{_HEDGE_WORD}?|{_HEDGE_WORD})\s*+")


# a relation, a correction or an approximation; `=` is read apart (`_relation`)
_RELATION = re.compile(r"\\(?:to|implies|impliedby|iff|Rightarrow|rightarrow|Longrightarrow|Leftrightarrow|"
                       r"Longleftrightarrow|leftrightarrow|mapsto|equiv|approx|sim|simeq|cong|ne|neq|not|cancel|bcancel|"
                       r"xcancel|sout|le|leq|ge|geq|lt|gt)(?![A-Za-z])|[<>\u2248\u2260\u2192\u21d2\u2261\u21d4]")
_NUMBER_SIDE = re.compile(r"\s*-?(?:\d[\d.,\s]*|\\[dt]?frac\{-?\d+\}\{\d+\})\s*")


def _relation(text: str) -> bool:
    """Whether a MATH answer states a relation rather than a value: a relation symbol, or `=` with a number on its
    left (`6 = 5`); `x = 5`, `x_1 = 5`, `f(x) = 2x+1` name what they give."""
    return bool(_RELATION.search(text)) or ("=" in text and bool(_NUMBER_SIDE.fullmatch(text.split("=", 1)[0])))


_DISJUNCTION = re.compile(r"\\(?:lor|vee)(?![A-Za-z])|(?i:\bor\b|\balternatively\b|\b(?:maybe|perhaps|possibly|probably)\b)"
                          r"|(?i:\b(?:if|when|unless|otherwise|approx|approximately|roughly|about|likely|estimate[ds]?)\b)"
                          r"|(?i:\b(?:nearly|around|almost|circa|except|guess|unsure|ish)\b|\bI\s+think\b)"  # `5 \text{ (nearly)}`
                          r"|\?|\\(?:[lc]?dots[cbmio]?|mathellipsis|textellipsis)(?![A-Za-z])|\u2026|\.\.\.|\.\s+\.\s+\."  # `5?`, `5 \dotsc`, `5 . . .`
                          r"|^(?!.*\\begin).*\\\\", re.S)


_BASE_NUMBER = re.compile(r"(-?)([0-9A-Za-z]+)_\{?(\d{1,2})\}?")  # `52_8`, `4210_{5}`, `\text{A5}_{11}`, `-37_8`


def _in_base(text: str, plain_integer: bool = False) -> tuple[int, int] | None:
    """A number written in a base (`52_8`, `4210_{5}`) as (its value, its base); with `plain_integer`, a plain integer
    (`42`) as (42, 10); None for anything else (`x_1`, `\\log_2 8`)."""
    compact = "".join(_plain(text).replace("$", "").split()).rstrip(".")
    written = _BASE_NUMBER.fullmatch(compact)
    if written and 2 <= int(written.group(3)) <= 36:
        sign, digits, base = written.group(1), written.group(2), int(written.group(3))
        try:
            return (-1 if sign else 1) * int(digits, base), base
        except ValueError:  # `x_2`: no digits of base 2
            return None
    number = normalize_number(compact)
    return (int(number), 10) if plain_integer and re.fullmatch(r"-?\d{1,30}", number) else None


def math_equal(predicted: str | None, reference: str) -> bool:
    """Whether two MATH answers are equal: exact after normalisation, else math-verify (never eval). An answer that
    offers a choice (`1 \\lor 2`, `1 \\text{ or } 2`) equals no single-valued reference: math-verify would read
    one of them and score the hedge. Decimals are compared to 6 places (math-verify's default, which open GRPO
    graders keep): `3.1415926` equals `3.1415927`, and `0.333333` equals `\\frac{1}{3}`.

    >>> math_equal(r"1 \\lor 2", "2"), math_equal(r"1 \\text{ or } 2", "2")
    (False, False)

    A number in a base (`52_8`) equals only the same number in the same base (`52_{8}`), a base-10 one (`24_{10}`)
    a plain integer too:

    >>> math_equal("52_{8}", "52_8"), math_equal("52_9", "52_8"), math_equal("52", "52_8"), math_equal("24", "24_{10}")
    (True, False, False, True)
    """
    if predicted is None:
        return False
    predicted, reference = (_DASH_MINUS.sub("-", text) for text in (predicted, reference))  # `– 5`: math-verify's `- 5`
    based = _in_base(reference), _in_base(predicted)  # `52_8`: math-verify drops the subscript, so it is read here
    if based[0] or (based[1] and (based[1][1] != 10 or _in_base(reference, plain_integer=True))):
        return _in_base(predicted, plain_integer=True) == _in_base(reference, plain_integer=True)  # base and value
    if _DISJUNCTION.search(predicted) and not (_DISJUNCTION.search(reference) or "," in reference):
        return False
    if _relation(predicted) and not _relation(reference):
        return False  # `6 = 5`, `6 \to 5`, `x \approx 5`: math-verify reads the right side; `x = 5` is read below
    divides = ("\\mid", "\\vert", "\u2223")
    if any(bar in predicted and bar not in reference for bar in divides) or \
            (predicted.count("|") % 2 and "|" not in reference):
        return False  # `7 \mid 5`, `7 \vert 5`, `7 ∣ 5`, `2 | 3`: math-verify reads the number on the right
    if normalize_number(predicted) == normalize_number(reference):
        return True
    if len(predicted) > MAX_MATH_CHARS or len(reference) > MAX_MATH_CHARS:
        return False
    if threading.current_thread() is not threading.main_thread():
        return _math_verify_in_worker(predicted, reference)
    return _math_verify(predicted, reference)


_NUMERIC = re.compile(r"-?\d+(\.\d+)?")
_FRACTION = re.compile(r"-?\\[dt]?frac(?:\{(-?\d+)\}\{(\d+)\}|(\d)(\d))|(-?\d+)/(\d+)")  # \frac34 is 3/4


def _fraction(text: str) -> tuple[int, int, bool] | None:
    """A fraction's numerator, denominator and whether it is written with `\frac` (`\frac{3}{4}`, `\frac34`, `3/4`);
    None for anything else."""
    match = _FRACTION.fullmatch(text)
    if not match:
        return None
    numerator, denominator = next(pair for pair in (match.group(1, 2), match.group(3, 4), match.group(5, 6))
                                  if pair[0] is not None)
    return int(numerator), int(denominator), match.group(5) is None
_X_TERM = r"(?:[2-9]|[1-9]\d+)?x"  # 7x or x: never 0x or 1x
_LINEAR = re.compile(rf"-?{_X_TERM}(?:[+-][1-9]\d*)?|-?[1-9]\d*[+-]{_X_TERM}")


def is_numeric_answer(answer: str) -> bool:
    """Whether a MATH answer is a plain number (the numeric subset of arXiv 2604.06298)."""
    return bool(_NUMERIC.fullmatch(normalize_number(answer)))


_SPLIT_DIGITS = re.compile(r"\d[\s$]+\d")  # `1 1/2`, `5 6`, `5$6`: two numbers, never one
_SPACED_THOUSANDS = re.compile(r"-?\d{1,3}(?: \d{3})+")  # `1 692`: one number, its thousands set apart


def _solved_text(answer) -> tuple[str, bool]:
    """An answer without spaces or a leading `x=`, its number normalised, and whether it had the `x=`; digits that
    whitespace separates stay apart (`1 1/2` is no `11/2`), so such an answer is no number."""
    if _SPLIT_DIGITS.search(str(answer)) and not _SPACED_THOUSANDS.fullmatch(str(answer).strip()):
        return str(answer), False
    text = "".join(str(answer).split())
    solved = text.startswith("x=")
    return normalize_number(text[2:] if solved else text), solved


def in_simplest_form(answer: str) -> bool:
    r"""Whether an answer is written in simplest form: a number, a fraction in lowest terms (`x=` before either
    allowed), or a linear expression with one x term and a nonzero constant or none (no `0x`, no `1x`).

    tinymath's questions are expressions that math-verify evaluates (`47*36`, `\frac{1}{4}+\frac{3}{8}`), so a boxed
    copy of the question would equal its answer; a tinymath answer counts only in this form.

    >>> [in_simplest_form(a) for a in ("1692", "0.5", r"\dfrac{3}{4}", "7x + 5", "x=-2", "-x", "-8/11")]
    [True, True, True, True, True, True, True]
    >>> [in_simplest_form(a) for a in (r"\frac{6}{8}", "47*36", "3x+4x", r"\frac{5}{6}+\frac{3}{4}", "0x+12", "1x",
    ...                                "x=7x+5", "7x+0", r"-\frac{-3}{4}")]
    [False, False, False, False, False, False, False, False, False]
    """
    text, solved = _solved_text(answer)
    fraction = _fraction(text)
    if fraction:
        numerator, denominator, typeset = fraction
        twice_signed = typeset and text.startswith("-") and numerator < 0  # `-\frac{-3}{4}` (`-8/11`: its sign once)
        return denominator > 1 and math.gcd(numerator, denominator) == 1 and not twice_signed
    return bool(_NUMERIC.fullmatch(text) or (not solved and _LINEAR.fullmatch(text)))


def exact_value(answer) -> Fraction | None:
    r"""A number's or a fraction's exact value (`x=` allowed), None for anything else: tinymath compares these
    exactly, so `0.75` is `\frac{3}{4}` and `0.333333` is not `\frac{1}{3}`.

    >>> exact_value("0.75") == exact_value(r"\frac{3}{4}"), exact_value("0.333333") == exact_value("1/3")
    (True, False)
    >>> [exact_value(a) for a in (r"-\frac{3}{4}", r"\frac{-3}{4}", "-3/4", "x=-0.75", "x+1")]
    [Fraction(-3, 4), Fraction(-3, 4), Fraction(-3, 4), Fraction(-3, 4), None]
    """
    text, _ = _solved_text(answer)
    fraction = _fraction(text)
    if fraction:
        numerator, denominator, typeset = fraction
        sign = -1 if typeset and text.startswith("-") else 1  # `-\frac{3}{4}`
        return sign * Fraction(numerator, denominator) if denominator else None
    return Fraction(text) if _NUMERIC.fullmatch(text) else None


class _OutOfTime(BaseException):  # noqa: N818
    """A check ran past its CPU time (a BaseException, as math-verify's own timeout is, so that no `except
    Exception` in sympy or math-verify swallows it and runs on without a limit)."""


def _stop(signum, frame):
    raise _OutOfTime


def _math_verify(predicted: str, reference: str) -> bool:
    """math-verify's equivalence, each step limited to MATH_TIMEOUT seconds of CPU time (SIGVTALRM: the main thread
    only); math-verify's first call imports what it parses with, so it is made once before any limit."""
    from math_verify import parse, verify

    global _WARM
    if not _WARM:
        _WARM = bool(parse("$1$", parsing_timeout=MATH_BACKSTOP))
    previous = signal.signal(signal.SIGVTALRM, _stop)
    try:
        gold, guess = (_limited(parse, f"${text}$", parsing_timeout=MATH_BACKSTOP) for text in (reference, predicted))
        return bool(gold and guess and _limited(verify, gold, guess, timeout_seconds=MATH_BACKSTOP))
    except (Exception, _OutOfTime):  # math-verify can fail on odd LaTeX; an unparsable answer is wrong
        return False
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def _limited(step, *args, **kwargs):
    """`step(*args, **kwargs)`, stopped by _OutOfTime after MATH_TIMEOUT seconds of this process's CPU time."""
    signal.setitimer(signal.ITIMER_VIRTUAL, MATH_TIMEOUT)
    try:
        return step(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)


_WARM = False  # whether math-verify has parsed once in this process (its imports are done)
_WORKER: list = []  # the one helper process that checks MATH answers for threads other than the main one
_WORKER_LOCK = threading.Lock()


def _math_verify_in_worker(predicted: str, reference: str) -> bool:  # pragma: no mutate block (helper-process plumbing)
    """`_math_verify` in a helper process, where signal.alarm works; killed and replaced if it ever hangs.

    Without its timeout math-verify hangs on short inputs such as `9^{9^{9^{9}}}`, so a thread cannot call it directly.
    """
    with _WORKER_LOCK:
        if not _WORKER or _WORKER[0].poll() is not None or _WORKER[1] != os.getpid():  # none, dead, or a parent's
            root = str(REPOSITORY)
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
        answer = _read_line(process, MATH_BACKSTOP)  # the worker limits each step's CPU time; this, a hang's
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
    _math_verify("1", "2")  # math-verify's imports, done before "ready" so that no answer waits for them
    print("ready", flush=True)
    for line in sys.stdin:
        predicted, reference = json.loads(line)
        print("1" if _math_verify(predicted, reference) else "0", flush=True)


ANSWERS = {"hash": hash_answers, "boxed": boxed_answers, "tagged": tagged_answers, "option": option_answers}
MARKS = ("hash", "boxed", "tagged")  # formats that mark an answer explicitly (an option letter alone marks none)
EXTRACTORS = {"hash": extract_hash_answer, "boxed": extract_boxed, "tagged": extract_tagged, "option": extract_option}


def grader_fingerprint() -> str:
    """What grades a completion: this module's source and the versions of math-verify and what it compares with
    (a cached grade made by another grader is sampled again). Introduced in notebooks/01_difficulty_estimation.ipynb."""
    global _GRADER
    if _GRADER is None:
        verifiers = []
        for package in ("math-verify", "latex2sympy2_extended", "sympy"):  # sympy does math-verify's comparison
            try:
                verifiers.append(f"{package} {importlib.metadata.version(package)}")
            except importlib.metadata.PackageNotFoundError:
                verifiers.append(f"{package} none")
        source = open(__file__, "rb").read()
        _GRADER = hashlib.sha256(source + f"/{', '.join(verifiers)}".encode()).hexdigest()[:16]
    return _GRADER


_GRADER = None


def in_format(completion, answer_format: str) -> bool:
    """Whether a completion writes a final answer in `answer_format` at all (right, wrong or hedged): what format
    share counts.

    A `####` that marks only words and no number (`#### Final answer`) is a heading, as `is_correct` reads it.

    >>> in_format("so 3+4=7\\n#### 8", "hash"), in_format("The answer is 7.", "hash"), in_format("so (B).", "option")
    (True, False, True)
    >>> in_format("#### Final answer", "hash"), in_format("#### 7 or 8", "hash")
    (False, True)
    """
    if answer_format not in ANSWERS:
        raise ValueError(f"answer_format={answer_format!r} has no answer checker; formats: {', '.join(ANSWERS)}")
    return any(answer is not None and not (answer_format == "hash" and _heading(answer))
               for answer in ANSWERS[answer_format](completion))


# a mark that is a number in words (`eight`, `Answer: twenty-one`, `one hundred and five`): an answer, not a heading
_WORDS_NUMBER = re.compile(rf"(?i)(?:{_ANSWER_LABEL})?-?{_NUMBER_WORD}(?:[ \t-]+(?:and[ \t]+)?{_NUMBER_WORD}){{0,8}}[ \t]*\.?")
_HEADING_START = re.compile(r"(?i)\s*(?:step|part|case|method|approach|solution|stage|phase|section|round)\b")


def _heading(mark: str) -> bool:
    """A `####` mark that is a Markdown heading, no answer: words in lower case, and either no number
    (`Final answer`) or a heading's first word (`Step 1: add`, `Part 2`). Any other mark with words is an answer
    that reads as no number (`7 or 8`, `So the answer is 8`, `8km`): beside another answer, a hedge. Capital
    letters alone (`BE`) are a letter answer. A stated number (`Answer: 8`) was already read as that number
    (`_mark_value`). The one rule for every format's reading of `####`.

    >>> [_heading(m) for m in ("Final answer", "Step 1: add", "7 or 8", "So the answer is 8", "8km", "BE", "8", "")]
    [True, True, False, False, False, False, False, False]
    >>> [_heading(m) for m in ("eight", "Answer: twenty-one", "one hundred and five", "One more check", "and")]
    [False, False, False, True, True]
    """
    words = bool(_WORD.search(mark)) and any(character.islower() for character in mark)
    number = re.search(r"\d", mark) or _WORDS_NUMBER.fullmatch(mark)  # `8`, `eight`: a number, in digits or words
    return words and (not number or bool(_HEADING_START.match(mark)))


MISSING_MARKS = ("", "NA", "NaN", "nan", "N/A", "null", "None", "<NA>", "NaT")  # a missing value written as text


def is_missing(answer) -> bool:
    """Whether a reference answer is missing: None, blank text, a missing value (NaN, `pd.NA`, `NaT`), or one written
    as text ("nan", "None": what `str()` of a missing value gives, as a table exported carelessly holds) (00)."""
    if answer is None:
        return True
    if isinstance(answer, str):
        return answer.strip() in MISSING_MARKS
    try:
        return bool(answer != answer)  # NaN, NaT and Decimal NaN differ from themselves
    except TypeError:  # pd.NA is neither equal nor unequal to itself
        return True


def is_correct(completion: str, answer: str, source: str, answer_format: str | None = None) -> bool:
    """Whether a completion's final answer matches `answer`: found by `answer_format`, compared by `source`'s rules.

    `answer_format` None means the source's own format (GSM8K, arith and shuffle `####`, MATH and tinymath `\\boxed{}`,
    BBH `(X)`, AIME any clear integer). Every answer the completion marks must match, in the asked format or any
    other (`####`, a box, an `<answer>` tag): one marked answer counts, the same answer restated counts
    (`\\boxed{15\\frac{39}{40}}` then `\\boxed{\\frac{639}{40}}`), and a hedge (several different answers, one of
    them right, in one format or across two) does not. A number stated after a label (`The answer is 9.`) from the
    last mark on is one more answer in every source but BBH and shuffle (which read a stated option, the option
    format's own mark, wherever it is), and in MATH unless the reference holds several values. A reasoning model's
    thinking (up to its last `</think>`) is not read.

    >>> is_correct("#### 7", "7", "arith"), is_correct("#### 7\\n#### 8", "7", "arith")
    (True, False)
    >>> is_correct("(A) (B) (C) (D) (E) (F) (G)", "(G)", "bbh"), is_correct("So the answer is (G).", "(G)", "bbh")
    (False, True)
    """
    if is_missing(answer):
        raise ValueError(f"answer={answer!r}: the reference answer is missing; give every problem its answer")
    answer, completion = str(answer), _after_thinking(completion)
    if answer_format is None and source == "aime2025":  # AIME: any clear integer counts, boxed or not
        reference = normalize_number(answer)  # after a marked answer, a different one stated is another (a hedge)
        stated = _answers_stated(_tail(completion)) if _integer_marks(completion) else []
        return extract_integer(completion) == reference and all(number == reference for number in stated)
    if source not in DEFAULT_FORMAT:
        raise ValueError(f"source={source!r} has no answer checker; sources: {', '.join(DEFAULT_FORMAT)}")
    answer_format = answer_format or DEFAULT_FORMAT[source]
    if answer_format not in EXTRACTORS:
        raise ValueError(f"answer_format={answer_format!r} has no answer checker; formats: {', '.join(EXTRACTORS)}")
    marked = list(dict.fromkeys(ANSWERS[answer_format](completion)))  # each different answer once, in order
    if not marked or None in marked:  # most wrong completions end here, before the other formats are scanned
        return False
    elsewhere = []  # an answer marked in another format too (`\boxed{8}` then `#### 7`): a hedge
    for other in MARKS:
        for found in ANSWERS[other](completion) if other != answer_format else []:
            if found is None and other != "hash":  # a box or tag left open (`<answer>8`): an answer no one can read
                return False
            if found is not None and not (other == "hash" and _heading(found)):  # `#### Final answer`: a heading
                elsewhere.append(found)
    if source not in ("shuffle", "bbh") and not (source == "math" and _SEVERAL_VALUES.search(answer)):
        elsewhere += _answers_stated(_tail(completion))  # `#### 8\nThe answer is 9.`, `Answer: 9\n#### 8`: a hedge
    if source in ("shuffle", "bbh") and answer_format != "option":  # `#### E` and `So the answer is (D).`: a hedge
        stated = option_answers(completion, stated_only=True)
        if None in stated:
            return False
        elsewhere += stated
    return all(_matches(predicted, answer, source) for predicted in dict.fromkeys(marked + elsewhere))


def _after_thinking(completion):
    """A reasoning model's reply after its last `</think>`: a box drafted while thinking is no answer (the course's
    prompts turn Qwen3's thinking off; a practitioner's model may think); any other completion as it is."""
    if isinstance(completion, str) and "</think>" in completion:
        return completion[completion.rindex("</think>") + len("</think>"):]
    return completion


def _answers_stated(text: str) -> list[str | None]:
    """The numbers a text with a mark states as answers beside it: every one stated from the start of its last mark
    (a box, a tag, a `####` that is no heading) on, and before it those a final-answer label states (`**Answer:** 9`,
    `Final answer: 9`, `_FINAL_LABEL`). Before the last mark any other statement is working (`Step 1: the answer is 9.`,
    `The answer is 9 after step 1.`, then `\\boxed{12}`)."""
    starts = [box.start() for box in _BOX.finditer(text)] + [text.rfind("<answer>")]
    starts += [mark.start() for mark in _HASH.finditer(text) if not _heading(mark.group(1))]
    last = max([0, *starts])
    return _stated_numbers(text[last:]) + _stated_numbers(text[:last], final_only=True)


# a final-answer label, read from the start of its line: `Answer:` opening the line (`**Answer:** 9`, `## Answer: 9`), or
# one saying `final answer` (`So the final answer is`, `__Final answer__:`); `the answer is` in a sentence is not one
_FINAL_LABEL = re.compile(r"(?i)[ \t>#*_-]*+answer(?:\*\*|__)?[ \t]*+[:=]|[^\n]*?final[ \t*_]*+answers?(?![a-z])")


def _a_final_label(text: str, label: re.Match) -> bool:
    """Whether a `_STATED_LABEL` is a final-answer label (`_FINAL_LABEL`), or one set in bold anywhere (`So **Answer:** 9`)."""
    line = text.rfind("\n", 0, label.start()) + 1
    return bool(_FINAL_LABEL.match(text, line, label.end())) or text[max(0, label.start() - 2):label.start()] in ("**", "__")


# a MATH reference holding several values (`1,-2`, `(2,\infty)`, `3 \text{ or } 4`): a number stated beside its box
# (`One answer is 3`, `The answer is 1 or -2`) may be one of them, so none is read
_SEVERAL_VALUES = re.compile(r",|\\cup|\\pm|\bor\b|\band\b|\\lor")


def _stated_numbers(text: str, final_only: bool = False) -> list[str | None]:
    """Each number a text states as its answer outside a mark (`The answer is 9.`, `Final answer: 9`, `**Final
    Answer**: 9`, `The answer is **9**.`, `$9$`, `9 apples`, `nine`), normalised: a label, then the rest of its
    sentence (or the next line, when the label ends its own) read as a `####` mark is, a number in words as its digits,
    a fraction as written (`The answer is 1/3.`);
    a list of numbers offered as alternatives (`7 or 8`, `7, or rather 8`) states each. A sentence holding a
    calculation (`The answer is 18 / 2 = 9.`) states none, and a trial (`Suppose the answer is 9.`) is none. A statement
    withdrawn right after it (`The answer is 3. I was wrong.`, `_withdrawn`) adds None. `final_only`: only those a
    final-answer label states (`**Answer:** 9`, `Final answer: 9`; not `the answer is 9` in a sentence).

    >>> _stated_numbers("Answer: 9\\nThe answer is **10**. The final answer is \u221211 apples! The answer is 18 / 2 = 9.")
    ['9', '10', '-11']
    >>> _stated_numbers("**Final Answer**: 8. The answer is eight. Answer: 7 or 8. Answer:\\n12")
    ['8', '8', '7', '8', '12']
    """
    numbers = []
    for label in _STATED_LABEL.finditer(text):
        if _a_trial(text, label.start()) or final_only and not _a_final_label(text, label):
            continue
        next_line = _NEXT_VALUE_LINE.match(text, label.end())  # `Answer:\n8`: the value alone on the next line, the
        if next_line:  # whole line (not a list's first item, `answer:\n1. Add 3 and 4.`)
            end = text.find("\n", next_line.end(), next_line.end() + 100)
            stop = end if end >= 0 else next_line.end() + 100
            sentence = text[next_line.end():stop].strip().removesuffix(".")
        else:  # the rest of the label's sentence
            end = _SENTENCE_END.search(text, label.end(), label.end() + 100)
            stop = end.start() if end else label.end() + 100
            sentence = text[label.end():stop].strip()
        sentence = _in_digits(_BOLD_EDGE.sub("", sentence))
        value = _mark_value(sentence)
        listed = not _NUMERIC.fullmatch(value) and _STATED_LIST.fullmatch(sentence)
        stated = [normalize_number(number) for number in _LISTED.findall(sentence)] if listed else \
            [value] if _NUMERIC.fullmatch(value) else _stated_fraction(value)
        withdrawn = stated and not final_only and _withdrawn(text, stop, stated[-1])
        numbers += stated + ([None] if withdrawn else [])  # `The answer is 3. I was wrong.`: none stands (before the
    return numbers  # last mark, `final_only`, a mark follows: none is withdrawn)


def _stated_fraction(text: str) -> list[str]:
    """A fraction stated as an answer (`1/3`, `\\frac{1}{3}`, `x = 1/3`, as `x = 8` states 8) as [it], or [its integer]
    when it is whole (`16/2` is 8); [] for anything else (`3/4 of 28`)."""
    named = _VARIABLE.match(text)
    text = text[named.end():].strip() if named else text
    value = exact_value(text) if _fraction(text) else None
    return [] if value is None else [str(value.numerator)] if value.denominator == 1 else [text]


_NEXT_VALUE_LINE = re.compile(r"[ \t]*\r?\n(?:[ \t]*\r?\n)?[ \t]*(?=\S)")  # a label ending its line, then one blank at most
_BOLD_EDGE = re.compile(r"^(?:\*\*|__)|(?:\*\*|__)$")  # `**Answer: 9**`: the bold's closing marks after the value
_LISTED = re.compile(r"(?<![\d.])[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")  # each number of a stated list
# numbers offered as alternatives after a label (`7 or 8`, `$7$ or $8$`, `7 (or maybe 8)`, `7, or rather 8`, `7 vs. 8`,
# `either 7 or 8`, `7 and/or 8`, `7 to 8`, `7-8`, `7 and 8`: two values where one is asked, a MATH reference holding
# several is read apart, `_SEVERAL_VALUES`); not `7, 8` (a pair may be the answer, `(7, 8)`) and not `3/4` (a fraction)
_LIST_NUMBER = r"\$?[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\$?[)\]]?"
_STATED_LIST = re.compile(rf"(?i)(?:either\s+)?{_LIST_NUMBER}(?:\s*(?:,\s*)?(?:[(\[]\s*)?(?:(?:(?:{_CORRECTION}|and\s*/\s*or|or|"
                          rf"else|alternatively|vs\.?|versus|and|to)\b\s*(?:,\s*)?)+(?:{_HEDGE_WORD}\b\s*)?|{_HEDGE_WORD}\b\s*"
                          rf"|[\u2013\u2014]\s*|(?<=\d)-){_LIST_NUMBER})+"
                          r"(?:[ \t]+[^\W\d_]+)?")  # one unit after the last: `7 or 8 apples`


def _matches(predicted: str, answer: str, source: str) -> bool:
    """Whether one marked answer equals the reference by `source`'s rules (None, a withdrawn one, equals none)."""
    if predicted is None:
        return False
    if source == "math":
        return math_equal(predicted, answer)
    if source == "tinymath":  # a copy of the question is no answer (`in_simplest_form`); numbers compare exactly
        if not in_simplest_form(predicted):
            return False
        values = exact_value(predicted), exact_value(answer)
        return values[0] == values[1] if None not in values else math_equal(predicted, answer)
    if source == "bbh":  # a box's `\text{(B)}` is `(B)`
        return _plain(predicted).strip("() ") == answer.strip().strip("()")
    if source == "shuffle":  # a letter, read with or without the parentheses the option format asks for
        return _plain(predicted).strip().removeprefix("(").removesuffix(")") == \
            answer.strip().removeprefix("(").removesuffix(")")
    return normalize_number(answer) in (normalize_number(predicted), _mark_value(_plain(predicted)))  # `\boxed{8 \text{ cm}}`
