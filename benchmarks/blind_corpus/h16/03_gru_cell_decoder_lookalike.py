"""GG201 look-alike: hidden state threaded through a loop, but never across backward() calls.

A GRUCell sequence tagger unrolls its hidden state step by step inside forward() (the
state must keep its history there, that is backprop through time), the trainer builds a
fresh zero state for each batch, and the sampler carries the state between steps only
under torch.no_grad(). No graph is ever reused after a backward(). Correct code.

Modelled on: https://github.com/yunjey/pytorch-tutorial/issues/90 (same training shape,
state handled correctly)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"vocab": 30, "emb": 16, "hidden": 32, "n_tags": 5, "seq_len": 12,
          "batch_size": 8, "epochs": 2, "lr": 1e-2}


class CellTagger(nn.Module):
    def __init__(self, vocab, emb, hidden, n_tags):
        super().__init__()
        self.hidden_size = hidden
        self.embed = nn.Embedding(vocab, emb)
        self.cell = nn.GRUCell(emb, hidden)
        self.head = nn.Linear(hidden, n_tags)

    def init_hidden(self, batch_size, device):
        return torch.zeros(batch_size, self.hidden_size, device=device)

    def step(self, token, hidden):
        hidden = self.cell(self.embed(token), hidden)
        return self.head(hidden), hidden

    def forward(self, tokens, hidden):
        logits = []
        for t in range(tokens.size(1)):
            out, hidden = self.step(tokens[:, t], hidden)
            logits.append(out)
        return torch.stack(logits, dim=1), hidden


class Trainer:
    def __init__(self, model, optimizer, device="cpu"):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.device = device
        self.criterion = nn.CrossEntropyLoss()
        self.history = []

    def train_epoch(self, loader):
        self.model.train()
        running = 0.0
        for tokens, tags in loader:
            tokens, tags = tokens.to(self.device), tags.to(self.device)
            hidden = self.model.init_hidden(tokens.size(0), self.device)
            logits, hidden = self.model(tokens, hidden)
            loss = self.criterion(logits.reshape(-1, logits.size(-1)), tags.reshape(-1))
            self.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            running += loss.item()
        self.history.append(running / len(loader))
        return self.history[-1]

    @torch.no_grad()
    def sample_tags(self, tokens):
        self.model.eval()
        hidden = self.model.init_hidden(tokens.size(0), self.device)
        tags = []
        for t in range(tokens.size(1)):
            out, hidden = self.model.step(tokens[:, t], hidden)
            tags.append(out.argmax(-1))
        return torch.stack(tags, dim=1)


def main():
    torch.manual_seed(0)
    c = CONFIG
    tokens = torch.randint(0, c["vocab"], (32, c["seq_len"]))
    tags = tokens % c["n_tags"]
    loader = DataLoader(TensorDataset(tokens, tags), batch_size=c["batch_size"], shuffle=True)
    model = CellTagger(c["vocab"], c["emb"], c["hidden"], c["n_tags"])
    trainer = Trainer(model, torch.optim.Adam(model.parameters(), lr=c["lr"]))
    for epoch in range(c["epochs"]):
        loss = trainer.train_epoch(loader)
        print(f"epoch {epoch}: loss={loss:.4f}")
    pred = trainer.sample_tags(tokens[:4])
    assert pred.shape == (4, c["seq_len"])


if __name__ == "__main__":
    main()
    print("OK")
