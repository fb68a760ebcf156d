"""Category GG202 look-alike - two backward() calls per step that are legitimate.

A multi-task tabular model (shared trunk, a regression head and a classification
head) calls backward() twice per batch through the shared trunk: the auxiliary
loss first, with retain_graph=True, then the main loss. Because the first call
keeps the saved tensors, the second one is allowed; gradients from both losses add
up in the trunk before the single optimizer.step(). Expected: runs cleanly.

Modelled on: none found
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

IN_FEATURES = 12
N_CLASSES = 3
AUX_WEIGHT = 0.3
EPOCHS = 2


class SharedTrunkNet(nn.Module):
    def __init__(self, in_features, n_classes):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_features, 32), nn.ReLU(),
                                   nn.Dropout(0.1), nn.Linear(32, 32), nn.ReLU())
        self.cls_head = nn.Linear(32, n_classes)
        self.reg_head = nn.Linear(32, 1)

    def forward(self, x):
        z = self.trunk(x)
        return self.cls_head(z), self.reg_head(z).squeeze(-1)


def build_loader():
    x = torch.randn(48, IN_FEATURES)
    y_cls = torch.randint(0, N_CLASSES, (48,))
    y_reg = torch.randn(48)
    return DataLoader(TensorDataset(x, y_cls, y_reg), batch_size=16, shuffle=True)


def train(model, loader, optimizer, criteria):
    model.train()
    running = {"cls": 0.0, "reg": 0.0}
    for batch_idx, (x, y_cls, y_reg) in enumerate(loader):
        optimizer.zero_grad()
        logits, reg = model(x)
        loss_reg = AUX_WEIGHT * criteria["reg"](reg, y_reg)
        loss_cls = criteria["cls"](logits, y_cls)
        loss_reg.backward(retain_graph=True)
        loss_cls.backward()
        optimizer.step()
        running["cls"] += loss_cls.item()
        running["reg"] += loss_reg.item()
    return {k: v / len(loader) for k, v in running.items()}


def main():
    torch.manual_seed(3)
    model = SharedTrunkNet(IN_FEATURES, N_CLASSES)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criteria = {"cls": nn.CrossEntropyLoss(), "reg": nn.MSELoss()}
    loader = build_loader()
    for epoch in range(EPOCHS):
        stats = train(model, loader, optimizer, criteria)
        print(f"epoch {epoch}: cls={stats['cls']:.3f} reg={stats['reg']:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
