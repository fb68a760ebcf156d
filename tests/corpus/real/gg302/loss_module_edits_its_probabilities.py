"""A multi-label loss module takes the classifier's logits, turns them into probabilities
with `sigmoid` and then overwrites the probabilities of ignored labels in place
(`probs[ignore] = 0.5`) before the binary cross-entropy. The loss module has no weights of
its own: its input requires grad because the classifier's output does, so sigmoid kept its
output and `loss.backward()` raises "one of the variables needed for gradient computation
has been modified by an inplace operation: [...] output 0 of SigmoidBackward0".

The same module fed with inputs that need no grad (a frozen teacher's scores, evaluated for
logging) runs: nothing was saved, and the look-alike below stays silent.

Source (rewritten in our own words, structure kept):
https://github.com/wutong16/DistributionBalancedLoss/issues/20 (a re-balanced multi-label
loss raising the error on SigmoidBackward0) and https://github.com/pytorch/pytorch/issues/9391
(`b = a.sigmoid(); b[1] = 2` fails in backward).
"""

import torch
from torch import nn


class IgnoringBCELoss(nn.Module):
    def __init__(self, neutral: float = 0.5) -> None:
        super().__init__()
        self.neutral = neutral

    def forward(self, cls_score, label, ignore):
        probs = torch.sigmoid(cls_score)
        probs[ignore] = self.neutral  # expect: GG302
        return nn.functional.binary_cross_entropy(probs, label)


def train_step(model, optimizer, x, label, ignore):
    criterion = IgnoringBCELoss()
    optimizer.zero_grad()
    loss = criterion(model(x), label, ignore)
    loss.backward()
    optimizer.step()


def teacher_agreement(teacher_scores, label, ignore):
    """Scores that need no grad: the in-place change breaks nothing."""
    criterion = IgnoringBCELoss()
    return criterion(teacher_scores, label, ignore).item()


if __name__ == "__main__":
    net = nn.Linear(4, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x, label = torch.randn(2, 4), torch.randint(0, 2, (2, 3)).float()
    ignore = torch.tensor([[True, False, False], [False, False, True]])
    try:
        train_step(net, opt, x, label, ignore)
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("expected the in-place error")
    print(teacher_agreement(torch.randn(2, 3), label, ignore))
