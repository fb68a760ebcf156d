"""Backpropagating from values computed while gradient recording was off (GG101).

Sources (rewritten in our own words, structure kept):
* https://github.com/nianticlabs/monodepth2/issues/24 - the trainer's `val()` runs
  `process_batch` under `torch.no_grad()`; a modified copy backpropagated its losses dict:
  "element 0 of tensors does not require grad and does not have a grad_fn".
* https://github.com/automl/DACBench/issues/95 - a DQN agent evaluates under no_grad; the
  evaluation environment's `reset()` trains a network (`loss.mean().backward()`) and fails.
* https://github.com/UKPLab/sentence-transformers/pull/2668 (issue #2667) - a cached loss calls
  `backward()` inside its own forward; evaluation wraps the loss in no_grad and it fails.
* https://github.com/facebookresearch/dinov2/issues/472 (and #399) - a decorator on the
  model's forward disabled gradients; "remove the decoration and forward work fine".
"""

import torch
from torch import nn


class DepthTrainer:
    """monodepth2#24: a validation step reused for training."""

    def __init__(self) -> None:
        self.models = {"encoder": nn.Linear(6, 4), "depth": nn.Linear(4, 1)}
        params = list(self.models["encoder"].parameters()) + list(self.models["depth"].parameters())
        self.model_optimizer = torch.optim.Adam(params, lr=1e-4)

    def process_batch(self, inputs):
        features = self.models["encoder"](inputs["color"])
        outputs = {"depth": self.models["depth"](features)}
        losses = {"loss": (outputs["depth"] - inputs["depth_gt"]).abs().mean()}
        return outputs, losses

    def val(self, inputs):
        with torch.no_grad():  # expect: GG101
            outputs, losses = self.process_batch(inputs)
        self.model_optimizer.zero_grad()
        losses["loss"].backward()
        self.model_optimizer.step()


class SgdEnv:
    """DACBench#95: an environment whose reward is a training step of its own network."""

    def __init__(self) -> None:
        self.model = nn.Linear(5, 1)
        self.loss_function = nn.MSELoss(reduction="none")
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def _train_batch_(self):
        data, target = torch.randn(8, 5), torch.randn(8, 1)
        self.optimizer.zero_grad()
        loss = self.loss_function(self.model(data), target)
        loss.mean().backward()  # missed: GG101
        self.optimizer.step()
        return -loss.mean().item()

    def reset(self):
        return self._train_batch_()


class DqnAgent:
    """DACBench#95: evaluation episodes run entirely under no_grad."""

    def __init__(self, eval_env) -> None:
        self._eval_env = eval_env
        self.q = nn.Linear(1, 3)

    def eval(self, episodes):
        rewards = []
        with torch.no_grad():
            for _ in range(episodes):
                state = self._eval_env.reset()
                rewards.append(self.q(torch.tensor([[state]])).argmax().item())
        return rewards


class CachedRankingLoss(nn.Module):
    """sentence-transformers#2667: the loss backpropagates inside its own forward."""

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
        loss.backward()  # missed: GG101
        return loss.detach()


# Source: sentence-transformers#2667, the trainer's evaluation loop around the loss.
def evaluate(loss_model, batches):
    total = 0.0
    with torch.no_grad():
        for anchors, positives in batches:
            total += loss_model(anchors, positives).item()
    return total / len(batches)


class FrozenDepther(nn.Module):
    """dinov2#472: the whole forward carries a no_grad decorator."""

    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Linear(8, 8)
        self.head = nn.Linear(8, 1)

    @torch.no_grad()
    def forward(self, x):
        return self.head(torch.relu(self.backbone(x)))


# Source: dinov2#472, fine-tuning the depth model built from the decorated class.
def finetune_depther(images, depths, steps):
    model = FrozenDepther()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    for _ in range(steps):
        pred = model(images)
        loss = nn.functional.l1_loss(pred, depths)
        optimizer.zero_grad()
        loss.backward()  # missed: GG101
        optimizer.step()
