"""A depth-estimation trainer whose `val()` method runs one validation batch under
`torch.no_grad()` (to keep activations out of memory); the reporter changed the code so
that the validation losses were backpropagated too, and `backward()` raised "element 0 of
tensors does not require grad and does not have a grad_fn" (checked with torch 2.13.0).
The maintainers explain that the no_grad block is for validation only and that nothing
should be backpropagated there.

Source (rewritten in our own words, structure kept): https://github.com/nianticlabs/monodepth2/issues/24
- the `Trainer` class keeps the model and optimiser on `self`, `process_batch()` returns
outputs and a dict of losses, `val()` wraps it in `torch.no_grad()`.
"""

import torch
from torch import nn


class Trainer:
    def __init__(self) -> None:
        self.model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
        self.model_optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)

    def process_batch(self, inputs, targets):
        outputs = self.model(inputs)
        losses = {"loss": ((outputs - targets) ** 2).mean()}
        return outputs, losses

    def run_epoch(self, batches):
        self.model.train()
        for inputs, targets in batches:
            outputs, losses = self.process_batch(inputs, targets)
            self.model_optimizer.zero_grad()
            losses["loss"].backward()
            self.model_optimizer.step()

    def val(self, inputs, targets):
        """The reporter's version: the validation losses are backpropagated as well."""
        self.model.eval()
        with torch.no_grad():  # expect: GG101
            outputs, losses = self.process_batch(inputs, targets)
            losses["loss"].backward()
        self.model.train()

    def val_fixed(self, inputs, targets):
        """The maintainers' version: validation only measures."""
        self.model.eval()
        with torch.no_grad():
            outputs, losses = self.process_batch(inputs, targets)
            print(losses["loss"].item())
        self.model.train()


def validate_then_step(model, optimizer, inputs, targets):
    """The same mistake without the trainer class: the loss is made under no_grad."""
    with torch.no_grad():  # expect: GG101
        prediction = model(inputs)
        loss = ((prediction - targets) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def step_then_validate(model, optimizer, inputs, targets):
    prediction = model(inputs)
    loss = ((prediction - targets) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        val_loss = ((model(inputs) - targets) ** 2).mean()
    return val_loss.item()


trainer = Trainer()
batch = (torch.randn(4, 6), torch.randn(4, 1))
trainer.run_epoch([batch])
try:
    trainer.val(*batch)
except RuntimeError as error:
    assert "does not require grad" in str(error)
trainer.val_fixed(*batch)
net = nn.Linear(6, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
try:
    validate_then_step(net, opt, *batch)
except RuntimeError as error:
    assert "does not require grad" in str(error)
step_then_validate(net, opt, *batch)
