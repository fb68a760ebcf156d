"""GG110 - softmax probabilities passed to CrossEntropyLoss.

Mistake: the dual-encoder response selector ends with an nn.Softmax layer and
the trainer feeds that output to nn.CrossEntropyLoss, which applies
log_softmax again.  Nothing crashes; the loss is squashed (it can never fall
below log(1 + (C-1)/e) for C candidates) and gradients are tiny (silent).

Modelled on: https://github.com/IBM/dstc-noesis/issues/18
"""
import math

import torch
import torch.nn as nn
from torch.nn import CrossEntropyLoss

VOCAB, EMB, HIDDEN, N_CAND = 50, 16, 24, 5


class DualEncoder(nn.Module):
    def __init__(self, vocab_size, emb_dim, hidden):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim, padding_idx=0)
        self.context_rnn = nn.LSTM(emb_dim, hidden, batch_first=True)
        self.response_rnn = nn.LSTM(emb_dim, hidden, batch_first=True)
        self.M = nn.Parameter(torch.eye(hidden))
        self.final_layer = nn.Softmax(dim=1)

    def encode(self, rnn, tokens):
        _, (h, _) = rnn(self.embedding(tokens))
        return h[-1]

    def forward(self, context, candidates):
        b, c, t = candidates.shape
        ctx = self.encode(self.context_rnn, context)                      # (b, h)
        resp = self.encode(self.response_rnn, candidates.view(b * c, t)).view(b, c, -1)
        logits = torch.bmm(resp, (ctx @ self.M).unsqueeze(2)).squeeze(2)  # (b, c)
        output = self.final_layer(logits)
        return output


class SupervisedTrainer:
    def __init__(self, model, loss_func=CrossEntropyLoss(), batch_size=8, lr=1e-2):
        self.model = model
        self.loss_func = loss_func
        self.batch_size = batch_size
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.last_output = None

    def _train_batch(self, context, candidates, target):
        output = self.model(context, candidates)
        loss = self.loss_func(output, target)  # bug: GG110
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
        self.optimizer.step()
        self.last_output = output.detach()
        return loss.item()

    def train(self, data, n_epochs=8):
        contexts, candidates, targets = data
        history = []
        for epoch in range(n_epochs):
            for i in range(0, len(targets), self.batch_size):
                sl = slice(i, i + self.batch_size)
                history.append(self._train_batch(contexts[sl], candidates[sl], targets[sl]))
            print(f"epoch {epoch}: loss {history[-1]:.4f}")
        return history


def make_data(n=32, ctx_len=10, resp_len=6):
    contexts = torch.randint(1, VOCAB, (n, ctx_len))
    candidates = torch.randint(1, VOCAB, (n, N_CAND, resp_len))
    targets = torch.randint(0, N_CAND, (n,))
    for i, tgt in enumerate(targets):
        candidates[i, tgt, :3] = contexts[i, :3]  # true response shares tokens with the context
    return contexts, candidates, targets


def main():
    torch.manual_seed(0)
    trainer = SupervisedTrainer(DualEncoder(VOCAB, EMB, HIDDEN))
    history = trainer.train(make_data())
    return trainer, history


if __name__ == "__main__":
    trainer, history = main()
    floor = math.log(1 + (N_CAND - 1) / math.e)
    rows_sum_to_one = torch.allclose(trainer.last_output.sum(1), torch.ones(trainer.last_output.size(0)))
    if rows_sum_to_one and min(history) >= floor - 1e-5:
        print(f"BUGGY: CrossEntropyLoss got probabilities (rows sum to 1); loss never below {floor:.3f}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
