"""A REINFORCE update whose log-probability went through .item(), scored by a string
utility function the trainer keeps (GG102).

https://github.com/yanweiyue/GDesigner/issues/1 discusses a loss of the form
`-log_prob * utility`, where the utility comes from checking a generated answer (text). Here
the trainer keeps the scoring function (`self.score = score`) and its settings dict
(`self.hp = HP`); the utility counts characters of the joined answer, so it is a Python
number, and with `.item()` on the log-probability the whole loss is a float: backward()
raises "'float' object has no attribute 'backward'".

The analysis sees it only because the function and the dict are kept on `self` (each
stored once in `__init__`, never changed) and because no `str` method returns a tensor.

The second trainer adds a penalty from an object's own `count` method, which returns a
tensor with history (a method named like a string's is not one): its loss is a tensor and
backward() runs. Its REINFORCE term still went through `.item()`, though: a constant added
to the loss, through which the policy gets no gradient (the silent form of GG102).
"""

import torch
import torch.nn.functional as F
from torch import nn

VOCAB = "abxy"
HP = {"n_samples": 3, "length": 4, "lr": 0.01}


def utility(tokens):
    text = "".join(VOCAB[t] for t in tokens)
    return 1.0 + text.count("x") * 0.5


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.logits = nn.Parameter(torch.zeros(len(VOCAB)))

    def forward(self):
        return F.log_softmax(self.logits, dim=0)


class Trainer:
    def __init__(self, policy, score, hp):
        self.policy = policy
        self.score = score
        self.hp = hp
        self.opt = torch.optim.SGD(policy.parameters(), lr=hp["lr"])

    def update(self):
        loss = 0
        for _ in range(self.hp["n_samples"]):
            log_probs = self.policy()
            tokens = torch.multinomial(log_probs.exp(), self.hp["length"], replacement=True)
            reward = self.score(tokens.tolist())
            for t in tokens.tolist():
                loss -= log_probs[t].item() * reward  # expect: GG102
        loss = loss / self.hp["n_samples"]
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


class RepeatPenalty(nn.Module):
    """A penalty whose `count` is a differentiable soft count of one token."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(()))

    def count(self, log_probs, token):
        return self.scale * log_probs[token].exp()


class PenalisedTrainer:
    """`.item()` on the log-probability, and the penalty's `count` a tensor with history:
    the loss is one, backward() runs, the REINFORCE term trains nothing."""

    def __init__(self, policy, penalty, score):
        self.policy = policy
        self.penalty = penalty
        self.score = score
        params = [*policy.parameters(), *penalty.parameters()]
        self.opt = torch.optim.SGD(params, lr=0.01)

    def update(self):
        log_probs = self.policy()
        tokens = torch.multinomial(log_probs.exp(), 4, replacement=True).tolist()
        reward = self.score(tokens)
        loss = -log_probs[tokens[0]].item() * reward + self.penalty.count(log_probs, 2)  # expect: GG102
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


def run_buggy():
    Trainer(Policy(), utility, HP).update()


def run_penalised():
    PenalisedTrainer(Policy(), RepeatPenalty(), utility).update()


if __name__ == "__main__":
    try:
        run_buggy()
    except AttributeError as error:
        assert "'float' object has no attribute 'backward'" in str(error), error
    else:
        raise AssertionError("the update should fail")
    run_penalised()
    print("ok")
