"""GG301 - in-place `+=` on a leaf parameter that requires grad.

A toy vision-language model prepends learned prefix embeddings to the text
tokens.  For text-only batches the vision projector would receive no gradient,
which upsets some distributed wrappers, so the code adds a zero-weighted dummy
vision term with `+=`.  In the text-only branch `prefix` *is* the nn.Parameter
itself (no copy was made), so the in-place add targets a leaf that requires
grad and torch raises:
  RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.

Modelled on: https://github.com/NVlabs/VILA/pull/199
"""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelArgs:
    vocab: int = 50
    dim: int = 16
    vision_dim: int = 12
    n_prefix: int = 4
    seq_len: int = 8
    batch: int = 4
    steps: int = 3
    lr: float = 1e-3


class ToyVLM(nn.Module):
    def __init__(self, a: ModelArgs):
        super().__init__()
        self.embed_tokens = nn.Embedding(a.vocab, a.dim)
        self.prefix_embeds = nn.Parameter(torch.randn(a.n_prefix, a.dim) * 0.02)
        self.vision_proj = nn.Sequential(nn.Linear(a.vision_dim, a.dim), nn.GELU(), nn.Linear(a.dim, a.dim))
        self.block = nn.TransformerEncoderLayer(a.dim, nhead=2, dim_feedforward=32, batch_first=True)
        self.lm_head = nn.Linear(a.dim, a.vocab)
        self.vision_dim = a.vision_dim

    def build_prefix(self, images):
        if images is not None:
            prefix = self.prefix_embeds + self.vision_proj(images).mean(dim=1, keepdim=True).squeeze(1)[:, None]
            return prefix
        prefix = self.prefix_embeds
        dummy = torch.zeros(1, self.vision_dim, device=prefix.device)
        prefix += self.vision_proj(dummy).mean() * 0.0  # bug: GG301
        return prefix.unsqueeze(0)

    def forward(self, input_ids, images=None):
        text = self.embed_tokens(input_ids)
        prefix = self.build_prefix(images).expand(text.size(0), -1, -1)
        hidden = self.block(torch.cat([prefix, text], dim=1))
        return self.lm_head(hidden[:, prefix.size(1):])


def lm_loss(logits, input_ids):
    return F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), input_ids[:, 1:].reshape(-1))


def train(model, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    model.train()
    for step in range(args.steps):
        input_ids = torch.randint(0, args.vocab, (args.batch, args.seq_len))
        text_only = step % 2 == 0
        images = None if text_only else torch.randn(args.batch, 3, args.vision_dim)
        logits = model(input_ids, images)
        loss = lm_loss(logits, input_ids)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        print(f"step {step} ({'text' if text_only else 'image+text'}): loss={loss.item():.4f}")


def main():
    torch.manual_seed(0)
    args = ModelArgs()
    train(ToyVLM(args), args)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        raise SystemExit(0)
    raise SystemExit("NO BUG")
