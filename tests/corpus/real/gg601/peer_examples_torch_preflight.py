"""A training loop that never clears its gradients, with a comment that names the clearing call.

Source (rewritten in our own words, structure kept): torch-preflight 0.5.0's documented
example `examples/bad_train.py` (https://github.com/highwaterlabs/torch-preflight, commit
774b8396f8d4d6e3fe55301781ef2e557fbf11f2), whose epoch loop runs backward() and step() on
every batch with no zero_grad(); its annotating comment on the backward line says that
nothing calls zero_grad(). GradGuard first missed it (the comment's text was taken for a
clearing call); GG601 now reads code only. The twin below has no comment.
"""

import torch
import torch.nn as nn


def fit_annotated(net, batches, epochs):
    loss_fn = nn.MSELoss()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for _ in range(epochs):
        for inputs, labels in batches:  # expect: GG601
            error = loss_fn(net(inputs), labels)
            error.backward()  # bug kept on purpose: no opt.zero_grad() anywhere
            opt.step()


def fit_plain(net, batches, epochs):
    loss_fn = nn.MSELoss()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for _ in range(epochs):
        for inputs, labels in batches:  # expect: GG601
            error = loss_fn(net(inputs), labels)
            error.backward()
            opt.step()
