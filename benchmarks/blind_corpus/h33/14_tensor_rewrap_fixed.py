"""Fixed: per-layer decoupling losses combined with torch.stack (keeps the graph).

Modelled on: https://github.com/thuml/predrnn-pytorch/issues/11

The reporter printed PredRNN-V2's decouple_loss and found requires_grad was
False.  The per-layer losses were gathered in a list and turned into a tensor
with torch.tensor(...), which copies the values and drops their history.  The
total loss still backpropagates through the MSE term, so training runs, but
the memory-decoupling adapter never receives a gradient.  The maintainer's
fix was torch.mean(torch.stack(decouple_loss, dim=0)).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Cell(nn.Module):
    def __init__(self, hid):
        super().__init__()
        self.conv_h = nn.Conv2d(hid, hid, 3, padding=1)
        self.conv_m = nn.Conv2d(hid, hid, 3, padding=1)

    def forward(self, h, m):
        return torch.tanh(self.conv_h(h)), torch.tanh(self.conv_m(m))


class RNN(nn.Module):
    def __init__(self, num_layers=2, hid=4):
        super().__init__()
        self.cells = nn.ModuleList([Cell(hid) for _ in range(num_layers)])
        self.adapter = nn.Conv2d(hid, hid, 1, bias=False)
        self.out = nn.Conv2d(hid, 1, 1)
        self.hid = hid

    def forward(self, frames, target):
        b, t, _, hgt, wid = frames.shape
        h = frames.new_zeros(b, self.hid, hgt, wid)
        m = frames.new_zeros(b, self.hid, hgt, wid)
        preds, decouple_loss = [], []
        for step in range(t):
            h = h + frames[:, step]
            for cell in self.cells:
                dh, dm = cell(h, m)
                h, m = h + dh, m + dm
                decouple_loss.append(torch.abs(F.cosine_similarity(
                    self.adapter(dh).flatten(1), self.adapter(dm).flatten(1), dim=1)).mean())
            preds.append(self.out(h))
        pred = torch.stack(preds, 1)
        decouple = torch.mean(torch.stack(decouple_loss, dim=0))
        return pred, F.mse_loss(pred, target) + 0.1 * decouple


def train_step(model, opt, batch):
    frames, target = batch
    opt.zero_grad()
    _, loss = model(frames, target)
    loss.backward()
    opt.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = RNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    batch = (torch.randn(2, 3, 1, 8, 8).expand(2, 3, 4, 8, 8).contiguous(), torch.randn(2, 3, 1, 8, 8))
    train_step(model, opt, batch)
    g = model.adapter.weight.grad
    assert g is not None and g.abs().sum() > 0
    print("FIXED: ok")
