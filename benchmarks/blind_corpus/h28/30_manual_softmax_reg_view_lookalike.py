"""Softmax regression that also inspects the gradient w.r.t. its logits.

Modelled on: https://github.com/pytorch/pytorch/issues/1479 (counterpart)

Looks like reading .grad of a computed tensor (the logits, and a reshaped
view of the weights): both are non-leaf tensors.  The logits call
retain_grad() before backward(), so their .grad is populated; the weight
view is only used for the forward pass, while its .grad is read from the
flat leaf parameter it was taken from.
"""
import torch
import torch.nn.functional as F

torch.set_num_threads(1)


def make_data(n=60, d=4, k=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g)
    y = torch.randint(0, k, (n,), generator=g)
    return X, y


class FlatSoftmaxRegression:
    def __init__(self, d, k):
        self.d, self.k = d, k
        self.flat_w = torch.randn(d * k, requires_grad=True)
        self.b = torch.zeros(k, requires_grad=True)

    @property
    def W(self):
        return self.flat_w.view(self.d, self.k)

    def logits(self, X):
        return X @ self.W + self.b


def train(model, X, y, lr=0.1, epochs=8):
    margin_log = []
    for _ in range(epochs):
        logits = model.logits(X)
        logits.retain_grad()
        loss = F.cross_entropy(logits, y)
        loss.backward()
        margin_log.append(logits.grad.abs().sum(1).mean().item())
        with torch.no_grad():
            for p in (model.flat_w, model.b):
                p -= lr * p.grad
                p.grad.zero_()
    return margin_log


if __name__ == "__main__":
    torch.manual_seed(0)
    X, y = make_data()
    log = train(FlatSoftmaxRegression(4, 3), X, y)
    assert len(log) == 8
    print("OK")
