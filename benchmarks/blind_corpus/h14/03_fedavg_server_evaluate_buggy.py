"""GG502 - .numpy() on a tensor that requires grad.

A federated-averaging server asks every user to evaluate the global model.
User.test() runs the model without torch.no_grad() and returns the summed
loss *tensor* (still attached to the graph).  The server then turns the
collected losses into a numpy array to compute the sample-weighted global
loss, which raises
RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.

Modelled on: https://github.com/zhuangdizhu/FedGen/issues/15
"""
import copy

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"num_users": 3, "local_epochs": 1, "batch_size": 8, "learning_rate": 0.05, "glob_iters": 2}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Linear(4 * 4 * 4, 10)

    def forward(self, x):
        return self.fc(self.conv(x).flatten(1))


class User:
    def __init__(self, uid, model, n):
        self.id = uid
        self.model = copy.deepcopy(model)
        x, y = torch.randn(n, 1, 8, 8), torch.randint(0, 10, (n,))
        self.train_loader = DataLoader(TensorDataset(x, y), batch_size=ARGS["batch_size"], shuffle=True)
        self.test_loader = DataLoader(TensorDataset(x, y), batch_size=ARGS["batch_size"])
        self.loss = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=ARGS["learning_rate"])

    def set_parameters(self, global_model):
        self.model.load_state_dict(global_model.state_dict())

    def train(self):
        self.model.train()
        for _ in range(ARGS["local_epochs"]):
            for x, y in self.train_loader:
                self.optimizer.zero_grad()
                self.loss(self.model(x), y).backward()
                self.optimizer.step()

    def test(self):
        self.model.eval()
        correct, loss, n = 0, 0, 0
        for x, y in self.test_loader:
            out = self.model(x)
            loss += self.loss(out, y) * y.size(0)
            correct += (out.argmax(1) == y).sum().item()
            n += y.size(0)
        return correct, loss, n


class Server:
    def __init__(self):
        self.model = Net()
        self.users = [User(i, self.model, 16 + 8 * i) for i in range(ARGS["num_users"])]
        self.metrics = {"glob_acc": [], "glob_loss": []}

    def aggregate(self):
        states = [u.model.state_dict() for u in self.users]
        avg = {k: sum(s[k] for s in states) / len(states) for k in states[0]}
        self.model.load_state_dict(avg)

    def evaluate(self):
        stats = [u.test() for u in self.users]
        correct = np.array([s[0] for s in stats])
        samples = np.array([s[2] for s in stats])
        losses = np.array([s[1].numpy() for s in stats])  # bug: GG502
        glob_acc = correct.sum() / samples.sum()
        glob_loss = float(losses.sum() / samples.sum())
        self.metrics["glob_acc"].append(glob_acc)
        self.metrics["glob_loss"].append(glob_loss)
        print(f"Average Global Accuracy = {glob_acc:.4f}, Loss = {glob_loss:.4f}")

    def train(self):
        for it in range(ARGS["glob_iters"]):
            for u in self.users:
                u.set_parameters(self.model)
            self.evaluate()
            for u in self.users:
                u.train()
            self.aggregate()


if __name__ == "__main__":
    torch.manual_seed(0)
    try:
        Server().train()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
