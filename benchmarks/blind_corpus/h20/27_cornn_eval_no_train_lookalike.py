"""GG607 look-alike - model.eval() in the middle of the training loop, restored afterwards.

Evaluation goes through a small context manager that remembers the model's
mode, switches to eval, and restores the previous mode in `finally`. The
training loop itself has no model.train() call after evaluating, yet every
training step runs in train mode.

Modelled on: https://github.com/tk-rusch/coRNN/issues/1
"""
import contextlib

import torch
import torch.nn as nn

HP = dict(n_hid=16, T=12, steps=6, batch=8, lr=2e-3, dropout=0.2, eval_every=2)


class GRUAdder(nn.Module):
    def __init__(self, n_hid, dropout):
        super().__init__()
        self.rnn = nn.GRU(2, n_hid)
        self.drop = nn.Dropout(dropout)
        self.readout = nn.Linear(n_hid, 1)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.readout(self.drop(h[-1]))


@contextlib.contextmanager
def evaluating(model):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield model
    finally:
        model.train(was_training)


def adding_batch(T, n):
    values = torch.rand(T, n)
    marks = torch.zeros(T, n)
    for i in range(n):
        marks[torch.randint(T // 2, (1,)), i] = 1
        marks[torch.randint(T // 2, T, (1,)), i] = 1
    return torch.stack((values, marks), -1), (values * marks).sum(0, keepdim=True).t()


def main():
    torch.manual_seed(0)
    model = GRUAdder(HP["n_hid"], HP["dropout"])
    opt = torch.optim.Adam(model.parameters(), lr=HP["lr"])
    mse = nn.MSELoss()
    model.train()
    for step in range(HP["steps"]):
        x, y = adding_batch(HP["T"], HP["batch"])
        assert model.training
        loss = mse(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % HP["eval_every"] == 0:
            with evaluating(model) as m:
                xt, yt = adding_batch(HP["T"], 32)
                print(f"step {step + 1} test mse {mse(m(xt), yt).item():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
