"""A federated-learning server whose `evaluate()` asks every user for its test loss and
combines them with `np.sum([x * y for (x, y) in zip(test_samples, test_losses)])`: each
user's `test()` returns its loss tensor as computed, with gradient recording on, so NumPy
converts a tensor that requires grad and raises "Can't call numpy() on Tensor that requires
grad. Use tensor.detach().numpy() instead." (checked with torch 2.13.0). The reporters'
fixes: `y.detach()` in the comprehension, or detaching the list first.

Sources (rewritten in our own words, structure kept):
* https://github.com/zhuangdizhu/FedGen/issues/1 - `serverbase.py`, `Server.evaluate`.
* https://github.com/zhuangdizhu/FedGen/issues/15 - the fix `test_losses = [t.detach() for t in test_losses]`.
"""

import numpy as np
import torch
from torch import nn


class User:
    def __init__(self, samples: int) -> None:
        self.model = nn.Linear(4, 3)
        self.test_x = torch.randn(samples, 4)
        self.test_y = torch.randint(0, 3, (samples,))
        self.test_samples = samples

    def test(self):
        self.model.eval()
        output = self.model(self.test_x)
        loss = nn.functional.cross_entropy(output, self.test_y)
        correct = (output.argmax(dim=1) == self.test_y).sum().item()
        return correct, loss, self.test_samples


class Server:
    def __init__(self, users) -> None:
        self.users = users

    def test(self):
        num_samples, tot_correct, losses = [], [], []
        for user in self.users:
            correct, loss, samples = user.test()
            tot_correct.append(correct)
            num_samples.append(samples)
            losses.append(loss)
        return num_samples, tot_correct, losses

    def evaluate(self):
        test_samples, test_accs, test_losses = self.test()
        glob_acc = np.sum(test_accs) / np.sum(test_samples)
        glob_loss = np.sum([x * y for (x, y) in zip(test_samples, test_losses)]).item() / np.sum(test_samples)  # expect: GG502
        return glob_acc, glob_loss

    def evaluate_fixed(self):
        test_samples, test_accs, test_losses = self.test()
        test_losses = [t.detach() for t in test_losses]
        glob_acc = np.sum(test_accs) / np.sum(test_samples)
        glob_loss = np.sum([x * y for (x, y) in zip(test_samples, test_losses)]).item() / np.sum(test_samples)
        return glob_acc, glob_loss


def evaluate_users(models, inputs, targets):
    """The server's sum in one function: the losses still require grad."""
    losses = []
    for model in models:
        losses.append(nn.functional.cross_entropy(model(inputs), targets))
    return np.mean(np.array([loss.numpy() for loss in losses]))  # expect: GG502


def evaluate_users_detached(models, inputs, targets):
    losses = []
    for model in models:
        losses.append(nn.functional.cross_entropy(model(inputs), targets).detach())
    return np.mean(np.array([loss.numpy() for loss in losses]))


server = Server([User(5), User(7)])
try:
    server.evaluate()
except RuntimeError as error:
    assert "numpy" in str(error)
server.evaluate_fixed()
nets = [nn.Linear(4, 3), nn.Linear(4, 3)]
x, y = torch.randn(5, 4), torch.randint(0, 3, (5,))
try:
    evaluate_users(nets, x, y)
except RuntimeError as error:
    assert "numpy" in str(error)
evaluate_users_detached(nets, x, y)
