"""Threads given inference tensors that autograd never has to save: look-alikes of an
inference tensor handed to a training thread (GG106 must stay silent).

A thread's target runs with grad on (grad mode is thread-local), so these targets are
entered with recording on too: one only reads statistics of the features, one switches to
inference mode itself before its model sees them (started under `torch.no_grad()`, which
the new thread does not inherit), and one clones the features first.
"""

import threading

import torch
from torch import nn

results = {}


def log_statistics(features, name="features"):
    results[name] = (features.mean().item(), features.std().item())


def predict(model, features):
    with torch.inference_mode():
        results["predictions"] = model(features).argmax(dim=1)


def finetune_on_copies(features, labels):
    head = nn.Linear(6, 3)
    loss = nn.functional.cross_entropy(head(features.clone()), labels)
    loss.backward()
    results["finetuned"] = loss.item()


def run_all(threads):
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main():
    torch.manual_seed(0)
    backbone, classifier = nn.Linear(4, 6), nn.Linear(6, 3)
    x, labels = torch.randn(5, 4), torch.randint(0, 3, (5,))
    with torch.inference_mode():
        features = backbone(x)
    stats = threading.Thread(target=log_statistics, args=(features,), kwargs={"name": "feats"})
    with torch.no_grad():
        scoring = threading.Thread(target=predict, args=(classifier, features))
    tuning = threading.Thread(target=finetune_on_copies, args=(features, labels))
    run_all([stats, scoring, tuning])
    return results


if __name__ == "__main__":
    found = main()
    assert set(found) == {"feats", "predictions", "finetuned"}, found
    print("ok")
