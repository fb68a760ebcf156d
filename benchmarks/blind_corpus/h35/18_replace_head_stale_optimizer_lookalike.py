"""Transfer-learning setup that swaps the head before building the optimizer.

Modelled on: https://github.com/feedly/transfer-nlp/pull/14 (counterpart)

Look-alike: the classifier head is replaced after the model is created,
but the optimizer is only constructed afterwards (and a second head added
later is registered with add_param_group), so every trained parameter is
known to the optimizer.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab, dim)
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.fc = nn.Linear(dim, 3)

    def forward(self, tokens):
        return self.fc(self.body(self.embedding(tokens)))


def build_for_new_task(num_labels):
    model = Encoder()
    for p in model.parameters():
        p.requires_grad = False
    model.fc = nn.Linear(model.fc.in_features, num_labels)
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
    return model, optimizer


def add_aux_head(model, optimizer, num_aux):
    model.aux = nn.Linear(model.fc.in_features, num_aux)
    optimizer.add_param_group({"params": model.aux.parameters()})


def train(model, optimizer, steps=3):
    g = torch.Generator().manual_seed(0)
    for _ in range(steps):
        tokens = torch.randint(0, 50, (6, 5), generator=g)
        y = torch.randint(0, 4, (6,), generator=g)
        feats = model.body(model.embedding(tokens))
        loss = F.cross_entropy(model.fc(feats), y) + F.cross_entropy(model.aux(feats), y % 2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    torch.manual_seed(0)
    model, opt = build_for_new_task(4)
    add_aux_head(model, opt, 2)
    w_fc, w_aux = model.fc.weight.detach().clone(), model.aux.weight.detach().clone()
    train(model, opt)
    assert not torch.equal(w_fc, model.fc.weight) and not torch.equal(w_aux, model.aux.weight)
    print("OK")
