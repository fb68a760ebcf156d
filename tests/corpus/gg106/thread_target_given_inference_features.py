"""Inference tensors handed to a training thread (GG106).

Modelled on https://github.com/pytorch/pytorch/issues/20528 (an outer `torch.no_grad()` is
ignored inside a thread: grad mode is thread-local, and a new thread records graphs) and on
https://github.com/kyutai-labs/pocket-tts/pull/16 (a generation thread that forgot its own
`torch.no_grad`). A background thread
fine-tunes a head on features the main thread extracted under `torch.inference_mode()`;
the thread starts with gradient recording on, so the head's `nn.Linear` must save the
features for backward, and inference tensors cannot be saved. The thread's target is a
function of the file given the features through `args` and `kwargs`, or a method given
them through `args`: both learn what the thread is given.
"""

import threading

import torch
from torch import nn

errors = []


def finetune(features, steps, labels=None):
    head = nn.Linear(6, 3)
    opt = torch.optim.SGD(head.parameters(), lr=0.1)
    try:
        for _ in range(steps):
            loss = nn.functional.cross_entropy(head(features), labels)  # expect: GG106
            opt.zero_grad()
            loss.backward()
            opt.step()
    except RuntimeError as error:
        errors.append(error)


class Refiner:
    def __init__(self):
        self.head = nn.Linear(6, 1)
        self.failures = []

    def _refine(self, features):
        try:
            self.head(features).sum().backward()  # expect: GG106
        except RuntimeError as error:
            self.failures.append(error)

    def start(self, features):
        worker = threading.Thread(target=self._refine, args=(features,))
        worker.start()
        worker.join()
        return self.failures


def main():
    torch.manual_seed(0)
    backbone = nn.Linear(4, 6)
    x, labels = torch.randn(5, 4), torch.randint(0, 3, (5,))
    with torch.inference_mode():
        features = backbone(x)
    worker = threading.Thread(target=finetune, args=(features, 2), kwargs={"labels": labels})
    worker.start()
    worker.join()
    return errors + Refiner().start(features)


if __name__ == "__main__":
    failures = main()
    assert len(failures) == 2, failures
    assert all("Inference tensors cannot be saved" in str(e) for e in failures), failures
    print("ok")
