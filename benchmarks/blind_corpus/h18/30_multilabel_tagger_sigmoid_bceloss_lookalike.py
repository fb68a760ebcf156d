"""GG111 look-alike - sigmoid + BCELoss on one head, raw logits + BCEWithLogitsLoss on another.

A multi-label audio-tag model has a main head that ends in nn.Sigmoid and is
trained with nn.BCELoss (which expects probabilities), and an auxiliary
"has-speech" head that returns raw logits trained with nn.BCEWithLogitsLoss.
torch.sigmoid is also applied to the aux logits, but only for the metric.  Both
pairings are correct.  Prints OK.

Modelled on: none found
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_MELS, FRAMES, N_TAGS = 16, 20, 6


class AudioTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(N_MELS, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool1d(1), nn.Flatten())
        self.tag_head = nn.Sequential(nn.Linear(32, N_TAGS), nn.Sigmoid())
        self.speech_head = nn.Linear(32, 1)

    def forward(self, mel):
        h = self.conv(mel)
        return {"tag_probs": self.tag_head(h), "speech_logit": self.speech_head(h).squeeze(-1)}


def f1_at(probs, targets, thr=0.5):
    pred = (probs > thr).float()
    tp = (pred * targets).sum()
    return (2 * tp / (pred.sum() + targets.sum()).clamp(min=1)).item()


class Trainer:
    def __init__(self, model, lr=3e-3):
        self.model = model
        self.tag_criterion = nn.BCELoss()
        self.speech_criterion = nn.BCEWithLogitsLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train_step(self, mel, tags, speech):
        self.model.train()
        out = self.model(mel)
        loss_tag = self.tag_criterion(out["tag_probs"], tags)
        loss_speech = self.speech_criterion(out["speech_logit"], speech)
        loss = loss_tag + 0.5 * loss_speech
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    @torch.no_grad()
    def evaluate(self, mel, tags, speech):
        self.model.eval()
        out = self.model(mel)
        return {"tag_f1": f1_at(out["tag_probs"], tags), "speech_f1": f1_at(torch.sigmoid(out["speech_logit"]), speech)}


def main():
    torch.manual_seed(0)
    mel = torch.randn(32, N_MELS, FRAMES)
    tags = (torch.rand(32, N_TAGS) > 0.7).float()
    speech = (mel[:, 0].mean(-1) > 0).float()
    loader = DataLoader(TensorDataset(mel, tags, speech), batch_size=8, shuffle=True)
    trainer = Trainer(AudioTagger())
    first = None
    for epoch in range(3):
        for batch in loader:
            loss = trainer.train_step(*batch)
            first = loss if first is None else first
        print(f"epoch {epoch}: loss {loss:.4f} {trainer.evaluate(mel, tags, speech)}")
    assert loss < first


if __name__ == "__main__":
    main()
    print("OK")
