"""Gradient accumulation done right, in the ways real code averages it, and modulo guards
that are not accumulation at all.

The shapes follow real loops: nanoGPT's `loss = loss / gradient_accumulation_steps`
(karpathy/nanoGPT train.py), the transformers examples' `loss = loss /
args.gradient_accumulation_steps`, NVIDIA's MaskRCNN dividing `param.grad.data` instead of the
loss (NVIDIA/DeepLearningExamples#625: "it is equivalent to either divide the gradient or
the loss"), a summed loss with its own normaliser, and a logging interval.
https://github.com/NVIDIA/DeepLearningExamples/issues/625
"""

import torch
from torch import nn
import torch.nn.functional as F


def nanogpt_style(model, get_batch, optimizer, gradient_accumulation_steps, max_iters):
    for it in range(max_iters):
        for micro_step in range(gradient_accumulation_steps):
            X, Y = get_batch("train")
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
            loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def divided_in_place(model, loader, accum_iter=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y)
        loss /= accum_iter
        loss.backward()
        if (i + 1) % accum_iter == 0:
            optimizer.step()
            optimizer.zero_grad()


def divided_inline(model, loader, k=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        (F.cross_entropy(model(x), y) / k).backward()
        if (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad()


def mean_by_multiplication(model, loader, k=2):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scale = 1.0 / k
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y) * scale
        loss.backward()
        if (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad()


def gradients_divided(model, loader, steps=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if (i + 1) % steps == 0:
            for param in model.parameters():
                if param.grad is not None:
                    param.grad.data /= steps
            optimizer.step()
            optimizer.zero_grad()


def learning_rate_scaled(model, loader, base_lr, k=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=base_lr / k)
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad()


def summed_with_token_count(model, loader, k=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss(reduction="sum")
    for i, (x, y, n_tokens) in enumerate(loader):
        loss = criterion(model(x), y) / n_tokens
        loss.backward()
        if (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad()


def loss_from_a_helper(model, loader, k=4):
    # The loss is computed by a function of the file: it may divide (here it does).
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss = compute_loss(model, x, y)
        loss.backward()
        if (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad()


def compute_loss(model, x, y):
    return F.cross_entropy(model(x), y) / 4


def logging_interval(model, loader, log_interval=10):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if i % log_interval == 0:
            print(i, loss.item())


def every_step(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if (i + 1) % 1 == 0:
            optimizer.step()
            optimizer.zero_grad()


def accumulation_in_a_helper(model, loader, train_step, k=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        train_step(model, x, y)
        if (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad()


def wgan_n_critic(generator, discriminator, dataloader, latent_dim, n_critic=5, clip=0.01):
    # eriklindernoren/PyTorch-GAN implementations/wgan/wgan.py: the critic is updated on every
    # iteration (its own zero_grad and step), the generator every n_critic iterations with a
    # backward of its own inside the guard. Nothing accumulates.
    optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
    optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=5e-5)
    for i, (imgs, _) in enumerate(dataloader):
        optimizer_D.zero_grad()
        z = torch.randn(imgs.shape[0], latent_dim)
        fake_imgs = generator(z).detach()
        loss_D = -torch.mean(discriminator(imgs)) + torch.mean(discriminator(fake_imgs))
        loss_D.backward()
        optimizer_D.step()
        for p in discriminator.parameters():
            p.data.clamp_(-clip, clip)
        if i % n_critic == 0:
            optimizer_G.zero_grad()
            loss_G = -torch.mean(discriminator(generator(z)))
            loss_G.backward()
            optimizer_G.step()


def skipped_steps_not_accumulation(model, loader, k=4):
    # Gradients are cleared on every iteration: nothing accumulates (the step is only
    # skipped), so there is no sum to average.
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if (i + 1) % k == 0:
            optimizer.step()
            optimizer.zero_grad()


def accelerate_style(accelerator, model, loader, optimizer, accumulation_steps=4):
    # `accelerator.backward(loss)` under `accelerator.accumulate(model)` divides the loss by
    # the accumulation steps itself (huggingface/accelerate).
    for step, batch in enumerate(loader):
        with accelerator.accumulate(model):
            outputs = model(**batch)
            loss = outputs.loss
            accelerator.backward(loss)
            if (step + 1) % accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()


def mixed_precision_divided(model, loader, criterion, accum_iter=4):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")
    for i, (images, targets) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(images), targets) / accum_iter
        scaler.scale(loss).backward()
        if (i + 1) % accum_iter == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


class AliasedRescaler:
    """torchtune's full_finetune_distributed recipe (as torch-preflight's own look-alike
    reduces it): the gradients are divided by the token count through an alias of
    `training.scale_grads_`, code the analysis cannot see, given the parameters."""

    def setup(self, training):
        self._grad_scaler = torch.compile(training.scale_grads_)

    def train(self, loader, optimizer, accumulation_steps, loss_fn):
        num_tokens = 0
        for i, (batch, y) in enumerate(loader):
            loss = loss_fn(self._model(batch), y)
            loss.backward()
            num_tokens += y.numel()
            if (i + 1) % accumulation_steps == 0:
                self._grad_scaler(list(self._model.parameters()), 1 / num_tokens)
                optimizer.step()
                optimizer.zero_grad()
