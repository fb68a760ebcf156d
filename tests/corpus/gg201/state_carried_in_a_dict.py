"""Recurrent state carried from batch to batch inside a dict rebuilt every iteration.

`state = {"h": h_n, "seen": ...}` at the end of each iteration keeps the GRU's returned
state, and the next iteration feeds `state["h"]` back in: the second backward reaches into
the first batch's freed graph, "Trying to backward through the graph a second time"
(checked with torch 2.13.0). The safe fix detaches the dict's value that holds history.
Found by a blind corpus a helper wrote for the team (a stateful forecaster).
"""

import torch
from torch import nn


def train(gru, optimizer, batches):
    state = {"h": None, "seen": 0}
    for x in batches:
        out, h_n = gru(x, state["h"])
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state = {"h": h_n, "seen": state["seen"] + x.size(0)}  # expect: GG201
    return state["seen"]


def train_detached(gru, optimizer, batches):
    state = {"h": None, "seen": 0}
    for x in batches:
        out, h_n = gru(x, state["h"])
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        state = {"h": h_n.detach(), "seen": state["seen"] + x.size(0)}
    return state["seen"]


def train_counting_only(gru, optimizer, batches):
    stats = {"loss": 0.0, "seen": 0}
    for x in batches:
        out, _ = gru(x)
        loss = out.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        stats = {"loss": stats["loss"] + loss.item(), "seen": stats["seen"] + x.size(0)}
    return stats


if __name__ == "__main__":
    model = nn.GRU(3, 4, batch_first=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [torch.randn(2, 5, 3) for _ in range(3)]
    try:
        train(model, opt, data)
    except RuntimeError as error:
        assert "backward through the graph a second time" in str(error)
    else:
        raise AssertionError("expected the second backward to fail")
    train_detached(model, opt, data)
    train_counting_only(model, opt, data)
