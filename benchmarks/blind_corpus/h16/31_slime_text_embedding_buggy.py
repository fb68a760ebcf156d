"""GG405: optimizer given a slice of a tensor that requires grad (a non-leaf view).

A few-shot segmentation module in the style of SLiMe optimises some of the text-token
embeddings: it encodes the prompt once, makes the whole embedding require grad and then
hands `text_embedding[:, 1:1 + n_tokens]` to Adam. The slice is produced by an indexing
op on a tensor that requires grad, so it is not a leaf and cannot be optimised.
Torch raises: ValueError: can't optimize a non-leaf Tensor

Modelled on: https://github.com/aliasgharkhani/SLiMe/issues/10
"""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F

config = SimpleNamespace(vocab=50, embed_dim=16, prompt_len=6, n_optimized_tokens=2,
                         num_parts=3, image_size=16, lr=0.1, epochs=3)


class FrozenTextEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok = nn.Embedding(cfg.vocab, cfg.embed_dim)
        self.mix = nn.Linear(cfg.embed_dim, cfg.embed_dim)
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, ids):
        return torch.tanh(self.mix(self.tok(ids)))


class FrozenUNet(nn.Module):
    """Stand-in for the diffusion UNet: produces cross-attention maps per token."""

    def __init__(self, cfg):
        super().__init__()
        self.img_proj = nn.Conv2d(3, cfg.embed_dim, 3, padding=1)
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, image, text_embedding):
        q = self.img_proj(image).flatten(2).transpose(1, 2)  # B, HW, D
        attn = (q @ text_embedding.transpose(1, 2)).softmax(-1)  # B, HW, T
        h = w = image.shape[-1]
        return attn.transpose(1, 2).reshape(image.size(0), -1, h, w)


class Slime(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.text_encoder = FrozenTextEncoder(cfg)
        self.unet = FrozenUNet(cfg)
        self.prompt_ids = torch.randint(0, cfg.vocab, (1, cfg.prompt_len))

    def on_fit_start(self):
        with torch.no_grad():
            self.text_embedding = self.text_encoder(self.prompt_ids)
        self.text_embedding.requires_grad_(True)
        n = self.cfg.n_optimized_tokens
        self.embeddings_to_optimize = self.text_embedding[:, 1:1 + n]

    def full_embedding(self):
        n = self.cfg.n_optimized_tokens
        return torch.cat([self.text_embedding[:, :1].detach(), self.embeddings_to_optimize,
                          self.text_embedding[:, 1 + n:].detach()], dim=1)

    def configure_optimizers(self):
        return torch.optim.Adam([self.embeddings_to_optimize], lr=self.cfg.lr)  # bug: GG405

    def training_step(self, image, mask):
        maps = self.unet(image, self.full_embedding())
        logits = maps[:, :self.cfg.num_parts]
        return F.cross_entropy(logits, mask)


def fit(module, batches, epochs):
    module.on_fit_start()
    optimizer = module.configure_optimizers()
    for epoch in range(epochs):
        for image, mask in batches:
            loss = module.training_step(image, mask)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    s = config.image_size
    batches = [(torch.rand(2, 3, s, s), torch.randint(0, config.num_parts, (2, s, s)))]
    fit(Slime(config), batches, config.epochs)


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, ValueError) as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
