"""Trains the detector, then tests it under `@t.no_grad()` (torch imported as `t`): the
conversions in detector.py run with recording off and raise nothing."""
import torch as t
import torch.nn.functional as F

from detector import Detector
from evaluation import score_batches

t.manual_seed(0)
model = Detector()
optimizer = t.optim.SGD(model.parameters(), lr=0.1)


def train(steps):
    for _ in range(steps):
        x = t.randn(8, 4)
        boxes, scores = model(x)
        loss = F.mse_loss(boxes, x) + scores.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@t.no_grad()
def test():
    boxes, scores = model.generate(t.randn(8, 4))
    print("boxes", boxes.shape, "scores", scores.round(2).tolist())


if __name__ == "__main__":
    train(3)
    test()
    print("mean-score", score_batches(model, [t.randn(8, 4) for _ in range(2)]))
