"""GG113 (fixed) - softmax output given to NLLLoss.

Fix: the auxiliary head ends in nn.LogSoftmax, the input NLLLoss expects.

An AC-GAN discriminator has two heads: real/fake (sigmoid + BCELoss) and an
auxiliary class head ending in nn.Softmax that is trained with nn.NLLLoss.
NLLLoss expects log-probabilities; on probabilities it just returns minus the
probability of the true class, so the auxiliary loss is negative, bounded in
[-1, 0] and badly scaled (silent: training runs, the class head learns poorly).

Modelled on: https://github.com/clvrai/ACGAN-PyTorch/issues/3
"""
import os
import tempfile

import torch
import torch.nn as nn

OPT = {"nz": 16, "classes": 4, "img": 8, "batch": 8, "iters": 3, "lr": 2e-4, "beta1": 0.5}


class Generator(nn.Module):
    def __init__(self, nz, classes, img):
        super().__init__()
        self.label_emb = nn.Embedding(classes, nz)
        self.net = nn.Sequential(
            nn.Linear(nz, 64), nn.BatchNorm1d(64), nn.ReLU(True),
            nn.Linear(64, img * img), nn.Tanh(),
        )
        self.img = img

    def forward(self, noise, labels):
        x = self.net(noise * self.label_emb(labels))
        return x.view(-1, 1, self.img, self.img)


class Discriminator(nn.Module):
    def __init__(self, classes, img):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(16, 32, 3, 2, 1), nn.LeakyReLU(0.2, True), nn.Flatten(),
        )
        feat = 32 * (img // 4) ** 2
        self.fc_dis = nn.Linear(feat, 1)
        self.fc_aux = nn.Linear(feat, classes)
        self.sigmoid = nn.Sigmoid()
        self.log_softmax = nn.LogSoftmax(dim=1)

    def forward(self, x):
        h = self.features(x)
        realfake = self.sigmoid(self.fc_dis(h)).view(-1)
        classes = self.log_softmax(self.fc_aux(h))
        return realfake, classes


def main():
    torch.manual_seed(0)
    o = OPT
    netG, netD = Generator(o["nz"], o["classes"], o["img"]), Discriminator(o["classes"], o["img"])
    dis_criterion, aux_criterion = nn.BCELoss(), nn.NLLLoss()
    optD = torch.optim.Adam(netD.parameters(), lr=o["lr"], betas=(o["beta1"], 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=o["lr"], betas=(o["beta1"], 0.999))
    aux_log = []
    for i in range(o["iters"]):
        real = torch.randn(o["batch"], 1, o["img"], o["img"]).clamp(-1, 1)
        real_label = torch.randint(0, o["classes"], (o["batch"],))
        # (1) update D: real batch then fake batch
        netD.zero_grad()
        dis_out, aux_out = netD(real)
        errD_real = dis_criterion(dis_out, torch.ones(o["batch"])) + aux_criterion(aux_out, real_label)  # fixed: GG113
        errD_real.backward()
        noise = torch.randn(o["batch"], o["nz"])
        fake_label = torch.randint(0, o["classes"], (o["batch"],))
        fake = netG(noise, fake_label)
        dis_out, aux_out = netD(fake.detach())
        aux_fake = aux_criterion(aux_out, fake_label)
        errD_fake = dis_criterion(dis_out, torch.zeros(o["batch"])) + aux_fake
        errD_fake.backward()
        optD.step()
        # (2) update G
        netG.zero_grad()
        dis_out, aux_out = netD(fake)
        errG = dis_criterion(dis_out, torch.ones(o["batch"])) + aux_criterion(aux_out, fake_label)
        errG.backward()
        optG.step()
        aux_log.append(aux_fake.item())
        print(f"[{i}] Loss_D {errD_real.item() + errD_fake.item():.4f} Loss_G {errG.item():.4f} "
              f"aux {aux_fake.item():.4f}")
    with tempfile.TemporaryDirectory() as tmp:
        torch.save(netG.state_dict(), os.path.join(tmp, "netG.pth"))
    return aux_log


if __name__ == "__main__":
    aux = main()
    assert all(a > 0.0 for a in aux), aux
    print("FIXED: ok")
