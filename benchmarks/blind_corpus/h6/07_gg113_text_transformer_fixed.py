"""GG113 (fixed): softmax probabilities handed to NLLLoss.
Fixed version: the model ends in nn.LogSoftmax, so NLLLoss gets log-probabilities.

Mistake: the text classifier's forward() ends with nn.Softmax, and the training code
scores it with nn.NLLLoss. NLLLoss expects log-probabilities; given probabilities it
simply returns -mean(p[target]), a number in [-1, 0], whose gradient is nothing like
cross-entropy's.
Silent effect: no error; the reported training loss is negative (between -1 and 0)
and the classifier is trained on the wrong objective.
Modelled on: https://github.com/AnubhavGupta3377/Text-Classification-Models-Pytorch/issues/9
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Config:
    vocab_size = 200
    d_model = 32
    n_heads = 4
    n_layers = 1
    max_len = 16
    output_size = 4
    dropout = 0.1
    lr = 1e-3
    batch_size = 16
    max_epochs = 2


class TransformerClassifier(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed = nn.Embedding(config.vocab_size, config.d_model)
        layer = nn.TransformerEncoderLayer(config.d_model, config.n_heads, 64,
                                           config.dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, config.n_layers)
        self.fc = nn.Linear(config.d_model, config.output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, x):
        h = self.encoder(self.embed(x))
        return self.softmax(self.fc(h.mean(dim=1)))


def make_loaders(config):
    gen = torch.Generator().manual_seed(0)
    text = torch.randint(0, config.vocab_size, (128, config.max_len), generator=gen)
    labels = text[:, 0] % config.output_size
    train = TensorDataset(text[:96], labels[:96])
    val = TensorDataset(text[96:], labels[96:])
    return (DataLoader(train, batch_size=config.batch_size, shuffle=True),
            DataLoader(val, batch_size=config.batch_size))


def evaluate_model(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            pred = model(x).argmax(dim=1)
            correct += (pred == y).sum().item()
            total += y.numel()
    return correct / total


def run_epoch(model, loader, optimizer, loss_op):
    model.train()
    losses = []
    for x, y in loader:
        optimizer.zero_grad()
        y_pred = model(x)
        loss = loss_op(y_pred, y)  # fixed: GG113
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


def main():
    config = Config()
    torch.manual_seed(0)
    train_loader, val_loader = make_loaders(config)
    model = TransformerClassifier(config)
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr)
    loss_op = nn.NLLLoss()
    history = []
    for epoch in range(config.max_epochs):
        train_loss = run_epoch(model, train_loader, optimizer, loss_op)
        val_acc = evaluate_model(model, val_loader)
        history.append(train_loss)
        print(f"Epoch {epoch}: train loss {train_loss:.4f}, val acc {val_acc:.3f}")
    return history


if __name__ == "__main__":
    history = main()
    assert all(v > 0.0 for v in history), history
    print("FIXED: ok")
