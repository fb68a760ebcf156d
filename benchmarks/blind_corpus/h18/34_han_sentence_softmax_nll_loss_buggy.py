"""GG113 - Hierarchical Attention Network ends in softmax but trains with NLLLoss.

A HAN document classifier is split, as in several public implementations, into
a word-level attention model and a sentence-level attention model with separate
optimizers.  The sentence model's final layer returns F.softmax(...), and
train_data() gives that to nn.NLLLoss, which expects log-probabilities.  No
error is raised: NLLLoss just returns minus the probability of the true class,
so the "loss" is negative and bounded in [-1, 0] and the gradients are not those
of cross-entropy.  The script shows the training loss is negative.

Modelled on: https://github.com/pandeykartikey/Hierarchical-Attention-Network/issues/3
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, EMBED, WORD_HID, SENT_HID, N_CLASSES = 60, 16, 12, 12, 3
MAX_SENTS, MAX_WORDS, BATCH = 4, 6, 8


class AttentionWordRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lookup = nn.Embedding(VOCAB, EMBED)
        self.word_gru = nn.GRU(EMBED, WORD_HID, bidirectional=True, batch_first=True)
        self.weight_W_word = nn.Linear(2 * WORD_HID, 2 * WORD_HID)
        self.weight_proj_word = nn.Linear(2 * WORD_HID, 1, bias=False)

    def forward(self, embed_words):
        out, _ = self.word_gru(self.lookup(embed_words))
        u = torch.tanh(self.weight_W_word(out))
        alpha = F.softmax(self.weight_proj_word(u), dim=1)
        return (alpha * out).sum(1)


class AttentionSentRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.sent_gru = nn.GRU(2 * WORD_HID, SENT_HID, bidirectional=True, batch_first=True)
        self.weight_W_sent = nn.Linear(2 * SENT_HID, 2 * SENT_HID)
        self.weight_proj_sent = nn.Linear(2 * SENT_HID, 1, bias=False)
        self.final_linear = nn.Linear(2 * SENT_HID, N_CLASSES)

    def forward(self, word_attention_vectors):
        out, _ = self.sent_gru(word_attention_vectors)
        u = torch.tanh(self.weight_W_sent(out))
        alpha = F.softmax(self.weight_proj_sent(u), dim=1)
        doc = (alpha * out).sum(1)
        return F.softmax(self.final_linear(doc), dim=1)


def train_data(mini_batch, targets, word_attn_model, sent_attn_model, word_optimizer, sent_optimizer, criterion):
    word_optimizer.zero_grad()
    sent_optimizer.zero_grad()
    batch, n_sents, n_words = mini_batch.shape
    word_vectors = word_attn_model(mini_batch.view(batch * n_sents, n_words))
    y_pred = sent_attn_model(word_vectors.view(batch, n_sents, -1))
    loss = criterion(y_pred, targets)  # bug: GG113
    loss.backward()
    word_optimizer.step()
    sent_optimizer.step()
    return loss.item()


def train_early_stopping(n_iters=20):
    torch.manual_seed(0)
    word_attn = AttentionWordRNN()
    sent_attn = AttentionSentRNN()
    word_optimizer = torch.optim.SGD(word_attn.parameters(), lr=0.05, momentum=0.9)
    sent_optimizer = torch.optim.SGD(sent_attn.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.NLLLoss()
    docs = torch.randint(0, VOCAB, (BATCH * 2, MAX_SENTS, MAX_WORDS))
    labels = docs[:, 0, 0] % N_CLASSES
    loss_epoch = []
    for i in range(n_iters):
        idx = torch.randperm(len(docs))[:BATCH]
        loss = train_data(docs[idx], labels[idx], word_attn, sent_attn, word_optimizer, sent_optimizer, criterion)
        loss_epoch.append(loss)
        if i % 5 == 0:
            print(f"iter {i}: loss {loss:.4f}")
    return loss_epoch


if __name__ == "__main__":
    losses = train_early_stopping()
    if min(losses) >= 0:
        raise SystemExit("NO BUG")
    print(f"BUGGY: NLLLoss on softmax output is negative (min loss {min(losses):.4f})")
