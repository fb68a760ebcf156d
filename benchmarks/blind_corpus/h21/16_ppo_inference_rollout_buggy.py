"""GG106 - inference tensors from torch.inference_mode() reused in training.

A small PPO trainer collects rollouts in a method decorated with
@torch.inference_mode() (for speed). The observations/encoded states it returns
are inference tensors; the optimisation step then feeds them back through the
policy network, whose Linear layer must save its input for backward.
torch raises: RuntimeError: Inference tensors cannot be saved for backward. ...

Modelled on: https://github.com/hiyouga/LlamaFactory/issues/220
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

HP = dict(obs_dim=8, n_actions=4, hidden=32, rollout_len=16, ppo_epochs=2,
          clip=0.2, lr=3e-4, gamma=0.99, vf_coef=0.5)


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


class ToyEnv:
    def __init__(self, obs_dim):
        self.obs_dim = obs_dim
        self.state = torch.randn(obs_dim)

    def step(self, action):
        reward = float(action == int(self.state.abs().argmax()) % 4)
        self.state = torch.randn(self.obs_dim)
        return self.state, reward


class PPOTrainer:
    def __init__(self, hp):
        self.hp = hp
        self.model = ActorCritic(hp["obs_dim"], hp["n_actions"], hp["hidden"])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=hp["lr"])
        self.env = ToyEnv(hp["obs_dim"])

    @torch.inference_mode()
    def collect(self):
        obs, actions, logps, rewards = [], [], [], []
        o = self.env.state
        for _ in range(self.hp["rollout_len"]):
            o = o.float()
            logits, _ = self.model(o)
            dist = Categorical(logits=logits)
            a = dist.sample()
            obs.append(o)
            actions.append(a)
            logps.append(dist.log_prob(a))
            o, r = self.env.step(int(a))
            rewards.append(r)
        return torch.stack(obs), torch.stack(actions), torch.stack(logps), rewards

    def returns(self, rewards):
        out, running = [], 0.0
        for r in reversed(rewards):
            running = r + self.hp["gamma"] * running
            out.append(running)
        return torch.tensor(out[::-1])

    def ppo_step(self, batch):
        obs, actions, old_logp, rets = batch
        logits, values = self.model(obs)  # bug: GG106
        dist = Categorical(logits=logits)
        ratio = torch.exp(dist.log_prob(actions) - old_logp)
        adv = rets - values.detach()
        clipped = torch.clamp(ratio, 1 - self.hp["clip"], 1 + self.hp["clip"]) * adv
        loss = -torch.min(ratio * adv, clipped).mean() + self.hp["vf_coef"] * F.mse_loss(values, rets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train(self, iterations=2):
        for it in range(iterations):
            obs, actions, logps, rewards = self.collect()
            batch = (obs, actions, logps, self.returns(rewards))
            for _ in range(self.hp["ppo_epochs"]):
                loss = self.ppo_step(batch)
            print(f"iter {it}: loss {loss:.4f} mean reward {sum(rewards) / len(rewards):.2f}")


def main():
    torch.manual_seed(0)
    PPOTrainer(HP).train()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
