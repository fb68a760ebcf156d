"""GG604 - the network is swapped for a wider one mid-training, the optimizer is not rebuilt.

Stage 1 trains Net with an Adam optimizer built from net.parameters().  At the
stage boundary the script replaces `net` with a wider Net2 (net2net-style
weight copy) and keeps using the same optimizer.  The optimizer still holds the
old Net's tensors, which no longer receive gradients, so stage 2 silently
trains nothing: the loss goes down only by chance and Net2's weights never move.
Observable: every parameter of Net2 is unchanged after stage 2.

Modelled on: https://github.com/pytorch/pytorch/issues/54765
"""
import torch
import torch.nn as nn
import torch.optim as optim

STAGE_STEPS = 5
LR = 3e-2


class Net(nn.Module):
    def __init__(self, hidden=8):
        super().__init__()
        self.fc1 = nn.Linear(4, hidden)
        self.fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Net2(Net):
    """Same topology with a wider hidden layer."""


def widen(net, new_hidden):
    """Copy the old units into a wider network; extra units start near zero."""
    old_hidden = net.fc1.out_features
    wider = Net2(new_hidden)
    with torch.no_grad():
        wider.fc1.weight[:old_hidden] = net.fc1.weight
        wider.fc1.bias[:old_hidden] = net.fc1.bias
        wider.fc1.weight[old_hidden:].normal_(0, 1e-2)
        wider.fc2.weight.zero_()
        wider.fc2.weight[:, :old_hidden] = net.fc2.weight
        wider.fc2.bias.copy_(net.fc2.bias)
    return wider


def make_data(n=64):
    x = torch.randn(n, 4)
    y = (x[:, :1] * 2 - x[:, 1:2] + 0.5 * x[:, 2:3] ** 2)
    return x, y


def run_stage(net, optimizer, x, y, name):
    criterion = nn.MSELoss()
    for step in range(STAGE_STEPS):
        optimizer.zero_grad()
        loss = criterion(net(x), y)
        loss.backward()
        optimizer.step()
    print(f"{name}: loss {loss.item():.4f}")
    return loss.item()


def main():
    torch.manual_seed(0)
    x, y = make_data()
    net1 = Net()  # 1st network
    optimizer = optim.Adam(net1.parameters(), lr=LR)
    run_stage(net1, optimizer, x, y, "stage 1 (hidden=8)")

    net1 = widen(net1, new_hidden=16)  # bug: GG604
    before = [p.detach().clone() for p in net1.parameters()]
    run_stage(net1, optimizer, x, y, "stage 2 (hidden=16)")
    return all(torch.equal(b, p) for b, p in zip(before, net1.parameters()))


if __name__ == "__main__":
    if main():
        print("BUGGY: parameters of the widened network never changed in stage 2")
    else:
        raise SystemExit("NO BUG")
