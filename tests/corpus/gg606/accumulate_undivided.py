"""Gradient accumulation that sums the micro-batch gradients instead of averaging them.

Modelled on the reports that a training loop backpropagated every micro-batch's mean loss
and stepped every k micro-batches without dividing the loss by k, so the effective step was
k times too large: karpathy/nanoGPT#206 (and #168 it duplicates, fixed in nanoGPT by
`loss = loss / gradient_accumulation_steps`), yandexdataschool/Practical_DL#87 ("fix bug in
gradient accumulation"), ApolloResearch/e2e_sae#70 (the division had been removed by
mistake and was put back: "our losses include means").
https://github.com/karpathy/nanoGPT/issues/206
https://github.com/yandexdataschool/Practical_DL/pull/87
https://github.com/ApolloResearch/e2e_sae/pull/70
"""

import torch
from torch import nn
import torch.nn.functional as F
from transformers import AutoModelForSequenceClassification


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.1))
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.body(x))


def train_classifier(loader, epochs=2, accumulation_steps=4):
    model = Classifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model.train()
    for epoch in range(epochs):
        optimizer.zero_grad()
        for i, (images, labels) in enumerate(loader):
            outputs = model(images)
            loss = criterion(outputs, labels)
            loss.backward()  # expect: GG606
            if (i + 1) % accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()


def finetune(args, train_dataloader, device):
    # The transformers-style loop: the step is guarded by the accumulation count from the
    # command line, the loss comes straight out of the model.
    model = AutoModelForSequenceClassification.from_pretrained(args.model_name)
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer)
    global_step = 0
    for epoch in range(args.num_train_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            batch = {k: v.to(device) for k, v in batch.items()}
            outputs = model(**batch)
            loss = outputs.loss
            loss.backward()  # expect: GG606
            if (step + 1) % args.gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                global_step += 1


def regression(data, accum=8):
    net = nn.Linear(16, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for it, (x, y) in enumerate(data):
        F.mse_loss(net(x), y).backward()  # expect: GG606
        if it % accum == 0:
            opt.step()
            opt.zero_grad()


def train_with_update_flag(model, train_loader, optimizer, device, num_epochs, accumulation_steps=8):
    # The step is guarded by a flag computed from the batch index, as in
    # rasbt/LLMs-from-scratch ch06 additional_experiments.py, here without its `loss /=
    # accumulation_steps`.
    for epoch in range(num_epochs):
        model.train()
        for batch_idx, (input_batch, target_batch) in enumerate(train_loader):
            input_batch, target_batch = input_batch.to(device), target_batch.to(device)
            logits = model(input_batch)[:, -1, :]
            loss = F.cross_entropy(logits, target_batch)
            loss.backward()  # expect: GG606
            is_update_step = (batch_idx + 1) % accumulation_steps == 0 or batch_idx + 1 == len(train_loader)
            if is_update_step:
                optimizer.step()
                optimizer.zero_grad()


def train_mixed_precision(model, loader, criterion, device, accum_iter=4):
    # The usual mixed-precision shape: the GradScaler's factor is divided out again before
    # the step, so the micro-batch losses are still summed, not averaged.
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")
    model.train()
    for i, (images, targets) in enumerate(loader):
        images, targets = images.to(device), targets.to(device)
        with torch.autocast("cuda", dtype=torch.float16):
            outputs = model(images)
            loss = criterion(outputs, targets)
        scaler.scale(loss).backward()  # expect: GG606
        if (i + 1) % accum_iter == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
