"""BERT-style classifier head ends in Softmax and is trained with CrossEntropyLoss.

Modelled on: https://github.com/sugi-chan/custom_bert_pipeline/issues/1

The issue asks why the custom BERT pipeline applies Softmax to the model
output before nn.CrossEntropyLoss, which already applies log_softmax.  With
the double softmax the loss is computed on probabilities squeezed into [0, 1]:
it can never approach zero (even for perfectly confident, correct outputs) and
the gradients are flattened, so training stalls.
"""
import torch
import torch.nn as nn


class TinyEncoder(nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.layer = nn.TransformerEncoderLayer(dim, 2, 32, batch_first=True, dropout=0.0)

    def forward(self, ids):
        return self.layer(self.emb(ids))[:, 0]


class BertForSentiment(nn.Module):
    def __init__(self, n_classes=3, dim=16):
        super().__init__()
        self.bert = TinyEncoder(dim=dim)
        self.classifier = nn.Linear(dim, n_classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, ids):
        return self.softmax(self.classifier(self.bert(ids)))


def train_model(model, criterion, optimizer, batches, num_epochs=1):
    for _ in range(num_epochs):
        for ids, labels in batches:
            optimizer.zero_grad()
            outputs = model(ids)
            loss = criterion(outputs, labels)  # bug: GG110
            loss.backward()
            optimizer.step()
    return model


def loss_floor(model, criterion):
    """Loss the criterion gives for a perfectly confident correct prediction."""
    logits = torch.tensor([[50.0, -50.0, -50.0]])
    out = model.softmax(logits)
    return criterion(out, torch.tensor([0])).item()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = BertForSentiment()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    batches = [(torch.randint(0, 50, (4, 6)), torch.randint(0, 3, (4,))) for _ in range(2)]
    train_model(model, criterion, opt, batches)
    floor = loss_floor(model, criterion)
    if floor > 0.4:
        print(f"BUGGY: double softmax, loss for a perfect prediction is {floor:.3f}, not ~0")
    else:
        print("loss floor ok")
