"""A VAE trainer that converts its loss dict with a dict comprehension, then backpropagates
an entry of the converted dict.

`step()` computes `{"total": ..., "recon": ..., "kl": ...}` and keeps a float copy for the
history, `{name: float(value) for name, value in losses.items()}`, but then calls
`backward()` on `logged["total"]`, a Python float: "'float' object has no attribute
'backward'" (checked with torch 2.13.0). Every value of a dict comprehension is what its
value expression gives.

Silent: the same trainer backpropagating the tensor dict's entry and logging the converted
copy. Modelled on a blind-corpus case (a VAE trainer's loss dict converted for the history,
after the reports of the "element 0 of tensors does not require grad" family), written anew
for this corpus.
"""

import torch
from torch import nn


class TinyVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.Linear(6, 4)
        self.decode = nn.Linear(2, 6)

    def forward(self, x):
        mu, logvar = self.encode(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * (0.5 * logvar).exp()
        return self.decode(z), mu, logvar


def losses_of(model, x):
    recon, mu, logvar = model(x)
    rec = nn.functional.mse_loss(recon, x)
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).mean()
    return {"total": rec + kl, "recon": rec, "kl": kl}


def step(model, optimizer, x, history):
    losses = losses_of(model, x)
    logged = {name: float(value) for name, value in losses.items()}  # expect: GG102
    history.append(logged)
    optimizer.zero_grad()
    logged["total"].backward()
    optimizer.step()


def step_kept(model, optimizer, x, history):
    losses = losses_of(model, x)
    history.append({name: value.item() for name, value in losses.items()})
    optimizer.zero_grad()
    losses["total"].backward()
    optimizer.step()


def main():
    model = TinyVAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    history = []
    try:
        step(model, optimizer, torch.randn(8, 6), history)
    except AttributeError as error:
        assert "backward" in str(error)
    else:
        raise AssertionError("expected backward on a float to fail")
    step_kept(model, optimizer, torch.randn(8, 6), history)


if __name__ == "__main__":
    main()
