"""Look-alike: .item() and float() used only for the running-loss log.

Modelled on: https://github.com/DeepRank/deeprank/issues/210 (counterpart)

The loss tensor is backpropagated; its .item() copy is accumulated into the
epoch statistics after the step, which is the correct use of .item().
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TwoHeadNet(nn.Module):
    def __init__(self, in_dim=12):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(in_dim, 24), nn.Tanh())
        self.reg = nn.Linear(24, 1)
        self.cls = nn.Linear(24, 2)

    def forward(self, x):
        h = self.trunk(x)
        return self.reg(h).squeeze(-1), self.cls(h)


class NeuralNet:
    def __init__(self, net, lr=1e-2):
        self.net = net
        self.opt = torch.optim.Adam(net.parameters(), lr=lr)
        self.losses = {"train": []}

    def combined_loss(self, out, y_reg, y_cls):
        score, logits = out
        return F.mse_loss(score, y_reg) + 0.5 * F.cross_entropy(logits, y_cls)

    def train(self, loader, nepoch=2):
        for _ in range(nepoch):
            running_loss = 0.0
            for x, y_reg, y_cls in loader:
                self.opt.zero_grad()
                loss = self.combined_loss(self.net(x), y_reg, y_cls)
                loss.backward()
                self.opt.step()
                running_loss += loss.data.item()
            self.losses["train"].append(float(running_loss) / len(loader))


def make_loader(n=40, bs=10):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(n, 12, generator=g)
    yr = torch.randn(n, generator=g)
    yc = torch.randint(0, 2, (n,), generator=g)
    return [(x[i:i + bs], yr[i:i + bs], yc[i:i + bs]) for i in range(0, n, bs)]


if __name__ == "__main__":
    m = NeuralNet(TwoHeadNet())
    m.train(make_loader())
    assert len(m.losses["train"]) == 2
    print("OK")
