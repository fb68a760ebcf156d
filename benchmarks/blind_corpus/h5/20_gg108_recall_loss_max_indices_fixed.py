"""Category GG108 -- backward() through argmax-style indices and comparisons only.
Status: fixed -- true positives are counted with softmax probabilities (a soft
recall) instead of hard predictions.
A segmentation "recall loss" module takes the predicted class map with
`_, predict = torch.max(input, 1)` and counts true positives with `predict == target`
comparisons turned into floats.  Recall computed this way is piecewise constant: the
whole loss depends on the network only through indices and comparisons, has no
grad_fn, and backward() raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/shuaizzZ/Recall-Loss-PyTorch/issues/1
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_CLASSES, IMG, BATCH, EPOCHS, LR = 3, 12, 4, 1, 1e-3


class RecallLoss(nn.Module):
    def __init__(self, weight=None, smooth=1e-5):
        super().__init__()
        self.smooth = smooth
        if weight is not None:
            self.register_buffer("weight", torch.as_tensor(weight, dtype=torch.float))
        else:
            self.weight = None

    def forward(self, input, target):
        N, C = input.shape[:2]
        probs = torch.softmax(input, 1).view(N, C, -1)
        target = target.view(N, 1, -1)
        onehot = torch.zeros(N, C, probs.size(-1)).scatter_(1, target, 1)
        true_positive = (onehot * probs).sum(dim=2)
        total_target = onehot.sum(dim=2)
        recall = (true_positive + self.smooth) / (total_target + self.smooth)
        if self.weight is not None:
            recall = recall * self.weight * C
        return 1 - recall.mean()


class FCN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.layers = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                                    nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.ReLU(),
                                    nn.Conv2d(16, n_classes, 1))

    def forward(self, x):
        return self.layers(x)


def train_one_epoch(model, loader, criterion, optimizer, epoch):
    model.train()
    running = 0.0
    for step, (img, mask) in enumerate(loader):
        optimizer.zero_grad()
        loss = criterion(model(img), mask)
        loss.backward()  # fixed: GG108
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch}: recall loss {running / len(loader):.4f}")


def main():
    torch.manual_seed(0)
    img = torch.rand(8, 3, IMG, IMG)
    mask = torch.randint(0, N_CLASSES, (8, IMG, IMG))
    loader = DataLoader(TensorDataset(img, mask), batch_size=BATCH, shuffle=True)
    model = FCN(N_CLASSES)
    criterion = RecallLoss(weight=[0.2, 0.4, 0.4])
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
    for epoch in range(EPOCHS):
        train_one_epoch(model, loader, criterion, optimizer, epoch)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
