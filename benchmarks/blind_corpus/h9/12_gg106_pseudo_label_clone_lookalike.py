"""GG106 look-alike - torch.inference_mode() used, and its outputs handled correctly.

Self-training loop: a teacher labels unlabelled data under torch.inference_mode()
and the pseudo-labels are turned into normal tensors with .clone() (outside the
inference block) before they become cross_entropy targets. Evaluation also runs
under inference_mode but only returns Python floats. No inference tensor is ever
saved for backward, so training works.

Modelled on: https://github.com/pytorch/pytorch/pull/161164 (the documented clone workaround)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"in_dim": 6, "n_cls": 3, "threshold": 0.4, "lr": 1e-2, "rounds": 2, "bs": 16}


class Classifier(nn.Module):
    def __init__(self, in_dim, n_cls):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, n_cls))

    def forward(self, x):
        return self.net(x)


def pseudo_label(teacher, unlabelled, threshold):
    teacher.eval()
    with torch.inference_mode():
        probs = F.softmax(teacher(unlabelled), dim=1)
        conf, labels = probs.max(1)
        keep = conf > threshold
    # leave inference mode with ordinary tensors
    return unlabelled[keep.clone()].clone(), labels[keep.clone()].clone()


def evaluate(model, x, y):
    model.eval()
    with torch.inference_mode():
        acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def fit(model, loader, optimizer):
    model.train()
    for xb, yb in loader:
        loss = F.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    x_lab = torch.randn(48, CFG["in_dim"])
    y_lab = x_lab[:, :CFG["n_cls"]].argmax(1)
    x_unl = torch.randn(96, CFG["in_dim"])
    teacher = Classifier(CFG["in_dim"], CFG["n_cls"])
    opt = torch.optim.Adam(teacher.parameters(), lr=CFG["lr"])
    for _ in range(5):
        fit(teacher, DataLoader(TensorDataset(x_lab, y_lab), batch_size=CFG["bs"], shuffle=True), opt)
    student = Classifier(CFG["in_dim"], CFG["n_cls"])
    s_opt = torch.optim.Adam(student.parameters(), lr=CFG["lr"])
    for r in range(CFG["rounds"]):
        xp, yp = pseudo_label(teacher, x_unl, CFG["threshold"])
        ds = TensorDataset(torch.cat([x_lab, xp]), torch.cat([y_lab, yp]))
        loss = fit(student, DataLoader(ds, batch_size=CFG["bs"], shuffle=True), s_opt)
        print(f"round {r}: {len(xp)} pseudo labels, loss {loss:.3f}, acc {evaluate(student, x_lab, y_lab):.2f}")


if __name__ == "__main__":
    main()
    print("OK")
