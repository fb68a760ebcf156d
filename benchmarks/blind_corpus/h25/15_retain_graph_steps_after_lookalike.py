"""GG205 look-alike - retain_graph=True with two optimizers, both steps after both backwards.

An out-of-distribution style setup: a classifier is trained on a weighted loss
while a small weighting network learns per-sample weights from the same
features.  Both losses share the feature graph, so the first backward uses
retain_graph=True.  This resembles "step, then backward again through a retained
graph", but here *both* backward() calls run before either optimizer.step(),
so no saved tensor is modified before it is used.

Modelled on: https://github.com/dmlc/dgl/issues/4285 (correct counterpart)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"in_dim": 12, "feat": 24, "classes": 3, "batch": 16, "epochs": 2,
        "lr": 1e-2, "lr_w": 1e-3, "w_reg": 0.1}


class Backbone(nn.Module):
    def __init__(self, in_dim, feat, classes):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, feat), nn.ReLU(), nn.Linear(feat, feat), nn.ReLU())
        self.fc = nn.Linear(feat, classes)

    def forward(self, x):
        f = self.features(x)
        return self.fc(f), f


class WeightNet(nn.Module):
    def __init__(self, feat):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(feat, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, f):
        return torch.sigmoid(self.net(f)).squeeze(-1)


def train(model, wnet, loader, optimizer, optimizer_w, args):
    for epoch in range(args["epochs"]):
        running = 0.0
        for x, y in loader:
            logits, feats = model(x)
            per_sample = F.cross_entropy(logits, y, reduction="none")
            w = wnet(feats)
            loss = (w.detach() * per_sample).mean()
            loss_w = (w * per_sample.detach()).mean() + args["w_reg"] * (w - 0.5).pow(2).mean()

            optimizer.zero_grad()
            optimizer_w.zero_grad()
            loss.backward(retain_graph=True)
            loss_w.backward()
            optimizer.step()
            optimizer_w.step()
            running += loss.item()
        print(f"epoch {epoch}: weighted loss {running / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(64, ARGS["in_dim"])
    y = torch.randint(0, ARGS["classes"], (64,))
    loader = DataLoader(TensorDataset(x, y), batch_size=ARGS["batch"], shuffle=True)
    model = Backbone(ARGS["in_dim"], ARGS["feat"], ARGS["classes"])
    wnet = WeightNet(ARGS["feat"])
    optimizer = torch.optim.SGD(model.parameters(), lr=ARGS["lr"], momentum=0.9)
    optimizer_w = torch.optim.Adam(wnet.parameters(), lr=ARGS["lr_w"])
    train(model, wnet, loader, optimizer, optimizer_w, ARGS)


if __name__ == "__main__":
    main()
    print("OK")
