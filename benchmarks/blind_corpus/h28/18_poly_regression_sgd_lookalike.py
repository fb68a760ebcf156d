"""Polynomial regression whose features are standardised in place.

Modelled on: https://github.com/pytorch/examples/pull/781 (counterpart)

Looks like the leaf in-place update: add_/sub_/div_ on tensors inside the
training loop while autograd is recording.  The tensors modified in place are
the data batch (a leaf that does not require grad) and a cloned copy of the
predictions; the parameters are only changed by optimizer.step().
"""
import torch
import torch.nn.functional as F

torch.set_num_threads(1)

POLY_DEGREE = 3
W_target = torch.tensor([[1.5], [-2.0], [0.5]])
b_target = 0.3


def make_features(x):
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def get_batch(batch_size=32):
    x = make_features(torch.randn(batch_size))
    return x, x.mm(W_target) + b_target


def standardise_(features, eps=1e-6):
    mean = features.mean(0, keepdim=True)
    std = features.std(0, keepdim=True)
    features.sub_(mean).div_(std + eps)
    return features


def clipped_predictions(model, x, limit=50.0):
    pred = model(x).clone()
    pred.clamp_(-limit, limit)
    return pred


def train(model, steps=20, lr=0.05):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss = None
    for _ in range(steps):
        batch_x, batch_y = get_batch()
        standardise_(batch_x)
        optimizer.zero_grad()
        loss = F.smooth_l1_loss(clipped_predictions(model, batch_x), batch_y)
        loss.backward()
        optimizer.step()
    return loss.item()


if __name__ == "__main__":
    torch.manual_seed(0)
    final = train(torch.nn.Linear(POLY_DEGREE, 1))
    assert final == final
    print("OK")
