"""GG108 - Dice loss computed on thresholded predictions.

Mirrors the segmentation_models.pytorch utils layout (functional.f_score,
losses.DiceLoss, train.TrainEpoch).  The user adds a `threshold` argument to
DiceLoss so the loss matches the IoU metric; f_score() then binarises the
prediction with (pr > threshold).type(pr.dtype).  A comparison has no gradient,
so the Dice loss is built from a constant and TrainEpoch.batch_update() fails:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/qubvel-org/segmentation_models.pytorch/pull/611
"""
import sys

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


# ---------------------------------------------------------------- functional
def _threshold(x, threshold=None):
    if threshold is not None:
        return (x > threshold).type(x.dtype)
    return x


def f_score(pr, gt, beta=1, eps=1e-7, threshold=None):
    pr = _threshold(pr, threshold=threshold)
    tp = torch.sum(gt * pr)
    fp = torch.sum(pr) - tp
    fn = torch.sum(gt) - tp
    return ((1 + beta ** 2) * tp + eps) / ((1 + beta ** 2) * tp + beta ** 2 * fn + fp + eps)


def iou(pr, gt, eps=1e-7, threshold=None):
    pr = _threshold(pr, threshold=threshold)
    intersection = torch.sum(gt * pr)
    union = torch.sum(gt) + torch.sum(pr) - intersection + eps
    return (intersection + eps) / union


# ------------------------------------------------------------ losses/metrics
class DiceLoss(nn.Module):
    __name__ = "dice_loss"

    def __init__(self, eps=1.0, beta=1.0, activation=None, threshold=None):
        super().__init__()
        self.eps, self.beta, self.threshold = eps, beta, threshold
        self.activation = nn.Sigmoid() if activation == "sigmoid" else nn.Identity()

    def forward(self, y_pr, y_gt):
        y_pr = self.activation(y_pr)
        return 1 - f_score(y_pr, y_gt, beta=self.beta, eps=self.eps, threshold=self.threshold)


class IoU(nn.Module):
    __name__ = "iou_score"

    def __init__(self, threshold=0.5):
        super().__init__()
        self.threshold = threshold

    def forward(self, y_pr, y_gt):
        return iou(torch.sigmoid(y_pr), y_gt, threshold=self.threshold)


# --------------------------------------------------------------------- train
class Epoch:
    def __init__(self, model, loss, metrics, stage_name, device="cpu", verbose=True):
        self.model, self.loss, self.metrics = model, loss, metrics
        self.stage_name, self.device, self.verbose = stage_name, device, verbose

    def run(self, dataloader):
        self.on_epoch_start()
        logs, loss_sum, metric_sums, n = {}, 0.0, {m.__name__: 0.0 for m in self.metrics}, 0
        for x, y in dataloader:
            x, y = x.to(self.device), y.to(self.device)
            loss, y_pred = self.batch_update(x, y)
            loss_sum += loss.item()
            for metric_fn in self.metrics:
                metric_sums[metric_fn.__name__] += metric_fn(y_pred, y).item()
            n += 1
        logs[self.loss.__name__] = loss_sum / n
        logs.update({k: v / n for k, v in metric_sums.items()})
        if self.verbose:
            sys.stdout.write(f"{self.stage_name}: {logs}\n")
        return logs


class TrainEpoch(Epoch):
    def __init__(self, model, loss, metrics, optimizer, device="cpu", verbose=True):
        super().__init__(model, loss, metrics, "train", device, verbose)
        self.optimizer = optimizer

    def on_epoch_start(self):
        self.model.train()

    def batch_update(self, x, y):
        self.optimizer.zero_grad()
        prediction = self.model.forward(x)
        loss = self.loss(prediction, y)
        loss.backward()  # bug: GG108
        self.optimizer.step()
        return loss, prediction


# --------------------------------------------------------------------- model
class TinyUnet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.mid = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU())
        self.dec = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(16, 8, 3, padding=1), nn.ReLU())
        self.segmentation_head = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        return self.segmentation_head(self.dec(self.mid(self.enc(x))))


def main():
    torch.manual_seed(0)
    images = torch.randn(8, 3, 16, 16)
    masks = (images[:, :1] > 0).float()
    loader = DataLoader(TensorDataset(images, masks), batch_size=4, shuffle=True)
    model = TinyUnet()
    loss = DiceLoss(activation="sigmoid", threshold=0.5)
    metrics = [IoU(threshold=0.5)]
    optimizer = torch.optim.Adam([dict(params=model.parameters(), lr=1e-3)])
    train_epoch = TrainEpoch(model, loss=loss, metrics=metrics, optimizer=optimizer)
    for i in range(2):
        print(f"\nEpoch: {i}")
        train_epoch.run(loader)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
