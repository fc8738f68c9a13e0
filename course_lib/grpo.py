"""GRPO, written to be read: group advantages, dead groups, and (later) a reference loss.

Shapes: `rewards` is (B, G), B groups of G completions of one prompt each (G is TRL's `num_generations`).
Introduced in notebooks/02_zero_variance_groups.ipynb.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import torch

from .errors import check

SCALES = ("group", "batch", "none")  # TRL's `scale_rewards`; True means "group" and False "none", as in TRL


# ---------------------------------------------------------------------------
# Group advantages (matches TRL 1.16's GRPOTrainer, sum_then_normalize)
# ---------------------------------------------------------------------------


def _check_rewards(rewards: torch.Tensor) -> torch.Tensor:
    """Validate a (B, G) reward tensor early; return it as floats."""
    check(isinstance(rewards, torch.Tensor),
          f"rewards must be a torch tensor of shape (B, G), not {type(rewards).__name__}")
    check(rewards.dim() == 2, f"rewards has shape {tuple(rewards.shape)}; give (B, G): B groups of G completions")
    G = rewards.shape[1]
    check(G >= 2, f"group size G={G}: GRPO needs at least 2 completions per prompt to compare")
    check(rewards.shape[0] >= 1, "rewards has no groups (B=0); give at least one group")
    rewards = rewards if rewards.is_floating_point() else rewards.float()
    check(not torch.isnan(rewards).any(), "rewards contain NaN; score every completion (TRL drops unscorable ones)")
    return rewards


def group_advantages(rewards: torch.Tensor, scale: str | bool = "group", eps: float = 1e-4) -> torch.Tensor:
    """Each completion's advantage: its reward minus its group's mean, divided by a std unless scale="none".

    As TRL 1.16 does: the std is the *unbiased* one (divides by G - 1), eps is added to the std (not inside the
    root), scale="batch" still subtracts the group mean but divides by the std of all B x G rewards.
    """
    rewards = _check_rewards(rewards)  # (B, G)
    if isinstance(scale, bool):  # TRL's older spelling: True means "group", False "none"
        scale = "group" if scale else "none"
    check(scale in SCALES, f"scale={scale!r} is unknown; use one of {', '.join(SCALES)} (or True/False as in TRL)")
    check(isinstance(eps, (int, float)) and eps >= 0, f"eps={eps!r} must be a number >= 0 (TRL uses 1e-4)")
    advantages = rewards - rewards.mean(dim=1, keepdim=True)  # (B, G)
    if scale == "none":  # Dr. GRPO: no division
        return advantages
    if scale == "group":
        std = rewards.std(dim=1, keepdim=True)  # (B, 1), unbiased
    else:
        std = rewards.std()  # (), unbiased, over the whole batch
    return advantages / (std + eps)


# ---------------------------------------------------------------------------
# Dead groups: all G rewards equal, so every advantage is 0 and the group gives no gradient
# ---------------------------------------------------------------------------


def _check_group_size(G) -> None:
    """Validate G early (an integer of at least 2)."""
    check(isinstance(G, Integral) and not isinstance(G, bool),
          f"G={G!r} must be an integer (completions per prompt)")
    check(G >= 2, f"group size G={G}: GRPO needs at least 2 completions per prompt to compare")


def dead_group_probability(p, G: int):
    """Chance that G samples of a prompt with pass rate p are all right or all wrong: p**G + (1-p)**G."""
    _check_group_size(G)
    p_array = np.asarray(p, dtype=float)
    check(bool(np.all((p_array >= 0) & (p_array <= 1))), f"p must be a pass rate in [0, 1]; got {p!r}")
    dead = p_array**G + (1 - p_array) ** G
    return float(dead) if dead.ndim == 0 else dead


def informative_share(pass_rates, G: int) -> float:
    """Expected share of groups with non-zero reward std when training on problems with these pass rates."""
    rates = np.asarray(pass_rates, dtype=float).ravel()
    check(rates.size > 0, "pass_rates is empty; give the pass rate of at least one problem")
    return float(np.mean(1 - dead_group_probability(rates, G)))


def is_dead_group(rewards: torch.Tensor) -> torch.Tensor:
    """(B,) bool: True where all G rewards of a group are equal (TRL counts these in `frac_reward_zero_std`)."""
    rewards = _check_rewards(rewards)  # (B, G)
    return (rewards == rewards[:, :1]).all(dim=1)


# ---------------------------------------------------------------------------
# Log-probabilities of completions: what the policy gradient differentiates
# ---------------------------------------------------------------------------


def completion_logprobs(model, tokenizer, prompts: list[str], completions: list[str]):
    """Per-token log-probabilities of each completion given its prompt: (logps, mask), both (N, T).

    The completion ends with the eos token, as when it was sampled; padding positions have mask 0.
    """
    check(len(prompts) == len(completions), f"{len(prompts)} prompts but {len(completions)} completions")
    eos = tokenizer.eos_token_id
    rows = []
    for prompt, completion in zip(prompts, completions):
        p_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
        c_ids = tokenizer(completion, add_special_tokens=False)["input_ids"] + [eos]
        rows.append((p_ids, c_ids))
    width = max(len(p) + len(c) for p, c in rows)
    n_completion = max(len(c) for _, c in rows)
    ids = torch.full((len(rows), width), tokenizer.pad_token_id)  # (N, width), right padding
    attention = torch.zeros_like(ids)
    for i, (p_ids, c_ids) in enumerate(rows):
        ids[i, : len(p_ids) + len(c_ids)] = torch.tensor(p_ids + c_ids)
        attention[i, : len(p_ids) + len(c_ids)] = 1
    device = next(model.parameters()).device
    logits = model(input_ids=ids.to(device), attention_mask=attention.to(device)).logits  # (N, width, V)
    logps = torch.zeros(len(rows), n_completion, device=device)
    mask = torch.zeros(len(rows), n_completion, device=device)
    for i, (p_ids, c_ids) in enumerate(rows):
        positions = torch.arange(len(p_ids) - 1, len(p_ids) + len(c_ids) - 1, device=device)  # predict c_ids
        token_logps = torch.log_softmax(logits[i, positions], dim=-1)  # (T_i, V)
        logps[i, : len(c_ids)] = token_logps.gather(1, torch.tensor(c_ids, device=device)[:, None])[:, 0]
        mask[i, : len(c_ids)] = 1
    return logps, mask
