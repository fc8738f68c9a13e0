"""What the model is shown: the question with its answer-format instruction, as text and through a chat template."""

import pytest

from course_lib.models import CHARS, UNK, load_tokenizer
from course_lib.prompts import prompt_text, user_message
from course_lib.tasks import Problem

HASH = "Solve the problem step by step. On the last line, write the final answer as '#### N'."
BOXED = "Solve the problem step by step. Put the final answer within \\boxed{}."
TAGGED = "Solve the problem step by step. Put the final answer within <answer></answer> tags."


def problem(prompt: str, source: str, answer_format: str | None = None) -> Problem:
    return Problem(id="x", prompt=prompt, answer="5", level=None, source=source, answer_format=answer_format)


@pytest.mark.parametrize(("source", "answer_format", "instruction"), [
    ("gsm8k", None, HASH),  # GSM8K's default: '#### N'
    ("math", None, BOXED),  # MATH's default: \boxed{}
    ("gsm8k", "tagged", TAGGED),  # a problem's own format wins over its source's
    ("unknown-source", None, BOXED),  # a source without a default gets \boxed{}
])
def test_user_message_is_the_stripped_question_then_a_blank_line_then_the_instruction(source, answer_format,
                                                                                       instruction):
    assert user_message(problem("  What is 2+3?\n", source, answer_format)) == f"What is 2+3?\n\n{instruction}"


def test_a_pools_answer_format_names_each_format_once_in_order():
    from course_lib.prompts import pool_answer_format

    assert pool_answer_format([problem("a", "gsm8k"), problem("b", "arith")]) == "hash"
    assert pool_answer_format([problem("a", "gsm8k"), problem("b", "math"), problem("c", "gsm8k")]) == "boxed, hash"


@pytest.fixture(scope="module")
def tiny_tokenizer():
    return load_tokenizer("tiny-s")  # character-level: one token per character of CHARS, else <unk>


def as_tiny_tokens(text: str) -> str:
    """`text` as the tiny tokenizer decodes it: each character it lacks becomes <unk>."""
    return "".join(c if c in CHARS else UNK for c in text)


def test_prompt_text_of_a_tiny_world_prompt_is_the_prompt_itself(tiny_tokenizer):
    assert prompt_text(problem("Q:25-9\n", "arith"), tiny_tokenizer) == "Q:25-9\n"
    assert prompt_text(problem("Q:25-9\n", "arith", "hash"), tiny_tokenizer) == "Q:25-9\n"  # its own format, named
    assert prompt_text(problem("Q:25-9\n", "arith", "tagged"), tiny_tokenizer) == as_tiny_tokens(
        f"Q:25-9\n\n{TAGGED}\n")  # another format: the instruction says which


def test_prompt_text_shows_special_tokens(tiny_tokenizer):
    # 'x' is not in the tiny vocabulary: the model sees <unk>, and so does the reader
    assert prompt_text(problem("Q: 2+3 x=?\n", "arith"), tiny_tokenizer) == "Q: 2+3 <unk>=?\n"


def test_prompt_text_of_a_real_dataset_without_chat_template_is_the_message_and_a_newline(tiny_tokenizer):
    gsm8k = problem("  WHAT IS 2+3?\n", "gsm8k")
    assert prompt_text(gsm8k, tiny_tokenizer) == as_tiny_tokens(f"WHAT IS 2+3?\n\n{HASH}\n")


def test_prompt_text_goes_through_the_chat_template_with_the_generation_prompt(tiny_tokenizer):
    chat = load_tokenizer("tiny-s")
    chat.chat_template = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                          "{% if add_generation_prompt %}A:{% endif %}{% if enable_thinking is false %} 0{% endif %}")
    for shown in (problem("  WHAT IS 2+3?\n", "gsm8k"), problem("Q:25-9\n", "arith")):  # tiny-world prompts too
        # the role TRL gives, and Qwen3's thinking turned off (the papers' 250-token budget)
        assert prompt_text(shown, chat) == as_tiny_tokens(f"user: {user_message(shown)}\nA: 0")
    assert prompt_text(problem("Q:25-9\n", "arith"), tiny_tokenizer) == "Q:25-9\n"  # the module's own is untouched


def test_a_tokenizer_without_a_chat_template_attribute_gets_plain_text():
    from course_lib.prompts import uses_chat_template

    assert not uses_chat_template(object()) and not uses_chat_template(load_tokenizer("tiny-s"))


def test_one_table_says_what_each_source_is_asked_for_and_graded_on():
    """The prompt's instruction and the grader read the same answer format per source (AIME: any clear integer)."""
    from course_lib import answers, prompts

    assert prompts.DEFAULT_FORMAT is answers.DEFAULT_FORMAT
    written = {"hash": "#### {}", "boxed": "\\boxed{{{}}}", "option": "So the answer is {}.",
               "tagged": "<answer>{}</answer>"}
    reference = {"bbh": "(C)", "shuffle": "Alice"}
    for source, answer_format in answers.DEFAULT_FORMAT.items():
        right = reference.get(source, "12")
        assert answers.is_correct(written[answer_format].format(right), right, source), source
        assert f"{answer_format}" in prompts.INSTRUCTIONS and prompts.answer_format_of(
            prompts_problem(source)) == answer_format  # what the prompt asks for


def prompts_problem(source):
    from course_lib.tasks import Problem

    return Problem(id="x", prompt="Q", answer="12", level=1, source=source)


def test_every_answer_format_has_both_an_instruction_and_a_checker():
    """The formats a prompt can ask for are the formats the rewards can read: a new one needs both halves."""
    from course_lib.answers import DEFAULT_FORMAT, EXTRACTORS
    from course_lib.prompts import INSTRUCTIONS

    assert set(INSTRUCTIONS) == set(EXTRACTORS)
    assert set(DEFAULT_FORMAT.values()) <= set(EXTRACTORS)
