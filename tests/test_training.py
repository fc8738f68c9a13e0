"""GRPO training over TRL: run folder, metrics, ledger, resume, dynamic sampling, bad input."""

import functools
import json
import re
import shutil
from decimal import Decimal

import numpy as np
import pytest
from conftest import ADAPTER, flip_byte, nan_fill, rehash_final, truncate
from conftest import FAST_TRAINING as FAST  # the shared fixtures' settings

import course_lib.training as training
from course_lib import CourseError
from course_lib.models import MODELS_DIR, weights_sha256
from course_lib.training import (
    CourseConfig,
    check_base,
    course_lora,
    load_trained,
    micro_batches,
    read_jsonl_log,
    run_args,
    same_folder,
    train_grpo,
)


def test_run_folder_has_weights_metrics_and_ledger(finished_run, problems):
    out, summary = finished_run
    assert summary["steps"] == 2 and summary["lora"] is True
    assert (out / "final" / "adapter_config.json").exists()
    metrics = read_jsonl_log(out / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [1, 2]
    for key in ("reward", "reward_std", "frac_reward_zero_std", "completions/mean_length", "grad_norm"):
        assert key in metrics[0], key
    ledger = read_jsonl_log(out / "ledger.jsonl")
    assert [row["step"] for row in ledger] == [1, 1, 2, 2]  # two prompt groups per step
    assert {row["problem_id"] for row in ledger} <= {p.id for p in problems}
    # the ledger and TRL's own metric agree on the share of dead groups at each step
    for step in (1, 2):
        dead = [row["reward_std"] == 0 for row in ledger if row["step"] == step]
        assert sum(dead) / len(dead) == pytest.approx(metrics[step - 1]["frac_reward_zero_std"])
    run = json.loads((out / "run_config.json").read_text())
    assert run["config"]["num_generations"] == 4 and run["versions"]["trl"]
    assert run["config"]["peft_config"]["r"] == 16  # the LoRA settings, as PEFT's LoraConfig names them


def test_a_finished_run_says_what_it_trained_and_how(finished_run):
    """The summary's every field, the LoRA adapter's settings as course_lora gives them, and the saved tokenizer."""
    out, summary = finished_run
    assert summary.keys() == {"model", "steps", "seconds", "lora", "resumed_from", "processes", "final_sha256"}
    assert (summary["model"], summary["steps"], summary["lora"], summary["resumed_from"], summary["processes"]) == \
        ("tiny-s", 2, True, None, 1)
    assert isinstance(summary["seconds"], float) and 0 < summary["seconds"] < 3600
    assert summary["seconds"] == round(summary["seconds"], 1)
    assert json.loads((out / "summary.json").read_text()) == summary
    adapter = json.loads((out / "final" / "adapter_config.json").read_text())
    lora = course_lora()
    assert (adapter["r"], adapter["lora_alpha"], adapter["lora_dropout"], adapter["bias"], adapter["task_type"]) == \
        (lora.r, lora.lora_alpha, 0.0, "none", "CAUSAL_LM") == (16, 32, 0.0, "none", "CAUSAL_LM")
    assert sorted(adapter["target_modules"]) == sorted(lora.target_modules) == sorted(training.LORA_TARGETS)
    saved = json.loads((out / "final" / "tokenizer_config.json").read_text())
    assert saved["padding_side"] == "left"  # prompts padded on the left: generation continues each one


class Stopped(Exception):
    pass


class RecordingTrainer:
    """Stands in for TRL's trainer: records how train_grpo built and set it up; `train` stops there, unless
    `save_fails`, where it returns and saving final/ fails as a full disk would."""

    save_fails = False

    def __init__(self, dynamic_sampling, **arguments):
        self.dynamic_sampling, self.arguments, self.added = dynamic_sampling, arguments, []

    def remove_callback(self, callback):
        pass

    def add_callback(self, callback):
        self.added.append(callback)

    def train(self, resume_from_checkpoint=None):
        if not self.save_fails:
            raise Stopped(self)

    def save_model(self, folder):
        raise OSError(28, "No space left on device")


def test_a_failed_final_save_is_one_line_naming_final(problems, tmp_path, monkeypatch):
    monkeypatch.setattr(RecordingTrainer, "save_fails", True)
    monkeypatch.setattr(training, "_trainer_class", lambda dynamic: functools.partial(RecordingTrainer, dynamic))
    with pytest.raises(CourseError, match=rf"^could not save final/ in {tmp_path / 'run'} \(No space left on device\); "
                                          r"free disk space or make the folder writable, then run the same command "
                                          r"again: it starts again$"):
        train_grpo("tiny-s", problems, CourseConfig(**FAST), tmp_path / "run", progress=False)


def test_the_trainer_is_built_from_the_config(standin_model, problems, tmp_path, monkeypatch):
    """What train_grpo hands TRL (stopped before training): the dynamic-sampling trainer when asked, the ledger reward
    with the config's group size and format weight, and each prompt as a conversation in the chat model's template."""
    from course_lib.models import load_tokenizer
    from course_lib.prompts import model_input

    monkeypatch.setattr(training, "_trainer_class", lambda dynamic: functools.partial(RecordingTrainer, dynamic))
    config = CourseConfig(**{**FAST, "format_weight": 0.5, "dynamic_sampling": True, "dynamic_max_rounds": 3})
    with pytest.raises(Stopped) as built:
        train_grpo(str(standin_model), problems, config, tmp_path / "run", progress=True)
    trainer = built.value.args[0]
    dynamic_sampling, arguments = trainer.dynamic_sampling, trainer.arguments
    assert trainer.course_max_rounds == 3 and len(trainer.added) == 1  # the progress bar
    assert type(trainer.added[0]).__name__ == type(training._progress_callback()).__name__
    ledger = arguments["reward_funcs"][0]
    assert dynamic_sampling is True and (ledger.group_size, ledger.format_weight) == (4, 0.5)
    tokenizer = load_tokenizer(str(standin_model))
    prompts = [model_input(p, tokenizer) for p in problems]
    assert arguments["train_dataset"]["prompt"] == prompts and isinstance(prompts[0], list)  # a conversation
    lora = arguments["peft_config"]
    assert (lora.r, lora.lora_alpha, lora.lora_dropout, lora.bias, lora.task_type, sorted(lora.target_modules)) == \
        (16, 32, 0.0, "none", "CAUSAL_LM", sorted(training.LORA_TARGETS))
    assert arguments["args"].num_generations == 4 and arguments["args"].output_dir == str(tmp_path / "run")
    assert arguments["processing_class"].padding_side == "left"


def test_the_run_records_its_base_once_loaded_and_its_answer_format(problems, tmp_path, monkeypatch):
    """run_config.json, written before the first step: the base's fingerprint (a hub model's once loading it has put
    it in the cache) and the pool's answer format, which evaluate reads back."""
    import course_lib.models as models

    real, asked = models.weights_sha256, []

    def hub_model(name):  # not in the cache until load_model fetches it
        asked.append(name)
        return real(name) if len(asked) > 1 else None

    monkeypatch.setattr(training, "weights_sha256", hub_model)
    monkeypatch.setattr(training, "_trainer_class", lambda dynamic: functools.partial(RecordingTrainer, dynamic))
    with pytest.raises(Stopped):
        train_grpo("tiny-s", problems, CourseConfig(**FAST), tmp_path / "run", progress=False)
    run = json.loads((tmp_path / "run" / "run_config.json").read_text())
    assert asked == ["tiny-s", "tiny-s"] and run["base_sha256"] == real("tiny-s")
    assert run["answer_format"] == "hash"


def test_the_vllm_engine_is_sized_by_the_longest_prompt_and_the_bars_follow_progress(problems, tmp_path, monkeypatch):
    """A colocated vLLM engine holds the longest prompt and a completion, not the model's whole context; without vLLM
    nothing is sized. progress=False turns the bars off."""
    from course_lib.training import longest_prompt

    monkeypatch.setattr(training, "_trainer_class", lambda dynamic: functools.partial(RecordingTrainer, dynamic))
    built = {}
    for use_vllm, progress in ((True, True), (False, False)):
        with pytest.raises(Stopped) as stopped:
            train_grpo("tiny-s", problems, CourseConfig(**{**FAST, "use_vllm": use_vllm}), tmp_path / str(use_vllm),
                       progress=progress)
        args = stopped.value.args[0].arguments["args"]
        built[use_vllm] = (args.vllm_max_model_length, args.disable_tqdm)
    assert built == {True: (longest_prompt(problems, "tiny-s") + 48, False), False: (None, True)}


def test_a_run_whose_probabilities_become_nan_stops_with_one_line(problems, tmp_path, monkeypatch):
    import types

    class Diverging(RecordingTrainer):
        state = types.SimpleNamespace(global_step=2)  # two steps done: the third diverged
        error = "probability tensor contains either `inf`, `nan` or element < 0"

        def train(self, resume_from_checkpoint=None):
            raise RuntimeError(self.error)

    monkeypatch.setattr(training, "_trainer_class", lambda dynamic: functools.partial(Diverging, dynamic))
    config = CourseConfig(**{**FAST, "learning_rate": 0.9})
    with pytest.raises(CourseError, match=r"^training diverged at step 3: its policy's probabilities became NaN or inf "
                                          r"\(learning_rate=0\.9\); lower the learning rate and train into a new "
                                          rf"folder, or delete {re.escape(str(tmp_path / 'a'))}$"):
        train_grpo("tiny-s", problems, config, tmp_path / "a", progress=False)
    monkeypatch.setattr(Diverging, "error", "CUDA error: an illegal memory access was encountered")
    with pytest.raises(RuntimeError, match="^CUDA error: an illegal memory access"):  # any other error as it was
        train_grpo("tiny-s", problems, config, tmp_path / "b", progress=False)


@pytest.mark.parametrize(("processes", "dynamic_sampling", "refused"), [(2, True, True), (2, False, False),
                                                                      (1, True, False)])
def test_dynamic_sampling_is_refused_over_several_processes(problems, tmp_path, monkeypatch, processes,
                                                            dynamic_sampling, refused):
    import types

    launched = types.SimpleNamespace(world_size=processes, process_index=0)  # as `accelerate launch` would set
    monkeypatch.setattr(training, "run_args", lambda *args, **kwargs: launched)
    config = CourseConfig(**{**FAST, "dynamic_sampling": dynamic_sampling})
    refusal = "^dynamic_sampling=True needs a single process: each process would refill its own groups$"
    with pytest.raises(CourseError if refused else AttributeError, match=refusal if refused else "main_process_first"):
        train_grpo("tiny-s", problems, config, tmp_path / "run", progress=False)  # accepted: it runs on to where the stand-in stops


def test_a_name_the_training_module_lacks_is_named():
    with pytest.raises(AttributeError, match="^module 'course_lib.training' has no attribute 'train_grop'$"):
        training.train_grop  # noqa: B018 (a typo of train_grpo)


def test_a_run_and_a_model_name_load_on_the_device_asked_for(finished_run, monkeypatch):
    import course_lib.models

    asked, load_model = [], course_lib.models.load_model
    monkeypatch.setattr(training, "load_model",
                        lambda name, device=None: asked.append((name, device)) or load_model(name, device=device))
    load_trained(str(finished_run[0]), device="cpu")
    load_trained("tiny-s", device="cpu")
    assert asked == [("tiny-s", "cpu"), ("tiny-s", "cpu")]  # never the loader's own choice (a GPU where there is one)


def test_trained_adapter_merges_into_the_base(finished_run):
    out, _ = finished_run
    model, tokenizer = load_trained(str(out))
    assert type(model).__name__ == "Qwen2ForCausalLM" and tokenizer.padding_side == "left"


def test_resume_after_a_kill_continues_from_the_last_checkpoint(finished_run, problems, tmp_path):
    out = tmp_path / "resumed"
    shutil.copytree(finished_run[0], out)
    shutil.rmtree(out / "checkpoint-2")  # killed after the checkpoint of step 1 ...
    shutil.rmtree(out / "final")  # ... before the end; metrics.jsonl still holds step 2's line
    rows = (out / "metrics.jsonl").read_text().splitlines()
    (out / "metrics.jsonl").write_text("\n".join([json.dumps({**json.loads(rows[0]), "elapsed_seconds": 1000.0}),
                                                  *rows[1:]]) + "\n")  # step 1 took 1000 s before the kill
    with pytest.warns(UserWarning, match="is missing; finishing the run again from its last complete checkpoint"):
        summary = train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False)
    assert summary["resumed_from"] == 1 and summary["steps"] == 2
    metrics = read_jsonl_log(out / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [1, 2]
    # the run's training time goes on from the checkpoint's: its earlier process's seconds are counted
    assert metrics[0]["elapsed_seconds"] == 1000.0 < metrics[1]["elapsed_seconds"] < 1000 + 3600
    assert 1000 < summary["seconds"] < 1000 + 3600


def test_a_run_is_not_resumed_on_a_base_that_changed_since(finished_run, problems, tmp_path, monkeypatch):
    import course_lib.models as models

    out = tmp_path / "resumed"
    shutil.copytree(finished_run[0], out)
    shutil.rmtree(out / "final")  # killed before the end: a rerun resumes from its last checkpoint
    (out / "summary.json").unlink()
    real = models.weights_sha256
    monkeypatch.setattr(training, "weights_sha256", lambda name: {**real(name), "model.safetensors": "b" * 64})
    monkeypatch.setattr(training, "_trainer_class", lambda dynamic: functools.partial(RecordingTrainer, dynamic))
    with pytest.raises(CourseError, match=f"^the base model tiny-s that {re.escape(str(out))} was trained on has "
                                          r"changed since: its model\.safetensors has sha256 bbbbbbbbbbbb\.\.\. "):
        train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False)


def test_a_run_resumed_after_an_upgrade_warns_naming_its_folder_and_step(finished_run, problems, tmp_path,
                                                                         monkeypatch):
    """train_grpo itself warns before resuming a run started with other library versions (the warning's wording:
    test_a_run_resumed_by_other_library_versions_or_code_is_warned_about)."""
    class Stop(Exception):
        pass

    out = tmp_path / "resumed"
    shutil.copytree(finished_run[0], out)
    shutil.rmtree(out / "final")  # killed before the end: a rerun resumes from its checkpoint of step 2
    (out / "summary.json").unlink()
    now = training.library_versions()
    monkeypatch.setattr(training, "library_versions", lambda: {**now, "trl": "99.0"})

    def stop(*args, **kwargs):
        raise Stop  # nothing is trained: the warning comes before the run's arguments are built

    monkeypatch.setattr(training, "run_args", stop)
    with pytest.warns(UserWarning, match=rf"^out={re.escape(str(out))} resumes at step 2 a run started with other "
                                         rf"or unknown code \(trl {re.escape(now['trl'])} -> 99\.0"), \
            pytest.raises(Stop):
        train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False)


@pytest.mark.parametrize("change", ["config", "model", "problems", "problem order"])
def test_a_folder_with_a_different_run_is_refused(finished_run, problems, change):
    """A folder holding another run (another config, model, or problems, even the same ones in another order) is
    never resumed or returned as this run's: one line, before any training."""
    model, config, pool = "tiny-s", CourseConfig(**FAST), list(problems)
    if change == "config":
        config = CourseConfig(**{**FAST, "learning_rate": 1e-5})
    elif change == "model":
        model = "tiny-m"
    elif change == "problems":
        pool = pool[:-1]
    else:
        pool = pool[::-1]
    said = {"config": "learning_rate=1e-05 (the run's: 0.0003)", "model": "model='tiny-m' (the run's: 'tiny-s')",
            "problems": "11 problems (the run's: 12, not the same ids)", "problem order": "other problems (ids or order)"}
    with pytest.raises(CourseError, match=f"^out={re.escape(str(finished_run[0]))} holds a run with a different "
                                          rf"config, model or problems \({re.escape(said[change])}\); its run is "
                                          r"kept: train this config into a new folder \(or give the run's own "
                                          r"settings to resume it\)$"):
        train_grpo(model, pool, config, finished_run[0])


def test_dynamic_sampling_refills_dead_groups(problems, tmp_path):
    out = tmp_path / "dynamic"
    # G=8 on these problems: the first round has one live group of two, so there is something to refill
    config = CourseConfig(**{**FAST, "num_generations": 8, "max_completion_length": 32, "max_steps": 1,
                             "dynamic_sampling": True, "dynamic_max_rounds": 4})
    train_grpo("tiny-s", problems, config, out, progress=False)
    metrics = read_jsonl_log(out / "metrics.jsonl")[0]
    ledger = read_jsonl_log(out / "ledger.jsonl")  # every generation round's groups, in order
    assert len(ledger) > 2 and len(ledger) % 2 == 0  # it generated again: more groups than the step's two prompts
    first_round_dead = sum(row["reward_std"] == 0 for row in ledger[:2]) / 2
    alive = sum(row["reward_std"] > 0 for row in ledger)
    assert metrics["dynamic/alive_groups_found"] == alive >= 2
    # the batch trained on is live, though the first round alone had dead groups
    assert metrics["dynamic/frac_dead_after_filter"] == 0.0 < first_round_dead
    assert metrics["dynamic/rounds"] == len(ledger) / 2  # each round generated the step's two prompts' groups
    # pinned: the seeded run (the same on every run here): rounds of 1, 0 and 1 live groups
    assert [row["reward_std"] > 0 for row in ledger] == [False, True, False, False, False, True]


@pytest.mark.slow
def test_full_fine_tuning_writes_full_weights(problems, tmp_path):
    out = tmp_path / "full"
    train_grpo("tiny-s", problems, CourseConfig(**{**FAST, "max_steps": 1, "learning_rate": 3e-5}), out,
               peft_config=None, progress=False)
    assert (out / "final" / "model.safetensors").exists()
    model, _ = load_trained(str(out))
    assert type(model).__name__ == "Qwen2ForCausalLM"


@pytest.mark.parametrize(("override", "message"), [
    ({"num_generations": 1}, "num_generations=1 must be from 2 to 1,024: GRPO compares completions within a group "
                             "(8 is usual)"),
    ({"num_generations": 100_000}, "num_generations=100000 must be from 2 to 1,024: GRPO compares completions within "
                                   "a group (8 is usual)"),
    ({"loss_type": "ppo"}, "loss_type='ppo' is unknown; use one of dapo, grpo, bnpo, dr_grpo"),
    ({"scale_rewards": "max"}, "scale_rewards='max' is unknown; use one of group, batch, none"),
    ({"max_steps": 0}, "max_steps=0 must be from 1 to 1,000,000"),
    ({"max_steps": 10_000_000_000_000}, "max_steps=10000000000000 must be from 1 to 1,000,000"),
    ({"dynamic_sampling": 1}, "dynamic_sampling=1 must be True or False"),
    ({"max_steps": 2.0}, "max_steps=2.0 must be a finite int"),
    ({"learning_rate": True}, "learning_rate=True must be a finite float"),
    ({"learning_rate": float("nan")}, "learning_rate=nan must be a finite float"),
    ({"learning_rate": 0.0}, "learning_rate=0.0 must be in (0, 1] (LoRA on the tiny models: 3e-4; full fine-tuning: "
                             "~3e-5); larger steps make the weights NaN"),
    ({"learning_rate": 1e30}, "learning_rate=1e+30 must be in (0, 1] (LoRA on the tiny models: 3e-4; full fine-tuning: "
                              "~3e-5); larger steps make the weights NaN"),
    ({"seed": 99999999999999999999}, "seed=99999999999999999999 must be from 0 to 4,294,967,295 (numpy's seed range)"),
    ({"seed": -1}, "seed=-1 must be from 0 to 4,294,967,295 (numpy's seed range)"),
    ({"temperature": 1e-40}, "temperature=1e-40 must be from 0.001 to 100: GRPO samples its groups (1.0 is usual)"),
    ({"epsilon": 0}, "epsilon=0 must be in (0, 10] (the clipping range; 0.2 is usual)"),
    ({"lr_scheduler_type": "bogus"}, "lr_scheduler_type='bogus' is unknown; use one of {transformers' schedules}"),
    ({"prompts_per_step": 0}, "prompts_per_step=0 must be from 1 to 65,536"),
    ({"prompts_per_step": 65_536, "num_generations": 1024}, "prompts_per_step=65536 x num_generations=1024 is "
     "67,108,864 "
     "completions per step, more than 1,048,576; use fewer prompts per step or a smaller group"),
    ({"format_weight": -0.5}, "format_weight=-0.5 must be in [0, 100] (0: correctness alone)"),
    ({"max_completion_length": 0}, "max_completion_length=0 must be from 1 to 131,072 tokens"),
    ({"save_steps": 0}, "save_steps=0 must be from 1 to 1,000,000"),
    ({"save_steps": 2.5}, "save_steps=2.5 must be from 1 to 1,000,000"),
    ({"warmup_steps": 1.5}, "warmup_steps=1.5 must be a share of max_steps in [0, 1) or a whole number of steps"),
    ({"warmup_steps": -1}, "warmup_steps=-1 must be a share of max_steps in [0, 1) or a whole number of steps"),
    ({"adam_beta2": 1.0}, "adam_beta2=1.0 must be in [0, 1) (0.999 or 0.99)"),
    ({"vllm_gpu_memory_utilization": 0.0}, "vllm_gpu_memory_utilization=0.0 must be in (0, 1]"),
    ({"vllm_gpu_memory_utilization": 1.5}, "vllm_gpu_memory_utilization=1.5 must be in (0, 1]"),
    ({"dynamic_max_rounds": 0}, "dynamic_max_rounds=0 must be from 1 to 1,000 (4 is usual)"),
    ({"micro_batch_prompts": -1}, "micro_batch_prompts=-1 must be >= 0 (0: the whole step at once)"),
    ({"activation_checkpointing": "yes"}, "activation_checkpointing='yes' must be True, False or None"),
    ({"prompts_per_step": 4, "micro_batch_prompts": 3},
     "prompts_per_step=4 does not split into micro-batches of micro_batch_prompts=3; use a divisor of prompts_per_step"),
    ({"save_only_model": True}, "save_only_model=True saves checkpoints without the optimizer state a killed run "
     "resumes from; leave it out (fewer checkpoints: raise save_steps or set save_total_limit)"),
    ({"ignore_data_skip": True}, "ignore_data_skip=True would resume a killed run on the prompts it already trained "
     "on, not on those an uninterrupted run sees next; leave it out"),
    ({"resume_from_checkpoint": "run/checkpoint-1"}, "resume_from_checkpoint='run/checkpoint-1': a run resumes from "
     "the newest checkpoint in its own folder when the same train command runs again; leave it out"),
    ({"auto_find_batch_size": True}, "auto_find_batch_size is not supported by GRPO, because the generation batch "
     "must contain full prompt groups of num_generations completions, and reducing the batch size on out-of-memory "
     "breaks this invariant. Set auto_find_batch_size=False and lower per_device_train_batch_size instead. "
     "(trl.GRPOConfig)"),  # TRL's own check, one line
    ({"eval_strategy": "steps"}, "eval_strategy='steps': train_grpo has no evaluation set during training; leave it "
     "out and evaluate the finished run (`evaluate`, or `course_lib.evaluate`)"),
    ({"push_to_hub": True}, "push_to_hub=True: the course trains offline and keeps a run in its own folder; leave it "
     "out (upload the finished run yourself)"),
], ids=lambda value: "+".join(value) if isinstance(value, dict) else "")  # field names: no quotes in an id
def test_each_bad_setting_is_one_whole_message(override, message):
    """The whole message, not only its key phrase: a check whose message is lost or whose bound moves is caught."""
    from transformers.trainer_utils import SchedulerType

    with pytest.raises(CourseError) as refused:
        CourseConfig(**override)
    assert str(refused.value) == message.replace("{transformers' schedules}", ", ".join(s.value for s in SchedulerType))


def test_course_config_is_trls_grpo_config_and_restates_none_of_its_settings():
    """CourseConfig is TRL's GRPOConfig: it adds only what GRPOConfig lacks, and sets TRL's own fields under TRL's
    names (no group_size for num_generations, no steps for max_steps); its LoRA is TRL's ModelConfig's fields."""
    import dataclasses

    from trl import GRPOConfig, ModelConfig

    from course_lib.training import CourseModelConfig

    assert issubclass(CourseConfig, GRPOConfig) and issubclass(CourseModelConfig, ModelConfig)
    added = {f.name for f in dataclasses.fields(CourseConfig)} - {f.name for f in dataclasses.fields(GRPOConfig)}
    assert added == {"prompts_per_step", "micro_batch_prompts", "format_weight", "dynamic_sampling", "dynamic_max_rounds"}
    assert {f.name for f in dataclasses.fields(CourseModelConfig)} == {f.name for f in dataclasses.fields(ModelConfig)}
    config = CourseConfig()
    for old in ("group_size", "steps", "warmup_ratio", "lora", "lora_rank", "lora_target_modules", "extra"):
        assert not hasattr(config, old), old
    assert isinstance(config, GRPOConfig) and (config.num_generations, config.max_steps, config.learning_rate,
                                               config.lr_scheduler_type.value) == (8, 100, 3e-4, "constant")
    # the batch follows prompts_per_step: 8 prompts x G=8 per step, generated once per optimizer step
    assert (config.per_device_train_batch_size, config.gradient_accumulation_steps, config.steps_per_generation,
            config.generation_batch_size) == (64, 1, 1, 64)


def test_each_lora_setting_is_checked_naming_the_field():
    from course_lib.training import CourseModelConfig, check_peft_config

    for settings, message in [({"lora_r": 0}, "lora_r=0 must be from 1 to 4,096 (16 is usual)"),
                              ({"lora_alpha": 0}, "lora_alpha=0 must be from 1 to 65,536 (twice lora_r is usual)"),
                              ({"lora_r": 2.5}, "lora_r=2.5 must be a finite int"),
                              ({"use_peft": 1}, "use_peft=1 must be True or False")]:
        with pytest.raises(CourseError) as refused:
            CourseModelConfig(**settings)
        assert str(refused.value) == message
    lora = course_lora()
    lora.r = 0
    with pytest.raises(CourseError, match=r"^peft_config.r=0 must be from 1 to 4,096 \(16 is usual\)$"):
        check_peft_config(lora)
    with pytest.raises(CourseError, match="^peft_config=dict must be a peft.LoraConfig, or None to train every weight$"):
        check_peft_config({"r": 16})
    assert course_lora(use_peft=False) is None and course_lora(lora_r=8).r == 8


def test_each_bound_itself_is_accepted():
    config = CourseConfig(max_completion_length=1, save_steps=1, prompts_per_step=1, dynamic_max_rounds=1,
                          vllm_gpu_memory_utilization=1.0, micro_batch_prompts=0, format_weight=0.0, beta=0.0,
                          learning_rate=1, seed=2**32 - 1, max_steps=1_000_000, num_generations=1024,
                          warmup_steps=1_000_000, temperature=0.001)  # an int where a float belongs is a number too
    assert (config.max_completion_length, config.dynamic_max_rounds, config.learning_rate) == (1, 1, 1)
    assert CourseConfig(prompts_per_step=1024, num_generations=1024).completions_per_step == 2**20  # the most


def test_settings_given_as_the_command_line_reads_them_or_left_unset_are_kept(monkeypatch):
    """save_steps arrives as a float (GRPOConfig's type) and is read as the whole number it is; an optional setting
    in range is kept; bf16 follows the GPU only when it is not given."""
    import torch

    config = CourseConfig(save_steps=5.0, min_p=0.5, epsilon_high=0.28)
    assert (config.save_steps, type(config.save_steps), config.min_p, config.epsilon_high) == (5, int, 0.5, 0.28)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert (CourseConfig().bf16, CourseConfig(bf16=True).bf16) == (False, True)


def test_every_training_setting_reaches_trl(tmp_path):
    """Each CourseConfig field arrives in the run's GRPOConfig as given (non-default values throughout, so a
    dropped one would show TRL's default): the shaped settings' weight decay and clipping, the run's seed, ..."""
    config = CourseConfig(**{**FAST, "max_steps": 6, "save_steps": 2, "max_completion_length": 40,
                             "learning_rate": 1.5e-4, "beta": 0.02, "loss_type": "grpo", "scale_rewards": "batch",
                             "epsilon": 0.3, "temperature": 0.7, "weight_decay": 0.1, "adam_beta2": 0.95,
                             "warmup_steps": 0.1, "lr_scheduler_type": "cosine", "max_grad_norm": 0.05, "seed": 7})
    expected = {"max_steps": 6, "save_steps": 2, "max_completion_length": 40, "learning_rate": 1.5e-4, "beta": 0.02,
                "loss_type": "grpo", "scale_rewards": "batch", "epsilon": 0.3, "temperature": 0.7, "weight_decay": 0.1,
                "adam_beta2": 0.95, "warmup_steps": 0.1, "lr_scheduler_type": "cosine", "max_grad_norm": 0.05,
                "seed": 7, "num_generations": 4, "top_k": 0, "top_p": 1.0}
    args = run_args(config, tmp_path)
    assert {name: getattr(args, name) for name in expected} == expected
    # the machine's and the engine's settings: a CPU here, so no bf16; no colocated vLLM context without a prompt length
    assert (args.use_cpu, args.bf16, args.disable_tqdm, args.vllm_max_model_length) == (True, False, False, None)
    assert args.activation_checkpointing is args.gradient_checkpointing is False  # TRL 1.16 would turn it on
    assert args.chat_template_kwargs == {"enable_thinking": False}  # Qwen3 answers without a thinking block
    assert run_args(config, tmp_path, progress=False).disable_tqdm is True


def test_memory_and_engine_settings_reach_trl(tmp_path):
    """Micro-batches become gradient accumulation; gradient checkpointing and the colocated vLLM engine's share of
    the GPU and its context (longest prompt + completion budget) arrive as given."""
    config = CourseConfig(**{**FAST, "prompts_per_step": 4, "micro_batch_prompts": 1, "activation_checkpointing": True,
                             "use_vllm": True, "vllm_gpu_memory_utilization": 0.55, "max_completion_length": 40})
    args = run_args(config, tmp_path, longest_prompt=1)
    assert (args.per_device_train_batch_size, args.gradient_accumulation_steps) == (4, 4)  # 1 prompt x G=4, 4 times
    assert (args.activation_checkpointing, args.gradient_checkpointing, args.use_vllm, args.vllm_mode) == \
        (True, True, True, "colocate")
    assert (args.vllm_gpu_memory_utilization, args.vllm_max_model_length) == (0.55, 41)


def test_bf16_only_on_a_gpu_that_has_it(tmp_path, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: True)  # as a driver might say
    args = run_args(CourseConfig(**FAST), tmp_path, longest_prompt=1)
    assert (args.use_cpu, args.bf16) == (True, False)  # no GPU here: full precision on the CPU


@pytest.mark.parametrize("variable", ["WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE"])
def test_the_process_count_is_read_as_accelerate_reads_it(variable, monkeypatch, tmp_path):
    """torchrun sets WORLD_SIZE, MPI launchers PMI_SIZE or OMPI_COMM_WORLD_SIZE: each splits the step's prompts."""
    seen = []

    def record(config, num_processes=1):
        seen.append(num_processes)
        raise CourseError("stop before accelerate starts a process group")

    monkeypatch.setattr(training.config, "micro_batches", record)
    monkeypatch.setenv(variable, "2")
    with pytest.raises(CourseError, match="^stop before"):
        CourseConfig(**FAST)  # the config splits its batch over the launcher's processes when it is made
    assert seen == [2]


def test_a_grpo_setting_trl_does_not_have_is_refused():
    with pytest.raises(TypeError, match="num_iteration"):
        CourseConfig(**{**FAST, "num_iteration": 2})


def _refusal(call) -> str:
    with pytest.raises(CourseError) as refused:
        call()
    return str(refused.value)


def test_each_refusal_before_training_is_one_whole_message(tmp_path, monkeypatch, problems):
    config = CourseConfig(**FAST)
    assert _refusal(lambda: train_grpo("tiny-s", [], config, tmp_path / "a")) == (
        "problems is empty; give at least one problem to train on")
    assert _refusal(lambda: train_grpo("tiny-s", problems[:1], config, tmp_path / "b")).startswith(
        "1 problems cannot fill one step of prompts_per_step=2")  # one problem is not "empty"
    assert _refusal(lambda: micro_batches(CourseConfig(**{**FAST, "prompts_per_step": 4, "micro_batch_prompts": 4}),
                                          2)) == ("prompts_per_step=4 over 2 processes gives 2 prompts each, which "
                                                  "micro_batch_prompts=4 does not divide; use a divisor of 2")
    assert _refusal(lambda: run_args(CourseConfig(**{**FAST, "save_steps": 3, "max_steps": 6, "num_iterations": 2}),
                                     tmp_path)) == (
        "save_steps=3 is not a multiple of num_iterations=2: a run resumed there would generate anew a batch it "
        "was reusing; use a multiple of 2")
    from trl import GRPOConfig

    monkeypatch.setattr(GRPOConfig, "world_size", property(lambda self: 2))  # started by a launcher we did not see
    assert _refusal(lambda: run_args(config, tmp_path)) == (
        "accelerate runs 2 processes but the launcher said 1; launch with accelerate launch or torchrun")


def test_train_grpo_refuses_a_config_lora_or_out_it_cannot_use_before_training(tmp_path, monkeypatch, problems):
    monkeypatch.setattr(training, "_train_grpo", lambda *args: "trained")
    config = CourseConfig(**FAST)
    assert _refusal(lambda: train_grpo("tiny-s", problems, {"max_steps": 2}, tmp_path / "a")) == (
        "config=dict must be a course_lib CourseConfig (a trl.GRPOConfig with the course's settings)")
    assert _refusal(lambda: train_grpo("tiny-s", problems, config, tmp_path / "b", peft_config="lora")) == (
        "peft_config=str must be a peft.LoraConfig, or None to train every weight")
    (tmp_path / "c").write_text("")
    assert _refusal(lambda: train_grpo("tiny-s", problems, config, tmp_path / "c")) == (
        f"out={tmp_path / 'c'} is a file; give a folder for the run")
    assert train_grpo("tiny-s", problems, config, tmp_path / "d", peft_config=None) == "trained"


def test_the_main_process_alone_locks_the_run_folder_while_it_trains(tmp_path, monkeypatch, problems):
    """Under accelerate launch every process runs train_grpo; the one of RANK 0 (or the only one) holds the
    folder's lock, so a second train command on the same folder is refused, and the other processes do not wait."""
    import fcntl
    import os

    from course_lib.provenance import LOCK_NAME

    def locked(out) -> bool:
        if not (out / LOCK_NAME).exists():
            return False
        handle = os.open(out / LOCK_NAME, os.O_RDWR)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
        except BlockingIOError:
            return True
        finally:
            os.close(handle)

    seen = []
    monkeypatch.setattr(training, "_train_grpo", lambda model, problems, config, out, *rest: seen.append(locked(out)))
    config = CourseConfig(**FAST)
    for rank in (None, "0", "1"):
        if rank is None:
            monkeypatch.delenv("RANK", raising=False)
        else:
            monkeypatch.setenv("RANK", rank)
        train_grpo("tiny-s", problems, config, tmp_path / f"rank-{rank}")
    assert seen == [True, True, False]


def test_each_metrics_row_holds_the_training_seconds_so_far_to_a_tenth(tmp_path, monkeypatch):
    """elapsed_seconds: the seconds of the processes before a resume, plus this one's since training began."""
    from types import SimpleNamespace

    now = [100.0]
    monkeypatch.setattr(training.time, "time", lambda: now[0])
    callback = training._trainer_callback(None, tmp_path, seconds_before=10.0)
    state = SimpleNamespace(global_step=3, is_world_process_zero=True)
    callback.on_train_begin(None, state, None)
    now[0] = 102.34
    callback.on_log(None, state, None, logs={"loss": 0.5})
    assert read_jsonl_log(tmp_path / "metrics.jsonl") == [{"step": 3, "loss": 0.5, "elapsed_seconds": 12.3}]


def test_a_step_is_whole_groups_of_completions(tmp_path):
    # the public API counts a step in prompts, so its batch is always whole groups
    config = CourseConfig(**{**FAST, "prompts_per_step": 3})
    assert config.completions_per_step == 12  # 3 prompts x G=4
    args = run_args(config, tmp_path)
    assert (args.num_generations, args.generation_batch_size, args.per_device_train_batch_size) == (4, 12, 12)


def test_lora_targets_absent_from_the_model_are_listed(problems, tmp_path):
    lora = course_lora(lora_target_modules=["query_key_value", "q_proj"])
    with pytest.raises(CourseError, match=r"\['query_key_value'\] are not in the model; its linear modules are .*q_proj"):
        train_grpo("tiny-s", problems, CourseConfig(**FAST), tmp_path / "x", peft_config=lora)


def test_ledger_counts_lucky_guesses_on_arith():
    from course_lib.training import LedgerReward

    ledger = LedgerReward(group_size=3)
    completions = ["7+5=12\n#### 12", "7+5=13\n13-1=12\n#### 12", "7+5=12\n#### 11"]  # right, lucky, wrong
    rewards = ledger(completions, problem_id=["p"] * 3, answer=["12"] * 3, source=["arith"] * 3)
    assert rewards == [1.0, 1.0, 0.0]
    assert ledger.pending == [{"problem_id": "p", "reward_mean": 0.6667, "reward_std": 0.5774, "right": 2, "lucky": 1}]


def test_a_format_reward_makes_no_wrong_answer_lucky():
    """With format_weight > 0 the two wrong but formatted answers (rewarded 0.5) were counted as lucky guesses."""
    from course_lib.research.experiment import training_mechanism
    from course_lib.training import LedgerReward

    ledger = LedgerReward(group_size=4, format_weight=0.5)
    rewards = ledger(["3+4=7\n#### 7", "3+4=8\n#### 8", "3+4=9\n#### 9", "no answer"], problem_id=["p"] * 4,
                     answer=["7"] * 4, source=["arith"] * 4)
    assert rewards == [1.5, 0.5, 0.5, 0.0]
    assert ledger.pending == [{"problem_id": "p", "reward_mean": 0.625, "reward_std": 0.6292, "right": 1, "lucky": 0}]
    import pandas as pd

    rows = pd.DataFrame([{**ledger.pending[0], "lucky": 1, "step": 1}])  # had the right answer been lucky: a share of 1
    metrics = pd.DataFrame({"step": [1], "grad_norm": [1.0]})
    assert training_mechanism(rows, metrics, CourseConfig(num_generations=4))["lucky_share"] == 1.0  # not 1 / 2.5


def test_ledger_rows_per_group_with_the_format_share_and_its_weight():
    from course_lib.training import LedgerReward

    # GSM8K asks for '#### N': 1 for the answer, + 0.5 x 1 for the format; 'it is 3' is neither
    ledger = LedgerReward(group_size=2, format_weight=0.5)
    completions = ["so the answer is\n#### 3", "it is 3", "#### 4", "no idea"]
    rewards = ledger(completions, problem_id=["a", "a", "b", "b"], answer=["3", "3", "4", "4"], source=["gsm8k"] * 4)
    assert rewards == [1.5, 0.0, 1.5, 0.0]
    row = {"reward_mean": 0.75, "reward_std": 1.0607, "format_share": 0.5}  # std of (1.5, 0): 1.5 / sqrt(2)
    assert ledger.pending == [{"problem_id": "a", **row}, {"problem_id": "b", **row}]
    # arith, two groups, no problem ids: a lucky guess counted in the second group only
    ledger = LedgerReward(group_size=2)
    rewards = ledger(["1+1=2\n#### 2", "1+1=3\n#### 3", "2+2=4\n#### 4", "2+2=5\n3+1=4\n#### 4"],
                     answer=["2", "2", "4", "4"], source=["arith"] * 4)
    assert rewards == [1.0, 0.0, 1.0, 1.0]
    assert ledger.pending == [{"problem_id": None, "reward_mean": 0.5, "reward_std": 0.7071, "right": 1, "lucky": 0},
                              {"problem_id": None, "reward_mean": 1.0, "reward_std": 0.0, "right": 2, "lucky": 1}]
    # a problem's own format overrides its source's ('#### N' for GSM8K), also without a source column; 4 decimals
    for sources in ({"source": ["gsm8k"] * 3}, {}):
        ledger = LedgerReward(group_size=3, format_weight=0.5)
        rewards = ledger(["so \\boxed{3}", "it is \\boxed{4}", "#### 3"], answer=["3"] * 3, answer_format=["boxed"] * 3,
                         **sources)
        assert rewards == [1.5, 0.5, 0.0]
        assert ledger.pending == [{"problem_id": None, "reward_mean": 0.6667, "reward_std": 0.7638, "format_share": 0.6667}]


def test_a_prompt_beyond_the_context_is_refused_before_training(problems, tmp_path):
    import dataclasses

    long = dataclasses.replace(problems[0], prompt="1+" * 200 + "1=")  # 402 characters, tiny-s reads 256 tokens
    with pytest.raises(CourseError, match=rf"^problem {long.id!r} has a prompt of \d+ tokens, beyond the model's "
                                          r"context of 256 tokens"):
        train_grpo("tiny-s", [long, *problems[1:]], CourseConfig(**FAST), tmp_path / "run", progress=False)
    assert not (tmp_path / "run" / "run_config.json").exists()


def test_out_of_memory_retries_with_half_the_micro_batch_and_the_same_arguments(problems, tmp_path, monkeypatch):
    """train_grpo's retry loop (the attempt itself stubbed): one warning, then the same call
    with half as many prompts per micro-batch, the progress bar and the callbacks passed on each time."""
    import torch

    attempts = []

    def attempt(model_name, problems, config, out, peft_config, progress, callbacks):
        attempts.append((config.micro_batch_prompts, peft_config.r, progress, callbacks))
        if len(attempts) == 1:
            raise torch.OutOfMemoryError("CUDA out of memory")
        return {"steps": config.max_steps}

    monkeypatch.setattr(training, "_train_grpo", attempt)
    callback = object()
    with pytest.warns(UserWarning, match=r"^out of memory; resuming with micro_batch_prompts=2$") as warned:
        summary = train_grpo("tiny-s", problems, CourseConfig(**{**FAST, "prompts_per_step": 4}), tmp_path,
                             callbacks=[callback])
    assert summary == {"steps": 2} and len(warned) == 1, [str(w.message) for w in warned]
    assert attempts == [(0, 16, True, [callback]), (2, 16, True, [callback])]  # 0: the whole step at once


def test_the_pool_check_names_the_numbers_to_change():
    from course_lib.training import check_enough_problems

    check_enough_problems(2, 2)  # exactly one step's worth
    with pytest.raises(CourseError, match=r"^1 problems cannot fill one step of prompts_per_step=2 \(TRL would train 0 "
                                          r"steps\); use prompts_per_step=1 or fewer \(--prompts-per-step\), or train "
                                          r"on at least 2 problems$"):
        check_enough_problems(1, 2)


def test_a_run_record_is_plain_json_with_its_lora_targets():
    from course_lib.training import run_record

    record = run_record(CourseConfig(), course_lora(lora_target_modules=["v_proj", "q_proj"]))
    assert record["peft_config"]["target_modules"] == ["q_proj", "v_proj"]  # PEFT's set, sorted
    assert json.loads(json.dumps(record)) == record
    assert record["num_generations"] == 8 and "output_dir" not in record and "per_device_train_batch_size" not in record
    assert run_record(CourseConfig(), None)["peft_config"] is None  # every weight trained


def test_a_run_record_writes_a_set_sorted_an_enum_as_its_value_and_any_other_object_as_text():
    import enum
    from pathlib import PurePosixPath

    class Kind(enum.Enum):
        LORA = "lora"

    record = json.loads(json.dumps({"targets": {"v_proj", 2, "q_proj"}, "kind": Kind.LORA,
                                    "folder": PurePosixPath("adapters/a")}, default=training._plain))
    assert record == {"targets": [2, "q_proj", "v_proj"], "kind": "lora", "folder": "adapters/a"}


def test_a_run_folder_that_is_a_file_or_has_no_checkpoint_yet(finished_run, problems, tmp_path):
    from course_lib.training import _check_run_dir, run_record

    ids, config = [p.id for p in problems], run_record(CourseConfig(**FAST), course_lora())
    (tmp_path / "a-file").write_text("")
    with pytest.raises(CourseError, match=r"^out=.*a-file is a file; give a folder for the run$"):
        _check_run_dir(tmp_path / "a-file", config, "tiny-s", ids)
    assert _check_run_dir(tmp_path / "new", config, "tiny-s", ids) == (None, [])  # a fresh run
    started = tmp_path / "started"  # killed before its first checkpoint: a failed start, begun again
    started.mkdir()
    shutil.copy(finished_run[0] / "run_config.json", started)
    assert _check_run_dir(started, config, "tiny-s", ids) == (None, [])
    assert _check_run_dir(started, {**config, "learning_rate": 1e-5}, "tiny-s", ids) == (None, [])  # even changed


def _saved_run(run, record, model="tiny-s", ids=("a", "b"), checkpoint=2, logs=("ledger.jsonl", "metrics.jsonl"),
               **written):
    """A run folder as a killed run leaves it: run_config.json, checkpoint-`checkpoint` (whole) and the logs of the
    steps before it."""
    from course_lib.training.checkpoints import MARKER, folder_sha256

    run.mkdir(parents=True)
    (run / "run_config.json").write_text(json.dumps({"model": model, "config": record, "problem_ids": list(ids),
                                                     **written}))
    if checkpoint:
        folder = run / f"checkpoint-{checkpoint}"
        folder.mkdir()
        (folder / "trainer_state.json").write_text(json.dumps({"global_step": checkpoint}))
        (folder / MARKER).write_text(json.dumps({"sha256": folder_sha256(folder)}))
    for log in logs:
        (run / log).write_text("".join(json.dumps({"step": step}) + "\n" for step in range(1, checkpoint + 1)))
    return run


def _record(peft_config="course", **settings) -> dict:
    from course_lib.training import run_record

    return run_record(CourseConfig(**settings), course_lora() if peft_config == "course" else peft_config)


@pytest.mark.parametrize("done", ["summary.json", "final"])
def test_a_finished_run_without_checkpoints_is_protected_and_resumes_at_its_end(tmp_path, done):
    """save_total_limit may leave no checkpoint: a run with its summary or final weights is still a run, not a
    failed start; another config is refused, the same one returns step 0 (the summary is read from there)."""
    from course_lib.training import _check_run_dir

    run = _saved_run(tmp_path / "run", _record(learning_rate=0.5), checkpoint=0, logs=())
    if done == "final":
        (run / done).mkdir()
    else:
        (run / done).write_text("{}")
    with pytest.raises(CourseError, match=r"learning_rate=0\.0003 \(the run's: 0\.5\)"):
        _check_run_dir(run, _record(), "tiny-s", ["a", "b"])
    assert _check_run_dir(run, _record(learning_rate=0.5), "tiny-s", ["a", "b"]) == (0, [])


def test_a_resume_is_refused_where_a_log_misses_steps_it_was_written_at(tmp_path):
    """Before resuming from checkpoint-2 the ledger must hold steps 1 and 2, and metrics.jsonl too where it logs
    every step; with logging_steps=2 it need not."""
    from course_lib.training import _check_run_dir

    run = _saved_run(tmp_path / "every", _record(), logs=("ledger.jsonl",))
    with pytest.raises(CourseError, match=r"metrics.jsonl holds no rows for 2 of the 2 steps before checkpoint-2"):
        _check_run_dir(run, _record(), "tiny-s", ["a", "b"])
    run = _saved_run(tmp_path / "no-ledger", _record(), logs=("metrics.jsonl",))
    with pytest.raises(CourseError, match=r"ledger.jsonl holds no rows for 2 of the 2 steps before checkpoint-2"):
        _check_run_dir(run, _record(), "tiny-s", ["a", "b"])
    run = _saved_run(tmp_path / "every-other", _record(logging_steps=2), logs=("ledger.jsonl",))
    assert _check_run_dir(run, _record(logging_steps=2), "tiny-s", ["a", "b"]) == (2, [])


@pytest.mark.parametrize(("loss_type", "refused"), [("bnpo", True), ("dapo", False)])
def test_another_micro_batch_resumes_only_where_the_loss_does_not_average_per_micro_batch(tmp_path, loss_type,
                                                                                         refused):
    from course_lib.training import _check_run_dir

    run = _saved_run(tmp_path / "run", _record(prompts_per_step=2, loss_type=loss_type))
    other = _record(prompts_per_step=2, loss_type=loss_type, micro_batch_prompts=1)
    if refused:
        with pytest.raises(CourseError, match=r"micro_batch_prompts=1 \(the run's: 0\)"):
            _check_run_dir(run, other, "tiny-s", ["a", "b"])
    else:
        assert _check_run_dir(run, other, "tiny-s", ["a", "b"]) == (2, [])


def test_a_run_resumes_only_with_the_lora_it_recorded_or_none(tmp_path):
    from course_lib.training import _check_run_dir

    for name, peft in [("rank-8", course_lora(lora_r=8)), ("full", None)]:
        run = _saved_run(tmp_path / name, _record(peft))
        assert _check_run_dir(run, _record(peft), "tiny-s", ["a", "b"]) == (2, [])
        with pytest.raises(CourseError, match=r"different config, model or problems \(peft_config="):
            _check_run_dir(run, _record(), "tiny-s", ["a", "b"])


def test_a_run_recorded_with_a_setting_this_version_lacks_is_refused_naming_it(tmp_path):
    from course_lib.training import _check_run_dir

    run = _saved_run(tmp_path / "run", {**_record(), "retired_setting": 3})
    with pytest.raises(CourseError, match=r"\(retired_setting=None \(the run's: 3\)\)"):
        _check_run_dir(run, _record(), "tiny-s", ["a", "b"])


def test_a_resume_names_another_model_first_then_settings_then_problems(tmp_path, monkeypatch):
    """The base may be written as another path to the same folder (older runs recorded it relative)."""
    from course_lib.training import _check_run_dir

    (tmp_path / "base").mkdir()
    monkeypatch.chdir(tmp_path)
    run = _saved_run(tmp_path / "run", _record(), model="base", problems_sha256="sha-then")
    assert _check_run_dir(run, _record(), str(tmp_path / "base"), ["a", "b"], ("sha-now", "sha-then")) == (2, [])
    with pytest.raises(CourseError, match=r"problems \(model='tiny-m' \(the run's: 'base'\); learning_rate=0\.5 "
                                          r"\(the run's: 0\.0003\); 1 problems \(the run's: 2, not the same ids\)\)"):
        _check_run_dir(run, _record(learning_rate=0.5), "tiny-m", ["a"])
    with pytest.raises(CourseError, match=r"problems \(the same ids with another question, answer, answer format, "
                                          r"source or level \(the problem file or --answer-format changed\)\); its run is kept"):
        _check_run_dir(run, _record(), "base", ["a", "b"], ("sha-now",))


def test_preparing_a_run_folder_fresh_or_resumed(tmp_path):
    import json

    from course_lib.training import STAGING, CourseConfig, _prepare_run_dir, run_record

    def record(**settings):
        return run_record(CourseConfig(**settings), course_lora())

    _prepare_run_dir(tmp_path / "new" / "runs" / "a", None, [], "tiny-s", record(), ["p1"])  # folders made
    assert (tmp_path / "new" / "runs" / "a" / "run_config.json").read_text().startswith('{\n "model": "tiny-s",\n')
    run = tmp_path / "run"
    (run / STAGING / "checkpoint-3").mkdir(parents=True)  # a save killed half-way
    for name in ("metrics.jsonl", "ledger.jsonl"):
        (run / name).write_text('{"step": 1}\n')
    _prepare_run_dir(run, None, [], "tiny-s", record(max_steps=3), ["p1", "p2"])
    written = json.loads((run / "run_config.json").read_text())
    assert (written["model"], written["problem_ids"], written["config"]) == ("tiny-s", ["p1", "p2"],
                                                                           record(max_steps=3))
    assert written.keys() == {"model", "base_sha256", "config", "problem_ids", "commit", "versions"}
    assert written["versions"]["trl"] and written["base_sha256"] is None  # not given here; train_grpo gives it
    assert not (run / STAGING).exists()
    assert not (run / "metrics.jsonl").exists() and not (run / "ledger.jsonl").exists()  # a fresh run: empty logs
    for name in ("metrics.jsonl", "ledger.jsonl"):
        (run / name).write_text('{"step": 1}\n{"step": 2}\n{"step": 3}\n')
    (run / "summary.json").write_text("{}")
    (run / "checkpoint-3").mkdir()
    with pytest.warns(UserWarning, match="checkpoint-3 is damaged; set aside as checkpoint-3.damaged, resuming from "
                                         "checkpoint-2"):
        _prepare_run_dir(run, 2, [(run / "checkpoint-3", "checkpoint-3 is damaged")], "tiny-s", record(max_steps=3),
                         ["p1", "p2"])
    assert (run / "checkpoint-3.damaged").is_dir() and not (run / "checkpoint-3").exists()
    assert not (run / "summary.json").exists() and (run / "run_config.json").exists()
    for name in ("metrics.jsonl", "ledger.jsonl"):  # lines after the checkpoint dropped
        assert (run / name).read_text() == '{"step": 1}\n{"step": 2}\n', name
    (run / "checkpoint-1").mkdir()
    with pytest.warns(UserWarning, match="resuming from the start"):
        _prepare_run_dir(run, None, [(run / "checkpoint-1", "checkpoint-1 is damaged")], "tiny-s",
                         record(max_steps=3), ["p1"])


def test_preparing_a_run_folder_removes_a_staging_link_or_file_and_never_what_a_link_points_to(tmp_path):
    from course_lib.training import STAGING, _prepare_run_dir, run_record

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("mine")
    for name, make in (("linked", lambda staging: staging.symlink_to(elsewhere)),
                       ("file", lambda staging: staging.write_text("left by hand"))):
        run = tmp_path / name
        run.mkdir()
        make(run / STAGING)
        _prepare_run_dir(run, None, [], "tiny-s", run_record(CourseConfig(), course_lora()), ["p1"])
        assert not (run / STAGING).exists() and not (run / STAGING).is_symlink(), name
    assert (elsewhere / "keep.txt").read_text() == "mine"  # a save would have gone through the link


def test_longest_prompt_counts_the_tokens_every_stage_shows():
    from course_lib.tasks import Problem
    from course_lib.training import longest_prompt

    def problem(prompt, source):
        return Problem(id=prompt, prompt=prompt, answer="1", level=1, source=source)

    tiny_world = [problem("Q:1+2\n", "arith"), problem("Q:10+20-3\n", "arith"), problem("Q:4\n", "arith")]
    assert longest_prompt(tiny_world, "tiny-s") == 10  # one token per character: "Q:10+20-3\n"
    # a real dataset's question gets its instruction: "WHAT?" + 2 newlines + the 85-character '#### N' one + newline
    assert longest_prompt([*tiny_world, problem("WHAT?", "gsm8k")], "tiny-s") == 5 + 2 + 85 + 1


def test_merged_folder_writes_the_trained_model_once_and_replaces_a_half_written_one(finished_run, tmp_path):
    import torch
    from transformers import AutoModelForCausalLM

    from course_lib.training import merged_folder

    run = tmp_path / "run"
    shutil.copytree(finished_run[0], run)
    merged = merged_folder(run)
    assert merged == run / "merged" and not (run / ".merged.tmp").exists()
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in merged.iterdir()}
    ids = torch.tensor([[5, 9, 17, 22, 6, 13]])
    trained, _ = load_trained(str(run))
    base, _ = load_trained("tiny-s")
    with torch.no_grad():  # the merged folder holds the trained model (LoRA merged in), not the base
        logits = AutoModelForCausalLM.from_pretrained(merged)(ids).logits
        assert torch.equal(logits, trained(ids).logits) and not torch.allclose(logits, base(ids).logits)
    written = (merged / "model.safetensors").stat().st_mtime_ns
    assert merged_folder(str(run)) == merged and (merged / "model.safetensors").stat().st_mtime_ns == written
    # killed while writing: merged/ without config.json, and a staging folder left behind
    (merged / "config.json").unlink()
    (merged / "half-written.bin").write_text("killed while saving")
    (run / ".merged.tmp").mkdir()
    (run / ".merged.tmp" / "stale.bin").write_text("an earlier staging folder")
    assert merged_folder(run) == merged and (merged / "config.json").exists() and not (run / ".merged.tmp").exists()
    assert not (merged / "half-written.bin").exists() and not (merged / "stale.bin").exists()


def test_read_jsonl_log_names_a_missing_log_and_reads_rows(tmp_path):
    with pytest.raises(CourseError, match=r"metrics.jsonl does not exist; is this a run folder written by train_grpo\?"):
        read_jsonl_log(tmp_path / "metrics.jsonl")
    (tmp_path / "metrics.jsonl").write_text('{"step": 1, "loss": 0.5}\n{"step": 2, "loss": 0.25}\n')
    assert read_jsonl_log(tmp_path / "metrics.jsonl") == [{"step": 1, "loss": 0.5}, {"step": 2, "loss": 0.25}]


def test_truncate_after_keeps_the_lines_up_to_a_step(tmp_path):
    from course_lib.training import _truncate_after

    log = tmp_path / "metrics.jsonl"
    log.write_text('{"step": 1}\n\n{"step": 2, "loss": 0.5}\n{"step": 3}\n')
    _truncate_after(log, 2)
    assert log.read_text() == '{"step": 1}\n{"step": 2, "loss": 0.5}\n'
    _truncate_after(tmp_path / "absent.jsonl", 2)  # nothing to cut
    assert not (tmp_path / "absent.jsonl").exists()


def test_a_finished_run_is_recognised_only_when_its_summary_and_final_weights_agree(tmp_path):
    import hashlib
    import json
    import warnings

    from course_lib.training import _finished_summary

    run = tmp_path / "run"
    (run / "final").mkdir(parents=True)
    (run / "final" / "model.safetensors").write_bytes(b"weights")
    sha = hashlib.sha256(b"weights").hexdigest()
    assert _finished_summary(run, 3) is None  # no summary.json: not finished
    (run / "summary.json").write_text("{not json", encoding="utf-8")
    assert _finished_summary(run, 3) is None  # damaged: finish again
    summary = {"steps": 3, "final_sha256": {"model.safetensors": sha}, "accuracy": 0.5}
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    assert _finished_summary(run, 3) == summary
    assert _finished_summary(run, 4) is None  # another length: not this run
    (run / "summary.json").write_text(json.dumps(["steps", 3]), encoding="utf-8")
    assert _finished_summary(run, 3) is None  # not a summary at all
    (run / "summary.json").write_text(json.dumps({"steps": 3}), encoding="utf-8")
    assert _finished_summary(run, 3) == {"steps": 3}  # written before hashes were recorded: nothing to check
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (run / "final" / "model.safetensors").write_bytes(b"changed")
    with pytest.warns(UserWarning, match=r"model.safetensors is damaged .*; finishing the run again from its last "
                                         "complete checkpoint"):
        assert _finished_summary(run, 3) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (run / "final" / "model.safetensors").write_bytes(b"weights")
        assert _finished_summary(run, 3) == summary  # whole again: no warning


def test_final_from_a_checkpoint_keeps_the_model_and_leaves_the_trainer_state(tmp_path):
    from course_lib.training import _final_from_checkpoint

    checkpoint, final = tmp_path / "checkpoint-4", tmp_path / "final"
    (checkpoint / "sub").mkdir(parents=True)
    model_files = ["model.safetensors", "config.json", "tokenizer.json", "adapter_model.safetensors"]
    state_files = ["optimizer.pt", "scheduler.pt", "rng_state.pth", "scaler.pt", "trainer_state.json", "latest",
                   "zero_to_fp32.py", "complete"]
    for name in model_files + state_files:
        (checkpoint / name).write_text(name)
    final.mkdir()
    (final / "stale.bin").write_text("from an earlier attempt")
    _final_from_checkpoint(checkpoint, final)
    assert sorted(p.name for p in final.iterdir()) == sorted(model_files)  # no folders, no state, nothing stale
    assert (final / "config.json").read_text() == "config.json"
    _final_from_checkpoint(checkpoint, tmp_path / "new" / "final")  # a final/ not there yet
    assert sorted(p.name for p in (tmp_path / "new" / "final").iterdir()) == sorted(model_files)


def test_finish_publishes_final_and_writes_the_summary_last_with_its_hashes(tmp_path):
    import hashlib
    import json

    from course_lib.training import STAGING, _finish

    (tmp_path / STAGING / "final").mkdir(parents=True)
    (tmp_path / STAGING / "final" / "model.safetensors").write_bytes(b"weights")
    _finish(tmp_path, {"steps": 2})
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary == {"steps": 2, "final_sha256": {"model.safetensors": hashlib.sha256(b"weights").hexdigest()}}
    assert (tmp_path / "final" / "model.safetensors").read_bytes() == b"weights"
    assert sorted(p.name for p in (tmp_path / "final").iterdir()) == ["model.safetensors"]  # no marker in final/
    assert not (tmp_path / STAGING).exists()
    (tmp_path / STAGING / "final").mkdir(parents=True)  # a save that fails: one line naming the cause and final/
    (tmp_path / "summary.json").unlink()
    (tmp_path / "summary.json").mkdir()  # (a folder in its place: fails for root too)
    (tmp_path / "checkpoint-2").mkdir()
    with pytest.raises(CourseError, match=rf"^could not save final/ in {tmp_path} \(Is a directory\); free disk space "
                                          r"or make the folder writable, then run the same command again: it resumes "
                                          r"from checkpoint-2$"):
        _finish(tmp_path, {"steps": 2})


def test_replaying_epochs_puts_the_sampler_where_that_many_epochs_of_shuffling_leave_it():
    import types

    import torch

    from course_lib.training import _replay_epochs

    def sampler(shuffle=True, seed=7):
        return types.SimpleNamespace(shuffle=shuffle, seed=seed, num_samples=6, generator=torch.Generator())

    fresh = sampler()
    fresh.generator.manual_seed(7)
    for _ in range(2):
        torch.randperm(6, generator=fresh.generator)  # two epochs drawn by hand
    replayed = sampler()
    replayed.generator.manual_seed(123)  # wherever it was before
    _replay_epochs(replayed, 2)
    assert torch.randperm(6, generator=replayed.generator).tolist() == torch.randperm(6, generator=fresh.generator).tolist()
    for untouched in (sampler(shuffle=False), sampler(seed=None)):  # nothing to replay: the generator is left alone
        untouched.generator.manual_seed(5)
        state = untouched.generator.get_state()
        _replay_epochs(untouched, 3)
        assert torch.equal(untouched.generator.get_state(), state)


def test_the_training_dataset_holds_the_prompt_every_stage_shows_and_what_the_reward_reads(problems, standin_model):
    import dataclasses

    from transformers import AutoTokenizer

    from course_lib.models import load_model
    from course_lib.prompts import model_input
    from course_lib.training import _dataset

    _, tiny = load_model("tiny-s", device="cpu")
    chat = AutoTokenizer.from_pretrained(str(standin_model))
    rows = [problems[0], dataclasses.replace(problems[1], answer_format="hash")]
    for tokenizer in (tiny, chat):
        data = _dataset(rows, tokenizer)
        assert data.column_names == ["prompt", "answer", "source", "answer_format", "problem_id"]
        assert data[0]["prompt"] == model_input(rows[0], tokenizer) and data[0]["problem_id"] == rows[0].id
        assert (data[0]["answer"], data[0]["source"]) == (rows[0].answer, rows[0].source)
        assert [row["answer_format"] for row in data] == [rows[0].answer_format or "", "hash"]
    assert _dataset(rows, chat)[0]["prompt"] != _dataset(rows, tiny)[0]["prompt"]  # a conversation for a chat model


def test_the_course_trainer_saves_through_staging_names_a_failed_save_and_replays_epochs(tmp_path, monkeypatch):
    import errno
    import types

    from trl import GRPOTrainer

    from course_lib.training import STAGING, _replay_epochs, _trainer_class

    course, dynamic = _trainer_class(), _trainer_class(dynamic_sampling=True)
    assert course.__name__ == "CourseGRPOTrainer" and dynamic.__name__ == "DynamicSamplingGRPOTrainer"
    assert issubclass(dynamic, course.__bases__[0]) and dynamic.__bases__[0].__name__ == "CourseGRPOTrainer"
    trainer = object.__new__(course)  # no model needed: only the saving and the sampler are exercised
    trainer.args = types.SimpleNamespace(output_dir=str(tmp_path), should_save=True, save_total_limit=2)
    trainer.state = types.SimpleNamespace(global_step=3)
    trainer.accelerator = types.SimpleNamespace(wait_for_everyone=lambda: None)
    seen = []

    def parent_save(self, model, trial):
        seen.append((model, trial))
        (tmp_path / STAGING / "checkpoint-3").mkdir(parents=True)
        (tmp_path / STAGING / "checkpoint-3" / "model.safetensors").write_bytes(b"w")

    monkeypatch.setattr(GRPOTrainer, "_save_checkpoint", parent_save)
    model, trial = object(), object()
    trainer._save_checkpoint(model, trial)
    assert seen == [(model, trial)] and (tmp_path / "checkpoint-3" / "model.safetensors").read_bytes() == b"w"
    assert not (tmp_path / STAGING / "checkpoint-3").exists()

    def disk_full(self, model, trial):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(GRPOTrainer, "_save_checkpoint", disk_full)
    trainer.state.global_step = 4
    with pytest.raises(CourseError, match=rf"could not save checkpoint-4 in {tmp_path} \(No space left on device\); "
                                          r".*it resumes from checkpoint-3"):
        trainer._save_checkpoint(model, trial)

    sampler = types.SimpleNamespace()
    monkeypatch.setattr(GRPOTrainer, "_get_train_sampler", lambda self, dataset=None: seen.append(dataset) or sampler)
    dataset = object()
    assert trainer._get_train_sampler(dataset) is sampler and seen[-1] is dataset
    assert sampler.set_epoch.func is _replay_epochs and sampler.set_epoch.args == (sampler,)


@pytest.mark.parametrize(("prompts", "processes", "message"), [
    (20, 8, "prompts_per_step=20 does not split over 8 processes; use 16 or 24 prompts per step, or 1, 2, 4, 5, 10 or 20 "
            "processes"),
    (1, 2, "prompts_per_step=1 does not split over 2 processes; use 2 prompts per step, or 1 process"),
    (12, 8, "use 8 or 16 prompts per step, or 1, 2, 3, 4, 6 or 12 processes"),
    (2, 4, "use 4 prompts per step, or 1 or 2 processes"),
])
def test_multi_gpu_batch_sizes_name_the_nearest_valid_choices(prompts, processes, message):
    with pytest.raises(CourseError, match=message.replace("(", r"\(") + "$"):
        micro_batches(CourseConfig(prompts_per_step=prompts, num_generations=4), processes)


def test_micro_batches_are_for_one_process_unless_told():
    assert micro_batches(CourseConfig(prompts_per_step=3, num_generations=4)) == (12, 1)  # 3 prompts x 4 completions
    assert micro_batches(CourseConfig(prompts_per_step=4, num_generations=4, micro_batch_prompts=1), 2) == (4, 2)


# ---------------------------------------------------------------------------
# Loading a run: a damaged folder is one line naming the file and what to do
# ---------------------------------------------------------------------------

AGAIN = "; run the same train command again to finish it from its last complete checkpoint"
NOT_RUN_CONFIG = " is damaged or missing (not the JSON train_grpo writes); use a new folder, or delete this one to start over"


def _copy(finished_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(finished_run[0], out)
    return out


@pytest.mark.parametrize(("damage", "message"), [
    (lambda out: flip_byte(out / "final" / ADAPTER), r"final/adapter_model\.safetensors is damaged \(its sha256.*" + re.escape(AGAIN)),
    (lambda out: truncate(out / "final" / ADAPTER), r"final/adapter_model\.safetensors is damaged \(its sha256.*" + re.escape(AGAIN)),
    (lambda out: (out / "final" / ADAPTER).unlink(), r"final/adapter_model\.safetensors is missing.*" + re.escape(AGAIN)),
    (lambda out: (nan_fill(out / "final" / ADAPTER), rehash_final(out)),
     r"final/adapter_model\.safetensors holds weights that are not finite \(NaN or inf in .*\(lower its learning rate\); "
     r"restore or rebuild it"),
    (lambda out: (out / "summary.json").unlink(), r"run is not a finished run \(no summary\.json\)" + re.escape(AGAIN)),
    (lambda out: shutil.rmtree(out / "final"),
     r"run is not a finished run \(no final/\); run the same train command again to finish it"),
    (lambda out: (out / "run_config.json").write_text("{}"), r"run_config\.json" + re.escape(NOT_RUN_CONFIG)),
    (lambda out: (out / "run_config.json").write_text("{'model':"), r"run_config\.json" + re.escape(NOT_RUN_CONFIG)),
], ids=["flipped byte", "truncated", "missing", "NaN adapter", "no summary", "no final", "run_config {}", "run_config not JSON"])
def test_a_damaged_run_folder_is_one_line_naming_the_file(finished_run, tmp_path, damage, message):
    out = _copy(finished_run, tmp_path)
    damage(out)
    with pytest.raises(CourseError, match=message + "$") as error:
        load_trained(str(out))
    assert "\n" not in str(error.value)


def _legacy(out):
    """summary.json as course_lib wrote it before it recorded the sha256 of final/."""
    summary = json.loads((out / "summary.json").read_text())
    del summary["final_sha256"]
    (out / "summary.json").write_text(json.dumps(summary))


def test_a_run_from_before_final_hashes_loads_and_its_damage_is_still_one_line(finished_run, tmp_path):
    out = _copy(finished_run, tmp_path)
    _legacy(out)
    load_trained(str(out))  # e.g. data/results/grpo-tiny-m/run: nothing to check its files against
    truncate(out / "final" / ADAPTER)
    with pytest.raises(CourseError, match=r"final/adapter_model\.safetensors is corrupt or truncated \(.*\); train the run again$"):
        load_trained(str(out))


@pytest.mark.parametrize("value", ["", "  ", None, 3])
def test_load_trained_refuses_what_names_no_run_or_model(value):
    with pytest.raises(CourseError, match=r"^run_or_model=.* must name a run folder, a tiny model \(e\.g\. 'tiny-m'\)"):
        load_trained(value)


def _changed_base(out, file="model.safetensors"):
    """run_config.json recording another sha256 for one of its base's files: the base has changed since it trained."""
    run = json.loads((out / "run_config.json").read_text())
    run["base_sha256"][file] = "0" * 64
    (out / "run_config.json").write_text(json.dumps(run))
    return (f"the base model tiny-s that {out} was trained on has changed since: its {file} has sha256 "
            f"{weights_sha256('tiny-s')[file][:12]}... but {out / 'run_config.json'} recorded sha256 000000000000...")


def _loads(monkeypatch, hub=False):
    """The models load_model is asked for; with `hub`, weights_sha256 answers None until it has loaded once (a hub
    model that was not in the cache)."""
    import course_lib.models

    asked, load_model, fingerprint = [], course_lib.models.load_model, course_lib.models.weights_sha256
    monkeypatch.setattr(training, "load_model",
                        lambda name, device=None: asked.append(name) or load_model(name, device=device))
    if hub:
        monkeypatch.setattr(training, "weights_sha256", lambda name: fingerprint(name) if asked else None)
    return asked


@pytest.mark.parametrize("hub", [False, True], ids=["local base", "hub base not cached"])
def test_a_lora_run_whose_base_changed_is_refused(finished_run, tmp_path, monkeypatch, hub):
    """Refused before its base loads where the base's fingerprint is at hand, else right after loading it."""
    out = _copy(finished_run, tmp_path)
    said = _changed_base(out)
    asked = _loads(monkeypatch, hub)
    with pytest.raises(CourseError) as error:
        load_trained(str(out), device="cpu")
    assert str(error.value) == (f"{said}; restore that model (`git checkout data/models/tiny-s`), or train the run "
                                "again into a new folder")
    assert asked == (["tiny-s"] if hub else [])


@pytest.mark.parametrize("hub", [False, True], ids=["local base", "hub base not cached"])
def test_a_full_fine_tune_whose_base_changed_loads_with_a_warning(finished_run, tmp_path, monkeypatch, hub):
    """A full fine-tune takes only the tokenizer from its base: a changed base is said, not refused."""
    out = _copy(finished_run, tmp_path)
    shutil.rmtree(out / "final")
    (out / "final").mkdir()
    for name in ("model.safetensors", "config.json"):  # full weights, as a full fine-tune saves them
        shutil.copy(MODELS_DIR / "tiny-s" / name, out / "final" / name)
    rehash_final(out)
    said = _changed_base(out, "config.json")
    _loads(monkeypatch, hub)
    warned = f"{said}; this full fine-tune takes only the tokenizer from it"
    with pytest.warns(UserWarning, match=re.escape(warned)) as got:
        model, _ = load_trained(str(out), device="cpu")
    assert type(model).__name__ == "Qwen2ForCausalLM"
    # it names the line that called load_trained, not a line inside the library
    named = [w.filename for w in got if warned in str(w.message)]
    assert named and training.__file__ not in named


@pytest.mark.parametrize(("summary", "why"), [
    ('{"final_sha256": {}}', "is damaged (its final_sha256 is not {file: sha256})"),
    ('{"final_sha256": "abc"}', "is damaged (its final_sha256 is not {file: sha256})"),
    ('{"final_sha256": ["weights.bin"]}', "is damaged (its final_sha256 is not {file: sha256})"),
    ('[1, 2]', "is damaged (not JSON)"),
    ('{"steps": 2', "is damaged (not JSON)"),
], ids=["empty hashes", "hashes a string", "hashes a list", "a list", "cut short"])
def test_verify_final_names_the_damaged_summary_and_how_to_finish(tmp_path, summary, why):
    (tmp_path / "summary.json").write_text(summary)
    with pytest.raises(CourseError) as error:
        training.verify_final(tmp_path)
    assert str(error.value) == f"{tmp_path / 'summary.json'} {why}{AGAIN}"


def test_verify_final_checks_final_against_the_recorded_hashes(tmp_path):
    from course_lib.training.checkpoints import folder_sha256

    with pytest.raises(CourseError) as error:
        training.verify_final(tmp_path)
    assert str(error.value) == f"{tmp_path} is not a finished run (no summary.json){AGAIN}"
    (tmp_path / "final").mkdir()
    (tmp_path / "final" / "weights.bin").write_bytes(b"trained")
    (tmp_path / "summary.json").write_text(json.dumps({"steps": 2}))
    assert training.verify_final(tmp_path) is None  # written before final_sha256: nothing to check against
    (tmp_path / "summary.json").write_text(json.dumps({"final_sha256": folder_sha256(tmp_path / "final")}))
    assert training.verify_final(tmp_path) is None
    (tmp_path / "final" / "weights.bin").write_bytes(b"trainee")  # same size, other bytes
    with pytest.raises(CourseError, match=r"weights\.bin is damaged \(its sha256 .*" + re.escape(AGAIN) + "$"):
        training.verify_final(tmp_path)


@pytest.mark.parametrize("text", [
    None, "", "{}", "[]", "{'model':", '{"model": "tiny-s", "problem_ids": [], "config": 3}',
    '{"model": "tiny-s", "config": {}}', '{"problem_ids": [], "config": {}}',
], ids=["missing", "empty", "{}", "a list", "not JSON", "config not a dict", "no problem_ids", "no model"])
def test_read_run_config_refuses_what_train_grpo_does_not_write(tmp_path, text):
    if text is not None:
        (tmp_path / "run_config.json").write_text(text)
    with pytest.raises(CourseError) as error:
        training.read_run_config(tmp_path)
    assert str(error.value) == f"{tmp_path / 'run_config.json'}{NOT_RUN_CONFIG}"


# run_config.json's `config` as TrainConfig (course_lib before CourseConfig) wrote it for FAST's settings
TRAIN_CONFIG_RECORD = {
    "group_size": 4, "prompts_per_step": 2, "steps": 2, "learning_rate": 3e-4, "beta": 0.0, "loss_type": "dapo",
    "scale_rewards": "group", "epsilon": 0.2, "max_completion_length": 48, "temperature": 1.0, "lora": True,
    "lora_rank": 16, "lora_alpha": 32, "lora_target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj",
                                                              "up_proj", "down_proj"],
    "weight_decay": 0.0, "adam_beta2": 0.999, "warmup_ratio": 0.0, "lr_scheduler_type": "constant",
    "max_grad_norm": 1.0, "save_steps": 1, "gradient_checkpointing": False, "micro_batch_prompts": 0, "seed": 0,
    "format_weight": 0.0, "dynamic_sampling": False, "dynamic_max_rounds": 4, "use_vllm": False,
    "vllm_gpu_memory_utilization": 0.3, "extra": {}}


@pytest.mark.parametrize(("old", "same"), [
    ({}, True), ({"gradient_checkpointing": True, "micro_batch_prompts": 1}, True),  # memory only
    ({"extra": {"top_k": 0}}, True),  # what the course set anyway
    ({"learning_rate": 1e-5}, False), ({"warmup_ratio": 0.1}, False), ({"lora_rank": 8}, False),
    ({"lora": False}, False), ({"extra": {"top_k": 5}}, False), ({"lora_target_modules": ["q_proj"]}, False),
], ids=lambda value: "+".join(value) if isinstance(value, dict) else "")
def test_a_run_folder_written_by_train_config_resumes_under_its_new_names(finished_run, problems, tmp_path, old, same):
    """A run_config.json TrainConfig wrote (group_size, steps, warmup_ratio, lora_rank, extra, ...) is read under
    GRPOConfig's and PEFT's names: the same run resumes (here: returns its summary), another is refused."""
    from course_lib.training import _check_run_dir, run_record

    folder = tmp_path / "old"
    shutil.copytree(finished_run[0], folder)
    written = json.loads((folder / "run_config.json").read_text())
    written["config"] = {**TRAIN_CONFIG_RECORD, **old}
    (folder / "run_config.json").write_text(json.dumps(written))
    record = run_record(CourseConfig(**FAST), course_lora())
    if same:
        assert _check_run_dir(folder, record, "tiny-s", written["problem_ids"]) == (2, [])
        assert train_grpo("tiny-s", problems, CourseConfig(**FAST), folder) == finished_run[1]
    else:
        with pytest.raises(CourseError, match="holds a run with a different config, model or problems"):
            _check_run_dir(folder, record, "tiny-s", written["problem_ids"])
    model, _ = load_trained(str(folder), device="cpu")  # its model loads either way
    assert type(model).__name__ == "Qwen2ForCausalLM"


def test_a_train_config_record_without_lora_settings_trained_with_the_course_lora():
    """TrainConfig left out the LoRA settings it did not change: the course's defaults; those it wrote are kept."""
    from course_lib.training import _from_train_config, run_record

    defaults = run_record(CourseConfig(**FAST), course_lora())
    bare = {key: value for key, value in TRAIN_CONFIG_RECORD.items() if not key.startswith("lora_")}
    lora = _from_train_config(bare, defaults)["peft_config"]
    assert (lora["r"], lora["lora_alpha"], lora["target_modules"]) == (16, 32, sorted(training.LORA_TARGETS))
    assert _from_train_config({**bare, "lora_alpha": 64}, defaults)["peft_config"]["lora_alpha"] == 64


def test_a_resumed_run_counts_the_seconds_its_earlier_processes_trained_to_its_checkpoint(tmp_path):
    """metrics.jsonl's elapsed_seconds at the checkpoint's step (a last line torn by a kill left out); a run from
    before that field: the sum of TRL's step_time to there, to 0.1 s; a fresh run, or one without metrics: 0."""
    seconds = training._seconds_before
    assert seconds(tmp_path, None) == seconds(tmp_path, 2) == 0.0
    metrics = tmp_path / "metrics.jsonl"
    metrics.write_text('{"step": 1, "elapsed_seconds": 10.0}\n{"step": 2, "elapsed_seconds": 20.5}\n'
                       '{"step": 3, "elapsed_seconds": 31}\n{"step": 4, "elaps')
    assert seconds(tmp_path, None) == 0.0 and seconds(tmp_path, 2) == 20.5 and seconds(tmp_path, 3) == 31.0
    metrics.write_text('{"step": 1, "step_time": 1.04}\n{"step": 2}\n{"step": 2, "step_time": 2.03}\n'
                       '{"step": 3, "step_time": 5.0}\n')
    assert seconds(tmp_path, 2) == 3.1


def test_read_run_config_returns_what_train_grpo_wrote(tmp_path):
    written = {"model": "tiny-s", "problem_ids": ["arith-1"], "config": {"steps": 2}}
    (tmp_path / "run_config.json").write_text(json.dumps(written))
    assert training.read_run_config(tmp_path) == written


def test_the_adapters_target_modules_are_written_in_one_order(tmp_path):
    """PEFT writes target_modules from a set (its order changes with each process's hash seed): sorted, two runs of
    the same settings give the same adapter_config.json bytes. Other fields and PEFT's layout are kept."""
    from course_lib.training import sort_target_modules

    config = tmp_path / "adapter_config.json"
    config.write_text(json.dumps({"target_modules": ["v_proj", "q_proj", "down_proj"], "r": 16}, indent=2,
                                 sort_keys=True))
    sort_target_modules(config)
    assert config.read_text() == json.dumps({"r": 16, "target_modules": ["down_proj", "q_proj", "v_proj"]}, indent=2)
    sort_target_modules(tmp_path / "none.json")  # a full fine-tune: nothing to sort, no error
    assert not (tmp_path / "none.json").exists()


def test_a_log_line_torn_by_a_kill_is_dropped_on_resume_and_other_damage_is_named(tmp_path):
    """A kill mid-append leaves a last line without its end: resuming drops it (it logged a step after the
    checkpoint); a damaged line elsewhere, a row without a step or not an object, is one line naming file and line."""
    from course_lib.training import _truncate_after, read_jsonl_log

    log = tmp_path / "ledger.jsonl"
    log.write_text('{"step": 1, "problem_id": "a"}\n{"step": 2, "problem_id": "b"}\n{"step": 2, "problem_id": "ar')
    assert [row["step"] for row in read_jsonl_log(log)] == [1, 2]
    _truncate_after(log, 1)
    assert log.read_text() == '{"step": 1, "problem_id": "a"}\n'
    for damaged, number in [('{"step": 1}\n{"step": 2, "x\n{"step": 3}\n', 2), ('{"step": 1}\n{"problem_id": "a"}\n', 2),
                            ("[1, 2]\n", 1), ('{"step": true}\n', 1),
                            ('{"step": 1}\n{"step": 2, "x\n{"step": 3}', 2),  # torn, but not the last line
                            ('{"step": 1}\n{"step": 2, "x\n', 2)]:  # the last line, but ended: not torn by a kill
        log.write_text(damaged)
        with pytest.raises(CourseError, match=rf"ledger.jsonl:{number} is not a log row"):
            _truncate_after(log, 5)
    log.write_bytes(b'{"step": 1}\n\xff\xfe\n')  # bytes that are not UTF-8: the same one line, not a decode error
    with pytest.raises(CourseError, match=r"ledger.jsonl:2 is not a log row"):
        read_jsonl_log(log)
    with pytest.raises(CourseError, match="is a folder; give a run's metrics.jsonl or ledger.jsonl"):
        read_jsonl_log(tmp_path)


def test_a_checkpoint_renamed_by_hand_is_not_resumed_at_its_name(tmp_path):
    """checkpoint-5 copied from checkpoint-1 would resume at step 5 and log step 2 twice: it is set aside."""
    from course_lib.training.checkpoints import MARKER, damage, folder_sha256

    checkpoint = tmp_path / "checkpoint-5"
    checkpoint.mkdir()
    (checkpoint / "trainer_state.json").write_text(json.dumps({"global_step": 1}))
    (checkpoint / MARKER).write_text(json.dumps({"sha256": folder_sha256(checkpoint)}))
    assert damage(checkpoint) == f"{checkpoint} holds the state of step 1, not step 5 (a copy under another name)"
    (checkpoint / "trainer_state.json").write_text(json.dumps({"global_step": 5}))
    (checkpoint / MARKER).write_text(json.dumps({"sha256": {"trainer_state.json": folder_sha256(checkpoint)[
        "trainer_state.json"]}}))
    assert damage(checkpoint) is None


@pytest.mark.parametrize("edit", [{"answer_format": "boxed"}, {"answer": "-1"}, {"prompt": "What is 1 + 1?"},
                                  {"source": "math"}, {"level": 9}])  # source: whose rules grade it
def test_a_run_is_not_resumed_on_problems_that_kept_their_ids_but_changed(finished_run, problems, tmp_path, edit):
    """A user's problem file edited, or --answer-format changed, between a killed run and its rerun: the same ids,
    other questions. The run folder records what training showed and graded, and the rerun is refused."""
    import dataclasses

    folder = tmp_path / "run"
    shutil.copytree(finished_run[0], folder)
    assert len(json.loads((folder / "run_config.json").read_text())["problems_sha256"]) == 64
    changed = [dataclasses.replace(problems[0], **edit), *problems[1:]]
    with pytest.raises(CourseError, match=r"the same ids with another question, answer, answer format, source or level"):
        train_grpo("tiny-s", changed, CourseConfig(**FAST), folder, progress=False)
    assert train_grpo("tiny-s", problems, CourseConfig(**FAST), folder, progress=False) == finished_run[1]


def test_a_run_folder_from_before_sources_were_fingerprinted_still_resumes(finished_run, problems, tmp_path):
    """Older course_lib recorded the problems' fingerprint without sources and levels: that run still resumes."""
    from course_lib.problems import legacy_problems_fingerprint

    folder = tmp_path / "older"
    shutil.copytree(finished_run[0], folder)
    written = json.loads((folder / "run_config.json").read_text())
    written["problems_sha256"] = legacy_problems_fingerprint(problems)
    (folder / "run_config.json").write_text(json.dumps(written))
    assert train_grpo("tiny-s", problems, CourseConfig(**FAST), folder, progress=False) == finished_run[1]


def test_epochs_that_max_steps_would_override_are_refused():
    """`train --num_train_epochs 1` was recorded and ignored: transformers trains max_steps (100) whenever it is set."""
    with pytest.raises(CourseError, match=r"num_train_epochs=1 would be ignored: max_steps=100 sets the run's length"):
        CourseConfig(num_train_epochs=1)
    with pytest.raises(CourseError, match=r"num_train_epochs=2 would be ignored: max_steps=1 sets"):  # one step too
        CourseConfig(num_train_epochs=2, max_steps=1)
    assert CourseConfig(max_steps=12).max_steps == 12


def test_eval_strategy_given_as_transformers_enum_is_refused_by_its_name():
    from transformers.trainer_utils import IntervalStrategy

    with pytest.raises(CourseError, match=r"^eval_strategy='steps': train_grpo has no evaluation set"):
        CourseConfig(eval_strategy=IntervalStrategy.STEPS)
    assert CourseConfig(eval_strategy=IntervalStrategy.NO).max_steps == 100


def test_same_folder_is_one_existing_folder_however_its_path_is_written(tmp_path, monkeypatch):
    """A run's recorded base (relative, in older runs) matches the base given now only where both are one folder."""
    (tmp_path / "base").mkdir()
    (tmp_path / "other").mkdir()
    monkeypatch.chdir(tmp_path)
    assert same_folder("base", str(tmp_path / "base")) and same_folder(str(tmp_path / "base"), "./base/")
    assert not same_folder("base", "other") and not same_folder("gone", "gone")  # a missing folder matches nothing


def _step_log(path, steps, torn=""):
    path.write_text("".join(json.dumps({"step": step}) + "\n" for step in steps) + torn)


def test_a_resume_is_refused_when_a_log_misses_a_step_before_its_checkpoint(tmp_path):
    """A run resumed from checkpoint-N keeps its logs up to N: if the ledger (always) or metrics.jsonl (when it logs
    every step) lacks a step before N, the finished run would count only the later steps, so the resume is refused
    with one line naming the log, the steps it lacks and what to do."""
    check_logs_reach = training._check_logs_reach
    _step_log(tmp_path / "ledger.jsonl", [1, 1, 2, 2, 3, 3, 4, 4], torn='{"step": 5, "pro')  # a kill mid-append
    _step_log(tmp_path / "metrics.jsonl", [1, 2, 3, 4, 5])
    check_logs_reach(tmp_path, 4, 1)  # every step up to checkpoint-4 logged: resumable
    _step_log(tmp_path / "metrics.jsonl", [1, 2, 3])  # the checkpoint's own step is missing
    with pytest.raises(CourseError, match=r"metrics\.jsonl holds no rows for 1 of the 4 steps before checkpoint-4 "
                                          r"\(first: step 4; .*restore the log, or use a new folder$"):
        check_logs_reach(tmp_path, 4, 1)
    check_logs_reach(tmp_path, 4, 2)  # metrics logged every 2 steps: only the ledger must hold every step
    _step_log(tmp_path / "ledger.jsonl", [2, 2, 4])
    with pytest.raises(CourseError, match=r"ledger\.jsonl holds no rows for 2 of the 4 steps before checkpoint-4 "
                                          r"\(first: step 1;"):
        check_logs_reach(tmp_path, 4, 2)
    (tmp_path / "ledger.jsonl").unlink()
    with pytest.raises(CourseError, match=r"ledger\.jsonl holds no rows for 2 of the 2 steps before checkpoint-2 "):
        check_logs_reach(tmp_path, 2, 1)
    (tmp_path / "ledger.jsonl").write_text("not a log row\n")
    check_logs_reach(tmp_path, 0, 1)  # no checkpoint: the run starts over, its logs are not read


# check_base: a run's base model against the fingerprint its run_config.json recorded
@pytest.mark.parametrize("damaged", ["zz", {}, {"model.safetensors": "short"}, [1, 2]])
def test_a_damaged_base_fingerprint_is_refused_not_skipped(tmp_path, damaged):
    with pytest.raises(CourseError, match=r"run_config.json is damaged \(its base_sha256 is not a file -> sha256 "
                                          r"map\)"):
        check_base(tmp_path, {"base_sha256": damaged}, "tiny-s", {"model.safetensors": "a" * 64})
    check_base(tmp_path, {"base_sha256": None}, "tiny-s", {"model.safetensors": "a" * 64})  # nothing recorded


def test_a_changed_config_or_tokenizer_of_the_base_is_caught_and_old_runs_check_their_weights_only(tmp_path):
    recorded = {"base_sha256": {"model.safetensors": "a" * 64, "config.json": "c" * 64}}
    with pytest.raises(CourseError, match="its config.json has sha256 dddddddddddd"):
        check_base(tmp_path, recorded, "tiny-s", {"model.safetensors": "a" * 64, "config.json": "d" * 64})
    with pytest.raises(CourseError, match=r"its config.json has no such file but .* recorded sha256 "):  # gone
        check_base(tmp_path, recorded, "tiny-s", {"model.safetensors": "a" * 64})
    with pytest.raises(CourseError, match="its model.safetensors has sha256 bbbbbbbbbbbb"):  # both: weights named first
        check_base(tmp_path, recorded, "tiny-s", {"model.safetensors": "b" * 64, "config.json": "d" * 64})
    old_run = {"base_sha256": {"model.safetensors": "a" * 64}}  # before settings files were fingerprinted
    check_base(tmp_path, old_run, "tiny-s", {"model.safetensors": "a" * 64, "config.json": "d" * 64})


def test_check_base_refuses_names_the_file_or_warns_for_a_full_fine_tune(tmp_path):
    run = {"base_sha256": {"model.safetensors": "a" * 64}}
    check_base(tmp_path, run, "tiny-s", {"model.safetensors": "a" * 64})  # the same base: nothing to say
    check_base(tmp_path, {}, "tiny-s", {"model.safetensors": "b" * 64})  # a run from before fingerprints
    check_base(tmp_path, run, "tiny-s", None)  # a base whose weights cannot be read here: nothing to check
    with pytest.raises(CourseError) as error:
        check_base(tmp_path, run, "tiny-s", {"model.safetensors": "b" * 64})
    assert str(error.value) == (f"the base model tiny-s that {tmp_path} was trained on has changed since: its "
                                f"model.safetensors has sha256 bbbbbbbbbbbb... but {tmp_path}/run_config.json recorded "
                                "sha256 aaaaaaaaaaaa...; "
                                "restore that model (`git checkout data/models/tiny-s`), or train the run again into "
                                "a new folder")
    with pytest.raises(CourseError, match=r"recorded sha256 aaaaaaaaaaaa\.\.\.; restore that model, or train the run again"):
        check_base(tmp_path, run, "someone/hub-model", {"model.safetensors": "b" * 64})  # no git checkout to suggest
    with pytest.warns(UserWarning, match="this full fine-tune takes only the tokenizer from it"):
        check_base(tmp_path, run, "tiny-s", {"model.safetensors": "b" * 64}, refuse=False)


def test_round_36_a_changed_base_under_course_models_dir_names_that_folder_not_git(tmp_path, monkeypatch):
    """Hostile round 36: a run trained on tiny-s from COURSE_MODELS_DIR=/elsewhere, whose copy there changed, was told
    to `git checkout data/models/tiny-s`, which leaves that copy as it is (the same refusal came back); so was a
    damaged copy there. Both now name the copy's folder; the course's own models keep the git advice."""
    import course_lib.models as models
    import course_lib.training as training

    monkeypatch.setenv("COURSE_MODELS_DIR", str(tmp_path))
    monkeypatch.setattr(training, "MODELS_DIR", tmp_path)
    run = {"base_sha256": {"model.safetensors": "a" * 64}}
    with pytest.raises(CourseError) as error:
        check_base(tmp_path / "run", run, "tiny-s", {"model.safetensors": "b" * 64})
    assert f"restore that model in {tmp_path / 'tiny-s'} (COURSE_MODELS_DIR), or train" in str(error.value)
    assert "git checkout" not in str(error.value)
    shutil.copytree(MODELS_DIR / "tiny-s", tmp_path / "tiny-s")
    weights = tmp_path / "tiny-s" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-1] + b"\0")  # the last byte of a weight changed
    monkeypatch.setattr(models, "MODELS_DIR", tmp_path)
    monkeypatch.setattr(models.folders, "MODELS_DIR", tmp_path)
    with pytest.raises(CourseError, match="model.safetensors is corrupt or changed") as error:
        models.folders.verify_model_folder(tmp_path / "tiny-s")
    assert "git checkout" not in str(error.value) and "rebuild it with `python -m course_lib pretrain" in str(error.value)


def test_lora_targets_are_checked_against_the_models_linear_modules():
    import torch

    from course_lib.training import check_lora_targets

    model = torch.nn.ModuleDict({"attn": torch.nn.ModuleDict({"q_proj": torch.nn.Linear(2, 2)}),
                                 "norm": torch.nn.LayerNorm(2)})
    for targets in ("q_proj", ["q_proj"], {"q_proj"}, "all-linear"):  # one name, a list, PEFT's set, PEFT's shorthand
        check_lora_targets(model, targets)
    with pytest.raises(CourseError, match=r"^lora_target_modules \['norm', 'v_proj'\] are not in the model; its linear "
                                          r"modules are \['q_proj'\]$"):
        check_lora_targets(model, {"v_proj", "q_proj", "norm"})


@pytest.mark.parametrize(("setting", "value"), [("entropy_coef", float("nan")), ("ref_model_mixup_alpha", float("inf")),
                                                ("reward_weights", [1.0, float("nan")]),
                                                ("reward_weights", [[float("nan")]]),
                                                ("generation_kwargs", {"temperature": float("nan")}),
                                                ("lr_scheduler_kwargs", {"min_lr": float("inf")}),
                                                # hostile round 23: a numpy float, an array, a Decimal, an inf weight
                                                ("generation_kwargs", {"temperature": np.float32("nan")}),
                                                ("generation_kwargs", {"temperature": np.array([np.nan])}),
                                                ("generation_kwargs", {"top_p": Decimal("NaN")}),
                                                ("lr_scheduler_kwargs", {"min_lr": np.float32("inf")}),
                                                ("reward_weights", [np.float32("inf")]),
                                                ("generation_kwargs", {"top_p": Decimal("sNaN")})])  # math.isfinite raises
def test_a_training_setting_that_is_not_a_finite_number_is_refused_by_name(setting, value):
    """Hostile round 20: TRL's own number settings took NaN and inf (recorded, then used or failing mid-run)."""
    from course_lib.training.config import CourseConfig

    with pytest.raises(CourseError) as refused:
        CourseConfig(output_dir="unused", **{setting: value})
    kind = "finite numbers" if isinstance(value, list | dict) else "a finite number"
    assert str(refused.value) == f"{setting}={value!r} must be {kind}"
    CourseConfig(output_dir="unused", reward_weights=[1.0, 0.5])  # finite numbers pass
    CourseConfig(output_dir="unused", generation_kwargs={"temperature": np.float32(0.7)})


def test_check_reward_weights_names_a_weight_that_is_not_finite():
    """reward_weights with a NaN or inf among them (nested too) are refused as not finite, in one line naming them."""
    from course_lib.training.config import check_reward_weights

    for weights in ([1.0, float("nan")], (float("inf"),), [[float("nan")]]):
        with pytest.raises(CourseError) as refused:
            check_reward_weights(weights)
        assert str(refused.value) == f"reward_weights={weights!r} must be finite numbers"
    check_reward_weights([1.0, 0.5])
    check_reward_weights(None)


@pytest.mark.parametrize("weights", [[1.0, 1.0], [0.5, 2.0, 1.0]])
def test_train_grpo_refuses_weights_for_reward_functions_it_lacks_before_anything_runs(tmp_path, weights):
    """train_grpo has one reward function: more weights (as `train --reward_weights 0 1` gave) are refused in one line
    before its folder is made; one weight passes that check."""
    with pytest.raises(CourseError, match=rf"^reward_weights=\[.*\] gives {len(weights)} weights, but train_grpo has one "
                                          "reward function"):
        train_grpo("tiny-s", [], CourseConfig(**FAST, reward_weights=weights), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()
    with pytest.raises(CourseError, match="^problems is empty"):  # past the weights' check
        train_grpo("tiny-s", [], CourseConfig(**FAST, reward_weights=[2.0]), tmp_path / "one", progress=False)


@pytest.mark.parametrize(("weights", "refused"), [([0], True), ([0.0, 0.0], True), ([-1], True), ([-1, 0], True),
                                                 ([], True), ("1", True), ([True], True), ([1.0], False),
                                                 ([0.0, 1.0], False), ([1.0, -0.5], False), (None, False)])
def test_reward_weights_that_leave_no_reward_to_learn_are_refused(weights, refused):
    """Hostile round 21: reward_weights=[0] made every group dead, so `train` ended with the base model, exit 0."""
    from course_lib.training.config import CourseConfig

    if refused:
        with pytest.raises(CourseError, match=r"^reward_weights=.* must be numbers with at least one above 0"):
            CourseConfig(output_dir="unused", reward_weights=weights)
    else:
        assert CourseConfig(output_dir="unused", reward_weights=weights).reward_weights == weights


@pytest.mark.parametrize(("setting", "value", "said"), [
    ("top_entropy_quantile", -1.0, "must be in [0, 1]"), ("top_entropy_quantile", 2.0, "must be in [0, 1]"),
    ("logging_steps", -1, "must be above 0"), ("logging_steps", 0, "must be above 0"),
    ("vllm_importance_sampling_cap", -1.0, "must be above 0, or unset"),
    ("vllm_importance_sampling_cap", 0.0, "must be above 0, or unset")])
def test_trl_settings_that_fail_mid_run_are_refused_when_made(setting, value, said):
    """Hostile round 21: top_entropy_quantile outside [0, 1] raised in torch.quantile after sampling had started."""
    from course_lib.training.config import CourseConfig

    with pytest.raises(CourseError) as refused:
        CourseConfig(output_dir="unused", **{setting: value})
    assert str(refused.value).startswith(f"{setting}={value!r} {said}")
    for fine in ({"top_entropy_quantile": 0.0}, {"top_entropy_quantile": 1.0}, {"logging_steps": 0.5},
                 {"vllm_importance_sampling_cap": 2.0}):
        CourseConfig(output_dir="unused", **fine)


@pytest.mark.parametrize(("settings", "said"), [({"r": 8.5}, "peft_config.r=8.5 must be from 1"),
                                                ({"lora_dropout": 1.0}, "peft_config.lora_dropout=1.0 must be in [0, 1)"),
                                                ({"lora_dropout": float("nan")}, "peft_config.lora_dropout=nan")])
def test_a_lora_config_out_of_range_is_refused_by_train_grpo(settings, said):
    """A LoraConfig made by hand: a fractional rank, a dropout of 1 (the adapter never trains) or NaN."""
    from peft import LoraConfig

    from course_lib.training.config import check_peft_config

    with pytest.raises(CourseError, match=re.escape(said)):
        check_peft_config(LoraConfig(**settings))
    check_peft_config(LoraConfig(r=8, lora_dropout=0.1))


def test_min_p_of_one_is_refused_as_greedy_sampling():
    """Hostile round 22: `train --min_p 1.0` sampled greedily, so every group was dead and the run learned nothing."""
    from course_lib.training.config import CourseConfig

    with pytest.raises(CourseError, match=r"^min_p=1.0 must be in \[0, 1\), or unset: at 1 sampling is greedy"):
        CourseConfig(output_dir="unused", min_p=1.0)
    assert CourseConfig(output_dir="unused", min_p=0.1).min_p == 0.1


def test_a_run_resumed_by_other_library_versions_or_code_is_warned_about(tmp_path, monkeypatch):
    """Hostile round 28: a run resumed after an upgrade, or after course_lib changed, ran its later steps with other
    code and said nothing. The same code resumes quietly; other versions or code are named in one warning."""
    import warnings

    from course_lib import training
    from course_lib.training import _warn_other_code, read_run_config

    now = training.library_versions()
    monkeypatch.setattr(training, "git_commit", lambda: "c" * 40)  # a clean checkout
    run = _saved_run(tmp_path / "same", _record(), versions=now, commit="c" * 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_other_code(run, read_run_config(run), 2)
    run = _saved_run(tmp_path / "upgraded", _record(), versions={**now, "trl": "0.1.0"})
    with pytest.warns(UserWarning, match=rf"resumes at step 2 a run started with other or unknown code \(trl 0\.1\.0 -> {now['trl']}\)"):
        _warn_other_code(run, read_run_config(run), 2)
    monkeypatch.setattr(training, "code_changed_since", lambda commit: ["course_lib/answers.py"])
    monkeypatch.setattr(training, "git_commit", lambda: "b" * 40)
    run = _saved_run(tmp_path / "edited", _record(), versions=now, commit="a" * 40)
    with pytest.warns(UserWarning, match=rf"\(course_lib/answers\.py since commit {'a' * 12}\)"):
        _warn_other_code(run, read_run_config(run), 2)
    for commit, said in ((None, "started outside git"), ("b" * 40 + "+dirty", "started from uncommitted changes")):
        run = _saved_run(tmp_path / f"unknown-{commit is None}", _record(), versions=now, commit=commit)
        monkeypatch.setattr(training, "git_commit", lambda: "b" * 40 + "+dirty")  # the same uncommitted edits, or more
        with pytest.warns(UserWarning, match=said):  # round 29: the same +dirty commit, or none, was not compared
            _warn_other_code(run, read_run_config(run), 2)
    monkeypatch.setattr(training, "git_commit", lambda: "b" * 40)  # round 30: the edits reverted since, clean now
    for changed, said in (([], "started from uncommitted changes to bbbbbbbbbbbb"), (None, "which this clone does not hold")):
        monkeypatch.setattr(training, "code_changed_since", lambda commit, changed=changed: changed)
        run = _saved_run(tmp_path / f"reverted-{changed is None}", _record(), versions=now, commit="b" * 40 + "+dirty")
        with pytest.warns(UserWarning, match=said):
            _warn_other_code(run, read_run_config(run), 2)


def test_the_other_code_warning_names_what_changed_with_the_runs_own_commit_shortened_to_12(tmp_path, monkeypatch):
    """The warning compares the code with the run's commit (its +dirty mark dropped), names two changed files and
    `...` for more, three changes at most, and the commit by its first 12 characters; a run saved before versions
    were recorded resumes quietly at the same commit."""
    import warnings

    from course_lib import training
    from course_lib.training import _warn_other_code, read_run_config

    now, commit = training.library_versions(), "0123456789abcdef" * 2 + "01234567"
    monkeypatch.setattr(training, "git_commit", lambda: "f" * 40)
    compared = []

    def resume(name, files, saved=commit, versions=now):
        monkeypatch.setattr(training, "code_changed_since", lambda since: compared.append(since) or files)
        run = _saved_run(tmp_path / name, _record(), versions=versions, commit=saved)
        with pytest.warns(UserWarning) as warned:
            _warn_other_code(run, read_run_config(run), 2)
        return str(warned[0].message)

    assert "(a.py, b.py since commit 0123456789ab)" in resume("two", ["a.py", "b.py"])
    assert "(a.py, b.py ... since commit 0123456789ab)" in resume("three", ["a.py", "b.py", "c.py"])
    assert "(started at commit 0123456789ab, which this clone" in resume("unheld", None)
    assert "(started from uncommitted changes to 0123456789ab, which" in resume("reverted", [], commit + "+dirty")
    assert compared == [commit] * 4
    upgraded = {**now, "trl": "0.1", "peft": "0.2", "torch": "0.3"}
    assert (f"(peft 0.2 -> {now['peft']}; torch 0.3 -> {now['torch']}; trl 0.1 -> {now['trl']}): its later"
            in resume("upgraded", ["a.py"], versions=upgraded))  # the changed file is a fourth change, left out
    monkeypatch.setattr(training, "git_commit", lambda: "f" * 40 + "+dirty")
    assert "(started outside git)" in resume("outside", [], None)
    monkeypatch.setattr(training, "git_commit", lambda: commit)
    old = _saved_run(tmp_path / "before-versions", _record(), commit=commit)  # no `versions` in its run_config.json
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _warn_other_code(old, read_run_config(old), 2)
