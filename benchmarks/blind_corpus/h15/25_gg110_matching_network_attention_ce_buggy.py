"""GG110 - softmax-normalised attention predictions given to cross_entropy.

Category: GG110 (softmax output given to cross_entropy).
The mistake: in a Matching Network the AttentionalClassify block turns the
cosine similarities into a softmax over the support set and mixes the
one-hot support labels, so `preds` are already class probabilities.  The
episode loss then calls F.cross_entropy(preds, target), which applies a
second log-softmax.  Silent effect: the loss is squashed, gradients are
tiny, and the loss of a *perfectly confident correct* prediction is still
log(1 + (N-1)/e) (about 0.91 for 5-way), so training stalls.
This file: BUGGY version.
Modelled on: https://github.com/gitabcworld/MatchingNetworks/issues/5
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

OPT = {"n_way": 5, "k_shot": 2, "n_query": 3, "img": 14, "episodes": 4, "lr": 1e-3}


class Classifier(nn.Module):
    """g: the embedding CNN shared by support and target images."""

    def __init__(self, layer_size=16):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))
        self.layers = nn.Sequential(block(1, layer_size), block(layer_size, layer_size), nn.Flatten())

    def forward(self, x):
        return self.layers(x)


class DistanceNetwork(nn.Module):
    def forward(self, support_set, input_image):
        eps = 1e-10
        sum_support = support_set.pow(2).sum(2).clamp(min=eps)
        magnitude = sum_support.rsqrt()
        dot = torch.bmm(input_image.unsqueeze(1), support_set.transpose(1, 2)).squeeze(1)
        return dot * magnitude


class AttentionalClassify(nn.Module):
    def forward(self, similarities, support_set_y):
        softmax_similarities = F.softmax(similarities, dim=1)
        return torch.bmm(softmax_similarities.unsqueeze(1), support_set_y).squeeze(1)


class MatchingNetwork(nn.Module):
    def __init__(self, n_way):
        super().__init__()
        self.n_way = n_way
        self.g = Classifier()
        self.dn = DistanceNetwork()
        self.classify = AttentionalClassify()

    def forward(self, support_images, support_labels_one_hot, target_image, target_label):
        b, s = support_images.shape[:2]
        support_emb = self.g(support_images.flatten(0, 1)).view(b, s, -1)
        target_emb = self.g(target_image)
        similarities = self.dn(support_emb, target_emb)
        preds = self.classify(similarities, support_labels_one_hot)
        accuracy = (preds.argmax(1) == target_label).float().mean()
        crossentropy_loss = F.cross_entropy(preds, target_label)  # bug: GG110
        return accuracy, crossentropy_loss, preds


def sample_episode(opt):
    n, k, q = opt["n_way"], opt["k_shot"], opt["n_query"]
    protos = torch.randn(n, 1, opt["img"], opt["img"])
    s_lab = torch.arange(n).repeat_interleave(k)
    support = protos[s_lab] + 0.3 * torch.randn(n * k, 1, opt["img"], opt["img"])
    t_lab = torch.randint(0, n, (q,))
    target = protos[t_lab] + 0.3 * torch.randn(q, 1, opt["img"], opt["img"])
    one_hot = F.one_hot(s_lab, n).float()
    return (support.unsqueeze(0).expand(q, -1, -1, -1, -1), one_hot.unsqueeze(0).expand(q, -1, -1),
            target, t_lab)


def run_training_epoch(model, optimizer, opt):
    for ep in range(opt["episodes"]):
        support, support_y, target, target_y = sample_episode(opt)
        acc, loss, preds = model(support, support_y, target, target_y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"episode {ep}: loss {loss.item():.4f} acc {acc.item():.2f}")
    return model, preds


def main():
    torch.manual_seed(0)
    model = MatchingNetwork(OPT["n_way"])
    optimizer = torch.optim.Adam(model.parameters(), lr=OPT["lr"])
    return run_training_epoch(model, optimizer, OPT)


if __name__ == "__main__":
    model, preds = main()
    n = OPT["n_way"]
    floor = math.log(1 + (n - 1) / math.e)
    rows_are_probs = torch.allclose(preds.sum(1), torch.ones(preds.size(0)), atol=1e-5)
    with torch.no_grad():
        losses = [model(*sample_episode(OPT))[1].item() for _ in range(8)]
    if rows_are_probs and min(losses) >= floor - 1e-6:
        print(f"BUGGY: cross_entropy gets probabilities (rows sum to 1); episode loss never "
              f"drops below the floor {floor:.3f} (min {min(losses):.3f})")
    else:
        raise SystemExit("NO BUG")
