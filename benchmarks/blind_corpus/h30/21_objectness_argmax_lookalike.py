"""Look-alike: argmax selects proposals for a relation module; the losses stay differentiable.

Modelled on: https://github.com/lanlan96/ARM3D/issues/1 (counterpart)

As the ARM3D author answers in the report: ``torch.argmax`` over the objectness
scores is used only to *pick* which proposals feed the relation module; the
objectness loss is a cross-entropy on the logits and the relation loss is
computed on the gathered (differentiable) features.  Correct code.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


class ProposalModule(nn.Module):
    def __init__(self, in_dim=6, feat_dim=32, num_proposal=16):
        super().__init__()
        self.num_proposal = num_proposal
        self.mlp = nn.Sequential(nn.Linear(in_dim, feat_dim), nn.ReLU(), nn.Linear(feat_dim, feat_dim))
        self.objectness_head = nn.Linear(feat_dim, 2)
        self.center_head = nn.Linear(feat_dim, 3)

    def forward(self, points):
        feats = self.mlp(points[:, : self.num_proposal])
        return {
            "features": feats,
            "objectness_scores": self.objectness_head(feats),
            "center": points[:, : self.num_proposal, :3] + self.center_head(feats),
        }


def compute_objectness_loss(end_points, objectness_label):
    scores = end_points["objectness_scores"]
    return F.cross_entropy(scores.transpose(1, 2), objectness_label)


def compute_box_loss(end_points, gt_center, objectness_label):
    mask = objectness_label.float().unsqueeze(-1)
    dist = (end_points["center"] - gt_center).abs() * mask
    return dist.sum() / (mask.sum() * 3 + 1e-6)


def compute_relation_loss(end_points, k=4):
    scores = end_points["objectness_scores"]
    idx_obj = torch.argmax(scores, dim=2)                       # hard 0/1 decision
    rank = (idx_obj.float() * 10 + scores[..., 1]).argsort(dim=1, descending=True)[:, :k]
    feats = torch.gather(end_points["features"], 1,
                         rank.unsqueeze(-1).expand(-1, -1, end_points["features"].shape[-1]))
    sim = F.normalize(feats, dim=-1) @ F.normalize(feats, dim=-1).transpose(1, 2)
    return (sim - torch.eye(k)).pow(2).mean()


def get_loss(end_points, batch, box_weight):
    obj_loss = compute_objectness_loss(end_points, batch["objectness_label"])
    obj_loss = obj_loss + 0.1 * compute_relation_loss(end_points)
    if box_weight > 0:
        return obj_loss + box_weight * compute_box_loss(
            end_points, batch["center_label"], batch["objectness_label"])
    return obj_loss


def make_batches(n=3, bs=2, n_points=32, num_proposal=16):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        pts = torch.randn(bs, n_points, 6, generator=g)
        out.append({
            "point_clouds": pts,
            "objectness_label": torch.randint(0, 2, (bs, num_proposal), generator=g),
            "center_label": pts[:, :num_proposal, :3] + 0.1 * torch.randn(bs, num_proposal, 3, generator=g),
        })
    return out


def train_one_epoch(net, optimizer, batches, box_weight):
    net.train()
    stats = []
    for batch in batches:
        optimizer.zero_grad()
        end_points = net(batch["point_clouds"])
        loss = get_loss(end_points, batch, box_weight)
        loss.backward()
        optimizer.step()
        stats.append(loss.item())
    return sum(stats) / len(stats)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--box_weight", type=float, default=0.0,
                        help="0 = objectness-only warm-up stage")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    net = ProposalModule()
    optimizer = torch.optim.Adam(net.parameters(), lr=args.lr)
    return train_one_epoch(net, optimizer, make_batches(), args.box_weight)


if __name__ == "__main__":
    assert main([]) > 0
    print("OK")
