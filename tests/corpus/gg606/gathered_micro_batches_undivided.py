"""A trainer whose epoch loop gathers a few loader batches into a list and hands the list
to one training step: the step clears the gradients, backpropagates the mean loss of each
gathered micro-batch in a loop, and steps the optimizer once after the loop. Nothing
divides by the number of micro-batches, so the update is that many times the gradient of
the large batch the micro-batches stand for.

Modelled on NVIDIA-NeMo/Automodel#3829: a sequence-classification recipe runs
`for batch in batches:` over the micro-batches of one update, each loss a
`CrossEntropyLoss()` mean, and nothing divides by `len(batches)`, so the gradient magnitude
grows linearly with the number of accumulation steps.
https://github.com/NVIDIA-NeMo/Automodel/issues/3829

The look-alikes loop over things whose sum is the objective (the tasks or loss terms of one
batch, the heads of one model), over pieces of one sequence (truncated backpropagation
through time), or divide the loss by the number of micro-batches.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.steps = []

    def train_step(self, samples):
        self.optimizer.zero_grad()
        for x, y in samples:
            loss = F.cross_entropy(self.model(x), y)
            loss.backward()  # expect: GG606
        self.steps.append(self.model.weight.grad.clone())
        self.optimizer.step()

    def train_epoch(self, loader, update_freq):
        pending = []
        for batch in loader:
            pending.append(batch)
            if len(pending) == update_freq:
                self.train_step(pending)
                pending = []


class AveragingTrainer:
    """Look-alike: each micro-batch's loss is divided by their number."""

    def __init__(self, model, lr=0.1):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.steps = []

    def averaged_step(self, samples):
        self.optimizer.zero_grad()
        for x, y in samples:
            loss = F.cross_entropy(self.model(x), y)
            (loss / len(samples)).backward()
        self.steps.append(self.model.weight.grad.clone())
        self.optimizer.step()

    def train_epoch(self, loader, update_freq):
        pending = []
        for batch in loader:
            pending.append(batch)
            if len(pending) == update_freq:
                self.averaged_step(pending)
                pending = []


def multitask_step(model, optimizer, tasks):
    """Look-alike: the tasks of one batch, each a loss of its own; their sum is the
    multi-task objective."""
    optimizer.zero_grad()
    for x, y in tasks:
        loss = F.cross_entropy(model(x), y)
        loss.backward()
    optimizer.step()


def multitask_epoch(model, optimizer, loader):
    for x, y in loader:
        tasks = [(x, y), (x.flip(0), y.flip(0))]
        multitask_step(model, optimizer, tasks)


class MultiHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 4)
        self.heads = nn.ModuleList([nn.Linear(4, 3), nn.Linear(4, 3)])

    def forward(self, x):
        return self.body(x)


def heads_step(net, optimizer, x, y):
    """Look-alike: one loss per head of one model over one batch: their sum is the loss."""
    optimizer.zero_grad()
    features = net(x)
    for head in net.heads:
        loss = F.cross_entropy(head(features), y)
        loss.backward(retain_graph=True)
    optimizer.step()


def loss_terms_step(net, optimizer, x, y):
    """Look-alike: the terms of one loss backpropagated one by one."""
    optimizer.zero_grad()
    out = net(x)
    for term in (F.mse_loss(out, torch.zeros_like(out)), out.abs().mean()):
        term.backward(retain_graph=True)
    optimizer.step()


def bptt_step(rnn, head, optimizer, x, y, chunk=3):
    """Look-alike: truncated backpropagation through time over pieces of one sequence."""
    optimizer.zero_grad()
    hidden = None
    for xc, yc in zip(x.split(chunk, dim=1), y.split(chunk, dim=1)):
        out, hidden = rnn(xc, hidden)
        hidden = hidden.detach()
        loss = F.cross_entropy(head(out).flatten(0, 1), yc.flatten())
        loss.backward()
    optimizer.step()


def _full_batch_grad(model, x, y):
    model.zero_grad()
    F.cross_entropy(model(x), y).backward()
    return model.weight.grad.clone()


if __name__ == "__main__":
    torch.manual_seed(0)
    xs, ys = torch.randn(16, 4), torch.randint(0, 3, (16,))
    loader = DataLoader(TensorDataset(xs, ys), batch_size=4)

    torch.manual_seed(1)
    model = nn.Linear(4, 3)
    torch.manual_seed(1)
    same = nn.Linear(4, 3)
    full = _full_batch_grad(same, xs, ys)

    trainer = Trainer(model)
    trainer.train_epoch(loader, update_freq=4)
    try:
        ratio = float(trainer.steps[0].norm() / full.norm())
        assert abs(ratio - 1.0) < 1e-4, f"update is {ratio:.1f}x the large-batch gradient"
    except AssertionError as error:
        assert "update is 4.0x the large-batch gradient" in str(error), error
    else:
        raise SystemExit("the undivided accumulation was not caught")

    torch.manual_seed(1)
    averaging = AveragingTrainer(nn.Linear(4, 3))
    averaging.train_epoch(loader, update_freq=4)
    assert torch.allclose(averaging.steps[0], full, atol=1e-6)

    net = nn.Linear(4, 3)
    multitask_epoch(net, torch.optim.SGD(net.parameters(), lr=0.1), loader)
    multi = MultiHead()
    heads_step(multi, torch.optim.SGD(multi.parameters(), lr=0.1), xs, ys)
    loss_terms_step(net, torch.optim.SGD(net.parameters(), lr=0.1), xs, ys)
    rnn, head = nn.RNN(4, 5, batch_first=True), nn.Linear(5, 3)
    params = [*rnn.parameters(), *head.parameters()]
    bptt_step(rnn, head, torch.optim.SGD(params, lr=0.1), torch.randn(2, 9, 4),
              torch.randint(0, 3, (2, 9)))
    print("ok")
