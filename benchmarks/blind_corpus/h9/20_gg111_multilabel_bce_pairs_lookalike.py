"""GG111 look-alike - sigmoid and both BCE losses in one model, each paired correctly.

Multi-label tagger with two heads: the tag head returns raw logits and is trained
with BCEWithLogitsLoss(pos_weight=...), with torch.sigmoid applied only when
thresholding predictions; the "has any tag" head ends in nn.Sigmoid and is
trained with nn.BCELoss, which expects probabilities. Correct code.

Modelled on: https://github.com/lopuhin/kaggle-imet-2019/issues/3 (logits go to BCEWithLogitsLoss)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"in_dim": 20, "n_tags": 5, "lr": 5e-3, "epochs": 4, "bs": 16, "threshold": 0.5}


class Tagger(nn.Module):
    def __init__(self, in_dim, n_tags):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 48), nn.ReLU(), nn.Dropout(0.1))
        self.tag_head = nn.Linear(48, n_tags)
        self.any_head = nn.Sequential(nn.Linear(48, 1), nn.Sigmoid())

    def forward(self, x):
        h = self.backbone(x)
        return self.tag_head(h), self.any_head(h).squeeze(-1)

    @torch.no_grad()
    def predict(self, x, threshold):
        logits, _ = self(x)
        return (torch.sigmoid(logits) > threshold).long()


def make_criteria(labels):
    pos = labels.sum(0).clamp(min=1)
    pos_weight = (len(labels) - pos) / pos
    return nn.BCEWithLogitsLoss(pos_weight=pos_weight), nn.BCELoss()


def train(model, loader, optimizer, tag_crit, any_crit, epochs):
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for x, y in loader:
            tag_logits, any_prob = model(x)
            loss = tag_crit(tag_logits, y) + 0.5 * any_crit(any_prob, (y.sum(1) > 0).float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / len(loader):.4f}")
    return total / len(loader)


def main():
    torch.manual_seed(0)
    x = torch.randn(96, CFG["in_dim"])
    y = (x[:, : CFG["n_tags"]] > 0.5).float()
    model = Tagger(CFG["in_dim"], CFG["n_tags"])
    tag_crit, any_crit = make_criteria(y)
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    loader = DataLoader(TensorDataset(x, y), batch_size=CFG["bs"], shuffle=True)
    train(model, loader, opt, tag_crit, any_crit, CFG["epochs"])
    model.eval()
    acc = (model.predict(x, CFG["threshold"]) == y.long()).float().mean().item()
    print(f"tag accuracy {acc:.2f}")
    assert acc > 0.6


if __name__ == "__main__":
    main()
    print("OK")
