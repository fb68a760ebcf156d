"""GG113 - softmax output given to nll_loss (fixed).

The script uses F.log_softmax before F.nll_loss, so the loss is the real cross-entropy
(positive, decreasing towards 0).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

N_CLASSES = 4
templates = torch.randn(N_CLASSES, 1, 8, 8)
labels = torch.randint(0, N_CLASSES, (200,))
images = templates[labels] + 0.5 * torch.randn(200, 1, 8, 8)
train_loader = DataLoader(TensorDataset(images[:160], labels[:160]), batch_size=16, shuffle=True)
val_loader = DataLoader(TensorDataset(images[160:], labels[160:]), batch_size=40)

model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(16, N_CLASSES),
).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5)

epoch_losses = []
for epoch in range(5):
    model.train()
    seen, total = 0, 0.0
    for batch_idx, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        log_probs = F.log_softmax(model(x), dim=1)
        loss = F.nll_loss(log_probs, y)  # fixed: GG113
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * x.size(0)
        seen += x.size(0)
    scheduler.step()
    epoch_losses.append(total / seen)

    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
    print(f"epoch {epoch} train_loss={epoch_losses[-1]:.4f} val_acc={correct / 40:.2f} lr={scheduler.get_last_lr()[0]:.4f}")

if __name__ == "__main__":
    assert all(l > 0 for l in epoch_losses) and epoch_losses[-1] < epoch_losses[0], epoch_losses
    print("FIXED: ok")
