"""A cut prediction scored against the targets of a data loader has no graph (GG103, GG101).

`for x, y in loader:` over a loader handed in, whose body feeds `x` to the model, draws
batches of data: a DataLoader never yields tensors that require grad, so a loss computed
from a detached (or no_grad) prediction and `y` alone has no history, and `loss.backward()`
raises "element 0 of tensors does not require grad and does not have a grad_fn". Even if the
targets did require grad, the backward pass could not reach the model through the cut.
The shape is the common one of forum threads on that error: a `.detach()` added to compute
a metric, or an evaluation-style `no_grad` block, moved into the training step.

The same holds for the model's output computed under `torch.no_grad()` (GG101), and for a
step function of the file that every call hands a batch (`classifier_step(model, opt, x,
y)` inside the loop).

The look-alikes: a DQN target that detaches only the bootstrapped target (the prediction
keeps its graph), a linear probe on detached features and one on features a frozen
backbone computed under no_grad (the head is trained), distillation from a no_grad
teacher, adversarial inputs made under no_grad, pairs zipped from outputs and targets (not
a loader), a loop that calls nothing unknown with what it draws, adversarial inputs given
requires_grad, and a step function one of whose calls passes a target with history.
"""

import torch
import torch.nn.functional as F


def train_epoch(model, loader, optimizer, device):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        logits = model(x).detach()  # expect: GG103
        loss = F.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()


def train_with_progress(model, loader, lr):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for step, batch in enumerate(loader):
        images, labels = batch[0].float(), batch[1].long()
        with torch.no_grad():  # expect: GG101
            scores = model(images.view(-1, 784))
        loss = F.nll_loss(scores.log_softmax(dim=1), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


class Regressor:
    def __init__(self, net, loader):
        self.net = net
        self.loader = loader
        self.optimizer = torch.optim.Adam(net.parameters())

    def fit_epoch(self):
        for inputs, targets in self.loader:
            pred = self.net(inputs)
            loss = F.mse_loss(pred.detach(), targets.float() / 255.0)  # expect: GG103
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


def train_scored_without_grad(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.no_grad():  # expect: GG101
            out = model(x)
        loss = F.mse_loss(out, y)
        loss.backward()
        optimizer.step()


def classifier_step(model, optimizer, inputs, labels):
    optimizer.zero_grad()
    probs = model(inputs).softmax(dim=1).detach()  # expect: GG103
    loss = F.nll_loss(probs.log(), labels)
    loss.backward()
    optimizer.step()


def fit(model, optimizer, loader, epochs):
    for _ in range(epochs):
        for inputs, labels in loader:
            classifier_step(model, optimizer, inputs, labels)


# --- look-alikes ---------------------------------------------------------------------------


def regression_step(model, optimizer, inputs, targets):
    optimizer.zero_grad()
    loss = F.mse_loss(model(inputs).detach(), targets)
    loss.backward()
    optimizer.step()


def fit_and_match(model, teacher, optimizer, loader):
    # The second call passes a target with history: the targets are not always batch data.
    for inputs, targets in loader:
        regression_step(model, optimizer, inputs, targets)
        regression_step(model, optimizer, inputs, teacher(inputs))


def probe_on_frozen_features(backbone, head, loader, optimizer):
    for x, y in loader:
        with torch.no_grad():
            features = backbone(x)
        loss = F.cross_entropy(head(features), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def adversarial_batch_then_train(model, attack, loader, optimizer):
    for x, y in loader:
        with torch.no_grad():
            x_adv = attack(x)
        loss = F.cross_entropy(model(x_adv), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def dqn_update(policy_net, target_net, replay, optimizer, gamma):
    for states, actions, rewards, next_states in replay:
        q = policy_net(states).gather(1, actions)
        bootstrap = target_net(next_states).max(1)[0].detach()
        target = rewards + gamma * bootstrap
        loss = F.smooth_l1_loss(q.squeeze(1), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def linear_probe(backbone, head, loader, optimizer):
    for x, y in loader:
        features = backbone(x).detach()
        loss = F.cross_entropy(head(features), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def distill(student, teacher, loader, optimizer, temperature):
    for x, _ in loader:
        with torch.no_grad():
            soft = (teacher(x) / temperature).softmax(dim=1)
        log_probs = (student(x) / temperature).log_softmax(dim=1)
        loss = F.kl_div(log_probs, soft, reduction="batchmean")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def zipped_pairs(outputs, targets):
    total = 0.0
    for out, tgt in zip(outputs, targets):
        total = total + F.mse_loss(out, tgt.detach())
    total.backward()


def pairs_without_a_model(pairs):
    total = 0.0
    for out, tgt in pairs:
        total = total + F.mse_loss(out, tgt.detach())
    total.backward()


def adversarial_inputs(model, loader, epsilon):
    for x, y in loader:
        x.requires_grad_()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        x_adv = (x + epsilon * x.grad.sign()).detach()
        yield x_adv, y


def inputs_marked_trainable(model, loader, optimizer):
    for x, y in loader:
        x.requires_grad = True
        pred = model(x)
        loss = F.mse_loss(x.detach() * 0 + pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
