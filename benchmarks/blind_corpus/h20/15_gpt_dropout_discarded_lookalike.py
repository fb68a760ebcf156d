"""GG602 look-alike - calls whose return value is ignored, but which act in place.

The residual helpers call F.dropout(..., inplace=True) on the output of a Linear
layer (Linear does not save its output for backward), and the weight init uses
nn.init.normal_ / zeros_ as statements. All of these modify their argument in
place, so ignoring the return value is correct: dropout really is applied.

Modelled on: https://github.com/evintunador/templateGPT/issues/1
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = dict(vocab=64, dim=32, heads=4, layers=2, seq=16, p=0.3)


class Block(nn.Module):
    def __init__(self, dim, heads, p):
        super().__init__()
        self.p = p
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)
        for lin in (self.fc1, self.fc2):
            nn.init.normal_(lin.weight, std=0.02)
            nn.init.zeros_(lin.bias)

    def attn_connect(self, x):
        h = self.norm1(x)
        mask = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool), 1)
        dx, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        return x + F.dropout(dx, self.p, self.training)

    def mlp_connect(self, x):
        dx = self.fc2(F.gelu(self.fc1(self.norm2(x))))
        F.dropout(dx, self.p, self.training, inplace=True)
        return x + dx

    def forward(self, x):
        return self.mlp_connect(self.attn_connect(x))


class TinyLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.emb = nn.Embedding(c["vocab"], c["dim"])
        self.blocks = nn.Sequential(*[Block(c["dim"], c["heads"], c["p"]) for _ in range(c["layers"])])
        self.head = nn.Linear(c["dim"], c["vocab"])

    def forward(self, tokens):
        return self.head(self.blocks(self.emb(tokens)))


def main():
    torch.manual_seed(0)
    model = TinyLM(CFG)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randint(0, CFG["vocab"], (4, CFG["seq"] + 1))
    model.train()
    for it in range(3):
        logits = model(data[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), data[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"iter {it} loss {loss.item():.4f}")
    a, b = model(data[:2, :-1]), model(data[:2, :-1])
    assert not torch.equal(a, b)


if __name__ == "__main__":
    main()
    print("OK")
