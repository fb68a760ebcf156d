"""Category GG402 look-alike - gradients around integer token ids, taken on float tensors.

Integrated-gradients attributions for a bag-of-embeddings sentiment model. The
token ids stay int64 and never require grad; the attribution is computed with
respect to the (float) embedding output, which is detached and marked
requires_grad, and the interpolation coefficients are built from an integer
literal list but with dtype=torch.float32 before requires_grad=True.
Expected: runs cleanly.

Modelled on: none found
"""
import torch
import torch.nn as nn

VOCAB, DIM, STEPS = 40, 8, 6


class BagOfEmbeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.fc = nn.Linear(DIM, 2)

    def forward_from_embeddings(self, embeds):
        return self.fc(embeds.mean(dim=1))

    def forward(self, ids):
        return self.forward_from_embeddings(self.emb(ids))


def integrated_gradients(model, ids, target, steps=STEPS):
    ids = torch.as_tensor(ids, dtype=torch.long)
    baseline = torch.zeros(ids.size(0), ids.size(1), DIM)
    embeds = model.emb(ids).detach().requires_grad_(True)
    alphas = torch.tensor(list(range(1, steps + 1)), dtype=torch.float32, requires_grad=True) / steps
    total = torch.zeros_like(embeds)
    for a in alphas:
        point = baseline + a * (embeds - baseline)
        score = model.forward_from_embeddings(point)[torch.arange(ids.size(0)), target].sum()
        grad, = torch.autograd.grad(score, embeds)
        total += grad
    return ((embeds - baseline) * total / steps).sum(-1).detach()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = BagOfEmbeddings()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(3):
        ids = torch.randint(0, VOCAB, (8, 5))
        y = torch.randint(0, 2, (8,))
        loss = nn.functional.cross_entropy(model(ids), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    sentence = [[3, 17, 22, 5, 9]]
    attributions = integrated_gradients(model, sentence, torch.tensor([1]))
    assert attributions.shape == (1, 5)
    print("OK")
