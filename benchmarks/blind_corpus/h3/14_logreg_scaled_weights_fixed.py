"""GG405 - fixed version.

The weight is scaled first and requires_grad is switched on afterwards, so
W is a leaf tensor that the optimizer can update.
"""
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

torch.manual_seed(0)
N_FEATURES, N_CLASSES, N = 12, 3, 120
LR, EPOCHS, BATCH = 0.5, 5, 30

# synthetic, roughly separable data
centers = torch.randn(N_CLASSES, N_FEATURES) * 2
labels = torch.randint(0, N_CLASSES, (N,))
features = centers[labels] + torch.randn(N, N_FEATURES)
features = (features - features.mean(0)) / features.std(0)


def run():
    W = (torch.randn(N_FEATURES, N_CLASSES) * 0.01).requires_grad_()
    b = torch.zeros(N_CLASSES, requires_grad=True)
    optimizer = torch.optim.SGD([W, b], lr=LR)  # fixed: GG405
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

    best_acc, ckpt_dir = 0.0, tempfile.mkdtemp()
    for epoch in range(EPOCHS):
        perm = torch.randperm(N)
        for i in range(0, N, BATCH):
            idx = perm[i:i + BATCH]
            logits = features[idx] @ W + b
            loss = F.cross_entropy(logits, labels[idx]) + 1e-3 * (W ** 2).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        with torch.no_grad():
            acc = ((features @ W + b).argmax(1) == labels).float().mean().item()
        if acc > best_acc:
            best_acc = acc
            torch.save({"W": W.detach(), "b": b.detach()}, os.path.join(ckpt_dir, "best.pt"))
        print(f"epoch {epoch}: loss={loss.item():.4f} acc={acc:.3f} lr={scheduler.get_last_lr()[0]:.3f}")
    return best_acc


if __name__ == "__main__":
    best = run()
    assert best > 0.5, best
    print("FIXED: ok")
