"""GG102 look-alike - .item(), float() and .numpy() used only for logging.

A regression script computes an SNR metric in numpy from detached outputs,
keeps float(loss) for early stopping and stores loss.item() in a history list.
The backward() call is made on the tensor loss itself, which still has its
graph, so training works. Nothing is wrong here.

Modelled on: https://github.com/pranaymanocha/PerceptualAudio/issues/14
"""
import numpy as np
import torch
import torch.nn as nn

SEQ_LEN = 128
BATCH = 6
EPOCHS = 4
PATIENCE = 3

torch.manual_seed(0)


class Smoother(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(1, 6, 5, padding=2), nn.ReLU(),
            nn.Conv1d(6, 1, 5, padding=2),
        )

    def forward(self, x):
        return self.body(x.unsqueeze(1)).squeeze(1)


def snr_db(pred, ref):
    noise = np.mean((pred - ref) ** 2) + 1e-8
    return 10.0 * np.log10(np.mean(ref ** 2) / noise)


def make_batch():
    t = torch.linspace(0, 1, SEQ_LEN)
    clean = torch.sin(2 * np.pi * 7 * t).repeat(BATCH, 1)
    return clean + 0.2 * torch.randn(BATCH, SEQ_LEN), clean


model = Smoother()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.MSELoss()
history, best, bad_epochs = [], float("inf"), 0
first_weight = model.body[0].weight.detach().clone()

for epoch in range(EPOCHS):
    noisy, clean = make_batch()
    out = model(noisy)
    loss = criterion(out, clean)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    history.append(loss.item())
    snr = snr_db(out.detach().cpu().numpy(), clean.numpy())
    current = float(loss)
    print(f"epoch {epoch}: mse {current:.4f} snr {snr:.2f} dB")
    if current < best:
        best, bad_epochs = current, 0
    else:
        bad_epochs += 1
        if bad_epochs >= PATIENCE:
            break

assert not torch.equal(first_weight, model.body[0].weight)
print("OK")
