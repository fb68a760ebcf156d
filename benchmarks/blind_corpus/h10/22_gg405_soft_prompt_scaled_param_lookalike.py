"""GG405 look-alike: optimizer given tensors that were scaled / moved after creation.

Soft-prompt tuning of a frozen toy encoder.  The learnable prompt is
``nn.Parameter(torch.randn(...) * 0.02)`` and a learnable logit bias is
``torch.zeros(...).to(device).requires_grad_()``.  Both involve an operation
after the random/zero tensor is made, which is the non-leaf mistake's shape,
but here the scaling and the device move happen *before* the tensor is wrapped
in ``nn.Parameter`` / asked to require grad, so the optimizer receives leaves.
Modelled on: none (counter-example to https://github.com/pytorch/pytorch/issues/140469)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

CONF = {"vocab": 40, "dim": 16, "n_prompt": 4, "classes": 2, "seq": 6, "lr": 0.05, "epochs": 2,
        "device": "cpu"}


class FrozenEncoder(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, batch_first=True, dropout=0.0)
        self.enc = nn.TransformerEncoder(layer, num_layers=1)
        self.cls = nn.Linear(dim, classes)
        self.requires_grad_(False)

    def forward(self, tokens, prompt):
        x = self.emb(tokens)
        x = torch.cat([prompt.unsqueeze(0).expand(x.size(0), -1, -1), x], dim=1)
        return self.cls(self.enc(x).mean(1))


class PromptTuner(nn.Module):
    def __init__(self, backbone, n_prompt, dim, classes, device):
        super().__init__()
        self.backbone = backbone
        self.prompt = nn.Parameter(torch.randn(n_prompt, dim) * 0.02)
        self.bias = torch.zeros(classes).to(device).requires_grad_()

    def trainable(self):
        return [self.prompt, self.bias]

    def forward(self, tokens):
        return self.backbone(tokens, self.prompt) + self.bias


def run(cfg):
    torch.manual_seed(0)
    device = torch.device(cfg["device"])
    data = TensorDataset(torch.randint(0, cfg["vocab"], (32, cfg["seq"])), torch.randint(0, cfg["classes"], (32,)))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    model = PromptTuner(FrozenEncoder(cfg["vocab"], cfg["dim"], cfg["classes"]), cfg["n_prompt"], cfg["dim"],
                        cfg["classes"], device).to(device)
    optimizer = torch.optim.Adam(model.trainable(), lr=cfg["lr"])
    start = model.prompt.detach().clone()
    for epoch in range(cfg["epochs"]):
        for tokens, y in loader:
            loss = F.cross_entropy(model(tokens.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} bias {model.bias.tolist()}")
    assert not torch.equal(start, model.prompt.detach())


if __name__ == "__main__":
    run(CONF)
    print("OK")
