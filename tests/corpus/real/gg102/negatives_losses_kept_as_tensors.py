"""The fixed versions: the loss stays a tensor; numbers are taken only for logging.

Sources (rewritten in our own words, structure kept):
* https://github.com/v-mipeng/LexiconNER/issues/7 - the reporter's fix: the helper returns
  tensors; `.item()` only where values are logged.
* https://github.com/bnu-wangxun/Deep_Metric/issues/26 - the unpacking order fixed.
* https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3 - backward on the
  loss, `loss.detach().numpy()` only for the cost history.
* https://github.com/laekov/fastmoe/issues/49 - `torch.cat([loss.unsqueeze(0) ...])`.
* https://github.com/leongatys/PytorchNeuralStyleTransfer/issues/16 - `torch.stack(layer_losses)`.
* https://github.com/fundamentalvision/Uni-Perceiver/issues/2 - accuracy via argmax computed
  like a loss but only logged, never backpropagated.
"""

import torch
from torch import nn


def pu_risk(scores, labels, prior):
    positive = (labels == 1).float()
    p_risk = (nn.functional.softplus(-scores) * positive).mean()
    n_risk = (nn.functional.softplus(scores) * (1 - positive)).mean() - prior * p_risk
    risk = prior * p_risk + n_risk
    acc = ((scores > 0).float() == positive).float().mean()
    return acc, risk, p_risk, n_risk


class PuTrainer:
    def __init__(self, model, optimizer, prior) -> None:
        self.model = model
        self.optimizer = optimizer
        self.prior = prior

    def train_mini_batch(self, batch):
        features, labels = batch
        self.optimizer.zero_grad()
        acc, risk, prisk, nrisk = pu_risk(self.model(features).squeeze(1), labels, self.prior)
        risk.backward()
        self.optimizer.step()
        return acc.item(), risk.item(), prisk.item(), nrisk.item()


class WeightLoss(nn.Module):
    def forward(self, inputs, targets):
        sim = inputs @ inputs.T
        same = targets.unsqueeze(0) == targets.unsqueeze(1)
        pos_sim, neg_sim = sim[same], sim[~same]
        loss = nn.functional.relu(neg_sim.mean() - pos_sim.mean() + 0.5)
        prec = float((pos_sim.mean() > neg_sim.mean()).item())
        return loss, prec, pos_sim.mean().item(), neg_sim.mean().item()


def train_metric(model, criterion, optimizer, loader):
    for inputs, labels in loader:
        optimizer.zero_grad()
        loss, inter_, dist_ap, dist_an = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()


class DeepQNetwork:
    def __init__(self, n_features: int = 4, n_actions: int = 2) -> None:
        self.eval_net = nn.Sequential(nn.Linear(n_features, 10), nn.ReLU(), nn.Linear(10, n_actions))
        self.target_net = nn.Sequential(nn.Linear(n_features, 10), nn.ReLU(), nn.Linear(10, n_actions))
        self.loss_func = nn.MSELoss()
        self.optimizer = torch.optim.RMSprop(self.eval_net.parameters(), lr=0.01)
        self.cost_his = []

    def learn(self, s, a, r, s_, gamma):
        q_eval = self.eval_net(s).gather(1, a)
        q_next = self.target_net(s_).detach()
        q_target = r + gamma * q_next.max(1, keepdim=True).values
        loss = self.loss_func(q_eval, q_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.cost_his.append(loss.detach().numpy())


def train_balance_only(gate, tokens, steps):
    optimizer = torch.optim.SGD(gate.parameters(), lr=0.1)
    for _ in range(steps):
        probs = torch.softmax(gate(tokens), dim=-1)
        loss_list = [(p.mean() - 1.0 / probs.size(-1)) ** 2 for p in probs.T]
        balance_loss = torch.cat([loss.unsqueeze(0) for loss in loss_list]).sum()
        optimizer.zero_grad()
        balance_loss.backward()
        optimizer.step()


def style_transfer_step(opt_img, layer_outputs_fn, targets, weights, optimizer):
    optimizer.zero_grad()
    outputs = layer_outputs_fn(opt_img)
    layer_losses = [w * nn.functional.mse_loss(o, t) for w, o, t in zip(weights, outputs, targets)]
    loss = torch.sum(torch.stack(layer_losses))
    loss.backward()
    optimizer.step()
    return loss.item()


# Source: Uni-Perceiver#2 - argmax accuracy next to the loss, logged only.
def train_classifier(model, optimizer, loader):
    for images, labels in loader:
        logits = model(images)
        loss = nn.functional.cross_entropy(logits, labels)
        accuracy = (logits.argmax(dim=1) == labels).float().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.3f} acc {accuracy.item():.3f}")
