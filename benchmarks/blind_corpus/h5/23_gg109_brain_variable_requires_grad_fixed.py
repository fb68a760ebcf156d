"""Category GG109 -- requires_grad forced on a loss without history.
Status: fixed -- only feature extraction stays under no_grad, the encoder runs
with autograd, and the Variable re-wrap is gone.
A SpeechBrain-like `Brain` subclass for keyword classification.  `compute_forward`
computes filterbank features under torch.no_grad() (fine) but the encoder call ended
up inside the same block, so the loss had no history.  Instead of finding why, the
author wrapped the loss: `Variable(loss, requires_grad=True)`.  backward() now runs
without complaint, yet no parameter ever gets a gradient and the model never
changes.  Silent: no exception.
Modelled on: https://github.com/speechbrain/speechbrain/issues/735
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class Stage:
    TRAIN, VALID = "train", "valid"


class Fbank(nn.Module):
    def __init__(self, n_fft=32, n_mels=8):
        super().__init__()
        self.n_fft = n_fft
        self.register_buffer("fb", torch.rand(n_fft // 2 + 1, n_mels))

    def forward(self, wavs):
        frames = wavs.unfold(-1, self.n_fft, self.n_fft // 2)
        spec = torch.fft.rfft(frames * torch.hann_window(self.n_fft), dim=-1).abs() ** 2
        return torch.log(spec @ self.fb + 1e-6)


class Encoder(nn.Module):
    def __init__(self, n_mels=8, hidden=32, n_words=5):
        super().__init__()
        self.gru = nn.GRU(n_mels, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_words)

    def forward(self, feats):
        h, _ = self.gru(feats)
        return F.log_softmax(self.out(h.mean(1)), dim=-1)


class Brain:
    def __init__(self, modules, opt_class, hparams):
        self.modules = nn.ModuleDict(modules)
        self.hparams = hparams
        self.optimizer = opt_class(self.modules.parameters())

    def fit_batch(self, batch):
        outputs = self.compute_forward(batch, Stage.TRAIN)
        loss = self.compute_objectives(outputs, batch, Stage.TRAIN)
        loss.backward()
        self.had_grad = any(p.grad is not None for p in self.modules.parameters())
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.detach()

    def fit(self, epochs, train_set):
        for epoch in range(epochs):
            avg = sum(self.fit_batch(b).item() for b in train_set) / len(train_set)
            print(f"epoch {epoch}: train loss {avg:.4f}")


class KWSBrain(Brain):
    def compute_forward(self, batch, stage):
        wavs, _ = batch
        with torch.no_grad():
            feats = self.modules.compute_features(wavs)
            feats = (feats - feats.mean(1, keepdim=True)) / (feats.std(1, keepdim=True) + 1e-5)
        predict = self.modules.model(feats)
        return {"predict": predict}

    def compute_objectives(self, predictions, batch, stage):
        _, words = batch
        loss = self.hparams["compute_cost"](predictions["predict"], words)
        return loss  # fixed: GG109


def main():
    torch.manual_seed(0)
    hparams = {"compute_cost": F.nll_loss, "lr": 1e-2, "epochs": 3}
    modules = {"compute_features": Fbank(), "model": Encoder()}
    brain = KWSBrain(modules, lambda p: torch.optim.Adam(p, lr=hparams["lr"]), hparams)
    train_set = [(torch.randn(4, 160), torch.randint(0, 5, (4,))) for _ in range(4)]
    w0 = brain.modules.model.out.weight.detach().clone()
    brain.fit(hparams["epochs"], train_set)
    changed = not torch.equal(w0, brain.modules.model.out.weight.detach())
    return changed, (True if brain.had_grad else None)


if __name__ == "__main__":
    changed, grad = main()
    assert changed and grad is not None
    print("FIXED: ok")
