"""`make env` picks the torch build for the machine and says which; `make lab` opens JupyterLab on the notebooks.

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


def test_lab_opens_jupyterlab_on_the_notebooks_with_the_environment(tmp_path):
    commands = dry_run("lab", tmp_path, gpu=False, LAB_ARGS="--no-browser")
    lab = next(line for line in commands.splitlines() if "jupyter lab" in line)
    as_root = ["--allow-root"] if os.geteuid() == 0 else []  # Jupyter refuses root (a container) without it
    assert lab.split() == [f"{tmp_path / 'venv'}/bin/jupyter", "lab", "--ServerApp.root_dir=notebooks", *as_root, "--no-browser"]
