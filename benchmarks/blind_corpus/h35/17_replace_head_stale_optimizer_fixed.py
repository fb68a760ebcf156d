"""Text-classifier trainer with a "fine-tune the last layer" mode.

Modelled on: https://github.com/feedly/transfer-nlp/pull/14

The trainer plugin built its optimizer from model.parameters() when it was
constructed. finetune_last_layer() later froze the body and replaced the
classifier with a fresh nn.Linear for the new label set. The review on the
PR pointed out that the optimizer has to be reset afterwards: the old
optimizer still holds the replaced (now detached) classifier's parameters,
so the new head is never updated.

Fixed version: the optimizer is rebuilt after the head is replaced.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class BagOfWordsClassifier(nn.Module):
    def __init__(self, vocab=50, dim=16, num_labels=3):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab, dim)
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.ReLU())
        self.classifier = nn.Sequential(nn.Dropout(0.0), nn.Linear(dim, num_labels))
        self.num_labels = num_labels

    def forward(self, tokens):
        return self.classifier(self.encoder(self.embedding(tokens)))


class SingleTaskTrainer:
    def __init__(self, model, lr=0.1):
        self.model = model
        self.lr = lr
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr)

    def finetune_last_layer(self, num_labels):
        for p in self.model.parameters():
            p.requires_grad = False
        in_features = self.model.classifier[-1].in_features
        layers = list(self.model.classifier.children())[:-1]
        layers.append(nn.Linear(in_features, num_labels))
        self.model.classifier = nn.Sequential(*layers)
        self.model.num_labels = num_labels
        self.reset_optimizer()

    def reset_optimizer(self):
        trainable = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.SGD(trainable, lr=self.lr)

    def train_epoch(self, batches):
        self.model.train()
        for tokens, labels in batches:
            self.optimizer.zero_grad()
            loss = F.cross_entropy(self.model(tokens), labels)
            loss.backward()
            self.optimizer.step()


def make_batches(num_labels, n=4):
    g = torch.Generator().manual_seed(0)
    return [(torch.randint(0, 50, (6, 5), generator=g), torch.randint(0, num_labels, (6,), generator=g)) for _ in range(n)]


if __name__ == "__main__":
    torch.manual_seed(0)
    trainer = SingleTaskTrainer(BagOfWordsClassifier())
    trainer.train_epoch(make_batches(3))
    trainer.finetune_last_layer(num_labels=4)
    head = trainer.model.classifier[-1]
    before = head.weight.detach().clone()
    trainer.train_epoch(make_batches(4))
    if torch.equal(before, head.weight.detach()):
        print("BUGGY: the new classifier head was never updated by the optimizer")
    else:
        print("FIXED: ok")
