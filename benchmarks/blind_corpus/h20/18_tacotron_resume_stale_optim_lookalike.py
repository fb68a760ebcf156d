"""GG604 look-alike - optimizer created first, model changed afterwards, but only in place.

After building the optimizer the script resumes from a checkpoint with
model.load_state_dict(...) and optimizer.load_state_dict(...), then calls
model.to(device). Both load_state_dict and Module.to() copy into the existing
Parameter objects, so the optimizer keeps referring to the live parameters and
every one of them is updated.

Modelled on: https://github.com/r9y9/tacotron_pytorch/issues/18
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

HP = dict(n_vocab=30, emb=16, hidden=24, mels=8, lr=2e-3, steps=3)


class Tacotron(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(HP["n_vocab"], HP["emb"])
        self.encoder = nn.GRU(HP["emb"], HP["hidden"], batch_first=True)
        self.mel_proj = nn.Linear(HP["hidden"], HP["mels"])

    def forward(self, text):
        enc, _ = self.encoder(self.embedding(text))
        return self.mel_proj(enc)


class Checkpointer:
    def __init__(self, directory):
        self.path = os.path.join(directory, "last.pth")

    def save(self, model, optimizer, step):
        torch.save({"model": model.state_dict(), "opt": optimizer.state_dict(), "step": step}, self.path)

    def restore(self, model, optimizer):
        state = torch.load(self.path)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["opt"])
        return state["step"]


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    ckpt = Checkpointer(tempfile.mkdtemp())
    earlier = Tacotron()
    ckpt.save(earlier, torch.optim.Adam(earlier.parameters(), lr=HP["lr"]), 500)

    model = Tacotron()
    optimizer = torch.optim.Adam(model.parameters(), lr=HP["lr"])
    step = ckpt.restore(model, optimizer)
    model.to(device)

    before = model.embedding.weight.detach().clone()
    for s in range(step, step + HP["steps"]):
        text = torch.randint(0, HP["n_vocab"], (4, 10), device=device)
        loss = F.l1_loss(model(text), torch.randn(4, 10, HP["mels"], device=device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"step {s} loss {loss.item():.4f}")
    assert not torch.equal(before, model.embedding.weight.detach())


if __name__ == "__main__":
    main()
    print("OK")
