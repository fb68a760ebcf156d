"""Carried state with no graph to cut, not read by the loss, or produced by unknown code."""

import torch
from torch import nn

from mylab.models import CharLSTM  # unknown to the analysis: it may detach internally

lstm = nn.LSTM(8, 16)
embed = nn.Embedding(20, 8)
decoder = nn.Linear(16, 20)
params = [*lstm.parameters(), *embed.parameters(), *decoder.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-3)
criterion = nn.CrossEntropyLoss()


def sample(length):
    """Generation carries the state under no_grad(): nothing to backpropagate."""
    token = torch.zeros(1, 1, dtype=torch.long)
    hidden = None
    tokens = []
    with torch.no_grad():
        for _ in range(length):
            out, hidden = lstm(embed(token), hidden)
            token = decoder(out[-1]).argmax(dim=-1, keepdim=True)
            tokens.append(token.item())
    return tokens


@torch.no_grad()
def greedy_decode(length):
    token = torch.zeros(1, 1, dtype=torch.long)
    state = None
    for _ in range(length):
        out, state = lstm(embed(token), state)
        token = decoder(out[-1]).argmax(dim=-1, keepdim=True)
    return token


@torch.inference_mode()
def beam_free_decode(length):
    token = torch.zeros(1, 1, dtype=torch.long)
    state = None
    for _ in range(length):
        out, state = lstm(embed(token), state)
        token = decoder(out[-1]).argmax(dim=-1, keepdim=True)
    return token


def train_with_ema_and_logging(steps):
    """The loop carries an EMA (under no_grad) and the previous logits (read only for a log)."""
    ema = None
    previous_logits = None
    running = 0.0
    for step in range(steps):
        tokens = torch.randint(0, 20, (5, 2))
        targets = torch.randint(0, 20, (5, 2))
        out, _ = lstm(embed(tokens))
        logits = decoder(out)
        loss = criterion(logits.view(-1, 20), targets.view(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
        with torch.no_grad():
            flat = torch.cat([p.view(-1) for p in params])
            ema = flat.clone() if ema is None else 0.99 * ema + 0.01 * flat
        if previous_logits is not None:
            drift = (logits - previous_logits).abs().max().item()
            print(f"step {step}: loss {running / (step + 1):.3f} drift {drift:.3f}")
        previous_logits = logits
    return ema


def train_unknown_model(model, batches, loss_fn, opt):
    """`model` is a parameter: its call may well return a detached state."""
    hidden = None
    for x, y in batches:
        output, hidden = model(x, hidden)
        loss = loss_fn(output, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def train_imported_model(batches):
    """An imported class is unknown too."""
    model = CharLSTM(20, 16)
    hidden = model.init_hidden(2)
    for x, y in batches:
        output, hidden = model(x, hidden)
        loss = criterion(output, y)
        loss.backward()


def train_through_helper(batches, prepare):
    """A call to an unknown function on the state counts as a possible detach."""
    hidden = None
    for x, y in batches:
        hidden = prepare(hidden)
        out, hidden = lstm(embed(x), hidden)
        loss = criterion(decoder(out).view(-1, 20), y.view(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
