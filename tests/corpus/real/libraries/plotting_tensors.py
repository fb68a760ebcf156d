"""Loss curves and images plotted with matplotlib while the tensors still require grad:
matplotlib converts its data with `np.asarray`, which calls `Tensor.numpy()` and raises
"Can't call numpy() on Tensor that requires grad".

Sources (rewritten in our own words, structure kept):
* https://github.com/DeepReinforcementLearning/DeepReinforcementLearningInAction/issues/42 -
  a two-layer network trained by hand on MNIST, `losses.append(loss)` every step, then
  `plt.plot(losses)`.
* https://github.com/CIS-522/course-content/pull/2 - `plt.plot(range(num_epochs), losses)`
  after a training loop that appended each epoch's loss tensor.
* https://github.com/arthurdouillard/deepcourse/issues/11 - the autograd notebook plots
  `losses` against `epochs` in a subplot.
* https://github.com/w5688414/BFNN/issues/1 - a list of loss tensors with `grad_fn` given to
  `plt.plot`.
* https://github.com/jacbz/Lofi/issues/14 - per-epoch training losses plotted on
  `axs[0, 0]` of a `plt.subplots` grid.
* https://github.com/source-separation/tutorial/issues/28 - gradient norms and losses
  plotted on the two Axes of `plt.subplots(1, 2)`.
"""

import matplotlib.pyplot as plt
import torch
from matplotlib import pyplot


# Source: DeepReinforcementLearningInAction#42 - weights updated by hand under no_grad.
def two_layer_mnist(images, labels, epochs=100, lr=1e-4):
    w1 = torch.randn(784, 200, requires_grad=True)
    w2 = torch.randn(200, 10, requires_grad=True)
    lossfn = torch.nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs):
        pred = torch.relu(images @ w1) @ w2
        loss = lossfn(pred, labels)
        losses.append(loss)  # expect: GG203
        loss.backward()
        with torch.no_grad():
            w1 -= lr * w1.grad
            w2 -= lr * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    plt.figure(figsize=(10, 7))
    plt.plot(losses)  # expect: GG502


# Source: course-content#2 and deepcourse#11 - epochs on the x axis, in a subplot.
def fit_line(x, y, num_epochs=50):
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([w, b], lr=0.01)
    losses = []
    for _ in range(num_epochs):
        optimizer.zero_grad()
        loss = ((w * x + b - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss)  # expect: GG203
    plt.subplot(1, 2, 1)
    pyplot.plot(range(num_epochs), losses)  # expect: GG502
    plt.subplot(1, 2, 2)
    plt.scatter(x, w * x + b)  # expect: GG502


# A generated image shown before detaching it.
def show_sample(generator, noise):
    fake = generator(noise)
    plt.imshow(torch.sigmoid(fake[0]).permute(1, 2, 0))
    model = torch.nn.Linear(16, 64)
    image = model(noise).view(8, 8)
    plt.imshow(image)  # expect: GG502


# Source: Lofi#14 and source-separation/tutorial#28 - the Axes of a subplot grid.
def report(model, batches, optimizer, epochs=3):
    train_losses, grad_norms = [], []
    for _ in range(epochs):
        for x, y in batches:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            train_losses.append(loss)  # expect: GG203
            grad_norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
    fig, axs = plt.subplots(2, 2, figsize=(10, 8))
    axs[0, 0].plot(range(len(train_losses)), train_losses, label="Train")  # expect: GG502
    axs[0, 1].plot(grad_norms)
    _, ax = plt.subplots()
    ax.plot([loss.item() for loss in train_losses])
    twin = ax.twinx()
    twin.plot(torch.stack(train_losses))  # expect: GG502
