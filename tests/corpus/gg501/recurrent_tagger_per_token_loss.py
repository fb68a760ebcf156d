"""A recurrent tagger's per-example loss backpropagated unreduced (GG501).

Modelled on an issue of a named-entity project (https://github.com/z814081807/DeepNER/issues/19):
the criterion was built with `reduction='none'`, so the loss held one value per token, and
`loss.backward()` failed with "grad can be implicitly created only for scalar outputs"; the
maintainer's answer was to keep the default mean. Here the sizes reach the loss through
facts that each keep a shape: token ids cast with `.long()`, a padding mask built by
`lengths[:, None]` broadcasting, a TensorDataset whose only exactly known tensor is the
label vector (the others have a width given by a parameter), a bidirectional GRU, the last
step picked with `[:, -1]`, and integer class targets that give `cross_entropy` its
output's shape even though the logits' width is not known. A module that returns its own
loss only when labels are given is called with them: the call takes that path.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

ROWS = 48


def make_data(seq_len, vocab):
    ids = torch.randint(1, vocab, (ROWS, seq_len))
    lengths = torch.randint(2, seq_len + 1, (ROWS,))
    mask = (torch.arange(seq_len)[None, :] < lengths[:, None]).long()
    labels = torch.randint(0, 3, (ROWS,)).long()
    return ids * mask, labels


class Tagger(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, 3)

    def forward(self, ids):
        states, _ = self.rnn(self.embed(ids))
        return self.head(states[:, -1])


def train(seq_len=10, vocab=50, hidden=16):
    ids, labels = make_data(seq_len, vocab)
    model = Tagger(vocab, hidden)
    for batch_ids, batch_labels in DataLoader(TensorDataset(ids, labels), batch_size=8):
        loss = F.cross_entropy(model(batch_ids), batch_labels, reduction="none")
        loss.backward()  # expect: GG501


def first_score():
    # With literal sizes every shape is exact: the mask is (48, 10), the GRU's output
    # (8, 10, 32), its last step (8, 32), the tagger's first score per example (8,).
    lengths = torch.randint(2, 11, (ROWS,))
    mask = (torch.arange(10)[None, :] < lengths[:, None]).long()
    ids = torch.randint(1, 50, (ROWS, 10)) * mask
    model = Tagger(50, 16)
    for (batch_ids,) in DataLoader(TensorDataset(ids), batch_size=8, shuffle=True):
        model(batch_ids)[..., 0].backward()  # expect: GG501


class LossTagger(Tagger):
    """Returns its own loss when labels are given (as multi-replica training code does), a
    mean score and the logits otherwise."""

    def forward(self, ids, labels=None):
        logits = super().forward(ids)
        if labels is None:
            return logits.logsumexp(1).mean(), logits
        return F.nll_loss(F.log_softmax(logits, 1), labels, reduction="none"), logits


def train_own_loss():
    ids = torch.randint(1, 50, (ROWS, 10))
    labels = torch.randint(0, 3, (ROWS,))
    model = LossTagger(50, 16)
    for batch_ids, batch_labels in DataLoader(TensorDataset(ids, labels), batch_size=8):
        loss, _ = model(batch_ids, batch_labels)
        loss.backward()  # expect: GG501


def score_without_labels():
    # Look-alike: without labels the call takes the other path, whose first result is a
    # mean: one element.
    ids = torch.randint(1, 50, (ROWS, 10))
    model = LossTagger(50, 16)
    for (batch_ids,) in DataLoader(TensorDataset(ids), batch_size=8):
        score, _ = model(batch_ids)
        score.backward()


def reduced(seq_len=10, vocab=50, hidden=16):
    # Look-alike: the per-example losses are averaged before backward.
    ids, labels = make_data(seq_len, vocab)
    model = Tagger(vocab, hidden)
    for batch_ids, batch_labels in DataLoader(TensorDataset(ids, labels), batch_size=8):
        F.cross_entropy(model(batch_ids), batch_labels, reduction="none").mean().backward()


def last_batch_of_one(seq_len=10, vocab=50, hidden=16):
    # Look-alike: 49 rows by 8 leave a last batch of one row, whose loss backward accepts
    # (the earlier batches would fail, but the batch size is not the same for every batch).
    ids = torch.randint(1, vocab, (49, seq_len))
    labels = torch.randint(0, 3, (49,))
    model = Tagger(vocab, hidden)
    loader = DataLoader(TensorDataset(ids, labels), batch_size=8)
    *_, (batch_ids, batch_labels) = loader
    F.cross_entropy(model(batch_ids), batch_labels, reduction="none").backward()


def soft_targets(hidden=16):
    # Look-alike: probability targets of shape (1, C) give a (1,) loss, one element;
    # only integer class targets give the loss their own shape.
    head = nn.Linear(hidden, 3)
    probs = torch.softmax(torch.randn(1, 3), dim=1)
    F.cross_entropy(head(torch.randn(1, hidden)), probs, reduction="none").backward()


def one_step(hidden=16):
    # Look-alike: a GRU over a batch of one sequence, last step and last feature picked:
    # one element.
    rnn = nn.GRU(hidden, hidden, batch_first=True)
    states, _ = rnn(torch.randn(1, 5, hidden))
    states[:, -1][..., 0].backward()


if __name__ == "__main__":
    try:
        train()
    except RuntimeError as error:
        assert "grad can be implicitly created only for scalar outputs" in str(error)
        print("raises:", error)
    else:
        raise SystemExit("expected a RuntimeError")
    try:
        first_score()
    except RuntimeError as error:
        assert "grad can be implicitly created only for scalar outputs" in str(error)
    else:
        raise SystemExit("expected a RuntimeError")
    try:
        train_own_loss()
    except RuntimeError as error:
        assert "grad can be implicitly created only for scalar outputs" in str(error)
    else:
        raise SystemExit("expected a RuntimeError")
    score_without_labels()
    reduced()
    last_batch_of_one()
    soft_targets()
    one_step()
    print("look-alikes run")
