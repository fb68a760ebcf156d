"""GG106 look-alike - inference_mode only for evaluation; pseudo-labels cloned.

Self-training: the model predicts pseudo-labels for unlabeled data inside
torch.inference_mode(). The labels are integer targets (never saved by autograd
as inputs needing grad), and the unlabeled inputs that are reused for training
are cloned outside inference mode first, which turns them into normal tensors.
The validation metrics are computed under inference_mode and only read.
Correct code.

Modelled on: none found (pseudo-labelling loop).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"in_dim": 10, "classes": 3, "threshold": 0.4, "rounds": 2, "lr": 1e-2}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(CFG["in_dim"], 32), nn.ReLU(), nn.Linear(32, CFG["classes"]))

    def forward(self, x):
        return self.layers(x)


def pseudo_label(model, unlabeled, threshold):
    model.eval()
    with torch.inference_mode():
        probs = F.softmax(model(unlabeled), dim=1)
        conf, labels = probs.max(dim=1)
        keep = conf > threshold
        chosen_x = unlabeled[keep]
        chosen_y = labels[keep]
    return chosen_x.clone(), chosen_y.clone()


def evaluate(model, x, y):
    model.eval()
    with torch.inference_mode():
        acc = (model(x).argmax(1) == y).float().mean()
    return acc.item()


def fit(model, optimizer, x, y, steps=5):
    model.train()
    for _ in range(steps):
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def main():
    torch.manual_seed(6)
    x_lab, y_lab = torch.randn(24, CFG["in_dim"]), torch.randint(0, CFG["classes"], (24,))
    x_unl = torch.randn(64, CFG["in_dim"])
    x_val, y_val = torch.randn(16, CFG["in_dim"]), torch.randint(0, CFG["classes"], (16,))
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    fit(model, opt, x_lab, y_lab)
    for r in range(CFG["rounds"]):
        px, py = pseudo_label(model, x_unl, CFG["threshold"])
        assert not px.is_inference()
        loss = fit(model, opt, torch.cat([x_lab, px]), torch.cat([y_lab, py]))
        print(f"round {r}: {len(px)} pseudo-labels, loss {loss:.3f}, val acc {evaluate(model, x_val, y_val):.3f}")


if __name__ == "__main__":
    main()
    print("OK")
