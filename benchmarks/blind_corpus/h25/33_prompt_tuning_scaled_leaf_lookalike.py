"""GG405 look-alike - scaled / moved tensors given to the optimizer, all still leaves.

Prompt tuning of a frozen tiny transformer: the soft prompt is created as
`(torch.randn(...) * init_std).to(device).requires_grad_()` and a per-task
logit scale as `nn.Parameter(torch.ones(1) * 10)`.  Scaling and `.to(device)`
next to requires_grad is exactly the shape of "optimizer given a non-leaf",
but here every arithmetic op happens *before* requires_grad is switched on (or
inside the nn.Parameter constructor), so both tensors are leaves and the
optimizer accepts and updates them.

Modelled on: https://github.com/pytorch/pytorch/issues/38198 (correct counterpart)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = dict(vocab=40, dim=16, n_prompt=5, classes=3, seq=7, batch=6, steps=3, lr=3e-2, init_std=0.02)


class FrozenEncoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layer = nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, batch_first=True)

    def forward(self, tokens, prompt):
        x = self.embed(tokens)
        x = torch.cat([prompt.unsqueeze(0).expand(x.size(0), -1, -1), x], dim=1)
        return self.layer(x)[:, 0]


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    encoder = FrozenEncoder(CFG["vocab"], CFG["dim"]).to(device)
    encoder.requires_grad_(False)
    soft_prompt = (torch.randn(CFG["n_prompt"], CFG["dim"]) * CFG["init_std"]).to(device).requires_grad_()
    logit_scale = nn.Parameter(torch.ones(1, device=device) * 10.0)
    label_emb = nn.Parameter(torch.randn(CFG["classes"], CFG["dim"], device=device) * 0.1)
    optimizer = torch.optim.Adam([soft_prompt, logit_scale, label_emb], lr=CFG["lr"])
    start = soft_prompt.detach().clone()
    for step in range(CFG["steps"]):
        tokens = torch.randint(0, CFG["vocab"], (CFG["batch"], CFG["seq"]), device=device)
        labels = torch.randint(0, CFG["classes"], (CFG["batch"],), device=device)
        feats = F.normalize(encoder(tokens, soft_prompt), dim=-1)
        logits = logit_scale * feats @ F.normalize(label_emb, dim=-1).t()
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss={loss.item():.4f} scale={logit_scale.item():.3f}")
    assert soft_prompt.is_leaf and not torch.equal(start, soft_prompt.detach())


if __name__ == "__main__":
    main()
    print("OK")
