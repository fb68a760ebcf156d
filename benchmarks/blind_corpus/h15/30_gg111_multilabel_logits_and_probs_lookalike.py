"""GG111 look-alike - sigmoid and BCE losses side by side, each used correctly.

Category: GG111 (look-alike, correct code).
A multi-label audio tagger returns both `logits` and `probs` (sigmoid of
the logits) in a dict; the tag loss is BCEWithLogitsLoss on the logits.  An
auxiliary "clip is speech" branch ends in nn.Sigmoid and is trained with
nn.BCELoss, which expects probabilities.  The probs are used for mAP-style
logging only.
Modelled on: none found (multi-label tagging idiom)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_TAGS = 6


class AudioTagger(nn.Module):
    def __init__(self, n_mels=16, hidden=32):
        super().__init__()
        self.encoder = nn.GRU(n_mels, hidden, batch_first=True)
        self.tag_head = nn.Linear(hidden, N_TAGS)
        self.speech_head = nn.Sequential(nn.Linear(hidden, 1), nn.Sigmoid())

    def forward(self, mel):
        _, h = self.encoder(mel)
        h = h[-1]
        logits = self.tag_head(h)
        return {"logits": logits, "probs": torch.sigmoid(logits),
                "speech_prob": self.speech_head(h).squeeze(-1)}


class TaggingLoss(nn.Module):
    def __init__(self, pos_weight, speech_weight=0.3):
        super().__init__()
        self.tag_loss = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
        self.speech_loss = nn.BCELoss()
        self.speech_weight = speech_weight

    def forward(self, out, tags, is_speech):
        losses = {"tags": self.tag_loss(out["logits"], tags),
                  "speech": self.speech_loss(out["speech_prob"], is_speech)}
        losses["total"] = losses["tags"] + self.speech_weight * losses["speech"]
        return losses


def precision_at_threshold(probs, tags, thr=0.5):
    pred = probs > thr
    return ((pred & tags.bool()).sum() / pred.sum().clamp(min=1)).item()


def main():
    torch.manual_seed(0)
    mel = torch.randn(40, 20, 16)
    tags = (torch.rand(40, N_TAGS) < 0.3).float()
    speech = (torch.rand(40) < 0.5).float()
    loader = DataLoader(TensorDataset(mel, tags, speech), batch_size=10, shuffle=True)
    model = AudioTagger()
    pos_weight = (1 - tags.mean(0)) / tags.mean(0).clamp(min=1e-3)
    criterion = TaggingLoss(pos_weight)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(3):
        for m, t, s in loader:
            out = model(m)
            losses = criterion(out, t, s)
            optimizer.zero_grad()
            losses["total"].backward()
            optimizer.step()
        print(f"epoch {epoch}: tags {losses['tags'].item():.4f} speech {losses['speech'].item():.4f} "
              f"P@0.5 {precision_at_threshold(out['probs'].detach(), t):.2f}")


if __name__ == "__main__":
    main()
    print("OK")
