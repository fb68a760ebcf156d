"""GG104 - transfer learning freezes the new head together with the backbone.

The script swaps in a new classification head and only then runs the "freeze the
pretrained weights" loop over `model.parameters()`, which also freezes the head. No
parameter requires grad, the loss has no grad_fn, and `loss.backward()` fails with:
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Backbone(nn.Module):
    """Stands in for a pretrained feature extractor."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(32, 1000)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def build_finetune_model(num_classes, device):
    model = Backbone()
    # model.load_state_dict(torch.load("imagenet_backbone.pt"))
    model.fc = nn.Linear(model.fc.in_features, num_classes)
    for param in model.parameters():
        param.requires_grad = False
    return model.to(device)


def train(model, loader, optimizer, criterion, device, epochs=2):
    for epoch in range(epochs):
        model.train()
        correct, total, loss_sum = 0, 0, 0.0
        for step, (images, labels) in enumerate(loader):
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            loss = criterion(logits, labels)
            optimizer.zero_grad()
            loss.backward()  # bug: GG104
            optimizer.step()
            loss_sum += loss.item()
            correct += (logits.argmax(1) == labels).sum().item()
            total += labels.numel()
        print(f"epoch {epoch}: loss={loss_sum / (step + 1):.4f} acc={correct / total:.3f}")


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    images, labels = torch.randn(24, 3, 16, 16), torch.randint(0, 5, (24,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=8, shuffle=True)
    model = build_finetune_model(num_classes=5, device=device)
    optimizer = torch.optim.SGD(model.fc.parameters(), lr=0.01, momentum=0.9)
    train(model, loader, optimizer, nn.CrossEntropyLoss(label_smoothing=0.1), device)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
