"""GG111 - sigmoid output given to BCEWithLogitsLoss.

Mistake: in the curated + noisy audio-tagging trainer the noisy branch output
is passed through sigmoid() before BCEWithLogitsLoss, which applies its own
sigmoid.  The network therefore only ever "predicts" values in (0.5, 0.73):
for every negative label the loss element can never drop below log(2) and the
noisy branch cannot learn to say "absent" (silent).
Fixed: the raw noisy-branch logits go to BCEWithLogitsLoss.

Modelled on: https://github.com/OsciiArt/Freesound-Audio-Tagging-2019/issues/1
"""
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NUM_CLASSES = 8
ARGS = {"epochs": 3, "batch_size": 8, "lr": 3e-3, "noisy_weight": 0.5}


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                                  nn.AvgPool2d(2))

    def forward(self, x):
        return self.body(x)


class TaggingNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(ConvBlock(1, 16), ConvBlock(16, 32))
        self.curated_fc = nn.Linear(32, num_classes)
        self.noisy_fc = nn.Linear(32, num_classes)

    def embed(self, x):
        return self.features(x).mean(dim=(2, 3))

    def forward(self, x):
        return self.curated_fc(self.embed(x))

    def noisy(self, x):
        return self.noisy_fc(self.embed(x))


def train_model1(model, curated_loader, noisy_loader, optimizer, scheduler, epochs):
    criterion_bce = nn.BCEWithLogitsLoss()
    log = []
    for epoch in range(epochs):
        model.train()
        for (inp, target), (inp_noisy, target_noisy) in zip(curated_loader, noisy_loader):
            output = model(inp)
            bce = criterion_bce(output, target)
            output_noisy = model.noisy(inp_noisy)
            bce_noisy = criterion_bce(output_noisy, target_noisy)  # fixed: GG111
            loss = bce + ARGS["noisy_weight"] * bce_noisy
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        log.append({"epoch": epoch, "bce": bce.item(), "bce_noisy": bce_noisy.item()})
        print(f"epoch {epoch}: bce {bce.item():.4f} noisy {bce_noisy.item():.4f} lr {scheduler.get_last_lr()[0]:.4g}")
    return log


def noisy_loss_on_negatives(model, x, y):
    """Element-wise noisy loss exactly as the trainer computes it, negatives only."""
    with torch.no_grad():
        per_elem = nn.BCEWithLogitsLoss(reduction="none")(model.noisy(x), y)
    return per_elem[y == 0]


def main():
    torch.manual_seed(0)
    mel = torch.randn(32, 1, 16, 32)
    labels = (torch.rand(32, NUM_CLASSES) < 0.2).float()
    mel_noisy = torch.randn(32, 1, 16, 32)
    labels_noisy = (torch.rand(32, NUM_CLASSES) < 0.2).float()
    curated = DataLoader(TensorDataset(mel, labels), batch_size=ARGS["batch_size"], shuffle=True)
    noisy = DataLoader(TensorDataset(mel_noisy, labels_noisy), batch_size=ARGS["batch_size"], shuffle=True)
    model = TaggingNet(NUM_CLASSES)
    optimizer = torch.optim.Adam(model.parameters(), lr=ARGS["lr"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=ARGS["epochs"])
    train_model1(model, curated, noisy, optimizer, scheduler, ARGS["epochs"])
    model.eval()
    return noisy_loss_on_negatives(model, mel_noisy, labels_noisy)


if __name__ == "__main__":
    neg_losses = main()
    assert neg_losses.min().item() < math.log(2)
    print("FIXED: ok")
