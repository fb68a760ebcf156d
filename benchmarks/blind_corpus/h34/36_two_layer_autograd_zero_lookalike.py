"""Two-layer network with raw autograd tensors and gradient-norm logging.

Modelled on: https://github.com/jcjohnson/pytorch-examples/pull/11 (counterpart)

Look-alike: gradients are still cleared at the top of each iteration, before
``backward()``, as in the report, but the helper skips parameters whose
``.grad`` is still None (first iteration); the gradient norms are only read
after ``backward()`` has run.
"""
import torch


class TwoLayerNet:
    def __init__(self, D_in, H, D_out):
        self.w1 = torch.randn(D_in, H, requires_grad=True)
        self.w2 = torch.randn(H, D_out, requires_grad=True)

    def params(self):
        return [self.w1, self.w2]

    def forward(self, x):
        return x.mm(self.w1).clamp(min=0).mm(self.w2)


def zero_grads(params):
    for p in params:
        if p.grad is not None:
            p.grad.zero_()


def grad_norm(params):
    return sum(p.grad.norm() ** 2 for p in params).sqrt().item()


def fit(model, x, y, steps=50, learning_rate=1e-6):
    norms = []
    for t in range(steps):
        loss = (model.forward(x) - y).pow(2).sum()
        zero_grads(model.params())
        loss.backward()
        norms.append(grad_norm(model.params()))
        with torch.no_grad():
            for p in model.params():
                p -= learning_rate * p.grad
    return norms


if __name__ == "__main__":
    torch.manual_seed(0)
    norms = fit(TwoLayerNet(100, 50, 10), torch.randn(64, 100), torch.randn(64, 10))
    assert len(norms) == 50
    print("OK")
