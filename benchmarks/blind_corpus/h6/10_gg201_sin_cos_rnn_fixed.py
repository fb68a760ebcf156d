"""GG201 (fixed): RNN hidden state carried into the next step without detaching.
Fixed version: the carried state is cut from the old graph (truncated BPTT).

Mistake: a tutorial-style script regresses cos(t) from sin(t) with an nn.RNN, feeding
each window's final hidden state into the next window so the sequence is continuous.
The carried h_state still belongs to the previous window's graph, which the previous
loss.backward() already freed; the second backward walks back into it.
Error raised by torch: RuntimeError: Trying to backward through the graph a second time
(or directly access saved tensors after they have already been freed) ...
Modelled on: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
"""
import math
import sys

import torch
from torch import nn

torch.manual_seed(1)

# Hyper Parameters
TIME_STEP = 10      # rnn time step
INPUT_SIZE = 1      # rnn input size
LR = 0.02           # learning rate
N_WINDOWS = 6


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(input_size=INPUT_SIZE, hidden_size=32, num_layers=1, batch_first=True)
        self.out = nn.Linear(32, 1)

    def forward(self, x, h_state):
        # x (batch, time_step, input_size), h_state (n_layers, batch, hidden_size)
        r_out, h_state = self.rnn(x, h_state)
        outs = [self.out(r_out[:, t, :]) for t in range(r_out.size(1))]
        return torch.stack(outs, dim=1), h_state


def window(step):
    start, end = step * math.pi, (step + 1) * math.pi
    t = torch.linspace(start, end, TIME_STEP)
    x = torch.sin(t)[None, :, None]
    y = torch.cos(t)[None, :, None]
    return x, y


def run():
    rnn = RNN()
    optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)
    loss_func = nn.MSELoss()
    h_state = None  # initial hidden state
    for step in range(N_WINDOWS):
        x, y = window(step)
        prediction, h_state = rnn(x, h_state)
        h_state = h_state.detach()  # fixed: GG201
        loss = loss_func(prediction, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"window {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    run()
    print("FIXED: ok")
