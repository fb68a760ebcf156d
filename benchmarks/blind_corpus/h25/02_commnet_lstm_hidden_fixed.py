"""GG201 - recurrent hidden state carried across updates without detach. (fixed version)

A small multi-agent communication policy (LSTMCell core) is trained with
truncated updates: every `update_every` environment steps the accumulated
policy loss is back-propagated and the optimizer steps.  The recurrent state
`prev_hid` is handed to the next step unchanged, so after the first update the
new segment's graph still reaches into the previous, already-freed segment.
torch raises:
  RuntimeError: Trying to backward through the graph a second time (or directly
  access saved tensors after they have already been freed). ...

Fix: detach (h, c) right after every truncated update, so the next segment
starts from the values but not from the freed graph.

Modelled on: https://github.com/IC3Net/IC3Net/issues/7
"""
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F

DEFAULTS = dict(n_agents=3, obs_dim=6, hid_size=16, n_actions=4,
                episode_len=12, update_every=4, lr=1e-3, seed=0)


class CommPolicy(nn.Module):
    """Encoder -> communication mean pooling -> LSTMCell -> action/value heads."""

    def __init__(self, obs_dim, hid_size, n_actions):
        super().__init__()
        self.encoder = nn.Linear(obs_dim, hid_size)
        self.comm = nn.Linear(hid_size, hid_size)
        self.core = nn.LSTMCell(hid_size, hid_size)
        self.action_head = nn.Linear(hid_size, n_actions)
        self.value_head = nn.Linear(hid_size, 1)
        self.hid_size = hid_size

    def init_hidden(self, n_agents):
        zeros = torch.zeros(n_agents, self.hid_size)
        return (zeros, zeros.clone())

    def forward(self, obs, prev_hid):
        h, c = prev_hid
        x = torch.tanh(self.encoder(obs))
        comm = self.comm(h).mean(dim=0, keepdim=True).expand_as(h)
        h, c = self.core(x + comm, (h, c))
        logits = self.action_head(h)
        value = self.value_head(h).squeeze(-1)
        return F.log_softmax(logits, dim=-1), value, (h, c)


class ToyEnv:
    def __init__(self, n_agents, obs_dim):
        self.n_agents, self.obs_dim = n_agents, obs_dim

    def reset(self):
        return torch.randn(self.n_agents, self.obs_dim)

    def step(self, actions):
        reward = (actions == 1).float() - 0.1
        return torch.randn(self.n_agents, self.obs_dim), reward


class Trainer:
    def __init__(self, args):
        self.args = args
        self.policy = CommPolicy(args.obs_dim, args.hid_size, args.n_actions)
        self.optimizer = torch.optim.RMSprop(self.policy.parameters(), lr=args.lr)
        self.env = ToyEnv(args.n_agents, args.obs_dim)
        self.stats = {"updates": 0, "loss": []}

    def compute_loss(self, log_probs, values, rewards):
        log_probs = torch.stack(log_probs)
        values = torch.stack(values)
        rewards = torch.stack(rewards)
        advantages = rewards - values
        policy_loss = -(log_probs * advantages.detach()).mean()
        value_loss = advantages.pow(2).mean()
        return policy_loss + 0.5 * value_loss

    def update(self, log_probs, values, rewards):
        loss = self.compute_loss(log_probs, values, rewards)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.stats["updates"] += 1
        self.stats["loss"].append(loss.item())

    def run_episode(self):
        obs = self.env.reset()
        prev_hid = self.policy.init_hidden(self.args.n_agents)
        log_probs, values, rewards = [], [], []
        for t in range(self.args.episode_len):
            logp, value, prev_hid = self.policy(obs, prev_hid)
            action = torch.multinomial(logp.exp(), 1).squeeze(-1)
            obs, reward = self.env.step(action)
            log_probs.append(logp.gather(1, action[:, None]).squeeze(1))
            values.append(value)
            rewards.append(reward)
            if (t + 1) % self.args.update_every == 0:
                self.update(log_probs, values, rewards)
                log_probs, values, rewards = [], [], []
                prev_hid = (prev_hid[0].detach(), prev_hid[1].detach())  # fixed: GG201
        return self.stats


def parse_args():
    p = argparse.ArgumentParser()
    for k, v in DEFAULTS.items():
        p.add_argument(f"--{k}", type=type(v), default=v)
    return p.parse_args([])


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    trainer = Trainer(args)
    for ep in range(2):
        stats = trainer.run_episode()
        print(f"episode {ep}: updates={stats['updates']} last_loss={stats['loss'][-1]:.4f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
