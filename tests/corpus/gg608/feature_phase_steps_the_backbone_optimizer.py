"""Two-phase training of a backbone and a probe on its features, where the probe's phase
ends by stepping the backbone's optimizer.

Each batch first trains `backbone` on a reconstruction loss and steps `backbone_opt`; then
the probe is fitted on `backbone(x).detach()` features and its loss is backpropagated. The
last line of the probe's phase was copied from the first phase: it steps `backbone_opt`
again instead of `probe_opt`. `probe_loss` never reaches `backbone`, so that step re-applies
the backbone's old gradients while the probe keeps its first weights (checked with torch
2.13.0: `__main__` exits with an error). The backbone's own step is right and stays silent.

The same mistake as https://github.com/zhaoyuzhi/DeblurGANv2-MobileNetv123-PyTorch/issues/7
(a phase backpropagates one network's loss but never steps that network's optimizer),
written anew for this corpus.
"""

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.encode = nn.Sequential(nn.Linear(6, width), nn.ReLU())
        self.decode = nn.Linear(width, 6)

    def forward(self, x):
        features = self.encode(x)
        return features, self.decode(features)


class Probe(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.head = nn.Linear(width, 3)

    def forward(self, features):
        return self.head(features)


torch.manual_seed(0)
backbone = Backbone(12)
probe = Probe(12)
backbone_opt = torch.optim.SGD(backbone.parameters(), lr=0.1)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
start = probe.head.weight.detach().clone()

for batch in range(4):
    x = torch.randn(16, 6)
    labels = torch.randint(0, 3, (16,))

    backbone_opt.zero_grad()
    features, recon = backbone(x)
    recon_loss = (recon - x).pow(2).mean()
    recon_loss.backward()
    backbone_opt.step()

    probe_opt.zero_grad()
    probe_loss = criterion(probe(features.detach()), labels)
    probe_loss.backward()
    backbone_opt.step()  # expect: GG608

if __name__ == "__main__":
    if torch.equal(start, probe.head.weight):
        raise SystemExit("the probe never trained: its phase stepped the backbone's optimizer")
