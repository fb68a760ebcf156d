"""GG609 look-alike - clipping with a GradScaler, unscaled in a helper first.

A GRU seq2seq trainer with AMP (CPU bfloat16 autocast + GradScaler) and
gradient accumulation.  At the accumulation boundary it calls
clip_and_step(), which first calls scaler.unscale_(optimizer) and only then
clip_grad_norm_, followed by scaler.step/update.  The norm that clipping sees
is the real gradient norm.  Runs cleanly.

Modelled on: none found (correct counterpart of the clip-before-unscale bug)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"vocab": 20, "hid": 32, "src_len": 7, "tgt_len": 6, "batch": 8, "accum": 2, "steps": 4, "max_norm": 0.5, "lr": 1e-3}


class Seq2Seq(nn.Module):
    def __init__(self, vocab, hid):
        super().__init__()
        self.emb = nn.Embedding(vocab, hid)
        self.encoder = nn.GRU(hid, hid, batch_first=True)
        self.decoder = nn.GRU(hid, hid, batch_first=True)
        self.proj = nn.Linear(hid, vocab)

    def forward(self, src, tgt_in):
        _, h = self.encoder(self.emb(src))
        out, _ = self.decoder(self.emb(tgt_in), h)
        return self.proj(out)


def clip_and_step(model, optimizer, scaler, max_norm):
    scaler.unscale_(optimizer)
    total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return total_norm.item()


def random_batch(cfg):
    src = torch.randint(1, cfg["vocab"], (cfg["batch"], cfg["src_len"]))
    tgt = torch.randint(1, cfg["vocab"], (cfg["batch"], cfg["tgt_len"] + 1))
    return src, tgt


def train(model, optimizer, scaler, cfg):
    norms = []
    optimizer.zero_grad(set_to_none=True)
    for step in range(cfg["steps"]):
        src, tgt = random_batch(cfg)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(src, tgt[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, cfg["vocab"]), tgt[:, 1:].reshape(-1)) / cfg["accum"]
        scaler.scale(loss).backward()
        if (step + 1) % cfg["accum"] == 0:
            norms.append(clip_and_step(model, optimizer, scaler, cfg["max_norm"]))
            print(f"step {step + 1}: loss={loss.item() * cfg['accum']:.4f} grad_norm={norms[-1]:.4f}")
    return norms


def main():
    torch.manual_seed(0)
    model = Seq2Seq(CFG["vocab"], CFG["hid"])
    optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16)
    norms = train(model, optimizer, scaler, CFG)
    assert all(n < 100.0 for n in norms), norms


if __name__ == "__main__":
    main()
    print("OK")
