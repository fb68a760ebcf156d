"""GG502 - .numpy() on a tensor that requires grad.

FIXED version. Original mistake: a DQN agent's epsilon-greedy ``choose_action`` runs the evaluation
network on the current state and calls ``np.argmax(actions_value.numpy())``.
The Q-values come from a network whose parameters require grad and nothing
disables autograd there, so ``.numpy()`` refuses.  It only shows up once
epsilon stops picking random actions, i.e. a few steps into training.

torch raised (buggy version): RuntimeError: Can't call numpy() on Tensor that
requires grad. Use tensor.detach().numpy() instead.
Fix: detach the Q-values before converting them.

Modelled on: https://github.com/ClownW/Reinforcement-learning-with-PyTorch/issues/3
"""
import random
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH_SIZE = 8
LR = 1e-2
GAMMA = 0.9
MEMORY_CAPACITY = 50
TARGET_REPLACE_ITER = 10
N_STATES, N_ACTIONS = 4, 2


class LineWorld:
    """Walk on a line; reward for reaching the right end."""

    def reset(self):
        self.pos = 0
        return self._obs()

    def _obs(self):
        return np.array([self.pos / 5.0, 1.0, (self.pos % 2), 0.0], dtype=np.float32)

    def step(self, action):
        self.pos = max(0, self.pos + (1 if action == 1 else -1))
        done = self.pos >= 5
        return self._obs(), (1.0 if done else -0.05), done


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_STATES, 32)
        self.out = nn.Linear(32, N_ACTIONS)

    def forward(self, x):
        return self.out(F.relu(self.fc1(x)))


class DQN:
    def __init__(self):
        self.eval_net, self.target_net = Net(), Net()
        self.target_net.load_state_dict(self.eval_net.state_dict())
        self.memory = deque(maxlen=MEMORY_CAPACITY)
        self.optimizer = torch.optim.Adam(self.eval_net.parameters(), lr=LR)
        self.learn_step = 0
        self.epsilon = 1.0

    def choose_action(self, s):
        x = torch.unsqueeze(torch.FloatTensor(s), 0)
        if random.random() > self.epsilon:
            actions_value = self.eval_net(x)
            return int(np.argmax(actions_value.detach().numpy()[0]))  # fixed: GG502
        return random.randrange(N_ACTIONS)

    def store_transition(self, s, a, r, s_, done):
        self.memory.append((s, a, r, s_, float(done)))

    def learn(self):
        if self.learn_step % TARGET_REPLACE_ITER == 0:
            self.target_net.load_state_dict(self.eval_net.state_dict())
        self.learn_step += 1
        batch = random.sample(self.memory, BATCH_SIZE)
        s, a, r, s_, d = (torch.tensor(np.array(col)) for col in zip(*batch))
        q_eval = self.eval_net(s).gather(1, a.long().unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            q_next = self.target_net(s_).max(1).values
        q_target = r.float() + GAMMA * q_next * (1 - d.float())
        loss = F.smooth_l1_loss(q_eval, q_target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.epsilon = max(0.05, self.epsilon * 0.9)
        return loss.item()


def main():
    random.seed(0)
    torch.manual_seed(0)
    env, agent = LineWorld(), DQN()
    for episode in range(6):
        s, ep_r = env.reset(), 0.0
        for t in range(30):
            a = agent.choose_action(s)
            s_, r, done = env.step(a)
            agent.store_transition(s, a, r, s_, done)
            ep_r += r
            if len(agent.memory) >= BATCH_SIZE:
                agent.learn()
            if done:
                break
            s = s_
        print(f"episode {episode}: return {ep_r:.2f} eps {agent.epsilon:.2f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
