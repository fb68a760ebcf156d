"""Inference mode used correctly: outputs only reported, cloned, or used without autograd."""

import torch
from torch import nn

model = nn.Linear(16, 4)
head = nn.Linear(4, 2)
bias = torch.zeros(4, requires_grad=True)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)


def report_predictions(batches):
    correct = 0
    for x, y in batches:
        with torch.inference_mode():
            logits = model(x)
        correct += (logits.argmax(dim=1) == y).sum().item()
        print("confidence", logits.softmax(dim=1).max().item())
    return correct


def finetune_on_clones(x, y):
    with torch.inference_mode():
        feats = model(x)
    feats = feats.clone()  # a normal tensor from here on
    loss = nn.functional.cross_entropy(head(feats), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def score_without_recording(x):
    with torch.inference_mode():
        feats = model(x)
    with torch.no_grad():
        scores = head(feats)
    shifted = feats + bias  # addition saves neither operand
    shifted.sum().backward()
    return scores


def mode_switched_off(x):
    with torch.inference_mode(False):
        feats = model(x)
    head(feats).sum().backward()


def inputs_made_before_the_block(x):
    with torch.inference_mode():
        first = x[0]
        print(x.view(-1).sum())
    head(model(x)).sum().backward()
    return first


@torch.inference_mode()
def predict(x):
    with torch.inference_mode():
        feats = model(x)
    return head(feats)  # still in inference mode: allowed


if __name__ == "__main__":
    data = [(torch.randn(8, 16), torch.randint(0, 4, (8,)))]
    report_predictions(data)
    finetune_on_clones(torch.randn(8, 16), torch.randint(0, 2, (8,)))
    score_without_recording(torch.randn(8, 16))
    mode_switched_off(torch.randn(8, 16))
    inputs_made_before_the_block(torch.randn(8, 16))
    predict(torch.randn(8, 16))
