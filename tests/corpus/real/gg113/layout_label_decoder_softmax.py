"""A layout generator whose label decoder emits, at every step, a softmax over object labels,
and whose label loss is `nn.NLLLoss` on those probabilities with no `torch.log` in between:
the reporter notes the label loss is therefore always negative; a later comment reproduces
the paper only after correcting the label loss "from -P to -logP".

Source (rewritten in our own words, structure kept): https://github.com/jamesli1618/Obj-GAN/issues/30
- the decoder step applies `F.softmax` to its output layer and returns the probabilities
  (they also drive the greedy choice of the next label); the training step scores each step
  with an `NLLLoss` built in the trainer, or (as in the original) through a loss wrapper
  object whose method receives the step outputs (`lloss.eval_batch(step_output, target)`):
  the method learns from its only call that `outputs` is softmax output.
"""

import torch
import torch.nn.functional as F
from torch import nn


class LabelDecoderStep(nn.Module):
    def __init__(self, labels: int = 12, hidden: int = 16) -> None:
        super().__init__()
        self.embedding = nn.Embedding(labels, hidden)
        self.rnn = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, labels)

    def forward(self, previous_label, state):
        state = self.rnn(self.embedding(previous_label), state)
        return F.softmax(self.out(state), dim=1)


class LabelLoss:
    def __init__(self) -> None:
        self.criterion = nn.NLLLoss(ignore_index=0)
        self.acc_loss = 0

    def eval_batch(self, outputs, target):
        self.acc_loss = self.acc_loss + self.criterion(outputs, target)  # expect: GG113


def train_batch(decoder, optimizer, targets, hidden=16):
    criterion = nn.NLLLoss(ignore_index=0)
    batch, steps = targets.shape
    state = torch.zeros(batch, hidden)
    total = 0
    for step in range(steps - 1):
        step_output = decoder(targets[:, step], state)
        total = total + criterion(step_output.contiguous().view(batch, -1), targets[:, step + 1])  # expect: GG113
    decoder.zero_grad()
    total.backward()
    optimizer.step()


def train_batch_with_wrapper(decoder, optimizer, targets, hidden=16):
    lloss = LabelLoss()
    batch, steps = targets.shape
    state = torch.zeros(batch, hidden)
    for step in range(steps - 1):
        lloss.eval_batch(decoder(targets[:, step], state), targets[:, step + 1])
    decoder.zero_grad()
    lloss.acc_loss.backward()
    optimizer.step()


model = LabelDecoderStep()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
labels = torch.randint(1, 12, (4, 5))
train_batch(model, opt, labels)
train_batch_with_wrapper(model, opt, labels)
