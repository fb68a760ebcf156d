"""GG109 - loss.requires_grad = True forced on a loss that has no history.

Face-recognition style training (embedding backbone + ArcFace margin head). The
forward pass runs inside torch.set_grad_enabled(opt.phase == "train"), but the
config says phase = "training", so grad mode is off and the loss has no grad_fn.
backward() then failed with "element 0 of tensors does not require grad", and the
author "fixed" it by setting loss.requires_grad = True. Now backward() runs, but
the loss is a leaf: no parameter ever gets a gradient and nothing is trained.
Silent effect shown below: every parameter is bit-for-bit unchanged after training.

Modelled on: https://github.com/ronghuaiyang/arcface-pytorch/issues/56
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Config:
    phase = "training"
    num_classes = 6
    embedding_size = 16
    lr = 0.1
    weight_decay = 5e-4
    max_epoch = 3
    iters_per_epoch = 4
    batch_size = 12
    s, m = 16.0, 0.3


class Backbone(nn.Module):
    def __init__(self, emb):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.PReLU(), nn.AdaptiveAvgPool2d(4))
        self.fc = nn.Linear(8 * 16, emb)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


class ArcMarginProduct(nn.Module):
    def __init__(self, in_features, out_features, s, m):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        nn.init.xavier_uniform_(self.weight)
        self.s, self.cos_m, self.sin_m = s, math.cos(m), math.sin(m)

    def forward(self, x, label):
        cosine = F.linear(F.normalize(x), F.normalize(self.weight))
        sine = torch.sqrt((1.0 - cosine.pow(2)).clamp(1e-6, 1.0))
        phi = cosine * self.cos_m - sine * self.sin_m
        one_hot = F.one_hot(label, cosine.size(1)).float()
        return self.s * (one_hot * phi + (1.0 - one_hot) * cosine)


def train(opt, model, metric_fc, criterion, optimizer, scheduler):
    for epoch in range(opt.max_epoch):
        model.train()
        for it in range(opt.iters_per_epoch):
            data_input = torch.randn(opt.batch_size, 1, 12, 12)
            label = torch.randint(0, opt.num_classes, (opt.batch_size,))
            with torch.set_grad_enabled(opt.phase == "train"):
                feature = model(data_input)
                output = metric_fc(feature, label)
                loss = criterion(output, label)
            loss.requires_grad = True  # bug: GG109
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        acc = (output.argmax(1) == label).float().mean().item()
        print(f"epoch {epoch} loss {loss.item():.4f} acc {acc:.2f}")


def main():
    torch.manual_seed(0)
    opt = Config()
    model = Backbone(opt.embedding_size)
    metric_fc = ArcMarginProduct(opt.embedding_size, opt.num_classes, opt.s, opt.m)
    criterion = nn.CrossEntropyLoss()
    params = [{"params": model.parameters()}, {"params": metric_fc.parameters()}]
    optimizer = torch.optim.SGD(params, lr=opt.lr, momentum=0.9, weight_decay=opt.weight_decay)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.1)
    before = {k: v.detach().clone() for k, v in {**dict(model.named_parameters()),
              **{"arc." + n: p for n, p in metric_fc.named_parameters()}}.items()}
    train(opt, model, metric_fc, criterion, optimizer, scheduler)
    after = {**dict(model.named_parameters()), **{"arc." + n: p for n, p in metric_fc.named_parameters()}}
    return all(torch.equal(before[k], after[k]) for k in before)


if __name__ == "__main__":
    unchanged = main()
    if unchanged:
        print("BUGGY: backward() ran every step but no parameter changed (loss had no graph)")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
