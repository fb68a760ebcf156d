"""Look-alike: softmax used for reporting probabilities, CE gets the logits.

Modelled on: https://github.com/sugi-chan/custom_bert_pipeline/issues/1 (counterpart)

The forward returns raw logits to nn.CrossEntropyLoss; a separate softmax is
taken for the confidence report and for soft-label distillation with KL-div
on log_softmax, both of which expect probabilities / log-probabilities.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class BertForSentiment(nn.Module):
    def __init__(self, vocab=50, dim=16, n_classes=3):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim)
        self.classifier = nn.Linear(dim, n_classes)

    def forward(self, ids):
        return self.classifier(self.emb(ids))


def train_step(model, teacher_probs, ids, labels, opt, criterion):
    logits = model(ids)
    probs = F.softmax(logits, dim=1)
    loss = criterion(logits, labels) + F.kl_div(F.log_softmax(logits, 1), teacher_probs, reduction="batchmean")
    opt.zero_grad()
    loss.backward()
    opt.step()
    return probs.max(1).values.mean().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = BertForSentiment()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    ids, labels = torch.randint(0, 50, (4, 6)), torch.randint(0, 3, (4,))
    teacher = F.softmax(torch.randn(4, 3), dim=1)
    conf = train_step(model, teacher, ids, labels, opt, nn.CrossEntropyLoss())
    assert 0 < conf <= 1
    print("OK")
