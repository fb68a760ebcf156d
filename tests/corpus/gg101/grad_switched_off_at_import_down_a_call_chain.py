"""Recording switched off for the whole process at the top of a module reaches a training
loop several calls away, through functions and methods that take no parameters (GG101).

Reported in 1adrianb/face-alignment#140: importing the landmark package ran
`torch.set_grad_enabled(False)` while it loaded its network, and the importer's own
training stopped building graphs; it took the reporter a while to find why, and the
maintainer moved to a scoped `torch.no_grad()`. Here the same switch sits at the top of
the training script, and `main() -> Trainer.fit() -> Trainer.train_epoch()` reaches the
backward() without any of them receiving the grad mode as an argument.
"""

import torch
from torch import nn

# Loading the landmark detector: no gradients needed for that.
torch.set_grad_enabled(False)  # expect: GG101
detector = nn.Linear(8, 4)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.data = [torch.randn(4, 8) for _ in range(2)]

    def train_epoch(self):
        for x in self.data:
            loss = self.model(x).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def fit(self):
        for _ in range(2):
            self.train_epoch()


def main():
    Trainer(nn.Linear(8, 1)).fit()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as error:
        assert "does not require grad" in str(error), error
    else:
        raise AssertionError("the training loop ran with recording off")
