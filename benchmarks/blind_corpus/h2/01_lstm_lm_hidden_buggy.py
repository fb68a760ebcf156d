"""GG201: LSTM language model whose (h, c) state is carried across BPTT windows undetached.

Category GG201. The trainer keeps the recurrent state on ``self`` so that each truncated
BPTT window starts where the previous one ended. It stores the state returned by the
LSTM as is, so the next window's graph is chained onto the previous window's graph, whose
saved buffers were already released by the previous backward().
Torch raises: RuntimeError: Trying to backward through the graph a second time (or directly
access saved tensors after they have already been freed). ...
"""
import torch
import torch.nn as nn

VOCAB = 50
EMB = 16
HID = 32
BPTT = 8
BATCH = 4


class WordLM(nn.Module):
    def __init__(self, vocab, emb, hid, layers=2, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hid, num_layers=layers, batch_first=True, dropout=dropout)
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(hid, vocab)
        self.layers = layers
        self.hid = hid

    def init_hidden(self, batch_size, device):
        shape = (self.layers, batch_size, self.hid)
        return torch.zeros(shape, device=device), torch.zeros(shape, device=device)

    def forward(self, tokens, hidden):
        out, hidden = self.lstm(self.embed(tokens), hidden)
        return self.head(self.drop(out)), hidden


def batchify(stream, batch_size):
    n = stream.size(0) // batch_size
    return stream[: n * batch_size].view(batch_size, n)


class Trainer:
    def __init__(self, model, lr=1e-3, clip=0.25, device="cpu"):
        self.model = model.to(device)
        self.device = device
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.clip = clip
        self.hidden = None
        self.step = 0

    def train_step(self, inputs, targets):
        if self.hidden is None:
            self.hidden = self.model.init_hidden(inputs.size(0), self.device)
        self.optimizer.zero_grad()
        logits, new_hidden = self.model(inputs, self.hidden)
        loss = self.criterion(logits.reshape(-1, VOCAB), targets.reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        self.hidden = new_hidden  # bug: GG201
        self.step += 1
        return loss.item()

    def train_epoch(self, data):
        self.model.train()
        self.hidden = None
        total, n = 0.0, 0
        for i in range(0, data.size(1) - 1, BPTT):
            seq_len = min(BPTT, data.size(1) - 1 - i)
            inputs = data[:, i : i + seq_len].to(self.device)
            targets = data[:, i + 1 : i + 1 + seq_len].to(self.device)
            total += self.train_step(inputs, targets)
            n += 1
        return total / max(n, 1)


def main():
    torch.manual_seed(0)
    corpus = torch.randint(0, VOCAB, (BATCH * 40,))
    data = batchify(corpus, BATCH)
    trainer = Trainer(WordLM(VOCAB, EMB, HID))
    for epoch in range(2):
        ppl = torch.exp(torch.tensor(trainer.train_epoch(data)))
        print(f"epoch {epoch} | ppl {ppl:.2f}")


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
