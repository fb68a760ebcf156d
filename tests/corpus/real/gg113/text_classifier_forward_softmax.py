"""A text classifier (a transformer encoder, then a linear layer) whose `forward` ends with
`nn.Softmax`, trained with `nn.NLLLoss`: the reporter notes NLLLoss takes log-softmax output,
and that with plain softmax "the loss is always negative".

Source (rewritten in our own words, structure kept): https://github.com/AnubhavGupta3377/Text-Classification-Models-Pytorch/issues/9
- the model keeps its loss on itself (`model.add_loss_op(nn.NLLLoss())`) and its own
  `run_epoch` calls `self.loss_op(y_pred, y)`: `self.loss_op` is set only by that setter,
  whose every call in the file passes an `nn.NLLLoss`; a training function that builds the
  criterion itself is found too.
"""

import torch
from torch import nn


class TextClassifier(nn.Module):
    def __init__(self, vocab: int = 50, d_model: int = 16, classes: int = 4) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(d_model, nhead=2, batch_first=True), num_layers=1
        )
        self.fc = nn.Linear(d_model, classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, tokens):
        encoded = self.encoder(self.embed(tokens))
        final_out = self.fc(encoded[:, -1, :])
        return self.softmax(final_out)

    def add_optimizer(self, optimizer):
        self.optimizer = optimizer

    def add_loss_op(self, loss_op):
        self.loss_op = loss_op

    def run_epoch(self, batches):
        losses = []
        for tokens, label in batches:
            self.optimizer.zero_grad()
            y_pred = self(tokens)
            loss = self.loss_op(y_pred, label)  # expect: GG113
            loss.backward()
            losses.append(loss.item())
            self.optimizer.step()
        return losses


def train(batches, epochs):
    model = TextClassifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.NLLLoss()
    for epoch in range(epochs):
        for tokens, label in batches:
            optimizer.zero_grad()
            y_pred = model(tokens)
            loss = loss_fn(y_pred, label)  # expect: GG113
            loss.backward()
            optimizer.step()


data = [(torch.randint(0, 50, (3, 7)), torch.randint(0, 4, (3,))) for _ in range(2)]
classifier = TextClassifier()
classifier.add_optimizer(torch.optim.SGD(classifier.parameters(), lr=0.1))
classifier.add_loss_op(nn.NLLLoss())
classifier.run_epoch(data)
train(data, 1)
