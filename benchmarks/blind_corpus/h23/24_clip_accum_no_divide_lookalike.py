"""GG606 look-alike - accumulation that averages the gradients instead of the loss.

A BERT-style pretraining loop accumulates gradients over
``gradient_accumulation_steps`` micro-batches and calls ``loss.backward()`` on
the undivided loss -- which looks like the missing-division mistake.  Before
the optimizer step, however, ``take_optimizer_step`` divides every
``param.grad`` by the number of accumulation steps, which gives the same
update as dividing the loss (the repository does it this way for numerical
reasons).  The check below confirms the step uses the averaged gradient.

Modelled on: https://github.com/mlfoundations/open_clip/issues/761 (correct variant)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

ARGS = {"vocab": 40, "seq": 8, "dim": 16, "batch": 4, "gradient_accumulation_steps": 3, "lr": 1e-3}


class TinyMLM(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.emb = nn.Embedding(a["vocab"], a["dim"])
        self.enc = nn.TransformerEncoderLayer(a["dim"], nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.lm_head = nn.Linear(a["dim"], a["vocab"])

    def forward(self, ids):
        return self.lm_head(self.enc(self.emb(ids)))


def mlm_loss(model, ids, labels):
    logits = model(ids)
    return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)


def take_optimizer_step(model, optimizer, accum_steps, grad_log):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.div_(accum_steps)
    grad_log.append(model.lm_head.weight.grad.detach().clone())
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


def train(model, loader, optimizer, a):
    grad_log = []
    model.train()
    for step, (ids, labels) in enumerate(loader):
        loss = mlm_loss(model, ids, labels)
        loss.backward()
        if (step + 1) % a["gradient_accumulation_steps"] == 0:
            take_optimizer_step(model, optimizer, a["gradient_accumulation_steps"], grad_log)
            print(f"update {(step + 1) // a['gradient_accumulation_steps']}: loss {loss.item():.4f}")
    return grad_log


def main():
    torch.manual_seed(0)
    a = ARGS
    n = a["batch"] * a["gradient_accumulation_steps"]
    ids = torch.randint(0, a["vocab"], (n, a["seq"]))
    labels = torch.full_like(ids, -100)
    mask = torch.rand(ids.shape) < 0.3
    mask[:, 0] = True
    labels[mask] = ids[mask]
    loader = DataLoader(TensorDataset(ids, labels), batch_size=a["batch"])
    model = TinyMLM(a)
    # reference: gradient of the mean micro-batch loss
    ref_loss = sum(mlm_loss(model, i, l) for i, l in loader) / a["gradient_accumulation_steps"]
    ref = torch.autograd.grad(ref_loss, model.lm_head.weight)[0]
    optimizer = torch.optim.AdamW(model.parameters(), lr=a["lr"])
    grad_log = train(model, loader, optimizer, a)
    assert torch.allclose(grad_log[0], ref, atol=1e-6)


if __name__ == "__main__":
    main()
    print("OK")
