"""Inference tensors handed to a function or module of the file that saves them (GG106).

An agent collects its rollout in a method decorated `@torch.inference_mode()` and returns
the observations in a dict; `update(batch)` later runs the policy, a module of this file, on
`batch["obs"]`. The policy's `forward` hands its input to an `nn.Sequential` starting with
`nn.Linear`, which must save it for backward: "Inference tensors cannot be saved for
backward" (checked with torch 2.13.0 below). The mistake is where the tensor enters, the
call in `update`, not inside `forward`, which is fine for normal tensors. The same holds one
call deeper: `token_log_probs(model, ids)` gives the inference `ids` to the model, whose
`nn.Embedding` saves the indices. (Were every call of the helper given an inference tensor,
the helper's own analysis would know `ids` and report it inside; here one call passes
normal indices.)

Look-alikes: the observations cloned before the update, a module whose `forward` only adds
to its input (nothing saved), and a rollout collected under `torch.no_grad()`.

Modelled on the PPO rollout case of the team's blind corpus (h9), whose report is
https://github.com/ai4co/rl4co/issues/272 (rollouts collected under inference_mode).
"""

import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.head = nn.Linear(8, 2)

    def forward(self, obs):
        return self.head(self.body(obs))


class Shift(nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(4))

    def forward(self, obs):
        return obs + self.bias


class TokenModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)

    def forward(self, ids):
        return self.embed(ids).sum(-1)


def token_log_probs(model, ids):
    return model(ids).log_softmax(-1)


class Agent:
    def __init__(self):
        self.policy = Policy()
        self.shift = Shift()
        self.tokens = TokenModel()

    @torch.inference_mode()
    def collect(self):
        obs = torch.randn(5, 4)
        return {"obs": obs * 2, "ids": torch.randint(0, 10, (5, 3)) + 0}

    @torch.no_grad()
    def collect_no_grad(self):
        return {"obs": torch.randn(5, 4) * 2}

    def update(self, batch):
        loss = self.policy(batch["obs"]).sum()  # expect: GG106
        loss.backward()

    def update_tokens(self, batch):
        loss = token_log_probs(self.tokens, batch["ids"]).sum()  # expect: GG106
        loss.backward()

    def update_fresh_tokens(self):
        loss = token_log_probs(self.tokens, torch.randint(0, 10, (5, 3))).sum()
        loss.backward()

    def update_cloned(self, batch):
        loss = self.policy(batch["obs"].clone()).sum()
        loss.backward()

    def update_shift(self, batch):
        loss = self.shift(batch["obs"]).sum()
        loss.backward()

    def update_plain(self, batch):
        loss = self.policy(batch["obs"]).sum()
        loss.backward()

    def train(self):
        self.update_cloned(self.collect())
        self.update_shift(self.collect())
        self.update_plain(self.collect_no_grad())
        self.update_fresh_tokens()
        refused = 0
        try:
            self.update(self.collect())
        except RuntimeError as error:
            refused += "Inference tensors cannot be saved for backward" in str(error)
        try:
            self.update_tokens(self.collect())
        except RuntimeError as error:
            refused += "Inference tensors cannot be saved for backward" in str(error)
        assert refused == 2, "expected both inference tensors to be refused"


if __name__ == "__main__":
    Agent().train()
