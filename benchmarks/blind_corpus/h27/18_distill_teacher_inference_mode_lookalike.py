"""Look-alike: distillation trainer that uses inference_mode only for evaluation.

Modelled on: https://github.com/open-lm-engine/lm-engine/pull/253 (counterpart)

The teacher runs under `torch.no_grad()` during training; `inference_mode`
is used only in `evaluate()`, where student and teacher outputs are compared
without any backward pass.
(The paragraph below describes the mistake this file avoids.)

The distillation step ran the frozen teacher inside `torch.inference_mode()`
for speed and returned the teacher's softmax probabilities from that block.
These are inference tensors; they are then fed into the KL-divergence term
together with the student's log-probabilities.  Autograd must save the teacher probabilities to compute
the gradient with respect to the student, which is forbidden for inference
tensors: the forward of the loss raises "Inference tensors cannot be saved
for backward".
"""
import argparse
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class DistillConfig:
    vocab: int = 32
    hidden: int = 16
    temperature: float = 2.0
    kd_ratio: float = 0.5
    lr: float = 1e-3


class TinyLM(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.mix = nn.Linear(hidden, hidden)
        self.lm_head = nn.Linear(hidden, vocab)

    def forward(self, input_ids):
        return self.lm_head(torch.tanh(self.mix(self.emb(input_ids))))


def kl_divergence(student_logits, teacher_probs, temperature):
    s_logp = F.log_softmax(student_logits / temperature, dim=-1)
    t_prob = teacher_probs.flatten(0, 1)
    return F.kl_div(s_logp, t_prob, reduction="batchmean") * temperature ** 2


class DistillationModelWrapper:
    def __init__(self, student, teacher, cfg):
        self.student, self.teacher, self.cfg = student, teacher, cfg
        self.teacher.eval()
        self.optimizer = torch.optim.AdamW(student.parameters(), lr=cfg.lr)

    def teacher_forward(self, input_ids):
        # no_grad (not inference_mode): outputs are normal tensors autograd may save
        with torch.no_grad():
            return F.softmax(self.teacher(input_ids) / self.cfg.temperature, dim=-1)

    def get_loss(self, input_ids, labels):
        student_logits = self.student(input_ids)
        teacher_probs = self.teacher_forward(input_ids)
        lm_loss = F.cross_entropy(student_logits.flatten(0, 1), labels.flatten())
        kd_loss = kl_divergence(student_logits.flatten(0, 1), teacher_probs,
                                self.cfg.temperature)
        return (1 - self.cfg.kd_ratio) * lm_loss + self.cfg.kd_ratio * kd_loss

    @torch.inference_mode()
    def evaluate(self, input_ids, labels):
        s = self.student(input_ids)
        t = F.softmax(self.teacher(input_ids) / self.cfg.temperature, dim=-1)
        return kl_divergence(s.flatten(0, 1), t, self.cfg.temperature).item()

    def train_step(self, batch):
        self.optimizer.zero_grad()
        loss = self.get_loss(*batch)
        loss.backward()
        self.optimizer.step()
        return loss.item()


def batches(cfg, n=2, bs=4, seq=6):
    for _ in range(n):
        ids = torch.randint(0, cfg.vocab, (bs, seq))
        yield ids, torch.roll(ids, -1, dims=1)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--kd-ratio", type=float, default=0.5)
    args = p.parse_args(argv)
    cfg = DistillConfig(kd_ratio=args.kd_ratio)
    torch.manual_seed(0)
    wrapper = DistillationModelWrapper(TinyLM(cfg.vocab, cfg.hidden), TinyLM(cfg.vocab, 2 * cfg.hidden), cfg)
    try:
        for batch in batches(cfg):
            wrapper.train_step(batch)
        assert wrapper.evaluate(*next(batches(cfg))) >= 0.0
        print("OK")
    except RuntimeError as e:
        print(f"unexpected: {e}")


if __name__ == "__main__":
    main([])
