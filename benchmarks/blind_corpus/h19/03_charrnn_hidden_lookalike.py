"""GG201 look-alike - hidden state carried across steps, but no graph is kept alive.

A GRU character model that (a) trains with truncated BPTT where the hidden state
passed from one chunk to the next goes through a ``repackage_hidden`` helper, and
(b) generates text one character at a time, feeding the hidden state back into the
next step without detaching it - but the whole generation loop runs under
torch.no_grad(), so there is no graph to keep. Nothing here backpropagates into an
earlier iteration's graph; runs cleanly.

Modelled on: https://github.com/gabrielloye/RNN-walkthrough/issues/3
"""
import torch
import torch.nn as nn

CONFIG = {
    "hidden_dim": 16,
    "embed_dim": 8,
    "bptt": 6,
    "batch_size": 2,
    "epochs": 3,
    "lr": 5e-3,
}

CORPUS = "the quick brown fox jumps over the lazy dog " * 3


def repackage_hidden(h):
    """Wrap hidden states in new tensors, cutting their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(ids, batch_size):
    n = ids.size(0) // batch_size
    return ids[: n * batch_size].view(batch_size, n)


class CharGRU(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.gru = nn.GRU(embed_dim, hidden_dim, batch_first=True)
        self.head = nn.Linear(hidden_dim, vocab_size)
        self.hidden_dim = hidden_dim

    def init_hidden(self, batch_size):
        return torch.zeros(1, batch_size, self.hidden_dim)

    def forward(self, x, hidden):
        out, hidden = self.gru(self.embed(x), hidden)
        return self.head(out), hidden


def train_epoch(model, data, optimizer, criterion, cfg):
    model.train()
    hidden = model.init_hidden(cfg["batch_size"])
    total = 0.0
    for start in range(0, data.size(1) - 1, cfg["bptt"]):
        seq_len = min(cfg["bptt"], data.size(1) - 1 - start)
        x = data[:, start:start + seq_len]
        y = data[:, start + 1:start + 1 + seq_len]
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        logits, hidden = model(x, hidden)
        loss = criterion(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total += loss.item()
    return total


@torch.no_grad()
def generate(model, stoi, itos, prime="the", length=12):
    model.eval()
    hidden = model.init_hidden(1)
    x = torch.tensor([[stoi[c] for c in prime]])
    logits, hidden = model(x, hidden)
    out = list(prime)
    for _ in range(length):
        nxt = logits[0, -1].argmax()
        out.append(itos[int(nxt)])
        logits, hidden = model(nxt.view(1, 1), hidden)
    return "".join(out), hidden


def main():
    torch.manual_seed(0)
    cfg = CONFIG
    chars = sorted(set(CORPUS))
    stoi = {c: i for i, c in enumerate(chars)}
    itos = {i: c for c, i in stoi.items()}
    ids = torch.tensor([stoi[c] for c in CORPUS])
    data = batchify(ids, cfg["batch_size"])
    model = CharGRU(len(chars), cfg["embed_dim"], cfg["hidden_dim"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()
    for epoch in range(cfg["epochs"]):
        total = train_epoch(model, data, optimizer, criterion, cfg)
        print(f"epoch {epoch} loss {total:.3f}")
    text, hidden = generate(model, stoi, itos)
    assert hidden.grad_fn is None
    print("sample:", text)


if __name__ == "__main__":
    main()
    print("OK")
