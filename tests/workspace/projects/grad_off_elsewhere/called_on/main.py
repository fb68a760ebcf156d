"""The look-alike: the test calls `generate` and `score` with recording on (no
`no_grad` anywhere), so detector.py's `.numpy()` calls raise: GradGuard reports them."""
import torch

from detector import Detector

torch.manual_seed(0)
model = Detector()


def test():
    boxes, scores = model.generate(torch.randn(8, 4))
    print("boxes", boxes.shape, "scores", scores.round(2).tolist())


if __name__ == "__main__":
    try:
        test()
    except RuntimeError as error:
        print("generate raised:", error)
    print("scores", model.score(torch.randn(8, 4)).round(2).tolist())
