"""GG103 - fixed version: only the teacher features are detached.

collect_features keeps the student activations attached to the graph and
detaches the teacher ones, so the attention-transfer loss trains the student.

Modelled on: https://github.com/bboylyg/NAD/issues/8
"""
import sys
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONFIG = {"beta": [500.0, 1000.0], "p": 2.0, "lr": 0.05, "warmup_epochs": 1, "batch_size": 8}


class SmallResNet(nn.Module):
    def __init__(self, width=16, n_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.block1 = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.block2 = nn.Sequential(nn.Conv2d(width, 2 * width, 3, stride=2, padding=1),
                                    nn.BatchNorm2d(2 * width), nn.ReLU())
        self.fc = nn.Linear(2 * width, n_classes)

    def forward(self, x):
        a1 = self.block1(self.stem(x))
        a2 = self.block2(a1)
        out = self.fc(F.adaptive_avg_pool2d(a2, 1).flatten(1))
        return a1, a2, out


class AT(nn.Module):
    """Attention transfer loss between two activation maps."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def attention_map(self, fm, eps=1e-6):
        am = fm.abs().pow(self.p).mean(dim=1, keepdim=True)
        norm = am.flatten(1).norm(dim=1).view(-1, 1, 1, 1)
        return am / (norm + eps)

    def forward(self, fm_s, fm_t):
        return (self.attention_map(fm_s) - self.attention_map(fm_t)).pow(2).mean()


def collect_features(student, teacher, img):
    s_a1, s_a2, s_out = student(img)
    with torch.no_grad():
        t_a1, t_a2, _ = teacher(img)
    student_feats = [s_a1, s_a2]
    teacher_feats = [f.detach() for f in (t_a1, t_a2)]
    return student_feats, teacher_feats, s_out


def train_step(student, teacher, criterion_at, optimizer, img, cfg):
    s_feats, t_feats, _ = collect_features(student, teacher, img)
    at_loss = sum(b * criterion_at(fs, ft) for b, fs, ft in zip(cfg["beta"], s_feats, t_feats))
    optimizer.zero_grad()
    at_loss.backward()  # fixed: GG103
    optimizer.step()
    return at_loss.item()


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    images = torch.randn(32, 3, 16, 16)
    labels = torch.randint(0, 10, (32,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=CONFIG["batch_size"], shuffle=True)
    teacher, student = SmallResNet(), SmallResNet()
    teacher.eval()
    criterion_at = AT(CONFIG["p"])
    optimizer = torch.optim.SGD(student.parameters(), lr=CONFIG["lr"], momentum=0.9)
    for epoch in range(CONFIG["warmup_epochs"]):
        student.train()
        for idx, (img, _) in enumerate(loader):
            at = train_step(student, teacher, criterion_at, optimizer, img, CONFIG)
            print(f"warm-up epoch {epoch} iter {idx}: AT loss {at:.5f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
