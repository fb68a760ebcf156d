"""GG113 look-alike - softmax mixture, but log() taken before nll_loss.

A pointer-generator decoder step mixes a softmax vocabulary distribution with a
softmax copy distribution. Since the result is a probability mixture it cannot
use log_softmax directly, so the code takes torch.log(final_dist + eps) before
F.nll_loss. nll_loss therefore receives log-probabilities. Correct code.

Modelled on: none found (pointer-generator summarisation loss).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"vocab": 40, "emb": 16, "hidden": 32, "src_len": 7, "tgt_len": 5, "batch": 4, "lr": 5e-3, "steps": 8}
EPS = 1e-12


class PointerGenerator(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.emb = nn.Embedding(c["vocab"], c["emb"])
        self.encoder = nn.GRU(c["emb"], c["hidden"], batch_first=True)
        self.decoder = nn.GRUCell(c["emb"], c["hidden"])
        self.attn = nn.Linear(c["hidden"], c["hidden"], bias=False)
        self.vocab_proj = nn.Linear(2 * c["hidden"], c["vocab"])
        self.p_gen = nn.Linear(2 * c["hidden"], 1)

    def step(self, prev_tok, state, enc_out, src):
        state = self.decoder(self.emb(prev_tok), state)
        scores = torch.bmm(enc_out, self.attn(state).unsqueeze(2)).squeeze(2)
        attn = F.softmax(scores, dim=1)
        context = torch.bmm(attn.unsqueeze(1), enc_out).squeeze(1)
        feat = torch.cat([state, context], dim=1)
        vocab_dist = F.softmax(self.vocab_proj(feat), dim=1)
        p_gen = torch.sigmoid(self.p_gen(feat))
        copy_dist = torch.zeros_like(vocab_dist).scatter_add(1, src, attn)
        return p_gen * vocab_dist + (1 - p_gen) * copy_dist, state

    def forward(self, src, tgt):
        enc_out, h = self.encoder(self.emb(src))
        state, prev = h[-1], torch.zeros(src.size(0), dtype=torch.long)
        step_losses = []
        for t in range(tgt.size(1)):
            final_dist, state = self.step(prev, state, enc_out, src)
            step_losses.append(F.nll_loss(torch.log(final_dist + EPS), tgt[:, t]))
            prev = tgt[:, t]
        return torch.stack(step_losses).mean()


def main():
    torch.set_num_threads(1)
    torch.manual_seed(12)
    src = torch.randint(1, CFG["vocab"], (CFG["batch"], CFG["src_len"]))
    tgt = src[:, :CFG["tgt_len"]].clone()
    model = PointerGenerator(CFG)
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    losses = []
    for step in range(CFG["steps"]):
        loss = model(src, tgt)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 2.0)
        opt.step()
        losses.append(loss.item())
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    assert all(v > 0 for v in losses) and losses[-1] < losses[0]


if __name__ == "__main__":
    main()
    print("OK")
