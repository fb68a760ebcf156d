"""GG102 - backward() on a policy-gradient loss that went through .item().

Mistake: in the REINFORCE update of a SMILES-like string generator the
log-probability of each sampled token is turned into a Python float with
.item() (to dodge a device error) before being multiplied by the discounted
reward.  rl_loss therefore ends up a plain float and the update call fails with
AttributeError: 'float' object has no attribute 'backward'
Fixed: the log-probability tensor is kept (no .item()), so rl_loss stays a graph tensor.

Modelled on: https://github.com/isayev/ReLeaSE/issues/39
"""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = list("<>CNOc1()=")
START, END = 0, 1
HPARAMS = dict(hidden=32, n_batch=4, max_len=12, gamma=0.97, lr=1e-3, n_iterations=2)


class StackRNNGenerator(nn.Module):
    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab_size)

    def init_hidden(self):
        return torch.zeros(1, 1, self.gru.hidden_size)

    def forward(self, token, hidden):
        emb = self.embed(token).view(1, 1, -1)
        out, hidden = self.gru(emb, hidden)
        return self.out(out.view(1, -1)), hidden

    @torch.no_grad()
    def sample(self, max_len):
        hidden = self.init_hidden()
        tok = torch.tensor([START])
        seq = [START]
        for _ in range(max_len):
            logits, hidden = self(tok, hidden)
            tok = torch.multinomial(F.softmax(logits, dim=1), 1).view(1)
            seq.append(tok.item())
            if tok.item() == END:
                break
        return seq


def predictor_reward(seq):
    """Toy property predictor: rewards ring closures and nitrogen atoms."""
    s = "".join(VOCAB[i] for i in seq)
    return 1.0 + s.count("1") * 0.5 + s.count("N") * 0.3


class Reinforcement:
    def __init__(self, generator, get_reward, hp):
        self.generator = generator
        self.get_reward = get_reward
        self.hp = hp
        self.optimizer = torch.optim.Adam(generator.parameters(), lr=hp["lr"])

    def policy_gradient(self):
        rl_loss = 0
        total_reward = 0.0
        self.optimizer.zero_grad()
        for _ in range(self.hp["n_batch"]):
            traj = self.generator.sample(self.hp["max_len"])
            reward = self.get_reward(traj)
            hidden = self.generator.init_hidden()
            discounted_reward = reward
            total_reward += reward
            for p in range(len(traj) - 1):
                logits, hidden = self.generator(torch.tensor([traj[p]]), hidden)
                log_probs = F.log_softmax(logits, dim=1)
                top_i = traj[p + 1]
                rl_loss -= log_probs[0, top_i] * discounted_reward
                discounted_reward = discounted_reward * self.hp["gamma"]
        rl_loss = rl_loss / self.hp["n_batch"]
        rl_loss.backward()  # fixed: GG102
        self.optimizer.step()
        return total_reward / self.hp["n_batch"], float(rl_loss)


def main():
    torch.manual_seed(1)
    random.seed(1)
    gen = StackRNNGenerator(len(VOCAB), HPARAMS["hidden"])
    rl = Reinforcement(gen, predictor_reward, HPARAMS)
    for it in range(HPARAMS["n_iterations"]):
        mean_reward, loss = rl.policy_gradient()
        print(f"iter {it}: mean reward {mean_reward:.2f} loss {loss:.3f}")


if __name__ == "__main__":
    main()
    print("FIXED: ok")
