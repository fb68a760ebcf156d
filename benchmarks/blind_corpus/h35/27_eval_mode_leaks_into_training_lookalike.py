"""Training engine whose evaluation runs on a freshly built copy of the net.

Modelled on: https://github.com/MILVLG/mcan-vqa/issues/26 (counterpart)

Look-alike: .eval() is called inside the epoch loop, but (as the
maintainers answered in the issue) on a new network initialised from the
saved weights, not on the network being trained, so training mode is
never lost.
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class FusionNet(nn.Module):
    def __init__(self, hidden=32, answers=6):
        super().__init__()
        self.img_proj = nn.Linear(12, hidden)
        self.q_proj = nn.Linear(10, hidden)
        self.drop = nn.Dropout(0.5)
        self.classifier = nn.Linear(hidden, answers)

    def forward(self, img, q):
        return self.classifier(self.drop(torch.relu(self.img_proj(img)) * torch.relu(self.q_proj(q))))


def evaluate_from_state(state_dict, dataset):
    net = FusionNet()
    net.load_state_dict(state_dict)
    net.eval()
    with torch.no_grad():
        return sum((net(i, q).argmax(-1) == a).sum().item() for i, q, a in dataset)


def train(net, train_set, val_set, epochs=3):
    optim = torch.optim.Adam(net.parameters(), lr=1e-3)
    modes = []
    net.train()
    for _ in range(epochs):
        for img, q, ans in train_set:
            modes.append(net.training)
            optim.zero_grad()
            F.cross_entropy(net(img, q), ans).backward()
            optim.step()
        evaluate_from_state(copy.deepcopy(net.state_dict()), val_set)
    return modes


if __name__ == "__main__":
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    data = [(torch.randn(8, 12, generator=g), torch.randn(8, 10, generator=g), torch.randint(0, 6, (8,), generator=g)) for _ in range(3)]
    modes = train(FusionNet(), data, data[:1])
    assert all(modes)
    print("OK")
