"""GG103 - backward() on model outputs that forward() unwrapped with .data.

Category: GG103 (value cut from the graph by .detach()/.data).
The mistake: the model's forward() ends with `outputs = outputs.data` when
return_tensor=True (a leftover from the Variable era, meant for inference
callers).  Fine-tuning calls the model with the default return_tensor=True,
so the loss is built from a tensor with no history and backward() raises
    RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
This file: BUGGY version.
Modelled on: https://github.com/huggingface/torchMoji/issues/21
"""
import os
import sys
import tempfile

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

NB_TOKENS, EMB, HID, NB_CLASSES, MAXLEN = 60, 16, 12, 2, 12


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.attention_vector = nn.Parameter(torch.randn(dim) * 0.05)

    def forward(self, x, lengths):
        logits = x.matmul(self.attention_vector)
        mask = torch.arange(x.size(1))[None, :] < lengths[:, None]
        logits = logits.masked_fill(~mask, -1e9)
        weights = torch.softmax(logits, dim=1)
        return (x * weights.unsqueeze(-1)).sum(1), weights


class EmojiModel(nn.Module):
    def __init__(self, nb_classes, nb_tokens, feature_output=False, return_attention=False):
        super().__init__()
        self.feature_output = feature_output
        self.return_attention = return_attention
        self.embed = nn.Embedding(nb_tokens, EMB)
        self.lstm_0 = nn.LSTM(EMB, HID, batch_first=True, bidirectional=True)
        self.lstm_1 = nn.LSTM(2 * HID, HID, batch_first=True, bidirectional=True)
        self.attention_layer = Attention(4 * HID + EMB)
        self.output_layer = nn.Linear(4 * HID + EMB, nb_classes)

    def forward(self, input_seqs, return_tensor=True):
        lengths = (input_seqs != 0).sum(1).clamp(min=1)
        x = torch.tanh(self.embed(input_seqs))
        lstm_0_output, _ = self.lstm_0(x)
        lstm_1_output, _ = self.lstm_1(lstm_0_output)
        x = torch.cat((lstm_1_output, lstm_0_output, x), dim=2)
        x, att_weights = self.attention_layer(x, lengths)
        outputs = x if self.feature_output else self.output_layer(x)
        if return_tensor:
            outputs = outputs.data
        if self.return_attention:
            return outputs, att_weights
        return outputs


def freeze_layers(model, unfrozen_keyword="output_layer"):
    for name, param in model.named_parameters():
        param.requires_grad = unfrozen_keyword in name or "attention" in name


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    return correct / total


def fit_model(model, loss_op, optim_op, train_gen, val_gen, epochs, checkpoint_path):
    best_acc = -1.0
    for epoch in range(epochs):
        model.train()
        for i, (X, y) in enumerate(train_gen):
            optim_op.zero_grad()
            output = model(X)
            loss = loss_op(output, y)
            loss.backward()  # bug: GG103
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optim_op.step()
        acc = evaluate(model, val_gen)
        print(f"epoch {epoch}: loss {loss.item():.4f} val acc {acc:.3f}")
        if acc > best_acc:
            best_acc = acc
            torch.save(model.state_dict(), checkpoint_path)
    return best_acc


def finetune(model, texts, labels, method="last", epochs=2, batch_size=8):
    if method == "last":
        freeze_layers(model)
    ds = TensorDataset(texts, labels)
    train_gen = DataLoader(ds, batch_size=batch_size, shuffle=True)
    val_gen = DataLoader(ds, batch_size=batch_size)
    optim_op = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    with tempfile.TemporaryDirectory() as tmp:
        return fit_model(model, nn.CrossEntropyLoss(), optim_op, train_gen, val_gen,
                         epochs, os.path.join(tmp, "finetuned.pt"))


def main():
    torch.manual_seed(0)
    texts = torch.randint(1, NB_TOKENS, (32, MAXLEN))
    texts[:, 9:] = 0
    labels = torch.randint(0, NB_CLASSES, (32,))
    model = EmojiModel(NB_CLASSES, NB_TOKENS)
    print("best acc", finetune(model, texts, labels))


if __name__ == "__main__":
    try:
        main()
    except (RuntimeError, AttributeError) as err:
        print(f"BUGGY: {str(err).splitlines()[0]}")
        sys.exit(0)
    raise SystemExit("NO BUG")
