"""GG105 look-alike - torch.tensor(...) over numbers, never over the live loss.

torch.tensor() is used for class weights computed from label counts, for the
list of per-batch losses collected with .item() (to smooth the curve), and for a
list of accuracies. None of these feed the backward(), which runs on the
CrossEntropyLoss output. Correct code.

Modelled on: none found (class-weighted classification loop)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SETTINGS = {"n_cls": 3, "epochs": 3, "lr": 1e-2, "bs": 16, "window": 4}


class GRUClassifier(nn.Module):
    def __init__(self, d_in, hidden, n_cls):
        super().__init__()
        self.gru = nn.GRU(d_in, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, n_cls)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


def class_weights(labels, n_cls):
    counts = [int((labels == c).sum()) for c in range(n_cls)]
    inv = [len(labels) / (n_cls * max(c, 1)) for c in counts]
    return torch.tensor(inv, dtype=torch.float32)


def smooth(values, window):
    t = torch.tensor(values)
    return t.unfold(0, window, 1).mean(1) if len(values) >= window else t


def run(model, loader, optimizer, criterion, epochs):
    batch_losses, accs = [], []
    for epoch in range(epochs):
        correct = 0
        for x, y in loader:
            logits = model(x)
            loss = criterion(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            batch_losses.append(loss.item())
            correct += (logits.argmax(1) == y).sum().item()
        accs.append(correct / len(loader.dataset))
    return batch_losses, torch.tensor(accs)


def main():
    torch.manual_seed(0)
    s = SETTINGS
    x = torch.randn(64, 5, 4)
    y = (x[:, -1, 0] > 0).long() + (x[:, -1, 1] > 1).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=s["bs"], shuffle=True)
    model = GRUClassifier(4, 16, s["n_cls"])
    criterion = nn.CrossEntropyLoss(weight=class_weights(y, s["n_cls"]))
    optimizer = torch.optim.Adam(model.parameters(), lr=s["lr"])
    w_before = model.fc.weight.detach().clone()
    losses, accs = run(model, loader, optimizer, criterion, s["epochs"])
    curve = smooth(losses, s["window"])
    assert not torch.equal(w_before, model.fc.weight)
    print(f"smoothed loss {curve[0]:.3f} -> {curve[-1]:.3f}, acc {accs.tolist()}")


if __name__ == "__main__":
    main()
    print("OK")
