"""Evaluation helpers: the model arrives as an argument, so this file never imports
detector.py, yet under `torch.no_grad()` it runs `score` of detector.py's `Detector`
(main.py imports both files: they are parts of one program)."""
import torch


def score_batches(model, batches):
    total = 0.0
    with torch.no_grad():
        for x in batches:
            total += float(model.score(x).mean())
    return total / len(batches)
