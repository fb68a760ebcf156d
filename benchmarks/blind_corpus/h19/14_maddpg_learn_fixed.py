"""GG205 (fixed) - the joint action is recomputed after each agent's update.

Same two-agent MADDPG. Inside the per-agent loop the joint action ``mu`` is rebuilt
from the current actors right before that agent's actor loss, so its backward()
never runs through a graph that saved weights an earlier optimizer.step() already
changed. The buggy version reused one ``mu`` graph for all agents and raised
  RuntimeError: one of the variables needed for gradient computation has been
  modified by an inplace operation ...

Modelled on: https://github.com/philtabor/Multi-Agent-Deep-Deterministic-Policy-Gradients/issues/2
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class CriticNetwork(nn.Module):
    def __init__(self, beta, input_dims, fc1_dims, fc2_dims, n_agents, n_actions):
        super().__init__()
        self.fc1 = nn.Linear(input_dims + n_agents * n_actions, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, fc2_dims)
        self.q = nn.Linear(fc2_dims, 1)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=beta)

    def forward(self, state, action):
        x = F.relu(self.fc1(torch.cat([state, action], dim=1)))
        x = F.relu(self.fc2(x))
        return self.q(x)


class ActorNetwork(nn.Module):
    def __init__(self, alpha, input_dims, fc1_dims, fc2_dims, n_actions):
        super().__init__()
        self.fc1 = nn.Linear(input_dims, fc1_dims)
        self.fc2 = nn.Linear(fc1_dims, fc2_dims)
        self.pi = nn.Linear(fc2_dims, n_actions)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=alpha)

    def forward(self, state):
        x = F.relu(self.fc1(state))
        x = F.relu(self.fc2(x))
        return torch.softmax(self.pi(x), dim=1)


class Agent:
    def __init__(self, actor_dims, critic_dims, n_actions, n_agents, alpha=0.01, beta=0.01,
                 fc1=64, fc2=64, gamma=0.95):
        self.gamma = gamma
        self.actor = ActorNetwork(alpha, actor_dims, fc1, fc2, n_actions)
        self.critic = CriticNetwork(beta, critic_dims, fc1, fc2, n_agents, n_actions)
        self.target_actor = ActorNetwork(alpha, actor_dims, fc1, fc2, n_actions)
        self.target_critic = CriticNetwork(beta, critic_dims, fc1, fc2, n_agents, n_actions)
        self.target_actor.load_state_dict(self.actor.state_dict())
        self.target_critic.load_state_dict(self.critic.state_dict())


class MultiAgentReplayBuffer:
    def __init__(self, n_agents, actor_dims, n_actions, batch_size, size=64):
        self.n_agents, self.batch_size = n_agents, batch_size
        rng = np.random.default_rng(0)
        self.states = rng.normal(size=(size, n_agents * actor_dims)).astype(np.float32)
        self.states_ = rng.normal(size=(size, n_agents * actor_dims)).astype(np.float32)
        self.actor_states = [self.states[:, i * actor_dims:(i + 1) * actor_dims] for i in range(n_agents)]
        self.actor_states_ = [self.states_[:, i * actor_dims:(i + 1) * actor_dims] for i in range(n_agents)]
        self.actions = [rng.random((size, n_actions)).astype(np.float32) for _ in range(n_agents)]
        self.rewards = rng.normal(size=(size, n_agents)).astype(np.float32)
        self.dones = np.zeros((size, n_agents), dtype=bool)

    def sample_buffer(self):
        idx = np.random.default_rng(1).choice(len(self.states), self.batch_size, replace=False)
        return ([s[idx] for s in self.actor_states], self.states[idx], [a[idx] for a in self.actions],
                self.rewards[idx], [s[idx] for s in self.actor_states_], self.states_[idx], self.dones[idx])


class MADDPG:
    def __init__(self, actor_dims, critic_dims, n_agents, n_actions):
        self.agents = [Agent(actor_dims, critic_dims, n_actions, n_agents) for _ in range(n_agents)]

    def learn(self, memory):
        actor_states, states, actions, rewards, actor_new_states, states_, dones = memory.sample_buffer()
        states = torch.tensor(states)
        rewards = torch.tensor(rewards)
        states_ = torch.tensor(states_)
        dones = torch.tensor(dones)

        all_agents_new_actions, all_agents_new_mu_actions, old_agents_actions = [], [], []
        for agent_idx, agent in enumerate(self.agents):
            new_states = torch.tensor(actor_new_states[agent_idx])
            all_agents_new_actions.append(agent.target_actor(new_states))
            mu_states = torch.tensor(actor_states[agent_idx])
            all_agents_new_mu_actions.append(agent.actor(mu_states))
            old_agents_actions.append(torch.tensor(actions[agent_idx]))

        new_actions = torch.cat(all_agents_new_actions, dim=1)
        mu = torch.cat(all_agents_new_mu_actions, dim=1)
        old_actions = torch.cat(old_agents_actions, dim=1)

        for agent_idx, agent in enumerate(self.agents):
            critic_value_ = agent.target_critic(states_, new_actions).flatten()
            critic_value_[dones[:, 0]] = 0.0
            critic_value = agent.critic(states, old_actions).flatten()
            target = rewards[:, agent_idx] + agent.gamma * critic_value_
            critic_loss = F.mse_loss(target.detach(), critic_value)
            agent.critic.optimizer.zero_grad()
            critic_loss.backward(retain_graph=True)
            agent.critic.optimizer.step()

            mu = torch.cat([a.actor(torch.tensor(actor_states[i]))
                            for i, a in enumerate(self.agents)], dim=1)  # fixed: GG205
            actor_loss = -agent.critic(states, mu).flatten().mean()
            agent.actor.optimizer.zero_grad()
            actor_loss.backward(retain_graph=True)
            agent.actor.optimizer.step()


def main():
    torch.manual_seed(0)
    n_agents, actor_dims, n_actions = 2, 8, 5
    maddpg = MADDPG(actor_dims, n_agents * actor_dims, n_agents, n_actions)
    memory = MultiAgentReplayBuffer(n_agents, actor_dims, n_actions, batch_size=16)
    for episode in range(3):
        maddpg.learn(memory)
        print(f"episode {episode} learn step done")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
