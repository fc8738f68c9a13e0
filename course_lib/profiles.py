"""Profiles: one code path, three sizes (`smoke` for CI, `tiny` by default, `paper` on a GPU).

Every notebook's `PROFILE` parameter picks one; everything else derives from it.
Introduced in notebooks/00_tiny_world_tour.ipynb.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import check


@dataclass(frozen=True)
class Profile:
    """The sizes of one profile; notebooks read every setting they need from here."""

    name: str  # "smoke", "tiny" or "paper"
    models: tuple  # model names, smallest first (tiny names or hub ids)
    model: str  # the default model of single-model notebooks
    task: str  # default task ("arith" in the tiny world, "gsm8k" in the paper's)
    n_problems: int  # problems per pool in the tour and in estimation
    k: int  # samples per problem when estimating pass rates
    temperature: float  # sampling temperature for estimation
    max_new_tokens: int  # completion length limit
    sample_batch_size: int  # prompts per batched generate call
    notes: dict = field(default_factory=dict)  # where each setting comes from


PROFILES = {
    "smoke": Profile(
        name="smoke", models=("tiny-s", "tiny-m", "tiny-l"), model="tiny-m", task="arith",
        n_problems=20, k=4, temperature=1.0, max_new_tokens=96, sample_batch_size=32,
        notes={"purpose": "CI: every notebook runs top to bottom in seconds"},
    ),
    "tiny": Profile(
        name="tiny", models=("tiny-s", "tiny-m", "tiny-l"), model="tiny-m", task="arith",
        n_problems=500, k=8, temperature=1.0, max_new_tokens=96, sample_batch_size=64,
        notes={"purpose": "the whole course offline on a 2-core CPU in minutes"},
    ),
    "paper": Profile(
        name="paper", models=("Qwen/Qwen2.5-0.5B-Instruct", "Qwen/Qwen2.5-1.5B-Instruct", "Qwen/Qwen2.5-3B-Instruct"),
        model="Qwen/Qwen3-4B", task="gsm8k", n_problems=7473, k=10, temperature=1.0, max_new_tokens=250,
        sample_batch_size=64,
        notes={"k": "arXiv 2508.14094: K=10 samples at temperature 1.0, 250 new tokens",
               "models": "arXiv 2604.06298: Qwen2.5 0.5B/1.5B/3B; arXiv 2508.14094: Qwen3-4B"},
    ),
}


def get_profile(name: str) -> Profile:
    """The profile called `name`, with an error listing the valid names."""
    check(name in PROFILES, f"PROFILE={name!r} is unknown; use one of {', '.join(PROFILES)}")
    return PROFILES[name]
