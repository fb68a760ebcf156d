"""Category GG301 look-alike - in-place updates of leaf parameters, done under no_grad.

A hand-written logistic-regression-with-hidden-layer model keeps its weights as
plain leaf tensors (requires_grad=True), initialises them in place and applies a
manual SGD update with `w -= lr * w.grad` and `w.grad.zero_()`. All the in-place
writes to the leaves happen inside torch.no_grad(), which is exactly how
autograd expects leaf tensors to be modified, so nothing raises and the weights
change. Expected: runs cleanly.

Modelled on: none found
"""
import math

import torch

IN_DIM, HID_DIM = 8, 16
LR = 0.1
EPOCHS = 5

torch.manual_seed(0)
X = torch.randn(64, IN_DIM)
y = (X[:, 0] + 0.5 * X[:, 1] > 0).float()


class ScratchMLP:
    def __init__(self):
        self.w1 = torch.empty(IN_DIM, HID_DIM, requires_grad=True)
        self.b1 = torch.zeros(HID_DIM, requires_grad=True)
        self.w2 = torch.empty(HID_DIM, 1, requires_grad=True)
        self.b2 = torch.zeros(1, requires_grad=True)
        self.reset_parameters()

    def parameters(self):
        return [self.w1, self.b1, self.w2, self.b2]

    def reset_parameters(self):
        with torch.no_grad():
            bound1 = 1 / math.sqrt(IN_DIM)
            self.w1.uniform_(-bound1, bound1)
            bound2 = 1 / math.sqrt(HID_DIM)
            self.w2.uniform_(-bound2, bound2)

    def __call__(self, x):
        h = torch.relu(x @ self.w1 + self.b1)
        return (h @ self.w2 + self.b2).squeeze(-1)


def sgd_step(params, lr):
    with torch.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad.zero_()


model = ScratchMLP()
start = model.w1.detach().clone()
for epoch in range(EPOCHS):
    for i in range(0, len(X), 16):
        xb, yb = X[i:i + 16], y[i:i + 16]
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(xb), yb)
        loss.backward()
        sgd_step(model.parameters(), LR)
    print(f"epoch {epoch}: loss {loss.item():.4f}")

assert not torch.equal(start, model.w1.detach())
assert model.w1.is_leaf
print("OK")
