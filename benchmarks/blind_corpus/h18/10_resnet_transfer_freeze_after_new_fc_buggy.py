"""GG104 - transfer learning freezes the model after the new classifier was attached.

A ResNet "dogs vs cats" transfer-learning script loads pretrained weights,
replaces model.fc with a 2-class Linear layer, and only then runs the usual
`for param in model.parameters(): param.requires_grad = False` loop.  The loop
also freezes the new head, so no parameter of the model requires grad and the
first backward() in train() fails:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/bentrevett/pytorch-image-classification/issues/1
"""
import os
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 1234
BATCH_SIZE = 8
OUTPUT_DIM = 2
N_EPOCHS = 1
device = torch.device("cpu")


class BasicBlock(nn.Module):
    def __init__(self, in_ch, out_ch, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.downsample = None
        if stride != 1 or in_ch != out_ch:
            self.downsample = nn.Sequential(nn.Conv2d(in_ch, out_ch, 1, stride, bias=False), nn.BatchNorm2d(out_ch))

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16)
        self.layer2 = BasicBlock(16, 32, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def pretrained_resnet(ckpt_dir):
    """Pretend download: save an 'ImageNet' checkpoint and load it back."""
    path = os.path.join(ckpt_dir, "resnet_imagenet.pt")
    torch.save(ResNet(num_classes=1000).state_dict(), path)
    model = ResNet(num_classes=1000)
    model.load_state_dict(torch.load(path))
    return model


def calculate_accuracy(fx, y):
    preds = fx.max(1, keepdim=True)[1]
    return preds.eq(y.view_as(preds)).sum().float() / preds.shape[0]


def train(model, iterator, optimizer, criterion, device):
    epoch_loss, epoch_acc = 0, 0
    model.train()
    for x, y in iterator:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        fx = model(x)
        loss = criterion(fx, y)
        acc = calculate_accuracy(fx, y)
        loss.backward()  # bug: GG104
        optimizer.step()
        epoch_loss += loss.item()
        epoch_acc += acc.item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


def evaluate(model, iterator, criterion, device):
    epoch_loss, epoch_acc = 0, 0
    model.eval()
    with torch.no_grad():
        for x, y in iterator:
            fx = model(x.to(device))
            epoch_loss += criterion(fx, y.to(device)).item()
            epoch_acc += calculate_accuracy(fx, y).item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


torch.manual_seed(SEED)
ckpt_dir = tempfile.mkdtemp(prefix="resnet_tl_")
train_data = TensorDataset(torch.randn(24, 3, 16, 16), torch.randint(0, OUTPUT_DIM, (24,)))
valid_data = TensorDataset(torch.randn(8, 3, 16, 16), torch.randint(0, OUTPUT_DIM, (8,)))
train_iterator = DataLoader(train_data, shuffle=True, batch_size=BATCH_SIZE)
valid_iterator = DataLoader(valid_data, batch_size=BATCH_SIZE)

model = pretrained_resnet(ckpt_dir)
in_features = model.fc.in_features
model.fc = nn.Linear(in_features, OUTPUT_DIM)

for param in model.parameters():
    param.requires_grad = False

model = model.to(device)
optimizer = torch.optim.Adam(model.parameters())
criterion = nn.CrossEntropyLoss().to(device)


if __name__ == "__main__":
    best_valid_loss = float("inf")
    try:
        for epoch in range(N_EPOCHS):
            start_time = time.time()
            train_loss, train_acc = train(model, train_iterator, optimizer, criterion, device)
            valid_loss, valid_acc = evaluate(model, valid_iterator, criterion, device)
            if valid_loss < best_valid_loss:
                best_valid_loss = valid_loss
                torch.save(model.state_dict(), os.path.join(ckpt_dir, "resnet-dogs-cats.pt"))
            print(f"| Epoch: {epoch+1:02} | Train Loss: {train_loss:.3f} | Train Acc: {train_acc*100:05.2f}% "
                  f"| Val. Loss: {valid_loss:.3f} | Val. Acc: {valid_acc*100:05.2f}% | {time.time()-start_time:.1f}s")
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
