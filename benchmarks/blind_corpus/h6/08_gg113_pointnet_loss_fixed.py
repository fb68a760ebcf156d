"""GG113 (fixed): softmax output given to F.nll_loss inside a loss module.
Fixed version: the classifier returns F.log_softmax, as nll_loss expects.

Mistake: a PointNet classifier returns class *probabilities* (F.softmax) plus its
feature-transform matrix. The custom PointNetLoss module feeds those probabilities to
F.nll_loss, which assumes log-probabilities, and adds the orthogonality regulariser.
Silent effect: no error; the label term is -mean(p[target]) and is always negative,
so the total loss is dominated by the regulariser and the label term has the wrong
shape of gradient.
Modelled on: https://github.com/yanx27/Pointnet_Pointnet2_pytorch/issues/30
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = {"num_points": 64, "num_classes": 5, "batch_size": 8, "epochs": 2, "lr": 1e-3,
           "reg_weight": 1e-3, "device": "cpu"}


class TNet(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.conv = nn.Sequential(nn.Conv1d(k, 32, 1), nn.ReLU(), nn.Conv1d(32, 64, 1), nn.ReLU())
        self.fc = nn.Linear(64, k * k)

    def forward(self, x):
        feat = self.conv(x).max(dim=2).values
        eye = torch.eye(self.k, device=x.device).flatten()
        return (self.fc(feat) + eye).view(-1, self.k, self.k)


class PointNetCls(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.stn = TNet(3)
        self.conv1 = nn.Conv1d(3, 32, 1)
        self.fstn = TNet(32)
        self.conv2 = nn.Sequential(nn.Conv1d(32, 64, 1), nn.ReLU(), nn.Conv1d(64, 128, 1))
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Dropout(0.3),
                                  nn.Linear(64, num_classes))

    def forward(self, pts):
        trans = self.stn(pts)
        x = torch.bmm(trans, pts)
        x = F.relu(self.conv1(x))
        trans_feat = self.fstn(x)
        x = torch.bmm(trans_feat, x)
        x = self.conv2(x).max(dim=2).values
        labels_pred = F.log_softmax(self.head(x), dim=1)
        return labels_pred, trans_feat


def feature_transform_regularizer(trans):
    k = trans.size(1)
    eye = torch.eye(k, device=trans.device)[None]
    return torch.linalg.matrix_norm(torch.bmm(trans, trans.transpose(1, 2)) - eye).mean()


class PointNetLoss(nn.Module):
    def __init__(self, reg_weight):
        super().__init__()
        self.reg_weight = reg_weight
        self.last = {}

    def forward(self, labels_pred, label, trans_feat):
        label_loss = F.nll_loss(labels_pred, label)  # fixed: GG113
        reg = feature_transform_regularizer(trans_feat)
        self.last = {"label": label_loss.item(), "reg": reg.item()}
        return label_loss + self.reg_weight * reg


def train(model, loader, optimizer, criterion, device):
    model.train()
    label_terms = []
    for points, target in loader:
        points, target = points.to(device).transpose(2, 1), target.to(device)
        optimizer.zero_grad()
        pred, trans_feat = model(points)
        loss = criterion(pred, target, trans_feat)
        loss.backward()
        optimizer.step()
        label_terms.append(criterion.last["label"])
    return label_terms


def main():
    torch.manual_seed(0)
    n = 48
    points = torch.randn(n, HPARAMS["num_points"], 3)
    target = torch.randint(0, HPARAMS["num_classes"], (n,))
    loader = DataLoader(TensorDataset(points, target), batch_size=HPARAMS["batch_size"], shuffle=True)
    model = PointNetCls(HPARAMS["num_classes"]).to(HPARAMS["device"])
    optimizer = torch.optim.Adam(model.parameters(), lr=HPARAMS["lr"])
    criterion = PointNetLoss(HPARAMS["reg_weight"])
    terms = []
    for epoch in range(HPARAMS["epochs"]):
        epoch_terms = train(model, loader, optimizer, criterion, HPARAMS["device"])
        terms.extend(epoch_terms)
        print(f"epoch {epoch}: label loss {sum(epoch_terms) / len(epoch_terms):.4f}")
    return terms


if __name__ == "__main__":
    terms = main()
    assert min(terms) > 0.0, terms
    print("FIXED: ok")
