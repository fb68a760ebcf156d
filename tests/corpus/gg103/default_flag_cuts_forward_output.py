"""A forward whose default flag cuts its output from the graph (GG103).

Modelled on https://github.com/huggingface/torchMoji/issues/21: the model's `forward` ends
by returning `outputs.data` unless a flag asks for something else, so fine-tuning through
the plain call `model(x)` backpropagated a tensor without history ("element 0 of tensors
does not require grad"). The flag is never passed, so each call runs `forward` with its
default, which takes the cutting branch. A call that passes the flag keeps the graph.
"""

import torch
from torch import nn


class SentimentModel(nn.Module):
    def __init__(self, vocab=50, hidden=16, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, classes)

    def forward(self, tokens, as_probabilities=True):
        states, _ = self.rnn(self.embed(tokens))
        logits = self.out(states[:, -1])
        if as_probabilities:
            # Meant for inference: probabilities as plain data.
            return torch.softmax(logits, dim=1).data  # expect: GG103
        return logits


def finetune(model, batches):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for tokens, labels in batches:
        optimizer.zero_grad()
        probabilities = model(tokens)
        loss = nn.functional.nll_loss(torch.log(probabilities), labels)
        loss.backward()
        optimizer.step()


def finetune_logits(model, batches):
    # The look-alike: asking for the logits keeps the graph.
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for tokens, labels in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(tokens, as_probabilities=False), labels)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    data = [(torch.randint(0, 50, (4, 7)), torch.randint(0, 3, (4,))) for _ in range(2)]
    net = SentimentModel()
    finetune_logits(net, data)
    try:
        finetune(net, data)
    except RuntimeError as error:
        print("raises:", error)
    else:
        raise SystemExit("expected a RuntimeError")
