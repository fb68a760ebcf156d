"""Fine-tuning freezes the whole encoder, then turns on the parameters of the head by name.

The script freezes everything with `requires_grad_(False)` and means to train the head again
with a loop over `named_parameters()` that unfreezes names starting with the prefixes of the
settings, `pooler.` and `classifier.`. This encoder keeps its head at `self.head` and has no
pooler, so no name starts with either prefix: nothing is unfrozen and the first backward()
raises "element 0 of tensors does not require grad". A name test that matches no parameter
name of the model is the mistake of https://github.com/open-mmlab/mmdetection/issues/4040.
"""

import torch
from torch import nn

SETTINGS = {"unfreeze": ("pooler.", "classifier."), "lr": 0.05, "epochs": 2}


class TextEncoder(nn.Module):
    def __init__(self, vocab=50, width=16, classes=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.mix = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, classes)

    def forward(self, tokens):
        hidden = self.norm(torch.tanh(self.mix(self.embed(tokens))))
        return self.head(hidden.mean(dim=1))


encoder = TextEncoder()
encoder.requires_grad_(False)  # expect: GG104
for name, weight in encoder.named_parameters():
    if name.startswith(SETTINGS["unfreeze"]):
        weight.requires_grad = True

optimizer = torch.optim.SGD(encoder.parameters(), lr=SETTINGS["lr"])
tokens = torch.randint(0, 50, (8, 12))
labels = torch.randint(0, 4, (8,))
for epoch in range(SETTINGS["epochs"]):
    loss = nn.functional.cross_entropy(encoder(tokens), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

if __name__ == "__main__":
    print("trained", loss.item())
