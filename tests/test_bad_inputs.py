"""Hostile inputs: outputs that would overwrite inputs, settings out of range, odd ids, numbers as people write them.

Each case is a row of docs/bad_inputs.md. CLI cases run `main([...])` in-process: bad input returns 2 with one
line on stderr, before any model loads or anything is written.
"""

import json
import math
import os
import re
import shlex
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

from course_lib import CourseError
from course_lib.__main__ import _training_pool, build_parser, main
from course_lib.answers import extract_option, extract_tagged, is_correct, normalize_number
from course_lib.rewards import correctness_reward, format_reward

ROOT = Path(__file__).resolve().parent.parent


def cli(capsys, *args) -> tuple[int, list[str]]:
    """(exit status, stderr lines) of `python -m course_lib ARGS`, run in this process."""
    capsys.readouterr()
    try:
        status = main([str(a) for a in args])
    except SystemExit as stopped:  # argparse's own refusal (a value outside a flag's choices): one line, status 2
        status = stopped.code
    return status, capsys.readouterr().err.strip().splitlines()


def one_line_error(capsys, *args) -> str:
    """The one stderr line of a command that must fail with exit status 2."""
    status, lines = cli(capsys, *args)
    assert status == 2 and len(lines) == 1, lines
    return lines[0]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


# ---------------------------------------------------------------------------
# Inputs are never outputs
# ---------------------------------------------------------------------------


TABLE = "id,level,source,k,n_correct,pass_rate\na,1,arith,2,1,0.5\nb,1,arith,2,0,0.0\nc,1,arith,2,2,1.0\n"


@pytest.mark.parametrize("through_link", [False, True])
def test_select_out_the_table_itself_is_refused_and_the_table_kept(capsys, tmp_path, through_link):
    table = tmp_path / "table.csv"
    table.write_text(TABLE)
    out = tmp_path / "link.csv" if through_link else table
    if through_link:
        out.symlink_to(table)
    line = one_line_error(capsys, "select", "--table", table, "--strategy", "hard", "--budget", "2", "--out", out)
    assert "out=" in line and "table" in line and "is an input" in line
    assert table.read_text() == TABLE


def test_estimate_out_the_users_own_jsonl_is_refused_and_the_file_kept(capsys, tmp_path):
    questions = write_jsonl(tmp_path / "mine.jsonl", [{"question": f"{i}+1=?", "answer": str(i + 1)} for i in range(4)])
    before = questions.read_text()
    line = one_line_error(capsys, "estimate", "--model", "tiny-s", "--task", f"jsonl:{questions}", "--split", "all",
                          "--k", "2", "--out", questions)
    assert "is an input" in line and "mine.jsonl" in line
    assert questions.read_text() == before


@pytest.mark.parametrize("from_environment", [False, True])
def test_estimate_out_into_the_data_folder_is_refused(capsys, tmp_path, monkeypatch, from_environment):
    data = tmp_path / "data"
    (data / "gsm8k").mkdir(parents=True)
    questions = write_jsonl(data / "gsm8k" / "test.jsonl", [{"question": "1+1?", "answer": "2\n#### 2"}] * 2)
    kept = questions.read_text()
    if from_environment:
        monkeypatch.setenv("COURSE_DATA_DIR", str(data))
    where = [] if from_environment else ["--data-dir", data]
    line = one_line_error(capsys, "estimate", "--model", "tiny-s", "--task", "gsm8k", "--split", "test", *where,
                          "--k", "2", "--no-cache", "--out", questions)
    assert "is inside the data folder" in line and questions.read_text() == kept


@pytest.mark.parametrize("command", ["estimate", "evaluate"])
def test_a_data_folder_for_a_generated_task_is_refused(capsys, tmp_path, command):
    """arith is generated from its seed: a --data-dir there is a mistake (a real dataset meant), not ignored."""
    line = one_line_error(capsys, command, "--model", "tiny-s", "--task", "arith", "--n", "4", "--k", "2",
                          "--data-dir", tmp_path / "no-such", "--out", tmp_path / "out.json")
    assert line == "error: --data-dir is for the real datasets; task='arith' is generated from its seed: drop --data-dir"


def test_calibrate_refuses_a_data_folder_for_a_generated_task_as_estimate_does(capsys, tmp_path):
    """calibrate measured arith and wrote `--data-dir /no/such/dir` into its report's command."""
    line = one_line_error(capsys, "calibrate", "--model", "tiny-s", "--task", "arith", "--n", "4", "--k", "2",
                          "--data-dir", tmp_path / "no-such", "--quiet")
    assert line == "error: --data-dir is for the real datasets; task='arith' is generated from its seed: drop --data-dir"


def test_compare_out_one_of_its_evaluations_is_refused(capsys, tmp_path):
    after, before = evaluation(tmp_path / "a.json", [0.5, 1.0]), evaluation(tmp_path / "b.json", [0.25, 0.5])
    kept = after.read_text()
    line = one_line_error(capsys, "compare", "--after", after, "--before", before, "--out", after)
    assert "is an input (after=" in line and after.read_text() == kept


def test_train_out_an_existing_model_folder_is_refused(capsys, tmp_path):
    model = tmp_path / "my-model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    (model / "model.safetensors").write_bytes(b"weights")
    line = one_line_error(capsys, "train", "--model", "tiny-s", "--task", "arith", "--n", "4", "--steps", "1",
                          "--out", model)
    assert "out=" in line and "model folder" in line
    assert sorted(p.name for p in model.iterdir()) == ["config.json", "model.safetensors"]


def test_pretrain_out_an_existing_file_fails_before_pretraining(capsys, tmp_path, monkeypatch):
    import course_lib.models

    def no_pretraining(*args, **kwargs):
        raise AssertionError("pretraining started before --out was checked")

    monkeypatch.setattr(course_lib.models, "pretrain", no_pretraining)
    existing = tmp_path / "a-file"
    existing.write_text("keep me")
    line = one_line_error(capsys, "pretrain", "--size", "tiny-s", "--steps", "1", "--out", existing)
    assert f"out={existing} is a file" in line
    assert existing.read_text() == "keep me"
    line = one_line_error(capsys, "pretrain", "--size", "tiny-s", "--steps", "0", "--out", tmp_path / "new")
    assert "steps=0" in line and not (tmp_path / "new").exists()  # settings first: no folder made for a bad run


def test_an_empty_cache_variable_is_unset(monkeypatch, tmp_path):
    from course_lib.difficulty import cache_folder
    from course_lib.models import verified_models_file
    from course_lib.problems import data_dir_from_env

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COURSE_CACHE_DIR", "")
    assert cache_folder("default").resolve() != tmp_path.resolve()
    assert verified_models_file().parent.resolve() != tmp_path.resolve()
    monkeypatch.setenv("COURSE_DATA_DIR", "")
    assert data_dir_from_env() is None
    models_dir = subprocess.run([sys.executable, "-c", "from course_lib.models import MODELS_DIR; print(MODELS_DIR)"],
                                env={**os.environ, "COURSE_MODELS_DIR": "", "PYTHONPATH": str(ROOT)},
                                capture_output=True, text=True, check=True).stdout.strip()
    assert Path(models_dir) == ROOT / "data" / "models"


# ---------------------------------------------------------------------------
# Every setting validated once, before any work or file
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("field", "value"), [
    ("learning_rate", math.inf), ("learning_rate", math.nan), ("temperature", -1.0), ("temperature", math.nan),
    ("temperature", 0.0), ("adam_beta2", 1.5), ("lr_scheduler_type", "bogus"), ("lora_r", 0), ("lora_alpha", 0),
    ("epsilon", -1.0), ("warmup_steps", 5.5), ("max_grad_norm", math.nan), ("weight_decay", -0.1), ("beta", math.inf),
    ("num_generations", 2.5), ("max_steps", True),
    # sampling that is greedy (every group's completions alike: no gradient), and TRL's own ranges, named up front
    ("top_p", 0.0), ("top_k", 1), ("top_k", -3), ("epsilon_high", -1.0), ("delta", -1.0), ("delta", 1.1),
    ("adam_beta1", 2.0), ("adam_epsilon", -1.0), ("num_iterations", 0), ("min_p", 2.0), ("repetition_penalty", 0.0),
])
def test_train_config_refuses_bad_settings_naming_the_field(field, value):
    from course_lib.training import CourseConfig, CourseModelConfig

    with pytest.raises(CourseError, match=f"^{field}="):
        (CourseModelConfig if field.startswith("lora_") else CourseConfig)(**{field: value})


@pytest.mark.parametrize("flags", [["--lr", "inf"], ["--temperature", "-1"], ["--temperature", "nan"],
                                   ["--adam-beta2", "1.5"], ["--lr-scheduler-type", "bogus"], ["--lora-rank", "0"],
                                   ["--epsilon", "-1"], ["--warmup-ratio", "5.5"], ["--max-grad-norm", "nan"],
                                   ["--top_p", "0"], ["--top_k", "1"], ["--num_iterations", "0"]])
def test_train_with_a_bad_setting_writes_nothing(capsys, tmp_path, flags):
    run = tmp_path / "run"
    line = one_line_error(capsys, "train", "--model", "tiny-s", "--task", "arith", "--n", "4", "--steps", "1",
                          *flags, "--out", run)
    field = {"--lr": "learning_rate", "--lora-rank": "lora_r", "--warmup-ratio": "warmup_steps"}.get(
        flags[0], flags[0][2:].replace("-", "_"))
    # the course's check names the field; a value outside a flag's choices is argparse's line naming the flag
    assert line.startswith((f"error: {field}=", f"error: argument --{field}/")), line
    assert not run.exists()


def test_estimate_with_an_absurd_k_is_one_line(capsys, tmp_path):
    line = one_line_error(capsys, "estimate", "--model", "tiny-s", "--n", "2", "--k", "100000000000",
                          "--out", tmp_path / "t.csv")
    assert "k=100000000000" in line


def evaluation(path, pass_rates):
    rows = [{"id": f"p{i}", "level": 1, "k": 4, "n_correct": round(rate * 4) if isinstance(rate, float) else 0,
             "pass_rate": rate} for i, rate in enumerate(pass_rates)]  # n_correct agrees with each number given
    path.write_text(json.dumps({"per_problem": rows}).replace('"NaN"', "NaN"))
    return path


@pytest.mark.parametrize("n_boot", ["0", "-5", "5", "999", "1000000000000"])
def test_compare_refuses_a_bad_number_of_resamples(capsys, tmp_path, n_boot):
    after, before = evaluation(tmp_path / "a.json", [0.5, 1.0]), evaluation(tmp_path / "b.json", [0.25, 0.5])
    line = one_line_error(capsys, "compare", "--after", after, "--before", before, "--n-boot", n_boot,
                          "--out", tmp_path / "c.json")
    assert f"n_boot={n_boot}" in line
    assert not (tmp_path / "c.json").exists()


def test_compare_refuses_a_nan_pass_rate(capsys, tmp_path):
    after = evaluation(tmp_path / "a.json", [0.5, "NaN"])
    before = evaluation(tmp_path / "b.json", [0.25, 0.5])
    line = one_line_error(capsys, "compare", "--after", after, "--before", before, "--out", tmp_path / "c.json")
    assert "pass_rate" in line and "p1" in line
    assert not (tmp_path / "c.json").exists()


def test_a_question_longer_than_the_models_context_fails_at_once(capsys, tmp_path):
    long = write_jsonl(tmp_path / "long.jsonl", [{"question": "1+" * 2000 + "1=?", "answer": "2001"},
                                                 {"question": "1+1=?", "answer": "2"}])
    line = one_line_error(capsys, "estimate", "--model", "tiny-s", "--task", f"jsonl:{long}", "--split", "all",
                          "--k", "2", "--max-new-tokens", "8", "--no-cache", "--quiet", "--out", tmp_path / "t.csv")
    assert "long-0" in line and "context" in line and "256" in line
    assert not (tmp_path / "t.csv").exists()


def test_a_ten_megabyte_question_is_refused_before_it_is_tokenized():
    from course_lib.models import load_model
    from course_lib.sampling import checked_prompt_ids
    from course_lib.tasks import Problem

    model, tokenizer = load_model("tiny-s")
    huge = Problem("huge", "1+" * 5_000_000 + "1=?", "5000001", None, "arith")
    with pytest.raises(CourseError, match="problem 'huge' has a prompt of 10,000,003 characters, beyond the model's "
                                          "context of 256 tokens"):
        checked_prompt_ids(model, tokenizer, [huge], 8)


def test_prompt_plus_completion_limit_beyond_the_context_is_refused(tmp_path):
    from course_lib.difficulty import estimate
    from course_lib.models import load_model
    from course_lib.tasks import generate

    model, tokenizer = load_model("tiny-s")
    with pytest.raises(CourseError, match="max_new_tokens=400"):
        estimate(model, tokenizer, generate("arith", 2, "train", 0), k=2, max_new_tokens=400, cache_dir=None,
                 progress=False)


# ---------------------------------------------------------------------------
# Ids are strings end to end
# ---------------------------------------------------------------------------

ODD_IDS = ["NA", "null", "None", "nan", "N/A", "NaN", "#N/A", "1.0", "007"]


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory):
    """estimate -> select -> train (1 step) on a file whose ids pandas would read as missing or as numbers."""
    import contextlib
    import io

    root = tmp_path_factory.mktemp("odd-ids")
    questions = write_jsonl(root / "odd.jsonl", [{"id": uid, "question": f"{i}+1=", "answer": str(i + 1),
                                                 "source": "arith"} for i, uid in enumerate(ODD_IDS)])
    task = f"jsonl:{questions}"
    steps = [
        ["estimate", "--model", "tiny-s", "--task", task, "--split", "all", "--k", "2", "--max-new-tokens", "8",
         "--no-cache", "--quiet", "--out", root / "table.csv"],
        ["select", "--table", root / "table.csv", "--strategy", "random", "--budget", "1.0", "--out", root / "ids.txt"],
        ["train", "--model", "tiny-s", "--ids", root / "ids.txt", "--steps", "1", "--group-size", "2",
         "--prompts-per-step", "2", "--max-new-tokens", "8", "--quiet", "--out", root / "run"],
    ]
    statuses = []
    for args in steps:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            statuses.append((main([str(a) for a in args]), err.getvalue()))
    return root, statuses


def test_ids_pandas_reads_as_missing_survive_estimate_select_and_train(odd_run):
    root, statuses = odd_run
    assert [status for status, _ in statuses] == [0, 0, 0], statuses
    assert sorted((root / "ids.txt").read_text().split()) == sorted(ODD_IDS)
    trained = json.loads((root / "run" / "run_config.json").read_text())["problem_ids"]
    assert sorted(trained) == sorted(ODD_IDS)


def test_estimate_and_calibrate_accept_a_run_folder(odd_run, capsys, tmp_path):
    root, statuses = odd_run
    assert statuses[2][0] == 0
    status, lines = cli(capsys, "estimate", "--model", root / "run", "--n", "4", "--k", "2", "--max-new-tokens", "8",
                        "--no-cache", "--quiet", "--out", tmp_path / "t.csv")
    assert status == 0, lines
    capsys.readouterr()
    assert main(["calibrate", "--model", str(root / "run"), "--n", "4", "--k", "2", "--max-new-tokens", "8",
                 "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["n_problems"] == 4
    assert main(["calibrate", "--model", str(root / "run"), "--n", "4", "--k", "2", "--max-new-tokens", "8",
                 "--temperature", "0.5", "--seed", "3", "--quiet"]) == 0
    report = json.loads(capsys.readouterr().out)
    words = shlex.split(report["command"])  # the recorded command measures the same report again
    assert words[:4] == ["python", "-m", "course_lib", "calibrate"]
    again = build_parser().parse_args(words[3:])
    assert (again.model, again.n, again.k, again.temperature, again.max_new_tokens, again.seed) == \
        (str(root / "run"), 4, 2, 0.5, 8, 3)
    line = one_line_error(capsys, "calibrate", "--model", root / "run", "--n", "4", "--k", "2", "--write")
    assert "--write" in line and "run folder" in line


@pytest.mark.parametrize(("uid", "shown"), [("", "''"), (" a", "' a'"), ("b ", "'b '"), ("c\nd", "'c\\nd'"),
                                           ("e\u2028f", "'e\\u2028f'"), ("=cmd()", "'=cmd()'"), ("@x", "'@x'")])
def test_a_pool_with_an_empty_or_blank_edged_id_is_refused_naming_it(tmp_path, uid, shown):
    from course_lib.problems import problems

    questions = write_jsonl(tmp_path / "q.jsonl", [{"id": uid, "question": "1+1=", "answer": "2"},
                                                  {"id": "fine", "question": "2+2=", "answer": "4"}])
    with pytest.raises(CourseError) as error:
        problems(f"jsonl:{questions}", "all")
    assert len(str(error.value).splitlines()) == 1 and f"id {shown}" in str(error.value)


@pytest.mark.parametrize(("answer", "refused"), [("true", True), ("NaN", True), ("Infinity", True), ('"true"', False),
                                                ("7", False), ("2.5", False)])
def test_jsonl_answers_that_are_not_what_the_user_wrote_are_refused(tmp_path, answer, refused):
    from course_lib.data import load_jsonl_problems

    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "q", "answer": ' + answer + "}\n")
    if refused:
        with pytest.raises(CourseError, match=f"field 'answer' {answer}"):
            load_jsonl_problems(path)
    else:
        assert load_jsonl_problems(path)[0].answer == json.loads(answer) if answer.startswith('"') else answer


@pytest.mark.parametrize("question", ["", "   \n"])
def test_a_jsonl_question_that_is_empty_is_refused_naming_the_line(capsys, tmp_path, question):
    questions = write_jsonl(tmp_path / "q.jsonl", [{"question": "1+1=", "answer": "2"},
                                                  {"question": question, "answer": "4"}])
    line = one_line_error(capsys, "estimate", "--model", "tiny-s", "--task", f"jsonl:{questions}", "--split", "all",
                          "--k", "2", "--no-cache", "--quiet", "--out", tmp_path / "table.csv")
    assert "q.jsonl:2:" in line and "question is empty" in line
    assert not (tmp_path / "table.csv").exists()


@pytest.mark.parametrize(("line", "refused"), [
    ('{"id":"a","question":"Q:1+1","answer":"2","answer":"3"}', "field 'answer' is given twice; keep one"),
    ('{"question":"Q:1+1","meta":{"k":1,"k":2},"answer":"2"}', "field 'k' is given twice; keep one"),
    ('{"question":"Q:1+1","prompt":"Q:9+9","answer":"2"}',
     "both 'question' and 'prompt' hold a question (one would be dropped); keep one"),
    ('{"question":"Q:1+1","problem":"Q:9+9","answer":"2"}', "both 'question' and 'problem' hold a question"),
])
def test_round_26_a_jsonl_row_with_a_key_twice_or_two_questions_is_refused_naming_the_line(tmp_path, line, refused):
    """Hostile round 26: the last of two `answer` fields was read in silence (a correction appended, or a mistake),
    and a row with both `question` and `prompt` dropped the prompt."""
    from course_lib.data import load_jsonl_problems

    path = tmp_path / "mine.jsonl"
    path.write_text('{"question":"Q:2+2","answer":"4"}\n' + line + "\n")
    with pytest.raises(CourseError, match=f"^{re.escape(str(path))}:2: {re.escape(refused)}"):
        load_jsonl_problems(path)
    path.write_text('{"question":"Q:2+2","answer":"4","prompt":null}\n')  # an empty field is no second question
    assert load_jsonl_problems(path)[0].prompt == "Q:2+2"
    path.write_text('{"query":"Q:2+2","answer":"4"}\n')  # round 27: no question field at all was an IndexError
    with pytest.raises(CourseError, match=r":1: missing field 'question' or 'prompt' or 'problem'$"):
        load_jsonl_problems(path)


@pytest.mark.parametrize(("line", "refused"), [
    ('{"question":"Q:1+1","answer":"2","Level":3}', "field 'Level' is not read (fields are lower case); rename it 'level'"),
    ('{"question":"Q:1+1","answer":"2","Answer":"5"}', "field 'Answer' is not read"),
    ('{"question":"Q:1+1","answer":"2","answer_format":"tagged"}', "field 'answer_format' is not read from a row"),
    ('{"question":"Q:caf\u00e9 + 2","answer":"5"}', "the question of line 1 again, with answer '5' where line 1 has "
                                                    "'4'"),
    ('{"question":"Q:caf\u00e9  +\\t2","answer":"5"}', "the question of line 1 again, with answer '5'"),  # spaced
    ('{"question":"Q:cafe\u0301 + 2","answer":"5"}', "the question of line 1 again"),  # the accent as its own mark
    ('{"question":"S:AB 1?","answer":"e","source":"shuffle"}', "field 'answer' 'e' can never be graded right under "
                                                                "source 'shuffle' (one capital letter"),
    ('{"question":"S:AB 1?","answer":"Alice","source":"shuffle"}', "field 'answer' 'Alice' can never be graded"),
    ('{"id":1.0,"question":"Q:1+1","answer":"2"}', "field 'id' 1.0 should be text or an integer; put it in quotes"),
    ('{"id":1e0,"question":"Q:1+1","answer":"2"}', "field 'id' 1e0 should be text or an integer"),
])
def test_round_27_jsonl_fields_in_another_case_a_respaced_question_and_unreachable_shuffle_answers_are_refused(
        tmp_path, line, refused):
    """Hostile round 27: `Level` and `Answer` were dropped in silence, a question spaced otherwise carried a second
    answer, a shuffle answer no grader reads (`e`, `Alice`) and an id 1.0 were accepted."""
    from course_lib.data import load_jsonl_problems

    path = tmp_path / "mine.jsonl"
    path.write_text('{"question":"Q:caf\u00e9 + 2","answer":"4"}\n' + line + "\n")
    with pytest.raises(CourseError, match=f"^{re.escape(str(path))}:2: {re.escape(refused)}"):
        load_jsonl_problems(path)


def test_round_27_what_generate_writes_is_read_with_its_subject(tmp_path):
    from course_lib.data import load_jsonl_problems

    path = tmp_path / "tm.jsonl"
    path.write_text('{"id": "t1", "prompt": "M:37-6\\n", "answer": "31", "level": 1, "source": "tinymath", '
                    '"subject": "arithmetic", "solution": "\\\\boxed{31}", "answer_format": null}\n')
    assert load_jsonl_problems(path)[0].subject == "arithmetic"


def test_a_jsonl_saved_with_a_bom_and_windows_line_ends_is_read_as_written(tmp_path):
    from course_lib.problems import problems

    path = tmp_path / "excel.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"question": "What is 2+2?", "answer": "4"}\r\n{"question": "3+3?", "answer": "6"}\r\n')
    assert [(p.prompt, p.answer) for p in problems(f"jsonl:{path}", "all")] == [("What is 2+2?", "4"), ("3+3?", "6")]


def test_a_jsonl_test_split_the_hash_left_empty_says_so(capsys, tmp_path):
    from course_lib.problems import hash_split

    rows = [{"question": f"What is {i} + 1?", "answer": str(i + 1)} for i in range(40)]
    rows = [row for row in rows if hash_split(row["question"]) == "train"][:3]
    questions = write_jsonl(tmp_path / "few.jsonl", rows)
    line = one_line_error(capsys, "estimate", "--model", "tiny-s", "--task", f"jsonl:{questions}", "--split", "test",
                          "--k", "2", "--no-cache", "--quiet", "--out", tmp_path / "table.csv")
    assert "split='test'" in line and "holds no problem" in line and "use split all" in line


def test_levels_asked_of_a_jsonl_without_levels_say_the_file_has_none(capsys, tmp_path):
    questions = write_jsonl(tmp_path / "q.jsonl", [{"question": f"{i}+1=?", "answer": str(i + 1)} for i in range(4)])
    line = one_line_error(capsys, "estimate", "--model", "tiny-s", "--task", f"jsonl:{questions}", "--split", "all",
                          "--levels", "1", "--k", "2", "--no-cache", "--quiet", "--out", tmp_path / "table.csv")
    assert "levels=1:" in line and "gives its problems no level" in line and "add a 'level'" in line


def test_a_jsonl_task_with_no_path_is_refused(capsys, tmp_path):
    line = one_line_error(capsys, "estimate", "--model", "tiny-s", "--task", "jsonl:", "--k", "2", "--no-cache",
                          "--quiet", "--out", tmp_path / "table.csv")
    assert line == "error: task='jsonl:' names no file; give jsonl:PATH"


@pytest.mark.parametrize(("rates", "warned"), [(("0.0", "0.0", "0.0"), True), (("0.0", "0.5", "0.0"), False)])
def test_select_on_a_table_of_ties_warns_that_the_choice_is_arbitrary(capsys, tmp_path, rates, warned):
    table = tmp_path / "table.csv"
    table.write_text("id,level,source,k,n_correct,pass_rate\n" + "".join(
        f"{uid},1,gsm8k,2,{round(float(rate) * 2)},{rate}\n" for uid, rate in zip("abc", rates)))
    import warnings

    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        status, lines = cli(capsys, "select", "--table", table, "--strategy", "hard", "--budget", "1",
                            "--out", tmp_path / "ids.txt")
    assert status == 0 and (tmp_path / "ids.txt").exists() and lines == []
    messages = [str(w.message) for w in shown if "picks among ties" in str(w.message)]
    assert messages == ([f"every problem in table={table} has pass rate 0.00: 'hard' picks among ties, no better "
                         "than random; estimate a task the model sometimes solves, or with more samples (--k)"]
                        if warned else [])


def pool_args(ids, **given):
    names = ("task", "split", "n", "pool_seed", "pool_levels", "data_dir", "answer_format")
    return Namespace(ids=ids, **{name: given.get(name) for name in names})


@pytest.fixture
def arith_ids(capsys, tmp_path):
    """An ids file that `select` wrote from an estimate of a 20-problem arith pool with seed 3."""
    table = tmp_path / "table.csv"
    assert main(["estimate", "--model", "tiny-s", "--n", "20", "--seed", "3", "--k", "2", "--max-new-tokens", "8",
                 "--no-cache", "--quiet", "--out", str(table)]) == 0
    assert main(["select", "--table", str(table), "--strategy", "random", "--budget", "5",  # 8 tokens: p = 0 for all,
                 "--out", str(tmp_path / "ids.txt")]) == 0  # where `hard` would warn that it picks among ties
    return tmp_path / "ids.txt"


def test_train_flags_that_agree_with_the_recorded_pool_keep_it(arith_ids):
    from course_lib.problems import problems

    recorded = problems("arith", "train", 20, 3)
    for given in ({}, {"task": "arith"}, {"task": "arith", "n": 20}, {"task": "arith", "pool_seed": 3, "split": "train"}):
        args = pool_args(arith_ids, **given)
        assert [p.id for p in _training_pool(args)[0]] == [p.id for p in recorded], given
        assert args.task == given.get("task")  # the flags are read, never rewritten


@pytest.mark.parametrize(("given", "flag"), [({"task": "shuffle"}, "--task"), ({"task": "arith", "n": 30}, "--n"),
                                            ({"pool_seed": 0}, "--pool-seed"), ({"split": "test"}, "--split"),
                                            ({"pool_levels": "1,2"}, "--pool-levels")])
def test_train_flags_that_contradict_the_recorded_pool_are_refused(arith_ids, given, flag):
    with pytest.raises(CourseError, match=f"^{flag}="):
        _training_pool(pool_args(arith_ids, **given))


# ---------------------------------------------------------------------------
# Numbers as people write them
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("predicted", "gold", "source", "same"), [
    ("1,2", "12", "gsm8k", False), ("12", "1,2", "gsm8k", False), ("1,234,567", "1234567", "gsm8k", True),
    ("1,234", "1234", "arith", True), ("12,34", "1234", "gsm8k", False), ("1,2345", "12345", "gsm8k", False),
    ("1.50", "1.5", "gsm8k", True), ("-0", "0", "arith", True), ("3.0", "3", "gsm8k", True),
    ("-0.0", "0", "gsm8k", True), ("007", "7", "gsm8k", True), ("1,000.50", "1000.5", "gsm8k", True),
    ("0.5", ".5", "gsm8k", True), ("-21", "-2,1", "math", False), ("-2,1", "-2,1", "math", True),
])
def test_numbers_are_read_as_people_write_them(predicted, gold, source, same):
    completion = f"\\boxed{{{predicted}}}" if source == "math" else f"#### {predicted}"
    assert is_correct(completion, gold, source) is same


def test_thousands_separators_only_in_groups_of_three():
    assert normalize_number("1,234,567") == "1234567"
    assert normalize_number("1,2") == "1,2"
    assert normalize_number("-2,1") == "-2,1"


def test_bbh_the_stated_answer_wins_over_later_mentions():
    assert extract_option("So the answer is (B). Note that (C) was where the ball went first.") == "(B)"
    assert is_correct("the answer is (A). (D) was ruled out.", "(A)", "bbh")
    assert is_correct("the answer is (A), not (D)", "(A)", "bbh")  # a rejected option right after it: a negation
    assert not is_correct("the answer is (A), or (D)", "(A)", "bbh")  # another option offered: a second one


def test_several_answer_tags_score_zero_wherever_they_are():
    far_apart = "<answer>7</answer>" + " thinking" * 1000 + "<answer>7</answer>"
    assert extract_tagged(far_apart) is None
    long_first = "<answer>" + "x" * 2000 + "</answer> <answer>7</answer>"
    assert extract_tagged(long_first) is None
    assert correctness_reward([far_apart, long_first, "<answer>7</answer>"], answer=["7"] * 3,
                              source=["tagged"] * 3) == [0.0, 0.0, 1.0]
    assert format_reward([far_apart, "<answer>1</answer><answer>2</answer>", "so <answer>7</answer>"],
                         source=["tagged"] * 3) == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("text", [
    "1," * 200_000 + "5", "#### " + "1," * 200_000, "<answer>" * 100_000 + "7</answer>",
    "answer is (" * 100_000, "(A" * 200_000, "9" * 300_000, "-" * 300_000 + "0", "0." + "0" * 300_000,
])
def test_rewards_on_long_adversarial_strings_are_zero(text):
    for source in ("gsm8k", "arith", "bbh", "tagged", "aime2025"):
        assert correctness_reward([text], answer=["12"], source=[source]) == [0.0]


def test_math_numeric_holds_only_single_number_answers(shared_data):
    from course_lib.data import load_math

    for split in ("train", "test"):
        numeric = load_math(shared_data / "math", split, numeric_only=True)
        assert numeric
        commas = [p.answer.replace("{,}", ",").replace("\\,", ",") for p in numeric]  # LaTeX's separators too
        several = [answer for answer in commas if "," in answer
                   and not re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", answer.strip())]
        assert not several, several[:5]


def test_a_users_file_edited_after_its_table_was_estimated_is_refused_at_training(capsys, tmp_path):
    """Questions without an id are named by their line: a line inserted at the top would move every id."""
    rows = [{"question": f"{i}+1=?", "answer": str(i + 1)} for i in range(8)]
    mine = write_jsonl(tmp_path / "mine.jsonl", rows)
    table, ids = tmp_path / "t.csv", tmp_path / "ids.txt"
    status, _ = cli(capsys, "estimate", "--model", "tiny-s", "--task", f"jsonl:{mine}", "--split", "all", "--k", "2",
                    "--max-new-tokens", "8", "--no-cache", "--allow-zero", "--quiet", "--out", table)
    assert status == 0
    assert cli(capsys, "select", "--table", table, "--strategy", "hard", "--budget", "4", "--out", ids)[0] == 0
    write_jsonl(mine, [{"question": "9+9=?", "answer": "18"}] + rows)  # one line added at the top
    line = one_line_error(capsys, "train", "--model", "tiny-s", "--ids", ids, "--steps", "1", "--out", tmp_path / "run")
    assert f"{mine} changed after its difficulty table was estimated (its sha256 differs)" in line
    assert not (tmp_path / "run").exists()


def test_calibrate_write_keeps_a_calibration_measured_with_other_settings(capsys):
    """A committed model's calibration (n=500, K=8) is not replaced by a quick n=5, K=2 look: the manifest, 00's
    table and the figures read it. Refused before any sampling; the manifest's bytes are unchanged."""
    manifest = ROOT / "data" / "models" / "tiny-s" / "manifest.json"
    before = manifest.read_bytes()
    line = one_line_error(capsys, "calibrate", "--model", "tiny-s", "--n", "5", "--k", "2", "--write")
    assert line == ("error: --write would replace tiny-s's arith calibration, measured with other settings: n=5 (recorded: "
                    "500), k=2 (recorded: 8); measure with the recorded ones, or leave out --write to see the report")
    assert manifest.read_bytes() == before
    line = one_line_error(capsys, "calibrate", "--model", "tiny-s", "--task", "tinymath", "--n", "20", "--k", "2",
                          "--write")  # a task it has none of: not a quick look either (it would lock in a re-measure)
    assert line == ("error: --write would add a tinymath calibration to tiny-s's manifest measured unlike its other "
                    "tasks: n=20 (its others: 500), k=2 (its others: 8); measure as they were, or leave out --write to "
                    "see the report")
    assert manifest.read_bytes() == before


def test_calibrate_write_does_not_store_its_report_in_a_model_replaced_while_it_measured(capsys, tmp_path,
                                                                                           monkeypatch):
    """`pretrain --out M` finishing while `calibrate --model M --write` samples: the report measured the old weights
    and is not written into the new model's manifest (it was, with the old model's pass rates)."""
    import shutil

    import course_lib.research.calibration as calibration

    folder = tmp_path / "M"
    shutil.copytree(ROOT / "data" / "models" / "tiny-s", folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest.pop("calibration", None)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    measure = calibration.calibrate

    def measure_then_replace(*args, **kwargs):
        report = measure(*args, **kwargs)
        replaced = {**manifest, "sha256": {**manifest["sha256"], "model.safetensors": "0" * 64}}
        (folder / "manifest.json").write_text(json.dumps(replaced))  # what a pretrain into M writes meanwhile
        return report

    monkeypatch.setattr(calibration, "calibrate", measure_then_replace)
    line = one_line_error(capsys, "calibrate", "--model", str(folder), "--n", "5", "--k", "2", "--write", "--quiet")
    assert f"model={folder} was replaced while it was measured" in line
    assert "calibration" not in json.loads((folder / "manifest.json").read_text())


def test_calibration_targets_follow_the_model_not_the_spelling_of_its_name(tmp_path):
    """`calibrate --write --model data/models/tiny-s` (a path, or a copy) replaced the manifest's entry with one
    without its target verdicts: the targets were chosen by the name as typed."""
    import shutil

    from course_lib.__main__ import course_model_name
    from course_lib.research.calibration import check_targets

    shutil.copytree(ROOT / "data" / "models" / "tiny-s", tmp_path / "copy")
    report = {"task": "arith", "pass_rate_by_level": {str(level): 0.01 for level in range(1, 6)}, "share_mixed": 0.1}
    for spelling in ("tiny-s", str(ROOT / "data" / "models" / "tiny-s"), str(tmp_path / "copy")):
        assert course_model_name(spelling) == "tiny-s"
        assert check_targets(course_model_name(spelling), report) == {"level 5 pass rate <= 0.05": {"value": 0.01,
                                                                                                 "met": True}}


# ---------------------------------------------------------------------------
# Hostile round 17: what a parser or a reader took silently
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1_0", "+4", "\u0663", "nan", "inf", "1e400x", "0x10"])
def test_set_numbers_are_ascii_digits_only(value):
    """int() and float() take '1_0' (10), '+4', Arabic-Indic digits and 'nan': a pasted or mistyped value ran."""
    from course_lib.research.sweep import parse_overrides

    key = "STEPS" if value not in ("nan", "inf") else "LEARNING_RATE"
    with pytest.raises(CourseError, match=f"--set {key}=.*: {key} takes a"):
        parse_overrides([f"{key}={value}"])


def test_set_numbers_in_plain_spellings_still_parse():
    from course_lib.research.sweep import parse_overrides

    assert parse_overrides(["STEPS=-3", "LEARNING_RATE=3E-4", "BUDGET=.5"]) == {
        "STEPS": -3, "LEARNING_RATE": 3e-4, "BUDGET": 0.5}
    assert parse_overrides(["LEARNING_RATE=2.", "BUDGET=7"]) == {"LEARNING_RATE": 2.0, "BUDGET": 7}


def test_select_out_named_like_a_provenance_record_is_refused(capsys, tmp_path):
    table = tmp_path / "t.csv"
    table.write_text(TABLE)
    out = tmp_path / "t.csv.provenance.json"
    line = one_line_error(capsys, "select", "--table", table, "--strategy", "hard", "--budget", "1", "--out", out)
    assert "ends in .provenance.json" in line and not out.exists()


@pytest.mark.parametrize("command", ["select", "evaluate"])
def test_out_dash_is_refused_not_written_as_a_file_named_dash(capsys, tmp_path, monkeypatch, command):
    """`--out -` reads as "standard output" in many tools; here it wrote a file named '-' in the working folder."""
    monkeypatch.chdir(tmp_path)
    table = tmp_path / "t.csv"
    table.write_text(TABLE)
    args = (["--table", table, "--strategy", "hard", "--budget", "1"] if command == "select"
            else ["--model", "tiny-s", "--n", "2", "--k", "2"])
    line = one_line_error(capsys, command, *args, "--out", "-")
    assert "out=- would write a file named '-'" in line and not (tmp_path / "-").exists()


def test_a_table_naming_a_column_twice_is_refused_naming_it(capsys, tmp_path):
    """pandas reads the second `pass_rate` as `pass_rate.1`, and the selection used the first without a word."""
    table = tmp_path / "t.csv"
    table.write_text("id,level,pass_rate,pass_rate\na,1,0.5,0.9\nb,1,0.1,0.2\n")
    line = one_line_error(capsys, "select", "--table", table, "--strategy", "hard", "--budget", "1",
                          "--out", tmp_path / "ids.txt")
    assert "column 'pass_rate' appears twice in the header" in line


def test_k_from_numpy_is_a_whole_number_and_a_fraction_is_named():
    import numpy as np

    from course_lib.difficulty import check_k

    assert check_k(np.int64(8)) == 8 and type(check_k(np.int64(8))) is int
    for bad, says in ((2.0, "must be a whole number"), (True, "must be a whole number"), (np.int64(1), ">= 2")):
        with pytest.raises(CourseError, match=says):
            check_k(bad)


@pytest.mark.parametrize("answer", ["nan", "NaN", " None ", "<NA>", "null", "N/A"])
def test_a_missing_value_written_as_text_is_not_a_reference_answer(answer):
    from course_lib.answers import is_missing

    assert is_missing(answer) and not is_missing("0") and not is_missing("none of these")


def test_values_too_close_for_a_float_variance_are_refused():
    """Gains of 1e-160 and 2e-160 differ, but their variance underflows to 0: the interval had no width."""
    from course_lib.research.studies import equivalence_verdict

    with pytest.raises(CourseError, match="too little for their variance to be a float"):
        equivalence_verdict([1e-160, 2e-160, 3e-160], margin=0.03)
    assert equivalence_verdict([1e-2, 1.1e-2, 1.2e-2], margin=0.03)["ci_low"] > 0  # a measurable spread still reads
    assert equivalence_verdict([0.0, 1e-150, 0.0], margin=0.03)["mean"] == 0.0  # a spread of 1e-150 still reads


def test_generate_with_fewer_problems_than_levels_says_which_levels_are_empty(capsys):
    status = main(["generate", "--task", "arith", "--n", "2", "--levels", "1,2,3"])
    output = capsys.readouterr()
    assert status in (0, None) and len(output.out.splitlines()) == 2
    assert output.err.strip() == ("warning: --n 2 is fewer than the 3 levels, so level(s) 3 get no problem; give --n 3 "
                                  "or more for a problem of every level")


def test_a_small_tinymath_pool_warns_that_some_subjects_are_missing(capsys):
    """tinymath's four subjects take turns per level: --n 5 over 5 levels gives arithmetic only."""
    assert main(["generate", "--task", "tinymath", "--n", "5"]) in (0, None)
    output = capsys.readouterr()
    assert {json.loads(line)["subject"] for line in output.out.splitlines()} == {"arithmetic"}
    assert output.err.strip() == ("warning: --n 5 gives some levels fewer than tinymath's 4 subjects, so they hold "
                                  "only the first ones (arithmetic, fractions, expressions, equations); give --n 20 "
                                  "or more for every subject at every level")
    assert main(["generate", "--task", "tinymath", "--n", "20"]) in (0, None)
    assert capsys.readouterr().err == ""


def test_an_option_value_that_starts_with_a_minus_says_to_write_it_with_an_equals_sign(capsys):
    """argparse reads `--levels -1,1` as two options and says only 'expected one argument'."""
    with pytest.raises(SystemExit) as stop:
        main(["select", "--table", "t.csv", "--strategy", "levels", "--levels", "-1,1", "--budget", "1", "--out", "o"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == ("error: argument --levels: expected one argument; a value that starts with '-' "
                                       "is written --levels=VALUE (see `python -m course_lib select --help`)\n")


def test_the_librarys_compare_checks_the_rows_the_command_line_checks():
    """`course_lib.compare` counted a problem listed twice (5 problems as 6, an interval that then excluded 0) and
    read a pass_rate that disagrees with its counts; only the command line refused them."""
    from course_lib import compare

    rows = [{"id": i, "k": 2, "n_correct": n, "pass_rate": n / 2} for i, n in zip("abcde", (0, 1, 2, 1, 0))]
    base = [{**row, "n_correct": 0, "pass_rate": 0.0} for row in rows]
    assert compare({"per_problem": rows}, {"per_problem": base})["problems"] == 5
    with pytest.raises(CourseError, match="^after lists problem 'd' more than once"):
        compare({"per_problem": rows + [rows[3]]}, {"per_problem": base})
    with pytest.raises(CourseError, match="^before: problem 'a' has pass_rate 1.0 but 0 of 2 correct"):
        compare({"per_problem": rows}, {"per_problem": [{**base[0], "pass_rate": 1.0}, *base[1:]]})


def test_compare_and_the_statistics_take_their_numbers_as_a_student_passes_them():
    """Round 18: pass_k=True was read as pass@1, 2.5 raised a TypeError, 8 on K=4 named `k`; a numpy n_boot was
    refused as "not an integer"; a repeated label in before's index crashed; a dict of pass rates raised TypeError."""
    import numpy as np
    import pandas as pd

    from course_lib import compare, informative_share, paired_bootstrap

    rows = [{"id": i, "k": 4, "n_correct": n, "pass_rate": n / 4} for i, n in zip("abcd", (0, 1, 4, 2))]
    base = [{**row, "n_correct": 0, "pass_rate": 0.0} for row in rows]
    for bad in (True, 2.5, 0):
        with pytest.raises(CourseError, match=f"pass_k={bad!r} must be a whole number of samples >= 1"):
            compare({"per_problem": rows}, {"per_problem": base}, pass_k=bad)
    with pytest.raises(CourseError, match="pass_k=8 needs at least 8 samples per problem; problem 'a' has 4"):
        compare({"per_problem": rows}, {"per_problem": base}, pass_k=8)
    assert compare({"per_problem": rows}, {"per_problem": base}, pass_k=np.int64(2))["problems"] == 4
    assert paired_bootstrap([1.0, 0.0, 1.0], [0.0, 0.0, 1.0], n_boot=np.int64(1000))["problems"] == 3
    after, before = pd.Series([1.0, 0.0, 1.0], index=list("abc")), pd.Series([0.0, 0.0, 1.0], index=list("abb"))
    with pytest.raises(CourseError, match="give both over the same index"):
        paired_bootstrap(after, before)
    for bad in ({"a": 0.5}, {0.5, 0.2}):
        with pytest.raises(CourseError, match=f"pass_rates must be a list of pass rates, one per problem, not a "
                                              f"{type(bad).__name__}"):
            informative_share(bad, 8)


@pytest.mark.parametrize("command", [["estimate", "--model", "tiny-s", "--n", "4", "--k", "2", "--out", "t.csv"],
                                     ["reproduce", "hard-wins", "--profile", "smoke", "--out", "run"]])
def test_an_empty_cache_dir_is_refused_not_the_working_folder(capsys, tmp_path, monkeypatch, command):
    """`--cache-dir ''` (a script's "$CACHE" unset) cached into the working folder, as an empty COURSE_CACHE_DIR no
    longer does."""
    monkeypatch.chdir(tmp_path)
    line = one_line_error(capsys, *command, "--cache-dir", "")
    assert "argument --cache-dir: invalid folder value: ''" in line and not any(tmp_path.iterdir())


def test_per_level_accuracy_says_when_problems_without_a_level_are_left_out():
    """by_level silently dropped unlevelled problems (groupby drops NaN): its counts did not add up to overall's."""
    import pandas as pd

    from course_lib.evaluation import summarize_accuracy

    table = pd.DataFrame({"id": list("abcd"), "level": [1, 1, None, None], "k": [4] * 4, "n_correct": [0, 0, 4, 4],
                          "pass_rate": [0, 0, 1, 1.0]})
    with pytest.warns(UserWarning, match="2 of 4 problems have no level: the per-level accuracies leave them out"):
        result = summarize_accuracy(table)
    assert result["overall"]["problems"] == 4 and result["by_level"]["1"]["problems"] == 2


def test_pretrain_refuses_a_wordy_share_without_arith(capsys, tmp_path):
    """`--wordy-share 0.5 --tasks shuffle` recorded a setting that changed nothing (only arith has long solutions)."""
    line = one_line_error(capsys, "pretrain", "--size", "tiny-s", "--steps", "1", "--wordy-share", "0.5", "--tasks", "shuffle",
                          "--out", tmp_path / "m")
    assert "wordy_share=0.5 writes arith solutions the long way, and tasks=['shuffle'] has no arith" in line
    assert not (tmp_path / "m").exists()


def test_a_fraction_budget_below_one_problem_says_it_selects_one(tmp_path):
    """`select --budget 0.0000001` on 8 problems wrote one id in silence (the paper's floor would give none)."""
    table = tmp_path / "t.csv"
    table.write_text("id,level,pass_rate\n" + "".join(f"p{i},1,{i / 8}\n" for i in range(8)))
    with pytest.warns(UserWarning, match=r"budget=1e-07 of 8 problems is less than one problem; selecting 1"):
        status = main(["select", "--table", str(table), "--strategy", "hard", "--budget", "0.0000001",
                       "--out", str(tmp_path / "ids.txt")])
    assert status in (0, None) and (tmp_path / "ids.txt").read_text().split() == ["p0"]


def test_round_28_calibrate_says_when_too_few_problems_leave_its_targets_unchecked(capsys):
    """Hostile round 28: `calibrate --model tiny-m --n 3` printed a report with no targets and said nothing (and a
    report holding level 5 but not level 1 ended in a KeyError). Targets need every level; a note says so."""
    from course_lib.research.calibration import check_targets

    assert main(["calibrate", "--model", "tiny-m", "--n", "3", "--k", "2", "--max-new-tokens", "4", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["targets"] == {}
    assert "among --n 3, so tiny-m's calibration targets are not checked; give --n 50 or more" in captured.err
    assert main(["calibrate", "--model", "tiny-m", "--n", "5", "--k", "2", "--max-new-tokens", "4", "--quiet"]) == 0
    captured = capsys.readouterr()  # round 29: every level measured, each on one problem
    assert json.loads(captured.out)["targets"] and "--n 5 measures each level on about 1 problem(s)" in captured.err
    report = {"task": "arith", "share_mixed": 0.5, "pass_rate_by_level": {"5": 0.1, "2": 0.3}}
    assert check_targets("tiny-m", report) == {}
    report["pass_rate_by_level"] = {str(level): 0.5 - level / 10 for level in range(1, 6)}
    assert check_targets("tiny-m", report)["pass rate falls from level 1 to level 5"]["met"] is True


def test_the_largest_seed_numpy_accepts_is_a_seed():
    """check_seed's range is 0 to MAX_SEED (2**32 - 1) with both ends included; one more is refused by name."""
    from course_lib.errors import MAX_SEED
    from course_lib.tasks import generate

    assert len(generate("arith", 2, "train", seed=MAX_SEED)) == 2
    with pytest.raises(CourseError, match=r"^seed=4294967296 must be an integer from 0 to 4,294,967,295"):
        generate("arith", 2, "train", seed=MAX_SEED + 1)


@pytest.mark.parametrize("part", ["final", "checkpoint-2"])
def test_a_part_of_a_training_run_given_as_a_model_names_the_run_folder(capsys, tmp_path, part):
    """Round 30's left item: `evaluate --model RUN/final` (a LoRA adapter) said "holds no model (no config.json)" and
    listed the tiny names; the fix is the run folder, which loads the base model with the final adapter."""
    run = tmp_path / "run"
    (run / part).mkdir(parents=True)
    (run / "run_config.json").write_text("{}")
    (run / part / "adapter_config.json").write_text("{}")
    line = one_line_error(capsys, "evaluate", "--model", run / part, "--n", "2", "--k", "2", "--out", tmp_path / "e.json")
    assert f"is part of the training run {run}" in line and f"--model {run}" in line
    assert not (tmp_path / "e.json").exists()


def test_models_dir_set_to_a_training_run_is_named_as_such(monkeypatch, tmp_path):
    """Round 30's left item: COURSE_MODELS_DIR=RUN made `tiny-s` fail with advice to pretrain into the run folder."""
    from course_lib import models

    (tmp_path / "run_config.json").write_text("{}")
    monkeypatch.setattr(models, "MODELS_DIR", tmp_path)
    with pytest.raises(CourseError, match="COURSE_MODELS_DIR=.* is a training run's folder, not a folder of models"):
        models.resolve_model_path("tiny-s")


def test_estimate_from_python_refuses_greedy_sampling_with_several_samples():
    """Round 30's left item: the CLI refused `--temperature 0 --k 8`, but `estimate(..., temperature=0, k=8)` counted
    eight copies of one greedy answer as eight samples."""
    from course_lib.difficulty import estimate
    from course_lib.models import load_model
    from course_lib.problems import problems

    with pytest.raises(CourseError, match="temperature=0 samples greedily: all k=8 samples"):
        estimate(*load_model("tiny-s", device="cpu"), problems("arith", "train", 2, 0), k=8, temperature=0,
                 progress=False)


def test_a_jsonl_task_read_from_a_pipe_is_refused_naming_the_fix(tmp_path):
    """Round 30's left item: `--task jsonl:<(cat file)` said "data file /proc/.../pipe:[...] does not exist"; a pipe can
    be read once, and the file is read twice (fingerprint, rows)."""
    from course_lib.problems import absolute_task

    pipe = tmp_path / "fifo"
    os.mkfifo(pipe)
    with pytest.raises(CourseError, match=r"is not a regular file \(a device, pipe or socket\); a jsonl file is read "
                                          "more than once"):
        absolute_task(f"jsonl:{pipe}")
    assert absolute_task(f"jsonl:{tmp_path}") == f"jsonl:{tmp_path.resolve()}"  # a folder: refused later, by name
