"""GG110 look-alike - softmax inside the model, but logits reach cross_entropy.

An attention-pooling classifier uses softmax to normalise its attention scores
in forward(), and a predict() helper returns softmax probabilities for
reporting. The tensor given to F.cross_entropy is the raw output of the final
Linear layer, so there is no double softmax. Correct code.

Modelled on: none found (attention-pooling text classifier).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HP = {"vocab": 60, "emb": 24, "classes": 4, "lr": 5e-3, "epochs": 3, "seq_len": 10}


class AttnPoolClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(HP["vocab"], HP["emb"])
        self.score = nn.Linear(HP["emb"], 1)
        self.classifier = nn.Sequential(nn.Linear(HP["emb"], HP["emb"]), nn.GELU(), nn.Linear(HP["emb"], HP["classes"]))

    def forward(self, tokens):
        h = self.emb(tokens)
        attn = F.softmax(self.score(h).squeeze(-1), dim=1)
        pooled = torch.bmm(attn.unsqueeze(1), h).squeeze(1)
        return self.classifier(pooled)


@torch.no_grad()
def predict(model, tokens):
    model.eval()
    probs = F.softmax(model(tokens), dim=-1)
    return probs.max(dim=-1)


def train_one_epoch(model, loader, optimizer):
    model.train()
    total = 0.0
    for tokens, labels in loader:
        logits = model(tokens)
        loss = F.cross_entropy(logits, labels, label_smoothing=0.05)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * labels.size(0)
    return total / len(loader.dataset)


def main():
    torch.manual_seed(9)
    x = torch.randint(0, HP["vocab"], (48, HP["seq_len"]))
    y = torch.randint(0, HP["classes"], (48,))
    loader = DataLoader(TensorDataset(x, y), batch_size=12, shuffle=True)
    model = AttnPoolClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=HP["lr"])
    for epoch in range(HP["epochs"]):
        print(f"epoch {epoch}: loss {train_one_epoch(model, loader, optimizer):.4f}")
    conf, pred = predict(model, x[:4])
    print("confidence", [round(c, 3) for c in conf.tolist()], "pred", pred.tolist())


if __name__ == "__main__":
    main()
    print("OK")
