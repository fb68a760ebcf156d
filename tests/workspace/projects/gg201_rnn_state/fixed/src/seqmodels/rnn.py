"""A character-level LSTM language model."""
from torch import nn


class CharRNN(nn.Module):
    def __init__(self, vocab=10, hidden=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.lstm = nn.LSTM(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens, state):
        out, state = self.lstm(self.embed(tokens), state)
        return self.head(out), state
