"""An LLM fine-tuning template whose `training_function` sums `outputs.loss` into
`loss_sum` for the step log; the sum holds every micro-batch's graph, a memory leak found
by the maintainers. They fix it with `loss_sum += loss.item()` (or `.detach()`).

Source (rewritten in our own words, structure kept): https://github.com/ray-project/ray/pull/40940
- `training_function(kwargs)` builds model and optimiser, loops over epochs and a data
loader, the model returns an output object whose `.loss` is backpropagated.
"""

import torch
from torch import nn


class CausalLmOutput:
    def __init__(self, loss, logits):
        self.loss = loss
        self.logits = logits


class TinyLm(nn.Module):
    def __init__(self, vocab: int = 10) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, 8)
        self.head = nn.Linear(8, vocab)

    def forward(self, input_ids, labels):
        logits = self.head(self.embed(input_ids))
        loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))
        return CausalLmOutput(loss, logits)


def training_function(kwargs):
    model = TinyLm()
    optimizer = torch.optim.AdamW(model.parameters(), lr=kwargs["lr"])
    for epoch in range(kwargs["epochs"]):
        loss_sum = torch.tensor(0.0)
        for step, batch in enumerate(kwargs["loader"]):
            outputs = model(**batch)
            loss = outputs.loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss_sum += loss  # expect: GG203
        print(epoch, loss_sum / (step + 1))


def training_function_fixed(kwargs):
    model = TinyLm()
    optimizer = torch.optim.AdamW(model.parameters(), lr=kwargs["lr"])
    for epoch in range(kwargs["epochs"]):
        loss_sum = torch.tensor(0.0)
        for step, batch in enumerate(kwargs["loader"]):
            outputs = model(**batch)
            loss = outputs.loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss_sum += loss.item()
        print(epoch, loss_sum / (step + 1))


def plain_training_loop(model, optimizer, loader):
    """The loop without the output object: the loss tensor goes straight into the sum."""
    loss_sum = 0.0
    for batch in loader:
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        loss_sum += loss  # expect: GG203
    return loss_sum


data = [{"input_ids": torch.randint(0, 10, (2, 5)), "labels": torch.randint(0, 10, (2, 5))} for _ in range(2)]
training_function({"lr": 1e-3, "epochs": 1, "loader": data})
training_function_fixed({"lr": 1e-3, "epochs": 1, "loader": data})
lm = TinyLm()
assert plain_training_loop(lm, torch.optim.SGD(lm.parameters(), lr=0.1), data).requires_grad
