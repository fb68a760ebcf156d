"""GG402 look-alike - integer tensors next to requires_grad, none of them asking for it.

A skeleton GCN with a learnable adjacency: the learnable part is a float
nn.Parameter, while the integer neighbour index is a registered buffer and the
edge list an ``nn.Parameter(..., requires_grad=False)``. Class labels are int64
and a float one-hot is built from them with ``.float().requires_grad_(False)``;
a learnable float temperature uses ``torch.tensor(1.0, requires_grad=True)``.
Looks like requires_grad on integer tensors; runs cleanly.

Modelled on: https://github.com/kchengiva/Shift-GCN/issues/29
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_POINT, IN_CH, HID, NUM_CLASS, FRAMES = 10, 3, 16, 4, 8
EDGES = [(i, i + 1) for i in range(NUM_POINT - 1)]


class AdaptiveGraphConv(nn.Module):
    def __init__(self, in_ch, out_ch, num_point, edges):
        super().__init__()
        edge_index = torch.tensor(edges, dtype=torch.long).t()
        self.edge_index = nn.Parameter(edge_index, requires_grad=False)
        A = torch.eye(num_point)
        A[edge_index[0], edge_index[1]] = 1.0
        A[edge_index[1], edge_index[0]] = 1.0
        self.register_buffer("A", A / A.sum(1, keepdim=True))
        self.register_buffer("neighbour_idx", torch.roll(torch.arange(num_point), 1))
        self.PA = nn.Parameter(torch.zeros(num_point, num_point))
        self.conv = nn.Conv2d(in_ch, out_ch, 1)

    def forward(self, x):
        shifted = x.index_select(3, self.neighbour_idx)
        x = self.conv(x + 0.1 * shifted)
        return torch.einsum("nctv,vw->nctw", x, self.A + self.PA)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gcn1 = AdaptiveGraphConv(IN_CH, HID, NUM_POINT, EDGES)
        self.gcn2 = AdaptiveGraphConv(HID, HID, NUM_POINT, EDGES)
        self.fc = nn.Linear(HID, NUM_CLASS)
        self.log_temp = nn.Parameter(torch.tensor(0.0, requires_grad=True))

    def forward(self, x):
        x = F.relu(self.gcn1(x))
        x = F.relu(self.gcn2(x))
        return self.fc(x.mean(dim=(2, 3))) / self.log_temp.exp()


def main():
    torch.manual_seed(0)
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    trainable = [n for n, p in net.named_parameters() if p.requires_grad]
    assert all(not n.endswith("edge_index") for n in trainable)
    for step in range(3):
        x = torch.randn(4, IN_CH, FRAMES, NUM_POINT)
        labels = torch.randint(0, NUM_CLASS, (4,))
        soft_target = F.one_hot(labels, NUM_CLASS).float().requires_grad_(False) * 0.9 + 0.1 / NUM_CLASS
        logits = net(x)
        loss = -(soft_target * F.log_softmax(logits, dim=1)).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step}: loss={loss.item():.4f}")


if __name__ == "__main__":
    main()
    print("OK")
