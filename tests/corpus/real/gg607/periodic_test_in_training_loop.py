"""A training loop that evaluates every 100 steps and never switches back to training mode.

Source (rewritten in our own words, structure kept):
* https://github.com/tk-rusch/coRNN/issues/1 - `adding/adding_task.py` at commit c08c727:
  `train()` calls `model.train()` once before its step loop, and `test()`, called every 100
  steps inside it, calls `model.eval()`. The maintainer answered that their model has neither
  dropout nor batch norm, so nothing changes, and fixed the code anyway. The model class
  lives in another file here, so GradGuard cannot know that and reports it: a true finding,
  harmless for that particular model.
"""

import argparse

import torch
from torch import nn, optim

import model as models
import utils

parser = argparse.ArgumentParser()
parser.add_argument("--n_hid", type=int, default=128)
parser.add_argument("--T", type=int, default=100)
parser.add_argument("--max_steps", type=int, default=60000)
parser.add_argument("--batch", type=int, default=50)
parser.add_argument("--batch_test", type=int, default=1000)
parser.add_argument("--lr", type=float, default=2e-3)
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = models.CoupledOscillatorRNN(2, args.n_hid, 1).to(device)
objective = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=args.lr)


def test():
    model.eval()
    with torch.no_grad():
        data, label = utils.get_batch(args.T, args.batch_test)
        out = model(data.to(device))
        loss = objective(out, label.unsqueeze(1).to(device))
    return loss.item()


def train():
    model.train()
    test_mse = []
    for i in range(args.max_steps):
        data, label = utils.get_batch(args.T, args.batch)
        optimizer.zero_grad()
        out = model(data.to(device))
        loss = objective(out, label.unsqueeze(1).to(device))
        loss.backward()
        optimizer.step()
        if i % 100 == 0 and i != 0:
            mse = test()  # expect: GG607
            print(f"Test MSE: {mse:.6f}")
            test_mse.append(mse)


if __name__ == "__main__":
    train()
