"""Profiles and the papers' settings."""

import pytest

from course_lib import CourseError
from course_lib.research.profiles import PROFILES, get_profile, paper_lora, paper_train_config


def test_profiles_grow_from_smoke_to_paper():
    smoke, tiny, paper = (PROFILES[n] for n in ("smoke", "tiny", "paper"))
    for field in ("n_problems", "train_steps", "eval_problems"):
        assert getattr(smoke, field) < getattr(tiny, field) < getattr(paper, field), field
    assert tiny.models == ("tiny-s", "tiny-m", "tiny-l") and paper.k == 10


def test_unknown_profile_lists_the_valid_ones():
    with pytest.raises(CourseError, match="PROFILE='laptop' is unknown; use one of smoke, tiny, paper"):
        get_profile("laptop")


def test_pikus_settings():
    config, lora = paper_train_config("2508.14094"), paper_lora("2508.14094")
    assert (lora.r, lora.lora_alpha, config.learning_rate) == (32, 32, 5e-6)
    assert (config.adam_beta2, config.weight_decay, config.warmup_steps, config.max_grad_norm) == (0.99, 0.1, 0.1, 0.1)
    assert config.lr_scheduler_type == "cosine" and config.num_generations == 8 and config.max_completion_length == 250
    assert config.max_steps == 1000 and set(lora.target_modules) == {
        "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}


@pytest.mark.parametrize(
    ("dataset", "size", "batch"),
    [("math", "0.5B", 20), ("math", "1.5B", 16), ("math", "3B", 12), ("gsm8k", "0.5B", 48), ("gsm8k", "3B", 32)],
)
def test_yadav_effective_batches(dataset, size, batch):
    config = paper_train_config("2604.06298", dataset=dataset, model_size=size)
    assert config.prompts_per_step == batch and paper_lora("2604.06298").r == 16


def test_paper_config_bad_input():
    with pytest.raises(CourseError, match="paper='1234' is unknown"):
        paper_train_config("1234")
    with pytest.raises(CourseError, match="paper='1234' is unknown"):
        paper_lora("1234")
    with pytest.raises(CourseError, match="model_size='7B' is not one of"):
        paper_train_config("2604.06298", model_size="7B")


@pytest.mark.parametrize(("model", "size"), [("Qwen/Qwen2.5-0.5B-Instruct", "0.5B"),
                                             ("/data/llama3B-baselines/Qwen2.5-0.5B-Instruct", "0.5B"),
                                             ("runs/3B-vs-0.5B/Qwen2.5-1.5B/", "1.5B")])
def test_a_models_size_is_read_from_its_own_name_not_its_folders(model, size):
    """Hostile round 22: a local Qwen2.5-0.5B under a folder named with 3B trained with the 3B model's batch."""
    from course_lib.research.profiles import model_size_of

    assert model_size_of(model) == size


@pytest.mark.parametrize("model", ["/models/tiny-m", "/models/Qwen2.5-3B-to-0.5B"])
def test_a_model_name_with_no_size_or_two_is_refused_naming_the_flag(model):
    from course_lib import CourseError
    from course_lib.research.profiles import model_size_of

    with pytest.raises(CourseError, match="set MODEL_SIZE"):
        model_size_of(model)
