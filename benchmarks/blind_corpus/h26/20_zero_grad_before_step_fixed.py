"""GG605 - fixed: zero_grad() moved before the forward pass, so step() sees the gradients.

A two-layer network with hand-made weight matrices, trained by a small Trainer
class.  The buggy version called optimizer.zero_grad() between backward() and
step(), so step() found no gradients and the weights never moved.  The fix
clears the gradients at the start of train_step().

Modelled on: https://github.com/llSourcell/pytorch_in_5_minutes/issues/1
"""
import torch
import torch.nn as nn

# N is batch size; D_in is input dimension; H is hidden dimension; D_out is output dimension.
N, D_in, H, D_out = 16, 20, 32, 4
LEARNING_RATE = 1e-2
STEPS = 25


class TwoLayerNet(nn.Module):
    def __init__(self, d_in, h, d_out):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(d_in, h) * 0.1)
        self.w2 = nn.Parameter(torch.randn(h, d_out) * 0.1)

    def forward(self, x):
        return x.mm(self.w1).clamp(min=0).mm(self.w2)


class Trainer:
    def __init__(self, model, lr, log_every=5):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.5)
        self.loss_fn = nn.MSELoss(reduction="sum")
        self.log_every = log_every
        self.history = []

    def train_step(self, x, y):
        # clear the gradient buffers so they do not leak into the next step
        self.optimizer.zero_grad()  # fixed: GG605
        y_pred = self.model(x)
        loss = self.loss_fn(y_pred, y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def fit(self, x, y, steps):
        for t in range(steps):
            loss = self.train_step(x, y)
            self.history.append(loss)
            if t % self.log_every == 0:
                print(t, round(loss, 4))
        return self.history


def main():
    torch.manual_seed(0)
    x = torch.randn(N, D_in)
    y = torch.randn(N, D_out)
    model = TwoLayerNet(D_in, H, D_out)
    w1_before = model.w1.detach().clone()
    trainer = Trainer(model, LEARNING_RATE)
    history = trainer.fit(x, y, STEPS)
    return w1_before, model, history


if __name__ == "__main__":
    w1_before, model, history = main()
    assert not torch.equal(w1_before, model.w1.detach())
    assert history[-1] < history[0]
    print("FIXED: ok")
