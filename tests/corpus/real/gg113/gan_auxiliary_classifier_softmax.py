"""An auxiliary-classifier GAN whose discriminator ends its class head with `nn.Softmax`,
while training scores that head with `nn.NLLLoss`, which expects log-probabilities: the class
loss is `-p[y]` instead of `-log p[y]`. The reporter and a pull request propose `LogSoftmax`
("CrossEntropyLoss = LogSoftmax + NLLLoss").

Source (rewritten in our own words, structure kept): https://github.com/clvrai/ACGAN-PyTorch/issues/3
and https://github.com/clvrai/ACGAN-PyTorch/pull/4
- the discriminator returns two heads as a tuple `(realfake, classes)` and the training loop
  unpacks it: each element keeps the activation its `forward` ended it with; a
  discriminator whose class head is its own module is found too. The fixed discriminator
  (`LogSoftmax` in the tuple) is the look-alike.
"""

import torch
from torch import nn


class Discriminator(nn.Module):
    def __init__(self, features: int = 32, num_classes: int = 10) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(features, 64), nn.LeakyReLU(0.2))
        self.fc_dis = nn.Linear(64, 1)
        self.fc_aux = nn.Linear(64, num_classes)
        self.softmax = nn.Softmax(dim=1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, images):
        flat = self.body(images)
        classes = self.softmax(self.fc_aux(flat))
        realfake = self.sigmoid(self.fc_dis(flat)).view(-1, 1).squeeze(1)
        return realfake, classes


class FixedDiscriminator(Discriminator):
    def __init__(self, features: int = 32, num_classes: int = 10) -> None:
        super().__init__(features, num_classes)
        self.log_softmax = nn.LogSoftmax(dim=1)

    def forward(self, images):
        flat = self.body(images)
        return self.sigmoid(self.fc_dis(flat)).view(-1, 1).squeeze(1), self.log_softmax(
            self.fc_aux(flat)
        )


class ClassHead(nn.Module):
    def __init__(self, features: int = 32, num_classes: int = 10) -> None:
        super().__init__()
        self.fc_aux = nn.Linear(features, num_classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, flat):
        return self.softmax(self.fc_aux(flat))


class FixedClassHead(nn.Module):
    def __init__(self, features: int = 32, num_classes: int = 10) -> None:
        super().__init__()
        self.fc_aux = nn.Linear(features, num_classes)
        self.log_softmax = nn.LogSoftmax(dim=1)

    def forward(self, flat):
        return self.log_softmax(self.fc_aux(flat))


def discriminator_step(batches):
    netD = Discriminator()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    dis_criterion = nn.BCELoss()
    aux_criterion = nn.NLLLoss()
    for real, label in batches:
        netD.zero_grad()
        dis_output, aux_output = netD(real)
        dis_errD_real = dis_criterion(dis_output, torch.ones(real.size(0)))
        aux_errD_real = aux_criterion(aux_output, label)  # expect: GG113
        errD_real = dis_errD_real + aux_errD_real
        errD_real.backward()
        optimizerD.step()


def class_head_step(batches):
    head = ClassHead()
    optimizer = torch.optim.Adam(head.parameters(), lr=2e-4, betas=(0.5, 0.999))
    aux_criterion = nn.NLLLoss()
    for features, label in batches:
        head.zero_grad()
        aux_output = head(features)
        aux_err = aux_criterion(aux_output, label)  # expect: GG113
        aux_err.backward()
        optimizer.step()
        accuracy = (aux_output.argmax(dim=1) == label).float().mean()
        print(float(accuracy))


def fixed_class_head_step(batches):
    head = FixedClassHead()
    optimizer = torch.optim.Adam(head.parameters(), lr=2e-4, betas=(0.5, 0.999))
    aux_criterion = nn.NLLLoss()
    for features, label in batches:
        head.zero_grad()
        aux_err = aux_criterion(head(features), label)
        aux_err.backward()
        optimizer.step()


def fixed_discriminator_step(batches):
    netD = FixedDiscriminator()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    aux_criterion = nn.NLLLoss()
    for real, label in batches:
        netD.zero_grad()
        dis_output, aux_output = netD(real)
        errD_real = nn.functional.binary_cross_entropy(
            dis_output, torch.ones(real.size(0))
        ) + aux_criterion(aux_output, label)
        errD_real.backward()
        optimizerD.step()


data = [(torch.randn(4, 32), torch.randint(0, 10, (4,))) for _ in range(2)]
discriminator_step(data)
fixed_discriminator_step(data)
class_head_step(data)
fixed_class_head_step(data)
