"""GG113 - probabilities (softmax output) passed to NLLLoss.

Text classifier written in the "model owns its training loop" style: the
Transformer model ends with nn.Softmax, and run_epoch() uses the NLLLoss that was
registered with add_loss_op(). NLLLoss expects log-probabilities; given plain
probabilities it just returns -p[target], so no error is raised but the loss is
always negative (between -1 and 0) and the gradients have the wrong scale.
Shown below: every training loss logged is < 0.

Modelled on: https://github.com/AnubhavGupta3377/Text-Classification-Models-Pytorch/issues/9
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Config(object):
    vocab_size = 60
    d_model = 32
    n_heads = 4
    d_ff = 64
    max_len = 12
    output_size = 4
    dropout = 0.1
    lr = 1e-3
    max_epochs = 3
    batch_size = 16


class Transformer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_model)
        self.pos = nn.Parameter(torch.randn(1, config.max_len, config.d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(config.d_model, config.n_heads, config.d_ff, config.dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.fc = nn.Linear(config.d_model, config.output_size)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        h = self.encoder(self.embed(x) + self.pos)
        return self.softmax(self.fc(h[:, 0, :]))

    def add_optimizer(self, optimizer):
        self.optimizer = optimizer

    def add_loss_op(self, loss_op):
        self.loss_op = loss_op

    def run_epoch(self, train_iterator, epoch):
        train_losses = []
        self.train()
        for i, (x, y) in enumerate(train_iterator):
            self.optimizer.zero_grad()
            y_pred = self(x)
            loss = self.loss_op(y_pred, y)  # bug: GG113
            loss.backward()
            self.optimizer.step()
            train_losses.append(loss.item())
        print(f"Epoch {epoch}: mean train loss {sum(train_losses) / len(train_losses):.4f}")
        return train_losses


def make_iterator(config, n=64):
    x = torch.randint(0, config.vocab_size, (n, config.max_len))
    y = x[:, 0] % config.output_size
    return DataLoader(TensorDataset(x, y), batch_size=config.batch_size, shuffle=True)


def main():
    torch.manual_seed(0)
    config = Config()
    model = Transformer(config)
    model.add_optimizer(torch.optim.Adam(model.parameters(), lr=config.lr))
    model.add_loss_op(nn.NLLLoss())
    all_losses = []
    train_iterator = make_iterator(config)
    for epoch in range(config.max_epochs):
        all_losses += model.run_epoch(train_iterator, epoch)
    return all_losses


if __name__ == "__main__":
    losses = main()
    if all(l < 0 for l in losses):
        print(f"BUGGY: all {len(losses)} NLL losses are negative (max {max(losses):.3f}); softmax, not log_softmax")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
