"""GG109 - requires_grad forced on a loss that has no history.

REINFORCE fine-tuning of a character-level GRU generator. The policy loss is
accumulated from log_probs[...].item() * reward (to dodge a device error), so it
is a Python float. To make backward() "work", the loss is wrapped with
torch.tensor(rl_loss, requires_grad=True). backward() now runs without error but
the gradient stops at that new leaf: no generator parameter gets a .grad, and
optimizer.step() leaves the weights unchanged (silent: the model never learns).

Modelled on: https://github.com/isayev/ReLeaSE/issues/39
(rl_loss built from .item()/.numpy() values; grads were None and weights did not update).
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
                rl_loss -= log_p[0, top_i].item() * discounted_reward
                discounted_reward *= self.cfg["gamma"]
            total_reward += reward
        rl_loss = torch.tensor(rl_loss / self.cfg["n_batch"], requires_grad=True)  # bug: GG109
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
    if unchanged and no_grads:
        print("BUGGY: backward() ran but no generator parameter received a gradient; weights unchanged")
    else:
        raise SystemExit("NO BUG")
