"""GG608 - optimizer steps a model that the backpropagated loss never reaches.

Mistake: the pixel-based agent encodes observations inside torch.no_grad() (meant to
save memory on the next-state target) and then trains the critic on those encoded
features. critic_loss.backward() never reaches the CNN encoder, yet
`self.encoder_opt.step()` is called every update. Silent effect: encoder weights
never change during training (its .grad stays None).

Modelled on: https://github.com/rll-research/cic/issues/5
(observations were encoded under torch.no_grad(), so the CNN encoder received no
gradient and was never updated during pre-training).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {"obs_shape": (3, 24, 24), "action_dim": 2, "feature_dim": 32, "hidden_dim": 64,
       "lr": 1e-3, "discount": 0.99, "batch_size": 8, "num_updates": 3}


class Encoder(nn.Module):
    def __init__(self, obs_shape):
        super().__init__()
        self.convnet = nn.Sequential(nn.Conv2d(obs_shape[0], 16, 3, stride=2), nn.ReLU(),
                                     nn.Conv2d(16, 16, 3, stride=1), nn.ReLU())
        with torch.no_grad():
            self.repr_dim = self.convnet(torch.zeros(1, *obs_shape)).numel()

    def forward(self, obs):
        return self.convnet(obs / 255.0 - 0.5).flatten(1)


class Critic(nn.Module):
    def __init__(self, repr_dim, action_dim, feature_dim, hidden_dim):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(repr_dim, feature_dim), nn.LayerNorm(feature_dim), nn.Tanh())
        self.q = nn.Sequential(nn.Linear(feature_dim + action_dim, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, 1))

    def forward(self, obs, action):
        return self.q(torch.cat([self.trunk(obs), action], dim=-1))


def random_shift(x, pad=2):
    x = F.pad(x, (pad,) * 4, mode="replicate")
    i, j = torch.randint(0, 2 * pad + 1, (2,))
    return x[:, :, i:i + x.shape[2] - 2 * pad, j:j + x.shape[3] - 2 * pad]


class Agent:
    def __init__(self, cfg):
        self.cfg = cfg
        self.encoder = Encoder(cfg["obs_shape"])
        self.critic = Critic(self.encoder.repr_dim, cfg["action_dim"], cfg["feature_dim"], cfg["hidden_dim"])
        self.critic_target = Critic(self.encoder.repr_dim, cfg["action_dim"], cfg["feature_dim"], cfg["hidden_dim"])
        self.critic_target.load_state_dict(self.critic.state_dict())
        self.encoder_opt = torch.optim.Adam(self.encoder.parameters(), lr=cfg["lr"])
        self.critic_opt = torch.optim.Adam(self.critic.parameters(), lr=cfg["lr"])

    def aug_and_encode(self, obs):
        return self.encoder(random_shift(obs.float()))

    def update_critic(self, obs, action, reward, discount, next_obs):
        with torch.no_grad():
            next_action = torch.tanh(torch.randn_like(action))
            target_q = reward + discount * self.critic_target(next_obs, next_action)
        q = self.critic(obs, action)
        critic_loss = F.mse_loss(q, target_q)
        self.encoder_opt.zero_grad(set_to_none=True)
        self.critic_opt.zero_grad(set_to_none=True)
        critic_loss.backward()
        self.critic_opt.step()
        self.encoder_opt.step()  # bug: GG608
        return {"critic_loss": critic_loss.item()}

    def update(self, batch):
        obs, action, reward, next_obs = batch
        with torch.no_grad():
            obs = self.aug_and_encode(obs)
            next_obs = self.aug_and_encode(next_obs)
        return self.update_critic(obs, action, reward, self.cfg["discount"], next_obs)


def sample_batch(cfg):
    b = cfg["batch_size"]
    obs = torch.randint(0, 256, (b, *cfg["obs_shape"]), dtype=torch.uint8)
    next_obs = torch.randint(0, 256, (b, *cfg["obs_shape"]), dtype=torch.uint8)
    return obs, torch.rand(b, cfg["action_dim"]) * 2 - 1, torch.randn(b, 1), next_obs


def main():
    torch.manual_seed(0)
    agent = Agent(CFG)
    enc_before = [p.detach().clone() for p in agent.encoder.parameters()]
    for step in range(CFG["num_updates"]):
        metrics = agent.update(sample_batch(CFG))
        print(f"update {step}: {metrics}")
    return all(torch.equal(b, p) for b, p in zip(enc_before, agent.encoder.parameters()))


if __name__ == "__main__":
    if main():
        print("BUGGY: encoder_opt.step() ran every update but the encoder weights never changed")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
