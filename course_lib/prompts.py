"""What the model is shown: one prompt builder for estimation, training and evaluation alike.

A real dataset's question gets an instruction naming the final-answer format the reward checks
(GSM8K `#### N`, MATH `\\boxed{}`, arXiv 2604.06298's `<answer>` tags, BBH `(A)`), and goes through the
tokenizer's chat template when it has one, with Qwen3's thinking turned off (`enable_thinking=False`).
The tiny world's procedural prompts go to the character-level models as they are.
`prompt_ids` is the one place prompts become token ids, so the same ids reach the model in every stage.
Introduced in notebooks/01_difficulty_estimation.ipynb.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .answers import DEFAULT_FORMAT  # noqa: F401 (each source's answer format, read from here too)
from .errors import check
from .tasks import TASKS as TINY_TASKS  # the tiny world's prompts already show the format (`Q:...` then `#### N`)

INSTRUCTIONS = {  # answer format -> the instruction appended to the question
    "hash": "Solve the problem step by step. On the last line, write the final answer as '#### N'.",
    "boxed": "Solve the problem step by step. Put the final answer within \\boxed{}.",
    "tagged": "Solve the problem step by step. Put the final answer within <answer></answer> tags.",
    "option": "Track the objects step by step. End with 'So the answer is (X).', X being the correct option's letter.",
}
DEFAULT_NEW_TOKENS = 128  # how long an answer may be when sampling by hand (the profiles set their own: 96 for tiny)
CHAT_TEMPLATE_KWARGS = {"enable_thinking": False}  # Qwen3: answer directly (the papers' 250-token budget)


def check_answer_format(answer_format: str) -> None:
    """An answer format must be one the rewards can check."""
    check(answer_format in INSTRUCTIONS,
          f"answer_format={answer_format!r} is unknown; use one of {', '.join(INSTRUCTIONS)}")


def answer_format_of(problem) -> str:
    """The final-answer format a problem asks for: its own, else its source's default."""
    return asked_format(problem.source, problem.answer_format)


def pool_answer_format(problems) -> str:
    """The formats a pool asks for, as one text ("hash", or "boxed, hash" for a mixed pool): what a run learns to
    write and an evaluation asks (04)."""
    return ", ".join(sorted({answer_format_of(problem) for problem in problems}))


def asked_format(source: str, answer_format: str | None) -> str:
    """The final-answer format asked for from a problem's source and its own format ('' or None: the default)."""
    return answer_format or DEFAULT_FORMAT.get(source, "boxed")


def user_message(problem) -> str:
    """The question with the instruction that names its answer format."""
    return f"{problem.prompt.strip()}\n\n{INSTRUCTIONS[answer_format_of(problem)]}"


def uses_chat_template(tokenizer) -> bool:
    """Whether prompts go through the tokenizer's chat template (real models do; the tiny ones have none)."""
    return bool(getattr(tokenizer, "chat_template", None))


def model_input(problem, tokenizer):
    """What TRL's dataset holds for a problem: a conversation for chat models, else plain text (04)."""
    if uses_chat_template(tokenizer):
        return [{"role": "user", "content": user_message(problem)}]
    if problem.source in TINY_TASKS and problem.answer_format in (None, DEFAULT_FORMAT[problem.source]):
        return problem.prompt
    return f"{user_message(problem)}\n"


def prompt_ids(problem, tokenizer) -> list[int]:
    """The token ids the model sees for a problem, exactly as TRL's GRPOTrainer tokenizes its dataset row (A2)."""
    shown = model_input(problem, tokenizer)
    if isinstance(shown, list):  # TRL: apply_chat_template(..., add_generation_prompt=True, tokenize=True)
        encoded = tokenizer.apply_chat_template(shown, add_generation_prompt=True, tokenize=True, return_dict=True,
                                                **CHAT_TEMPLATE_KWARGS)
        return list(encoded["input_ids"])
    return list(tokenizer(shown)["input_ids"])  # TRL: processing_class(text=prompts)


def prompt_text(problem, tokenizer) -> str:
    """The prompt as text, special tokens included, for reading, not for the model (01)."""
    return tokenizer.decode(prompt_ids(problem, tokenizer), skip_special_tokens=False)


def prompts_fingerprint() -> str:
    """What writes a prompt: this module's source, hashed; two evaluations compared must share it (04)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
