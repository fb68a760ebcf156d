"""GG111 look-alike - sigmoid next to binary cross-entropy, correctly paired.

The curated branch uses BCEWithLogitsLoss on raw logits; the noisy branch
deliberately works in probability space (for soft-label mixing) and therefore
uses nn.BCELoss on sigmoid outputs.  Sigmoid is also applied for the lwlrap-like
validation metric.  No loss ever sees the wrong kind of input.

Modelled on: https://github.com/OsciiArt/Freesound-Audio-Tagging-2019/issues/1 (consistent pairing)
"""
import torch
import torch.nn as nn

NUM_CLASSES, EPOCHS = 8, 3


class TaggingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU())
        self.curated_fc = nn.Linear(32, NUM_CLASSES)
        self.noisy_fc = nn.Linear(32, NUM_CLASSES)

    def forward(self, x):
        h = self.features(x).mean(dim=(2, 3))
        return self.curated_fc(h), self.noisy_fc(h)


def label_ranking_precision(scores, labels):
    ranks = scores.argsort(dim=1, descending=True)
    top = labels.gather(1, ranks[:, :1])
    return top.mean().item()


def train_epoch(model, data, optimizer, crit_logits, crit_probs):
    (x, y), (xn, yn) = data
    curated_logits, _ = model(x)
    _, noisy_logits = model(xn)
    noisy_probs = torch.sigmoid(noisy_logits)
    soft_targets = 0.8 * yn + 0.2 * noisy_probs.detach()
    loss = crit_logits(curated_logits, y) + 0.5 * crit_probs(noisy_probs, soft_targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    x, y = torch.randn(16, 1, 16, 32), (torch.rand(16, NUM_CLASSES) < 0.2).float()
    xn, yn = torch.randn(16, 1, 16, 32), (torch.rand(16, NUM_CLASSES) < 0.2).float()
    model = TaggingNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    crit_logits, crit_probs = nn.BCEWithLogitsLoss(), nn.BCELoss()
    for epoch in range(EPOCHS):
        loss = train_epoch(model, ((x, y), (xn, yn)), opt, crit_logits, crit_probs)
        with torch.no_grad():
            scores = torch.sigmoid(model(x)[0])
        print(f"epoch {epoch}: loss {loss:.4f} top1-precision {label_ranking_precision(scores, y):.2f}")
    assert model.noisy_fc.weight.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
