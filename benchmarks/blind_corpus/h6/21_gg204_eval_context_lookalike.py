"""GG204 look-alike (correct code): evaluation loops whose no_grad is not on the loop.

An audio-tagging style classifier. evaluate() collects every batch's probabilities,
but the whole function is decorated with @torch.inference_mode(). predict() runs its
loop inside a project helper `evaluating(model)`, a context manager that switches to
eval() and enters torch.no_grad() (and restores train mode afterwards). A third
loop stores outputs only after .detach().cpu(). No stored output carries a graph.
Modelled on: none found (correct counterpart of the reports behind 19/20)
"""
import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


@contextlib.contextmanager
def evaluating(model):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            yield model
    finally:
        model.train(was_training)


class AudioTagger(nn.Module):
    def __init__(self, n_mels=16, n_tags=4):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(n_mels, 32, 3, padding=1), nn.BatchNorm1d(32), nn.ReLU())
        self.gru = nn.GRU(32, 32, batch_first=True)
        self.out = nn.Linear(32, n_tags)

    def forward(self, spec):
        h = self.conv(spec).transpose(1, 2)
        seq, _ = self.gru(h)
        return self.out(seq.mean(1))


@torch.inference_mode()
def evaluate(model, loader):
    model.eval()
    all_probs, all_y = [], []
    for spec, y in loader:
        all_probs.append(torch.sigmoid(model(spec)))
        all_y.append(y)
    probs, ys = torch.cat(all_probs), torch.cat(all_y)
    return ((probs > 0.5).float() == ys).float().mean().item(), all_probs


def predict(model, loader):
    outputs = []
    with evaluating(model):
        for spec, _ in loader:
            outputs.append(model(spec))
    return outputs


def train_one_epoch(model, loader, optimizer):
    model.train()
    epoch_logits = []
    for spec, y in loader:
        logits = model(spec)
        loss = F.binary_cross_entropy_with_logits(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_logits.append(logits.detach().cpu())
    return epoch_logits


def main():
    torch.manual_seed(0)
    spec = torch.randn(24, 16, 12)
    tags = (spec[:, :4].mean(-1) > 0).float()
    train_loader = DataLoader(TensorDataset(spec[:16], tags[:16]), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(spec[16:], tags[16:]), batch_size=4)
    model = AudioTagger()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        logits = train_one_epoch(model, train_loader, optimizer)
        acc, probs = evaluate(model, val_loader)
        print(f"epoch {epoch}: val acc {acc:.3f}")
    outs = predict(model, val_loader)
    assert not any(t.requires_grad for t in probs + outs + logits)


if __name__ == "__main__":
    main()
    print("OK")
