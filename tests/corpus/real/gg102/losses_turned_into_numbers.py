"""Losses that became Python numbers, detached copies or fresh leaf tensors before backward.

Covers GG102 (`.item()` / numpy data), GG103 (`.detach()`), GG105 (`torch.tensor` of loss
tensors) and GG108 (argmax on the way to the loss); one theme: the history is cut. Markers sit where
GradGuard reports these rules: on the call that cuts the history.

Sources (rewritten in our own words, structure kept):
* https://github.com/v-mipeng/LexiconNER/issues/7 - `train_mini_batch` gets
  `acc, risk, prisk, nrisk` from the PU-risk helper, which returns Python floats;
  `(risk).backward()` raises "'float' object has no attribute 'backward'".
* https://github.com/bnu-wangxun/Deep_Metric/issues/26 - the loss returns
  `(mean_pos_sim, mean_neg_sim, prec, loss)`, the trainer unpacks `loss, inter_, dist_ap,
  dist_an`: the first element, a number from `.item()`, gets `.backward()`.
* https://github.com/nyukat/breast_cancer_classifier/issues/56 - predictions averaged through
  numpy/pandas, rebuilt with `torch.tensor(predictions, requires_grad=True)` and backpropagated:
  the model receives no gradient.
* https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3 - DQN `learn()`;
  `.detach()` added around the loss to get past "Can't call numpy() on Tensor that requires grad".
* https://github.com/laekov/fastmoe/issues/49 - the balance loss is `torch.tensor(loss_list)`,
  which drops every `grad_fn`.
* https://github.com/LZGMatrix/BOP19_CDPN_2019ICCV/issues/4 - coordinates decoded with
  `torch.argmax` then `.float()` feed the loss: "element 0 of tensors does not require grad".
"""

import numpy as np
import torch
from torch import nn


# Source: LexiconNER#7, the risk helper returns numbers.
def pu_risk(scores, labels, prior):
    positive = (labels == 1).float()
    p_risk = (nn.functional.softplus(-scores) * positive).mean()
    n_risk = (nn.functional.softplus(scores) * (1 - positive)).mean() - prior * p_risk
    risk = prior * p_risk + n_risk
    acc = ((scores > 0).float() == positive).float().mean()
    return acc.item(), risk.item(), p_risk.item(), n_risk.item()  # expect: GG102


class PuTrainer:
    def __init__(self, model, optimizer, prior) -> None:
        self.model = model
        self.optimizer = optimizer
        self.prior = prior

    def train_mini_batch(self, batch):
        features, labels = batch
        self.optimizer.zero_grad()
        acc, risk, prisk, nrisk = pu_risk(self.model(features).squeeze(1), labels, self.prior)
        (risk).backward()
        self.optimizer.step()
        return acc, risk, prisk, nrisk


# Source: Deep_Metric#26, the loss module's return order.
class WeightLoss(nn.Module):
    def forward(self, inputs, targets):
        sim = inputs @ inputs.T
        same = targets.unsqueeze(0) == targets.unsqueeze(1)
        pos_sim, neg_sim = sim[same], sim[~same]
        loss = nn.functional.relu(neg_sim.mean() - pos_sim.mean() + 0.5)
        prec = float((pos_sim.mean() > neg_sim.mean()).item())
        return pos_sim.mean().item(), neg_sim.mean().item(), prec, loss  # missed: GG102


# Source: Deep_Metric#26, trainer.py train(): the unpacking order does not match.
def train_metric(model, criterion, optimizer, loader):
    for inputs, labels in loader:
        optimizer.zero_grad()
        embed_feat = model(inputs)
        loss, inter_, dist_ap, dist_an = criterion(embed_feat, labels)
        loss.backward()
        optimizer.step()


# Source: breast_cancer_classifier#56, predictions through numpy and back.
def run_model(model, images, birads_labels, loss, optimizer):
    output = model(images)
    batch_predictions = torch.softmax(output, dim=1).cpu().detach().numpy()  # missed: GG102
    predictions = batch_predictions.reshape(-1, 2, 2).mean(axis=1)
    gt = torch.tensor(np.asarray(birads_labels), dtype=torch.float)
    predictions = torch.tensor(predictions, requires_grad=True)
    l = loss(predictions, gt)
    l.backward()
    optimizer.step()


class DeepQNetwork:
    """ClownW#3: the Morvan-style DQN, with the detach put on the loss itself."""

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
        loss = self.loss_func(q_eval, q_target).detach()  # expect: GG103
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.cost_his.append(loss.numpy())


# Source: fastmoe#49, the balance loss gathered from every MoE layer.
def add_balance_loss(model, main_loss, coefficient):
    loss_list = [layer.balance_loss for layer in model.moe_layers]
    balance_loss = torch.tensor(loss_list).sum() * coefficient  # missed: GG105
    return main_loss + balance_loss


def train_balance_only(gate, tokens, steps):
    optimizer = torch.optim.SGD(gate.parameters(), lr=0.1)
    for _ in range(steps):
        probs = torch.softmax(gate(tokens), dim=-1)
        loss_list = [(p.mean() - 1.0 / probs.size(-1)) ** 2 for p in probs.T]
        balance_loss = torch.tensor(loss_list, requires_grad=True).sum()  # expect: GG105
        optimizer.zero_grad()
        balance_loss.backward()
        optimizer.step()


# Source: CDPN#4, decoding the coordinate bins before the loss.
def train_coordinates(model, optimizer, images, coor_gt, coor_bin):
    out_x, out_y, out_z = model(images)
    coor = torch.stack(
        [torch.argmax(out_x, dim=1), torch.argmax(out_y, dim=1), torch.argmax(out_z, dim=1)],  # missed: GG108
        dim=1,
    )
    coor = 2.0 * coor.float() / (coor_bin - 1.0) - 1.0
    loss = nn.functional.l1_loss(coor, coor_gt)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


# Source: CDPN#4 with the head built in the file (a Linear per axis).
def train_coordinates_local(images, coor_gt, coor_bin, steps):
    head = nn.Linear(8, coor_bin)
    optimizer = torch.optim.Adam(head.parameters())
    for _ in range(steps):
        coor = torch.argmax(head(images), dim=1).float()  # missed: GG108
        loss = nn.functional.l1_loss(coor, coor_gt)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
