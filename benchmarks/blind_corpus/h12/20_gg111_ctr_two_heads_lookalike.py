"""GG111 look-alike - each binary loss gets the input it expects.

A click-through-rate model has two heads. The click head returns logits and is
trained with nn.BCEWithLogitsLoss; torch.sigmoid is applied to it only in the
evaluation helper. The auxiliary "dwell" head ends in nn.Sigmoid and is trained
with nn.BCELoss, which expects probabilities. Both pairings are correct.

Modelled on: none found (two-tower CTR with auxiliary head).
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CFG = {"n_feat": 12, "hidden": 32, "lr": 1e-2, "epochs": 3, "aux_weight": 0.3}


class CTRModel(nn.Module):
    def __init__(self, n_feat, hidden):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(n_feat, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.click_head = nn.Linear(hidden, 1)
        self.dwell_head = nn.Sequential(nn.Linear(hidden, 1), nn.Sigmoid())

    def forward(self, x):
        h = self.backbone(x)
        return {"click_logit": self.click_head(h).squeeze(-1), "dwell_prob": self.dwell_head(h).squeeze(-1)}


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.click_loss = nn.BCEWithLogitsLoss()
        self.dwell_loss = nn.BCELoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

    def train_step(self, x, click, dwell):
        out = self.model(x)
        loss = self.click_loss(out["click_logit"], click) + \
            self.cfg["aux_weight"] * self.dwell_loss(out["dwell_prob"], dwell)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, x, click):
        self.model.eval()
        prob = torch.sigmoid(self.model(x)["click_logit"])
        acc = ((prob > 0.5).float() == click).float().mean().item()
        self.model.train()
        return acc


def main():
    torch.manual_seed(10)
    x = torch.randn(96, CFG["n_feat"])
    click = (x[:, 0] + 0.3 * torch.randn(96) > 0).float()
    dwell = (x[:, 1] > 0.5).float()
    loader = DataLoader(TensorDataset(x, click, dwell), batch_size=32, shuffle=True)
    trainer = Trainer(CTRModel(CFG["n_feat"], CFG["hidden"]), CFG)
    for epoch in range(CFG["epochs"]):
        losses = [trainer.train_step(*batch) for batch in loader]
        print(f"epoch {epoch}: loss {sum(losses) / len(losses):.4f} acc {trainer.evaluate(x, click):.3f}")


if __name__ == "__main__":
    main()
    print("OK")
