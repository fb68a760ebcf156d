"""GG113 - softmax output given to nll_loss (fixed).

forward() returns log_softmax scores; the decoder can still take argmax (or exp() them),
and F.nll_loss now receives log-probabilities.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = -100


class GRUTagger(nn.Module):
    def __init__(self, vocab_size, n_tags, emb=16, hidden=24):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb, padding_idx=0)
        self.gru = nn.GRU(emb, hidden, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * hidden, n_tags)

    def forward(self, tokens):
        h, _ = self.gru(self.embedding(tokens))
        return torch.log_softmax(self.proj(h), dim=-1)


class SequenceNLLLoss(nn.Module):
    def __init__(self, ignore_index=PAD):
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, tag_scores, tags):
        n_tags = tag_scores.size(-1)
        return F.nll_loss(tag_scores.reshape(-1, n_tags), tags.reshape(-1), ignore_index=self.ignore_index)  # fixed: GG113


def make_batch(batch=16, length=9, vocab=30, n_tags=5):
    tokens = torch.randint(1, vocab, (batch, length))
    tags = tokens % n_tags
    lengths = torch.randint(5, length + 1, (batch,))
    mask = torch.arange(length)[None, :] >= lengths[:, None]
    tokens[mask] = 0
    tags[mask] = PAD
    return tokens, tags


def train_epoch(model, criterion, optimizer, batches):
    model.train()
    metrics = {"loss": 0.0, "tokens": 0}
    for tokens, tags in batches:
        scores = model(tokens)
        loss = criterion(scores, tags)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        n = (tags != PAD).sum().item()
        metrics["loss"] += loss.item() * n
        metrics["tokens"] += n
    return metrics["loss"] / metrics["tokens"]


def main():
    torch.manual_seed(0)
    model = GRUTagger(vocab_size=30, n_tags=5)
    criterion = SequenceNLLLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    batches = [make_batch() for _ in range(6)]
    losses = []
    for epoch in range(4):
        losses.append(train_epoch(model, criterion, optimizer, batches))
        print(f"epoch {epoch} loss/token {losses[-1]:.4f}")
    return losses


if __name__ == "__main__":
    losses = main()
    assert min(losses) > 0.0 and losses[-1] < losses[0], losses
    print("FIXED: ok")
