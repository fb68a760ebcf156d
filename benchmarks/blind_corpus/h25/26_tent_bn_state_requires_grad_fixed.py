"""GG402 - requires_grad=True requested on an integer tensor. (fixed version)

Test-time adaptation in the style of TENT: the model is frozen except for its
BatchNorm layers, which are adapted by entropy minimisation on unlabeled test
batches.  `configure_model()` enables gradients for "everything the BN layer
owns" by walking `state_dict(keep_vars=True)`.  Besides weight/bias and the
float running statistics this includes `num_batches_tracked`, an int64 buffer,
and torch raises:
  RuntimeError: only Tensors of floating point dtype can require gradients

Fix: only floating-point tensors get requires_grad; the integer counter is skipped.

Modelled on: https://github.com/siliconflow/onediff/pull/360
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SETTINGS = {"classes": 6, "steps": 2, "lr": 1e-3, "batch": 8, "episodic": False}


def build_source_model(classes):
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 16, 3, padding=1, stride=2), nn.BatchNorm2d(16), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, classes))


def softmax_entropy(logits):
    return -(logits.softmax(1) * logits.log_softmax(1)).sum(1)


def configure_model(model):
    """Train mode, everything frozen except BatchNorm, batch statistics only."""
    model.train()
    model.requires_grad_(False)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            for name, tensor in m.state_dict(keep_vars=True).items():
                if tensor.is_floating_point():  # skip the int64 num_batches_tracked buffer
                    tensor.requires_grad_(True)  # fixed: GG402
            m.track_running_stats = False
            m.running_mean, m.running_var = None, None
    return model


def collect_params(model):
    params, names = [], []
    for mod_name, m in model.named_modules():
        if isinstance(m, nn.BatchNorm2d):
            for p_name, p in m.named_parameters():
                params.append(p)
                names.append(f"{mod_name}.{p_name}")
    return params, names


class Tent(nn.Module):
    def __init__(self, model, optimizer, steps=1):
        super().__init__()
        self.model, self.optimizer, self.steps = model, optimizer, steps

    def forward(self, x):
        for _ in range(self.steps):
            outputs = self.model(x)
            loss = softmax_entropy(outputs).mean(0)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
        return outputs


def main():
    torch.manual_seed(0)
    model = build_source_model(SETTINGS["classes"])
    model = configure_model(model)
    params, names = collect_params(model)
    print(f"adapting {len(names)} tensors: {names}")
    optimizer = torch.optim.Adam(params, lr=SETTINGS["lr"], betas=(0.9, 0.999))
    tented = Tent(model, optimizer, steps=SETTINGS["steps"])
    before = [p.detach().clone() for p in params]
    for i in range(2):
        test_batch = torch.randn(SETTINGS["batch"], 3, 8, 8) * 1.5 + 0.3
        out = tented(test_batch)
        print(f"batch {i}: mean entropy {softmax_entropy(out).mean().item():.4f}")
    return params, before


if __name__ == "__main__":
    params, before = main()
    assert any(not torch.equal(p, b) for p, b in zip(params, before)), "BN affine params should adapt"
    print("FIXED: ok")
