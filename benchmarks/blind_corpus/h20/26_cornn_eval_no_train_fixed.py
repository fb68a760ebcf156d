"""GG607 (fixed) - model.train() is called at the top of every training iteration.

test() still switches to eval mode, but each training step switches back, so
dropout is active for every training update.

Modelled on: https://github.com/tk-rusch/coRNN/issues/1
"""
import argparse

import torch
import torch.nn as nn


def get_args(argv=None):
    p = argparse.ArgumentParser(description="coRNN adding task")
    p.add_argument("--n_hid", type=int, default=16)
    p.add_argument("--T", type=int, default=12)
    p.add_argument("--max_steps", type=int, default=6)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--dt", type=float, default=0.05)
    p.add_argument("--gamma", type=float, default=2.0)
    p.add_argument("--epsilon", type=float, default=4.0)
    p.add_argument("--dropout", type=float, default=0.2)
    p.add_argument("--eval_every", type=int, default=2)
    return p.parse_args(argv)


class coRNNCell(nn.Module):
    def __init__(self, n_inp, n_hid, dt, gamma, epsilon):
        super().__init__()
        self.dt, self.gamma, self.epsilon = dt, gamma, epsilon
        self.i2h = nn.Linear(n_inp + 2 * n_hid, n_hid)

    def forward(self, x, hy, hz):
        hz = hz + self.dt * (torch.tanh(self.i2h(torch.cat((x, hz, hy), 1)))
                             - self.gamma * hy - self.epsilon * hz)
        hy = hy + self.dt * hz
        return hy, hz


class coRNN(nn.Module):
    def __init__(self, n_inp, n_hid, n_out, dt, gamma, epsilon, dropout):
        super().__init__()
        self.n_hid = n_hid
        self.cell = coRNNCell(n_inp, n_hid, dt, gamma, epsilon)
        self.drop = nn.Dropout(dropout)
        self.readout = nn.Linear(n_hid, n_out)

    def forward(self, x):
        hy = x.new_zeros(x.size(1), self.n_hid)
        hz = x.new_zeros(x.size(1), self.n_hid)
        for t in range(x.size(0)):
            hy, hz = self.cell(x[t], hy, hz)
        return self.readout(self.drop(hy))


def get_batch(T, batch_size):
    values = torch.rand(T, batch_size, requires_grad=False)
    indices = torch.zeros_like(values)
    half = T // 2
    for i in range(batch_size):
        a, b = torch.randint(half, (1,)).item(), torch.randint(half, T, (1,)).item()
        indices[a, i], indices[b, i] = 1, 1
    inputs = torch.stack((values, indices), dim=-1)
    targets = torch.sum(values * indices, dim=0)
    return inputs, targets


def test(model, objective, args):
    model.eval()
    with torch.no_grad():
        data, label = get_batch(args.T, 32)
        out = model(data)
        loss = objective(out, label.unsqueeze(1))
    return loss.item()


def main(argv=None):
    args = get_args(argv)
    torch.manual_seed(0)
    model = coRNN(2, args.n_hid, 1, args.dt, args.gamma, args.epsilon, args.dropout)
    objective = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    train_mode_log = []
    for i in range(args.max_steps):
        model.train()  # fixed: GG607
        data, label = get_batch(args.T, args.batch)
        optimizer.zero_grad()
        out = model(data)
        train_mode_log.append(model.training)
        loss = objective(out, label.unsqueeze(1))
        loss.backward()
        optimizer.step()
        if (i + 1) % args.eval_every == 0:
            test_mse = test(model, objective, args)
            print(f"step {i + 1}: train mse {loss.item():.4f} test mse {test_mse:.4f}")
    return train_mode_log


if __name__ == "__main__":
    log = main([])
    assert all(log)
    print("FIXED: ok")
