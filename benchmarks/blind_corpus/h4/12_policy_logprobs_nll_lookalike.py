"""GG113 look-alike - softmax probabilities next to nll_loss, used correctly.

A behaviour-cloning policy computes probs = softmax(logits) for entropy and sampling, and
the loss uses F.nll_loss on log-probabilities: once from log_softmax, once (in the
auxiliary head) from torch.log of clamped softmax probabilities. Both are valid
log-probability inputs, so the NLL is positive and decreases.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Policy(nn.Module):
    def __init__(self, obs_dim=6, n_actions=4, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.aux = nn.Linear(hidden, 2)

    def forward(self, obs):
        h = self.trunk(obs)
        logits = self.pi(h)
        probs = F.softmax(logits, dim=-1)
        aux_probs = F.softmax(self.aux(h), dim=-1)
        return logits, probs, aux_probs


def bc_loss(policy, obs, actions, aux_targets, ent_coef=0.01):
    logits, probs, aux_probs = policy(obs)
    log_probs = F.log_softmax(logits, dim=-1)
    nll = F.nll_loss(log_probs, actions)
    aux = F.nll_loss(torch.log(aux_probs.clamp_min(1e-8)), aux_targets)
    entropy = -(probs * log_probs).sum(-1).mean()
    return nll + 0.5 * aux - ent_coef * entropy, {"nll": nll.item(), "aux": aux.item(), "ent": entropy.item()}


def main():
    torch.manual_seed(0)
    obs = torch.randn(256, 6)
    actions = obs[:, :4].argmax(-1)
    aux_targets = (obs[:, 5] > 0).long()
    policy = Policy()
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    log = []
    for it in range(100):
        loss, info = bc_loss(policy, obs, actions, aux_targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append(info)
    with torch.no_grad():
        _, probs, _ = policy(obs)
        sampled = torch.multinomial(probs, 1).squeeze(-1)
    print(f"nll {log[0]['nll']:.3f} -> {log[-1]['nll']:.3f}, agree {(sampled == actions).float().mean():.2f}")
    assert all(d["nll"] > 0 and d["aux"] > 0 for d in log)
    assert log[-1]["nll"] < log[0]["nll"] * 0.5


if __name__ == "__main__":
    main()
    print("OK")
