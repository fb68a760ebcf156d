"""GG402 - requires_grad=True on a tensor with an integer dtype.

To compute a saliency map for a text classifier, the user turns the token ids into a tensor
with requires_grad=True, hoping to read ids.grad afterwards. Token ids are int64 and
integer tensors cannot require gradients, so tensor creation fails with:
    RuntimeError: Only Tensors of floating point and complex dtype can require gradients
"""
import torch
import torch.nn as nn

VOCAB = {w: i for i, w in enumerate("<pad> the movie was great awful boring fun plot acting".split())}


def tokenize(text, max_len=8):
    ids = [VOCAB.get(w, 0) for w in text.lower().split()][:max_len]
    return ids + [0] * (max_len - len(ids))


class BagOfEmbeddings(nn.Module):
    def __init__(self, vocab_size, dim=8):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.classifier = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 2))

    def embed(self, ids):
        return self.embedding(ids)

    def forward_embeds(self, embeds, mask):
        pooled = (embeds * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True).clamp_min(1)
        return self.classifier(pooled)

    def forward(self, ids):
        return self.forward_embeds(self.embed(ids), (ids != 0).float())


def quick_train(model, texts, labels, steps=50):
    x = torch.tensor([tokenize(t) for t in texts])
    y = torch.tensor(labels)
    opt = torch.optim.Adam(model.parameters(), lr=5e-2)
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


def saliency(model, text):
    model.eval()
    ids = torch.tensor([tokenize(text)], requires_grad=True)  # bug: GG402
    embeds = model.embed(ids)
    logits = model.forward_embeds(embeds, (ids != 0).float())
    logits[0, logits.argmax()].backward()
    scores = embeds.grad.norm(dim=-1) if embeds.grad is not None else ids.grad
    return {w: s.item() for w, s in zip(text.split(), scores[0])}


def main():
    torch.manual_seed(0)
    model = BagOfEmbeddings(len(VOCAB))
    texts = ["the movie was great", "the plot was boring", "great fun acting", "awful boring movie"]
    print(f"train loss {quick_train(model, texts, [1, 0, 1, 0]):.4f}")
    sal = saliency(model, "the acting was great fun")
    print({w: round(s, 4) for w, s in sal.items()})
    return sal


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
