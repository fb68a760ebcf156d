"""A stock-movement model (graph attention over text and price features) whose training uses
`nn.CrossEntropyLoss` on the logits, but whose test function turns the outputs into
probabilities with `F.softmax` and then reports `F.nll_loss` on them: the reporter asks why
it is not `F.log_softmax`, as nll_loss expects. The reported test loss is `-p[y]`.

Source (rewritten in our own words, structure kept): https://github.com/midas-research/man-sf-emnlp/issues/2
- the probabilities are also stored as predictions and used for accuracy, so only the
  loss's input may change: the fix offered takes their log (unsafe).
"""

import torch
import torch.nn.functional as F
from torch import nn


class StockModel(nn.Module):
    def __init__(self, text_dim: int = 8, price_dim: int = 3) -> None:
        super().__init__()
        self.text = nn.Linear(text_dim, 16)
        self.price = nn.Linear(price_dim, 16)
        self.out = nn.Linear(16, 2)

    def forward(self, text, price, adj):
        mixed = torch.relu(self.text(text) + self.price(price))
        return self.out(adj @ mixed)


cross_entropy = nn.CrossEntropyLoss()


def accuracy(output, labels):
    return (output.max(1)[1] == labels).float().mean()


def train_step(model, optimizer, text, price, adj, label):
    model.train()
    optimizer.zero_grad()
    output = model(text, price, adj)
    loss_train = cross_entropy(output, label.max(1)[1])
    loss_train.backward()
    optimizer.step()


def test_dict(model, days, adj):
    model.eval()
    pred_dict = {}
    test_loss, test_acc = [], []
    for date, (text, price, label) in days.items():
        output = model(text, price, adj)
        output = F.softmax(output, dim=1)
        pred_dict[date] = output.cpu().detach().numpy()
        loss_test = F.nll_loss(output, label.max(1)[0])  # expect: GG113
        acc_test = accuracy(output, label.max(1)[1])
        test_loss.append(loss_test.item())
        test_acc.append(acc_test.item())
    return pred_dict, sum(test_loss) / len(test_loss)


def test_fixed(model, days, adj):
    model.eval()
    losses = []
    with torch.no_grad():
        for date, (text, price, label) in days.items():
            output = model(text, price, adj)
            losses.append(F.nll_loss(F.log_softmax(output, dim=1), label.max(1)[1]).item())
    return losses


stock_num = 5
adjacency = torch.eye(stock_num)
net = StockModel()
opt = torch.optim.Adam(net.parameters(), lr=5e-4)
one_hot = F.one_hot(torch.randint(0, 2, (stock_num,)), 2)
train_step(net, opt, torch.randn(stock_num, 8), torch.randn(stock_num, 3), adjacency, one_hot)
days = {"d1": (torch.randn(stock_num, 8), torch.randn(stock_num, 3), one_hot)}
test_dict(net, days, adjacency)
test_fixed(net, days, adjacency)
