"""GG113 look-alike - softmax probabilities mixed, then logged before nll_loss.

Category: GG113 (look-alike, correct code).
A mixture-of-experts classifier must average *probabilities* (not logits):
each expert's softmax output is weighted by a softmax gate, and the mixture
is passed through torch.log before F.nll_loss.  The auxiliary per-expert
loss uses log_softmax + nll_loss directly.  So softmax outputs appear right
next to nll_loss, but nll_loss always receives log-probabilities.
Modelled on: none found (mixture-of-experts / mixture density idiom)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class MoEClassifier(nn.Module):
    def __init__(self, d_in=12, n_experts=3, n_classes=4, hidden=16):
        super().__init__()
        self.gate = nn.Linear(d_in, n_experts)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(),
                                                    nn.Linear(hidden, n_classes))
                                      for _ in range(n_experts)])

    def forward(self, x):
        gate = F.softmax(self.gate(x), dim=1)                                   # (B, E)
        expert_logits = torch.stack([e(x) for e in self.experts], dim=1)       # (B, E, C)
        expert_probs = F.softmax(expert_logits, dim=-1)
        mixture = (gate.unsqueeze(-1) * expert_probs).sum(1)                   # (B, C)
        return mixture, expert_logits, gate


def moe_loss(mixture, expert_logits, y, aux_weight=0.1):
    """NLL of the probability mixture plus a per-expert auxiliary NLL."""
    main = F.nll_loss(torch.log(mixture.clamp(min=1e-8)), y)
    b, e, c = expert_logits.shape
    aux = F.nll_loss(F.log_softmax(expert_logits, dim=-1).reshape(b * e, c), y.repeat_interleave(e))
    return main + aux_weight * aux, main


def main():
    torch.manual_seed(0)
    x, y = torch.randn(48, 12), torch.randint(0, 4, (48,))
    model = MoEClassifier()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(3):
        for xb, yb in DataLoader(TensorDataset(x, y), batch_size=12, shuffle=True):
            mixture, expert_logits, gate = model(xb)
            loss, main_loss = moe_loss(mixture, expert_logits, yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: nll {main_loss.item():.4f} gate entropy "
              f"{-(gate * gate.clamp(min=1e-8).log()).sum(1).mean().item():.3f}")
        assert main_loss.item() > 0


if __name__ == "__main__":
    main()
    print("OK")
