"""GG503 - autograd.grad results added to a loss without create_graph=True.

Mistake: the Inter-environment Gradient Alignment (IGA) algorithm computes each
environment's gradient with torch.autograd.grad(..., retain_graph=True) but without
create_graph=True. The returned gradients are plain constants, so the gradient-variance
penalty built from them has no graph: it is added to the objective but contributes
nothing to backward(). Silent effect: the penalty weight has no influence at all on
the update (parameters after one step are identical for penalty 0 and penalty 1e3).

Modelled on: https://github.com/facebookresearch/DomainBed/issues/50
(IGA penalty computed from autograd.grad without create_graph, so the penalty term was
inert and its hyper-parameter had no effect).
"""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

HPARAMS = {"lr": 1e-2, "penalty": 1000.0, "n_envs": 3, "batch": 16, "in_dim": 12, "classes": 3}


def make_featurizer(in_dim):
    return nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())


class ERM(nn.Module):
    def __init__(self, in_dim, classes, hparams):
        super().__init__()
        self.hparams = hparams
        self.featurizer = make_featurizer(in_dim)
        self.classifier = nn.Linear(16, classes)
        self.network = nn.Sequential(self.featurizer, self.classifier)
        self.optimizer = torch.optim.SGD(self.network.parameters(), lr=hparams["lr"])

    def predict(self, x):
        return self.network(x)


class IGA(ERM):
    def env_grads(self, x, y):
        loss = F.cross_entropy(self.predict(x), y)
        grads = torch.autograd.grad(loss, self.network.parameters(), retain_graph=True)  # bug: GG503
        return loss, grads

    def update(self, minibatches):
        total_loss = 0
        grads = []
        for x, y in minibatches:
            env_loss, g = self.env_grads(x, y)
            total_loss = total_loss + env_loss
            grads.append(g)
        mean_loss = total_loss / len(minibatches)
        mean_grad = [torch.stack(gs).mean(0) for gs in zip(*grads)]

        penalty_value = 0
        for g_env in grads:
            for g, mg in zip(g_env, mean_grad):
                penalty_value = penalty_value + (g - mg).pow(2).sum()

        objective = mean_loss + self.hparams["penalty"] * penalty_value
        self.optimizer.zero_grad()
        objective.backward()
        self.optimizer.step()
        return {"loss": mean_loss.item(), "penalty": float(penalty_value)}


def sample_envs(n_envs, batch, in_dim, classes, gen):
    envs = []
    for e in range(n_envs):
        x = torch.randn(batch, in_dim, generator=gen) + 0.5 * e
        y = torch.randint(0, classes, (batch,), generator=gen)
        envs.append((x, y))
    return envs


def one_step(algo, penalty):
    algo = copy.deepcopy(algo)
    algo.hparams = dict(algo.hparams, penalty=penalty)
    algo.optimizer = torch.optim.SGD(algo.network.parameters(), lr=algo.hparams["lr"])
    gen = torch.Generator().manual_seed(7)
    stats = algo.update(sample_envs(HPARAMS["n_envs"], HPARAMS["batch"], HPARAMS["in_dim"], HPARAMS["classes"], gen))
    return torch.cat([p.detach().flatten() for p in algo.network.parameters()]), stats


def main():
    torch.manual_seed(0)
    algo = IGA(HPARAMS["in_dim"], HPARAMS["classes"], HPARAMS)
    w_plain, _ = one_step(algo, 0.0)
    w_pen, stats = one_step(algo, HPARAMS["penalty"])
    print(f"loss={stats['loss']:.4f} penalty={stats['penalty']:.6f}")
    return torch.allclose(w_plain, w_pen)


if __name__ == "__main__":
    if main():
        print("BUGGY: IGA penalty has no effect on the update (parameters identical for penalty 0 and 1000)")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
