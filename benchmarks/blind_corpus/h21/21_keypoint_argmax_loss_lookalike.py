"""GG108 look-alike - argmax and comparisons feed indices/masks, not the loss value.

A token tagger uses argmax for accuracy, a comparison `(labels != PAD)` as a
float mask, and the argmax index to gather the top logit for a confidence
penalty. Each loss term still depends on the logits through differentiable ops
(cross_entropy, gather, multiplication by a mask), so backward() works.
Nothing is wrong here.

Modelled on: https://github.com/pytorch/pytorch/issues/1339
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 0
VOCAB, TAGS, EMB = 30, 5, 16


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
        self.rnn = nn.GRU(EMB, EMB, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * EMB, TAGS)

    def forward(self, tokens):
        h, _ = self.rnn(self.emb(tokens))
        return self.out(h)


def compute_loss(logits, labels):
    mask = (labels != PAD).float()
    ce = F.cross_entropy(logits.transpose(1, 2), labels, reduction="none")
    ce = (ce * mask).sum() / mask.sum()
    top = logits.argmax(dim=-1, keepdim=True)
    top_logit = logits.gather(-1, top).squeeze(-1)
    penalty = (F.relu(top_logit - 5.0) * mask).mean()
    return ce + 0.1 * penalty


def accuracy(logits, labels):
    mask = labels != PAD
    return ((logits.argmax(-1) == labels) & mask).sum().item() / mask.sum().item()


def main():
    torch.manual_seed(0)
    model = Tagger()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    tokens = torch.randint(1, VOCAB, (8, 12))
    labels = torch.randint(1, TAGS, (8, 12))
    labels[:, 9:] = PAD
    for step in range(4):
        logits = model(tokens)
        loss = compute_loss(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f} acc {accuracy(logits, labels):.2f}")
    assert model.out.weight.grad is not None


if __name__ == "__main__":
    main()
    print("OK")
