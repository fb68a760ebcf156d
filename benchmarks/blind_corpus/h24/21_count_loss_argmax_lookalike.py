"""GG108 look-alike - argmax and comparisons in the training step, used only
for metrics.

The hard count (argmax period, periodic > 0) is computed right next to the
loss for the progress display and an off-by-one accuracy, while the loss is
built from the per-frame logits, so backward() has a graph.

Modelled on: https://github.com/confifu/RepNet-Pytorch/issues/6 (metric-only use)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_FRAMES, MAX_PERIOD, EPOCHS = 16, 8, 3


class TinyRepNet(nn.Module):
    def __init__(self, feat=32):
        super().__init__()
        self.frame_enc = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2), nn.ReLU(),
                                       nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, feat))
        self.temporal = nn.GRU(feat, feat, batch_first=True)
        self.period_head = nn.Linear(feat, MAX_PERIOD)
        self.periodic_head = nn.Linear(feat, 1)

    def forward(self, video):
        b, t = video.shape[:2]
        emb, _ = self.temporal(self.frame_enc(video.flatten(0, 1)).view(b, t, -1))
        return self.period_head(emb), self.periodic_head(emb).squeeze(-1)


def hard_count(y1pred, y2pred):
    period = y1pred.argmax(-1) + 1
    return ((y2pred > 0).float() / period.float()).sum(1)


def training_step(model, optimizer, video, period_lbl, periodic_lbl, count):
    y1pred, y2pred = model(video)
    loss = F.cross_entropy(y1pred.flatten(0, 1), period_lbl.flatten()) + \
        F.binary_cross_entropy_with_logits(y2pred, periodic_lbl)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        pred = hard_count(y1pred, y2pred)
        obo = ((pred.round() - count).abs() <= 1).float().mean()
    return loss.item(), (pred - count).abs().mean().item(), obo.item()


def main():
    torch.manual_seed(0)
    video = torch.randn(4, NUM_FRAMES, 3, 12, 12)
    period_lbl = torch.randint(0, MAX_PERIOD, (4, NUM_FRAMES))
    periodic_lbl = torch.randint(0, 2, (4, NUM_FRAMES)).float()
    count = (periodic_lbl / (period_lbl + 1).float()).sum(1)
    model = TinyRepNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for epoch in range(EPOCHS):
        loss, mae, obo = training_step(model, opt, video, period_lbl, periodic_lbl, count)
        losses.append(loss)
        print(f"epoch {epoch}: loss {loss:.3f} count MAE {mae:.3f} OBO {obo:.2f}")
    assert model.period_head.weight.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
