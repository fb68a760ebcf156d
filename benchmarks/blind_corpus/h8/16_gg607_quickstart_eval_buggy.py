"""GG607 - model.eval() in the per-epoch test pass, never switched back to train mode.

Mistake: the epoch loop alternates `train(...)` and `test(...)`.  `test` calls
`model.eval()`, but `train` never calls `model.train()` (the model is only in
train mode because that is the default right after construction).
Silent effect (no exception): from the second epoch on every optimizer step is
taken with the model in eval mode - the Dropout layers are disabled, so the
network trains without the regularisation it was designed with.

Modelled on: https://github.com/pytorch/tutorials/issues/1624
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

batch_size = 32
epochs = 3
learning_rate = 1e-2
device = "cpu"


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 128),
            nn.ReLU(),
            nn.Dropout(0.25),
            nn.Linear(128, 64),
            nn.ReLU(),
            nn.Dropout(0.25),
            nn.Linear(64, 10),
        )

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


def make_loaders():
    x_train = torch.rand(128, 1, 28, 28)
    y_train = torch.randint(0, 10, (128,))
    x_test = torch.rand(64, 1, 28, 28)
    y_test = torch.randint(0, 10, (64,))
    train_dataloader = DataLoader(TensorDataset(x_train, y_train), batch_size=batch_size, shuffle=True)
    test_dataloader = DataLoader(TensorDataset(x_test, y_test), batch_size=batch_size)
    return train_dataloader, test_dataloader


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    for batch, (X, y) in enumerate(dataloader):
        X, y = X.to(device), y.to(device)
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            current = (batch + 1) * len(X)
            print(f"loss: {loss.item():>7f}  [{current:>5d}/{size:>5d}]")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    model.eval()  # bug: GG607
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            X, y = X.to(device), y.to(device)
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


def main(model, optimizer):
    train_dataloader, test_dataloader = make_loaders()
    loss_fn = nn.CrossEntropyLoss()
    for t in range(epochs):
        print(f"Epoch {t + 1}\n-------------------------------")
        train(train_dataloader, model, loss_fn, optimizer)
        test(test_dataloader, model, loss_fn)
    print("Done!")


def check_training():
    torch.manual_seed(0)
    model = NeuralNetwork().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    mode_at_step = []
    optimizer.register_step_pre_hook(lambda opt, a, kw: mode_at_step.append(model.training))
    main(model, optimizer)
    eval_steps = mode_at_step.count(False)
    assert eval_steps == 0, (
        f"{eval_steps} of {len(mode_at_step)} optimizer steps ran with the model in eval mode (dropout off)"
    )


if __name__ == "__main__":
    try:
        check_training()
    except AssertionError as err:
        print(f"BUGGY: {err}")
    else:
        raise SystemExit("NO BUG")
