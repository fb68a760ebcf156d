"""Optimizers that arrive as parameters, known from how they are used (GG601, GG605).

A name of unknown value is an optimizer when it is named like one and `step()` (with at most
a closure) or `zero_grad()` is called on it. The positives below keep the shape of the
training functions in the reports cited; the negatives are the look-alikes that must stay
silent: every way real code clears gradients, accumulation every k steps, steps that take
arguments (a GradScaler's, an environment's), and names that only look like optimizers.

Sources (rewritten in our own words, structure kept):
* https://github.com/yastrebksv/TennisCourtDetector/issues/7 - `train(model, train_loader,
  optimizer, criterion, ...)` never zeroes the gradients.
* https://discuss.pytorch.org/t/why-do-we-need-to-set-the-gradients-manually-to-zero-in-pytorch/4903
  - the question every new user asks; the answer's loop clears with `optimizer.zero_grad()`.
* https://github.com/pytorch/examples/blob/main/mnist/main.py - `train(args, model, device,
  train_loader, optimizer, epoch)`, the shape most training functions copy.
"""

import torch
from torch import nn


def train_epoch(model, loader, optimizer, criterion):
    model.train()
    for images, labels in loader:  # expect: GG601
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()


def train_gan_generator(generator, discriminator, opt_g, noise_batches):
    for z in noise_batches:  # expect: GG601
        fake = generator(z)
        loss_g = -discriminator(fake).mean()
        loss_g.backward()
        opt_g.step()


def clear_after_backward(model, loader, optimizer):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.zero_grad()  # expect: GG605
        optimizer.step()


# ---- negatives ------------------------------------------------------------------------


def mnist_style_train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = nn.functional.nll_loss(output, target)
        loss.backward()
        optimizer.step()


def cleared_on_the_model(model, loader, optimizer):
    for x, y in loader:
        model.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()


def accumulated_every_k(model, loader, optimizer, accumulation_steps):
    for i, (x, y) in enumerate(loader):
        loss = nn.functional.mse_loss(model(x), y) / accumulation_steps
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


def amp_step(model, loader, optimizer, scaler):
    for x, y in loader:
        with torch.autocast("cpu"):
            loss = nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)


def actor_critic(policy, env, optim, episodes):
    for _ in range(episodes):
        state = env.reset()
        action, log_prob = policy(state)
        state, reward, done, _ = env.step(action)
        loss = -(log_prob * reward)
        optim.zero_grad()
        loss.backward()
        optim.step()


def lbfgs(model, x, y, optimizer, iterations):
    def closure():
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    for _ in range(iterations):
        optimizer.step(closure)


def scheduler_named_like_a_step(model, loader, optimizer, lr_schedule):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        lr_schedule.step()


def step_takes_an_argument(model, loader, opt_helper):
    # Not an optimizer's step: it is given the loss (a wrapper that clears, steps and logs).
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt_helper.step(loss)


def options_are_not_optimizers(model, loader, options):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        options.step()
