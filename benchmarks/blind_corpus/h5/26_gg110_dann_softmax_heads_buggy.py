"""Category GG110 -- softmax output given to cross_entropy.
Status: buggy.
A domain-adversarial (DANN) setup: shared extractor, label classifier and domain
discriminator behind a gradient reversal layer.  Both heads end with
`F.softmax(..., dim=1)` and their outputs go into nn.CrossEntropyLoss, which applies
log-softmax again.  The class loss cannot drop below log(1 + (C-1)/e) (0.742 for
4 classes) and its gradients are damped, so the source classifier learns slowly.
Silent: no exception.
Modelled on: https://github.com/NaJaeMin92/pytorch-DANN/issues/7
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

params = {"n_classes": 4, "feat": 16, "in_dim": 10, "batch_size": 32, "epochs": 80, "lr": 1e-2}


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, constant):
        ctx.constant = constant
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.constant, None


class Extractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(params["in_dim"], 32), nn.ReLU(), nn.Linear(32, params["feat"]), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(params["feat"], 32), nn.Linear(32, params["n_classes"])

    def forward(self, x):
        return F.softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(params["feat"], 32), nn.Linear(32, 2)

    def forward(self, x, constant):
        x = GradReverse.apply(x, constant)
        return F.softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def make_domains(n=128):
    g = torch.Generator().manual_seed(1)
    centers = 3 * torch.randn(params["n_classes"], params["in_dim"], generator=g)
    ys = torch.randint(0, params["n_classes"], (n,), generator=g)
    xs = centers[ys] + 0.5 * torch.randn(n, params["in_dim"], generator=g)
    xt = centers[torch.randint(0, params["n_classes"], (n,), generator=g)] + 1.0 + 0.5 * torch.randn(n, params["in_dim"], generator=g)
    return xs, ys, xt


def train(encoder, classifier, discriminator, data, optimizer, epochs):
    xs, ys, xt = data
    class_criterion, domain_criterion = nn.CrossEntropyLoss(), nn.CrossEntropyLoss()
    for epoch in range(epochs):
        p = epoch / epochs
        constant = 2.0 / (1.0 + math.exp(-10 * p)) - 1
        idx = torch.randint(0, xs.size(0), (params["batch_size"],))
        src_feat, tgt_feat = encoder(xs[idx]), encoder(xt[idx])
        class_preds = classifier(src_feat)
        class_loss = class_criterion(class_preds, ys[idx])  # bug: GG110
        feats = torch.cat([src_feat, tgt_feat])
        domain_labels = torch.cat([torch.zeros(len(idx)), torch.ones(len(idx))]).long()
        domain_loss = domain_criterion(discriminator(feats, constant), domain_labels)  # bug: GG110
        loss = class_loss + domain_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if epoch % 50 == 0:
            print(f"[{epoch}] class {class_loss.item():.4f} domain {domain_loss.item():.4f}")
    with torch.no_grad():
        return class_criterion(classifier(encoder(xs)), ys).item()


def main():
    torch.manual_seed(0)
    encoder, classifier, discriminator = Extractor(), Classifier(), Discriminator()
    optimizer = torch.optim.Adam(list(encoder.parameters()) + list(classifier.parameters())
                                 + list(discriminator.parameters()), lr=params["lr"])
    return train(encoder, classifier, discriminator, make_domains(), optimizer, params["epochs"])


if __name__ == "__main__":
    final = main()
    floor = math.log(1 + (params["n_classes"] - 1) / math.e)
    if final < floor - 1e-6:
        raise SystemExit("NO BUG")
    print(f"BUGGY: source class loss {final:.3f} cannot go below the softmax-CE floor {floor:.3f}")
    sys.exit(0)
