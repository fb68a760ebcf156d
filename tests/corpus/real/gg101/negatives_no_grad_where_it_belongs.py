"""Correct no-grad use in the same shapes: validation only, targets only, guarded backward.

Sources (rewritten in our own words, structure kept):
* https://github.com/nianticlabs/monodepth2/issues/24 - the published `val()`: no_grad, losses
  logged, never backpropagated; training runs `process_batch` with gradients on.
* https://github.com/UKPLab/sentence-transformers/pull/2668 - the fix: the cached loss only
  backpropagates when `torch.is_grad_enabled()`.
* https://github.com/facebookresearch/dinov2/issues/472 - the fix: only the frozen backbone's
  features are computed without gradients; the trainable head runs with them.
* PyTorch transfer-learning tutorial (https://pytorch.org/tutorials/beginner/
  transfer_learning_tutorial.html): `torch.set_grad_enabled(phase == "train")` with the
  backward under `if phase == "train"`.
* DQN target computed under no_grad (pytorch/tutorials reinforcement_q_learning).
"""

import torch
from torch import nn


class DepthTrainer:
    def __init__(self) -> None:
        self.models = {"encoder": nn.Linear(6, 4), "depth": nn.Linear(4, 1)}
        params = list(self.models["encoder"].parameters()) + list(self.models["depth"].parameters())
        self.model_optimizer = torch.optim.Adam(params, lr=1e-4)

    def process_batch(self, inputs):
        features = self.models["encoder"](inputs["color"])
        outputs = {"depth": self.models["depth"](features)}
        losses = {"loss": (outputs["depth"] - inputs["depth_gt"]).abs().mean()}
        return outputs, losses

    def run_epoch(self, batches):
        for inputs in batches:
            outputs, losses = self.process_batch(inputs)
            self.model_optimizer.zero_grad()
            losses["loss"].backward()
            self.model_optimizer.step()

    def val(self, inputs):
        with torch.no_grad():
            outputs, losses = self.process_batch(inputs)
        return {name: value.item() for name, value in losses.items()}


class CachedRankingLoss(nn.Module):
    def __init__(self, model) -> None:
        super().__init__()
        self.model = model

    def forward(self, anchors, positives):
        with torch.no_grad():
            reps_a = self.model(anchors)
            reps_p = self.model(positives)
        reps_a = reps_a.detach().requires_grad_()
        reps_p = reps_p.detach().requires_grad_()
        scores = reps_a @ reps_p.T
        loss = nn.functional.cross_entropy(scores, torch.arange(scores.size(0)))
        if torch.is_grad_enabled():
            loss.backward()
        return loss.detach()


class LinearDepther(nn.Module):
    """dinov2#472 fixed: the frozen backbone under no_grad, the head with gradients."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Linear(8, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        with torch.no_grad():
            features = torch.relu(self.backbone(x))
        return self.head(features)


def finetune_depther(images, depths, steps):
    model = LinearDepther()
    optimizer = torch.optim.AdamW(model.head.parameters(), lr=1e-4)
    for _ in range(steps):
        loss = nn.functional.l1_loss(model(images), depths)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Source: transfer-learning tutorial train_model(): one loop for both phases.
def train_model(model, criterion, optimizer, dataloaders, num_epochs):
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()
            else:
                model.eval()
            running_loss = 0.0
            for inputs, labels in dataloaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    loss = criterion(outputs, labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
            print(epoch, phase, running_loss)


# Source: DQN optimize_model(): the target network's values are computed without gradients.
def optimize_model(policy_net, target_net, optimizer, batch, gamma):
    state, action, reward, next_state = batch
    state_action_values = policy_net(state).gather(1, action)
    with torch.no_grad():
        next_state_values = target_net(next_state).max(1).values
    expected = reward + gamma * next_state_values
    loss = nn.functional.smooth_l1_loss(state_action_values, expected.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
