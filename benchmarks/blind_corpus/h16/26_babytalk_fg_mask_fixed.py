"""GG402: an integer mask wrapped in nn.Parameter (which asks for requires_grad=True).

A captioning model's cascade core keeps the fine-grained-class mask (which detection
classes map to which fine-grained words) as a module attribute. The mask is built from
the vocabulary as an integer (uint8) tensor and wrapped in nn.Parameter(...), whose default
is requires_grad=True; integer tensors cannot require gradients.
Torch raises: RuntimeError: Only Tensors of floating point and complex dtype can require
gradients

Modelled on: https://github.com/jiasenlu/NeuralBabyTalk/issues/26

FIXED VERSION: the mask Parameter is created with requires_grad=False.
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn import Parameter


def build_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vocab_size", type=int, default=30)
    parser.add_argument("--detect_size", type=int, default=6)
    parser.add_argument("--fg_size", type=int, default=4)
    parser.add_argument("--rnn_size", type=int, default=32)
    parser.add_argument("--input_encoding_size", type=int, default=32)
    parser.add_argument("--att_feat_size", type=int, default=16)
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--seq_length", type=int, default=5)
    return parser.parse_args([])


def load_fg_mask(opt):
    """Mimics reading the detection->fine-grained table from the dictionary json."""
    table = {i: [(i + k) % opt.fg_size for k in range(2)] for i in range(opt.detect_size)}
    mask = torch.zeros(opt.detect_size, opt.fg_size, dtype=torch.uint8)
    for det, fgs in table.items():
        for fg in fgs:
            mask[det, fg] = 1
    return mask


class CascadeCore(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.fg_mask = Parameter(opt.fg_mask, requires_grad=False)  # fixed: GG402
        self.bn_fc = nn.Sequential(nn.Linear(opt.rnn_size + opt.att_feat_size, opt.rnn_size),
                                   nn.ReLU(), nn.Linear(opt.rnn_size, 2))
        self.fg_fc = nn.Linear(opt.rnn_size + opt.att_feat_size, opt.fg_size)

    def forward(self, h, roi_feat, det_labels):
        x = torch.cat([h, roi_feat], -1)
        bn_logprob = F.log_softmax(self.bn_fc(x), -1)
        fg_logits = self.fg_fc(x).masked_fill(self.fg_mask[det_labels] == 0, -1e4)
        return bn_logprob, F.log_softmax(fg_logits, -1)


class TopDownModel(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.embed = nn.Embedding(opt.vocab_size, opt.input_encoding_size)
        self.core = nn.LSTMCell(opt.input_encoding_size + opt.att_feat_size, opt.rnn_size)
        self.logit = nn.Linear(opt.rnn_size, opt.vocab_size)
        self.ccr_core = CascadeCore(opt)
        self.rnn_size = opt.rnn_size

    def forward(self, fc_feats, roi_feat, det_labels, seq):
        b = seq.size(0)
        state = (fc_feats.new_zeros(b, self.rnn_size), fc_feats.new_zeros(b, self.rnn_size))
        word_lp, bn_lp, fg_lp = [], [], []
        for t in range(seq.size(1)):
            xt = torch.cat([self.embed(seq[:, t]), fc_feats], -1)
            state = self.core(xt, state)
            word_lp.append(F.log_softmax(self.logit(state[0]), -1))
            bn, fg = self.ccr_core(state[0], roi_feat, det_labels)
            bn_lp.append(bn)
            fg_lp.append(fg)
        return torch.stack(word_lp, 1), torch.stack(bn_lp, 1), torch.stack(fg_lp, 1)


def train(opt, model, optimizer, n_iter=3):
    for it in range(n_iter):
        fc = torch.randn(opt.batch_size, opt.att_feat_size)
        roi = torch.randn(opt.batch_size, opt.att_feat_size)
        det = torch.randint(0, opt.detect_size, (opt.batch_size,))
        seq = torch.randint(0, opt.vocab_size, (opt.batch_size, opt.seq_length))
        word_lp, bn_lp, fg_lp = model(fc, roi, det, seq)
        loss = (F.nll_loss(word_lp[:, :-1].reshape(-1, opt.vocab_size), seq[:, 1:].reshape(-1))
                - bn_lp[..., 1].mean() - fg_lp.max(-1).values.mean())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"iter {it}: loss {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    opt = build_opt()
    opt.fg_mask = load_fg_mask(opt)
    model = TopDownModel(opt)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=5e-4)
    train(opt, model, optimizer)


if __name__ == "__main__":
    main()
    print("FIXED: ok")
