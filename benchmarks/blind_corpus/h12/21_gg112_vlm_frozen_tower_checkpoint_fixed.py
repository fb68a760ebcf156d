"""GG112 - fixed version: non-reentrant checkpointing.

With use_reentrant=False the checkpointed blocks record a graph to their own
parameters even when the incoming hidden states do not require grad, so the
language blocks receive gradients and are updated.

Modelled on: https://github.com/hiyouga/LlamaFactory/issues/6357
"""
import warnings
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

MODEL_ARGS = {"vocab": 64, "d": 32, "heads": 4, "layers": 2, "patches": 4, "patch_dim": 48,
              "freeze_vision_tower": True, "freeze_embeddings": True, "gradient_checkpointing": True}


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class TinyVLM(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.vision_tower = nn.Sequential(nn.Linear(a["patch_dim"], a["d"]), nn.GELU(), nn.Linear(a["d"], a["d"]))
        self.embed_tokens = nn.Embedding(a["vocab"], a["d"])
        self.blocks = nn.ModuleList(Block(a["d"], a["heads"]) for _ in range(a["layers"]))
        self.norm = nn.LayerNorm(a["d"])
        self.lm_head = nn.Linear(a["d"], a["vocab"])
        self.gradient_checkpointing = a["gradient_checkpointing"]

    def forward(self, patches, input_ids):
        hidden = torch.cat([self.vision_tower(patches), self.embed_tokens(input_ids)], dim=1)
        for block in self.blocks:
            if self.gradient_checkpointing and self.training:
                hidden = checkpoint(block, hidden, use_reentrant=False)  # fixed: GG112
            else:
                hidden = block(hidden)
        return self.lm_head(self.norm(hidden))


def setup_trainable(model, a):
    if a["freeze_vision_tower"]:
        model.vision_tower.requires_grad_(False)
    if a["freeze_embeddings"]:
        model.embed_tokens.requires_grad_(False)
    return [p for p in model.parameters() if p.requires_grad]


def training_step(model, optimizer, batch, n_patches):
    patches, input_ids = batch
    logits = model(patches, input_ids)[:, n_patches:-1]
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), input_ids[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


def main():
    torch.set_num_threads(1)
    torch.manual_seed(0)
    a = MODEL_ARGS
    model = TinyVLM(a)
    params = setup_trainable(model, a)
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    block_w0 = model.blocks[0].mlp[0].weight.detach().clone()
    model.train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(3):
            batch = (torch.randn(2, a["patches"], a["patch_dim"]), torch.randint(0, a["vocab"], (2, 10)))
            print(f"step {step}: loss {training_step(model, optimizer, batch, a['patches']):.4f}")
    block_grad_none = all(p.grad is None for p in model.blocks.parameters())
    block_unchanged = torch.equal(block_w0, model.blocks[0].mlp[0].weight)
    return block_grad_none, block_unchanged


if __name__ == "__main__":
    grad_none, unchanged = main()
    assert not grad_none and not unchanged
    print("FIXED: ok")
