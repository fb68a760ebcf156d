"""A recurrent state carried across truncated updates through a loss helper.

Source (rewritten in our own words): https://github.com/dpressel/dliss-tutorial/issues/1 - a
reader asked why the tutorial's language model detaches its hidden states at every step; the
answer: truncated backpropagation through time starts each segment from the previous state,
and without the cut the next backward reaches into the segment the last one already freed.

Here the policy's log-probabilities come from an LSTM cell whose state runs from step to step,
and the loss is built by a helper (`segment_loss`) from what the steps returned: the helper's
result depends on the carried state through its arguments. The state is never detached, so the
second update raises "Trying to backward through the graph a second time". The look-alikes
detach the state after each update, or give the helper only values cut from the state.
"""

import torch
from torch import nn


class Policy(nn.Module):
    def __init__(self, obs_dim=6, hidden=16, actions=4):
        super().__init__()
        self.cell = nn.LSTMCell(obs_dim, hidden)
        self.head = nn.Linear(hidden, actions)

    def forward(self, obs, state):
        h, c = self.cell(obs, state)
        return torch.log_softmax(self.head(h), dim=-1), (h, c)


def segment_loss(log_probs, rewards):
    return -(torch.stack(log_probs).max(dim=-1).values.squeeze(-1) * rewards).mean()


def run_episode(policy, optimizer, steps=8, update_every=4):
    state = (torch.zeros(1, 16), torch.zeros(1, 16))
    log_probs = []
    for t in range(steps):
        out, state = policy(torch.randn(1, 6), state)  # missed: GG201 (backward under `if`)
        log_probs.append(out)
        if (t + 1) % update_every == 0:
            loss = segment_loss(log_probs, torch.ones(len(log_probs), 1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            log_probs = []


def run_episode_detached(policy, optimizer, steps=8):
    state = (torch.zeros(1, 16), torch.zeros(1, 16))
    for _ in range(steps):
        out, state = policy(torch.randn(1, 6), state)
        loss = segment_loss([out], torch.ones(1, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state = (state[0].detach(), state[1].detach())


def run_episode_cut_before_the_helper(policy, optimizer, steps=8):
    state = (torch.zeros(1, 16), torch.zeros(1, 16))
    for _ in range(steps):
        out, state = policy(torch.randn(1, 6), state)
        loss = segment_loss([out.detach()], torch.ones(1, 1)) + policy.head.bias.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def run_episode_every_step(policy, optimizer, steps=8):
    state = (torch.zeros(1, 16), torch.zeros(1, 16))
    for _ in range(steps):
        out, state = policy(torch.randn(1, 6), state)  # expect: GG201
        loss = segment_loss([out], torch.ones(1, 1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    policy = Policy()
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.01)
    try:
        run_episode(policy, optimizer)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error), error
    else:
        raise SystemExit("the second update ran")
    try:
        run_episode_every_step(policy, optimizer)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error), error
    else:
        raise SystemExit("the second step ran")
    run_episode_detached(policy, optimizer)
    run_episode_cut_before_the_helper(policy, optimizer)
    print("ok")
