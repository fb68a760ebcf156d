"""Another program in the same repository: it exports a model of its own, and calls its
`generate` and `score` under `torch.no_grad()`. No chain of imports joins it to
detector.py or main.py, so it cannot run their code: detector.py's findings stay."""
import torch
from torch import nn


class Exporter(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 2)

    def generate(self, x):
        return self.layer(x)

    def score(self, x):
        return self.generate(x).sum(1)


if __name__ == "__main__":
    exporter = Exporter()
    with torch.no_grad():
        print("exported", exporter.generate(torch.randn(3, 4)).shape)
        print("predicted", exporter.score(torch.randn(3, 4)).shape)
