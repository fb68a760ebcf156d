"""Category GG201 look-alike - hidden state carried across batches, but repackaged.

A truncated-BPTT word language model keeps the GRU hidden state between
consecutive chunks of the token stream, exactly the pattern that fails when
the state is not detached. Here the trainer calls ``repackage_hidden`` at the
top of every chunk, so each backward() only walks the current chunk's graph.
No error; prints OK.
Modelled on: https://github.com/flairNLP/flair/issues/1062 (TBPTT discussion)
"""
import torch
import torch.nn as nn

CONFIG = {
    "vocab": 50,
    "emb": 16,
    "hidden": 24,
    "bptt": 5,
    "batch": 3,
    "lr": 0.5,
    "clip": 0.25,
}


def batchify(stream, bsz):
    nbatch = stream.size(0) // bsz
    return stream[: nbatch * bsz].view(bsz, -1).t().contiguous()


def get_chunk(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


def repackage_hidden(h):
    """Wrap hidden states in new tensors so they no longer reference their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


class WordGRU(nn.Module):
    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.encoder = nn.Embedding(vocab, emb)
        self.rnn = nn.GRU(emb, hidden)
        self.decoder = nn.Linear(hidden, vocab)
        self.hidden_size = hidden

    def init_hidden(self, bsz):
        return torch.zeros(1, bsz, self.hidden_size)

    def forward(self, tokens, hidden):
        out, hidden = self.rnn(self.encoder(tokens), hidden)
        return self.decoder(out), hidden


class LMTrainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.criterion = nn.CrossEntropyLoss()
        self.history = []

    def train_epoch(self, train_data):
        self.model.train()
        hidden = self.model.init_hidden(self.cfg["batch"])
        for batch, i in enumerate(range(0, train_data.size(0) - 1, self.cfg["bptt"])):
            data, targets = get_chunk(train_data, i, self.cfg["bptt"])
            hidden = repackage_hidden(hidden)
            self.model.zero_grad()
            output, hidden = self.model(data, hidden)
            loss = self.criterion(output.view(-1, self.cfg["vocab"]), targets.reshape(-1))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["clip"])
            with torch.no_grad():
                for p in self.model.parameters():
                    p.add_(p.grad, alpha=-self.cfg["lr"])
            self.history.append(loss.item())
        return sum(self.history) / len(self.history)


def main():
    torch.manual_seed(0)
    stream = torch.randint(0, CONFIG["vocab"], (64,))
    train_data = batchify(stream, CONFIG["batch"])
    model = WordGRU(CONFIG["vocab"], CONFIG["emb"], CONFIG["hidden"])
    trainer = LMTrainer(model, CONFIG)
    avg = trainer.train_epoch(train_data)
    assert len(trainer.history) > 2
    print(f"avg loss {avg:.3f}")


if __name__ == "__main__":
    main()
    print("OK")
