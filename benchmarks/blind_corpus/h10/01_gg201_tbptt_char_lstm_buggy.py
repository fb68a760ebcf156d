"""GG201: recurrent hidden state carried into the next chunk without .detach().

Mistake: a truncated-BPTT character language model keeps the LSTM (h, c) pair on
``Trainer.hidden`` so that each chunk of the long token stream continues from the
state left by the previous chunk.  The state returned by the LSTM is stored
unchanged, so the graph of chunk k+1 hangs off the graph of chunk k, which the
previous ``loss.backward()`` has already freed.
torch raises on the second step: RuntimeError: Trying to backward through the
graph a second time (or directly access saved tensors after they have already
been freed). ...
Modelled on: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(argv=None):
    p = argparse.ArgumentParser(description="char-level LSTM with truncated BPTT")
    p.add_argument("--vocab", type=int, default=32)
    p.add_argument("--emb", type=int, default=16)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--bptt", type=int, default=12)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--clip", type=float, default=0.5)
    p.add_argument("--log-every", type=int, default=2)
    return p.parse_args(argv)


def batchify(stream, bsz):
    """Cut a 1-D token stream into ``bsz`` parallel columns, shape (T, B)."""
    n = stream.size(0) // bsz
    return stream[: n * bsz].view(bsz, n).t().contiguous()


def get_chunk(source, i, bptt):
    seq_len = min(bptt, source.size(0) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len]


class CharLM(nn.Module):
    def __init__(self, vocab, emb, hidden, layers, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, num_layers=layers, dropout=dropout)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hidden, vocab)
        self.layers = layers
        self.hidden_size = hidden

    def init_hidden(self, bsz, device):
        zeros = torch.zeros(self.layers, bsz, self.hidden_size, device=device)
        return (zeros, zeros.clone())

    def forward(self, tokens, hidden):
        out, hidden = self.rnn(self.drop(self.embed(tokens)), hidden)
        return self.head(self.drop(out)), hidden


class Trainer:
    def __init__(self, model, optimizer, args, device):
        self.model = model
        self.optimizer = optimizer
        self.args = args
        self.device = device
        self.hidden = None
        self.history = []

    def train_step(self, inputs, targets):
        self.model.train()
        self.optimizer.zero_grad()
        logits, new_hidden = self.model(inputs, self.hidden)
        self.hidden = new_hidden  # bug: GG201
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
        self.optimizer.step()
        return loss.item()

    def train_epoch(self, data, epoch):
        self.hidden = self.model.init_hidden(data.size(1), self.device)
        total = 0.0
        steps = 0
        for batch, i in enumerate(range(0, data.size(0) - 1, self.args.bptt)):
            inputs, targets = get_chunk(data, i, self.args.bptt)
            total += self.train_step(inputs.to(self.device), targets.to(self.device))
            steps += 1
            if batch % self.args.log_every == 0:
                avg = total / steps
                print(f"epoch {epoch} | batch {batch:3d} | loss {avg:.3f} | ppl {math.exp(avg):.1f}")
        self.history.append(total / max(steps, 1))
        return self.history[-1]


def main():
    args = get_args([])
    torch.manual_seed(0)
    device = torch.device("cpu")
    stream = torch.randint(0, args.vocab, (400,))
    train_data = batchify(stream, args.batch_size)
    model = CharLM(args.vocab, args.emb, args.hidden, args.layers).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    trainer = Trainer(model, optimizer, args, device)
    trainer.train_epoch(train_data, epoch=1)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print("BUGGY:", str(err).splitlines()[0])
    else:
        raise SystemExit("NO BUG")
