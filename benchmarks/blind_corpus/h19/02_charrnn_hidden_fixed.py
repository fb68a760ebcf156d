"""GG201 (fixed) - RNN hidden state carried into the next iteration, detached.

Same char-RNN as the buggy version. The hidden state is still kept on
``self.hidden`` between calls (the context is carried), but it is detached before
it is fed back, so each epoch builds and frees only its own graph (truncated
backprop through time). Without the detach torch raised
  RuntimeError: Trying to backward through the graph a second time ...

Modelled on: https://github.com/gabrielloye/RNN-walkthrough/issues/3
"""
import argparse

import torch
import torch.nn as nn


def get_args():
    parser = argparse.ArgumentParser(description="tiny char-rnn")
    parser.add_argument("--hidden-dim", type=int, default=12)
    parser.add_argument("--n-layers", type=int, default=1)
    parser.add_argument("--n-epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args([])


TEXT = ["hey how are you", "good i am fine", "have a nice day"]


def build_vocab(sentences):
    chars = sorted(set("".join(sentences)))
    int2char = dict(enumerate(chars))
    char2int = {ch: idx for idx, ch in int2char.items()}
    return int2char, char2int


def pad_sentences(sentences):
    maxlen = max(len(s) for s in sentences)
    return [s.ljust(maxlen) for s in sentences]


def one_hot_encode(sequences, dict_size):
    features = torch.zeros(len(sequences), len(sequences[0]), dict_size)
    for i, seq in enumerate(sequences):
        for t, idx in enumerate(seq):
            features[i, t, idx] = 1.0
    return features


def make_dataset(sentences, char2int):
    input_seq, target_seq = [], []
    for s in sentences:
        input_seq.append([char2int[c] for c in s[:-1]])
        target_seq.append([char2int[c] for c in s[1:]])
    inputs = one_hot_encode(input_seq, len(char2int))
    targets = torch.tensor(target_seq, dtype=torch.long)
    return inputs, targets


class Model(nn.Module):
    def __init__(self, input_size, output_size, hidden_dim, n_layers, batch_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.n_layers = n_layers
        self.rnn = nn.RNN(input_size, hidden_dim, n_layers, batch_first=True)
        self.fc = nn.Linear(hidden_dim, output_size)
        # the state is kept between calls so the model "remembers" context
        self.hidden = self.init_hidden(batch_size)

    def init_hidden(self, batch_size):
        return torch.zeros(self.n_layers, batch_size, self.hidden_dim)

    def forward(self, x):
        out, self.hidden = self.rnn(x, self.hidden.detach())  # fixed: GG201
        out = out.contiguous().view(-1, self.hidden_dim)
        out = self.fc(out)
        return out


def train(model, inputs, targets, args):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    history = []
    for epoch in range(1, args.n_epochs + 1):
        optimizer.zero_grad()
        output = model(inputs)
        loss = criterion(output, targets.view(-1))
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        print(f"Epoch: {epoch}/{args.n_epochs}.............Loss: {loss.item():.4f}")
    return history


def predict(model, int2char, char2int, start="hey"):
    model.eval()
    with torch.no_grad():
        chars = [char2int[c] for c in start]
        x = one_hot_encode([chars], len(char2int))
        h = model.init_hidden(1)
        out, _ = model.rnn(x, h)
        logits = model.fc(out[:, -1])
        return int2char[int(logits.argmax(dim=-1))]


def main():
    args = get_args()
    torch.manual_seed(args.seed)
    sentences = pad_sentences(TEXT)
    int2char, char2int = build_vocab(sentences)
    inputs, targets = make_dataset(sentences, char2int)
    dict_size = len(char2int)
    model = Model(dict_size, dict_size, args.hidden_dim, args.n_layers, inputs.size(0))
    history = train(model, inputs, targets, args)
    print("next char after 'hey':", repr(predict(model, int2char, char2int)))
    return history


if __name__ == "__main__":
    main()
    print("FIXED: ok")
