"""GG112 (buggy): memory-efficient dense layers checkpointed on inputs without grad.

Mistake: a segmentation-style DenseNet uses the "efficient" bottleneck trick: the
concat+BN+ReLU+1x1 conv of each dense layer is wrapped in a reentrant
torch.utils.checkpoint.checkpoint. For fine-tuning, the pretrained stem is frozen
(requires_grad=False), so the first dense block receives features that do not require
grad. The reentrant checkpoint only builds a graph when one of its *inputs* requires
grad, so the bottleneck convs inside it are invisible to autograd.
Silent effect: only a "None of the inputs have requires_grad=True" warning; the
bottleneck 1x1 conv (and its BatchNorm) of the first dense layer, whose only input is
the frozen stem output, gets .grad None and is never updated.
Modelled on: https://github.com/petko-nikolov/pysemseg/issues/5
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint as cp

CFG = dict(growth=4, bn_size=2, layers_per_block=3, n_classes=3, steps=3, lr=0.05,
           memory_efficient=True, freeze_stem=True)


def _bn_function_factory(norm, relu, conv):
    def bn_function(*inputs):
        concated = torch.cat(inputs, 1)
        return conv(relu(norm(concated)))
    return bn_function


class DenseLayer(nn.Module):
    def __init__(self, cin, growth, bn_size, memory_efficient):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(cin)
        self.relu1 = nn.ReLU()
        self.conv1 = nn.Conv2d(cin, bn_size * growth, 1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth)
        self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)
        self.memory_efficient = memory_efficient

    def forward(self, *prev_features):
        bn_function = _bn_function_factory(self.norm1, self.relu1, self.conv1)
        if self.memory_efficient and self.training:
            bottleneck = cp.checkpoint(bn_function, *prev_features, use_reentrant=True)  # bug: GG112
        else:
            bottleneck = bn_function(*prev_features)
        return self.conv2(F.relu(self.norm2(bottleneck)))


class DenseBlock(nn.Module):
    def __init__(self, n_layers, cin, growth, bn_size, memory_efficient):
        super().__init__()
        self.layers = nn.ModuleList(
            DenseLayer(cin + i * growth, growth, bn_size, memory_efficient) for i in range(n_layers)
        )

    def forward(self, x):
        features = [x]
        for layer in self.layers:
            features.append(layer(*features))
        return torch.cat(features, 1)


class TinyFCDenseNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.block1 = DenseBlock(cfg["layers_per_block"], 8, cfg["growth"], cfg["bn_size"],
                                 cfg["memory_efficient"])
        out_ch = 8 + cfg["layers_per_block"] * cfg["growth"]
        self.classifier = nn.Conv2d(out_ch, cfg["n_classes"], 1)

    def forward(self, x):
        return self.classifier(self.block1(self.stem(x)))


def load_pretrained_stem(model):
    # stand-in for loading ImageNet weights into the stem and freezing it
    with torch.no_grad():
        model.stem.weight.normal_(0, 0.1)
    for p in model.stem.parameters():
        p.requires_grad = False


def train(model, optimizer, cfg):
    model.train()
    for step in range(cfg["steps"]):
        image = torch.randn(2, 3, 12, 12)
        mask = torch.randint(0, cfg["n_classes"], (2, 12, 12))
        optimizer.zero_grad()
        loss = F.cross_entropy(model(image), mask)
        loss.backward()
        optimizer.step()
        print(f"step {step}: seg loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    model = TinyFCDenseNet(CFG)
    if CFG["freeze_stem"]:
        load_pretrained_stem(model)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=CFG["lr"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train(model, optimizer, CFG)
    return model


if __name__ == "__main__":
    model = main()
    grads = [layer.conv1.weight.grad for layer in model.block1.layers]
    if grads[0] is None:
        print("BUGGY: bottleneck conv of the first dense layer has .grad None; it never trains")
    else:
        raise SystemExit("NO BUG")
