"""GG610 - a generator of parameters iterated a second time sees nothing.

A character-level RNN language model (d2l "concise RNN" style) clips
gradients with a hand-written ``grad_clipping(params, theta, device)``: the
first loop over ``params`` sums the squared gradient norms, the second loop
rescales the gradients.  The caller passes ``model.parameters()``, a
generator, which is exhausted by the first loop, so the rescaling loop never
runs.  Silent effect: no clipping ever happens; after ``grad_clipping`` the
gradient norm is still above ``clipping_theta``.

Modelled on: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/101
"""
import math
import sys

import torch
import torch.nn as nn

corpus = "the quick brown fox jumps over the lazy dog and the time machine runs " * 4
idx_to_char = sorted(set(corpus))
char_to_idx = {c: i for i, c in enumerate(idx_to_char)}
corpus_indices = [char_to_idx[c] for c in corpus]
vocab_size = len(idx_to_char)

num_hiddens, num_steps, batch_size = 32, 10, 4
lr, clipping_theta, num_epochs = 1.0, 0.01, 2


class RNNModel(nn.Module):
    def __init__(self, rnn_layer, vocab_size):
        super().__init__()
        self.rnn = rnn_layer
        self.hidden_size = rnn_layer.hidden_size
        self.vocab_size = vocab_size
        self.dense = nn.Linear(self.hidden_size, vocab_size)

    def forward(self, inputs, state):
        X = nn.functional.one_hot(inputs.T, self.vocab_size).float()
        Y, state = self.rnn(X, state)
        return self.dense(Y.reshape(-1, Y.shape[-1])), state


def grad_clipping(params, theta, device):
    norm = torch.tensor([0.0], device=device)
    for param in params:
        norm += (param.grad.data ** 2).sum()
    norm = norm.sqrt().item()
    if norm > theta:
        for param in params:
            param.grad.data *= (theta / norm)


def grad_norm(model):
    return math.sqrt(sum(float((p.grad ** 2).sum()) for p in model.parameters() if p.grad is not None))


def data_iter_consecutive(indices, batch_size, num_steps):
    data = torch.tensor(indices)
    batch_len = len(data) // batch_size
    data = data[: batch_size * batch_len].view(batch_size, batch_len)
    for i in range((batch_len - 1) // num_steps):
        j = i * num_steps
        yield data[:, j:j + num_steps], data[:, j + 1:j + num_steps + 1]


def train_and_predict_rnn_pytorch(model, device, norms_after_clip):
    loss = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    model.to(device)
    for epoch in range(num_epochs):
        l_sum, n, state = 0.0, 0, None
        for X, Y in data_iter_consecutive(corpus_indices, batch_size, num_steps):
            if state is not None:
                state = state.detach()
            output, state = model(X.to(device), state)
            l = loss(output, Y.T.reshape(-1).to(device))
            optimizer.zero_grad()
            l.backward()
            grad_clipping(model.parameters(), clipping_theta, device)  # bug: GG610
            norms_after_clip.append(grad_norm(model))
            optimizer.step()
            l_sum += l.item() * Y.numel()
            n += Y.numel()
        print(f"epoch {epoch + 1}, perplexity {math.exp(l_sum / n):.2f}")


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    model = RNNModel(nn.RNN(input_size=vocab_size, hidden_size=num_hiddens), vocab_size)
    norms = []
    train_and_predict_rnn_pytorch(model, device, norms)
    return norms


if __name__ == "__main__":
    norms = main()
    if max(norms) > clipping_theta * 1.001:
        print(f"BUGGY: gradient norm after grad_clipping is {max(norms):.3f} > theta {clipping_theta} (generator exhausted)")
        sys.exit(0)
    raise SystemExit("NO BUG")
