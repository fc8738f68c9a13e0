"""One problem source: procedural tasks, the real datasets from a local folder, a user's own JSON Lines file."""

import json

import pytest
import torch

from course_lib import CourseError
from course_lib.answers import is_correct
from course_lib.difficulty import FULL_HASH_LIMIT, model_fingerprint
from course_lib.models import load_model
from course_lib.problems import from_spec, hash_split, pool_spec, problems
from course_lib.tasks import generate


def test_procedural_tasks_are_the_generators_problems():
    assert problems("arith", "test", 7, 3, levels=[2]) == generate("arith", 7, "test", 3, [2])


@pytest.mark.parametrize(("task", "split", "rows"), [
    ("gsm8k", "train", 7473), ("gsm8k", "test", 1319), ("math", "train", 7498), ("math", "test", 500),
    ("math-numeric", "test", 319), ("aime2025", "test", 30), ("bbh", "train", 605), ("bbh", "test", 145),
])
def test_every_real_split_loads_from_the_data_folder(task, split, rows, shared_data):
    # MATH train: 7,500 rows less the two whose \boxed{} is empty; numeric subset: 319 of MATH-500
    # (single numbers: `.35625` is one, the list `-2,1` is not)
    loaded = problems(task, split, data_dir=shared_data)
    assert len(loaded) == rows and len({p.id for p in loaded}) == rows


def test_bbh_train_and_test_never_share_a_prompt(shared_data):
    train, test = (problems("bbh", split, data_dir=shared_data) for split in ("train", "test"))
    assert not {p.prompt for p in train} & {p.prompt for p in test}
    assert {p.level for p in train} == {3, 5, 7} and all(hash_split(p.prompt) == "test" for p in test)


def test_a_sample_is_seeded_in_file_order_and_filtered_by_level(shared_data):
    first = problems("math", "train", 20, seed=1, levels=[1, 2], data_dir=shared_data)
    assert first == problems("math", "train", 20, seed=1, levels=[1, 2], data_dir=shared_data)
    assert first != problems("math", "train", 20, seed=2, levels=[1, 2], data_dir=shared_data)
    assert {p.level for p in first} <= {1, 2}
    every = [p.id for p in problems("math", "train", data_dir=shared_data)]
    assert [every.index(p.id) for p in first] == sorted(every.index(p.id) for p in first)


def test_the_data_folder_comes_from_the_environment(shared_data, monkeypatch):
    monkeypatch.setenv("COURSE_DATA_DIR", str(shared_data))
    assert len(problems("aime2025", "test")) == 30


def test_a_users_own_file(tmp_path):
    rows = [{"question": "2+2?", "answer": 4, "level": 1}, {"prompt": "Capital of France?", "answer": "Paris",
            "source": "math", "id": "q-paris"}, {"problem": "1/2 + 1/4?", "answer": "\\frac{3}{4}"}]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    mine = problems(f"jsonl:{path}", "all")
    assert [p.id for p in mine] == ["mine-0", "q-paris", "mine-2"] and mine[0].answer == "4"
    assert is_correct("so \\boxed{0.75}", mine[2].answer, mine[2].source)  # math-verify equivalence
    split = problems(f"jsonl:{path}", "train") + problems(f"jsonl:{path}", "test")
    assert sorted(p.id for p in split) == sorted(p.id for p in mine)


def test_a_pool_spec_rebuilds_the_same_pool(shared_data):
    spec = pool_spec("gsm8k", "train", 12, 5, levels=(2, 3), data_dir=shared_data, answer_format="boxed")
    assert json.loads(json.dumps(spec)) == spec
    pool = from_spec(spec)
    assert pool == from_spec(spec) and len(pool) == 12 and {p.answer_format for p in pool} == {"boxed"}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"task": "trivia"}, "task='trivia' is unknown"),
    ({"task": "aime2025", "split": "train"}, "AIME 2025 is for evaluation only"),
    ({"task": "gsm8k", "split": "ood"}, "split='ood' is not a split of gsm8k"),
    ({"task": "gsm8k", "n": 100_000}, "n=100000 is more than the 7473 problems"),
    ({"task": "gsm8k", "n": 0}, "n=0 must be a positive integer"),
    ({"task": "math", "levels": [9]}, "levels=9 leaves no math train problem"),
    ({"task": "arith"}, "n is required for the procedural task arith"),
    ({"task": "gsm8k", "answer_format": "xml"}, "answer_format='xml' is unknown"),
    ({"task": "jsonl:/no/such.jsonl", "split": "all"}, "does not exist"),
])
def test_bad_requests_are_clear_errors(kwargs, message, shared_data):
    with pytest.raises(CourseError, match=message.replace("(", r"\(").replace("[", r"\[")):
        problems(**{"split": "train", "data_dir": shared_data, **kwargs})


def test_a_data_folder_without_the_dataset_says_how_to_lay_it_out(tmp_path):
    with pytest.raises(CourseError, match="has no gsm8k/ folder; lay it out like ../shared/data"):
        problems("gsm8k", "test", data_dir=tmp_path)


def test_load_bbh_reads_one_file_once(shared_data):
    from course_lib.data import load_bbh

    one = load_bbh(shared_data / "bbh" / "tracking_shuffled_objects_five_objects.jsonl")
    assert len(one) == 250 and {p.level for p in one} == {5}


@pytest.mark.parametrize(("completion", "answer", "source", "answer_format", "expected"), [
    ("work\n#### 1,200", "1200", "gsm8k", None, True),
    ("so \\boxed{1200}", "1200", "gsm8k", "boxed", True),
    ("so \\boxed{1200}", "1200", "gsm8k", None, False),  # GSM8K's own format is '#### N'
    ("<answer>\\frac{1}{2}</answer>", "0.5", "math", "tagged", True),
    ("<answer>1</answer> or <answer>0.5</answer>", "0.5", "math", "tagged", False),  # several tags: a reward hack
    ("So the answer is B.", "(B)", "bbh", None, True),
    ("So the answer is (C).", "(B)", "bbh", None, False),
    ("#### C", "C", "shuffle", None, True),
])
def test_answers_are_found_by_format_and_compared_by_source(completion, answer, source, answer_format, expected):
    assert is_correct(completion, answer, source, answer_format) is expected


def test_the_weight_fingerprint_sees_any_change_and_samples_large_models(monkeypatch, standin_model):
    model, _ = load_model("tiny-s")
    before = model_fingerprint(model)
    with torch.no_grad():
        next(model.parameters()).view(-1)[-1] += 1e-3
    assert model_fingerprint(model) != before
    monkeypatch.setattr("course_lib.difficulty.FULL_HASH_LIMIT", 0)  # as if tiny-s were gigabytes
    sampled = model_fingerprint(model)
    with torch.no_grad():
        next(model.parameters()).view(-1)[1] += 1e-3  # an element the strided sample may skip: the exact sum sees it
    assert model_fingerprint(model) != sampled and FULL_HASH_LIMIT > 10**6
    folder = model_fingerprint(str(standin_model))
    assert folder == model_fingerprint(str(standin_model)) != model_fingerprint("Qwen/Qwen3-4B")


def _weights_with(values: dict[int, float], fill: float = 0.0) -> torch.nn.Module:
    """One 64x128 weight (8,192 numbers: a sampled fingerprint takes every other one) set to `fill`, then `values`."""
    layer = torch.nn.Linear(128, 64, bias=False)
    with torch.no_grad():
        layer.weight.fill_(fill)
        for index, value in values.items():
            layer.weight.view(-1)[index] = value
    return layer


def test_a_small_model_fingerprint_hashes_every_weight_not_a_sample():
    """A weight moved from one place to another keeps shape, dtype and sum: only hashing every weight sees it."""
    assert model_fingerprint(_weights_with({1: 1.0})) != model_fingerprint(_weights_with({3: 1.0}))


def test_the_same_weights_held_in_another_dtype_are_another_cache_entry():
    """Sampling in bfloat16 and in float32 differs: equal numbers (exact in both dtypes) never share a cache entry.
    (numpy has no bfloat16: its weights are hashed as float32 copies, beside the dtype's name.)"""
    layer = _weights_with({1: 1.0, 3: 0.5})
    assert model_fingerprint(layer) != model_fingerprint(_weights_with({1: 1.0, 3: 0.5}).to(torch.bfloat16))
    assert model_fingerprint(layer) == model_fingerprint(_weights_with({1: 1.0, 3: 0.5}))


def test_a_model_fingerprint_reads_its_settings_whatever_their_order_or_type():
    """The config enters the key as sorted JSON: the same settings listed in another order share a cache entry, and
    a value JSON has no type for (a torch dtype) is written as its text, not refused."""
    from transformers import PretrainedConfig

    def configured(**settings):
        layer = _weights_with({1: 1.0})
        layer.config = PretrainedConfig(**settings)
        return layer

    assert model_fingerprint(configured(rope_theta=1e4, sliding_window=64)) == \
        model_fingerprint(configured(sliding_window=64, rope_theta=1e4))
    assert model_fingerprint(configured(rope_theta=1e4, sliding_window=64)) != \
        model_fingerprint(configured(rope_theta=1e4, sliding_window=32))
    assert model_fingerprint(configured(head_dtype=torch.bfloat16)) != \
        model_fingerprint(configured(head_dtype=torch.float32))


def test_a_large_model_fingerprint_sums_its_weights_in_float64(monkeypatch):
    """A sampled model is told apart by exact sums: 2**-24 beside 8,191 ones, at a place the sample skips, is lost
    in a float32 sum but not in a float64 one."""
    monkeypatch.setattr("course_lib.difficulty.FULL_HASH_LIMIT", 0)
    before, after = _weights_with({1: 0.0}, fill=1.0), _weights_with({1: 2.0**-24}, fill=1.0)
    assert model_fingerprint(before) != model_fingerprint(after)


def test_a_model_folder_fingerprint_reads_names_sizes_times_headers_and_a_sample_of_each_tensor(tmp_path):
    """Hostile round 26: two folders whose weights differ, with the same names, sizes, times and header, shared one
    difficulty-cache key under vLLM (the bytes were not read); each tensor's first, middle and last 4 KB are now."""
    import hashlib
    import os

    from course_lib.difficulty import _files_fingerprint

    assert _files_fingerprint("Qwen/Qwen3-4B") == hashlib.sha256(b"hub:Qwen/Qwen3-4B").hexdigest()  # not a folder
    folder = tmp_path / "model"
    folder.mkdir()
    header = b'{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}'
    weights = folder / "model.safetensors"

    def write(header_bytes, data):  # same size and modification time every time: only the bytes differ
        weights.write_bytes(len(header_bytes).to_bytes(8, "little") + header_bytes + data)
        os.utime(weights, ns=(1_000_000_000, 1_000_000_000))

    write(header, b"\0" * 8)
    first = _files_fingerprint(folder)
    assert first != _files_fingerprint("Qwen/Qwen3-4B")
    write(header, b"\1" * 8)  # other weights, same header, size and time: the sample differs
    assert _files_fingerprint(folder) != first
    before = _files_fingerprint(folder)
    (folder / "chat_template.jinja").write_text("{{ messages }}")  # another template: other prompts' tokens
    assert _files_fingerprint(folder) != before
    (folder / "chat_template.jinja").unlink()
    write(header.replace(b"[2]", b"[1]"), b"\0" * 8)  # another header (a shape), same size
    assert _files_fingerprint(folder) != first
    write(header, b"\0" * 8)
    (folder / "README.md").write_text("not a weight file")
    assert _files_fingerprint(folder) == first
    (folder / "extra.bin").write_bytes(b"\0" * 4)  # a second weight file counts
    with_bin = _files_fingerprint(folder)
    assert with_bin != first
    os.utime(folder / "extra.bin", ns=(2_000_000_000, 2_000_000_000))  # rewritten: a new time
    assert _files_fingerprint(folder) != with_bin


def test_a_pool_rebuilt_from_another_copy_of_a_dataset_is_refused(shared_data, tmp_path, monkeypatch):
    """GSM8K ids are line numbers: a table estimated under one copy of the data and trained on under another (rows in
    another order) named other questions with the same ids. Tables, ids and evaluations record the problems' sha256,
    and rebuilding the pool from other data is refused; the same data rebuilds it."""
    from course_lib.problems import fingerprinted, from_spec, pool_spec

    for name, reverse in (("one", False), ("other", True)):
        (tmp_path / name / "gsm8k").mkdir(parents=True)
        rows = (shared_data / "gsm8k" / "train.jsonl").read_text().splitlines(keepends=True)
        (tmp_path / name / "gsm8k" / "train.jsonl").write_text("".join(rows[::-1] if reverse else rows))
        (tmp_path / name / "gsm8k" / "test.jsonl").write_text((shared_data / "gsm8k" / "test.jsonl").read_text())
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path / "one"))
    spec = pool_spec("gsm8k", "train", 8, 0)
    recorded = fingerprinted(spec, from_spec(spec))
    assert [p.id for p in from_spec(recorded)] == [p.id for p in from_spec(spec)]
    monkeypatch.setenv("COURSE_DATA_DIR", str(tmp_path / "other"))
    with pytest.raises(CourseError, match=r"the pool of task='gsm8k' \(train\) now holds other questions"):
        from_spec(recorded)


def test_a_jsonl_draw_does_not_depend_on_the_folder_the_file_sits_in(tmp_path):
    """The same file with the same n and seed drew other problems in another folder (the draw was seeded by its
    absolute path): a student's copy or another machine got another pool."""
    from course_lib.tasks import generate

    text = "\n".join(json.dumps({"id": p.id, "question": p.prompt, "answer": p.answer, "source": "arith"})
                     for p in generate("arith", 30, "train", 0))
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "mine.jsonl").write_text(text + "\n")
    drawn = [[p.id for p in problems(f"jsonl:{tmp_path / folder / 'mine.jsonl'}", "all", 5, 3)] for folder in ("one", "two")]
    assert drawn[0] == drawn[1] and len(set(drawn[0])) == 5
