"""Anomaly-Transformer style solver, minimax phases with separate forward passes.

Modelled on: https://github.com/thuml/Anomaly-Transformer/issues/1 (counterpart)

Look-alike: ``loss1.backward(retain_graph=True)`` is followed by
``optimizer.step()`` as in the report, but loss2 comes from a NEW forward pass
run after the step, so its backward never touches the weights saved by the
retained (now unused) first graph.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def my_kl_loss(p, q):
    return torch.mean(torch.sum(p * (torch.log(p + 1e-4) - torch.log(q + 1e-4)), dim=-1), dim=1)


class AnomalyModel(nn.Module):
    def __init__(self, win_size, enc_in, d_model):
        super().__init__()
        self.embedding = nn.Linear(enc_in, d_model)
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.sigma = nn.Linear(d_model, 1)
        self.out = nn.Linear(d_model, enc_in)
        idx = torch.arange(win_size).float()
        self.register_buffer("distances", (idx[:, None] - idx[None, :]).abs())

    def forward(self, x):
        h = self.embedding(x)
        series = torch.softmax(self.q(h) @ self.k(h).transpose(1, 2) / math.sqrt(h.size(-1)), -1)
        sigma = torch.pow(3, torch.sigmoid(self.sigma(h) * 5) + 1e-5) - 1
        prior = torch.exp(-self.distances ** 2 / (2 * sigma ** 2))
        prior = prior / prior.sum(-1, keepdim=True)
        return self.out(F.gelu(series @ h)), series, prior


class Solver:
    def __init__(self, win_size=10, input_c=3, d_model=16, k=3.0):
        self.k = k
        self.model = AnomalyModel(win_size, input_c, d_model)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def loss_terms(self, input):
        output, series, prior = self.model(input)
        series_loss = torch.mean(my_kl_loss(series, prior.detach()))
        prior_loss = torch.mean(my_kl_loss(prior, series.detach()))
        rec = F.mse_loss(output, input)
        return rec, series_loss, prior_loss

    def train(self, loader):
        for input in loader:
            self.optimizer.zero_grad()
            rec, series_loss, _ = self.loss_terms(input)
            loss1 = rec - self.k * series_loss
            loss1.backward(retain_graph=True)
            self.optimizer.step()

            self.optimizer.zero_grad()
            rec, _, prior_loss = self.loss_terms(input)
            loss2 = rec + self.k * prior_loss
            loss2.backward()
            self.optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    Solver().train(list(torch.randn(4, 8, 10, 3)))
    print("OK")
