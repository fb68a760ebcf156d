"""GG108 - backward() on a dependency loss built only from argmax and comparisons.

Category: GG108 (backward through argmax / comparisons / integer casts only).
The mistake: the hierarchy-consistency ("dependency") loss is computed from
argmax predictions of each level, checked against the class hierarchy with
== / torch.where and cast to float.  None of that is differentiable, so the
dependency loss has no grad_fn.  The trainer back-propagates each loss
component on its own (to log per-component gradient norms), and the
dependency part raises
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
This file: FIXED version - the dependency loss penalises the probability
mass the model puts on subclasses outside the predicted superclass, a
differentiable surrogate, so every component has a graph.
Modelled on: https://github.com/Ugenteraan/Deep_Hierarchical_Classification/issues/6
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

# superclass -> list of subclasses
HIERARCHY = {0: [0, 1, 2], 1: [3, 4], 2: [5, 6, 7]}
N_SUPER, N_SUB = 3, 8


class HierarchicalCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.super_head = nn.Linear(16, N_SUPER)
        self.sub_head = nn.Linear(16, N_SUB)

    def forward(self, x):
        f = self.features(x)
        return [self.super_head(f), self.sub_head(f)]


class HierarchicalLossNetwork:
    def __init__(self, hierarchy, alpha=1.0, beta=0.8, p_loss=3.0):
        self.alpha, self.beta, self.p_loss = alpha, beta, p_loss
        parent = torch.zeros(N_SUB, dtype=torch.long)
        for sup, subs in hierarchy.items():
            parent[subs] = sup
        self.parent_of = parent

    def check_hierarchy(self, current_level, previous_level):
        """1 where the predicted subclass does not belong to the predicted superclass."""
        bool_tensor = self.parent_of[current_level] != previous_level
        return torch.where(bool_tensor, 1.0, 0.0)

    def calculate_lloss(self, predictions, true_labels):
        return sum(self.alpha * F.cross_entropy(p, t) for p, t in zip(predictions, true_labels))

    def calculate_dloss(self, predictions, true_labels):
        dloss = 0
        for l in range(1, len(predictions)):
            sub_probs = F.softmax(predictions[l], dim=1)
            prev_lvl_pred = torch.argmax(predictions[l - 1], dim=1)
            outside = self.parent_of[None, :] != prev_lvl_pred[:, None]
            dloss += torch.sum((sub_probs * outside.float()).sum(1) * self.p_loss)
        return self.beta * dloss / predictions[0].size(0)


def grad_norm(model):
    return sum(p.grad.norm() ** 2 for p in model.parameters() if p.grad is not None) ** 0.5


def train_step(model, hln, optimizer, images, labels):
    optimizer.zero_grad()
    preds = model(images)
    components = {"lloss": hln.calculate_lloss(preds, labels),
                  "dloss": hln.calculate_dloss(preds, labels)}
    norms, prev = {}, 0.0
    for name, comp in components.items():
        comp.backward(retain_graph=True)  # fixed: GG108
        total = float(grad_norm(model))
        norms[name], prev = total - prev, total
    optimizer.step()
    return {k: v.item() for k, v in components.items()}, norms


def main():
    torch.manual_seed(0)
    sub = torch.randint(0, N_SUB, (24,))
    sup = torch.tensor([next(s for s, subs in HIERARCHY.items() if int(c) in subs) for c in sub])
    loader = DataLoader(TensorDataset(torch.randn(24, 3, 16, 16), sup, sub), batch_size=8)
    model = HierarchicalCNN()
    hln = HierarchicalLossNetwork(HIERARCHY)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        for i, (images, y_sup, y_sub) in enumerate(loader):
            losses, norms = train_step(model, hln, optimizer, images, [y_sup, y_sub])
            print(f"epoch {epoch} it {i}: {losses} grad-norm share {norms}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
