"""Text-classification benchmark main script whose training loop never clears gradients.

Modelled on: https://github.com/FreedomIntelligence/TextClassificationBenchmark/issues/20

The benchmark's ``main.py`` builds a model from an options object, then for every batch
computes the cross-entropy loss, calls ``loss.backward()`` and ``optimizer.step()``; there
is no ``optimizer.zero_grad()`` (or ``model.zero_grad()``) anywhere in the step. PyTorch
accumulates into ``.grad``, so each update uses the sum of every gradient seen so far in
the run instead of the current batch's gradient. The check shows the gradient present at
the second step equals batch1 + batch2 gradients.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def parse_opt(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="lstm")
    p.add_argument("--vocab_size", type=int, default=50)
    p.add_argument("--embedding_dim", type=int, default=16)
    p.add_argument("--hidden_dim", type=int, default=24)
    p.add_argument("--label_size", type=int, default=3)
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--max_seq_len", type=int, default=10)
    p.add_argument("--learning_rate", type=float, default=0.05)
    p.add_argument("--max_epoch", type=int, default=1)
    return p.parse_args(argv)


class LSTMClassifier(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.embedding = nn.Embedding(opt.vocab_size, opt.embedding_dim)
        self.lstm = nn.LSTM(opt.embedding_dim, opt.hidden_dim, batch_first=True)
        self.hidden2label = nn.Linear(opt.hidden_dim, opt.label_size)

    def forward(self, text):
        emb = self.embedding(text)
        out, _ = self.lstm(emb)
        return self.hidden2label(out[:, -1])


def setup(opt):
    return {"lstm": LSTMClassifier}[opt.model](opt)


def load_data(opt, n_batches=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        text = torch.randint(0, opt.vocab_size, (opt.batch_size, opt.max_seq_len), generator=g)
        label = torch.randint(0, opt.label_size, (opt.batch_size,), generator=g)
        batches.append((text, label))
    return batches


def batch_grad(model, batch):
    """Gradient of one batch's loss alone (for the check)."""
    clone = setup(OPT)
    clone.load_state_dict(model.state_dict())
    text, label = batch
    F.cross_entropy(clone(text), label).backward()
    return clone.hidden2label.weight.grad.clone()


def train(opt, model, train_iter, probe=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=opt.learning_rate)
    loss_fun = F.cross_entropy
    model.train()
    for epoch in range(opt.max_epoch):
        for i, batch in enumerate(train_iter):
            text, label = batch
            predicted = model(text)
            loss = loss_fun(predicted, label)
            loss.backward()
            if probe is not None:
                probe(i, model)
            optimizer.step()  # bug: GG601
    return model


OPT = parse_opt([])

if __name__ == "__main__":
    torch.manual_seed(0)
    model = setup(OPT)
    data = load_data(OPT)
    seen = {}

    def probe(i, m):
        if i == 1:
            seen["grad"] = m.hidden2label.weight.grad.clone()
            seen["fresh"] = batch_grad(m, data[1])

    train(OPT, model, data, probe)
    if not torch.allclose(seen["grad"], seen["fresh"], atol=1e-6):
        print("BUGGY: gradient at step 2 still contains step 1's gradient (never zeroed)")
    else:
        print("gradients are fresh")
