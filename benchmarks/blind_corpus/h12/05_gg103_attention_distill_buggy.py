"""GG103 - backward() on a loss built only from detached tensors.

Attention distillation (NAD-style): a student CNN is pulled towards the
attention maps of a teacher CNN. The intention was to stop gradients into the
teacher, but the helper that collects feature maps calls .detach() on the
*student* features as well. During the attention-only warm-up epoch the loss
is made exclusively of those detached maps, so backward() raises:
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn

Modelled on: https://github.com/bboylyg/NAD/issues/8
(the attention loss was detached before backward, so it could not train).
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
    student_feats = [f.detach() for f in (s_a1, s_a2)]
    teacher_feats = [t_a1, t_a2]
    return student_feats, teacher_feats, s_out


def train_step(student, teacher, criterion_at, optimizer, img, cfg):
    s_feats, t_feats, _ = collect_features(student, teacher, img)
    at_loss = sum(b * criterion_at(fs, ft) for b, fs, ft in zip(cfg["beta"], s_feats, t_feats))
    optimizer.zero_grad()
    at_loss.backward()  # bug: GG103
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
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
