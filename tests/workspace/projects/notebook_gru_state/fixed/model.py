"""A character-level GRU language model."""
from torch import nn


class CharGRU(nn.Module):
    def __init__(self, vocab=10, hidden=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens, hidden=None):
        out, hidden = self.gru(self.embed(tokens), hidden)
        return self.head(out), hidden
