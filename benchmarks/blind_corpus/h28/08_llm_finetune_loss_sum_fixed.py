"""Fine-tuning loop in the style of Ray's finetune_hf_llm.py template.

Modelled on: https://github.com/ray-project/ray/pull/40940

Fixed version: the running epoch loss adds loss.item(), a plain float, so
nothing keeps a step's autograd graph alive once that step's backward() ran.
"""
import argparse
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=32, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.mix = nn.Linear(dim, dim)
        self.lm_head = nn.Linear(dim, vocab_size)

    def forward(self, input_ids, labels=None):
        h = torch.tanh(self.mix(self.embed(input_ids)))
        logits = self.lm_head(h)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]),
                                   labels[:, 1:].reshape(-1))
        return SimpleNamespace(loss=loss, logits=logits)


def collate(batch_size, seq_len, vocab_size, n_batches, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n_batches):
        ids = torch.randint(0, vocab_size, (batch_size, seq_len), generator=g)
        yield {"input_ids": ids, "labels": ids.clone()}


def training_function(kwargs):
    config = SimpleNamespace(**kwargs)
    model = TinyCausalLM(config.vocab_size, config.dim)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)

    report = {}
    for epoch in range(config.num_epochs):
        model.train()
        loss_sum = 0.0
        steps = 0
        for batch in collate(config.batch_size, config.seq_len, config.vocab_size,
                             config.steps_per_epoch, seed=epoch):
            outputs = model(**batch)
            loss = outputs.loss
            loss.backward()
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
            loss_sum += loss.item()
            steps += 1
        report = {"epoch": epoch, "train_loss_sum": loss_sum, "steps": steps}
    return report


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--num-epochs", type=int, default=1)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=4)
    return p.parse_args(argv)


if __name__ == "__main__":
    torch.manual_seed(0)
    args = parse_args([])
    result = training_function({"num_epochs": args.num_epochs, "lr": args.lr,
                                "batch_size": args.batch_size, "seq_len": 10,
                                "vocab_size": 32, "dim": 16, "steps_per_epoch": 5})
    total = result["train_loss_sum"]
    assert isinstance(total, float) and result["steps"] == 5
    print("FIXED: ok")
