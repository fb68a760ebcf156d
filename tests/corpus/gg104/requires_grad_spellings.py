"""Every spelling of "freeze the whole model" before a backward pass."""

import torch
import torch.nn as nn


def freeze_with_method():
    encoder = nn.Sequential(nn.Embedding(100, 16), nn.Linear(16, 16))
    encoder.requires_grad_(requires_grad=False)  # expect: GG104
    tokens = torch.randint(0, 100, (4, 7))
    loss = encoder(tokens).pow(2).mean()
    loss.backward()


def freeze_named_parameters():
    rnn = nn.GRU(8, 16, batch_first=True)
    for name, weight in rnn.named_parameters():  # expect: GG104
        weight.requires_grad_(False)
    output, hidden = rnn(torch.randn(2, 5, 8))
    torch.autograd.backward(hidden.sum())


def freeze_moved_model():
    device = torch.device("cpu")
    net = nn.Linear(10, 1)
    net = net.to(device)
    for p in net.parameters():  # expect: GG104
        p.requires_grad = False
    net.eval()
    inputs = torch.rand(3, 10, device=device)
    grads = torch.autograd.grad(net(inputs).sum(), inputs=[inputs])
    print(grads)


freeze_with_method()
freeze_named_parameters()
freeze_moved_model()
