"""Helpers shared by the scripts of this project."""
import torch.nn.functional as F


def classification_loss(logits, labels):
    return F.cross_entropy(logits, labels)
