"""Weight monitoring written by hand: after each epoch a script walks
`model.named_parameters()` and turns every parameter into a NumPy array for a histogram
(`np.histogram(param.numpy())`, `plt.hist(param.view(-1))`). Parameters are leaves that
require grad, so both raise "Can't call numpy() on Tensor that requires grad". The fixed
twin converts `param.detach()` (or `param.data`, as the tensorboardX README did); the
look-alikes convert the gradients, which never require grad.

Sources (rewritten in our own words, structure kept):
* https://github.com/lanpa/tensorboardX/issues/41 - histograms of `named_parameters()`
  converted with `param.clone().cpu().data.numpy()`.
* https://github.com/facebookresearch/detectron2/pull/1265 - a histogram hook over
  `model.named_parameters()` converting `value.data.cpu().numpy()`.
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402

model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 5), torch.randint(0, 2, (16,))
for epoch in range(2):
    loss = nn.functional.cross_entropy(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    for name, param in model.named_parameters():
        try:
            counts, edges = np.histogram(param.numpy(), bins=10)  # expect: GG502
            raise AssertionError("expected an error")
        except RuntimeError as error:
            assert "Can't call numpy() on Tensor that requires grad" in str(error)
        try:
            plt.hist(param.view(-1))  # expect: GG502
            raise AssertionError("expected an error")
        except RuntimeError as error:
            assert "Can't call numpy() on Tensor that requires grad" in str(error)
        counts, edges = np.histogram(param.detach().numpy(), bins=10)
        plt.hist(param.data.view(-1))
        grads, _ = np.histogram(param.grad.numpy(), bins=10)
        print(epoch, name, counts.sum(), grads.sum())
    plt.close()
