"""A classifier head replaced after a warm-up epoch run by a helper, with the old optimizer.

`main()` builds the model and its optimizer, runs one warm-up epoch through
`run_epoch(model, batches, optimizer)` (which only zeroes gradients and steps), then swaps in
a new head for three classes and trains on with the same optimizer. The optimizer holds the
old head's parameters, not the new one's, so the new head never changes (checked with torch
2.13.0: its weights equal their initial values after training). A helper that only steps
and clears an optimizer cannot give it other parameters, so what it holds is still known
after the call.

Look-alikes (a helper adding the new head to the optimizer, an optimizer rebuilt after the
swap) are in `negatives_warmup_then_new_head.py`. Modelled on the forum reports of a new `fc` layer that
"does not learn" after fine-tuning setups reuse their optimizer, written anew for this
corpus.
"""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(torch.relu(self.body(x)))


def run_epoch(model, batches, optimizer):
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def main():
    two = [(torch.randn(4, 4), torch.randint(0, 2, (4,)))]
    three = [(torch.randn(4, 4), torch.randint(0, 3, (4,)))]
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    run_epoch(model, two, optimizer)
    model.fc = nn.Linear(8, 3)  # expect: GG604
    before = model.fc.weight.detach().clone()
    run_epoch(model, three, optimizer)
    assert torch.equal(before, model.fc.weight)


if __name__ == "__main__":
    main()
