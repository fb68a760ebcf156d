"""A matching network whose attention module already applies softmax to the similarities,
and whose forward then computes `F.cross_entropy` on those probabilities: softmax twice.
The reviewer suggests removing the first softmax.

Source (rewritten in our own words, structure kept): https://github.com/gitabcworld/MatchingNetworks/issues/5
- `AttentionalClassify` (softmax over similarities, then a weighted sum of support labels)
called from `MatchingNetwork.forward`, which returns the accuracy and the loss.
"""

import torch
import torch.nn.functional as F
from torch import nn


class AttentionalClassify(nn.Module):
    def forward(self, similarities, support_set_y):
        softmax_similarities = F.softmax(similarities, dim=-1)
        return softmax_similarities.bmm(support_set_y).squeeze(0)


class MatchingNetwork(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.g = nn.Linear(6, 6)
        self.classify = AttentionalClassify()

    def forward(self, support_x, support_y_one_hot, target_x, target_y):
        support = self.g(support_x)
        target = self.g(target_x)
        similarities = target @ support.transpose(0, 1)
        preds = self.classify(similarities.unsqueeze(0), support_y_one_hot.unsqueeze(0))
        accuracy = (preds.argmax(dim=-1) == target_y).float().mean()
        loss = F.cross_entropy(preds, target_y)  # missed: GG110
        return accuracy, loss


def episode_loss(g, support_x, support_y, target_x, target_y):
    """The softmax and the loss side by side, in one function."""
    similarities = g(target_x) @ g(support_x).transpose(0, 1)
    attention = F.softmax(similarities, dim=-1)
    return F.cross_entropy(attention, target_y)  # expect: GG110


def episode_loss_fixed(g, support_x, support_y, target_x, target_y):
    similarities = g(target_x) @ g(support_x).transpose(0, 1)
    return F.cross_entropy(similarities, target_y)


net = MatchingNetwork()
support_x = torch.randn(5, 6)
support_y = F.one_hot(torch.arange(5), 5).float()
acc, loss = net(support_x, support_y, torch.randn(1, 6), torch.tensor([2]))
loss.backward()
episode_loss(net.g, support_x, support_y, torch.randn(3, 6), torch.tensor([0, 1, 2])).backward()
episode_loss_fixed(net.g, support_x, support_y, torch.randn(3, 6), torch.tensor([0, 1, 2])).backward()
