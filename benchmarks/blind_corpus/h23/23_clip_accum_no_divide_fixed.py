"""GG606 - gradient accumulation without dividing the loss by the number of steps.

A CLIP-style ``train_one_epoch`` supports ``accum_freq``: each micro-batch's
losses are kept in a dict, summed into ``total_loss`` and backpropagated, and
the optimizer steps every ``accum_freq`` micro-batches.  FIXED version: the
loss is divided by ``accum_freq`` before backward, so the accumulated gradient
equals the gradient of the averaged loss.

Modelled on: https://github.com/mlfoundations/open_clip/issues/761
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"img_dim": 20, "txt_vocab": 30, "txt_len": 6, "embed": 16, "batch_size": 4,
        "accum_freq": 4, "lr": 1e-3, "epochs": 1}


class TinyCLIP(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.visual = nn.Sequential(nn.Linear(a["img_dim"], 32), nn.GELU(), nn.Linear(32, a["embed"]))
        self.tok = nn.Embedding(a["txt_vocab"], 32)
        self.text_proj = nn.Linear(32, a["embed"])
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, image, text):
        img = F.normalize(self.visual(image), dim=-1)
        txt = F.normalize(self.text_proj(self.tok(text).mean(1)), dim=-1)
        return img, txt, self.logit_scale.exp()


class ClipLoss(nn.Module):
    def forward(self, image_features, text_features, logit_scale, output_dict=True):
        logits = logit_scale * image_features @ text_features.t()
        labels = torch.arange(logits.size(0))
        loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
        return {"contrastive_loss": loss} if output_dict else loss


def backward(total_loss, scaler):
    if scaler is not None:
        scaler.scale(total_loss).backward()
    else:
        total_loss.backward()


def train_one_epoch(model, data, loss, epoch, optimizer, scaler, args, grad_log):
    model.train()
    accum_freq = args["accum_freq"]
    optimizer.zero_grad()
    for i, (images, texts) in enumerate(data):
        model_out = model(images, texts)
        losses = loss(*model_out, output_dict=True)
        total_loss = sum(losses.values())
        losses["loss"] = total_loss
        backward(total_loss / accum_freq, scaler)  # fixed: GG606
        if (i + 1) % accum_freq == 0:
            grad_log.append([p.grad.detach().clone() for p in model.parameters()])
            if scaler is not None:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            optimizer.zero_grad()
            with torch.no_grad():
                model.logit_scale.clamp_(0, math.log(100))
            print(f"epoch {epoch} step {(i + 1) // accum_freq}: loss {total_loss.item():.4f}")


def reference_gradient(model, loss, micro_batches):
    """Gradient of the mean of the micro-batch losses, in one graph."""
    model.zero_grad()
    mean_loss = sum(loss(*model(x, t))["contrastive_loss"] for x, t in micro_batches) / len(micro_batches)
    mean_loss.backward()
    grads = [p.grad.detach().clone() for p in model.parameters()]
    model.zero_grad()
    return grads


def main():
    torch.manual_seed(0)
    a = ARGS
    n = a["batch_size"] * a["accum_freq"]
    images, texts = torch.randn(n, a["img_dim"]), torch.randint(0, a["txt_vocab"], (n, a["txt_len"]))
    data = DataLoader(TensorDataset(images, texts), batch_size=a["batch_size"], shuffle=False)
    model, loss = TinyCLIP(a), ClipLoss()
    ref = reference_gradient(model, loss, list(data))
    optimizer = torch.optim.AdamW(model.parameters(), lr=a["lr"], weight_decay=0.1)
    grad_log = []
    train_one_epoch(model, data, loss, 0, optimizer, None, a, grad_log)
    ratio = grad_log[0][0].norm() / ref[0].norm()
    return float(ratio)


if __name__ == "__main__":
    ratio = main()
    assert abs(ratio - 1.0) < 1e-3, ratio
    print("FIXED: ok")
