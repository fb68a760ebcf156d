"""The fixed versions of the in-place leaf updates: under torch.no_grad(), on .data, or out of place.

Sources (rewritten in our own words, structure kept):
* https://github.com/BaiTheBest/SparseLLM/issues/13 - the maintainer's fix: rebind
  `s_batch = s_batch - lr * s_batch.grad` (out of place), here also the no_grad variant.
* https://github.com/pytorch/examples/pull/779 - the merged fix: `p.data.add_(p.grad, alpha=-lr)`.
* https://github.com/pytorch/examples/pull/781 - the regression example, update under no_grad.
* https://github.com/PingoLH/FCHarDNet/issues/61 - copying merged weights under no_grad.
* https://github.com/Atcold/NYU-DLSP20/issues/765 - the sinusoidal table written under no_grad.
"""

import numpy as np
import torch
from torch import nn


def optimise_auxiliary_out_of_place(dense_out, target, steps, s_learning_rate):
    s_batch = torch.zeros(dense_out.shape, requires_grad=True)
    for _ in range(steps):
        loss_s = ((torch.relu(s_batch) * dense_out - target) ** 2).mean()
        loss_s.backward()
        s_batch = (s_batch - s_learning_rate * s_batch.grad).detach().requires_grad_(True)
    return s_batch


def optimise_auxiliary_no_grad(dense_out, target, steps, s_learning_rate):
    s_batch = torch.zeros(dense_out.shape, requires_grad=True)
    for _ in range(steps):
        loss_s = ((torch.relu(s_batch) * dense_out - target) ** 2).mean()
        loss_s.backward()
        with torch.no_grad():
            s_batch -= s_learning_rate * s_batch.grad
        s_batch.grad.zero_()
    return s_batch


class RNNModel(nn.Module):
    def __init__(self, ntoken=10, ninp=8, nhid=8):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, inp, hidden):
        emb = self.encoder(inp)
        output, hidden = self.rnn(emb, hidden)
        return self.decoder(output), hidden


def train_language_model(batches, lr, clip):
    model = RNNModel()
    criterion = nn.CrossEntropyLoss()
    for data, targets in batches:
        model.zero_grad()
        output, _ = model(data, None)
        loss = criterion(output.view(-1, 10), targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
    return model


def fit_polynomial(get_batch, steps):
    fc = torch.nn.Linear(4, 1)
    for _ in range(steps):
        batch_x, batch_y = get_batch()
        fc.zero_grad()
        output = torch.nn.functional.smooth_l1_loss(fc(batch_x), batch_y)
        output.backward()
        with torch.no_grad():
            for param in fc.parameters():
                param.add_(-0.1 * param.grad)
    return fc


def merge_conv_bn(conv, bn):
    W = conv.weight * (bn.weight / torch.sqrt(bn.running_var + bn.eps)).view(-1, 1, 1, 1)
    cconv = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, padding=conv.padding)
    with torch.no_grad():
        cconv.weight[:, :, :, :] = W[:, :, :, :]
    return cconv


def create_sinusoidal_embeddings(nb_p, dim, E):
    theta = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for p in range(nb_p)])
    with torch.no_grad():
        E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))
        E[:, 1::2] = torch.FloatTensor(np.cos(theta[:, 1::2]))
    E.requires_grad = False


class Embeddings(nn.Module):
    def __init__(self, d_model, vocab_size, max_position_embeddings):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, d_model, padding_idx=1)
        self.position_embeddings = nn.Embedding(max_position_embeddings, d_model)
        create_sinusoidal_embeddings(max_position_embeddings, d_model, self.position_embeddings.weight)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.size(1)).unsqueeze(0)
        return self.word_embeddings(input_ids) + self.position_embeddings(positions)
