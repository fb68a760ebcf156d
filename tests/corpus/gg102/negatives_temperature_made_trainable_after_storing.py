"""A tensor stored on `self` in `__init__`, then made trainable by a later statement: the
entropy temperature of soft actor-critic. No GG102.

`self.log_alpha = torch.tensor(np.log(alpha))` stores a leaf without history, and the next
statement sets `self.log_alpha.requires_grad = True` (or calls `requires_grad_()`); the
temperature loss built from it in another method has a graph. The shape of
seungeunrho/minimalRL's sac.py (c8efed8, `PolicyNet.__init__` and `train_net`), where
GradGuard read the attribute as the untracked tensor of its first store.
"""

import numpy as np
import torch
from torch import nn, optim


class Policy(nn.Module):
    def __init__(self, init_alpha=0.01, lr_alpha=1e-3):
        super().__init__()
        self.fc = nn.Linear(3, 1)
        self.log_alpha = torch.tensor(np.log(init_alpha))
        self.log_alpha.requires_grad = True
        self.alpha_optimizer = optim.Adam([self.log_alpha], lr=lr_alpha)

    def train_temperature(self, log_prob, target_entropy=-1.0):
        self.alpha_optimizer.zero_grad()
        alpha_loss = -(self.log_alpha.exp() * (log_prob + target_entropy).detach()).mean()
        alpha_loss.backward()
        self.alpha_optimizer.step()


class Temperature:
    def __init__(self):
        self.log_alpha = torch.zeros(1)
        self.log_alpha.requires_grad_()

    def loss(self, log_prob):
        return -(self.log_alpha * log_prob.detach()).mean()


if __name__ == "__main__":
    Policy().train_temperature(torch.randn(4, 1))
    Temperature().loss(torch.randn(4)).backward()
    print("both temperatures trained")
