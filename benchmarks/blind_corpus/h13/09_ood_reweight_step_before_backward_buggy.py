"""Category GG205 - optimizer.step() changes parameters a retained graph saved, before the second backward.

The OOD trainer has two losses that share one forward graph: the classifier
loss and the loss of a small sample-weighting network. It backpropagates the
classifier loss with retain_graph=True, *steps the classifier optimizer*, and
only then backpropagates the weighting loss through the same graph. The step
updated the classifier weights in place, which the retained graph saved, so
torch raises
    RuntimeError: one of the variables needed for gradient computation has been
    modified by an inplace operation: ... is at version N; expected version N-1 ...
Modelled on: https://github.com/JerryYLi/bg-resample-ood/issues/1
(This file: buggy version.)
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--in-dim", type=int, default=24)
parser.add_argument("--feat-dim", type=int, default=16)
parser.add_argument("--num-classes", type=int, default=4)
parser.add_argument("--batch-size", type=int, default=8)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--lr-w", type=float, default=0.01)
parser.add_argument("--ood-weight", type=float, default=0.5)


class Classifier(nn.Module):
    def __init__(self, in_dim, feat_dim, num_classes):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU())
        self.fc = nn.Linear(feat_dim, num_classes)

    def forward(self, x):
        return self.fc(self.features(x))


class WeightNet(nn.Module):
    """Predicts an importance weight for each background sample from its logits."""
    def __init__(self, num_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(num_classes, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, logits):
        return torch.sigmoid(self.net(logits)).squeeze(1)


def uniform_ce(logits):
    return -(F.log_softmax(logits, dim=1).mean(1))


class Trainer:
    def __init__(self, model, weight_net, args):
        self.model, self.weight_net, self.args = model, weight_net, args
        self.optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
        self.optimizer_w = torch.optim.Adam(weight_net.parameters(), lr=args.lr_w)

    def train_epoch(self, in_loader, out_loader):
        self.model.train()
        log = []
        for (x_in, y_in), (x_out,) in zip(in_loader, out_loader):
            logits = self.model(torch.cat([x_in, x_out]))
            logits_in, logits_out = logits[: len(x_in)], logits[len(x_in):]
            w = self.weight_net(logits_out)
            loss = F.cross_entropy(logits_in, y_in) + \
                self.args.ood_weight * (w.detach() * uniform_ce(logits_out)).mean()
            # the weighting net is trained to emphasise hard background samples
            loss_w = -(w * uniform_ce(logits_out)).mean() + (w.mean() - 0.5) ** 2

            self.optimizer.zero_grad()
            self.optimizer_w.zero_grad()
            loss.backward(retain_graph=True)
            self.optimizer.step()
            loss_w.backward()  # bug: GG205
            self.optimizer_w.step()
            log.append((loss.item(), loss_w.item()))
        return log


def main(argv=None):
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    n = args.batch_size * 3
    in_ds = TensorDataset(torch.randn(n, args.in_dim), torch.randint(0, args.num_classes, (n,)))
    out_ds = TensorDataset(torch.randn(n, args.in_dim) * 2)
    in_loader = DataLoader(in_ds, batch_size=args.batch_size, shuffle=True)
    out_loader = DataLoader(out_ds, batch_size=args.batch_size, shuffle=True)
    trainer = Trainer(Classifier(args.in_dim, args.feat_dim, args.num_classes),
                      WeightNet(args.num_classes), args)
    for loss, loss_w in trainer.train_epoch(in_loader, out_loader):
        print(f"loss {loss:.4f} loss_w {loss_w:.4f}")


if __name__ == "__main__":
    try:
        main([])
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
