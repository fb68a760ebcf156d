"""A trainable embedding made from pretrained vectors, swapped into the model after the
optimizer was built (GG604).

A text classifier's trainer builds its optimizer over `model.parameters()`, then loads
pretrained vectors: `nn.Embedding.from_pretrained(vectors, freeze=False)` makes a new
layer whose weight requires grad, and the optimizer does not hold it, so fine-tuning the
vectors never happens (checked with torch 2.13.0 below: the weight has a gradient and does
not change). `freeze=True`, the default, makes a layer that is not meant to train at all.
What `freeze` does is the point users trip over in
https://github.com/RUCAIBox/RecBole/issues/2046 (pretrained embeddings that never trained);
the stale optimizer is this rule's usual shape, here written in our own words.

The look-alikes: the frozen default, and the optimizer built after the swap.
"""

import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        return self.head(self.embedding(tokens).mean(1))


def fine_tuned(vectors, tokens, labels):
    model = Classifier(*vectors.shape, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model.embedding = nn.Embedding.from_pretrained(vectors, freeze=False)  # expect: GG604
    before = model.embedding.weight.detach().clone()
    loss = nn.functional.cross_entropy(model(tokens), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return torch.equal(before, model.embedding.weight)


def frozen(vectors, tokens, labels):
    model = Classifier(*vectors.shape, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    model.embedding = nn.Embedding.from_pretrained(vectors)
    loss = nn.functional.cross_entropy(model(tokens), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def built_after(vectors, tokens, labels):
    model = Classifier(*vectors.shape, 3)
    model.embedding = nn.Embedding.from_pretrained(vectors, freeze=False)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    before = model.embedding.weight.detach().clone()
    loss = nn.functional.cross_entropy(model(tokens), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return torch.equal(before, model.embedding.weight)


if __name__ == "__main__":
    torch.manual_seed(0)
    vectors, tokens, labels = torch.randn(10, 4), torch.randint(0, 10, (6, 5)), torch.randint(0, 3, (6,))
    assert fine_tuned(vectors, tokens, labels), "the stale optimizer leaves the vectors as they were"
    frozen(vectors, tokens, labels)
    assert not built_after(vectors, tokens, labels)
    print("BUGGY: the pretrained vectors never train")
