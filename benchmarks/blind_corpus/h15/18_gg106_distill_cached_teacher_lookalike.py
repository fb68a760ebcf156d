"""GG106 look-alike - teacher outputs made under inference_mode, cloned before use.

Category: GG106 (look-alike, correct code).
Knowledge distillation with a cache: teacher soft targets are computed once
under torch.inference_mode() (fast, no autograd bookkeeping) and stored.
Before they enter the KL loss (which saves its target for backward) the
cache is materialised with .clone() outside inference mode, which yields
normal tensors.  Evaluation also runs under inference_mode but never
touches autograd.
Modelled on: none found (distillation caching idiom; PyTorch's error text suggests the clone)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

T = 2.0


def make_net(width):
    return nn.Sequential(nn.Linear(10, width), nn.ReLU(), nn.Linear(width, 4))


class TeacherCache:
    def __init__(self, teacher, inputs):
        teacher.eval()
        with torch.inference_mode():
            probs = F.softmax(teacher(inputs) / T, dim=1)
        self.soft_targets = probs.clone()  # clone outside inference mode -> normal tensor

    def __getitem__(self, idx):
        return self.soft_targets[idx]


def distill_step(student, x, soft, y, optimizer, alpha=0.7):
    logits = student(x)
    kd = F.kl_div(F.log_softmax(logits / T, dim=1), soft, reduction="batchmean") * T * T
    ce = F.cross_entropy(logits, y)
    loss = alpha * kd + (1 - alpha) * ce
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


@torch.inference_mode()
def evaluate(model, x, y):
    model.eval()
    acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


def main():
    torch.manual_seed(0)
    x, y = torch.randn(48, 10), torch.randint(0, 4, (48,))
    cache = TeacherCache(make_net(64), x)
    assert not cache.soft_targets.is_inference()
    student = make_net(8)
    optimizer = torch.optim.Adam(student.parameters(), lr=1e-2)
    idx = torch.arange(48)
    for epoch in range(2):
        for (bi,) in DataLoader(TensorDataset(idx), batch_size=12, shuffle=True):
            loss = distill_step(student, x[bi], cache[bi], y[bi], optimizer)
        print(f"epoch {epoch}: loss {loss:.4f} acc {evaluate(student, x, y):.2f}")


if __name__ == "__main__":
    main()
    print("OK")
