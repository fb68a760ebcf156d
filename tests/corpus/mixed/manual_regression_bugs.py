"""Linear regression written by hand, as in a first autograd tutorial; six planted mistakes.

* the weights are scaled after `requires_grad=True`, so they are not leaves and SGD refuses them;
  and because that scaling happens once, before the loop, the second `loss.backward()` goes
  back through its graph, freed by the first one ("backward through the graph a second time");
* the integer class weights ask for gradients;
* a misspelled `require_grad` keyword;
* the manual update changes a leaf that requires grad in place, outside `no_grad`;
* `.grad` of an intermediate tensor is read although it was never asked to keep its gradient: it is None.
"""

import torch

torch.manual_seed(0)
x = torch.randn(64, 5)
true_w = torch.tensor([[1.0], [-2.0], [0.5], [0.0], [3.0]])
y = x @ true_w + 0.1

w = torch.randn(5, 1, requires_grad=True) * 0.01  # expect: GG405
b = torch.zeros(1, requires_grad=True)
optimizer = torch.optim.SGD([w, b], lr=0.05)
counts = torch.tensor([3, 1, 1], requires_grad=True)  # expect: GG402
bias_scale = torch.ones(1, require_grad=True)  # expect: GG404

for step in range(100):
    hidden = x @ w
    loss = ((hidden + b * bias_scale - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()  # expect: GG202
    b -= 0.05 * b.grad  # expect: GG301
    optimizer.step()
    if step % 20 == 0:
        print(step, loss.item(), hidden.grad.norm())  # expect: GG403
