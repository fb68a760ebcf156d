"""A small GAN script shows a generated sample every epoch: it transposes the generator's
output with `np.transpose(fake[0], (1, 2, 0))` to put the channels last for `plt.imshow`;
numpy converts the tensor with `Tensor.numpy()`, and the sample requires grad (it came out
of the generator with gradients on): "Can't call numpy() on Tensor that requires grad". The
fixed twin detaches (and moves to the CPU) first; the look-alikes transpose data that never
required grad.

Sources (rewritten in our own words, structure kept):
* https://tutorialreference.com/python/examples/faq/python-pytorch-error-runtimeerror-cant-call-numpy-on-tensor-that-requires-grad-detach
  - converting a generated tensor for Matplotlib raises the error.
* https://androidkt.com/fix-cant-call-numpy-on-tensor-that-requires-grad-use-tensor-detach-numpy-instead/
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402


class Generator(nn.Module):
    def __init__(self, z_dim=8):
        super().__init__()
        self.fc = nn.Linear(z_dim, 3 * 4 * 4)

    def forward(self, z):
        return torch.tanh(self.fc(z)).view(-1, 3, 4, 4)


generator = Generator()
discriminator = nn.Sequential(nn.Flatten(), nn.Linear(48, 1))
g_opt = torch.optim.Adam(generator.parameters(), lr=2e-4)
real = torch.rand(2, 3, 4, 4)
for epoch in range(2):
    fake = generator(torch.randn(2, 8))
    g_loss = nn.functional.binary_cross_entropy_with_logits(
        discriminator(fake), torch.ones(2, 1)
    )
    g_opt.zero_grad()
    g_loss.backward()
    g_opt.step()
    try:
        plt.imshow(np.transpose(fake[0], (1, 2, 0)) * 0.5 + 0.5)  # expect: GG502
        raise AssertionError("expected an error")
    except RuntimeError as error:
        assert "Can't call numpy() on Tensor that requires grad" in str(error)
    plt.imshow(np.transpose(fake[0].detach().cpu(), (1, 2, 0)) * 0.5 + 0.5)
    plt.imshow(np.transpose(real[0], (1, 2, 0)))
    with torch.no_grad():
        sample = generator(torch.randn(1, 8))
    plt.imshow(np.transpose(sample[0], (1, 2, 0)))
    plt.close()
