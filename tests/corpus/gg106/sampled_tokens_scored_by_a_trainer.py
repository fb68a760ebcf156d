"""Tokens sampled in inference mode, then scored again with gradients on (GG106).

`PolicyTrainer.rollout` samples continuations inside `torch.inference_mode()`; the
settings dict it reads comes from `main` through a local name (`settings = SETTINGS`), so
the sampling loop certainly runs and the returned ids are the ones `torch.cat` allocated
there: inference tensors. `train_step` feeds them to the policy's nn.Embedding, which keeps
its indices for the weight's gradient: "Inference tensors cannot be saved for backward"
(checked with torch 2.13.0 below).

Look-alikes: a trainer sampling under `torch.no_grad()` (normal tensors), and one that clones
the sampled ids before scoring them.

Modelled on unslothai/unsloth#2670 (a GRPO trainer failing when completions generated for
scoring were reused by the training forward).
"""

import torch
from torch import nn

SETTINGS = {"vocab": 10, "width": 8, "new_tokens": 3, "lr": 0.01}


class Policy(nn.Module):
    def __init__(self, vocab, width):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        return self.head(self.embed(ids))


def sample(policy, ids, new_tokens):
    for _ in range(new_tokens):
        probs = policy(ids)[:, -1].softmax(-1)
        ids = torch.cat([ids, torch.multinomial(probs, 1)], dim=1)
    return ids


class PolicyTrainer:
    def __init__(self, policy, settings):
        self.policy = policy
        self.settings = settings
        self.optimizer = torch.optim.SGD(policy.parameters(), lr=settings["lr"])

    def rollout(self, prompts):
        with torch.inference_mode():
            return sample(self.policy, prompts, self.settings["new_tokens"])

    def train_step(self, prompts):
        ids = self.rollout(prompts)
        logits = self.policy(ids)  # expect: GG106
        loss = -logits.log_softmax(-1).max(-1).values.mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class NoGradTrainer:
    def __init__(self, policy, settings):
        self.policy = policy
        self.settings = settings
        self.optimizer = torch.optim.SGD(policy.parameters(), lr=settings["lr"])

    def train_step(self, prompts):
        with torch.no_grad():
            ids = sample(self.policy, prompts, self.settings["new_tokens"])
        loss = -self.policy(ids).log_softmax(-1).max(-1).values.mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


class ClonedTrainer:
    def __init__(self, policy, settings):
        self.policy = policy
        self.settings = settings
        self.optimizer = torch.optim.SGD(policy.parameters(), lr=settings["lr"])

    def rollout(self, prompts):
        with torch.inference_mode():
            return sample(self.policy, prompts, self.settings["new_tokens"])

    def train_step(self, prompts):
        ids = self.rollout(prompts).clone()
        loss = -self.policy(ids).log_softmax(-1).max(-1).values.mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()


def main():
    torch.manual_seed(0)
    settings = SETTINGS
    prompts = torch.randint(0, settings["vocab"], (2, 2))
    policy = Policy(settings["vocab"], settings["width"])
    trainer = PolicyTrainer(policy, settings)
    try:
        trainer.train_step(prompts)
    except RuntimeError as error:
        assert "Inference tensors cannot be saved for backward" in str(error)
    else:
        raise AssertionError("expected the sampled ids to be refused")
    NoGradTrainer(policy, settings).train_step(prompts)
    ClonedTrainer(policy, settings).train_step(prompts)


if __name__ == "__main__":
    main()
