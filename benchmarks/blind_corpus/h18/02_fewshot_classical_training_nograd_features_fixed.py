"""GG101 (fixed) - classical training of a few-shot classifier.

Same script as the buggy version, but compute_features() is no longer wrapped in
@torch.no_grad(): prototypes and query features keep their graph, so the loss
built in training_epoch() can be backpropagated into the backbone.

Modelled on: https://github.com/sicara/easy-few-shot-learning/issues/55
"""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

DEVICE = "cpu"
N_WAY = 5
IMAGE_SIZE = 16
BATCH_SIZE = 20
N_EPOCHS = 2
LEARNING_RATE = 1e-2
LOSS_FUNCTION = nn.CrossEntropyLoss()


def conv_block(in_ch, out_ch):
    return nn.Sequential(
        nn.Conv2d(in_ch, out_ch, 3, padding=1),
        nn.BatchNorm2d(out_ch),
        nn.ReLU(),
        nn.MaxPool2d(2),
    )


class Backbone(nn.Module):
    def __init__(self, feat_dim=32):
        super().__init__()
        self.encoder = nn.Sequential(conv_block(3, 16), conv_block(16, feat_dim))
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return self.pool(self.encoder(x)).flatten(1)


class FewShotClassifier(nn.Module):
    """Builds class prototypes from a support set and scores queries against them."""

    def __init__(self, backbone, n_classes):
        super().__init__()
        self.backbone = backbone
        self.n_classes = n_classes
        self.prototypes = torch.zeros(n_classes, 32)

    def compute_features(self, images):
        return F.normalize(self.backbone(images), dim=-1)

    def process_support_set(self, support_images, support_labels):
        support_features = self.compute_features(support_images)
        one_hot = F.one_hot(support_labels, self.n_classes).float()
        counts = one_hot.sum(0).clamp(min=1.0).unsqueeze(1)
        self.prototypes = one_hot.t() @ support_features / counts

    def l2_distance_to_prototypes(self, features):
        return -torch.cdist(features, self.prototypes)

    def forward(self, query_images):
        features = self.compute_features(query_images)
        return self.l2_distance_to_prototypes(features) * 10.0


class TransductiveFinetuning(FewShotClassifier):
    """Same scoring rule, only differs at test time (fine-tunes prototypes)."""

    def __init__(self, backbone, n_classes, fine_tuning_steps=3):
        super().__init__(backbone, n_classes)
        self.fine_tuning_steps = fine_tuning_steps


def make_loader():
    images = torch.randn(60, 3, IMAGE_SIZE, IMAGE_SIZE)
    labels = torch.randint(0, N_WAY, (60,))
    return DataLoader(TensorDataset(images, labels), batch_size=BATCH_SIZE, shuffle=True)


def training_epoch(model_, data_loader, optimizer):
    all_loss = []
    model_.train()
    for batch_idx, (images, labels) in enumerate(data_loader):
        optimizer.zero_grad()
        images, labels = images.to(DEVICE), labels.to(DEVICE)
        model_.process_support_set(images, labels)
        loss = LOSS_FUNCTION(model_(images), labels)
        loss.backward()  # fixed: GG101
        optimizer.step()
        all_loss.append(loss.item())
    return sum(all_loss) / len(all_loss)


def main():
    random.seed(0)
    torch.manual_seed(0)
    model = TransductiveFinetuning(Backbone(), n_classes=N_WAY).to(DEVICE)
    train_loader = make_loader()
    train_optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=0.9)
    before = model.backbone.encoder[0][0].weight.detach().clone()
    for epoch in range(N_EPOCHS):
        average_loss = training_epoch(model, train_loader, train_optimizer)
        print(f"Epoch {epoch} - average loss {average_loss:.4f}")
    after = model.backbone.encoder[0][0].weight.detach()
    assert not torch.equal(before, after), "backbone did not train"


if __name__ == "__main__":
    main()
    print("FIXED: ok")
