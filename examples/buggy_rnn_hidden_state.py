"""A small GRU language model trained with truncated BPTT -- BUGGY (GG201).

Bug: `hidden` is carried from one batch into the next without `.detach()`
(GG201 hidden-state-not-detached). The second `loss.backward()` then tries to
walk back through the previous batch's graph, which the first backward already
freed, and raises:

    RuntimeError: Trying to backward through the graph a second time (or directly
    access saved tensors after they have already been freed). ...

`loss.backward(retain_graph=True)` only hides it: the graph then grows with every
batch and `optimizer.step()` triggers "one of the variables needed for gradient
computation has been modified by an inplace operation". The fix is to cut the
history between batches: `hidden = hidden.detach()` (see clean_tbptt_lstm.py).

Run: python examples/buggy_rnn_hidden_state.py
"""

import torch
from torch import nn

torch.manual_seed(0)

VOCAB = 40
EMBED = 16
HIDDEN = 32
BATCH = 4
SEQ_LEN = 16


class CharRNN(nn.Module):
    """Embedding -> GRU -> Linear over the vocabulary."""

    def __init__(self, vocab: int, embed: int, hidden: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.gru = nn.GRU(embed, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens: torch.Tensor, hidden: torch.Tensor):
        out, hidden = self.gru(self.embed(tokens), hidden)
        return self.head(out), hidden


def windows(stream: torch.Tensor, seq_len: int):
    """Yield (input, target) windows that continue each other, as TBPTT expects."""
    for start in range(0, stream.size(1) - seq_len - 1, seq_len):
        yield stream[:, start : start + seq_len], stream[:, start + 1 : start + seq_len + 1]


model = CharRNN(VOCAB, EMBED, HIDDEN)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
stream = torch.randint(0, VOCAB, (BATCH, 8 * SEQ_LEN))

for epoch in range(2):
    hidden = torch.zeros(1, BATCH, HIDDEN)
    total, batches = 0.0, 0
    for inputs, targets in windows(stream, SEQ_LEN):
        optimizer.zero_grad()
        logits, hidden = model(inputs, hidden)  # expect: GG201
        loss = criterion(logits.reshape(-1, VOCAB), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
    print(f"epoch {epoch}: mean loss {total / batches:.3f}")
