"""GG105 - torch.Tensor([...]) of loss tensors cuts the graph before backward().

A multi-task dense-prediction network (segmentation, depth, surface normals)
weights its three task losses with Dynamic Weight Average and combines them as
torch.sum(torch.Tensor([w_i * L_i ...])). Building a new tensor from the loss
values copies the numbers and drops their history.
torch raises: RuntimeError: element 0 of tensors does not require grad and does
not have a grad_fn

Modelled on: https://github.com/lorenmt/mtan/issues/23
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OPT = {"classes": 4, "epochs": 3, "batches": 2, "temp": 2.0, "lr": 1e-3, "hw": 16}


class SharedEncoderMTL(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        )
        self.seg_head = nn.Conv2d(16, classes, 1)
        self.depth_head = nn.Conv2d(16, 1, 1)
        self.normal_head = nn.Conv2d(16, 3, 1)

    def forward(self, x):
        feat = self.encoder(x)
        normals = F.normalize(self.normal_head(feat), dim=1)
        return self.seg_head(feat), self.depth_head(feat), normals


def model_fit(preds, seg, depth, normal):
    seg_pred, depth_pred, normal_pred = preds
    seg_loss = F.cross_entropy(seg_pred, seg)
    depth_loss = F.l1_loss(depth_pred, depth)
    normal_loss = 1 - F.cosine_similarity(normal_pred, normal, dim=1).mean()
    return [seg_loss, depth_loss, normal_loss]


def dwa_weights(avg_cost, epoch, temp):
    if epoch < 2:
        return np.ones(3)
    w = avg_cost[epoch - 1] / avg_cost[epoch - 2]
    return 3 * np.exp(w / temp) / np.sum(np.exp(w / temp))


def fake_batch(hw, classes):
    img = torch.randn(2, 3, hw, hw)
    seg = torch.randint(0, classes, (2, hw, hw))
    depth = torch.rand(2, 1, hw, hw)
    normal = F.normalize(torch.randn(2, 3, hw, hw), dim=1)
    return img, seg, depth, normal


def multi_task_trainer(model, optimizer, scheduler, opt):
    avg_cost = np.zeros((opt["epochs"], 3), dtype=np.float32)
    for epoch in range(opt["epochs"]):
        lambda_weight = dwa_weights(avg_cost, epoch, opt["temp"])
        model.train()
        for _ in range(opt["batches"]):
            img, seg, depth, normal = fake_batch(opt["hw"], opt["classes"])
            train_loss = model_fit(model(img), seg, depth, normal)
            loss = torch.sum(torch.Tensor([lambda_weight[i] * train_loss[i] for i in range(3)]))
            optimizer.zero_grad()
            loss.backward()  # bug: GG105
            optimizer.step()
            avg_cost[epoch] += np.array([l.item() for l in train_loss]) / opt["batches"]
        scheduler.step()
        print(f"epoch {epoch}: seg {avg_cost[epoch, 0]:.3f} depth {avg_cost[epoch, 1]:.3f} "
              f"normal {avg_cost[epoch, 2]:.3f} weights {np.round(lambda_weight, 3)}")


def main():
    torch.manual_seed(0)
    model = SharedEncoderMTL(OPT["classes"])
    optimizer = torch.optim.Adam(model.parameters(), lr=OPT["lr"])
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    multi_task_trainer(model, optimizer, scheduler, OPT)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
