"""Adapter fine-tuning freezes every parameter whose name lacks the adapter's key.

The training options spell the key of the trainable block `Adapter`, but `named_parameters()`
names the block's weights after the attribute it is stored at, `adapter.down.weight`: the
test `"Adapter" not in name` holds for every name, so the loop freezes the whole model and
the first backward() raises "element 0 of tensors does not require grad". Freezing layers by
a substring of the parameter name, and getting the name wrong, is the shape of
https://github.com/JDAI-CV/fast-reid/issues/178 (layers meant frozen or trained by name).
"""

import torch
from torch import nn

OPTIONS = {"trainable_key": "Adapter", "lr": 0.01, "steps": 2}


class Adapter(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.down = nn.Linear(width, width // 4)
        self.up = nn.Linear(width // 4, width)

    def forward(self, h):
        return h + self.up(torch.relu(self.down(h)))


class Encoder(nn.Module):
    def __init__(self, width=16, classes=3):
        super().__init__()
        self.embed = nn.Linear(8, width)
        self.norm = nn.LayerNorm(width)
        self.adapter = Adapter(width)
        self.classifier = nn.Linear(width, classes)

    def forward(self, x):
        return self.classifier(self.adapter(self.norm(self.embed(x))))


model = Encoder()
for name, param in model.named_parameters():  # expect: GG104
    if OPTIONS["trainable_key"] not in name:
        param.requires_grad = False

optimizer = torch.optim.SGD(model.parameters(), lr=OPTIONS["lr"])
inputs, labels = torch.randn(6, 8), torch.tensor([0, 1, 2, 0, 1, 2])
for step in range(OPTIONS["steps"]):
    loss = nn.functional.cross_entropy(model(inputs), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

if __name__ == "__main__":
    print("trained", loss.item())
