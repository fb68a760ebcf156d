"""GG502 - .numpy() on a tensor that requires grad.

Fixed version: the server detaches each loss before converting it.

Mistake (in the buggy file): each federated client's `test()` computes its loss outside torch.no_grad(),
so the returned loss tensor still requires grad. The server then converts those
losses with `.numpy()` while aggregating the global test loss.
torch raises: RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.

Modelled on: https://github.com/zhuangdizhu/FedGen/issues/1
(server-side evaluate() aggregated per-user test losses with numpy and crashed
because the users' losses were still attached to the graph).
"""
import copy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = dict(num_users=4, local_epochs=1, batch_size=16, learning_rate=0.05, num_glob_iters=2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc(x.flatten(1))


class User:
    def __init__(self, uid, data, model, args):
        self.id = uid
        self.model = copy.deepcopy(model)
        self.train_loader = DataLoader(data, batch_size=args["batch_size"], shuffle=True)
        self.test_loader = DataLoader(data, batch_size=len(data))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args["learning_rate"])
        self.local_epochs = args["local_epochs"]

    def set_parameters(self, global_model):
        self.model.load_state_dict(global_model.state_dict())

    def train(self):
        self.model.train()
        for _ in range(self.local_epochs):
            for x, y in self.train_loader:
                self.optimizer.zero_grad()
                F.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()

    def test(self):
        self.model.eval()
        correct, loss, n = 0, 0, 0
        for x, y in self.test_loader:
            out = self.model(x)
            loss = loss + F.cross_entropy(out, y)
            correct += (out.argmax(1) == y).sum().item()
            n += y.shape[0]
        return correct, loss, n


class Server:
    def __init__(self, model, users):
        self.model = model
        self.users = users
        self.metrics = {"glob_acc": [], "glob_loss": []}

    def aggregate(self):
        state = self.model.state_dict()
        for k in state:
            state[k] = torch.stack([u.model.state_dict()[k].float() for u in self.users]).mean(0)
        self.model.load_state_dict(state)

    def evaluate(self):
        test_samples, test_accs, test_losses = [], [], []
        for u in self.users:
            c, l, n = u.test()
            test_accs.append(c)
            test_losses.append(l)
            test_samples.append(n)
        glob_acc = np.sum(test_accs) / np.sum(test_samples)
        glob_loss = np.sum([n * l.detach().numpy() for n, l in zip(test_samples, test_losses)]) / np.sum(test_samples)  # fixed: GG502
        self.metrics["glob_acc"].append(glob_acc)
        self.metrics["glob_loss"].append(float(glob_loss))
        print(f"Average Global Accuracy = {glob_acc:.4f}, Loss = {float(glob_loss):.4f}")

    def train(self, rounds):
        for r in range(rounds):
            for u in self.users:
                u.set_parameters(self.model)
            self.evaluate()
            for u in self.users:
                u.train()
            self.aggregate()


def main():
    torch.manual_seed(0)
    model = Net()
    users = []
    for uid in range(ARGS["num_users"]):
        data = TensorDataset(torch.randn(32, 1, 14, 14), torch.randint(0, 10, (32,)))
        users.append(User(uid, data, model, ARGS))
    server = Server(model, users)
    server.train(ARGS["num_glob_iters"])


if __name__ == "__main__":
    main()
    print("FIXED: ok")
