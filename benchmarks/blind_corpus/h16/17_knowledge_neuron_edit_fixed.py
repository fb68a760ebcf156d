"""GG301: in-place edit of a weight Parameter (a leaf that requires grad) outside no_grad.

A knowledge-neuron editing script first attributes the prediction to FFN neurons with
integrated gradients (so the weights keep requires_grad=True), then "erases" a fact by
subtracting the original answer embedding from the selected columns of the FFN output
projection: `weight[:, pos] -= ...` is an in-place op on a view of a leaf that requires grad.
Torch raises: RuntimeError: a view of a leaf Variable that requires grad is being used in
an in-place operation.

Modelled on: https://github.com/Hunter-DDM/knowledge-neurons/issues/14

FIXED VERSION: the weight edit is done under torch.no_grad().
"""
import argparse

import torch
import torch.nn as nn


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=40)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--ffn", type=int, default=32)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--ig_steps", type=int, default=8)
    p.add_argument("--top_k", type=int, default=3)
    p.add_argument("--lambda_1", type=float, default=1.0)
    p.add_argument("--lambda_2", type=float, default=1.0)
    return p.parse_args([])


class Output(nn.Module):
    def __init__(self, ffn, hidden):
        super().__init__()
        self.dense = nn.Linear(ffn, hidden)


class Layer(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.intermediate = nn.Linear(hidden, ffn)
        self.output = Output(ffn, hidden)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, h, scale=None, pos=None):
        act = torch.relu(self.intermediate(h))
        if scale is not None:
            act = act.clone()
            act[:, -1, pos] = act[:, -1, pos] * scale
        return self.norm(h + self.output.dense(act)), act


class Encoder(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.layer = nn.ModuleList([Layer(args.hidden, args.ffn) for _ in range(args.layers)])


class TinyBert(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.embeddings = nn.Embedding(args.vocab, args.hidden)
        self.encoder = Encoder(args)

    def forward(self, ids, tgt_layer=None, scale=None, pos=None):
        h = self.embeddings(ids)
        for i, layer in enumerate(self.encoder.layer):
            h, _ = layer(h, scale if i == tgt_layer else None, pos)
        return h[:, -1] @ self.embeddings.weight.t()


class MaskedLM(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.bert = TinyBert(args)

    def forward(self, ids, **kw):
        return self.bert(ids, **kw)


def integrated_gradients(model, ids, label, layer, args):
    scores = torch.zeros(args.ffn)
    all_pos = torch.arange(args.ffn)
    for step in range(1, args.ig_steps + 1):
        scale = torch.full((args.ffn,), step / args.ig_steps, requires_grad=True)
        logits = model(ids, tgt_layer=layer, scale=scale, pos=all_pos)
        prob = logits.softmax(-1)[0, label]
        (grad,) = torch.autograd.grad(prob, scale)
        scores += grad / args.ig_steps
    return scores


def edit_knowledge(model, layer, positions, ori_pred_emb, tgt_emb, args):
    dense = model.bert.encoder.layer[layer].output.dense
    with torch.no_grad():  # fixed: GG301
        for pos in positions:
            dense.weight[:, pos] -= ori_pred_emb * args.lambda_1
            dense.weight[:, pos] += tgt_emb * args.lambda_2


def main():
    torch.manual_seed(0)
    args = get_args()
    model = MaskedLM(args)
    model.eval()
    ids = torch.randint(0, args.vocab, (1, 6))
    ori_pred = model(ids).argmax(-1).item()
    tgt = (ori_pred + 1) % args.vocab
    layer = args.layers - 1
    scores = integrated_gradients(model, ids, ori_pred, layer, args)
    positions = scores.topk(args.top_k).indices.tolist()
    emb = model.bert.embeddings.weight
    edit_knowledge(model, layer, positions, emb[ori_pred].detach(), emb[tgt].detach(), args)
    new_pred = model(ids).argmax(-1).item()
    print(f"original prediction {ori_pred} -> after edit {new_pred} (target {tgt})")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
