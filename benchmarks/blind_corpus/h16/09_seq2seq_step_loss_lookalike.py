"""GG203 look-alike: `loss += ...` over decoder time steps inside one training step.

The decoder loss is summed across time steps with `loss += criterion(...)` (the whole
graph is needed for backprop through time), backward() is called once per batch, and the
epoch statistics are accumulated from `loss.item()` / detached tensors only. No graph
outlives its iteration. Correct code.

Modelled on: https://github.com/JIA-Lab-research/DecoupleNet/issues/3 (loss accumulation
with `+=`, here the legitimate per-time-step sum inside one step)
"""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SRC_VOCAB, TGT_VOCAB, HIDDEN, MAX_LEN = 20, 20, 32, 6


class EncoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(SRC_VOCAB, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN, batch_first=True)

    def forward(self, src):
        _, hidden = self.gru(self.embedding(src))
        return hidden


class DecoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(TGT_VOCAB, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, TGT_VOCAB)

    def forward(self, token, hidden):
        output, hidden = self.gru(self.embedding(token).unsqueeze(1), hidden)
        return self.out(output.squeeze(1)), hidden


def train_batch(src, tgt, encoder, decoder, enc_opt, dec_opt, criterion):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    hidden = encoder(src)
    token = torch.zeros(src.size(0), dtype=torch.long)  # SOS = 0
    loss = 0
    for t in range(tgt.size(1)):
        logits, hidden = decoder(token, hidden)
        loss += criterion(logits, tgt[:, t])
        token = tgt[:, t]  # teacher forcing
    loss.backward()
    enc_opt.step()
    dec_opt.step()
    return loss.item() / tgt.size(1)


def main():
    torch.manual_seed(0)
    src = torch.randint(1, SRC_VOCAB, (24, MAX_LEN))
    tgt = src.flip(1)
    loader = DataLoader(TensorDataset(src, tgt), batch_size=8)
    encoder, decoder = EncoderRNN(), DecoderRNN()
    enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.05)
    dec_opt = torch.optim.SGD(decoder.parameters(), lr=0.05)
    criterion = nn.CrossEntropyLoss()
    print_loss_total = 0.0
    grad_norm_total = torch.zeros(())
    for epoch in range(2):
        for s, t in loader:
            print_loss_total += train_batch(s, t, encoder, decoder, enc_opt, dec_opt, criterion)
            grad_norm_total += torch.stack([p.grad.norm() for p in decoder.parameters()]).sum().detach()
        print(f"epoch {epoch}: avg loss {print_loss_total / len(loader):.4f}")
        print_loss_total = 0.0
    assert grad_norm_total.grad_fn is None


if __name__ == "__main__":
    main()
    print("OK")
