"""GRPO, written to be read: group advantages, dead groups, and TRL's loss in plain torch.

Shapes: `rewards` is (B, G), B groups of G completions of one prompt each (G is TRL's `num_generations`).
Introduced in notebooks/02_zero_variance_groups.ipynb; the loss in notebooks/04_grpo_training.ipynb, which writes
it inline and asserts it equals `grpo_loss`.
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
    _check_group_size(rewards.shape[1])
    check(rewards.shape[0] >= 1, "rewards has no groups (B=0); give at least one group")
    rewards = rewards if rewards.is_floating_point() else rewards.float()
    check(not torch.isnan(rewards).any(), "rewards contain NaN; score every completion (TRL drops unscorable ones)")
    check(torch.isfinite(rewards).all(), "rewards contain an infinite value, which makes its group's advantages NaN; "
                                         "give every completion a finite reward")
    return rewards


def group_advantages(rewards: torch.Tensor, scale: str | bool = "group", eps: float = 1e-4) -> torch.Tensor:
    """Each completion's advantage: its reward minus its group's mean, divided by a std unless scale="none" (02).

    As TRL 1.16 does: the std is the *unbiased* one (divides by G - 1), eps is added to the std (not inside the
    root), scale="batch" still subtracts the group mean but divides by the std of all B x G rewards.
    """
    rewards = _check_rewards(rewards)  # (B, G)
    if isinstance(scale, bool):  # TRL's older spelling: True means "group", False "none"
        scale = "group" if scale else "none"
    check(scale in SCALES, f"scale={scale!r} is unknown; use one of {', '.join(SCALES)} (or True/False as in TRL)")
    check(isinstance(eps, (int, float)) and 0 <= eps < float("inf"), f"eps={eps!r} must be a finite number >= 0 "
                                                                       "(TRL uses 1e-4)")
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
    """Chance that G samples of a prompt with pass rate p are all right or all wrong: p**G + (1-p)**G (02)."""
    _check_group_size(G)
    p_array = np.asarray(p, dtype=float)
    check(bool(np.all((p_array >= 0) & (p_array <= 1))), f"p must be a pass rate in [0, 1]; got {p!r}")
    dead = p_array**G + (1 - p_array) ** G
    return float(dead) if dead.ndim == 0 else dead


def informative_share(pass_rates, G: int) -> float:
    """Expected share of groups with non-zero reward std when training on problems with these pass rates (02)."""
    check(not isinstance(pass_rates, dict | set | frozenset | str),
          f"pass_rates must be a list of pass rates, one per problem, not a {type(pass_rates).__name__}")
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
    """Per-token log-probabilities of each completion given its prompt: (logps, mask), both (N, T) (02).

    An eos token is appended to every completion, as a finished one ends; one cut off at the length limit gets it
    too, so this step also teaches it to stop there (TRL trains a cut-off completion without it). Padding positions
    have mask 0.
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


# ---------------------------------------------------------------------------
# GRPO's loss (plain torch): TRL 1.16's written out, checked against GRPOTrainer in the tests
# ---------------------------------------------------------------------------

LOSS_TYPES = ("dapo", "grpo", "bnpo", "dr_grpo")  # TRL's clipped-ratio losses; "dapo" is TRL 1.16's default


def grpo_loss(logps, old_logps, ref_logps, advantages, mask, epsilon=0.2, epsilon_high=None, beta=0.0,
              loss_type="dapo", max_completion_length=None, num_items_in_batch=None, kl_bias_correction=True):
    """TRL 1.16's GRPO loss (token-level ratios) on N = B*G completions; returns (loss, {"clip_fraction", "kl"}) (04).

    As on one process without gradient accumulation (TRL also divides by those). `num_items_in_batch` ("dapo"):
    completion tokens in the whole generation batch, by default this batch's. `ref_logps` may be None if beta=0.
    On-policy, pass `old_logps=logps.detach()`: the ratio is then 1 and its gradient the policy gradient.
    """
    _check_loss_inputs(logps, old_logps, ref_logps, advantages, mask, beta, loss_type, max_completion_length)
    epsilon_high = epsilon if epsilon_high is None else epsilon_high
    advantages = advantages[:, None]  # (N, 1): a completion's advantage is shared by all its tokens
    ratio = torch.exp(logps - old_logps)  # (N, T); 1 on-policy, but its gradient is the policy gradient
    clipped = torch.clamp(ratio, 1 - epsilon, 1 + epsilon_high)  # (N, T)
    per_token = -torch.min(ratio * advantages, clipped * advantages)  # (N, T); the pessimistic of the two
    kl = None
    if ref_logps is not None:
        log_ref_ratio = ref_logps - logps  # (N, T)
        kl = torch.exp(log_ref_ratio) - log_ref_ratio - 1  # (N, T): k3 estimate of KL(policy || ref), >= 0
        if kl_bias_correction:  # TRL's use_bias_correction_kl=True: same value on-policy, different gradient
            kl = kl * ratio
        if beta != 0:
            per_token = per_token + beta * kl
    loss = _aggregate(per_token, mask, loss_type, max_completion_length, num_items_in_batch)
    # TRL's clip_ratio/region_mean: tokens where clipping removed the gradient
    was_clipped = ((ratio < 1 - epsilon) & (advantages < 0)) | ((ratio > 1 + epsilon_high) & (advantages > 0))
    stats = {"clip_fraction": _masked_mean(was_clipped, mask), "kl": None if kl is None else _masked_mean(kl, mask)}
    return loss, stats


def _aggregate(per_token, mask, loss_type, max_completion_length, num_items_in_batch):
    """Reduce (N, T) per-token losses to one number, as TRL 1.16's `GRPOTrainer._compute_loss` does."""
    masked = per_token * mask  # (N, T); padding contributes nothing
    if loss_type == "grpo":  # mean over each completion's tokens, then over completions: length-biased
        return (masked.sum(-1) / mask.sum(-1).clamp(min=1.0)).mean()
    if loss_type == "bnpo":  # mean over all tokens of this batch
        return masked.sum() / mask.sum().clamp(min=1.0)
    if loss_type == "dr_grpo":  # a constant denominator, so no length bias
        return masked.sum() / (per_token.shape[0] * max_completion_length)
    # dapo: over the tokens of the whole generation batch, however it is split into accumulation steps
    n_tokens = mask.sum() if num_items_in_batch is None else num_items_in_batch
    return masked.sum() / max(float(n_tokens), 1.0)


def _masked_mean(values, mask) -> float:
    """Mean of `values` over the positions where mask is 1 (a float, for logging)."""
    return float((values.detach() * mask).sum() / mask.sum().clamp(min=1.0))


def _check_loss_inputs(logps, old_logps, ref_logps, advantages, mask, beta, loss_type, max_completion_length):
    """Validate grpo_loss's arguments early, naming the one to fix."""
    check(loss_type in LOSS_TYPES, f"loss_type={loss_type!r} is unknown; use one of {', '.join(LOSS_TYPES)}")
    check(logps.dim() == 2, f"logps has shape {tuple(logps.shape)}; give (N, T): N completions of T tokens")
    for name, tensor in (("old_logps", old_logps), ("ref_logps", ref_logps), ("mask", mask)):
        check(tensor is None or tensor.shape == logps.shape,
              f"{name} has shape {tuple(tensor.shape) if tensor is not None else None}; "
              f"give the shape of logps, {tuple(logps.shape)}")
    check(advantages.shape == logps.shape[:1],
          f"advantages has shape {tuple(advantages.shape)}; give one per completion, ({logps.shape[0]},)")
    check(beta == 0 or ref_logps is not None, f"beta={beta} penalises KL to a reference: give ref_logps")
    check(loss_type != "dr_grpo" or (max_completion_length or 0) >= 1,
          "loss_type='dr_grpo' divides by max_completion_length: give it (TRL's GRPOConfig default is 512)")
