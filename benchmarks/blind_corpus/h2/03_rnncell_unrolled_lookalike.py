"""GG201 look-alike: hidden state carried across time steps inside one sequence (correct).

Category GG201 (look-alike, no bug). A character model is unrolled by hand with an
LSTMCell: inside the time loop the state ``(h, c)`` is fed back into the cell at every
step, which is exactly what backpropagation through time needs, and there is a single
backward() per batch. Across batches the state is carried on, but it goes through the
``repackage`` helper first, which detaches it. Nothing here chains onto a freed graph.
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_CHARS = 20


def repackage(state):
    """Cut the history of a recurrent state while keeping its values."""
    if isinstance(state, torch.Tensor):
        return state.detach()
    return tuple(repackage(s) for s in state)


class CharCellModel(nn.Module):
    def __init__(self, n_chars=N_CHARS, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(n_chars, 16)
        self.cell = nn.LSTMCell(16, hidden)
        self.decoder = nn.Linear(hidden, n_chars)
        self.hidden = hidden

    def zero_state(self, batch):
        return torch.zeros(batch, self.hidden), torch.zeros(batch, self.hidden)

    def forward(self, tokens, state):
        h, c = state
        logits = []
        for t in range(tokens.size(1)):
            h, c = self.cell(self.embed(tokens[:, t]), (h, c))
            logits.append(self.decoder(h))
        return torch.stack(logits, dim=1), (h, c)


def train(model, loader, optimizer, criterion, epochs=2):
    for epoch in range(epochs):
        model.train()
        state = None
        running = 0.0
        for step, (x, y) in enumerate(loader):
            if state is None:
                state = model.zero_state(x.size(0))
            optimizer.zero_grad()
            logits, state = model(x, state)
            loss = criterion(logits.reshape(-1, N_CHARS), y.reshape(-1))
            loss.backward()
            optimizer.step()
            state = repackage(state)
            running += loss.item()
        print(f"epoch {epoch}: loss {running / (step + 1):.3f}")


def main():
    torch.manual_seed(2)
    text = torch.randint(0, N_CHARS, (8 * 4 * 6 + 1,))
    x = text[:-1].view(-1, 6)
    y = text[1:].view(-1, 6)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=False, drop_last=True)
    model = CharCellModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    train(model, loader, optimizer, nn.CrossEntropyLoss())


if __name__ == "__main__":
    main()
    print("OK")
