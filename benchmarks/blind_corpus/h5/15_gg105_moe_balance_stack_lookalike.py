"""Category GG105 look-alike -- correct code.
A small mixture-of-experts classifier adds a load-balancing loss per MoE layer.  The
per-layer balance losses are combined with `torch.stack(...)` (keeps the graph), and
`torch.tensor(...)` is used only on plain Python numbers (class counts -> class
weights, logged expert loads).  backward() works and the gate parameters receive
gradient from the balance term.
Modelled on: https://github.com/laekov/fastmoe/issues/49
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"d": 16, "experts": 4, "layers": 2, "classes": 3, "bs": 16, "steps": 4, "balance_coef": 0.01}


class MoELayer(nn.Module):
    def __init__(self, d, n_experts):
        super().__init__()
        self.gate = nn.Linear(d, n_experts)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(d, d), nn.GELU()) for _ in range(n_experts))
        self.balance_loss = None

    def forward(self, x):
        probs = F.softmax(self.gate(x), dim=-1)
        top = probs.argmax(-1)
        out = torch.stack([e(x) for e in self.experts], dim=1)
        y = (probs.unsqueeze(-1) * out).sum(1)
        load = F.one_hot(top, probs.size(-1)).float().mean(0)
        self.balance_loss = probs.size(-1) * (load * probs.mean(0)).sum()
        return x + y


class MoEClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.ModuleList(MoELayer(cfg["d"], cfg["experts"]) for _ in range(cfg["layers"]))
        self.out = nn.Linear(cfg["d"], cfg["classes"])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.out(x)

    def get_balance_loss(self):
        loss_list = [layer.balance_loss for layer in self.layers]
        return torch.stack(loss_list).sum()


def main():
    torch.manual_seed(0)
    x = torch.randn(64, CFG["d"])
    y = torch.randint(0, CFG["classes"], (64,))
    counts = torch.bincount(y, minlength=CFG["classes"]).tolist()
    class_w = torch.tensor([len(y) / (CFG["classes"] * c) for c in counts])
    model = MoEClassifier(CFG)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(CFG["steps"]):
        idx = torch.randint(0, 64, (CFG["bs"],))
        logits = model(x[idx])
        task = F.cross_entropy(logits, y[idx], weight=class_w)
        bal = model.get_balance_loss()
        loss = task + CFG["balance_coef"] * bal
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: task={task.item():.3f} balance={bal.item():.3f}")
    assert model.layers[0].gate.weight.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
