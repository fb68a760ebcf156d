"""A classifier trained on its own hard predictions: the logits go through softmax and
argmax, the class indices are cast back to float with `.type(torch.float32)` so that a
regression loss accepts them, and `loss.backward()` raises "element 0 of tensors does not
require grad and does not have a grad_fn". The cast does not bring the gradient back: argmax
has none, and a cast takes its history from what it casts only (checked with torch 2.13.0).

Source (rewritten in our own words, structure kept): a Q&A article on this error whose
training loop runs `torch.softmax(train_logits, dim=1).argmax(dim=1).type(torch.float32)`
inside `for epoch in range(Epochs)` with the model, loss and optimiser given from outside,
https://php.bkmy88.com/faq/1835025.html (fix: give the loss the logits).
"""

import torch
from torch import nn


def fit(model, features, labels, loss_fn, optimiser, epochs):
    for epoch in range(epochs):
        model.train()
        logits = model(features)
        predictions = torch.softmax(logits, dim=1).argmax(dim=1).type(torch.float32)  # expect: GG108
        loss = loss_fn(predictions, labels)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()


def fit_on_logits(model, features, labels, loss_fn, optimiser, epochs):
    for epoch in range(epochs):
        model.train()
        logits = model(features).type(torch.float32)
        loss = loss_fn(logits, labels.to(torch.long))
        predictions = logits.argmax(dim=1).type(torch.float32)
        accuracy = (predictions == labels).float().mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        print(accuracy.item())


net = nn.Linear(4, 3)
fit(net, torch.randn(8, 4), torch.randint(0, 3, (8,)).float(), nn.L1Loss(), torch.optim.SGD(net.parameters(), lr=0.1), 2)
fit_on_logits(net, torch.randn(8, 4), torch.randint(0, 3, (8,)), nn.CrossEntropyLoss(), torch.optim.SGD(net.parameters(), lr=0.1), 2)
