"""GG113 look-alike - softmax and nll_loss in one decoder, on different paths.

A GRU character decoder trains with F.nll_loss on F.log_softmax outputs, and
uses F.softmax only to sample the next character during generation (under
torch.no_grad()). nll_loss never sees the probabilities. Nothing is wrong here.

Modelled on: https://github.com/clvrai/ACGAN-PyTorch/issues/3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, HIDDEN = 20, 32


class CharDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, tokens, hidden=None):
        out, hidden = self.gru(self.embed(tokens), hidden)
        return F.log_softmax(self.out(out), dim=-1), hidden


@torch.no_grad()
def sample(model, start, length=8, temperature=0.8):
    tok, hidden, result = torch.tensor([[start]]), None, [start]
    for _ in range(length):
        log_probs, hidden = model(tok, hidden)
        probs = F.softmax(log_probs[:, -1] / temperature, dim=-1)
        tok = torch.multinomial(probs, 1)
        result.append(tok.item())
    return result


def main():
    torch.manual_seed(0)
    model = CharDecoder()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    seqs = torch.randint(0, VOCAB, (6, 12))
    for epoch in range(4):
        log_probs, _ = model(seqs[:, :-1])
        loss = F.nll_loss(log_probs.reshape(-1, VOCAB), seqs[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"epoch {epoch}: nll {loss.item():.4f}")
        assert loss.item() > 0
    print("sample:", sample(model, start=1))


if __name__ == "__main__":
    main()
    print("OK")
