"""Hand-written updates and initialisations that change a leaf in place under autograd (GG301).

Sources (rewritten in our own words, structure kept):
* https://github.com/BaiTheBest/SparseLLM/issues/13 - an inner loop optimises a slice of the
  auxiliary variable `s` by hand: `loss_s.backward()`, then `s_batch -= lr * s_batch.grad`,
  then `s_batch.grad.zero_()`, then the slice is written back detached.
* https://github.com/pytorch/examples/pull/779 - word_language_model `train()`: after
  `clip_grad_norm_`, every parameter is updated with `p.add_(p.grad, alpha=-lr)`.
* https://github.com/pytorch/examples/pull/781 - the `regression` example fits a single
  `nn.Linear` and applies the gradient to each of its parameters in place.
* https://github.com/PingoLH/FCHarDNet/issues/61 - a test script copies merged weights into a
  freshly built convolution with `cconv.weight[:, :, :, :] = W[:, :, :, :]`.
* https://github.com/Atcold/NYU-DLSP20/issues/765 - a transformer's sinusoidal position table
  is written into `nn.Embedding.weight` by a helper that receives the weight as a parameter.
* https://github.com/Hunter-DDM/knowledge-neurons/issues/14 - a column of a BERT output
  projection is edited in place on a model the script received from a loader.

Still missed (honestly unknown to the analysis, so it stays silent):
* `s_batch -= ...` in `optimise_auxiliary`: `s[:, chunk].clone().float().requires_grad_(True)`
  is a leaf only if `s` does not require grad, and `s` is a parameter no caller in the file
  passes (if `s` required grad, `s_batch` would be a non-leaf, and the update would fail
  with a TypeError on `s_batch.grad`, which is None, instead).
* `dense.weight[:, pos] -= ...` in `edit_knowledge`: `dense` is reached through a model the
  function receives; the `.weight` of an unknown object need not be a leaf (a layer under
  `weight_norm` computes it).
"""

import math

import numpy as np
import torch
from torch import nn


# Source: SparseLLM#13. The variable lives in a bigger tensor; each chunk is optimised by hand.
def optimise_auxiliary(s, dense_out, target, chunks, steps, s_learning_rate):
    for chunk in chunks:
        s_batch = s[:, chunk].clone().float().requires_grad_(True)
        for _ in range(steps):
            loss_s = ((torch.relu(s_batch) * dense_out[:, chunk] - target[:, chunk]) ** 2).mean()
            loss_s.backward()
            s_batch -= s_learning_rate * s_batch.grad  # missed: GG301
            s_batch.grad.zero_()
        s[:, chunk] = s_batch.detach().to(dtype=s.dtype)
    return s


# Same case with the leaf created directly by a factory, as the reduction shows.
def optimise_auxiliary_fresh(dense_out, target, steps, s_learning_rate):
    s_batch = torch.zeros(dense_out.shape, requires_grad=True)
    for _ in range(steps):
        loss_s = ((torch.relu(s_batch) * dense_out - target) ** 2).mean()
        loss_s.backward()
        s_batch -= s_learning_rate * s_batch.grad  # expect: GG301
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


# Source: pytorch/examples#779, word_language_model/main.py train().
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
            p.add_(p.grad, alpha=-lr)  # expect: GG301
    return model


# Source: pytorch/examples#781, regression/main.py: a polynomial fitted by one linear layer.
def fit_polynomial(get_batch, steps):
    fc = torch.nn.Linear(4, 1)
    for _ in range(steps):
        batch_x, batch_y = get_batch()
        fc.zero_grad()
        output = torch.nn.functional.smooth_l1_loss(fc(batch_x), batch_y)
        output.backward()
        for param in fc.parameters():
            param.add_(-0.1 * param.grad)  # expect: GG301
    return fc


# Source: FCHarDNet#61, merging a conv and its batch norm into one convolution.
def merge_conv_bn(conv, bn):
    W = conv.weight * (bn.weight / torch.sqrt(bn.running_var + bn.eps)).view(-1, 1, 1, 1)
    cconv = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, padding=conv.padding)
    cconv.weight[:, :, :, :] = W[:, :, :, :]  # expect: GG301
    return cconv


# Source: NYU-DLSP20#765: the helper gets the embedding weight from the module's __init__.
def create_sinusoidal_embeddings(nb_p, dim, E):
    theta = np.array([[p / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for p in range(nb_p)])
    E[:, 0::2] = torch.FloatTensor(np.sin(theta[:, 0::2]))  # expect: GG301
    E[:, 1::2] = torch.FloatTensor(np.cos(theta[:, 1::2]))  # expect: GG301
    E.detach_()
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


# Source: knowledge-neurons#14: the model comes from the caller (a pretrained BERT).
def edit_knowledge(model, layer, pos, ori_pred_emb, tgt_emb, lambda_1, lambda_2):
    dense = model.bert.encoder.layer[layer].output.dense
    dense.weight[:, pos] -= ori_pred_emb * lambda_1  # missed: GG301
    dense.weight[:, pos] += tgt_emb * lambda_2  # missed: GG301
    return math.isfinite(float(dense.weight.sum()))
