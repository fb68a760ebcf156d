"""GG101 - loss computed inside torch.set_grad_enabled(False) by a phase-name typo.

The classic "for phase in ['train', 'val']" fine-tuning loop enables autograd with
`torch.set_grad_enabled(phase == "training")`, but the phases are called "train" and
"val", so grad is disabled in both phases. The loss of the train phase has no grad_fn
and `loss.backward()` fails with:
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import copy
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class SmallCNN(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16 * 4 * 4, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.bn(self.conv2(x))), 2)
        return self.fc(x.flatten(1))


def train_model(model, dataloaders, criterion, optimizer, scheduler, num_epochs=2, ckpt_dir="."):
    best_acc, best_wts = 0.0, copy.deepcopy(model.state_dict())
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            model.train() if phase == "train" else model.eval()
            running_loss, running_correct, seen = 0.0, 0, 0
            for inputs, labels in dataloaders[phase]:
                inputs, labels = inputs.to(device), labels.to(device)
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "training"):
                    outputs = model(inputs)
                    loss = criterion(outputs, labels)
                    preds = outputs.argmax(1)
                    if phase == "train":
                        loss.backward()  # bug: GG101
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_correct += (preds == labels).sum().item()
                seen += inputs.size(0)
            if phase == "train":
                scheduler.step()
            epoch_acc = running_correct / seen
            print(f"[{epoch}] {phase}: loss={running_loss / seen:.4f} acc={epoch_acc:.3f}")
            if phase == "val" and epoch_acc >= best_acc:
                best_acc, best_wts = epoch_acc, copy.deepcopy(model.state_dict())
                torch.save(best_wts, os.path.join(ckpt_dir, "best.pt"))
    model.load_state_dict(best_wts)
    return model, best_acc


def main():
    torch.manual_seed(1)
    images, labels = torch.randn(40, 1, 16, 16), torch.randint(0, 3, (40,))
    dataloaders = {
        "train": DataLoader(TensorDataset(images[:32], labels[:32]), batch_size=8, shuffle=True),
        "val": DataLoader(TensorDataset(images[32:], labels[32:]), batch_size=8),
    }
    model = SmallCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    with tempfile.TemporaryDirectory() as tmp:
        train_model(model, dataloaders, nn.CrossEntropyLoss(), optimizer, scheduler, ckpt_dir=tmp)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
