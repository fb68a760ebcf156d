"""GG402 look-alike - requires_grad on tensors built from integer-looking values.

torch.arange and torch.tensor of whole numbers are given an explicit floating dtype (or
float literals) before requires_grad is set, so they are legitimate leaves. The integer
tensors in the script (class labels, position indices) never require grad.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LearnedFrequencyEncoding(nn.Module):
    def __init__(self, n_freqs=4):
        super().__init__()
        self.freqs = nn.Parameter(torch.arange(1, n_freqs + 1, dtype=torch.float32))
        self.phase = nn.Parameter(torch.tensor([0, 0, 0, 0]).float())

    def forward(self, positions):
        angles = positions.float().unsqueeze(-1) * self.freqs + self.phase
        return torch.cat([angles.sin(), angles.cos()], dim=-1)


def main():
    torch.manual_seed(0)
    enc = LearnedFrequencyEncoding()
    head = nn.Linear(8, 3)
    temperature = torch.tensor(1.0, requires_grad=True)
    class_weights = torch.tensor([1, 2, 1], dtype=torch.float32, requires_grad=True)
    opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()) + [temperature], lr=1e-2)

    positions = torch.arange(0, 32)            # int64, no requires_grad
    labels = torch.tensor([p % 3 for p in range(32)])  # int64 targets
    for step in range(50):
        logits = head(enc(positions)) / temperature
        loss = F.cross_entropy(logits, labels, weight=class_weights.detach())
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert enc.freqs.grad is not None and temperature.grad is not None
    assert positions.dtype == torch.int64 and not positions.requires_grad
    print(f"loss {loss.item():.4f} freqs {enc.freqs.data.tolist()}")


if __name__ == "__main__":
    main()
    print("OK")
