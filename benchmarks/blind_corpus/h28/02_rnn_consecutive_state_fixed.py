"""Character-level RNN language model trained with consecutive (adjacent) sampling.

Modelled on: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/146

Fixed version: the state carried from the previous adjacent minibatch is
detached at the start of every iteration (truncated BPTT), as the book does,
so each backward() only walks the current minibatch's graph.
"""
import math
import random

import torch
import torch.nn as nn

torch.set_num_threads(1)


CORPUS = ("the quick brown fox jumps over the lazy dog " * 6).strip()


def load_corpus(text):
    idx_to_char = sorted(set(text))
    char_to_idx = {c: i for i, c in enumerate(idx_to_char)}
    corpus_indices = [char_to_idx[c] for c in text]
    return corpus_indices, char_to_idx, idx_to_char, len(idx_to_char)


def data_iter_consecutive(corpus_indices, batch_size, num_steps):
    corpus = torch.tensor(corpus_indices, dtype=torch.long)
    data_len = len(corpus)
    batch_len = data_len // batch_size
    indices = corpus[: batch_size * batch_len].view(batch_size, batch_len)
    epoch_size = (batch_len - 1) // num_steps
    for i in range(epoch_size):
        i = i * num_steps
        X = indices[:, i: i + num_steps]
        Y = indices[:, i + 1: i + num_steps + 1]
        yield X, Y


class RNNModel(nn.Module):
    def __init__(self, rnn_layer, vocab_size):
        super().__init__()
        self.rnn = rnn_layer
        self.hidden_size = rnn_layer.hidden_size
        self.vocab_size = vocab_size
        self.dense = nn.Linear(self.hidden_size, vocab_size)

    def forward(self, inputs, state):
        X = nn.functional.one_hot(inputs.T, self.vocab_size).float()
        Y, self.state = self.rnn(X, state)
        output = self.dense(Y.view(-1, Y.shape[-1]))
        return output, self.state


def grad_clipping(params, theta):
    norm = torch.sqrt(sum((p.grad ** 2).sum() for p in params if p.grad is not None))
    if norm > theta:
        for p in params:
            if p.grad is not None:
                p.grad.mul_(theta / norm)


def train_and_predict_rnn(model, corpus_indices, num_epochs, num_steps, lr,
                          clipping_theta, batch_size):
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history = []
    for epoch in range(num_epochs):
        l_sum, n = 0.0, 0
        state = None
        data_iter = data_iter_consecutive(corpus_indices, batch_size, num_steps)
        for X, Y in data_iter:
            if state is not None:
                # cut the link to the previous minibatch's (already freed) graph
                state = state.detach()
            output, state = model(X, state)
            y = torch.transpose(Y, 0, 1).contiguous().view(-1)
            loss = loss_fn(output, y)
            optimizer.zero_grad()
            loss.backward()
            grad_clipping(list(model.parameters()), clipping_theta)
            optimizer.step()
            l_sum += loss.item() * y.shape[0]
            n += y.shape[0]
        history.append(math.exp(l_sum / n))
    return history


def main():
    torch.manual_seed(0)
    random.seed(0)
    corpus_indices, _, _, vocab_size = load_corpus(CORPUS)
    rnn_layer = nn.RNN(input_size=vocab_size, hidden_size=32)
    model = RNNModel(rnn_layer, vocab_size)
    return train_and_predict_rnn(model, corpus_indices, num_epochs=1, num_steps=8,
                                 lr=1e-2, clipping_theta=1e-2, batch_size=4)


if __name__ == "__main__":
    try:
        hist = main()
        assert all(h == h for h in hist)
        print("FIXED: ok")
    except RuntimeError as e:
        print(f"FAILED: {e}")
