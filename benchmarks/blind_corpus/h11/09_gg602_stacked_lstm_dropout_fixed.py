"""GG602 - module called in forward() with its result discarded.

Fixed version: the dropout result is assigned back to layer_output.

Mistake (in the buggy file): the hand-written stacked LSTM calls `self.dropout_layer(layer_output)` between
layers but throws the returned tensor away (nn.Dropout is not in-place), and the next
layer keeps reading the undropped `layer_output`. Silent effect: inter-layer dropout is
never applied: in train mode two forward passes on the same input are identical.

Modelled on: https://github.com/jihunchoi/recurrent-batch-normalization-pytorch/issues/13
(multi-layer LSTM loop whose dropout output was assigned to a variable the next layer
never read, so dropout had no effect).
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

PARAMS = {"input_size": 10, "hidden_size": 24, "num_layers": 3, "dropout": 0.5, "classes": 4, "lr": 1e-3}


class StackedLSTM(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, dropout):
        super().__init__()
        self.num_layers = num_layers
        self.hidden_size = hidden_size
        self.cells = nn.ModuleList(
            nn.LSTMCell(input_size if i == 0 else hidden_size, hidden_size) for i in range(num_layers)
        )
        self.dropout_layer = nn.Dropout(dropout)

    def get_cell(self, layer):
        return self.cells[layer]

    @staticmethod
    def _forward_rnn(cell, input_, hx):
        outputs = []
        h, c = hx
        for t in range(input_.size(0)):
            h, c = cell(input_[t], (h, c))
            outputs.append(h)
        return torch.stack(outputs, 0), (h, c)

    def forward(self, input_, hx=None):
        seq_len, batch, _ = input_.shape
        if hx is None:
            zeros = input_.new_zeros(self.num_layers, batch, self.hidden_size)
            hx = (zeros, zeros.clone())
        h_n, c_n = [], []
        layer_output = input_
        for layer in range(self.num_layers):
            cell = self.get_cell(layer)
            hx_layer = (hx[0][layer], hx[1][layer])
            layer_output, (layer_h_n, layer_c_n) = self._forward_rnn(cell, layer_output, hx_layer)
            if layer < self.num_layers - 1:
                layer_output = self.dropout_layer(layer_output)  # fixed: GG602
            h_n.append(layer_h_n)
            c_n.append(layer_c_n)
        return layer_output, (torch.stack(h_n), torch.stack(c_n))


class SeqClassifier(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.rnn = StackedLSTM(p["input_size"], p["hidden_size"], p["num_layers"], p["dropout"])
        self.out = nn.Linear(p["hidden_size"], p["classes"])

    def forward(self, x):
        feats, _ = self.rnn(x.transpose(0, 1))
        return self.out(feats[-1])


def train(model, loader, optimizer, criterion):
    model.train()
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    x = torch.randn(24, 7, PARAMS["input_size"])
    y = torch.randint(0, PARAMS["classes"], (24,))
    model = SeqClassifier(PARAMS)
    loader = DataLoader(TensorDataset(x, y), batch_size=8)
    train(model, loader, torch.optim.Adam(model.parameters(), lr=PARAMS["lr"]), nn.CrossEntropyLoss())
    model.train()
    with torch.no_grad():
        a, b = model(x[:4]), model(x[:4])
    return torch.equal(a, b)


if __name__ == "__main__":
    assert not main(), "dropout still inert"
    print("FIXED: ok")
