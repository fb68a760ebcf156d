"""Script shapes of the pytorch/examples repository (https://github.com/pytorch/examples,
mnist/main.py and dcgan/main.py), rewritten, with the two bugs people most often introduce
into them: a dropped `optimizer.zero_grad()` and a dropped `fake.detach()`.

The model and the optimizer reach `train` as parameters from `main`; batches are moved with
`data.to(device)` (a call on an unknown value that cannot clear gradients); the GAN's
networks pick `nn.parallel.data_parallel` or a direct call on one branch of `forward`.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3)
        self.fc = nn.Linear(8 * 26 * 26, 10)

    def forward(self, x):
        x = F.relu(self.conv(x))
        return F.log_softmax(self.fc(torch.flatten(x, 1)), dim=1)


def train(log_every, model, device, loader, optimizer, epoch):
    model.train()
    for index, (data, target) in enumerate(loader):  # expect: GG601
        data, target = data.to(device), target.to(device)
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if index % log_every == 0:
            print("epoch {} batch {} loss {:.4f}".format(epoch, index, loss.item()))


def train_clearing(log_every, model, device, loader, optimizer, epoch):
    model.train()
    for index, (data, target) in enumerate(loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()


def train_with_hook(model, loader, optimizer, before_step):
    for data, target in loader:
        loss = F.nll_loss(model(data), target)
        loss.backward()
        before_step(model)
        optimizer.step()


def main():
    device = torch.device("cpu")
    model = Classifier().to(device)
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    loader = [(torch.randn(4, 1, 28, 28), torch.randint(0, 10, (4,)))]
    for epoch in range(1, 3):
        train(10, model, device, loader, optimizer, epoch)
        train_clearing(10, model, device, loader, optimizer, epoch)
        train_with_hook(model, loader, optimizer, lambda m: m.zero_grad())


class Generator(nn.Module):
    def __init__(self, gpus):
        super().__init__()
        self.gpus = gpus
        self.main = nn.Sequential(nn.Linear(16, 32), nn.ReLU(True), nn.Linear(32, 8), nn.Tanh())

    def forward(self, z):
        if z.is_cuda and self.gpus > 1:
            out = nn.parallel.data_parallel(self.main, z, range(self.gpus))
        else:
            out = self.main(z)
        return out


class Discriminator(nn.Module):
    def __init__(self, gpus):
        super().__init__()
        self.gpus = gpus
        self.main = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())

    def forward(self, x):
        if x.is_cuda and self.gpus > 1:
            out = nn.parallel.data_parallel(self.main, x, range(self.gpus))
        else:
            out = self.main(x)
        return out.view(-1)


generator = Generator(1)
discriminator = Discriminator(1)
criterion = nn.BCELoss()
opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4)
opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4)
batches = [torch.randn(4, 8)]

for epoch in range(2):
    for real in batches:
        discriminator.zero_grad()
        real_loss = criterion(discriminator(real), torch.ones(4))
        real_loss.backward()
        fake = generator(torch.randn(4, 16))
        fake_loss = criterion(discriminator(fake), torch.zeros(4))
        fake_loss.backward()  # expect: GG202
        opt_d.step()
        generator.zero_grad()
        gen_loss = criterion(discriminator(fake), torch.ones(4))
        gen_loss.backward()
        opt_g.step()

for epoch in range(2):
    for real in batches:
        discriminator.zero_grad()
        real_loss = criterion(discriminator(real), torch.ones(4))
        real_loss.backward()
        fake = generator(torch.randn(4, 16))
        fake_loss = criterion(discriminator(fake.detach()), torch.zeros(4))
        fake_loss.backward()
        opt_d.step()
        generator.zero_grad()
        gen_loss = criterion(discriminator(fake), torch.ones(4))
        gen_loss.backward()
        opt_g.step()

if __name__ == "__main__":
    main()
