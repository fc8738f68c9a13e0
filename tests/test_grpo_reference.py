"""The library's GRPO loss (the one notebook 04 writes inline, then asserts equal to `grpo_loss`) gives the loss and
the gradients of TRL 1.16's GRPOTrainer on the same fixed batch.

TRL is run on its own code path from completions to loss: its `rollout_func` hook hands it our fixed completions
instead of sampling, a reward function hands back our fixed rewards, and `_generate_and_score_completions` (the
method `GRPOTrainer` calls once per generation batch) computes the advantages, the reference log-probs and the
token count; then the public `compute_loss`, and `backward`.
"""

import math
import re

import pytest
import torch

from course_lib import CourseError
from course_lib.grpo import completion_logprobs, group_advantages, grpo_loss
from course_lib.models import build_model, build_tokenizer

G = 4
PROMPTS = ["12+3=", "7*6="]  # different lengths: TRL left-pads the shorter one
COMPLETIONS = ["15", "14", "1", "105",  # prompt 0's group; lengths 1-3 characters, plus eos
               "42", "24", "4", "420"]  # prompt 1's group
REWARDS = [1.0, 0.0, 0.0, 0.0,  # one right of four
           1.0, 0.0, 1.0, 0.0]  # two right of four
MAX_LEN = 16  # max_completion_length: dr_grpo divides by it
RTOL = 1e-5  # relative error allowed on the loss and on the whole gradient
ATOL = 1e-7  # on the loss too: on-policy "grpo" loss is ~0, as the advantages of a group sum to zero

# TRL 1.16 and transformers 5 deprecation notices about TRL's own default config, not about this code
pytestmark = pytest.mark.filterwarnings("ignore:.*gradient_checkpointing. is deprecated:FutureWarning")


@pytest.fixture(scope="module")
def tokenizer():
    return build_tokenizer()


@pytest.fixture(scope="module")
def start(tmp_path_factory, tokenizer):
    """Folder of the starting model: TRL loads its reference model from the policy's config, so it needs a path."""
    folder = tmp_path_factory.mktemp("tiny-s-start")
    build_model("tiny-s", tokenizer, seed=0).save_pretrained(folder)
    return folder


def load(folder):
    from transformers import Qwen2ForCausalLM

    return Qwen2ForCausalLM.from_pretrained(folder)


def policy(start):
    """The starting model moved by seeded noise, so that it differs from the reference and the KL term bites."""
    model = load(start)  # its config still names `start`: TRL's reference model is the unmoved one
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.05 * torch.randn(parameter.shape, generator=generator))
    return model


def run_trl(start, tokenizer, tmp_path, monkeypatch, old_logps=None, **config):
    """TRL 1.16's loss (a tensor), gradients (by parameter name) and trainer on the fixed batch, through the library's
    `trl_loss_on_fixed_batch` (notebook 04 runs the same check live)."""
    from course_lib.training import trl_loss_on_fixed_batch

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")  # rollout_func is marked experimental
    return trl_loss_on_fixed_batch(policy(start), tokenizer, PROMPTS, COMPLETIONS, REWARDS, G, tmp_path,
                                   old_logps=old_logps, max_completion_length=MAX_LEN, **config)


def assert_same_gradients(model, trl_grads):
    """Every parameter gets a gradient on both sides, and the whole gradient agrees to RTOL (relative L2)."""
    ours = dict(model.named_parameters())
    assert ours.keys() == trl_grads.keys()
    mine = torch.cat([ours[name].grad.flatten() for name in trl_grads])
    theirs = torch.cat([grad.flatten() for grad in trl_grads.values()])
    assert theirs.norm() > 0
    assert (mine - theirs).norm() / theirs.norm() < RTOL


def library_step(model, tokenizer, rewards, prompts=PROMPTS, completions=COMPLETIONS, ref_model=None, **options):
    """One on-policy step's loss on fixed completions, by the library: group advantages, log-probs, `grpo_loss`
    (old log-probs = today's, detached), backward. Returns the loss, the gradient norm, the advantages, the stats."""
    advantages = group_advantages(torch.tensor(rewards).reshape(-1, G)).reshape(-1)  # (B*G,)
    repeated = [prompt for prompt in prompts for _ in range(G)]  # each prompt G times, as TRL batches it
    logps, mask = completion_logprobs(model, tokenizer, repeated, completions)  # (B*G, T) each
    ref_logps = None
    if ref_model is not None:
        with torch.no_grad():
            ref_logps, _ = completion_logprobs(ref_model, tokenizer, repeated, completions)
    loss, stats = grpo_loss(logps, logps.detach(), ref_logps, advantages, mask, **options)
    loss.backward()
    grads = [p.grad.flatten() for p in model.parameters() if p.grad is not None]
    return {"loss": loss.item(), "grad_norm": torch.cat(grads).norm().item() if grads else 0.0,
            "advantages": advantages, **stats}


@pytest.mark.parametrize(
    "loss_type, beta",
    [
        ("dapo", 0.0),  # TRL 1.16's default loss_type
        ("dapo", 0.1),  # ... with a KL penalty to the reference model
        ("grpo", 0.0),
        ("grpo", 0.1),
        ("bnpo", 0.1),
        ("dr_grpo", 0.1),
    ],
)
def test_library_loss_matches_trl_on_policy(start, tokenizer, tmp_path, monkeypatch, loss_type, beta):
    trl_loss, trl_grads, trainer, inputs = run_trl(start, tokenizer, tmp_path, monkeypatch,
                                                   loss_type=loss_type, beta=beta)
    model = policy(start)
    result = library_step(model, tokenizer, REWARDS, ref_model=load(start) if beta else None,
                          beta=beta, loss_type=loss_type, max_completion_length=MAX_LEN)
    torch.testing.assert_close(result["advantages"], inputs["advantages"], rtol=RTOL, atol=0)
    assert result["loss"] == pytest.approx(trl_loss.item(), rel=RTOL, abs=ATOL)
    assert_same_gradients(model, trl_grads)
    trl_grad_norm = torch.cat([grad.flatten() for grad in trl_grads.values()]).norm().item()
    assert result["grad_norm"] == pytest.approx(trl_grad_norm, rel=RTOL)
    if beta:  # the KL term is really there: the same mean KL as TRL logs, and not negligible
        assert result["kl"] == pytest.approx(trainer._metrics["train"]["kl"][-1], rel=RTOL)
        assert beta * result["kl"] > 0.01 * abs(result["loss"])


@pytest.mark.parametrize("loss_type", ["dapo", "grpo"])
def test_grpo_loss_matches_trl_off_policy_with_clipping(start, tokenizer, tmp_path, monkeypatch, loss_type):
    # Old log-probs off by up to +-0.5: ratios far from 1, so both clip bounds (0.8 and 1.28 here) are hit
    model = policy(start)
    logps, mask = completion_logprobs(model, tokenizer, [p for p in PROMPTS for _ in range(G)], COMPLETIONS)
    shift = torch.rand(logps.shape, generator=torch.Generator().manual_seed(2)) - 0.5  # (N, T)
    old_logps = (logps.detach() + shift) * mask
    config = {"loss_type": loss_type, "beta": 0.1, "epsilon_high": 0.28}
    trl_loss, trl_grads, trainer, _ = run_trl(start, tokenizer, tmp_path, monkeypatch, old_logps=old_logps, **config)
    with torch.no_grad():
        ref_logps, _ = completion_logprobs(load(start), tokenizer, [p for p in PROMPTS for _ in range(G)],
                                           COMPLETIONS)
    advantages = group_advantages(torch.tensor(REWARDS).reshape(-1, G)).reshape(-1)
    loss, stats = grpo_loss(logps, old_logps, ref_logps, advantages, mask, **config)
    loss.backward()
    assert loss.item() == pytest.approx(trl_loss.item(), rel=RTOL, abs=ATOL)
    assert_same_gradients(model, trl_grads)
    assert 0 < stats["clip_fraction"] < 1
    assert stats["clip_fraction"] == pytest.approx(trainer._metrics["train"]["clip_ratio/region_mean"][-1])


def test_defaults_are_trl_defaults():
    import inspect

    from trl import GRPOConfig

    trl_defaults = {name: field.default for name, field in GRPOConfig.__dataclass_fields__.items()}
    ours = inspect.signature(grpo_loss).parameters
    assert trl_defaults["loss_type"] == ours["loss_type"].default == "dapo"
    assert trl_defaults["use_bias_correction_kl"] is ours["kl_bias_correction"].default is True
    assert trl_defaults["epsilon"] == ours["epsilon"].default == 0.2
    assert trl_defaults["beta"] == ours["beta"].default == 0.0


# Hand case: on-policy (ratio 1), beta = 0, so each token's loss is -advantage
#   advantages [1, -1]; mask [[1, 1, 1], [1, 0, 0]]: masked per-token losses [[-1, -1, -1], [1, 0, 0]]
#   grpo:    mean over each completion, then over completions: (-3/3 + 1/1) / 2 = 0
#   bnpo:    over this batch's 4 tokens: (-3 + 1) / 4 = -.5 (dapo too, by default)
#   dapo:    over the generation batch's tokens, here said to be 8: -2 / 8 = -.25
#   dr_grpo: over N x max_completion_length = 2 x 4: -2 / 8 = -.25
@pytest.mark.parametrize(
    "options, expected",
    [
        ({"loss_type": "grpo"}, 0.0),
        ({"loss_type": "bnpo"}, -0.5),
        ({"loss_type": "dapo"}, -0.5),
        ({"loss_type": "dapo", "num_items_in_batch": 8}, -0.25),
        ({"loss_type": "bnpo", "num_items_in_batch": 8}, -0.5),  # only dapo reads it
        ({"loss_type": "dr_grpo", "max_completion_length": 4}, -0.25),
    ],
)
def test_grpo_loss_aggregation_hand_cases(options, expected):
    logps = torch.full((2, 3), -1.0)
    mask = torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    loss, stats = grpo_loss(logps, logps, None, torch.tensor([1.0, -1.0]), mask, **options)
    assert loss.item() == pytest.approx(expected)
    assert stats == {"clip_fraction": 0.0, "kl": None}


# One-token completions (an empty answer and its eos) divide by 1 token, not by a floor above 1. On-policy, each
# token's loss is -advantage: grpo over completions of 1, 1 and 2 tokens, advantages 1: (-1/1 - 1/1 - 2/2) / 3 = -1;
# bnpo and dapo over a batch of one 1-token completion: -1 / 1
@pytest.mark.parametrize(("rows", "options"), [(3, {"loss_type": "grpo"}), (1, {"loss_type": "bnpo"}),
                                               (1, {"loss_type": "dapo", "num_items_in_batch": 1})])
def test_grpo_loss_over_one_token_completions(rows, options):
    logps = torch.full((3, 2), -1.0)[:rows]
    mask = torch.tensor([[1.0, 0.0], [1.0, 0.0], [1.0, 1.0]])[:rows]
    loss, stats = grpo_loss(logps, logps, None, torch.ones(rows), mask, **options)
    assert loss.item() == pytest.approx(-1.0)
    one = torch.tensor([[1.0, 0.0]])  # the clip mean over a single token is that token's value
    assert grpo_loss(logps[:1] + 1.0, logps[:1], None, torch.tensor([1.0]), one)[1]["clip_fraction"] == 1.0  # ratio e


def test_dr_grpo_takes_a_completion_limit_of_one_token():
    logps = torch.full((2, 1), -1.0)  # two one-token completions, advantages 1 and 3: -(1 + 3) / (2 x 1)
    loss, _ = grpo_loss(logps, logps, None, torch.tensor([1.0, 3.0]), torch.ones(2, 1), loss_type="dr_grpo",
                        max_completion_length=1)
    assert loss.item() == pytest.approx(-2.0)


def test_grpo_loss_adds_beta_times_the_k3_kl_to_the_reference():
    """On-policy with advantages 0, the loss is beta x mean KL: with log(ref / policy) = 1 on every token,
    k3 = e - 1 - 1 (x the ratio 1), so beta = 1 gives e - 2 and beta = 0 gives 0 (the KL is still reported)."""
    logps, mask, zero = torch.full((2, 3), -2.0), torch.ones(2, 3), torch.zeros(2)
    for beta, expected in ((1.0, math.e - 2), (0.5, (math.e - 2) / 2), (0.0, 0.0)):
        loss, stats = grpo_loss(logps, logps, logps + 1.0, zero, mask, beta=beta)
        assert loss.item() == pytest.approx(expected, rel=1e-6) and stats["kl"] == pytest.approx(math.e - 2, rel=1e-6)


def test_clip_fraction_counts_only_tokens_whose_gradient_clipping_removed():
    """A token is clipped when its ratio left [1 - eps, 1 + eps_high] on the side its advantage pushes toward:
    low ratio with a negative advantage, high ratio with a positive one. A zero advantage is never clipped."""
    old = torch.zeros(6, 1)
    logps = torch.log(torch.tensor([[0.5], [0.5], [0.5], [1.5], [1.5], [1.5]]))  # ratios 0.5 (low) and 1.5 (high)
    advantages = torch.tensor([-1.0, 0.0, 0.5, 1.0, 0.0, -0.5])
    _, stats = grpo_loss(logps, old, None, advantages, torch.ones(6, 1))
    assert stats["clip_fraction"] == pytest.approx(2 / 6)  # rows 0 (low, -1) and 3 (high, +1) only


def test_dead_groups_give_exactly_zero_gradient(tokenizer):
    model = build_model("tiny-s", tokenizer, seed=0)
    result = library_step(model, tokenizer, [1.0] * 4 + [0.0] * 4)
    assert result["loss"] == 0.0 and result["grad_norm"] == 0.0
    assert torch.equal(result["advantages"], torch.zeros(len(COMPLETIONS)))
    assert all(torch.count_nonzero(p.grad) == 0 for p in model.parameters())


def test_dead_group_only_dilutes_the_live_groups_gradient(tokenizer):
    # dapo divides by every token of the batch: a dead group adds tokens but no gradient of its own
    model = build_model("tiny-s", tokenizer, seed=0)
    library_step(model, tokenizer, REWARDS[:G], prompts=PROMPTS[:1], completions=COMPLETIONS[:G])
    alone = torch.cat([p.grad.flatten() for p in model.parameters()])
    model.zero_grad(set_to_none=True)
    library_step(model, tokenizer, REWARDS[:G] + [1.0] * G)
    with_dead = torch.cat([p.grad.flatten() for p in model.parameters()])
    live_tokens = sum(len(c) + 1 for c in COMPLETIONS[:G])  # + 1 for eos
    all_tokens = sum(len(c) + 1 for c in COMPLETIONS)
    torch.testing.assert_close(with_dead, alone * live_tokens / all_tokens, rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"old_logps": torch.zeros(8, 5)}, "old_logps has shape (8, 5); give the shape of logps, (8, 4)"),
        ({"advantages": torch.zeros(2, 4)}, "advantages has shape (2, 4); give one per completion, (8,)"),
        ({"beta": 0.04}, "beta=0.04 penalises KL to a reference: give ref_logps"),
        ({"ref_logps": torch.zeros(8, 3)}, "ref_logps has shape (8, 3); give the shape of logps, (8, 4)"),
        ({"mask": torch.ones(8, 5)}, "mask has shape (8, 5); give the shape of logps, (8, 4)"),
        ({"logps": torch.zeros(8), "old_logps": torch.zeros(8), "mask": torch.ones(8)},
         "logps has shape (8,); give (N, T): N completions of T tokens"),
        ({"loss_type": "sum"}, "loss_type='sum' is unknown; use one of dapo, grpo, bnpo, dr_grpo"),
        ({"loss_type": "dr_grpo"}, "loss_type='dr_grpo' divides by max_completion_length: give it"),
        ({"loss_type": "dr_grpo", "max_completion_length": 0}, "loss_type='dr_grpo' divides by max_completion_length"),
    ],
)
def test_grpo_loss_rejects(change, message):
    arguments = {"logps": torch.zeros(8, 4), "old_logps": torch.zeros(8, 4), "ref_logps": None,
                 "advantages": torch.zeros(8), "mask": torch.ones(8, 4), **change}
    with pytest.raises(CourseError, match=re.escape(message)):
        grpo_loss(**arguments)


def test_completion_logprobs_needs_one_prompt_per_completion(tokenizer):
    with pytest.raises(CourseError, match=r"^2 prompts but 3 completions$"):
        completion_logprobs(build_model("tiny-s", tokenizer, seed=0), tokenizer, PROMPTS, COMPLETIONS[:3])


def test_trl_check_rejects_a_batch_that_does_not_split_into_groups(tokenizer, tmp_path):
    from course_lib.training import trl_loss_on_fixed_batch

    with pytest.raises(CourseError, match=re.escape("2 prompts x group_size=4 must equal the 7 completions and 7 rewards")):
        trl_loss_on_fixed_batch(None, tokenizer, PROMPTS, COMPLETIONS[:7], REWARDS[:7], G, tmp_path)


class _AddsBos:
    """A tokenizer that puts a BOS token before every text unless told not to (as many real ones do by default)."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def __call__(self, text, add_special_tokens=True, **kwargs):
        ids = self.inner(text, add_special_tokens=False, **kwargs)["input_ids"]
        return {"input_ids": [self.inner.bos_token_id or self.inner.eos_token_id] * add_special_tokens + ids}


def test_log_probabilities_read_the_text_without_special_tokens(tokenizer, start):
    """A BOS added to the prompt or the completion would shift every position read: the same numbers either way."""
    model = load(start)
    prompts, completions = ["Q:12+7\n", "Q:3-1\n"], ["12+7=19\n#### 19", "#### 2"]
    plain = completion_logprobs(model, tokenizer, prompts, completions)
    adds_bos = completion_logprobs(model, _AddsBos(tokenizer), prompts, completions)
    for ours, theirs in zip(plain, adds_bos):
        torch.testing.assert_close(theirs, ours)
