"""GG108 - multi-label "F1 loss" built from thresholded predictions.

To optimise F1 directly, the trainer binarises the sigmoid outputs with `probs > 0.5`
(a comparison) and casts them to float before counting true/false positives. The
comparison has no gradient, so the loss has no grad_fn and `loss.backward()` fails:
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class TagClassifier(nn.Module):
    def __init__(self, in_dim=24, n_tags=5):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 48), nn.BatchNorm1d(48), nn.ReLU())
        self.tags = nn.Linear(48, n_tags)

    def forward(self, x):
        return self.tags(self.backbone(x))


def binarize(logits, threshold=0.5):
    return (torch.sigmoid(logits) > threshold).float()


def f1_loss(logits, targets, eps=1e-7):
    preds = binarize(logits)
    tp = (preds * targets).sum(0)
    fp = (preds * (1 - targets)).sum(0)
    fn = ((1 - preds) * targets).sum(0)
    f1 = 2 * tp / (2 * tp + fp + fn + eps)
    return 1 - f1.mean(), f1.mean().item()


class Trainer:
    def __init__(self, model, lr=1e-3, patience=2):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.best_f1, self.bad_epochs, self.patience = 0.0, 0, patience

    def train_step(self, x, y):
        self.optimizer.zero_grad()
        loss, f1 = f1_loss(self.model(x), y)
        loss.backward()  # bug: GG108
        self.optimizer.step()
        return f1

    def fit(self, loader, epochs=4):
        for epoch in range(epochs):
            self.model.train()
            f1s = [self.train_step(x, y) for x, y in loader]
            epoch_f1 = sum(f1s) / len(f1s)
            print(f"epoch {epoch}: f1={epoch_f1:.3f}")
            if epoch_f1 > self.best_f1:
                self.best_f1, self.bad_epochs = epoch_f1, 0
            else:
                self.bad_epochs += 1
                if self.bad_epochs >= self.patience:
                    print("early stopping")
                    break


def main():
    torch.manual_seed(0)
    x = torch.randn(32, 24)
    y = (torch.rand(32, 5) > 0.6).float()
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, drop_last=True)
    Trainer(TagClassifier()).fit(loader)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
