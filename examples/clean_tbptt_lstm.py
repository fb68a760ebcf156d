"""A correct LSTM language model with truncated BPTT (the fixed twin of the GG201 examples).

The hidden state `(h, c)` is carried from batch to batch, as truncated BPTT requires,
but `repackage_hidden` detaches it first, so each backward stops at the batch
boundary. Sampling carries the state too, under `torch.no_grad()`, where there is no
graph to cut.

Run: python examples/clean_tbptt_lstm.py
"""

import torch
from torch import nn

torch.manual_seed(0)

VOCAB = 30
EMBED = 16
HIDDEN = 32
LAYERS = 2
BATCH = 4
BPTT = 12


class WordLM(nn.Module):
    """Embedding -> 2-layer LSTM -> decoder, as in pytorch/examples word_language_model."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Embedding(VOCAB, EMBED)
        self.lstm = nn.LSTM(EMBED, HIDDEN, LAYERS)
        self.decoder = nn.Linear(HIDDEN, VOCAB)

    def forward(self, tokens, hidden):
        output, hidden = self.lstm(self.encoder(tokens), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, batch: int):
        zeros = torch.zeros(LAYERS, batch, HIDDEN)
        return (zeros, zeros.clone())


def repackage_hidden(h):
    """Wrap hidden states in new tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


model = WordLM()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
data = torch.randint(0, VOCAB, (8 * BPTT + 1, BATCH))  # (time, batch), like batchify()

for epoch in range(2):
    hidden = model.init_hidden(BATCH)
    total = 0.0
    for i in range(0, data.size(0) - 1, BPTT):
        inputs, targets = data[i : i + BPTT], data[i + 1 : i + 1 + BPTT]
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(inputs, hidden)
        loss = criterion(output.view(-1, VOCAB), targets.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch}: mean loss {total / 8:.3f}")

model.eval()
with torch.no_grad():
    hidden = model.init_hidden(1)
    token = torch.randint(0, VOCAB, (1, 1))
    sampled = []
    for _ in range(20):
        logits, hidden = model(token, hidden)
        token = torch.multinomial(logits[-1, 0].softmax(dim=-1), 1).view(1, 1)
        sampled.append(token.item())
print("sample:", " ".join(str(t) for t in sampled))
