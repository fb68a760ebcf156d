"""GG203 look-alike: losses summed into a tensor on purpose, then back-propagated.

Category GG203 (look-alike, no bug). A GRU decoder is trained with teacher forcing; as in
the classic seq2seq recipe, ``loss += criterion(...)`` adds each time step's loss to a
tensor, and that sum is what backward() is called on, so keeping the graph is the point.
The epoch statistics are accumulated with ``loss.detach()`` and ``.item()``, so nothing
outlives the step.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

VOCAB, HID, SOS = 12, 24, 0


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HID)
        self.encoder = nn.GRU(HID, HID, batch_first=True)
        self.decoder = nn.GRUCell(HID, HID)
        self.out = nn.Linear(HID, VOCAB)

    def encode(self, src):
        _, h = self.encoder(self.embed(src))
        return h.squeeze(0)


def train_batch(model, src, tgt, optimizer, criterion):
    optimizer.zero_grad()
    h = model.encode(src)
    inp = torch.full((src.size(0),), SOS, dtype=torch.long)
    loss = 0
    for t in range(tgt.size(1)):
        h = model.decoder(model.embed(inp), h)
        loss += criterion(model.out(h), tgt[:, t])
        inp = tgt[:, t]
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    return loss.detach() / tgt.size(1)


def train(model, loader, optimizer, criterion, epochs=2):
    for epoch in range(epochs):
        model.train()
        epoch_loss = torch.zeros(())
        for src, tgt in loader:
            epoch_loss += train_batch(model, src, tgt, optimizer, criterion)
        mean_loss = epoch_loss.item() / len(loader)
        print(f"epoch {epoch}: token loss {mean_loss:.3f}")
    return epoch_loss


def main():
    torch.manual_seed(7)
    src = torch.randint(1, VOCAB, (32, 7))
    tgt = src.flip(1)
    loader = DataLoader(TensorDataset(src, tgt), batch_size=8, shuffle=True)
    model = Seq2Seq()
    total = train(model, loader, torch.optim.Adam(model.parameters(), lr=1e-2), nn.CrossEntropyLoss())
    assert total.grad_fn is None


if __name__ == "__main__":
    main()
    print("OK")
