"""GG604 - the embedding layer is swapped for a pretrained one after the optimizer exists.

Mistake: `SentimentTrainer.__init__` builds Adam from `model.parameters()`;
`load_pretrained_embeddings()` is called afterwards and assigns a brand-new
`nn.Embedding.from_pretrained(..., freeze=False)` to `model.embedding`.  The
optimizer keeps the old embedding matrix; the new one is not in any param group.
Silent effect (no exception): the embedding the model actually uses gets a
gradient every step but is never updated, although it was meant to be fine-tuned.

Modelled on: https://github.com/helpmefindaname/transformer-smaller-training-vocab/pull/3
"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence
from torch.utils.data import DataLoader, TensorDataset

HPARAMS = {
    "vocab_size": 200,
    "embed_dim": 24,
    "hidden_dim": 32,
    "num_labels": 2,
    "max_len": 15,
    "lr": 2e-3,
    "epochs": 2,
    "batch_size": 16,
}


class LSTMClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, num_labels):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(0.2)
        self.out = nn.Linear(2 * hidden_dim, num_labels)

    def forward(self, ids, lengths):
        emb = self.embedding(ids)
        packed = pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
        _, (h_n, _) = self.lstm(packed)
        feats = torch.cat([h_n[-2], h_n[-1]], dim=-1)
        return self.out(self.dropout(feats))


class SentimentTrainer:
    def __init__(self, model, hp):
        self.model = model
        self.hp = hp
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=hp["lr"])
        self.loss_fn = nn.CrossEntropyLoss()
        self.metrics = {"loss": [], "acc": []}

    def load_pretrained_embeddings(self, vectors):
        vectors[0].zero_()  # padding row
        self.model.embedding = nn.Embedding.from_pretrained(vectors, freeze=False, padding_idx=0)  # bug: GG604

    def train_epoch(self, loader):
        self.model.train()
        for ids, lengths, labels in loader:
            self.optimizer.zero_grad()
            logits = self.model(ids, lengths)
            loss = self.loss_fn(logits, labels)
            loss.backward()
            self.optimizer.step()
            self.metrics["loss"].append(loss.item())
            self.metrics["acc"].append((logits.argmax(-1) == labels).float().mean().item())

    def fit(self, loader):
        for epoch in range(self.hp["epochs"]):
            self.train_epoch(loader)
            print(f"epoch {epoch}: loss={self.metrics['loss'][-1]:.4f} acc={self.metrics['acc'][-1]:.2f}")


def fake_glove(vocab_size, dim):
    """Stand-in for vectors read from a GloVe/word2vec file."""
    return torch.randn(vocab_size, dim) * 0.3


def make_loader(hp, n=64):
    lengths = torch.randint(3, hp["max_len"] + 1, (n,))
    ids = torch.randint(1, hp["vocab_size"], (n, hp["max_len"]))
    ids[torch.arange(hp["max_len"]).unsqueeze(0) >= lengths.unsqueeze(1)] = 0
    labels = torch.randint(0, hp["num_labels"], (n,))
    return DataLoader(TensorDataset(ids, lengths, labels), batch_size=hp["batch_size"], shuffle=True)


def main():
    hp = HPARAMS
    model = LSTMClassifier(hp["vocab_size"], hp["embed_dim"], hp["hidden_dim"], hp["num_labels"])
    trainer = SentimentTrainer(model, hp)
    trainer.load_pretrained_embeddings(fake_glove(hp["vocab_size"], hp["embed_dim"]))
    start = model.embedding.weight.detach().clone()
    trainer.fit(make_loader(hp))
    return model, start


def check_training():
    torch.manual_seed(0)
    model, start = main()
    emb = model.embedding.weight
    assert emb.requires_grad and emb.grad is not None, "embedding is frozen or unused"
    delta = (emb.detach() - start).abs().max().item()
    assert delta > 0, "fine-tuned embedding never changed: it is not in the optimizer's param groups"


if __name__ == "__main__":
    try:
        check_training()
    except AssertionError as err:
        print(f"BUGGY: {err}")
    else:
        raise SystemExit("NO BUG")
