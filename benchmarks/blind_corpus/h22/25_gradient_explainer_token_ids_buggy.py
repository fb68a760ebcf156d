"""Category GG402 - requires_grad requested on an integer (token id) tensor.

A review-rating model takes two inputs: token ids (int64, fed to nn.Embedding)
and a few numeric metadata features. A small gradient-times-input explainer,
written in the style of shap's GradientExplainer, marks *every* model input as
requiring grad before the forward pass. The token ids are integers, so the
explainer fails at once with:
    RuntimeError: only Tensors of floating point dtype can require gradients

Modelled on: https://github.com/shap/shap/issues/1671
"""
import sys

import torch
import torch.nn as nn

VOCAB, EMB, N_META, SEQ = 50, 12, 4, 9


class ReviewRater(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=0)
        self.gru = nn.GRU(EMB, 16, batch_first=True)
        self.meta = nn.Sequential(nn.Linear(N_META, 8), nn.ReLU())
        self.out = nn.Linear(16 + 8, 5)

    def forward(self, token_ids, meta):
        _, h = self.gru(self.emb(token_ids))
        return self.out(torch.cat([h[-1], self.meta(meta)], dim=-1))


class GradExplainer:
    """Expected-gradients style attributions against a background sample."""

    def __init__(self, model, background):
        self.model = model.eval()
        self.background = background

    def _gradients(self, inputs, class_idx):
        X = [x.requires_grad_() for x in inputs]  # bug: GG402
        out = self.model(*X)
        selected = out.gather(1, class_idx[:, None]).sum()
        return torch.autograd.grad(selected, [x for x in X if x.requires_grad], allow_unused=True)

    def shap_values(self, inputs):
        with torch.no_grad():
            class_idx = self.model(*inputs).argmax(dim=1)
        inputs = [x.detach().clone() for x in inputs]
        grads = self._gradients(inputs, class_idx)
        attributions = []
        for x, bg, g in zip([x for x in inputs if x.is_floating_point()],
                            [b for b in self.background if b.is_floating_point()], grads):
            attributions.append((x - bg.mean(0)) * g)
        return attributions


def train_briefly(model, steps=3):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        ids = torch.randint(1, VOCAB, (8, SEQ))
        meta = torch.randn(8, N_META)
        y = torch.randint(0, 5, (8,))
        loss = nn.functional.cross_entropy(model(ids, meta), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model


if __name__ == "__main__":
    torch.manual_seed(0)
    model = train_briefly(ReviewRater())
    background = [torch.randint(1, VOCAB, (16, SEQ)), torch.randn(16, N_META)]
    explainer = GradExplainer(model, background)
    sample = [torch.randint(1, VOCAB, (3, SEQ)), torch.randn(3, N_META)]
    try:
        values = explainer.shap_values(sample)
    except RuntimeError as e:
        print("BUGGY:", str(e).splitlines()[0])
        sys.exit(0)
    raise SystemExit("NO BUG")
