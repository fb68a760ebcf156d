"""Input-gradient attribution for a bag-of-words (count vector) classifier.

Modelled on: https://github.com/pytorch/pytorch/issues/7021 (counterpart)

Looks like the failing explainer: the input is built from integer token ids
(torch.bincount returns an int64 tensor) and `.requires_grad_(True)` is called
on the model input to get per-word gradients.  But the counts are converted to
float32 first, so the tensor that requires grad is floating point, and the
classifier consumes it through a Linear layer, which is differentiable in it.
"""
import argparse

import torch
import torch.nn as nn


def get_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=100)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--classes", type=int, default=3)
    return p.parse_args(argv)


class CountClassifier(nn.Module):
    def __init__(self, vocab, hidden, classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(vocab, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, counts):
        return self.net(torch.log1p(counts))


def tokenize(sentence, vocab):
    return torch.tensor([sum(map(ord, w)) % (vocab - 1) + 1 for w in sentence.split()])


def count_vectors(sentences, vocab):
    rows = [torch.bincount(tokenize(s, vocab), minlength=vocab) for s in sentences]
    return torch.stack(rows)


class CountAttribution:
    def __init__(self, model):
        self.model = model.eval()

    def word_attribution(self, counts, target):
        features = counts.to(torch.float32).requires_grad_(True)
        logits = self.model(features)
        score = logits.gather(1, target.unsqueeze(1)).sum()
        score.backward()
        return features.grad * features.detach()


def main(argv=None):
    torch.manual_seed(0)
    args = get_args(argv)
    model = CountClassifier(args.vocab, args.hidden, args.classes)
    counts = count_vectors(["the film was great fun fun", "a dull and tedious plot"], args.vocab)
    with torch.no_grad():
        target = model(counts.float()).argmax(1)
    return CountAttribution(model).word_attribution(counts, target), counts


if __name__ == "__main__":
    attr, counts = main([])
    assert counts.dtype == torch.int64 and attr.shape == counts.shape
    print("OK")
