"""Category GG101 -- backward() on a loss that was computed inside torch.no_grad().
Status: fixed -- the adaptation step recomputes the loss with grad mode on
instead of reusing the no_grad loss returned by val().
A monocular-depth style trainer has a `val()` method wrapped in torch.no_grad() that
returns a dict of losses.  The user later decided to also adapt the network on the
validation batch ("test-time fine-tuning") and simply called backward() on the loss
that `val()` returned.  That loss was built with grad mode off, so torch raises
RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
Modelled on: https://github.com/nianticlabs/monodepth2/issues/24
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

OPTIONS = {"height": 16, "width": 16, "batch_size": 4, "lr": 1e-4, "epochs": 1,
           "min_depth": 0.1, "max_depth": 10.0}


class DepthNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ELU(),
                                 nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ELU())
        self.dec = nn.Sequential(nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1), nn.ELU(),
                                 nn.Conv2d(8, 1, 3, padding=1))

    def forward(self, x):
        return {"disp": torch.sigmoid(self.dec(self.enc(x)))}


def disp_to_depth(disp, min_depth, max_depth):
    min_disp, max_disp = 1 / max_depth, 1 / min_depth
    return 1 / (min_disp + (max_disp - min_disp) * disp)


class Trainer:
    def __init__(self, opts):
        self.opt = opts
        self.device = torch.device("cpu")
        self.model = DepthNet().to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=opts["lr"])
        imgs = torch.rand(16, 3, opts["height"], opts["width"])
        depth = torch.rand(16, 1, opts["height"], opts["width"]) * 5 + 0.5
        self.train_loader = DataLoader(TensorDataset(imgs, depth), batch_size=opts["batch_size"], shuffle=True)
        self.val_iter = iter(DataLoader(TensorDataset(imgs[:8], depth[:8]), batch_size=opts["batch_size"]))

    def compute_losses(self, inputs, outputs):
        _, gt = inputs
        depth = disp_to_depth(outputs["disp"], self.opt["min_depth"], self.opt["max_depth"])
        abs_rel = (torch.abs(depth - gt) / gt).mean()
        smooth = outputs["disp"].diff(dim=-1).abs().mean()
        return {"abs_rel": abs_rel, "smooth": smooth, "loss": abs_rel + 1e-3 * smooth}

    def process_batch(self, inputs):
        img, _ = (t.to(self.device) for t in inputs)
        outputs = self.model(img)
        return outputs, self.compute_losses(inputs, outputs)

    def val(self):
        """Validate the model on a single minibatch"""
        self.model.eval()
        with torch.no_grad():
            inputs = next(self.val_iter)
            outputs, losses = self.process_batch(inputs)
        self.model.train()
        return losses

    def run_epoch(self):
        self.model.train()
        for batch_idx, inputs in enumerate(self.train_loader):
            outputs, losses = self.process_batch(inputs)
            self.optimizer.zero_grad()
            losses["loss"].backward()
            self.optimizer.step()
            if batch_idx % 2 == 0:
                print(f"batch {batch_idx}: loss {losses['loss'].item():.4f}")
                # adapt on the held-out batch as well
                _, val_losses = self.process_batch(next(self.val_iter))
                self.optimizer.zero_grad()
                val_losses["loss"].backward()  # fixed: GG101
                self.optimizer.step()

    def train(self):
        for epoch in range(self.opt["epochs"]):
            self.run_epoch()


def main():
    torch.manual_seed(0)
    Trainer(OPTIONS).train()


if __name__ == "__main__":
    main()
    print("FIXED: ok")
