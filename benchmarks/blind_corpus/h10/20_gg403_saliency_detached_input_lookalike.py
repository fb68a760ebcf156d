"""GG403 look-alike: ``.grad`` read on a tensor produced by preprocessing.

Vanilla saliency for an image-text matching model: the input image is normalised by a
helper and the returned tensor's ``.grad`` is read after backward, and the
embedding weight's gradient is read for a token-importance score.  Reading
``.grad`` of a computed tensor is the usual mistake, but here the helper ends
with ``.detach().requires_grad_(True)``, which makes the normalised input a new
leaf, and the embedding weight is a parameter, so both gradients are filled.
Modelled on: none (counter-example to https://github.com/pytorch/pytorch/issues/2677)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


class ImageTextScorer(nn.Module):
    def __init__(self, vocab=30, dim=16):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                 nn.Linear(8, dim))
        self.emb = nn.Embedding(vocab, dim)

    def forward(self, image, tokens):
        img = F.normalize(self.cnn(image), dim=-1)
        txt = F.normalize(self.emb(tokens).mean(1), dim=-1)
        return (img * txt).sum(-1)


def prepare_input(raw_image):
    x = (raw_image - MEAN) / STD
    return x.detach().requires_grad_(True)


def saliency(model, raw_image, tokens):
    model.eval()
    x = prepare_input(raw_image)
    model.zero_grad()
    score = model(x, tokens).sum()
    score.backward()
    pixel_map = x.grad.abs().amax(dim=1)
    token_scores = model.emb.weight.grad[tokens[0]].norm(dim=-1)
    return pixel_map, token_scores


def main():
    torch.manual_seed(0)
    model = ImageTextScorer()
    raw = torch.rand(1, 3, 20, 20)
    tokens = torch.randint(0, 30, (1, 5))
    pixel_map, token_scores = saliency(model, raw, tokens)
    print(f"saliency map {tuple(pixel_map.shape)} max {pixel_map.max().item():.4f}")
    print("token importance:", [round(v, 4) for v in token_scores.tolist()])


if __name__ == "__main__":
    main()
    print("OK")
