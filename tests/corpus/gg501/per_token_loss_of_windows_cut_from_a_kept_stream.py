"""A per-token loss over windows cut from a token stream a trainer keeps (GG501).

Modelled on the shape of https://github.com/carpedm20/ENAS-pytorch/issues/58, written
anew: a language-model trainer is handed a `(steps, streams)` tensor of token ids, keeps
it as `self.stream`, and cuts each training window with a moving offset
(`self.stream[pos : pos + width]`); a helper returns the cross-entropy with
`reduction="none"` (one value per token, kept for a later reward) and the trainer calls
`loss.backward()` on it. What makes it certain: every store of `self.stream` keeps a tensor
of a known shape, and nothing in the file can change a tensor's shape in place, so the
windows are `(?, 3)`: a slice keeps the dimension, and `targets.reshape(-1)` of those holds
more than one id; a target one rank below `(N, C)` logits holds class indices, one per
loss value.

Look-alikes: the same loss reduced with `.mean()`, summed by `reduction="sum"`, weighted by
an explicit `gradient=`; and a single-stream trainer whose window may be one token long
(`(?, 1)` windows: run below with a one-token window, a one-element loss backpropagates
fine).
"""

import torch
from torch import nn
from torch.nn import functional as F

VOCAB = 20


class TokenModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 8)
        self.out = nn.Linear(8, VOCAB)

    def forward(self, tokens):
        return self.out(torch.tanh(self.embed(tokens)))


class WindowTrainer:
    def __init__(self, stream, width):
        self.stream = stream
        self.width = width
        self.model = TokenModel()
        self.optim = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def window(self, pos):
        chunk = self.stream[pos : pos + self.width + 1]
        return chunk[:-1], chunk[1:]

    def token_losses(self, inputs, targets):
        logits = self.model(inputs)
        return F.cross_entropy(logits.view(-1, VOCAB), targets.reshape(-1), reduction="none")

    def step_per_token(self, pos):
        inputs, targets = self.window(pos)
        loss = self.token_losses(inputs, targets)
        self.optim.zero_grad()
        loss.backward()  # expect: GG501
        self.optim.step()

    def step_mean(self, pos):
        inputs, targets = self.window(pos)
        loss = self.token_losses(inputs, targets).mean()
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()

    def step_summed(self, pos):
        inputs, targets = self.window(pos)
        logits = self.model(inputs)
        loss = F.cross_entropy(logits.view(-1, VOCAB), targets.reshape(-1), reduction="sum")
        self.optim.zero_grad()
        loss.backward()
        self.optim.step()

    def step_weighted(self, pos):
        inputs, targets = self.window(pos)
        loss = self.token_losses(inputs, targets)
        self.optim.zero_grad()
        loss.backward(gradient=torch.ones_like(loss) / loss.numel())
        self.optim.step()


class SingleStreamTrainer:
    def __init__(self, tokens, width):
        self.tokens = tokens
        self.width = width
        self.model = TokenModel()

    def step(self, pos):
        chunk = self.tokens[pos : pos + self.width + 1]
        logits = self.model(chunk[:-1])
        loss = F.cross_entropy(logits.view(-1, VOCAB), chunk[1:].reshape(-1), reduction="none")
        loss.backward()


def main():
    tokens = torch.randint(0, VOCAB, (40, 3))
    trainer = WindowTrainer(tokens, 6)
    trainer.step_mean(0)
    trainer.step_summed(6)
    trainer.step_weighted(12)
    SingleStreamTrainer(torch.randint(0, VOCAB, (40, 1)), 1).step(0)
    try:
        trainer.step_per_token(18)
    except RuntimeError as error:
        assert "scalar outputs" in str(error)
    else:
        raise AssertionError("backward of a per-token loss ran")
    print("ok")


if __name__ == "__main__":
    main()
