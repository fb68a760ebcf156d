"""Category GG103 -- backward() on a value cut from the graph by .data.
Status: buggy.
A recipe/caption style model: an image encoder feeds a GRU decoder that is unrolled
with teacher forcing; per-step logits are collected in a list and stacked.  The
decoder returns `torch.stack(logits, 1).data`, so the logits leave the graph inside
the model and the cross-entropy built from them cannot be backpropagated:
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/facebookresearch/inversecooking/issues/3
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ARGS = dict(vocab_size=30, embed_size=16, hidden_size=32, max_len=7, batch_size=6,
            num_iters=4, learning_rate=1e-3, pad_value=0)


class ImageEncoder(nn.Module):
    def __init__(self, embed_size):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.proj = nn.Linear(8, embed_size)

    def forward(self, images):
        return self.proj(self.cnn(images))


class RecipeDecoder(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.init_h = nn.Linear(embed_size, hidden_size)
        self.cell = nn.GRUCell(embed_size, hidden_size)
        self.out = nn.Linear(hidden_size, vocab_size)

    def forward(self, features, captions):
        h = torch.tanh(self.init_h(features))
        logits = []
        for t in range(captions.size(1) - 1):
            h = self.cell(self.embed(captions[:, t]), h)
            logits.append(self.out(h))
        logits = torch.stack(logits, 1).data
        return logits


class InverseCookingModel(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.encoder = ImageEncoder(a["embed_size"])
        self.decoder = RecipeDecoder(a["vocab_size"], a["embed_size"], a["hidden_size"])
        self.crit = nn.CrossEntropyLoss(ignore_index=a["pad_value"])

    def forward(self, images, captions):
        feats = self.encoder(images)
        logits = self.decoder(feats, captions)
        targets = captions[:, 1:]
        return {"ingr_loss": self.crit(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))}


def main():
    torch.manual_seed(0)
    a = ARGS
    model = InverseCookingModel(a)
    params = list(model.decoder.parameters()) + list(model.encoder.proj.parameters())
    optimizer = torch.optim.Adam(params, lr=a["learning_rate"])
    for it in range(a["num_iters"]):
        images = torch.randn(a["batch_size"], 3, 16, 16)
        captions = torch.randint(1, a["vocab_size"], (a["batch_size"], a["max_len"]))
        losses = model(images, captions)
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()  # bug: GG103
        optimizer.step()
        print(f"iter {it}: " + ", ".join(f"{k}={v.item():.3f}" for k, v in losses.items()))


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
