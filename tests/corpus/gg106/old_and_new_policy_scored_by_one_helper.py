"""One scoring helper called under two grad modes, given tokens sampled in inference mode.

A PPO-style trainer samples continuations under `torch.inference_mode()` and scores them
with one method, `token_logps`, twice: for the old policy under `torch.no_grad()` (the
ratio's denominator) and for the current policy with recording on. The helper's callers
disagree on the grad mode, so nothing is certain inside it; the call made with recording
on passes the sampled ids, an inference tensor, to the policy's nn.Embedding, which keeps
its indices for the weight's gradient: "Inference tensors cannot be saved for backward"
(checked with torch 2.13.0 below). GG106 reports that call.

Look-alikes: a trainer cloning the sampled ids before scoring them with recording on, and
one that scores both policies without recording (an evaluation).

Modelled on the shape of PPO/GRPO trainers (TRL's `_get_per_token_logps` called for the
reference model under no_grad and for the policy in `compute_loss`), written from scratch.
"""

import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self, vocab=12, width=8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        return self.head(self.embed(ids))


class PPOTrainer:
    def __init__(self, policy, old_policy):
        self.policy = policy
        self.old_policy = old_policy
        self.optimizer = torch.optim.SGD(policy.parameters(), lr=0.01)

    def token_logps(self, model, ids):
        logps = model(ids).log_softmax(-1)
        return logps.gather(-1, ids.unsqueeze(-1)).squeeze(-1)

    def rollout(self, prompts):
        with torch.inference_mode():
            probs = self.policy(prompts)[:, -1].softmax(-1)
            return torch.cat([prompts, torch.multinomial(probs, 1)], dim=1)

    def step(self, prompts):
        ids = self.rollout(prompts)
        with torch.no_grad():
            old = self.token_logps(self.old_policy, ids)
        ratio = (self.token_logps(self.policy, ids) - old).exp()  # expect: GG106
        loss = -ratio.mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class ClonedPPOTrainer:
    def __init__(self, policy, old_policy):
        self.policy = policy
        self.old_policy = old_policy
        self.optimizer = torch.optim.SGD(policy.parameters(), lr=0.01)

    def sequence_logps(self, model, ids):
        return model(ids).log_softmax(-1).amax(-1)

    def generate(self, prompts):
        with torch.inference_mode():
            return torch.cat([prompts, prompts[:, -1:]], dim=1)

    def update(self, prompts):
        ids = self.generate(prompts).clone()
        with torch.no_grad():
            old = self.sequence_logps(self.old_policy, ids)
        ratio = (self.sequence_logps(self.policy, ids) - old).exp()
        loss = -ratio.mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class Evaluator:
    def __init__(self, policy, old_policy):
        self.policy = policy
        self.old_policy = old_policy

    def mean_logps(self, model, ids):
        return model(ids).log_softmax(-1).amax(-1)

    def sample(self, prompts):
        with torch.inference_mode():
            return torch.cat([prompts, prompts[:, :1]], dim=1)

    def drift(self, prompts):
        ids = self.sample(prompts)
        with torch.no_grad():
            old = self.mean_logps(self.old_policy, ids)
        with torch.inference_mode():
            new = self.mean_logps(self.policy, ids)
        return (new - old).abs().mean().item()


def main():
    torch.manual_seed(0)
    prompts = torch.randint(0, 12, (2, 3))
    policy, old_policy = Policy(), Policy()
    try:
        PPOTrainer(policy, old_policy).step(prompts)
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    else:
        raise AssertionError("expected the sampled ids to be refused")
    ClonedPPOTrainer(policy, old_policy).update(prompts)
    print(Evaluator(policy, old_policy).drift(prompts))


if __name__ == "__main__":
    main()
