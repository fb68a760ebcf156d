"""GG102 look-alike - .item() and float() appear next to the policy loss, but
only for logging / reward bookkeeping.

The REINFORCE loss itself is accumulated from log-probability tensors, so
backward() works; .item() is called on the reward baseline and on a detached
copy of the loss for the progress log.

Modelled on: https://github.com/isayev/ReLeaSE/issues/39 (the working variant)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = list("<>CNOc1()=")
START, END = 0, 1
HP = dict(hidden=32, n_batch=4, max_len=12, gamma=0.97, lr=1e-3, n_iterations=3)


class Generator(nn.Module):
    def __init__(self, vocab_size, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab_size)

    def step(self, token, h):
        h = self.cell(self.embed(token), h)
        return self.out(h), h

    def rollout(self, max_len):
        h = torch.zeros(1, self.cell.hidden_size)
        tok = torch.tensor([START])
        log_probs, seq = [], [START]
        for _ in range(max_len):
            logits, h = self.step(tok, h)
            dist = torch.distributions.Categorical(logits=logits)
            tok = dist.sample()
            log_probs.append(dist.log_prob(tok))
            seq.append(int(tok.item()))
            if seq[-1] == END:
                break
        return seq, torch.cat(log_probs)


def reward_fn(seq):
    s = "".join(VOCAB[i] for i in seq)
    return torch.tensor(1.0 + s.count("1") * 0.5 + s.count("N") * 0.3)


def train(gen, opt, hp):
    running_baseline = 0.0
    log = []
    for it in range(hp["n_iterations"]):
        opt.zero_grad()
        rl_loss = torch.zeros(())
        rewards = []
        for _ in range(hp["n_batch"]):
            seq, log_probs = gen.rollout(hp["max_len"])
            r = reward_fn(seq)
            rewards.append(r.item())
            disc = torch.tensor([hp["gamma"] ** t for t in range(len(log_probs))])
            advantage = (r - running_baseline) * disc
            rl_loss = rl_loss - (log_probs * advantage).sum()
        rl_loss = rl_loss / hp["n_batch"]
        rl_loss.backward()
        opt.step()
        running_baseline = 0.9 * running_baseline + 0.1 * float(sum(rewards) / len(rewards))
        log.append({"iter": it, "loss": rl_loss.detach().item(), "baseline": running_baseline})
        print(f"iter {it}: loss={log[-1]['loss']:.3f} baseline={running_baseline:.3f}")
    return log


def main():
    torch.manual_seed(1)
    gen = Generator(len(VOCAB), HP["hidden"])
    opt = torch.optim.Adam(gen.parameters(), lr=HP["lr"])
    before = gen.out.weight.detach().clone()
    train(gen, opt, HP)
    assert not torch.equal(before, gen.out.weight)


if __name__ == "__main__":
    main()
    print("OK")
