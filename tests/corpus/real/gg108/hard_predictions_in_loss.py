"""A beginner's classification loop turns the logits into hard class predictions
(`torch.max(outputs, 1)`'s indices, cast to float) and feeds them with the labels to
`nn.MSELoss`: the indices never require grad, so `loss.backward()` raises "element 0 of
tensors does not require grad and does not have a grad_fn". The fix feeds the logits to
`nn.CrossEntropyLoss`.

Sources (rewritten in our own words, structure kept):
* https://php.bkmy88.com/faq/1835025.html - `softmax(...).argmax(dim=1).type(torch.float32)`
  given to the loss, backward raises.
* https://newbedev.com/how-does-pytorch-backprop-through-argmax - class indices carry no
  gradient.
"""

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.layers(x)


def train(model, optimizer, loader, criterion):
    for inputs, labels in loader:
        outputs = model(inputs)
        _, predicted = torch.max(outputs, 1)  # expect: GG108
        loss = criterion(predicted.float(), labels.float())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_fixed(model, optimizer, loader, criterion):
    for inputs, labels in loader:
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
batch = [(torch.randn(5, 4), torch.randint(0, 3, (5,)))]
try:
    train(net, opt, batch, nn.MSELoss())
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
train_fixed(net, opt, batch, nn.CrossEntropyLoss())
inputs, labels = batch[0]
preds = torch.softmax(net(inputs), dim=1).argmax(dim=1).type(torch.float32)  # expect: GG108
loss = nn.functional.mse_loss(preds, labels.float())
try:
    loss.backward()
    raise AssertionError("expected an error")
except RuntimeError as error:
    assert "does not require grad" in str(error)
