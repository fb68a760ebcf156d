"""Prompt tuning freezes every parameter whose name lacks the prompt block's class name.

The network keeps its stages in an `nn.ModuleList` built by a comprehension and its decoder
in an `nn.Sequential`, so `named_parameters()` names their weights by index
(`stages.0.weight`, `decoder.2.bias`); the block meant to train is stored as `self.prompt`
and its own `nn.Sequential` gives `prompt.mix.0.weight`. None of these names holds
`"Prompt"`, whatever the index (a string without digits cannot be found across one), so the
loop freezes the whole model and backward() raises "element 0 of tensors does not require
grad". Choosing the trained part by a substring of the parameter name, and spelling it as
the class instead of the attribute, is the shape of
https://github.com/JDAI-CV/fast-reid/issues/178 (layers frozen or trained by name).
"""

import torch
from torch import nn

TRAIN_KEY = "Prompt"


class Prompt(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.mix = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, width))

    def forward(self, h):
        return h + self.mix(h)


class Segmenter(nn.Module):
    def __init__(self, width=8, depth=3, classes=4):
        super().__init__()
        self.stages = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])
        self.prompt = Prompt(width)
        self.decoder = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, classes))

    def forward(self, x):
        outs = []
        h = x
        for stage in self.stages:
            h = torch.relu(stage(h))
            outs.append(h)
        return [self.decoder(self.prompt(h)), self.decoder(h)]


model = Segmenter()
for name, weight in model.named_parameters():  # expect: GG104
    if TRAIN_KEY not in name:
        weight.requires_grad = False

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
pixels, labels = torch.randn(5, 8), torch.tensor([0, 1, 2, 3, 0])
for step in range(2):
    heads = model(pixels)
    loss = nn.functional.cross_entropy(heads[-1], labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

if __name__ == "__main__":
    print("step", step, loss.item())
