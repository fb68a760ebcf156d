"""Anomaly-Transformer style solver with the minimax association discrepancy.

Modelled on: https://github.com/thuml/Anomaly-Transformer/issues/1

Fixed version (the change that worked for the reporter): both backward
passes run through the retained graph first and the optimizer steps once,
after the graph is no longer needed.
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def my_kl_loss(p, q):
    res = p * (torch.log(p + 1e-4) - torch.log(q + 1e-4))
    return torch.mean(torch.sum(res, dim=-1), dim=1)


class AnomalyAttention(nn.Module):
    def __init__(self, win_size, d_model):
        super().__init__()
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.sigma = nn.Linear(d_model, 1)
        self.out = nn.Linear(d_model, d_model)
        idx = torch.arange(win_size).float()
        self.register_buffer("distances", (idx[:, None] - idx[None, :]).abs())

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(1, 2) / math.sqrt(x.size(-1))
        series = torch.softmax(scores, dim=-1)
        sigma = torch.sigmoid(self.sigma(x) * 5) + 1e-5
        sigma = torch.pow(3, sigma) - 1
        prior = torch.exp(-self.distances ** 2 / (2 * sigma ** 2)) / (math.sqrt(2 * math.pi) * sigma)
        prior = prior / prior.sum(-1, keepdim=True)
        return self.out(series @ self.v(x)), series, prior


class AnomalyTransformer(nn.Module):
    def __init__(self, win_size, enc_in, d_model):
        super().__init__()
        self.embedding = nn.Linear(enc_in, d_model)
        self.attn = AnomalyAttention(win_size, d_model)
        self.projection = nn.Linear(d_model, enc_in)

    def forward(self, x):
        h, series, prior = self.attn(self.embedding(x))
        return self.projection(F.gelu(h)), series, prior


class Solver:
    def __init__(self, config):
        self.k = config.k
        self.model = AnomalyTransformer(config.win_size, config.input_c, config.d_model)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)
        self.criterion = nn.MSELoss()

    def losses(self, input):
        output, series, prior = self.model(input)
        series_loss = torch.mean(my_kl_loss(series, prior.detach()) + my_kl_loss(prior.detach(), series))
        prior_loss = torch.mean(my_kl_loss(prior, series.detach()) + my_kl_loss(series.detach(), prior))
        rec_loss = self.criterion(output, input)
        return rec_loss - self.k * series_loss, rec_loss + self.k * prior_loss

    def train(self, train_loader):
        self.model.train()
        for input in train_loader:
            self.optimizer.zero_grad()
            loss1, loss2 = self.losses(input)
            # Minimax strategy
            loss1.backward(retain_graph=True)
            loss2.backward()
            self.optimizer.step()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--win_size", type=int, default=10)
    p.add_argument("--input_c", type=int, default=3)
    p.add_argument("--d_model", type=int, default=16)
    p.add_argument("--k", type=float, default=3.0)
    p.add_argument("--lr", type=float, default=1e-3)
    config = p.parse_args([])
    torch.manual_seed(0)
    data = torch.randn(4, 8, config.win_size, config.input_c)
    solver = Solver(config)
    try:
        solver.train(list(data))
        print("FIXED: ok")
    except RuntimeError as e:
        print("FIXED broke:", e)


if __name__ == "__main__":
    main()
