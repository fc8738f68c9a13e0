"""Killed saves, full disks and damaged files: checkpoints whole or absent, weights checked by content."""

import errno
import json
import os
import re
import shutil

import pytest
import torch
from conftest import ADAPTER, flip_byte, nan_fill, truncate
from conftest import FAST_TRAINING as FAST  # the shared fixtures' settings: 2 steps, a checkpoint after each

from course_lib import CourseError
from course_lib.__main__ import main
from course_lib.models import load_model
from course_lib.training import CourseConfig, load_trained, train_grpo
from course_lib.training.checkpoints import MARKER, STAGING, newest_complete, publish, remove_old


def killed_copy(finished_run, tmp_path):
    """The finished run as a kill before its end leaves it: no final/, no summary.json."""
    out = tmp_path / "run"
    shutil.copytree(finished_run[0], out)
    shutil.rmtree(out / "final")
    (out / "summary.json").unlink()
    return out


# ---------------------------------------------------------------------------
# Checkpoints: whole or absent
# ---------------------------------------------------------------------------


def _checkpoint(run_dir, step, complete=True):
    staged = run_dir / STAGING / f"checkpoint-{step}"
    staged.mkdir(parents=True)
    (staged / "weights.bin").write_bytes(bytes([step]) * 100)
    if complete:
        publish(staged, run_dir / f"checkpoint-{step}")
    else:  # what a save killed before its marker leaves
        staged.rename(run_dir / f"checkpoint-{step}")


def test_newest_complete_checkpoint_in_numeric_order_falls_back_and_ignores_strays(tmp_path):
    for step in (9, 12):
        _checkpoint(tmp_path, step)
    (tmp_path / "checkpoint-old").mkdir()  # not a checkpoint name: ignored
    assert newest_complete(tmp_path) == (tmp_path / "checkpoint-12", [])  # 12 is newer than 9
    flip_byte(tmp_path / "checkpoint-12" / "weights.bin")
    newest, broken = newest_complete(tmp_path)
    assert newest == tmp_path / "checkpoint-9"
    assert broken == [(tmp_path / "checkpoint-12", f"{tmp_path / 'checkpoint-12' / 'weights.bin'} is damaged "
                                                    "(its sha256 differs from the one recorded when it was saved)")]
    _checkpoint(tmp_path, 15, complete=False)
    assert newest_complete(tmp_path)[1][0] == (tmp_path / "checkpoint-15",
                                               f"{tmp_path / 'checkpoint-15'} has no {MARKER} (its save did not finish)")
    remove_old(tmp_path, keep=None)  # save_total_limit=None: keep every checkpoint
    assert len(list(tmp_path.glob("checkpoint-*"))) == 4
    remove_old(tmp_path, keep=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".saving", "checkpoint-12", "checkpoint-15", "checkpoint-old"]


def test_a_checkpoint_killed_mid_save_is_set_aside_and_the_run_resumes_from_the_one_before(finished_run, problems,
                                                                                          tmp_path):
    out = killed_copy(finished_run, tmp_path)
    (out / "checkpoint-2" / MARKER).unlink()  # killed while writing the last checkpoint: no marker, adapter half written
    truncate(out / "checkpoint-2" / ADAPTER)
    with pytest.warns(UserWarning, match=rf"^{out / 'checkpoint-2'} has no {MARKER} \(its save did not finish\); "
                                         r"set aside as checkpoint-2\.damaged, resuming from checkpoint-1$"):
        summary = train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False)
    assert summary["resumed_from"] == 1 and summary["steps"] == 2  # step 2 trained again, not copied from the damage
    assert (out / "final" / ADAPTER).read_bytes() == (finished_run[0] / "final" / ADAPTER).read_bytes()  # same bytes
    assert (out / "checkpoint-2.damaged").is_dir() and not (out / STAGING).exists()
    load_trained(str(out))  # final/ verifies against summary.json


@pytest.mark.parametrize(("damage", "why"), [
    # killed early in the save: only the adapter's config is there, no trainer_state.json
    (lambda ckpt: [p.unlink() for p in ckpt.iterdir() if p.name != "adapter_config.json"],
     f"has no {MARKER} \\(its save did not finish\\)"),
    # damaged after it was saved whole: a truncated adapter, a flipped byte, a file gone
    (lambda ckpt: truncate(ckpt / ADAPTER), "adapter_model.safetensors is damaged \\(its sha256 differs"),
    (lambda ckpt: flip_byte(ckpt / "optimizer.pt"), "optimizer.pt is damaged \\(its sha256 differs"),
    (lambda ckpt: (ckpt / "trainer_state.json").unlink(), "trainer_state.json is missing"),
    (lambda ckpt: (ckpt / MARKER).write_text("{}"), f"{MARKER} is damaged"),
], ids=["killed early in the save", "truncated adapter", "flipped byte", "trainer_state.json gone", "empty marker"])
def test_a_damaged_last_checkpoint_is_passed_over_for_the_one_before(finished_run, problems, tmp_path, damage, why):
    from course_lib.training import _check_run_dir, course_lora, run_record

    out = killed_copy(finished_run, tmp_path)
    damage(out / "checkpoint-2")
    record = run_record(CourseConfig(**FAST), course_lora())
    resume_step, broken = _check_run_dir(out, record, "tiny-s", [p.id for p in problems])
    assert resume_step == 1 and [folder for folder, _ in broken] == [out / "checkpoint-2"]
    assert re.search(why, broken[0][1]), broken[0][1]


def test_stray_checkpoint_folders_and_a_half_written_staging_folder_are_ignored(finished_run, problems, tmp_path):
    out = killed_copy(finished_run, tmp_path)
    (out / "checkpoint-old").mkdir()
    (out / "checkpoint-2-backup").mkdir()
    (out / STAGING / "checkpoint-3").mkdir(parents=True)  # a save killed before its rename
    (out / STAGING / "checkpoint-3" / ADAPTER).write_bytes(b"half")
    summary = train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False)
    assert summary["resumed_from"] == 2 and not (out / STAGING).exists()  # killed after the last step: final/ only
    assert (out / "final" / ADAPTER).read_bytes() == (finished_run[0] / "final" / ADAPTER).read_bytes()


def _disk_full_in_torch_save(monkeypatch):
    real_save = torch.save

    def save(obj, f, *args, **kwargs):
        if "checkpoint-2" in str(f):  # the optimizer state, after the adapter
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(f))
        return real_save(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", save)


def _disk_full_in_safetensors(monkeypatch):
    import peft.peft_model
    from safetensors import SafetensorError

    real_save = peft.peft_model.safe_save_file

    def save(tensors, filename, *args, **kwargs):
        if "checkpoint-2" in str(filename):  # the adapter, first file of the checkpoint
            raise SafetensorError(f"Error while serializing: I/O error: No space left on device (os error 28) "
                                  f"at path {filename}")
        return real_save(tensors, filename, *args, **kwargs)

    monkeypatch.setattr(peft.peft_model, "safe_save_file", save)


@pytest.mark.parametrize(("fail", "cause"), [
    (_disk_full_in_torch_save, "No space left on device"),
    (_disk_full_in_safetensors, "Error while serializing: I/O error: No space left on device .os error 28. at path .*"),
], ids=["torch.save", "safetensors"])
def test_a_failed_save_names_the_cause_and_leaves_the_last_checkpoint_resumable(finished_run, problems, tmp_path,
                                                                              fail, cause):
    out = tmp_path / "full-disk"
    with pytest.MonkeyPatch.context() as patch:
        fail(patch)
        with pytest.raises(CourseError, match=rf"could not save checkpoint-2 in {out} \({cause}\); free disk space "
                                              r"or make the folder writable, then run the same command again: it "
                                              r"resumes from checkpoint-1$"):
            train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False)
    assert [p.name for p in out.glob("checkpoint-*")] == ["checkpoint-1"] and not (out / "summary.json").exists()
    # space freed: the same command resumes
    summary = train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False)
    assert summary["resumed_from"] == 1
    assert (out / "final" / ADAPTER).read_bytes() == (finished_run[0] / "final" / ADAPTER).read_bytes()


# ---------------------------------------------------------------------------
# A run's final/ is checked against the sha256 in its summary.json
# ---------------------------------------------------------------------------


def test_summary_records_the_sha256_of_every_final_file(finished_run):
    summary = json.loads((finished_run[0] / "summary.json").read_text())
    assert sorted(summary["final_sha256"]) == sorted(p.name for p in (finished_run[0] / "final").iterdir())


def _copy(finished_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(finished_run[0], out)
    return out


def test_cli_evaluate_on_a_damaged_run_exits_2_with_one_line(finished_run, tmp_path, capsys):
    out = _copy(finished_run, tmp_path)
    flip_byte(out / "final" / ADAPTER)
    code = main(["evaluate", "--model", str(out), "--task", "arith", "--n", "4", "--k", "2", "--quiet",
                 "--out", str(tmp_path / "eval.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and f"{out / 'final' / ADAPTER} is damaged" in err[0]


def test_rerunning_a_finished_run_whose_final_is_damaged_rebuilds_it(finished_run, problems, tmp_path):
    out = _copy(finished_run, tmp_path)
    flip_byte(out / "final" / ADAPTER)
    with pytest.warns(UserWarning, match="adapter_model.safetensors is damaged .*; finishing the run again"):
        summary = train_grpo("tiny-s", problems, CourseConfig(**FAST), out, progress=False)
    assert summary["resumed_from"] == 2  # rebuilt from the last checkpoint, nothing trained
    assert (out / "final" / ADAPTER).read_bytes() == (finished_run[0] / "final" / ADAPTER).read_bytes()


# ---------------------------------------------------------------------------
# Model folders: weights checked by content, configs that match their weights
# ---------------------------------------------------------------------------


def _tiny_s(tmp_path, manifest=True):
    from course_lib.models import resolve_model_path

    folder = tmp_path / "tiny-s"
    shutil.copytree(resolve_model_path("tiny-s"), folder)
    if not manifest:
        (folder / "manifest.json").unlink()
    return folder


def test_weights_overwritten_keeping_size_and_mtime_are_caught(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    folder = _tiny_s(tmp_path)
    load_model(str(folder), device="cpu")  # verified once
    nan_fill(folder / "model.safetensors")  # same size, same mtime: `cp -a` of a damaged copy
    with pytest.raises(CourseError, match="model.safetensors is corrupt or changed"):
        load_model(str(folder), device="cpu")


def test_a_large_verified_file_is_checked_by_a_sample_of_every_tensor(tmp_path, monkeypatch):
    import course_lib.models as models

    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(models.folders, "CHEAP_TO_HASH", 0)  # treat tiny-s as a file too large to hash at every load
    folder = _tiny_s(tmp_path)
    load_model(str(folder), device="cpu")  # remembered with its sample (not hashed again while unchanged:
    # test_models_and_sampling.py::test_a_verified_file_is_not_hashed_again_until_it_changes)
    nan_fill(folder / "model.safetensors")
    with pytest.raises(CourseError, match="model.safetensors is corrupt or changed"):
        load_model(str(folder), device="cpu")


def test_non_finite_weights_are_one_line_naming_the_folder(tmp_path):
    folder = _tiny_s(tmp_path, manifest=False)
    nan_fill(folder / "model.safetensors")
    with pytest.raises(CourseError, match=rf"^{folder} holds weights that are not finite \(NaN or inf in "):
        load_model(str(folder), device="cpu")


@pytest.mark.parametrize(("edit", "message"), [
    ({"hidden_size": 64}, r"config\.json does not match the weights beside it \(tensor shapes differ\)"),
    ({"num_hidden_layers": 3, "layer_types": ["full_attention"] * 3},
     r"config\.json does not match the weights in .*: 12 weights it describes are not there"),
], ids=["wider", "deeper"])
def test_a_config_that_does_not_match_the_weights_is_one_line(tmp_path, capfd, edit, message):
    folder = _tiny_s(tmp_path, manifest=False)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **edit}))
    with pytest.raises(CourseError, match=message) as error:
        load_model(str(folder), device="cpu")
    assert "\n" not in str(error.value) and "LOAD REPORT" not in capfd.readouterr().err  # not transformers' table


def test_weights_the_config_does_not_use_are_one_warning_line(tmp_path):
    folder = _tiny_s(tmp_path, manifest=False)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 1, "layer_types": ["full_attention"]}))
    with pytest.warns(UserWarning, match=r"12 weights in its files are not in config\.json's model and were not loaded"):
        load_model(str(folder), device="cpu")


def test_a_second_damaged_copy_of_a_checkpoint_keeps_the_first(tmp_path):
    """Round 19: setting aside checkpoint-2 again replaced the earlier checkpoint-2.damaged."""
    from course_lib.training.checkpoints import set_aside

    for n in range(3):
        (tmp_path / "checkpoint-2").mkdir()
        (tmp_path / "checkpoint-2" / "note").write_text(f"copy {n}")
        set_aside(tmp_path / "checkpoint-2")
    kept = {p.name: (p / "note").read_text() for p in tmp_path.iterdir()}
    assert kept == {"checkpoint-2.damaged": "copy 0", "checkpoint-2.damaged.2": "copy 1",
                    "checkpoint-2.damaged.3": "copy 2"}


def test_round_26_a_full_disk_while_a_record_is_written_names_the_file(tmp_path, monkeypatch):
    """Hostile round 26: a sweep stopped on a full disk said `No space left on device; check the path ...` and named
    no path (a write's ENOSPC carries no file name); the file being written is named, and nothing is left staged."""
    from course_lib.provenance import atomic_write_text

    real_fdopen = os.fdopen

    class Full:
        def __init__(self, handle):
            self.handle = real_fdopen(handle, "wb")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fdopen", lambda handle, mode: Full(handle))
    target = tmp_path / "points" / "p.failed.json"
    with pytest.raises(OSError) as raised:
        atomic_write_text(target, "{}")
    assert (raised.value.errno, raised.value.filename) == (errno.ENOSPC, str(target))
    assert list(target.parent.iterdir()) == []  # nothing half-written, no staged copy
