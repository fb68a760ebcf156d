"""GG201 look-alike - GRU keeps its hidden state on `self`, but it is reset per batch.

The model stores `self.hidden` and overwrites it in every forward call, which
looks like the classic "hidden state carried into the next iteration without
detach" mistake.  Here, however, `reset_state()` builds a brand-new zero state at
the start of every batch, so no graph ever spans two backward() calls.  Runs
cleanly; nothing is freed twice.

Modelled on: https://github.com/IC3Net/IC3Net/issues/7 (correct counterpart)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"vocab": 20, "emb": 8, "hidden": 16, "classes": 3, "seq_len": 10,
          "batch_size": 8, "epochs": 2, "lr": 5e-3}


class StatefulGRUClassifier(nn.Module):
    def __init__(self, vocab, emb, hidden, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.cell = nn.GRUCell(emb, hidden)
        self.head = nn.Linear(hidden, classes)
        self.hidden_size = hidden
        self.hidden = None

    def reset_state(self, batch_size, device):
        self.hidden = torch.zeros(batch_size, self.hidden_size, device=device)

    def forward(self, tokens):
        emb = self.embed(tokens)
        for t in range(emb.size(1)):
            self.hidden = self.cell(emb[:, t], self.hidden)
        return self.head(self.hidden)


def train_epoch(model, loader, optimizer, criterion, device):
    model.train()
    running = 0.0
    for step, (tokens, labels) in enumerate(loader):
        tokens, labels = tokens.to(device), labels.to(device)
        model.reset_state(tokens.size(0), device)
        optimizer.zero_grad()
        logits = model(tokens)
        loss = criterion(logits, labels)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        running += loss.item()
    return running / (step + 1)


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    x = torch.randint(0, CONFIG["vocab"], (32, CONFIG["seq_len"]))
    y = torch.randint(0, CONFIG["classes"], (32,))
    loader = DataLoader(TensorDataset(x, y), batch_size=CONFIG["batch_size"], shuffle=True)
    model = StatefulGRUClassifier(CONFIG["vocab"], CONFIG["emb"], CONFIG["hidden"],
                                  CONFIG["classes"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    criterion = nn.CrossEntropyLoss()
    for epoch in range(CONFIG["epochs"]):
        avg = train_epoch(model, loader, optimizer, criterion, device)
        print(f"epoch {epoch} loss {avg:.4f}")


if __name__ == "__main__":
    main()
    print("OK")
