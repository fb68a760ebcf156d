"""GG108 look-alike - argmax and comparisons near the loss, but not inside it.

A BiLSTM sequence tagger with padding. The padding mask comes from a comparison
(tags != PAD) and is cast to float, and argmax is used for token accuracy. The
loss itself is the per-token cross entropy (differentiable in the logits)
multiplied by the float mask, so backward() works and the model learns.

Modelled on: https://github.com/LZGMatrix/BOP19_CDPN_2019ICCV/issues/4 (take the loss before argmax)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = -1
HP = {"vocab": 50, "emb": 16, "hidden": 24, "n_tags": 4, "lr": 5e-3, "steps": 25, "batch": 8, "max_len": 7}


class BiLSTMTagger(nn.Module):
    def __init__(self, vocab, emb, hidden, n_tags):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * hidden, n_tags)

    def forward(self, tokens):
        out, _ = self.lstm(self.emb(tokens))
        return self.proj(out)


def make_batch(hp):
    lengths = torch.randint(3, hp["max_len"] + 1, (hp["batch"],))
    tokens = torch.randint(1, hp["vocab"], (hp["batch"], hp["max_len"]))
    tags = tokens % hp["n_tags"]
    pad = torch.arange(hp["max_len"]).unsqueeze(0) >= lengths.unsqueeze(1)
    tokens[pad] = 0
    tags[pad] = PAD
    return tokens, tags


def masked_loss_and_acc(logits, tags):
    mask = (tags != PAD).float()
    safe_tags = tags.clamp(min=0)
    per_tok = F.cross_entropy(logits.transpose(1, 2), safe_tags, reduction="none")
    loss = (per_tok * mask).sum() / mask.sum()
    correct = ((logits.argmax(-1) == safe_tags).float() * mask).sum() / mask.sum()
    return loss, correct.item()


def main():
    torch.manual_seed(0)
    model = BiLSTMTagger(HP["vocab"], HP["emb"], HP["hidden"], HP["n_tags"])
    optimizer = torch.optim.Adam(model.parameters(), lr=HP["lr"])
    first = None
    for step in range(HP["steps"]):
        tokens, tags = make_batch(HP)
        loss, acc = masked_loss_and_acc(model(tokens), tags)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        first = loss.item() if first is None else first
    print(f"loss {first:.3f} -> {loss.item():.3f}, token acc {acc:.2f}")
    assert loss.item() < first


if __name__ == "__main__":
    main()
    print("OK")
