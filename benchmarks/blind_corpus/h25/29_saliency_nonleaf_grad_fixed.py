"""GG403 - .grad read from a non-leaf tensor (None without retain_grad()). (fixed version)

After a short fine-tune of a small CNN, a vanilla-gradient saliency map is
computed for one image.  The preprocessing helper marks the normalised image
as requiring grad and the caller then adds the batch dimension and moves it to
the device; that batched tensor is what gets read after backward().  It is the
output of unsqueeze/to, i.e. a non-leaf, so its `.grad` stays None (torch only
warns) and the next line fails:
  AttributeError: 'NoneType' object has no attribute 'abs'

Fix: read the gradient from the leaf the helper created (`image.grad`) and
reduce over the channel dimension.

Modelled on: https://github.com/ZF4444/MMAL-Net/issues/8
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
CFG = {"classes": 5, "size": 16, "finetune_steps": 3, "lr": 1e-2}


class Net(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def preprocess(raw_image):
    image = (raw_image - MEAN) / STD
    return image.detach().requires_grad_(True)


def finetune(model, steps, lr, device):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        x = torch.randn(4, 3, CFG["size"], CFG["size"], device=device)
        y = torch.randint(0, CFG["classes"], (4,), device=device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def compute_saliency(model, raw_image, device):
    model.eval()
    image = preprocess(raw_image)
    batch = image.unsqueeze(0).to(device)
    scores = model(batch)
    top_class = scores.argmax(dim=1).item()
    model.zero_grad()
    scores[0, top_class].backward()
    saliency = image.grad.abs().max(dim=0)[0]  # fixed: GG403
    return top_class, saliency


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = Net(CFG["classes"]).to(device)
    finetune(model, CFG["finetune_steps"], CFG["lr"], device)
    raw = torch.rand(3, CFG["size"], CFG["size"])
    cls, sal = compute_saliency(model, raw, device)
    print(f"class {cls}: saliency range [{sal.min().item():.5f}, {sal.max().item():.5f}]")
    return sal


if __name__ == "__main__":
    sal = main()
    assert sal.shape == (CFG["size"], CFG["size"]) and sal.abs().sum() > 0
    print("FIXED: ok")
