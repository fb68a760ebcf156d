"""Category GG101 look-alike -- correct code.
A classic train/val phase loop: the forward pass runs inside
torch.set_grad_enabled(phase == "train") and backward() appears in the same block,
but it is only reached in the "train" phase, where grad mode is on.  The validation
phase (grad off) only logs.  Nothing is raised; the weights do change.
Modelled on: https://github.com/nianticlabs/monodepth2/issues/24 (the no_grad
validation block discussed there, written the safe way)
"""
import copy

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = dict(num_classes=3, batch_size=8, epochs=2, lr=0.05, step_size=1, gamma=0.5)


def build_model(num_classes):
    return nn.Sequential(nn.Conv2d(3, 6, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(6, num_classes))


def train_model(model, dataloaders, criterion, optimizer, scheduler, num_epochs):
    best_wts, best_acc = copy.deepcopy(model.state_dict()), 0.0
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            model.train() if phase == "train" else model.eval()
            running_loss, running_corrects, n = 0.0, 0, 0
            for inputs, labels in dataloaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    _, preds = torch.max(outputs, 1)
                    loss = criterion(outputs, labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_corrects += (preds == labels).sum().item()
                n += inputs.size(0)
            if phase == "train":
                scheduler.step()
            acc = running_corrects / n
            print(f"epoch {epoch} {phase}: loss {running_loss / n:.4f} acc {acc:.3f}")
            if phase == "val" and acc >= best_acc:
                best_acc, best_wts = acc, copy.deepcopy(model.state_dict())
    model.load_state_dict(best_wts)
    return model


def main():
    torch.manual_seed(0)
    x, y = torch.randn(32, 3, 8, 8), torch.randint(0, CFG["num_classes"], (32,))
    loaders = {"train": DataLoader(TensorDataset(x[:24], y[:24]), batch_size=CFG["batch_size"], shuffle=True),
               "val": DataLoader(TensorDataset(x[24:], y[24:]), batch_size=CFG["batch_size"])}
    model = build_model(CFG["num_classes"])
    before = model[0].weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, CFG["step_size"], CFG["gamma"])
    nn_criterion = nn.CrossEntropyLoss()
    model = train_model(model, loaders, nn_criterion, optimizer, scheduler, CFG["epochs"])
    assert not torch.equal(before, model[0].weight.detach())


if __name__ == "__main__":
    main()
    print("OK")
