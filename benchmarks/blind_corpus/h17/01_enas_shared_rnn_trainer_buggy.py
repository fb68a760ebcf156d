"""GG501 - backward() called on a loss tensor that still has one entry per token.

The trainer's loss helper returns the unreduced cross-entropy (one value per
token, because the controller wants per-token rewards later).  train_shared()
then calls loss.backward() on that vector without a gradient argument, so
autograd refuses with:
    RuntimeError: grad can be implicitly created only for scalar outputs

Modelled on: https://github.com/carpedm20/ENAS-pytorch/issues/58
"""
import argparse
import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--vocab", type=int, default=50)
    p.add_argument("--embed", type=int, default=32)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--bptt", type=int, default=8)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--shared_lr", type=float, default=0.5)
    p.add_argument("--shared_grad_clip", type=float, default=0.25)
    p.add_argument("--max_step", type=int, default=3)
    return p.parse_args([])


class SharedRNN(nn.Module):
    """Tiny stand-in for the weight-shared recurrent cell ENAS samples DAGs from."""

    def __init__(self, args):
        super().__init__()
        self.encoder = nn.Embedding(args.vocab, args.embed)
        self.w_x = nn.Linear(args.embed, args.hidden)
        self.w_h = nn.ModuleList([nn.Linear(args.hidden, args.hidden) for _ in range(3)])
        self.decoder = nn.Linear(args.hidden, args.vocab)
        self.hidden = args.hidden

    def cell(self, x, h, dag):
        s = torch.tanh(self.w_x(x) + h)
        for node in dag:
            s = torch.tanh(self.w_h[node](s))
        return s

    def forward(self, inputs, hidden, dag):
        embed = self.encoder(inputs)
        outputs = []
        for t in range(inputs.size(0)):
            hidden = self.cell(embed[t], hidden, dag)
            outputs.append(hidden)
        out = torch.stack(outputs)
        return self.decoder(out), hidden

    def init_hidden(self, batch):
        return torch.zeros(batch, self.hidden)


class Trainer:
    def __init__(self, args, dataset):
        self.args = args
        self.train_data = dataset
        self.shared = SharedRNN(args)
        self.shared_optim = torch.optim.SGD(self.shared.parameters(), lr=args.shared_lr)
        self.shared_step = 0

    def get_batch(self, idx):
        seq = self.train_data[idx:idx + self.args.bptt + 1]
        return seq[:-1], seq[1:]

    def get_loss(self, inputs, targets, hidden, dag):
        logits, hidden = self.shared(inputs, hidden, dag)
        # per-token loss is kept so the controller can reuse it as a reward signal
        loss = F.cross_entropy(logits.view(-1, self.args.vocab), targets.reshape(-1),
                               reduction="none")
        return loss, hidden.detach()

    def train_shared(self, dag):
        self.shared.train()
        hidden = self.shared.init_hidden(self.args.batch)
        train_idx = 0
        for step in range(self.args.max_step):
            inputs, targets = self.get_batch(train_idx)
            loss, hidden = self.get_loss(inputs, targets, hidden, dag)
            self.shared_optim.zero_grad()
            loss.backward()  # bug: GG501
            nn.utils.clip_grad_norm_(self.shared.parameters(), self.args.shared_grad_clip)
            self.shared_optim.step()
            self.shared_step += 1
            train_idx += self.args.bptt
            print(f"shared step {self.shared_step} | ppl-ish {loss.mean().exp().item():.2f}")

    def train(self):
        dag = [0, 2, 1]
        self.train_shared(dag=dag)


def main():
    torch.manual_seed(0)
    args = get_args()
    data = torch.randint(0, args.vocab, (64, args.batch))
    trainer = Trainer(args, data)
    trainer.train()


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        print(f"BUGGY: {str(e).splitlines()[0]}")
        raise SystemExit(0)
    raise SystemExit("NO BUG")
