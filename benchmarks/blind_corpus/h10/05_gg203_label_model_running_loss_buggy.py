"""GG203: ``running_loss += loss`` keeps every mini-batch graph alive.

Mistake: a weak-supervision label model (naive-Bayes style, learnable class
balance and per-labelling-function accuracies) sums its mini-batch losses into
``running_loss`` for the epoch log.  ``loss`` is a tensor with history, so the
sum becomes a tensor whose graph references every batch of the epoch; nothing
is ever freed until the epoch ends (on a GPU with a large dataset: OOM).
Silent effect, checked below: the value returned for logging still has a
``grad_fn`` and its graph contains one loss node for every batch of the epoch.
Modelled on: https://github.com/BatsResearch/labelmodels/issues/4
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

TRAIN_CONFIG = {
    "epochs": 2,
    "batch_size": 16,
    "lr": 0.05,
    "weight_decay": 1e-4,
    "verbose": True,
}


class NaiveBayesLabelModel(nn.Module):
    """Votes are in {-1 (abstain), 0..k-1}; learns P(y) and P(vote | y)."""

    def __init__(self, num_classes, num_lfs, init_acc=0.7):
        super().__init__()
        self.k = num_classes
        self.m = num_lfs
        self.class_balance = nn.Parameter(torch.zeros(num_classes))
        init = torch.log(torch.tensor(init_acc / (1 - init_acc)))
        self.accuracy = nn.Parameter(torch.full((num_lfs,), float(init)))
        self.propensity = nn.Parameter(torch.zeros(num_lfs))

    def _log_likelihood(self, votes):
        acc = F.logsigmoid(self.accuracy)                      # log P(correct)
        wrong = F.logsigmoid(-self.accuracy) - torch.log(torch.tensor(self.k - 1.0))
        fire = F.logsigmoid(self.propensity)
        abstain = F.logsigmoid(-self.propensity)
        ll = F.log_softmax(self.class_balance, 0).unsqueeze(0).repeat(votes.size(0), 1)
        for y in range(self.k):
            voted = votes >= 0
            right = (votes == y).float()
            per_lf = torch.where(voted, fire + right * acc + (1 - right) * wrong, abstain)
            ll[:, y] = ll[:, y] + per_lf.sum(1)
        return ll

    def forward(self, votes):
        return -torch.logsumexp(self._log_likelihood(votes), dim=1).mean()

    def fit(self, votes, config):
        loader = DataLoader(TensorDataset(votes), batch_size=config["batch_size"], shuffle=True)
        optimizer = torch.optim.SGD(self.parameters(), lr=config["lr"],
                                    weight_decay=config["weight_decay"])
        epoch_losses = []
        for epoch in range(config["epochs"]):
            running_loss = 0.0
            for (batch,) in loader:
                optimizer.zero_grad()
                loss = self(batch)
                loss.backward()
                optimizer.step()
                running_loss += loss  # bug: GG203
            epoch_losses.append(running_loss / len(loader))
            if config["verbose"]:
                print(f"epoch {epoch}: nll {float(epoch_losses[-1]):.4f}")
        return epoch_losses

    @torch.no_grad()
    def predict_proba(self, votes):
        return F.softmax(self._log_likelihood(votes), dim=1)


def simulate_votes(n, k, m, acc=0.75, prop=0.6, seed=0):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, k, (n,), generator=g)
    correct = torch.rand(n, m, generator=g) < acc
    random_vote = torch.randint(0, k, (n, m), generator=g)
    votes = torch.where(correct, y.unsqueeze(1).expand(n, m), random_vote)
    fired = torch.rand(n, m, generator=g) < prop
    return torch.where(fired, votes, torch.full_like(votes, -1)), y


def count_graph_nodes(t, name):
    seen, stack, hits = set(), [t.grad_fn], 0
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        hits += type(fn).__name__.startswith(name)
        stack.extend(nxt for nxt, _ in fn.next_functions)
    return hits


def main():
    torch.manual_seed(0)
    votes, labels = simulate_votes(96, k=3, m=5)
    model = NaiveBayesLabelModel(num_classes=3, num_lfs=5)
    history = model.fit(votes, TRAIN_CONFIG)
    acc = (model.predict_proba(votes).argmax(1) == labels).float().mean()
    print(f"label model accuracy {acc:.2f}")
    return history[-1], len(votes) // TRAIN_CONFIG["batch_size"]


if __name__ == "__main__":
    last_epoch_loss, n_batches = main()
    if torch.is_tensor(last_epoch_loss) and last_epoch_loss.grad_fn is not None:
        kept = count_graph_nodes(last_epoch_loss, "MeanBackward")
        assert kept == n_batches, kept
        print(f"BUGGY: epoch loss still has grad_fn; its graph keeps all {kept} batch graphs alive")
    else:
        raise SystemExit("NO BUG")
