"""Training loops where `requires_grad` was forced on the loss to silence
"element 0 of tensors does not require grad and does not have a grad_fn" (GG109).

Modelled, in my own words, on:
* https://github.com/ronghuaiyang/arcface-pytorch/issues/56 -- `loss.requires_grad = True`
  added after `criterion(output, label)`; "the loss is not decline, and the acc is always
  zero";
* https://github.com/lxztju/pytorch_classification/issues/32 -- `loss.requires_grad_(True)`
  needed "or it raises";
* https://github.com/Kostis-S-Z/exploring_meta/issues/16 -- a PPO loss that "needs to be
  manually set to requires_grad=True" because its terms went through numpy.
Each forced loss is a new leaf: backward() stops at it and no parameter gets a gradient.
"""

import torch
from torch import nn

backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
metric_fc = nn.Linear(16, 10)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(
    list(backbone.parameters()) + list(metric_fc.parameters()), lr=0.1, momentum=0.9
)


def train_epoch(loader):
    backbone.train()
    for data, label in loader:
        with torch.no_grad():
            feature = backbone(data)
            output = metric_fc(feature)
            loss = criterion(output, label)
        loss.requires_grad = True  # expect: GG109
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


policy = nn.Linear(8, 4)
policy_optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)


def ppo_update(states, actions, old_log_probs, advantages):
    log_probs = torch.log_softmax(policy(states), dim=-1).gather(1, actions)
    ratio = torch.exp(log_probs - old_log_probs)
    clipped = torch.clamp(ratio, 0.8, 1.2)
    objective = torch.min(ratio * advantages, clipped * advantages).mean()
    policy_loss = torch.tensor(-objective.item())
    policy_loss.requires_grad = True  # expect: GG109
    policy_optimizer.zero_grad()
    policy_loss.backward()
    policy_optimizer.step()


scorer = nn.Linear(16, 3)
scorer_optimizer = torch.optim.SGD(scorer.parameters(), lr=0.1)


def error_rate_step(x, y):
    predictions = scorer(x).argmax(dim=1)
    error_rate = (predictions != y).float().mean()
    error_rate.requires_grad_()  # expect: GG109
    scorer_optimizer.zero_grad()
    error_rate.backward()
    scorer_optimizer.step()
