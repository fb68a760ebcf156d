"""GG610 look-alike - parameters used several times, but never from an exhausted generator.

Correct code: the script counts parameters, builds weight-decay / no-decay groups,
creates the optimizer and clips gradients. Each use either calls
model.parameters()/named_parameters() afresh (a new generator each time) or uses a
list built once (`trainable = list(...)`), which can be iterated any number of times.
All parameters are in the optimizer and get updated (checked). Runs cleanly.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CFG = {"vocab": 30, "emb": 16, "hidden": 32, "classes": 2, "lr": 5e-3, "weight_decay": 0.01, "clip": 1.0, "epochs": 2}


class LSTMClassifier(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embedding = nn.Embedding(c["vocab"], c["emb"])
        self.lstm = nn.LSTM(c["emb"], c["hidden"], batch_first=True)
        self.norm = nn.LayerNorm(c["hidden"])
        self.fc = nn.Linear(c["hidden"], c["classes"])

    def forward(self, tokens):
        out, _ = self.lstm(self.embedding(tokens))
        return self.fc(self.norm(out[:, -1]))


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def param_groups(model, weight_decay):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if name.endswith("bias") or "norm" in name else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def train(model, loader, optimizer, trainable, clip, epochs):
    for epoch in range(epochs):
        for tokens, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(tokens), labels)
            loss.backward()
            norm = nn.utils.clip_grad_norm_(trainable, clip)
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} grad norm {norm.item():.3f}")


def main():
    torch.manual_seed(0)
    model = LSTMClassifier(CFG)
    print(f"{count_parameters(model)} trainable parameters")
    trainable = list(p for p in model.parameters() if p.requires_grad)
    groups = param_groups(model, CFG["weight_decay"])
    optimizer = torch.optim.AdamW(groups, lr=CFG["lr"])
    assert sum(len(g["params"]) for g in optimizer.param_groups) == len(trainable)
    before = [p.detach().clone() for p in trainable]
    loader = DataLoader(TensorDataset(torch.randint(0, CFG["vocab"], (48, 12)), torch.randint(0, 2, (48,))), batch_size=12)
    train(model, loader, optimizer, trainable, CFG["clip"], CFG["epochs"])
    assert all(not torch.equal(b, p) for b, p in zip(before, trainable))


if __name__ == "__main__":
    main()
    print("OK")
