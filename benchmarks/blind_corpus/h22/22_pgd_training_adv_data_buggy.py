"""Category GG401 - requires_grad set on a tensor computed from tensors that require grad.

A PGD adversarial-training defence class. adv_data() runs the projected gradient
attack by turning on requires_grad of the running adversarial image at the top of
every attack step. After the first step x_adv is the result of arithmetic on the
previous x_adv (which required grad), so it is no longer a leaf, and flipping its
flag fails with:
    RuntimeError: you can only change requires_grad flags of leaf variables.

Modelled on: https://github.com/DSE-MSU/DeepRobust/issues/36
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 3 * 3, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


class PGDtraining:
    def __init__(self, model, device="cpu"):
        self.model = model.to(device)
        self.device = device

    def generate(self, train_loader, epochs=1, lr=0.01, epsilon=0.3, num_steps=4, perturb_step_size=0.1):
        self.epsilon, self.num_steps, self.step_size = epsilon, num_steps, perturb_step_size
        optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
        for epoch in range(epochs):
            self.train(train_loader, optimizer, epoch)
            scheduler.step()
        return self.model

    def train(self, train_loader, optimizer, epoch):
        self.model.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            data, target = data.to(self.device), target.to(self.device)
            data_adv, output = self.adv_data(data, target)
            loss = F.cross_entropy(output, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"epoch {epoch} batch {batch_idx}: adv loss {loss.item():.4f}")

    def adv_data(self, data, target):
        self.model.eval()
        x_adv = data.clone() + torch.empty_like(data).uniform_(-self.epsilon, self.epsilon)
        x_adv = torch.clamp(x_adv, 0.0, 1.0)
        for _ in range(self.num_steps):
            x_adv.requires_grad = True  # bug: GG401
            loss = F.cross_entropy(self.model(x_adv), target)
            grad = torch.autograd.grad(loss, x_adv)[0]
            x_adv = x_adv + self.step_size * grad.sign()
            eta = torch.clamp(x_adv - data, -self.epsilon, self.epsilon)
            x_adv = torch.clamp(data + eta, 0.0, 1.0)
        self.model.train()
        output = self.model(x_adv)
        return x_adv, output


if __name__ == "__main__":
    torch.manual_seed(0)
    images = torch.rand(16, 1, 12, 12)
    labels = torch.randint(0, 10, (16,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=8, shuffle=True)
    defense = PGDtraining(SmallCNN())
    try:
        defense.generate(loader, epochs=1)
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        sys.exit(0)
    raise SystemExit("NO BUG")
