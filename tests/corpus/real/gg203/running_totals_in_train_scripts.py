"""More running totals that add the loss tensor itself in a training loop (GG203).

Sources (rewritten in our own words, structure kept):
* https://github.com/bubbliiiing/yolo3-pytorch/issues/3 - `fit_one_epoch` in train.py sums the
  losses of the three YOLO heads per batch, then `total_loss += loss`.
* https://github.com/ajhamdi/MVTN/issues/2 - the multi-view training loop adds the loss tensor
  to `total_loss`; the second epoch is killed by the OOM killer.
* https://github.com/pai4451/ML2021/issues/2 - HW7 question answering: `train_loss += output.loss`
  with the Hugging Face model output; 64 GB of RAM filled up.
* https://github.com/ray-project/ray/pull/40940 - finetune_hf_llm.py: `loss_sum += loss` inside
  the `training_function` loop.
"""

import torch
from torch import nn


# Source: yolo3-pytorch#3, fit_one_epoch(net, yolo_losses, epoch, epoch_size, gen, ...).
def fit_one_epoch(net, yolo_losses, optimizer, epoch, epoch_size, gen):
    total_loss = 0
    for iteration, batch in enumerate(gen):
        if iteration >= epoch_size:
            break
        images, targets = batch
        optimizer.zero_grad()
        outputs = net(images)
        losses = []
        for i in range(3):
            loss_item = yolo_losses[i](outputs[i], targets)
            losses.append(loss_item[0])
        loss = sum(losses)
        loss.backward()
        optimizer.step()
        total_loss += loss  # expect: GG203
    return total_loss / (iteration + 1)


# Source: MVTN#2, train loop of the multi-view network; the model is built by the script.
class MVNetwork(nn.Module):
    def __init__(self, views=4, classes=10):
        super().__init__()
        self.views = views
        self.backbone = nn.Linear(32, 16)
        self.head = nn.Linear(16, classes)

    def forward(self, rendered):
        feats = self.backbone(rendered).view(-1, self.views, 16).max(dim=1)[0]
        return self.head(feats)


def train_mvtn(loader, epochs):
    mvnetwork = MVNetwork()
    optimizer = torch.optim.AdamW(mvnetwork.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        total_loss = 0.0
        for rendered, targets in loader:
            outputs = mvnetwork(rendered)
            loss = criterion(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss  # expect: GG203
        print(epoch, total_loss / len(loader))


# Source: ML2021#2, HW7 training loop; the model returns an output object with a loss.
def train_qa(model, train_loader, optimizer, num_epoch):
    model.train()
    for epoch in range(num_epoch):
        train_loss = train_acc = 0
        for data in train_loader:
            output = model(input_ids=data[0], token_type_ids=data[1], attention_mask=data[2], start_positions=data[3], end_positions=data[4])
            start_index = torch.argmax(output.start_logits, dim=1)
            end_index = torch.argmax(output.end_logits, dim=1)
            train_acc += ((start_index == data[3]) & (end_index == data[4])).float().mean()
            train_loss += output.loss  # expect: GG203
            output.loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(epoch, train_loss / len(train_loader), train_acc / len(train_loader))


# Source: ray#40940, training_function: the model's outputs carry the loss.
def training_function(model, optimizer, train_dataloader, num_epochs):
    for epoch in range(num_epochs):
        loss_sum = torch.tensor(0.0)
        for step, batch in enumerate(train_dataloader):
            outputs = model(**batch)
            loss = outputs.loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss_sum += loss  # expect: GG203
        print(epoch, loss_sum.item() / (step + 1))
