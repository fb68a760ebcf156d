"""FIXED version. BERT-like encoder: frozen embeddings + reentrant gradient checkpointing.

Modelled on: https://github.com/huggingface/transformers/issues/21381

The user froze the embedding layer (and first layers) and enabled gradient
checkpointing.  The encoder wraps every layer in
`torch.utils.checkpoint.checkpoint(..., use_reentrant=True)`.  With the
embeddings frozen, the hidden states entering the first checkpointed layer
do not require grad, so the reentrant checkpoint returns outputs without
grad and the checkpointed layers' parameters never receive gradients - only
the classifier head trains.
"""
import argparse

import torch
import torch.nn as nn
import torch.utils.checkpoint as cp


class Layer(nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.ff = nn.Sequential(nn.Linear(d, 32), nn.GELU(), nn.Linear(32, d))
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        return self.norm(x + self.ff(x))


class Encoder(nn.Module):
    def __init__(self, d=16, n_layers=2):
        super().__init__()
        self.layer = nn.ModuleList(Layer(d) for _ in range(n_layers))
        self.gradient_checkpointing = False

    def forward(self, hidden):
        for layer in self.layer:
            if self.gradient_checkpointing and self.training:
                hidden = cp.checkpoint(layer, hidden, use_reentrant=False)
            else:
                hidden = layer(hidden)
        return hidden


class BertLikeClassifier(nn.Module):
    def __init__(self, vocab=50, d=16, n_labels=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, d)
        self.encoder = Encoder(d)
        self.classifier = nn.Linear(d, n_labels)

    def gradient_checkpointing_enable(self):
        self.encoder.gradient_checkpointing = True

    def forward(self, input_ids):
        return self.classifier(self.encoder(self.embeddings(input_ids)).mean(1))


def freeze_embeddings(model):
    for p in model.embeddings.parameters():
        p.requires_grad = False


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=1e-2)
    args = p.parse_args(argv)
    torch.manual_seed(0)
    model = BertLikeClassifier()
    freeze_embeddings(model)
    model.gradient_checkpointing_enable()
    model.train()
    opt = torch.optim.AdamW([q for q in model.parameters() if q.requires_grad], lr=args.lr)
    ids, labels = torch.randint(0, 50, (4, 6)), torch.randint(0, 2, (4,))
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(ids), labels)
    loss.backward()
    opt.step()
    if any(q.grad is None for q in model.encoder.parameters()):
        print("BUGGY: checkpointed encoder layers received no gradient (inputs did not require grad)")
    else:
        print("FIXED: ok")


if __name__ == "__main__":
    main([])
