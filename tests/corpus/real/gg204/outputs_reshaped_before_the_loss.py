"""Evaluation loops whose model output is reshaped before the loss (GG204).

The model arrives as a parameter: `model.eval()` shows it is a module, its output has
history, and a method only tensors have (`logits.reshape(...)`) shows the output is a
tensor, not a tuple or a dict of them.

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/examples/blob/main/language_translation/main.py - `validate()`
  sums `loss.item()` after `model.eval()`; summing the loss tensor instead (the mutation
  checked here) keeps every batch's graph.
* https://github.com/pytorch/pytorch/issues/4932 - validation memory growing after the
  volatile flag went away: `model.eval()` alone, the loss summed as a tensor.
"""

import torch


def validate(model, valid_dl, loss_fn):
    losses = 0
    model.eval()
    for src, tgt in valid_dl:  # expect: GG204
        tgt_input = tgt[:-1, :]
        logits = model(src, tgt_input)
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        losses += loss
    return losses / len(list(valid_dl))


def main(model, valid_dl):
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=1)
    return validate(model, valid_dl, loss_fn)


# ---- negatives ------------------------------------------------------------------------


def validate_numbers(model, valid_dl, loss_fn):
    losses = 0
    model.eval()
    for src, tgt in valid_dl:
        logits = model(src, tgt[:-1, :])
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt[1:, :].reshape(-1))
        losses += loss.item()
    return losses / len(list(valid_dl))


def validate_without_recording(model, valid_dl, loss_fn):
    losses = 0
    model.eval()
    with torch.no_grad():
        for src, tgt in valid_dl:
            logits = model(src, tgt[:-1, :])
            losses += loss_fn(logits.reshape(-1, logits.shape[-1]), tgt[1:, :].reshape(-1))
    return losses / len(list(valid_dl))


def count_tokens(model, valid_dl):
    # A tuple output's own method says nothing about tensors.
    model.eval()
    seen = 0
    for src, tgt in valid_dl:
        outputs = model(src, tgt)
        seen += outputs.count(None)
    return seen


def main_numbers(model, valid_dl):
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=1)
    validate_numbers(model, valid_dl, loss_fn)
    validate_without_recording(model, valid_dl, loss_fn)
    return count_tokens(model, valid_dl)
