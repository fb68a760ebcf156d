"""GG108 - backward() through argmax / comparisons only.

Mistake: a RepNet-style repetition counter is fine-tuned on videos that only
have a total count label.  The predicted count is built from hard decisions:
the period length is the argmax over period bins and periodicity is
(y2pred > 0).  Neither op has a gradient, so the count loss has no graph and
backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Fixed: soft count (expected period from softmax, sigmoid periodicity) is differentiable.

Modelled on: https://github.com/confifu/RepNet-Pytorch/issues/6
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

NUM_FRAMES = 16
MAX_PERIOD = 8
HP = {"epochs": 2, "lr": 1e-3, "batch_size": 4}


class TinyRepNet(nn.Module):
    def __init__(self, feat=32):
        super().__init__()
        self.frame_enc = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(),
                                       nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, feat))
        self.temporal = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(feat, nhead=4, dim_feedforward=64, batch_first=True), num_layers=1)
        self.period_head = nn.Linear(feat, MAX_PERIOD)   # y1: period length bins
        self.periodic_head = nn.Linear(feat, 1)          # y2: is this frame periodic

    def forward(self, video):
        b, t = video.shape[:2]
        emb = self.frame_enc(video.flatten(0, 1)).view(b, t, -1)
        emb = self.temporal(emb)
        return self.period_head(emb), self.periodic_head(emb).squeeze(-1)


def predicted_count(y1pred, y2pred):
    bins = torch.arange(1, MAX_PERIOD + 1, dtype=y1pred.dtype)
    period = (F.softmax(y1pred, dim=-1) * bins).sum(-1)   # expected frames per repetition
    periodic = torch.sigmoid(y2pred)
    return torch.sum(periodic / period, dim=1)


def train_epoch(model, loader, optimizer, epoch):
    model.train()
    for i, (video, count) in enumerate(loader):
        y1pred, y2pred = model(video)
        countpred = predicted_count(y1pred, y2pred)
        loss = F.smooth_l1_loss(countpred, count)
        optimizer.zero_grad()
        loss.backward()  # fixed: GG108
        optimizer.step()
        print(f"epoch {epoch} batch {i}: count MAE {(countpred - count).abs().mean().item():.3f}")


def main():
    torch.manual_seed(0)
    videos = torch.randn(8, NUM_FRAMES, 3, 12, 12)
    counts = torch.randint(1, 5, (8,)).float()
    loader = DataLoader(TensorDataset(videos, counts), batch_size=HP["batch_size"], shuffle=True)
    model = TinyRepNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=HP["lr"])
    for epoch in range(HP["epochs"]):
        train_epoch(model, loader, optimizer, epoch)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
