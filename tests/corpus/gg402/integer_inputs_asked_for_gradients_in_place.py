"""Integer tensors asked for gradients in place, with `requires_grad_()` (GG402).

Modelled on https://github.com/shap/shap/issues/1859 and
https://github.com/pytorch/pytorch/issues/7021. In the first, an explainer marked every
input of a text model as requiring grad with `[x.requires_grad_() for x in inputs]`; one
input held token ids (a LongTensor looked up in an embedding), and torch refused with
"only Tensors of floating point dtype can require gradients". In the second, a LongTensor
of indices handed to `nn.Embedding` was given `.requires_grad_()`, which the maintainers
said must raise, as it does now. Here the ids come from `torch.randint`, a tensor literal
of ints and an integer cast; the list of inputs is known element by element, so only the
integer one is reported.

The look-alikes: the same comprehension guarded by `x.is_floating_point()` or a dtype
comparison, a call under `if ids.dtype.is_floating_point:`, ids cast to
float first, gradients turned off, float tensors, a cast after `requires_grad_()` (legal:
the long copy just does not require grad) and the embedding's float output asked instead.
"""

import torch
from torch import nn

VOCAB, SEQ, N_META = 20, 5, 3


class Rater(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 4)
        self.meta = nn.Linear(N_META, 4)
        self.out = nn.Linear(4, 2)

    def forward(self, ids, meta):
        return self.out(self.emb(ids).mean(1) + self.meta(meta))


def gradients_of_every_input(model):
    ids = torch.randint(0, VOCAB, (2, SEQ))
    meta = torch.randn(2, N_META)
    inputs = [ids, meta]
    marked = [x.requires_grad_() for x in inputs]  # expect: GG402
    return torch.autograd.grad(model(*marked).sum(), marked[1])


def gradients_of_marked_indices():
    emb = nn.Embedding(10, 3)
    index = torch.tensor([0]).requires_grad_()  # expect: GG402
    return emb(index).sum()


def gradients_of_rounded_scores():
    scores = torch.randn(4) * 3
    return scores.long().requires_grad_(True)  # expect: GG402


def gradients_of_float_inputs(model):
    ids = torch.randint(0, VOCAB, (2, SEQ))
    meta = torch.randn(2, N_META)
    inputs = [ids, meta]
    marked = [x.requires_grad_() if x.is_floating_point() else x for x in inputs]
    also = [x.requires_grad_() if x.dtype == torch.float32 else x for x in inputs]
    if ids.dtype.is_floating_point:
        ids.requires_grad_()
    copies = [x.detach().clone() for x in inputs]
    copies[1].requires_grad_()
    ids.requires_grad_(False)
    as_float = ids.float().requires_grad_()
    embedded = model.emb(ids).detach().requires_grad_()
    cast_after = torch.randn(3).requires_grad_().long()
    grads = torch.autograd.grad(model(*marked).sum(), marked[1])
    return grads, also, as_float, embedded, cast_after


if __name__ == "__main__":
    model = Rater()
    for case, args in (
        (gradients_of_every_input, (model,)),
        (gradients_of_marked_indices, ()),
        (gradients_of_rounded_scores, ()),
    ):
        try:
            case(*args)
        except RuntimeError as error:
            assert "only Tensors of floating point dtype can require gradients" in str(error)
            print("raises:", error)
        else:
            raise SystemExit(f"{case.__name__} did not raise")
    gradients_of_float_inputs(model)
    print("look-alikes ran")
