"""GG604 look-alike - a head is replaced after the optimizer exists, then registered with it.

Two-stage fine-tuning: stage 1 trains backbone + 3-class head with AdamW.  For
stage 2 the head is swapped for a new 5-class `nn.Linear` *after* the optimizer
was built, which is the usual shape of the "stale optimizer" bug - but the new
head is then handed to the same optimizer with `optimizer.add_param_group(...)`
(with its own learning rate).
Correct: the new head is in a param group and its weights change during stage 2.

Modelled on: https://github.com/pytorch/pytorch/pull/2374
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

STAGE1 = {"num_classes": 3, "epochs": 1}
STAGE2 = {"num_classes": 5, "epochs": 2, "head_lr": 1e-2}
BASE_LR = 1e-3
IN_DIM = 20


class Backbone(nn.Module):
    def __init__(self, in_dim, width=48):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, width), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Linear(width, width), nn.BatchNorm1d(width), nn.ReLU(),
        )
        self.out_dim = width

    def forward(self, x):
        return self.net(x)


class Classifier(nn.Module):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(backbone.out_dim, num_classes)

    def forward(self, x):
        return self.head(self.backbone(x))


def make_loader(num_classes, n=96):
    x = torch.randn(n, IN_DIM)
    y = torch.randint(0, num_classes, (n,))
    return DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True, drop_last=True)


def run_stage(model, loader, optimizer, epochs, tag):
    criterion = nn.CrossEntropyLoss()
    model.train()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"[{tag}] epoch {epoch} loss {loss.item():.4f}")


def main():
    model = Classifier(Backbone(IN_DIM), STAGE1["num_classes"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=BASE_LR)
    run_stage(model, make_loader(STAGE1["num_classes"]), optimizer, STAGE1["epochs"], "stage1")

    # stage 2: new label space -> new head, registered with the existing optimizer
    model.head = nn.Linear(model.backbone.out_dim, STAGE2["num_classes"])
    optimizer.add_param_group({"params": model.head.parameters(), "lr": STAGE2["head_lr"]})
    head_start = model.head.weight.detach().clone()
    run_stage(model, make_loader(STAGE2["num_classes"]), optimizer, STAGE2["epochs"], "stage2")
    return model, optimizer, head_start


def check_training():
    torch.manual_seed(0)
    model, optimizer, head_start = main()
    tracked = {id(p) for group in optimizer.param_groups for p in group["params"]}
    assert id(model.head.weight) in tracked, "new head not tracked"
    assert not torch.equal(model.head.weight.detach(), head_start), "new head did not train"


if __name__ == "__main__":
    check_training()
    print("OK")
