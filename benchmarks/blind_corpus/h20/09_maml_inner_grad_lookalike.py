"""GG503 look-alike - autograd.grad without create_graph, used for an update under no_grad.

A Reptile-style meta learner: the inner loop takes autograd.grad of the support
loss (no create_graph) and applies the step to cloned weights inside
torch.no_grad(). The gradients are never differentiated again or added to a
loss; the meta update is an explicit interpolation, so first-order gradients
are exactly what is wanted.

Modelled on: https://github.com/dragen1860/MAML-Pytorch/issues/17
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

ARGS = dict(n_way=3, k_spt=4, in_dim=6, hidden=16, inner_lr=0.1,
            inner_steps=3, meta_step=0.5, meta_iters=3)


def make_net(args):
    return nn.Sequential(nn.Linear(args["in_dim"], args["hidden"]), nn.Tanh(),
                         nn.Linear(args["hidden"], args["n_way"]))


def inner_adapt(net, x, y, args):
    fast = copy.deepcopy(net)
    params = list(fast.parameters())
    for _ in range(args["inner_steps"]):
        loss = F.cross_entropy(fast(x), y)
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p.sub_(args["inner_lr"] * g)
    return fast


def reptile_step(net, tasks, args):
    adapted = [inner_adapt(net, x, y, args) for x, y in tasks]
    with torch.no_grad():
        for name, p in net.named_parameters():
            mean_fast = torch.stack([dict(a.named_parameters())[name] for a in adapted]).mean(0)
            p.add_(args["meta_step"] * (mean_fast - p))


def main():
    torch.manual_seed(0)
    net = make_net(ARGS)
    before = [p.detach().clone() for p in net.parameters()]
    for it in range(ARGS["meta_iters"]):
        tasks = [(torch.randn(ARGS["n_way"] * ARGS["k_spt"], ARGS["in_dim"]),
                  torch.arange(ARGS["n_way"]).repeat(ARGS["k_spt"])) for _ in range(2)]
        reptile_step(net, tasks, ARGS)
    moved = any(not torch.equal(a, b.detach()) for a, b in zip(before, net.parameters()))
    assert moved
    print("meta parameters updated")


if __name__ == "__main__":
    main()
    print("OK")
