"""Look-alike: torch.inference_mode() used only on the predict path.

Modelled on: https://github.com/roboflow/rf-detr/issues/461 (counterpart)

predict() runs under inference_mode and returns plain probabilities that are
post-processed without autograd; training runs separately with normal tensors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 16, 4, stride=4)
        self.head = nn.Linear(16, 2)

    def forward(self, images):
        return self.head(F.gelu(self.proj(images)).mean(dim=(2, 3)))


class Detector:
    def __init__(self):
        self.model = Backbone()
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

    def train(self, loader):
        self.model.train()
        for images, targets in loader:
            loss = F.cross_entropy(self.model(images), targets)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    @torch.inference_mode()
    def predict(self, images, threshold=0.5):
        self.model.eval()
        probs = self.model(images).softmax(-1)
        keep = probs.max(-1).values > threshold
        return probs[keep], keep.sum().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    det = Detector()
    loader = [(torch.randn(2, 3, 24, 24), torch.tensor([0, 1])) for _ in range(2)]
    det.train(loader)
    probs, n = det.predict(torch.randn(3, 3, 24, 24))
    det.train(loader)
    print("OK")
