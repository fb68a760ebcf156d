"""Embeddings made in inference mode by a predictor object the classifier keeps (GG106).

Modelled on https://github.com/deepjavalibrary/djl/issues/2144: a frozen encoder wrapped in
a predictor produced embeddings under `torch.inference_mode()`, and training a head on them
failed with "Inference tensors cannot be saved for backward". Here the predictor is an
instance of a plain class, handed to the classifier's `__init__` and kept on `self`: its
`embed` method is known wherever the classifier's methods call it, so the inference tensor
it returns is known to reach the head's linear layer, which saves its input.
"""

import torch
from torch import nn


class Predictor:
    def __init__(self, encoder):
        self.encoder = encoder

    def embed(self, tokens):
        with torch.inference_mode():
            return self.encoder(tokens).mean(dim=1)


class ReviewClassifier(nn.Module):
    def __init__(self, predictor, dim=16, classes=2):
        super().__init__()
        self.predictor = predictor
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, classes))

    def forward(self, tokens):
        features = self.predictor.embed(tokens)
        return self.head(features)  # expect: GG106


def main():
    torch.manual_seed(0)
    predictor = Predictor(nn.Embedding(100, 16))
    model = ReviewClassifier(predictor)
    optimizer = torch.optim.SGD(model.head.parameters(), lr=0.1)
    tokens, labels = torch.randint(0, 100, (4, 9)), torch.randint(0, 2, (4,))
    loss = nn.functional.cross_entropy(model(tokens), labels)
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as error:
        print("raises:", error)
    else:
        raise SystemExit("expected a RuntimeError")
