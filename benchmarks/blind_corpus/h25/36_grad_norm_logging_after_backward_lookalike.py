"""GG407 look-alike - helpers that read .grad, called only after backward().

An actor-critic agent on a toy bandit task.  `log_grad_norms()` reads
`p.grad` of every parameter and `clip_and_report()` scales `.grad` by hand --
the pattern that fails when it runs before any backward().  Here both helpers
are called after `loss.backward()` in every update, and the one place that
touches .grad at construction time (`assert_fresh`) only tests `p.grad is None`.

Modelled on: https://github.com/jcjohnson/pytorch-examples/pull/4 (correct counterpart)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

HP = {"obs": 4, "actions": 3, "hidden": 32, "updates": 4, "batch": 16, "lr": 3e-3,
      "max_norm": 0.5, "value_coef": 0.5, "entropy_coef": 0.01}


class ActorCritic(nn.Module):
    def __init__(self, obs, actions, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.pi(h), self.v(h).squeeze(-1)


class Agent:
    def __init__(self, hp):
        self.hp = hp
        self.net = ActorCritic(hp["obs"], hp["actions"], hp["hidden"])
        self.opt = torch.optim.Adam(self.net.parameters(), lr=hp["lr"])
        self.assert_fresh()

    def assert_fresh(self):
        assert all(p.grad is None for p in self.net.parameters())

    def log_grad_norms(self):
        return {name: p.grad.norm().item() for name, p in self.net.named_parameters()}

    def clip_and_report(self):
        total = torch.sqrt(sum(p.grad.pow(2).sum() for p in self.net.parameters()))
        scale = min(1.0, self.hp["max_norm"] / (total.item() + 1e-6))
        for p in self.net.parameters():
            p.grad.mul_(scale)
        return total.item()

    def update(self, obs, actions, returns):
        logits, values = self.net(obs)
        logp = F.log_softmax(logits, -1)
        adv = returns - values.detach()
        policy_loss = -(logp.gather(1, actions[:, None]).squeeze(1) * adv).mean()
        value_loss = F.mse_loss(values, returns)
        entropy = -(logp.exp() * logp).sum(-1).mean()
        loss = policy_loss + self.hp["value_coef"] * value_loss - self.hp["entropy_coef"] * entropy
        self.opt.zero_grad()
        loss.backward()
        norms = self.log_grad_norms()
        total = self.clip_and_report()
        self.opt.step()
        return loss.item(), total, norms


def main():
    torch.manual_seed(0)
    agent = Agent(HP)
    for u in range(HP["updates"]):
        obs = torch.randn(HP["batch"], HP["obs"])
        with torch.no_grad():
            logits, _ = agent.net(obs)
        actions = torch.distributions.Categorical(logits=logits).sample()
        returns = (actions == 0).float() + 0.1 * torch.randn(HP["batch"])
        loss, total, norms = agent.update(obs, actions, returns)
        print(f"update {u}: loss={loss:.4f} grad_norm={total:.4f} pi.weight={norms['pi.weight']:.4f}")


if __name__ == "__main__":
    main()
    print("OK")
