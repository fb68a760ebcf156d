"""Chunked LSTM over independent sequences: the state is carried between chunks
of ONE sequence and reset for every new sequence.

Modelled on: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/146 (counterpart)

Looks like the consecutive-sampling bug (a recurrent state returned by the
model is fed back into the next call inside a loop) but every chunk of a
sequence belongs to the same graph and backward() runs once per sequence,
after all its chunks.  The next sequence starts from a fresh zero state, so no
backward ever reaches a graph that was already freed.
"""
import torch
import torch.nn as nn

torch.set_num_threads(1)


class ChunkedTagger(nn.Module):
    def __init__(self, vocab_size, emb_dim, hidden_dim, num_tags):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, emb_dim)
        self.lstm = nn.LSTM(emb_dim, hidden_dim, batch_first=True)
        self.head = nn.Linear(hidden_dim, num_tags)
        self.hidden_dim = hidden_dim

    def init_state(self, batch_size):
        zeros = torch.zeros(1, batch_size, self.hidden_dim)
        return zeros, zeros.clone()

    def forward_chunk(self, tokens, state):
        out, state = self.lstm(self.embed(tokens), state)
        return self.head(out), state


def make_batches(num_batches, batch_size, seq_len, vocab_size, num_tags):
    g = torch.Generator().manual_seed(1)
    for _ in range(num_batches):
        tokens = torch.randint(0, vocab_size, (batch_size, seq_len), generator=g)
        tags = tokens % num_tags
        yield tokens, tags


def sequence_loss(model, tokens, tags, chunk, criterion):
    state = model.init_state(tokens.shape[0])
    total = 0.0
    for start in range(0, tokens.shape[1], chunk):
        logits, state = model.forward_chunk(tokens[:, start:start + chunk], state)
        total = total + criterion(logits.reshape(-1, logits.shape[-1]),
                                  tags[:, start:start + chunk].reshape(-1))
    return total


def train(model, batches, chunk=4, lr=1e-2):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for tokens, tags in batches:
        optimizer.zero_grad()
        loss = sequence_loss(model, tokens, tags, chunk, criterion)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    torch.manual_seed(0)
    model = ChunkedTagger(vocab_size=20, emb_dim=8, hidden_dim=16, num_tags=3)
    losses = train(model, make_batches(6, batch_size=4, seq_len=12, vocab_size=20, num_tags=3))
    assert len(losses) == 6
    print("OK")
