"""Fixed: BYOL-A style audio encoder: frozen for feature extraction, then "unfrozen" for fine-tuning.

Modelled on: https://github.com/nttcslab/byol-a/issues/7

The network mixin's ``set_trainable(trainable)`` only touches parameters that
currently have ``requires_grad=True`` (``if p.requires_grad:``).  After the
encoder has been frozen once (here: to extract embeddings for a linear probe),
``set_trainable(True)`` is a no-op, so every parameter of the model stays
frozen.  The fine-tuning loss then has no grad_fn and ``backward()`` raises
"element 0 of tensors does not require grad and does not have a grad_fn".

Fix (as in the report): drop the ``if p.requires_grad`` guard so that
``set_trainable(True)`` really re-enables every parameter.
"""
import argparse
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class NetworkCommonMixIn:
    def load_weight(self, state_dict):
        self.load_state_dict(state_dict)
        self.eval()
        return self

    def set_trainable(self, trainable=False):
        for p in self.parameters():
            p.requires_grad = trainable


class AudioNTT(nn.Module, NetworkCommonMixIn):
    def __init__(self, n_mels=16, d=32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.fc = nn.Sequential(nn.Linear(8 * (n_mels // 4), d), nn.ReLU(), nn.Linear(d, d))
        self.d = d

    def forward(self, x):
        x = self.features(x)                 # (B, C, mel, T)
        x = x.permute(0, 3, 2, 1)            # (B, T, mel, C)
        B, T, D, C = x.shape
        x = self.fc(x.reshape(B, T, D * C))  # (B, T, d)
        return x.max(dim=1).values + x.mean(dim=1)


def augment(x, g):
    gain = 1.0 + 0.1 * torch.randn(x.shape[0], 1, 1, 1, generator=g)
    return x * gain + 0.05 * torch.randn(x.shape, generator=g)


@torch.no_grad()
def extract_embeddings(model, batches):
    model.eval()
    return torch.cat([model(x) for x in batches])


def byol_loss(p, z):
    return 2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1).mean()


def finetune(model, batches, lr, steps, g):
    target = copy.deepcopy(model).eval()
    model.train()
    opt = torch.optim.Adam([p for p in model.parameters()], lr=lr)
    for step in range(steps):
        x = batches[step % len(batches)]
        with torch.no_grad():
            z = target(augment(x, g))
        p = model(augment(x, g))
        loss = byol_loss(p, z)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    batches = [torch.randn(4, 1, 16, 24, generator=g) for _ in range(3)]

    pretrained = AudioNTT().state_dict()
    model = AudioNTT().load_weight(pretrained)
    model.set_trainable(False)                 # linear-probe phase: frozen encoder
    emb = extract_embeddings(model, batches)
    assert emb.shape == (12, model.d)

    model.set_trainable(True)                  # fine-tuning phase
    return finetune(model, batches, args.lr, args.steps, g)


if __name__ == "__main__":
    final_loss = main([])
    assert final_loss == final_loss
    print("FIXED: ok")
