"""GG112 - reentrant checkpoint whose inputs do not require grad.

Parameter-efficient fine-tuning: a "pretrained" convolutional backbone is frozen and its
features go through trainable adapter blocks that are checkpointed with the reentrant
implementation. Since the frozen features do not require grad, the reentrant checkpoint
returns a tensor with no history: the adapters silently receive no gradient
(param.grad stays None) and never change; only the head after them trains (silent effect,
apart from a UserWarning "None of the inputs have requires_grad=True").
"""
import copy
import warnings

import torch
import torch.nn as nn
import torch.utils.checkpoint as cp


class Adapter(nn.Module):
    def __init__(self, ch, bottleneck=4):
        super().__init__()
        self.down = nn.Conv2d(ch, bottleneck, 1)
        self.up = nn.Conv2d(bottleneck, ch, 1)

    def forward(self, x):
        return x + self.up(torch.relu(self.down(x)))


class AdaptedNet(nn.Module):
    def __init__(self, n_classes=3, ch=8, n_adapters=2):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, ch, 3, padding=1), nn.ReLU(), nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU()
        )
        self.adapters = nn.ModuleList(Adapter(ch) for _ in range(n_adapters))
        self.head = nn.Linear(ch, n_classes)
        self.grad_checkpointing = True

    def freeze_backbone(self):
        for p in self.backbone.parameters():
            p.requires_grad_(False)

    def forward(self, images):
        feats = self.backbone(images)
        for adapter in self.adapters:
            if self.grad_checkpointing:
                feats = cp.checkpoint(adapter, feats, use_reentrant=True)  # bug: GG112
            else:
                feats = adapter(feats)
        return self.head(feats.mean(dim=(2, 3)))


def train_step(model, optimizer, images, labels):
    logits = model(images)
    loss = nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = AdaptedNet()
    model.freeze_backbone()
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(trainable, lr=1e-2)
    before = copy.deepcopy(model.adapters.state_dict())
    images, labels = torch.randn(16, 3, 8, 8), torch.randint(0, 3, (16,))
    for step in range(5):
        loss = train_step(model, optimizer, images, labels)
        print(f"step {step} loss {loss:.4f}")
    grads = [p.grad for p in model.adapters.parameters()]
    changed = any(not torch.equal(before[k], v) for k, v in model.adapters.state_dict().items())
    return grads, changed


if __name__ == "__main__":
    warnings.simplefilter("ignore", UserWarning)
    grads, changed = main()
    if all(g is None for g in grads) and not changed:
        print("BUGGY: adapter parameters got no gradient and were never updated")
    else:
        raise SystemExit("NO BUG")
