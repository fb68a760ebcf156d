"""Category GG201 look-alike - hidden state reassigned inside a loop, but correctly.

A character-level GRU language model is unrolled step by step: inside one batch
the hidden state returned by the cell is fed back at the next time step (that is
ordinary backprop through time and must stay attached), and the trainer creates a
fresh zero state at the start of every batch. Only one backward() per batch walks
the graph, so nothing is freed twice and no stale history leaks between batches.
Expected: runs cleanly.

Modelled on: none found (pattern of the classic char-RNN tutorial loop)
"""
import torch
import torch.nn as nn

CONFIG = {
    "vocab": 30,
    "embed": 16,
    "hidden": 32,
    "seq_len": 10,
    "batch": 4,
    "steps": 4,
    "lr": 3e-3,
}


class CharDecoder(nn.Module):
    def __init__(self, vocab, embed, hidden):
        super().__init__()
        self.hidden_size = hidden
        self.embed = nn.Embedding(vocab, embed)
        self.cell = nn.GRUCell(embed, hidden)
        self.out = nn.Linear(hidden, vocab)

    def init_hidden(self, batch, device):
        return torch.zeros(batch, self.hidden_size, device=device)

    def forward(self, tokens, hidden):
        h = self.cell(self.embed(tokens), hidden)
        return self.out(h), h


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.device = torch.device("cpu")
        self.model = CharDecoder(cfg["vocab"], cfg["embed"], cfg["hidden"]).to(self.device)
        self.optim = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"])
        self.criterion = nn.CrossEntropyLoss()
        self.losses = []

    def sample_batch(self):
        seq = torch.randint(0, self.cfg["vocab"], (self.cfg["batch"], self.cfg["seq_len"] + 1))
        return seq[:, :-1].to(self.device), seq[:, 1:].to(self.device)

    def train_step(self, inputs, targets):
        self.model.train()
        hidden = self.model.init_hidden(inputs.size(0), self.device)
        loss = 0.0
        for t in range(inputs.size(1)):
            logits, hidden = self.model(inputs[:, t], hidden)
            loss = loss + self.criterion(logits, targets[:, t])
        loss = loss / inputs.size(1)
        self.optim.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
        self.optim.step()
        return loss.item()

    def fit(self):
        for step in range(self.cfg["steps"]):
            x, y = self.sample_batch()
            value = self.train_step(x, y)
            self.losses.append(value)
            print(f"step {step} loss {value:.3f}")
        return self.losses


if __name__ == "__main__":
    torch.manual_seed(1)
    losses = Trainer(CONFIG).fit()
    assert len(losses) == CONFIG["steps"]
    print("OK")
