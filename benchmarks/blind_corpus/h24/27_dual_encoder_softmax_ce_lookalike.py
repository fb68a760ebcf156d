"""GG110 look-alike - softmax output given to cross_entropy, as the *target*.

Response-selection distillation: the teacher's scores are turned into a
probability distribution with softmax and passed as the soft target of
F.cross_entropy, while the student's raw logits are the input.  That is the
documented use of probability targets, not a double softmax.  Softmax is also
used in evaluate() for recall@1, outside the loss.

Modelled on: https://github.com/IBM/dstc-noesis/issues/18 (logits kept for the loss)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, EMB, HIDDEN, N_CAND, TEMP = 50, 16, 24, 5, 2.0


class DualEncoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.ctx = nn.GRU(EMB, hidden, batch_first=True)
        self.resp = nn.GRU(EMB, hidden, batch_first=True)

    def forward(self, context, candidates):
        b, c, t = candidates.shape
        _, hc = self.ctx(self.embedding(context))
        _, hr = self.resp(self.embedding(candidates.view(b * c, t)))
        return torch.bmm(hr[-1].view(b, c, -1), hc[-1].unsqueeze(2)).squeeze(2)


def distill_loss(student_logits, teacher_logits, target, alpha=0.5):
    soft_target = F.softmax(teacher_logits / TEMP, dim=1)
    kd = F.cross_entropy(student_logits / TEMP, soft_target)
    hard = F.cross_entropy(student_logits, target)
    return alpha * kd + (1 - alpha) * hard


@torch.no_grad()
def evaluate(model, data):
    contexts, candidates, targets = data
    probs = F.softmax(model(contexts, candidates), dim=1)
    return (probs.argmax(1) == targets).float().mean().item()


def main():
    torch.manual_seed(0)
    n = 24
    contexts = torch.randint(0, VOCAB, (n, 10))
    candidates = torch.randint(0, VOCAB, (n, N_CAND, 6))
    targets = torch.randint(0, N_CAND, (n,))
    teacher, student = DualEncoder(32).eval(), DualEncoder(HIDDEN)
    opt = torch.optim.Adam(student.parameters(), lr=1e-2)
    w0 = student.ctx.weight_ih_l0.detach().clone()
    for epoch in range(3):
        with torch.no_grad():
            t_logits = teacher(contexts, candidates)
        loss = distill_loss(student(contexts, candidates), t_logits, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"epoch {epoch}: loss {loss.item():.4f} R@1 {evaluate(student, (contexts, candidates, targets)):.2f}")
    assert not torch.equal(w0, student.ctx.weight_ih_l0)


if __name__ == "__main__":
    main()
    print("OK")
