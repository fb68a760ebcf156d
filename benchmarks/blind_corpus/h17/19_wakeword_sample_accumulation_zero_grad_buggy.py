"""GG605 - zero_grad() at the top of every batch wipes the gradients still waiting for step().

The wake-word trainer only calls optimizer.step() once enough samples have
been accumulated (accumulation by sample count, because the batches mix
positive and negative clips of varying sizes).  But optimizer.zero_grad() is
still called at the start of every batch, i.e. between the earlier batches'
backward() and the step() that should use them.  Only the last micro-batch of
each window ever reaches the optimizer (silent).
Observable: the weight update equals -lr * grad(last micro-batch).

Modelled on: https://github.com/dscripka/openWakeWord/issues/316
"""
import copy

import torch
import torch.nn as nn

CONFIG = {"n_features": 16, "n_frames": 8, "layer_dim": 32, "lr": 1e-3, "optimizer": "adam",
          "accumulation_samples": 24, "max_steps": 9}


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = nn.Sequential(
            nn.Flatten(),
            nn.Linear(config["n_features"] * config["n_frames"], config["layer_dim"]),
            nn.LayerNorm(config["layer_dim"]), nn.ReLU(),
            nn.Linear(config["layer_dim"], config["layer_dim"]), nn.LayerNorm(config["layer_dim"]),
            nn.ReLU(), nn.Linear(config["layer_dim"], 1), nn.Sigmoid())
        opt_cls = torch.optim.Adam if config["optimizer"] == "adam" else torch.optim.SGD
        self.optimizer = opt_cls(self.model.parameters(), lr=config["lr"])
        self.loss = nn.BCELoss()
        self.history = {"loss": [], "n_updates": 0}

    def forward(self, x):
        return self.model(x)

    def train_model(self, data, max_steps):
        accumulated_samples = 0
        self.model.train()
        for step_ndx, (x, y) in enumerate(data):
            self.optimizer.zero_grad()  # bug: GG605
            predictions = self.model(x)
            loss = self.loss(predictions, y)
            loss.backward()
            accumulated_samples += x.shape[0]
            self.history["loss"].append(loss.detach())
            if accumulated_samples >= self.config["accumulation_samples"]:
                self.optimizer.step()
                self.history["n_updates"] += 1
                accumulated_samples = 0
            if step_ndx + 1 >= max_steps:
                break
        return self.history


def mixed_batches(n_batches, n_features, n_frames, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n_batches):
        n_pos, n_neg = 2, 6
        x = torch.randn(n_pos + n_neg, n_frames, n_features, generator=g)
        x[:n_pos] += 1.0
        y = torch.cat([torch.ones(n_pos, 1), torch.zeros(n_neg, 1)])
        yield x, y


def check_first_window():
    cfg = dict(CONFIG, optimizer="sgd", lr=1.0)
    m = Model(cfg)
    start = copy.deepcopy(m.model)
    batches = list(mixed_batches(3, cfg["n_features"], cfg["n_frames"], seed=1))
    grads = []
    for x, y in batches:
        ref = copy.deepcopy(start)
        nn.BCELoss()(ref(x), y).backward()
        grads.append(ref[-2].weight.grad)
    m.train_model(iter(batches), max_steps=3)
    delta = start[-2].weight - m.model[-2].weight
    return torch.allclose(delta, grads[-1], atol=1e-6), torch.allclose(delta, sum(grads), atol=1e-6)


def main():
    torch.manual_seed(0)
    model = Model(CONFIG)
    hist = model.train_model(mixed_batches(CONFIG["max_steps"], CONFIG["n_features"],
                                           CONFIG["n_frames"]), CONFIG["max_steps"])
    print(f"{hist['n_updates']} updates, last loss {hist['loss'][-1].item():.4f}")
    return check_first_window()


if __name__ == "__main__":
    last_only, summed = main()
    if last_only and not summed:
        print("BUGGY: only the last micro-batch of each accumulation window is applied")
    else:
        raise SystemExit("NO BUG")
