"""`make env` picks the torch build for the machine and says which; `make lab` opens JupyterLab on the student's
copies of the notebooks (`make lab-instructor` on the instructor's), never on notebooks/ itself.

Checked with `make -n` (print the commands, run none) and a stand-in `nvidia-smi` first on PATH."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def dry_run(target: str, tmp_path: Path, gpu: bool, **variables: str) -> str:
    """The commands `make -n TARGET` would run for a fresh environment, with an nvidia-smi that finds a GPU or not."""
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir(exist_ok=True)
    smi = fake_bin / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 'GPU 0: NVIDIA H200'\n" if gpu else "#!/bin/sh\nexit 9\n")
    smi.chmod(0o755)
    env = {key: value for key, value in os.environ.items() if key not in ("TORCH_INSTALL", "MAKEFLAGS")}
    env["PATH"] = f"{fake_bin}{os.pathsep}{env['PATH']}"
    settings = [f"{key}={value}" for key, value in {"VENV": str(tmp_path / "venv"), **variables}.items()]
    done = subprocess.run(["make", "-n", "-C", str(ROOT), target, *settings], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def torch_install_line(commands: str) -> str:
    return next(line for line in commands.splitlines() if "pip install --quiet torch" in line)


def test_env_installs_the_cpu_build_of_torch_without_a_gpu_and_says_so(tmp_path):
    commands = dry_run("env", tmp_path, gpu=False)
    assert "installing the CPU build of torch" in commands
    assert "torch==2.13.0+cpu --extra-index-url https://download.pytorch.org/whl/cpu" in torch_install_line(commands)


def test_env_installs_the_cuda_build_where_nvidia_smi_finds_a_gpu(tmp_path):
    commands = dry_run("env", tmp_path, gpu=True)
    assert "installing the CUDA build of torch" in commands
    assert torch_install_line(commands).endswith("pip install --quiet torch==2.13.0")


def test_torch_install_given_by_the_user_wins(tmp_path):
    commands = dry_run("env", tmp_path, gpu=False, TORCH_INSTALL="torch==2.13.0 --index-url https://example.org/whl")
    assert "installing torch as TORCH_INSTALL says" in commands
    assert torch_install_line(commands).endswith("torch==2.13.0 --index-url https://example.org/whl")


def test_the_torch_version_is_the_one_the_package_pins():
    version = re.search(r"^TORCH_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), flags=re.M).group(1)
    assert f'"torch=={version}"' in (ROOT / "pyproject.toml").read_text()


@pytest.mark.parametrize("target, kind", [("lab", "student"), ("lab-instructor", "instructor")])
def test_lab_copies_the_notebooks_then_opens_jupyterlab_on_the_copies_with_the_environment(tmp_path, target, kind):
    lines = dry_run(target, tmp_path, gpu=False, LAB_ARGS="--no-browser").splitlines()
    copy = next(i for i, line in enumerate(lines) if "course_lib.classroom.copies" in line)
    lab = next(i for i, line in enumerate(lines) if "jupyter lab" in line)
    assert copy < lab
    assert lines[copy].split() == [f"{tmp_path / 'venv'}/bin/python", "-m", "course_lib.classroom.copies", kind, f"lab/{kind}"]
    as_root = ["--allow-root"] if os.geteuid() == 0 else []  # Jupyter refuses root (a container) without it
    assert lines[lab].split() == [f"{tmp_path / 'venv'}/bin/jupyter", "lab", f"--ServerApp.root_dir=lab/{kind}",
                                  "--LabApp.default_url=/lab/tree/00_tiny_world_tour.ipynb", *as_root, "--no-browser"]


def test_make_labs_copy_step_runs_and_a_second_run_keeps_the_copies(tmp_path):
    """The copy command `make lab` runs, as it prints it (with this Python), twice: the second copies nothing."""
    import sys

    line = next(line for line in dry_run("lab", tmp_path, gpu=False, LAB=str(tmp_path / "lab")).splitlines()
                if "course_lib.classroom.copies" in line)
    command = [sys.executable, *line.split()[1:]]
    first = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    copies = sorted((tmp_path / "lab" / "student").glob("*.ipynb"))
    assert copies and copies[0].name == "00_tiny_world_tour.ipynb" and "copied" in first.stdout
    copies[0].write_text(copies[0].read_text() + " ")  # the student's work
    second = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert second.returncode == 0 and "copied" not in second.stdout and "rename or delete yours" in second.stdout
    assert copies[0].read_text().endswith(" ")


def test_students_hands_out_fresh_copies_as_make_lab_makes_them(tmp_path):
    lines = [line for line in dry_run("students", tmp_path, gpu=False).splitlines() if "build/students" in line]
    assert lines[-1] == f"{tmp_path / 'venv'}/bin/python -m course_lib.classroom.copies student build/students"
    assert "mv build/students $aside" in lines[0] and "rm " not in "".join(lines)  # round 28: moved aside, not deleted
