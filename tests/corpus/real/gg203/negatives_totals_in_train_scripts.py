"""The fixed totals of the train scripts: `.item()`, `.detach()`, or numbers from the start.

Sources (rewritten in our own words, structure kept):
* https://github.com/bubbliiiing/yolo3-pytorch/issues/3 - the suggested `total_loss += loss.item()`.
* https://github.com/ajhamdi/MVTN/issues/2 - the maintainer's update: `.item()`.
* https://github.com/pai4451/ML2021/issues/2 - `train_loss += output.loss.detach()`.
* https://github.com/ray-project/ray/pull/40940 - the merged fix: `loss_sum += loss.item()`.
"""

import torch
from torch import nn


def fit_one_epoch(net, yolo_losses, optimizer, epoch_size, gen):
    total_loss = 0
    for iteration, batch in enumerate(gen):
        if iteration >= epoch_size:
            break
        images, targets = batch
        optimizer.zero_grad()
        outputs = net(images)
        losses = [yolo_losses[i](outputs[i], targets)[0] for i in range(3)]
        loss = sum(losses)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    return total_loss / (iteration + 1)


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
        total_correct = 0
        for rendered, targets in loader:
            outputs = mvnetwork(rendered)
            loss = criterion(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
            total_correct += (outputs.argmax(1) == targets).sum()
        print(epoch, total_loss / len(loader), total_correct)


def train_mvtn_detached(loader):
    mvnetwork = MVNetwork()
    optimizer = torch.optim.AdamW(mvnetwork.parameters(), lr=1e-3)
    total_loss = torch.zeros(())
    for rendered, targets in loader:
        loss = nn.functional.cross_entropy(mvnetwork(rendered), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.detach()
    return total_loss


def train_mvtn_accumulated_views(loader, views_per_step):
    mvnetwork = MVNetwork()
    optimizer = torch.optim.AdamW(mvnetwork.parameters(), lr=1e-3)
    for rendered, targets in loader:
        optimizer.zero_grad()
        step_loss = 0.0
        for chunk in rendered.split(views_per_step * 4):
            step_loss += nn.functional.cross_entropy(mvnetwork(chunk), targets[: chunk.shape[0] // 4])
        step_loss.backward()
        optimizer.step()


def training_function(model, optimizer, train_dataloader, num_epochs):
    for epoch in range(num_epochs):
        loss_sum = 0.0
        for step, batch in enumerate(train_dataloader):
            outputs = model(**batch)
            loss = outputs.loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss_sum += loss.item()
        print(epoch, loss_sum / (step + 1))


# Look-alikes of ML2021#2 (`train_loss += output.loss` then `output.loss.backward()`):
# the total takes the number, or the attribute is replaced before it is read.
def train_qa_numbers(model, train_loader, optimizer):
    train_loss = 0.0
    for data in train_loader:
        output = model(input_ids=data[0])
        train_loss += output.loss.item()
        output.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return train_loss


def train_qa_replaced(model, train_loader, optimizer):
    train_loss = 0.0
    for data in train_loader:
        output = model(input_ids=data[0])
        output.loss.backward()
        output.loss = output.loss.detach()
        train_loss += output.loss
        optimizer.step()
        optimizer.zero_grad()
    return train_loss
