"""Write the tiny world's arith problems (levels 1-2) as word problems, one JSON object per line.

Usage: python data/results/smollm2-difficulty/words.py OUT.jsonl [N_PER_LEVEL] [SEED] [SPLIT]
`Q:40+3*4` becomes "Start with 40. Add 3. Then multiply by 4. What number do you get?" (the chain is worked left
to right, as the tiny models work it); graded by GSM8K's rules, so the answer is asked for as `#### N`.
"""

import json
import re
import sys

from course_lib.provenance import atomic_write_text
from course_lib.tasks import generate

VERBS = {"+": "Add {}.", "-": "Subtract {}.", "*": "Multiply by {}."}


def in_words(expression: str) -> str:
    """'40+3*4' -> 'Start with 40. Add 3. Then multiply by 4. What number do you get?'"""
    first, *rest = re.findall(r"[+\-*]?\d+", expression)
    steps = [VERBS[term[0]].format(term[1:]) for term in rest]
    steps[1:] = [f"Then {step[0].lower()}{step[1:]}" for step in steps[1:]]
    return " ".join([f"Start with {first}.", *steps, "What number do you get?"])


def main() -> None:
    args = sys.argv[1:]
    out, n, seed, split = args[0], int((args[1:2] or [50])[0]), int((args[2:3] or [0])[0]), (args[3:4] or ["test"])[0]
    rows = [{"id": f"words-{p.id}", "question": in_words(p.prompt.strip().removeprefix("Q:")), "answer": p.answer,
             "level": p.level, "source": "gsm8k"}
            for level in (1, 2) for p in generate("arith", n, split, seed, (level,))]
    atomic_write_text(out, "".join(json.dumps(row) + "\n" for row in rows))


if __name__ == "__main__":
    main()
