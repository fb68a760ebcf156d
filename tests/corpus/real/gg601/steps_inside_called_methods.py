"""Training steps that live in a method or function the loop calls (GG601).

The loop itself shows neither backward() nor step(): they run on every call of the method
it calls on every iteration, a chain deeper than nested summaries reach
(`main -> Trainer.train -> _run_epoch -> _run_batch`).

Sources (structure kept, the `zero_grad()` left out as in the reports, our own words):
* https://github.com/pytorch/examples/blob/main/distributed/ddp-tutorial-series/single_gpu.py
  - a `Trainer` whose `_run_epoch` loops over batches calling `_run_batch`.
* https://github.com/pytorch/examples/blob/main/reinforcement_learning/reinforce.py -
  `finish_episode()` backpropagates and steps once per episode of the main loop.
* https://github.com/wenet-e2e/wekws/issues/72 - a training step without any clearing.
"""

from itertools import count

import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, train_data, optimizer, save_every):
        self.model = model
        self.train_data = train_data
        self.optimizer = optimizer
        self.save_every = save_every

    def _run_batch(self, source, targets):
        output = self.model(source)
        loss = F.cross_entropy(output, targets)
        loss.backward()
        self.optimizer.step()

    def _run_epoch(self, epoch):
        for source, targets in self.train_data:  # expect: GG601
            self._run_batch(source, targets)

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self._run_epoch(epoch)
            if epoch % self.save_every == 0:
                torch.save(self.model.state_dict(), "checkpoint.pt")


def main(dataset):
    model = torch.nn.Linear(20, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    Trainer(model, dataset, optimizer, 10).train(5)


policy = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Softmax(dim=-1))
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
saved_log_probs = []
rewards = []


def finish_episode():
    returns = torch.tensor(rewards)
    policy_loss = torch.stack([-lp * r for lp, r in zip(saved_log_probs, returns)]).sum()
    policy_loss.backward()
    optimizer.step()
    del rewards[:]
    del saved_log_probs[:]


# Missed: `env.step(...)` is code the analysis cannot see whose name says it may step (and
# clear) something; that `env` never saw the model or the optimizer is a fact not kept yet.
def run(env):
    for i_episode in count(1):  # missed: GG601
        state = env.reset()
        for t in range(100):
            probs = policy(torch.as_tensor(state))
            m = torch.distributions.Categorical(probs)
            action = m.sample()
            saved_log_probs.append(m.log_prob(action))
            state, reward, done = env.step(action.item())
            rewards.append(reward)
            if done:
                break
        finish_episode()


# ---- negatives: the same shapes with the clearing where the originals have it ----------


class ClearingTrainer:
    def __init__(self, model, train_data, optimizer):
        self.model = model
        self.train_data = train_data
        self.optimizer = optimizer

    def _train_on_batch(self, source, targets):
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(source), targets)
        loss.backward()
        self.optimizer.step()

    def _train_epoch(self, epoch):
        for source, targets in self.train_data:
            self._train_on_batch(source, targets)


def finish_episode_cleared():
    optimizer.zero_grad()
    policy_loss = torch.stack([-lp * r for lp, r in zip(saved_log_probs, rewards)]).sum()
    policy_loss.backward()
    optimizer.step()


def run_cleared(env):
    for i_episode in count(1):
        state = env.reset()
        finish_episode_cleared()


class ClearedInAnotherMethod:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def reset_gradients(self):
        self.optimizer.zero_grad(set_to_none=True)

    def update(self, x, y):
        loss = F.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()

    def fit(self, loader):
        for x, y in loader:
            self.reset_gradients()
            self.update(x, y)
