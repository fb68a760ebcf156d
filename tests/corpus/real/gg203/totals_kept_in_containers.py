"""Running totals kept in a tensor buffer or a dict, given the loss tensor (GG203).

Sources (rewritten in our own words, structure kept):
* https://github.com/pytorch/examples/blob/main/distributed/FSDP/utils/train_utils.py -
  `train()` sums `loss.item()` into `fsdp_loss[0]`, a two-element tensor buffer made before
  the loop; summing the loss tensor itself (the mistake modelled here) links every batch's
  graph into the buffer.
* https://github.com/WongKinYiu/YOLO/pull/83 - a loss helper returns the total and its named
  parts; the running sums live in a dict.
* https://discuss.pytorch.org/t/cuda-memory-continuously-increases-when-net-images-called-in-every-iteration/501
  - memory growing by one graph per iteration from a running total.
"""

import torch


def train(model, rank, train_loader, optimizer, epoch):
    model.train()
    fsdp_loss = torch.zeros(2).to(rank)
    for batch in train_loader:
        optimizer.zero_grad()
        output = model(input_ids=batch["source_ids"], labels=batch["target_ids"])
        loss = output["loss"]
        loss.backward()
        optimizer.step()
        fsdp_loss[0] += loss  # expect: GG203
        fsdp_loss[1] += len(batch)
    return fsdp_loss[0] / fsdp_loss[1]


def train_one_epoch(model, loss_fn, optimizer, dataloader):
    totals = {"loss": 0.0}
    for images, targets in dataloader:
        optimizer.zero_grad()
        loss, loss_items = loss_fn(model(images), targets)
        loss.backward()
        optimizer.step()
        totals["loss"] += loss  # expect: GG203
    return totals


# ---- negatives ------------------------------------------------------------------------


def train_numbers(model, rank, train_loader, optimizer):
    fsdp_loss = torch.zeros(2).to(rank)
    for batch in train_loader:
        optimizer.zero_grad()
        loss = model(batch).sum()
        loss.backward()
        optimizer.step()
        fsdp_loss[0] += loss.item()
        fsdp_loss[1] += loss.detach()
    return fsdp_loss


def totals_backpropagated(model, loader, optimizer):
    # The buffer is the objective: summed, then backpropagated once.
    losses = torch.zeros(1)
    optimizer.zero_grad()
    for x in loader:
        losses[0] += model(x).sum()
    losses.sum().backward()
    optimizer.step()


def fresh_each_iteration(model, loader, optimizer):
    for x in loader:
        parts = {"main": 0.0}
        optimizer.zero_grad()
        loss, aux = model(x)
        loss.backward()
        optimizer.step()
        parts["main"] += loss
        print(parts)
