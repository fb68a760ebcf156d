"""GG403 look-alike - .grad read on non-leaf tensors that called retain_grad().

Saliency / embedding-gradient analysis for a small text classifier: the
embedding output (a non-leaf) calls ``retain_grad()`` before backward, so reading
its ``.grad`` afterwards is valid; the input-gain vector is a leaf made with
``.detach().view(...).requires_grad_()`` (reshaped *before* it becomes a leaf).
Reads .grad of computed-looking tensors, all populated; runs cleanly.

Modelled on: https://github.com/pytorch/pytorch/issues/19778
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, EMB, HID, N_CLASSES, SEQ = 50, 16, 24, 3, 7


class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.encoder = nn.LSTM(EMB, HID, batch_first=True)
        self.out = nn.Linear(HID, N_CLASSES)

    def forward(self, tokens, emb_gain=None, keep_emb=None):
        emb = self.embedding(tokens)
        if keep_emb is not None:
            emb.retain_grad()
            keep_emb.append(emb)
        if emb_gain is not None:
            emb = emb * emb_gain
        _, (h, _) = self.encoder(emb)
        return self.out(h[-1])


def token_saliency(model, tokens, labels):
    model.zero_grad()
    kept = []
    loss = F.cross_entropy(model(tokens, keep_emb=kept), labels)
    loss.backward()
    emb = kept[0]
    assert not emb.is_leaf and emb.grad is not None
    return emb.grad.norm(dim=-1)


def fit_embedding_gain(model, tokens, labels, steps=3, lr=0.1):
    base = torch.ones(EMB)
    gain = base.detach().view(1, 1, EMB).requires_grad_()
    for _ in range(steps):
        loss = F.cross_entropy(model(tokens, emb_gain=gain), labels)
        loss.backward()
        with torch.no_grad():
            gain -= lr * gain.grad
            gain.grad = None
    return gain.detach()


def main():
    torch.manual_seed(0)
    model = TextClassifier()
    tokens = torch.randint(0, VOCAB, (4, SEQ))
    labels = torch.randint(0, N_CLASSES, (4,))
    sal = token_saliency(model, tokens, labels)
    print("most salient positions:", sal.argmax(dim=1).tolist())
    gain = fit_embedding_gain(model, tokens, labels)
    print("gain mean:", round(gain.mean().item(), 4))


if __name__ == "__main__":
    main()
    print("OK")
