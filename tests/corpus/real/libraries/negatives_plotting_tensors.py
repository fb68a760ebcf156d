"""The fixed forms of `plotting_tensors.py`: numbers or detached tensors are plotted.

Sources: the fixes in
https://github.com/CIS-522/course-content/pull/2 (`losses.append(loss.detach())`),
https://github.com/arthurdouillard/deepcourse/issues/11 (the same), and
https://github.com/DeepReinforcementLearning/DeepReinforcementLearningInAction/issues/42
(`loss.item()`).
"""

import matplotlib.pyplot as plt
import torch


def fit_line(x, y, num_epochs=50):
    w = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.01)
    detached, numbers = [], []
    for _ in range(num_epochs):
        optimizer.zero_grad()
        loss = ((w * x - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        detached.append(loss.detach())
        numbers.append(loss.item())
    plt.plot(range(num_epochs), detached)
    plt.plot(numbers)
    plt.scatter(x, (w * x).detach())
    with torch.no_grad():
        plt.plot(x, w * x)
    plt.plot(x, y, "r-", label="data")
    plt.title("loss")


def show(model, noise):
    image = model(noise).view(8, 8)
    plt.imshow(image.detach())
    plt.imshow(image.argmax(1).view(1, 8))
