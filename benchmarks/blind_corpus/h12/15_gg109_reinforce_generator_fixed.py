"""GG109 - fixed version: the policy loss keeps the log-prob tensors.

rl_loss is accumulated from log_p[0, top_i] (a tensor with history) instead of
its .item(), so no requires_grad forcing is needed and backward() reaches the
generator's parameters, which then change after optimizer.step().

Modelled on: https://github.com/isayev/ReLeaSE/issues/39
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = list("<>CNOc1=()")
CFG = {"hidden": 32, "max_len": 12, "n_batch": 4, "gamma": 0.97, "lr": 1e-3, "iterations": 3}


class StackRNNGenerator(nn.Module):
    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, token, hidden=None):
        o, hidden = self.rnn(self.emb(token).unsqueeze(1), hidden)
        return self.out(o.squeeze(1)), hidden


def reward_fn(smiles):
    # toy "property": reward strings rich in ring-closure digits and aromatic carbons
    return 1.0 + smiles.count("c") + 2.0 * smiles.count("1")


class Reinforcement:
    def __init__(self, generator, predictor, cfg):
        self.generator = generator
        self.predictor = predictor
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(generator.parameters(), lr=cfg["lr"])

    def sample(self):
        token = torch.tensor([0])
        hidden, chars, log_probs = None, [], []
        for _ in range(self.cfg["max_len"]):
            logits, hidden = self.generator(token, hidden)
            log_p = F.log_softmax(logits, dim=1)
            top_i = torch.multinomial(log_p.exp(), 1).view(-1)
            log_probs.append((log_p, top_i.item()))
            if VOCAB[top_i.item()] == ">":
                break
            chars.append(VOCAB[top_i.item()])
            token = top_i
        return "".join(chars), log_probs

    def policy_gradient(self):
        rl_loss = 0.0
        total_reward = 0.0
        for _ in range(self.cfg["n_batch"]):
            smiles, log_probs = self.sample()
            reward = self.predictor(smiles)
            discounted_reward = reward
            for log_p, top_i in reversed(log_probs):
                rl_loss = rl_loss - log_p[0, top_i] * discounted_reward
                discounted_reward *= self.cfg["gamma"]
            total_reward += reward
        rl_loss = rl_loss / self.cfg["n_batch"]  # fixed: GG109
        self.optimizer.zero_grad()
        rl_loss.backward()
        self.optimizer.step()
        return total_reward / self.cfg["n_batch"], rl_loss.item()


def main():
    torch.manual_seed(0)
    generator = StackRNNGenerator(len(VOCAB), CFG["hidden"])
    agent = Reinforcement(generator, reward_fn, CFG)
    snapshot = {k: v.detach().clone() for k, v in generator.state_dict().items()}
    for it in range(CFG["iterations"]):
        reward, loss = agent.policy_gradient()
        print(f"iter {it}: mean reward {reward:.2f} rl_loss {loss:.3f}")
    unchanged = all(torch.equal(snapshot[k], v) for k, v in generator.state_dict().items())
    no_grads = all(p.grad is None for p in generator.parameters())
    return unchanged, no_grads


if __name__ == "__main__":
    unchanged, no_grads = main()
    assert not unchanged and not no_grads, "generator did not train"
    print("FIXED: ok")
