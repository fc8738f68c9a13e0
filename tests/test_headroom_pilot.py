"""The headroom pilot (issue "A tiny world that can decide", item 1): its grid and the "shaped" training settings."""

import pytest

from course_lib import CourseError
from course_lib.research.experiment import Point, resolve, train_config, train_lora
from course_lib.research.sweep import expand


def test_headroom_pilot_grid_is_the_declared_one():
    points = expand("headroom-pilot", "tiny")
    assert {(p["LEARNING_RATE"], p["STEPS"]) for p in points} == {
        (lr, steps) for lr in (3e-4, 1e-3, 3e-3) for steps in (50, 100)}
    assert len(points) == 6
    for p in points:
        assert (p["MODEL"], p["TASK"], p["STRATEGY"], p["BUDGET"], p["TRAIN_SETTINGS"], p["POOL_SIZE"], p["SEED"]) == (
            "tiny-m", "arith", "random", 0.1, "shaped", 2500, 0)
    assert len(expand("headroom-pilot", "smoke")) == 2


def test_headroom_pilot_seeds_grid_is_the_declared_one():
    points = expand("headroom-pilot-seeds", "tiny")
    assert sorted((p["LEARNING_RATE"], p["SEED"]) for p in points) == sorted(
        [(3e-4, 1), (3e-4, 2), (1e-3, 1), (1e-3, 2), (1e-4, 0), (1e-4, 1), (1e-4, 2)])
    assert {(p["STEPS"], p["TRAIN_SETTINGS"], p["STRATEGY"], p["POOL_SIZE"]) for p in points} == {
        (100, "shaped", "random", 2500)}

    long = expand("headroom-pilot-long", "tiny")
    assert sorted((p["LEARNING_RATE"], p["STEPS"], p["SEED"]) for p in long) == [(1e-4, 300, 0), (3e-4, 300, 0)]


def test_shaped_settings_are_the_papers_optimizer_shape_with_a_clip_that_clips():
    point = resolve(Point(profile="tiny", model="tiny-m", task="arith", strategy="random", train_settings="shaped",
                          learning_rate=1e-3, steps=100))
    config, lora = train_config(point, 250), train_lora(point)
    assert (config.lr_scheduler_type, config.warmup_steps, config.weight_decay, config.adam_beta2) == (
        "cosine", 0.1, 0.1, 0.99)
    assert lora is not None and lora.lora_alpha == lora.r == 16
    assert config.max_grad_norm == 0.05  # below tiny-m's median grad norm with alpha = r (0.086)
    assert (config.learning_rate, config.max_steps, config.prompts_per_step) == (1e-3, 100, 8)
    default = train_config(resolve(Point(profile="tiny", strategy="random", train_settings="shaped")), 250)
    assert default.learning_rate == 3e-4 and default.max_steps == 41  # 1.3 epochs of 250 at 8 prompts per step


def test_course_settings_are_unchanged():
    point = resolve(Point(profile="tiny", strategy="random", train_settings="course"))
    config, lora = train_config(point, 250), train_lora(point)
    assert (config.lr_scheduler_type, config.warmup_steps, config.weight_decay, config.adam_beta2,
            lora.r, lora.lora_alpha, config.max_grad_norm, config.learning_rate) == (
        "constant", 0.0, 0.0, 0.999, 16, 32, 1.0, 3e-4)


def test_unknown_train_settings_name_the_shaped_option():
    with pytest.raises(CourseError, match="shaped"):
        resolve(Point(profile="tiny", train_settings="cosine"))


def test_regimes_hard_wins_long_is_the_41_step_studys_hard_and_random_arms_at_100_steps():
    """Its README claims each (model, arm, seed) trains on the same 250 problems as regimes-hard-wins: every
    parameter but STEPS must match."""
    def all_but_steps(points):
        return {tuple(sorted((k, v) for k, v in p.items() if k != "STEPS")) for p in points}

    long = expand("regimes-hard-wins-long", "tiny")
    assert len(long) == 32 and {p["STEPS"] for p in long} == {100}
    assert all_but_steps(long) <= all_but_steps(expand("regimes-hard-wins", "tiny"))
    assert [p["MODEL"] for p in long[:16]] == ["tiny-m-wordy"] * 16  # the format-limited regime runs first


def test_regimes_hard_wins_long_trained_on_the_41_step_studys_selections():
    from course_lib.research.studies import load_study

    keys = ["model", "strategy", "seed"]
    long, _ = load_study("regimes-hard-wins-long")
    short, _ = load_study("regimes-hard-wins")
    both = long.merge(short[short.steps == 41], on=keys, suffixes=("_long", "_short"))
    assert len(both) == len(long) == 32
    assert (both.selected_mean_pass_rate_long == both.selected_mean_pass_rate_short).all()
    assert (both["accuracy_before.test_long"] == both["accuracy_before.test_short"]).all()  # one base evaluation


def test_shaped_full_is_the_shaped_optimizer_with_every_weight_trained(tmp_path):
    """TRAIN_SETTINGS=shaped-full: the same schedule, clip and rate as "shaped", no LoRA; a point runs end to end
    and its final folder holds the whole model, not an adapter."""
    from course_lib.research.experiment import run_point

    shaped, full = (resolve(Point(profile="tiny", model="tiny-m", task="arith", strategy="random", train_settings=s,
                                  learning_rate=1e-4, steps=100)) for s in ("shaped", "shaped-full"))
    assert train_config(full, 250) == train_config(shaped, 250)
    assert train_lora(full) is None and train_lora(shaped) is not None
    record = run_point(Point(profile="smoke", model="tiny-s", task="arith", strategy="random", steps=2, seed=3,
                             train_settings="shaped-full", learning_rate=1e-5, run_dir=str(tmp_path / "run")))
    assert record["train_settings"] == "shaped-full" and record["steps"] == 2
    final = tmp_path / "run" / "final"
    assert (final / "model.safetensors").exists() and not (final / "adapter_config.json").exists()
