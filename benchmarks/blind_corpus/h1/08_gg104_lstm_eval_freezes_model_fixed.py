"""GG104 (fixed) - evaluation no longer freezes the model's parameters.

Fix: `evaluate` runs under @torch.no_grad() instead of calling
`model.requires_grad_(False)`, so the parameters still require grad when training
starts and backward() works.

Mistake fixed: a sanity-check evaluation freezes the whole LSTM model before training.
The buggy version fails with RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SentimentLSTM(nn.Module):
    def __init__(self, vocab=50, emb=16, hidden=24, n_classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True, num_layers=1)
        self.dropout = nn.Dropout(0.2)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, tokens):
        out, (h_n, _) = self.lstm(self.embedding(tokens))
        return self.out(self.dropout(h_n[-1]))


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for tokens, labels in loader:
        logits = model(tokens)
        loss_sum += criterion(logits, labels).item() * labels.size(0)
        correct += (logits.argmax(-1) == labels).sum().item()
        total += labels.size(0)
    return {"loss": loss_sum / total, "acc": correct / total}


def train_one_epoch(model, loader, optimizer, criterion, scheduler=None):
    model.train()
    for tokens, labels in loader:
        optimizer.zero_grad()
        loss = criterion(model(tokens), labels)
        loss.backward()  # fixed: GG104
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()


def main():
    torch.manual_seed(0)
    tokens = torch.randint(1, 50, (40, 12))
    labels = torch.randint(0, 2, (40,))
    train_loader = DataLoader(TensorDataset(tokens[:32], labels[:32]), batch_size=8, shuffle=True)
    val_loader = DataLoader(TensorDataset(tokens[32:], labels[32:]), batch_size=8)
    model = SentimentLSTM()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 4))
    baseline = evaluate(model, val_loader, criterion)
    print(f"baseline: {baseline}")
    for epoch in range(2):
        train_one_epoch(model, train_loader, optimizer, criterion, scheduler)
        metrics = evaluate(model, val_loader, criterion)
        print(f"epoch {epoch}: val_loss={metrics['loss']:.4f} val_acc={metrics['acc']:.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
