"""GG607 - fixed: model.train() is restored right after each mid-epoch evaluation.

A language-model wrapper evaluates every `evaluate_during_training_steps` steps.
train() calls model.train() once per epoch, before the batch loop; evaluate()
calls model.eval() and returns.  In the buggy version the rest of the epoch then
trained with dropout off; the fix switches back with model.train() right after
the evaluation.

Modelled on: https://github.com/ThilinaRajapakse/simpletransformers/issues/941
"""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

DEFAULT_ARGS = {
    "vocab_size": 40, "emb": 32, "hidden": 48, "dropout": 0.3, "block_size": 12,
    "train_batch_size": 4, "num_train_epochs": 2, "learning_rate": 3e-3,
    "evaluate_during_training": True, "evaluate_during_training_steps": 3,
    "max_grad_norm": 1.0, "output_dir": None,
}


class GRULanguageModel(nn.Module):
    def __init__(self, vocab, emb, hidden, dropout):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.drop = nn.Dropout(dropout)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.lm_head = nn.Linear(hidden, vocab)

    def forward(self, input_ids, labels=None):
        h, _ = self.rnn(self.drop(self.embed(input_ids)))
        logits = self.lm_head(self.drop(h))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return loss, logits


class LanguageModelingModel:
    def __init__(self, args):
        self.args = dict(DEFAULT_ARGS, **args)
        a = self.args
        self.model = GRULanguageModel(a["vocab_size"], a["emb"], a["hidden"], a["dropout"])
        self.mode_log = []

    def train(self, train_dataset, eval_dataset):
        a = self.args
        model = self.model
        loader = DataLoader(train_dataset, batch_size=a["train_batch_size"], shuffle=True)
        optimizer = torch.optim.AdamW(model.parameters(), lr=a["learning_rate"])
        global_step = 0
        for epoch in range(a["num_train_epochs"]):
            model.train()
            for step, (input_ids,) in enumerate(loader):
                self.mode_log.append(model.training)
                loss, _ = model(input_ids, labels=input_ids)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), a["max_grad_norm"])
                optimizer.step()
                optimizer.zero_grad()
                global_step += 1
                if a["evaluate_during_training"] and global_step % a["evaluate_during_training_steps"] == 0:
                    results = self.eval_model(eval_dataset)
                    model.train()  # fixed: GG607
                    print(f"step {global_step}: train loss {loss.item():.3f} eval ppl {results['perplexity']:.2f}")
                    self._save_model(os.path.join(a["output_dir"], f"checkpoint-{global_step}"))
        return global_step

    def eval_model(self, eval_dataset):
        return self.evaluate(eval_dataset)

    def evaluate(self, eval_dataset):
        model = self.model
        model.eval()
        loader = DataLoader(eval_dataset, batch_size=8)
        total, n = 0.0, 0
        with torch.no_grad():
            for (input_ids,) in loader:
                loss, _ = model(input_ids, labels=input_ids)
                total += loss.item()
                n += 1
        return {"eval_loss": total / n, "perplexity": math.exp(total / n)}

    def _save_model(self, output_dir):
        os.makedirs(output_dir, exist_ok=True)
        torch.save(self.model.state_dict(), os.path.join(output_dir, "pytorch_model.bin"))


def main():
    torch.manual_seed(0)
    a = DEFAULT_ARGS
    train_ds = TensorDataset(torch.randint(0, a["vocab_size"], (40, a["block_size"])))
    eval_ds = TensorDataset(torch.randint(0, a["vocab_size"], (16, a["block_size"])))
    with tempfile.TemporaryDirectory() as tmp:
        lm = LanguageModelingModel({"output_dir": tmp})
        lm.train(train_ds, eval_ds)
    return lm.mode_log


if __name__ == "__main__":
    modes = main()
    assert all(modes), modes
    print("FIXED: ok")
